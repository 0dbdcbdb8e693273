"""The platform state of the core problem while a schedule is built: where things stand.

:class:`TimelineState` holds, for one instance, what a scheduler must know
about the platform at the end of what it has placed so far: which tape each
drive holds, where its head is and when its last action ends, which drive
holds each tape and when a dismounted tape is back in its slot, the busy
intervals of each library's arms (an
:class:`~solvers.timeline.arms.ArmTimeline`), the arm operations and the
requests placed. Drives, libraries and requests are referred to by their
index in the instance's tuples (``instance.drives``, ``instance.libraries``,
``instance.requests``).

Drives of a library are grouped by class (identical timings) into
:class:`DriveHeaps`, each keeping two heaps ordered by when its drives
become available, so that choosing a drive for a piece looks at the heads
of the heaps only (:mod:`solvers.timeline.pieces`). A library with more than
:data:`MAX_CLASSES` classes forms one mixed group.

The state is read here; :class:`solvers.timeline.timeline.Timeline` changes
it by placing requests, and :class:`solvers.timeline.trials.UndoLog` takes
its changes back.
"""

from __future__ import annotations

import heapq
import operator
from typing import TypeAlias

from tapesched.solvers.timeline.arms import ArmTimeline
from tapesched.toolkit.model import Instance

Slot: TypeAlias = tuple[float, int]
"""Start and lane of an arm operation placed on an :class:`ArmTimeline`."""

Operation: TypeAlias = tuple[float, int, str, str, int, float]
"""An arm operation done: start, its rank among the operations, ``mount`` or ``dismount``,
tape, drive index, duration."""

MAX_CLASSES = 8
"""Most drive classes of a library scanned one by one; beyond, its drives form one group."""

MIXED_CANDIDATES = 6
"""Drives of a mixed group (unequal timings) evaluated per piece and heap, at most."""


class DriveHeaps:
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


class TimelineState:
    """Where one platform stands at the end of what was placed on it (see the module).

    The state may be read directly through the read-only accessors
    (:meth:`tape_in`, :meth:`head_mb`, :meth:`available_s`, :meth:`holder`,
    :meth:`back_s`); ``stamp`` names the state, so that a plan made against
    one state is refused against another.

    Parameters
    ----------
    instance
        A well-formed instance.
    online
        Whether nothing may be done for a request before its release
        (:mod:`solvers.timeline.timeline`).
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
        self.groups: list[list[DriveHeaps]] = [[] for _ in instance.libraries]
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
                group = DriveHeaps(
                    ds, self.rate, self.load, self.unload, self.locate, len(classes) <= MAX_CLASSES
                )
                self.groups[lib].append(group)
                for d in ds:
                    self.group_of[d] = g
                    heap = group.empty if self.held[d] is None else group.holding
                    heap.append((self.free[d], d, 0))
                heapq.heapify(group.empty)
                heapq.heapify(group.holding)

        self.operations: list[Operation] = []
        self.placed: list[tuple[tuple[int, ...], float, float] | None] = [None] * len(self.requests)
        self.stamp = 0
        """The state's name: a plan made against it carries it."""
        self.next_stamp = 1
        self._request_index: dict[str, int] | None = None

    def new_stamp(self) -> None:
        """Name the state anew, after a change."""
        self.stamp = self.next_stamp
        self.next_stamp += 1

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

    def locate_s(self, d: int, head: float, offset: float, tape: str) -> float:
        """Seconds drive ``d`` takes to move its head from ``head`` to ``offset`` on ``tape``.

        Linear drives as ever (``|offset - head| / locate_mb_s``); a drive
        with a serpentine ``locate`` model by :meth:`toolkit.model.Drive.locate_s`,
        the one locate time of the validator.
        """
        if self.linear[d]:
            return abs(offset - head) / self.locate[d]
        return self.drive_models[d].locate_s(head, offset, self.capacity[tape])

    def requeue(self, d: int) -> None:
        """Enter drive ``d`` anew in its group's heap, as it stands now (its old entries stale)."""
        self.version[d] += 1
        group = self.groups[self.library_of[d]][self.group_of[d]]
        heap = group.empty if self.held[d] is None else group.holding
        heapq.heappush(heap, (self.available_s(d), d, self.version[d]))
