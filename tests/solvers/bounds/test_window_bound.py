"""The bound of CP-SAT on windows of requests alone: valid, and stronger than the fast bounds."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import HealthCheck, given, settings

from tapesched.solvers.bounds.bounds import lower_bound
from tapesched.solvers.bounds.window_bound import applies, window_bound, windows_of
from tapesched.toolkit.files.instance_file import load_instance
from tapesched.toolkit.model import OBJECTIVES, Drive

from ...conftest import INSTANCES
from ..exact.exact_enumeration import exact_optimum
from ..exact.family import family


def slack(value: float) -> float:
    """The validator's 1e-6 s, relative above 1."""
    return 1e-6 * max(1.0, abs(value))


def test_one_window_of_the_spec_example_is_its_proven_optimum():
    instance = load_instance(INSTANCES / "spec-example.json")
    found = window_bound(instance, window=3, time_limit_s=20, seed=1)
    assert (found.windows, found.solved, found.proved) == (1, 1, 1)
    # CP-SAT's bound lowered by at most what rounding to 1 ms ticks can add.
    assert 19.17667 - 0.05 <= found.bound <= 19.17667 + 1e-4
    assert found.bound > lower_bound(instance) + 0.5


def test_windows_follow_release_order_and_cover_every_request():
    instance = load_instance(INSTANCES / "random-300.json")
    parts = windows_of(instance, 7)
    assert [len(p) for p in parts] == [7] * 42 + [6]
    releases = [r.release_s for part in parts for r in part]
    assert releases == sorted(releases)
    assert sorted(r.id for part in parts for r in part) == sorted(r.id for r in instance.requests)
    with pytest.raises(ValueError, match="at least 1"):
        windows_of(instance, 0)


def test_a_drive_reading_faster_than_it_locates_gets_the_fast_bound_alone():
    instance = load_instance(INSTANCES / "spec-example.json")
    fast = attrs.evolve(
        instance,
        drives=tuple(attrs.evolve(d, locate_mb_s=d.rate_mb_s / 2) for d in instance.drives),
    )
    assert all(isinstance(d, Drive) for d in fast.drives) and not applies(fast)
    found = window_bound(fast, window=3, time_limit_s=5)
    assert (found.windows, found.solved) == (0, 0)
    assert found.bound == pytest.approx(lower_bound(fast))


def test_no_time_left_means_the_fast_bound_of_each_window():
    instance = load_instance(INSTANCES / "random-300.json")
    found = window_bound(instance, window=50, time_limit_s=0.01)
    assert (found.windows, found.solved, found.proved) == (6, 0, 0)
    assert found.bound >= lower_bound(instance) - slack(found.bound)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(family(n_requests=(2, 4)))
def test_the_window_bound_stays_below_the_exact_optimum(instance):
    for objective in OBJECTIVES:
        chosen = attrs.evolve(instance, objective=objective)
        value, _ = exact_optimum(chosen)
        window = 2 if objective == "weighted-flow" else 1
        found = window_bound(chosen, window=window, time_limit_s=4, seed=1, workers=1)
        assert found.bound <= value + slack(value)
