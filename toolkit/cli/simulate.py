"""``tapesched simulate``: a scenario (or a core-problem instance) run on the simulator."""

from __future__ import annotations

import csv
import io

import click
from rich.console import Console
from rich.table import Table

from toolkit.cli.common import (
    EXIT_INFEASIBLE,
    DurationType,
    RateType,
    echo_verdict,
    fail,
    progress_bar,
    reports_bad_input,
)
from toolkit.io import dumps, save_instance, save_schedule
from toolkit.model import Instance
from toolkit.units import MAX_ARRIVALS, MAX_REPLICATIONS
from toolkit.validator import validate

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
        fail([f"--scheduler: unknown scheduler {scheduler!r}; known: {', '.join(SCHEDULERS)}"])
    events = io.BytesIO() if log else None
    schedule, _ = simulate_instance(instance, scheduler, log=events)
    report = validate(instance, schedule)
    click.echo(f"{instance.name}: {len(instance.requests)} requests under {scheduler}")
    echo_verdict(schedule, report)
    if out_dir is not None:
        from pathlib import Path

        from toolkit.io import write_atomic

        save_schedule(schedule, Path(out_dir) / "schedule.json")
        if events is not None:
            write_atomic(Path(out_dir) / "events.jsonl", events.getvalue().decode())
        click.echo(f"wrote {out_dir}/schedule.json")
    if not report.feasible:
        raise SystemExit(EXIT_INFEASIBLE)


@click.command()
@click.argument("scenario_file", type=click.Path())
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
@click.option(
    "--replications",
    type=click.IntRange(min=1, max=MAX_REPLICATIONS),
    default=None,
    help="Replications, seeds --seed, --seed + 1, ...",
)
@click.option(
    "--out", "out_dir", type=click.Path(file_okay=False), default=None, help="Directory to write."
)
@click.option("--log", is_flag=True, help="Also write the event log (events.jsonl) to --out.")
@click.option(
    "--workload",
    "workload_file",
    type=click.Path(),
    default=None,
    help="A CSV trace of file requests to run to its end instead of the scenario's workload.",
)
@reports_bad_input
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

    from simulator.scenario import FORMAT, scenario_from_dict
    from toolkit.io import INSTANCE_FORMAT, instance_from_dict, kind_of, read_json, write_atomic

    document = read_json(scenario_file)
    kind = kind_of(document)
    if kind == "instance":
        instance = instance_from_dict(document, scenario_file)
        _simulate_instance(instance, scheduler or "fifo", out_dir, log)
        return
    if isinstance(document, dict) and "format" in document and kind != "scenario":
        fail([f"{scenario_file}: format: expected {FORMAT!r} or {INSTANCE_FORMAT!r}"])
    scenario = scenario_from_dict(document, scenario_file)
    from simulator.experiment import override, run_scenario
    from simulator.export import ExportError, export
    from simulator.policy_registry import POLICIES
    from simulator.results import METRICS
    from simulator.scenario import arrivals_message, check_runnable
    from solvers.online import SCHEDULERS
    from toolkit.errors import InputError

    if scheduler is not None and scheduler not in SCHEDULERS:
        fail([f"--scheduler: unknown scheduler {scheduler!r}; known: {', '.join(SCHEDULERS)}"])
    given = [name for name, value in (("--rate", rate), ("--duration", duration)) if value]
    if given and workload_file is None:
        rate_per_s = rate or scenario.workload.rate_per_s
        if rate_per_s * (duration or scenario.workload.duration_s) > MAX_ARRIVALS:
            span = duration or scenario.workload.duration_s
            fail([f"{' and '.join(given)}: {arrivals_message(rate_per_s, span)}"])
    scenario = override(
        scenario,
        policy=policy,
        scheduler=scheduler,
        rate_per_s=rate,
        duration_s=duration,
        seed=seed,
        replications=replications,
    )
    if policy is not None:
        unrunnable = check_runnable(scenario)
        if unrunnable:
            fail([f"{scenario_file}: {p} (with --policy {policy})" for p in unrunnable])
    trace = None
    if workload_file is not None:
        from simulator.requests_csv import load_workload
        from simulator.scenario import check_trace

        trace = load_workload(workload_file)
        unfit = check_trace(scenario, trace)
        if unfit:
            raise InputError(workload_file, unfit)
        last = max(r.arrival_s for r in trace.requests)
        scenario = override(scenario, duration_s=duration or max(last, 1.0))
    problems = []
    if scenario.policy not in POLICIES:
        problems.append(f"{scenario_file}: policy.name: unknown policy {scenario.policy!r}")
    if scenario.run.scheduler not in SCHEDULERS:
        problems.append(f"{scenario_file}: run.scheduler: unknown {scenario.run.scheduler!r}")
    if problems:
        fail(problems)
    events = io.BytesIO() if log else None
    total = scenario.workload.duration_s * scenario.run.replications
    with progress_bar() as progress:
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
        echo_verdict(schedule, report)
        if not report.feasible:
            raise SystemExit(EXIT_INFEASIBLE)
    click.echo(f"wrote {out_dir}")
