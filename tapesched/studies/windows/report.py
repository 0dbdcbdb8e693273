"""``tapesched experiment online-vs-offline``: a simulated run cut into windows, solved both ways.

The scenario runs once (its times fixed), its requests are cut into windows
of ``--window`` requests, and each window is exported as a core-problem
instance (``DIR/windows/wNNN.json``) with the tapes its drives held at its
start. Each online scheduler of ``--solvers`` is run on the window's
instance, and the offline ones (at least one exact) solve it twice: as the
contract has it (the clairvoyant optimum, prefetching allowed) and without
prefetch (the non-anticipative optimum). What a window keeps of the run's
state, and why the ratios stay meaningful, is :mod:`tapesched.studies.windows.study`;
this module is the experiment (:class:`OnlineVsOffline`, a point a window)
and what it writes:

- ``results.csv``: the columns of every experiment's
(:data:`tapesched.studies.sweeps.report.COLUMNS`)
  and ``upper_bound``; a row per series (each online scheduler, and the
  non-anticipative optimum against the clairvoyant one), yardstick and
  metric: ``ratio_to_<yardstick>`` (mean and 95 % half-width over the
  windows, ``replications`` the windows) and ``worst_ratio_to_<yardstick>``
  (the largest, no interval). ``x_name`` is ``window_requests``, ``x`` the
  window's size; ``saturated`` is always false (every window is solved);
  ``upper_bound`` is true when some window's ratio is to a bound, not to a
  proven optimum, so that the figure is an upper bound of the true one.
  Then each window's ratios (:func:`window_rows`): ``x_name`` ``window``, ``x``
  the window's index, a row per series and yardstick, the figure's points.
- ``windows.csv``: a row per window, series and yardstick
  (:data:`WINDOW_COLUMNS`).
- ``summary.json`` (:func:`summary_document`): the settings, each series'
  distribution per yardstick, and every window's yardsticks with each
  solver's run.
- ``figure.png`` (:func:`draw_figure`): the distribution of the ratios per
  series, one panel per yardstick; a ratio to a bound is drawn as a
  triangle. Drawn from the rows alone, so that ``tapesched plot results``
  draws it again from ``results.csv``.

Numbers are written by ``repr``, exactly, as in every experiment's files.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from attrs import frozen
from rich.table import Table

from tapesched.simulator.results.records import Estimate
from tapesched.simulator.scenario.consent import ALLOW_PLUGINS_HELP
from tapesched.studies.experiment import (
    Experiment,
    ExperimentError,
    ExperimentRun,
    Parameter,
    Results,
    Wide,
)
from tapesched.studies.results_file import ResultRow, csv_number
from tapesched.studies.windows.study import (
    LNS_ABOVE,
    YARDSTICKS,
    Distribution,
    Window,
    WindowOutcome,
    distributions,
    is_exact,
    is_online,
    scenario_windows,
    solve_window,
)
from tapesched.toolkit.files.instance_file import instance_to_dict
from tapesched.toolkit.files.json_documents import dumps
from tapesched.toolkit.files.schedule_file import schedule_to_dict
from tapesched.toolkit.plots.figures import new_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

EXPERIMENT = "online-vs-offline"
TITLE = "online schedulers against the clairvoyant and the non-anticipative optimum, per window"
X_NAME = "window_requests"
WINDOW_X_NAME = "window"
"""The x of the rows of each window's ratios (:func:`window_rows`): the window's index."""

RESULT_COLUMNS = ("upper_bound",)
"""The columns of ``results.csv`` after every experiment's."""

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


def result_rows(outcomes: Sequence[WindowOutcome], size: int) -> list[ResultRow]:
    """The rows of ``results.csv`` (their ``extra``: ``upper_bound``)."""
    rows = []
    for series, by_yardstick in distributions(outcomes).items():
        for yardstick, d in by_yardstick.items():
            if d is None:
                continue
            metric = metric_name(yardstick)
            flag = (_flag(d.upper_bound),)
            head = (EXPERIMENT, series, X_NAME, float(size))
            worst = Estimate(d.worst, None, d.estimate.replications)
            rows.append(ResultRow(*head, metric, d.estimate, flag))
            rows.append(ResultRow(*head, "worst_" + metric, worst, flag))
    return rows + window_rows(outcomes)


def window_metric(yardstick: str, upper_bound: bool) -> str:
    """The metric of a window's ratio to ``yardstick``: ``window_ratio_to_clairvoyant``, or
    ``window_ratio_to_clairvoyant_bound`` when it is to the yardstick's bound (an upper
    bound of the ratio)."""
    return "window_" + metric_name(yardstick) + ("_bound" if upper_bound else "")


def window_rows(outcomes: Sequence[WindowOutcome]) -> list[ResultRow]:
    """The rows of each window's ratios, the figure's points (:func:`draw_figure`): a row per
    window (``x_name`` ``window``, ``x`` its index), series and yardstick, a
    :func:`window_metric` each (``mean`` the ratio, empty when there is none; one
    replication)."""
    rows = []
    for outcome in outcomes:
        for series, by_yardstick in outcome.ratios().items():
            for yardstick, ratio in by_yardstick.items():
                upper = ratio.ratio is not None and ratio.upper_bound
                rows.append(
                    ResultRow(
                        EXPERIMENT,
                        series,
                        WINDOW_X_NAME,
                        float(outcome.window.index),
                        window_metric(yardstick, upper),
                        Estimate(ratio.ratio, None, 1),
                        (_flag(upper),),
                    )
                )
    return rows


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
    and yardstick its :meth:`~tapesched.studies.windows.study.Distribution.to_dict`
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
    mean = f"{mark}{d.estimate.mean:.3f}"
    if d.estimate.half_width is not None:
        mean += f" ± {d.estimate.half_width:.2g}"
    return mean, f"{mark}{d.worst:.3f}"


def _window_points(
    rows: Sequence[ResultRow], yardstick: str
) -> dict[str, list[tuple[float, bool]]]:
    """Per series, in the rows' order, each window's ratio to ``yardstick`` and whether it
    is to a bound (windows without a ratio left out; a series with none kept)."""
    metrics = {window_metric(yardstick, False): False, window_metric(yardstick, True): True}
    points: dict[str, list[tuple[float, bool]]] = {}
    for r in rows:
        if r.x_name == WINDOW_X_NAME and r.metric in metrics:
            kept = points.setdefault(r.series, [])
            if r.estimate.mean is not None:
                kept.append((r.estimate.mean, metrics[r.metric]))
    return points


def draw_figure(rows: Sequence[ResultRow]) -> Figure:
    """The ratios per series as box plots, one panel per yardstick, from the rows of
    ``results.csv`` (each window's, :func:`window_rows`; ``tapesched plot results`` draws
    it again from the file)."""
    windows = len({r.x for r in rows if r.x_name == WINDOW_X_NAME})
    sizes = [r.x for r in rows if r.x_name == X_NAME]
    figure = new_figure(9.0, 4.8)
    panels = figure.subplots(1, len(YARDSTICKS), sharey=True)
    for axes, yardstick in zip(panels, YARDSTICKS, strict=True):
        by_series = _window_points(rows, yardstick)
        names = list(by_series)
        proven: list[tuple[int, float]] = []
        bounded: list[tuple[int, float]] = []
        columns: list[list[float]] = []
        for k, name in enumerate(names, start=1):
            columns.append([value for value, _ in by_series[name]])
            for value, upper_bound in by_series[name]:
                (bounded if upper_bound else proven).append((k, value))
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
    size = f" of {sizes[0]:g} requests" if sizes else ""
    figure.suptitle(f"{EXPERIMENT}: windows{size} ({windows} windows)", fontsize=10)
    return figure


QUICK_WINDOWS = 3
"""Windows solved by a ``--quick`` run (the first ones)."""

QUICK_TIME_LIMIT_S = 10.0
"""Each solver's time limit per window and yardstick in a ``--quick`` run (unless given)."""

TIME_LIMIT_S = 30.0
"""Each solver's time limit per window and yardstick otherwise (unless given)."""

PARAMETERS = (
    Parameter(
        "scenario",
        "path",
        "The scenario whose run is cut into windows.",
        required=True,
        positional=True,
        metavar="SCENARIO",
    ),
    Parameter(
        "window",
        "integer",
        "Requests per window (on ampex-window.json CP-SAT proves most windows of 6 or 8 "
        "in seconds; some starting with every drive full, not in 30 s).",
        low=1,
        high=1000,
        required=True,
    ),
    Parameter(
        "solvers",
        "text",
        "Comma-separated solvers: the online ones are compared, the others (at least one "
        "exact: cpsat, milp-cbc, milp-highs) give the yardsticks. Default: every online "
        "heuristic and cpsat.",
    ),
    Parameter(
        "time_limit",
        "time-limit",
        f"Each offline solver's limit per window and yardstick (default {TIME_LIMIT_S:g} s, "
        f"--quick {QUICK_TIME_LIMIT_S:g} s).",
        quick=QUICK_TIME_LIMIT_S,
        full=TIME_LIMIT_S,
    ),
    Parameter("seed", "integer", "The run's seed (default: the scenario's) and the solvers'."),
    Parameter(
        "lns_above",
        "integer",
        "Windows of more requests than this get lns among the offline solvers "
        "(too large for an exact solver to prove).",
        quick=LNS_ABOVE,
        full=LNS_ABOVE,
        low=0,
        show_default=True,
    ),
    Parameter("allow_plugins", "flag", ALLOW_PLUGINS_HELP),
)
"""The experiment's options."""


def default_solvers() -> str:
    """Every online heuristic of the registry, then ``cpsat``."""
    from tapesched.solvers.registry import SOLVERS

    online = [n for n in SOLVERS.names() if SOLVERS.entry(n).metadata.get("online")]
    return ",".join([*online, "cpsat"])


@frozen
class WindowTask:
    """A point of the experiment: a window, and how it is solved."""

    window: Window
    online: tuple[str, ...]
    offline: tuple[str, ...]
    time_limit_s: float
    seed: int
    lns_above: int


@frozen
class SolvedWindow:
    """What a point gives: its task, and the window solved."""

    task: WindowTask
    outcome: WindowOutcome


def _table(outcomes: Sequence[WindowOutcome], size: int) -> Wide:
    """Mean ± 95 % half-width and worst ratio per series and yardstick (``≤``: to a bound)."""
    table = Table(
        title=f"{EXPERIMENT}: weighted flow over the optimum, {len(outcomes)} windows of {size} "
        "requests (≤: over a bound, an upper bound)"
    )
    table.add_column("series")
    for yardstick in YARDSTICKS:
        table.add_column(f"{yardstick}: mean", justify="right")
        table.add_column("worst", justify="right")
    for series, by_yardstick in distributions(outcomes).items():
        cells: list[str] = []
        for yardstick in YARDSTICKS:
            cells.extend(table_cell(by_yardstick.get(yardstick)))
        table.add_row(series, *cells)
    return Wide(table, 130)


class OnlineVsOffline(Experiment):
    """The experiment ``online-vs-offline`` (see the module)."""

    name = EXPERIMENT
    description = (
        "a simulated run cut into windows, each online scheduler against the clairvoyant and "
        "the non-anticipative optimum"
    )
    parameters = PARAMETERS
    outputs = ("windows.csv", "windows/")
    redraws_from_rows = True
    quick_help = f"The first {QUICK_WINDOWS} windows only, {QUICK_TIME_LIMIT_S:g} s per solve."
    help = """Cut a simulated run of SCENARIO into windows; each online scheduler against the
    optima.

    Each window of --window requests becomes an instance (DIR/windows/wNNN.json,
    re-solvable by anyone with `tapesched solve`, with the yardsticks'
    schedules beside it) holding the tapes in the drives at its start; the
    head positions, the drives' and arms' remaining work are not kept (the
    same simplification for every schedule compared: the online schedulers
    are re-run on the window's instance). Yardsticks: the clairvoyant
    optimum (prefetch allowed) and the non-anticipative one (solve
    --no-prefetch). Writes results.csv (experiment, series, x_name, x,
    metric, mean, half_width, replications, saturated, upper_bound),
    windows.csv (a row per window, series and yardstick), summary.json
    (mean, worst and quartiles per series and yardstick; every window) and
    figure.png (the ratios' distribution per series). A window of more
    than --lns-above requests is also solved by lns; windows.csv and
    summary.json name the solver of each yardstick's value.
    """

    def details(self) -> list[str]:
        """How to run it."""
        return [f"tapesched experiment {EXPERIMENT} SCENARIO --window N --out DIR (see --help)"]

    def points(self, run: ExperimentRun) -> list[WindowTask]:
        """The windows of the scenario's run, the solvers and the scenario checked first."""
        from tapesched.simulator.results.export import ExportError
        from tapesched.simulator.scenario.consent import named_code_problems
        from tapesched.simulator.scenario.document import load_scenario
        from tapesched.simulator.scenario.spec import check_runnable
        from tapesched.solvers.plugins import solver_list

        given = run["solvers"]
        names, problems = solver_list(default_solvers() if given is None else given)
        if problems:
            raise ExperimentError(problems)
        online = tuple(n for n in names if is_online(n))
        offline = tuple(n for n in names if not is_online(n))
        if not online:
            raise ExperimentError(["--solvers: names no online scheduler to compare"])
        if not any(is_exact(n) for n in offline):
            why = "names no exact solver (cpsat, milp-cbc, milp-highs) for the yardsticks"
            raise ExperimentError([f"--solvers: {why}"])
        source, size = run["scenario"], run["window"]
        scenario = load_scenario(source)
        problems = named_code_problems(scenario, source, bool(run["allow_plugins"]))
        problems = problems or [f"{source}: {p}" for p in check_runnable(scenario)]
        if problems:
            raise ExperimentError(problems)
        seed = scenario.run.seed if run["seed"] is None else run["seed"]
        try:
            windows = scenario_windows(scenario, size, seed)
        except ExportError as exc:
            raise ExperimentError([f"{source}: {exc}"]) from None
        if not windows:
            raise ExperimentError(
                [f"--window: {size} is more requests than the run of {source} has"]
            )
        if run.quick:
            windows = windows[:QUICK_WINDOWS]
        limit, lns_above = run["time_limit"], run["lns_above"]
        run.show.line(
            f"{EXPERIMENT}: {len(windows)} windows of {size} requests from {source} "
            f"(seed {seed}); online {', '.join(online)}; offline {', '.join(offline)}, "
            f"{limit:g} s each; lns too on windows of more than {lns_above} requests"
        )
        return [WindowTask(w, online, offline, limit, seed, lns_above) for w in windows]

    def run_point(self, task: WindowTask, run: ExperimentRun) -> SolvedWindow:
        """Solve one window: every online scheduler, then both yardsticks."""
        outcome = solve_window(
            task.window,
            task.online,
            task.offline,
            time_limit_s=task.time_limit_s,
            seed=task.seed,
            lns_above=task.lns_above,
        )
        return SolvedWindow(task, outcome)

    def results(
        self, run: ExperimentRun, outcomes: Sequence[SolvedWindow], elapsed_s: float
    ) -> Results:
        """The ratios' rows, the windows' files, the summary and the table."""
        solved = [s.outcome for s in outcomes]
        task = outcomes[0].task
        size = run["window"]
        settings = {
            "scenario_file": run["scenario"],
            "window_requests": size,
            "windows": len(solved),
            "online": list(task.online),
            "offline": list(task.offline),
            "time_limit_s": task.time_limit_s,
            "seed": task.seed,
            "lns_above": task.lns_above,
            "quick": run.quick,
            "elapsed_s": elapsed_s,
        }
        files = {"windows.csv": windows_csv(solved)}
        for outcome in solved:
            index = outcome.window.index
            files[window_file(index)] = dumps(instance_to_dict(outcome.window.instance))
            for name, yardstick in outcome.yardsticks.items():
                files[yardstick_file(index, name)] = dumps(schedule_to_dict(yardstick.schedule))
        return Results(
            EXPERIMENT,
            tuple(result_rows(solved, size)),
            summary_document(solved, settings),
            tuple(outcomes),
            columns=RESULT_COLUMNS,
            files=files,
            report=(_table(solved, size),),
            ending=lambda out: f"solved in {elapsed_s:.1f} s; wrote {out}",
        )

    def figure(self, results: Results) -> Figure:
        """The ratios' distribution per series, a panel per yardstick, from the rows alone
        (:func:`draw_figure`)."""
        return draw_figure(results.rows)
