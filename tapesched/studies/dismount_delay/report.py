"""``tapesched experiment ecmwf-defer-dismount``: the ECMWF sample against the dismount delay.

Replays the shipped ECMWF sample on its SL8500 complex under ``lru``,
``fifo`` and ``belady`` eviction with a dismount delay ``T`` (and kept
mounted), a point per rule and delay (:class:`EcmwfDeferDismount`,
:mod:`tapesched.studies.dismount_delay.study`), and writes:

- ``results.csv``: the columns of every experiment's
  (:data:`tapesched.studies.sweeps.report.COLUMNS`); a row per eviction rule
  (series), delay (``x``, ``defer_s``; ``inf`` for kept mounted) and
  metric of :data:`tapesched.studies.dismount_delay.study.METRICS`. A replay is one
  deterministic run: ``replications`` 1, ``half_width`` empty; ``mean`` is
  empty for the latencies of a replay that could not keep up
  (``saturated`` true).
- ``summary.json`` (:func:`summary_document`): the settings and every
  point's replay summary (:meth:`simulator.replay.replay.ReplayResult.summary`).
- ``figure.png`` (:func:`draw_figure`): mounts, the mean latency of the
  requests that needed a mount and the mean latency over all requests,
  against the delay, a colour and marker per
  eviction rule; kept mounted (no delay at all) is the dashed line of the
  rule's colour.

Numbers are written by ``repr``, exactly, as in every experiment's files.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from attrs import evolve, frozen
from rich.table import Table

from tapesched.simulator.results.records import Estimate
from tapesched.studies.dismount_delay import study
from tapesched.studies.dismount_delay.study import (
    EXPERIMENT,
    FULL,
    METRICS,
    X_NAME,
    DeferConfig,
    DeferPoint,
    Sample,
    load_sample,
    replay_point,
)
from tapesched.studies.experiment import (
    Experiment,
    ExperimentError,
    ExperimentRun,
    Parameter,
    Results,
    Wide,
)
from tapesched.studies.results_file import ResultRow
from tapesched.toolkit.plots.figures import new_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

TITLE = "mounts and mount latency of the ECMWF sample against the dismount delay"
"""The experiment's one-line title."""

LABELS = {
    "mounts": "mounts",
    "mean_mount_latency_s": "mean mount latency (s)",
    "mean_latency_s": "mean latency, all requests (s)",
    "cross_level_mounts": "cross-level mounts",
}
"""The axis label of each metric."""

DRAWN = ("mounts", "mean_mount_latency_s", "mean_latency_s")
"""The metrics the figure draws, a panel each."""


def result_rows(points: Sequence[DeferPoint]) -> list[ResultRow]:
    """The rows of ``results.csv``: a row per point and metric (a replay is one run)."""
    return [
        ResultRow(
            EXPERIMENT,
            p.series,
            X_NAME,
            p.defer_s,
            metric,
            Estimate(p.value(metric), None, 1, p.result.saturated),
        )
        for p in points
        for metric in METRICS
    ]


def summary_document(
    points: Sequence[DeferPoint], settings: Mapping[str, object]
) -> dict[str, object]:
    """The ``summary.json`` document: ``experiment``, ``title``, ``settings``, ``series``.

    ``series`` maps each eviction rule to its ``points``: ``x`` (the delay,
    ``null`` for kept mounted: JSON has no infinity), ``mount_policy`` and
    the replay's ``summary``.
    """
    series: dict[str, list[dict[str, object]]] = {}
    for p in points:
        series.setdefault(p.series, []).append(
            {
                "x": None if math.isinf(p.defer_s) else p.defer_s,
                "mount_policy": p.result.mount_policy,
                "summary": p.result.summary(),
            }
        )
    return {
        "experiment": EXPERIMENT,
        "title": TITLE,
        "settings": {**settings, "x_name": X_NAME, "metrics": list(METRICS)},
        "series": series,
    }


def draw_figure(rows: Sequence[ResultRow]) -> Figure:
    """A panel per drawn metric against the delay (see the module), from the rows of
    ``results.csv`` (``tapesched plot results`` draws it again from the file)."""
    figure = new_figure(4.2 * len(DRAWN), 3.8)
    grid = figure.subplots(1, len(DRAWN), squeeze=False)[0]
    series = list(dict.fromkeys(r.series for r in rows))
    for axes, metric in zip(grid, DRAWN, strict=True):
        for k, name in enumerate(series):
            colour, marker = f"C{k}", "osD^v"[k % 5]
            mine = [r for r in rows if r.series == name and r.metric == metric]
            finite = [r for r in mine if math.isfinite(r.x)]
            values = [r.estimate.mean for r in finite]
            axes.plot(
                [r.x for r in finite],
                [math.nan if v is None else v for v in values],
                marker=marker,
                markersize=4,
                color=colour,
                label=f"{name}+defer:T",
            )
            for kept in (r for r in mine if math.isinf(r.x)):
                value = kept.estimate.mean
                if value is not None:
                    axes.axhline(
                        value, color=colour, linestyle="--", linewidth=1, label=f"{name}, kept"
                    )
        axes.set_xlim(left=-30)
        axes.set_xlabel("dismount delay T (s)")
        axes.set_ylabel(LABELS[metric])
        axes.grid(True, alpha=0.3)
    grid[0].legend(fontsize=7)
    figure.suptitle(f"{EXPERIMENT}: {TITLE}", fontsize=9)
    return figure


def _delay(defer_s: float) -> str:
    return "kept" if math.isinf(defer_s) else f"{defer_s:g}"


def _table(points: Sequence[DeferPoint]) -> Wide:
    """A row per delay: each eviction rule's mounts and mean mount latency."""
    series = list(dict.fromkeys(p.series for p in points))
    table = Table(title=f"{EXPERIMENT}: mounts and mean mount latency (s) against the delay T")
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
    return Wide(table, 160)


@frozen
class Replay:
    """A point of the experiment: an eviction rule and a delay, on the sample replayed."""

    eviction: str
    defer_s: float
    sample: Sample


class EcmwfDeferDismount(Experiment):
    """The experiment ``ecmwf-defer-dismount`` (see the module): a point per rule and delay."""

    name = EXPERIMENT
    redraws_from_rows = True
    description = (
        "the ECMWF sample's mounts and mount latency against the dismount delay, under lru, "
        "fifo and belady"
    )
    parameters = (
        Parameter(
            "drives",
            "integer",
            "Drives of the complex, spread over its levels with drives.",
            quick=FULL.drives,
            full=FULL.drives,
            low=1,
            show_default=True,
        ),
    )
    quick_help = "The first 5,000 requests, delays 0, 300 and 1800 s and kept: well under a minute."
    help = """Mounts and mount latency of the ECMWF sample against the dismount delay T.

    The shipped sample (instances/traces/ecmwf/) replayed on its SL8500
    complex with its cartridge map, one handbot a rail, tape-batching, for
    T in 0, 60, 120, 300, 600, 900, 1800 s and kept mounted, under lru,
    fifo and belady eviction (belady reads the trace's future: a
    yardstick). Writes to --out results.csv (experiment, series, x_name,
    x, metric, mean, half_width, replications, saturated), summary.json and
    figure.png.
    """

    def details(self) -> list[str]:
        """How to run it."""
        return [f"tapesched experiment {EXPERIMENT} --out DIR [--quick] (see --help)"]

    def config(self, run: ExperimentRun) -> DeferConfig:
        """The study's settings: ``--quick``'s or the full ones, on ``--drives`` drives."""
        return evolve(study.QUICK if run.quick else study.FULL, drives=run["drives"])

    def points(self, run: ExperimentRun) -> list[Replay]:
        """Each eviction rule and delay, on the sample (its drives checked first)."""
        requests, layout, homes = load_sample()
        drives = run["drives"]
        if drives > layout.drives:
            why = f"the sample's layout has {layout.drives} drives, asked for {drives}"
            raise ExperimentError([f"--drives: {why}"])
        config = self.config(run)
        if config.requests is not None:
            requests = requests[: config.requests]
        run.show.line(
            f"{EXPERIMENT}: {len(requests):,d} requests on {drives} drives; T in "
            f"{', '.join(_delay(t) for t in config.defer_s)}; {', '.join(config.evictions)}"
        )
        sample = (requests, layout, homes)
        return [Replay(e, t, sample) for e in config.evictions for t in config.defer_s]

    def run_point(self, point: Replay, run: ExperimentRun) -> DeferPoint:
        """One replay of the sample."""
        return replay_point(self.config(run), point.eviction, point.defer_s, point.sample)

    def results(
        self, run: ExperimentRun, outcomes: Sequence[DeferPoint], elapsed_s: float
    ) -> Results:
        """The rows, the summary with its settings, the table."""
        config = self.config(run)
        settings: dict[str, object] = {
            "quick": run.quick,
            "drives": config.drives,
            "requests": outcomes[0].result.requests,
            "defer_s": [None if math.isinf(t) else t for t in config.defer_s],
            "evictions": list(config.evictions),
            "scheduler": "tape-batching",
            "elapsed_s": elapsed_s,
        }
        return Results(
            EXPERIMENT,
            tuple(result_rows(outcomes)),
            summary_document(outcomes, settings),
            tuple(outcomes),
            report=(_table(outcomes),),
            ending=lambda out: f"ran in {elapsed_s:.1f} s; wrote {out}",
        )

    def figure(self, results: Results) -> Figure:
        """Mounts and latencies against the delay, a panel per metric, from the rows alone."""
        return draw_figure(results.rows)
