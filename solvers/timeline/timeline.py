"""Platform state of the core problem, and list scheduling on it.

An :class:`Timeline` holds what a scheduler must know about a platform while it
builds a schedule: which tape each drive holds, where its head is and when its
last action ends, which drive holds each tape and when a dismounted tape is
back in its slot, and the busy intervals of each library's arms (an
:class:`~solvers.timeline.arms.ArmTimeline`). Requests are placed on it one at a time
and never moved: :meth:`Timeline.plan` works out the earliest way to get a
request ready (on the drives of its choice, or on given drives, one per
piece) without changing the state, :meth:`Timeline.commit` applies a plan, and
:meth:`Timeline.place` does both at once. :meth:`Timeline.schedule` exports what
was placed. Every heuristic of the toolkit builds its schedule through this
one timeline: the ``greedy`` list scheduler (:mod:`solvers.greedy`), the online
dispatchers (:mod:`solvers.online`), and whoever decodes a request order into
a schedule with :func:`decode` (local search, enumeration).

Rules of a placement
    Each piece of a request goes to a drive that gets it ready (tape loaded,
    head at the piece's offset): the drive holding the piece's tape locates
    (or remounts it, when locating back is longer), any other drive unloads
    and dismounts what it holds while an arm dismounts the piece's tape from
    the drive holding it, if any, then an arm mounts the tape and the drive
    loads and locates. Arm operations go in the earliest gap of the library's
    arm lanes. The request starts when all its drives are ready, at its
    release at the earliest. A tape stays in its drive after use until a
    switch needs that drive or the tape (keep-mounted); :meth:`Timeline.dismount`
    removes one on demand.

Choice of drives
    Without given drives, each piece in turn takes the drive that completes
    it earliest (ties: ready earlier, then fewer arm operations), among the
    drives of its library not already taken by the request and not holding
    another piece's tape. Drives of a library are grouped by class
    (identical timings) and, within a class, kept in two heaps ordered by
    when they become available, one of empty drives and one of drives
    holding a tape. Within a class the drive available first is also ready
    first (arm placement is monotone in its earliest start), so a piece is
    evaluated only on the drive holding its tape and on the head of each
    heap. A library with more than :data:`MAX_CLASSES` classes forms one
    mixed group, scanned up to :data:`MIXED_CANDIDATES` drives deep in order
    of availability, stopping early when the group's fastest timings cannot
    beat the best plan. This keeps a placement cheap on hundreds of drives:
    100,000 requests are placed in seconds. Given ``idle_at`` (a
    dispatcher's decision time), only drives with nothing to do after that
    time are candidates, and the drives the request itself takes a tape
    from.

Online and offline
    In ``online`` mode nothing is done for a request before its release: its
    unloads, arm operations and locates start at ``release_s`` or later (or
    at a later decision time that the caller passes as ``earliest``). In
    offline mode they may start at time 0 (a tape is prefetched); only the
    transfer waits for the release, and drives are compared by the
    completion the release allows, ``max(ready, release) + transfer``.
"""

from __future__ import annotations

import heapq
import operator
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple

from tapesched.solvers.timeline.arms import ArmTimeline
from tapesched.toolkit.model import (
    ArmOperation,
    Instance,
    ObjectiveValue,
    Piece,
    Schedule,
    ScheduledRequest,
)
from tapesched.toolkit.objectives import objective_value

_Slot = tuple[float, int]
"""Start and lane of an arm operation placed on an :class:`ArmTimeline`."""

_INF = float("inf")

MAX_CLASSES = 8
"""Most drive classes of a library scanned one by one; beyond, its drives form one group."""

MIXED_CANDIDATES = 6
"""Drives of a mixed group (unequal timings) evaluated per piece and heap, at most."""


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
    steal: _Slot | None = None
    evict: _Slot | None = None
    mount: _Slot | None = None


class Placement(NamedTuple):
    """How one request would run, worked out against one state of a timeline.

    Attributes
    ----------
    request
        Index of the request in ``instance.requests``.
    drives
        Index of its drive for each piece, in piece order.
    start, end
        Start and end of its transfer.
    pieces
        The arm operations and timings of each piece.
    sources
        Drives that give up a tape to the request (the tape of one of its
        pieces is dismounted from them).
    stamp
        State of the timeline the plan was made against; :meth:`Timeline.commit`
        refuses a plan made against another state.
    """

    request: int
    drives: tuple[int, ...]
    start: float
    end: float
    pieces: tuple[PiecePlacement, ...]
    sources: tuple[int, ...]
    stamp: int


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


_MISSING = object()
"""Marks, in the undo log, a key that a dict did not hold."""

_Mark = tuple[int, int, int, int]
"""Lengths of the undo logs and of the operations, and the state stamp, at a trial's start."""


class Timeline:
    """State of one platform while requests are placed on it, one at a time.

    Drives, libraries and requests are referred to by their index in the
    instance's tuples (``instance.drives``, ``instance.libraries``,
    ``instance.requests``); :attr:`drive_index` and :meth:`request_index`
    translate ids. The state may be read directly through the read-only
    accessors (:meth:`tape_in`, :meth:`head_mb`, :meth:`available_s`,
    :meth:`holder`); it changes only through :meth:`commit`, :meth:`place`,
    :meth:`place_in_order` and :meth:`dismount`, and :meth:`trial` undoes
    whatever happens inside it.

    Parameters
    ----------
    instance
        A well-formed instance.
    online
        Whether nothing may be done for a request before its release (see
        the module's docstring).
    """

    def __init__(self, instance: Instance, *, online: bool = False) -> None:
        self.instance = instance
        self.online = online
        self.requests = instance.requests
        drives = instance.drives
        self.drive_ids = [d.id for d in drives]
        self.drive_index = {d.id: i for i, d in enumerate(drives)}
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
        self.switch = [float(d.switch_s(instance.library_by_id[d.library])) for d in drives]
        self.locate = [float(d.floor_speed_mb_s) for d in drives]
        """Each drive's locate speed, or the floor speed of a serpentine drive (infinite):
        exact for a linear drive, a valid floor for pruning on any (:meth:`locate_s`
        gives the time)."""
        self.drive_models = drives
        self.linear = [d.linear for d in drives]
        self.capacity = {t.id: float(t.capacity_mb) for t in instance.tapes}
        self.version = [0] * n
        self.held: list[str | None] = [None] * n
        self.head = [0.0] * n
        self.free = [0.0] * n
        self.empty_since = [0.0] * n
        self.where: dict[str, int] = {}
        self.back: dict[str, float] = {}

        for init in instance.initial:
            d = self.drive_index[init.drive]
            self.held[d] = init.tape
            self.where[init.tape] = d
            self.head[d] = float(init.head_mb)
        for d, drive in enumerate(drives):
            self.free[d] = self.empty_since[d] = float(drive.available_s)
        for library, arms in zip(instance.libraries, self.arms, strict=True):
            for lane, free_s in enumerate(library.arm_free_s()):
                arms.reserve(0.0, free_s, lane)

        self.library_of = [lib_index[d.library] for d in drives]
        self.groups: list[list[_Group]] = [[] for _ in instance.libraries]
        self.group_of = [0] * n
        for lib in range(len(instance.libraries)):
            classes: dict[tuple[float, float, float, float, object], list[int]] = {}
            for d in range(n):
                if self.library_of[d] == lib:
                    model = drives[d].locate
                    key = (self.rate[d], self.load[d], self.unload[d], self.locate[d], model)
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
                    heap.append((self.free[d], d, 0))
                heapq.heapify(group.empty)
                heapq.heapify(group.holding)

        self.operations: list[tuple[float, int, str, str, int, float]] = []
        self.placed: list[tuple[tuple[int, ...], float, float] | None] = [None] * len(self.requests)
        self._request_index: dict[str, int] | None = None
        self._log: list[tuple[Any, Any, Any, int]] | None = None
        self._arm_log: list[tuple[int, float, float, int]] = []
        self._depth = 0
        self._stamp = 0
        self._next_stamp = 1

    # Reading the state.

    def request_index(self, request: int | str) -> int:
        """Index in ``instance.requests`` of a request given by index or id."""
        if type(request) is int and 0 <= request < len(self.requests):
            return request
        if isinstance(request, str):
            if self._request_index is None:
                self._request_index = {r.id: i for i, r in enumerate(self.requests)}
            found = self._request_index.get(request)
            if found is None:
                raise ValueError(f"unknown request {request!r}")
            return found
        j = operator.index(request)
        if not 0 <= j < len(self.requests):
            raise ValueError(f"no request of index {j}")
        return j

    def tape_in(self, drive: int) -> str | None:
        """Tape that ``drive`` holds at the end of its timeline (``None``: empty)."""
        return self.held[drive]

    def head_mb(self, drive: int) -> float:
        """Offset of the head of ``drive`` after its last transfer (0 before any)."""
        return self.head[drive]

    def available_s(self, drive: int) -> float:
        """When ``drive`` has nothing left to do: end of its last request or dismount."""
        return self.empty_since[drive] if self.held[drive] is None else self.free[drive]

    def holder(self, tape: str) -> int | None:
        """Drive holding ``tape`` at the end of its timeline, or ``None``."""
        return self.where.get(tape)

    def back_s(self, tape: str) -> float:
        """When ``tape`` is back in its slot after its last dismount (0 if never)."""
        return self.back.get(tape, 0.0)

    def is_placed(self, request: int | str) -> bool:
        """Whether a request has been placed."""
        return self.placed[self.request_index(request)] is not None

    def placement(self, request: int | str) -> tuple[tuple[int, ...], float, float] | None:
        """Drives, start and end of a placed request, ``None`` when not placed."""
        return self.placed[self.request_index(request)]

    # Planning and placing.

    def plan(
        self,
        request: int | str,
        *,
        earliest: float | None = None,
        drives: Sequence[int] | None = None,
        idle_at: float | None = None,
    ) -> Placement:
        """The earliest way to run ``request`` from the current state, which is left as it is.

        Parameters
        ----------
        request
            Index or id of a request not placed yet.
        earliest
            Time before which nothing is done for the request (its transfer
            also waits for its release); by default its release online and 0
            offline. Online, it may not precede the release.
        drives
            Drive index for each piece, in piece order; by default the timeline
            chooses (see the module's docstring).
        idle_at
            Choose only among drives with nothing to do after this time (the
            drives free at a dispatcher's decision time); ignored with
            ``drives``.

        Raises
        ------
        ValueError
            For a request already placed, an ``earliest`` before the release
            online, given drives that are not one distinct drive of the
            request's library per piece, or no drive left for a piece.
        """
        mark = self._begin()
        with self._undone(mark):
            return self.place(request, earliest=earliest, drives=drives, idle_at=idle_at)

    def commit(self, plan: Placement) -> None:
        """Apply ``plan``, which must have been made against the current state."""
        if plan.stamp != self._stamp:
            raise ValueError("the plan was made against another state of the timeline")
        j = plan.request
        if self.placed[j] is not None:
            raise ValueError(f"request {self.requests[j].id!r} is already placed")
        self._run(j, None, None, None, False, plan.pieces)

    def place(
        self,
        request: int | str,
        *,
        earliest: float | None = None,
        drives: Sequence[int] | None = None,
        idle_at: float | None = None,
    ) -> Placement:
        """Place ``request`` and commit the plan at once; return it.

        Same parameters and errors as :meth:`plan` (which is this, undone),
        and cheaper than :meth:`plan` then :meth:`commit` for a gang, whose
        pieces are planned once. A failure past the checks of the arguments
        (no drive left for a piece) leaves the timeline unusable.
        """
        j = self.request_index(request)
        plan = self._run(j, earliest, self._check_drives(j, drives), idle_at)
        assert plan is not None
        return plan

    def place_in_order(
        self, order: Iterable[int | str], drives: Mapping[int, Sequence[int]] | None = None
    ) -> None:
        """Place requests one after the other, each as early as it fits: list scheduling.

        Parameters
        ----------
        order
            Indices or ids of requests not placed yet, each at most once.
        drives
            Drive indices (one per piece) by request index, for the requests
            whose drives are fixed; the others go to the drives the timeline
            chooses.

        Raises
        ------
        ValueError
            As :meth:`place`.
        """
        count = len(self.requests)
        placed = self.placed
        for item in order:
            j = item if type(item) is int and 0 <= item < count else self.request_index(item)
            given = None if drives is None else drives.get(j)
            if given is not None or placed[j] is not None:
                self._run(j, None, self._check_drives(j, given), None, False)
            else:
                self._run(j, None, None, None, False)

    def dismount(self, drive: int, earliest: float = 0.0) -> tuple[float, float]:
        """Unload and dismount the tape ``drive`` holds, as early as possible.

        The unload starts at ``earliest`` or at the end of the drive's last
        action, whichever is later; the dismount takes the first arm free
        after the unload. Returns the dismount's start and end.

        Raises
        ------
        ValueError
            When the drive is empty.
        """
        tape = self.held[drive]
        if tape is None:
            raise ValueError(f"drive {self.drive_ids[drive]!r} holds no tape")
        lib = self.library_of[drive]
        dis = self.dismount_s[lib]
        slot = self.arms[lib].earliest(max(earliest, self.free[drive]) + self.unload[drive], dis)
        if self._log is not None:
            self._save_tape_move(tape, drive)
            self._arm_log.append((lib, slot[0], dis, slot[1]))
        self._take_out(tape, drive, lib, slot)
        self._new_stamp()
        return slot[0], slot[0] + dis

    @contextmanager
    def trial(self) -> Iterator[None]:
        """Undo on exit whatever is committed, placed or dismounted inside the block.

        Trials nest; start one between placements (not from inside a
        placement), as :meth:`plan` does. Plans made before the block are
        valid again after it.
        """
        with self._undone(self._begin()):
            yield

    # Exporting.

    def schedule(self) -> Schedule:
        """The placed requests (in file order) and every arm operation, as a schedule.

        The schedule records the instance's objective computed over the
        placed requests; it is the objective of the whole instance once
        every request is placed.
        """
        instance = self.instance
        name_of = self.drive_ids.__getitem__
        lib_ids = self.library_ids
        library_of = self.library_of
        done = [
            (req, placed)
            for req, placed in zip(instance.requests, self.placed, strict=True)
            if placed is not None
        ]
        requests = tuple(
            ScheduledRequest(req.id, tuple(map(name_of, drives)), start, end)
            for req, (drives, start, end) in done
        )
        operations = tuple(
            ArmOperation(op, tape, name_of(d), start, start + duration, lib_ids[library_of[d]])
            for start, _, op, tape, d, duration in sorted(self.operations)
        )
        value = objective_value(instance, {req.id: end for req, (_, _, end) in done})
        return Schedule(
            tuple(requests),
            tuple(operations),
            instance.name,
            ObjectiveValue(instance.objective, value),
        )

    # Internals.

    def _check_drives(self, j: int, drives: Sequence[int] | None) -> list[int] | None:
        """Given drives as a list, after checking them against request ``j``."""
        if self.placed[j] is not None:
            raise ValueError(f"request {self.requests[j].id!r} is already placed")
        if drives is None:
            return None
        request = self.requests[j]
        wanted = list(drives)
        if len(wanted) != len(request.pieces):
            raise ValueError(
                f"request {request.id!r} has {len(request.pieces)} pieces, given "
                f"{len(wanted)} drives"
            )
        if len(set(wanted)) != len(wanted):
            raise ValueError(f"request {request.id!r}: drives given twice")
        lib = self.tape_library[request.pieces[0].tape]
        for d in wanted:
            if not 0 <= d < len(self.drive_ids) or self.library_of[d] != lib:
                raise ValueError(
                    f"request {request.id!r}: drive index {d} is not a drive of library "
                    f"{self.library_ids[lib]!r}"
                )
        return wanted

    def _run(
        self,
        j: int,
        earliest: float | None,
        drives: list[int] | None,
        idle_at: float | None,
        want: bool = True,
        replay: Sequence[PiecePlacement] | None = None,
    ) -> Placement | None:
        """Place request ``j``: choose and prepare one drive per piece, then start it.

        The pieces' plans are worked out in turn, each committed before the
        next is planned, unless ``replay`` gives them (a plan made against
        this very state). Returns the plan carried out, unless ``want`` is
        false (list scheduling, which needs none, saves building it).
        """
        request = self.requests[j]
        release = float(request.release_s)
        if earliest is None:
            r = release if self.online else 0.0
        elif self.online and earliest < release:
            raise ValueError(
                f"online, nothing may be done for request {request.id!r} before its "
                f"release at {release} s (asked from {earliest} s)"
            )
        else:
            r = float(earliest)
        until = _INF if idle_at is None else float(idle_at)
        stamp = self._stamp
        pieces = request.pieces
        where = self.where
        plans: list[PiecePlacement] = []
        chosen: list[int] = []
        sources: list[int] = []
        for p, piece in enumerate(pieces):
            tape = piece.tape
            if replay is not None:
                plan = replay[p]
            elif drives is not None:
                plan = self._plan_on(drives[p], tape, piece.offset_mb, piece.size_mb, r, release)
            else:
                excluded = set(chosen)
                if len(pieces) > 1:
                    for q, other in enumerate(pieces):
                        if q != p and other.tape in where:
                            excluded.add(where[other.tape])
                found = self._best_plan(
                    tape, piece.offset_mb, piece.size_mb, r, release, excluded, until
                )
                if sources and until < _INF:
                    found = self._best_of_sources(found, sources, excluded, piece, r, release)
                if found is None:
                    lib = self.library_ids[self.tape_library[tape]]
                    raise ValueError(
                        f"no drive of library {lib!r} is left for tape {tape!r} of request "
                        f"{request.id!r}: too few drives (idle at {until} s)"
                    )
                plan = found
            if plan.steal is not None:
                sources.append(where[tape])
            self._commit(plan, tape)
            plans.append(plan)
            chosen.append(plan.drive)
        rate = self.rate
        if len(plans) == 1:
            start = max(release, plans[0].ready)
            end = start + pieces[0].size_mb / rate[chosen[0]]
        else:
            start = max(release, *(plan.ready for plan in plans))
            end = start + max(
                piece.size_mb / rate[d] for piece, d in zip(pieces, chosen, strict=True)
            )
        drive_tuple = tuple(chosen)
        if self._log is not None:
            self._save_start(j, drive_tuple)
        free, head, version = self.free, self.head, self.version
        for piece, d in zip(pieces, chosen, strict=True):
            free[d] = end
            head[d] = piece.offset_mb + piece.size_mb
            group = self.groups[self.library_of[d]][self.group_of[d]]
            heapq.heappush(group.holding, (end, d, version[d]))
        self.placed[j] = (drive_tuple, start, end)
        self._stamp = self._next_stamp
        self._next_stamp += 1
        if not want:
            return None
        return Placement(j, drive_tuple, start, end, tuple(plans), tuple(sources), stamp)

    def _best_of_sources(
        self,
        plan: PiecePlacement | None,
        sources: list[int],
        excluded: set[int],
        piece: Piece,
        r: float,
        release: float,
    ) -> PiecePlacement | None:
        """``plan``, or a better one on a drive this request took a tape from.

        Such a drive was idle when the placement began and is busy only with
        the request's own dismount, so it stays a candidate of its later
        pieces when the choice is among idle drives.
        """
        for d in sources:
            if d in excluded or self.held[d] is not None:
                continue
            other = self._plan_on(d, piece.tape, piece.offset_mb, piece.size_mb, r, release)
            if plan is None or (other.completion, other.ready) < (plan.completion, plan.ready):
                plan = other
        return plan

    def locate_s(self, d: int, head: float, offset: float, tape: str) -> float:
        """Seconds drive ``d`` takes to move its head from ``head`` to ``offset`` on ``tape``.

        Linear drives as ever (``|offset - head| / locate_mb_s``); a drive
        with a serpentine ``locate`` model by :meth:`toolkit.model.Drive.locate_s`,
        the one locate time of the validator.
        """
        if self.linear[d]:
            return abs(offset - head) / self.locate[d]
        return self.drive_models[d].locate_s(head, offset, self.capacity[tape])

    def _in_place(
        self, holder: int, tape: str, offset: float, size: float, r: float, release: float
    ) -> tuple[PiecePlacement, float]:
        """Placement on the drive holding the piece's tape, and when its tape could be unloaded.

        The drive locates, or remounts the tape when locating back is
        longer than a remount could be.
        """
        base = max(r, self.free[holder])
        rate = self.rate[holder]
        locate_s = self.locate_s(holder, self.head[holder], offset, tape)
        from_0 = self.locate_s(holder, 0.0, offset, tape)
        transfer = size / rate
        ready = base + locate_s
        best = PiecePlacement(holder, ready, (ready if ready > release else release) + transfer)
        unload_end = base + self.unload[holder]
        lib = self.library_of[holder]
        dis, mnt = self.dismount_s[lib], self.mount_s[lib]
        if locate_s > self.switch[holder] + from_0:
            arms = self.arms[lib]
            ds, dl = arms.earliest(unload_end, dis)
            ms, ml = arms.earliest(ds + dis, mnt)
            ready = ms + mnt + self.load[holder] + from_0
            completion = max(ready, release) + transfer
            if (completion, ready) < (best.completion, best.ready):
                best = PiecePlacement(holder, ready, completion, None, (ds, dl), (ms, ml))
        return best, unload_end

    def _plan_on(
        self, d: int, tape: str, offset: float, size: float, r: float, release: float
    ) -> PiecePlacement:
        """The plan getting the piece ready on drive ``d``, whatever it holds."""
        holder = self.where.get(tape, -1)
        if holder == d:
            return self._in_place(d, tape, offset, size, r, release)[0]
        lib = self.tape_library[tape]
        arms = self.arms[lib]
        mnt, dis = self.mount_s[lib], self.dismount_s[lib]
        steal: _Slot | None = None
        earliest_mount = max(r, self.back.get(tape, 0.0))
        if holder >= 0:
            steal = arms.earliest(max(r, self.free[holder]) + self.unload[holder], dis)
            earliest_mount = steal[0] + dis
        evict: _Slot | None = None
        drive_from = self.empty_since[d]
        if self.held[d] is not None:
            if steal is not None:
                arms.reserve(steal[0], dis, steal[1])
            evict = arms.earliest(max(r, self.free[d]) + self.unload[d], dis)
            if steal is not None:
                arms.release(steal[0], dis, steal[1])
            drive_from = evict[0] + dis
        mount = arms.earliest(max(earliest_mount, drive_from), mnt)
        ready = mount[0] + mnt + self.load[d] + self.locate_s(d, 0.0, offset, tape)
        return PiecePlacement(
            d, ready, max(ready, release) + size / self.rate[d], steal, evict, mount
        )

    def _best_plan(
        self,
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
        ``None`` when no drive is left.
        """
        lib = self.tape_library[tape]
        arms = self.arms[lib]
        mnt = self.mount_s[lib]
        dis = self.dismount_s[lib]
        free = self.free
        best: PiecePlacement | None = None

        holder = self.where.get(tape, -1)
        steal: _Slot | None = None
        steal_from = 0.0
        earliest_mount = max(r, self.back.get(tape, 0.0))
        if holder >= 0:
            excluded.add(holder)
            if free[holder] <= until:
                best, steal_from = self._in_place(holder, tape, offset, size, r, release)
            else:
                steal_from = max(r, free[holder]) + self.unload[holder]
            earliest_mount = steal_from + dis

        version = self.version
        load, unload, locate, rate_of = self.load, self.unload, self.locate, self.rate
        linear = self.linear
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
                        + (offset / locate[d] if linear[d] else self.locate_s(d, 0.0, offset, tape))
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
                    completion = (ready if ready > release else release) + transfer
                    if best is None or (completion, ready) < (best.completion, best.ready):
                        best = PiecePlacement(d, ready, completion, steal, evict, mount)
                for entry in popped:
                    heapq.heappush(heap, entry)
        return best

    def _commit(self, plan: PiecePlacement, tape: str) -> None:
        """Apply a piece's plan: reserve its arm operations and move the tapes."""
        d = plan.drive
        lib = self.library_of[d]
        arms = self.arms[lib]
        dis = self.dismount_s[lib]
        ops = self.operations
        if self._log is not None:
            self._save_piece(plan, tape, lib)
        if plan.steal is not None:
            self._take_out(tape, self.where[tape], lib, plan.steal)
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

    def _take_out(self, tape: str, drive: int, lib: int, slot: _Slot) -> None:
        """Dismount ``tape`` from ``drive`` at arm ``slot``, leaving the drive empty.

        The tape is back in its slot and the drive available to a mount at
        the dismount's end. Not for a drive that a mount refills at once
        (its eviction, in :meth:`_commit`): it never stands empty.
        """
        start, lane = slot
        dis = self.dismount_s[lib]
        self.arms[lib].reserve(start, dis, lane)
        ops = self.operations
        ops.append((start, len(ops), "dismount", tape, drive, dis))
        del self.where[tape]
        self.held[drive] = None
        self.back[tape] = start + dis
        self.empty_since[drive] = start + dis
        self.version[drive] += 1
        group = self.groups[lib][self.group_of[drive]]
        heapq.heappush(group.empty, (start + dis, drive, self.version[drive]))

    # Undo log of trials.

    def _new_stamp(self) -> None:
        self._stamp = self._next_stamp
        self._next_stamp += 1

    def _save(self, container: Any, key: Any, drive: int) -> None:
        """Log the value of ``container[key]`` (list or dict) before it changes."""
        assert self._log is not None
        old = container.get(key, _MISSING) if isinstance(container, dict) else container[key]
        self._log.append((container, key, old, drive))

    def _save_tape_move(self, tape: str, drive: int) -> None:
        """Log what moving ``tape`` out of ``drive`` changes."""
        self._save(self.where, tape, -1)
        self._save(self.back, tape, -1)
        self._save(self.held, drive, drive)
        self._save(self.empty_since, drive, drive)

    def _save_piece(self, plan: PiecePlacement, tape: str, lib: int) -> None:
        """Log what committing ``plan`` changes."""
        d = plan.drive
        mnt, dis = self.mount_s[lib], self.dismount_s[lib]
        arm_log = self._arm_log
        if plan.steal is not None:
            self._save_tape_move(tape, self.where[tape])
            arm_log.append((lib, plan.steal[0], dis, plan.steal[1]))
        old = self.held[d]
        if old is not None:
            self._save(self.where, old, -1)
            self._save(self.back, old, -1)
        self._save(self.where, tape, -1)
        self._save(self.held, d, d)
        if plan.evict is not None:
            arm_log.append((lib, plan.evict[0], dis, plan.evict[1]))
        if plan.mount is not None:
            arm_log.append((lib, plan.mount[0], mnt, plan.mount[1]))

    def _save_start(self, j: int, drives: tuple[int, ...]) -> None:
        """Log what starting request ``j`` on ``drives`` changes."""
        self._save(self.placed, j, -1)
        for d in drives:
            self._save(self.free, d, d)
            self._save(self.head, d, d)

    def _begin(self) -> _Mark:
        if self._log is None:
            self._log = []
            self._arm_log = []
        self._depth += 1
        return (len(self._log), len(self._arm_log), len(self.operations), self._stamp)

    @contextmanager
    def _undone(self, mark: _Mark) -> Iterator[None]:
        """Undo to ``mark`` when the block ends, normally or by an error.

        Not when an interrupt (Ctrl-C, SIGTERM: a :class:`BaseException`
        that is no :class:`Exception`) ends it: it may have come between
        logging a change and making it, so the undo could fail and hide it;
        the timeline is abandoned with the run.
        """
        try:
            yield
        except Exception:
            self._undo(mark)
            raise
        self._undo(mark)

    def _undo(self, mark: _Mark) -> None:
        """Restore the state at ``mark``: values, arm lanes, operations, heap entries."""
        log = self._log
        assert log is not None
        size, arm_size, ops_size, stamp = mark
        touched: set[int] = set()
        for container, key, old, drive in reversed(log[size:]):
            if old is _MISSING:
                container.pop(key, None)
            else:
                container[key] = old
            if drive >= 0:
                touched.add(drive)
        del log[size:]
        for lib, start, duration, lane in reversed(self._arm_log[arm_size:]):
            self.arms[lib].release(start, duration, lane)
        del self._arm_log[arm_size:]
        del self.operations[ops_size:]
        for d in sorted(touched):
            self.version[d] += 1
            group = self.groups[self.library_of[d]][self.group_of[d]]
            heap = group.empty if self.held[d] is None else group.holding
            heapq.heappush(heap, (self.available_s(d), d, self.version[d]))
        self._stamp = stamp
        self._depth -= 1
        if self._depth == 0:
            self._log = None


def decode(
    instance: Instance,
    order: Iterable[str | int],
    drives: Mapping[str, Sequence[str]] | None = None,
    online: bool = False,
) -> Schedule:
    """List-schedule requests in the given order, each placed once and never moved.

    Each request in turn is placed by an :class:`Timeline` as early as it fits
    after those before it in ``order``: on the drives ``drives`` names for it
    (one per piece, in piece order), or else on the drives the timeline
    chooses. A search over orders (and drives) thus needs only this function
    to turn a candidate into a feasible schedule.

    Parameters
    ----------
    instance
        A well-formed instance.
    order
        Request ids (or indices in ``instance.requests``), each at most once.
        Requests left out are left out of the schedule, whose objective then
        covers only the requests placed.
    drives
        Drive ids by request id, for the requests whose drives are fixed.
    online
        Whether nothing may be done for a request before its release (see
        the module's docstring); offline, tapes may be prefetched.

    Returns
    -------
    Schedule
        The placed requests in file order, the arm operations in time order,
        and the instance's objective (``schedule.objective.value``).

    Raises
    ------
    ValueError
        For an unknown or repeated request, or drives that do not fit their
        request (unknown, repeated, of another library, not one per piece).
    """
    timeline = Timeline(instance, online=online)
    if drives is None:
        timeline.place_in_order(order)
        return timeline.schedule()
    index = timeline.drive_index
    items = list(order)
    fixed: dict[int, list[int]] = {}
    for item in items:
        j = timeline.request_index(item)
        given = drives.get(instance.requests[j].id)
        if given is not None:
            unknown = [d for d in given if d not in index]
            if unknown:
                rid = instance.requests[j].id
                raise ValueError(f"request {rid!r}: unknown drive {unknown[0]!r}")
            fixed[j] = [index[d] for d in given]
    timeline.place_in_order(items, fixed)
    return timeline.schedule()
