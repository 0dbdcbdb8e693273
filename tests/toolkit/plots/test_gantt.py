"""The Gantt chart's data: the validator's timing of drive operations, arms assigned greedily."""

from __future__ import annotations

import pytest
from attrs import evolve

from tapesched.toolkit.files.instance_file import load_instance
from tapesched.toolkit.files.schedule_file import load_schedule
from tapesched.toolkit.model import ArmOperation, Schedule, ScheduledRequest
from tapesched.toolkit.plots.gantt import Bar, Lane, assign_arms, fits, gantt_lanes, releases
from tapesched.toolkit.validator import validate
from tapesched.toolkit.validator.violation import DriveActivity
from tests.conftest import INSTANCES, two_empty_drives


def lanes_of(name: str) -> tuple[Lane, ...]:
    instance = load_instance(INSTANCES / f"{name}.json")
    schedule = load_schedule(INSTANCES / f"{name}.optimum.json")
    report = validate(instance, schedule, timeline=True)
    assert report.feasible
    return gantt_lanes(instance, schedule, report)


def as_tuples(lanes: tuple[Lane, ...]) -> dict[str, list[tuple[str, float, float, str]]]:
    return {
        lane.name: [(b.kind, round(b.start_s, 6), round(b.end_s, 6), b.label) for b in lane.bars]
        for lane in lanes
    }


def test_the_spec_examples_optimum_is_drawn_at_the_times_worked_out_by_hand():
    # instances/README.md: r2 on d0 at 12 s after locating 120,000 MB at 10,000 MB/s;
    # T1 mounted into d1 at 0-10 s, loaded by 25 s, located to 50,000 MB by 30 s;
    # r3 on d1 and d0 at 30-33.333 s (d0 located back to 0 by 27.43 s); r1 on d1 at
    # 38.433 s after locating back from 51,000 MB.
    assert as_tuples(lanes_of("spec-example")) == {
        "d0": [
            ("locate", 0.0, 12.0, ""),
            ("transfer", 12.0, 15.333333, "r2"),
            ("locate", 15.333333, 27.433333, ""),
            ("transfer", 30.0, 33.333333, "r3"),
        ],
        "d1": [
            ("load", 10.0, 25.0, ""),
            ("locate", 25.0, 30.0, ""),
            ("transfer", 30.0, 33.333333, "r3"),
            ("locate", 33.333333, 38.433333, ""),
            ("transfer", 38.433333, 71.766667, "r1"),
        ],
        "arm 1": [("mount", 0.0, 10.0, "T1→d1")],
    }


def test_a_tape_switch_is_unload_dismount_mount_load_as_worked_out_by_hand():
    # instances/README.md: mount 0-10, load to 15, b 15-16, unload 16-21, dismount
    # 21-31, mount T1 31-41, load to 46, a 46-56.
    assert as_tuples(lanes_of("one-drive-two-tapes")) == {
        "d0": [
            ("load", 10.0, 15.0, ""),
            ("transfer", 15.0, 16.0, "b"),
            ("unload", 16.0, 21.0, ""),
            ("load", 41.0, 46.0, ""),
            ("transfer", 46.0, 56.0, "a"),
        ],
        "arm 1": [
            ("mount", 0.0, 10.0, "T2→d0"),
            ("dismount", 21.0, 31.0, "T2←d0"),
            ("mount", 31.0, 41.0, "T1→d0"),
        ],
    }


def test_the_timeline_names_the_request_a_locate_positions_for_and_leaves_the_verdict_alone():
    instance = load_instance(INSTANCES / "spec-example.json")
    schedule = load_schedule(INSTANCES / "spec-example.optimum.json")
    with_timeline = validate(instance, schedule, timeline=True)
    assert with_timeline == validate(instance, schedule)
    assert validate(instance, schedule).activities == ()
    assert DriveActivity("locate", "d0", "T2", 0.0, 12.0, "r2") in with_timeline.activities
    assert {a.kind for a in with_timeline.activities} == {"load", "locate", "transfer"}


def test_operations_at_once_go_to_different_arms_and_an_arm_free_at_the_start_is_reused():
    instance = two_empty_drives(arms=2)
    schedule = Schedule(
        requests=(
            ScheduledRequest("a", ("d0",), 15.0, 25.0),
            ScheduledRequest("b", ("d1",), 17.0, 22.0),
        ),
        operations=(
            ArmOperation("mount", "T1", "d0", 0.0, 10.0),
            ArmOperation("mount", "T2", "d1", 0.0, 10.0),
            ArmOperation("dismount", "T2", "d1", 29.0, 37.0),
            ArmOperation("dismount", "T1", "d0", 32.0, 40.0),
        ),
    )
    report = validate(instance, schedule, timeline=True)
    assert report.feasible, report.violations
    placed = {(a.operation, a.arm) for a in assign_arms(instance, schedule)}
    # both mounts at 0 need both arms; the first dismount takes arm 1, free since 10 s,
    # and the second, overlapping it, arm 2
    assert placed == {(0, 1), (1, 2), (2, 1), (3, 2)}
    lanes = {lane.name: lane for lane in gantt_lanes(instance, schedule, report)}
    assert list(lanes) == ["d0", "d1", "arm 1", "arm 2"]
    assert lanes["arm 2"].bars == (
        Bar("mount", 0.0, 10.0, "T2→d1"),
        Bar("dismount", 32.0, 40.0, "T1←d0"),
    )
    # the drive's last action is its transfer's end: unload 22-29 on d1, 25-32 on d0
    assert Bar("unload", 22.0, 29.0) in lanes["d1"].bars
    assert Bar("unload", 25.0, 32.0) in lanes["d0"].bars


def test_arm_lanes_name_their_library_when_there_are_several():
    instance = two_empty_drives(arms=1)
    second = evolve(instance.libraries[0], id="L1", arms=2)
    instance = evolve(instance, libraries=(*instance.libraries, second))
    schedule = Schedule(requests=(), operations=())
    report = validate(instance, schedule, timeline=True)
    names = [lane.name for lane in gantt_lanes(instance, schedule, report)]
    assert names == ["d0", "d1", "L0 arm 1", "L1 arm 1", "L1 arm 2"]


def test_requests_released_together_share_one_mark():
    assert releases(two_empty_drives()) == ((0.0, "a, b"),)
    assert releases(load_instance(INSTANCES / "spec-example.json")) == (
        (0.0, "r1"),
        (5.0, "r2"),
        (30.0, "r3"),
    )


@pytest.mark.parametrize(
    ("label", "width_s", "span_s", "expected"),
    [("r1", 1.0, 65.0, True), ("r1", 1.0, 66.0, False), ("r100", 1.0, 32.5, True)],
)
def test_a_label_is_drawn_where_its_characters_fit_the_bar(label, width_s, span_s, expected):
    assert fits(label, width_s, span_s) is expected
