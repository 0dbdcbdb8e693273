"""List scheduling on the platform state of the core problem: requests placed one at a time.

A :class:`Timeline` is the :class:`~solvers.timeline.state.TimelineState` of
an instance (which tape each drive holds, where its head is and when its
last action ends, which drive holds each tape and when a dismounted tape is
back in its slot, the busy intervals of each library's arms) together with
the ways to change it. Requests are placed on it one at a time and never
moved: :meth:`Timeline.plan` works out the earliest way to get a request
ready (on the drives of its choice, or on given drives, one per piece)
without changing the state, :meth:`Timeline.commit` applies a plan, and
:meth:`Timeline.place` does both at once; :meth:`Timeline.trial` takes back
whatever is placed inside it (:mod:`solvers.timeline.trials`).
:meth:`Timeline.schedule` exports what was placed. Every heuristic of the
toolkit builds its schedule through this one timeline: the ``greedy`` list
scheduler (:mod:`solvers.greedy`), the online dispatchers
(:mod:`solvers.online`), and whoever decodes a request order into a schedule
with :func:`decode` (local search, enumeration).

Rules of a placement
    Each piece of a request goes to a drive that gets it ready (tape loaded,
    head at the piece's offset), as :mod:`solvers.timeline.pieces` works it
    out: the drive holding the piece's tape locates (or remounts it), any
    other drive unloads and dismounts what it holds while an arm dismounts
    the piece's tape from the drive holding it, if any, then an arm mounts
    the tape and the drive loads and locates. Without given drives, each
    piece in turn takes the drive that completes it earliest
    (:func:`~solvers.timeline.pieces.best_plan`). The request starts when
    all its drives are ready, at its release at the earliest. A tape stays
    in its drive after use until a switch needs that drive or the tape
    (keep-mounted); :meth:`Timeline.dismount` removes one on demand.

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
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import NamedTuple

from tapesched.solvers.timeline.pieces import (
    PiecePlacement,
    best_of_sources,
    best_plan,
    plan_on,
)
from tapesched.solvers.timeline.state import Slot, TimelineState
from tapesched.solvers.timeline.trials import UndoLog
from tapesched.toolkit.model import (
    ArmOperation,
    Instance,
    ObjectiveValue,
    Schedule,
    ScheduledRequest,
)
from tapesched.toolkit.objectives import objective_value

_INF = float("inf")


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


class Timeline(TimelineState):
    """State of one platform while requests are placed on it, one at a time.

    Drives, libraries and requests are referred to by their index in the
    instance's tuples (``instance.drives``, ``instance.libraries``,
    ``instance.requests``); :attr:`drive_index` and :meth:`request_index`
    translate ids. The state may be read directly through the read-only
    accessors of :class:`~solvers.timeline.state.TimelineState`
    (:meth:`tape_in`, :meth:`head_mb`, :meth:`available_s`, :meth:`holder`);
    it changes only through :meth:`commit`, :meth:`place`,
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
        super().__init__(instance, online=online)
        self._trials = UndoLog(self)

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
        trials = self._trials
        with trials.undone(trials.begin()):
            return self.place(request, earliest=earliest, drives=drives, idle_at=idle_at)

    def commit(self, plan: Placement) -> None:
        """Apply ``plan``, which must have been made against the current state."""
        if plan.stamp != self.stamp:
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
        trials = self._trials
        if trials.entries is not None:
            trials.save_tape_move(tape, drive)
            trials.save_arm(lib, slot[0], dis, slot[1])
        self._take_out(tape, drive, lib, slot)
        self.new_stamp()
        return slot[0], slot[0] + dis

    @contextmanager
    def trial(self) -> Iterator[None]:
        """Undo on exit whatever is committed, placed or dismounted inside the block.

        Trials nest; start one between placements (not from inside a
        placement), as :meth:`plan` does. Plans made before the block are
        valid again after it.
        """
        trials = self._trials
        with trials.undone(trials.begin()):
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
        stamp = self.stamp
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
                plan = plan_on(self, drives[p], tape, piece.offset_mb, piece.size_mb, r, release)
            else:
                excluded = set(chosen)
                if len(pieces) > 1:
                    for q, other in enumerate(pieces):
                        if q != p and other.tape in where:
                            excluded.add(where[other.tape])
                found = best_plan(
                    self, tape, piece.offset_mb, piece.size_mb, r, release, excluded, until
                )
                if sources and until < _INF:
                    found = best_of_sources(self, found, sources, excluded, piece, r, release)
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
        if self._trials.entries is not None:
            self._trials.save_start(j, drive_tuple)
        free, head, version = self.free, self.head, self.version
        for piece, d in zip(pieces, chosen, strict=True):
            free[d] = end
            head[d] = piece.offset_mb + piece.size_mb
            group = self.groups[self.library_of[d]][self.group_of[d]]
            heapq.heappush(group.holding, (end, d, version[d]))
        self.placed[j] = (drive_tuple, start, end)
        self.new_stamp()
        if not want:
            return None
        return Placement(j, drive_tuple, start, end, tuple(plans), tuple(sources), stamp)

    def _commit(self, plan: PiecePlacement, tape: str) -> None:
        """Apply a piece's plan: reserve its arm operations and move the tapes."""
        d = plan.drive
        lib = self.library_of[d]
        arms = self.arms[lib]
        dis = self.dismount_s[lib]
        ops = self.operations
        if self._trials.entries is not None:
            self._trials.save_piece(plan, tape, lib)
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

    def _take_out(self, tape: str, drive: int, lib: int, slot: Slot) -> None:
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
