"""Lower bounds on the optimum of each objective, valid for every instance.

Exact solvers report them as proven bounds, and heuristics are judged by their
gap to them, so a bound must never exceed the true optimum of any instance,
online or offline. Every bound here costs O(n log n) for n requests (times a
small constant per library), so that it is affordable on 100,000 requests.

Two families, combined by :func:`lower_bound`:

**Each request alone** (:func:`~solvers.bounds.earliest.earliest_times`,
:func:`request_bound`). A request's transfer cannot start before its
release, nor before each of its pieces can be ready on some drive of its
library, nor before the arms have mounted those of its tapes that no drive
holds at time 0; it then lasts at least its longest piece at the fastest
rate. Other requests can only delay
it. Prefetching is allowed offline, so only the transfer is certainly after
the release: mounts, loads and locates are bounded from time 0. Without
prefetch (``lower_bound(..., prefetch=False)``) mounts and locates are bounded
from the releases too, which bounds the non-anticipative optimum.

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
instances small enough to prove (``benchmarks/bound_gap.py``, docs/benchmarks.md), the
gap sits in the bound, not in the offline schedules: the pooled drives
let a request use every drive at once and charge a piece alone on its tape
no mount. Bound (e) is (b) and (d) again, with the mount and load a piece
must follow counted in its drive time and each request credited its whole
stretch on one drive (Eastman, Even and Isaacs's correction for parallel
machines, made valid with release dates by the mean busy time argument of
:func:`~solvers.bounds.machine.weighted_completion`).

The arguments of validity are in the docstrings of the functions. The
problem is specified in ``docs/core-problem.md``. What each request and
piece can do alone is worked out in :mod:`solvers.bounds.earliest`; the
single machines are bounded by :mod:`solvers.bounds.machine`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

from tapesched.solvers.bounds.earliest import (
    Context,
    EarliestTimes,
    LibraryLimits,
    context_floors,
    earliest_times,
    request_times,
)
from tapesched.solvers.bounds.machine import (
    MachineJob,
    makespan,
    max_weighted_flow,
    weighted_completion,
)
from tapesched.toolkit.model import OBJECTIVES, Instance, Request
from tapesched.toolkit.objectives import objective_of

WEIGHT_LAYERS = 32
"""Most weight levels of the layered tardiness of :func:`arm_bound` (cost per level O(n log n))."""

_INF = float("inf")


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
      its least drive time before the transfer
      (:func:`~solvers.bounds.earliest.locate_floors`: the locate, and the
      mount and load where the piece must follow one), so
      the job may start that much earlier and has that much more work (over
      ``m``). Not always stronger than ``drive_jobs`` (an earlier start
      spread over ``m`` drives), so both are kept. Its makespan takes no
      ``setup``: the floors may count the same mounts.

    Each job also carries its ``span``
    (:class:`~solvers.bounds.machine.MachineJob`): on each of its drives the
    request's work for the machine is one stretch ending at ``C_j``, at
    least its transfer at the fastest rate (for ``volume_jobs``, its
    smallest piece's), plus for ``locate_jobs`` its least floor. The
    floor fits in that stretch: between the drive's previous transfer and
    ``S_j`` the drive spends at least the floor on this piece, so the last
    ``floor`` seconds before ``S_j`` can be given to it.
    """

    drive_jobs: list[MachineJob]
    volume_jobs: list[MachineJob]
    setup: float
    locate_jobs: list[MachineJob]


def _scan(ctx: Context) -> tuple[EarliestTimes, dict[str, _Pooled]]:
    """:func:`earliest_times`, and the pooled machines of every library with requests."""
    starts: dict[str, float] = {}
    ends: dict[str, float] = {}
    jobs: dict[str, tuple[list[MachineJob], list[MachineJob]]] = {}
    needed: dict[str, set[str]] = {}
    tape_library = ctx.tape_library
    held = ctx.held
    floors = context_floors(ctx)
    located: dict[str, list[MachineJob]] = {}
    for request in ctx.instance.requests:
        start, end, longest, volume = request_times(ctx, request)
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
        jobs[lib_id][0].append(MachineJob(start, drive_work, weight, release, transfer * spans))
        least = min(float(p.size_mb) for p in request.pieces) / lib.max_rate
        jobs[lib_id][1].append(
            MachineJob(start, volume / lib.total_rate, weight, release, least * spans)
        )
        seeks = [floors[request.id, k] for k in range(len(request.pieces))]
        work = (sum(seeks) + len(seeks) * transfer) / lib.n_drives
        located.setdefault(lib_id, []).append(
            MachineJob(
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


_LibraryBounds = Callable[[Context, str, EarliestTimes, dict[str, _Pooled]], dict[str, float]]
"""One of bounds (b) to (d) by library, from what :func:`_scan` found and the objective's name."""


def _instance_bound(instance: Instance, objective: str | None, bounds: _LibraryBounds) -> float:
    """One of bounds (b) to (d) on the whole instance, from its value on each library."""
    name = _objective_name(instance, objective)
    ctx = Context(instance)
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


def _drive_time_bounds(
    ctx: Context, name: str, times: EarliestTimes, pooled: dict[str, _Pooled]
) -> dict[str, float]:
    """:func:`drive_time_bound` of each library with requests."""
    out: dict[str, float] = {}
    for lib_id, (drive_jobs, volume_jobs, setup, locate_jobs) in pooled.items():
        if name == "makespan":
            out[lib_id] = max(
                makespan(drive_jobs, setup),
                makespan(volume_jobs, 0.0),
                makespan(locate_jobs, 0.0 if ctx.strong else setup),
            )
        elif name == "weighted-flow":
            released = sum(j.weight * j.release for j in drive_jobs)
            completion = max(
                weighted_completion(drive_jobs),
                weighted_completion(volume_jobs),
                weighted_completion(locate_jobs),
            )
            out[lib_id] = completion - released
        elif name == "max-weighted-flow":
            floor = max_weighted_flow(drive_jobs, 0.0)
            out[lib_id] = max_weighted_flow(locate_jobs, max_weighted_flow(volume_jobs, floor))
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
    - weighted flow: the mean-busy-time bound of
      :func:`~solvers.bounds.machine.weighted_completion` minus the weighted
      releases, summed over libraries;
    - max weighted flow: the machine's optimum, bounded from below by
      bisection, maximised over libraries.

    Parameters
    ----------
    instance, objective
        As for :func:`lower_bound`.
    """
    return _instance_bound(instance, objective, _drive_time_bounds)


def _mount_ends(lib: LibraryLimits, empty: int, count: int) -> list[float]:
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
    ctx: Context, name: str, times: EarliestTimes, pooled: dict[str, _Pooled]
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
    ctx: Context, name: str, times: EarliestTimes, pooled: dict[str, _Pooled]
) -> dict[str, float]:
    """:func:`tape_bound` of each library with requests."""
    starts = times.starts
    floors = context_floors(ctx)
    by_tape: dict[str, list[MachineJob]] = {}
    kept: dict[str, list[MachineJob]] = {}
    libraries: dict[str, str] = {}
    for request in ctx.instance.requests:
        lib = ctx.libraries[ctx.library_of(request)]
        weight = float(request.weight)
        release = float(request.release_s)
        largest = max(request.pieces, key=lambda p: p.size_mb)
        for k, piece in enumerate(request.pieces):
            seek = floors[request.id, k]
            work = seek + float(piece.size_mb) / lib.max_rate
            job = MachineJob(max(0.0, starts[request.id] - seek), work, weight, release)
            by_tape.setdefault(piece.tape, []).append(job)
            if piece is largest:
                kept.setdefault(piece.tape, []).append(job)
            libraries[piece.tape] = ctx.tape_library[piece.tape]
    out: dict[str, float] = {}
    for tape, jobs in by_tape.items():
        lib_id = libraries[tape]
        if name == "makespan":
            value = makespan(jobs, 0.0)
        elif name == "max-weighted-flow":
            value = max_weighted_flow(jobs, 0.0)
        else:
            own = kept.get(tape, [])
            value = weighted_completion(own) - sum(j.weight * j.release for j in own)
            out[lib_id] = out.get(lib_id, 0.0) + value
            continue
        out[lib_id] = max(out.get(lib_id, 0.0), value)
    return out


def tape_bound(instance: Instance, objective: str | None = None) -> float:
    """Bound (d): each tape a single machine for the transfers that read it.

    A tape is in at most one drive at a time and a drive runs one request
    at a time, so the pieces read from one tape never overlap in time, nor
    the locates just before them
    (:func:`~solvers.bounds.earliest.locate_floors`: the tape is in the
    drive and its head moves). A piece's locate and transfer lie inside
    ``[S_j - locate, C_j]``, and ``S_j`` is no earlier than the request's
    earliest start (:func:`earliest_times`); the transfer lasts at least the
    piece's size at the library's fastest rate. Hence, per tape, a single machine
    whose jobs are its pieces:

    - makespan: that machine's optimal makespan, the largest over tapes;
    - max weighted flow: its optimum (:func:`~solvers.bounds.machine.max_weighted_flow`), the
      largest over tapes;
    - weighted flow: each request counted on one tape only (that of its
      largest piece), so that the tapes' bounds add up: the mean-busy-time
      bound of :func:`~solvers.bounds.machine.weighted_completion` minus the weighted releases,
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
    ctx: Context, name: str, times: EarliestTimes, pooled: dict[str, _Pooled]
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

    - the drive time before each piece
      (:func:`~solvers.bounds.earliest.locate_floors`) counts, for a tape no
      drive holds at time 0, the mount and load before a locate from 0 when
      that is cheaper than coming from another piece's end: a piece
      alone on its tape, or far from the others, pays for its switch;
    - a request on ``m`` pooled drives is credited half its whole stretch on
      its drive after its mean busy time, not half its work over ``m``
      (:func:`~solvers.bounds.machine.weighted_completion`): on loaded
      libraries of many drives the pooled machine otherwise lets each request
      borrow every drive at once.

    Per library the larger of the two, summed over libraries for the
    weighted flow, the largest otherwise. O(n log n).

    Parameters
    ----------
    instance, objective
        As for :func:`lower_bound`.
    """
    name = _objective_name(instance, objective)
    ctx = Context(instance, strong=True)
    times, pooled = _scan(ctx)
    return _over_libraries(name, _switch_bounds(ctx, name, times, pooled))


def basic_bound(instance: Instance, objective: str | None = None) -> float:
    """:func:`lower_bound` without bound (e): the best of bounds (a) to (d), for comparison."""
    return lower_bound(instance, objective, strong=False)


def lower_bound(
    instance: Instance, objective: str | None = None, strong: bool = True, prefetch: bool = True
) -> float:
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
    prefetch
        ``False``: bound the optimum of the non-anticipative problem (no
        mount, load or locate serving a request before its release;
        ``docs/core-problem.md``) instead, which is never below the
        contract's: every bound is built on the earliest starts and ends of
        :func:`~solvers.bounds.earliest.request_times`, which only move later
        (:class:`~solvers.bounds.earliest.Context`).

    Returns
    -------
    float
        A value no larger than the optimum.
    """
    name = _objective_name(instance, objective)
    ctx = Context(instance, prefetch=prefetch)
    times, pooled = _scan(ctx)
    parts = [
        bounds(ctx, name, times, pooled)
        for bounds in (_drive_time_bounds, _arm_bounds, _tape_bounds)
    ]
    if strong:
        strong_ctx = Context(instance, strong=True, prefetch=prefetch)
        parts.append(_switch_bounds(strong_ctx, name, times, pooled))
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
