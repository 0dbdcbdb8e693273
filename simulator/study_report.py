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
on the top edge, at its x. The figure is drawn from :class:`CurvePoint` rows,
which a sweep's results give (:func:`curve_points`) and so does a
``results.csv`` read back (:func:`read_results_csv`, :func:`csv_curve_points`):
``tapesched plot results`` redraws an experiment's figure from its file, the
same bytes as the run drew, or the figure of another metric of the file.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from pathlib import Path

from attrs import frozen
from matplotlib.figure import Figure

from simulator.studies import METRICS, STUDIES, Study
from simulator.sweep import PRIMARY_METRIC, PointResult, Precision
from toolkit.errors import InputError, Problem, capped
from toolkit.fields import check, checked, finite, natural, nonempty_text, one_of, optional
from toolkit.figures import new_figure, render
from toolkit.io import TEXT, read_text

COLUMNS = (
    "experiment", "series", "x_name", "x", "metric",
    "mean", "half_width", "replications", "saturated",
)  # fmt: skip
"""The columns of ``results.csv``."""

Y_LABEL = "average weighted response time (s/GB)"
"""The figure's y axis: :data:`~simulator.sweep.PRIMARY_METRIC` and its unit."""

Y_LABELS: Mapping[str, str] = {
    PRIMARY_METRIC: Y_LABEL,
    "mean_stretch": "mean stretch (response time over service time)",
    "throughput_mb_s_over_window": "throughput over the measured window (MB/s)",
}
"""The y axis of each metric of :data:`~simulator.studies.METRICS` (another: its name)."""

LOG_Y_METRICS = (PRIMARY_METRIC, "mean_stretch")
"""The metrics drawn on a log y axis when the experiment's is (:attr:`Study.log_y`): those
that grow without bound towards saturation."""


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


def curve_points(
    results: Sequence[PointResult], metric: str = PRIMARY_METRIC
) -> tuple[CurvePoint, ...]:
    """The points of a sweep's figure of ``metric``, in the order of ``results``."""
    return tuple(
        CurvePoint(
            r.point.series,
            r.point.x,
            r.estimates[metric].mean,
            r.estimates[metric].half_width,
            r.saturated,
        )
        for r in results
    )


def draw_figure(study: Study, results: Sequence[PointResult], path: Path) -> None:
    """Draw the primary metric against x, one line per series, as a PNG at ``path``."""
    path.write_bytes(render(figure_of(study, curve_points(results)), "png"))


def figure_of(
    study: Study | None,
    points: Sequence[CurvePoint],
    metric: str = PRIMARY_METRIC,
    *,
    experiment: str = "",
    x_name: str = "x",
) -> Figure:
    """Draw ``metric`` against x, one line per series with its 95 % intervals.

    Parameters
    ----------
    study
        The experiment, for its title, x label and scales; ``None`` for one
        this version does not know (a file of another version, a user's
        own), drawn on linear axes, titled ``experiment`` and its x axis
        labelled ``x_name``.
    points
        The points, grouped into series in the order they first appear.
    metric
        The metric drawn, for the y axis' label (:data:`Y_LABELS`) and scale.
    """
    figure = new_figure(7.5, 4.8)
    axes = figure.add_subplot()
    series: dict[str, list[CurvePoint]] = {}
    for point in points:
        series.setdefault(point.series, []).append(point)
    any_mean = False
    any_saturated = False
    for name, group in series.items():
        measured = [(p.x, p.mean, p.half_width or 0.0) for p in group if p.mean is not None]
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
    if study is not None and study.axis.log:
        axes.set_xscale("log")
    if study is not None and study.log_y and metric in LOG_Y_METRICS and any_mean:
        axes.set_yscale("log")
    axes.set_xlabel(study.axis.label if study is not None else x_name)
    axes.set_ylabel(Y_LABELS.get(metric, metric))
    title = f"{study.name} ({study.figure}): {study.title}" if study is not None else experiment
    axes.set_title(title, fontsize=9)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8)
    return figure


@checked(kw_only=True)
class ResultRow:
    """A line of ``results.csv`` by its columns (:data:`COLUMNS`, in their order); problems
    at ``line N.column``."""

    experiment: str = check(nonempty_text)
    series: str = check(nonempty_text)
    x_name: str = check(nonempty_text)
    x: float = check(finite)
    metric: str = check(nonempty_text)
    mean: float | None = check(optional(finite), default=None)
    half_width: float | None = check(optional(finite), default=None)
    replications: int = check(natural)
    saturated: str = check(one_of(("true", "false")))


def read_results_csv(text: str, source: str = "<results>") -> tuple[ResultRow, ...]:
    """The rows of a ``results.csv``, every value checked.

    Columns may come in any order, and others are ignored; an empty ``mean``
    or ``half_width`` is none. One file holds one experiment over one x.

    Raises
    ------
    InputError
        A missing column (at ``line 1``), a line of the wrong length, a bad
        value (``line N.x: expected a finite number, got 'abc'``), a second
        experiment or x in one file, or no rows at all.
    """
    lines = csv.reader(io.StringIO(text))
    columns = next(lines, [])
    missing = [c for c in COLUMNS if c not in columns]
    if missing:
        raise InputError(source, [Problem("line 1", f"missing column {c!r}") for c in missing])
    read_row = TEXT.reader(ResultRow, path="line {}")
    problems: list[Problem] = []
    rows: list[ResultRow] = []
    for number, values in enumerate(lines, 2):
        if not values:
            continue
        if len(values) != len(columns):
            problems.append(Problem(f"line {number}", f"expected {len(columns)} values"))
            continue
        cells = {c: v for c, v in zip(columns, values, strict=True) if c in COLUMNS}
        cells = {c: v for c, v in cells.items() if v or c not in ("mean", "half_width")}
        row, bad = read_row(cells, number)
        if row is None:
            problems.extend(bad)
            continue
        if rows and (row.experiment, row.x_name) != (rows[0].experiment, rows[0].x_name):
            first = f"{rows[0].experiment!r} over {rows[0].x_name!r}"
            problems.append(
                Problem(
                    f"line {number}",
                    f"experiment {row.experiment!r} over {row.x_name!r}, the file's first row "
                    f"{first}: one experiment a file",
                )
            )
            continue
        rows.append(row)
    if problems:
        raise InputError(source, capped(problems))
    if not rows:
        raise InputError(source, [Problem("", "no rows below the header")])
    return tuple(rows)


def load_results_csv(path: str | Path) -> tuple[ResultRow, ...]:
    """The rows of the ``results.csv`` file at ``path`` (:func:`read_results_csv`).

    Raises
    ------
    InputError
        When the file cannot be read, is not UTF-8 text or holds bad rows.
    """
    return read_results_csv(read_text(path), str(path))


def csv_curve_points(rows: Sequence[ResultRow], metric: str) -> tuple[CurvePoint, ...]:
    """The points of ``metric`` among the rows of a ``results.csv``, in file order."""
    return tuple(
        CurvePoint(r.series, r.x, r.mean, r.half_width, r.saturated == "true")
        for r in rows
        if r.metric == metric
    )


def results_figure(rows: Sequence[ResultRow], metric: str = PRIMARY_METRIC) -> Figure:
    """The figure of ``metric`` from the rows of a ``results.csv`` (:func:`read_results_csv`).

    The experiment is looked up by name (:data:`~simulator.studies.STUDIES`)
    for its title, labels and scales; the primary metric's figure is then
    the one the run drew, byte for byte.

    Raises
    ------
    ValueError
        When no row holds ``metric``; the message lists those the rows hold.
    """
    points = csv_curve_points(rows, metric)
    if not points:
        held = ", ".join(dict.fromkeys(r.metric for r in rows))
        raise ValueError(f"{metric!r} is not a metric of the file (it holds {held})")
    first = rows[0]
    study = STUDIES.get(first.experiment)
    return figure_of(study, points, metric, experiment=first.experiment, x_name=first.x_name)
