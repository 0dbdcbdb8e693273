"""``tapesched experiment bnl-coverage``: BNL's recall-ordering study on one mounted tape.

Reads 10, 50 and 100 % of the files of full LTO-7 and TS1150 tapes (10 GB
and 1 GB files), evenly or randomly spaced, under no order, ERADAT's offset
order with 3 requests in flight, RAO (SLTF) with 70 and with 3 in flight,
and the exact order (:mod:`tapesched.studies.recall.study`, where what the
requests in flight mean is set out). The experiment (:class:`BnlCoverage`)
runs a point per tape and spacing, and writes:

- ``results.csv``: the columns of every experiment's
  (:data:`tapesched.studies.sweeps.report.COLUMNS`); a row per series (``<tape>
  <spacing> <ordering>``, :class:`tapesched.studies.recall.study.StudyPoint`),
  coverage and metric (``throughput_mb_s``, ``gain_over_offset_pct``).
  ``x_name`` is ``coverage_pct``; ``saturated`` is always false (a mounted
  tape has no queue to grow); ``mean`` is empty where the ordering was not
  run (the exact order of a list too long for it).
- ``summary.json`` (:func:`summary_document`): the settings, every point's
  estimates (:meth:`simulator.results.records.Estimate.to_dict`) and files read.
- ``figure.png`` (:func:`draw_figure`): throughput (top row) and gain over
  offset order (bottom row) against coverage, a column per tape, a colour
  per ordering, even spacing solid and random dashed, with 95 % intervals; a
  point not run leaves a gap in its line.

Numbers are written by ``repr``, exactly, as in every experiment's files.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from attrs import evolve
from rich.table import Table

from tapesched.studies.experiment import Experiment, ExperimentRun, Parameter, Results, Wide
from tapesched.studies.recall import study
from tapesched.studies.recall.study import (
    EXPERIMENT,
    METRICS,
    X_NAME,
    StudyConfig,
    StudyPoint,
    run_case,
)
from tapesched.studies.results_file import ResultRow
from tapesched.toolkit.model import LOCATE_MODEL_NAMES
from tapesched.toolkit.plots.figures import new_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

TITLE = "throughput of a mounted tape read at 10, 50 and 100 % coverage, per recall order"
"""The experiment's one-line title."""


def result_rows(points: Sequence[StudyPoint]) -> list[ResultRow]:
    """The rows of ``results.csv``: a row per point and metric."""
    return [
        ResultRow(EXPERIMENT, p.series, X_NAME, p.coverage_pct, metric, p.estimates[metric])
        for p in points
        for metric in METRICS
    ]


def summary_document(
    points: Sequence[StudyPoint], settings: Mapping[str, object]
) -> dict[str, object]:
    """The ``summary.json`` document: ``experiment``, ``title``, ``settings``, ``series``.

    ``series`` maps each series to its ``case``, ``spacing``, ``policy``
    and ``points`` (``x``, ``files`` read, and each metric's estimate).
    """
    series: dict[str, dict[str, object]] = {}
    for p in points:
        entry = series.setdefault(
            p.series, {"case": p.case, "spacing": p.spacing, "policy": p.ordering, "points": []}
        )
        points_of = entry["points"]
        assert isinstance(points_of, list)
        points_of.append(
            {
                "x": p.coverage_pct,
                "files": p.files,
                "estimates": {m: e.to_dict() for m, e in p.estimates.items()},
            }
        )
    return {
        "experiment": EXPERIMENT,
        "title": TITLE,
        "settings": {**settings, "x_name": X_NAME, "metrics": list(METRICS)},
        "series": series,
    }


def _value(mean: float | None) -> float:
    return math.nan if mean is None else mean


def series_parts(series: str) -> tuple[str, str, str]:
    """A series' tape, spacing and ordering (``LTO-7 10GB random sltf``: the tape's name
    has spaces, the two others none)."""
    parts = series.rsplit(" ", 2)
    case, spacing, ordering = ["", "", *parts][-3:]
    return case, spacing, ordering


def draw_figure(rows: Sequence[ResultRow]) -> Figure:
    """Throughput and gain against coverage, a column per tape (see the module), from the
    rows of ``results.csv`` (``tapesched plot results`` draws it again from the file)."""
    parts = {r.series: series_parts(r.series) for r in rows}
    cases = list(dict.fromkeys(p[0] for p in parts.values()))
    orderings = list(dict.fromkeys(p[2] for p in parts.values()))
    figure = new_figure(4.0 * max(len(cases), 1), 7.0)
    grid = figure.subplots(2, max(len(cases), 1), squeeze=False)
    colours = {name: f"C{k}" for k, name in enumerate(orderings)}
    labels = {
        "throughput_mb_s": "throughput (MB/s)",
        "gain_over_offset_pct": "gain over offset (%)",
    }
    for column, case in enumerate(cases):
        for row, metric in enumerate(METRICS):
            axes = grid[row][column]
            for spacing, style in (("even", "-"), ("random", "--")):
                for ordering in orderings:
                    kept = [
                        r
                        for r in rows
                        if r.metric == metric and parts[r.series] == (case, spacing, ordering)
                    ]
                    if all(r.estimate.mean is None for r in kept):
                        continue
                    # A point not run (NaN) breaks the line rather than join its neighbours.
                    axes.errorbar(
                        [r.x for r in kept],
                        [_value(r.estimate.mean) for r in kept],
                        yerr=[r.estimate.half_width or 0.0 for r in kept],
                        linestyle=style,
                        marker="o",
                        markersize=3,
                        capsize=2,
                        color=colours[ordering],
                        label=f"{ordering}, {spacing}",
                    )
            axes.set_xlabel("coverage (% of the tape's files)")
            axes.set_ylabel(labels[metric])
            axes.grid(True, alpha=0.3)
            if row == 0:
                axes.set_title(case)
            if metric == "gain_over_offset_pct":
                axes.axhline(0.0, color="black", linewidth=0.8)
    grid[0][0].legend(fontsize=6, ncol=2)
    figure.suptitle(f"{EXPERIMENT}: {TITLE}", fontsize=9)
    return figure


def parameters(quick: StudyConfig, full: StudyConfig) -> tuple[Parameter, ...]:
    """The experiment's options, their values those of the ``--quick`` and the full study."""
    return (
        Parameter(
            "replications",
            "integer",
            f"Request lists drawn per point (default {full.replications}, "
            f"--quick {quick.replications}).",
            quick=quick.replications,
            full=full.replications,
            low=1,
            high=100,
        ),
        Parameter(
            "time_limit",
            "time-limit",
            f"The exact order's limit per list (default {full.exact_time_limit_s:g} s, "
            f"--quick {quick.exact_time_limit_s:g} s).",
            quick=quick.exact_time_limit_s,
            full=full.exact_time_limit_s,
        ),
        Parameter(
            "locate",
            "choice",
            "Locate model: CTA's LTO cost heuristic, or the physical one of each format.",
            quick="cta-lto",
            full="cta-lto",
            choices=LOCATE_MODEL_NAMES,
            show_default=True,
        ),
        Parameter(
            "seed", "integer", "Seeds the request lists.", quick=1, full=1, show_default=True
        ),
    )


def _cell(point: StudyPoint, metric: str, digits: int) -> str:
    e = point.estimates[metric]
    if e.mean is None:
        return "-"
    if e.half_width is None or e.half_width == 0.0:
        return f"{e.mean:.{digits}f}"
    return f"{e.mean:.{digits}f} ± {e.half_width:.{digits}f}"


def _table(points: Sequence[StudyPoint], orderings: Sequence[str]) -> Wide:
    """A row per tape, spacing and coverage: each ordering's MB/s, then its gain over offset."""
    table = Table(
        title=f"{EXPERIMENT}: throughput (MB/s) and gain over offset order (%), mean ± 95 %"
    )
    for heading in ("tape", "spacing", "coverage", "files"):
        table.add_column(heading, justify="right" if heading in ("coverage", "files") else "left")
    for ordering in orderings:
        table.add_column(f"{ordering} MB/s", justify="right")
    for ordering in orderings:
        if ordering != "offset":
            table.add_column(f"{ordering} gain %", justify="right")
    rows: dict[tuple[str, str, float], dict[str, StudyPoint]] = {}
    for p in points:
        rows.setdefault((p.case, p.spacing, p.coverage_pct), {})[p.ordering] = p
    for (case, spacing, coverage), by_ordering in rows.items():
        files = next(iter(by_ordering.values())).files
        table.add_row(
            case,
            spacing,
            f"{coverage:g} %",
            str(files),
            *(_cell(by_ordering[q], "throughput_mb_s", 1) for q in orderings),
            *(_cell(by_ordering[q], "gain_over_offset_pct", 1) for q in orderings if q != "offset"),
        )
    return Wide(table, 200)


class BnlCoverage(Experiment):
    """The experiment ``bnl-coverage`` (see the module): a point per tape and spacing."""

    name = EXPERIMENT
    redraws_from_rows = True
    description = "10, 50 and 100 % of a full tape read under each recall order (BNL's study)"
    quick_help = (
        "The 10 GB tapes only, 3 request lists a point, exact up to 300 files at 2 s: about a "
        "minute on 2 cores."
    )
    help = """Read 10, 50 and 100 % of a full tape's files under each recall order (BNL's study).

    Full LTO-7 and TS1150 (JD) tapes of 10 GB and 1 GB files; the files
    chosen evenly or randomly spaced; policies none (the list as given, 3
    in flight), offset (ERADAT: sorted, 3 in flight), sltf (RAO: sorted, 70
    in flight, shortest locate first among them), sltf-3 (RAO among
    ERADAT's 3) and exact (the whole list, optimal order). Writes to --out
    results.csv (experiment, series, x_name, x, metric, mean, half_width,
    replications, saturated), summary.json and figure.png.
    """

    @property
    def parameters(self) -> tuple[Parameter, ...]:
        """Its options, from the study's ``--quick`` and full settings
        (:data:`tapesched.studies.recall.study.QUICK`, ``FULL``)."""
        return parameters(study.QUICK, study.FULL)

    def details(self) -> list[str]:
        """How to run it."""
        return [f"tapesched experiment {EXPERIMENT} --out DIR [--quick] (see --help)"]

    def config(self, run: ExperimentRun) -> StudyConfig:
        """The study's settings: ``--quick``'s or the full ones, with the options given."""
        return evolve(
            study.QUICK if run.quick else study.FULL,
            replications=run["replications"],
            exact_time_limit_s=run["time_limit"],
            locate=run["locate"],
            seed=run["seed"],
        )

    def points(self, run: ExperimentRun) -> list[tuple[int, str]]:
        """Each tape (its index among the cases) and spacing."""
        config = self.config(run)
        run.show.line(
            f"{EXPERIMENT}: {', '.join(c.name for c in config.cases)}; {config.replications} "
            f"lists a point; exact up to {config.exact_max_files} files, "
            f"{config.exact_time_limit_s:g} s; locate model {config.locate}"
        )
        return [(c, spacing) for c in range(len(config.cases)) for spacing in config.spacings]

    def run_point(self, point: tuple[int, str], run: ExperimentRun) -> list[StudyPoint]:
        """One tape at one spacing: every ordering at every coverage."""
        return run_case(self.config(run), *point)

    def results(
        self, run: ExperimentRun, outcomes: Sequence[list[StudyPoint]], elapsed_s: float
    ) -> Results:
        """The rows, the summary with its settings, the table."""
        config = self.config(run)
        points = [p for outcome in outcomes for p in outcome]
        settings: dict[str, object] = {
            "quick": run.quick,
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
                for p in config.orderings
            ],
            "replications": config.replications,
            "exact_time_limit_s": config.exact_time_limit_s,
            "exact_max_files": config.exact_max_files,
            "locate": config.locate,
            "seed": config.seed,
            "elapsed_s": elapsed_s,
        }
        return Results(
            EXPERIMENT,
            tuple(result_rows(points)),
            summary_document(points, settings),
            tuple(points),
            report=(_table(points, [p.name for p in config.orderings]),),
            ending=lambda out: f"ran in {elapsed_s:.1f} s; wrote {out}",
        )

    def figure(self, results: Results) -> Figure:
        """Throughput and gain against coverage, a column per tape, from the rows alone."""
        return draw_figure(results.rows)
