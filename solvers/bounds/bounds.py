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

**Arm time** (:func:`arm_bound`). Every tape that no drive holds at time 0
is mounted before it is read; the ``k``-th of those first mounts ends no
earlier than the arms can do ``k`` mounts and the dismounts that free drives
for them. The requests of the tapes mounted late wait for it: on a library
with one arm and many tapes, this is what binds.

**Tape time** (:func:`tape_bound`). A tape is in one drive at a time, so
the transfers of the requests reading it never overlap: each tape is a
single machine, bounded like the pooled drives.

**Switches, drives kept apart** (:func:`switch_bound`). Measured on
instances small enough to prove (``benchmarks/bound_gap.py``, README), the
gap sits in the bound, not in the offline schedules: the pooled drives
let a request use every drive at once and charge a piece alone on its tape
no mount. Bound (e) is (b) and (d) again, with the mount and load a piece
must follow counted in its drive time and each request credited its whole
stretch on one drive (Eastman, Even and Isaacs's correction for parallel
machines, made valid with release dates by the mean busy time argument of
:func:`_weighted_completion`).

The arguments of validity are in the docstrings of the functions. The
problem is specified in ``docs/core-problem.md``.
"""

from __future__ import annotations

import heapq
import math
from bisect import bisect_left
from collections.abc import Callable
from typing import NamedTuple

from tapesched.toolkit.model import OBJECTIVES, Drive, Instance, Library, Request
from tapesched.toolkit.objectives import objective_of

MAX_PROFILES = 16
"""Most distinct drive profiles of a library examined one by one per piece.

A library whose drives have more profiles (timings, and whether the drive
holds a tape at time 0) is summarised by one optimistic profile that takes
the best of each timing over its drives, which keeps the cost per piece
constant and the bound valid, only weaker.
"""

WEIGHT_LAYERS = 32
"""Most weight levels of the layered tardiness of :func:`arm_bound` (cost per level O(n log n))."""

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
    or ``rate_mb_s`` while transferring, whichever is larger (infinite on a
    serpentine drive, see :func:`_speed`).
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
    """Fastest the head of ``drive`` moves along a tape, in MB/s.

    A drive with a serpentine ``locate`` model has no such speed (a locate
    between neighbouring wraps crosses many MB in seconds): its floor speed
    is infinite, so a bound counts its locates as 0 s, the only floor valid
    for every model (:attr:`toolkit.model.Drive.floor_speed_mb_s`).
    """
    return float(max(drive.rate_mb_s, drive.floor_speed_mb_s))


class _Held(NamedTuple):
    """A tape some drive holds at time 0, seen from a piece on it.

    ``speed`` and ``rate`` are its holder's; ``clear`` is when the tape can be
    out of its holder at the earliest (``unload_s`` plus ``dismount_s``);
    ``head`` is where its head is at time 0 (``head_mb``, 0 in version 1).
    Drives and arms busy at the start (version 2) are left out: they only
    delay schedules, so the bounds without them stay valid.
    """

    speed: float
    rate: float
    clear: float
    head: float = 0.0


class _Context:
    """Per-library timings and what each initial tape's holder offers, for one instance.

    ``strong``: the floors count the mount and load a piece may need and the
    pooled jobs carry their spans (bound (e), :func:`switch_bound`); off,
    bounds (b) to (d) as first published here.
    """

    def __init__(self, instance: Instance, strong: bool = False) -> None:
        self.instance = instance
        self.strong = strong
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
                _speed(drive),
                float(drive.rate_mb_s),
                float(drive.unload_s) + dismount,
                float(instance.initial_head_mb[drive_id]),
            )

    def library_of(self, request: Request) -> str:
        """Id of the library of ``request``."""
        return self.tape_library[request.pieces[0].tape]


def _piece_times(
    lib: _LibraryTimes, offset: float, size: float, release: float, held: _Held | None
) -> tuple[float, float]:
    """Earliest time a piece can be ready on some drive, and earliest end of its transfer.

    On the drive holding the piece's tape at time 0 the head starts at
    ``head_mb`` (offset 0 in version 1) and moves no faster than that drive's
    speed, so the piece is ready no earlier than ``|offset - head_mb| /
    speed`` (whatever else that drive reads first,
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
        ready = abs(offset - held.head) / held.speed
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
    """A request on the pooled machine of its library: earliest start, work, weight, release.

    ``span``: a time the request's work certainly occupies on one drive (or
    one tape) in one stretch ending at its end ``C_j``; 0 when nothing more
    than ``work`` is known. :func:`_weighted_completion` credits
    ``max(work, span) / 2`` after the mean busy time.
    """

    start: float
    work: float
    weight: float
    release: float
    span: float = 0.0


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
    - ``locate_jobs``: as ``drive_jobs``, each piece's drive also busy with
      its least drive time before the transfer (:func:`locate_floors`: the
      locate, and the mount and load where the piece must follow one), so
      the job may start that much earlier and has that much more work (over
      ``m``). Not always stronger than ``drive_jobs`` (an earlier start
      spread over ``m`` drives), so both are kept. Its makespan takes no
      ``setup``: the floors may count the same mounts.

    Each job also carries its ``span`` (:class:`_Job`): on each of its
    drives the request's work for the machine is one stretch ending at
    ``C_j``, at least its transfer at the fastest rate (for ``volume_jobs``,
    its smallest piece's), plus for ``locate_jobs`` its least floor. The
    floor fits in that stretch: between the drive's previous transfer and
    ``S_j`` the drive spends at least the floor on this piece, so the last
    ``floor`` seconds before ``S_j`` can be given to it.
    """

    drive_jobs: list[_Job]
    volume_jobs: list[_Job]
    setup: float
    locate_jobs: list[_Job]


def locate_floors(instance: Instance, switches: bool = False) -> dict[tuple[str, int], float]:
    """Least drive time spent on each piece before its transfer, by ``(request id, piece index)``.

    The head reaches a piece's offset from where it rests: the end of
    another piece of the same tape read before it on the same stay, offset
    0 after a mount, or ``head_mb`` at time 0 for a tape held at time 0. It
    travels at most at the fastest speed of its library's drives (locate or
    read, whichever is larger; the holder's for a tape held at time 0).
    With ``switches`` (bound (e), :func:`switch_bound`), a tape that no
    drive holds at time 0 is first on a stay only after a mount into the
    drive and a load: ``mount_s`` plus the least ``load_s``
    of its library before the locate from 0, time in which that drive
    holds the tape (rule 3) and transfers nothing. The least of those
    options is drive time every schedule spends, on the drive that then
    reads the piece, between that drive's previous transfer and the
    piece's, with the tape in it. O(n log n).
    """
    return _locate_floors(_Context(instance, strong=switches))


def _locate_floors(ctx: _Context) -> dict[tuple[str, int], float]:
    """:func:`locate_floors` with the context at hand."""
    instance = ctx.instance
    by_tape: dict[str, list[tuple[float, tuple[str, int]]]] = {}
    for request in instance.requests:
        for k, piece in enumerate(request.pieces):
            end = float(piece.offset_mb) + float(piece.size_mb)
            by_tape.setdefault(piece.tape, []).append((end, (request.id, k)))
    for ends in by_tape.values():
        ends.sort()
    floors: dict[tuple[str, int], float] = {}
    for request in instance.requests:
        lib = ctx.libraries[ctx.library_of(request)]
        for k, piece in enumerate(request.pieces):
            offset = float(piece.offset_mb)
            held = ctx.held.get(piece.tape)
            speed = lib.max_speed if held is None else max(lib.max_speed, held.speed)
            if held is None:
                setup = lib.mount + lib.min_load if ctx.strong else 0.0
                best = offset / speed + setup
            else:
                best = min(offset, abs(offset - held.head)) / speed
            for end, key in _near(by_tape[piece.tape], offset):
                if key != (request.id, k):
                    best = min(best, abs(offset - end) / speed)
            floors[request.id, k] = best
    return floors


def _near(
    ends: list[tuple[float, tuple[str, int]]], offset: float
) -> list[tuple[float, tuple[str, int]]]:
    """The piece ends of one tape (sorted) nearest ``offset``, two on each side.

    Two, so that a piece's own end (at or after its offset) never hides the
    nearest other one.
    """
    i = bisect_left(ends, (offset,))
    return ends[max(0, i - 2) : i + 2]


def _scan(ctx: _Context) -> tuple[EarliestTimes, dict[str, _Pooled]]:
    """:func:`earliest_times`, and the pooled machines of every library with requests."""
    starts: dict[str, float] = {}
    ends: dict[str, float] = {}
    jobs: dict[str, tuple[list[_Job], list[_Job]]] = {}
    needed: dict[str, set[str]] = {}
    tape_library = ctx.tape_library
    held = ctx.held
    floors = _locate_floors(ctx)
    located: dict[str, list[_Job]] = {}
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
        transfer = longest / lib.max_rate
        spans = ctx.strong
        drive_work = len(request.pieces) * transfer / lib.n_drives
        jobs[lib_id][0].append(_Job(start, drive_work, weight, release, transfer * spans))
        least = min(float(p.size_mb) for p in request.pieces) / lib.max_rate
        jobs[lib_id][1].append(_Job(start, volume / lib.total_rate, weight, release, least * spans))
        seeks = [floors[request.id, k] for k in range(len(request.pieces))]
        work = (sum(seeks) + len(seeks) * transfer) / lib.n_drives
        located.setdefault(lib_id, []).append(
            _Job(
                max(0.0, start - max(seeks)),
                work,
                weight,
                release,
                (min(seeks) + transfer) * spans,
            )
        )
        tapes = needed[lib_id]
        for piece in request.pieces:
            if piece.tape not in held:
                tapes.add(piece.tape)
    pooled = {}
    for lib_id, (drive_jobs, volume_jobs) in jobs.items():
        lib = ctx.libraries[lib_id]
        setup = len(needed[lib_id]) * (lib.mount + lib.min_load) / lib.n_drives
        pooled[lib_id] = _Pooled(drive_jobs, volume_jobs, setup, located[lib_id])
    return EarliestTimes(starts, ends), pooled


def _over_libraries(name: str, parts: dict[str, float]) -> float:
    """A bound per library as one of the instance: their sum for the weighted flow, else the max."""
    if name == "weighted-flow":
        return float(sum(parts.values()))
    return float(max(parts.values(), default=0.0))


def _objective_name(instance: Instance, objective: str | None) -> str:
    """``objective``, or the instance's when ``None``; an unknown name is an error."""
    name = objective or instance.objective
    if name not in OBJECTIVES:
        raise ValueError(f"unknown objective {name!r}")
    return name


_LibraryBounds = Callable[[_Context, str, EarliestTimes, dict[str, _Pooled]], dict[str, float]]
"""One of bounds (b) to (d) by library, from what :func:`_scan` found and the objective's name."""


def _instance_bound(instance: Instance, objective: str | None, bounds: _LibraryBounds) -> float:
    """One of bounds (b) to (d) on the whole instance, from its value on each library."""
    name = _objective_name(instance, objective)
    ctx = _Context(instance)
    times, pooled = _scan(ctx)
    return _over_libraries(name, bounds(ctx, name, times, pooled))


def request_bound(instance: Instance, objective: str | None = None) -> float:
    """Bound (a): the objective with every request ending at its earliest, alone.

    Valid because each ``C_j`` is at least its bound in
    :func:`earliest_times` in every schedule, and each objective is
    nondecreasing in every ``C_j``.

    Parameters
    ----------
    instance, objective
        As for :func:`lower_bound`.
    """
    name = _objective_name(instance, objective)
    return objective_of(instance.requests, earliest_times(instance).ends, name)


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

    On a pooled machine the processing is slower than unit rate: a request
    holding one of ``m`` drives does ``1 / m`` of work per second, so its
    work ``p_j`` is spread over at least ``m p_j`` seconds. What holds for
    the pooled job is a stretch of ``span_j`` seconds ending by ``C_j`` in
    which its work is done at a constant rate, on each of its drives (one
    drive per piece, busy for it from ``S_j - floor`` to ``C_j``: see
    :func:`locate_floors` and :class:`_Pooled`); the mean of a set of
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


def _drive_time_bounds(
    ctx: _Context, name: str, times: EarliestTimes, pooled: dict[str, _Pooled]
) -> dict[str, float]:
    """:func:`drive_time_bound` of each library with requests."""
    out: dict[str, float] = {}
    for lib_id, (drive_jobs, volume_jobs, setup, locate_jobs) in pooled.items():
        if name == "makespan":
            out[lib_id] = max(
                _makespan(drive_jobs, setup),
                _makespan(volume_jobs, 0.0),
                _makespan(locate_jobs, 0.0 if ctx.strong else setup),
            )
        elif name == "weighted-flow":
            released = sum(j.weight * j.release for j in drive_jobs)
            completion = max(
                _weighted_completion(drive_jobs),
                _weighted_completion(volume_jobs),
                _weighted_completion(locate_jobs),
            )
            out[lib_id] = completion - released
        elif name == "max-weighted-flow":
            floor = _max_weighted_flow(drive_jobs, 0.0)
            out[lib_id] = _max_weighted_flow(locate_jobs, _max_weighted_flow(volume_jobs, floor))
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
    instance, objective
        As for :func:`lower_bound`.
    """
    return _instance_bound(instance, objective, _drive_time_bounds)


def _mount_ends(lib: _LibraryTimes, empty: int, count: int) -> list[float]:
    """Least end of the ``k``-th mount of a library, for ``k = 1 .. count``.

    With ``arms`` arms, ``k`` mounts of equal length ``mount_s`` end no
    earlier than ``ceil(k / arms) * mount_s`` (they split into ``arms``
    lanes). A mount needs an empty drive: beyond the ``empty`` drives empty
    at time 0, each mount follows a dismount, so by the end of the ``k``-th
    mount the arms have worked ``k * mount_s + max(0, k - empty) *
    dismount_s``, at most ``arms`` at a time. Operations of no length take no
    arm and count for nothing.
    """
    arms = lib.arms
    out = []
    for k in range(1, count + 1):
        lanes = math.ceil(k / arms) * lib.mount
        work = (k * lib.mount + max(0, k - empty) * lib.dismount) / arms
        out.append(max(lanes, work))
    return out


def _arm_bounds(
    ctx: _Context, name: str, times: EarliestTimes, pooled: dict[str, _Pooled]
) -> dict[str, float]:
    """:func:`arm_bound` of each library with requests (0 where the arms take no time)."""
    instance = ctx.instance
    ends = times.ends
    by_library: dict[str, list[Request]] = {}
    for request in instance.requests:
        by_library.setdefault(ctx.library_of(request), []).append(request)
    held_drives: dict[str, int] = {}
    for drive_id in instance.initial_tape:
        lib_id = instance.drive_by_id[drive_id].library
        held_drives[lib_id] = held_drives.get(lib_id, 0) + 1
    out: dict[str, float] = {}
    for lib_id, requests in by_library.items():
        lib = ctx.libraries[lib_id]
        own: dict[str, list[tuple[float, str]]] = {}
        tail: dict[str, list[tuple[Request, float]]] = {}
        for request in requests:
            longest = max(float(p.size_mb) for p in request.pieces) / lib.max_rate
            for piece in request.pieces:
                if piece.tape not in ctx.held:
                    after = lib.min_load + float(piece.offset_mb) / lib.max_speed + longest
                    own.setdefault(request.id, []).append((after, piece.tape))
                    tail.setdefault(piece.tape, []).append((request, after))
        if not tail or (lib.mount <= 0 and lib.dismount <= 0):
            out[lib_id] = 0.0
            continue
        mounts = _mount_ends(lib, lib.n_drives - held_drives.get(lib_id, 0), len(tail))
        last = mounts[-1]
        if name == "makespan":
            out[lib_id] = min(last + max(a for _, a in pairs) for pairs in tail.values())
            continue
        if name == "max-weighted-flow":
            out[lib_id] = min(
                max(float(r.weight) * (last + a - float(r.release_s)) for r, a in pairs)
                for pairs in tail.values()
            )
            continue
        weight = dict.fromkeys(tail, 0.0)
        slack = dict.fromkeys(tail, -_INF)
        total = 0.0
        for request in requests:
            alone = ends[request.id]
            total += float(request.weight) * (alone - float(request.release_s))
            if request.id in own:
                after, tape = max(own[request.id])
                weight[tape] += float(request.weight)
                slack[tape] = max(slack[tape], alone - after)
        out[lib_id] = total + _layered_tardiness(weight, slack, mounts)
    return out


def _layered_tardiness(
    weight: dict[str, float], due: dict[str, float], slots: list[float]
) -> float:
    """A lower bound on ``min over one-to-one slot assignments of sum W_t max(0, slot - due_t)``.

    Split every weight into layers (the layer cake: ``W_t`` is the sum of
    the layer heights below it, rounded down to :data:`WEIGHT_LAYERS`
    levels, which only lowers the bound). Within a layer all the tapes it
    covers weigh the same, and unit-weight tardiness over slots is least when
    due dates and slots are matched in sorted order (the cost is convex in
    ``slot - due``), on the earliest slots. The layers' minima, each times its
    height, add up to at most the minimum of the whole.
    """
    levels = sorted({w for w in weight.values() if w > 0})
    if len(levels) > WEIGHT_LAYERS:
        levels = [levels[(i * len(levels)) // WEIGHT_LAYERS] for i in range(WEIGHT_LAYERS)]
    total = 0.0
    below = 0.0
    for level in levels:
        dues = sorted(due[t] for t, w in weight.items() if w >= level)
        late = sum(max(0.0, at - d) for at, d in zip(slots, dues, strict=False))
        total += (level - below) * late
        below = level
    return total


def arm_bound(instance: Instance, objective: str | None = None) -> float:
    """Bound (c): the first mounts of the tapes no drive holds at time 0, on the arms.

    Take any feasible schedule and a library. Each tape ``t`` that no drive
    holds at time 0 and that some request reads is mounted before its first
    read; order those first mounts by their ends ``c_1 <= c_2 <= ...``: the
    ``k``-th ends no earlier than :func:`_mount_ends` gives. A request reading
    ``t`` starts after ``t``'s first mount, a load, and the head's travel
    from 0 to its piece (at the fastest speed), and lasts its longest piece
    at the fastest rate: ``C_j >= c(t) + a_j``. Then:

    - weighted flow: every request ends no earlier than alone
      (:func:`earliest_times`, ``e_j``); a request reading such tapes keeps
      one (the one with the largest ``a_j``) and ends no earlier than
      ``c(t) + a_j`` either, that is, later than alone by at least
      ``max(0, c(t) - (e_j - a_j))``, hence by ``max(0, c(t) - d_t)`` with
      ``d_t`` the largest ``e_j - a_j`` of the requests keeping ``t``. The
      weighted flow is then at least the weighted flows alone plus the
      weighted tardiness of the tapes' first mounts against ``d_t``, whose
      least over every order of the mounts :func:`_layered_tardiness` bounds
      from below;
    - makespan and max weighted flow: whichever tape is mounted last, its
      first mount ends no earlier than ``c_T``, and every request reading it
      after that: the least, over tapes, of their largest end (or weighted
      flow).

    Summed over libraries for the weighted flow, the largest otherwise.
    O(n log n).

    Parameters
    ----------
    instance, objective
        As for :func:`lower_bound`.
    """
    return _instance_bound(instance, objective, _arm_bounds)


def _tape_bounds(
    ctx: _Context, name: str, times: EarliestTimes, pooled: dict[str, _Pooled]
) -> dict[str, float]:
    """:func:`tape_bound` of each library with requests."""
    starts = times.starts
    floors = _locate_floors(ctx)
    by_tape: dict[str, list[_Job]] = {}
    kept: dict[str, list[_Job]] = {}
    libraries: dict[str, str] = {}
    for request in ctx.instance.requests:
        lib = ctx.libraries[ctx.library_of(request)]
        weight = float(request.weight)
        release = float(request.release_s)
        largest = max(request.pieces, key=lambda p: p.size_mb)
        for k, piece in enumerate(request.pieces):
            seek = floors[request.id, k]
            work = seek + float(piece.size_mb) / lib.max_rate
            job = _Job(max(0.0, starts[request.id] - seek), work, weight, release)
            by_tape.setdefault(piece.tape, []).append(job)
            if piece is largest:
                kept.setdefault(piece.tape, []).append(job)
            libraries[piece.tape] = ctx.tape_library[piece.tape]
    out: dict[str, float] = {}
    for tape, jobs in by_tape.items():
        lib_id = libraries[tape]
        if name == "makespan":
            value = _makespan(jobs, 0.0)
        elif name == "max-weighted-flow":
            value = _max_weighted_flow(jobs, 0.0)
        else:
            own = kept.get(tape, [])
            value = _weighted_completion(own) - sum(j.weight * j.release for j in own)
            out[lib_id] = out.get(lib_id, 0.0) + value
            continue
        out[lib_id] = max(out.get(lib_id, 0.0), value)
    return out


def tape_bound(instance: Instance, objective: str | None = None) -> float:
    """Bound (d): each tape a single machine for the transfers that read it.

    A tape is in at most one drive at a time and a drive runs one request
    at a time, so the pieces read from one tape never overlap in time, nor
    the locates just before them (:func:`locate_floors`: the tape is in the
    drive and its head moves). A piece's locate and transfer lie inside
    ``[S_j - locate, C_j]``, and ``S_j`` is no earlier than the request's
    earliest start (:func:`earliest_times`); the transfer lasts at least the
    piece's size at the library's fastest rate. Hence, per tape, a single machine
    whose jobs are its pieces:

    - makespan: that machine's optimal makespan, the largest over tapes;
    - max weighted flow: its optimum (:func:`_max_weighted_flow`), the
      largest over tapes;
    - weighted flow: each request counted on one tape only (that of its
      largest piece), so that the tapes' bounds add up: the mean-busy-time
      bound of :func:`_weighted_completion` minus the weighted releases,
      summed over tapes and libraries.

    O(n log n) for n pieces (the max weighted flow: times the bisection
    steps).

    Parameters
    ----------
    instance, objective
        As for :func:`lower_bound`.
    """
    return _instance_bound(instance, objective, _tape_bounds)


def _switch_bounds(
    ctx: _Context, name: str, times: EarliestTimes, pooled: dict[str, _Pooled]
) -> dict[str, float]:
    """:func:`switch_bound` of each library with requests (``ctx`` strong; ``pooled`` unused)."""
    _, strong_pooled = _scan(ctx)
    drive = _drive_time_bounds(ctx, name, times, strong_pooled)
    tape = _tape_bounds(ctx, name, times, strong_pooled)
    return {lib_id: max(value, tape.get(lib_id, 0.0)) for lib_id, value in drive.items()}


def switch_bound(instance: Instance, objective: str | None = None) -> float:
    """Bound (e): bounds (b) and (d) with the switches counted and the drives kept apart.

    Two changes to the pooled drives and the tapes, each argued where it is
    made:

    - the drive time before each piece (:func:`locate_floors`) counts, for a
      tape no drive holds at time 0, the mount and load before a locate from
      0 when that is cheaper than coming from another piece's end: a piece
      alone on its tape, or far from the others, pays for its switch;
    - a request on ``m`` pooled drives is credited half its whole stretch on
      its drive after its mean busy time, not half its work over ``m``
      (:func:`_weighted_completion`): on loaded libraries of many drives the
      pooled machine otherwise lets each request borrow every drive at once.

    Per library the larger of the two, summed over libraries for the
    weighted flow, the largest otherwise. O(n log n).

    Parameters
    ----------
    instance, objective
        As for :func:`lower_bound`.
    """
    name = _objective_name(instance, objective)
    ctx = _Context(instance, strong=True)
    times, pooled = _scan(ctx)
    return _over_libraries(name, _switch_bounds(ctx, name, times, pooled))


def basic_bound(instance: Instance, objective: str | None = None) -> float:
    """:func:`lower_bound` without bound (e): the best of bounds (a) to (d), for comparison."""
    return lower_bound(instance, objective, strong=False)


def lower_bound(instance: Instance, objective: str | None = None, strong: bool = True) -> float:
    """The best of bounds (a) to (e) on the optimum of ``objective``.

    For the weighted flow, which sums over libraries, the better of the two
    bounds is taken library by library; for the two maxima, over the whole
    instance. Never above the optimum of any instance (see
    :func:`request_bound`, :func:`drive_time_bound`, :func:`arm_bound`,
    :func:`tape_bound` and :func:`switch_bound`).

    Parameters
    ----------
    instance
        A well-formed instance.
    objective
        ``weighted-flow``, ``makespan`` or ``max-weighted-flow``; the
        instance's when ``None``.
    strong
        Whether bound (e) (:func:`switch_bound`) is among them.

    Returns
    -------
    float
        A value no larger than the optimum.
    """
    name = _objective_name(instance, objective)
    ctx = _Context(instance)
    times, pooled = _scan(ctx)
    parts = [
        bounds(ctx, name, times, pooled)
        for bounds in (_drive_time_bounds, _arm_bounds, _tape_bounds)
    ]
    if strong:
        parts.append(_switch_bounds(_Context(instance, strong=True), name, times, pooled))
    if name != "weighted-flow":
        alone = objective_of(instance.requests, times.ends, name)
        return float(max([alone, *(value for part in parts for value in part.values())]))
    by_library: dict[str, list[Request]] = {}
    for request in instance.requests:
        by_library.setdefault(ctx.library_of(request), []).append(request)
    return float(
        sum(
            max(
                objective_of(requests, times.ends, name),
                *(part.get(lib_id, 0.0) for part in parts),
            )
            for lib_id, requests in by_library.items()
        )
    )
