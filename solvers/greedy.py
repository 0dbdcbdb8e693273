"""The ``greedy`` heuristic: an online list scheduler.

Requests are taken in release order (ties in file order) and never revisited.
Each piece of a request goes to the drive of its library that has it ready
(tape loaded, head at the piece's offset) for the earliest completion, and
the request starts when all its drives are ready, at its release at the
earliest. Tape switches and arm operations are placed as early as they fit.

The scheduler is online: nothing is done for a request before its release
(its unloads, arm operations and locates start at ``release_s`` or later),
and a tape stays in its drive after use until a switch needs that drive
(keep-mounted), so that a later request on the same tape only locates. A
request is committed at its release, onto drives that may still be busy with
earlier requests: it queues behind them. (The ``fifo`` dispatcher of
:mod:`solvers.online` differs: it waits for drives to be free.)

The placement itself, and what makes it fast on 100,000 requests over
hundreds of drives, is the :class:`~solvers.timeline.timeline.Timeline`'s; greedy is the
timeline run over the release order.
"""

from __future__ import annotations

import time

from tapesched.solvers.bounds.bounds import lower_bound
from tapesched.solvers.result import Result, Status
from tapesched.solvers.timeline.timeline import Timeline
from tapesched.toolkit.model import Instance


def release_order(instance: Instance) -> list[int]:
    """Indices of the requests by release, ties in file order."""
    requests = instance.requests
    return sorted(range(len(requests)), key=lambda j: (requests[j].release_s, j))


def greedy(instance: Instance, *, time_limit_s: float | None = None, seed: int = 0) -> Result:
    """Schedule ``instance`` online, request by request, keeping tapes mounted.

    Parameters
    ----------
    instance
        A well-formed instance.
    time_limit_s
        Ignored: the heuristic makes one pass and never searches.
    seed
        Ignored: the heuristic makes no random choice, so equal instances
        give equal schedules.

    Returns
    -------
    Result
        Status ``feasible`` with the schedule, its objective and the lower bound of
        :func:`solvers.bounds.bounds.lower_bound`, so that the gap is always visible.
    """
    began = time.perf_counter()
    timeline = Timeline(instance, online=True)
    timeline.place_in_order(release_order(instance))
    schedule = timeline.schedule()
    assert schedule.objective is not None
    return Result(
        solver="greedy",
        status=Status.FEASIBLE,
        schedule=schedule,
        objective=schedule.objective.value,
        runtime_s=time.perf_counter() - began,
        bound=lower_bound(instance),
    )
