"""Lower bounds never exceed an optimum, and are tight where the hand-worked cases say so.

Validity is checked against the hand-made optima of ``instances/``, against
every feasible schedule the greedy heuristic builds on Hypothesis instances
(a bound is below every feasible schedule, whatever the objective), and
request by request: the earliest start and end of each request must not be
later than its start and end in any feasible schedule.
"""

from __future__ import annotations

import json

import attrs
import pytest
from hypothesis import HealthCheck, given, settings

from tapesched.solvers.bounds.bounds import (
    arm_bound,
    basic_bound,
    drive_time_bound,
    lower_bound,
    request_bound,
    switch_bound,
    tape_bound,
)
from tapesched.solvers.bounds.earliest import MAX_PROFILES, earliest_times, locate_floors
from tapesched.solvers.bounds.machine import MachineJob, edf, max_weighted_flow, weighted_completion
from tapesched.solvers.greedy import greedy
from tapesched.toolkit.files.instance_file import load_instance
from tapesched.toolkit.generators import RandomParams, random_instance
from tapesched.toolkit.model import (
    OBJECTIVES,
    Drive,
    InitialTape,
    Instance,
    Library,
    Piece,
    Request,
    Schedule,
    Tape,
)
from tapesched.toolkit.objectives import objective_value
from tapesched.toolkit.strategies import instances
from tapesched.toolkit.validator import validate

from ...conftest import INSTANCES, VERSION_1
from ..exact.exact_enumeration import exact_optimum
from ..exact.family import family

OPTIMA = json.loads((INSTANCES / "optima.json").read_text())
BOUNDS = (lower_bound, request_bound, drive_time_bound, arm_bound, tape_bound, switch_bound)


def slack(value: float) -> float:
    """Tolerance of a comparison with ``value``: the validator's 1e-6 s, relative above 1."""
    return 1e-6 * max(1.0, abs(value))


def greedy_schedule(instance: Instance) -> Schedule:
    """The greedy schedule of ``instance``, checked feasible."""
    schedule = greedy(instance, time_limit_s=None, seed=0).schedule
    assert schedule is not None
    assert validate(instance, schedule).feasible
    return schedule


def one_drive(initial: bool, requests: tuple[Request, ...], rate: float = 100.0) -> Instance:
    """One library, one arm (10 s each way), one drive (load and unload 5 s, locate 1000 MB/s)."""
    return Instance(
        name="one-drive",
        libraries=(Library("L0", 1, 10, 10),),
        drives=(Drive("d0", "L0", rate, 5, 5, 1000),),
        tapes=(Tape("T1", "L0", 100000), Tape("T2", "L0", 100000)),
        requests=requests,
        initial=(InitialTape("d0", "T1"),) if initial else (),
    )


@pytest.mark.parametrize("name", sorted(OPTIMA))
@pytest.mark.parametrize("bound", BOUNDS, ids=lambda f: f.__name__)
def test_no_bound_exceeds_a_hand_made_optimum(name, bound):
    instance = load_instance(INSTANCES / f"{name}.json")
    optimum = OPTIMA[name]["optimum"]
    assert bound(instance) <= optimum + slack(optimum)


def test_the_bound_is_tight_on_prefetch():
    # Mount, load and locate can all precede the release: only the 10 s transfer is left.
    instance = load_instance(INSTANCES / "prefetch.json")
    assert lower_bound(instance) == pytest.approx(OPTIMA["prefetch"]["optimum"], abs=1e-9)
    assert request_bound(instance) == pytest.approx(10.0, abs=1e-9)
    times = earliest_times(instance)
    assert times.starts["late"] == pytest.approx(100.0)
    assert times.ends["late"] == pytest.approx(110.0)


@pytest.mark.parametrize("name", ["gang-one-arm", "gang-two-arms"])
def test_the_arm_bound_is_tight_on_the_gangs(name):
    # One arm mounts the two tapes one after the other (30 s); two arms at once (20 s).
    instance = load_instance(INSTANCES / f"{name}.json")
    assert lower_bound(instance) == pytest.approx(OPTIMA[name]["optimum"], abs=1e-9)


def test_a_tape_loaded_at_time_0_needs_only_the_locate_from_0():
    # offset-order: T1 is in d0 with its head at 0; far sits at 2000 MB (2 s of locate).
    instance = load_instance(INSTANCES / "offset-order.json")
    times = earliest_times(instance)
    assert times.starts == pytest.approx({"near": 0.0, "far": 2.0})
    assert times.ends == pytest.approx({"near": 10.0, "far": 12.0})
    # Pooled on its one drive, the 20 s of transfers end by 30 at best in total
    # flow; with the least locate before each piece (far's, from near's end, is
    # 1 s), by 31: the optimum.
    assert drive_time_bound(instance) == pytest.approx(31.0)


def test_the_spec_example_bound_by_hand():
    # r2 located 12 s on d0 (flow 10.333), r1 mounted into the empty d1 (0.1 x 58.333),
    # r3 waits for T1 in d1 until 30 s (0.5 x 3.333).
    instance = load_instance(INSTANCES / "spec-example.json")
    assert request_bound(instance) == pytest.approx(10 + 1 / 3 + 5.8333333 + 1.6666667)


def test_a_transfer_moves_the_head_faster_than_a_slow_locate():
    # Streaming at 100 MB/s, locating at 10 MB/s: after `a`, the head is at 1000 MB in
    # 10 s, where `b` starts with no locate. Alone, `b` would locate 100 s: the bound
    # must not assume it.
    instance = Instance(
        name="slow-locate",
        libraries=(Library("L0", 1, 10, 10),),
        drives=(Drive("d0", "L0", 100, 5, 5, 10),),
        tapes=(Tape("T1", "L0", 100000),),
        requests=(
            Request("a", 0, 1.0, "read", (Piece("T1", 0, 1000),)),
            Request("b", 0, 1.0, "read", (Piece("T1", 1000, 1000),)),
        ),
        initial=(InitialTape("d0", "T1"),),
    )
    schedule = greedy_schedule(instance)
    ends = {r.id: r.end_s for r in schedule.requests}
    assert ends == pytest.approx({"a": 10.0, "b": 20.0})
    assert earliest_times(instance).starts["b"] <= 10.0
    for objective in OBJECTIVES:
        value = objective_value(instance, ends, objective)
        assert lower_bound(instance, objective) <= value + slack(value)


def test_a_remount_is_no_faster_than_the_initial_tape():
    # T1 loaded in d0: `a` at offset 0 may start at once, without a mount.
    requests = (Request("a", 0, 1.0, "read", (Piece("T1", 0, 1000),)),)
    assert lower_bound(one_drive(True, requests)) == pytest.approx(10.0)
    assert lower_bound(one_drive(False, requests)) == pytest.approx(25.0)


def test_a_drive_holding_another_tape_must_clear_it_first():
    # d0 holds T1; T2 needs unload 5, dismount 10, mount 10, load 5: ready at 30.
    requests = (Request("b", 0, 1.0, "read", (Piece("T2", 0, 100),)),)
    assert earliest_times(one_drive(True, requests)).starts["b"] == pytest.approx(30.0)


def test_the_drive_time_bound_counts_the_forced_switch():
    # one-drive-two-tapes: each transfer waits 15 s for its mount and load at best, the
    # short one first: 16 + 26 = 42 <= 72. The one drive spends 2 x 15 s on mounts and
    # loads and 11 s transferring: makespan 41 <= 56.
    instance = load_instance(INSTANCES / "one-drive-two-tapes.json")
    assert drive_time_bound(instance) == pytest.approx(42.0)
    assert drive_time_bound(instance, "makespan") == pytest.approx(41.0)


def test_no_request_no_bound():
    empty = one_drive(False, ())
    for objective in OBJECTIVES:
        assert lower_bound(empty, objective) == 0.0


@pytest.mark.parametrize("requests", [True, False], ids=["requests", "none"])
def test_an_unknown_objective_is_an_error(requests):
    instance = load_instance(INSTANCES / "prefetch.json")
    if not requests:
        instance = one_drive(False, ())
    for bound in BOUNDS:
        with pytest.raises(ValueError, match="unknown objective"):
            bound(instance, "tardiness")


def test_a_library_of_many_drive_profiles_is_summarised_validly():
    params = RandomParams(
        n_requests=40, drives_per_library=(MAX_PROFILES + 4, MAX_PROFILES + 4), max_gang=3
    )
    instance = random_instance(params, seed=5)
    assert len({(d.rate_mb_s, d.load_s) for d in instance.drives}) > MAX_PROFILES
    report = validate(instance, greedy_schedule(instance))
    for objective in OBJECTIVES:
        value = objective_value(instance, report.ends, objective)
        assert 0 < lower_bound(instance, objective) <= value + slack(value)


def test_weighted_completion_by_hand():
    # MachineJob 1 (w 1, p 4) from 0; job 2 (w 3, p 1) from 1 preempts it: 1 runs 0-1 and 2-5,
    # 2 runs 1-2. Mean busy times 2.75 and 1.5: 1 x (2.75 + 2) + 3 x (1.5 + 0.5) = 10.75,
    # below the best preemptive schedule's 1 x 5 + 3 x 2 = 11.
    jobs = [MachineJob(0.0, 4.0, 1.0, 0.0), MachineJob(1.0, 1.0, 3.0, 1.0)]
    assert weighted_completion(jobs) == pytest.approx(10.75)
    # A job of no work ends at its earliest start at best.
    assert weighted_completion([MachineJob(7.0, 0.0, 2.0, 0.0)]) == pytest.approx(14.0)


def test_max_weighted_flow_by_hand():
    # Two unit jobs released at 0, weights 1 and 2: the heavy one first, flows 1 and 2
    # (weighted 2 each); the other way, 1 x 2 and 2 x 2 = 4. Optimum 2.
    jobs = [MachineJob(0.0, 1.0, 1.0, 0.0), MachineJob(0.0, 1.0, 2.0, 0.0)]
    assert max_weighted_flow(jobs, 0.0) == pytest.approx(2.0, rel=1e-5)
    assert max_weighted_flow(jobs, 2.0) <= 2.0 + 1e-9
    met, flow = edf(sorted(jobs), 1.5)
    assert not met
    assert 1.5 < flow <= 2.0 + 1e-9


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances(n_requests=(0, 5)))
def test_no_bound_exceeds_a_greedy_schedule(instance):
    schedule = greedy_schedule(instance)
    report = validate(instance, schedule)
    for objective in OBJECTIVES:
        value = objective_value(instance, report.ends, objective)
        for bound in BOUNDS:
            assert bound(instance, objective) <= value + slack(value)
    times = earliest_times(instance)
    for scheduled in schedule.requests:
        release = instance.request_by_id[scheduled.id].release_s
        assert release <= times.starts[scheduled.id] <= times.ends[scheduled.id]
        assert times.starts[scheduled.id] <= scheduled.start_s + slack(scheduled.start_s)
        assert times.ends[scheduled.id] <= scheduled.end_s + slack(scheduled.end_s)


@pytest.mark.parametrize("objective", OBJECTIVES)
def test_the_instance_objective_is_the_default(objective):
    instance = load_instance(INSTANCES / "spec-example.json")
    chosen = Instance(
        name=instance.name,
        libraries=instance.libraries,
        drives=instance.drives,
        tapes=instance.tapes,
        requests=instance.requests,
        initial=instance.initial,
        objective=objective,
    )
    assert lower_bound(chosen) == lower_bound(instance, objective)


def test_locate_floors_take_the_nearest_other_piece_or_offset_0():
    # offset-order: near reads 0..1000 MB, far 2000..3000 MB of T1, at most
    # 1000 MB/s: near needs no locate, far at least from near's end (1 s).
    instance = load_instance(INSTANCES / "offset-order.json")
    assert locate_floors(instance) == pytest.approx({("near", 0): 0.0, ("far", 0): 1.0})


@pytest.mark.parametrize("objective", ["weighted-flow", "makespan", "max-weighted-flow"])
@pytest.mark.parametrize("name", sorted(VERSION_1 & OPTIMA.keys()))
def test_arm_and_tape_bounds_stay_below_the_hand_made_optima(name, objective):
    instance = attrs.evolve(load_instance(INSTANCES / f"{name}.json"), objective=objective)
    value, _ = exact_optimum(instance)
    assert arm_bound(instance) <= value + 1e-9
    assert tape_bound(instance) <= value + 1e-9
    assert lower_bound(instance) <= value + 1e-9


def four_reads_on_two_drives() -> Instance:
    """Four 10 s reads released at 0, each alone on a tape no drive holds, two empty drives.

    Plenty of arms (mount 10 s, load 5 s): two reads end at 25 at best, the
    two after them wait for a switch (unload 5, dismount 10, mount 10, load 5).
    """
    return Instance(
        name="four-reads",
        libraries=(Library("L0", 4, 10, 10),),
        drives=(Drive("d0", "L0", 100, 5, 5, 1000), Drive("d1", "L0", 100, 5, 5, 1000)),
        tapes=tuple(Tape(f"T{k}", "L0", 100000) for k in range(4)),
        requests=tuple(
            Request(f"r{k}", 0, 1.0, "read", (Piece(f"T{k}", 0, 1000),)) for k in range(4)
        ),
    )


def test_the_switch_bound_is_strictly_stronger_where_drives_are_shared():
    # Alone, every read ends at 25 (mount, load, transfer): 100 in total; bounds
    # (a) to (d) reach 110, the optimum is 25 + 25 + 65 + 65 = 180. Bound (e):
    # each read holds its drive 25 s (mount and load are drive time), works of
    # 12.5 on the pooled machine from time 0, mean busy times 6.25 + 18.75 +
    # 31.25 + 43.75 = 100, plus 4 x 12.5.
    instance = four_reads_on_two_drives()
    value, _ = exact_optimum(instance)
    assert value == pytest.approx(180.0)
    assert basic_bound(instance) == pytest.approx(110.0)
    assert switch_bound(instance) == pytest.approx(150.0)
    assert lower_bound(instance) == pytest.approx(150.0)
    assert lower_bound(instance) <= value + slack(value)


def test_the_floors_count_the_mount_of_a_lone_piece():
    # T2 is held by no drive: its only piece follows a mount (10 s) and a load (5 s)
    # before the 2 s locate.
    requests = (Request("a", 0, 1.0, "read", (Piece("T2", 2000, 1000),)),)
    assert locate_floors(one_drive(False, requests)) == pytest.approx({("a", 0): 2.0})
    floors = locate_floors(one_drive(False, requests), switches=True)
    assert floors == pytest.approx({("a", 0): 17.0})
    assert switch_bound(one_drive(False, requests), "makespan") == pytest.approx(27.0)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(family(n_requests=(1, 4)))
def test_the_switch_bound_stays_below_the_exact_optimum(instance):
    for objective in OBJECTIVES:
        chosen = attrs.evolve(instance, objective=objective)
        value, _ = exact_optimum(chosen)
        assert switch_bound(chosen) <= value + slack(value)
        assert lower_bound(chosen) <= value + slack(value)
        assert basic_bound(chosen) <= lower_bound(chosen) + slack(value)
