"""What an experiment's sweep reports: ``results.csv``, ``summary.json`` and its figure.

``results.csv`` has one row per point, series and metric (:data:`COLUMNS`):
the metric's mean and 95 % half-width over the point's replications (empty
when there is none: a saturated point has no mean, a single replication no
interval), the replications run and whether the point is saturated. Numbers
are written by ``repr``, exactly, so that the same sweep gives the same
file byte for byte wherever it ran.

``summary.json`` (:func:`summary_document`) holds the settings, every
point's estimates per series and, when x is the arrival rate, each
series' maximum sustainable rate (:func:`max_sustainable_rate`).

The figure (:func:`draw_figure`) plots the primary metric (the paper's
average weighted response time) against x, one line per series with its
95 % intervals, the axes labelled with their units and logarithmic where
the paper's are; a saturated point, which has no mean, is marked by a cross
on the top edge, at its x.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from pathlib import Path

from simulator.studies import METRICS, Study
from simulator.sweep import PRIMARY_METRIC, PointResult, Precision

COLUMNS = (
    "experiment", "series", "x_name", "x", "metric",
    "mean", "half_width", "replications", "saturated",
)  # fmt: skip
"""The columns of ``results.csv``."""

Y_LABEL = "average weighted response time (s/GB)"
"""The figure's y axis: :data:`~simulator.sweep.PRIMARY_METRIC` and its unit."""


def _number(value: float | None) -> str:
    return "" if value is None else repr(float(value))


def by_series(results: Sequence[PointResult]) -> dict[str, list[PointResult]]:
    """The results grouped by series, in the order series and points first appear."""
    grouped: dict[str, list[PointResult]] = {}
    for result in results:
        grouped.setdefault(result.point.series, []).append(result)
    return grouped


def results_csv(study: Study, results: Sequence[PointResult]) -> str:
    """The text of ``results.csv``: a row per point, series and metric of :data:`METRICS`."""
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(COLUMNS)
    for result in results:
        estimates = result.estimates
        for metric in METRICS:
            e = estimates[metric]
            writer.writerow(
                (
                    study.name,
                    result.point.series,
                    study.axis.name,
                    _number(result.point.x),
                    metric,
                    _number(e.mean),
                    _number(e.half_width),
                    len(result.runs),
                    "true" if result.saturated else "false",
                )
            )
    return text.getvalue()


def max_sustainable_rate(results: Sequence[PointResult]) -> float | None:
    """The highest x (an arrival rate) of one series' points that is not saturated; ``None``
    when every point is."""
    kept = [r.point.x for r in results if not r.saturated]
    return max(kept) if kept else None


def lowest_saturated_rate(results: Sequence[PointResult]) -> float | None:
    """The lowest x of one series' points that is saturated; ``None`` when none is.

    Beside :func:`max_sustainable_rate`: a saturated point below the highest
    sustained one says that the two disagree (the replications are too few or
    too short to tell near the limit).
    """
    saturated = [r.point.x for r in results if r.saturated]
    return min(saturated) if saturated else None


def summary_document(
    study: Study,
    results: Sequence[PointResult],
    settings: Mapping[str, object],
    precision: Precision,
) -> dict[str, object]:
    """The ``summary.json`` document.

    Keys: ``experiment``, ``title``, ``figure``; ``settings`` (``settings``
    given, and the precision sought); ``series``, per series its
    ``points`` (``x``, ``replications``, ``saturated``, ``seeds`` and each
    metric of :data:`simulator.results.METRICS` as
    :meth:`simulator.results.Estimate.to_dict` gives it) and, when x is the
    arrival rate, ``max_sustainable_rate_per_h`` and
    ``lowest_saturated_rate_per_h``.
    """
    series: dict[str, object] = {}
    for name, group in by_series(results).items():
        entry: dict[str, object] = {
            "points": [
                {
                    "x": r.point.x,
                    "replications": len(r.runs),
                    "saturated": r.saturated,
                    "seeds": list(r.seeds),
                    "estimates": {k: e.to_dict() for k, e in r.estimates.items()},
                }
                for r in group
            ]
        }
        if study.axis.is_rate:
            entry["max_sustainable_rate_per_h"] = max_sustainable_rate(group)
            entry["lowest_saturated_rate_per_h"] = lowest_saturated_rate(group)
        series[name] = entry
    return {
        "experiment": study.name,
        "title": study.title,
        "figure": study.figure,
        "settings": {
            **settings,
            "x_name": study.axis.name,
            "x_label": study.axis.label,
            "series": list(study.series),
            "precision": {
                "metric": precision.metric,
                "half_width_share": precision.share,
                "min_replications": precision.min_replications,
                "max_replications": precision.max_replications,
            },
        },
        "series": series,
    }


def draw_figure(study: Study, results: Sequence[PointResult], path: Path) -> None:
    """Draw the primary metric against x, one line per series, as a PNG at ``path``."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7.5, 4.8), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    any_mean = False
    any_saturated = False
    for name, group in by_series(results).items():
        measured = [
            (r.point.x, e.mean, e.half_width or 0.0)
            for r in group
            if (e := r.estimates[PRIMARY_METRIC]).mean is not None
        ]
        line = axes.errorbar(
            [m[0] for m in measured],
            [m[1] for m in measured],
            yerr=[m[2] for m in measured],
            marker="o",
            markersize=4,
            capsize=3,
            label=name,
        )
        any_mean = any_mean or bool(measured)
        saturated = [r.point.x for r in group if r.saturated]
        if saturated:
            any_saturated = True
            axes.scatter(
                saturated,
                [1.0] * len(saturated),
                marker="x",
                s=60,
                color=line.lines[0].get_color(),
                transform=axes.get_xaxis_transform(),
                clip_on=False,
                zorder=3,
            )
    if any_saturated:
        axes.scatter([], [], marker="x", color="black", label="saturated (no mean)")
    if study.axis.log:
        axes.set_xscale("log")
    if study.log_y and any_mean:
        axes.set_yscale("log")
    axes.set_xlabel(study.axis.label)
    axes.set_ylabel(Y_LABEL)
    axes.set_title(f"{study.name} ({study.figure}): {study.title}", fontsize=9)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8)
    figure.savefig(path, format="png", dpi=110)
