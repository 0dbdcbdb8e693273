"""Statuses of the exact solvers that no other test reaches through ``solvers.solve``.

``optimal`` (``test_exact_family.py``), ``feasible`` (``test_registry.py``)
and ``not-built`` (``test_deadline.py``, and ``tests/cli/test_cli_json.py``
through ``tapesched solve``) are reached elsewhere.
"""

from __future__ import annotations

import pytest

from tapesched import solvers
from tapesched.toolkit.generators import RandomParams, random_instance
from tapesched.toolkit.validator import validate
from tests.builders import too_wide

EXACT = ("cpsat", "milp-cbc", "milp-highs")


@pytest.mark.parametrize("solver", EXACT)
def test_no_schedule_exists_is_infeasible(solver):
    result = solvers.solve(too_wide(), solver=solver, time_limit_s=10.0, seed=0)
    assert result.status is solvers.Status.INFEASIBLE
    assert (result.schedule, result.objective, result.bound) == (None, None, None)


def test_a_built_model_cut_short_by_its_limit_is_a_timeout():
    # 30 requests, gangs of 2 on 3 drives and 1 arm: built in a fraction of a second
    # (solvers.exact.model_size), then far from a proof in 3 s (CP-SAT stops at 8-10 gangs in 60 s).
    params = RandomParams(
        n_requests=30, drives_per_library=(3, 3), arms=(1, 1), max_gang=2, release_horizon_s=600
    )
    instance = random_instance(params, seed=5)
    result = solvers.solve(instance, solver="cpsat", time_limit_s=3.0, seed=0)
    assert result.status is solvers.Status.TIMEOUT
    assert result.schedule is not None
    report = validate(instance, result.schedule)
    assert report.feasible and result.objective == pytest.approx(report.objective)
    assert result.bound is not None and result.bound < result.objective
