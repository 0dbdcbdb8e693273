"""Single-machine relaxations: what one preemptive machine can do at best, three objectives.

The pooled drives of a library and each tape are bounded as one machine of
unit speed whose jobs (:class:`MachineJob`) have an earliest start and some work
(:mod:`solvers.bounds.bounds`). Here are the optima, or lower bounds on
them, of such a machine: its makespan (:func:`makespan`), a bound on its
weighted completion (:func:`weighted_completion`, the mean-busy-time bound)
and on its max weighted flow (:func:`max_weighted_flow`, bisection over
earliest-deadline-first runs, :func:`edf`). Each costs O(n log n) (the max
weighted flow: times the bisection steps).
"""

from __future__ import annotations

import heapq
from typing import NamedTuple

BISECTION_STEPS = 40
"""Most bisection steps of the max-weighted-flow relaxation per library."""

BISECTION_TOLERANCE = 1e-6
"""Relative width at which the max-weighted-flow bisection stops."""

_INF = float("inf")


class MachineJob(NamedTuple):
    """A request on the pooled machine of its library: earliest start, work, weight, release.

    ``span``: a time the request's work certainly occupies on one drive (or
    one tape) in one stretch ending at its end ``C_j``; 0 when nothing more
    than ``work`` is known. :func:`weighted_completion` credits
    ``max(work, span) / 2`` after the mean busy time.
    """

    start: float
    work: float
    weight: float
    release: float
    span: float = 0.0


def makespan(jobs: list[MachineJob], setup: float) -> float:
    """Optimal makespan of the pooled machine: serve in order of earliest start.

    The setup work has no earliest start; it delays whatever follows it.
    """
    t = setup
    for job in sorted(jobs):
        t = max(t, job.start) + job.work
    return t


def weighted_completion(jobs: list[MachineJob]) -> float:
    """Lower bound on sum of ``w_j C_j`` over every schedule of the pooled machine.

    Goemans, Queyranne, Schulz, Skutella and Wang, "Single machine
    scheduling with release dates" (SIAM J. Discrete Math. 15, 2002): the
    preemptive schedule that always runs the available job of largest
    ``w_j / p_j`` minimises the weighted sum of mean busy times ``M_j`` over
    all preemptive (and fractional) schedules, and in every schedule
    ``C_j >= M_j + p_j / 2``, since a job's processing at unit rate that ends
    by ``C_j`` has its mean no later than ``C_j - p_j / 2``. Jobs of no work
    end no earlier than their earliest start. Computed by one sweep over a
    heap: O(n log n).

    On a pooled machine the processing is slower than unit rate: a request
    holding one of ``m`` drives does ``1 / m`` of work per second, so its
    work ``p_j`` is spread over at least ``m p_j`` seconds. What holds for
    the pooled job is a stretch of ``span_j`` seconds ending by ``C_j`` in
    which its work is done at a constant rate, on each of its drives (one
    drive per piece, busy for it from ``S_j - floor`` to ``C_j``: see
    :func:`~solvers.bounds.earliest.locate_floors` and the pooled machines of
    :mod:`solvers.bounds.bounds`); the mean of a set of
    measure ``span_j`` that ends by ``C_j`` is at most ``C_j - span_j / 2``,
    and the job's mean busy time, an average of such means over its drives,
    at most ``C_j - min span / 2``. Hence ``C_j >= M_j + max(p_j, span_j) /
    2``: the correction of Eastman, Even and Isaacs (Management Science 11,
    1964) for ``m`` parallel machines, ``(1 - 1/m) p_j / 2`` more per job than
    the pooled machine alone, made valid with release dates by the mean
    busy time argument above (as in Schulz and Skutella's LP relaxations
    for parallel machines).
    """
    total = 0.0
    timed = sorted((j for j in jobs if j.work > 0), key=lambda j: j.start)
    total += sum(j.weight * j.start for j in jobs if j.work <= 0)
    heap: list[tuple[float, int]] = []
    left = [j.work for j in timed]
    n = len(timed)
    i = 0
    t = 0.0
    while i < n or heap:
        if not heap:
            t = max(t, timed[i].start)
        while i < n and timed[i].start <= t:
            job = timed[i]
            heapq.heappush(heap, (-job.weight / job.work, i))
            i += 1
        ratio, k = heap[0]
        following = timed[i].start if i < n else _INF
        run = left[k]
        if t + run > following:
            run = following - t
            left[k] -= run
        else:
            heapq.heappop(heap)
            job = timed[k]
            total += job.weight * max(job.work, job.span) / 2
        total += -ratio * run * (2 * t + run) / 2
        t += run
    return total


def edf(jobs: list[MachineJob], flow: float) -> tuple[bool, float]:
    """Run preemptive earliest-deadline-first with deadlines ``release + flow / weight``.

    ``jobs`` are sorted by earliest start. EDF meets every deadline whenever
    any schedule of the pooled machine does.

    Returns
    -------
    tuple
        ``(True, F)`` when every deadline is met, ``F`` being the max weighted
        flow of the EDF schedule (an upper bound on the machine's optimum);
        ``(False, G)`` at the first missed deadline, ``G > flow`` being a
        lower bound on the machine's optimum, found as follows. Let ``t`` be
        the late end and ``tau`` the start of the busy stretch before ``t``
        in which EDF ran only jobs of deadline at most the late one's. Every
        job run in ``[tau, t]`` has its earliest start at ``tau`` or later
        (EDF would have run it earlier otherwise), and their work is at
        least ``t - tau``; in any schedule the last of them to end ends at
        ``t`` or later, so the optimum is at least the least ``w_j (t - r_j)``
        over them.
    """
    heap: list[tuple[float, int]] = []
    left = [job.work for job in jobs]
    log: list[tuple[float, float, int]] = []
    deadlines = [job.release + flow / job.weight for job in jobs]
    n = len(jobs)
    i = 0
    t = 0.0
    achieved = 0.0
    while i < n or heap:
        if not heap:
            t = max(t, jobs[i].start)
        while i < n and jobs[i].start <= t:
            heapq.heappush(heap, (deadlines[i], i))
            i += 1
        deadline, k = heap[0]
        following = jobs[i].start if i < n else _INF
        if t + left[k] > following:
            left[k] -= following - t
            log.append((t, following, k))
            t = following
            continue
        heapq.heappop(heap)
        log.append((t, t + left[k], k))
        t += left[k]
        if t > deadline + 1e-12 * max(1.0, abs(deadline)):
            raised = _INF
            edge = t
            for begin, end, j in reversed(log):
                if end != edge or deadlines[j] > deadline:
                    break
                raised = min(raised, jobs[j].weight * (t - jobs[j].release))
                edge = begin
            return False, raised
        achieved = max(achieved, jobs[k].weight * (t - jobs[k].release))
    return True, achieved


def max_weighted_flow(jobs: list[MachineJob], floor: float) -> float:
    """Lower bound, at least ``floor``, on the optimal max of ``w_j (C_j - r_j)`` of the machine.

    Search on the flow ``F`` between a low end, always a proven lower bound
    (``floor``, each job alone, or what a failed EDF run proves), and a high
    end, always the flow of a feasible schedule (serving jobs in order of
    earliest start, or a successful EDF run). The first trial is at the low
    end, which ends the search when that bound is already achievable; the
    following ones bisect. Each EDF run costs O(n log n), and at most
    :data:`BISECTION_STEPS` run.
    """
    if not jobs:
        return floor
    ordered = sorted(jobs, key=lambda j: j.start)
    lo = max(floor, *(j.weight * (j.start + j.work - j.release) for j in ordered))
    hi = 0.0
    t = 0.0
    for job in ordered:
        t = max(t, job.start) + job.work
        hi = max(hi, job.weight * (t - job.release))
    for step in range(BISECTION_STEPS):
        if hi - lo <= BISECTION_TOLERANCE * hi:
            break
        trial = lo if step == 0 else (lo + hi) / 2
        met, flow = edf(ordered, trial)
        if met:
            hi = min(hi, flow)
        else:
            lo = max(lo, flow)
    return lo
