"""The ``tapesched`` command: check, solve, verify, measure and generate instances.

Exit codes are part of the interface: 0 success, 1 an infeasible schedule,
2 bad input (a file that cannot be read or parsed, or breaks the format, or a
bad option). Bad input is reported one line per problem, naming the file, the
JSON path of the value and what is wrong, never with a traceback, and no output
file is written.
"""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Callable
from functools import wraps
from typing import Any, NoReturn, TypeVar

import click
from rich.console import Console
from rich.progress import Progress, TextColumn
from rich.table import Table

from toolkit.errors import InputError
from toolkit.generators import (
    TECHNOLOGIES,
    WEIGHT_RULES,
    RandomParams,
    golubchik_instance,
    random_instance,
)
from toolkit.io import (
    dumps,
    instance_to_dict,
    load_instance,
    load_schedule,
    save_instance,
    save_schedule,
)
from toolkit.metrics import compute_metrics
from toolkit.model import OBJECTIVES, Instance, Schedule
from toolkit.units import parse_duration, parse_rate
from toolkit.validator import Report, summary, validate

F = TypeVar("F", bound=Callable[..., Any])

EXIT_INFEASIBLE = 1
EXIT_BAD_INPUT = 2


def _fail(lines: list[str]) -> NoReturn:
    for line in lines:
        click.echo(line, err=True)
    sys.exit(EXIT_BAD_INPUT)


def _reports_bad_input(func: F) -> F:
    """Turn :class:`InputError` into one stderr line per problem and exit code 2."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except InputError as exc:
            _fail(exc.lines())

    return wrapper  # type: ignore[return-value]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="tapesched")
def main() -> None:
    """Schedule robotic tape archives: instance and schedule files, solvers, a validator."""


def _describe(instance: Instance) -> str:
    gangs = [len(r.pieces) for r in instance.requests if len(r.pieces) > 1]
    widest = max((len(r.pieces) for r in instance.requests), default=0)
    arms = sum(lib.arms for lib in instance.libraries)
    return (
        f"instance {instance.name!r}: {len(instance.libraries)} libraries ({arms} arms), "
        f"{len(instance.drives)} drives, {len(instance.tapes)} tapes "
        f"({len(instance.initial)} mounted at time 0), {len(instance.requests)} requests "
        f"({len(gangs)} gangs, widest {widest}), objective {instance.objective}"
    )


@main.command()
@click.argument("instance_file", type=click.Path(dir_okay=False))
@_reports_bad_input
def check(instance_file: str) -> None:
    """Check an instance file: exit 0 with a summary, or 2 with every problem."""
    instance = load_instance(instance_file)
    click.echo(f"ok: {_describe(instance)}")


@main.command()
@click.argument("instance_file", type=click.Path(dir_okay=False))
@click.option(
    "--solver",
    "solver_name",
    default="greedy",
    show_default=True,
    help="A solver of the registry (see `tapesched solvers`).",
)
@click.option(
    "--out",
    "out_file",
    required=True,
    type=click.Path(dir_okay=False),
    help="Where to write the schedule (JSON).",
)
@click.option(
    "--time-limit",
    "time_limit_s",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="Seconds the solver may run.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of random choices.")
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Parallel search workers of a solver that has them (cpsat); default: the solver's.",
)
@_reports_bad_input
def solve(
    instance_file: str,
    solver_name: str,
    out_file: str,
    time_limit_s: float | None,
    seed: int,
    workers: int | None,
) -> None:
    """Solve an instance and write the schedule; print status, objective, bound, runtime."""
    import solvers

    if solver_name not in solvers.names():
        _fail([f"--solver: unknown solver {solver_name!r}; known: {', '.join(solvers.names())}"])
    if workers is not None and not solvers.takes_workers(solver_name):
        _fail([f"--workers: solver {solver_name!r} runs on one thread and takes no workers"])
    instance = load_instance(instance_file)
    result = solvers.solve(
        instance, solver=solver_name, time_limit_s=time_limit_s, seed=seed, workers=workers
    )
    click.echo(
        f"solver {result.solver}: status {result.status.value}, runtime {result.runtime_s:.3f} s"
    )
    if result.schedule is None:
        click.echo("no schedule found; nothing written")
        sys.exit(EXIT_INFEASIBLE)
    report = validate(instance, result.schedule)
    if not report.feasible:
        _print_violations(report)
        click.echo("the solver returned an infeasible schedule; nothing written", err=True)
        sys.exit(EXIT_INFEASIBLE)
    save_schedule(result.schedule, out_file)
    bound = "none" if result.bound is None else f"{result.bound:.6f}"
    click.echo(f"wrote {out_file}")
    click.echo(f"bound: {bound}")
    click.echo(f"objective {report.objective_name}: {report.objective:.6f}")


@main.command("solvers")
def list_solvers() -> None:
    """List the solvers of the registry."""
    from solvers import registry

    for name in registry.names():
        click.echo(f"{name}: {registry.describe(name)}")


def _print_violations(report: Report) -> None:
    click.echo(f"infeasible: {len(report.violations)} violations")
    for v in report.violations:
        click.echo(str(v))


def _instance_and_schedule(command: F) -> F:
    """The two file arguments and the ``--json`` flag of commands that judge a schedule."""
    for decorate in (
        click.option("--json", "as_json", is_flag=True, help="Print JSON for machines."),
        click.argument("schedule_file", type=click.Path(dir_okay=False)),
        click.argument("instance_file", type=click.Path(dir_okay=False)),
    ):
        command = decorate(command)
    return command


def _load_and_validate(instance_file: str, schedule_file: str) -> tuple[Instance, Schedule, Report]:
    instance = load_instance(instance_file)
    schedule = load_schedule(schedule_file)
    return instance, schedule, validate(instance, schedule)


def _echo_verdict(schedule: Schedule, report: Report) -> None:
    """Warnings, then feasible with the objective, or the violations."""
    for warning in report.warnings:
        click.echo(f"warning: {warning}")
    if report.feasible:
        click.echo(
            f"feasible: {len(schedule.requests)} requests, "
            f"{len(schedule.operations)} arm operations"
        )
        click.echo(f"objective {report.objective_name}: {report.objective:.6f}")
    else:
        _print_violations(report)


@main.command()
@_instance_and_schedule
@_reports_bad_input
def verify(instance_file: str, schedule_file: str, as_json: bool) -> None:
    """Verify a schedule: exit 0 if feasible (objective on the last line), 1 if not."""
    _, schedule, report = _load_and_validate(instance_file, schedule_file)
    if as_json:
        click.echo(dumps(summary(report)), nl=False)
    else:
        _echo_verdict(schedule, report)
    if not report.feasible:
        sys.exit(EXIT_INFEASIBLE)


_METRIC_LABELS = {
    "requests": ("requests", "{:d}"),
    "weighted_flow": ("weighted flow (sum w(C-r))", "{:.6f}"),
    "makespan_s": ("makespan (s)", "{:.3f}"),
    "max_weighted_flow": ("max weighted flow", "{:.6f}"),
    "mean_response_s": ("mean response time (s)", "{:.3f}"),
    "max_response_s": ("max response time (s)", "{:.3f}"),
    "mean_weighted_response": ("mean weighted response", "{:.6f}"),
    "mean_stretch": ("mean stretch", "{:.4f}"),
    "max_stretch": ("max stretch", "{:.4f}"),
    "drive_utilisation": ("drive utilisation", "{:.2%}"),
    "tape_switches": ("tape switches (mounts)", "{:d}"),
    "dismounts": ("dismounts", "{:d}"),
    "arm_utilisation": ("arm utilisation", "{:.2%}"),
    "total_mb": ("data transferred (MB)", "{:.1f}"),
    "throughput_mb_s": ("throughput (MB/s)", "{:.3f}"),
}


@main.command()
@_instance_and_schedule
@_reports_bad_input
def metrics(instance_file: str, schedule_file: str, as_json: bool) -> None:
    """Print the metrics of a feasible schedule (exit 1 if it is infeasible)."""
    instance, schedule, report = _load_and_validate(instance_file, schedule_file)
    if not report.feasible:
        _print_violations(report)
        sys.exit(EXIT_INFEASIBLE)
    values = compute_metrics(instance, schedule, report).as_dict()
    if as_json:
        click.echo(json.dumps(values, indent=1))
        return
    table = Table(title=f"{instance.name} / {schedule_file}")
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key, (label, fmt) in _METRIC_LABELS.items():
        table.add_row(label, fmt.format(values[key]))
    Console(width=100).print(table)


def _ratio_text(ratio: float | None, yardstick: str | None) -> str:
    if ratio is None:
        return "n/a"
    return f"{ratio:.4f}" if yardstick == "optimum" else f"<= {ratio:.4f}"


def _progress() -> Progress:
    """A progress bar on standard error with a field ``current``, shown on terminals only."""
    console = Console(stderr=True)
    return Progress(
        *Progress.get_default_columns(),
        TextColumn("{task.fields[current]}"),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    )


@main.command()
@click.argument("instance_files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option(
    "--solvers",
    "solver_list",
    default="greedy",
    show_default=True,
    help="Comma-separated solver names (see `tapesched solvers`).",
)
@click.option(
    "--time-limit",
    "time_limit_s",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="Seconds each solver may run on each instance.",
)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON.")
@click.option("--csv", "as_csv", is_flag=True, help="Print the rows as CSV.")
@_reports_bad_input
def compare(
    instance_files: tuple[str, ...],
    solver_list: str,
    time_limit_s: float | None,
    seed: int,
    as_json: bool,
    as_csv: bool,
) -> None:
    """Run solvers on instances; set each result against the best optimum or bound.

    The ratio is to the proven optimum when an exact solver proved one, else to
    the best lower bound known, printed as "<= r": an upper bound on the true
    ratio.
    """
    from solvers import registry
    from solvers.compare import compare as run_compare

    names = [n.strip() for n in solver_list.split(",") if n.strip()]
    unknown = [n for n in names if n not in registry.names()]
    if unknown or not names:
        _fail(
            [
                f"--solvers: unknown solver {n!r}; known: {', '.join(registry.names())}"
                for n in unknown or ["(none)"]
            ]
        )
    if as_json and as_csv:
        _fail(["--json and --csv: choose one"])
    loaded = [(path, load_instance(path)) for path in instance_files]
    with _progress() as progress:
        task = progress.add_task("solving", total=len(loaded) * len(names), current="")
        rows = run_compare(
            loaded,
            names,
            time_limit_s=time_limit_s,
            seed=seed,
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
        ("ratio", "right"),
        ("status", "left"),
        ("bound", "right"),
        ("runtime (s)", "right"),
    ]:
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for r in rows:
        table.add_row(
            r.instance,
            r.solver,
            "infeasible" if not r.feasible else f"{r.objective:.4f}",
            _ratio_text(r.ratio, r.yardstick),
            r.status,
            "" if r.bound is None else f"{r.bound:.4f}",
            f"{r.runtime_s:.3f}",
        )
    Console(width=140).print(table)


def _save_generated(instance: Instance, out_file: str | None) -> None:
    if out_file is None:
        click.echo(dumps(instance_to_dict(instance)), nl=False)
    else:
        save_instance(instance, out_file)
        click.echo(f"wrote {out_file}: {_describe(instance)}")


class ParsedType(click.ParamType):
    """A value read by ``parse`` (a :mod:`toolkit.units` reader); its error is the message."""

    def __init__(self, name: str, parse: Callable[[str], float]) -> None:
        self.name = name
        self.parse = parse

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        if isinstance(value, float):
            return value
        try:
            return self.parse(str(value))
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


def RateType() -> ParsedType:
    """An arrival rate: ``0.005`` (per second) or ``0.3/min``, ``65/h``, ``2/d``."""
    return ParsedType("RATE", parse_rate)


def DurationType() -> ParsedType:
    """A duration: ``3600`` (seconds) or ``30d``, ``4w``, ``12h``, ``90min``."""
    return ParsedType("DURATION", parse_duration)


class SpanType(click.ParamType):
    """A range ``LO:HI`` or a single value ``V`` (meaning ``V:V``)."""

    name = "LO:HI"

    def __init__(self, kind: type) -> None:
        self.kind = kind

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, tuple):
            return value
        lo, _, hi = str(value).partition(":")
        try:
            pair = (self.kind(lo), self.kind(hi or lo))
        except ValueError:
            self.fail(f"{value!r} is not a value or a LO:HI range", param, ctx)
        return pair


@main.group()
def generate() -> None:
    """Generate random instances (same seed, same instance)."""


def _generated(build: Callable[[], Instance], out_file: str | None) -> None:
    try:
        instance = build()
    except ValueError as exc:
        _fail([f"generate: {exc}"])
    _save_generated(instance, out_file)


_OUT = click.option(
    "--out",
    "out_file",
    type=click.Path(dir_okay=False),
    default=None,
    help="Instance file to write (standard output when left out).",
)
_SEED = click.option("--seed", type=int, required=True, help="Seed of every random choice.")
_OBJECTIVE = click.option(
    "--objective", type=click.Choice(OBJECTIVES), default="weighted-flow", show_default=True
)


@generate.command("random")
@_SEED
@click.option("--requests", "n_requests", type=click.IntRange(min=1), default=20, show_default=True)
@click.option(
    "--libraries", "n_libraries", type=click.IntRange(min=1), default=1, show_default=True
)
@click.option(
    "--drives", type=SpanType(int), default="2:4", show_default=True, help="Drives per library."
)
@click.option(
    "--arms", type=SpanType(int), default="1:2", show_default=True, help="Arms per library."
)
@click.option(
    "--tapes", type=click.IntRange(min=1), default=12, show_default=True, help="Tapes per library."
)
@click.option(
    "--max-gang",
    type=click.IntRange(min=1),
    default=2,
    show_default=True,
    help="Most pieces of one request.",
)
@click.option(
    "--size-mb",
    type=SpanType(float),
    default="100:100000",
    show_default=True,
    help="Request sizes, drawn log-uniformly.",
)
@click.option(
    "--initial-fraction",
    type=click.FloatRange(0, 1),
    default=0.5,
    show_default=True,
    help="Share of drives holding a tape at time 0.",
)
@click.option(
    "--horizon",
    "horizon_s",
    type=click.FloatRange(min=0),
    default=3600.0,
    show_default=True,
    help="Releases uniform in [0, horizon] seconds.",
)
@click.option(
    "--rate", "rate", type=RateType(), default=None, help="Poisson arrivals instead, e.g. 65/h."
)
@click.option(
    "--weight", type=click.Choice(WEIGHT_RULES), default="inverse-size-gb", show_default=True
)
@click.option(
    "--homogeneous/--heterogeneous",
    default=False,
    show_default=True,
    help="All drives of a library alike.",
)
@_OBJECTIVE
@_OUT
def generate_random(
    seed: int,
    n_requests: int,
    n_libraries: int,
    drives: tuple[int, int],
    arms: tuple[int, int],
    tapes: int,
    max_gang: int,
    size_mb: tuple[float, float],
    initial_fraction: float,
    horizon_s: float,
    rate: float | None,
    weight: str,
    homogeneous: bool,
    objective: str,
    out_file: str | None,
) -> None:
    """Random instance from the ranges of toolkit.generators.RandomParams."""
    _generated(
        lambda: random_instance(
            RandomParams(
                n_requests=n_requests,
                n_libraries=n_libraries,
                drives_per_library=drives,
                arms=arms,
                tapes_per_library=tapes,
                max_gang=max_gang,
                size_mb=size_mb,
                initial_fraction=initial_fraction,
                release_horizon_s=horizon_s,
                arrival_rate_per_s=rate,
                weight=weight,
                homogeneous_drives=homogeneous,
                objective=objective,
            ),
            seed,
        ),
        out_file,
    )


def _classes(text: str) -> tuple[list[float], list[int], list[float]]:
    sizes, widths, shares = [], [], []
    for item in text.split(","):
        parts = item.split(":")
        if len(parts) not in (2, 3):
            raise click.BadParameter(
                f"{item!r} is not SIZE_GB:WIDTH[:SHARE]", param_hint="--classes"
            )
        try:
            sizes.append(float(parts[0]))
            widths.append(int(parts[1]))
            shares.append(float(parts[2]) if len(parts) == 3 else 1.0)
        except ValueError:
            raise click.BadParameter(
                f"{item!r} is not SIZE_GB:WIDTH[:SHARE]", param_hint="--classes"
            ) from None
    return sizes, widths, shares


@generate.command("golubchik")
@_SEED
@click.option(
    "--requests", "n_requests", type=click.IntRange(min=1), default=100, show_default=True
)
@click.option(
    "--technology",
    type=click.Choice(sorted(TECHNOLOGIES)),
    default="ampex",
    show_default=True,
    help="Drive and robot parameters of the paper's tables.",
)
@click.option("--drives", type=click.IntRange(min=1), default=4, show_default=True, help="K.")
@click.option("--arms", type=click.IntRange(min=1), default=1, show_default=True, help="R.")
@click.option(
    "--tapes",
    type=click.IntRange(min=1),
    default=None,
    help="Tapes in the library (the technology's when left out).",
)
@click.option(
    "--classes",
    default="1:1,2:1,3:1",
    show_default=True,
    help="Request classes SIZE_GB:WIDTH[:SHARE], comma separated (Figure 8's '111').",
)
@click.option(
    "--rate",
    type=RateType(),
    default="0.3/min",
    show_default=True,
    help="Poisson arrival rate lambda.",
)
@_OBJECTIVE
@_OUT
def generate_golubchik(
    seed: int,
    n_requests: int,
    technology: str,
    drives: int,
    arms: int,
    tapes: int | None,
    classes: str,
    rate: float,
    objective: str,
    out_file: str | None,
) -> None:
    """The robotic library of Golubchik, Muntz & Watson (1994) under a Poisson workload."""
    sizes, widths, shares = _classes(classes)
    _generated(
        lambda: golubchik_instance(
            n_requests,
            technology=technology,
            drives=drives,
            arms=arms,
            tapes=tapes,
            sizes_gb=sizes,
            widths=widths,
            probabilities=shares,
            arrival_rate_per_s=rate,
            seed=seed,
            objective=objective,
        ),
        out_file,
    )


RECORD_COLUMNS = (
    "id", "kind", "file", "size_mb", "arrival_s", "start_s", "end_s", "free_s",
    "drives", "tapes", "host_mb", "mounts", "alone_s",
)  # fmt: skip
"""Columns of ``requests.csv`` (:class:`simulator.results.RequestRecord` fields)."""


def _simulate_instance(instance: Instance, scheduler: str, out_dir: str | None, log: bool) -> None:
    """Run a core-problem instance directly under an online heuristic."""
    from simulator.core_run import simulate_instance
    from solvers.online import SCHEDULERS

    if scheduler not in SCHEDULERS:
        _fail([f"--scheduler: unknown scheduler {scheduler!r}; known: {', '.join(SCHEDULERS)}"])
    events = io.BytesIO() if log else None
    schedule, _ = simulate_instance(instance, scheduler, log=events)
    report = validate(instance, schedule)
    click.echo(f"{instance.name}: {len(instance.requests)} requests under {scheduler}")
    _echo_verdict(schedule, report)
    if out_dir is not None:
        from pathlib import Path

        from toolkit.io import write_atomic

        save_schedule(schedule, Path(out_dir) / "schedule.json")
        if events is not None:
            write_atomic(Path(out_dir) / "events.jsonl", events.getvalue().decode())
        click.echo(f"wrote {out_dir}/schedule.json")
    if not report.feasible:
        sys.exit(EXIT_INFEASIBLE)


@main.command()
@click.argument("scenario_file", type=click.Path(dir_okay=False))
@click.option(
    "--policy",
    type=click.Choice(["rait", "parallel", "vertical", "hetero"]),
    default=None,
    help="Archival policy (default: the scenario's).",
)
@click.option("--scheduler", default=None, help="Online heuristic (default: the scenario's).")
@click.option("--rate", type=RateType(), default=None, help="Arrival rate, e.g. 65/h.")
@click.option("--duration", type=DurationType(), default=None, help="Simulated time, e.g. 30d.")
@click.option("--seed", type=int, default=None, help="Seed of the first replication.")
@click.option("--replications", type=click.IntRange(min=1), default=None)
@click.option(
    "--out", "out_dir", type=click.Path(file_okay=False), default=None, help="Directory to write."
)
@click.option("--log", is_flag=True, help="Also write the event log (events.jsonl) to --out.")
@click.option(
    "--workload",
    "workload_file",
    type=click.Path(dir_okay=False),
    default=None,
    help="A CSV trace of file requests to run to its end instead of the scenario's workload.",
)
@_reports_bad_input
def simulate(
    scenario_file: str,
    policy: str | None,
    scheduler: str | None,
    rate: float | None,
    duration: float | None,
    seed: int | None,
    replications: int | None,
    out_dir: str | None,
    log: bool,
    workload_file: str | None,
) -> None:
    """Simulate SCENARIO_FILE (a scenario, or a core-problem instance run as given).

    Writes to --out: summary.json (each replication's metrics and their 95 %
    intervals), requests.csv (a record per request of the first
    replication), and, when every time is fixed, the realised run as
    instance.json and schedule.json (checked by the validator here).
    With --workload, the requests come from a CSV trace (see
    simulator/requests_csv.py), run until all are done; the warm-up is then
    a share of the last arrival time.
    """
    from pathlib import Path

    import orjson

    from simulator.scenario import FORMAT, load_scenario
    from toolkit.io import INSTANCE_FORMAT, write_atomic

    try:
        with open(scenario_file, "rb") as handle:
            head = orjson.loads(handle.read())
    except (OSError, orjson.JSONDecodeError):
        head = None
    if isinstance(head, dict) and head.get("format") == INSTANCE_FORMAT:
        _simulate_instance(load_instance(scenario_file), scheduler or "fifo", out_dir, log)
        return
    if isinstance(head, dict) and head.get("format") not in (FORMAT, None):
        _fail([f"{scenario_file}: format: expected {FORMAT!r} or {INSTANCE_FORMAT!r}"])
    scenario = load_scenario(scenario_file)
    from simulator.experiment import override, run_scenario
    from simulator.export import ExportError, export
    from simulator.policy import POLICIES
    from simulator.results import METRICS
    from solvers.online import SCHEDULERS

    if scheduler is not None and scheduler not in SCHEDULERS:
        _fail([f"--scheduler: unknown scheduler {scheduler!r}; known: {', '.join(SCHEDULERS)}"])
    scenario = override(
        scenario,
        policy=policy,
        scheduler=scheduler,
        rate_per_s=rate,
        duration_s=duration,
        seed=seed,
        replications=replications,
    )
    trace = None
    if workload_file is not None:
        from simulator.requests_csv import load_workload

        trace = load_workload(workload_file)
        last = max(r.arrival_s for r in trace.requests)
        scenario = override(scenario, duration_s=duration or max(last, 1.0))
    problems = []
    if scenario.policy not in POLICIES:
        problems.append(f"{scenario_file}: policy.name: unknown policy {scenario.policy!r}")
    if scenario.run.scheduler not in SCHEDULERS:
        problems.append(f"{scenario_file}: run.scheduler: unknown {scenario.run.scheduler!r}")
    if problems:
        _fail(problems)
    events = io.BytesIO() if log else None
    total = scenario.workload.duration_s * scenario.run.replications
    with _progress() as progress:
        task = progress.add_task("simulating", total=total, current="")
        span = scenario.workload.duration_s

        def advance(k: int, now: float) -> None:
            progress.update(
                task,
                completed=k * span + now,
                current=f"replication {k + 1}, day {now / 86400:.1f}",
            )

        runs, estimates = run_scenario(scenario, workload=trace, log=events, progress=advance)
    table = Table(
        title=(
            f"{scenario.name}: {scenario.policy}, {scenario.run.scheduler}, "
            f"{scenario.workload.rate_per_s * 3600:g}/h, "
            f"{scenario.workload.duration_s / 86400:g} d, {len(runs)} replication(s)"
        )
    )
    table.add_column("metric")
    table.add_column("mean ± 95 % half-width", justify="right")
    for name in METRICS:
        table.add_row(name, str(estimates[name]))
    saturated = sum(r.summary.saturated for r in runs)
    table.add_row("saturated runs", f"{saturated} of {len(runs)}")
    Console(width=120).print(table)
    if out_dir is None:
        return
    out = Path(out_dir)
    first = runs[0]
    exported = None
    try:
        exported = export(first.simulation, name=scenario.name)
    except ExportError as exc:
        click.echo(f"no schedule exported: {exc}")
    document = {
        "scenario": scenario.name,
        "policy": scenario.policy,
        "scheduler": scenario.run.scheduler,
        "rate_per_h": scenario.workload.rate_per_s * 3600,
        "duration_s": scenario.workload.duration_s,
        "replications": [r.summary.to_dict() for r in runs],
        "estimates": {
            name: {"mean": e.mean, "half_width_95": e.half_width, "n": e.n}
            for name, e in estimates.items()
        },
    }
    rows = io.StringIO()
    writer = csv.writer(rows, lineterminator="\n")
    writer.writerow(RECORD_COLUMNS)
    for r in first.records:
        row = {name: getattr(r, name) for name in RECORD_COLUMNS}
        row["drives"], row["tapes"] = " ".join(r.drives), " ".join(r.tapes)
        writer.writerow(row.values())
    write_atomic(out / "summary.json", dumps(document))
    write_atomic(out / "requests.csv", rows.getvalue())
    if events is not None:
        write_atomic(out / "events.jsonl", events.getvalue().decode())
    if exported is not None:
        instance, schedule = exported
        report = validate(instance, schedule)
        save_instance(instance, out / "instance.json")
        save_schedule(schedule, out / "schedule.json")
        click.echo("exported schedule, checked by the validator:")
        _echo_verdict(schedule, report)
        if not report.feasible:
            sys.exit(EXIT_INFEASIBLE)
    click.echo(f"wrote {out_dir}")


def _register_replay() -> None:
    from simulator.replay_cli import replay_command

    main.add_command(replay_command)


_register_replay()
