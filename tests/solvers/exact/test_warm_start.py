"""The exact solvers' starting schedule: the best heuristic's, improved by local search."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from tapesched.solvers.online.dispatcher import dispatch
from tapesched.solvers.online.heuristics import SCHEDULERS
from tapesched.solvers.warm_start import best_heuristic, warm_start
from tapesched.toolkit.generators import RandomParams, random_instance
from tapesched.toolkit.strategies import instances
from tapesched.toolkit.validator import validate
from tests.builders import too_wide


@settings(max_examples=25, deadline=None)
@given(instances(n_requests=(1, 6), drives_per_library=(1, 3)))
def test_best_heuristic_is_the_least_of_every_online_heuristic(instance):
    best = best_heuristic(instance)
    assert best is not None
    schedule, value = best
    assert validate(instance, schedule).objective == pytest.approx(value)
    values = [
        validate(instance, dispatch(instance, make())).objective for make in SCHEDULERS.values()
    ]
    assert value == pytest.approx(min(values))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_warm_start_is_no_worse_than_the_best_heuristic_and_repeatable(seed):
    params = RandomParams(n_requests=15, drives_per_library=(2, 3), release_horizon_s=300)
    instance = random_instance(params, seed)
    best = best_heuristic(instance)
    first = warm_start(instance, time_limit_s=None, seed=seed)
    second = warm_start(instance, time_limit_s=None, seed=seed)
    assert best is not None and first is not None and second is not None
    assert first[1] <= best[1] + 1e-9
    report = validate(instance, first[0])
    assert report.feasible
    assert report.objective == pytest.approx(first[1])
    assert first[1] == second[1]
    assert first[0] == second[0]


def test_no_time_means_no_local_search():
    instance = random_instance(RandomParams(n_requests=10), 4)
    best = best_heuristic(instance)
    started = warm_start(instance, time_limit_s=0.0, seed=0)
    assert best is not None and started is not None
    assert started[1] == best[1]


def test_a_gang_wider_than_its_library_has_no_start():
    instance = too_wide()
    assert best_heuristic(instance) is None
    assert warm_start(instance, time_limit_s=1.0, seed=0) is None
