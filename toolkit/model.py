"""Domain model of the core problem: libraries, drives, tapes, requests, schedules.

Every class is a small frozen attrs class that checks its own fields when it is
built, by the rules every reader shares (:mod:`toolkit.fields`), so an object
that exists is well-formed on its own. Objects refer to one another by string
id; whether those ids resolve is a property of the whole instance and is
checked by :func:`toolkit.instance_checks.check_instance`.
Units are in the field names: seconds (``_s``), megabytes (``_mb``, 10^6 bytes),
megabytes per second (``_mb_s``). Magnitudes are bounded by the limits of
:mod:`toolkit.units` (times, sizes, rates, weights, arms), so that every
length the solvers derive from them is finite.

The problem itself is specified in ``docs/core-problem.md``.
"""

from __future__ import annotations

from functools import cached_property
from typing import Literal

from attrs import field

from toolkit.fields import (
    bounded_count,
    bounded_rate,
    bounded_size,
    bounded_time,
    bounded_weight,
    check,
    checked,
    not_empty,
    number,
    one_of,
    optional,
    text,
)

INSTANCE_FORMAT = "tapesched.instance/1"
SCHEDULE_FORMAT = "tapesched.schedule/1"
SCENARIO_FORMAT = "tapesched.scenario/1"
"""A simulator scenario (:mod:`simulator.scenario`), named here beside the other formats."""
OLD_SCENARIO_FORMATS: tuple[str, ...] = ("tapesched-scenario/1",)
"""Earlier names of the scenario format, still read; never written."""

ObjectiveName = Literal["weighted-flow", "makespan", "max-weighted-flow"]
OBJECTIVES: tuple[str, ...] = ("weighted-flow", "makespan", "max-weighted-flow")
REQUEST_KINDS: tuple[str, ...] = ("read", "write")
OPERATIONS: tuple[str, ...] = ("mount", "dismount")

_optional_text = optional(text)


@checked
class Library:
    """A robotic library: its arms carry tapes between slots and drives.

    ``mount_s`` is the arm time to carry a tape from its slot into a drive and
    ``dismount_s`` the time to carry it back; at most ``arms`` such operations
    run at once in the library.
    """

    id: str = check(text)
    arms: int = check(bounded_count)
    mount_s: float = check(bounded_time)
    dismount_s: float = check(bounded_time)


@checked
class Drive:
    """A tape drive of one library.

    ``load_s`` threads a delivered cartridge, ``unload_s`` rewinds and ejects it
    before an arm can take it, and moving the head by ``x`` MB takes
    ``x / locate_mb_s`` seconds in either direction.
    """

    id: str = check(text)
    library: str = check(text)
    rate_mb_s: float = check(bounded_rate)
    load_s: float = check(bounded_time)
    unload_s: float = check(bounded_time)
    locate_mb_s: float = check(bounded_rate)

    def transfer_s(self, size_mb: float) -> float:
        """Seconds to stream ``size_mb`` at this drive's rate."""
        return size_mb / self.rate_mb_s

    def locate_s(self, from_mb: float, to_mb: float) -> float:
        """Seconds to move the head from offset ``from_mb`` to ``to_mb``."""
        return abs(to_mb - from_mb) / self.locate_mb_s


@checked
class Tape:
    """A cartridge of one library, ``capacity_mb`` long."""

    id: str = check(text)
    library: str = check(text)
    capacity_mb: float = check(bounded_size)


@checked
class InitialTape:
    """At time 0 ``drive`` holds ``tape``, loaded, head at offset 0."""

    drive: str = check(text)
    tape: str = check(text)


@checked
class Piece:
    """The part of a request that lies on one tape."""

    tape: str = check(text)
    offset_mb: float = check(bounded_size)
    size_mb: float = check(bounded_size)

    @property
    def end_mb(self) -> float:
        """Offset of the head once the piece is transferred."""
        return self.offset_mb + self.size_mb


@checked
class Request:
    """A read or write of one file, striped over one tape per piece.

    A request of ``k`` pieces is a gang: it needs ``k`` distinct drives of its
    library at once and its transfer runs on all of them from the same start.
    """

    id: str = check(text)
    release_s: float = check(bounded_time)
    weight: float = check(bounded_weight)
    kind: str = check(one_of(REQUEST_KINDS))
    pieces: tuple[Piece, ...] = check(not_empty, converter=tuple)

    @property
    def size_mb(self) -> float:
        """Total size of the request over all its pieces."""
        return sum(p.size_mb for p in self.pieces)


@checked
class Instance:
    """One instance of the core problem: a platform, its state at time 0, a workload.

    Lookups by id are computed once on first use.
    """

    name: str = check(text)
    libraries: tuple[Library, ...] = field(converter=tuple)
    drives: tuple[Drive, ...] = field(converter=tuple)
    tapes: tuple[Tape, ...] = field(converter=tuple)
    requests: tuple[Request, ...] = field(converter=tuple)
    initial: tuple[InitialTape, ...] = field(converter=tuple, default=())
    objective: str = check(one_of(OBJECTIVES), default="weighted-flow")

    @cached_property
    def library_by_id(self) -> dict[str, Library]:
        """Libraries keyed by id."""
        return {x.id: x for x in self.libraries}

    @cached_property
    def drive_by_id(self) -> dict[str, Drive]:
        """Drives keyed by id."""
        return {x.id: x for x in self.drives}

    @cached_property
    def tape_by_id(self) -> dict[str, Tape]:
        """Tapes keyed by id."""
        return {x.id: x for x in self.tapes}

    @cached_property
    def request_by_id(self) -> dict[str, Request]:
        """Requests keyed by id."""
        return {x.id: x for x in self.requests}

    @cached_property
    def initial_tape(self) -> dict[str, str]:
        """Tape held at time 0, keyed by drive id (drives absent are empty)."""
        return {x.drive: x.tape for x in self.initial}

    @cached_property
    def drives_of_library(self) -> dict[str, tuple[Drive, ...]]:
        """Drives of each library, in file order."""
        out: dict[str, list[Drive]] = {lib.id: [] for lib in self.libraries}
        for d in self.drives:
            out.setdefault(d.library, []).append(d)
        return {k: tuple(v) for k, v in out.items()}

    def library_of_request(self, request: Request) -> Library:
        """The library that holds the tapes of ``request``."""
        return self.library_by_id[self.tape_by_id[request.pieces[0].tape].library]


@checked
class ScheduledRequest:
    """When a request runs and on which drives (one per piece, in piece order)."""

    id: str = check(text)
    drives: tuple[str, ...] = field(converter=tuple)
    start_s: float = check(number)
    end_s: float = check(number)


@checked
class ArmOperation:
    """An arm carrying ``tape`` into (``mount``) or out of (``dismount``) ``drive``.

    ``library`` is optional in files; when present the validator checks it.
    """

    op: str = check(one_of(OPERATIONS))
    tape: str = check(text)
    drive: str = check(text)
    start_s: float = check(number)
    end_s: float = check(number)
    library: str | None = check(_optional_text, default=None)

    @property
    def duration_s(self) -> float:
        """Recorded length of the operation."""
        return self.end_s - self.start_s


@checked
class ObjectiveValue:
    """An objective's name and the value a schedule's author recorded for it."""

    name: str = check(one_of(OBJECTIVES))
    value: float = check(number)


@checked
class Schedule:
    """A solution of an instance: every request's start and drives, every arm operation.

    Drive-side operations (load, unload, locate) are implied by the rules of
    the core problem and are not recorded.
    """

    requests: tuple[ScheduledRequest, ...] = field(converter=tuple)
    operations: tuple[ArmOperation, ...] = field(converter=tuple)
    instance: str | None = check(_optional_text, default=None)
    objective: ObjectiveValue | None = None
