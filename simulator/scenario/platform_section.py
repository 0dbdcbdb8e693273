"""The ``platform`` and ``faults`` sections of a scenario file, and the platform they build.

The ``platform`` section's libraries, drive groups (their drive models named or
overridden) and mover limits, or the site file it names instead
(:func:`platform_site`), are read into a :class:`PlatformSection`, each value
checked at its path, and :func:`platform_spec` builds the
:class:`~simulator.platform.spec.PlatformSpec` they describe
(:func:`simulator.site.platform.site_platform` for a site); the ``faults``
section is read into a :class:`FaultsSection` and :func:`fault_spec` builds the
:class:`~simulator.platform.faults.FaultSpec`. The format: ``docs/scenario-format.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from attrs import evolve

from tapesched.simulator.platform.faults import PAPER_HANDLING_FAILURE, FaultSpec, TapeLoss
from tapesched.simulator.platform.spec import DriveSpec, LibrarySpec, MoverSpec, PlatformSpec
from tapesched.simulator.platform.technology import (
    DISTRIBUTIONS,
    DRIVE_MODELS,
    DriveModel,
    Duration,
)
from tapesched.simulator.site.platform import site_platform
from tapesched.toolkit.errors import Problem, ValueProblems, join_path, shown
from tapesched.toolkit.fields import (
    Rule,
    as_float,
    bounded_count,
    bounded_rate,
    bounded_size,
    bounded_time,
    check,
    checked,
    named,
    nonempty_text,
    number,
    one_of,
    optional,
    parsed,
    positive_size,
    rate_per_year,
    simulated_time,
)
from tapesched.toolkit.files.structurer import JSON
from tapesched.toolkit.hardware.servers import MoverLimits
from tapesched.toolkit.model import Locate
from tapesched.toolkit.site.model import Site
from tapesched.toolkit.site.reader import read_site
from tapesched.toolkit.units import MAX_COUNT

# --- drive models --------------------------------------------------------------------------


def _override(key: str, rule: Rule) -> Callable[[Any], float]:
    """A field of a drive model object, checked by ``rule``, reported as ``key must be ...``."""

    def read(value: Any) -> float:
        reason = rule(as_float(value))
        if reason is not None:
            raise ValueError(f"{key} {reason}")
        return float(value)

    return read


def _transfer(value: Any) -> str:
    """How a drive model's transfer time is drawn: ``fixed`` or ``exponential``."""
    if value not in DISTRIBUTIONS:
        raise ValueError(f"transfer is fixed or exponential, got {shown(value)}")
    return value  # type: ignore[no-any-return]


def _locate(value: Any) -> Locate:
    """A serpentine locate model, ``{"model": ..., "format": ...}``, read as an instance's
    ``drives[i].locate`` is (:class:`toolkit.model.Locate`), each fault at its key."""
    locate, problems = JSON.structure(value, Locate)
    if locate is None:
        raise ValueProblems(problems)
    return locate


MODEL_FIELDS: dict[str, Callable[[Any], Any]] = {
    "load_s": Duration.from_json,
    "unload_s": Duration.from_json,
    "rate_mb_s": _override("rate_mb_s", bounded_rate),
    "locate_mb_s": _override("locate_mb_s", bounded_rate),
    "capacity_mb": _override("capacity_mb", positive_size),
    "block_s": _override("block_s", bounded_time),
    "transfer": _transfer,
    "locate": _locate,
}
"""How each field of :class:`~simulator.platform.technology.DriveModel` a scenario may override is
read."""


def _model(value: Any) -> DriveModel:
    """A drive model: a name of :data:`~simulator.platform.technology.DRIVE_MODELS`, or an object
    ``{"base": NAME, ...}`` overriding some of its fields."""
    if type(value) is str:
        return named(value, DRIVE_MODELS, "drive model")  # type: ignore[no-any-return]
    if type(value) is not dict or "base" not in value:
        raise ValueError("a drive model is a name or an object with a base name")
    base = _model(value["base"])
    changes: dict[str, Any] = {}
    problems = []
    for key, raw in value.items():
        try:
            if key != "base" and key not in MODEL_FIELDS:
                raise ValueError(f"unknown drive model field {shown(key)}")
            if key != "base":
                changes[key] = MODEL_FIELDS[key](raw)
        except ValueProblems as exc:
            problems += [
                Problem(join_path(key, p.path) if p.path else key, p.message) for p in exc.problems
            ]
        except ValueError as exc:
            problems.append(Problem("", str(exc)))
    if problems:
        raise ValueProblems(problems)
    return evolve(base, name=f"{base.name}*", **changes) if changes else base


# --- the sections ------------------------------------------------------------------------


@checked(kw_only=True)
class LibraryEntry:
    """A library of ``platform.libraries``."""

    id: str = check(nonempty_text)
    arms: int = check(bounded_count)
    mount_s: Duration = parsed(Duration.from_json)
    dismount_s: Duration = parsed(Duration.from_json)


@checked(kw_only=True)
class DriveGroup:
    """A group of ``count`` drives of one model in a library (``platform.drives``)."""

    library: str = check(nonempty_text)
    count: int = check(bounded_count)
    model: DriveModel = parsed(_model)
    per_mover: int | None = check(optional(bounded_count), default=None)


@checked(kw_only=True)
class PlatformSection:
    """The ``platform`` of a scenario file: its libraries, drives, movers and tapes, or the
    ``site`` file that gives them (a path from the scenario file's folder)."""

    site: str | None = check(optional(nonempty_text), default=None)
    libraries: tuple[LibraryEntry, ...] = ()
    movers: MoverLimits | None = None
    drives: tuple[DriveGroup, ...] = ()
    tape_capacity_mb: float | None = check(
        optional(positive_size), default=None, converter=as_float
    )
    dismount: str = check(one_of(("on-demand", "at-once")), default="on-demand")
    pass_through_s: Duration | None = parsed(Duration.from_json, default=None)


OWN_KEYS = ("libraries", "drives", "tape_capacity_mb")
"""The keys ``platform`` needs without a ``site`` (the lists not empty)."""

SITE_GIVES = (*OWN_KEYS, "movers", "pass_through_s")
"""The keys of ``platform`` a site file gives in their place (with ``site``, none of them)."""


_PROBABILITY = number.then("0 <= {v} < 1", "must be within [0, 1), got {v!r}")
_DEFAULT_FAULTS = FaultSpec()


@checked(kw_only=True)
class TapeLossEntry:
    """A scripted loss of ``faults.tape_losses``: when, which tape, and which region of it."""

    at_s: float = check(simulated_time, converter=as_float)
    tape: str = check(nonempty_text)
    from_mb: float | None = check(optional(bounded_size), default=None, converter=as_float)
    to_mb: float | None = check(optional(bounded_size), default=None, converter=as_float)


@checked(kw_only=True)
class FaultsSection:
    """The ``faults`` of a scenario file (:class:`simulator.platform.faults.FaultSpec`, its
    defaults)."""

    handling_failure: float = check(
        _PROBABILITY, default=PAPER_HANDLING_FAILURE, converter=as_float
    )
    retry_delay_s: float = check(
        bounded_time, default=_DEFAULT_FAULTS.retry_delay_s, converter=as_float
    )
    attempts: int = check(bounded_count, default=_DEFAULT_FAULTS.attempts)
    drive_failures_per_year: float = check(
        rate_per_year, default=_DEFAULT_FAULTS.drive_failures_per_year, converter=as_float
    )
    drive_repair_s: float = check(
        bounded_time, default=_DEFAULT_FAULTS.drive_repair_s, converter=as_float
    )
    mover_failures_per_year: float = check(
        rate_per_year, default=_DEFAULT_FAULTS.mover_failures_per_year, converter=as_float
    )
    mover_repair_s: float = check(
        bounded_time, default=_DEFAULT_FAULTS.mover_repair_s, converter=as_float
    )
    tape_losses_per_year: float = check(
        rate_per_year, default=_DEFAULT_FAULTS.tape_losses_per_year, converter=as_float
    )
    tape_losses: tuple[TapeLossEntry, ...] = ()


# --- what they build --------------------------------------------------------------------------


def platform_site(p: PlatformSection, source: str, problems: list[Problem]) -> Site | None:
    """The site ``platform.site`` names, read from the folder of the scenario file
    ``source`` (``None``: the platform names none, or gives keys the site gives too, each
    a problem at its path).

    Raises
    ------
    InputError
        Naming the site file, for a missing or bad one.
    """
    if p.site is None:
        return None
    given = [key for key in SITE_GIVES if getattr(p, key) not in (None, ())]
    why = "not with platform.site: the site file gives it"
    problems += [Problem(f"platform.{key}", why) for key in given]
    return None if given else read_site(Path(source).parent / p.site)


def platform_spec(
    p: PlatformSection, problems: list[Problem], site: Site | None = None
) -> PlatformSpec | None:
    """The platform of ``site`` (:func:`platform_site`) with the document's ``dismount``,
    else of the document's drive groups: drives ``<library>-d<k>``, dealt ``per_mover`` at
    a time to movers ``<library>-m<k>``."""
    if site is not None:
        try:
            return site_platform(site, p.dismount)
        except ValueError as exc:
            problems.append(Problem("platform.site", f"{p.site}: {exc}"))
            return None
    libraries, groups, capacity_mb = p.libraries, p.drives, p.tape_capacity_mb
    if not libraries or not groups or capacity_mb is None:
        missing = [k for k in OWN_KEYS if getattr(p, k) in (None, ()) and p.site is None]
        why = {
            None: "missing key (required without platform.site)",
            (): "missing key or an empty list (must not be empty without platform.site)",
        }
        problems += [Problem(f"platform.{k}", why[getattr(p, k)]) for k in missing]
        return None
    with_movers = any(g.per_mover is not None for g in groups)
    limits = p.movers or MoverLimits()
    memory_mb = float("inf") if limits.memory_mb is None else limits.memory_mb
    disk_mb = float("inf") if limits.disk_mb is None else limits.disk_mb
    drives: list[DriveSpec] = []
    movers: list[MoverSpec] = []
    drives_of: dict[str, int] = {}
    movers_of: dict[str, int] = {}
    known = {lib.id for lib in libraries}
    total = 0
    for i, group in enumerate(groups):
        path = f"platform.drives[{i}]"
        if with_movers and group.per_mover is None:
            problems.append(
                Problem(f"{path}.per_mover", "every drive group has per_mover, or none does")
            )
        total += group.count
        if total > MAX_COUNT:
            problems.append(Problem(f"{path}.count", f"more than {MAX_COUNT:,} drives in all"))
            break
        library = group.library
        if library not in known:
            problems.append(Problem(f"{path}.library", f"unknown library {shown(library)}"))
            continue
        first = drives_of.get(library, 0)
        for k in range(group.count):
            mover = None
            if group.per_mover:
                if k % group.per_mover == 0:
                    m = movers_of.get(library, 0)
                    movers_of[library] = m + 1
                    movers.append(
                        MoverSpec(f"{library}-m{m:02d}", memory_mb, disk_mb, limits.bandwidth_mb_s)
                    )
                mover = movers[-1].id
            drives.append(DriveSpec(f"{library}-d{first + k:03d}", library, group.model, mover))
        drives_of[library] = first + group.count
    if problems:
        return None
    try:
        return PlatformSpec(
            libraries=tuple(
                LibrarySpec(lib.id, lib.arms, lib.mount_s, lib.dismount_s) for lib in libraries
            ),
            drives=tuple(drives),
            movers=tuple(movers),
            tape_capacity_mb=capacity_mb,
            dismount=p.dismount,  # type: ignore[arg-type]
            pass_through_s=p.pass_through_s,
        )
    except ValueError as exc:
        problems.append(Problem("platform", str(exc)))
        return None


def fault_spec(section: FaultsSection, problems: list[Problem]) -> FaultSpec | None:
    """The fault model of ``faults``, a bad scripted loss named at its path."""
    losses = []
    for i, entry in enumerate(section.tape_losses):
        try:
            losses.append(TapeLoss(entry.at_s, entry.tape, entry.from_mb, entry.to_mb))
        except ValueError as exc:
            problems.append(Problem(f"faults.tape_losses[{i}]", str(exc)))
    if problems:
        return None
    return FaultSpec(
        handling_failure=section.handling_failure,
        retry_delay_s=section.retry_delay_s,
        attempts=section.attempts,
        drive_failures_per_year=section.drive_failures_per_year,
        drive_repair_s=section.drive_repair_s,
        mover_failures_per_year=section.mover_failures_per_year,
        mover_repair_s=section.mover_repair_s,
        tape_losses_per_year=section.tape_losses_per_year,
        tape_losses=tuple(losses),
    )
