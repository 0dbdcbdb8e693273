"""``tapesched experiment online-vs-offline``: a simulated run cut into windows, solved both ways.

The scenario runs once (its times fixed), its requests are cut into windows
of ``--window`` requests, and each window is exported as a core-problem
instance (``DIR/windows/wNNN.json``) with the tapes its drives held at its
start. Each online scheduler of ``--solvers`` is run on the window's
instance, and the offline ones (at least one exact) solve it twice: as the
contract has it (the clairvoyant optimum, prefetching allowed) and without
prefetch (the non-anticipative optimum). What a window keeps of the run's
state, and why the ratios stay meaningful, is :mod:`tapesched.studies.windows`;
the files are :mod:`tapesched.studies.window_report`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import click
from rich.console import Console
from rich.table import Table

from tapesched.cli.common import (
    TimeLimitType,
    allow_plugins_option,
    check_named_code,
    checked_solvers,
    fail,
    progress_bar,
    reports_bad_input,
)
from tapesched.cli.out_options import dir_out_option
from tapesched.toolkit.files.outputs import DirectoryOutput

if TYPE_CHECKING:
    from tapesched.studies.windows import WindowOutcome

NAME = "online-vs-offline"
"""The experiment's name under ``tapesched experiment``."""

OUT_FILES = ("results.csv", "windows.csv", "summary.json", "figure.png", "windows/")
"""What the experiment writes to ``--out``; an existing directory holding only these is replaced."""

LNS_ABOVE = 16
"""Default of ``--lns-above`` (:data:`tapesched.studies.windows.LNS_ABOVE`, not imported here so
that
``tapesched --help`` does not load the simulator)."""

QUICK_WINDOWS = 3
"""Windows solved by a ``--quick`` run (the first ones)."""

QUICK_TIME_LIMIT_S = 10.0
"""Each solver's time limit per window and yardstick in a ``--quick`` run (unless given)."""

TIME_LIMIT_S = 30.0
"""Each solver's time limit per window and yardstick otherwise (unless given)."""


def _default_solvers() -> str:
    """Every online heuristic of the registry, then ``cpsat``."""
    from tapesched.solvers.registry import SOLVERS

    online = [n for n in SOLVERS.names() if SOLVERS.entry(n).metadata.get("online")]
    return ",".join([*online, "cpsat"])


def _print_table(outcomes: Sequence[WindowOutcome], size: int) -> None:
    """Mean ± 95 % half-width and worst ratio per series and yardstick (``≤``: to a bound)."""
    from tapesched.studies.window_report import table_cell
    from tapesched.studies.windows import YARDSTICKS, distributions

    table = Table(
        title=f"{NAME}: weighted flow over the optimum, {len(outcomes)} windows of {size} "
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
    Console(width=130).print(table)


@click.command(name=f"experiment {NAME}")
@click.argument("scenario_file", metavar="SCENARIO", type=click.Path())
@click.option(
    "--window",
    "size",
    type=click.IntRange(min=1, max=1000),
    required=True,
    help="Requests per window (on ampex-window.json CP-SAT proves most windows of 6 or 8 "
    "in seconds; some starting with every drive full, not in 30 s).",
)
@click.option(
    "--solvers",
    "solver_text",
    default=None,
    help="Comma-separated solvers: the online ones are compared, the others (at least one "
    "exact: cpsat, milp-cbc, milp-highs) give the yardsticks. Default: every online "
    "heuristic and cpsat.",
)
@dir_out_option(
    OUT_FILES,
    "Directory to write (results.csv, windows.csv, summary.json, figure.png, windows/), "
    "whole or not at all.",
)
@click.option(
    "--quick",
    is_flag=True,
    help=f"The first {QUICK_WINDOWS} windows only, {QUICK_TIME_LIMIT_S:g} s per solve.",
)
@click.option(
    "--time-limit",
    "time_limit_s",
    type=TimeLimitType(),
    default=None,
    help=f"Each offline solver's limit per window and yardstick (default {TIME_LIMIT_S:g} s, "
    f"--quick {QUICK_TIME_LIMIT_S:g} s).",
)
@click.option(
    "--seed",
    type=int,
    default=None,
    help="The run's seed (default: the scenario's) and the solvers'.",
)
@click.option(
    "--lns-above",
    "lns_above",
    type=click.IntRange(min=0),
    default=LNS_ABOVE,
    show_default=True,
    help="Windows of more requests than this get lns among the offline solvers "
    "(too large for an exact solver to prove).",
)
@allow_plugins_option
@reports_bad_input
def online_vs_offline(
    scenario_file: str,
    size: int,
    solver_text: str | None,
    out: DirectoryOutput | None,
    quick: bool,
    time_limit_s: float | None,
    seed: int | None,
    lns_above: int,
    allow_plugins: bool,
) -> None:
    """Cut a simulated run of SCENARIO into windows; each online scheduler against the optima.

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
    from tapesched.simulator.run.export import ExportError
    from tapesched.simulator.scenario.document import load_scenario
    from tapesched.simulator.scenario.spec import check_runnable
    from tapesched.studies.windows import is_exact, is_online, scenario_windows, solve_window

    names = checked_solvers(_default_solvers() if solver_text is None else solver_text)
    online = [n for n in names if is_online(n)]
    offline = [n for n in names if not is_online(n)]
    if not online:
        fail(["--solvers: names no online scheduler to compare"])
    if not any(is_exact(n) for n in offline):
        fail(["--solvers: names no exact solver (cpsat, milp-cbc, milp-highs) for the yardsticks"])
    if out is None:
        fail(["--out: required, and missing"])
    scenario = load_scenario(scenario_file)
    check_named_code(scenario, scenario_file, allow_plugins)
    problems = check_runnable(scenario)
    if problems:
        fail([f"{scenario_file}: {p}" for p in problems])
    run_seed = scenario.run.seed if seed is None else seed
    try:
        windows = scenario_windows(scenario, size, run_seed)
    except ExportError as exc:
        fail([f"{scenario_file}: {exc}"])
    if not windows:
        fail([f"--window: {size} is more requests than the run of {scenario_file} has"])
    if quick:
        windows = windows[:QUICK_WINDOWS]
    limit = time_limit_s or (QUICK_TIME_LIMIT_S if quick else TIME_LIMIT_S)
    click.echo(
        f"{NAME}: {len(windows)} windows of {size} requests from {scenario_file} "
        f"(seed {run_seed}); online {', '.join(online)}; offline {', '.join(offline)}, "
        f"{limit:g} s each; lns too on windows of more than {lns_above} requests"
    )
    began = time.perf_counter()
    outcomes = []
    with progress_bar() as progress:
        task = progress.add_task(NAME, total=len(windows), current="")
        for window in windows:
            progress.update(task, current=f"window {window.index}")
            outcomes.append(
                solve_window(
                    window,
                    online,
                    offline,
                    time_limit_s=limit,
                    seed=run_seed,
                    lns_above=lns_above,
                )
            )
            progress.update(task, advance=1)
    elapsed = time.perf_counter() - began
    _print_table(outcomes, size)
    settings = {
        "scenario_file": scenario_file,
        "window_requests": size,
        "windows": len(windows),
        "online": online,
        "offline": offline,
        "time_limit_s": limit,
        "seed": run_seed,
        "lns_above": lns_above,
        "quick": quick,
        "elapsed_s": elapsed,
    }
    _write(out, outcomes, size, settings)
    click.echo(f"solved in {elapsed:.1f} s; wrote {out.given}")


def _write(
    out: DirectoryOutput,
    outcomes: Sequence[WindowOutcome],
    size: int,
    settings: dict[str, object],
) -> None:
    """The directory: the CSVs, the summary, the figure, and every window's files."""
    from tapesched.studies.window_report import (
        draw_figure,
        results_csv,
        summary_document,
        window_file,
        windows_csv,
        yardstick_file,
    )
    from tapesched.toolkit.files.instance_file import save_instance
    from tapesched.toolkit.files.json_documents import dumps, write_atomic
    from tapesched.toolkit.files.schedule_file import save_schedule

    with out.building() as staging:
        (staging / "windows").mkdir()
        for outcome in outcomes:
            index = outcome.window.index
            save_instance(outcome.window.instance, staging / window_file(index))
            for name, yardstick in outcome.yardsticks.items():
                save_schedule(yardstick.schedule, staging / yardstick_file(index, name))
        write_atomic(staging / "results.csv", results_csv(outcomes, size))
        write_atomic(staging / "windows.csv", windows_csv(outcomes))
        write_atomic(staging / "summary.json", dumps(summary_document(outcomes, settings)))
        draw_figure(outcomes, size, staging / "figure.png")
