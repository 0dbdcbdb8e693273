"""The best schedule of every online heuristic: where every offline improver starts.

Its own module, below :mod:`solvers.local_search` and :mod:`solvers.warm_start`,
so that both (and :mod:`solvers.lns`) start from it without an import cycle.
"""

from __future__ import annotations

from tapesched.solvers.online.dispatcher import dispatch
from tapesched.solvers.online.heuristics import SCHEDULERS
from tapesched.toolkit.model import Instance, Schedule
from tapesched.toolkit.validator import validate


def best_heuristic(instance: Instance, prefetch: bool = True) -> tuple[Schedule, float] | None:
    """The best schedule of the online heuristics, with its validated objective.

    With ``prefetch`` false, only schedules that pass ``validate(...,
    prefetch=False)`` count (the online heuristics do nothing for a request
    before its release, so all of them do). Ties go to the first heuristic
    in :data:`~solvers.online.heuristics.SCHEDULERS` order, so the result is
    deterministic. ``None`` when no heuristic gives
    a feasible schedule (an instance with a gang wider than its library).
    """
    tape_library = {tape.id: tape.library for tape in instance.tapes}
    for request in instance.requests:
        library = tape_library[request.pieces[0].tape]
        if len(request.pieces) > len(instance.drives_of_library.get(library, ())):
            return None
    best: tuple[Schedule, float] | None = None
    for make in SCHEDULERS.values():
        schedule = dispatch(instance, make())
        report = validate(instance, schedule, prefetch=prefetch)
        if report.feasible and report.objective is not None:
            if best is None or report.objective < best[1]:
                best = schedule, report.objective
    return best
