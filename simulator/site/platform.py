"""A site (:mod:`toolkit.site`) as the platform of a scenario: its libraries, drives, movers,
complex and disk cache, as the simulator runs them.

- :func:`site_platform`: the :class:`~simulator.platform.spec.PlatformSpec` of a site;
- :func:`site_cache`: its disk cache, a :class:`~simulator.storage.disk_cache.CacheSpec`;
- :func:`on_site`: a scenario played on a site instead of its own platform.

A scenario file names its site by ``platform.site`` (``docs/scenario-format.md``), and
``tapesched simulate --site`` replaces a scenario's platform by a site; both end here.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Literal

from attrs import evolve

from tapesched.simulator.platform.library_complex import LibraryComplex
from tapesched.simulator.platform.spec import DriveSpec, LibrarySpec, MoverSpec, PlatformSpec
from tapesched.simulator.platform.technology import DRIVE_MODELS, DriveModel, Duration
from tapesched.simulator.site.layout import site_homes
from tapesched.simulator.storage.disk_cache import CacheSpec, ServiceClass
from tapesched.toolkit.hardware.technology import DRIVES
from tapesched.toolkit.site.model import Site, SiteDrive, SiteLibrary, SiteMovers

if TYPE_CHECKING:
    from tapesched.simulator.scenario.spec import Scenario

FIGURES = ("rate_mb_s", "load_s", "unload_s", "locate_mb_s", "capacity_mb")
"""The figures of a site's drive its drive model takes."""


def _drive_model(drive: SiteDrive) -> DriveModel:
    """The drive model of a site's drive: the named model of the technology table when
    its figures are the table's, else that model with the drive's figures (``T10000D*``,
    as a scenario names a model it overrides)."""
    base = DRIVE_MODELS[drive.model]
    if all(_figure(base, name) == getattr(drive, name) for name in FIGURES):
        return base
    rates = {name: getattr(drive, name) for name in ("rate_mb_s", "locate_mb_s", "capacity_mb")}
    load_s, unload_s = Duration(drive.load_s), Duration(drive.unload_s)
    return evolve(base, name=f"{base.name}*", load_s=load_s, unload_s=unload_s, **rates)


def _figure(model: DriveModel, name: str) -> float:
    value = getattr(model, name)
    return value.mean_s if isinstance(value, Duration) else float(value)


def _movers(lib: SiteLibrary, movers: SiteMovers | None) -> tuple[list[MoverSpec], list[str]]:
    """The movers of a library and the mover of each of its drives: the drives dealt
    ``drives_per_mover`` at a time, in order, to movers ``<library>-m<k>`` (as a scenario's
    ``per_mover`` deals a drive group's)."""
    if movers is None:
        return [], []
    specs = [
        MoverSpec(
            f"{lib.id}-m{k:02d}",
            float("inf") if movers.memory_mb is None else movers.memory_mb,
            float("inf") if movers.disk_mb is None else movers.disk_mb,
            movers.bandwidth_mb_s,
        )
        for k in range(movers.count(len(lib.drives)))
    ]
    return specs, [specs[i // movers.drives_per_mover].id for i in range(len(lib.drives))]


def _shelved(site: Site) -> list[int]:
    """Cartridges on each library's slots at the start: those the pools home there, and
    those of pools without a home where the site's seeded hash places them
    (:func:`~simulator.site.layout.site_homes`, which lists them: only then)."""
    if any(pool.home is None for pool in site.pools):
        on_level = Counter(site_homes(site).levels.values())
        return [on_level[lib.level] for lib in site.libraries]
    homed = Counter[str]()
    for pool in site.pools:
        homed[pool.home or ""] += pool.size
    return [homed[lib.id] for lib in site.libraries]


def _tape_format(site: Site) -> str:
    """The format of most cartridges the pools list (the first pool's of those with as
    many), or the unlisted cartridges' format when the pools list none."""
    counts = Counter[str]()
    for pool in site.pools:
        counts[pool.format] += pool.size
    if not counts or not any(counts.values()):
        return site.placement.unlisted_format
    return max(counts, key=lambda f: counts[f])  # the first of the most, in pool order


def site_platform(site: Site, dismount: str = "on-demand") -> PlatformSpec:
    """The platform of a site.

    Each library is a library of the platform (its id, arms, mount and dismount times);
    each drive keeps its id and library, its figures (rate, load, unload, locate,
    capacity) as its drive model (:data:`~simulator.platform.technology.DRIVE_MODELS`' row
    of its model, or that row with the site's figures, named ``<model>*``). With the
    site's ``movers``, each library's drives are dealt ``drives_per_mover`` at a time to
    movers ``<library>-m<k>`` with the site's limits (none given: no limit). With a
    ``complex``, the libraries are its levels
    (:class:`~simulator.platform.library_complex.LibraryComplex`: their level numbers,
    slots, and the cartridges the pools shelve on each at the start).

    A platform has one tape capacity: ``tape_capacity_mb`` is the capacity of the format
    of most cartridges the pools list (ties: the pool listed first; no cartridge listed:
    the format of the unlisted ones). ``dismount`` is ``on-demand`` or ``at-once``.

    Raises
    ------
    ValueError
        For a site the platform refuses (no drive at all, an unknown ``dismount``).
    """
    models: dict[tuple[str, tuple[float, ...]], DriveModel] = {}
    libraries, drives, movers = [], [], []
    for lib in site.libraries:
        libraries.append(
            LibrarySpec(lib.id, lib.arms, Duration(lib.mount_s), Duration(lib.dismount_s))
        )
        lib_movers, mover_of = _movers(lib, site.movers)
        movers += lib_movers
        for k, drive in enumerate(lib.drives):
            key = (drive.model, tuple(getattr(drive, name) for name in FIGURES))
            model = models.get(key) or models.setdefault(key, _drive_model(drive))
            drives.append(DriveSpec(drive.id, lib.id, model, mover_of[k] if mover_of else None))
    complex_ = None
    if site.complex is not None:
        c = site.complex
        complex_ = LibraryComplex(
            numbers=[lib.level for lib in site.libraries],
            slots=[lib.slots for lib in site.libraries],
            shelved=_shelved(site),
            elevator_s=c.elevator_s,
            pass_through_s=c.pass_through_s,
            rails_per_library=c.rails_per_library,
            float_on_dismount=c.float_on_dismount,
        )
    mode: Literal["on-demand", "at-once"] = "at-once" if dismount == "at-once" else "on-demand"
    if dismount != mode:
        raise ValueError(f"dismount is on-demand or at-once, got {dismount!r}")
    return PlatformSpec(
        libraries=libraries,
        drives=drives,
        movers=movers,
        tape_capacity_mb=DRIVES[_tape_format(site)].capacity_mb,
        dismount=mode,
        complex=complex_,
    )


def site_cache(site: Site) -> CacheSpec | None:
    """The disk cache of a site: its service classes (``None``: the site has none)."""
    if not site.disk_cache:
        return None
    return CacheSpec(
        tuple(ServiceClass(c.name, c.max_file_mb, c.cache_mb) for c in site.disk_cache)
    )


def on_site(scenario: Scenario, site: Site) -> Scenario:
    """``scenario`` played on ``site``: the site's platform (:func:`site_platform`, the
    scenario's ``platform.dismount`` kept) and, when the scenario has no disk cache of its
    own, the site's (:func:`site_cache`). Nothing is checked here: a caller runs
    :func:`~simulator.scenario.spec.check_runnable` (a write that fits no mover of the
    site is refused there)."""
    platform = site_platform(site, scenario.platform.dismount)
    cache = scenario.disk_cache if scenario.disk_cache is not None else site_cache(site)
    return evolve(scenario, platform=platform, disk_cache=cache)
