"""Running a scenario: replications with their seeds, records, metrics and files.

:func:`run_once` is one replication (a workload drawn from the seed, a run
to the workload's duration, its records and summary); :func:`run_scenario`
repeats it with seeds ``seed, seed + 1, ...`` and combines the metrics with
their 95 % intervals (:mod:`simulator.results.records`). The same scenario and seed
give byte-identical outputs. :func:`override` replaces a scenario's settings;
:func:`with_overrides` replaces them with a user's :class:`RunOverrides`, checked.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import IO, NoReturn

from attrs import evolve, frozen

from tapesched.simulator.platform.faults import FaultSpec
from tapesched.simulator.results.records import (
    Estimate,
    FailedRecord,
    RecordSpool,
    RequestRecord,
    RunSummary,
    RunTally,
    combine,
    failed_record_of,
    record_of,
    summarise,
)
from tapesched.simulator.run.simulation import Simulation
from tapesched.simulator.scenario.spec import Scenario, make_archive
from tapesched.simulator.schedulers.bw_main import BwMainParams
from tapesched.simulator.schedulers.registry import simulator_scheduler
from tapesched.simulator.storage.policies.policy_registry import make_policy, policy_guard
from tapesched.simulator.workload.workload import Workload, generate, with_striping
from tapesched.solvers.online.mount_policy import parse_mount_policy, with_mount_policy
from tapesched.solvers.online.protocol import Scheduler
from tapesched.solvers.plugins import SchedulerSpec, resolve_scheduler, with_plugins


@frozen
class Replication:
    """One run: its records (when it kept them: ``record``), its summary and the simulation
    (for exports; ``None`` once dropped, :func:`run_scenario`), with what the run's files read
    of a dropped simulation: its failed requests (faults), its reads served from disk and its
    disk cache's figures (a scenario's ``disk_cache``)."""

    records: Sequence[RequestRecord]
    summary: RunSummary
    simulation: Simulation | None
    failed: tuple[FailedRecord, ...] = ()
    served_from_disk: int = 0
    cache_classes: tuple[dict[str, object], ...] = ()


def override(
    scenario: Scenario,
    *,
    policy: str | None = None,
    scheduler: SchedulerSpec | None = None,
    rate_per_s: float | None = None,
    duration_s: float | None = None,
    seed: int | None = None,
    replications: int | None = None,
    bw_main: BwMainParams | None = None,
    striping: Sequence[int] | None = None,
    mount_policy: str | None = None,
    faults: FaultSpec | None = None,
) -> Scenario:
    """The scenario with the given settings replaced (``None``: kept).

    ``scheduler`` is any scheduler spec (:mod:`solvers.plugins`): a name,
    ``module.path:Attr``, an entry point's name, or the object itself;
    ``bw_main`` the parameters of the ``bw-main`` scheduler; ``striping``
    the stripe width of each request class (:func:`check_striping` says
    whether the platform can run them); ``mount_policy`` a mount policy spec
    (:mod:`solvers.online.mount_policy`); ``faults`` a fault model
    (:mod:`simulator.platform.faults`).
    """
    workload = scenario.workload
    if striping is not None:
        workload = with_striping(workload, striping)
    if rate_per_s is not None:
        workload = evolve(workload, rate_per_s=rate_per_s)
    if duration_s is not None:
        workload = evolve(workload, duration_s=duration_s)
    run = scenario.run
    if scheduler is not None:
        run = evolve(run, scheduler=scheduler)
    if seed is not None:
        run = evolve(run, seed=seed)
    if replications is not None:
        run = evolve(run, replications=replications)
    if bw_main is not None:
        run = evolve(run, bw_main=bw_main)
    if mount_policy is not None:
        run = evolve(run, mount_policy=mount_policy)
    return evolve(
        scenario,
        policy=policy or scenario.policy,
        workload=workload,
        run=run,
        faults=faults if faults is not None else scenario.faults,
    )


def check_striping(scenario: Scenario, widths: Sequence[int]) -> str | None:
    """Why ``scenario`` cannot run with the stripe widths ``widths`` (one line), or ``None``.

    There must be one width per request class, each at most the drives of
    one library (a gang wider than that would wait for ever).
    """
    classes = scenario.workload.classes
    if not classes:
        return "the scenario has no request classes (workload.request_classes) to stripe"
    if len(widths) != len(classes):
        return f"expected {len(classes)} widths, one per request class, got {len(widths)}"
    per_library: dict[str, int] = {}
    for d in scenario.platform.drives:
        per_library[d.library] = per_library.get(d.library, 0) + 1
    most = max(per_library.values())
    wide = [w for w in widths if w > most]
    if wide:
        return f"width {wide[0]} is more than the {most} drives of a library"
    return None


@frozen(kw_only=True)
class RunOverrides:
    """What a user gives in place of a scenario file's own settings (``None``: the file's).

    ``tapesched simulate`` takes each as an option. ``striping`` is the stripe width of each
    request class, or the text ``"1,2,2"``; the fault rates turn faults on
    (:func:`simulator.platform.faults.with_rates`); the bw-main parameters are those of
    :class:`simulator.schedulers.bw_main.BwMainParams`, given only when bw-main runs.
    """

    policy: str | None = None
    scheduler: str | None = None
    mount_policy: str | None = None
    striping: tuple[int, ...] | str | None = None
    rate_per_s: float | None = None
    duration_s: float | None = None
    seed: int | None = None
    replications: int | None = None
    handling_failure: float | None = None
    drive_failures_per_year: float | None = None
    mover_failures_per_year: float | None = None
    tape_losses_per_year: float | None = None
    max_light_load: int | None = None
    min_lb_interval_s: float | None = None
    max_waiting_time_s: float | None = None
    max_req_count: int | None = None
    max_imbalance: float | None = None


BW_MAIN_SETTINGS = (
    "max_light_load",
    "min_lb_interval_s",
    "max_waiting_time_s",
    "max_req_count",
    "max_imbalance",
)
"""The settings of :class:`RunOverrides` that are bw-main's parameters."""


def with_overrides(
    scenario: Scenario,
    source: str,
    settings: RunOverrides,
    *,
    allow_plugins: bool = False,
    trace: bool = False,
) -> Scenario:
    """``scenario`` (read from ``source``) with ``settings`` in place of its own, checked.

    The settings are checked in turn, and the first that fails raises: the scheduler, the
    code the file names (imported only with ``allow_plugins``), the mount policy, the
    bw-main parameters, the arrivals that rate and duration expect (not with ``trace``: a
    trace gives the requests), the striping, and then whether the scenario can run with
    the policy, scheduler, mount policy or faults given.

    Raises
    ------
    toolkit.errors.SettingsError
        For a setting that cannot be used, named by its field of :class:`RunOverrides`;
        a problem of the file under the settings names ``source``.
    toolkit.errors.InputError
        For code the file names that may not be imported, or cannot be.
    """
    from tapesched.simulator.platform.faults import with_rates
    from tapesched.simulator.scenario.consent import named_code_refusals, scheduler_problem
    from tapesched.simulator.scenario.spec import check_runnable
    from tapesched.simulator.scenario.workload_section import arrivals_message
    from tapesched.simulator.schedulers.bw_main import with_params
    from tapesched.simulator.schedulers.registry import BW_MAIN, GOLUBCHIK
    from tapesched.simulator.workload.workload import parse_striping
    from tapesched.solvers.online.mount_policy import MountPolicyError
    from tapesched.toolkit.errors import InputError, SettingProblem, SettingsError
    from tapesched.toolkit.units import MAX_ARRIVALS

    def refuse(setting: str, message: str) -> NoReturn:
        raise SettingsError([SettingProblem((setting,), message)])

    s = settings
    if s.scheduler is not None:
        problem = scheduler_problem(s.scheduler)
        if problem is not None:
            refuse("scheduler", problem)
    refusals = named_code_refusals(
        scenario, allow_plugins, scheduler=s.scheduler, mount_policy=s.mount_policy
    )
    if refusals:
        raise InputError(source, refusals)
    if s.mount_policy is not None:
        try:
            parse_mount_policy(s.mount_policy, capacity_mb=lambda tape: 1.0)
        except MountPolicyError as exc:
            refuse("mount_policy", str(exc))
    given_bw_main = {name: getattr(s, name) for name in BW_MAIN_SETTINGS}
    bw_main = None
    if any(v is not None for v in given_bw_main.values()):
        running = s.scheduler or str(scenario.run.scheduler)
        if running != BW_MAIN:
            only = f"only the {BW_MAIN} scheduler takes it; the scheduler is {running!r}"
            problems = [
                SettingProblem((name,), only) for name, v in given_bw_main.items() if v is not None
            ]
            raise SettingsError(problems)
        bw_main = with_params(scenario.run.bw_main, **given_bw_main)
    given = tuple(n for n in ("rate_per_s", "duration_s") if getattr(s, n))
    if given and not trace:
        rate_per_s = s.rate_per_s or scenario.workload.rate_per_s
        span_s = s.duration_s or scenario.workload.duration_s
        if rate_per_s * span_s > MAX_ARRIVALS:
            raise SettingsError([SettingProblem(given, arrivals_message(rate_per_s, span_s))])
    widths = None
    if s.striping is not None:
        try:
            widths = (
                parse_striping(s.striping) if isinstance(s.striping, str) else tuple(s.striping)
            )
        except ValueError as exc:
            refuse("striping", str(exc))
        why = check_striping(scenario, widths)
        if why is not None:
            refuse("striping", why)
    faults = with_rates(
        scenario.faults,
        handling_failure=s.handling_failure,
        drive_failures_per_year=s.drive_failures_per_year,
        tape_losses_per_year=s.tape_losses_per_year,
        mover_failures_per_year=s.mover_failures_per_year,
    )
    scenario = override(
        scenario,
        faults=faults,
        striping=widths,
        policy=s.policy,
        scheduler=s.scheduler,
        rate_per_s=s.rate_per_s,
        duration_s=s.duration_s,
        seed=s.seed,
        replications=s.replications,
        bw_main=bw_main,
        mount_policy=s.mount_policy,
    )
    if s.policy is not None or s.scheduler == GOLUBCHIK or s.mount_policy is not None or faults:
        setting = (
            "policy" if s.policy is not None else
            "mount_policy" if s.mount_policy is not None else
            "scheduler"
        )  # fmt: skip
        unrunnable = check_runnable(scenario)
        if unrunnable:
            raise SettingsError(
                [SettingProblem((setting,), str(p), source=source) for p in unrunnable]
            )
    return scenario


@contextmanager
def without_cyclic_gc() -> Iterator[None]:
    """The cyclic garbage collector off inside the block (as it was, after).

    A replication drops no reference cycles while it runs, and builds
    millions of objects that live to its end (requests, plans, layouts,
    records): the collector's full passes over them, each time the objects
    have grown by a quarter, cost more the longer the run, and on the Blue
    Waters benchmark made a 4-week run 2.2 times as slow per week as a
    1-week one. The cycles a run leaves are collected once it is dropped.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def scheduler_of(scenario: Scenario) -> SchedulerSpec:
    """The scheduler spec a run of ``scenario`` uses: its scheduler, under its mount policy.

    Each run gets a scheduler and a mount policy of its own (both keep
    state); the tapes' capacity is the platform's.
    """
    spec = simulator_scheduler(scenario.run.scheduler, scenario.run.bw_main)
    mount_policy = scenario.run.mount_policy
    if mount_policy is None:
        return spec
    capacity_mb = scenario.platform.tape_capacity_mb
    plugged = resolve_scheduler(spec)

    def under_mount_policy() -> Scheduler:
        policy = parse_mount_policy(mount_policy, capacity_mb=lambda tape: capacity_mb)
        return with_mount_policy(plugged.make(), policy)

    return with_plugins(plugged, under_mount_policy, mount_policy)


def run_once(
    scenario: Scenario,
    seed: int,
    *,
    workload: Workload | None = None,
    record: bool = True,
    log: IO[bytes] | None = None,
    progress: Callable[[float], None] | None = None,
    to_end: bool = False,
    platform_record: bool | None = None,
) -> Replication:
    """One replication of ``scenario`` with ``seed`` (the workload's and the times').

    The run stops at the workload's duration, or with ``to_end`` once every
    request is done (for a finite trace: nothing is then left undone, so
    nothing is saturated). The cyclic garbage collector is off meanwhile
    (:func:`without_cyclic_gc`). With ``record``, each request's record is kept
    as it ends (:class:`~simulator.results.records.RecordSpool`: on disk), and,
    unless ``platform_record`` is false, the platform's arm operations and transfers
    (what an export reads).

    Raises
    ------
    KeyError
        For an unknown policy or scheduler name.
    solvers.plugins.SchedulerSpecError
        (a ``ValueError``) for a scheduler spec that gives no scheduler.
    """
    with without_cyclic_gc():
        policy = make_policy(scenario.policy, **scenario.policy_params)
        with policy_guard(policy):
            if workload is None:
                workload = generate(scenario.workload, seed, make_archive(scenario, seed, policy))
            simulation = Simulation(
                scenario.platform,
                policy,
                scheduler_of(scenario),
                workload,
                seed=seed,
                record=record if platform_record is None else platform_record,
                log=log,
                cache=scenario.disk_cache,
                faults=scenario.faults,
                keep_finished=False,
            )
            duration = scenario.workload.duration_s
            warmup_s = scenario.run.warmup * duration
            tally = RunTally(warmup_s)
            simulation.finish_sinks.append(tally.add_entry)
            kept = RecordSpool()
            if record:
                simulation.finish_sinks.append(lambda e: kept.append(record_of(e, simulation)))
            simulation.run(None if to_end else duration, progress)
            summary = summarise(simulation, tally, seed, warmup_s)
    cache = simulation.cache
    return Replication(
        kept,
        summary,
        simulation,
        tuple(failed_record_of(e) for e in simulation.failed),
        simulation.served_from_disk,
        () if cache is None else tuple(c.to_dict() for c in cache.report(simulation.engine.now_s)),
    )


COLLECT_AFTER = 10_000
"""Requests a run must have seen for its simulation, once dropped, to be collected at once:
a simulation is a web of references that only the cyclic collector frees, and left to its
next full pass, the runs dropped before it would add up (small runs are left to it)."""


def _collect(summary: RunSummary) -> None:
    if summary.arrived >= COLLECT_AFTER:
        gc.collect()


def run_summary(scenario: Scenario, seed: int) -> RunSummary:
    """One replication of ``scenario`` with ``seed``, no records kept: its summary, the run
    freed before it returns (:data:`COLLECT_AFTER`), so that many replications take the
    memory of one."""
    summary = run_once(scenario, seed, record=False).summary
    _collect(summary)
    return summary


def run_scenario(
    scenario: Scenario,
    *,
    scheduler: SchedulerSpec | None = None,
    workload: Workload | None = None,
    log: IO[bytes] | None = None,
    progress: Callable[[int, float], None] | None = None,
) -> tuple[list[Replication], dict[str, Estimate]]:
    """Every replication of ``scenario`` and the metrics over them.

    ``scheduler`` replaces the scenario's (``run.scheduler``): a name,
    ``module.path:Attr``, an entry point's name, a class or factory of
    schedulers, or a scheduler, of which each replication gets its own
    (:mod:`solvers.plugins`). With ``workload`` (a trace), every replication
    runs it to its end, the seeds changing only the random times; otherwise
    each draws its own. ``log`` receives the first replication's event log;
    ``progress(k, now)`` is called as replication ``k`` advances.
    """
    scenario = override(scenario, scheduler=scheduler)
    replications = []
    for k in range(scenario.run.replications):
        report = None if progress is None else (lambda now, k=k: progress(k, now))
        replication = run_once(
            scenario,
            scenario.run.seed + k,
            workload=workload,
            record=k == 0,
            log=log if k == 0 else None,
            progress=report,
            to_end=workload is not None,
            # Only the first run is exported, and only with every time fixed.
            platform_record=k == 0 and not scenario.platform.random,
        )
        # The first run's simulation is kept when it can be exported (every time fixed); the
        # others' are dropped as they end, so that many replications take the memory of one.
        if k == 0 and not scenario.platform.random:
            replications.append(replication)
        else:
            replications.append(evolve(replication, simulation=None))
            del replication
            _collect(replications[-1].summary)
    return replications, combine([r.summary for r in replications])
