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

from typing import IO

import orjson

from tapesched.simulator.kernel.engine import Engine
from tapesched.solvers.online.dispatcher import Dispatcher
from tapesched.solvers.online.state import LeftWaiting
from tapesched.solvers.plugins import SchedulerSpec, plug_scheduler
from tapesched.toolkit.model import Instance, Schedule


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
