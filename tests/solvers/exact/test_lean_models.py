"""Exact models leave out what cannot matter, and never return worse than their warm start.

Tapes no request reads add nothing to either model; arcs that no schedule as
good as the warm start can use are left out (CP-SAT: :mod:`solvers.cpsat.pruning`;
the MILP: :class:`solvers.milp.data.MilpData`'s bounded arcs), and the optimum
stays; with too little time, every exact backend returns its warm start.
(The exact family test holds the pruned models of every backend to the
enumerator on random instances; these are the cases made by hand.)
"""

from __future__ import annotations

import attrs
import pytest

from tapesched import solvers
from tapesched.solvers import Status
from tapesched.solvers.cpsat import build_model as build_cpsat
from tapesched.solvers.cpsat import cpsat
from tapesched.solvers.milp import build_model as build_milp
from tapesched.solvers.milp.data import MilpData
from tapesched.solvers.registry import get
from tapesched.solvers.warm_start import best_heuristic, warm_start
from tapesched.toolkit.generators import RandomParams, random_instance
from tapesched.toolkit.model import Drive, Instance, Library, Piece, Request, Tape
from tapesched.toolkit.validator import validate

EXACT = ("cpsat", "milp-cbc", "milp-highs")


def spread() -> Instance:
    """Three 10 s reads of three tapes at 0, 400 and 800 s on one drive (optimum 45 s).

    The first waits for its mount and load (25 s of flow); the drive swaps
    tapes long before each next release (10 s each). A later read followed
    by an earlier one is far worse than the warm start: those arcs go.
    """
    return Instance(
        name="spread",
        libraries=(Library("L0", 1, 10, 10),),
        drives=(Drive("d0", "L0", 100, 5, 5, 1000),),
        tapes=tuple(Tape(f"T{k}", "L0", 100_000) for k in range(3)),
        requests=tuple(
            Request(f"r{k}", 400 * k, 1.0, "read", (Piece(f"T{k}", 0, 1000),)) for k in range(3)
        ),
    )


SPREAD_OPTIMUM = 45.0


def with_unread_tapes(instance: Instance, count: int) -> Instance:
    """``instance`` with ``count`` more tapes in its first library that no request reads."""
    library = instance.libraries[0].id
    extra = tuple(Tape(f"UNREAD{k:04d}", library, 100_000) for k in range(count))
    return attrs.evolve(instance, name=f"{instance.name}-unread", tapes=instance.tapes + extra)


def test_cpsat_leaves_out_arcs_worse_than_its_hint_and_keeps_the_optimum():
    instance = spread()
    start = warm_start(instance, time_limit_s=None, seed=0)
    assert start is not None
    pruned = build_cpsat(instance, hint_schedule=start[0])
    whole = build_cpsat(instance, hint_schedule=start[0], prune=False)
    assert pruned.hinted and whole.hinted
    assert len(pruned.variables.arc) < len(whole.variables.arc)
    with_hint = cpsat(instance, time_limit_s=20)
    without = cpsat(instance, hint=False, time_limit_s=20)  # no hint: nothing pruned
    assert with_hint.status is Status.OPTIMAL and without.status is Status.OPTIMAL
    assert with_hint.objective == pytest.approx(without.objective) == SPREAD_OPTIMUM
    assert validate(instance, with_hint.schedule).feasible


@pytest.mark.parametrize("name", ["milp-cbc", "milp-highs"])
def test_milp_leaves_out_arcs_worse_than_its_warm_start_and_keeps_the_optimum(name):
    instance = spread()
    start = warm_start(instance, time_limit_s=None, seed=0)
    assert start is not None
    bounded = MilpData(instance, start[1])
    whole = MilpData(instance, None)
    assert len(bounded.switch_arcs) < len(whole.switch_arcs)
    run = get(name)
    with_start = run(instance, time_limit_s=20)
    without = run(instance, time_limit_s=20, hint=False)  # no warm start: no bound, no pruning
    assert with_start.status is Status.OPTIMAL and without.status is Status.OPTIMAL
    assert with_start.objective == pytest.approx(without.objective) == SPREAD_OPTIMUM


def test_tapes_no_request_reads_add_nothing_to_either_model():
    instance = spread()
    wide = with_unread_tapes(instance, 200)
    small_cp, wide_cp = build_cpsat(instance).model.proto, build_cpsat(wide).model.proto
    assert len(wide_cp.variables) == len(small_cp.variables)
    assert len(wide_cp.constraints) == len(small_cp.constraints)
    small_milp, wide_milp = build_milp(instance).problem, build_milp(wide).problem
    assert len(wide_milp.variables()) == len(small_milp.variables())
    assert len(wide_milp.constraints) == len(small_milp.constraints)


@pytest.mark.parametrize("name", EXACT)
def test_a_schedule_of_the_read_tapes_is_valid_for_every_tape(name):
    wide = with_unread_tapes(spread(), 200)
    result = solvers.solve(wide, name, time_limit_s=20)
    assert result.status is Status.OPTIMAL
    report = validate(wide, result.schedule)
    assert report.feasible
    assert report.objective == pytest.approx(SPREAD_OPTIMUM) == result.objective


@pytest.mark.parametrize("name", EXACT)
def test_too_little_time_returns_the_warm_start_never_worse(name):
    instance = random_instance(RandomParams(n_requests=30, drives_per_library=(2, 3)), 3)
    best = best_heuristic(instance)
    assert best is not None
    result = solvers.solve(instance, name, time_limit_s=0.05)
    assert result.status in (Status.TIMEOUT, Status.NOT_BUILT)
    assert result.schedule is not None
    report = validate(instance, result.schedule)
    assert report.feasible
    assert result.objective == pytest.approx(report.objective)
    assert result.objective <= best[1] + 1e-9
    assert result.bound is not None and result.bound <= result.objective
