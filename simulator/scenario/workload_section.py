"""The ``workload`` section of a scenario file, and the workload parameters it builds.

Sizes, rates, spans and schemes are read at their paths into a
:class:`WorkloadSection` (with its request classes and its archive at time 0),
and :func:`workload_params` builds the
:class:`~simulator.workload.workload.WorkloadParams` they describe. :func:`span`
reads a simulated span wherever a scenario gives one. The format:
``docs/scenario-format.md``.
"""

from __future__ import annotations

import re
from typing import Any

import attrs

from tapesched.simulator.scenario.spec import MISSING_KEY
from tapesched.simulator.storage.archive import MAX_ZIPF_EXPONENT, POPULARITIES, ArchiveParams
from tapesched.simulator.storage.files import Scheme
from tapesched.simulator.workload.workload import (
    DEFAULT_INITIAL_FILES,
    SIZE_CLASSES_MB,
    RequestClass,
    WorkloadParams,
)
from tapesched.toolkit.errors import Problem, ValueProblems
from tapesched.toolkit.fields import (
    as_float,
    at_most,
    bounded_count,
    check,
    checked,
    integer,
    named,
    number,
    one_of,
    optional,
    parsed,
    positive,
    positive_size,
    require,
)
from tapesched.toolkit.units import (
    MAX_ARRIVALS,
    MAX_COUNT,
    MAX_SIMULATED_S,
    bounded_duration,
    parse_duration,
    parse_rate,
)

SCHEME_SHAPE = re.compile(r"\s*[0-9]+\s*\+\s*[0-9]+\s*")
"""How a scheme is written: ``X+Y``."""


def _sizes(value: Any) -> tuple[float, float]:
    """A size class of :data:`~simulator.workload.workload.SIZE_CLASSES_MB`, or ``[min_mb,
    max_mb]``."""
    if type(value) is str:
        return named(value, SIZE_CLASSES_MB, "size class")  # type: ignore[no-any-return]
    if type(value) is list and len(value) == 2:
        low, high = (require(positive_size, as_float(x)) for x in value)
        return (low, high)
    raise ValueError("expected a size class name or [min_mb, max_mb]")


def _pair(value: Any) -> tuple[float, float]:
    if type(value) is list and len(value) == 2:
        low, high = (require(number, as_float(x)) for x in value)
        return (low, high)
    raise ValueError("expected [low, high]")


def _rate(value: Any) -> float:
    """An arrival rate: a number per second, or a rate with its unit (``"65/h"``)."""
    if type(value) is str:
        return parse_rate(value)
    return require(positive, as_float(value))  # type: ignore[no-any-return]


def span(value: Any) -> float:
    """A simulated span: a number of seconds, or a duration with its unit (``"4w"``)."""
    if type(value) is str:
        return parse_duration(value, unit_required=True, most_s=MAX_SIMULATED_S)
    return bounded_duration(require(positive, as_float(value)), MAX_SIMULATED_S, value)


def _schemes(value: Any) -> dict[Scheme, float]:
    """The scheme probabilities, each bad scheme or share reported at ``workload.schemes.X+Y``
    (a key that is no ``X+Y`` at all is a fault of the object, named in the message)."""
    if type(value) is not dict or not value:
        raise ValueError('expected an object such as {"4+2": 0.5, "8+2": 0.5}')
    schemes: dict[Scheme, float] = {}
    problems = []
    for key, share in value.items():
        where = key if SCHEME_SHAPE.fullmatch(key) else ""
        try:
            scheme = Scheme.parse(key)
            if scheme in schemes:
                raise ValueError(f"scheme {scheme} is given twice")
            schemes[scheme] = require(number, as_float(share))
        except ValueError as exc:
            problems.append(Problem(where, str(exc)))
    if problems:
        raise ValueProblems(problems)
    return schemes


_WORKLOAD_DEFAULTS = {a.name: a.default for a in attrs.fields(WorkloadParams)}
"""The defaults of what a scenario's ``workload`` may leave out: the paper's (WorkloadParams)."""


@checked(kw_only=True)
class ArchiveSection:
    """The ``workload.initial_archive`` of a scenario file: the archive at the paper's scale."""

    tapes: int = check(bounded_count)
    popularity: str = check(one_of(POPULARITIES), default="uniform")
    zipf_exponent: float = check(
        number.then(
            "0 < {v} <= {most}", "must be within (0, {most:g}], got {v!r}", most=MAX_ZIPF_EXPONENT
        ),
        default=1.0,
        converter=as_float,
    )


@checked(kw_only=True)
class ClassEntry:
    """A class of ``workload.request_classes``: a file size, a stripe width, a probability."""

    size_mb: float = check(positive_size, converter=as_float)
    width: int = check(bounded_count)
    share: float = check(
        number.then("0 <= {v} <= 1", "must be within [0, 1], got {v!r}"), converter=as_float
    )


@checked(kw_only=True)
class WorkloadSection:
    """The ``workload`` of a scenario file."""

    sizes: tuple[float, float] | None = parsed(_sizes, default=None)
    request_classes: tuple[ClassEntry, ...] = ()
    rate: float = parsed(_rate)
    duration: float = parsed(span)
    read_share: float = check(number, default=_WORKLOAD_DEFAULTS["read_share"], converter=as_float)
    new_file_share: float = check(
        number, default=_WORKLOAD_DEFAULTS["new_file_share"], converter=as_float
    )
    initial_files: int | None = check(optional(at_most(integer, MAX_COUNT)), default=None)
    schemes: dict[Scheme, float] | None = parsed(_schemes, default=None)
    data_ratio: tuple[float, float] = parsed(_pair, default=_WORKLOAD_DEFAULTS["data_ratio"])
    ec_ratio: float | None = check(optional(number), default=None, converter=as_float)
    initial_archive: ArchiveSection | None = None


_SAME_AS_WORKLOAD_PARAMS = (
    "schemes", "read_share", "new_file_share", "data_ratio", "ec_ratio",
)  # fmt: skip
"""The keys of a scenario's ``workload`` that are fields of :class:`WorkloadParams` too."""


def workload_params(
    w: WorkloadSection,
    problems: list[Problem],
    default_schemes: dict[Scheme, float] | None = None,
) -> WorkloadParams | None:
    """The workload parameters ``w`` describes, its faults added to ``problems`` (then ``None``).

    ``default_schemes`` stand for a ``schemes`` left out (the policy's only
    scheme, SINGLE's ``1+0``); without them a missing ``schemes`` is a fault.
    """
    if w.rate * w.duration > MAX_ARRIVALS:
        problems.append(Problem("workload", arrivals_message(w.rate, w.duration)))
        return None
    same = {key: getattr(w, key) for key in _SAME_AS_WORKLOAD_PARAMS}
    del same["schemes"]
    if w.request_classes:
        given = [k for k in ("sizes", "schemes") if getattr(w, k) is not None]
        for key in given:
            why = "not with workload.request_classes (the classes give it)"
            problems.append(Problem(f"workload.{key}", why))
        if w.initial_archive is not None:
            why = "not with workload.request_classes"
            problems.append(Problem("workload.initial_archive", why))
        if given or w.initial_archive is not None:
            return None
        return _class_workload(w, same, problems)
    schemes = w.schemes if w.schemes is not None else default_schemes
    missing = [k for k, v in (("sizes", w.sizes), ("schemes", schemes)) if v is None]
    for key in missing:
        why = f"{MISSING_KEY} (or give workload.request_classes)"
        problems.append(Problem(f"workload.{key}", why))
    if missing:
        return None
    assert w.sizes is not None and schemes is not None
    archive = None
    section = w.initial_archive
    if section is not None:
        archive = ArchiveParams(section.tapes, section.popularity, section.zipf_exponent)  # type: ignore[arg-type]
    initial_files = w.initial_files
    if initial_files is None:
        initial_files = 0 if archive is not None else DEFAULT_INITIAL_FILES
    try:
        return WorkloadParams(
            min_size_mb=w.sizes[0],
            max_size_mb=w.sizes[1],
            rate_per_s=w.rate,
            duration_s=w.duration,
            initial_files=initial_files,
            archive=archive,
            schemes=schemes,
            **same,
        )
    except (TypeError, ValueError) as exc:
        problems.append(Problem("workload", str(exc)))
        return None


def _class_workload(
    w: WorkloadSection, same: dict[str, Any], problems: list[Problem]
) -> WorkloadParams | None:
    """The parameters of a workload of request classes (``workload.request_classes``)."""
    total = sum(c.share for c in w.request_classes)
    if abs(total - 1) > 1e-9:
        problems.append(Problem("workload.request_classes", f"shares must sum to 1, got {total!r}"))
        return None
    classes = [RequestClass(c.size_mb, c.width, c.share) for c in w.request_classes]
    initial_files = DEFAULT_INITIAL_FILES if w.initial_files is None else w.initial_files
    try:
        return WorkloadParams.of_classes(
            classes,
            rate_per_s=w.rate,
            duration_s=w.duration,
            initial_files=initial_files,
            **same,
        )
    except (TypeError, ValueError) as exc:
        problems.append(Problem("workload", str(exc)))
        return None


def arrivals_message(rate_per_s: float, duration_s: float) -> str:
    """Why a run of this rate and duration is refused: it would draw too many requests."""
    return (
        f"rate x duration expects {rate_per_s * duration_s:,.0f} requests, more than the "
        f"{MAX_ARRIVALS:,} one replication may draw; lower the rate or the duration"
    )
