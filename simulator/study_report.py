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
from typing import Any

from simulator.studies import Study
from simulator.sweep import PointResult, Precision

COLUMNS = (
    "experiment", "series", "x_name", "x", "metric",
    "mean", "half_width", "replications", "saturated",
)  # fmt: skip
"""The columns of ``results.csv``."""

Y_LABEL = "average weighted response time (s/GB)"
"""The Blue Waters figures' y axis: :data:`~simulator.sweep.PRIMARY_METRIC` and its unit."""


def _number(value: float | None) -> str:
    return "" if value is None else repr(float(value))


def by_series(results: Sequence[PointResult]) -> dict[str, list[PointResult]]:
    """The results grouped by series, in the order series and points first appear."""
    grouped: dict[str, list[PointResult]] = {}
    for result in results:
        grouped.setdefault(result.point.series, []).append(result)
    return grouped


def results_csv(study: Study, results: Sequence[PointResult]) -> str:
    """The text of ``results.csv``: a row per point, series and metric of ``study.metrics``."""
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(COLUMNS)
    for result in results:
        estimates = result.estimates
        for metric in study.metrics:
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
    ``lowest_saturated_rate_per_h`` (``..._rate_per_min`` where x is per
    minute); for a map (``gol-fig14``), ``best``: the best series at each
    size factor and x (:func:`best_map`).
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
            entry[f"max_sustainable_{study.axis.name}"] = max_sustainable_rate(group)
            entry[f"lowest_saturated_{study.axis.name}"] = lowest_saturated_rate(group)
        series[name] = entry
    extra: dict[str, object] = {}
    if study.kind == "map":
        extra["best"] = [
            {"scale": scale, "x": x, "vector": vector}
            for (scale, x), vector in sorted(best_map(results).items())
        ]
    return {
        **extra,
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


def best_by_x(results: Sequence[PointResult], metric: str) -> dict[float, str]:
    """At each x, the series with the lowest mean of ``metric`` among those not saturated
    (an x where every series is saturated has none)."""
    best: dict[float, tuple[float, str]] = {}
    for r in results:
        mean = r.estimates[metric].mean
        if r.saturated or mean is None:
            continue
        x = r.point.x
        if x not in best or mean < best[x][0]:
            best[x] = (mean, r.point.series)
    return {x: name for x, (_, name) in sorted(best.items())}


def split_series(name: str) -> tuple[str, float]:
    """A map's series name (``"122 x2"``) as its vector and size factor (``1`` without one)."""
    vector, _, factor = name.partition(" x")
    return vector, float(factor) if factor else 1.0


def best_map(
    results: Sequence[PointResult], metric: str = "mean_response_s"
) -> dict[tuple[float, float], str]:
    """For each (size factor, x) of a map, the best vector (:func:`best_by_x` per factor)."""
    by_scale: dict[float, list[PointResult]] = {}
    for r in results:
        by_scale.setdefault(split_series(r.point.series)[1], []).append(r)
    out: dict[tuple[float, float], str] = {}
    for scale, group in by_scale.items():
        for x, name in best_by_x(group, metric).items():
            out[(scale, x)] = split_series(name)[0]
    return out


def _lines(study: Study, results: Sequence[PointResult], axes: Any, metric: str, label: str,
           log_y: bool) -> None:  # fmt: skip
    """One line per series of ``metric`` against x, saturated points as crosses on top."""
    any_mean = False
    any_saturated = False
    for name, group in by_series(results).items():
        measured = [
            (r.point.x, e.mean, e.half_width or 0.0)
            for r in group
            if (e := r.estimates[metric]).mean is not None and not r.saturated
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
    if log_y and any_mean:
        axes.set_yscale("log")
    axes.set_xlabel(study.axis.label)
    axes.set_ylabel(label)
    axes.grid(True, which="both", alpha=0.3)
    many = len(by_series(results)) > 8
    axes.legend(fontsize=7 if many else 8, ncol=2 if many else 1)


def _map(results: Sequence[PointResult], axes: Any, study: Study) -> None:
    """The best vector on a grid of (x, size factor), each cell coloured and labelled."""
    best = best_map(results, study.metrics[0])
    xs = sorted({r.point.x for r in results})
    scales = sorted({split_series(r.point.series)[1] for r in results})
    vectors = sorted(set(best.values()))
    colour = {v: i for i, v in enumerate(vectors)}
    grid = [[colour.get(best.get((scale, x), ""), -1) for x in xs] for scale in scales]
    masked = [[float("nan") if v < 0 else float(v) for v in row] for row in grid]
    axes.imshow(masked, origin="lower", aspect="auto", cmap="tab20",
                vmin=0, vmax=max(len(vectors) - 1, 1), interpolation="nearest")  # fmt: skip
    for i, scale in enumerate(scales):
        for j, x in enumerate(xs):
            text = best.get((scale, x), "sat.")
            axes.text(j, i, text, ha="center", va="center", fontsize=8)
    axes.set_xticks(range(len(xs)), [f"{x:g}" for x in xs])
    axes.set_yticks(range(len(scales)), [f"x{s:g}" for s in scales])
    axes.set_xlabel(study.axis.label)
    axes.set_ylabel(study.y_label)


def draw_figure(study: Study, results: Sequence[PointResult], path: Path) -> None:
    """Draw the study's figure as a PNG at ``path``.

    The primary metric (``study.metrics[0]``) against x, one line per
    series; a striping study draws the drive utilisation beside it (the
    paper's utilisation figures), and a map the best vector per cell.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    title = f"{study.name} ({study.figure}): {study.title}"
    if study.kind == "map":
        figure = Figure(figsize=(8.5, 4.8), layout="constrained")
        FigureCanvasAgg(figure)
        _map(results, figure.add_subplot(), study)
        figure.suptitle(
            f"{title}\nbest: lowest mean response time; sat.: every vector saturated", fontsize=9
        )
    elif study.striped:
        figure = Figure(figsize=(13, 5), layout="constrained")
        FigureCanvasAgg(figure)
        left, right = figure.subplots(1, 2)
        _lines(study, results, left, study.metrics[0], study.y_label, study.log_y)
        _lines(study, results, right, study.metrics[1], "drive utilisation (busy share)", False)
        figure.suptitle(title, fontsize=9)
    else:
        figure = Figure(figsize=(7.5, 4.8), layout="constrained")
        FigureCanvasAgg(figure)
        axes = figure.add_subplot()
        _lines(study, results, axes, study.metrics[0], study.y_label, study.log_y)
        axes.set_title(title, fontsize=9)
    figure.savefig(path, format="png", dpi=110)
