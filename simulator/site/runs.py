"""A site's request log from its files: made an instance (``tapesched instance``) or replayed
(``tapesched replay LOG --site SITE``), checked, with what placed its cartridges.

Both read the site (:func:`toolkit.site.reader.read_site`) and the log
(:func:`toolkit.files.request_log.read_request_log`, its columns renamed by ``columns``),
resolve the log against the site (:func:`simulator.site.reads.site_reads`) and give every
cartridge a home (:func:`simulator.site.layout.site_homes`, a cartridge map first when one
is given).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from attrs import evolve, frozen

from tapesched.simulator.replay.replay import ReplayResult, replay, unreplayable
from tapesched.simulator.replay.trace import TraceRequest, read_homes
from tapesched.simulator.replay.trace_replay import check_scheduler
from tapesched.simulator.site.instance import site_instance
from tapesched.simulator.site.layout import (
    SiteHomes,
    site_homes,
    site_layout,
    site_mechanics,
    site_timings,
)
from tapesched.simulator.site.reads import SiteRead, site_reads
from tapesched.toolkit.errors import SettingProblem, SettingsError
from tapesched.toolkit.files.request_log import read_request_log
from tapesched.toolkit.model import Instance
from tapesched.toolkit.site.model import Site
from tapesched.toolkit.site.reader import read_site


@frozen
class SiteLog:
    """A site and its request log, read and resolved, and every cartridge's home."""

    site_file: str
    log_file: str
    site: Site
    reads: tuple[SiteRead, ...]
    homes: SiteHomes
    homes_file: str | None

    def homes_document(self) -> dict[str, Any]:
        """How the log's cartridges were placed: ``file`` (the map, or null), ``homed``
        (by the map or a pool), ``hashed`` (by the seeded hash, ``seed``), ``unlisted``
        (in no pool, hashed too)."""
        counts = self.homes.counts(r.cartridge for r in self.reads)
        return {"file": self.homes_file, "seed": self.site.placement.seed, **counts}


def read_site_log(
    site_file: str,
    log_file: str,
    *,
    columns: Mapping[str, str] | None = None,
    limit: int | None = None,
    seed: int = 0,
    homes_file: str | None = None,
    homes_seed: int | None = None,
    site: Site | None = None,
) -> SiteLog:
    """The site of ``site_file`` and the log of ``log_file`` read, resolved and placed.

    ``site``, when given, is the site itself (a sweep's changed copy of ``site_file``'s),
    and ``site_file`` only names it.

    ``limit`` keeps the first rows of the log; ``seed`` draws the offsets a row does not
    give; ``homes_file`` is a cartridge map whose homes come first; ``homes_seed``
    replaces the site's placement seed.

    Raises
    ------
    toolkit.errors.InputError
        For a file that cannot be read or breaks its format, a row the site cannot
        place (:func:`simulator.site.reads.site_reads`).
    toolkit.errors.SettingsError
        For cartridges that do not fit in the site's slots (naming no setting).
    """
    site = read_site(site_file) if site is None else site
    if homes_seed is not None:
        site = evolve(site, placement=evolve(site.placement, seed=homes_seed))
    log = read_request_log(log_file, columns)
    if limit is not None:
        log = evolve(log, requests=log.requests[:limit], lines=log.lines[:limit])
    reads = site_reads(site, log, seed=seed)
    given = read_homes(homes_file, site_layout(site)) if homes_file is not None else None
    try:
        homes = site_homes(site, (r.cartridge for r in reads), given)
    except ValueError as exc:
        raise SettingsError([SettingProblem((), str(exc))]) from exc
    return SiteLog(site_file, log_file, site, reads, homes, homes_file)


def site_log_instance(site_log: SiteLog, *, objective: str = "weighted-flow") -> Instance:
    """The core-problem instance of a site's log (:func:`simulator.site.instance.site_instance`),
    named after the site and the log.

    Raises
    ------
    toolkit.errors.SettingsError
        When a tape the log reads lives in a library without drives, or the log is empty.
    """
    name = f"{site_log.site.name}-{Path(site_log.log_file).name.split('.')[0]}"
    try:
        return site_instance(
            site_log.site, site_log.reads, site_log.homes.levels, name=name, objective=objective
        )
    except ValueError as exc:
        raise SettingsError([SettingProblem((), str(exc))]) from exc


@frozen
class SiteReplay:
    """A replay of a site's log: the files, how its cartridges were placed, what it measured."""

    site_log: SiteLog
    result: ReplayResult

    def to_dict(self) -> dict[str, Any]:
        """The result document (its keys: ``tapesched replay --help``)."""
        return {
            "trace": self.site_log.log_file,
            "site": self.site_log.site_file,
            "homes": self.site_log.homes_document(),
            **self.result.as_dict(),
        }


def replay_site(
    site_log: SiteLog,
    drives: int | None = None,
    *,
    keep_mounted: bool = True,
    scheduler: str = "tape-batching",
    mount_policy: str | None = None,
    per_request: bool = False,
) -> SiteReplay:
    """Replay a site's log on the site, with ``drives`` of its drives (``None``: all), each
    request holding its drive for its seconds (:class:`simulator.site.reads.SiteRead`);
    ``per_request`` keeps each request's latency (:func:`simulator.replay.replay.replay`).

    Raises
    ------
    toolkit.errors.SettingsError
        For a scheduler that cannot replay a log or gives none, a bad mount policy,
        or more drives than the site has.
    """
    why = unreplayable(scheduler)
    if why is not None:
        raise SettingsError([SettingProblem(("scheduler",), why)])
    site = site_log.site
    count = len(site.drives) if drives is None else drives
    if not 1 <= count <= len(site.drives):
        message = f"{site_log.site_file} has {len(site.drives)} drives, asked for {count}"
        raise SettingsError([SettingProblem(("drives",), message)])
    check_scheduler(scheduler, mount_policy)
    requests = [TraceRequest(r.cartridge, r.time_s, r.seconds_in_drive) for r in site_log.reads]
    arm_s, drive_s = site_mechanics(site)
    try:
        result = replay(
            requests,
            site_layout(site),
            count,
            keep_mounted=keep_mounted,
            timings=site_timings(site),
            homes=site_log.homes.levels,
            float_on_dismount=site.complex is None or site.complex.float_on_dismount,
            scheduler=scheduler,
            mount_policy=mount_policy,
            arm_s=arm_s,
            drive_s=drive_s,
            per_request=per_request,
        )
    except ValueError as exc:
        raise SettingsError([SettingProblem((), str(exc))]) from exc
    return SiteReplay(site_log, result)
