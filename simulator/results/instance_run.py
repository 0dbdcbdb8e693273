"""A core-problem instance run directly in the simulator: no policy layer, the same heuristics.

The instance's libraries, drives, tapes and requests are taken as given. The
simulator's clock drives a :class:`solvers.online.dispatcher.Dispatcher` event by
event: a release or a drive becoming free is an event of
:class:`simulator.kernel.engine.Engine`, at which the dispatcher lets the
scheduler decide. The dispatcher places each decision with the core
problem's timing rules (fixed durations, the arms of the instance), so the
schedule the run exports is the one ``tapesched solve`` returns for the same
heuristic: each heuristic has one implementation, used by both.
"""

from __future__ import annotations

import io
import os
from typing import IO

import orjson
from attrs import frozen

from tapesched.simulator.kernel.engine import Engine
from tapesched.solvers.online.dispatcher import Dispatcher
from tapesched.solvers.online.state import LeftWaiting
from tapesched.solvers.plugins import SchedulerSpec, plug_scheduler
from tapesched.toolkit.files.json_documents import write_atomic
from tapesched.toolkit.files.outputs import DirectoryOutput, directory_output
from tapesched.toolkit.files.schedule_file import save_schedule
from tapesched.toolkit.model import Instance, Schedule
from tapesched.toolkit.validator import Report, validate

INSTANCE_RUN_FILES = ("schedule.json", "events.jsonl")
"""What the directory of an instance's run holds (:meth:`InstanceRun.write`)."""


def simulate_instance(
    instance: Instance, scheduler: SchedulerSpec, log: IO[bytes] | None = None
) -> tuple[Schedule, int]:
    """Run ``instance`` under the online scheduler ``scheduler``.

    Parameters
    ----------
    instance
        A well-formed instance.
    scheduler
        A registered heuristic's name (a key of
        :data:`solvers.online.heuristics.SCHEDULERS`), ``module.path:Attr``, an entry
        point's name, a class or factory of schedulers, or a scheduler (see
        :mod:`solvers.plugins`); the run makes its own from it.
    log
        A binary stream for the event log (JSON lines: each decision time
        and the requests waiting then).

    Returns
    -------
    tuple[Schedule, int]
        The realised schedule and the number of events the engine ran.

    Raises
    ------
    solvers.plugins.SchedulerSpecError
        (a ``ValueError``) for a spec that gives no scheduler; an unknown
        name is a ``KeyError`` too.
    solvers.online.state.LeftWaiting
        (a ``RuntimeError``) when the scheduler leaves requests waiting with
        nothing left to wait for.
    toolkit.runtime.plugin_calls.PluginError
        When a plug-in fails (:meth:`solvers.plugins.PluggedScheduler.guard`).
    """
    plugged = plug_scheduler(scheduler)
    dispatcher = Dispatcher(instance, plugged.make())
    engine = Engine()

    def step() -> None:
        if log is not None:
            line = {"t": engine.now_s, "event": "decide", "waiting": len(dispatcher.waiting)}
            log.write(orjson.dumps(line) + b"\n")
        if dispatcher.step():
            plan_next()

    def plan_next() -> None:
        t = dispatcher.next_event_s()
        if t is not None:
            engine.at(max(t, engine.now_s), step)

    plan_next()
    with plugged.guard():
        engine.run()
        if dispatcher.waiting:  # the scheduler waited with nothing left to wait for
            raise LeftWaiting(len(dispatcher.waiting), dispatcher.now)
    return dispatcher.timeline.schedule(), engine.events_run


@frozen
class InstanceRun:
    """A core-problem instance run under an online scheduler, and the validator's verdict.

    Attributes
    ----------
    instance
        The instance run.
    scheduler
        The scheduler it ran under, as given (a name or ``module.path:Attr``).
    schedule
        The realised schedule.
    report
        The validator's report on it.
    events
        The event log, one JSON object a line (``None``: not kept).
    """

    instance: Instance
    scheduler: str
    schedule: Schedule
    report: Report
    events: bytes | None = None

    def summary(self) -> dict[str, object]:
        """What ``tapesched simulate INSTANCE --json`` prints: ``instance`` (its name),
        ``requests``, ``scheduler``, ``operations`` (the arm operations of the schedule) and
        the validator's verdict (:func:`toolkit.validator.summary`: ``feasible``,
        ``objective`` with its ``name`` and ``value``, ``violations``, ``warnings``)."""
        from tapesched.toolkit.validator import summary

        return {
            "instance": self.instance.name,
            "requests": len(self.instance.requests),
            "scheduler": self.scheduler,
            "operations": len(self.schedule.operations),
            **summary(self.report),
        }

    def write(self, directory: str | os.PathLike[str] | DirectoryOutput) -> None:
        """Write ``schedule.json`` (and ``events.jsonl`` when kept) to ``directory``, whole or
        not at all (an existing directory is replaced only if it holds nothing but
        :data:`INSTANCE_RUN_FILES`, or what a checked ``directory`` allows).

        Raises
        ------
        simulator.results.export.ExportError
            When the schedule is infeasible: nothing is written.
        toolkit.errors.InputError
            When the directory may not be replaced, or cannot be written.
        """
        from tapesched.simulator.results.export import ExportError

        if not isinstance(directory, DirectoryOutput):
            directory = directory_output(os.fspath(directory), INSTANCE_RUN_FILES, None)
        if not self.report.feasible:
            raise ExportError(f"the schedule is infeasible; nothing written to {directory.given}")
        with directory.building() as staging:
            save_schedule(self.schedule, staging / "schedule.json")
            if self.events is not None:
                write_atomic(staging / "events.jsonl", self.events.decode())


def run_instance(
    instance: Instance,
    scheduler: str = "fifo",
    *,
    mount_policy: str | None = None,
    log: bool = False,
) -> InstanceRun:
    """Run ``instance`` under ``scheduler`` (and ``mount_policy``), and judge the schedule.

    The instance runs on the solvers' dispatcher (:func:`simulate_instance`), so an
    offline mount policy (``belady``) may read its future requests here.

    Raises
    ------
    toolkit.errors.SettingsError
        For a scheduler that runs scenarios only or gives no scheduler, or a bad mount
        policy (named ``scheduler``, ``mount_policy``).
    """
    from tapesched.simulator.scenario.consent import scheduler_problem
    from tapesched.simulator.schedulers.registry import is_simulator_scheduler, scenarios_only
    from tapesched.toolkit.errors import SettingProblem, SettingsError

    if is_simulator_scheduler(scheduler):
        why = f"{scheduler} runs scenarios only ({scenarios_only(scheduler)})"
        raise SettingsError([SettingProblem(("scheduler",), why)])
    problem = scheduler_problem(scheduler)
    if problem is not None:
        raise SettingsError([SettingProblem(("scheduler",), problem)])
    spec: SchedulerSpec = scheduler
    if mount_policy is not None:
        from tapesched.solvers.online.mount_policy import (
            MountPolicyError,
            parse_mount_policy,
            with_mount_policy,
        )
        from tapesched.solvers.online.protocol import Scheduler
        from tapesched.solvers.plugins import with_plugins

        try:
            parse_mount_policy(mount_policy, instance=instance)
        except MountPolicyError as exc:
            raise SettingsError([SettingProblem(("mount_policy",), str(exc))]) from exc
        plugged = plug_scheduler(scheduler)
        given = mount_policy

        def under_mount_policy() -> Scheduler:  # the run's own scheduler, its own mount policy
            policy = parse_mount_policy(given, instance=instance)
            return with_mount_policy(plugged.make(), policy)

        spec = with_plugins(plugged, under_mount_policy, mount_policy)
    events = io.BytesIO() if log else None
    schedule, _ = simulate_instance(instance, spec, log=events)
    report = validate(instance, schedule)
    kept = None if events is None else events.getvalue()
    return InstanceRun(instance, scheduler, schedule, report, kept)
