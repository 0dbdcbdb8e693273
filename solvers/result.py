"""What every solver returns: a status, a schedule when one was found, and its numbers.

Heuristics and exact solvers share this shape so that callers (the command
line, benchmarks, comparisons) never need to know which kind of solver ran.
"""

from __future__ import annotations

from enum import StrEnum

from attrs import frozen

from toolkit.model import Schedule


class Status(StrEnum):
    """How a solver's run ended.

    ``optimal``: the schedule is proven optimal. ``feasible``: a schedule was
    found without a proof of optimality (always the case for heuristics).
    ``infeasible``: the instance is proven to have no schedule. ``timeout``:
    the time limit ran out before a proof; the best schedule found by then
    (if any) and the best bound come with it.
    """

    OPTIMAL = "optimal"
    FEASIBLE = "feasible"
    INFEASIBLE = "infeasible"
    TIMEOUT = "timeout"


@frozen
class Result:
    """The outcome of one solver run on one instance.

    Parameters
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
    """

    solver: str
    status: Status
    schedule: Schedule | None
    objective: float | None
    bound: float | None
    runtime_s: float
