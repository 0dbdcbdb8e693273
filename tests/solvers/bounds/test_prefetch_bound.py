"""The bound of the non-anticipative problem: ``lower_bound(..., prefetch=False)``.

It is never below the contract's bound, rises where prefetching pays (the
hand-made instances of ``instances/README.md``, up to their non-anticipative
optima), equals it where every request arrives at time 0 (nothing to
prefetch ahead of), and never exceeds a schedule that keeps the rule (an
online heuristic's, which never prefetches).
"""

from __future__ import annotations

import attrs
import pytest
from hypothesis import HealthCheck, given, settings

from tapesched.solvers.bounds.bounds import lower_bound
from tapesched.solvers.bounds.earliest import earliest_times
from tapesched.solvers.greedy import greedy
from tapesched.toolkit.files.instance_file import load_instance
from tapesched.toolkit.model import Instance
from tapesched.toolkit.strategies import instances
from tapesched.toolkit.validator import validate

from ...conftest import INSTANCES

PREFETCH_PAYS = {
    # instance: (bound with prefetch, bound without, the non-anticipative optimum)
    "prefetch": (10.0, 25.0, 25.0),
    "no-prefetch": (20.0, 85.0, 85.0),
    "spec-example": (18.544666666666667, 25.356666666666667, 39.0),
}


def at_zero(instance: Instance) -> Instance:
    """``instance`` with every request released at time 0."""
    requests = tuple(attrs.evolve(r, release_s=0) for r in instance.requests)
    return attrs.evolve(instance, requests=requests)


@pytest.mark.parametrize("name", sorted(PREFETCH_PAYS))
def test_without_prefetch_the_bound_rises_where_prefetch_pays(name):
    instance = load_instance(INSTANCES / f"{name}.json")
    free, held, optimum = PREFETCH_PAYS[name]
    assert lower_bound(instance) == pytest.approx(free)
    assert lower_bound(instance, prefetch=False) == pytest.approx(held)
    assert free < held <= optimum + 1e-9


@pytest.mark.parametrize("name", [*sorted(PREFETCH_PAYS), "gang-two-arms", "offset-order"])
def test_with_every_request_at_time_zero_both_bounds_are_equal(name):
    instance = at_zero(load_instance(INSTANCES / f"{name}.json"))
    assert lower_bound(instance, prefetch=False) == pytest.approx(lower_bound(instance))
    assert earliest_times(instance, prefetch=False) == earliest_times(instance)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances(n_requests=(1, 5)))
def test_the_bound_without_prefetch_is_below_a_schedule_that_never_prefetches(instance):
    schedule = greedy(instance, time_limit_s=None, seed=0).schedule
    assert schedule is not None
    report = validate(instance, schedule, prefetch=False)
    assert report.feasible, [str(v) for v in report.violations]
    assert report.objective is not None
    held = lower_bound(instance, prefetch=False)
    assert lower_bound(instance) <= held + 1e-9 * max(1.0, held)
    assert held <= report.objective + 1e-6 * max(1.0, report.objective)
