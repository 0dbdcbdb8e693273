"""How a drive gets one piece ready, and which drive gets it ready first.

A piece is ready on a drive when the piece's tape is loaded in it and its
head is at the piece's offset. The functions here work that out against a
:class:`~solvers.timeline.state.TimelineState` and leave the state as it was
(an arm operation reserved for a moment to plan the next is released
again); :class:`~solvers.timeline.timeline.Timeline` commits the plan.

Getting a piece ready
    The drive holding the piece's tape locates (or remounts it, when
    locating back is longer: :func:`in_place`); any other drive unloads and
    dismounts what it holds while an arm dismounts the piece's tape from the
    drive holding it, if any, then an arm mounts the tape and the drive
    loads and locates (:func:`plan_on`). Arm operations go in the earliest
    gap of the library's arm lanes.

Choice of drives
    Without given drives, each piece in turn takes the drive that completes
    it earliest (ties: ready earlier, then fewer arm operations), among the
    drives of its library not already taken by the request and not holding
    another piece's tape (:func:`best_plan`). Drives of a library are
    grouped by class (identical timings) and, within a class, kept in two
    heaps ordered by when they become available, one of empty drives and
    one of drives holding a tape. Within a class the drive available first
    is also ready first (arm placement is monotone in its earliest start),
    so a piece is evaluated only on the drive holding its tape and on the
    head of each heap. A library with more than
    :data:`~solvers.timeline.state.MAX_CLASSES` classes forms one mixed
    group, scanned up to :data:`~solvers.timeline.state.MIXED_CANDIDATES`
    drives deep in order of availability, stopping early when the group's
    fastest timings cannot beat the best plan. This keeps a placement cheap
    on hundreds of drives: 100,000 requests are placed in seconds. Given
    ``until`` (a dispatcher's decision time), only drives with nothing to do
    after that time are candidates, and the drives the request itself takes
    a tape from (:func:`best_of_sources`).
"""

from __future__ import annotations

import heapq
from typing import NamedTuple

from tapesched.solvers.timeline.state import Slot, TimelineState
from tapesched.toolkit.model import Piece


class PiecePlacement(NamedTuple):
    """How one drive would get one piece ready, and when.

    ``steal`` dismounts the piece's tape from the other drive holding it,
    ``evict`` dismounts the tape the chosen drive holds (it may be the
    piece's own tape: a remount), ``mount`` brings the piece's tape in.
    ``completion`` is when the piece's transfer would end if it started as
    soon as this drive is ready (and the request is released).
    """

    drive: int
    ready: float
    completion: float
    steal: Slot | None = None
    evict: Slot | None = None
    mount: Slot | None = None


def in_place(
    state: TimelineState,
    holder: int,
    tape: str,
    offset: float,
    size: float,
    r: float,
    release: float,
) -> tuple[PiecePlacement, float]:
    """Placement on the drive holding the piece's tape, and when its tape could be unloaded.

    The drive locates, or remounts the tape when locating back is
    longer than a remount could be.
    """
    base = max(r, state.free[holder])
    rate = state.rate[holder]
    locate_s = state.locate_s(holder, state.head[holder], offset, tape)
    from_0 = state.locate_s(holder, 0.0, offset, tape)
    transfer = size / rate
    ready = base + locate_s
    best = PiecePlacement(holder, ready, (ready if ready > release else release) + transfer)
    unload_end = base + state.unload[holder]
    lib = state.library_of[holder]
    dis, mnt = state.dismount_s[lib], state.mount_s[lib]
    if locate_s > state.switch[holder] + from_0:
        arms = state.arms[lib]
        ds, dl = arms.earliest(unload_end, dis)
        ms, ml = arms.earliest(ds + dis, mnt)
        ready = ms + mnt + state.load[holder] + from_0
        completion = max(ready, release) + transfer
        if (completion, ready) < (best.completion, best.ready):
            best = PiecePlacement(holder, ready, completion, None, (ds, dl), (ms, ml))
    return best, unload_end


def plan_on(
    state: TimelineState, d: int, tape: str, offset: float, size: float, r: float, release: float
) -> PiecePlacement:
    """The plan getting the piece ready on drive ``d``, whatever it holds."""
    holder = state.where.get(tape, -1)
    if holder == d:
        return in_place(state, d, tape, offset, size, r, release)[0]
    lib = state.tape_library[tape]
    arms = state.arms[lib]
    mnt, dis = state.mount_s[lib], state.dismount_s[lib]
    steal: Slot | None = None
    earliest_mount = max(r, state.back.get(tape, 0.0))
    if holder >= 0:
        steal = arms.earliest(max(r, state.free[holder]) + state.unload[holder], dis)
        earliest_mount = steal[0] + dis
    evict: Slot | None = None
    drive_from = state.empty_since[d]
    if state.held[d] is not None:
        if steal is not None:
            arms.reserve(steal[0], dis, steal[1])
        evict = arms.earliest(max(r, state.free[d]) + state.unload[d], dis)
        if steal is not None:
            arms.release(steal[0], dis, steal[1])
        drive_from = evict[0] + dis
    mount = arms.earliest(max(earliest_mount, drive_from), mnt)
    ready = mount[0] + mnt + state.load[d] + state.locate_s(d, 0.0, offset, tape)
    return PiecePlacement(d, ready, max(ready, release) + size / state.rate[d], steal, evict, mount)


def best_plan(
    state: TimelineState,
    tape: str,
    offset: float,
    size: float,
    r: float,
    release: float,
    excluded: set[int],
    until: float,
) -> PiecePlacement | None:
    """The plan completing the piece earliest (ties: earlier ready, then fewer moves).

    Candidates, in order of preference on ties: the drive holding
    ``tape`` (locate, or remount when locating back is longer), then, per
    group, its first available empty drives and its first available
    holding drives, none of them in ``excluded`` nor available after
    ``until``. A candidate is placed on the arm timeline only when a
    lower bound of its completion (the arms free) beats the best so far.
    ``None`` when no drive is left. The holder of ``tape`` is added to
    ``excluded``.
    """
    lib = state.tape_library[tape]
    arms = state.arms[lib]
    mnt = state.mount_s[lib]
    dis = state.dismount_s[lib]
    free = state.free
    best: PiecePlacement | None = None

    holder = state.where.get(tape, -1)
    steal: Slot | None = None
    steal_from = 0.0
    earliest_mount = max(r, state.back.get(tape, 0.0))
    if holder >= 0:
        excluded.add(holder)
        if free[holder] <= until:
            best, steal_from = in_place(state, holder, tape, offset, size, r, release)
        else:
            steal_from = max(r, free[holder]) + state.unload[holder]
        earliest_mount = steal_from + dis

    version = state.version
    load, unload, locate, rate_of = state.load, state.unload, state.locate, state.rate
    linear = state.linear
    empty_since = state.empty_since
    mounts: dict[float, Slot] = {}
    evicts: dict[float, Slot] = {}
    for group in state.groups[lib]:
        least_tail = mnt + group.min_load + offset / group.max_locate + size / group.max_rate
        for evicting, heap in ((False, group.empty), (True, group.holding)):
            popped = []
            left = group.limit
            while heap and left:
                key, d, v = heap[0]
                if v != version[d]:
                    heapq.heappop(heap)
                    continue
                if key > until:
                    break
                if best is not None:
                    avail = max(r, key) + group.min_unload + dis if evicting else key
                    if max(earliest_mount, avail) + least_tail >= best.completion:
                        break
                popped.append(heapq.heappop(heap))
                if d in excluded:
                    continue
                left -= 1
                tail = (
                    mnt
                    + load[d]
                    + (offset / locate[d] if linear[d] else state.locate_s(d, 0.0, offset, tape))
                )
                transfer = size / rate_of[d]
                unload_end = max(r, free[d]) + unload[d]
                drive_from = unload_end + dis if evicting else empty_since[d]
                if best is not None and (
                    max(earliest_mount, drive_from) + tail + transfer >= best.completion
                ):
                    continue
                if holder >= 0 and steal is None:
                    steal = arms.earliest(steal_from, dis)
                    earliest_mount = steal[0] + dis
                evict: Slot | None = None
                if evicting:
                    evict = evicts.get(unload_end)
                    if evict is None:
                        if steal is not None:
                            arms.reserve(steal[0], dis, steal[1])
                        evict = evicts[unload_end] = arms.earliest(unload_end, dis)
                        if steal is not None:
                            arms.release(steal[0], dis, steal[1])
                    drive_from = evict[0] + dis
                at = max(earliest_mount, drive_from)
                mount = mounts.get(at)
                if mount is None:
                    mount = mounts[at] = arms.earliest(at, mnt)
                ready = mount[0] + tail
                completion = (ready if ready > release else release) + transfer
                if best is None or (completion, ready) < (best.completion, best.ready):
                    best = PiecePlacement(d, ready, completion, steal, evict, mount)
            for entry in popped:
                heapq.heappush(heap, entry)
    return best


def best_of_sources(
    state: TimelineState,
    plan: PiecePlacement | None,
    sources: list[int],
    excluded: set[int],
    piece: Piece,
    r: float,
    release: float,
) -> PiecePlacement | None:
    """``plan``, or a better one on a drive the request took a tape from.

    Such a drive was idle when the placement began and is busy only with
    the request's own dismount, so it stays a candidate of its later
    pieces when the choice is among idle drives.
    """
    for d in sources:
        if d in excluded or state.held[d] is not None:
            continue
        other = plan_on(state, d, piece.tape, piece.offset_mb, piece.size_mb, r, release)
        if plan is None or (other.completion, other.ready) < (plan.completion, plan.ready):
            plan = other
    return plan
