"""What every solver returns: a status, a schedule when one was found, and its numbers.

Heuristics and exact solvers share this shape so that callers (the command
line, benchmarks, comparisons) never need to know which kind of solver ran.
"""

from __future__ import annotations

import math
from enum import StrEnum

from attrs import frozen

from tapesched.toolkit.model import Schedule


class Status(StrEnum):
    """How a solver's run ended.

    ``optimal``: the schedule is proven optimal. ``feasible``: a schedule was
    found without a proof of optimality (always the case for heuristics).
    ``infeasible``: the instance is proven to have no schedule. ``timeout``:
    the time limit ran out before a proof; the best schedule found by then
    (if any) and the best bound come with it. ``not-built``: an exact
    solver's model was too large to build in the time given
    (:mod:`solvers.exact.model_size`), so no search ran; the warm start's schedule
    (if any) and :func:`solvers.bounds.bounds.lower_bound` come with it, and
    :attr:`Result.reason` says which limit the model met.

    A run stopped by a relative gap (``gap``, :func:`solvers.solve`) before a
    proof is ``feasible``: its bound says how close it is.
    """

    OPTIMAL = "optimal"
    FEASIBLE = "feasible"
    INFEASIBLE = "infeasible"
    TIMEOUT = "timeout"
    NOT_BUILT = "not-built"


@frozen
class Progress:
    """One point of a solver's trajectory: the incumbent and the bound at a time.

    Parameters
    ----------
    time_s
        Seconds since the run began.
    objective
        The best objective found by then (the validator's value).
    bound
        The best lower bound known by then (``None`` when the solver has none).
    """

    time_s: float
    objective: float
    bound: float | None

    def gap(self) -> float | None:
        """``(objective - bound) / objective``, the share of the incumbent not yet proven.

        ``None`` without a bound; 0 when the objective is 0.
        """
        if self.bound is None:
            return None
        if self.objective <= 0:
            return 0.0
        return max(0.0, (self.objective - self.bound) / self.objective)


def gap_target(bound: float, gap: float | None) -> float | None:
    """The largest objective within the relative ``gap`` of ``bound``: ``bound / (1 - gap)``.

    The gap is :meth:`Progress.gap`'s, ``(objective - bound) / objective``; an
    objective at most this value has a gap of at most ``gap``. ``None``
    without a gap; infinite for a gap of 1 or more (any schedule is within
    it, as long as the bound is not negative).
    """
    if gap is None:
        return None
    if gap >= 1.0:
        return math.inf
    return bound / (1.0 - gap)


@frozen
class Result:
    """The outcome of one solver run on one instance.

    Attributes
    ----------
    solver
        Registered name of the solver that ran.
    status
        How the run ended.
    schedule
        The best schedule found, or ``None`` when none was found.
    objective
        Value of the instance's objective for ``schedule`` (``None`` without one).
    bound
        Best proven lower bound on the optimum, from exact solvers; ``None``
        when the solver proves none (heuristics).
    runtime_s
        Wall-clock time the solver spent, in seconds.
    trajectory
        The incumbent and the bound each time either changed, in time
        order, for the solvers that improve a schedule (``local-search``,
        ``lns``); empty for the others.
    reason
        Why the run ended as it did, when the status alone does not say: for
        ``not-built``, the limit the model met (its size against what the
        time left can build, or the time limit running out while building);
        ``None`` otherwise.
    """

    solver: str
    status: Status
    schedule: Schedule | None
    objective: float | None
    bound: float | None
    runtime_s: float
    trajectory: tuple[Progress, ...] = ()
    reason: str | None = None
