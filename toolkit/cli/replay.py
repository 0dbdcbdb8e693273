"""``tapesched replay``: replay a cartridge trace on a library layout (:mod:`simulator.replay`)."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from simulator.replay import ReplayResult
from simulator.replay import replay as run_replay
from simulator.trace import read_layout, read_requests
from toolkit.cli.common import fail
from toolkit.errors import InputError
from toolkit.io import dumps, write_atomic

_ROWS = (
    ("drives", "drives", "{:d}"),
    ("policy", "keep_mounted", None),
    ("requests", "requests", "{:d}"),
    ("mounts", "mounts", "{:d}"),
    ("hits (already mounted)", "hits", "{:d}"),
    ("cross-level mounts", "cross_level_mounts", "{:d}"),
    ("mean mount latency (s)", "mean_latency_s", "{:.1f}"),
    ("median mount latency (s)", "median_latency_s", "{:.1f}"),
    ("p95 mount latency (s)", "p95_latency_s", "{:.1f}"),
    ("max mount latency (s)", "max_latency_s", "{:.1f}"),
    ("drive utilisation", "drive_utilisation", "{:.2%}"),
    ("drive time reading", "read_utilisation", "{:.2%}"),
    ("robot utilisation", "robot_utilisation", "{:.2%}"),
    ("span (s)", "span_s", "{:.0f}"),
)


def _table(result: ReplayResult, title: str) -> Table:
    summary = result.summary()
    table = Table(title=title)
    table.add_column("measure")
    table.add_column("value", justify="right")
    for label, key, fmt in _ROWS:
        if fmt is None:
            text = "keep mounted" if summary[key] else "dismount at once"
        else:
            text = fmt.format(summary[key])
        table.add_row(label, text)
    return table


@click.command()
@click.argument("trace_file", type=click.Path())
@click.argument("layout_file", type=click.Path())
@click.option(
    "--drives",
    type=click.IntRange(min=1),
    required=True,
    help="Drives to use, spread over the levels that have drives.",
)
@click.option(
    "--dismount-at-once",
    is_flag=True,
    help="Dismount a cartridge as soon as nobody waits for it (default: keep it mounted).",
)
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=None,
    help="Replay only the first K requests of the trace.",
)
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Seed of the cartridges' home levels (the layout has no cartridge map).",
)
@click.option(
    "--out",
    "out_file",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write the measures and per-request latencies here (JSON).",
)
def replay(
    trace_file: str,
    layout_file: str,
    drives: int,
    dismount_at_once: bool,
    limit: int | None,
    seed: int,
    out_file: str | None,
) -> None:
    """Replay a cartridge trace (CSV, .bz2 too) on a library layout (JSON, .bz2 too).

    The SL8500 model of simulator.replay: one handbot per level, loads before
    unloads, T10000 load and unload times, elevator and pass-through between
    levels; prints mount latency, utilisation, mounts and hits.
    """
    try:
        requests = read_requests(trace_file)
        layout = read_layout(layout_file)
    except InputError as exc:
        fail(exc.lines())
    if drives > layout.drives:
        fail([f"--drives: {layout_file} has {layout.drives} drives, asked for {drives}"])
    if limit is not None:
        requests = requests[:limit]
    try:
        result = run_replay(requests, layout, drives, keep_mounted=not dismount_at_once, seed=seed)
    except ValueError as exc:
        fail([f"replay: {exc}"])
    if out_file is not None:
        document = {"trace": trace_file, "layout": layout_file, "seed": seed}
        write_atomic(out_file, dumps({**document, **result.as_dict()}))
    Console(width=100).print(_table(result, f"{Path(trace_file).name} on {drives} drives"))
    if out_file is not None:
        click.echo(f"wrote {out_file}")
