"""A figure of lines: a metric against x, a line per series with its 95 % intervals.

What every experiment's figure may be drawn as (the default of
:meth:`tapesched.studies.experiment.Experiment.figure`), and what a swept
study's figure is made of (:mod:`tapesched.studies.study_figure`): the
points of a series joined, each with its interval, a saturated point (which
has no mean) marked by a cross on the top edge at its x.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from attrs import frozen
from matplotlib.figure import Figure

from tapesched.toolkit.plots.figures import new_figure

Y_LABEL = "average weighted response time (s/GB)"
"""The Blue Waters figures' y axis: the primary metric and its unit."""

Y_LABELS: Mapping[str, str] = {
    "mean_weighted_response_s_per_gb": Y_LABEL,
    "mean_stretch": "mean stretch (response time over service time)",
    "throughput_mb_s_over_window": "throughput over the measured window (MB/s)",
}
"""The y axis of each metric of :data:`~tapesched.studies.studies.METRICS` (another: its name)."""


@frozen
class CurvePoint:
    """One point of a figure: a series' metric at x, and whether the point is saturated.

    ``mean`` is ``None`` when the point has none (saturated, or nothing
    measured); ``half_width`` when it has no interval (one replication).
    """

    series: str
    x: float
    mean: float | None
    half_width: float | None
    saturated: bool


def draw_lines(
    axes: Any,
    points: Sequence[CurvePoint],
    *,
    log_x: bool,
    log_y: bool,
    x_label: str,
    y_label: str,
) -> None:
    """One line per series against x with its 95 % intervals, saturated points as crosses on top."""
    series: dict[str, list[CurvePoint]] = {}
    for point in points:
        series.setdefault(point.series, []).append(point)
    any_mean = False
    any_saturated = False
    for name, group in series.items():
        measured = [
            (p.x, p.mean, p.half_width or 0.0)
            for p in group
            if p.mean is not None and not p.saturated
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
        saturated = [p.x for p in group if p.saturated]
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
                color=line.lines[0].get_color(),
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
    axes.legend(fontsize=7 if many else 8, ncol=2 if many else 1)


def lines_figure(
    points: Sequence[CurvePoint],
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
        points,
        log_x=log_x,
        log_y=log_y,
        x_label=x_label,
        y_label=Y_LABELS.get(metric, metric),
    )
    axes.set_title(title, fontsize=9)
    return figure
