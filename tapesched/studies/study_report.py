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
from typing import Any

from attrs import frozen
from matplotlib.figure import Figure

from tapesched.studies.studies import STUDIES, Study
from tapesched.studies.sweep import PRIMARY_METRIC, PointResult, Precision
from tapesched.toolkit.errors import InputError, Problem, capped
from tapesched.toolkit.fields import (
    check,
    checked,
    finite,
    natural,
    nonempty_text,
    one_of,
    optional,
)
from tapesched.toolkit.files.reading import read_text
from tapesched.toolkit.files.structurer import TEXT
from tapesched.toolkit.plots.figures import new_figure, render

COLUMNS = (
    "experiment", "series", "x_name", "x", "metric",
    "mean", "half_width", "replications", "saturated",
)  # fmt: skip
"""The columns of ``results.csv``."""

Y_LABEL = "average weighted response time (s/GB)"
"""The Blue Waters figures' y axis: :data:`~tapesched.studies.sweep.PRIMARY_METRIC` and its unit."""

Y_LABELS: Mapping[str, str] = {
    PRIMARY_METRIC: Y_LABEL,
    "mean_stretch": "mean stretch (response time over service time)",
    "throughput_mb_s_over_window": "throughput over the measured window (MB/s)",
}
"""The y axis of each metric of :data:`~tapesched.studies.studies.METRICS` (another: its name)."""

LOG_Y_METRICS = (PRIMARY_METRIC, "mean_stretch")
"""The metrics drawn on a log y axis when the experiment's is (:attr:`Study.log_y`): those
that grow without bound towards saturation."""


def csv_number(value: float | None) -> str:
    """A number as every experiment's ``results.csv`` writes it: exactly (``repr``), or
    empty for ``None``."""
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
                    csv_number(result.point.x),
                    metric,
                    csv_number(e.mean),
                    csv_number(e.half_width),
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
    metric of :data:`simulator.run.results.METRICS` as
    :meth:`simulator.run.results.Estimate.to_dict` gives it) and, when x is the
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


def _best_points(points: Sequence[CurvePoint]) -> dict[float, str]:
    """At each x, the series of lowest mean among the points not saturated."""
    best: dict[float, tuple[float, str]] = {}
    for p in points:
        if p.saturated or p.mean is None:
            continue
        if p.x not in best or p.mean < best[p.x][0]:
            best[p.x] = (p.mean, p.series)
    return {x: name for x, (_, name) in sorted(best.items())}


def best_by_x(results: Sequence[PointResult], metric: str) -> dict[float, str]:
    """At each x, the series with the lowest mean of ``metric`` among those not saturated
    (an x where every series is saturated has none)."""
    return _best_points(curve_points(results, metric))


def split_series(name: str) -> tuple[str, float]:
    """A map's series name (``"122 x2"``) as its vector and size factor (``1`` without one)."""
    vector, _, factor = name.partition(" x")
    return vector, float(factor) if factor else 1.0


def _best_cells(points: Sequence[CurvePoint]) -> dict[tuple[float, float], str]:
    """For each (size factor, x) of a map's points, the best vector."""
    by_scale: dict[float, list[CurvePoint]] = {}
    for p in points:
        by_scale.setdefault(split_series(p.series)[1], []).append(p)
    out: dict[tuple[float, float], str] = {}
    for scale, group in by_scale.items():
        for x, name in _best_points(group).items():
            out[(scale, x)] = split_series(name)[0]
    return out


def best_map(
    results: Sequence[PointResult], metric: str = "mean_response_s"
) -> dict[tuple[float, float], str]:
    """For each (size factor, x) of a map, the best vector (:func:`best_by_x` per factor)."""
    return _best_cells(curve_points(results, metric))


def _lines(
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


def _y_label(study: Study | None, metric: str) -> str:
    """The y axis of ``metric``: the study's own for its primary metric, else :data:`Y_LABELS`."""
    if study is not None and metric == study.metrics[0]:
        return study.y_label
    return Y_LABELS.get(metric, metric)


def _log_y(study: Study | None, metric: str) -> bool:
    """Whether ``metric`` is drawn on a log axis: the study's primary metric or one that grows
    without bound towards saturation, when the study's axis is."""
    if study is None or not study.log_y:
        return False
    return metric == study.metrics[0] or metric in LOG_Y_METRICS


def _map(axes: Any, points: Sequence[CurvePoint], study: Study) -> None:
    """The best vector on a grid of (x, size factor), each cell coloured and labelled."""
    best = _best_cells(points)
    xs = sorted({p.x for p in points})
    scales = sorted({split_series(p.series)[1] for p in points})
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


def _title(study: Study) -> str:
    return f"{study.name} ({study.figure}): {study.title}"


def draw_figure(study: Study, results: Sequence[PointResult], path: Path) -> None:
    """Draw the study's figure as a PNG at ``path``.

    The primary metric (``study.metrics[0]``) against x, one line per
    series; a striping study draws the drive utilisation beside it (the
    paper's utilisation figures), and a map the best vector per cell.
    """
    primary = study.metrics[0]
    if study.kind == "map":
        figure = new_figure(8.5, 4.8)
        _map(figure.add_subplot(), curve_points(results, primary), study)
        figure.suptitle(
            f"{_title(study)}\nbest: lowest mean response time; sat.: every vector saturated",
            fontsize=9,
        )
    elif study.striped:
        figure = new_figure(13, 5)
        left, right = figure.subplots(1, 2)
        for axes, metric, label in (
            (left, primary, study.y_label),
            (right, study.metrics[1], "drive utilisation (busy share)"),
        ):
            _lines(axes, curve_points(results, metric), log_x=study.axis.log,
                   log_y=metric == primary and study.log_y, x_label=study.axis.label,
                   y_label=label)  # fmt: skip
        figure.suptitle(_title(study), fontsize=9)
    else:
        figure = figure_of(study, curve_points(results, primary), primary)
    path.write_bytes(render(figure, "png"))


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
        The metric drawn, for the y axis' label and scale.
    """
    figure = new_figure(7.5, 4.8)
    axes = figure.add_subplot()
    if study is not None and study.kind == "map" and metric == study.metrics[0]:
        _map(axes, points, study)
    else:
        _lines(
            axes,
            points,
            log_x=study is not None and study.axis.log,
            log_y=_log_y(study, metric),
            x_label=study.axis.label if study is not None else x_name,
            y_label=_y_label(study, metric),
        )
    axes.set_title(_title(study) if study is not None else experiment, fontsize=9)
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
    or ``half_width`` is none. One file holds one experiment, each metric over
    one x (a study of several sweeps, ``durability``'s panels, has a metric
    per sweep).

    Raises
    ------
    InputError
        A missing column (at ``line 1``), a line of the wrong length, a bad
        value (``line N.x: expected a finite number, got 'abc'``), a second
        experiment in one file, a metric over a second x, or no rows at all.
    """
    lines = csv.reader(io.StringIO(text))
    columns = next(lines, [])
    missing = [c for c in COLUMNS if c not in columns]
    if missing:
        raise InputError(source, [Problem("line 1", f"missing column {c!r}") for c in missing])
    read_row = TEXT.reader(ResultRow, path="line {}")
    problems: list[Problem] = []
    rows: list[ResultRow] = []
    x_of: dict[str, str] = {}
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
        if rows and row.experiment != rows[0].experiment:
            first = f"{rows[0].experiment!r} over {rows[0].x_name!r}"
            problems.append(
                Problem(
                    f"line {number}",
                    f"experiment {row.experiment!r} over {row.x_name!r}, the file's first row "
                    f"{first}: one experiment a file",
                )
            )
            continue
        x_name = x_of.setdefault(row.metric, row.x_name)
        if row.x_name != x_name:
            problems.append(
                Problem(
                    f"line {number}",
                    f"metric {row.metric!r} over {row.x_name!r}, its first row over "
                    f"{x_name!r}: one x a metric",
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


def _known_studies() -> dict[str, Study]:
    """Every experiment of this version by name, the Blue Waters paper's and Golubchik's."""
    from tapesched.studies.golubchik_studies import GOLUBCHIK_STUDIES

    return {**STUDIES, **GOLUBCHIK_STUDIES}


def results_figure(rows: Sequence[ResultRow], metric: str = PRIMARY_METRIC) -> Figure:
    """The figure of ``metric`` from the rows of a ``results.csv`` (:func:`read_results_csv`).

    The experiment is looked up by name (:data:`~tapesched.studies.studies.STUDIES`)
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
    first = next(r for r in rows if r.metric == metric)
    study = _known_studies().get(first.experiment)
    return figure_of(study, points, metric, experiment=first.experiment, x_name=first.x_name)
