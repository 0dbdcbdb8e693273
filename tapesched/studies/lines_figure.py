"""A figure of lines: a metric against x, a line per series with its 95 % intervals.

What every experiment's figure may be drawn as (the default of
:meth:`tapesched.studies.experiment.Experiment.figure`), and what a swept
study's figure is made of (:mod:`tapesched.studies.sweeps.figure`): the
rows of a series (:class:`~tapesched.studies.results_file.ResultRow`) joined,
each point with its interval, a saturated point (which has no mean) marked by
a cross on the top edge at its x, a point at an infinite x (``inf``: no limit at all) by
a dashed line at its mean across the panel.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tapesched.studies.results_file import ResultRow
from tapesched.toolkit.plots.figures import new_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

MOST_IN_LEGEND = 24
"""The most series a panel names in its legend; past that the legend would fill the panel."""

Y_LABEL = "average weighted response time (s/GB)"
"""The Blue Waters figures' y axis: the primary metric and its unit."""

Y_LABELS: Mapping[str, str] = {
    "mean_weighted_response_s_per_gb": Y_LABEL,
    "mean_stretch": "mean stretch (response time over service time)",
    "throughput_mb_s_over_window": "throughput over the measured window (MB/s)",
}
"""The y axis of each metric of :data:`~tapesched.studies.sweeps.study.METRICS` (another:
its name)."""


def draw_lines(
    axes: Any,
    rows: Sequence[ResultRow],
    *,
    log_x: bool,
    log_y: bool,
    x_label: str,
    y_label: str,
) -> None:
    """One line per series against x with its 95 % intervals, saturated points as crosses on
    top, a point at an infinite x as a dashed line at its mean."""
    series: dict[str, list[ResultRow]] = {}
    for row in rows:
        series.setdefault(row.series, []).append(row)
    any_mean = False
    any_saturated = False
    for name, group in series.items():
        measured = [
            (r.x, r.estimate.mean, r.estimate.half_width or 0.0)
            for r in group
            if r.estimate.mean is not None and not r.estimate.saturated and math.isfinite(r.x)
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
        colour = line.lines[0].get_color()
        for r in group:
            # A point at an infinite x (no limit at all) has no place on the axis: its mean
            # is a dashed line across the panel, in the series' colour.
            if not math.isfinite(r.x) and r.estimate.mean is not None and not r.estimate.saturated:
                axes.axhline(r.estimate.mean, color=colour, linestyle="--", linewidth=1,
                             label=f"{name}, x = {r.x:g}")  # fmt: skip
                measured.append((r.x, r.estimate.mean, 0.0))
        any_mean = any_mean or bool(measured)
        saturated = [r.x for r in group if r.estimate.saturated and math.isfinite(r.x)]
        if saturated:
            any_saturated = True
            # The crosses are placed in axes height, which the x limits ignore: their x
            # joins the data limits, so that a rate where every point saturates shows.
            axes.dataLim.update_from_data_x(saturated, ignore=False)
            axes.scatter(
                saturated,
                [1.0] * len(saturated),
                marker="x",
                s=60,
                color=colour,
                transform=axes.get_xaxis_transform(),
                clip_on=False,
                zorder=3,
            )
    if any_saturated:
        axes.scatter([], [], marker="x", color="black", label="saturated (no mean)")
    if log_x:
        axes.set_xscale("log")
    if log_y and any_mean:
        axes.set_yscale("log")
    axes.set_xlabel(x_label)
    axes.set_ylabel(y_label)
    axes.grid(True, which="both", alpha=0.3)
    many = len(series) > 8
    if len(series) > MOST_IN_LEGEND:
        # A legend this long would take the panel's room: the series go unnamed.
        axes.set_title(f"{len(series)} series, unnamed", fontsize=7, loc="right")
        return
    axes.legend(fontsize=7 if many else 8, ncol=2 if many else 1)


def lines_figure(
    rows: Sequence[ResultRow],
    metric: str,
    *,
    title: str,
    x_label: str,
    log_x: bool = False,
    log_y: bool = False,
) -> Figure:
    """``metric`` against x, a line per series in the order they first appear; the y axis
    labelled as :data:`Y_LABELS` says (the metric's name for another)."""
    figure = new_figure(7.5, 4.8)
    axes = figure.add_subplot()
    draw_lines(
        axes,
        rows,
        log_x=log_x,
        log_y=log_y,
        x_label=x_label,
        y_label=Y_LABELS.get(metric, metric),
    )
    axes.set_title(title, fontsize=9)
    return figure


PANELS_A_ROW = 3
"""The panels of :func:`metrics_figure` side by side before a new row begins."""


def metrics_figure(rows: Sequence[ResultRow], *, title: str) -> Figure:
    """A panel per metric of ``rows`` (in the order they first appear), each its metric
    against its own x, a line per series (:func:`draw_lines`, linear axes): the figure of
    any ``results.csv``, whatever the experiment."""
    by_metric: dict[str, list[ResultRow]] = {}
    for row in rows:
        by_metric.setdefault(row.metric, []).append(row)
    count = max(len(by_metric), 1)
    columns = min(count, PANELS_A_ROW)
    lines = -(-count // columns)
    figure = new_figure(5.0 * columns, 3.9 * lines)
    grid = figure.subplots(lines, columns, squeeze=False)
    panels = [axes for line in grid for axes in line]
    for axes, (metric, drawn) in zip(panels, by_metric.items(), strict=False):
        draw_lines(
            axes,
            drawn,
            log_x=False,
            log_y=False,
            x_label=drawn[0].x_name,
            y_label=Y_LABELS.get(metric, metric),
        )
        axes.set_title(metric, fontsize=8)
    for axes in panels[len(by_metric) :]:
        figure.delaxes(axes)
    figure.suptitle(title, fontsize=9)
    return figure
