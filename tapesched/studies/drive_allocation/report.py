"""``tapesched experiment cnaf-bulk-recall``: CNAF's CMS bulk recall under three allocations.

A bulk recall of about 95,000 files and 315 TB on 16 T10000D drives shared
with the other experiments' recalls and migrations, under static caps,
under CNAF's Orchestrator and under the offline optimum of the allocation
(:mod:`tapesched.studies.drive_allocation.study`, where the scenario and its background
load are set out), against Table 1 of Cavalli et al. The experiment
(:class:`CnafBulkRecall`) runs a point per seed (every series on the same
batches), and writes:

- ``results.csv`` (:func:`result_rows`): a row per series and metric (x is
  the recall's scale); then what the figure draws, of the first seed: each
  series' throughput and drives per hour (:data:`HOURLY`, x the hour) and
  its run's duration, drives and throughput (:data:`RUN_METRICS`, x the
  seed), a replication each;
- ``summary.json`` (:func:`summary_document`): the settings, the paper's
  Table 1, each series' estimates and every run;
- ``figure.png`` (:func:`draw_figure`): the recall's throughput and drives
  per hour, first seed, a line per series, drawn from the rows alone
  (``tapesched plot results`` draws it again from ``results.csv``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from attrs import evolve
from rich.table import Table

from tapesched.simulator.results.records import Estimate
from tapesched.studies.drive_allocation.study import (
    EXPERIMENT,
    FULL,
    METRICS,
    PAPER,
    QUICK,
    SERIES,
    TITLE,
    CnafConfig,
    SeriesRun,
    StudyOutcome,
    outcome_of,
    run_seed,
)
from tapesched.studies.experiment import Experiment, ExperimentRun, Parameter, Results, Wide
from tapesched.studies.results_file import ResultRow
from tapesched.toolkit.plots.figures import new_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

HEADINGS = {
    "duration_h": "duration (h)",
    "avg_drives": "avg drives",
    "throughput_mb_s": "throughput (MB/s)",
    "backlog_drive_h": "mean backlog (drive-h)",
    "background_wait_h": "others' wait (h)",
    "tapes_reclaimed": "tapes reclaimed",
}
"""The table's heading of each metric."""


HOURLY = ("hourly_mb_s", "hourly_drives")
"""The first seed's hourly series in ``results.csv``: the recall's MB/s and drives in use,
each hour's mean, over x ``hour`` (0, 1, ... since the recall was requested)."""

RUN_METRICS = ("duration_h", "avg_drives", "throughput_mb_s")
"""The first seed's own metrics in ``results.csv`` (its legend), as ``run_<metric>`` over x
``seed``."""


def _first_seed_rows(run: SeriesRun) -> list[ResultRow]:
    """A run's hourly series and metrics, each a replication with no interval."""

    def row(x_name: str, x: float, metric: str, value: float) -> ResultRow:
        return ResultRow(EXPERIMENT, run.series, x_name, x, metric, Estimate(value, None, 1))

    hourly = dict(zip(HOURLY, (run.hourly_mb_s, run.hourly_drives), strict=True))
    return [
        *(row("hour", float(h), m, v) for m in HOURLY for h, v in enumerate(hourly[m])),
        *(row("seed", float(run.seed), f"run_{m}", run.metrics[m]) for m in RUN_METRICS),
    ]


def result_rows(outcome: StudyOutcome) -> list[ResultRow]:
    """The rows of ``results.csv``: a row per series and metric, x the recall's scale; then,
    for the figure, the first seed's hourly series (:data:`HOURLY`) and its run's metrics
    (:data:`RUN_METRICS`) per series."""
    rows = [
        ResultRow(EXPERIMENT, series, "scale", outcome.config.scale, metric, metrics[metric])
        for series, metrics in outcome.estimates.items()
        for metric in METRICS
    ]
    for run in outcome.runs:
        if run.seed == outcome.config.seed:
            rows += _first_seed_rows(run)
    return rows


def summary_document(outcome: StudyOutcome, settings: Mapping[str, object]) -> dict[str, object]:
    """``summary.json``: settings, each series' estimates, the paper's table, every run.

    A metric a series has not (the offline optimum's wait and reclamation) is ``null``.
    """
    return {
        "experiment": EXPERIMENT,
        "title": TITLE,
        "settings": dict(settings),
        "paper_table_1": PAPER,
        "series": {
            s: {m: e.to_dict() for m, e in metrics.items()}
            for s, metrics in outcome.estimates.items()
        },
        "runs": [
            {
                "series": r.series,
                "seed": r.seed,
                **{m: None if math.isnan(v) else v for m, v in r.metrics.items()},
            }
            for r in outcome.runs
        ],
    }


def _mean(row: ResultRow) -> float:
    return math.nan if row.estimate.mean is None else row.estimate.mean


def draw_figure(rows: Sequence[ResultRow]) -> Figure:
    """The bulk recall's throughput and drives per hour, first seed, a line per series, from
    the rows of ``results.csv`` (:func:`result_rows`)."""
    figure = new_figure(9.0, 6.0)
    top, bottom = figure.subplots(2, 1, sharex=True)
    scale = next((r.x for r in rows if r.x_name == "scale"), math.nan)
    seeds = [r.x for r in rows if r.x_name == "seed"]
    seed = min(seeds, default=math.nan)
    first = [r for r in rows if r.x_name == "seed" and r.x == seed]
    run = {(r.series, r.metric.removeprefix("run_")): _mean(r) for r in first}
    for k, series in enumerate(SERIES):
        if series not in {s for s, _ in run}:
            continue
        of = {m: run.get((series, m), math.nan) for m in RUN_METRICS}
        label = f"{series} ({of['throughput_mb_s']:.0f} MB/s, "
        label += f"{of['avg_drives']:.1f} drives, {of['duration_h']:.0f} h)"
        hourly = {m: [r for r in rows if r.series == series and r.metric == m] for m in HOURLY}
        mb_s, drives = hourly["hourly_mb_s"], hourly["hourly_drives"]
        top.step([r.x for r in mb_s], [_mean(r) for r in mb_s], where="post", color=f"C{k}",
                 label=label)  # fmt: skip
        bottom.step([r.x for r in drives], [_mean(r) for r in drives], where="post",
                    color=f"C{k}")  # fmt: skip
    for series, colour in (("static", "C0"), ("orchestrator", "C1")):
        top.axhline(PAPER[series]["throughput_mb_s"], color=colour, linestyle=":", linewidth=1)
        bottom.axhline(PAPER[series]["avg_drives"], color=colour, linestyle=":", linewidth=1)
    top.set_ylabel("CMS recall MB/s (hourly mean)")
    bottom.set_ylabel("CMS drives (hourly mean)")
    bottom.set_xlabel("hours since the bulk recall was requested")
    title = f"seed {seed:g} (dotted: the paper's averages)"
    top.legend(fontsize=7, title=title, title_fontsize=7)
    durations = [v for (_, m), v in run.items() if m == "duration_h"]
    longest = max(durations, default=1.0)
    for axes in (top, bottom):
        axes.grid(True, alpha=0.3)
        axes.set_xlim(0.0, longest * 1.05 + 1.0)
    figure.suptitle(f"{EXPERIMENT} (scale {scale:g}): {TITLE}", fontsize=8)
    return figure


def _table(outcome: StudyOutcome) -> Wide:
    """Each series' mean ± 95 % half-width per metric, then the paper's Table 1."""
    config = outcome.config
    table = Table(title=f"{EXPERIMENT}: mean ± 95 % half-width over {config.seeds} seed(s)")
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
    return Wide(table, 160)


class CnafBulkRecall(Experiment):
    """The experiment ``cnaf-bulk-recall`` (see the module): a point per seed."""

    name = EXPERIMENT
    redraws_from_rows = True
    description = (
        "a CMS bulk recall on 16 shared T10000D drives under static caps, CNAF's Orchestrator "
        "and the offline optimum (Cavalli et al., Table 1)"
    )
    parameters = (
        Parameter(
            "scale",
            "number",
            f"Share of the recall and of the horizon (default {FULL.scale:g}, "
            f"--quick {QUICK.scale:g}).",
            quick=QUICK.scale,
            full=FULL.scale,
            low=0.001,
            high=1.0,
        ),
        Parameter(
            "seeds",
            "integer",
            "Seeds (batches and background drawn anew) per series (default "
            f"{FULL.seeds}, --quick {QUICK.seeds}).",
            quick=QUICK.seeds,
            full=FULL.seeds,
            low=1,
            high=100,
        ),
        Parameter("seed", "integer", "The first seed.", quick=1, full=1, show_default=True),
    )
    quick_help = (
        "A tenth of the recall and of the horizon, 3 seeds, the linear program on a "
        "15-minute grid: under a minute of CPU."
    )
    help = """A CMS-like bulk recall on shared drives: static caps, Orchestrator, offline optimum.

    Writes to --out results.csv (experiment, series, x_name, x, metric,
    mean, half_width, replications, saturated: x is the recall's scale),
    summary.json (the settings, the paper's Table 1, each series' estimates
    and every run) and figure.png (the recall's throughput and drives per
    hour, first seed).
    """

    def details(self) -> list[str]:
        """How to run it."""
        return [f"tapesched experiment {EXPERIMENT} --out DIR [--quick] (see --help)"]

    def config(self, run: ExperimentRun) -> CnafConfig:
        """The study's settings: ``--quick``'s or the full ones, with the options given."""
        base = QUICK if run.quick else FULL
        return evolve(base, seeds=run["seeds"], seed=run["seed"], scale=run["scale"])

    def points(self, run: ExperimentRun) -> list[int]:
        """The seeds, from ``--seed`` on."""
        config = self.config(run)
        run.show.line(
            f"{EXPERIMENT}: {round(config.files * config.scale)} files, "
            f"{config.data_tb * config.scale:g} TB on {config.drives} T10000D drives; "
            f"{config.seeds} seed(s); linear program every {config.lp_period_s:g} s"
        )
        return [config.seed + k for k in range(config.seeds)]

    def run_point(self, seed: int, run: ExperimentRun) -> list[SeriesRun]:
        """Every series on one seed's batches."""
        return run_seed(self.config(run), seed)

    def results(
        self, run: ExperimentRun, outcomes: Sequence[list[SeriesRun]], elapsed_s: float
    ) -> Results:
        """The rows, the summary with its settings, the table."""
        config = self.config(run)
        outcome = outcome_of(config, [r for runs in outcomes for r in runs])
        settings = {
            "quick": run.quick,
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
            "elapsed_s": elapsed_s,
        }
        return Results(
            EXPERIMENT,
            tuple(result_rows(outcome)),
            summary_document(outcome, settings),
            (outcome,),
            report=(_table(outcome),),
            ending=lambda out: f"ran in {elapsed_s:.1f} s; wrote {out}",
        )

    def figure(self, results: Results) -> Figure:
        """The recall's throughput and drives per hour, first seed, from the rows alone."""
        return draw_figure(results.rows)
