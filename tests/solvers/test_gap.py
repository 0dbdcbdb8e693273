"""``solve(..., gap=g)``: every solver that takes a gap stops within it of its bound.

A run stopped by its gap is ``feasible`` with its bound, ``(objective -
bound) / objective <= g``; one that proved its optimum is ``optimal`` with
the bound at the objective. Small random instances (5 and 6 requests, 2
drives) on which the exact backends stop in well under a second.
"""

from __future__ import annotations

import math

import pytest

from tapesched import solvers
from tapesched.solvers.result import gap_target
from tapesched.toolkit.generators import RandomParams, random_instance

EXACT = ("cpsat", "milp-cbc", "milp-highs")


def small(n_requests: int, seed: int):
    return random_instance(
        RandomParams(n_requests=n_requests, drives_per_library=(2, 2), tapes_per_library=4), seed
    )


def gap_of(result: solvers.Result) -> float:
    assert result.objective is not None and result.bound is not None
    return (result.objective - result.bound) / result.objective


@pytest.mark.parametrize(
    ("bound", "gap", "target"),
    [(10.0, None, None), (10.0, 0.0, 10.0), (10.0, 0.5, 20.0), (10.0, 1.0, math.inf)],
)
def test_the_gap_target_is_the_largest_objective_within_the_gap(bound, gap, target):
    assert gap_target(bound, gap) == target


def test_local_search_stops_at_its_start_within_a_gap_of_one():
    instance = small(5, 0)
    searched = solvers.solve(instance, solver="local-search", seed=0)
    stopped = solvers.solve(instance, solver="local-search", seed=0, gap=1.0)
    # Without a gap the search improves on its start; with 1.0 the start is within it.
    assert searched.objective < searched.trajectory[0].objective
    assert stopped.status is solvers.Status.FEASIBLE
    assert len(stopped.trajectory) == 1
    assert stopped.objective == pytest.approx(stopped.trajectory[0].objective)
    assert stopped.objective > searched.objective
    assert 0 < gap_of(stopped) <= 1.0


def test_lns_stops_before_its_first_round_when_its_start_is_within_the_gap():
    instance = small(5, 0)
    result = solvers.solve(instance, solver="lns", seed=0, gap=1.0, iterations=3)
    assert result.status is solvers.Status.FEASIBLE
    # The start, then at most its own decisions timed as early as they go: no search.
    assert len(result.trajectory) <= 2
    assert 0 < gap_of(result) <= 1.0


@pytest.mark.parametrize("solver", EXACT)
def test_every_exact_backend_stops_within_the_gap_with_its_bound(solver):
    instance = small(6, 2)
    result = solvers.solve(instance, solver=solver, seed=0, gap=0.3, time_limit_s=20)
    assert result.status in (solvers.Status.FEASIBLE, solvers.Status.OPTIMAL)
    assert 0 < result.bound <= result.objective
    assert gap_of(result) <= 0.3
    if result.status is solvers.Status.OPTIMAL:
        assert gap_of(result) <= 0.02  # proved: at most CP-SAT's rounding apart


def test_a_gap_is_refused_by_a_solver_that_has_none_and_when_negative():
    instance = small(5, 0)
    with pytest.raises(ValueError, match="'fifo' stops at no gap"):
        solvers.solve(instance, solver="fifo", gap=0.1)
    with pytest.raises(ValueError, match="at least 0"):
        solvers.solve(instance, solver="local-search", gap=-0.1)
