"""Whether an exact model can be built in the time given: its size and its set-up cost.

An exact solver (``cpsat``, ``milp-cbc``, ``milp-highs``) first builds its
model in Python and hands it to the solver, which reads it and solves the
root before it can stop on time. On instances of hundreds of requests that
set-up alone takes longer than any useful time limit. Rather than start and
be cut off (or overrun the limit inside the solver, which does not look at
the clock while it reads a model), the solver predicts the set-up time from
the model's size, and when it would not leave half of the time left for
the search, it builds nothing and returns its warm start with the status
``not-built`` (:func:`not_built`).

The size is :func:`arc_count`, the drive-sequence arcs before any pruning
(the square of each library's nodes, per drive): every family of the models
(arcs, their big-M rows, the pairs of arm operations and of one tape's
holds) grows with it. The set-up time is a power law of it
(:class:`SetupCost`), measured for each backend by
``benchmarks/build_rate.py``: the seconds from the start of the build to
the solver's return under a 0.01 s limit, on random instances of 10 to 250
requests (4 drives, gangs of up to 2), on the shared 2-core machine with
another benchmark running (2026-11-24), so on the slow side.
"""

from __future__ import annotations

import time

from attrs import frozen

from tapesched.solvers.bounds.bounds import lower_bound
from tapesched.solvers.result import Result, Status
from tapesched.toolkit.model import Instance, Schedule

__all__ = [
    "CBC_SETUP",
    "CPSAT_SETUP",
    "HIGHS_SETUP",
    "SAFETY",
    "SetupCost",
    "arc_count",
    "fits",
    "most_arcs",
    "not_built",
    "over_limit",
    "ran_out",
]


def arc_count(instance: Instance) -> int:
    """How many drive-sequence arcs the model of ``instance`` may have, before any pruning.

    Each drive may take any node of its library after any other: the square
    of its library's pieces (and initial tapes) per drive. Both exact models
    grow with it, and so does the time to build them.
    """
    tape_library = {tape.id: tape.library for tape in instance.tapes}
    nodes: dict[str, int] = {}
    for request in instance.requests:
        for piece in request.pieces:
            library = tape_library[piece.tape]
            nodes[library] = nodes.get(library, 0) + 1
    drive_library = {drive.id: drive.library for drive in instance.drives}
    for init in instance.initial:
        library = drive_library[init.drive]
        nodes[library] = nodes.get(library, 0) + 1
    return sum(nodes.get(drive.library, 0) ** 2 for drive in instance.drives)


@frozen
class SetupCost:
    """Seconds to build a model and have its solver ready: ``s_at_10k_arcs * (arcs / 1e4) ** p``.

    Parameters
    ----------
    s_at_10k_arcs
        Set-up seconds of a model of 10,000 arcs (:func:`arc_count`).
    exponent
        ``p``, how the seconds grow with the arcs: above 1, as the rows and the
        solver's own reading grow faster than the arcs.
    """

    s_at_10k_arcs: float
    exponent: float

    def seconds(self, arcs: int) -> float:
        """Predicted set-up seconds of a model of ``arcs`` arcs."""
        return self.s_at_10k_arcs * (arcs / 10_000) ** self.exponent


CBC_SETUP = SetupCost(s_at_10k_arcs=7.0, exponent=1.5)
"""The MILP in PuLP, written as MPS, read by CBC and its root solved: 1.8 s at 4,900 arcs,
6.7 s at 8,800, 12.6 s at 18,500, 34 s at 33,100 (``benchmarks/build_rate.py``)."""

HIGHS_SETUP = SetupCost(s_at_10k_arcs=2.3, exponent=1.2)
"""The MILP in PuLP handed to HiGHS: 1.6 s at 8,800 arcs, 25 s at 71,800, 55 s at 141,000."""

CPSAT_SETUP = SetupCost(s_at_10k_arcs=0.45, exponent=1.15)
"""The CP-SAT model built and presolved: 1.5 s at 33,100 arcs, 6 s at 105,000, 47 s at 593,000."""

SAFETY = 2.0
"""The predicted set-up must fit this many times in the time left: half stays for the search."""


def fits(instance: Instance, cost: SetupCost, time_left_s: float | None) -> bool:
    """Whether the model of ``instance`` can be built, with time to search, in ``time_left_s``.

    ``True`` without a time limit (``None``): the caller gave the time it takes.
    """
    if time_left_s is None:
        return True
    return SAFETY * cost.seconds(arc_count(instance)) <= time_left_s


def most_arcs(cost: SetupCost, time_left_s: float) -> int:
    """The most arcs whose model :func:`fits` in ``time_left_s`` (the inverse of ``cost``)."""
    if time_left_s <= 0:
        return 0
    return int(10_000 * (time_left_s / (SAFETY * cost.s_at_10k_arcs)) ** (1 / cost.exponent))


def over_limit(instance: Instance, cost: SetupCost, time_left_s: float | None) -> str | None:
    """Why the model of ``instance`` is not built in ``time_left_s``; ``None`` when it :func:`fits`.

    The reason names the limit: the model's arcs (:func:`arc_count`) against
    the most whose set-up leaves half of the time left to the search
    (:func:`most_arcs`).
    """
    if fits(instance, cost, time_left_s):
        return None
    assert time_left_s is not None
    arcs = arc_count(instance)
    return (
        f"the model would have {arcs:,} drive-sequence arcs, over the limit of "
        f"{most_arcs(cost, time_left_s):,} that can be built with time to search in the "
        f"{time_left_s:.3g} s left of the time limit (predicted set-up {cost.seconds(arcs):.3g} s)"
    )


def ran_out(instance: Instance, time_limit_s: float | None) -> str:
    """The reason of a model whose building the time limit cut short."""
    limit = "" if time_limit_s is None else f" of {time_limit_s:.3g} s"
    return (
        f"the time limit{limit} ran out while building the model "
        f"({arc_count(instance):,} drive-sequence arcs)"
    )


def not_built(
    instance: Instance,
    solver: str,
    start: tuple[Schedule, float] | None,
    began: float,
    reason: str,
    prefetch: bool = True,
) -> Result:
    """The result of an exact solver that built no model in its time limit.

    Status ``not-built``, the warm start ``start`` (with its objective) when
    there is one, :func:`solvers.bounds.bounds.lower_bound` as the bound (never
    above the objective; of the non-anticipative problem when ``prefetch``
    is false) and ``reason``, the limit met (:func:`over_limit`,
    :func:`ran_out`); ``began`` is when the run began (``time.perf_counter()``).
    """
    bound = lower_bound(instance, prefetch=prefetch)
    runtime = time.perf_counter() - began
    if start is None:
        return Result(solver, Status.NOT_BUILT, None, None, bound, runtime, reason=reason)
    schedule, value = start
    return Result(
        solver, Status.NOT_BUILT, schedule, value, min(bound, value), runtime, reason=reason
    )
