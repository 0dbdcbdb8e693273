"""A site (:mod:`toolkit.site`) as the inputs of a replay: its layout, its timings, its homes.

The replay (:mod:`simulator.replay.replay`) runs on a :class:`~simulator.replay.trace.LibraryLayout`
(a level per library of the site: its level number, slots, drives, and arms as robots), the
:class:`~simulator.replay.sl8500.SL8500Timings` of its mechanics, and a home level per
cartridge. :func:`site_homes` gives each cartridge a pool homes on a library that level,
and places the rest by :func:`~simulator.replay.trace.place_cartridges` with the site's
seed: first the cartridges the pools list without a home, then those a trace asks for that
no pool lists, among the slots left free, so that a listed cartridge's home never depends
on the trace.
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


def _one(values: dict[float, list[str]], what: str) -> float | None:
    """The one value of ``values`` (value -> who has it), or a :class:`ValueError` naming who
    differs; ``None`` when there is none."""
    if len(values) > 1:
        shown = "; ".join(f"{v:g} s ({', '.join(who[:3])}{', ...' if len(who) > 3 else ''})"
                          for v, who in values.items())  # fmt: skip
        raise ValueError(f"a replay takes one {what} for the whole site, this one has {shown}")
    return next(iter(values), None)


def site_timings(site: Site) -> SL8500Timings:
    """The mechanical times of a site's replay: an exchange of its libraries' ``mount_s``,
    its drives' load and unload, its complex's elevator, pass-through and rails (for a
    site without a complex, the SL8500's, which never serve: there is no other level).

    Raises
    ------
    ValueError
        When the libraries differ in mount or dismount time, or the drives in load or
        unload time (a replay has one of each, for now), naming who differs.
    """
    figures: dict[str, dict[float, list[str]]] = {}
    for lib in site.libraries:
        for name in ("mount_s", "dismount_s"):
            figures.setdefault(name, {}).setdefault(getattr(lib, name), []).append(lib.id)
    for drive in site.drives:
        for name in ("load_s", "unload_s"):
            figures.setdefault(name, {}).setdefault(getattr(drive, name), []).append(drive.id)
    one = {name: _one(values, f"library {name}" if "mount" in name else f"drive {name}")
           for name, values in figures.items()}  # fmt: skip
    default = SL8500Timings()
    load_s, unload_s = one.get("load_s"), one.get("unload_s")
    timings = SL8500Timings(
        exchange_s=one["mount_s"] or 0.0,
        load_s=default.load_s if load_s is None else load_s,
        unload_s=default.unload_s if unload_s is None else unload_s,
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
