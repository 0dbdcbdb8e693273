"""``tapesched simulate``: a scenario (or a core-problem instance) run on the simulator."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack, redirect_stdout
from typing import TYPE_CHECKING

import click
from rich.console import Console
from rich.progress import TaskID
from rich.table import Table

from tapesched.cli.archives.bw_main_options import BW_MAIN_OPTIONS, bw_main_options
from tapesched.cli.common import (
    EXIT_INFEASIBLE,
    DurationType,
    F,
    NumberType,
    RateType,
    RegistryChoice,
    allow_plugins_option,
    echo_verdict,
    fail,
    reports_bad_input,
    setting_lines,
)
from tapesched.cli.out_options import dir_out_option
from tapesched.cli.progress import ProgressDisplay, progress_bar, quiet_option
from tapesched.simulator.results.instance_run import InstanceRun
from tapesched.simulator.results.replications import RunOverrides
from tapesched.simulator.results.run_directory import (
    RUN_FILES,
    RunProgress,
    simulate_file,
)
from tapesched.simulator.schedulers.registry import BW_MAIN
from tapesched.simulator.storage.policies.policy_registry import POLICIES
from tapesched.solvers.registry import SCHEDULERS
from tapesched.toolkit.errors import SettingsError
from tapesched.toolkit.files.json_documents import dumps
from tapesched.toolkit.files.outputs import DirectoryOutput
from tapesched.toolkit.units import MAX_RATE_PER_YEAR, MAX_REPLICATIONS

if TYPE_CHECKING:
    from tapesched.simulator.results.records import Estimate
    from tapesched.simulator.results.replications import Replication
    from tapesched.simulator.scenario.spec import Scenario

_OPTIONS = {
    "policy": "--policy",
    "scheduler": "--scheduler",
    "mount_policy": "--mount-policy",
    "striping": "--striping",
    "rate_per_s": "--rate",
    "duration_s": "--duration",
    "site": "--site",
    **BW_MAIN_OPTIONS,
}
"""The option behind each setting of :class:`simulator.results.replications.RunOverrides` that
:func:`simulator.results.run_directory.simulate_file` may refuse."""


def per_year_option(name: str, text: str) -> Callable[[F], F]:
    """A fault rate per year: a finite number from 0 to
    :data:`~toolkit.units.MAX_RATE_PER_YEAR`."""
    kind = NumberType(min=0, max=MAX_RATE_PER_YEAR)
    return click.option(name, type=kind, default=None, metavar="R", help=text)


def _print_instance_run(run: InstanceRun, out: DirectoryOutput | None, as_json: bool) -> None:
    """The verdict of an instance's run (as JSON: :meth:`InstanceRun.summary` alone on
    standard output, the other lines on standard error); its schedule (and event log)
    written to ``out``."""
    if as_json:
        click.echo(dumps(run.summary()), nl=False)
    else:
        click.echo(
            f"{run.instance.name}: {len(run.instance.requests)} requests under {run.scheduler}"
        )
        echo_verdict(run.schedule, run.report)
    if not run.report.feasible:
        if out is not None:
            click.echo(f"the schedule is infeasible; nothing written to {out.given}", err=True)
        raise SystemExit(EXIT_INFEASIBLE)
    if out is not None:
        run.write(out)
        click.echo(f"wrote {out.given}/schedule.json", err=as_json)


def _print_faults(scenario: Scenario, runs: Sequence[Replication]) -> None:
    """One line per replication: what struck, what it cost, what failed."""
    if scenario.faults is None:
        return
    for k, r in enumerate(runs):
        s = r.summary
        click.echo(
            f"faults, replication {k + 1}: {s.handling_failures} handlings failed "
            f"({s.mounts_given_up} mounts given up, {s.stuck_cartridges} cartridges stuck), "
            f"{s.drive_failures} drives failed ({s.mover_failures} movers), "
            f"{s.tapes_lost} tapes lost; "
            f"{s.restarts} restarts, {s.rebuilt_reads} reads rebuilt, "
            f"{s.failed} of {s.arrived} requests failed"
        )


def _print_cache(runs: Sequence[Replication]) -> None:
    """One line per service class of the first replication: hit rate and residency."""
    if not runs or not runs[0].cache_classes:
        return

    def days(value: object) -> str:
        return "none evicted" if value is None else f"{float(value) / 86400:.2f} d"  # type: ignore[arg-type]

    for c in runs[0].cache_classes:
        rate = "no read" if c["hit_rate"] is None else f"{float(c['hit_rate']):.1%}"  # type: ignore[arg-type]
        click.echo(
            f"disk cache {c['name']}: hit rate {rate} ({c['hits']} of {c['reads']} reads), "
            f"residency {days(c['mean_residency_s'])} ({c['evictions']} evicted), "
            f"fill lifetime {days(c['fill_lifetime_s'])}"
        )


def _print_estimates(
    scenario: Scenario, runs: Sequence[Replication], estimates: Mapping[str, Estimate]
) -> None:
    """The table of estimates, or one line saying why there is nothing to tabulate."""
    from tapesched.simulator.results.records import METRICS

    striping = ""
    if scenario.workload.classes:
        from tapesched.simulator.workload.workload import striping_label

        striping = f"striping {striping_label(scenario.workload.classes)}, "
    title = (
        f"{scenario.name}: {scenario.policy}, {striping}{scenario.run.scheduler}, "
        f"{scenario.workload.rate_per_s * 3600:g}/h, "
        f"{scenario.workload.duration_s / 86400:g} d, {len(runs)} replication(s)"
    )
    if not any(r.summary.completed for r in runs):
        arrived = sum(r.summary.arrived for r in runs)
        click.echo(
            f"{title}: no request completed in {scenario.workload.duration_s:g} s of "
            f"simulated time ({arrived} arrived): nothing to measure"
        )
        return
    table = Table(title=title)
    table.add_column("metric")
    heading = "mean ± 95 % half-width"
    if len(runs) > 1:
        heading += f" (Student's t, {len(runs) - 1} df)"
    table.add_column(heading, justify="right")
    for name in METRICS:
        table.add_row(name, str(estimates[name]))
    saturated = sum(r.summary.saturated for r in runs)
    table.add_row("saturated runs", f"{saturated} of {len(runs)}")
    Console(width=120).print(table)
    _print_cache(runs)
    _print_faults(scenario, runs)


@click.command(short_help="Run a scenario or an instance on the simulator.")
@click.argument("scenario_file", type=click.Path())
@click.option(
    "--policy",
    type=RegistryChoice(POLICIES),
    default=None,
    help="Archival policy (default: the scenario's).",
)
@click.option(
    "--scheduler",
    default=None,
    help=(
        f"Online heuristic ({', '.join(SCHEDULERS)}), {BW_MAIN} (the Blue Waters paper's "
        "MAIN-SCHEDULER and LOAD-BALANCER, for scenarios), plug-in scheduler (see `tapesched "
        "solvers`) or a scheduler of one's own as module.path:Attr (default: the scenario's)."
    ),
)
@bw_main_options
@click.option(
    "--mount-policy",
    default=None,
    metavar="SPEC",
    help="Mount policy the scheduler runs under (default: the scenario's run.mount_policy): "
    "keep, lru, fifo, lfu, at-once, defer:T, cta:bytes=B,files=N,age=T[,drives=D], "
    "dcache:share=S,min-wait=T,max-age=T,tapes=N, joined by +, or module.path:Attr; "
    "belady is offline and refused here.",
)
@click.option(
    "--striping",
    default=None,
    metavar="W,W,...",
    help="Stripe width of each request class of the scenario (workload.request_classes), "
    "e.g. 1,2,2: Golubchik's striping vector 122.",
)
@click.option(
    "--handling-failure",
    type=NumberType(0, 1, max_open=True),
    default=None,
    metavar="P",
    help="Probability that a mount or dismount fails and is tried again (the Blue Waters "
    "paper's 0.01). Any fault option turns faults on (simulator/platform/faults.py): "
    "the scenario's faults section, else its defaults, with the rates given replaced.",
)
@per_year_option(
    "--drive-failures-per-year",
    "Failures of each drive per year (repaired in the scenario's drive_repair_s).",
)
@per_year_option(
    "--mover-failures-per-year",
    "Failures of each mover node per year (its drives out for the scenario's mover_repair_s).",
)
@per_year_option(
    "--tape-losses-per-year", "Tapes lost per tape-year, among the tapes holding data."
)
@click.option("--rate", type=RateType(), default=None, help="Arrival rate, e.g. 65/h.")
@click.option("--duration", type=DurationType(), default=None, help="Simulated time, e.g. 30d.")
@click.option("--seed", type=int, default=None, help="Seed of the first replication.")
@click.option(
    "--replications",
    type=click.IntRange(min=1, max=MAX_REPLICATIONS),
    default=None,
    help="Replications, seeds --seed, --seed + 1, ...",
)
@dir_out_option(
    RUN_FILES,
    "Directory to write, whole or not at all; an existing one is replaced only if it holds "
    f"nothing but {', '.join(RUN_FILES)}.",
)
@click.option("--log", is_flag=True, help="Also write the event log (events.jsonl) to --out.")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the summary.json document instead of a table (for an instance: the run's "
    "scheduler and the validator's verdict).",
)
@click.option(
    "--workload",
    "workload_file",
    type=click.Path(),
    default=None,
    help="A CSV trace of file requests to run to its end instead of the scenario's workload.",
)
@click.option(
    "--site",
    "site_file",
    type=click.Path(),
    default=None,
    help="A site file (tapesched.site/1) whose libraries, drives, movers and complex replace "
    "the scenario's platform (its dismount kept), and whose disk cache serves where the "
    "scenario has none.",
)
@allow_plugins_option
@quiet_option
@reports_bad_input
def simulate(
    scenario_file: str,
    policy: str | None,
    scheduler: str | None,
    max_light_load: int | None,
    min_lb_interval: float | None,
    max_waiting_time: float | None,
    max_req_count: int | None,
    max_imbalance: float | None,
    mount_policy: str | None,
    striping: str | None,
    handling_failure: float | None,
    drive_failures_per_year: float | None,
    mover_failures_per_year: float | None,
    tape_losses_per_year: float | None,
    rate: float | None,
    duration: float | None,
    seed: int | None,
    replications: int | None,
    out: DirectoryOutput | None,
    log: bool,
    workload_file: str | None,
    as_json: bool,
    site_file: str | None,
    allow_plugins: bool,
) -> None:
    """Simulate SCENARIO_FILE (a scenario, or a core-problem instance run as given).

    Writes to --out: summary.json (each replication's metrics and their 95 %
    intervals), requests.csv (a record per request of the first
    replication), and, when every time is fixed, the realised run as
    instance.json and schedule.json (checked by the validator here). The
    directory appears whole when the run succeeds, and not at all when it
    fails or is interrupted.
    With --workload, the requests come from a CSV trace (see
    simulator/workload/requests_csv.py), run until all are done; the warm-up is then
    a share of the last arrival time.
    With --site, the scenario runs on a site's libraries, drives, movers and
    complex (and its disk cache, where the scenario has none).
    """
    settings = RunOverrides(
        policy=policy,
        scheduler=scheduler,
        mount_policy=mount_policy,
        striping=striping,
        rate_per_s=rate,
        duration_s=duration,
        seed=seed,
        replications=replications,
        handling_failure=handling_failure,
        drive_failures_per_year=drive_failures_per_year,
        mover_failures_per_year=mover_failures_per_year,
        tape_losses_per_year=tape_losses_per_year,
        max_light_load=max_light_load,
        min_lb_interval_s=min_lb_interval,
        max_waiting_time_s=max_waiting_time,
        max_req_count=max_req_count,
        max_imbalance=max_imbalance,
    )
    with ExitStack() as stack:  # the bar starts with the run, once every setting is checked
        bars: list[tuple[ProgressDisplay, TaskID]] = []

        def advance(at: RunProgress) -> None:
            if not bars:
                bar = stack.enter_context(progress_bar())
                bars.append((bar, bar.add_task("simulating", total=at.total_s, current="")))
            bar, task = bars[0]
            current = f"replication {at.replication + 1}, day {at.now_s / 86400:.1f}"
            bar.update(task, completed=at.done_s, current=current)

        try:
            run = simulate_file(
                scenario_file,
                settings,
                workload_file=workload_file,
                allow_plugins=allow_plugins,
                log=log,
                progress=advance,
                site=site_file,
            )
        except SettingsError as exc:
            values: dict[str, object] = {
                "policy": policy,
                "mount_policy": mount_policy,
                "scheduler": scheduler,
            }
            fail(setting_lines(exc, _OPTIONS, "simulate", values))
    if isinstance(run, InstanceRun):
        _print_instance_run(run, out, as_json)
        return
    scenario = run.scenario
    if as_json:
        click.echo(dumps(run.summary()), nl=False)
    else:
        _print_estimates(scenario, run.replications, run.estimates)
    if out is None:
        return
    if run.not_exported is not None:
        click.echo(f"no schedule exported: {run.not_exported}", err=as_json)
    exported = run.exported
    if exported is not None:
        click.echo("exported schedule, checked by the validator:", err=as_json)
        if as_json:
            with redirect_stdout(sys.stderr):
                echo_verdict(exported.schedule, exported.report)
        else:
            echo_verdict(exported.schedule, exported.report)
        if not exported.report.feasible:
            click.echo(
                f"the exported schedule is infeasible; nothing written to {out.given}", err=True
            )
            raise SystemExit(EXIT_INFEASIBLE)
    run.write(out)
    click.echo(f"wrote {out.given}", err=as_json)
