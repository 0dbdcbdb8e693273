"""What ``tapesched experiment bnl-coverage`` writes: ``results.csv``, ``summary.json``, figure.

- ``results.csv``: the columns of every experiment's
  (:data:`tapesched.studies.study_report.COLUMNS`); a row per series (``<tape>
  <spacing> <ordering>``, :class:`tapesched.studies.recall_study.StudyPoint`),
  coverage and metric (``throughput_mb_s``, ``gain_over_offset_pct``).
  ``x_name`` is ``coverage_pct``; ``saturated`` is always false (a mounted
  tape has no queue to grow); ``mean`` is empty where the ordering was not
  run (the exact order of a list too long for it).
- ``summary.json`` (:func:`summary_document`): the settings, every point's
  estimates (:meth:`simulator.run.results.Estimate.to_dict`) and files read.
- ``figure.png`` (:func:`draw_figure`): throughput (top row) and gain over
  offset order (bottom row) against coverage, a column per tape, a colour
  per ordering, even spacing solid and random dashed, with 95 % intervals; a
  point not run leaves a gap in its line.

Numbers are written by ``repr``, exactly, as in every experiment's files.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from tapesched.studies.recall_study import EXPERIMENT, METRICS, X_NAME, StudyPoint
from tapesched.studies.study_report import COLUMNS, csv_number
from tapesched.toolkit.plots.figures import new_figure, render

TITLE = "throughput of a mounted tape read at 10, 50 and 100 % coverage, per recall order"
"""The experiment's one-line title."""


def results_csv(points: Sequence[StudyPoint]) -> str:
    """The text of ``results.csv``: a row per point and metric."""
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(COLUMNS)
    for p in points:
        for metric in METRICS:
            e = p.estimates[metric]
            writer.writerow(
                [
                    EXPERIMENT, p.series, X_NAME, repr(p.coverage_pct), metric,
                    csv_number(e.mean), csv_number(e.half_width), e.n, "false",
                ]
            )  # fmt: skip
    return text.getvalue()


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


def draw_figure(points: Sequence[StudyPoint], path: Path) -> None:
    """Throughput and gain against coverage, a column per tape (see the module)."""
    cases = list(dict.fromkeys(p.case for p in points))
    orderings = list(dict.fromkeys(p.ordering for p in points))
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
                        p
                        for p in points
                        if p.case == case and p.spacing == spacing and p.ordering == ordering
                    ]
                    if all(p.estimates[metric].mean is None for p in kept):
                        continue
                    # A point not run (NaN) breaks the line rather than join its neighbours.
                    axes.errorbar(
                        [p.coverage_pct for p in kept],
                        [_value(p.estimates[metric].mean) for p in kept],
                        yerr=[p.estimates[metric].half_width or 0.0 for p in kept],
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
    path.write_bytes(render(figure, "png"))
