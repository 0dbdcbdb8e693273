"""The local-search improver: never worse than its start, feasible, seeded, within its limit."""

from __future__ import annotations

import json
import random
import time

import pytest
from hypothesis import HealthCheck, given, settings

from tapesched import solvers
from tapesched.solvers.bounds.bounds import lower_bound
from tapesched.solvers.greedy import greedy
from tapesched.solvers.local_search import improve, local_search
from tapesched.solvers.result import Status
from tapesched.toolkit.files.instance_file import load_instance
from tapesched.toolkit.model import Instance, Schedule, ScheduledRequest
from tapesched.toolkit.strategies import instances
from tapesched.toolkit.validator import validate

from ..conftest import INSTANCES

OPTIMA = json.loads((INSTANCES / "optima.json").read_text())

DESCRIPTION = (
    "offline local search from the best online heuristic: request order and drives, list-decoded"
)
"""What the registry says of ``local-search`` (declared in solvers/registry.py)."""


def greedy_schedule(instance: Instance) -> Schedule:
    """The greedy schedule, the usual start."""
    schedule = greedy(instance, time_limit_s=None, seed=0).schedule
    assert schedule is not None
    return schedule


def value_of(instance: Instance, schedule: Schedule) -> float:
    """The validator's objective of a schedule that must be feasible."""
    report = validate(instance, schedule)
    assert report.feasible, [str(v) for v in report.violations]
    assert report.objective is not None
    return report.objective


@pytest.mark.parametrize("name", sorted(OPTIMA))
def test_reaches_every_hand_made_optimum(name):
    instance = load_instance(INSTANCES / f"{name}.json")
    schedule = improve(
        instance, greedy_schedule(instance), time_limit_s=None, seed=0, max_iterations=300
    )
    assert value_of(instance, schedule) == pytest.approx(OPTIMA[name]["optimum"], rel=1e-9)


def test_the_solver_is_registered_and_reports_a_bound():
    instance = load_instance(INSTANCES / "one-drive-two-tapes.json")
    result = solvers.solve(instance, solver="local-search", seed=3)
    assert solvers.registry.describe("local-search") == DESCRIPTION
    assert result.solver == "local-search"
    assert result.status is Status.FEASIBLE
    assert result.schedule is not None
    assert result.objective is not None
    assert result.objective == pytest.approx(value_of(instance, result.schedule))
    assert result.objective == pytest.approx(72.0)
    assert result.bound is not None
    assert result.bound == lower_bound(instance)
    assert result.bound <= result.objective
    assert result.schedule.objective is not None
    assert result.schedule.objective.value == pytest.approx(result.objective)


def test_equal_seeds_give_equal_schedules_and_the_global_rng_is_untouched():
    instance = load_instance(INSTANCES / "spec-example.json")
    start = greedy_schedule(instance)
    random.seed(12345)
    state = random.getstate()
    first = improve(instance, start, time_limit_s=None, seed=7, max_iterations=80)
    assert random.getstate() == state
    second = improve(instance, start, time_limit_s=None, seed=7, max_iterations=80)
    assert first == second


def test_stops_at_its_time_limit():
    # 300 requests: the default budget would take far longer than the limit.
    instance = load_instance(INSTANCES / "random-300.json")
    began = time.perf_counter()
    result = local_search(instance, time_limit_s=0.5, seed=0)
    elapsed = time.perf_counter() - began
    assert elapsed < 5.0
    assert result.schedule is not None
    greedy_value = greedy(instance, time_limit_s=None, seed=0).objective
    assert greedy_value is not None
    assert value_of(instance, result.schedule) <= greedy_value + 1e-6 * greedy_value


def test_stops_at_its_target():
    instance = load_instance(INSTANCES / "prefetch.json")
    # The offline decode of greedy's order already prefetches: flow 10, the bound.
    schedule = improve(
        instance,
        greedy_schedule(instance),
        time_limit_s=None,
        seed=0,
        max_iterations=10**6,
        target=lower_bound(instance),
    )
    assert value_of(instance, schedule) == pytest.approx(10.0)


def test_an_infeasible_start_gives_a_feasible_schedule():
    instance = load_instance(INSTANCES / "spec-example.json")
    start = greedy_schedule(instance)
    early = tuple(
        ScheduledRequest(r.id, r.drives, r.start_s - 100.0, r.end_s - 100.0) for r in start.requests
    )
    broken = Schedule(early, (), start.instance, start.objective)
    assert not validate(instance, broken).feasible
    schedule = improve(instance, broken, time_limit_s=None, seed=0, max_iterations=50)
    value_of(instance, schedule)


def test_no_request_is_nothing_to_improve():
    platform = load_instance(INSTANCES / "prefetch.json")
    instance = Instance(platform.name, platform.libraries, platform.drives, platform.tapes, ())
    start = greedy_schedule(instance)
    assert improve(instance, start, time_limit_s=None, seed=0).requests == ()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances(n_requests=(1, 5)))
def test_never_worse_than_its_start(instance):
    start = greedy_schedule(instance)
    schedule = improve(instance, start, time_limit_s=None, seed=1, max_iterations=25)
    value = value_of(instance, schedule)
    slack = 1e-6 * max(1.0, abs(value))
    assert value <= value_of(instance, start) + slack
    assert lower_bound(instance) <= value + slack
    assert schedule.objective is not None
    assert schedule.objective.value == pytest.approx(value)
