"""A site's request log read against the site: which tape, where on it, how much, how long.

A row of a request log (:mod:`toolkit.files.request_log`) names a cartridge and, maybe,
where and how much it reads. :func:`site_reads` resolves every row against the site
(:mod:`toolkit.site`), by rules a storage engineer can check:

- **format and capacity**: the cartridge's pool's, or, for a cartridge no pool lists,
  the site's ``placement.unlisted_format`` (its capacity the catalogue's, fill 1);
- **offset**: ``offset_mb``; else ``block`` times the block size of the format's
  serpentine geometry (:data:`toolkit.hardware.technology.TAPE_FORMATS`); else drawn,
  uniformly and seeded, among the offsets that fit the read within the written share
  of the tape (its pool's ``fill``);
- **size**: ``size_mb`` (or ``size_bytes``); else, with ``duration_s``, what the
  format's drive streams in that time (at most a tape: the trace's seconds include positioning,
  so this is an upper bound);
- **seconds in a drive** (what a replay needs): ``duration_s``; else the locate from
  the beginning of the tape to the offset and the transfer, at the figures of the
  site's first drive of the cartridge's format (the catalogue's drive of that name when
  the site has none).

A row that has neither a size nor a duration, a block id on a format without a known
block size, or a read past the end of its tape is one problem at its line.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from attrs import frozen

from tapesched.toolkit.errors import InputError, Problem, capped
from tapesched.toolkit.files.request_log import RequestLog
from tapesched.toolkit.hardware.technology import DRIVES, TAPE_FORMATS
from tapesched.toolkit.site.model import Site

BYTES_PER_MB = 1e6
"""Bytes in a megabyte (the core problem's units)."""


@frozen
class TapeFigures:
    """What a read needs of its cartridge's format: capacity, written share, drive figures."""

    format: str
    capacity_mb: float
    fill: float
    rate_mb_s: float
    locate_mb_s: float


@frozen
class SiteRead:
    """A row of a request log resolved against a site (see the module docstring)."""

    cartridge: str
    time_s: float
    offset_mb: float
    size_mb: float
    capacity_mb: float
    seconds_in_drive: float
    weight: float
    kind: str
    listed: bool


def _drive_figures(site: Site, format_name: str) -> tuple[float, float]:
    """Rate and locate speed of the site's first drive of ``format_name`` (else the
    catalogue's drive of that name)."""
    for drive in site.drives:
        if drive.model == format_name:
            return drive.rate_mb_s, drive.locate_mb_s
    return DRIVES[format_name].rate_mb_s, DRIVES[format_name].locate_mb_s


def _figures(site: Site) -> tuple[dict[str, TapeFigures], TapeFigures]:
    """The figures of each pool's cartridges, by pool name, and of an unlisted cartridge."""
    pools = {
        p.name: TapeFigures(p.format, p.capacity_mb, p.fill, *_drive_figures(site, p.format))
        for p in site.pools
    }
    name = site.placement.unlisted_format
    unlisted = TapeFigures(name, DRIVES[name].capacity_mb, 1.0, *_drive_figures(site, name))
    return pools, unlisted


def site_reads(site: Site, log: RequestLog, *, seed: int = 0) -> tuple[SiteRead, ...]:
    """Every row of ``log`` resolved against ``site``, in the log's order.

    Raises
    ------
    InputError
        Naming the log, a problem per bad line (up to the usual cap).
    """
    rng = random.Random(seed)
    by_pool, unlisted = _figures(site)
    listed_in = {c: p.name for p in site.pools if p.ids is not None for c in p.ids}
    patterned = [p for p in site.pools if p.ids is None]
    known: dict[str, tuple[TapeFigures, bool]] = {}
    reads: list[SiteRead] = []
    problems: list[Problem] = []
    for line, row in zip(log.lines, log.requests, strict=True):
        tape = known.get(row.cartridge)
        if tape is None:
            pool = listed_in.get(row.cartridge) or next(
                (p.name for p in patterned if p.holds(row.cartridge)), None
            )
            tape = (unlisted, False) if pool is None else (by_pool[pool], True)
            known[row.cartridge] = tape
        figures, listed_flag = tape
        size_mb = row.size_mb
        if size_mb is None and row.duration_s is not None:
            size_mb = min(row.duration_s * figures.rate_mb_s, figures.capacity_mb)
        if size_mb is None:
            problems.append(
                Problem(f"line {line}", "no size and no duration_s: a read needs one of them")
            )
            continue
        offset_mb = row.offset_mb
        if offset_mb is None and row.block is not None:
            geometry = TAPE_FORMATS.get(figures.format)
            if geometry is None:
                known_formats = ", ".join(TAPE_FORMATS)
                problems.append(
                    Problem(
                        f"line {line}.block",
                        f"format {figures.format} has no known block size (block ids are "
                        f"read for {known_formats}); give offset_mb",
                    )
                )
                continue
            offset_mb = row.block * geometry.block_bytes / BYTES_PER_MB
        written_mb = figures.capacity_mb * figures.fill
        if offset_mb is None:
            offset_mb = rng.uniform(0.0, max(written_mb - size_mb, 0.0))
        if offset_mb + size_mb > figures.capacity_mb * (1 + 1e-9):
            problems.append(
                Problem(
                    f"line {line}",
                    f"reads {offset_mb:,.0f}-{offset_mb + size_mb:,.0f} MB of a "
                    f"{figures.format} tape of {figures.capacity_mb:,.0f} MB",
                )
            )
            continue
        seconds = row.duration_s
        if seconds is None:
            seconds = offset_mb / figures.locate_mb_s + size_mb / figures.rate_mb_s
        reads.append(
            SiteRead(
                row.cartridge,
                row.time_s,
                offset_mb,
                size_mb,
                figures.capacity_mb,
                seconds,
                row.weight,
                row.kind,
                listed_flag,
            )
        )
    if problems:
        raise InputError(log.source, capped(problems))
    return tuple(reads)


def unlisted_count(reads: Sequence[SiteRead]) -> int:
    """Distinct cartridges of ``reads`` that no pool of the site lists."""
    return len({r.cartridge for r in reads if not r.listed})
