"""Reading and writing site files (``tapesched.site/1``): every problem at its path.

:func:`site_from_dict` structures the document (:mod:`.document`), checks what holds
across its objects (ids unique, homes that are libraries, tapes that fit the slots) and
resolves it into a :class:`~toolkit.site.model.Site` against the technology table.
:func:`site_to_dict` writes a site back, leaving out what the table or a default gives,
so that a file read and written again says what it said.
"""

from __future__ import annotations

import os
from typing import Any

from tapesched.toolkit.errors import InputError, capped
from tapesched.toolkit.files.json_documents import (
    check_format,
    dumps,
    read_json,
    structure_document,
    write_atomic,
)
from tapesched.toolkit.hardware.technology import DRIVES
from tapesched.toolkit.model import SITE_FORMAT
from tapesched.toolkit.site.checks import site_problems
from tapesched.toolkit.site.document import (
    LIBRARY_FIGURES,
    SiteDocument,
    SiteLibraryEntry,
    drive_ids,
    library_figure,
    pool_of,
)
from tapesched.toolkit.site.model import (
    Complex,
    Site,
    SiteCacheClass,
    SiteDrive,
    SiteDriveGroup,
    SiteLibrary,
    SiteMovers,
    SitePlacement,
    SitePool,
)

OVERRIDES = ("rate_mb_s", "load_s", "unload_s", "locate_mb_s")
"""The figures of a drive a group may override."""


def default_arms(model: str | None) -> int:
    """A library model's arms: the table's, or one when the table gives none (or there is
    no model: the reader then asks for ``arms``)."""
    arms = library_figure(model, "arms")
    return 1 if arms is None else int(arms)


def _drives(library: str, groups: tuple[SiteDriveGroup, ...]) -> tuple[SiteDrive, ...]:
    drives = []
    for group, ids in zip(groups, drive_ids(library, groups), strict=True):
        tech = DRIVES[group.model]
        figures = {
            name: float(getattr(tech, name))
            if getattr(group, name) is None
            else getattr(group, name)
            for name in OVERRIDES
        }
        for drive in ids:
            drives.append(
                SiteDrive(drive, library, group.model, capacity_mb=tech.capacity_mb, **figures)
            )
    return tuple(drives)


def _library(entry: SiteLibraryEntry, index: int) -> SiteLibrary:
    groups = tuple(
        SiteDriveGroup(g.model, g.count, g.ids, g.rate_mb_s, g.load_s, g.unload_s, g.locate_mb_s)
        for g in entry.drives
    )
    return SiteLibrary(
        id=entry.id,
        model=entry.model,
        arms=entry.arms if entry.arms is not None else default_arms(entry.model),
        mount_s=_figure(entry, "mount_s"),
        dismount_s=_figure(entry, "dismount_s"),
        slots=entry.slots,
        level=index if entry.level is None else entry.level,
        groups=groups,
        drives=_drives(entry.id, groups),
    )


def _figure(entry: SiteLibraryEntry, name: str) -> float:
    given = getattr(entry, name)
    return float(given if given is not None else library_figure(entry.model, name))


def site_from_dict(data: Any, source: str = "<site>") -> Site:
    """A :class:`~toolkit.site.model.Site` from the parsed JSON of a site file.

    Raises
    ------
    InputError
        With one problem per bad value and its path (``libraries[0].drives[1].model``):
        a missing or unknown key, a value of the wrong type or out of range, a model the
        technology table does not know, an id given twice (libraries, drives across the
        site, pools, cartridges across pools), a level number given twice, a pattern
        without exactly one run of ``#`` or too narrow for its count, a home that is no
        library, more tapes homed on a library than its slots or in all than all slots,
        several libraries without ``complex``, disk-cache classes named twice or bounded
        out of order.
    """
    problems = check_format(data, SITE_FORMAT)
    doc, structural = structure_document(data, SiteDocument, "format")
    problems += structural
    if doc is not None:
        problems += site_problems(doc)
    if problems or doc is None:
        raise InputError(source, capped(problems))
    complex_ = None
    if doc.complex is not None:
        c = doc.complex
        complex_ = Complex(c.rails_per_library, c.elevator_s, c.pass_through_s, c.float_on_dismount)
    unlisted = doc.placement.unlisted_format or doc.pools[0].format
    movers = None
    if doc.movers is not None:
        m = doc.movers
        movers = SiteMovers(m.drives_per_mover, m.memory_mb, m.disk_mb, m.bandwidth_mb_s)
    cache = () if doc.disk_cache is None else doc.disk_cache.classes
    return Site(
        name=doc.name,
        libraries=tuple(_library(lib, i) for i, lib in enumerate(doc.libraries)),
        pools=tuple(pool_of(p) for p in doc.pools),
        placement=SitePlacement(doc.placement.seed, unlisted),
        complex=complex_,
        movers=movers,
        disk_cache=tuple(SiteCacheClass(c.name, c.max_file_mb, c.cache_mb) for c in cache),
    )


def read_site(path: str | os.PathLike[str]) -> Site:
    """The site of a file (``.json``, ``.json.bz2``, ``.json.gz``).

    Raises
    ------
    InputError
        For an unreadable file, bad JSON, and every bad value (see :func:`site_from_dict`).
    """
    return site_from_dict(read_json(path), str(path))


# --- writing ----------------------------------------------------------------------------------


def _library_dict(lib: SiteLibrary, index: int, in_complex: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"id": lib.id}
    if lib.model is not None:
        out["model"] = lib.model
    for name in LIBRARY_FIGURES:
        value = getattr(lib, name)
        if value != library_figure(lib.model, name):
            out[name] = value
    out["slots"] = lib.slots
    if in_complex or lib.level != index:
        out["level"] = lib.level
    out["drives"] = [_group_dict(g) for g in lib.groups]
    return out


def _group_dict(group: SiteDriveGroup) -> dict[str, Any]:
    out: dict[str, Any] = {"model": group.model}
    if group.ids is not None:
        out["ids"] = list(group.ids)
    else:
        out["count"] = group.count
    out.update({k: getattr(group, k) for k in OVERRIDES if getattr(group, k) is not None})
    return out


def _pool_dict(pool: SitePool) -> dict[str, Any]:
    out: dict[str, Any] = {"name": pool.name, "format": pool.format}
    if pool.ids is not None:
        out["ids"] = list(pool.ids)
    else:
        out["ids"] = str(pool.pattern)
        out["count"] = pool.count
        if pool.first:
            out["first"] = pool.first
    if pool.home is not None:
        out["home"] = pool.home
    if pool.fill != 1.0:
        out["fill"] = pool.fill
    return out


def site_to_dict(site: Site) -> dict[str, Any]:
    """The JSON object of a site, ``format`` first, without the values its models or the
    defaults give (the arms and times a library's model gives, the level of a library
    that is no complex's, the first pool's format as the unlisted one, a seed of 0, a
    mover limit or a class bound that is none):
    :func:`site_from_dict` reads it back into an equal site."""
    out: dict[str, Any] = {"format": SITE_FORMAT, "name": site.name}
    in_complex = site.complex is not None
    out["libraries"] = [_library_dict(lib, i, in_complex) for i, lib in enumerate(site.libraries)]
    if site.complex is not None:
        c = site.complex
        out["complex"] = {
            "rails_per_library": c.rails_per_library,
            "elevator_s": c.elevator_s,
            "pass_through_s": c.pass_through_s,
            "float_on_dismount": c.float_on_dismount,
        }
    out["pools"] = [_pool_dict(p) for p in site.pools]
    placement: dict[str, Any] = {}
    if site.placement.seed:
        placement["seed"] = site.placement.seed
    if not site.pools or site.placement.unlisted_format != site.pools[0].format:
        placement["unlisted_format"] = site.placement.unlisted_format
    if placement:
        out["placement"] = placement
    if site.movers is not None:
        out["movers"] = _given(site.movers, MOVER_KEYS)
    if site.disk_cache:
        out["disk_cache"] = {"classes": [_given(c, CACHE_KEYS) for c in site.disk_cache]}
    return out


MOVER_KEYS = ("drives_per_mover", "memory_mb", "disk_mb", "bandwidth_mb_s")
CACHE_KEYS = ("name", "max_file_mb", "cache_mb")


def _given(value: SiteMovers | SiteCacheClass, keys: tuple[str, ...]) -> dict[str, Any]:
    """The keys of ``value`` that are not ``None`` (a limit or bound left out)."""
    return {k: getattr(value, k) for k in keys if getattr(value, k) is not None}


def write_site(site: Site, path: str | os.PathLike[str]) -> None:
    """Write a site file, replacing ``path`` atomically."""
    write_atomic(path, dumps(site_to_dict(site)))
