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

from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any, Literal

from attrs import field

from tapesched.toolkit.fields import (
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
    parsed,
    text,
)
from tapesched.toolkit.hardware.technology import TAPE_FORMATS

if TYPE_CHECKING:  # numpy is imported only when a serpentine locate is timed
    from tapesched.toolkit.hardware.tape_geometry import LocateModel, SerpentineTape

INSTANCE_FORMAT = "tapesched.instance/1"
INSTANCE_FORMAT_2 = "tapesched.instance/2"
"""Version 2 of the instance format: version 1 and the platform's starting state
(``head_mb``, ``available_s``, ``arms_available_s``; docs/core-problem.md)."""
INSTANCE_FORMATS: tuple[str, ...] = (INSTANCE_FORMAT, INSTANCE_FORMAT_2)
SCHEDULE_FORMAT = "tapesched.schedule/1"
SCENARIO_FORMAT = "tapesched.scenario/1"
"""A simulator scenario (:mod:`simulator.scenario.document`), named beside the other formats."""
SITE_FORMAT = "tapesched.site/1"
"""A site file: libraries, drives, cartridges (:mod:`toolkit.site`), named beside the others."""
OLD_SCENARIO_FORMATS: tuple[str, ...] = ("tapesched-scenario/1",)
"""Earlier names of the scenario format, still read; never written."""

ObjectiveName = Literal["weighted-flow", "makespan", "max-weighted-flow"]
OBJECTIVES: tuple[str, ...] = ("weighted-flow", "makespan", "max-weighted-flow")
REQUEST_KINDS: tuple[str, ...] = ("read", "write")
OPERATIONS: tuple[str, ...] = ("mount", "dismount")

_optional_text = optional(text)


def _arm_time(value: Any) -> float:
    reason = bounded_time(value)
    if reason is not None:
        raise ValueError(reason)
    return float(value)


def _arm_times(value: Any) -> float | tuple[float, ...]:
    """``arms_available_s`` as the file holds it: one time for every arm, or a list of
    one time per arm (its length is checked against ``arms`` with the instance)."""
    if type(value) is list:
        if not value:
            raise ValueError("expected a number or a non-empty list of numbers, got []")
        return tuple(_arm_time(v) for v in value)
    return _arm_time(value)


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
    arms_available_s: float | tuple[float, ...] = parsed(_arm_times, default=0.0)

    def arm_free_s(self) -> tuple[float, ...]:
        """When each arm is free at the start, one time per arm (version 2; 0 by default).

        A single number in the file holds for every arm.
        """
        value = self.arms_available_s
        if isinstance(value, tuple):
            return value
        return (float(value),) * self.arms


LOCATE_MODEL_NAMES: tuple[str, ...] = ("cta-lto", "physical")
"""The names of the locate models, one spelling everywhere: what a drive of
``tapesched.instance/2`` or of a scenario declares (``locate.model``), and the
choices of ``--locate`` on the command line (``tapesched order``,
``tapesched bnl-coverage``). ``cta-lto`` is CERN CTA's cost heuristic fitted on
LTO (:class:`~toolkit.hardware.tape_geometry.CtaCostHeuristic`; plain ``cta``
names CTA's mount criteria), ``physical`` the physical model
(:class:`~toolkit.hardware.tape_geometry.PhysicalLocate`)."""


@lru_cache(maxsize=256)
def serpentine_tape(format_name: str, capacity_mb: float) -> SerpentineTape:
    """The serpentine tape a piece offset of a tape of ``capacity_mb`` lies on.

    The tape's capacity, in bytes, is spread evenly over the wraps of the
    format ``format_name`` (a key of :data:`toolkit.hardware.technology.TAPE_FORMATS`),
    one byte a block, each wrap running the format's whole LPOS range: with
    ``B`` bytes and ``W`` wraps, wrap ``w`` holds the bytes from
    ``floor(w * B / W)`` to ``floor((w + 1) * B / W) - 1``. A tape of fewer
    than two bytes a wrap is read as two bytes a wrap (a degenerate tape,
    so that every wrap holds a byte). The format's own capacity plays no
    part: the instance's tape says how much it holds.
    """
    from tapesched.toolkit.hardware.tape_geometry import SerpentineTape

    fmt = TAPE_FORMATS[format_name]
    blocks = max(round(capacity_mb * 1_000_000), 2 * fmt.wraps)
    return SerpentineTape(
        wraps=fmt.wraps,
        min_lpos=fmt.min_lpos,
        max_lpos=fmt.max_lpos,
        end_of_wrap_blocks=tuple((w + 1) * blocks // fmt.wraps - 1 for w in range(fmt.wraps)),
        block_bytes=1,
        rate_mb_s=fmt.rate_mb_s,
    )


@lru_cache(maxsize=64)
def _locate_model(model: str, format_name: str) -> LocateModel:
    from tapesched.toolkit.hardware.tape_geometry import CtaCostHeuristic, PhysicalLocate

    if model == "physical":
        return PhysicalLocate.for_format(TAPE_FORMATS[format_name])
    return CtaCostHeuristic()


@checked
class Locate:
    """A drive's serpentine locate model (``drives[i].locate``, version 2 of the instance format).

    ``model`` is one of :data:`LOCATE_MODEL_NAMES` and ``format`` a tape
    format of :data:`toolkit.hardware.technology.TAPE_FORMATS` (``LTO-7``): a piece
    offset maps to a wrap and an LPOS of that format's geometry
    (:func:`serpentine_tape`) and the locate between two positions costs
    what the model says (docs/core-problem.md, "The locate model").
    """

    model: str = check(one_of(LOCATE_MODEL_NAMES))
    format: str = check(one_of(tuple(TAPE_FORMATS)))

    def locate_s(self, from_mb: float, to_mb: float, capacity_mb: float) -> float:
        """Seconds from offset ``from_mb`` to ``to_mb`` on a tape of ``capacity_mb``.

        Offsets are taken to the byte (rounded); a locate to the byte the
        head is on takes 0 s. Times are remembered per model, format,
        capacity and pair of bytes (:func:`_serpentine_locate_s`): schedulers
        and the validator ask for the same pairs again and again, and one
        model evaluation costs some 150 microseconds.
        """
        head, target = round(from_mb * 1_000_000), round(to_mb * 1_000_000)
        if head == target:
            return 0.0
        return _serpentine_locate_s(self.model, self.format, capacity_mb, head, target)

    def geometry(self, capacity_mb: float) -> tuple[SerpentineTape, LocateModel]:
        """The tape and the model :meth:`locate_s` times a tape of ``capacity_mb`` with.

        A block of that tape is a byte: an offset ``x`` MB is block
        ``round(x * 10**6)``. Whoever orders reads on such a tape
        (:mod:`solvers.recall_order`) asks the model here, so that an order
        is chosen under the very times the schedule then pays.
        """
        return serpentine_tape(self.format, capacity_mb), _locate_model(self.model, self.format)


def locate_time_s(
    locate_mb_s: float, locate: Locate | None, from_mb: float, to_mb: float, capacity_mb: float
) -> float:
    """Seconds a drive takes to move its head from offset ``from_mb`` to ``to_mb``.

    The one locate time of the core problem (docs/core-problem.md, "The
    locate model"): ``|to - from| / locate_mb_s`` without a serpentine
    ``locate`` model, else the model's time on a tape of ``capacity_mb``
    (:meth:`Locate.locate_s`). :meth:`Drive.locate_s` and the simulator's
    drive models (:class:`simulator.platform.technology.DriveModel`) both time their
    locates here.
    """
    if locate is None:
        return abs(to_mb - from_mb) / locate_mb_s
    return locate.locate_s(from_mb, to_mb, capacity_mb)


@lru_cache(maxsize=1 << 18)
def _serpentine_locate_s(
    model: str, format_name: str, capacity_mb: float, head: int, target: int
) -> float:
    """The model's seconds from byte ``head`` to byte ``target`` (a pure function, cached)."""
    tape = serpentine_tape(format_name, capacity_mb)
    return float(_locate_model(model, format_name).locate_s(tape, head, target))


@checked
class Drive:
    """A tape drive of one library.

    ``load_s`` threads a delivered cartridge, ``unload_s`` rewinds and ejects it
    before an arm can take it, and moving the head by ``x`` MB takes
    ``x / locate_mb_s`` seconds in either direction, unless the drive declares
    a serpentine ``locate`` model (version 2), whose time :meth:`locate_s`
    gives: every reader of a locate time asks it.
    """

    id: str = check(text)
    library: str = check(text)
    rate_mb_s: float = check(bounded_rate)
    load_s: float = check(bounded_time)
    unload_s: float = check(bounded_time)
    locate_mb_s: float = check(bounded_rate)
    available_s: float = check(bounded_time, default=0.0)
    """The drive is busy (finishing an earlier transfer or unload) until then (version 2)."""
    locate: Locate | None = None
    """A serpentine locate model (version 2); ``None``: linear at ``locate_mb_s``."""

    @property
    def linear(self) -> bool:
        """Whether a locate is ``|dx| / locate_mb_s`` (no serpentine ``locate`` model)."""
        return self.locate is None

    @property
    def floor_speed_mb_s(self) -> float:
        """A speed no locate of this drive beats, for lower bounds: ``locate_mb_s`` on a
        linear drive; infinite on a serpentine one, whose locates have no valid floor
        proportional to the distance (two neighbouring wraps are far apart in offset)."""
        return self.locate_mb_s if self.locate is None else float("inf")

    def transfer_s(self, size_mb: float) -> float:
        """Seconds to stream ``size_mb`` at this drive's rate."""
        return size_mb / self.rate_mb_s

    def switch_s(self, library: Library) -> float:
        """Seconds of a tape switch on this drive, in its ``library``: the drive unloads
        its tape, an arm dismounts it and mounts the next, the drive loads that one
        (the head then still locates from 0).

        Added left to right in that order, ``unload_s + dismount_s + mount_s +
        load_s``: whoever needs a whole switch of one drive takes it here, so that
        every such sum agrees to the last bit.
        """
        if library.id != self.library:
            raise ValueError(
                f"drive {self.id!r} is in library {self.library!r}, not {library.id!r}"
            )
        return self.unload_s + library.dismount_s + library.mount_s + self.load_s

    def locate_s(self, from_mb: float, to_mb: float, capacity_mb: float | None = None) -> float:
        """Seconds to move the head from offset ``from_mb`` to ``to_mb``.

        ``capacity_mb`` is the capacity of the tape in the drive; a serpentine
        drive needs it (its offsets map to positions over the whole tape) and
        raises ``ValueError`` without it, a linear one ignores it.
        """
        if capacity_mb is None:
            if self.locate is not None:
                raise ValueError(
                    f"drive {self.id!r}: a serpentine locate needs the tape's capacity"
                )
            capacity_mb = 0.0  # a linear locate does not read it
        return locate_time_s(self.locate_mb_s, self.locate, from_mb, to_mb, capacity_mb)


@checked
class Tape:
    """A cartridge of one library, ``capacity_mb`` long."""

    id: str = check(text)
    library: str = check(text)
    capacity_mb: float = check(bounded_size)


@checked
class InitialTape:
    """At time 0 ``drive`` holds ``tape``, loaded, head at offset ``head_mb`` (0 in version 1)."""

    drive: str = check(text)
    tape: str = check(text)
    head_mb: float = check(bounded_size, default=0.0)


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
    def initial_head_mb(self) -> dict[str, float]:
        """Head position at time 0 of each drive that holds a tape then."""
        return {x.drive: x.head_mb for x in self.initial}

    @cached_property
    def start_state_paths(self) -> tuple[str, ...]:
        """The JSON paths of the version-2 starting state that differ from version 1's
        (a head off 0, a drive or an arm busy at the start); empty for an instance
        that version 1 describes."""
        out = [f"initial[{i}].head_mb" for i, x in enumerate(self.initial) if x.head_mb != 0]
        out += [f"drives[{i}].available_s" for i, d in enumerate(self.drives) if d.available_s]
        out += [
            f"libraries[{i}].arms_available_s"
            for i, lib in enumerate(self.libraries)
            if any(lib.arm_free_s())
        ]
        return tuple(out)

    @cached_property
    def locate_paths(self) -> tuple[str, ...]:
        """The JSON paths of the drives' serpentine ``locate`` models (version 2);
        empty when every locate is linear, as in version 1."""
        return tuple(
            f"drives[{i}].locate" for i, d in enumerate(self.drives) if d.locate is not None
        )

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
