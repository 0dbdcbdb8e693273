"""A site (``tapesched.site/1``) as the rest of tapesched sees it: every figure resolved.

A :class:`Site` is read by :func:`toolkit.site.reader.site_from_dict` (or built by
:func:`toolkit.site.new.new_site`) with every default taken from the technology table
(:mod:`toolkit.hardware.technology`): each library's arms and arm times, each drive's
id, library and figures (:class:`SiteDrive`), each pool's tape capacity. A pool keeps
its cartridges as written, a pattern and a count, and lists them on demand
(:meth:`SitePool.cartridge_ids`, :meth:`Site.cartridge`): a pool of a million tapes costs
a few numbers until someone asks for its ids.
"""

from __future__ import annotations

from collections.abc import Iterator

from attrs import frozen

PATTERN_MARK = "#"
"""The character of a pattern's run that becomes the cartridge's number."""


@frozen
class SiteDrive:
    """A drive of a site, its figures resolved (the table's drive, the group's overrides)."""

    id: str
    library: str
    model: str
    rate_mb_s: float
    load_s: float
    unload_s: float
    locate_mb_s: float
    capacity_mb: float


@frozen
class SiteDriveGroup:
    """A group of drives as the file gives it: ``count`` drives (ids generated) or ``ids``,
    and the figures it overrides (``None``: the technology table's)."""

    model: str
    count: int | None = None
    ids: tuple[str, ...] | None = None
    rate_mb_s: float | None = None
    load_s: float | None = None
    unload_s: float | None = None
    locate_mb_s: float | None = None


@frozen
class SiteLibrary:
    """A library of a site: its mechanics resolved, its slots, its level in a complex, its
    drive groups as given and its drives (every one, with its id and figures)."""

    id: str
    model: str | None
    arms: int
    mount_s: float
    dismount_s: float
    slots: int
    level: int
    groups: tuple[SiteDriveGroup, ...]
    drives: tuple[SiteDrive, ...]


@frozen
class Complex:
    """How cartridges pass between the libraries of a site (an SL8500-style complex)."""

    rails_per_library: int
    elevator_s: float
    pass_through_s: float
    float_on_dismount: bool = True


@frozen
class Pattern:
    """A pattern of cartridge ids, ``L9####``: ``prefix``, a run of ``width`` digits,
    ``suffix``."""

    prefix: str
    width: int
    suffix: str

    @classmethod
    def parse(cls, text: str) -> Pattern:
        """The pattern of ``text``.

        Raises
        ------
        ValueError
            Unless ``text`` holds exactly one run of ``#``.
        """
        start = text.find(PATTERN_MARK)
        end = start
        while 0 <= end < len(text) and text[end] == PATTERN_MARK:
            end += 1
        if start < 0 or PATTERN_MARK in text[end:]:
            runs = "no run" if start < 0 else "several runs"
            raise ValueError(
                f"a pattern has exactly one run of '{PATTERN_MARK}', {text!r} has {runs}"
            )
        return cls(text[:start], end - start, text[end:])

    def id(self, number: int) -> str:
        """The id of cartridge ``number``."""
        return f"{self.prefix}{number:0{self.width}d}{self.suffix}"

    def number(self, cartridge: str) -> int | None:
        """The number of ``cartridge`` in the pattern, or ``None`` if it is not of it."""
        if len(cartridge) != len(self.prefix) + self.width + len(self.suffix):
            return None
        if not (cartridge.startswith(self.prefix) and cartridge.endswith(self.suffix)):
            return None
        digits = cartridge[len(self.prefix) : len(self.prefix) + self.width]
        return int(digits) if digits.isascii() and digits.isdigit() else None

    def __str__(self) -> str:
        return f"{self.prefix}{PATTERN_MARK * self.width}{self.suffix}"


@frozen
class SitePool:
    """Cartridges of one format: ``pattern`` numbered ``first`` to ``first + count - 1``,
    or the ``ids`` listed; ``home`` a library id (``None``: a seeded hash places each);
    ``fill`` the share of each tape written; ``capacity_mb`` the format's."""

    name: str
    format: str
    capacity_mb: float
    pattern: Pattern | None = None
    count: int = 0
    first: int = 0
    ids: tuple[str, ...] | None = None
    home: str | None = None
    fill: float = 1.0

    @property
    def size(self) -> int:
        """How many cartridges the pool lists."""
        return self.count if self.ids is None else len(self.ids)

    def cartridge_ids(self) -> Iterator[str]:
        """The pool's cartridge ids, in order, made one by one."""
        if self.ids is not None:
            yield from self.ids
        elif self.pattern is not None:
            pattern = self.pattern
            for number in range(self.first, self.first + self.count):
                yield pattern.id(number)

    def holds(self, cartridge: str) -> bool:
        """Whether the pool lists ``cartridge`` (a pattern's without listing them)."""
        if self.ids is not None:
            return cartridge in self.ids
        number = self.pattern.number(cartridge) if self.pattern is not None else None
        return number is not None and self.first <= number < self.first + self.count


@frozen
class SitePlacement:
    """The seed of every hashed home, and the format of a cartridge no pool lists."""

    seed: int
    unlisted_format: str


@frozen
class SiteCartridge:
    """A cartridge a site lists: its pool, format and home library (``None``: hashed)."""

    id: str
    pool: str
    format: str
    home: str | None


@frozen
class SiteMovers:
    """How a site's drives are served by mover nodes: each library's drives dealt
    ``drives_per_mover`` at a time, in order, to movers ``<library>-m<k>``, each with these
    limits (``None``: no limit; the units of a scenario's ``platform.movers``)."""

    drives_per_mover: int
    memory_mb: float | None = None
    disk_mb: float | None = None
    bandwidth_mb_s: float | None = None

    def count(self, drives: int) -> int:
        """How many movers serve a library of ``drives`` drives."""
        return -(-drives // self.drives_per_mover)


@frozen
class SiteCacheClass:
    """A service class of a site's disk cache: the files up to ``max_file_mb`` (``None``:
    every larger file) and its disk."""

    name: str
    max_file_mb: float | None
    cache_mb: float


@frozen
class Site:
    """A site: its libraries (with their drives), how they form a complex, the cartridges
    it lists (its pools) and how the others are placed; the mover nodes that serve its
    drives (``None``: none) and the service classes of its disk cache (none: no cache)."""

    name: str
    libraries: tuple[SiteLibrary, ...]
    pools: tuple[SitePool, ...]
    placement: SitePlacement
    complex: Complex | None = None
    movers: SiteMovers | None = None
    disk_cache: tuple[SiteCacheClass, ...] = ()

    @property
    def drives(self) -> tuple[SiteDrive, ...]:
        """Every drive of the site, library by library."""
        return tuple(d for lib in self.libraries for d in lib.drives)

    @property
    def slots(self) -> int:
        """Storage slots of all libraries."""
        return sum(lib.slots for lib in self.libraries)

    @property
    def arms(self) -> int:
        """Arms of all libraries."""
        return sum(lib.arms for lib in self.libraries)

    @property
    def mover_count(self) -> int:
        """Mover nodes of all libraries (none without :attr:`movers`)."""
        movers = self.movers
        return 0 if movers is None else sum(movers.count(len(lib.drives)) for lib in self.libraries)

    @property
    def cartridge_count(self) -> int:
        """Cartridges the pools list."""
        return sum(p.size for p in self.pools)

    def library(self, library_id: str) -> SiteLibrary:
        """The library ``library_id`` (``KeyError`` if there is none)."""
        for lib in self.libraries:
            if lib.id == library_id:
                return lib
        raise KeyError(library_id)

    def cartridges(self) -> Iterator[SiteCartridge]:
        """Every cartridge the pools list, pool by pool."""
        for pool in self.pools:
            for cartridge in pool.cartridge_ids():
                yield SiteCartridge(cartridge, pool.name, pool.format, pool.home)

    def cartridge(self, cartridge: str) -> SiteCartridge | None:
        """The cartridge ``cartridge`` if a pool lists it, else ``None`` (a cartridge of
        :attr:`SitePlacement.unlisted_format`, placed by hash)."""
        for pool in self.pools:
            if pool.holds(cartridge):
                return SiteCartridge(cartridge, pool.name, pool.format, pool.home)
        return None
