"""``tapesched experiment ecmwf-defer-dismount``: the ECMWF sample against the dismount delay.

Replays the shipped ECMWF sample on its SL8500 complex under ``lru``,
``fifo`` and ``belady`` eviction with a dismount delay ``T`` (and kept
mounted), and writes the mounts and mount latencies
(:mod:`tapesched.studies.defer_study`, :mod:`tapesched.studies.defer_report`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import click
from attrs import evolve
from rich.console import Console
from rich.table import Table

from tapesched.cli.common import progress_bar, reports_bad_input
from tapesched.cli.out_options import dir_out_option
from tapesched.toolkit.files.outputs import DirectoryOutput

if TYPE_CHECKING:
    from tapesched.studies.defer_study import DeferPoint

NAME = "ecmwf-defer-dismount"
"""The experiment's name under ``tapesched experiment``."""

OUT_FILES = ("results.csv", "summary.json", "figure.png")
"""What the experiment writes to ``--out``; an existing directory holding only these is replaced."""


def _delay(defer_s: float) -> str:
    return "kept" if math.isinf(defer_s) else f"{defer_s:g}"


def _print_table(points: Sequence[DeferPoint]) -> None:
    """A row per delay: each eviction rule's mounts and mean mount latency."""
    from tapesched.studies.defer_study import METRICS

    series = list(dict.fromkeys(p.series for p in points))
    table = Table(title=f"{NAME}: mounts and mean mount latency (s) against the delay T")
    table.add_column("T (s)", justify="right")
    for name in series:
        table.add_column(f"{name} mounts", justify="right")
        table.add_column(f"{name} mount latency", justify="right")
        table.add_column(f"{name} latency, all", justify="right")
    by_delay: dict[float, dict[str, DeferPoint]] = {}
    for p in points:
        by_delay.setdefault(p.defer_s, {})[p.series] = p
    for defer_s, row in by_delay.items():
        cells = []
        for name in series:
            for metric in METRICS[:3]:
                value = row[name].value(metric)
                digits = 0 if metric == "mounts" else 1
                cells.append("saturated" if value is None else f"{value:,.{digits}f}")
        table.add_row(_delay(defer_s), *cells)
    Console(width=160).print(table)


@click.command(name=f"experiment {NAME}")
@dir_out_option(OUT_FILES, "Directory to write (results.csv, summary.json, figure.png).")
@click.option(
    "--quick",
    is_flag=True,
    help="The first 5,000 requests, delays 0, 300 and 1800 s and kept: well under a minute.",
)
@click.option(
    "--drives",
    type=click.IntRange(min=1),
    default=170,
    show_default=True,
    help="Drives of the complex, spread over its levels with drives.",
)
@reports_bad_input
def ecmwf_defer(out: DirectoryOutput | None, quick: bool, drives: int) -> None:
    """Mounts and mount latency of the ECMWF sample against the dismount delay T.

    The shipped sample (instances/traces/ecmwf/) replayed on its SL8500
    complex with its cartridge map, one handbot a rail, tape-batching, for
    T in 0, 60, 120, 300, 600, 900, 1800 s and kept mounted, under lru,
    fifo and belady eviction (belady reads the trace's future: a
    yardstick). Writes to --out results.csv (experiment, series, x_name,
    x, metric, mean, half_width, replications, saturated), summary.json and
    figure.png.
    """
    from tapesched.cli.common import fail
    from tapesched.studies.defer_report import draw_figure, results_csv, summary_document
    from tapesched.studies.defer_study import FULL, QUICK, load_sample, run_study
    from tapesched.toolkit.files.json_documents import dumps, write_atomic

    if out is None:
        fail(["--out: required, and missing"])
    sample = load_sample()
    if drives > sample[1].drives:
        fail([f"--drives: the sample's layout has {sample[1].drives} drives, asked for {drives}"])
    config = evolve(QUICK if quick else FULL, drives=drives)
    requests = config.requests or len(sample[0])
    click.echo(
        f"{NAME}: {requests:,d} requests on {drives} drives; T in "
        f"{', '.join(_delay(t) for t in config.defer_s)}; {', '.join(config.evictions)}"
    )
    began = time.perf_counter()
    with progress_bar() as progress:
        task = progress.add_task(NAME, total=len(config.defer_s) * len(config.evictions))

        def advance(what: str) -> None:
            progress.update(task, advance=1, current=what)

        points = run_study(config, advance, sample)
    elapsed = time.perf_counter() - began
    _print_table(points)
    settings: dict[str, object] = {
        "quick": quick,
        "drives": drives,
        "requests": requests,
        "defer_s": [None if math.isinf(t) else t for t in config.defer_s],
        "evictions": list(config.evictions),
        "scheduler": "tape-batching",
        "elapsed_s": elapsed,
    }
    with out.building() as staging:
        write_atomic(staging / "results.csv", results_csv(points))
        write_atomic(staging / "summary.json", dumps(summary_document(points, settings)))
        draw_figure(points, staging / "figure.png")
    click.echo(f"ran in {elapsed:.1f} s; wrote {out.given}")
