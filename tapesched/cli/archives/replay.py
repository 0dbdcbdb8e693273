"""``tapesched replay``: replay a cartridge trace on a library layout
(:mod:`simulator.replay.trace_replay`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from tapesched.cli.common import columns_option, fail, reports_bad_input, setting_lines
from tapesched.cli.out_options import file_out_option
from tapesched.simulator.replay.trace_replay import HOMES_BESIDE, replay_files
from tapesched.toolkit.errors import SettingsError
from tapesched.toolkit.files.json_documents import dumps
from tapesched.toolkit.files.outputs import FileOutput

_OPTIONS = {"scheduler": "--scheduler", "drives": "--drives", "mount_policy": "--mount-policy"}
"""The option behind each setting of :func:`simulator.replay.trace_replay.replay_files`."""

_COUNTS = (
    ("drives", "drives"),
    ("requests", "requests"),
    ("mounts", "mounts"),
    ("hits (already mounted)", "hits"),
    ("cross-level mounts", "cross_level_mounts"),
)
_LATENCIES = (
    ("{} mount latency (s)", "latency_over_mounts_s"),
    ("{} latency, all requests (s)", "latency_over_requests_s"),
)
_SHARES = (
    "drive_busy_share_over_horizon",
    "drive_in_use_share_over_horizon",
    "arm_busy_share_over_horizon",
)
"""The shares of drive and handbot time, printed by name (toolkit.metrics.DEFINITIONS)."""
_LATENCY_NOTE = (
    "latency: from a request's arrival to its cartridge ready in a drive for it;\n"
    "mount latency is over the {mounts:,d} requests that needed a mount; over all requests,\n"
    "a hit counts its wait for its cartridge in a drive or on its way (0 s if idle there)"
)


def _table(document: dict[str, Any], title: str) -> Table:
    table = Table(title=title)
    table.add_column("measure")
    table.add_column("value", justify="right")
    for label, key in _COUNTS:
        table.add_row(label, f"{document[key]:,d}")
        if key == "drives":
            table.add_row("scheduler", document["scheduler"])
            table.add_row("mount policy", document["mount_policy"])
    homes = document["homes"]
    source = Path(homes["file"]).name if homes["file"] is not None else "no map"
    if "site" in document:
        where = f"the map ({source}) or the site's pools" if homes["file"] else "the site's pools"
        table.add_row(f"homes from {where}", f"{homes['homed']:,d}")
        table.add_row(f"homes by seeded hash (seed {homes['seed']})", f"{homes['hashed']:,d}")
        table.add_row("  of which cartridges in no pool", f"{homes['unlisted']:,d}")
    else:
        table.add_row(f"homes from the map ({source})", f"{homes['mapped']:,d}")
        table.add_row(f"homes by seeded hash (seed {document['seed']})", f"{homes['hashed']:,d}")
    if not document["saturated"]:
        for label, key in _LATENCIES:
            stats = document[key]
            for stat in ("mean", "median", "p95", "max"):
                table.add_row(label.format(stat), f"{stats[stat]:.1f}")
    for key in _SHARES:
        table.add_row(key, f"{document[key]:.2%}")
    table.add_row("span (s)", f"{document['span_s']:.0f}")
    end_s = document["trace_end_s"]
    table.add_row(f"backlog half-way ({end_s / 2:.0f} s)", f"{document['backlog_midway']:,d}")
    table.add_row(f"backlog at the last arrival ({end_s:.0f} s)", f"{document['backlog_end']:,d}")
    return table


def _site_replay(
    site_file: str,
    trace_file: str,
    *,
    columns: dict[str, str],
    drives: int | None,
    keep_mounted: bool,
    scheduler: str,
    mount_policy: str | None,
    limit: int | None,
    homes_file: str | None,
    seed: int | None,
    per_request: bool,
) -> dict[str, Any]:
    """The result document of a site's log replayed on the site."""
    from tapesched.simulator.site.runs import read_site_log, replay_site

    site_log = read_site_log(
        site_file,
        trace_file,
        columns=columns,
        limit=limit,
        homes_file=homes_file,
        homes_seed=seed,
    )
    replayed = replay_site(
        site_log,
        drives,
        keep_mounted=keep_mounted,
        scheduler=scheduler,
        mount_policy=mount_policy,
        per_request=per_request,
    )
    return replayed.to_dict()


def _not_kept_up(document: dict[str, Any]) -> str:
    """The line that flags a replay whose backlog grew (see ReplayResult.saturated)."""
    end_s = document["trace_end_s"]
    return (
        f"the replay could not keep up: {document['backlog_end']:,d} requests arrived and "
        f"not done at the trace's last arrival ({end_s:.0f} s), against "
        f"{document['backlog_midway']:,d} half-way ({end_s / 2:.0f} s); its latencies "
        "grow with the trace's length, so no latency statistic is given"
    )


@click.command(short_help="Replay a cartridge trace on a library complex or a site.")
@click.argument("trace_file", type=click.Path())
@click.argument("layout_file", type=click.Path(), required=False)
@click.option(
    "--site",
    "site_file",
    type=click.Path(dir_okay=False),
    default=None,
    help="Replay on this site (tapesched.site/1) instead of a layout: TRACE_FILE is then "
    "the site's request log (CSV with a header).",
)
@columns_option
@click.option(
    "--drives",
    type=click.IntRange(min=1),
    default=None,
    help="Drives to use, spread over the levels that have drives (required with a layout; "
    "with --site, all of the site's by default).",
)
@click.option(
    "--dismount-at-once",
    is_flag=True,
    help="Dismount a cartridge as soon as nobody waits for it (default: keep it mounted).",
)
@click.option(
    "--scheduler",
    default="tape-batching",
    show_default=True,
    help="Online scheduler: which waiting request starts (a name of `tapesched solvers`, "
    "a plug-in, or module.path:Attr).",
)
@click.option(
    "--mount-policy",
    default=None,
    metavar="SPEC",
    help="Mount policy (default: lru, or at-once with --dismount-at-once): keep, lru, fifo, "
    "lfu, belady (reads the trace's future), at-once, defer:T, cta:..., dcache:..., "
    "joined by +, or module.path:Attr.",
)
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=None,
    help="Replay only the first K requests of the trace.",
)
@click.option(
    "--homes",
    "homes_file",
    type=click.Path(dir_okay=False),
    default=None,
    help=f"Cartridge map giving home levels (JSON, .bz2 too; default: {HOMES_BESIDE} "
    "beside the trace, if there is one).",
)
@click.option(
    "--seed",
    type=int,
    default=None,
    help="Seed of the home levels of cartridges that no map places (default 0; with --site, "
    "the site's placement seed).",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the result document (JSON) instead of the table.",
)
@file_out_option(
    "Write the result document, per-request latencies included, here (JSON); - for standard output."
)
@reports_bad_input
def replay(
    trace_file: str,
    layout_file: str | None,
    site_file: str | None,
    columns: dict[str, str],
    drives: int | None,
    dismount_at_once: bool,
    scheduler: str,
    mount_policy: str | None,
    limit: int | None,
    homes_file: str | None,
    seed: int | None,
    out: FileOutput | None,
    as_json: bool,
) -> None:
    """Replay a cartridge trace (CSV, .bz2 too) on a library layout (JSON, .bz2 too),
    or a site's request log on its site (--site).

    A run of the simulator (simulator.replay.replay) on the layout's SL8500 complex:
    one handbot per level, loads before unloads, T10000 load and unload
    times, elevator and pass-through between levels, cartridges floating to
    the level that dismounts them; each request reads its cartridge for the
    trace's seconds, under --scheduler and --mount-policy. Prints mounts and
    hits, the latency over mounts and over all requests, the shares of
    drive and handbot time (named as simulate names them) and the backlog.

    \b
    Home levels: a cartridge lives where the map of --homes FILE says, else
    where a file crtmapping.json beside the trace says (the ECMWF sample has
    one: instances/traces/ecmwf/), else (and for any cartridge the map does
    not name) on a level drawn by a seeded hash weighted by the levels'
    slots (--seed). The keys of a map are cartridge ids, with or without one
    '/' inside ("RB06/82" is cartridge RB0682), its values level numbers of
    the layout.

    \b
    With --site SITE, TRACE_FILE is the site's request log (a CSV with a
    header, .gz/.bz2/.zst too; --columns maps its names), replayed on the
    site's libraries and drives (the site's mount, load and unload times;
    its complex's elevator and pass-through). A request holds its drive for
    its duration_s, else for the locate to its offset and its transfer at
    its format's drive figures. Homes: --homes FILE first, then the pools'
    home libraries, then the site's seeded hash (--seed replaces the site's
    seed), cartridges in no pool included. The document then has "site"
    instead of "layout" and "seed", and homes {"file", "seed", "homed",
    "hashed", "unlisted"}, counted over the log's cartridges.

    \b
    A replay whose backlog (requests arrived and not done) at the trace's
    last arrival is above both 20 and 1 % of the requests, and 1.5 times
    what it was half-way, could not keep up (the rule of simulate): it is
    flagged, and no latency statistic is given, as they would only measure
    the trace's length.

    \b
    The result document (--json prints it, --out writes it):
      trace, layout            the two files replayed
      seed                     seed of the hashed home levels
      homes                    {"file": the map used or null,
                                "mapped": cartridges placed by it,
                                "hashed": cartridges placed by the hash}
      drives, keep_mounted, scheduler, mount_policy
      requests, mounts, hits, cross_level_mounts
      latency_over_mounts_s    {"count", "mean", "median", "p95", "max"} over
                               the requests that needed a mount; null when
                               saturated
      latency_over_requests_s  the same over every request, hits included;
                               null when saturated
      drive_busy_share_over_horizon
                               drive time busy (mounting, in use,
                               unloading) over drives x span_s, 0-1
      drive_in_use_share_over_horizon
                               drive time in use (the trace's seconds)
                               over drives x span_s, 0-1
      arm_busy_share_over_horizon
                               handbot time busy over handbots x span_s
      span_s                   first arrival to the last event (the horizon)
      trace_end_s              the last arrival
      backlog_midway           requests arrived, not done at trace_end_s / 2
      backlog_end              requests arrived, not done at trace_end_s
      saturated                true when the replay could not keep up
      drive_ids                the drives used
      latencies_s, mounted     per request, in trace order
    """
    if (layout_file is None) == (site_file is None):
        fail(
            ["replay: give a LAYOUT_FILE or --site SITE, one of them (see tapesched replay --help)"]
        )
    if site_file is None and drives is None:
        fail(["--drives: required with a layout, and missing"])
    if site_file is None and columns:
        fail(["--columns: names the columns of a site's request log: give --site"])
    per_request = out is not None or as_json  # the document's per-request lists
    try:
        if site_file is not None:
            document = _site_replay(
                site_file,
                trace_file,
                columns=columns,
                drives=drives,
                keep_mounted=not dismount_at_once,
                scheduler=scheduler,
                mount_policy=mount_policy,
                limit=limit,
                homes_file=homes_file,
                seed=seed,
                per_request=per_request,
            )
        else:
            assert layout_file is not None and drives is not None
            document = replay_files(
                trace_file,
                layout_file,
                drives,
                keep_mounted=not dismount_at_once,
                scheduler=scheduler,
                mount_policy=mount_policy,
                limit=limit,
                homes_file=homes_file,
                seed=0 if seed is None else seed,
                per_request=per_request,
            ).to_dict()
    except SettingsError as exc:
        fail(setting_lines(exc, _OPTIONS, "replay"))
    if out is not None:
        out.write(dumps(document))
    if as_json:
        if out is None or not out.to_stdout:
            click.echo(dumps(document), nl=False)
        return
    title = f"{Path(trace_file).name} on {document['drives']} drives"
    Console(width=100).print(_table(document, title))
    if document["saturated"]:
        click.echo(_not_kept_up(document))
    else:
        click.echo(_LATENCY_NOTE.format(mounts=document["mounts"]))
    if out is not None:
        click.echo(f"wrote {out.given}")
