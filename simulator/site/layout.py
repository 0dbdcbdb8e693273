"""A site (:mod:`toolkit.site`) as the inputs of a replay: its layout, its timings, its homes.

The replay (:mod:`simulator.replay.replay`) runs on a
:class:`~simulator.replay.trace.LibraryLayout` (a level per library of the site: its level
number, slots, drives, and arms as robots), the
:class:`~simulator.replay.sl8500.SL8500Timings` of its complex, each library's and drive's
own times (:func:`site_mechanics`), and a home level per cartridge. :func:`site_homes`
gives each cartridge a pool homes on a library that level, and places the rest by
:func:`~simulator.replay.trace.home_levels` with the site's seed: first the cartridges the
pools list without a home, then those a trace asks for that no pool lists, among the slots
left free, so that a listed cartridge's home never depends on the trace.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from attrs import evolve, frozen

from tapesched.simulator.replay.sl8500 import SL8500Timings
from tapesched.simulator.replay.trace import Level, LibraryLayout, home_levels
from tapesched.toolkit.site.model import Site


def site_layout(site: Site) -> LibraryLayout:
    """The layout of a site: a level per library (its level number, slots, drive ids, and
    its arms as the level's robots)."""
    return LibraryLayout(
        tuple(
            Level(lib.level, lib.slots, tuple(d.id for d in lib.drives), lib.arms)
            for lib in site.libraries
        )
    )


def site_timings(site: Site) -> SL8500Timings:
    """The mechanical times of a site's replay that are the whole site's: its complex's
    elevator, pass-through and rails (for a site without a complex, the SL8500's, which
    never serve: there is no other level); the exchange, load and unload of its first
    library and drive, which :func:`site_mechanics` gives each library and drive of its
    own."""
    default = SL8500Timings()
    first = site.drives[0] if site.drives else None
    timings = SL8500Timings(
        exchange_s=site.libraries[0].mount_s,
        load_s=default.load_s if first is None else first.load_s,
        unload_s=default.unload_s if first is None else first.unload_s,
    )
    if site.complex is None:
        return timings
    c = site.complex
    return evolve(
        timings,
        elevator_s=c.elevator_s,
        pass_through_s=c.pass_through_s,
        rails_per_library=c.rails_per_library,
    )


def site_mechanics(
    site: Site,
) -> tuple[dict[int, tuple[float, float]], dict[str, tuple[float, float]]]:
    """Each library's mount and dismount by level, and each drive's load and unload by id:
    a replay times each of them by its own (:func:`simulator.replay.replay.replay`'s
    ``arm_s`` and ``drive_s``), so that a site of several generations replays as it is."""
    arm_s = {lib.level: (lib.mount_s, lib.dismount_s) for lib in site.libraries}
    drive_s = {d.id: (d.load_s, d.unload_s) for d in site.drives}
    return arm_s, drive_s


@frozen
class SiteHomes:
    """The home level of each cartridge of a site's replay, and how it was found.

    Attributes
    ----------
    levels
        Home level by cartridge: every cartridge the pools list, and every one asked for.
    listed
        Cartridges the pools list.
    homed
        Cartridges whose home a map or a pool gives.
    hashed
        Cartridges placed by the seeded hash: those listed without a home, and those
        asked for that no pool lists (:attr:`unlisted`).
    unlisted
        Cartridges asked for that no pool lists.
    """

    levels: Mapping[str, int]
    listed: int
    homed: frozenset[str]
    hashed: frozenset[str]
    unlisted: frozenset[str]

    def counts(self, cartridges: Iterable[str]) -> dict[str, int]:
        """How many of ``cartridges`` each rule placed: ``homed`` (by a map or a pool),
        ``hashed`` (by the seeded hash), and of them ``unlisted`` (in no pool)."""
        names = set(cartridges)
        return {
            "homed": len(names & self.homed),
            "hashed": len(names & self.hashed),
            "unlisted": len(names & self.unlisted),
        }


def site_homes(
    site: Site, requested: Iterable[str] = (), given: Mapping[str, int] | None = None
) -> SiteHomes:
    """The home levels of a site's cartridges and of the ``requested`` ones no pool lists.

    ``given`` (a cartridge map, :func:`~simulator.replay.trace.read_homes`) comes first:
    each cartridge it names lives on its level. Then a pool's home library gives its
    other cartridges that library's level; the cartridges of pools without a home, then
    the requested cartridges neither lists, are placed by
    :func:`~simulator.replay.trace.home_levels` with the site's seed among the slots left
    free, so that a listed cartridge's home never depends on the trace.

    Raises
    ------
    ValueError
        When the cartridges do not fit in the free slots.
    """
    layout = site_layout(site)
    level_of = {lib.id: lib.level for lib in site.libraries}
    mapped: dict[str, int] = dict(given or {})
    hashed: list[str] = []
    listed = 0
    for cartridge in site.cartridges():
        listed += 1
        if cartridge.id in mapped:
            continue
        if cartridge.home is None:
            hashed.append(cartridge.id)
        else:
            mapped[cartridge.id] = level_of[cartridge.home]
    seed = site.placement.seed
    levels = {**mapped, **home_levels(hashed, layout, seed, taken=_taken(mapped))}
    unlisted = sorted({c for c in requested if c not in levels})
    if unlisted:
        levels.update(home_levels(unlisted, layout, seed, taken=_taken(levels)))
    return SiteHomes(
        levels, listed, frozenset(mapped), frozenset(hashed) | set(unlisted), frozenset(unlisted)
    )


def _taken(levels: Mapping[str, int]) -> dict[int, int]:
    taken: dict[int, int] = {}
    for level in levels.values():
        taken[level] = taken.get(level, 0) + 1
    return taken
