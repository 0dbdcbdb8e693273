"""``tapesched experiment cnaf-bulk-recall``: CNAF's CMS bulk recall under three allocations.

A bulk recall of about 95,000 files and 315 TB on 16 T10000D drives shared
with the other experiments' recalls and migrations, under static caps,
under CNAF's Orchestrator and under the offline optimum of the allocation
(:mod:`tapesched.studies.cnaf_study`, where the scenario and its background load
are set out), against Table 1 of Cavalli et al.
"""

from __future__ import annotations

import time

import click
from attrs import evolve
from rich.console import Console
from rich.table import Table

from tapesched.cli.common import NumberType, progress_bar, reports_bad_input
from tapesched.cli.out_options import dir_out_option
from tapesched.toolkit.files.outputs import DirectoryOutput

NAME = "cnaf-bulk-recall"
"""The experiment's name under ``tapesched experiment``."""

OUT_FILES = ("results.csv", "summary.json", "figure.png")
"""What the experiment writes to ``--out``; an existing directory holding only these is replaced."""

HEADINGS = {
    "duration_h": "duration (h)",
    "avg_drives": "avg drives",
    "throughput_mb_s": "throughput (MB/s)",
    "backlog_drive_h": "mean backlog (drive-h)",
    "background_wait_h": "others' wait (h)",
    "tapes_reclaimed": "tapes reclaimed",
}
"""The table's heading of each metric."""


@click.command(name=f"experiment {NAME}")
@dir_out_option(OUT_FILES, "Directory to write (results.csv, summary.json, figure.png).")
@click.option(
    "--quick",
    is_flag=True,
    help="A tenth of the recall and of the horizon, 3 seeds, the linear program on a "
    "15-minute grid: under a minute of CPU.",
)
@click.option(
    "--scale",
    type=NumberType(min=0.001, max=1.0),
    default=None,
    help="Share of the recall and of the horizon (default 1, --quick 0.1).",
)
@click.option(
    "--seeds",
    type=click.IntRange(min=1, max=100),
    default=None,
    help="Seeds (batches and background drawn anew) per series (default 10, --quick 3).",
)
@click.option("--seed", type=int, default=1, show_default=True, help="The first seed.")
@reports_bad_input
def cnaf_bulk_recall(
    out: DirectoryOutput | None, quick: bool, scale: float | None, seeds: int | None, seed: int
) -> None:
    """A CMS-like bulk recall on shared drives: static caps, Orchestrator, offline optimum.

    Writes to --out results.csv (experiment, series, x_name, x, metric,
    mean, half_width, replications, saturated: x is the recall's scale),
    summary.json (the settings, the paper's Table 1, each series' estimates
    and every run) and figure.png (the recall's throughput and drives per
    hour, first seed).
    """
    from tapesched.cli.common import fail
    from tapesched.studies.cnaf_study import (
        FULL,
        METRICS,
        PAPER,
        QUICK,
        draw_figure,
        results_csv,
        run_study,
        summary_document,
    )
    from tapesched.toolkit.files.json_documents import dumps, write_atomic

    if out is None:
        fail(["--out: required, and missing"])
    config = QUICK if quick else FULL
    config = evolve(config, seeds=seeds or config.seeds, seed=seed, scale=scale or config.scale)
    click.echo(
        f"{NAME}: {round(config.files * config.scale)} files, "
        f"{config.data_tb * config.scale:g} TB on {config.drives} T10000D drives; "
        f"{config.seeds} seed(s); linear program every {config.lp_period_s:g} s"
    )
    began = time.perf_counter()
    with progress_bar() as progress:
        task = progress.add_task(NAME, total=config.seeds, current="")
        outcome = run_study(
            config, lambda done: progress.update(task, completed=done, current=f"seed {done}")
        )
    elapsed = time.perf_counter() - began
    table = Table(title=f"{NAME}: mean ± 95 % half-width over {config.seeds} seed(s)")
    table.add_column("series")
    for metric in METRICS:
        table.add_column(HEADINGS[metric], justify="right")
    for series, estimates in outcome.estimates.items():
        cells = []
        for metric in METRICS:
            e = estimates[metric]
            if e.mean is None:
                cells.append("-")
            elif e.half_width is None:
                cells.append(f"{e.mean:.4g}")
            else:
                cells.append(f"{e.mean:.4g} ± {e.half_width:.2g}")
        table.add_row(series, *cells)
    for series, row in PAPER.items():
        table.add_row(f"paper, {series}", *(f"{row[m]:g}" if m in row else "" for m in METRICS))
    Console(width=160).print(table)
    settings = {
        "quick": quick,
        "seeds": config.seeds,
        "seed": config.seed,
        "scale": config.scale,
        "files": round(config.files * config.scale),
        "data_tb": config.data_tb * config.scale,
        "cartridges": round(config.cartridges * config.scale),
        "drives": config.drives,
        "lp_period_s": config.lp_period_s,
        "fc_mb_s": dict(config.fc_mb_s),
        "static_caps": dict(config.static_caps),
        "migration_caps": dict(config.migration_caps),
        "background_drives": {f"{g}/{k}": v for (g, k), v in config.background_drives.items()},
        "horizon_h": config.horizon_h * config.scale,
        "elapsed_s": elapsed,
    }
    with out.building() as staging:
        write_atomic(staging / "results.csv", results_csv(outcome))
        write_atomic(staging / "summary.json", dumps(summary_document(outcome, settings)))
        draw_figure(outcome, str(staging / "figure.png"))
    click.echo(f"ran in {elapsed:.1f} s; wrote {out.given}")
