"""``tapesched solve``: run a solver of the registry on an instance and write its schedule."""

from __future__ import annotations

import click

from toolkit.cli.common import (
    EXIT_INFEASIBLE,
    TimeLimitType,
    fail,
    print_violations,
    reports_bad_input,
)
from toolkit.cli.out_options import file_out_option
from toolkit.io import dumps, load_instance, schedule_to_dict
from toolkit.outputs import FileOutput
from toolkit.validator import validate


@click.command()
@click.argument("instance_file", type=click.Path())
@click.option(
    "--solver",
    "solver_name",
    default="greedy",
    show_default=True,
    help=(
        "A solver of the registry or a plug-in scheduler (see `tapesched solvers`), "
        "or a scheduler of one's own as module.path:Attr."
    ),
)
@file_out_option("Where to write the schedule (JSON); - for standard output.", required=True)
@click.option(
    "--time-limit",
    "time_limit_s",
    type=TimeLimitType(),
    default=None,
    help="How long the solver may run: 90 (seconds), 90s, 2min, 1h.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of random choices.")
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Parallel search workers of a solver that has them (cpsat); default: the solver's.",
)
@reports_bad_input
def solve(
    instance_file: str,
    solver_name: str,
    out: FileOutput,
    time_limit_s: float | None,
    seed: int,
    workers: int | None,
) -> None:
    """Solve an instance and write the schedule; print status, objective, bound, runtime.

    With --out -, the schedule is written to standard output and these
    lines to standard error.
    """
    import solvers
    from solvers.plugins import SchedulerSpecError, find_solver
    from solvers.registry import UnknownSolverError

    try:
        find_solver(solver_name)
    except (UnknownSolverError, SchedulerSpecError) as exc:
        fail([f"--solver: {exc}"])
    if workers is not None and not solvers.takes_workers(solver_name):
        fail([f"--workers: solver {solver_name!r} runs on one thread and takes no workers"])
    instance = load_instance(instance_file)
    result = solvers.solve(
        instance, solver=solver_name, time_limit_s=time_limit_s, seed=seed, workers=workers
    )
    click.echo(
        f"solver {result.solver}: status {result.status.value}, runtime {result.runtime_s:.3f} s"
    )
    if result.schedule is None:
        click.echo("no schedule found; nothing written")
        raise SystemExit(EXIT_INFEASIBLE)
    report = validate(instance, result.schedule)
    if not report.feasible:
        print_violations(report)
        click.echo("the solver returned an infeasible schedule; nothing written", err=True)
        raise SystemExit(EXIT_INFEASIBLE)
    out.write(dumps(schedule_to_dict(result.schedule)))
    bound = "none" if result.bound is None else f"{result.bound:.6f}"
    click.echo(f"wrote {out.given}")
    click.echo(f"bound: {bound}")
    click.echo(f"objective {report.objective_name}: {report.objective:.6f}")
