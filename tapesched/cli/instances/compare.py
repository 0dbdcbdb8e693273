"""``tapesched compare``: solvers side by side on instances, against the best optimum or bound."""

from __future__ import annotations

import csv
import io
import json

import click
from rich.console import Console
from rich.table import Table

from tapesched.cli.common import (
    NO_PREFETCH_HELP,
    TimeLimitType,
    checked_solvers,
    fail,
    gap_option,
    reports_bad_input,
)
from tapesched.cli.progress import progress_bar, quiet_option
from tapesched.solvers.compare import NOT_MODELLED, PROVABLE_UP_TO, ComparisonRow
from tapesched.solvers.registry import names as solver_names
from tapesched.toolkit.files.instance_file import instance_from_dict
from tapesched.toolkit.files.json_documents import kind_of, read_json
from tapesched.toolkit.model import Instance
from tapesched.toolkit.runtime.gc_pause import paused_gc


def _objective_text(row: ComparisonRow) -> str:
    """The objective cell: the value, ``infeasible``, or ``-`` for a solver that did not run."""
    if row.status == NOT_MODELLED:
        return "-"
    return "infeasible" if not row.feasible else f"{row.objective:.4f}"


def _ratio_text(ratio: float | None, yardstick: str | None) -> str:
    if ratio is None:
        return "n/a"
    return f"{ratio:.4f}" if yardstick == "optimum" else f"<= {ratio:.4f}"


def ratio_header(prefetch: bool) -> str:
    """The ratio column's header: what a ratio is against, and of which problem.

    A ratio is to the proven optimum, or, printed ``<= r``, to the best bound;
    both are of the contract's problem (prefetch allowed) or, with
    ``--no-prefetch``, of the non-anticipative one.
    """
    return "ratio\n<= vs bound (" + ("prefetch allowed" if prefetch else "no prefetch") + ")"


def _instances(paths: tuple[str, ...]) -> list[tuple[str, Instance]]:
    """The instances among ``paths``; schedule and scenario files, and JSON files that are
    no tapesched file at all (no ``format`` and no ``requests``, like ``instances/optima.json``),
    are skipped with a note on standard error, so that ``compare instances/*.json`` works."""
    loaded = []
    for path in paths:
        with paused_gc():
            document = read_json(path)
            kind = kind_of(document)
            if kind in ("schedule", "scenario"):
                click.echo(f"{path}: skipped: a {kind} file ({document['format']})", err=True)
                continue
            if type(document) is dict and not {"format", "requests"} & document.keys():
                click.echo(f"{path}: skipped: not a tapesched file (no format key)", err=True)
                continue
            loaded.append((path, instance_from_dict(document, path)))
    if not loaded:
        fail([f"compare: no instance file among the {len(paths)} given"])
    return loaded


@click.command(short_help="Rank solvers on instances against the best optimum or bound.")
@click.argument("instance_files", nargs=-1, required=True, type=click.Path())
@click.option(
    "--solvers",
    "solver_list",
    default="greedy",
    show_default=True,
    help=(
        f"Comma-separated solvers of the registry ({', '.join(solver_names())}), plug-in "
        "schedulers (see `tapesched solvers`) or schedulers of one's own as module.path:Attr."
    ),
)
@click.option(
    "--time-limit",
    "time_limit_s",
    type=TimeLimitType(),
    default=None,
    help="How long each solver may run on each instance: 90 (seconds), 90s, 2min.",
)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option(
    "--lns-above",
    "lns_above",
    type=click.IntRange(min=0),
    default=PROVABLE_UP_TO,
    show_default=True,
    help="On instances of more requests than this, too many to prove, lns also runs when "
    "an exact solver (cpsat, milp-cbc, milp-highs) is asked for and lns is not.",
)
@gap_option("each solver that takes one")
@click.option(
    "--no-prefetch",
    "no_prefetch",
    is_flag=True,
    help=NO_PREFETCH_HELP + " The yardstick is then that problem's optimum or bound, which an "
    "online heuristic can reach; local-search may prefetch, and is refused.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON.")
@click.option("--csv", "as_csv", is_flag=True, help="Print the rows as CSV.")
@quiet_option
@reports_bad_input
def compare(
    instance_files: tuple[str, ...],
    solver_list: str,
    time_limit_s: float | None,
    seed: int,
    lns_above: int,
    gap: float | None,
    no_prefetch: bool,
    as_json: bool,
    as_csv: bool,
) -> None:
    """Run solvers on instances; set each result against the best optimum or bound.

    Schedule and scenario files among the files are skipped with a note.

    The ratio is to the proven optimum when an exact solver proved one, else to
    the best lower bound known, printed as "<= r": an upper bound on the true
    ratio.

    On an instance of more than ``--lns-above`` requests, when an exact
    solver is asked for, ``lns`` runs too (a row of its own): CP-SAT rarely
    proves such instances and the MILPs may not even build them, so the
    large-neighbourhood search is the best offline schedule to measure the
    others against.

    By default the optimum and the bound let a tape be mounted before its
    requests arrive, which no online heuristic can do (the ratio column
    says "prefetch allowed"). ``--no-prefetch`` measures against the
    non-anticipative problem instead: the exact solvers solve it, the bound
    is its own, and every schedule is judged under it ("no prefetch"; the
    JSON and CSV rows say ``prefetch``: false).

    ``--gap`` stops each exact solver, local-search and lns once its
    schedule is within that relative gap of its bound (status feasible); the
    online heuristics run as they are.
    """
    from tapesched.solvers import takes_prefetch
    from tapesched.solvers.compare import compare as run_compare
    from tapesched.solvers.compare import solvers_for

    names = checked_solvers(solver_list)
    if as_json and as_csv:
        fail(["--json and --csv: choose one"])
    if no_prefetch:
        for name in names:
            if not takes_prefetch(name):
                fail([f"--no-prefetch: solver {name!r} may prefetch and has no option not to"])
    loaded = _instances(instance_files)
    with progress_bar(every_s=0) as progress:  # off a terminal, a line per run finished
        runs = sum(len(solvers_for(instance, names, lns_above)) for _, instance in loaded)
        task = progress.add_task("solving", total=runs, current="")
        rows = run_compare(
            loaded,
            names,
            time_limit_s=time_limit_s,
            seed=seed,
            lns_above=lns_above,
            prefetch=not no_prefetch,
            gap=gap,
            on_run=lambda label, solver: progress.update(
                task, advance=1, current=f"{solver} on {label}"
            ),
        )
    if as_json:
        click.echo(json.dumps([r.as_dict() for r in rows], indent=1))
        return
    if as_csv:
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=list(rows[0].as_dict()), lineterminator="\n")
        writer.writeheader()
        writer.writerows(r.as_dict() for r in rows)
        click.echo(out.getvalue(), nl=False)
        return
    table = Table(title="objective against the best optimum (or bound: <=) per instance")
    for column, justify in [
        ("instance", "left"),
        ("solver", "left"),
        ("objective", "right"),
        (ratio_header(not no_prefetch), "right"),
        ("status", "left"),
        ("bound", "right"),
        ("runtime (s)", "right"),
    ]:
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for r in rows:
        table.add_row(
            r.instance,
            r.solver,
            _objective_text(r),
            _ratio_text(r.ratio, r.yardstick),
            r.status,
            "" if r.bound is None else f"{r.bound:.4f}",
            f"{r.runtime_s:.3f}",
        )
    console = Console(width=140)
    console.print(table)
    for r in rows:
        if r.reason is not None:
            click.echo(f"{r.solver} on {r.instance}: {r.status}: {r.reason}")
