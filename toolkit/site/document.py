"""The keys of a site file (``tapesched.site/1``) as the reader structures them.

Each object of the file is a :func:`~toolkit.fields.checked` class here, its values judged
by the rules every reader shares (:mod:`toolkit.fields`) at their JSON paths; a key left out
is ``None`` (or its default), resolved against the technology table by
:mod:`.reader`. What holds across objects (ids unique, homes that are libraries, tapes
that fit the slots) is checked there too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any

from attrs import field

from tapesched.toolkit.errors import Problem, ValueProblems, shown
from tapesched.toolkit.fields import (
    Rule,
    as_float,
    at_most,
    bounded_count,
    bounded_rate,
    bounded_time,
    check,
    checked,
    natural,
    nonempty_text,
    number,
    optional,
    parsed,
    word,
)
from tapesched.toolkit.hardware.servers import DiskCacheSection, MoverLimits
from tapesched.toolkit.hardware.technology import DRIVES, LIBRARIES
from tapesched.toolkit.site.model import Pattern, SiteDriveGroup, SitePool
from tapesched.toolkit.units import MAX_COUNT


def catalogue(table: Mapping[str, Any], what: str) -> Rule:
    """A name of ``table`` (the technology table's drives or libraries): ``unknown drive
    'LTO-11' (known: ...)`` for any other, the names listed as the table holds them."""
    return Rule(
        ("type({v}) is str", "expected a string, got {v!r}"),
        ("{v} in {table}", "unknown {what} {v!r} (known: {known})"),
        table=table,
        what=what,
        known=", ".join(table),
    )


DRIVE_MODEL = catalogue(DRIVES, "drive")
"""A drive of :data:`toolkit.hardware.technology.DRIVES` (a drive group's model, a pool's
format)."""

LIBRARY_MODEL = catalogue(LIBRARIES, "library")
"""A library of :data:`toolkit.hardware.technology.LIBRARIES`."""

ID = word("an id")
"""A library, drive or cartridge id, or a pool's name: a non-empty word."""

COUNT = at_most(natural, MAX_COUNT)
"""A number of things that may be nought (slots, a level's number): 0 to
:data:`~toolkit.units.MAX_COUNT`."""

boolean = Rule(("type({v}) is bool", "expected true or false, got {v!r}"))
"""``true`` or ``false``."""

fill_share = number.then("0 < {v} <= 1", "must be within (0, 1], got {v!r}")
"""A share of a tape written: more than nought, at most all of it."""


DRIVE_NUMBER_DIGITS = 2
"""Fewest digits of a generated drive id's number (``lib0-d07``)."""


def library_figure(model: str | None, name: str) -> Any:
    """The figure ``name`` (``arms``, ``mount_s``, ``dismount_s``) the technology table gives a
    library ``model``, or ``None`` (no model, or the table gives none)."""
    tech = LIBRARIES.get(model) if model is not None else None
    return getattr(tech, name, None) if tech is not None else None


def _tuple_or_none(value: Any) -> Any:
    return tuple(value) if type(value) is list else value


@checked(kw_only=True)
class DriveGroupEntry:
    """A group of drives of ``libraries[i].drives``: ``count`` of them, or those of ``ids``."""

    model: str = check(DRIVE_MODEL)
    count: int | None = check(optional(bounded_count), default=None)
    ids: tuple[Annotated[str, ID], ...] | None = field(default=None, converter=_tuple_or_none)
    rate_mb_s: float | None = check(optional(bounded_rate), default=None, converter=as_float)
    load_s: float | None = check(optional(bounded_time), default=None, converter=as_float)
    unload_s: float | None = check(optional(bounded_time), default=None, converter=as_float)
    locate_mb_s: float | None = check(optional(bounded_rate), default=None, converter=as_float)

    def __attrs_post_init__(self) -> None:
        if (self.count is None) == (self.ids is None):
            raise ValueProblems([Problem("", "give exactly one of 'count' and 'ids'")])
        if self.ids is not None and not self.ids:
            raise ValueProblems([Problem("ids", "must not be empty")])


LIBRARY_FIGURES = ("arms", "mount_s", "dismount_s")
"""The keys of a library its model gives the defaults of."""


@checked(kw_only=True)
class SiteLibraryEntry:
    """A library of ``libraries``: its mechanics (or its model's), slots and drives."""

    id: str = check(ID)
    model: str | None = check(optional(LIBRARY_MODEL), default=None)
    arms: int | None = check(optional(bounded_count), default=None)
    mount_s: float | None = check(optional(bounded_time), default=None, converter=as_float)
    dismount_s: float | None = check(optional(bounded_time), default=None, converter=as_float)
    slots: int = check(COUNT)
    level: int | None = check(optional(COUNT), default=None)
    drives: tuple[DriveGroupEntry, ...] = ()

    def __attrs_post_init__(self) -> None:
        missing = []
        for key in LIBRARY_FIGURES:
            if getattr(self, key) is not None or (key == "arms" and self.model is not None):
                continue  # a model that gives no arms: one arm
            if self.model is None:
                missing.append(Problem(key, "missing key: required without a 'model'"))
            elif library_figure(self.model, key) is None:
                why = f"missing key: the library model {shown(self.model)} gives none"
                missing.append(Problem(key, why))
        if missing:
            raise ValueProblems(missing)


@checked(kw_only=True)
class ComplexEntry:
    """How cartridges pass between the libraries (``complex``), an SL8500-style complex."""

    rails_per_library: int = check(bounded_count)
    elevator_s: float = check(bounded_time, converter=as_float)
    pass_through_s: float = check(bounded_time, converter=as_float)
    float_on_dismount: bool = check(boolean, default=True)


@checked(kw_only=True)
class MoversEntry(MoverLimits):
    """The mover nodes of the site (``movers``): how many drives each serves, and the limits
    of every one, as a scenario's ``platform.movers`` gives them."""

    drives_per_mover: int = check(bounded_count)


def _cartridge_ids(value: Any) -> str | tuple[str, ...]:
    """A pool's ``ids``: a pattern (a string) or a list of ids (strings, judged by the
    reader at their own paths)."""
    if type(value) is str:
        return value
    if type(value) is list and all(type(v) is str for v in value):
        return tuple(value)
    return _refuse(value)


def _refuse(value: Any) -> Any:
    raise ValueError(f"expected a pattern such as 'L9####' or a list of ids, got {shown(value)}")


@checked(kw_only=True)
class PoolEntry:
    """A pool of ``pools``: cartridges of one format, listed by a pattern or one by one."""

    name: str = check(ID)
    format: str = check(DRIVE_MODEL)
    ids: str | tuple[str, ...] = parsed(_cartridge_ids)
    count: int | None = check(optional(bounded_count), default=None)
    first: int | None = check(optional(COUNT), default=None)
    home: str | None = check(optional(ID), default=None)
    fill: float = check(fill_share, default=1.0, converter=as_float)

    def __attrs_post_init__(self) -> None:
        if type(self.ids) is str:
            if self.count is None:
                raise ValueProblems([Problem("count", "missing key: required with a pattern")])
        else:
            extra = [k for k in ("count", "first") if getattr(self, k) is not None]
            bad = [Problem(k, "only with a pattern of ids, not a list") for k in extra]
            if not self.ids:
                bad.append(Problem("ids", "must not be empty"))
            if bad:
                raise ValueProblems(bad)


@checked(kw_only=True)
class PlacementEntry:
    """Where the cartridges without a home live (``placement``)."""

    seed: int = check(natural, default=0)
    unlisted_format: str | None = check(optional(DRIVE_MODEL), default=None)


@checked(kw_only=True)
class SiteDocument:
    """A site file without its ``format`` key."""

    name: str = check(nonempty_text)
    libraries: tuple[SiteLibraryEntry, ...] = check(Rule(("len({v}) > 0", "must not be empty")))
    complex: ComplexEntry | None = None
    pools: tuple[PoolEntry, ...] = ()
    placement: PlacementEntry = PlacementEntry()
    movers: MoversEntry | None = None
    disk_cache: DiskCacheSection | None = None


def drive_ids(
    library: str, groups: Sequence[DriveGroupEntry | SiteDriveGroup]
) -> list[tuple[str, ...]]:
    """The ids of a library's drives, group by group: a group's ``ids``, or ids made as
    ``<library>-d00``, ``-d01``, ... numbered across the groups given by ``count``."""
    generated = sum(g.count for g in groups if g.ids is None and g.count is not None)
    digits = max(DRIVE_NUMBER_DIGITS, len(str(generated - 1)))
    number = 0
    out: list[tuple[str, ...]] = []
    for group in groups:
        if group.ids is not None:
            out.append(tuple(group.ids))
        else:
            count = group.count or 0
            out.append(tuple(f"{library}-d{n:0{digits}d}" for n in range(number, number + count)))
            number += count
    return out


def pool_of(entry: PoolEntry) -> SitePool:
    """The pool of a good entry: its pattern parsed, its format's capacity."""
    capacity = DRIVES[entry.format].capacity_mb
    if type(entry.ids) is str:
        return SitePool(
            entry.name,
            entry.format,
            capacity,
            pattern=Pattern.parse(entry.ids),
            count=entry.count or 0,
            first=entry.first or 0,
            home=entry.home,
            fill=entry.fill,
        )
    return SitePool(
        entry.name, entry.format, capacity, ids=tuple(entry.ids), home=entry.home, fill=entry.fill
    )
