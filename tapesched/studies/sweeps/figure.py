"""The figure of a swept study, and of any experiment's ``results.csv``.

The figure (:func:`study_figure`) plots the primary metric (the paper's
average weighted response time) against x, one line per series with its
95 % intervals, the axes labelled with their units and logarithmic where
the paper's are; a saturated point, which has no mean, is marked by a cross
on the top edge, at its x. A striping study draws the drive utilisation
beside it, and a map (``gol-fig14``) the best vector of each cell. The
figure is drawn from the rows of ``results.csv``
(:class:`~tapesched.studies.results_file.ResultRow`), which a sweep's results
give and so does the file read back: ``tapesched plot results`` redraws an
experiment's figure from its file (:func:`results_figure`), the same bytes
as the run drew, or the figure of another metric of the file; an experiment
that is no swept study, or that this version does not know, is drawn on
linear axes (:func:`figure_of`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tapesched.studies.lines_figure import Y_LABELS, draw_lines, lines_figure
from tapesched.studies.results_file import ResultRow
from tapesched.studies.sweeps.report import best_cells, split_series
from tapesched.studies.sweeps.study import Study
from tapesched.studies.sweeps.sweep import PRIMARY_METRIC
from tapesched.toolkit.plots.figures import new_figure
from tapesched.toolkit.registry import LoadError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

LOG_Y_METRICS = (PRIMARY_METRIC, "mean_stretch")
"""The metrics drawn on a log y axis when the experiment's is (:attr:`Study.log_y`): those
that grow without bound towards saturation."""


def _y_label(study: Study, metric: str) -> str:
    """The y axis of ``metric``: the study's own for its primary metric, else :data:`Y_LABELS`."""
    if metric == study.metrics[0]:
        return study.y_label
    return Y_LABELS.get(metric, metric)


def _log_y(study: Study, metric: str) -> bool:
    """Whether ``metric`` is drawn on a log axis: the study's primary metric or one that grows
    without bound towards saturation, when the study's axis is."""
    if not study.log_y:
        return False
    return metric == study.metrics[0] or metric in LOG_Y_METRICS


def _map(axes: Any, rows: Sequence[ResultRow], study: Study) -> None:
    """The best vector on a grid of (x, size factor), each cell coloured and labelled."""
    best = best_cells(rows)
    xs = sorted({r.x for r in rows})
    scales = sorted({split_series(r.series)[1] for r in rows})
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


def study_figure(study: Study, rows: Sequence[ResultRow]) -> Figure:
    """The study's figure, from the rows of its ``results.csv`` (as a run gives them or as
    the file is read back: ``tapesched plot results`` draws it again).

    The primary metric (``study.metrics[0]``) against x, one line per
    series; a striping study draws the drive utilisation beside it (the
    paper's utilisation figures), and a map the best vector per cell.
    """
    primary = study.metrics[0]

    def of(metric: str) -> list[ResultRow]:
        return [r for r in rows if r.metric == metric]

    if study.kind == "map":
        figure = new_figure(8.5, 4.8)
        _map(figure.add_subplot(), of(primary), study)
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
            draw_lines(axes, of(metric), log_x=study.axis.log,
                   log_y=metric == primary and study.log_y, x_label=study.axis.label,
                   y_label=label)  # fmt: skip
        figure.suptitle(_title(study), fontsize=9)
    else:
        figure = figure_of(study, of(primary), primary)
    return figure


def figure_of(
    study: Study | None,
    rows: Sequence[ResultRow],
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
    rows
        The rows of ``metric``, grouped into series in the order they first appear.
    metric
        The metric drawn, for the y axis' label and scale.
    """
    if study is None:
        return lines_figure(rows, metric, title=experiment, x_label=x_name)
    figure = new_figure(7.5, 4.8)
    axes = figure.add_subplot()
    if study.kind == "map" and metric == study.metrics[0]:
        _map(axes, rows, study)
    else:
        draw_lines(
            axes,
            rows,
            log_x=study.axis.log,
            log_y=_log_y(study, metric),
            x_label=study.axis.label,
            y_label=_y_label(study, metric),
        )
    axes.set_title(_title(study), fontsize=9)
    return figure


def results_figure(rows: Sequence[ResultRow], metric: str = PRIMARY_METRIC) -> Figure:
    """The figure of ``metric`` from the rows of a ``results.csv`` (:func:`read_results_csv`).

    The experiment is looked up by name (:data:`~tapesched.studies.registry.EXPERIMENTS`):
    a swept study's title, labels and scales are its own, and the primary metric's
    figure is then the one the run drew, byte for byte.

    Raises
    ------
    ValueError
        When no row holds ``metric``; the message lists those the rows hold.
    """
    drawn = [r for r in rows if r.metric == metric]
    if not drawn:
        held = ", ".join(dict.fromkeys(r.metric for r in rows))
        raise ValueError(f"{metric!r} is not a metric of the file (it holds {held})")
    first = drawn[0]
    study = _known_study(first.experiment)
    return figure_of(study, drawn, metric, experiment=first.experiment, x_name=first.x_name)


def _known_study(name: str) -> Study | None:
    """The swept study of this version named ``name`` (``None``: another experiment, or none
    of the registry's)."""
    from tapesched.studies.registry import EXPERIMENTS, find_experiment

    if name not in EXPERIMENTS.known():
        return None
    try:
        study = getattr(find_experiment(name), "study", None)
    except LoadError:
        return None
    return study if isinstance(study, Study) else None
