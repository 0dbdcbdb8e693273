"""The validator names the right rule for schedules mutated to break each rule."""

from __future__ import annotations

from collections.abc import Callable

import attrs
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tapesched.toolkit.model import (
    ArmOperation,
    Drive,
    InitialTape,
    Instance,
    Library,
    Piece,
    Request,
    Schedule,
    ScheduledRequest,
    Tape,
)
from tapesched.toolkit.strategies import instances
from tapesched.toolkit.validator import RULES, validate

from ..conftest import two_empty_drives


def _replace_request(schedule: Schedule, rid: str, **changes: object) -> Schedule:
    requests = tuple(attrs.evolve(r, **changes) if r.id == rid else r for r in schedule.requests)
    return attrs.evolve(schedule, requests=requests)


def _shift(schedule: Schedule, rid: str, delta: float) -> Schedule:
    entry = next(r for r in schedule.requests if r.id == rid)
    return _replace_request(schedule, rid, start_s=entry.start_s + delta, end_s=entry.end_s + delta)


def _with_ops(schedule: Schedule, *ops: ArmOperation) -> Schedule:
    return attrs.evolve(schedule, operations=schedule.operations + ops)


def test_spec_optimum_is_feasible_with_the_spec_value(spec_instance, spec_optimum):
    report = validate(spec_instance, spec_optimum)
    assert report.feasible, [str(v) for v in report.violations]
    assert report.objective == pytest.approx(19.17667, abs=5e-6)
    assert report.warnings == ()


SPEC_MUTATIONS: list[tuple[str, Callable[[Schedule], Schedule], str]] = [
    ("start before release", lambda s: _shift(s, "r3", -0.5), "release"),
    (
        "overlap on a drive",
        lambda s: _replace_request(s, "r1", start_s=31.0, end_s=31 + 10000 / 300),
        "drive-overlap",
    ),
    (
        "missing load time",
        lambda s: attrs.evolve(
            s, operations=(ArmOperation("mount", "T1", "d1", 10.0, 20.0, "L0"),)
        ),
        "load",
    ),
    (
        "missing unload time",
        lambda s: _with_ops(s, ArmOperation("dismount", "T2", "d0", 40.0, 50.0, "L0")),
        "unload",
    ),
    ("locate too short", lambda s: _shift(s, "r2", -1.0), "locate"),
    (
        "gang on one drive twice",
        lambda s: _replace_request(s, "r3", drives=("d0", "d0")),
        "gang-distinct",
    ),
    ("wrong end", lambda s: _replace_request(s, "r2", end_s=16.0), "end"),
    ("request missing", lambda s: attrs.evolve(s, requests=s.requests[:2]), "missing-request"),
    (
        "request repeated",
        lambda s: attrs.evolve(s, requests=(*s.requests, s.requests[0])),
        "duplicate-request",
    ),
    (
        "unknown request",
        lambda s: attrs.evolve(
            s, requests=(*s.requests, ScheduledRequest("r9", ("d0",), 90.0, 91.0))
        ),
        "unknown-id",
    ),
    ("unknown drive", lambda s: _replace_request(s, "r2", drives=("d7",)), "unknown-id"),
    (
        "operation before 0",
        lambda s: attrs.evolve(s, operations=(ArmOperation("mount", "T1", "d1", -1.0, 9.0, "L0"),)),
        "negative-time",
    ),
    (
        "operation too short",
        lambda s: attrs.evolve(s, operations=(ArmOperation("mount", "T1", "d1", 0.0, 9.0, "L0"),)),
        "op-duration",
    ),
    (
        "wrong operation library",
        lambda s: attrs.evolve(s, operations=(ArmOperation("mount", "T1", "d1", 0.0, 10.0, "L9"),)),
        "unknown-id",
    ),
    ("gang short of drives", lambda s: _replace_request(s, "r3", drives=("d1",)), "gang-size"),
    ("tape never mounted", lambda s: attrs.evolve(s, operations=()), "tape-not-mounted"),
    (
        "mount into an occupied drive",
        lambda s: _with_ops(s, ArmOperation("mount", "T1", "d0", 80.0, 90.0, "L0")),
        "mount-occupied",
    ),
    (
        "dismount of a tape the drive lacks",
        lambda s: _with_ops(s, ArmOperation("dismount", "T1", "d0", 80.0, 90.0, "L0")),
        "dismount-wrong-tape",
    ),
    (
        "tape in two drives",
        lambda s: _with_ops(
            s,
            ArmOperation("dismount", "T2", "d0", 100.0, 110.0, "L0"),
            ArmOperation("mount", "T1", "d0", 110.0, 120.0, "L0"),
        ),
        "tape-conflict",
    ),
]


@pytest.mark.parametrize(
    ("name", "mutate", "rule"), SPEC_MUTATIONS, ids=[m[0] for m in SPEC_MUTATIONS]
)
def test_mutations_of_the_spec_optimum_name_the_rule(
    spec_instance, spec_optimum, name, mutate, rule
):
    report = validate(spec_instance, mutate(spec_optimum))
    assert not report.feasible
    assert rule in report.rules, [str(v) for v in report.violations]
    assert all(v.rule in RULES for v in report.violations)


def _empty_pair_schedule(arms: int) -> tuple[Instance, Schedule]:
    """A feasible schedule of :func:`two_empty_drives`: both tapes mounted in turn."""
    instance = two_empty_drives(arms)
    second = 10.0 if arms == 1 else 0.0
    return instance, Schedule(
        requests=(
            ScheduledRequest("a", ("d0",), 15.0, 25.0),
            ScheduledRequest("b", ("d1",), second + 17.0, second + 22.0),
        ),
        operations=(
            ArmOperation("mount", "T1", "d0", 0.0, 10.0),
            ArmOperation("mount", "T2", "d1", second, second + 10.0),
        ),
    )


@pytest.mark.parametrize("arms", [1, 2])
def test_hand_made_schedule_is_feasible(arms):
    instance, schedule = _empty_pair_schedule(arms)
    report = validate(instance, schedule)
    assert report.feasible, [str(v) for v in report.violations]
    assert report.objective == pytest.approx(25.0 + (22.0 if arms == 2 else 32.0))


def test_arms_over_capacity_is_named():
    instance, schedule = _empty_pair_schedule(2)
    report = validate(two_empty_drives(1), attrs.evolve(schedule, instance=instance.name))
    assert report.rules == {"arm-capacity"}
    (violation,) = report.violations
    assert violation.operations == (0, 1)


def test_arm_operations_touching_end_to_start_do_not_overlap():
    instance, schedule = _empty_pair_schedule(1)
    assert validate(instance, schedule).feasible


def test_mount_before_the_drive_is_emptied_is_named():
    instance, schedule = _empty_pair_schedule(2)
    early = _with_ops(
        schedule,
        ArmOperation("dismount", "T1", "d0", 32.0, 40.0),
        ArmOperation("mount", "T1", "d0", 35.0, 45.0),
    )
    report = validate(instance, early)
    assert "switch-order" in report.rules, [str(v) for v in report.violations]


def test_remounting_the_same_tape_is_a_legal_switch():
    instance, schedule = _empty_pair_schedule(2)
    again = _with_ops(
        schedule,
        ArmOperation("dismount", "T1", "d0", 32.0, 40.0),
        ArmOperation("mount", "T1", "d0", 40.0, 50.0),
    )
    assert validate(instance, again).feasible


def test_recorded_objective_mismatch_is_a_warning_not_a_violation(spec_instance, spec_optimum):
    from tapesched.toolkit.model import ObjectiveValue

    report = validate(
        spec_instance, attrs.evolve(spec_optimum, objective=ObjectiveValue("weighted-flow", 123.4))
    )
    assert report.feasible
    assert any("differs" in w for w in report.warnings)


def test_every_violation_names_what_it_involves(spec_instance, spec_optimum):
    broken = _replace_request(spec_optimum, "r1", start_s=31.0, end_s=31 + 10000 / 300)
    (overlap,) = [
        v for v in validate(spec_instance, broken).violations if v.rule == "drive-overlap"
    ]
    assert set(overlap.requests) == {"r1", "r3"}
    assert overlap.drives == ("d1",)
    assert overlap.tapes == ("T1",)


def test_operations_barely_longer_than_the_tolerance_are_counted_safely():
    base = two_empty_drives(1)
    instance = attrs.evolve(base, libraries=(attrs.evolve(base.libraries[0], mount_s=1e-6),))
    start = 0.1
    end = start + 1e-6
    assert end - start > 1e-6
    schedule = Schedule(
        requests=(
            ScheduledRequest("a", ("d0",), end + 5, end + 15),
            ScheduledRequest("b", ("d1",), end + 7, end + 12),
        ),
        operations=(
            ArmOperation("mount", "T1", "d0", start, end),
            ArmOperation("mount", "T2", "d1", start, end),
        ),
    )
    report = validate(instance, schedule)
    assert report.rules <= {"arm-capacity"}


def _greedy(instance: Instance) -> Schedule:
    from tapesched.solvers import solve

    schedule = solve(instance, solver="greedy").schedule
    assert schedule is not None
    return schedule


@given(instances(n_requests=(1, 6), release_horizon_s=(1.0, 100.0)), st.data())
@settings(max_examples=80, deadline=None)
def test_starting_before_release_is_always_named(instance, data):
    schedule = _greedy(instance)
    late = [r for r in schedule.requests if instance.request_by_id[r.id].release_s > 1e-3]
    assume(late)
    victim = data.draw(st.sampled_from(late))
    shift = victim.start_s - instance.request_by_id[victim.id].release_s + 1e-3
    report = validate(instance, _shift(schedule, victim.id, -shift))
    assert "release" in report.rules


@given(instances(n_requests=(1, 6)), st.data())
@settings(max_examples=80, deadline=None)
def test_dropping_any_arm_operation_of_a_greedy_schedule_is_infeasible(instance, data):
    schedule = _greedy(instance)
    assume(schedule.operations)
    k = data.draw(st.integers(0, len(schedule.operations) - 1))
    dropped = attrs.evolve(
        schedule, operations=schedule.operations[:k] + schedule.operations[k + 1 :]
    )
    report = validate(instance, dropped)
    assert not report.feasible
    assert report.rules <= set(RULES)


def test_a_read_after_a_tape_switch_starts_the_drives_switch_time_after_the_read_before():
    """:meth:`Drive.switch_s` is the time the rules allow between two reads of different
    tapes on one drive (with no locate, both at offset 0): not a microsecond less."""
    library = Library("L0", 1, mount_s=10.0, dismount_s=12.5)
    drive = Drive("d0", "L0", 100, load_s=15.0, unload_s=20.25, locate_mb_s=1000)
    assert drive.switch_s(library) == 20.25 + 12.5 + 10.0 + 15.0
    instance = Instance(
        name="one-switch",
        libraries=(library,),
        drives=(drive,),
        tapes=(Tape("T1", "L0", 1000), Tape("T2", "L0", 1000)),
        requests=(
            Request("a", 0, 1.0, "read", (Piece("T1", 0, 100),)),
            Request("b", 0, 1.0, "read", (Piece("T2", 0, 100),)),
        ),
        initial=(InitialTape("d0", "T1"),),
    )

    def schedule(b_at_s: float) -> Schedule:
        dismount = 1.0 + drive.unload_s
        mount = dismount + library.dismount_s
        return Schedule(
            requests=(
                ScheduledRequest("a", ("d0",), 0.0, 1.0),
                ScheduledRequest("b", ("d0",), b_at_s, b_at_s + 1.0),
            ),
            operations=(
                ArmOperation("dismount", "T1", "d0", dismount, mount),
                ArmOperation("mount", "T2", "d0", mount, mount + library.mount_s),
            ),
        )

    earliest = 1.0 + drive.switch_s(library)
    assert validate(instance, schedule(earliest)).feasible
    assert validate(instance, schedule(earliest - 1e-3)).rules == {"load"}
    with pytest.raises(ValueError, match="drive 'd0' is in library 'L0', not 'L1'"):
        drive.switch_s(attrs.evolve(library, id="L1"))


def instant_switch() -> Instance:
    """One drive holding T1 at 0; everything but the 100 MB transfer of T2 takes no time."""
    return Instance(
        name="instant-switch",
        libraries=(Library("L0", 1, 0, 0),),
        drives=(Drive("d0", "L0", 100, 0, 0, 1000),),
        tapes=(Tape("T1", "L0", 1000), Tape("T2", "L0", 1000)),
        requests=(
            Request("empty", 0, 1.0, "read", (Piece("T1", 0, 0),)),
            Request("b", 0, 1.0, "read", (Piece("T2", 0, 100),)),
        ),
        initial=(InitialTape("d0", "T1"),),
    )


def instant_switch_schedule(empty_at_s: float) -> Schedule:
    """T1 switched for T2 in no time at 0, ``b`` read from 0, the empty read at ``empty_at_s``."""
    return Schedule(
        requests=(
            ScheduledRequest("empty", ("d0",), empty_at_s, empty_at_s),
            ScheduledRequest("b", ("d0",), 0.0, 1.0),
        ),
        operations=(
            ArmOperation("dismount", "T1", "d0", 0.0, 0.0),
            ArmOperation("mount", "T2", "d0", 0.0, 0.0),
        ),
    )


def test_an_empty_read_then_an_instant_switch_at_the_same_time_is_feasible():
    # At time 0 the drive reads nothing from T1 (an empty request), unloads,
    # the arm dismounts T1 and mounts T2, all in no time, and T2 is read from
    # 0: two stays meet at 0, and the empty read belongs to T1's.
    report = validate(instant_switch(), instant_switch_schedule(0.0))
    assert report.feasible, [str(v) for v in report.violations]
    assert report.objective == 1.0


def remount_reset() -> tuple[Instance, Schedule]:
    """An empty read at 10 MB, then its tape remounted at once to bring the head back to 0.

    One drive holds T at 0; unload and dismount take no time, a mount 1 s,
    a locate 1 s per MB. ``j`` (empty, at 10 MB) is read at 10 after the
    locate; T goes out at 10 and back in at 10-11, and ``k`` (at 0 MB,
    released at 5) is read at 11-12, where locating back would end it at
    21: weighted flow 1000 x 10 + 7. Every exact solver finds it.
    """
    instance = Instance(
        name="remount-reset",
        libraries=(Library("L0", 1, 1.0, 0.0),),
        drives=(Drive("d0", "L0", 1.0, 0.0, 0.0, 1.0),),
        tapes=(Tape("T", "L0", 100.0),),
        requests=(
            Request("j", 0.0, 1000.0, "read", (Piece("T", 10.0, 0.0),)),
            Request("k", 5.0, 1.0, "read", (Piece("T", 0.0, 1.0),)),
        ),
        initial=(InitialTape("d0", "T"),),
    )
    schedule = Schedule(
        requests=(
            ScheduledRequest("j", ("d0",), 10.0, 10.0),
            ScheduledRequest("k", ("d0",), 11.0, 12.0),
        ),
        operations=(
            ArmOperation("dismount", "T", "d0", 10.0, 10.0),
            ArmOperation("mount", "T", "d0", 10.0, 11.0),
        ),
    )
    return instance, schedule


def test_an_empty_read_then_its_tape_remounted_at_once_is_feasible():
    # The two stays of T meet at 10: the empty read cannot be in the second
    # (T is loaded only at 11, and 10 MB from its head), so it is the last
    # read of the first, which unloads and is dismounted at once after it.
    instance, schedule = remount_reset()
    report = validate(instance, schedule)
    assert report.feasible, [str(v) for v in report.violations]
    assert report.objective == 10007.0


def test_an_empty_read_between_two_stays_of_its_tape_is_still_rejected():
    # At 10.5 T is out of the drive's first stay and not yet loaded in its
    # second: the read belongs to the second, too early, and leaves the head
    # at 10 MB, too far from k's piece.
    instance, schedule = remount_reset()
    late = attrs.evolve(
        schedule,
        requests=(ScheduledRequest("j", ("d0",), 10.5, 10.5), schedule.requests[1]),
    )
    report = validate(instance, late)
    assert [(v.rule, v.requests) for v in report.violations] == [
        ("load", ("j",)),
        ("locate", ("j", "k")),
    ]


def test_an_empty_read_of_a_tape_already_gone_is_still_rejected():
    report = validate(instant_switch(), instant_switch_schedule(0.5))
    assert [v.rule for v in report.violations] == ["tape-not-mounted"]


def instant_remount() -> Instance:
    """One drive holding T0 at 0, no arm, unload or load time; a read of nothing, then 1 MB."""
    return Instance(
        name="instant-remount",
        libraries=(Library("L0", 1, 0, 0),),
        drives=(Drive("d0", "L0", 1, 0, 0, 10),),
        tapes=(Tape("T0", "L0", 1000),),
        requests=(
            Request("r1", 0, 1.0, "read", (Piece("T0", 10, 0),)),
            Request("r2", 1, 1.0, "read", (Piece("T0", 0, 1),)),
        ),
        initial=(InitialTape("d0", "T0"),),
    )


def _remount(at_s: float, r1_s: float, r2_s: float) -> Schedule:
    """T0 given back and taken again at ``at_s``; r1 at ``r1_s``, r2 at ``r2_s``."""
    return Schedule(
        requests=(
            ScheduledRequest("r1", ("d0",), r1_s, r1_s),
            ScheduledRequest("r2", ("d0",), r2_s, r2_s + 1.0),
        ),
        operations=(
            ArmOperation("dismount", "T0", "d0", at_s, at_s),
            ArmOperation("mount", "T0", "d0", at_s, at_s),
        ),
    )


def test_a_read_of_nothing_at_the_instant_its_tape_is_mounted_back_ends_the_earlier_stay():
    # r1 locates to 10 MB (1 s) and reads nothing at 1 s; at that instant the
    # drive gives T0 back and takes it again (reading 5), which puts the head
    # at 0 for r2 without the 1 s locate back. Two stays of T0 meet at 1 s,
    # and r1 cannot start the later one (its locate from 0 would end at
    # 2 s): it ends the earlier one. The validator once gave it to the later
    # stay and rejected this schedule, the only one of flow 2: CP-SAT and
    # the MILP, finding it, reported their own optimum infeasible.
    report = validate(instant_remount(), _remount(1.0, 1.0, 1.0))
    assert report.feasible, [str(v) for v in report.violations]
    assert report.objective == 2.0


def test_a_read_of_nothing_that_neither_stay_at_an_instant_remount_can_hold_is_rejected():
    # At 0.5 s the head reaches 10 MB neither in the stay that ends then
    # (located from 0 at time 0) nor in the one that begins then.
    report = validate(instant_remount(), _remount(0.5, 0.5, 2.0))
    assert [(v.rule, v.requests) for v in report.violations] == [("locate", ("r1",))]
