"""``tapesched solve``: run a solver of the registry on an instance and write its schedule."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import attrs
import click

from tapesched.cli.common import (
    EXIT_INFEASIBLE,
    NO_PREFETCH_HELP,
    TimeLimitType,
    fail,
    gap_option,
    print_violations,
    reports_bad_input,
)
from tapesched.cli.out_options import file_out_option
from tapesched.solvers.registry import names
from tapesched.toolkit.files.instance_file import load_instance
from tapesched.toolkit.files.json_documents import dumps
from tapesched.toolkit.files.outputs import FileOutput
from tapesched.toolkit.files.schedule_file import schedule_to_dict
from tapesched.toolkit.runtime.limits import MAX_WORKERS
from tapesched.toolkit.validator import validate

if TYPE_CHECKING:
    from tapesched.solvers.result import Progress


def log_line(point: Progress) -> None:
    """Print one point of a trajectory on standard error: time, incumbent, bound, gap."""
    gap = point.gap()
    bound = "none" if point.bound is None else f"{point.bound:.6f}"
    shown = "none" if gap is None else f"{100 * gap:.2f} %"
    click.echo(
        f"[{point.time_s:8.2f} s] incumbent {point.objective:.6f}  bound {bound}  gap {shown}",
        err=True,
    )


@click.command(short_help="Solve an instance and write its schedule.")
@click.argument("instance_file", type=click.Path())
@click.option(
    "--solver",
    "solver_name",
    default="greedy",
    show_default=True,
    help=(
        f"A solver of the registry ({', '.join(names())}) or a plug-in scheduler (see "
        "`tapesched solvers`), or a scheduler of one's own as module.path:Attr."
    ),
)
@file_out_option(
    "Where to write the schedule (JSON); - for standard output; left out, the schedule is "
    "checked and its summary printed, and nothing is written."
)
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
    type=click.IntRange(min=1, max=MAX_WORKERS),
    default=None,
    help="Parallel search workers of a solver that has them (cpsat); default: the solver's.",
)
@click.option(
    "--iterations",
    type=click.IntRange(min=1),
    default=None,
    help="Iteration budget of a solver that takes one (lns: rounds); default: the solver's.",
)
@gap_option("the solver")
@click.option(
    "--log",
    "log",
    is_flag=True,
    help="Print the incumbent, the bound and the gap on standard error as they change.",
)
@click.option(
    "--no-prefetch",
    "no_prefetch",
    is_flag=True,
    help=NO_PREFETCH_HELP + " The exact solvers model it; online heuristics never prefetch.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the result as JSON instead of lines (not with --out -).",
)
@click.option(
    "--mount-policy",
    default=None,
    metavar="SPEC",
    help="Mount policy of an online heuristic: keep (the default), lru, fifo, lfu, belady, "
    "at-once, defer:T, cta:bytes=B,files=N,age=T[,drives=D], "
    "dcache:share=S,min-wait=T,max-age=T,tapes=N, joined by + (lru+defer:300), "
    "or module.path:Attr (see solvers/online/mount_policy.py).",
)
@reports_bad_input
def solve(
    instance_file: str,
    solver_name: str,
    out: FileOutput | None,
    time_limit_s: float | None,
    seed: int,
    workers: int | None,
    iterations: int | None,
    gap: float | None,
    log: bool,
    no_prefetch: bool,
    as_json: bool,
    mount_policy: str | None,
) -> None:
    """Solve an instance and write the schedule; print status, objective, bound, runtime.

    Without --out, the schedule is checked by the validator and summed up, and nothing is
    written; --out /dev/null is the same. With --out -, the schedule is written to standard
    output and these lines to standard error. ``--json`` prints one object instead:
    ``instance`` (the file), ``solver``, ``status`` (optimal, feasible,
    infeasible, timeout, not-built: an exact model too large to build in
    the time limit, the warm start written instead), ``reason`` (for
    not-built, the limit the model met; else null), ``runtime_s``, ``bound`` (null when none),
    ``objective_name``, ``objective`` (as the validator recomputes it; null
    without a feasible schedule), ``feasible`` and ``out`` (the file
    written, null when nothing was) and ``trajectory``: the incumbent
    and the bound each time they changed, a list of ``time_s``,
    ``objective``, ``bound`` (what ``tapesched plot trajectory`` draws).

    ``--log`` prints one line per improvement on standard error, as it
    comes from the solvers that report them (local-search, lns), at the
    end from the others: the elapsed seconds, the incumbent, the bound and
    the gap (the share of the incumbent above the bound).

    ``--no-prefetch`` solves the non-anticipative problem: no mount, load or
    locate serving a request starts before its release (``verify
    --no-prefetch`` checks it). The exact solvers (cpsat, milp-cbc,
    milp-highs) model it and the online heuristics never prefetch;
    local-search may, and is refused.

    ``--gap`` stops an exact solver, local-search or lns as soon as its
    schedule is within that relative gap of its bound (status feasible,
    the bound printed); the online heuristics take none.

    ``--mount-policy`` runs an online heuristic (or a scheduler of one's
    own) under a mount policy: which idle tape a mount evicts, when an idle
    tape is put away, which queues may trigger a mount
    (:mod:`solvers.online.mount_policy`).
    """
    if as_json and out is not None and out.to_stdout:
        fail(["--json and --out -: both print on standard output; choose one"])
    from tapesched import solvers
    from tapesched.solvers.exact.formulation import UnmodelledState
    from tapesched.solvers.plugins import find_solver
    from tapesched.toolkit.registry import LoadError

    try:
        find_solver(solver_name)
    except LoadError as exc:
        fail([f"--solver: {exc}"])
    if workers is not None and not solvers.takes_workers(solver_name):
        fail([f"--workers: solver {solver_name!r} runs on one thread and takes no workers"])
    if iterations is not None and not solvers.takes_iterations(solver_name):
        fail([f"--iterations: solver {solver_name!r} takes no iteration budget"])
    if gap is not None and not solvers.takes_gap(solver_name):
        fail([f"--gap: solver {solver_name!r} stops at no gap"])
    if no_prefetch and not solvers.takes_prefetch(solver_name):
        fail([f"--no-prefetch: solver {solver_name!r} may prefetch and has no option not to"])
    if mount_policy is not None:
        from tapesched.solvers.registry import SCHEDULERS, SOLVERS

        if solver_name in SOLVERS and solver_name not in SCHEDULERS:
            fail([f"--mount-policy: solver {solver_name!r} is not an online heuristic"])
    instance = load_instance(instance_file)
    policy = None
    if mount_policy is not None:
        from tapesched.solvers.online.mount_policy import MountPolicyError, parse_mount_policy

        try:
            policy = parse_mount_policy(mount_policy, instance=instance)
        except MountPolicyError as exc:
            fail([f"--mount-policy: {exc}"])
    prefetch = not no_prefetch
    try:
        result = solvers.solve(
            instance,
            solver=solver_name,
            time_limit_s=time_limit_s,
            seed=seed,
            workers=workers,
            prefetch=prefetch,
            iterations=iterations,
            progress=log_line if log else None,
            mount_policy=policy,
            gap=gap,
        )
    except UnmodelledState as exc:
        fail([f"{instance_file}: {exc}"])
    document: dict[str, object] = {
        "instance": instance_file,
        "solver": result.solver,
        "mount_policy": mount_policy,
        "status": result.status.value,
        "reason": result.reason,
        "runtime_s": result.runtime_s,
        "bound": result.bound,
        "objective_name": instance.objective,
        "objective": None,
        "feasible": False,
        "out": None,
        "trajectory": [attrs.asdict(point) for point in result.trajectory],
    }
    if not as_json:
        click.echo(
            f"solver {result.solver}: status {result.status.value}, "
            f"runtime {result.runtime_s:.3f} s"
        )
        if result.reason is not None:
            click.echo(f"{result.status.value}: {result.reason}")
    if result.schedule is None:
        if as_json:
            click.echo(json.dumps(document, indent=1))
        else:
            click.echo("no schedule found; nothing written")
        raise SystemExit(EXIT_INFEASIBLE)
    report = validate(instance, result.schedule, prefetch=prefetch)
    if not report.feasible:
        if as_json:
            click.echo(json.dumps(document, indent=1))
        else:
            print_violations(report)
        click.echo("the solver returned an infeasible schedule; nothing written", err=True)
        raise SystemExit(EXIT_INFEASIBLE)
    if out is not None:
        out.write(dumps(schedule_to_dict(result.schedule)))
    written = None if out is None or out.discard else out.given
    if as_json:
        document.update(objective=report.objective, feasible=True, out=written)
        click.echo(json.dumps(document, indent=1))
        return
    bound = "none" if result.bound is None else f"{result.bound:.6f}"
    if written is not None:
        click.echo(f"wrote {written}")
    else:
        click.echo(
            "nothing written (" + ("no --out" if out is None else f"--out {out.given}") + ")"
        )
    click.echo(f"bound: {bound}")
    click.echo(f"objective {report.objective_name}: {report.objective:.6f}")
