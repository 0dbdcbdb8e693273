"""Deadlines of model building, and exact solvers that keep their time limit on large instances."""

from __future__ import annotations

import time

import pytest

import solvers
from solvers.deadline import Deadline, OutOfTime
from solvers.milp import MAX_ARCS, arc_count
from toolkit.io import load_instance
from toolkit.validator import validate

from ..conftest import INSTANCES


def test_a_passed_deadline_raises_at_the_next_clock_reading():
    deadline = Deadline(time.perf_counter() - 1.0, every=3)
    deadline.check()
    deadline.check()
    with pytest.raises(OutOfTime):
        deadline.check()
    with pytest.raises(OutOfTime):
        deadline.check_now()
    assert deadline.left_s() == 0.0


def test_no_deadline_never_passes():
    deadline = Deadline.after(None)
    for _ in range(5000):
        deadline.check()
    deadline.check_now()
    assert deadline.left_s() is None


def test_arc_count_is_the_square_of_each_librarys_nodes_per_drive(spec_instance):
    # The spec example: 3 single-piece requests, one initial tape, 2 drives of one library.
    nodes = sum(len(r.pieces) for r in spec_instance.requests) + len(spec_instance.initial)
    assert arc_count(spec_instance) == len(spec_instance.drives) * nodes**2


@pytest.mark.parametrize("solver", ["cpsat", "milp-cbc", "milp-highs"])
def test_a_model_too_large_for_the_limit_returns_the_warm_start_in_time(solver):
    instance = load_instance(INSTANCES / "random-300.json")
    assert arc_count(instance) > MAX_ARCS
    result = solvers.solve(instance, solver=solver, time_limit_s=4.0, seed=0)
    assert result.status is solvers.Status.TIMEOUT
    assert result.schedule is not None
    report = validate(instance, result.schedule)
    assert report.feasible
    assert result.objective == pytest.approx(report.objective)
    assert result.bound is not None and 0 < result.bound <= result.objective
    assert result.runtime_s < 4.0 + 3.0
