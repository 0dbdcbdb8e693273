"""The MILP backend, with CBC and with HiGHS: proven optima, feasibility, limits, objectives.

Every schedule is held to the independent validator, whose recomputed
objective must be the one the solver reports. Generated instances use
integer data (durations, sizes, rates, releases, weights) so that their
optima are exact.
"""

from __future__ import annotations

import json
import math

import attrs
import pytest
from hypothesis import HealthCheck, given, settings

from tapesched.solvers import registry
from tapesched.solvers.bounds.bounds import lower_bound
from tapesched.solvers.exact.plan import plan_to_schedule
from tapesched.solvers.greedy import greedy
from tapesched.solvers.milp import build_model, milp_cbc, milp_highs, trivial_bound
from tapesched.solvers.milp.backends import read_cbc_log
from tapesched.solvers.milp.hint import hint_values, schedule_decisions
from tapesched.solvers.milp.solution import retime
from tapesched.solvers.result import Result, Status
from tapesched.solvers.warm_start import best_heuristic
from tapesched.toolkit.files.instance_file import load_instance
from tapesched.toolkit.files.schedule_file import load_schedule
from tapesched.toolkit.generators import RandomParams, random_instance
from tapesched.toolkit.model import Instance, Piece, Request, Tape
from tapesched.toolkit.strategies import instances
from tapesched.toolkit.validator import validate

from ...conftest import INSTANCES, VERSION_1, two_empty_drives
from ...toolkit.test_validator import remount_reset

OPTIMA = json.loads((INSTANCES / "optima.json").read_text())
SOLVERS = pytest.mark.parametrize("solver", [milp_cbc, milp_highs], ids=["cbc", "highs"])

SMALL = {
    "n_requests": (1, 4),
    "n_libraries": (1, 2),
    "drives_per_library": (1, 3),
    "arms": (1, 2),
    "max_gang": (1, 3),
    "tapes_per_library": (1, 4),
    "initial_fraction": (0.0, 1.0),
    "release_horizon_s": (0.0, 100.0),
}


def integral(instance: Instance) -> Instance:
    """``instance`` with every duration, size, offset, rate, release and weight an integer.

    Rates stay >= 1 and weights >= 1; a tape grows to hold its pieces.
    """
    libraries = tuple(
        attrs.evolve(lib, mount_s=round(lib.mount_s), dismount_s=round(lib.dismount_s))
        for lib in instance.libraries
    )
    drives = tuple(
        attrs.evolve(
            d,
            rate_mb_s=max(1, round(d.rate_mb_s)),
            load_s=round(d.load_s),
            unload_s=round(d.unload_s),
            locate_mb_s=max(1, round(d.locate_mb_s)),
        )
        for d in instance.drives
    )
    requests = []
    room: dict[str, int] = {}
    for request in instance.requests:
        pieces = tuple(
            Piece(p.tape, math.floor(p.offset_mb), round(p.size_mb)) for p in request.pieces
        )
        for p in pieces:
            room[p.tape] = max(room.get(p.tape, 0), int(p.offset_mb + p.size_mb))
        requests.append(
            attrs.evolve(
                request,
                release_s=round(request.release_s),
                weight=max(1, round(request.weight)),
                pieces=pieces,
            )
        )
    tapes = tuple(
        Tape(t.id, t.library, max(math.ceil(t.capacity_mb), room.get(t.id, 0)))
        for t in instance.tapes
    )
    return attrs.evolve(
        instance, libraries=libraries, drives=drives, tapes=tapes, requests=tuple(requests)
    )


def checked(instance: Instance, result: Result) -> float:
    """Hold ``result`` to the validator; return the validator's objective."""
    assert result.schedule is not None
    report = validate(instance, result.schedule)
    assert report.feasible, [str(v) for v in report.violations]
    assert report.objective is not None
    assert result.objective == pytest.approx(report.objective, rel=1e-12, abs=1e-12)
    assert result.bound is not None
    assert result.bound <= result.objective + 1e-9
    assert result.runtime_s >= 0
    return report.objective


def queue(n: int, seed: int) -> Instance:
    """A random instance of ``n`` requests on three drives with gangs, one arm."""
    params = RandomParams(
        n_requests=n,
        drives_per_library=(3, 3),
        tapes_per_library=6,
        max_gang=2,
        arms=(1, 1),
        release_horizon_s=300,
        homogeneous_drives=True,
    )
    return random_instance(params, seed=seed)


@SOLVERS
@pytest.mark.parametrize("name", sorted(VERSION_1 & OPTIMA.keys()))
def test_hand_made_optimum_is_proven(solver, name):
    instance = load_instance(INSTANCES / f"{name}.json")
    result = solver(instance, time_limit_s=60)
    assert result.status is Status.OPTIMAL
    value = checked(instance, result)
    assert value == pytest.approx(OPTIMA[name]["optimum"], rel=1e-6)
    assert result.bound == pytest.approx(OPTIMA[name]["optimum"], rel=1e-6)


@SOLVERS
def test_spec_example_optimum(solver, spec_instance):
    result = solver(spec_instance, time_limit_s=60, hint=False)
    assert result.status is Status.OPTIMAL
    assert checked(spec_instance, result) == pytest.approx(19.17667, abs=5e-6)
    assert result.solver == solver.__name__.replace("_", "-")


@SOLVERS
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances(**SMALL))
def test_generated_instances_feasible_and_no_worse_than_greedy(solver, drawn):
    instance = integral(drawn)
    result = solver(instance, time_limit_s=20, seed=1)
    assert result.status in (Status.OPTIMAL, Status.TIMEOUT)
    value = checked(instance, result)
    heuristic = greedy(instance)
    assert heuristic.objective is not None
    assert value <= heuristic.objective + 1e-6


@pytest.mark.parametrize(
    ("objective", "optimum"),
    [("weighted-flow", 216.0), ("makespan", 56.0), ("max-weighted-flow", 160.0)],
)
@SOLVERS
def test_each_objective(solver, objective, optimum):
    # One drive, a (10 s on T1) and b (1 s on T2, weight 10): b first ends at 16 and a at
    # 56, a first ends at 25 and b at 56 (instances/README.md); b first wins the flows,
    # both orders end at 56.
    base = load_instance(INSTANCES / "one-drive-two-tapes.json")
    requests = tuple(attrs.evolve(r, weight=10.0 if r.id == "b" else 1.0) for r in base.requests)
    instance = attrs.evolve(base, requests=requests, objective=objective)
    result = solver(instance, time_limit_s=60)
    assert result.status is Status.OPTIMAL
    assert checked(instance, result) == pytest.approx(optimum, rel=1e-9)


@SOLVERS
def test_time_limited_run_returns_a_feasible_schedule(solver):
    instance = queue(10, seed=3)
    result = solver(instance, time_limit_s=1.0)
    assert result.status in (Status.TIMEOUT, Status.OPTIMAL)
    value = checked(instance, result)
    heuristic = greedy(instance)
    assert heuristic.objective is not None
    assert value <= heuristic.objective + 1e-6
    assert result.bound >= trivial_bound(build_model(instance).data) - 1e-9


@SOLVERS
def test_no_time_left_returns_the_best_heuristic_schedule(solver):
    instance = queue(6, seed=0)
    result = solver(instance, time_limit_s=0.0)
    assert result.status is Status.NOT_BUILT
    heuristic = best_heuristic(instance)
    assert heuristic is not None
    assert checked(instance, result) == pytest.approx(heuristic[1])
    assert heuristic[1] <= greedy(instance).objective


@SOLVERS
def test_without_hint_a_short_limit_may_leave_no_schedule(solver):
    # No time even to build the model: no schedule, and the bound of
    # solvers.bounds.bounds.lower_bound, at least the model's trivial one.
    instance = queue(10, seed=3)
    result = solver(instance, time_limit_s=0.0, hint=False)
    assert result.status is Status.NOT_BUILT
    assert (result.schedule, result.objective) == (None, None)
    assert result.bound == pytest.approx(lower_bound(instance))
    assert result.bound >= trivial_bound(build_model(instance).data) - 1e-9


@SOLVERS
def test_two_arms_and_gangs(solver):
    instance = attrs.evolve(
        two_empty_drives(2),
        requests=(
            Request("g", 0, 1.0, "read", (Piece("T1", 0, 500), Piece("T2", 0, 500))),
            Request("a", 0, 2.0, "read", (Piece("T1", 1000, 200),)),
        ),
    )
    result = solver(instance, time_limit_s=60)
    assert result.status is Status.OPTIMAL
    cbc = milp_cbc(instance, time_limit_s=60)
    assert checked(instance, result) == pytest.approx(checked(instance, cbc), rel=1e-9)


def test_instance_without_requests():
    instance = attrs.evolve(load_instance(INSTANCES / "offset-order.json"), requests=())
    for solver in (milp_cbc, milp_highs):
        result = solver(instance)
        assert result.status is Status.OPTIMAL
        assert checked(instance, result) == 0.0


def test_solvers_are_registered():
    assert registry.get("milp-cbc") is milp_cbc
    assert registry.get("milp-highs") is milp_highs


@pytest.mark.parametrize("name", sorted(VERSION_1 & OPTIMA.keys()))
def test_hand_made_optimum_is_a_solution_of_the_model(name):
    instance = load_instance(INSTANCES / f"{name}.json")
    optimum = load_schedule(INSTANCES / f"{name}.optimum.json")
    model = build_model(instance, OPTIMA[name]["optimum"])
    values = hint_values(model.data, model.var, optimum)
    assert values is not None
    for variable, value in values.items():
        variable.varValue = value
    broken = [row.name for row in model.problem.constraints() if not row.valid(1e-6)]
    assert broken == []
    assert model.problem.objective.value() == pytest.approx(OPTIMA[name]["optimum"], rel=1e-9)


def test_an_empty_read_then_its_tape_remounted_at_once_is_read_as_the_validator_does():
    # The empty read j at 10 is the last of T's first stay, after the initial
    # node (its second stay is loaded only at 11): the hint puts it there,
    # and the values meet every row.
    instance, schedule = remount_reset()
    model = build_model(instance, 10007.0)
    read = schedule_decisions(model.data, schedule)
    assert read is not None
    stays = [[model.data.nodes[k].request for k in s.nodes] for s in read[0].routes["d0"]]
    assert stays == [[-1, 0], [1]]
    values = hint_values(model.data, model.var, schedule)
    assert values is not None
    for variable, value in values.items():
        variable.varValue = value
    assert [row.name for row in model.problem.constraints() if not row.valid(1e-6)] == []
    assert model.problem.objective.value() == pytest.approx(10007.0, rel=1e-9)


@settings(max_examples=60, deadline=None)
@given(instances(**SMALL))
def test_greedy_schedules_are_solutions_of_the_model_and_retime_no_later(drawn):
    # The model is no more constrained than the rules: any feasible schedule (here
    # greedy's) is one of its solutions; and retiming a schedule's decisions gives a
    # feasible schedule with no later end.
    heuristic = greedy(drawn)
    assert heuristic.schedule is not None
    if not validate(drawn, heuristic.schedule).feasible:
        return
    model = build_model(drawn, heuristic.objective)
    values = hint_values(model.data, model.var, heuristic.schedule)
    assert values is not None
    for variable, value in values.items():
        variable.varValue = value
    broken = [row.name for row in model.problem.constraints() if not row.valid(1e-6)]
    assert broken == []
    read = schedule_decisions(model.data, heuristic.schedule)
    assert read is not None
    plan = retime(model.data, read[0])
    assert plan is not None
    report = validate(drawn, plan_to_schedule(drawn, plan))
    assert report.feasible, [str(v) for v in report.violations]
    assert report.objective is not None and heuristic.objective is not None
    assert report.objective <= heuristic.objective + 1e-6


def test_requests_that_cannot_overlap_and_their_least_gaps():
    # Two drives (stream 100 MB/s, locate 1000 MB/s, load 5, unload 7; mount 10,
    # dismount 8). The gang g fills both drives, so it conflicts with a and b; a and b
    # fit side by side on distinct tapes. a after g: a's piece shares a drive with one
    # of g's, at best its T1 piece, 4 s of locate away; g after a: 5.1 s of locate to
    # offset 0 of T1. b after g, or g after b: a switch (7 + 8 + 10 + 5) and no locate.
    base = two_empty_drives(1)
    instance = attrs.evolve(
        base,
        tapes=(*base.tapes, Tape("T3", "L0", 100000)),
        requests=(
            Request("g", 0, 1.0, "read", (Piece("T1", 0, 1000), Piece("T2", 2000, 500))),
            Request("a", 0, 1.0, "read", (Piece("T1", 5000, 100),)),
            Request("b", 0, 1.0, "read", (Piece("T3", 0, 100),)),
        ),
    )
    conflicts = build_model(instance).data.conflicts
    assert conflicts.keys() == {(0, 1), (0, 2)}
    assert conflicts[0, 1] == pytest.approx((4.0, 5.1))
    assert conflicts[0, 2] == pytest.approx((30.0, 30.0))


def test_cbc_log_is_read_for_status_and_bound():
    stopped = "Result - Stopped on time limit\n\nObjective value:  762.0\nLower bound:  752.341\n"
    outcome = read_cbc_log(stopped, True)
    assert (outcome.time_limit, outcome.optimal, outcome.bound) == (True, False, 752.341)
    finished = "Result - Optimal solution found\n\nObjective value:                39.17666667\n"
    outcome = read_cbc_log(finished, True)
    assert (outcome.optimal, outcome.bound) == (True, 39.17666667)
    infeasible = "Result - Problem proven infeasible\n\nNo feasible solution found\n"
    outcome = read_cbc_log(infeasible, False)
    assert (outcome.infeasible, outcome.has_solution, outcome.bound) == (True, False, None)
    root = "Coin0008I MODEL read with 0 errors\nProblem is infeasible - 0.00 seconds\n"
    outcome = read_cbc_log(root, False)
    assert (outcome.infeasible, outcome.has_solution, outcome.bound) == (True, False, None)
    partial = "Cbc0010I After 100 nodes, 3 on tree, 1e+50 best solution, best possible 12.5\n"
    assert read_cbc_log(partial, False).bound == 12.5
    # Stopped within a gap asked for (gapRel 0.3): "optimal" to CBC, the bound its Lower bound.
    within = (
        "Result - Optimal solution found (within gap tolerance)\n\n"
        "Objective value:                184.54778777\nLower bound:                    152.374\n"
        "Gap:                            0.21\n"
    )
    outcome = read_cbc_log(within, True)
    assert (outcome.optimal, outcome.bound) == (True, 152.374)
