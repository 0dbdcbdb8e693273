"""What `tapesched experiment ecmwf-defer-dismount` writes: results.csv, summary.json, figure.

- ``results.csv``: the columns of every experiment's
  (:data:`tapesched.studies.study_report.COLUMNS`); a row per eviction rule
  (series), delay (``x``, ``defer_s``; ``inf`` for kept mounted) and
  metric of :data:`tapesched.studies.defer_study.METRICS`. A replay is one
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

import csv
import io
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from tapesched.studies.defer_study import EXPERIMENT, METRICS, X_NAME, DeferPoint
from tapesched.studies.study_report import COLUMNS, csv_number
from tapesched.toolkit.plots.figures import new_figure, render

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


def results_csv(points: Sequence[DeferPoint]) -> str:
    """The text of ``results.csv``: a row per point and metric."""
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(COLUMNS)
    for p in points:
        saturated = "true" if p.result.saturated else "false"
        for metric in METRICS:
            writer.writerow(
                [
                    EXPERIMENT, p.series, X_NAME, repr(p.defer_s), metric,
                    csv_number(p.value(metric)), "", 1, saturated,
                ]
            )  # fmt: skip
    return text.getvalue()


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


def draw_figure(points: Sequence[DeferPoint], path: Path) -> None:
    """A panel per drawn metric against the delay (see the module)."""
    figure = new_figure(4.2 * len(DRAWN), 3.8)
    grid = figure.subplots(1, len(DRAWN), squeeze=False)[0]
    series = list(dict.fromkeys(p.series for p in points))
    for axes, metric in zip(grid, DRAWN, strict=True):
        for k, name in enumerate(series):
            colour, marker = f"C{k}", "osD^v"[k % 5]
            mine = [p for p in points if p.series == name]
            finite = [p for p in mine if math.isfinite(p.defer_s)]
            values = [p.value(metric) for p in finite]
            axes.plot(
                [p.defer_s for p in finite],
                [math.nan if v is None else v for v in values],
                marker=marker,
                markersize=4,
                color=colour,
                label=f"{name}+defer:T",
            )
            for kept in (p for p in mine if math.isinf(p.defer_s)):
                value = kept.value(metric)
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
    path.write_bytes(render(figure, "png"))
