"""The ``greedy`` heuristic: an online list scheduler.

Requests are taken in release order (ties in file order) and never revisited.
Each piece of a request goes to the drive of its library that has it ready
(tape loaded, head at the piece's offset) for the earliest completion, and
the request starts when all its drives are ready, at its release at the
earliest. Tape switches and arm operations are placed as early as they fit.

The scheduler is online: nothing is done for a request before its release
(its unloads, arm operations and locates start at ``release_s`` or later),
and a tape stays in its drive after use until a switch needs that drive
(keep-mounted), so that a later request on the same tape only locates.

It is built to run on 100,000 requests over hundreds of drives: drives of a
library are grouped by class (identical timings) and, within a class, kept in
two heaps ordered by when they become available, one of empty drives and one
of drives holding a tape. Within a class the drive available first is also
ready first (arm placement is monotone in its earliest start), so a piece is
evaluated only on the drive holding its tape and on the head of each heap. A
library with more than :data:`MAX_CLASSES` classes forms one mixed group,
scanned up to :data:`MIXED_CANDIDATES` drives deep in order of availability,
stopping early when the group's fastest timings cannot beat the best plan.
Arm operations go on an :class:`~solvers.arms.ArmTimeline`.
"""

from __future__ import annotations

import heapq
import time
from typing import NamedTuple

from solvers.arms import ArmTimeline
from solvers.registry import describe, register
from solvers.result import Result, Status
from toolkit.model import (
    ArmOperation,
    Instance,
    ObjectiveValue,
    Request,
    Schedule,
    ScheduledRequest,
)
from toolkit.objectives import objective_value

_Slot = tuple[float, int]
"""Start and lane of an arm operation placed on an :class:`ArmTimeline`."""


class _Plan(NamedTuple):
    """How one drive would get one piece ready, and when.

    ``steal`` dismounts the piece's tape from the other drive holding it,
    ``evict`` dismounts the tape the chosen drive holds (it may be the
    piece's own tape: a remount), ``mount`` brings the piece's tape in.
    """

    drive: int
    ready: float
    completion: float
    steal: _Slot | None = None
    evict: _Slot | None = None
    mount: _Slot | None = None


MAX_CLASSES = 8
"""Most drive classes of a library scanned one by one; beyond, its drives form one group."""

MIXED_CANDIDATES = 6
"""Drives of a mixed group (unequal timings) evaluated per piece and heap, at most."""


class _Group:
    """Drives of one library, in two heaps by availability: empty and holding a tape.

    Heap entries are ``(time, drive, version)``, time being when an empty
    drive's last dismount ends or when a holding drive's last action ends; an
    entry whose version is not the drive's current one is stale and skipped.
    In a group of identical drives the first available drive is also the one
    ready first, so ``limit`` is 1; a mixed group scans up to ``limit``
    drives in order of availability, and the smallest timings of the group
    bound what the drives not scanned could do.
    """

    __slots__ = ("empty", "holding", "limit", "max_locate", "max_rate", "min_load", "min_unload")

    def __init__(
        self,
        drives: list[int],
        rate: list[float],
        load: list[float],
        unload: list[float],
        locate: list[float],
        uniform: bool,
    ) -> None:
        self.empty: list[tuple[float, int, int]] = []
        self.holding: list[tuple[float, int, int]] = []
        self.limit = 1 if uniform else MIXED_CANDIDATES
        self.max_rate = max(rate[d] for d in drives)
        self.min_load = min(load[d] for d in drives)
        self.min_unload = min(unload[d] for d in drives)
        self.max_locate = max(locate[d] for d in drives)


class _Greedy:
    """State of one greedy run: drives, tapes, arm timelines, what was scheduled."""

    def __init__(self, instance: Instance) -> None:
        self.instance = instance
        drives = instance.drives
        self.drive_ids = [d.id for d in drives]
        lib_index = {lib.id: i for i, lib in enumerate(instance.libraries)}
        self.arms = [
            ArmTimeline(lib.arms, (float(lib.mount_s), float(lib.dismount_s)))
            for lib in instance.libraries
        ]
        self.mount_s = [float(lib.mount_s) for lib in instance.libraries]
        self.dismount_s = [float(lib.dismount_s) for lib in instance.libraries]
        self.library_ids = [lib.id for lib in instance.libraries]
        self.tape_library = {t.id: lib_index[t.library] for t in instance.tapes}

        n = len(drives)
        self.rate = [float(d.rate_mb_s) for d in drives]
        self.load = [float(d.load_s) for d in drives]
        self.unload = [float(d.unload_s) for d in drives]
        self.locate = [float(d.locate_mb_s) for d in drives]
        self.version = [0] * n
        self.held: list[str | None] = [None] * n
        self.head = [0.0] * n
        self.free = [0.0] * n
        self.empty_since = [0.0] * n
        self.where: dict[str, int] = {}
        self.back: dict[str, float] = {}

        drive_index = {d.id: i for i, d in enumerate(drives)}
        for init in instance.initial:
            d = drive_index[init.drive]
            self.held[d] = init.tape
            self.where[init.tape] = d

        self.library_of = [lib_index[d.library] for d in drives]
        self.groups: list[list[_Group]] = [[] for _ in instance.libraries]
        self.group_of = [0] * n
        for lib in range(len(instance.libraries)):
            classes: dict[tuple[float, float, float, float], list[int]] = {}
            for d in range(n):
                if self.library_of[d] == lib:
                    key = (self.rate[d], self.load[d], self.unload[d], self.locate[d])
                    classes.setdefault(key, []).append(d)
            if len(classes) > MAX_CLASSES:
                members = [[d for ds in classes.values() for d in ds]]
            else:
                members = list(classes.values())
            for g, ds in enumerate(members):
                group = _Group(
                    ds, self.rate, self.load, self.unload, self.locate, len(classes) <= MAX_CLASSES
                )
                self.groups[lib].append(group)
                for d in ds:
                    self.group_of[d] = g
                    heap = group.empty if self.held[d] is None else group.holding
                    heap.append((0.0, d, 0))
                heapq.heapify(group.empty)
                heapq.heapify(group.holding)

        self.operations: list[tuple[float, int, str, str, int, float]] = []
        self.placed: list[tuple[tuple[int, ...], float, float]] = []

    def run(self) -> None:
        """Schedule every request, in release order (ties in file order)."""
        requests = self.instance.requests
        order = sorted(range(len(requests)), key=lambda j: (requests[j].release_s, j))
        placed: list[tuple[tuple[int, ...], float, float] | None] = [None] * len(requests)
        for j in order:
            placed[j] = self._schedule(requests[j])
        self.placed = [p for p in placed if p is not None]

    def _schedule(self, request: Request) -> tuple[tuple[int, ...], float, float]:
        """Place ``request``: choose and prepare one drive per piece, then start it."""
        r = float(request.release_s)
        pieces = request.pieces
        where = self.where
        chosen: list[int] = []
        readies: list[float] = []
        for p, piece in enumerate(pieces):
            excluded = set(chosen)
            if len(pieces) > 1:
                for q, other in enumerate(pieces):
                    if q != p and other.tape in where:
                        excluded.add(where[other.tape])
            plan = self._best_plan(piece.tape, piece.offset_mb, piece.size_mb, r, excluded)
            self._commit(plan, piece.tape)
            chosen.append(plan.drive)
            readies.append(plan.ready)
        start = max(r, *readies)
        end = start + max(
            piece.size_mb / self.rate[d] for piece, d in zip(pieces, chosen, strict=True)
        )
        for piece, d in zip(pieces, chosen, strict=True):
            self.free[d] = end
            self.head[d] = piece.offset_mb + piece.size_mb
            group = self.groups[self.library_of[d]][self.group_of[d]]
            heapq.heappush(group.holding, (end, d, self.version[d]))
        return tuple(chosen), start, end

    def _best_plan(
        self, tape: str, offset: float, size: float, r: float, excluded: set[int]
    ) -> _Plan:
        """The plan completing the piece earliest (ties: earlier ready, then fewer moves).

        Candidates, in order of preference on ties: the drive holding
        ``tape`` (locate, or remount when locating back is longer), then, per
        group, its first available empty drives and its first available
        holding drives, none of them in ``excluded``. A candidate is placed
        on the arm timeline only when a lower bound of its completion (the
        arms free) beats the best so far.
        """
        lib = self.tape_library[tape]
        arms = self.arms[lib]
        mnt = self.mount_s[lib]
        dis = self.dismount_s[lib]
        free = self.free
        best: _Plan | None = None

        holder = self.where.get(tape, -1)
        steal: _Slot | None = None
        steal_from = 0.0
        earliest_mount = max(r, self.back.get(tape, 0.0))
        if holder >= 0:
            excluded.add(holder)
            base = max(r, free[holder])
            rate, loc = self.rate[holder], self.locate[holder]
            locate_s = abs(offset - self.head[holder]) / loc
            ready = base + locate_s
            best = _Plan(holder, ready, ready + size / rate)
            steal_from = base + self.unload[holder]
            remount_extra = self.unload[holder] + dis + mnt + self.load[holder] + offset / loc
            if locate_s > remount_extra:
                ds, dl = arms.earliest(steal_from, dis)
                ms, ml = arms.earliest(ds + dis, mnt)
                ready = ms + mnt + self.load[holder] + offset / loc
                completion = ready + size / rate
                if (completion, ready) < (best.completion, best.ready):
                    best = _Plan(holder, ready, completion, None, (ds, dl), (ms, ml))
            earliest_mount = steal_from + dis

        version = self.version
        load, unload, locate, rate_of = self.load, self.unload, self.locate, self.rate
        empty_since = self.empty_since
        mounts: dict[float, _Slot] = {}
        evicts: dict[float, _Slot] = {}
        for group in self.groups[lib]:
            least_tail = mnt + group.min_load + offset / group.max_locate + size / group.max_rate
            for evicting, heap in ((False, group.empty), (True, group.holding)):
                popped = []
                left = group.limit
                while heap and left:
                    key, d, v = heap[0]
                    if v != version[d]:
                        heapq.heappop(heap)
                        continue
                    if best is not None:
                        avail = max(r, key) + group.min_unload + dis if evicting else key
                        if max(earliest_mount, avail) + least_tail >= best.completion:
                            break
                    popped.append(heapq.heappop(heap))
                    if d in excluded:
                        continue
                    left -= 1
                    tail = mnt + load[d] + offset / locate[d]
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
                    evict: _Slot | None = None
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
                    completion = ready + transfer
                    if best is None or (completion, ready) < (best.completion, best.ready):
                        best = _Plan(d, ready, completion, steal, evict, mount)
                for entry in popped:
                    heapq.heappush(heap, entry)
        if best is None:
            raise ValueError(
                f"no drive of library {self.library_ids[lib]!r} is left for tape {tape!r}: "
                "is a gang wider than its library?"
            )
        return best

    def _commit(self, plan: _Plan, tape: str) -> None:
        """Apply ``plan``: reserve its arm operations and move the tapes."""
        d = plan.drive
        lib = self.library_of[d]
        arms = self.arms[lib]
        dis = self.dismount_s[lib]
        ops = self.operations
        if plan.steal is not None:
            holder = self.where.pop(tape)
            start, lane = plan.steal
            arms.reserve(start, dis, lane)
            ops.append((start, len(ops), "dismount", tape, holder, dis))
            self.held[holder] = None
            self.back[tape] = start + dis
            self.empty_since[holder] = start + dis
            self.version[holder] += 1
            group = self.groups[lib][self.group_of[holder]]
            heapq.heappush(group.empty, (start + dis, holder, self.version[holder]))
        if plan.evict is not None:
            old = self.held[d]
            if old is None:
                raise RuntimeError(f"drive {self.drive_ids[d]!r} has no tape to dismount")
            del self.where[old]
            start, lane = plan.evict
            arms.reserve(start, dis, lane)
            ops.append((start, len(ops), "dismount", old, d, dis))
            self.back[old] = start + dis
            self.held[d] = None
        if plan.mount is not None:
            start, lane = plan.mount
            mnt = self.mount_s[lib]
            arms.reserve(start, mnt, lane)
            ops.append((start, len(ops), "mount", tape, d, mnt))
            self.held[d] = tape
            self.where[tape] = d
        self.version[d] += 1

    def schedule(self) -> tuple[Schedule, float]:
        """The schedule built by :meth:`run`, and its objective value."""
        instance = self.instance
        ids = self.drive_ids
        lib_ids = self.library_ids
        library_of = self.library_of
        requests = tuple(
            ScheduledRequest(req.id, tuple(ids[d] for d in drives), start, end)
            for req, (drives, start, end) in zip(instance.requests, self.placed, strict=True)
        )
        self.operations.sort()
        operations = tuple(
            ArmOperation(op, tape, ids[d], start, start + duration, lib_ids[library_of[d]])
            for start, _, op, tape, d, duration in self.operations
        )
        value = objective_value(
            instance,
            {req.id: end for req, (_, _, end) in zip(instance.requests, self.placed, strict=True)},
        )
        schedule = Schedule(
            requests, operations, instance.name, ObjectiveValue(instance.objective, value)
        )
        return schedule, value


@register("greedy", describe("greedy"))
def greedy(instance: Instance, *, time_limit_s: float | None = None, seed: int = 0) -> Result:
    """Schedule ``instance`` online, request by request, keeping tapes mounted.

    Parameters
    ----------
    instance
        A well-formed instance.
    time_limit_s
        Ignored: the heuristic makes one pass and never searches.
    seed
        Ignored: the heuristic makes no random choice, so equal instances
        give equal schedules.

    Returns
    -------
    Result
        Status ``feasible`` with the schedule, its objective and no bound.
    """
    began = time.perf_counter()
    run = _Greedy(instance)
    run.run()
    schedule, value = run.schedule()
    return Result(
        solver="greedy",
        status=Status.FEASIBLE,
        schedule=schedule,
        objective=value,
        bound=None,
        runtime_s=time.perf_counter() - began,
    )
