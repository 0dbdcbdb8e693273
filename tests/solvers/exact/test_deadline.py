"""Deadlines of model building, and exact solvers that keep their time limit on large instances."""

from __future__ import annotations

import time

import pytest

from tapesched import solvers
from tapesched.solvers.bounds.bounds import lower_bound
from tapesched.solvers.exact.deadline import Deadline, OutOfTime
from tapesched.solvers.exact.model_size import (
    CPSAT_SETUP,
    SAFETY,
    SetupCost,
    arc_count,
    fits,
    most_arcs,
    over_limit,
    ran_out,
)
from tapesched.toolkit.files.instance_file import load_instance
from tapesched.toolkit.validator import validate

from ...conftest import INSTANCES


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


def test_a_setup_cost_grows_with_the_arcs_and_decides_what_fits(spec_instance):
    cost = SetupCost(s_at_10k_arcs=2.0, exponent=1.5)
    assert cost.seconds(10_000) == pytest.approx(2.0)
    assert cost.seconds(40_000) == pytest.approx(16.0)
    predicted = cost.seconds(arc_count(spec_instance))
    assert fits(spec_instance, cost, None)
    assert fits(spec_instance, cost, SAFETY * predicted * 1.01)
    assert not fits(spec_instance, cost, SAFETY * predicted * 0.99)
    assert not fits(spec_instance, cost, 0.0)


@pytest.mark.parametrize("solver", ["cpsat", "milp-cbc", "milp-highs"])
def test_a_model_too_large_for_the_limit_is_not_built(solver):
    # 2.9 million arcs: minutes to build for any backend, against 4 s.
    instance = load_instance(INSTANCES / "random-300.json")
    assert not fits(instance, CPSAT_SETUP, 4.0)
    result = solvers.solve(instance, solver=solver, time_limit_s=4.0, seed=0)
    assert result.status is solvers.Status.NOT_BUILT
    assert result.reason is not None
    assert result.reason.startswith(
        "the model would have 2,870,408 drive-sequence arcs, over the limit of "
    )
    assert result.schedule is not None
    report = validate(instance, result.schedule)
    assert report.feasible
    assert result.objective == pytest.approx(report.objective)
    assert result.bound == pytest.approx(lower_bound(instance))
    assert 0 < result.bound <= result.objective
    assert result.runtime_s < 4.0 + 3.0


def test_the_reason_of_a_model_not_built_names_its_size_and_the_limit(spec_instance):
    cost = SetupCost(s_at_10k_arcs=2.0, exponent=1.5)
    arcs = arc_count(spec_instance)
    enough = SAFETY * cost.seconds(arcs)
    assert over_limit(spec_instance, cost, None) is None
    assert over_limit(spec_instance, cost, enough * 1.01) is None
    assert most_arcs(cost, enough * 1.01) >= arcs > most_arcs(cost, enough * 0.99)
    reason = over_limit(spec_instance, cost, enough * 0.99)
    limit = most_arcs(cost, enough * 0.99)
    assert reason is not None
    assert reason.startswith(
        f"the model would have {arcs} drive-sequence arcs, over the limit of {limit} that can "
        "be built with time to search in the "
    )
    assert ran_out(spec_instance, 4.0) == (
        f"the time limit of 4 s ran out while building the model ({arcs} drive-sequence arcs)"
    )
