"""An experiment as a plug-in: what it declares, how its points run, and what it gives back.

Every study of the project (the Blue Waters and Golubchik figures, ``online-vs-offline``,
``bnl-coverage``, ``ecmwf-defer-dismount``, ``cnaf-bulk-recall``, ``durability``) is an
:class:`Experiment`, found by name in one registry (:mod:`tapesched.studies.registry`), and
so is a user's own (``module.path:Class``, or an entry point of ``tapesched.experiments``).
An experiment declares:

- its ``name`` and a one-line ``description`` (``tapesched experiment --list``);
- its ``parameters`` (:class:`Parameter`): each a name, a type, a help text and the value a
  run takes when it is not given, with ``--quick`` and without. ``tapesched experiment
  NAME`` makes an option of each (``--max-replications``), and
  :func:`tapesched.studies.runner.run_experiment` takes each as a keyword;
- :meth:`Experiment.points`: the points a run covers, from its settings (:class:`ExperimentRun`),
  checked before any work (:class:`ExperimentError`: one line per problem);
- :meth:`Experiment.run_point`: how one point runs (what it gives is the experiment's own);
- :meth:`Experiment.results`: the points' outcomes as :class:`Results`, the rows of
  ``results.csv`` (:class:`~tapesched.studies.results_file.ResultRow`), the document of
  ``summary.json`` and what the terminal shows;
- :meth:`Experiment.figure`: its figure, drawn from those results; when it is drawn from the
  rows alone (:attr:`Experiment.redraws_from_rows`), ``tapesched plot results`` draws it
  again from ``results.csv``.

:func:`~tapesched.studies.runner.run_experiment` runs one, and one writer writes every
experiment's directory, whole or not at all. A class that subclasses :class:`Experiment`
inherits the defaults below; a user's experiment need only say what its points are and
how one runs, each giving rows (docs/guide/plug-ins.md, "Your own experiment").
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Any, Protocol

from attrs import field, frozen

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from tapesched.studies.results_file import ResultRow

KINDS = ("integer", "number", "duration", "time-limit", "text", "path", "choice", "flag")
"""The types a parameter may have: an integer, a finite number, a simulated span with its
unit (``6d``), a solver's time limit (``90``, ``2min``), text, a file's path, one of
``choices``, or a flag (true when given)."""


def _kind(_: object, attribute: object, value: str) -> None:
    if value not in KINDS:
        raise ValueError(f"a parameter's kind is one of {', '.join(KINDS)}, got {value!r}")


@frozen
class Parameter:
    """One setting of an experiment, an option of ``tapesched experiment NAME``.

    Attributes
    ----------
    name
        Its name as a keyword of :func:`~tapesched.studies.runner.run_experiment` and in
        :class:`ExperimentRun`; the option is ``--`` and the name with ``-`` for ``_``.
    kind
        Its type, one of :data:`KINDS`.
    help
        One or two sentences for ``--help``.
    quick, full
        The value a run takes when the parameter is not given, with ``--quick`` and
        without (``None``: none, which the experiment reads as "not given").
    low, high, low_open
        Bounds of an ``integer`` or ``number`` (``None``: unbounded; ``low_open``: above
        ``low``, not at it).
    choices
        The values of a ``choice``.
    required
        Whether a run must be given it.
    positional
        An argument of the command line (``SCENARIO``), not an option.
    metavar
        How help names its value (``ADDRESS``); by default its type's.
    show_default
        Whether help shows the value taken when it is not given.
    """

    name: str
    kind: str = field(validator=_kind)
    help: str
    quick: object = None
    full: object = None
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    choices: tuple[str, ...] = ()
    required: bool = False
    positional: bool = False
    metavar: str | None = None
    show_default: bool = False

    @property
    def option(self) -> str:
        """How the command line names it: ``--max-replications``, or ``SCENARIO``."""
        if self.positional:
            return self.metavar or self.name.upper()
        return "--" + self.name.replace("_", "-")

    def value(self, given: object, quick: bool) -> object:
        """What a run takes: ``given``, or the quick or full value when it is ``None``."""
        if given is not None:
            return given
        return self.quick if quick else self.full

    def to_dict(self) -> dict[str, object]:
        """As ``tapesched experiment --list --json`` lists it."""
        return {
            "name": self.name,
            "option": self.option,
            "type": self.kind,
            "help": self.help,
            "quick": self.quick,
            "full": self.full,
            "required": self.required,
            **({"choices": list(self.choices)} if self.choices else {}),
        }


class ExperimentError(ValueError):
    """Settings an experiment cannot run with: one line per problem, each naming the option
    (``--workers: not with --dask``) or the file at fault. The command line prints them and
    exits with code 2."""

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = list(lines)
        super().__init__("\n".join(self.lines))


@contextmanager
def _no_progress(name: str, total: int) -> Iterator[Callable[[int, str], None]]:
    yield lambda done, current: None


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _nowhere(item: object) -> None:
    return None


@frozen
class Show:
    """Where a run reports as it goes (the command line: its terminal; Python: nowhere but
    warnings on standard error, unless given).

    Attributes
    ----------
    line
        Takes a line of the run's report (what it is about to do, what it did).
    warn
        Takes a warning line (a cache entry run again).
    render
        Takes a table of the report (:class:`Wide`).
    progress
        ``progress(name, total)`` opens a progress of ``total`` steps; it gives a function
        taking the steps done and what runs now.
    """

    line: Callable[[str], None] = _nowhere
    warn: Callable[[str], None] = _to_stderr
    render: Callable[[Wide], None] = _nowhere
    progress: Callable[[str, int], AbstractContextManager[Callable[[int, str], None]]] = (
        _no_progress
    )


@frozen
class Wide:
    """A table of a report (a ``rich`` renderable), and the width of the console it is
    drawn for."""

    renderable: object
    width: int


@frozen
class ExperimentRun:
    """One run of an experiment: its settings, and where it reports.

    Attributes
    ----------
    experiment
        The experiment's name.
    quick
        Whether the run is ``--quick``.
    values
        Every parameter's value (:meth:`Parameter.value`), by name.
    out
        The directory the run writes (a sweep keeps its cache beside it); ``None`` when
        it writes none.
    show
        Where it reports.
    """

    experiment: str
    quick: bool
    values: Mapping[str, Any]
    out: str | None = None
    show: Show = Show()

    def __getitem__(self, name: str) -> Any:
        """The value of the parameter ``name``."""
        return self.values[name]

    def settings(self) -> dict[str, object]:
        """``quick`` and every value, for a ``summary.json``."""
        return {"quick": self.quick, **self.values}


def wrote(out: str) -> str:
    """The line a run ends with by default, once its directory is written."""
    return f"wrote {out}"


@frozen
class Results:
    """What a run of an experiment gives: its files' contents and its report.

    Attributes
    ----------
    experiment
        The experiment's name.
    rows
        ``results.csv``: a row per point, series and metric.
    summary
        ``summary.json``'s document.
    outcomes
        What the figure is drawn from: by default what each point gave
        (:meth:`Experiment.run_point`), in the points' order.
    columns
        Columns of ``results.csv`` after the common ones
        (:data:`~tapesched.studies.results_file.COLUMNS`); each row gives their values
        (``online-vs-offline``'s ``upper_bound``).
    files
        Other files of the directory, by path inside it (``windows/w000.json``), and their
        text.
    report
        What the terminal shows once the points are run: lines and tables.
    ending
        The last line, given the directory written.
    """

    experiment: str
    rows: tuple[ResultRow, ...]
    summary: Mapping[str, object]
    outcomes: tuple[Any, ...] = ()
    columns: tuple[str, ...] = ()
    files: Mapping[str, str] = field(factory=dict)
    report: tuple[str | Wide, ...] = ()
    ending: Callable[[str], str] = wrote


OUT_FILES = ("results.csv", "summary.json", "figure.png")
"""What every experiment writes to its directory."""


class Experiment(Protocol):
    """A study that runs: see the module. A subclass inherits the defaults (``help``,
    ``quick_help``, ``outputs``, ``redraws_from_rows``, :meth:`details`, :meth:`run_points`,
    :meth:`results`, :meth:`figure`); its name, description and parameters may be class
    attributes (one that does not subclass it and has no ``redraws_from_rows`` is taken
    not to redraw)."""

    @property
    def name(self) -> str:
        """Its name (``tapesched experiment NAME``): one word, no ``:`` nor ``,``."""
        ...

    @property
    def description(self) -> str:
        """One line, for ``--list`` and the names' help."""
        ...

    @property
    def parameters(self) -> Sequence[Parameter]:
        """Its settings, each an option of its command (:class:`Parameter`)."""
        ...

    @property
    def help(self) -> str:
        """The help of its command (default: none, the description is shown)."""
        return ""

    @property
    def quick_help(self) -> str:
        """What ``--quick`` does (the help of the option)."""
        return "Take each parameter's quick value: a smaller run."

    @property
    def outputs(self) -> Sequence[str]:
        """Files it writes besides :data:`OUT_FILES` (``windows/`` for a directory of files;
        default: none)."""
        return ()

    @property
    def redraws_from_rows(self) -> bool:
        """Whether :meth:`figure` draws from :attr:`Results.rows` alone (nothing of the
        outcomes nor of the summary), so that ``tapesched plot results`` draws the figure
        again from ``results.csv`` (:func:`tapesched.studies.sweeps.redraw.redraw_results`).
        Default: false, the file is then drawn a panel per metric."""
        return False

    def details(self) -> Sequence[str]:
        """Lines ``--list`` shows under the description (default: none)."""
        return ()

    def points(self, run: ExperimentRun) -> Sequence[Any]:
        """The points of ``run``, in the order they run and are reported.

        Raises
        ------
        ExperimentError
            When the settings cannot run (before any work).
        """
        ...

    def run_point(self, point: Any, run: ExperimentRun) -> Any:
        """Run one point; what it gives is what :meth:`results` reads (by default, result
        rows: one :class:`~tapesched.studies.results_file.ResultRow` or a sequence)."""
        ...

    def run_points(self, points: Sequence[Any], run: ExperimentRun) -> Sequence[Any]:
        """Every point's outcome, in order (default: :meth:`run_point` on each in turn)."""
        return run_in_turn(self, points, run)

    def results(self, run: ExperimentRun, outcomes: Sequence[Any], elapsed_s: float) -> Results:
        """The run's results from its points' outcomes (``elapsed_s``: the time they took).

        By default the outcomes are rows, and ``summary.json`` holds the experiment, its
        description and its settings.
        """
        return rows_results(self, run, outcomes, elapsed_s)

    def figure(self, results: Results) -> Figure:
        """The experiment's figure (default: the first metric of the rows against x, a
        line per series; :func:`tapesched.studies.lines_figure.lines_figure`)."""
        from tapesched.studies.lines_figure import lines_figure

        rows = results.rows
        metric = rows[0].metric if rows else ""
        drawn = [r for r in rows if r.metric == metric]
        x_label = drawn[0].x_name if drawn else "x"
        return lines_figure(drawn, metric, title=results.experiment, x_label=x_label)


def run_in_turn(experiment: Experiment, points: Sequence[Any], run: ExperimentRun) -> list[Any]:
    """Run each point in this process, one after the other, showing the progress."""
    outcomes = []
    with run.show.progress(experiment.name, len(points)) as tick:
        for done, point in enumerate(points, 1):
            outcomes.append(experiment.run_point(point, run))
            tick(done, f"{done} of {len(points)} points")
    return outcomes


def rows_results(
    experiment: Experiment, run: ExperimentRun, outcomes: Sequence[Any], elapsed_s: float
) -> Results:
    """The results of outcomes that are rows, or sequences of rows (the default)."""
    from tapesched.studies.results_file import ResultRow

    rows: list[ResultRow] = []
    for outcome in outcomes:
        rows.extend([outcome] if isinstance(outcome, ResultRow) else outcome)
    summary = {
        "experiment": experiment.name,
        "title": experiment.description,
        "settings": {**run.settings(), "elapsed_s": elapsed_s},
    }
    return Results(experiment.name, tuple(rows), summary, tuple(outcomes))
