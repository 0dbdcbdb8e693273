"""The greedy heuristic: hand-computed schedules on tiny cases, feasibility everywhere.

Every schedule is also held to the independent validator, whose recomputed
objective must equal the one the solver reports.
"""

from __future__ import annotations

import attrs
import pytest
from hypothesis import HealthCheck, given, settings

from tapesched.solvers import Status, solve
from tapesched.solvers.bounds.bounds import lower_bound
from tapesched.solvers.greedy import greedy
from tapesched.solvers.result import Result
from tapesched.toolkit.generators import RandomParams, random_instance
from tapesched.toolkit.model import (
    ArmOperation,
    Drive,
    InitialTape,
    Instance,
    Library,
    Piece,
    Request,
    ScheduledRequest,
    Tape,
)
from tapesched.toolkit.strategies import instances

from ..builders import assert_validated, operations, read, scheduled
from ..conftest import two_empty_drives

SPEC_OPTIMUM = 19.17667


def checked(instance: Instance) -> Result:
    """Run greedy and hold its schedule to the validator; return the result."""
    result = solve(instance, solver="greedy")
    assert_validated(instance, result)
    return result


def one_library(
    drives: tuple[Drive, ...],
    requests: tuple[Request, ...],
    *,
    arms: int = 1,
    mount_s: float = 10,
    dismount_s: float = 12,
    tapes: int = 3,
    initial: tuple[InitialTape, ...] = (),
    objective: str = "weighted-flow",
) -> Instance:
    """An instance of one library ``L0`` holding tapes ``T1``.. of 100 GB."""
    return Instance(
        name="hand-made",
        libraries=(Library("L0", arms, mount_s, dismount_s),),
        drives=drives,
        tapes=tuple(Tape(f"T{i}", "L0", 100000) for i in range(1, tapes + 1)),
        requests=requests,
        initial=initial,
        objective=objective,
    )


def drive(name: str, rate_mb_s: float = 100, locate_mb_s: float = 1000) -> Drive:
    """A drive that loads in 15 s and unloads in 20 s."""
    return Drive(name, "L0", rate_mb_s, 15, 20, locate_mb_s)


def test_the_shipped_spec_example_is_the_documented_one(spec_instance):
    # The example instance of docs/core-problem.md, built from model objects.
    assert spec_instance == Instance(
        name="two-drives-three-reads",
        objective="weighted-flow",
        libraries=(Library("L0", 1, 10, 10),),
        drives=(
            Drive("d0", "L0", 300, 15, 20, 10000),
            Drive("d1", "L0", 300, 15, 20, 10000),
        ),
        tapes=(Tape("T1", "L0", 6000000), Tape("T2", "L0", 6000000)),
        initial=(InitialTape("d0", "T2"),),
        requests=(
            Request("r1", 0, 0.1, "read", (Piece("T1", 0, 10000),)),
            Request("r2", 5, 1.0, "read", (Piece("T2", 120000, 1000),)),
            Request("r3", 30, 0.5, "read", (Piece("T1", 50000, 1000), Piece("T2", 0, 1000))),
        ),
    )


def test_spec_example_greedy_schedule(spec_instance):
    result = checked(spec_instance)
    assert result.solver == "greedy"
    assert result.status is Status.FEASIBLE
    assert result.bound == lower_bound(spec_instance) <= result.objective
    assert result.runtime_s >= 0
    assert result.objective >= SPEC_OPTIMUM
    # r1 mounts T1 into the empty d1; r2 locates on d0, which holds T2; the
    # gang r3 waits for d1 to finish r1 and locates on both tapes in place.
    times = scheduled(result)
    assert times["r1"] == (("d1",), 25.0, pytest.approx(25 + 10000 / 300))
    assert times["r2"] == (("d0",), 17.0, pytest.approx(17 + 1000 / 300))
    r3_start = 25 + 10000 / 300 + 40000 / 10000
    assert times["r3"] == (("d1", "d0"), pytest.approx(r3_start), pytest.approx(r3_start + 10 / 3))
    assert operations(result.schedule) == [("mount", "T1", "d1", 0.0, 10.0)]
    assert result.objective == pytest.approx(39.0)
    assert result.schedule is not None
    assert result.schedule.instance == "two-drives-three-reads"
    assert result.schedule.objective is not None
    assert result.schedule.objective.name == "weighted-flow"
    assert result.schedule.objective.value == result.objective
    assert result.schedule.operations[0].library == "L0"


def test_switch_on_one_drive():
    instance = one_library(
        (drive("d0"),), (read("r1", 0, ("T1", 0, 1000)), read("r2", 5, ("T2", 2000, 500)))
    )
    result = checked(instance)
    # r2 waits for r1 (ends 35), then unload 35-55, dismount 55-67, mount
    # 67-77, load until 92 and locate 2000 MB at 1000 MB/s until 94.
    assert scheduled(result) == {"r1": (("d0",), 25.0, 35.0), "r2": (("d0",), 94.0, 99.0)}
    assert operations(result.schedule) == [
        ("mount", "T1", "d0", 0.0, 10.0),
        ("dismount", "T1", "d0", 55.0, 67.0),
        ("mount", "T2", "d0", 67.0, 77.0),
    ]
    assert result.objective == pytest.approx(35 + 94)


def test_nothing_is_done_for_a_request_before_its_release():
    instance = one_library(
        (drive("d0"),), (read("r1", 0, ("T1", 0, 1000)), read("r2", 100, ("T2", 2000, 500)))
    )
    result = checked(instance)
    assert scheduled(result)["r2"] == (("d0",), 159.0, 164.0)
    assert operations(result.schedule)[1:] == [
        ("dismount", "T1", "d0", 120.0, 132.0),
        ("mount", "T2", "d0", 132.0, 142.0),
    ]


def test_tape_stays_mounted_for_the_next_request_on_it():
    instance = one_library(
        (drive("d0"),), (read("r1", 0, ("T1", 0, 1000)), read("r2", 0, ("T1", 5000, 100)))
    )
    result = checked(instance)
    assert scheduled(result)["r2"] == (("d0",), 39.0, 40.0)
    assert operations(result.schedule) == [("mount", "T1", "d0", 0.0, 10.0)]


def test_tape_held_initially_by_the_other_drive_is_read_there():
    instance = one_library(
        (drive("d0"), drive("d1")),
        (read("r1", 0, ("T1", 3000, 1000)),),
        initial=(InitialTape("d1", "T1"),),
    )
    result = checked(instance)
    # Already loaded: no load time, only the locate from offset 0.
    assert scheduled(result) == {"r1": (("d1",), 3.0, 13.0)}
    assert operations(result.schedule) == []


def test_tape_held_by_a_slow_drive_moves_to_a_fast_empty_one():
    instance = one_library(
        (drive("d0", rate_mb_s=1000), drive("d1", rate_mb_s=10)),
        (read("r1", 0, ("T1", 0, 10000)),),
        initial=(InitialTape("d1", "T1"),),
    )
    result = checked(instance)
    # On d1 it would end at 1000 s; moved: unload 0-20, dismount 20-32,
    # mount into d0 32-42, load until 57, stream 10 s.
    assert scheduled(result) == {"r1": (("d0",), 57.0, 67.0)}
    assert operations(result.schedule) == [
        ("dismount", "T1", "d1", 20.0, 32.0),
        ("mount", "T1", "d0", 32.0, 42.0),
    ]


def test_remount_beats_a_long_locate_back():
    instance = one_library(
        (drive("d0", locate_mb_s=1),),
        (read("r1", 0, ("T1", 900, 100)), read("r2", 0, ("T1", 0, 10))),
        mount_s=10,
        dismount_s=10,
        initial=(InitialTape("d0", "T1"),),
    )
    result = checked(instance)
    # Locating back 1000 MB at 1 MB/s takes 1000 s; a remount takes 55 s:
    # unload 901-921, dismount 921-931, mount 931-941, load until 956.
    assert scheduled(result) == {
        "r1": (("d0",), 900.0, 901.0),
        "r2": (("d0",), 956.0, pytest.approx(956.1)),
    }
    assert operations(result.schedule) == [
        ("dismount", "T1", "d0", 921.0, 931.0),
        ("mount", "T1", "d0", 931.0, 941.0),
    ]


@pytest.mark.parametrize(
    ("arms", "b_start", "b_mount"), [(1, 27.0, (10.0, 20.0)), (2, 17.0, (0.0, 10.0))]
)
def test_second_arm_mounts_in_parallel(arms, b_start, b_mount):
    # Drives of conftest.two_empty_drives: 100 MB/s, load 5 s, locate 1000 MB/s.
    result = checked(two_empty_drives(arms))
    assert scheduled(result) == {
        "a": (("d0",), 15.0, 25.0),
        "b": (("d1",), b_start, b_start + 5.0),
    }
    assert operations(result.schedule) == sorted(
        [("mount", "T1", "d0", 0.0, 10.0), ("mount", "T2", "d1", *b_mount)],
        key=lambda op: op[3],
    )


@pytest.mark.parametrize(("arms", "start"), [(1, 27.0), (2, 17.0)])
def test_gang_of_two_on_two_drives(arms, start):
    base = two_empty_drives(arms)
    gang = Request("g", 0, 1.0, "read", (Piece("T1", 0, 1000), Piece("T2", 2000, 500)))
    instance = attrs.evolve(base, requests=(gang,))
    result = checked(instance)
    # Both drives are ready (T1 at 15 s; T2 at 27 s with one arm, 17 s with
    # two); the gang starts at the later and lasts its longest piece, 10 s.
    assert scheduled(result) == {"g": (("d0", "d1"), start, start + 10.0)}


def test_gang_piece_does_not_evict_a_tape_of_its_own_gang():
    instance = one_library(
        (Drive("d0", "L0", 100, 5, 7, 1000), Drive("d1", "L0", 100, 5, 7, 1000)),
        (read("g", 0, ("T1", 0, 1000), ("T2", 0, 500)),),
        dismount_s=8,
        initial=(InitialTape("d0", "T2"), InitialTape("d1", "T3")),
    )
    result = checked(instance)
    # T1 evicts T3 from d1 (unload 0-7, dismount 7-15, mount 15-25, load
    # until 30), not T2 from d0, which the gang's second piece reads in place.
    assert scheduled(result) == {"g": (("d1", "d0"), 30.0, 40.0)}
    assert operations(result.schedule) == [
        ("dismount", "T3", "d1", 7.0, 15.0),
        ("mount", "T1", "d1", 15.0, 25.0),
    ]


def test_zero_length_arm_operations_take_no_arm():
    base = two_empty_drives(1)
    instance = attrs.evolve(base, libraries=(Library("L0", 1, 0, 0),))
    result = checked(instance)
    assert scheduled(result) == {"a": (("d0",), 5.0, 15.0), "b": (("d1",), 7.0, 12.0)}
    assert operations(result.schedule) == [
        ("mount", "T1", "d0", 0.0, 0.0),
        ("mount", "T2", "d1", 0.0, 0.0),
    ]


@pytest.mark.parametrize(
    ("objective", "value"),
    [("weighted-flow", 25 * 2 + 32), ("makespan", 32), ("max-weighted-flow", 50)],
)
def test_objectives(objective, value):
    base = two_empty_drives(1)
    heavy = attrs.evolve(base.requests[0], weight=2.0)
    instance = attrs.evolve(base, requests=(heavy, base.requests[1]), objective=objective)
    result = checked(instance)
    assert result.objective == pytest.approx(value)
    assert result.schedule is not None
    assert result.schedule.objective is not None
    assert result.schedule.objective.name == objective


def test_no_requests():
    instance = attrs.evolve(two_empty_drives(1), requests=())
    result = checked(instance)
    assert result.objective == 0.0
    assert result.schedule is not None
    assert result.schedule.requests == ()
    assert result.schedule.operations == ()


def test_schedule_lists_requests_in_file_order():
    instance = one_library(
        (drive("d0"),), (read("late", 50, ("T1", 0, 100)), read("early", 0, ("T2", 0, 100)))
    )
    result = checked(instance)
    assert result.schedule is not None
    assert [r.id for r in result.schedule.requests] == ["late", "early"]
    assert isinstance(result.schedule.requests[0], ScheduledRequest)
    assert all(isinstance(o, ArmOperation) for o in result.schedule.operations)


RANDOM_CASES = [
    RandomParams(n_requests=200, max_gang=1, arrival_rate_per_s=0.05),
    RandomParams(n_requests=200, max_gang=3, drives_per_library=(3, 6), arrival_rate_per_s=0.05),
    RandomParams(n_requests=150, n_libraries=2, drives_per_library=(10, 12), arms=(1, 3)),
    RandomParams(
        n_requests=300, drives_per_library=(4, 4), homogeneous_drives=True, initial_fraction=1.0
    ),
]


@pytest.mark.parametrize("params", RANDOM_CASES)
@pytest.mark.parametrize("seed", [1, 2])
def test_random_instances_are_scheduled_feasibly_and_deterministically(params, seed):
    instance = random_instance(params, seed)
    first = checked(instance)
    again = greedy(instance, time_limit_s=None, seed=seed + 1)
    assert again.schedule == first.schedule
    assert again.objective == first.objective


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances(n_requests=(1, 12), drives_per_library=(1, 4), max_gang=(1, 3)))
def test_every_generated_instance_gets_a_feasible_schedule(instance):
    checked(instance)
