"""What ``tapesched experiment online-vs-offline`` writes: its CSVs, summary and figure.

- ``results.csv``: the columns of every experiment's
(:data:`tapesched.studies.study_report.COLUMNS`)
  and ``upper_bound``; a row per series (each online scheduler, and the
  non-anticipative optimum against the clairvoyant one), yardstick and
  metric: ``ratio_to_<yardstick>`` (mean and 95 % half-width over the
  windows, ``replications`` the windows) and ``worst_ratio_to_<yardstick>``
  (the largest, no interval). ``x_name`` is ``window_requests``, ``x`` the
  window's size; ``saturated`` is always false (every window is solved);
  ``upper_bound`` is true when some window's ratio is to a bound, not to a
  proven optimum, so that the figure is an upper bound of the true one.
- ``windows.csv``: a row per window, series and yardstick
  (:data:`WINDOW_COLUMNS`).
- ``summary.json`` (:func:`summary_document`): the settings, each series'
  distribution per yardstick, and every window's yardsticks with each
  solver's run.
- ``figure.png`` (:func:`draw_figure`): the distribution of the ratios per
  series, one panel per yardstick; a ratio to a bound is drawn as a
  triangle.

Numbers are written by ``repr``, exactly, as in every experiment's files.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from pathlib import Path

from tapesched.studies.study_report import COLUMNS, csv_number
from tapesched.studies.windows import (
    YARDSTICKS,
    Distribution,
    WindowOutcome,
    distributions,
)

EXPERIMENT = "online-vs-offline"
TITLE = "online schedulers against the clairvoyant and the non-anticipative optimum, per window"
X_NAME = "window_requests"

RESULT_COLUMNS = (*COLUMNS, "upper_bound")
"""The columns of ``results.csv``."""

WINDOW_COLUMNS = (
    "window", "start_s", "file", "series", "yardstick", "objective",
    "yardstick_value", "yardstick_bound", "yardstick_proven", "yardstick_solver", "ratio",
    "upper_bound",
)  # fmt: skip
"""The columns of ``windows.csv``."""


def metric_name(yardstick: str) -> str:
    """The metric of the ratio to ``yardstick``: ``ratio_to_clairvoyant``, ..."""
    return "ratio_to_" + yardstick.replace("-", "_")


def window_file(index: int) -> str:
    """The window's instance file, relative to the output directory."""
    return f"windows/w{index:03d}.json"


def yardstick_file(index: int, yardstick: str) -> str:
    """The file of the window's yardstick schedule, relative to the output directory."""
    return f"windows/w{index:03d}.{yardstick}.json"


def _flag(value: bool) -> str:
    return "true" if value else "false"


def results_csv(outcomes: Sequence[WindowOutcome], size: int) -> str:
    """The text of ``results.csv``."""
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(RESULT_COLUMNS)
    for series, by_yardstick in distributions(outcomes).items():
        for yardstick, d in by_yardstick.items():
            if d is None:
                continue
            metric = metric_name(yardstick)
            head = (EXPERIMENT, series, X_NAME, repr(float(size)))
            writer.writerow(
                (*head, metric, csv_number(d.mean), csv_number(d.half_width), d.windows, "false",
                 _flag(d.upper_bound))
            )  # fmt: skip
            writer.writerow(
                (*head, "worst_" + metric, csv_number(d.worst), "", d.windows, "false",
                 _flag(d.upper_bound))
            )  # fmt: skip
    return text.getvalue()


def windows_csv(outcomes: Sequence[WindowOutcome]) -> str:
    """The text of ``windows.csv``: a row per window, series and yardstick."""
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(WINDOW_COLUMNS)
    for outcome in outcomes:
        index = outcome.window.index
        for series, by_yardstick in outcome.ratios().items():
            for yardstick, ratio in by_yardstick.items():
                y = outcome.yardsticks[yardstick]
                writer.writerow(
                    (
                        index,
                        repr(outcome.window.start_s),
                        window_file(index),
                        series,
                        yardstick,
                        repr(ratio.objective),
                        repr(y.value),
                        repr(y.bound),
                        _flag(y.proven),
                        y.solver,
                        csv_number(ratio.ratio),
                        _flag(ratio.upper_bound),
                    )
                )
    return text.getvalue()


def summary_document(
    outcomes: Sequence[WindowOutcome], settings: Mapping[str, object]
) -> dict[str, object]:
    """The ``summary.json`` document.

    Keys: ``experiment``, ``title``, ``settings``; ``series``, per series
    and yardstick its :meth:`~tapesched.studies.windows.Distribution.to_dict`
    (``null`` when no window gave a ratio); ``windows``, per window its
    ``file``, ``start_s`` in the run, ``requests``, the drives holding a
    tape at its start (``initial``), each online scheduler's objective and
    each yardstick's ``value``, ``bound``, ``proven``, the ``solver`` whose
    schedule gave the value, its ``schedule`` file and the ``attempts`` of
    its solvers (status, objective, bound, runtime).
    """
    series = {
        name: {y: (None if d is None else d.to_dict()) for y, d in by_yardstick.items()}
        for name, by_yardstick in distributions(outcomes).items()
    }
    windows = []
    for outcome in outcomes:
        w = outcome.window
        windows.append(
            {
                "index": w.index,
                "file": window_file(w.index),
                "start_s": w.start_s,
                "requests": len(w.instance.requests),
                "initial": len(w.instance.initial),
                "online": dict(outcome.online),
                "yardsticks": {
                    name: {
                        "value": y.value,
                        "bound": y.bound,
                        "proven": y.proven,
                        "solver": y.solver,
                        "schedule": yardstick_file(w.index, name),
                        "attempts": [
                            {
                                "solver": a.solver,
                                "status": a.status,
                                "objective": a.objective,
                                "bound": a.bound,
                                "runtime_s": a.runtime_s,
                            }
                            for a in y.attempts
                        ],
                    }
                    for name, y in outcome.yardsticks.items()
                },
            }
        )
    return {
        "experiment": EXPERIMENT,
        "title": TITLE,
        "settings": dict(settings),
        "series": series,
        "windows": windows,
    }


def table_cell(d: Distribution | None) -> tuple[str, str]:
    """A distribution's mean ± half-width and its worst, ``≤`` before each when a bound."""
    if d is None:
        return "—", "—"
    mark = "≤ " if d.upper_bound else ""
    mean = f"{mark}{d.mean:.3f}"
    if d.half_width is not None:
        mean += f" ± {d.half_width:.2g}"
    return mean, f"{mark}{d.worst:.3f}"


def draw_figure(outcomes: Sequence[WindowOutcome], size: int, path: Path) -> None:
    """The ratios per series as box plots, one panel per yardstick, as a PNG at ``path``."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(9.0, 4.8), layout="constrained")
    FigureCanvasAgg(figure)
    panels = figure.subplots(1, len(YARDSTICKS), sharey=True)
    for axes, yardstick in zip(panels, YARDSTICKS, strict=True):
        names: list[str] = []
        proven: list[tuple[int, float]] = []
        bounded: list[tuple[int, float]] = []
        columns: list[list[float]] = []
        for outcome in outcomes[:1]:
            names = [s for s, r in outcome.ratios().items() if yardstick in r]
        for k, name in enumerate(names, start=1):
            values = []
            for outcome in outcomes:
                ratio = outcome.ratios()[name][yardstick]
                if ratio.ratio is None:
                    continue
                values.append(ratio.ratio)
                (bounded if ratio.upper_bound else proven).append((k, ratio.ratio))
            columns.append(values)
        axes.boxplot(columns, showfliers=False)
        axes.set_xticks(range(1, len(names) + 1), names, rotation=40, ha="right", fontsize=8)
        if proven:
            axes.scatter(*zip(*proven, strict=True), s=12, alpha=0.6, label="to the optimum")
        if bounded:
            axes.scatter(
                *zip(*bounded, strict=True),
                s=16,
                marker="^",
                alpha=0.6,
                label="to a bound (upper bound)",
            )
        axes.axhline(1.0, color="grey", linewidth=0.8)
        axes.set_title(f"to the {yardstick} optimum", fontsize=9)
        axes.grid(True, axis="y", alpha=0.3)
        axes.legend(fontsize=7)
    panels[0].set_ylabel("weighted flow over the yardstick's")
    figure.suptitle(
        f"{EXPERIMENT}: windows of {size} requests ({len(outcomes)} windows)", fontsize=10
    )
    figure.savefig(path, format="png", dpi=110)
