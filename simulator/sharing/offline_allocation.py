"""The offline optimum of the drive allocation over a horizon: the allocators' yardstick.

Knowing every batch in advance, how much drive time should each queue get
in each period? A linear program over a grid of periods of ``period_s``
(PuLP, solved by HiGHS) answers it for the *fluid* relaxation of the run
(:mod:`simulator.sharing.hsm_run`): a queue ``q`` (group, set, kind) receives
``y[q, k]`` drive-seconds of service in period ``k``, its backlog is

    b[q, k] = b[q, k - 1] + W[q, k] - y[q, k] >= 0,

where ``W[q, k]`` is the work (drive-seconds: the platform's time for each
batch alone, :meth:`~simulator.sharing.groups.DriveSet.thread_s`) of the batches arriving in the
period, and, per period, each set gives at most its drives times the
period and each HSM server's drives stream at most its Fibre Channel link
times the period (at native rates). It minimises the backlog area
``sum_k sum_q b[q, k] * period_s``; among the optima, a second solve
minimises the focus group's recall backlog area (the bulk recall's), so that its
completion is the earliest the first optimum allows.

Why it is never worse than a run
    Every run of :mod:`simulator.sharing.hsm_run`, whatever its allocator, gives each
    queue in each period a service that meets these constraints: a thread
    is counted as serving its batch's work from its start, at one
    drive-second a second (``[start, start + work)``, within the span its
    drive is taken: an arm waited for only makes that longer), its threads
    run on at most the set's drives, its servers within their links at
    every instant, and no thread serves work before it arrives. Its
    backlog area on the same grid (:func:`backlog_area`) is therefore the
    objective of a feasible point, and the optimum is at most that. What
    the relaxation drops: a thread is indivisible and holds one drive, a
    queue runs no more threads than it has cartridges, the reserve, and
    the migration caps.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

import pulp
from attrs import frozen

from tapesched.simulator.sharing.allocator import Queue
from tapesched.simulator.sharing.groups import HsmPlatform, TapeBatch
from tapesched.simulator.sharing.hsm_run import ThreadRecord

TOLERANCE_S = 1e-6
"""Backlog (drive-seconds) below which a queue counts as empty."""


@frozen
class OfflineAllocation:
    """The optimum: service per queue and period, and what it gives.

    Attributes
    ----------
    period_s
        The grid's period.
    periods
        Number of periods (the horizon is ``periods * period_s``).
    service_s
        Queue to its drive-seconds of service in each period.
    backlog_area_s2
        The optimum's backlog area, drive-seconds times seconds.
    focus_area_s2
        The focus group's recalls' part of it (after the second solve).
    focus_done_s
        When the focus group's recall work is all served (to a millionth): the end
        of the period where it is, shortened to the earliest that service could
        end at the most drives the group may use (``None``: not within the
        horizon).
    """

    period_s: float
    periods: int
    service_s: dict[Queue, tuple[float, ...]]
    backlog_area_s2: float
    focus_area_s2: float
    focus_done_s: float | None

    def drives_in_use(self, queue: Queue) -> list[float]:
        """Mean drives serving ``queue`` in each period."""
        return [y / self.period_s for y in self.service_s.get(queue, ())]


def _work(platform: HsmPlatform, batches: Sequence[TapeBatch]) -> dict[str, float]:
    sets = {s.id: s for s in platform.drive_sets}
    return {b.id: sets[b.drive_set].thread_s(b) for b in batches}


def arrivals_per_period(
    platform: HsmPlatform, batches: Sequence[TapeBatch], period_s: float, periods: int
) -> dict[Queue, list[float]]:
    """Work arriving in each period, per queue: ``[k * period_s, (k + 1) * period_s)``."""
    work = _work(platform, batches)
    arrived: dict[Queue, list[float]] = defaultdict(lambda: [0.0] * periods)
    for b in batches:
        k = int(b.arrival_s // period_s)
        if k >= periods:
            raise ValueError(f"batch {b.id!r} arrives after the horizon")
        arrived[b.queue][k] += work[b.id]
    return dict(arrived)


def periods_for(horizon_s: float, period_s: float) -> int:
    """Periods of ``period_s`` covering ``[0, horizon_s]``."""
    return max(math.ceil(horizon_s / period_s - 1e-12), 1)


def backlog_area(
    threads: Sequence[ThreadRecord],
    batches: Sequence[TapeBatch],
    platform: HsmPlatform,
    period_s: float,
    periods: int,
    group: str | None = None,
) -> float:
    """A run's backlog area on the grid (of ``group``'s queues only, when given).

    At the end ``t`` of each period the backlog is the work of the batches
    arrived before ``t`` less the service their threads gave by ``t`` (a
    thread serves its batch's work at one drive-second a second from its
    start, ``[start_s, start_s + work_s)``); the area sums the
    backlogs times ``period_s``, as the linear program does.
    """
    work = _work(platform, batches)
    arrived = [0.0] * periods
    for b in batches:
        if group is None or b.group == group:
            arrived[min(int(b.arrival_s // period_s), periods - 1)] += work[b.id]
    kept = [t for t in threads if group is None or t.group == group]
    changes = sorted([(t.start_s, 1) for t in kept] + [(t.start_s + t.work_s, -1) for t in kept])
    area = total = served = 0.0
    running, last, i = 0, 0.0, 0
    for k in range(periods):
        end = (k + 1) * period_s
        while i < len(changes) and changes[i][0] <= end:
            served += running * (changes[i][0] - last)
            last, running = changes[i][0], running + changes[i][1]
            i += 1
        served += running * (end - last)
        last = end
        total += arrived[k]
        area += max(total - served, 0.0) * period_s
    return area


def _solver() -> pulp.LpSolver:
    highs = pulp.HiGHS(msg=False)
    return highs if highs.available() else pulp.PULP_CBC_CMD(msg=False)


def offline_allocation(
    platform: HsmPlatform,
    batches: Sequence[TapeBatch],
    horizon_s: float,
    period_s: float = 300.0,
    focus: str | None = None,
) -> OfflineAllocation:
    """Solve the linear program of the module over ``[0, horizon_s]``.

    Parameters
    ----------
    platform, batches
        What the runs are given.
    horizon_s
        The horizon, covered by whole periods.
    period_s
        The grid; a coarser grid relaxes more, and stays a lower bound.
    focus
        The group whose recall backlog area the second solve minimises.
    """
    if not period_s > 0:
        raise ValueError(f"period_s must be > 0, got {period_s!r}")
    platform.check_batches(batches)
    periods = periods_for(horizon_s, period_s)
    arrived = arrivals_per_period(platform, batches, period_s, periods)
    sets = {s.id: s for s in platform.drive_sets}
    server_of = {g.id: g.server for g in platform.groups}
    queues = sorted(arrived)
    model = pulp.LpProblem("offline_allocation", pulp.LpMinimize)
    y: dict[tuple[Queue, int], pulp.LpVariable] = {}
    b: dict[tuple[Queue, int], pulp.LpVariable] = {}
    names = {q: f"q{i}" for i, q in enumerate(queues)}
    for q in queues:
        first = next(k for k, w in enumerate(arrived[q]) if w > 0)
        previous: pulp.LpAffineExpression | pulp.LpVariable | float = 0.0
        for k in range(first, periods):
            y[(q, k)] = model.add_variable(f"y_{names[q]}_{k}", lowBound=0)
            b[(q, k)] = model.add_variable(f"b_{names[q]}_{k}", lowBound=0)
            model += b[(q, k)] == previous + arrived[q][k] - y[(q, k)], f"flow_{names[q]}_{k}"
            previous = b[(q, k)]
    for k in range(periods):
        for dset in platform.drive_sets:
            terms = [y[(q, k)] for q in queues if q[1] == dset.id and (q, k) in y]
            if terms:
                model += pulp.lpSum(terms) <= dset.drives * period_s, f"drives_{dset.id}_{k}"
        for server in platform.servers:
            terms = [
                sets[q[1]].rate_mb_s * y[(q, k)]
                for q in queues
                if server_of[q[0]] == server.id and (q, k) in y
            ]
            if terms:
                model += pulp.lpSum(terms) <= server.fc_mb_s * period_s, f"fc_{server.id}_{k}"
    total = pulp.lpSum(b.values()) * period_s
    model.setObjective(total)
    solver = _solver()
    model.solve(solver)
    if pulp.LpStatus[model.status] != "Optimal":
        raise RuntimeError(f"the offline allocation is {pulp.LpStatus[model.status]}")
    best = float(pulp.value(total))
    focus_terms = [v for (q, _), v in b.items() if q[0] == focus and q[2] == "recall"]
    focus_area = 0.0
    if focus is not None and focus_terms:
        model += total <= best * (1 + 1e-9) + 1e-3, "first_optimum"
        focused = pulp.lpSum(focus_terms) * period_s
        model.setObjective(focused)
        model.solve(solver)
        if pulp.LpStatus[model.status] != "Optimal":
            raise RuntimeError(f"the focused allocation is {pulp.LpStatus[model.status]}")
        best = float(pulp.value(total))
        focus_area = float(pulp.value(focused))
    service = {
        q: tuple(max(float(y[(q, k)].value() or 0.0), 0.0) if (q, k) in y else 0.0
                 for k in range(periods))
        for q in queues
    }  # fmt: skip
    done = None
    if focus is not None:
        done = _focus_done(platform, focus, queues, service, arrived, period_s, periods)
    return OfflineAllocation(period_s, periods, service, best, focus_area, done)


def _focus_done(
    platform: HsmPlatform,
    focus: str,
    queues: Sequence[Queue],
    service: dict[Queue, tuple[float, ...]],
    arrived: dict[Queue, list[float]],
    period_s: float,
    periods: int,
) -> float | None:
    mine = [q for q in queues if q[0] == focus and q[2] == "recall"]
    if not mine:
        return None
    total = sum(sum(arrived[q]) for q in mine)
    tolerance = 1e-6 * total + 1.0
    served_by = 0.0
    last = None
    for k in range(periods):
        served_by += sum(service[q][k] for q in mine)
        if served_by >= total - tolerance:
            last = k
            break
    if last is None:
        return None
    server = platform.server_of(focus)
    most = 0.0
    for dset in platform.drive_sets:
        if any(q[1] == dset.id for q in mine):
            most += min(dset.drives, server.fc_mb_s / dset.rate_mb_s)
    served = sum(service[q][last] for q in mine)
    return last * period_s + min(served / most, period_s)
