"""The ``lns`` solver: never worse than its start, always valid, seeded, every status reached."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tapesched import solvers
from tapesched.solvers.bounds.bounds import lower_bound
from tapesched.solvers.cpsat.data import CpsatData
from tapesched.solvers.cut import cut, incumbent_of
from tapesched.solvers.lns import lns
from tapesched.solvers.online.best import best_heuristic
from tapesched.solvers.result import Progress, Status
from tapesched.solvers.splice import splice
from tapesched.toolkit.files.instance_file import load_instance
from tapesched.toolkit.generators import RandomParams, random_instance
from tapesched.toolkit.model import Instance
from tapesched.toolkit.strategies import instances
from tapesched.toolkit.validator import validate
from tests.builders import too_wide

from ..conftest import INSTANCES

OPTIMA = json.loads((INSTANCES / "optima.json").read_text())


def value_of(instance: Instance, result: solvers.Result) -> float:
    """The validator's objective of the result's schedule, which must be feasible."""
    assert result.schedule is not None
    report = validate(instance, result.schedule)
    assert report.feasible, report.violations[:3]
    assert report.objective is not None
    assert result.objective == pytest.approx(report.objective)
    return report.objective


def medium(seed: int = 5, requests: int = 40) -> Instance:
    """A generated instance too large to free whole (more than the first neighbourhood)."""
    return random_instance(RandomParams(n_requests=requests, release_horizon_s=600.0), seed)


@pytest.mark.parametrize("name", ["offset-order", "gang-two-arms", "one-drive-two-tapes"])
def test_a_small_instance_freed_whole_is_proven_optimal(name):
    # Fewer requests than the first neighbourhood, every length whole milliseconds.
    instance = load_instance(INSTANCES / f"{name}.json")
    result = solvers.solve(instance, solver="lns", seed=0, iterations=3)
    assert result.solver == "lns"
    assert result.status is Status.OPTIMAL
    assert value_of(instance, result) == pytest.approx(OPTIMA[name]["optimum"])
    assert result.bound == pytest.approx(result.objective)


def test_the_spec_example_reaches_its_optimum_with_a_bound_below_it():
    # Lengths of no whole millisecond: the rounded model's bound is lowered, no proof.
    instance = load_instance(INSTANCES / "spec-example.json")
    result = lns(instance, seed=0, iterations=3)
    assert value_of(instance, result) == pytest.approx(OPTIMA["spec-example"]["optimum"])
    assert result.bound is not None
    assert lower_bound(instance) <= result.bound <= result.objective
    assert result.status in (Status.OPTIMAL, Status.FEASIBLE)


@pytest.fixture
def brief_sub_solves(monkeypatch):
    """Sub-solves of a tenth of their deterministic limit: a round in a fraction of a second."""
    monkeypatch.setattr(solvers.lns, "SUB_DETERMINISTIC_S", 0.1)


def test_never_worse_than_its_warm_start_and_reports_every_improvement(brief_sub_solves):
    instance = medium()
    start = best_heuristic(instance)
    assert start is not None
    seen: list[Progress] = []
    result = lns(instance, seed=1, iterations=2, progress=seen.append)
    assert result.status is Status.FEASIBLE
    value = value_of(instance, result)
    assert value <= start[1] + 1e-9 * start[1]
    assert result.bound == pytest.approx(lower_bound(instance))
    assert tuple(seen) == result.trajectory
    assert result.trajectory[0].objective == pytest.approx(start[1])
    assert result.trajectory[-1].objective == pytest.approx(value)
    objectives = [p.objective for p in result.trajectory]
    assert objectives == sorted(objectives, reverse=True)
    times = [p.time_s for p in result.trajectory]
    assert times == sorted(times)


def test_equal_seeds_and_budgets_give_equal_schedules(brief_sub_solves):
    instance = medium(seed=9, requests=30)
    first = lns(instance, seed=4, iterations=2)
    second = lns(instance, seed=4, iterations=2)
    assert first.schedule == second.schedule
    assert first.objective == second.objective


def test_out_of_time_returns_the_best_with_the_bound():
    instance = load_instance(INSTANCES / "random-300.json")
    start = best_heuristic(instance)
    assert start is not None
    result = lns(instance, time_limit_s=3.0, seed=0)
    assert result.status is Status.TIMEOUT
    assert value_of(instance, result) <= start[1] * (1 + 1e-9)
    assert result.bound == pytest.approx(lower_bound(instance))
    assert result.runtime_s < 30.0  # one round past the limit at most, on a loaded machine


def test_a_gang_wider_than_its_library_is_infeasible():
    instance = too_wide()
    result = lns(instance, seed=0, iterations=1)
    assert result.status is Status.INFEASIBLE
    assert result.schedule is None


def test_a_cut_has_the_neighbourhood_only_and_its_hint_splices_back_unchanged():
    instance = medium(seed=3, requests=40)
    start = best_heuristic(instance)
    assert start is not None
    data = CpsatData(instance, 0.001)
    inc = incumbent_of(data, start[0], True)
    assert inc is not None
    assert inc.value <= start[1] * (1 + 1e-9)  # the same decisions, as early as they go
    made = cut(data, inc, 0, 15, 6)
    assert made is not None
    assert 6 <= len(made.instance.requests) <= 12  # grown back over interleaved arm work
    assert {d.id for d in made.instance.drives} == {d.id for d in instance.drives}
    assert made.hint is not None
    assert validate(made.instance, made.hint).feasible
    back = splice(data, inc, made, made.hint)
    assert back is not None
    assert validate(instance, back.schedule).feasible
    assert back.value == pytest.approx(inc.value, rel=1e-9)


def test_a_sub_schedule_splices_into_a_valid_schedule():
    # Any schedule of the sub-instance, here the best heuristic's on it, splices back validly.
    instance = medium(seed=7, requests=40)
    start = best_heuristic(instance)
    assert start is not None
    data = CpsatData(instance, 0.001)
    inc = incumbent_of(data, start[0], True)
    assert inc is not None
    for first in (0, 10, 25):
        made = cut(data, inc, 0, first, 8)
        assert made is not None
        other = best_heuristic(made.instance)
        assert other is not None
        back = splice(data, inc, made, other[0])
        assert back is not None
        report = validate(instance, back.schedule)
        assert report.feasible, report.violations[:3]
        assert back.value == pytest.approx(report.objective)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances(n_requests=(2, 9), max_gang=(1, 2)), st.integers(0, 8), st.integers(1, 4))
def test_property_every_window_cuts_and_splices_back_validly(instance, first, size):
    start = best_heuristic(instance)
    if start is None:
        return
    data = CpsatData(instance, 0.001)
    inc = incumbent_of(data, start[0], True)
    if inc is None:  # a stay without a transfer, which the model cannot express
        return
    assert inc.value <= start[1] + 1e-6 * max(1.0, start[1])  # the validator's tolerance
    made = cut(data, inc, 0, first % len(instance.requests), size)
    if made is None:
        return
    assert made.hint is not None
    assert validate(made.instance, made.hint).feasible
    for sub in (made.hint, best_heuristic(made.instance)[0]):  # type: ignore[index]
        back = splice(data, inc, made, sub)
        assert back is not None
        report = validate(instance, back.schedule)
        assert report.feasible, report.violations[:3]
        assert back.value == pytest.approx(report.objective)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances(n_requests=(1, 6), max_gang=(1, 2)))
def test_property_valid_and_never_worse_than_the_best_heuristic(instance):
    start = best_heuristic(instance)
    result = lns(instance, seed=2, iterations=2)
    if start is None:
        assert result.status is Status.INFEASIBLE
        return
    assert result.status in (Status.OPTIMAL, Status.FEASIBLE)
    value = value_of(instance, result)
    slack = 1e-6 * max(1.0, abs(value))
    assert value <= start[1] + slack
    assert result.bound is not None
    assert result.bound <= value + slack


def test_without_prefetch_every_schedule_is_non_anticipative():
    instance = load_instance(INSTANCES / "no-prefetch.json")
    start = best_heuristic(instance, prefetch=False)
    assert start is not None
    result = solvers.solve(instance, solver="lns", seed=0, iterations=2, prefetch=False)
    assert result.schedule is not None
    report = validate(instance, result.schedule, prefetch=False)
    assert report.feasible
    assert report.objective is not None
    assert report.objective <= start[1] + 1e-9
    assert report.objective >= OPTIMA["no-prefetch"]["optimum"] - 1e-9
