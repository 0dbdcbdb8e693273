"""``tapesched experiment bnl-coverage``: BNL's recall-ordering study on one mounted tape.

Reads 10, 50 and 100 % of the files of full LTO-7 and TS1150 tapes (10 GB
and 1 GB files), evenly or randomly spaced, under no order, ERADAT's offset
order with 3 requests in flight, RAO (SLTF) with 70 and with 3 in flight,
and the exact order (:mod:`tapesched.studies.recall_study`, where what the requests
in flight mean is set out), and writes the throughput and the gain over
offset order (:mod:`tapesched.studies.recall_report`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import click
from attrs import evolve
from rich.console import Console
from rich.table import Table

from tapesched.cli.common import TimeLimitType, progress_bar, reports_bad_input
from tapesched.cli.out_options import dir_out_option
from tapesched.toolkit.files.outputs import DirectoryOutput
from tapesched.toolkit.model import LOCATE_MODEL_NAMES

if TYPE_CHECKING:
    from tapesched.studies.recall_study import StudyPoint

NAME = "bnl-coverage"
"""The experiment's name under ``tapesched experiment``."""

OUT_FILES = ("results.csv", "summary.json", "figure.png")
"""What the experiment writes to ``--out``; an existing directory holding only these is replaced."""


def _cell(point: StudyPoint, metric: str, digits: int) -> str:
    e = point.estimates[metric]
    if e.mean is None:
        return "-"
    if e.half_width is None or e.half_width == 0.0:
        return f"{e.mean:.{digits}f}"
    return f"{e.mean:.{digits}f} ± {e.half_width:.{digits}f}"


def _print_table(points: Sequence[StudyPoint], policies: Sequence[str]) -> None:
    """A row per tape, spacing and coverage: each policy's MB/s, then its gain over offset."""
    table = Table(title=f"{NAME}: throughput (MB/s) and gain over offset order (%), mean ± 95 %")
    for heading in ("tape", "spacing", "coverage", "files"):
        table.add_column(heading, justify="right" if heading in ("coverage", "files") else "left")
    for policy in policies:
        table.add_column(f"{policy} MB/s", justify="right")
    for policy in policies:
        if policy != "offset":
            table.add_column(f"{policy} gain %", justify="right")
    rows: dict[tuple[str, str, float], dict[str, StudyPoint]] = {}
    for p in points:
        rows.setdefault((p.case, p.spacing, p.coverage_pct), {})[p.policy] = p
    for (case, spacing, coverage), by_policy in rows.items():
        files = next(iter(by_policy.values())).files
        table.add_row(
            case,
            spacing,
            f"{coverage:g} %",
            str(files),
            *(_cell(by_policy[q], "throughput_mb_s", 1) for q in policies),
            *(_cell(by_policy[q], "gain_over_offset_pct", 1) for q in policies if q != "offset"),
        )
    Console(width=200).print(table)


@click.command(name=f"experiment {NAME}")
@dir_out_option(OUT_FILES, "Directory to write (results.csv, summary.json, figure.png).")
@click.option(
    "--quick",
    is_flag=True,
    help="The 10 GB tapes only, 3 request lists a point, exact up to 300 files at 2 s: about a "
    "minute on 2 cores.",
)
@click.option(
    "--replications",
    type=click.IntRange(min=1, max=100),
    default=None,
    help="Request lists drawn per point (default 5, --quick 3).",
)
@click.option(
    "--time-limit",
    "time_limit_s",
    type=TimeLimitType(),
    default=None,
    help="The exact order's limit per list (default 10 s, --quick 2 s).",
)
@click.option(
    "--locate",
    type=click.Choice(LOCATE_MODEL_NAMES),
    default="cta-lto",
    show_default=True,
    help="Locate model: CTA's LTO cost heuristic, or the physical one of each format.",
)
@click.option("--seed", type=int, default=1, show_default=True, help="Seeds the request lists.")
@reports_bad_input
def bnl_coverage(
    out: DirectoryOutput | None,
    quick: bool,
    replications: int | None,
    time_limit_s: float | None,
    locate: str,
    seed: int,
) -> None:
    """Read 10, 50 and 100 % of a full tape's files under each recall order (BNL's study).

    Full LTO-7 and TS1150 (JD) tapes of 10 GB and 1 GB files; the files
    chosen evenly or randomly spaced; policies none (the list as given, 3
    in flight), offset (ERADAT: sorted, 3 in flight), sltf (RAO: sorted, 70
    in flight, shortest locate first among them), sltf-3 (RAO among
    ERADAT's 3) and exact (the whole list, optimal order). Writes to --out
    results.csv (experiment, series, x_name, x, metric, mean, half_width,
    replications, saturated), summary.json and figure.png.
    """
    from tapesched.cli.common import fail
    from tapesched.studies.recall_report import draw_figure, results_csv, summary_document
    from tapesched.studies.recall_study import FULL, QUICK, run_study
    from tapesched.toolkit.files.json_documents import dumps, write_atomic

    if out is None:
        fail(["--out: required, and missing"])
    config = QUICK if quick else FULL
    config = evolve(
        config,
        replications=replications or config.replications,
        exact_time_limit_s=time_limit_s or config.exact_time_limit_s,
        locate=locate,
        seed=seed,
    )
    names = [p.name for p in config.policies]
    click.echo(
        f"{NAME}: {', '.join(c.name for c in config.cases)}; {config.replications} lists a "
        f"point; exact up to {config.exact_max_files} files, {config.exact_time_limit_s:g} s; "
        f"locate model {locate}"
    )
    began = time.perf_counter()
    total = len(config.cases) * len(config.spacings) * len(config.coverages_pct)
    with progress_bar() as progress:
        task = progress.add_task(NAME, total=total, current="")

        def advance(what: str) -> None:
            progress.update(task, advance=1, current=what)

        points = run_study(config, advance)
    elapsed = time.perf_counter() - began
    _print_table(points, names)
    settings: dict[str, object] = {
        "quick": quick,
        "cases": [c.name for c in config.cases],
        "coverages_pct": list(config.coverages_pct),
        "spacings": list(config.spacings),
        "policies": [
            {
                "name": p.name,
                "orderer": p.orderer,
                "in_flight": p.in_flight,
                "sorted_submission": p.sorted_submission,
            }
            for p in config.policies
        ],
        "replications": config.replications,
        "exact_time_limit_s": config.exact_time_limit_s,
        "exact_max_files": config.exact_max_files,
        "locate": config.locate,
        "seed": config.seed,
        "elapsed_s": elapsed,
    }
    with out.building() as staging:
        write_atomic(staging / "results.csv", results_csv(points))
        write_atomic(staging / "summary.json", dumps(summary_document(points, settings)))
        draw_figure(points, staging / "figure.png")
    click.echo(f"ran in {elapsed:.1f} s; wrote {out.given}")
