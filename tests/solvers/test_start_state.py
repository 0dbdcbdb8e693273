"""The starting state of version 2 (head_mb, available_s, arms_available_s) in every solver.

Each hand-made instance of ``instances/`` that uses a field has an optimum
the field changes (worked out in instances/README.md); CP-SAT proves it, the
heuristics stay feasible and no better, the bounds stay below, and the MILP
backends, which do not model the state, refuse it in one line naming it.
"""

from __future__ import annotations

import json

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tapesched import solvers
from tapesched.solvers import Status
from tapesched.solvers.bounds.bounds import (
    arm_bound,
    drive_time_bound,
    lower_bound,
    request_bound,
    tape_bound,
)
from tapesched.solvers.cpsat import cpsat
from tapesched.solvers.exact.formulation import UnmodelledState
from tapesched.toolkit.files.instance_file import load_instance
from tapesched.toolkit.model import Instance
from tapesched.toolkit.validator import validate

from ..conftest import INSTANCES
from .exact.family import family

OPTIMA = json.loads((INSTANCES / "optima.json").read_text())
STATE = ("head-start", "busy-drive", "busy-arm")
"""The shipped instances of version 2, and the optimum each has in version 1's state."""
VERSION_1_OPTIMUM = {"head-start": 31.0, "busy-drive": 51.0, "busy-arm": 20.0}
BOUNDS = (lower_bound, request_bound, drive_time_bound, arm_bound, tape_bound)
HEURISTICS = ("greedy", "fifo", "wspt", "stretch", "tape-batching", "sltf", "backfill")


def without_state(instance: Instance) -> Instance:
    """``instance`` with version 1's starting state: heads at 0, drives and arms free at 0."""
    return attrs.evolve(
        instance,
        libraries=[attrs.evolve(lib, arms_available_s=0.0) for lib in instance.libraries],
        drives=[attrs.evolve(d, available_s=0.0) for d in instance.drives],
        initial=[attrs.evolve(x, head_mb=0.0) for x in instance.initial],
    )


def feasible_value(instance: Instance, schedule) -> float:
    report = validate(instance, schedule)
    assert report.feasible, [str(v) for v in report.violations]
    assert report.objective is not None
    return report.objective


@pytest.mark.parametrize("name", STATE)
def test_cpsat_proves_the_optimum_that_the_state_changes(name):
    instance = load_instance(INSTANCES / f"{name}.json")
    assert instance.start_state_paths
    result = cpsat(instance, time_limit_s=10)
    assert result.status == Status.OPTIMAL
    assert feasible_value(instance, result.schedule) == pytest.approx(OPTIMA[name]["optimum"])
    assert result.bound == pytest.approx(OPTIMA[name]["optimum"])
    plain = cpsat(without_state(instance), time_limit_s=10)
    assert plain.status == Status.OPTIMAL
    assert plain.objective == pytest.approx(VERSION_1_OPTIMUM[name])
    assert plain.objective != pytest.approx(OPTIMA[name]["optimum"])


@pytest.mark.parametrize("name", STATE)
@pytest.mark.parametrize("solver", HEURISTICS)
def test_heuristics_keep_the_state_and_do_not_beat_the_optimum(name, solver):
    instance = load_instance(INSTANCES / f"{name}.json")
    result = solvers.solve(instance, solver=solver, seed=0)
    value = feasible_value(instance, result.schedule)
    assert value >= OPTIMA[name]["optimum"] - 1e-6
    assert result.objective == pytest.approx(value)


@pytest.mark.parametrize("name", STATE)
@pytest.mark.parametrize("bound", BOUNDS, ids=lambda f: f.__name__)
def test_no_bound_exceeds_the_optimum_with_the_state(name, bound):
    instance = load_instance(INSTANCES / f"{name}.json")
    assert bound(instance) <= OPTIMA[name]["optimum"] + 1e-6


def test_the_bounds_locate_from_the_initial_head():
    # One request right at the head (3000 MB): no locate, flow 10 s. Measured
    # from offset 0, the locate of 3 s would put the bounds above the optimum.
    instance = load_instance(INSTANCES / "head-start.json")
    (far,) = [r for r in instance.requests if r.id == "far"]
    at_head = attrs.evolve(
        instance, requests=[attrs.evolve(far, pieces=[attrs.evolve(far.pieces[0], offset_mb=3000)])]
    )
    assert cpsat(at_head, time_limit_s=10).objective == pytest.approx(10.0)
    assert max(bound(at_head) for bound in BOUNDS) == pytest.approx(10.0)
    assert lower_bound(without_state(at_head)) == pytest.approx(13.0)


@pytest.mark.parametrize("solver", ["milp-cbc", "milp-highs"])
@pytest.mark.parametrize("name", STATE)
def test_the_milp_backends_refuse_the_state_naming_it(name, solver):
    instance = load_instance(INSTANCES / f"{name}.json")
    with pytest.raises(UnmodelledState) as caught:
        solvers.solve(instance, solver=solver)
    assert caught.value.path == instance.start_state_paths[0]
    assert str(caught.value).startswith(f"{caught.value.path}: solver {solver!r}")


@pytest.mark.parametrize("solver", ["milp-cbc", "milp-highs"])
def test_the_milp_backends_solve_version_1_as_before(solver):
    instance = without_state(load_instance(INSTANCES / "busy-drive.json"))
    result = solvers.solve(instance, solver=solver, time_limit_s=30)
    assert result.status == Status.OPTIMAL
    assert feasible_value(instance, result.schedule) == pytest.approx(51.0)


@st.composite
def with_state(draw: st.DrawFn) -> Instance:
    """A small exact instance given a starting state: heads, busy drives, busy arms."""
    instance = draw(
        family(
            n_requests=(1, 4),
            n_libraries=(1, 1),
            drives_per_library=(1, 2),
            arms=(1, 2),
            max_gang=(1, 2),
            tapes_per_library=(1, 3),
        )
    )
    capacity = {t.id: t.capacity_mb for t in instance.tapes}
    initial = [
        attrs.evolve(
            x, head_mb=draw(st.sampled_from([0.0, capacity[x.tape] / 2, capacity[x.tape]]))
        )
        for x in instance.initial
    ]
    times = st.sampled_from([0.0, 5.0, 30.0, 120.0])
    drives = [attrs.evolve(d, available_s=draw(times)) for d in instance.drives]
    libraries = [
        attrs.evolve(lib, arms_available_s=tuple(draw(times) for _ in range(lib.arms)))
        for lib in instance.libraries
    ]
    return attrs.evolve(instance, initial=initial, drives=drives, libraries=libraries)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(with_state())
def test_bounds_stay_below_the_optimum_and_solutions_validate(instance):
    result = cpsat(instance, time_limit_s=5)
    value = feasible_value(instance, result.schedule)
    greedy_value = feasible_value(instance, solvers.solve(instance, "greedy").schedule)
    feasible_value(instance, solvers.solve(instance, "fifo").schedule)
    assert value <= greedy_value + 1e-6
    if result.status == Status.OPTIMAL:
        for bound in BOUNDS:
            assert bound(instance) <= value + 1e-6 * max(1.0, value)


def test_compare_keeps_going_past_a_backend_that_does_not_model_the_state():
    from tapesched.solvers.compare import NOT_MODELLED, compare

    instance = load_instance(INSTANCES / "busy-arm.json")
    rows = compare([("busy-arm", instance)], ["milp-highs", "cpsat", "greedy"], time_limit_s=30)
    by_solver = {r.solver: r for r in rows}
    milp = by_solver["milp-highs"]
    assert (milp.status, milp.feasible, milp.objective, milp.ratio) == (
        NOT_MODELLED, False, None, None
    )  # fmt: skip
    assert by_solver["cpsat"].status == "optimal" and by_solver["cpsat"].ratio == 1.0
    assert by_solver["greedy"].feasible and by_solver["greedy"].yardstick == "optimum"
