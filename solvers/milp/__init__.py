"""Exact MILP backend: ``solvers/exact/formulation.md`` in PuLP, solved by CBC or HiGHS.

Why disjunctive and not time-indexed
------------------------------------
Every time is a continuous variable in seconds and the order of things is
decided by binaries (successor arcs per drive, arm lanes and their order,
the order of one tape's residencies), with big-M time constraints. A
time-indexed model would need one binary per job and time step: durations
here are arbitrary reals (``10000 / 300`` s), horizons run to thousands of
seconds, so an exact grid is out of reach, and any coarser grid changes
the problem (the spec's example optimum, 19.17667, is not on a 1 s grid).
The disjunctive model is exact in seconds, its size grows with the square
of the number of pieces on a library and not with the horizon, and it
shares the CP-SAT backend's decisions one for one. Its weakness is the LP
bound of big-M rows, which is why every ``M`` is the difference of the two
compared times' bounds and the bounds are made as tight as is safe
(:mod:`solvers.milp.data`; with a warm start, its objective value caps the
ends of an optimal schedule). Gangs made it weakest: a gang that fills the
drives is ordered against every other request only through arcs spread
over the drives, whose relaxation forms 2-cycles; each pair of requests
that cannot overlap has one order binary with the gap its shared drives or
tape force, and a binary-free hull row of its two orders
(:func:`~solvers.milp.constraints.conflicting_pairs`).

The package
-----------
:mod:`~solvers.milp.data` (the formulation's data of
:mod:`solvers.exact.formulation`, arcs, bounds, horizon),
:mod:`~solvers.milp.variables` (every variable),
:mod:`~solvers.milp.constraints` (one function per constraint family),
:mod:`~solvers.milp.objective`, :mod:`~solvers.milp.hint` (a schedule as
variable values), :mod:`~solvers.milp.solution` (values back to a
:class:`~solvers.exact.plan.Plan` with exact times) and
:mod:`~solvers.milp.backends` (running CBC and HiGHS). :func:`build_model`
is the one model builder both solvers share.

Statuses
--------
``optimal``: the solver proved its incumbent optimal (relative gap 1e-9,
absolute 1e-7). ``timeout``: the time limit ran out first; the schedule is
the best of the solver's incumbent and the warm start's
(:func:`solvers.warm_start.warm_start`: the best online heuristic's
schedule, improved by local search), so there is always one when a
heuristic's schedule is feasible. ``not-built``: the model was too large to
build in the time left after the warm start (predicted by
:mod:`solvers.exact.model_size` from its size, CBC's and HiGHS's set-up costs
measured apart, or found out when building passed the deadline); the
schedule is the warm start's and the bound :func:`solvers.bounds.bounds.lower_bound`.
``feasible``: the solver stopped without a proof and without reaching the
limit, or its answer could not be used (then the warm start's schedule is
returned). ``infeasible``: proven, which no well-formed instance is.

The objective is always the validator's recomputation of the schedule
returned. The bound is the solver's best bound (CBC's from its log, HiGHS's
``mip_dual_bound``, see :mod:`~solvers.milp.backends`), raised to the
trivial bound (:func:`trivial_bound`) when lower or missing, and never
above the objective returned; a run that returns no schedule still reports
it. The time limit covers the whole call: the warm start and the
model building come out of it, and reading the solution back adds a few
hundredths of a second after it.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pulp
from attrs import frozen

from tapesched.solvers.exact.deadline import Deadline, OutOfTime
from tapesched.solvers.exact.formulation import refuse_start_state
from tapesched.solvers.exact.model_size import (
    CBC_SETUP,
    HIGHS_SETUP,
    SetupCost,
    not_built,
    over_limit,
    ran_out,
)
from tapesched.solvers.exact.plan import Plan, Stay, plan_to_schedule
from tapesched.solvers.milp.backends import ABS_GAP, REL_GAP, Outcome, run_cbc, run_highs
from tapesched.solvers.milp.constraints import add_all
from tapesched.solvers.milp.data import MilpData
from tapesched.solvers.milp.hint import apply_hint
from tapesched.solvers.milp.objective import set_objective
from tapesched.solvers.milp.solution import read_decisions, retime
from tapesched.solvers.milp.variables import MilpVariables, build_variables
from tapesched.solvers.result import Result, Status
from tapesched.solvers.warm_start import warm_start
from tapesched.toolkit.model import Instance, Schedule
from tapesched.toolkit.validator import validate

__all__ = ["MilpModel", "build_model", "milp_cbc", "milp_highs", "trivial_bound"]

Backend = Callable[..., Outcome]
"""A solver run: :func:`~.backends.run_cbc` or :func:`~.backends.run_highs`."""


@frozen
class MilpModel:
    """A built model: the PuLP problem, its data and its variables."""

    problem: pulp.LpProblem
    data: MilpData
    var: MilpVariables


def build_model(
    instance: Instance,
    known_objective: float | None = None,
    deadline: Deadline | None = None,
    prefetch: bool = True,
) -> MilpModel:
    """The MILP of ``instance``, shared by both solvers.

    Parameters
    ----------
    instance
        A well-formed instance.
    known_objective
        Objective value of a feasible schedule, if one is known: an optimal
        schedule is no worse, which bounds its ends and tightens every big-M.
    deadline
        When to give up building (:class:`~solvers.exact.deadline.OutOfTime`).
    prefetch
        ``False``: the non-anticipative problem (no mount, load or locate
        for a request before its release).
    """
    data = MilpData(instance, known_objective, prefetch)
    problem = pulp.LpProblem("tapesched", pulp.LpMinimize)
    var = build_variables(problem, data)
    set_objective(problem, data, var)
    add_all(problem, data, var, deadline)
    return MilpModel(problem, data, var)


def trivial_bound(data: MilpData) -> float:
    """A lower bound on the optimum with no search: each request alone.

    A request starts no earlier than its release and than each of its
    pieces can be ready on the best drive from the state at time 0, and
    takes at least its widest piece on its fastest drive.
    """
    instance = data.instance
    flows = [(r, data.lower_start[j] + data.shortest[j]) for j, r in enumerate(instance.requests)]
    if not flows:
        return 0.0
    if instance.objective == "weighted-flow":
        return float(sum(r.weight * (end - r.release_s) for r, end in flows))
    if instance.objective == "makespan":
        return max(end for _, end in flows)
    return float(max(r.weight * (end - r.release_s) for r, end in flows))


def _nothing_to_do(instance: Instance, name: str, began: float) -> Result:
    """The schedule of an instance without requests: every drive keeps its tape."""
    plan = Plan({}, {}, tuple(Stay(i.drive, i.tape, None, None) for i in instance.initial))
    schedule = plan_to_schedule(instance, plan)
    value = validate(instance, schedule).objective
    return Result(name, Status.OPTIMAL, schedule, value, value, time.perf_counter() - began)


def _slack(value: float) -> float:
    """How much better than a proven optimum a schedule may be: the gaps, and rounding."""
    return ABS_GAP + REL_GAP * abs(value) + 1e-9 * max(1.0, abs(value))


def _decoded(model: MilpModel) -> tuple[Schedule, float] | None:
    """The schedule of the solver's solution, retimed and validated (``None`` if unusable)."""
    decisions = read_decisions(model.data, model.var)
    if decisions is None:
        return None
    plan = retime(model.data, decisions)
    if plan is None:
        return None
    schedule = plan_to_schedule(model.data.instance, plan)
    report = validate(model.data.instance, schedule, prefetch=model.data.prefetch)
    if not report.feasible or report.objective is None:
        return None
    return schedule, report.objective


def _solve(
    instance: Instance,
    name: str,
    backend: Backend,
    setup: SetupCost,
    time_limit_s: float | None,
    seed: int,
    hint: bool,
    prefetch: bool = True,
    gap: float | None = None,
) -> Result:
    """Build, warm-start, solve and report; shared by :func:`milp_cbc` and :func:`milp_highs`.

    With a ``gap``, the solver stops once its incumbent is within it of its
    bound; "optimal" is then kept only when the bound meets the schedule's
    value (within :func:`_slack`), else the run is ``feasible``.
    """
    refuse_start_state(instance, name)
    began = time.perf_counter()
    if not instance.requests:
        return _nothing_to_do(instance, name, began)
    start: tuple[Schedule, float] | None = None
    if hint:
        start = warm_start(instance, time_limit_s=time_limit_s, seed=seed, prefetch=prefetch)
    deadline = Deadline(None if time_limit_s is None else began + time_limit_s)
    too_large = over_limit(instance, setup, deadline.left_s())
    if too_large is not None:
        return not_built(instance, name, start, began, too_large, prefetch)
    try:
        model = build_model(instance, start[1] if start is not None else None, deadline, prefetch)
    except OutOfTime:
        return not_built(instance, name, start, began, ran_out(instance, time_limit_s), prefetch)
    warm = start is not None and apply_hint(model.data, model.var, start[0])
    left = None if time_limit_s is None else time_limit_s - (time.perf_counter() - began)
    if left is not None and left <= 0:
        outcome = Outcome(False, False, True, False, None, "no time left to solve")
    else:
        rel_gap = REL_GAP if gap is None else max(gap, REL_GAP)
        outcome = backend(
            model.problem, time_limit_s=left, seed=seed, warm_start=warm, rel_gap=rel_gap
        )
    found = _decoded(model) if outcome.has_solution else None
    candidates = [c for c in (found, start) if c is not None]
    best = min(candidates, key=lambda c: c[1]) if candidates else None
    bound = trivial_bound(model.data)
    if outcome.bound is not None and not outcome.infeasible:
        bound = max(bound, outcome.bound)
    if outcome.infeasible and best is None:
        return Result(name, Status.INFEASIBLE, None, None, None, time.perf_counter() - began)
    proved = gap is None or (best is not None and bound >= best[1] - _slack(best[1]))
    if (
        outcome.optimal
        and proved
        and found is not None
        and best is not None
        and best[1] >= found[1] - _slack(found[1])
    ):
        # The returned schedule is the solver's or one better within the gap it proved.
        status = Status.OPTIMAL
    elif outcome.time_limit:
        status = Status.TIMEOUT
    elif best is not None:
        status = Status.FEASIBLE  # also a run stopped within its gap
    else:
        raise RuntimeError(f"{name}: the solver stopped without a schedule: {outcome.message}")
    if outcome.infeasible or (outcome.optimal and proved and status is not Status.OPTIMAL):
        # The solver contradicts a schedule the validator accepts: trust none of its numbers.
        bound = trivial_bound(model.data)
    if best is None:
        return Result(name, status, None, None, bound, time.perf_counter() - began)
    schedule, value = best
    return Result(name, status, schedule, value, min(bound, value), time.perf_counter() - began)


def milp_cbc(
    instance: Instance,
    *,
    time_limit_s: float | None = None,
    seed: int = 0,
    hint: bool = True,
    prefetch: bool = True,
    gap: float | None = None,
) -> Result:
    """Solve ``instance`` exactly with the MILP and CBC.

    Parameters
    ----------
    instance
        A well-formed instance.
    time_limit_s
        Wall-clock limit of the whole call in seconds (warm start, model
        building and the search); ``None`` for none.
    seed
        Seed of CBC's random choices (``randomCbcSeed``, ``randomSeed``).
    hint
        Start CBC from the warm-start schedule, bound the model with its value,
        and fall back on it when CBC finds nothing better in time.
    prefetch
        ``False`` solves the non-anticipative problem: no mount, load or
        locate serving a request starts before its release (the schedule
        returned passes ``validate(..., prefetch=False)``).
    gap
        Relative optimality gap at which CBC stops (its ``gapRel``); a run it
        stopped before the bound met the schedule is ``feasible``, with its
        bound. ``None``: to the proof.

    Returns
    -------
    Result
        See the module's docstring for statuses, objective and bound.
    """
    return _solve(instance, "milp-cbc", run_cbc, CBC_SETUP, time_limit_s, seed, hint, prefetch, gap)


def milp_highs(
    instance: Instance,
    *,
    time_limit_s: float | None = None,
    seed: int = 0,
    hint: bool = True,
    prefetch: bool = True,
    gap: float | None = None,
) -> Result:
    """Solve ``instance`` exactly with the MILP and HiGHS, as :func:`milp_cbc` does with CBC.

    The parameters, statuses, objective and bound are those of :func:`milp_cbc`,
    for HiGHS: ``seed`` seeds its random choices (``random_seed``), and
    ``hint`` starts HiGHS from the warm-start schedule, bounds the model with
    its value and falls back on it when HiGHS finds nothing better in time;
    ``prefetch=False`` solves the non-anticipative problem; ``gap`` is HiGHS's
    ``mip_rel_gap``, a run stopped by it ``feasible``.
    """
    return _solve(
        instance, "milp-highs", run_highs, HIGHS_SETUP, time_limit_s, seed, hint, prefetch, gap
    )
