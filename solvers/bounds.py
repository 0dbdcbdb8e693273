"""Lower bounds on the optimum of each objective, valid for every instance.

Exact solvers report them as proven bounds, and heuristics are judged by their
gap to them, so a bound must never exceed the true optimum of any instance,
online or offline. Every bound here costs O(n log n) for n requests (times a
small constant per library), so that it is affordable on 100,000 requests.

Two families, combined by :func:`lower_bound`:

**Each request alone** (:func:`earliest_times`, :func:`request_bound`). A
request's transfer cannot start before its release, nor before each of its
pieces can be ready on some drive of its library, nor before the arms have
mounted those of its tapes that no drive holds at time 0; it then lasts at
least its longest piece at the fastest rate. Other requests can only delay
it. Prefetching is allowed offline, so only the transfer is certainly after
the release: mounts, loads and locates are bounded from time 0.

**Drive time pooled** (:func:`drive_time_bound`). The drives of a library,
pooled into one machine, process the requests preemptively from their
earliest starts; the optimum of that single machine bounds the optimum of the
library. Makespan and the weighted-flow bound of that machine are computed in
O(n log n); the max-weighted-flow optimum of it is found by bisection over
earliest-deadline-first runs.

The arguments of validity are in the docstrings of the functions. The
problem is specified in ``shared/spec/core-problem.md``.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable
from typing import NamedTuple

from toolkit.model import OBJECTIVES, Drive, Instance, Library, Request

MAX_PROFILES = 16
"""Most distinct drive profiles of a library examined one by one per piece.

A library whose drives have more profiles (timings, and whether the drive
holds a tape at time 0) is summarised by one optimistic profile that takes
the best of each timing over its drives, which keeps the cost per piece
constant and the bound valid, only weaker.
"""

BISECTION_STEPS = 40
"""Most bisection steps of the max-weighted-flow relaxation per library."""

BISECTION_TOLERANCE = 1e-6
"""Relative width at which the max-weighted-flow bisection stops."""

_INF = float("inf")


class EarliestTimes(NamedTuple):
    """Lower bounds on each request's start ``S_j`` and end ``C_j``, by request id.

    ``starts[j]`` is at least the release; ``ends[j]`` is at least
    ``starts[j]`` plus the request's shortest possible transfer.
    """

    starts: dict[str, float]
    ends: dict[str, float]


class _Profile(NamedTuple):
    """Timings of a drive that matter for when a mounted piece can be ready.

    ``clear`` is when the drive can receive a mount at the earliest: 0 if it
    is empty at time 0, else its ``unload_s`` plus the library's
    ``dismount_s``. ``speed`` is the fastest the head moves: ``locate_mb_s``,
    or ``rate_mb_s`` while transferring, whichever is larger.
    """

    clear: float
    load: float
    speed: float
    rate: float


class _LibraryTimes:
    """What the bounds need of one library and its drives, computed once."""

    __slots__ = (
        "arms",
        "dismount",
        "max_rate",
        "max_speed",
        "min_load",
        "mount",
        "n_drives",
        "profiles",
        "total_rate",
    )

    def __init__(self, library: Library, drives: tuple[Drive, ...], holding: set[str]) -> None:
        self.arms = library.arms
        self.mount = float(library.mount_s)
        self.dismount = float(library.dismount_s)
        self.n_drives = len(drives)
        self.total_rate = float(sum(d.rate_mb_s for d in drives))
        self.max_rate = float(max((d.rate_mb_s for d in drives), default=1.0))
        self.max_speed = float(max((_speed(d) for d in drives), default=1.0))
        self.min_load = float(min((d.load_s for d in drives), default=0.0))
        profiles = sorted(
            {
                _Profile(
                    float(d.unload_s) + self.dismount if d.id in holding else 0.0,
                    float(d.load_s),
                    _speed(d),
                    float(d.rate_mb_s),
                )
                for d in drives
            }
        )
        if len(profiles) > MAX_PROFILES:
            profiles = [
                _Profile(
                    min(p.clear for p in profiles),
                    self.min_load,
                    self.max_speed,
                    self.max_rate,
                )
            ]
        self.profiles = profiles


def _speed(drive: Drive) -> float:
    """Fastest the head of ``drive`` moves along a tape, in MB/s."""
    return float(max(drive.rate_mb_s, drive.locate_mb_s))


class _Held(NamedTuple):
    """A tape some drive holds at time 0, seen from a piece on it.

    ``speed`` and ``rate`` are its holder's; ``clear`` is when the tape can be
    out of its holder at the earliest (``unload_s`` plus ``dismount_s``).
    """

    speed: float
    rate: float
    clear: float


class _Context:
    """Per-library timings and what each initial tape's holder offers, for one instance."""

    def __init__(self, instance: Instance) -> None:
        self.instance = instance
        holding = set(instance.initial_tape)
        self.libraries = {
            lib.id: _LibraryTimes(lib, instance.drives_of_library.get(lib.id, ()), holding)
            for lib in instance.libraries
        }
        self.tape_library = {t.id: t.library for t in instance.tapes}
        self.held: dict[str, _Held] = {}
        for drive_id, tape in instance.initial_tape.items():
            drive = instance.drive_by_id[drive_id]
            dismount = self.libraries[drive.library].dismount
            self.held[tape] = _Held(
                _speed(drive), float(drive.rate_mb_s), float(drive.unload_s) + dismount
            )

    def library_of(self, request: Request) -> str:
        """Id of the library of ``request``."""
        return self.tape_library[request.pieces[0].tape]


def _piece_times(
    lib: _LibraryTimes, offset: float, size: float, release: float, held: _Held | None
) -> tuple[float, float]:
    """Earliest time a piece can be ready on some drive, and earliest end of its transfer.

    On the drive holding the piece's tape at time 0 the head starts at offset
    0 and moves no faster than that drive's speed, so the piece is ready no
    earlier than ``offset / speed`` (whatever else that drive reads first,
    and a remount would only restart the head at 0 later). On any drive, a
    mount of the tape starts once the drive has unloaded and dismounted its
    own initial tape (rule 2) and once the tape's holder has unloaded and
    dismounted it (rule 3), then lasts ``mount_s``, the drive loads it and the
    head moves from 0. The transfer starts at the release at the earliest and
    streams at the drive's rate. The two minima over drives may come from
    different drives: each is a lower bound on its own.
    """
    ready = _INF
    end = _INF
    tape_clear = 0.0
    if held is not None:
        ready = offset / held.speed
        end = max(release, ready) + size / held.rate
        tape_clear = held.clear
    mount = lib.mount
    for clear, load, speed, rate in lib.profiles:
        at = (clear if clear > tape_clear else tape_clear) + mount + load + offset / speed
        if at < ready:
            ready = at
        finish = (release if release > at else at) + size / rate
        if finish < end:
            end = finish
    return ready, end


def _request_times(ctx: _Context, request: Request) -> tuple[float, float, float, float]:
    """Lower bounds on the start and end of ``request`` alone; its longest piece and size.

    Start: the release, the latest of its pieces' earliest ready times, and
    the arm bound. The arm bound: the ``k`` pieces whose tape no drive holds
    at time 0 need ``k`` distinct mounts of ``mount_s`` each, never more than
    ``arms`` at once; intervals of equal length overlapping at most ``arms``
    deep split into ``arms`` lanes (interval graphs are perfect), so the last
    mount ends no earlier than ``ceil(k / arms) * mount_s``, and its piece
    then still needs a load and a locate from 0 before the gang can start.

    End: the start plus the longest piece at the library's fastest rate, and
    for each piece the earliest end of its own transfer.
    """
    lib = ctx.libraries[ctx.tape_library[request.pieces[0].tape]]
    held_tapes = ctx.held
    release = float(request.release_s)
    start = release
    end = release
    longest = 0.0
    volume = 0.0
    mounted = 0
    nearest_mounted = _INF
    for piece in request.pieces:
        held = held_tapes.get(piece.tape)
        offset = float(piece.offset_mb)
        size = float(piece.size_mb)
        ready, piece_end = _piece_times(lib, offset, size, release, held)
        start = max(start, ready)
        end = max(end, piece_end)
        longest = max(longest, size)
        volume += size
        if held is None:
            mounted += 1
            nearest_mounted = min(nearest_mounted, offset)
    if mounted and lib.mount > 0:
        last_mount = math.ceil(mounted / lib.arms) * lib.mount
        start = max(start, last_mount + lib.min_load + nearest_mounted / lib.max_speed)
    end = max(end, start + longest / lib.max_rate)
    return start, end, longest, volume


class _Job(NamedTuple):
    """A request on the pooled machine of its library: earliest start, work, weight, release."""

    start: float
    work: float
    weight: float
    release: float


def earliest_times(instance: Instance) -> EarliestTimes:
    """Lower bounds on the start and end of every request, each taken alone.

    The bounds hold in every feasible schedule, offline ones included: other
    requests only add constraints, and every operation before a transfer is
    bounded from time 0, not from the release.

    Parameters
    ----------
    instance
        A well-formed instance.

    Returns
    -------
    EarliestTimes
        ``starts`` and ``ends`` by request id.
    """
    return _scan(_Context(instance))[0]


class _Pooled(NamedTuple):
    """One library's requests as jobs of its two pooled machines, and its setup work.

    Both machines run at unit speed and may share their capacity among jobs
    in any way at any instant (which a preemptive single machine matches:
    processing in order of completion times completes no job later).

    - ``drive_jobs``: a request of ``k`` pieces keeps ``k`` drives busy for
      at least its longest piece at the fastest rate, and the ``m`` drives
      give ``m`` drive-seconds per second, so its work is
      ``k * longest / max_rate / m``.
    - ``volume_jobs``: a request moves its total size, and the drives stream
      at most the sum of their rates, so its work is ``size / total_rate``.
    - ``setup`` (drive-time machine only): each tape that some request needs
      and no drive holds at time 0 is mounted into some drive at least once,
      and that drive can transfer nothing from the start of the mount to the
      end of the load: ``mount_s + load_s`` at least, over ``m``.
    """

    drive_jobs: list[_Job]
    volume_jobs: list[_Job]
    setup: float


def _scan(ctx: _Context) -> tuple[EarliestTimes, dict[str, _Pooled]]:
    """:func:`earliest_times`, and the pooled machines of every library with requests."""
    starts: dict[str, float] = {}
    ends: dict[str, float] = {}
    jobs: dict[str, tuple[list[_Job], list[_Job]]] = {}
    needed: dict[str, set[str]] = {}
    tape_library = ctx.tape_library
    held = ctx.held
    for request in ctx.instance.requests:
        start, end, longest, volume = _request_times(ctx, request)
        starts[request.id] = start
        ends[request.id] = end
        lib_id = tape_library[request.pieces[0].tape]
        lib = ctx.libraries[lib_id]
        if lib_id not in jobs:
            jobs[lib_id] = ([], [])
            needed[lib_id] = set()
        weight = float(request.weight)
        release = float(request.release_s)
        drive_work = len(request.pieces) * longest / lib.max_rate / lib.n_drives
        jobs[lib_id][0].append(_Job(start, drive_work, weight, release))
        jobs[lib_id][1].append(_Job(start, volume / lib.total_rate, weight, release))
        tapes = needed[lib_id]
        for piece in request.pieces:
            if piece.tape not in held:
                tapes.add(piece.tape)
    pooled = {}
    for lib_id, (drive_jobs, volume_jobs) in jobs.items():
        lib = ctx.libraries[lib_id]
        setup = len(needed[lib_id]) * (lib.mount + lib.min_load) / lib.n_drives
        pooled[lib_id] = _Pooled(drive_jobs, volume_jobs, setup)
    return EarliestTimes(starts, ends), pooled


def _objective_name(instance: Instance, objective: str | None) -> str:
    """``objective``, or the instance's when ``None``; an unknown name is an error."""
    name = objective or instance.objective
    if name not in OBJECTIVES:
        raise ValueError(f"unknown objective {name!r}")
    return name


def _objective_of_ends(requests: Iterable[Request], ends: dict[str, float], name: str) -> float:
    """Objective ``name`` if every request ended at ``ends``; all three are monotone in ends."""
    if name == "weighted-flow":
        return float(sum(r.weight * (ends[r.id] - r.release_s) for r in requests))
    if name == "makespan":
        return float(max((ends[r.id] for r in requests), default=0.0))
    if name == "max-weighted-flow":
        return float(max((r.weight * (ends[r.id] - r.release_s) for r in requests), default=0.0))
    raise ValueError(f"unknown objective {name!r}")


def request_bound(instance: Instance, objective: str | None = None) -> float:
    """Bound (a): the objective with every request ending at its earliest, alone.

    Valid because each ``C_j`` is at least its bound in
    :func:`earliest_times` in every schedule, and each objective is
    nondecreasing in every ``C_j``.

    Parameters
    ----------
    instance
        A well-formed instance.
    objective
        Objective name; the instance's when ``None``.
    """
    name = _objective_name(instance, objective)
    return _objective_of_ends(instance.requests, earliest_times(instance).ends, name)


def _makespan(jobs: list[_Job], setup: float) -> float:
    """Optimal makespan of the pooled machine: serve in order of earliest start.

    The setup work has no earliest start; it delays whatever follows it.
    """
    t = setup
    for job in sorted(jobs):
        t = max(t, job.start) + job.work
    return t


def _weighted_completion(jobs: list[_Job]) -> float:
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
            total += job.weight * job.work / 2
        total += -ratio * run * (2 * t + run) / 2
        t += run
    return total


def _edf(jobs: list[_Job], flow: float) -> tuple[bool, float]:
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


def _max_weighted_flow(jobs: list[_Job], floor: float) -> float:
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
        met, flow = _edf(ordered, trial)
        if met:
            hi = min(hi, flow)
        else:
            lo = max(lo, flow)
    return lo


def _drive_time_bound(name: str, pooled: dict[str, _Pooled]) -> dict[str, float]:
    """Bound (b) per library; see :func:`drive_time_bound`."""
    out: dict[str, float] = {}
    for lib_id, (drive_jobs, volume_jobs, setup) in pooled.items():
        if name == "makespan":
            out[lib_id] = max(_makespan(drive_jobs, setup), _makespan(volume_jobs, 0.0))
        elif name == "weighted-flow":
            released = sum(j.weight * j.release for j in drive_jobs)
            completion = max(_weighted_completion(drive_jobs), _weighted_completion(volume_jobs))
            out[lib_id] = completion - released
        elif name == "max-weighted-flow":
            out[lib_id] = _max_weighted_flow(volume_jobs, _max_weighted_flow(drive_jobs, 0.0))
        else:
            raise ValueError(f"unknown objective {name!r}")
    return out


def drive_time_bound(instance: Instance, objective: str | None = None) -> float:
    """Bound (b): each library's drives pooled into one preemptive machine.

    Take any feasible schedule and one library of ``m`` drives. At any
    instant each drive serves at most one request, so the requests in
    transfer use at most ``m`` drives and stream at most the sum of the
    rates. Giving each request the share of the pooled machine that its
    drives (or its megabytes) take, until its work in :class:`_Pooled` is
    done, is a fractional schedule of that machine in which every job starts
    no earlier than its earliest start (:func:`earliest_times`) and ends no
    later than ``C_j``. Hence the optimum of the pooled machine is at most the
    schedule's objective restricted to the library:

    - makespan: the machine's optimal makespan (earliest start order);
    - weighted flow: the mean-busy-time bound of :func:`_weighted_completion`
      minus the weighted releases, summed over libraries;
    - max weighted flow: the machine's optimum, bounded from below by
      bisection, maximised over libraries.

    Parameters
    ----------
    instance
        A well-formed instance.
    objective
        Objective name; the instance's when ``None``.
    """
    name = _objective_name(instance, objective)
    parts = _drive_time_bound(name, _scan(_Context(instance))[1])
    if name == "weighted-flow":
        return float(sum(parts.values()))
    return float(max(parts.values(), default=0.0))


def lower_bound(instance: Instance, objective: str | None = None) -> float:
    """The best of bounds (a) and (b) on the optimum of ``objective``.

    For the weighted flow, which sums over libraries, the better of the two
    bounds is taken library by library; for the two maxima, over the whole
    instance. Never above the optimum of any instance (see
    :func:`request_bound` and :func:`drive_time_bound`).

    Parameters
    ----------
    instance
        A well-formed instance.
    objective
        ``weighted-flow``, ``makespan`` or ``max-weighted-flow``; the
        instance's when ``None``.

    Returns
    -------
    float
        A value no larger than the optimum.
    """
    name = _objective_name(instance, objective)
    ctx = _Context(instance)
    times, machines = _scan(ctx)
    pooled = _drive_time_bound(name, machines)
    if name != "weighted-flow":
        alone = _objective_of_ends(instance.requests, times.ends, name)
        return float(max([alone, *pooled.values()]))
    by_library: dict[str, list[Request]] = {}
    for request in instance.requests:
        by_library.setdefault(ctx.library_of(request), []).append(request)
    return float(
        sum(
            max(_objective_of_ends(requests, times.ends, name), pooled.get(lib_id, 0.0))
            for lib_id, requests in by_library.items()
        )
    )
