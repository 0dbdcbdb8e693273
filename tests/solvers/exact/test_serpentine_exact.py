"""The exact solvers on serpentine drives (``drives[i].locate``): the enumerator's optimum.

A serpentine locate (``cta-lto`` or ``physical``) is neither proportional to
the distance nor bound by the triangle inequality, and ``cta-lto`` pays 4.29 s
for any move off the byte under the head. The exact formulation times each
locate pair by pair with :meth:`toolkit.model.Drive.locate_s`, and its
redundant rows take floors that hold under any locate model. Here, on tiny
hand-made instances (2 to 5 requests, both models), every exact backend
proves the optimum of the exact enumerator of :mod:`.exact_enumeration` and
the validator accepts its schedule; on drawn serpentine instances, CP-SAT's
objective is no worse than any heuristic's, and every floor the models add
(tape and drive gaps, earliest starts, readiness) holds on every feasible
schedule found; and CP-SAT solves the spec example on LTO-7 drives to an
objective no worse than local search's.

CP-SAT rounds lengths up to 1 ms ticks, and serpentine locates are no whole
number of them: its ``optimal`` is the rounded model's, whose re-timed
schedule may exceed the optimum by what rounding adds along a chain of
events (:func:`rounding_slack`). The MILPs work in seconds.
"""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest
from hypothesis import HealthCheck, given, settings

from tapesched import solvers
from tapesched.solvers.cpsat.constraints import earliest_start
from tapesched.solvers.cpsat.data import CpsatData
from tapesched.solvers.exact.formulation import Formulation
from tapesched.solvers.milp.data import MilpData, _drive_gap_s
from tapesched.toolkit.files.instance_file import load_instance
from tapesched.toolkit.model import (
    LOCATE_MODEL_NAMES,
    Drive,
    InitialTape,
    Instance,
    Library,
    Locate,
    Schedule,
    Tape,
)
from tapesched.toolkit.validator import validate
from tests.builders import tolerance, validated_objective

from ...builders import read
from .exact_enumeration import exact_optimum
from .family import serpentine_family

EXACT = ("cpsat", "milp-cbc", "milp-highs")
HEURISTICS = tuple(n for n in solvers.names() if n not in (*EXACT, "lns"))
WRAP_MB = 100.0
"""Each of LTO-7's 112 wraps holds this much of the tapes below (11,200 MB)."""

LTO7 = Path(__file__).parents[3] / "instances" / "spec-example-lto7.json"
LOCAL_SEARCH_LTO7 = 94.0597
"""Local search's objective on the spec example on LTO-7 drives (``tapesched compare``)."""


def rounding_slack(instance: Instance, tick_s: float = 1e-3) -> float:
    """The most CP-SAT's 1 ms rounding can add to its optimum's objective.

    Every end of the rounded model's optimal decisions, re-timed, is later by
    less than a tick per event of a chain (two per request, two per node) and
    one for the release; the objective weighs the ends.
    """
    nodes = sum(len(r.pieces) for r in instance.requests) + len(instance.initial)
    chain_s = (2 * len(instance.requests) + 2 * nodes + 1) * tick_s
    weights = [r.weight for r in instance.requests]
    if instance.objective == "weighted-flow":
        return chain_s * sum(weights) + 1e-6
    if instance.objective == "max-weighted-flow":
        return chain_s * max(weights) + 1e-6
    return chain_s + 1e-6


def serpentine_instance(
    model: str,
    requests: tuple,
    *,
    drives: int = 1,
    tapes: int = 1,
    initial: bool = True,
    arms: int = 1,
    objective: str = "weighted-flow",
) -> Instance:
    """``drives`` LTO-7 drives of ``model``, ``tapes`` tapes of 112 wraps of 100 MB.

    With ``initial``, the first drive holds T1 at time 0 (head at 0).
    """
    return Instance(
        name=f"serpentine-{model}",
        libraries=(Library("L0", arms, 10, 10),),
        drives=tuple(
            Drive(f"d{i}", "L0", 300, 15, 20, 10_000, locate=Locate(model, "LTO-7"))
            for i in range(drives)
        ),
        tapes=tuple(Tape(f"T{k + 1}", "L0", 112 * WRAP_MB) for k in range(tapes)),
        requests=requests,
        initial=(InitialTape("d0", "T1"),) if initial else (),
        objective=objective,
    )


def _cases(model: str) -> dict[str, Instance]:
    """Tiny instances where the wraps, not the offsets, decide the order."""
    w = WRAP_MB
    return {
        # Far apart in offset, neighbours across wraps (the end of wrap 0 is
        # beside the start of wrap 1), and one near the load point.
        "across-wraps": serpentine_instance(
            model,
            (
                read("r1", 0, ("T1", 0.5 * w, 1)),
                read("r2", 0, ("T1", 1.5 * w, 1)),
                read("r3", 0, ("T1", 2 * w - 1, 1)),
            ),
        ),
        "back-and-forth": serpentine_instance(
            model,
            (
                read("r1", 0, ("T1", 0.6 * w, 2)),
                read("r2", 5, ("T1", 0.05 * w, 2), weight=2.0),
            ),
            objective="makespan",
        ),
        "two-drives-a-gang": serpentine_instance(
            model,
            (
                read("g", 0, ("T1", 3.3 * w, 5), ("T2", 0.2 * w, 5)),
                read("r1", 0, ("T1", 2.7 * w, 3)),
                read("r2", 10, ("T2", 1.8 * w, 3), weight=3.0),
                read("r3", 20, ("T1", 0.4 * w, 3)),
            ),
            drives=2,
            tapes=2,
        ),
        "five-on-two-tapes": serpentine_instance(
            model,
            (
                read("r1", 0, ("T1", 10.5 * w, 4)),
                read("r2", 0, ("T2", 0.9 * w, 4)),
                read("r3", 0, ("T1", 11.5 * w, 4), weight=2.0),
                read("r4", 30, ("T2", 1.1 * w, 4)),
                read("r5", 40, ("T1", 0.2 * w, 4)),
            ),
            tapes=2,
            initial=False,
            objective="max-weighted-flow",
        ),
    }


CASES = [(model, name) for model in LOCATE_MODEL_NAMES for name in _cases(model)]


@pytest.mark.parametrize(("model", "name"), CASES)
def test_every_exact_backend_proves_the_enumerators_optimum(model, name):
    instance = _cases(model)[name]
    optimum, schedule = exact_optimum(instance)
    assert schedule is not None
    for solver in EXACT:
        result = solvers.solve(instance, solver=solver, time_limit_s=20.0, seed=0)
        assert result.status is solvers.Status.OPTIMAL, solver
        value = validated_objective(instance, result)
        assert value >= optimum - tolerance(optimum), solver
        slack = rounding_slack(instance) if solver == "cpsat" else tolerance(optimum)
        assert value <= optimum + slack, solver
        assert result.bound is not None and result.bound <= optimum + tolerance(optimum), solver
    result = solvers.solve(instance, solver="lns", seed=0, iterations=3)
    assert validated_objective(instance, result) >= optimum - tolerance(optimum)


def test_the_serpentine_order_is_not_the_offset_order():
    # On the cta-lto case, the optimum visits the tape out of offset order: a
    # linear model's order would be worse, which only pair-by-pair timing sees.
    instance = _cases("cta-lto")["across-wraps"]
    result = solvers.solve(instance, solver="cpsat", time_limit_s=20.0, seed=0)
    assert result.schedule is not None
    order = [r.id for r in sorted(result.schedule.requests, key=lambda r: r.start_s)]
    assert order != ["r1", "r2", "r3"]
    linear = attrs.evolve(
        instance, drives=tuple(attrs.evolve(d, locate=None) for d in instance.drives)
    )
    in_offset_order = solvers.solve(linear, solver="cpsat", time_limit_s=20.0, seed=0)
    assert in_offset_order.schedule is not None
    replayed = validate(instance, in_offset_order.schedule)
    assert not replayed.feasible or replayed.objective > validated_objective(instance, result)


def assert_floors_hold(instance: Instance, schedule: Schedule) -> None:
    """Every floor the exact models state holds on ``schedule``, a feasible one.

    Earliest starts (CP-SAT), readiness on a piece's drive and the least
    gap between two requests on one drive (MILP), and the least gap between
    two uses of one tape (both): a floor that assumed a linear locate or the
    triangle inequality would cut off some feasible schedule.
    """
    data = MilpData(instance)
    ticks = CpsatData(instance, 1e-3)
    by_id = {entry.id: entry for entry in schedule.requests}
    placed = []
    for j, request in enumerate(instance.requests):
        entry = by_id[request.id]
        for n, drive in zip(data.request_nodes[j], entry.drives, strict=True):
            placed.append((n, drive, entry.start_s, entry.end_s))
            assert data.ready[n, drive] <= entry.start_s + 1e-6
            assert earliest_start(ticks, n) * ticks.tick <= entry.start_s + 1e-6
    for u, d_u, _, end_u in placed:
        for v, d_v, start_v, _ in placed:
            if data.nodes[u].request == data.nodes[v].request or start_v < end_u - 1e-9:
                continue
            if d_u == d_v:
                assert end_u + _drive_gap_s(data, u, v, d_u) <= start_v + 1e-6
            if data.nodes[u].tape == data.nodes[v].tape:
                assert end_u + Formulation.gap_to_later_use_s(data, u, v) <= start_v + 1e-6


@settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(serpentine_family(n_requests=(1, 4), drives_per_library=(1, 2), max_gang=(1, 2)))
def test_cpsat_is_no_worse_than_any_heuristic_and_every_floor_holds(instance):
    optimum, optimal = exact_optimum(instance)
    assert optimal is not None
    assert_floors_hold(instance, optimal)
    result = solvers.solve(instance, solver="cpsat", time_limit_s=20.0, seed=0)
    assert result.status is solvers.Status.OPTIMAL
    value = validated_objective(instance, result)
    slack = rounding_slack(instance)
    assert optimum - tolerance(optimum) <= value <= optimum + slack
    assert result.bound is not None and result.bound <= optimum + tolerance(optimum)
    assert result.schedule is not None
    assert_floors_hold(instance, result.schedule)
    for name in HEURISTICS:
        limit = 0.2 if name == "local-search" else None  # it searches to its limit
        heuristic = solvers.solve(instance, solver=name, time_limit_s=limit, seed=0)
        assert value <= validated_objective(instance, heuristic) + slack, name
        assert heuristic.schedule is not None
        assert_floors_hold(instance, heuristic.schedule)


def test_the_spec_example_on_lto7_solves_to_the_optimum_no_worse_than_local_search():
    instance = load_instance(LTO7)
    assert instance.locate_paths
    result = solvers.solve(instance, solver="cpsat", time_limit_s=20.0, seed=0)
    assert result.status is solvers.Status.OPTIMAL
    value = validated_objective(instance, result)
    assert value <= LOCAL_SEARCH_LTO7 + 1e-4
    highs = solvers.solve(instance, solver="milp-highs", time_limit_s=20.0, seed=0)
    assert highs.status is solvers.Status.OPTIMAL
    assert validated_objective(instance, highs) == pytest.approx(
        value, abs=rounding_slack(instance)
    )


def test_drives_of_other_locate_models_or_busy_times_are_no_twins():
    base = Drive("d0", "L0", 300, 15, 20, 10_000)
    drives = (
        base,
        attrs.evolve(base, id="d1"),
        attrs.evolve(base, id="d2", locate=Locate("cta-lto", "LTO-7")),
        attrs.evolve(base, id="d3", locate=Locate("cta-lto", "LTO-7")),
        attrs.evolve(base, id="d4", locate=Locate("physical", "LTO-7")),
        attrs.evolve(base, id="d5", locate=Locate("cta-lto", "LTO-8")),
        attrs.evolve(base, id="d6", available_s=30.0),
    )
    instance = attrs.evolve(
        serpentine_instance("cta-lto", (read("r1", 0, ("T1", 10, 1)),), initial=False),
        drives=drives,
    )
    assert Formulation(instance).drive_twins == ((0, 1), (2, 3))


@pytest.mark.parametrize("model", LOCATE_MODEL_NAMES)
def test_each_locate_arc_is_the_drives_own_timing_pair_by_pair(model):
    instance = _cases(model)["across-wraps"]
    data = Formulation(instance)
    drive = instance.drives[0]
    capacity = instance.tapes[0].capacity_mb
    for d, a, b in data.same_tape_arcs:
        expected = drive.locate_s(data.nodes[a].end_mb, data.nodes[b].offset_mb, capacity)
        assert data.locate_s(a, b, d) == expected
        assert data.into_locate_s(b, d) <= expected <= data.worst_into_locate_s(b, d)
    for n in range(data.n_pieces):
        from_load = drive.locate_s(0.0, data.nodes[n].offset_mb, capacity)
        assert data.load_locate_s(n, 0) == from_load
        assert data.ready_s(n, 0) == 10 + 15 + from_load


def test_without_prefetch_the_exact_backends_agree_on_the_lto7_example():
    instance = load_instance(LTO7)
    values = {}
    for solver in EXACT:
        result = solvers.solve(instance, solver=solver, time_limit_s=20.0, prefetch=False)
        assert result.status is solvers.Status.OPTIMAL, solver
        assert result.schedule is not None
        report = validate(instance, result.schedule, prefetch=False)
        assert report.feasible, (solver, [str(v) for v in report.violations])
        assert report.objective is not None
        values[solver] = report.objective
    assert values["milp-cbc"] == pytest.approx(values["milp-highs"], abs=1e-6)
    assert values["cpsat"] == pytest.approx(values["milp-highs"], abs=rounding_slack(instance))
