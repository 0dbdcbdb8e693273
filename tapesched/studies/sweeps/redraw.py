"""``tapesched plot results``: an experiment's ``results.csv`` drawn again.

:func:`redraw_results` takes the rows of a ``results.csv``
(:func:`~tapesched.studies.results_file.load_results_csv`) and draws, in one of three
layouts (:data:`LAYOUTS`):

- ``experiment`` (the default): the figure the experiment's run drew as ``figure.png``, by
  the experiment's own :meth:`~tapesched.studies.experiment.Experiment.figure` given the
  rows, when the experiment is one of the registry's
  (:data:`~tapesched.studies.registry.EXPERIMENTS`) and its figure is drawn from the rows
  alone (:attr:`~tapesched.studies.experiment.Experiment.redraws_from_rows`: every
  experiment of this version, each writing into its ``results.csv`` what its figure
  needs). Otherwise (an experiment this version does not know, or a plug-in's whose
  figure needs more than the file) the file is drawn a panel per metric, and
  :attr:`Redrawn.note` says why;
- ``metrics``: a panel per metric of the file, whatever the experiment
  (:func:`~tapesched.studies.lines_figure.metrics_figure`);
- ``metric``: one metric, on one panel (``--metric NAME``,
  :func:`~tapesched.studies.sweeps.figure.results_figure`, a swept study's scales and
  labels).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from attrs import frozen

from tapesched.studies.results_file import ResultRow
from tapesched.toolkit.registry import LoadError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from tapesched.studies.experiment import Experiment

LAYOUTS = ("experiment", "metrics", "metric")
"""The layouts of :func:`redraw_results` (see the module)."""


@frozen
class Redrawn:
    """A ``results.csv`` drawn again.

    Attributes
    ----------
    figure
        The figure.
    experiment
        The file's experiment.
    layout
        The layout drawn, one of :data:`LAYOUTS` (``metrics`` when ``experiment`` was asked
        and cannot be drawn).
    metrics
        The metrics drawn, in the order they first appear.
    series
        How many series the drawn rows hold.
    points
        How many rows are drawn.
    note
        Why the experiment's own figure was not drawn (empty when it was, or was not asked).
    """

    figure: Figure
    experiment: str
    layout: str
    metrics: tuple[str, ...]
    series: int
    points: int
    note: str = ""


def redraw_results(
    rows: Sequence[ResultRow], layout: str = "experiment", metric: str | None = None
) -> Redrawn:
    """Draw the rows of a ``results.csv`` in ``layout`` (see the module); ``metric`` is
    the metric of the ``metric`` layout.

    Raises
    ------
    ValueError
        For an unknown layout, a ``metric`` layout without a metric, or a metric no row
        holds (the message lists those the rows hold).
    """
    from tapesched.studies.lines_figure import metrics_figure
    from tapesched.studies.sweeps.figure import results_figure

    if layout not in LAYOUTS:
        raise ValueError(f"{layout!r} is not a layout (one of {', '.join(LAYOUTS)})")
    name = rows[0].experiment if rows else ""
    if layout == "metric":
        if metric is None:
            raise ValueError("the metric layout draws one metric: name it")
        figure = results_figure(rows, metric)
        return _redrawn(figure, name, layout, [r for r in rows if r.metric == metric])
    note = ""
    if layout == "experiment":
        experiment, note = _own_figure(name)
        if experiment is not None:
            from tapesched.studies.experiment import Results

            figure = experiment.figure(Results(name, tuple(rows), {}))
            return _redrawn(figure, name, layout, rows)
    return _redrawn(metrics_figure(rows, title=name), name, "metrics", rows, note)


def _redrawn(
    figure: Figure, name: str, layout: str, rows: Sequence[ResultRow], note: str = ""
) -> Redrawn:
    metrics = tuple(dict.fromkeys(r.metric for r in rows))
    series = len({r.series for r in rows})
    return Redrawn(figure, name, layout, metrics, series, len(rows), note)


def _own_figure(name: str) -> tuple[Experiment | None, str]:
    """The experiment ``name`` when its figure is drawn from its rows alone; else ``None``
    and why its figure is not drawn."""
    from tapesched.studies.registry import EXPERIMENTS, find_experiment

    if name not in EXPERIMENTS.known():
        return None, f"{name!r} is no experiment of this version: a panel per metric"
    try:
        experiment = find_experiment(name)
    except LoadError as exc:
        return None, f"{exc}: a panel per metric"
    if not getattr(experiment, "redraws_from_rows", False):
        return None, (
            f"{name}'s own figure needs more than its results.csv (what its run kept of its "
            "points): a panel per metric"
        )
    return experiment, ""
