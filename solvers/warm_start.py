"""The schedule the exact solvers start from: the best heuristic's, improved by local search.

An exact solver's time limit only ever returns what it has, so it starts
from the best schedule cheaply at hand: every online heuristic of
:data:`solvers.online.heuristics.SCHEDULERS` (each a single pass of the timeline), the
best of them by the validator's objective (:func:`best_heuristic`, from
:mod:`solvers.online.best`), then :func:`solvers.local_search.improve`
for a small share of the time limit. Without a time limit the local search
runs its default budget. On instances of the size an exact solver proves,
this costs well under a second; CP-SAT takes it as a hint, the MILPs as a
warm start, and both return it when they find nothing better.
"""

from __future__ import annotations

import time

from tapesched.solvers.local_search import DEFAULT_ITERATIONS, improve
from tapesched.solvers.online.best import best_heuristic
from tapesched.toolkit.model import Instance, Schedule
from tapesched.toolkit.validator import validate

__all__ = ["IMPROVE_CAP_S", "IMPROVE_SHARE", "best_heuristic", "warm_start"]

IMPROVE_SHARE = 0.1
"""Share of the exact solver's time limit given to the local search."""

IMPROVE_CAP_S = 2.0
"""Most seconds of local search when there is a time limit."""


def warm_start(
    instance: Instance, *, time_limit_s: float | None, seed: int, prefetch: bool = True
) -> tuple[Schedule, float] | None:
    """The best heuristic schedule improved by local search, with its validated objective.

    Parameters
    ----------
    instance
        A well-formed instance.
    time_limit_s
        The exact solver's whole time limit: the local search gets
        :data:`IMPROVE_SHARE` of it, at most :data:`IMPROVE_CAP_S`, and at
        most :data:`~solvers.local_search.DEFAULT_ITERATIONS` decodes (so
        that a tiny instance does not spend its whole share); ``None`` gives
        it its default iteration budget.
    seed
        Seed of the local search.
    prefetch
        ``False``: only a schedule that passes ``validate(...,
        prefetch=False)`` is returned; the local search's schedules, which
        may prefetch, are kept only when they do not.
    """
    began = time.perf_counter()
    best = best_heuristic(instance, prefetch)
    if best is None:
        return None
    budget = None
    if time_limit_s is not None:
        spent = time.perf_counter() - began
        budget = max(0.0, min(IMPROVE_SHARE * time_limit_s, IMPROVE_CAP_S) - spent)
        if budget == 0.0:
            return best
    iterations = None if budget is None else DEFAULT_ITERATIONS
    improved = improve(instance, best[0], time_limit_s=budget, seed=seed, max_iterations=iterations)
    report = validate(instance, improved, prefetch=prefetch)
    if report.feasible and report.objective is not None and report.objective < best[1]:
        return improved, report.objective
    return best
