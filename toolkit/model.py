"""Domain model of the core problem: libraries, drives, tapes, requests, schedules.

Every class is a small frozen attrs class that checks its own fields when it is
built, so an object that exists is well-formed on its own. Objects refer to one
another by string id; whether those ids resolve is a property of the whole
instance and is checked by :func:`toolkit.instance_checks.check_instance`.
Units are in the field names: seconds (``_s``), megabytes (``_mb``, 10^6 bytes),
megabytes per second (``_mb_s``). Magnitudes are bounded by the limits of
:mod:`toolkit.units` (times, sizes, rates, weights, arms), so that every
length the solvers derive from them is finite.

The problem itself is specified in ``docs/core-problem.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import Any, Literal, dataclass_transform

import attrs
from attrs import field, frozen

from toolkit.units import (
    MAX_COUNT,
    MAX_RATE_MB_S,
    MAX_SIZE_MB,
    MAX_TIME_S,
    MAX_WEIGHT,
    MIN_RATE_MB_S,
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


class FieldError(ValueError):
    """A field holds a value of the wrong type or outside its domain.

    Parameters
    ----------
    field
        Name of the offending field, so that a loader can prefix the JSON path
        of the object that holds it.
    reason
        What is wrong, in a few words.
    """

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


class InvalidFields(ValueError):
    """Every :class:`FieldError` of one object, raised together at construction."""

    def __init__(self, cls_name: str, errors: list[FieldError]) -> None:
        super().__init__(f"invalid {cls_name}: " + "; ".join(str(e) for e in errors))
        self.errors = errors


Check = Callable[[Any], "str | None"]
_NUMBER = "(type({v}) is float or type({v}) is int)"


def _passes(condition: str, **constants: Any) -> Callable[[Check], Check]:
    """Attach to a check the Python condition under which it finds nothing wrong.

    :func:`checked` compiles the conditions of a class's fields into one
    expression, so that valid objects (the common case, by far: a 100,000
    request file holds half a million of them) cost one test, and only an
    object that fails it is examined field by field for the messages.
    ``{v}`` stands for the value and each keyword for a constant.
    """

    def attach(check: Check) -> Check:
        check.condition = condition  # type: ignore[attr-defined]
        check.constants = constants  # type: ignore[attr-defined]
        return check

    return attach


def _is_number(value: Any) -> bool:
    return (type(value) is float or type(value) is int) and value == value


@_passes(_NUMBER + " and {v} == {v}")
def number(value: Any) -> str | None:
    """Any number but NaN (booleans are not numbers)."""
    return None if _is_number(value) else f"expected a number, got {value!r}"


@_passes(_NUMBER + " and {v} >= 0")
def nonnegative(value: Any) -> str | None:
    """A number >= 0."""
    if not _is_number(value):
        return f"expected a number, got {value!r}"
    return None if value >= 0 else f"must be >= 0, got {value!r}"


@_passes(_NUMBER + " and {v} > 0")
def positive(value: Any) -> str | None:
    """A number > 0."""
    if not _is_number(value):
        return f"expected a number, got {value!r}"
    return None if value > 0 else f"must be > 0, got {value!r}"


@_passes("type({v}) is str")
def text(value: Any) -> str | None:
    """A string."""
    return None if type(value) is str else f"expected a string, got {value!r}"


@_passes("({v} is None or type({v}) is str)")
def optional_text(value: Any) -> str | None:
    """A string or None."""
    return None if value is None or type(value) is str else f"expected a string, got {value!r}"


def one_of(choices: tuple[str, ...]) -> Check:
    """One of the given strings."""
    listed = ", ".join(repr(c) for c in choices)

    @_passes("{v} in {choices}", choices=choices)
    def check(value: Any) -> str | None:
        return None if value in choices else f"must be one of {listed}, got {value!r}"

    return check


@_passes("type({v}) is int and {v} >= 1")
def at_least_one(value: Any) -> str | None:
    """An integer >= 1."""
    if type(value) is not int:
        return f"expected an integer, got {value!r}"
    return None if value >= 1 else f"must be >= 1, got {value!r}"


@_passes("len({v}) > 0")
def not_empty(value: Any) -> str | None:
    """A non-empty sequence."""
    return None if len(value) > 0 else "must not be empty"


def _at_most(low: Check, most: float, unit: str) -> Check:
    """``low``'s check, and at most ``most`` (a limit of :mod:`toolkit.units`)."""

    @_passes(low.condition + " and {v} <= {most}", most=most, **low.constants)  # type: ignore[attr-defined]
    def check(value: Any) -> str | None:
        reason = low(value)
        if reason is None and value > most:
            return f"must be <= {most:g}{unit}, got {value!r}"
        return reason

    return check


bounded_time = _at_most(nonnegative, MAX_TIME_S, " s")
"""A time or a length of time: >= 0 and at most :data:`~toolkit.units.MAX_TIME_S`."""

bounded_size = _at_most(nonnegative, MAX_SIZE_MB, " MB")
"""A size, offset or capacity: >= 0 and at most :data:`~toolkit.units.MAX_SIZE_MB`."""

bounded_weight = _at_most(positive, MAX_WEIGHT, "")
"""A request's weight: > 0 and at most :data:`~toolkit.units.MAX_WEIGHT`."""


@_passes(_NUMBER + " and {lo} <= {v} <= {hi}", lo=MIN_RATE_MB_S, hi=MAX_RATE_MB_S)
def bounded_rate(value: Any) -> str | None:
    """A drive's streaming or locate rate, within :data:`~toolkit.units.MIN_RATE_MB_S` and
    :data:`~toolkit.units.MAX_RATE_MB_S`."""
    reason = positive(value)
    if reason is None and not MIN_RATE_MB_S <= value <= MAX_RATE_MB_S:
        return f"must be within [{MIN_RATE_MB_S:g}, {MAX_RATE_MB_S:g}] MB/s, got {value!r}"
    return reason


bounded_arms = _at_most(at_least_one, MAX_COUNT, "")
"""A library's arms: an integer >= 1 and at most :data:`~toolkit.units.MAX_COUNT`."""


def _f(check: Check, **kwargs: Any) -> Any:
    return field(metadata={"check": check}, **kwargs)


def _explain(self: Any) -> None:
    """Raise :class:`InvalidFields` with every field of ``self`` that fails its check."""
    errors = []
    for name, check in type(self).__field_checks__:
        reason = check(getattr(self, name))
        if reason is not None:
            errors.append(FieldError(name, reason))
    if errors:
        raise InvalidFields(type(self).__name__, errors)


def _compile_checks(checks: tuple[tuple[str, Check], ...]) -> Callable[[Any], None]:
    """One function testing every field's condition at once, explaining on failure."""
    namespace: dict[str, Any] = {"_explain": _explain}
    terms, loads = [], []
    for i, (name, check) in enumerate(checks):
        constants = {}
        for key, value in check.constants.items():  # type: ignore[attr-defined]
            constants[key] = f"_c{i}_{key}"
            namespace[constants[key]] = value
        loads.append(f"    v{i} = self.{name}")
        terms.append("(" + check.condition.format(v=f"v{i}", **constants) + ")")  # type: ignore[attr-defined]
    source = "\n".join(
        [
            "def __attrs_post_init__(self):",
            *loads,
            f"    if not ({' and '.join(terms) or 'True'}):",
            "        _explain(self)",
        ]
    )
    exec(compile(source, "<field checks>", "exec"), namespace)
    return namespace["__attrs_post_init__"]  # type: ignore[no-any-return]


@dataclass_transform(frozen_default=True, field_specifiers=(attrs.field, field, _f))
def checked(cls: type) -> Any:
    """Make ``cls`` a frozen attrs class whose fields are checked together.

    Each field may carry ``metadata={"check": fn}`` where ``fn`` returns
    ``None`` or what is wrong. Construction runs every check and raises one
    :class:`InvalidFields` naming all the bad fields, so that a file with
    several bad values is reported in full, not one value per attempt.
    """
    cls.__attrs_post_init__ = _explain  # type: ignore[attr-defined]
    out = frozen(cls)
    out.__field_checks__ = tuple(  # type: ignore[attr-defined]
        (a.name, a.metadata["check"]) for a in attrs.fields(out) if "check" in a.metadata
    )
    out.__attrs_post_init__ = _compile_checks(out.__field_checks__)  # type: ignore[attr-defined]
    return out


@checked
class Library:
    """A robotic library: its arms carry tapes between slots and drives.

    ``mount_s`` is the arm time to carry a tape from its slot into a drive and
    ``dismount_s`` the time to carry it back; at most ``arms`` such operations
    run at once in the library.
    """

    id: str = _f(text)
    arms: int = _f(bounded_arms)
    mount_s: float = _f(bounded_time)
    dismount_s: float = _f(bounded_time)


@checked
class Drive:
    """A tape drive of one library.

    ``load_s`` threads a delivered cartridge, ``unload_s`` rewinds and ejects it
    before an arm can take it, and moving the head by ``x`` MB takes
    ``x / locate_mb_s`` seconds in either direction.
    """

    id: str = _f(text)
    library: str = _f(text)
    rate_mb_s: float = _f(bounded_rate)
    load_s: float = _f(bounded_time)
    unload_s: float = _f(bounded_time)
    locate_mb_s: float = _f(bounded_rate)

    def transfer_s(self, size_mb: float) -> float:
        """Seconds to stream ``size_mb`` at this drive's rate."""
        return size_mb / self.rate_mb_s

    def locate_s(self, from_mb: float, to_mb: float) -> float:
        """Seconds to move the head from offset ``from_mb`` to ``to_mb``."""
        return abs(to_mb - from_mb) / self.locate_mb_s


@checked
class Tape:
    """A cartridge of one library, ``capacity_mb`` long."""

    id: str = _f(text)
    library: str = _f(text)
    capacity_mb: float = _f(bounded_size)


@checked
class InitialTape:
    """At time 0 ``drive`` holds ``tape``, loaded, head at offset 0."""

    drive: str = _f(text)
    tape: str = _f(text)


@checked
class Piece:
    """The part of a request that lies on one tape."""

    tape: str = _f(text)
    offset_mb: float = _f(bounded_size)
    size_mb: float = _f(bounded_size)

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

    id: str = _f(text)
    release_s: float = _f(bounded_time)
    weight: float = _f(bounded_weight)
    kind: str = _f(one_of(REQUEST_KINDS))
    pieces: tuple[Piece, ...] = _f(not_empty, converter=tuple)

    @property
    def size_mb(self) -> float:
        """Total size of the request over all its pieces."""
        return sum(p.size_mb for p in self.pieces)


@checked
class Instance:
    """One instance of the core problem: a platform, its state at time 0, a workload.

    Lookups by id are computed once on first use.
    """

    name: str = _f(text)
    libraries: tuple[Library, ...] = field(converter=tuple)
    drives: tuple[Drive, ...] = field(converter=tuple)
    tapes: tuple[Tape, ...] = field(converter=tuple)
    requests: tuple[Request, ...] = field(converter=tuple)
    initial: tuple[InitialTape, ...] = field(converter=tuple, default=())
    objective: str = _f(one_of(OBJECTIVES), default="weighted-flow")

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

    id: str = _f(text)
    drives: tuple[str, ...] = field(converter=tuple)
    start_s: float = _f(number)
    end_s: float = _f(number)


@checked
class ArmOperation:
    """An arm carrying ``tape`` into (``mount``) or out of (``dismount``) ``drive``.

    ``library`` is optional in files; when present the validator checks it.
    """

    op: str = _f(one_of(OPERATIONS))
    tape: str = _f(text)
    drive: str = _f(text)
    start_s: float = _f(number)
    end_s: float = _f(number)
    library: str | None = _f(optional_text, default=None)

    @property
    def duration_s(self) -> float:
        """Recorded length of the operation."""
        return self.end_s - self.start_s


@checked
class ObjectiveValue:
    """An objective's name and the value a schedule's author recorded for it."""

    name: str = _f(one_of(OBJECTIVES))
    value: float = _f(number)


@checked
class Schedule:
    """A solution of an instance: every request's start and drives, every arm operation.

    Drive-side operations (load, unload, locate) are implied by the rules of
    the core problem and are not recorded.
    """

    requests: tuple[ScheduledRequest, ...] = field(converter=tuple)
    operations: tuple[ArmOperation, ...] = field(converter=tuple)
    instance: str | None = _f(optional_text, default=None)
    objective: ObjectiveValue | None = None
