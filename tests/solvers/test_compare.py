"""``solvers.compare``: the yardstick of the contract, or of the non-anticipative problem.

On ``instances/prefetch.json`` mounting the tape before its request arrives
pays (optimum 10, non-anticipative optimum 25): an online heuristic looks
2.5 times off against the first and optimal against the second. Every exact
backend must say so.
"""

from __future__ import annotations

import pytest

from tapesched.solvers.compare import compare
from tapesched.toolkit.files.instance_file import load_instance

from ..conftest import INSTANCES

EXACT = ("cpsat", "milp-cbc", "milp-highs")


@pytest.fixture(scope="module")
def prefetch_instance():
    return [("prefetch", load_instance(INSTANCES / "prefetch.json"))]


@pytest.mark.parametrize("exact", EXACT)
@pytest.mark.parametrize(
    ("prefetch", "optimum", "greedy_ratio"), [(True, 10.0, 2.5), (False, 25.0, 1.0)]
)
def test_the_yardstick_is_the_optimum_of_the_problem_asked_for(
    prefetch_instance, exact, prefetch, optimum, greedy_ratio
):
    rows = compare(prefetch_instance, ["greedy", exact], time_limit_s=20, prefetch=prefetch)
    greedy, proved = rows
    assert (proved.solver, proved.status, proved.yardstick) == (exact, "optimal", "optimum")
    assert proved.objective == pytest.approx(optimum)
    assert greedy.reference == pytest.approx(optimum)
    assert greedy.ratio == pytest.approx(greedy_ratio)
    assert [r.prefetch for r in rows] == [prefetch, prefetch]


def test_without_an_exact_solver_the_bound_is_the_problems_own(prefetch_instance):
    (free,) = compare(prefetch_instance, ["fifo"])
    (held,) = compare(prefetch_instance, ["fifo"], prefetch=False)
    assert (free.yardstick, free.reference, free.ratio) == ("bound", 10.0, 2.5)
    assert (held.yardstick, held.reference, held.ratio) == ("bound", 25.0, 1.0)


def test_a_solver_that_may_prefetch_is_refused_without_prefetch(prefetch_instance):
    with pytest.raises(ValueError, match="'local-search' may prefetch"):
        compare(prefetch_instance, ["greedy", "local-search"], prefetch=False)


@pytest.mark.parametrize("exact", EXACT)
def test_a_row_not_built_says_which_limit_the_model_met(exact):
    spec = [("spec", load_instance(INSTANCES / "spec-example.json"))]
    greedy, row = compare(spec, ["greedy", exact], time_limit_s=0.0)
    assert (row.status, greedy.reason) == ("not-built", None)
    assert row.reason is not None
    assert row.reason.startswith("the model would have 50 drive-sequence arcs, over the limit of 0")
    assert row.as_dict()["reason"] == row.reason
