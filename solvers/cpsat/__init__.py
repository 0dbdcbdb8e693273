"""The ``cpsat`` solver: the exact formulation of ``solvers/exact/formulation.md`` in OR-Tools
CP-SAT.

Each drive sequences its nodes with a circuit through a depot (a node absent
from the drive takes its self-loop), whose arcs are continues (same tape, the
head locates) or switches (unload, dismount, mount, load, locate); mounts and
dismounts are optional fixed-size intervals under a cumulative per library
(a no-overlap with one arm); each node holds its tape over an interval, and
a tape's holds do not overlap. The modules:

- :mod:`~solvers.cpsat.data`: the formulation's data
  (:mod:`solvers.exact.formulation`: nodes, candidate drives, twin groups, every
  length in seconds, tape gaps), every length in ticks, the horizon;
- :mod:`~solvers.cpsat.variables`: the variables, one builder;
- :mod:`~solvers.cpsat.pruning`: the arcs that no solution as good as the
  hint can use, left out;
- :mod:`~solvers.cpsat.constraints`: one function per constraint family;
- :mod:`~solvers.cpsat.objective`: the three objectives, scaled to integers,
  and their values and bounds in seconds;
- :mod:`~solvers.cpsat.decisions`: a solution's decisions and the earliest
  times they allow;
- :mod:`~solvers.cpsat.hint`: a heuristic's schedule as a hint;
- :mod:`~solvers.cpsat.solution`: the solver's values as a plan.

Time resolution
---------------
Times are integer ticks of ``resolution_s`` (1 ms by default). Lengths and
releases are rounded up, so that a model solution stays feasible with the
exact lengths; the returned schedule is the solution's decisions re-timed
with the exact lengths (never later than the model's times), and the
objective reported is the validator's recomputation of that schedule, never
the solver's value. When every length and release is a whole number of ticks
(and, for weighted objectives, every weight a multiple of a power of ten
down to 1e-6) the model *is* the instance: ``optimal`` is a proof and the
bound is CP-SAT's best objective bound in seconds. Otherwise ``optimal``
means optimal for the rounded model (the re-timed schedule may still be
improvable by less than the rounding), and the bound is CP-SAT's lowered by
the most that rounding can have added (:mod:`~solvers.cpsat.objective`), so
that it stays a lower bound of the instance's optimum.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable

from attrs import frozen
from ortools.sat.python import cp_model

from tapesched.solvers.bounds.bounds import lower_bound
from tapesched.solvers.cpsat.constraints import add_all
from tapesched.solvers.cpsat.data import CpsatData
from tapesched.solvers.cpsat.hint import Hint, add_hint, read_hint
from tapesched.solvers.cpsat.objective import Scaled, end_caps, set_objective
from tapesched.solvers.cpsat.pruning import arc_keeper
from tapesched.solvers.cpsat.solution import read_plan
from tapesched.solvers.cpsat.variables import CpsatVariables, build_variables
from tapesched.solvers.exact.deadline import Deadline, OutOfTime
from tapesched.solvers.exact.model_size import CPSAT_SETUP, not_built, over_limit, ran_out
from tapesched.solvers.exact.plan import plan_to_schedule
from tapesched.solvers.exact.stoppable import solve_stoppable
from tapesched.solvers.result import Result, Status
from tapesched.solvers.warm_start import warm_start
from tapesched.toolkit.model import Instance, Schedule
from tapesched.toolkit.validator import validate

__all__ = ["CpsatModel", "build_model", "cpsat"]


@frozen
class CpsatModel:
    """A built model: the CP-SAT model, its data, its variables, its objective's scale.

    ``hinted`` says whether a schedule hints every variable.
    """

    model: cp_model.CpModel
    data: CpsatData
    variables: CpsatVariables
    scaled: Scaled
    hinted: bool = False


def build_model(
    instance: Instance,
    resolution_s: float = 0.001,
    hint_schedule: Schedule | None = None,
    deadline: Deadline | None = None,
    prefetch: bool = True,
    data: CpsatData | None = None,
    prune: bool = True,
) -> CpsatModel:
    """The CP-SAT model of ``instance`` at ``resolution_s`` seconds per tick.

    Parameters
    ----------
    instance
        A well-formed instance.
    resolution_s
        Seconds per tick of the model's integer times.
    hint_schedule
        A feasible schedule to hint every variable with, when the model can
        express it; the horizon then shrinks to the latest end that a
        solution as good may have (:func:`~solvers.cpsat.objective.objective_cap`).
    deadline
        When to give up building (raising :class:`~solvers.exact.deadline.OutOfTime`);
        ``None``: never.
    prefetch
        ``False``: the non-anticipative problem (no mount, load or locate
        for a request before its release).
    data
        The model's data when the caller made it (``instance``,
        ``resolution_s``, ``deadline`` and ``prefetch`` are then its own),
        for example a restricted subclass. ``None``: :class:`CpsatData` of
        the arguments.
    prune
        With a hint, leave out the arcs that no solution as good as the
        hint can use (:mod:`solvers.cpsat.pruning`); ``False`` keeps them
        (for the tests that compare both models' optima).
    """
    model = cp_model.CpModel()
    if data is None:
        data = CpsatData(instance, resolution_s, deadline, prefetch)
    hint = None if hint_schedule is None else read_hint(data, hint_schedule)
    keep = None
    if hint is not None:
        ends = [round(t) for t in hint.times.end]
        caps = [max(cap, end) for cap, end in zip(end_caps(data, ends), ends, strict=True)]
        data.cap = max(max(caps, default=1), math.ceil(hint.latest(data)))
        if prune:
            keep = _hint_kept(arc_keeper(data, caps), hint)
    variables = build_variables(model, data, keep)
    add_all(model, data, variables)
    scaled = set_objective(model, data, variables)
    hinted = hint is not None and add_hint(model, data, variables, hint)
    return CpsatModel(model, data, variables, scaled, hinted)


def _hint_kept(
    keep: Callable[[int, int, int], bool], hint: Hint
) -> Callable[[int, int, int], bool] | None:
    """``keep`` when it keeps every arc of the hint's sequences, else ``None`` (no pruning).

    :mod:`solvers.cpsat.pruning` proves that it does; should rounding ever
    contradict the proof, the model is built whole rather than without the
    hint's own solution.
    """
    for d, sequence in enumerate(hint.decisions.sequences):
        for a, b in itertools.pairwise(sequence):
            if not keep(d, a, b):
                return None
    return keep


def _starting_schedule(
    instance: Instance,
    hint: bool,
    hint_schedule: Schedule | None,
    time_limit_s: float | None,
    seed: int,
    prefetch: bool,
) -> tuple[Schedule, float] | None:
    """The schedule to hint and fall back on, with its objective, when it is feasible.

    Feasible under ``prefetch``: without prefetch, a schedule that prefetches
    is neither hinted nor returned.
    """
    if hint_schedule is None:
        if not hint:
            return None
        return warm_start(instance, time_limit_s=time_limit_s, seed=seed, prefetch=prefetch)
    report = validate(instance, hint_schedule, prefetch=prefetch)
    if not report.feasible or report.objective is None:
        return None
    return hint_schedule, report.objective


def _stop_within(solver: cp_model.CpSolver, built: CpsatModel, gap: float, floor_s: float) -> None:
    """Have CP-SAT stop once its incumbent is within the relative ``gap`` of its bound.

    The two max objectives are scaled with no offset, so CP-SAT's
    ``relative_gap_limit`` is the gap asked for. The weighted flow's model
    minimises ``sum W_j C_j``, the releases' constant left out, on which a
    relative gap would stop far too early: its limit is absolute instead,
    ``gap`` times ``floor_s`` (a lower bound of the weighted flow, so of
    every incumbent) in the model's units, which stops no later than needed
    for a gap of ``gap`` whatever the incumbent.
    """
    scaled = built.scaled
    if scaled.name != "weighted-flow":
        solver.parameters.relative_gap_limit = gap
        return
    if floor_s > 0:
        solver.parameters.absolute_gap_limit = gap * floor_s * scaled.scale / built.data.tick


def cpsat(
    instance: Instance,
    *,
    time_limit_s: float | None = None,
    seed: int = 0,
    workers: int = 2,
    resolution_s: float = 0.001,
    hint: bool = True,
    hint_schedule: Schedule | None = None,
    prefetch: bool = True,
    gap: float | None = None,
) -> Result:
    """Solve ``instance`` with CP-SAT, to optimality or until ``time_limit_s``.

    Parameters
    ----------
    instance
        A well-formed instance.
    time_limit_s
        Wall-clock limit in seconds for the whole call (model building
        included); ``None`` for none.
    seed
        CP-SAT's random seed: equal seeds and workers give equal runs.
    workers
        CP-SAT's search workers (threads); 2 on the reference machine.
    resolution_s
        Seconds per tick of the model's integer times (see the module's
        notes on time resolution).
    hint
        Start the search from :func:`solvers.warm_start.warm_start` (the best
        online heuristic's schedule, improved by local search) when no
        ``hint_schedule`` is given.
    hint_schedule
        A schedule to start from instead of the warm start's (for example an
        improved one); ignored when infeasible or when the model cannot
        express it (a stay without a transfer).
    prefetch
        ``False`` solves the non-anticipative problem: no mount, load or
        locate serving a request starts before its release (the schedule
        returned passes ``validate(..., prefetch=False)``); its optimum is
        never below the contract's.
    gap
        Relative optimality gap at which the search stops (CP-SAT's
        ``relative_gap_limit``); a run it stopped before closing the gap is
        ``feasible``, with its bound. ``None``: search to the proof.

    Returns
    -------
    Result
        ``optimal`` with a proof; ``feasible`` when the search ended without
        one and without a time limit; ``timeout`` at the time limit, with the
        best schedule found (the hint's when the search found none) and the
        best bound; ``not-built`` when the model is too large to build in
        the time left (:mod:`solvers.exact.model_size`), with the hint's schedule
        and the bound of :func:`solvers.bounds.bounds.lower_bound`;
        ``infeasible`` when no schedule exists. The objective is
        the validator's recomputation of the returned schedule; the bound is
        the larger of CP-SAT's (see the notes on time resolution) and
        :func:`solvers.bounds.bounds.lower_bound`, never above the objective. Should
        the hint's schedule beat the solver's (only a model that is not exact
        can let it), the hint's is returned, ``optimal`` becoming ``feasible``.

    Raises
    ------
    RuntimeError
        When CP-SAT rejects the model, or proves infeasible an instance the
        hint solves: a defect of the model, never a property of the instance.
    """
    began = time.perf_counter()
    fallback = _starting_schedule(instance, hint, hint_schedule, time_limit_s, seed, prefetch)
    deadline = Deadline(None if time_limit_s is None else began + time_limit_s)
    too_large = over_limit(instance, CPSAT_SETUP, deadline.left_s())
    if too_large is not None:
        return not_built(instance, "cpsat", fallback, began, too_large, prefetch)
    try:
        built = build_model(
            instance, resolution_s, None if fallback is None else fallback[0], deadline, prefetch
        )
    except OutOfTime:
        return not_built(
            instance, "cpsat", fallback, began, ran_out(instance, time_limit_s), prefetch
        )

    solver = cp_model.CpSolver()
    solver.parameters.num_workers = max(1, workers)
    solver.parameters.random_seed = seed
    floor = lower_bound(instance, prefetch=prefetch)
    if gap is not None:
        _stop_within(solver, built, gap, floor)
    if time_limit_s is not None:
        remaining = time_limit_s - (time.perf_counter() - began)
        solver.parameters.max_time_in_seconds = max(remaining, 0.0)
    (outcome,) = solve_stoppable([(solver, built.model)])

    if outcome == cp_model.MODEL_INVALID:
        raise RuntimeError(f"CP-SAT rejects the model: {built.model.validate()}")
    if outcome == cp_model.INFEASIBLE:
        if fallback is not None:
            raise RuntimeError("CP-SAT proves infeasible an instance that the hint schedules")
        return Result("cpsat", Status.INFEASIBLE, None, None, None, time.perf_counter() - began)

    tick = built.data.tick
    bound = max(built.scaled.bound_s(solver.best_objective_bound, tick), floor)
    if outcome == cp_model.OPTIMAL and solver.objective_value > solver.best_objective_bound:
        status = Status.FEASIBLE  # stopped within the gap asked for, not proven
    elif outcome == cp_model.OPTIMAL:
        status = Status.OPTIMAL
    elif outcome == cp_model.FEASIBLE and time_limit_s is None:
        status = Status.FEASIBLE
    else:
        status = Status.TIMEOUT

    schedule: Schedule | None = None
    objective: float | None = None
    if outcome in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        schedule = plan_to_schedule(instance, read_plan(solver, built.data, built.variables))
        report = validate(instance, schedule, prefetch=prefetch)
        if not report.feasible:
            problems = "; ".join(str(v) for v in report.violations[:5])
            raise RuntimeError(f"the CP-SAT schedule is infeasible: {problems}")
        objective = report.objective
    if fallback is not None and (
        objective is None or fallback[1] < objective - 1e-9 * max(1.0, abs(objective))
    ):
        if status == Status.OPTIMAL:
            status = Status.FEASIBLE
        schedule, objective = fallback
    if objective is not None:
        bound = min(bound, objective)
    return Result("cpsat", status, schedule, objective, bound, time.perf_counter() - began)
