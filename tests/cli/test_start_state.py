"""Version 2 of the instance format: the starting state, read, written, refused, judged."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import tapesched.cli
from tapesched.toolkit.files.instance_file import instance_to_dict, load_instance, loads_instance
from tapesched.toolkit.files.schedule_file import load_schedule
from tapesched.toolkit.model import ArmOperation, Schedule, ScheduledRequest
from tapesched.toolkit.validator import validate

from ..conftest import INSTANCES


def document(name: str) -> dict:
    return json.loads((INSTANCES / f"{name}.json").read_text())


def test_version_2_reads_and_writes_back_as_it_was():
    for name in ("head-start", "busy-drive", "busy-arm"):
        data = document(name)
        assert data["format"] == "tapesched.instance/2"
        assert instance_to_dict(loads_instance(json.dumps(data))) == data


def test_version_1_is_written_as_before_without_the_new_keys():
    data = document("spec-example")
    written = instance_to_dict(loads_instance(json.dumps(data)))
    assert written == data
    assert "head_mb" not in json.dumps(written)


def test_one_number_holds_for_every_arm():
    data = document("busy-arm")
    data["libraries"][0]["arms_available_s"] = 7
    instance = loads_instance(json.dumps(data))
    assert instance.libraries[0].arm_free_s() == (7.0, 7.0)


@pytest.mark.parametrize(
    ("name", "edit", "line"),
    [
        (
            "head-start",
            lambda d: d.update(format="tapesched.instance/1"),
            "initial[0].head_mb: a key of 'tapesched.instance/2'; "
            "this file says 'tapesched.instance/1'",
        ),
        (
            "busy-drive",
            lambda d: d.update(format="tapesched.instance/1"),
            "drives[1].available_s: a key of 'tapesched.instance/2'; "
            "this file says 'tapesched.instance/1'",
        ),
        (
            "busy-arm",
            lambda d: d["libraries"][0].update(arms_available_s=[0, 1, 2]),
            "libraries[0].arms_available_s: 3 time(s) for 2 arm(s): "
            "give one per arm, or one number",
        ),
        (
            "head-start",
            lambda d: d["initial"][0].update(head_mb=100001),
            "initial[0].head_mb: head at 100001 MB, past the capacity 100000 MB of tape 'T1'",
        ),
        (
            "busy-drive",
            lambda d: d["drives"][1].update(available_s=-1),
            "drives[1].available_s: must be >= 0, got -1",
        ),
    ],
)
def test_bad_state_is_refused_at_its_path(tmp_path, name, edit, line):
    data = document(name)
    edit(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    out = tmp_path / "out.json"
    result = CliRunner().invoke(tapesched.cli.main, ["solve", str(path), "--out", str(out)])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [f"{path}: {line}"]
    assert not out.exists()


def test_the_milp_refusal_is_one_line_exit_2(tmp_path):
    path = INSTANCES / "busy-arm.json"
    out = tmp_path / "out.json"
    args = ["solve", str(path), "--solver", "milp-highs", "--out", str(out)]
    result = CliRunner().invoke(tapesched.cli.main, args)
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"{path}: libraries[0].arms_available_s: solver 'milp-highs' does not model the "
        "starting state"
    ]
    assert not out.exists()


def rules(name: str, schedule: Schedule) -> set[str]:
    return validate(load_instance(INSTANCES / f"{name}.json"), schedule).rules


def shifted(name: str, starts: dict[str, float]) -> Schedule:
    """The shipped optimum of ``name`` with some requests moved to other starts."""
    optimum = load_schedule(INSTANCES / f"{name}.optimum.json")
    requests = [
        ScheduledRequest(r.id, r.drives, starts[r.id], starts[r.id] + r.end_s - r.start_s)
        if r.id in starts
        else r
        for r in optimum.requests
    ]
    return Schedule(requests, optimum.operations, optimum.instance)


def test_the_first_locate_starts_from_the_initial_head():
    assert validate(
        load_instance(INSTANCES / "head-start.json"),
        load_schedule(INSTANCES / "head-start.optimum.json"),
    ).feasible
    # far at 2000 MB is 1 s from the head at 3000 MB, not 2 s from 0: 0.5 s is too early.
    assert rules("head-start", shifted("head-start", {"far": 0.5})) == {"locate"}


def test_nothing_runs_on_a_drive_before_it_is_free():
    busy = load_instance(INSTANCES / "busy-drive.json")
    # version 1's optimum: T1 into d0 and T2 into d1 at once, one arm: 10-20 into d1.
    schedule = Schedule(
        [ScheduledRequest("a", ["d0"], 15, 25), ScheduledRequest("b", ["d1"], 25, 26)],
        [
            ArmOperation("mount", "T1", "d0", 0, 10),
            ArmOperation("mount", "T2", "d1", 10, 20),
        ],
    )
    report = validate(busy, schedule)
    assert report.rules == {"drive-busy"}
    assert "before the drive is free at 40 s" in str(report.violations[0])


def test_an_arm_busy_at_the_start_takes_no_operation():
    optimum = load_schedule(INSTANCES / "busy-arm.optimum.json")
    ops = optimum.operations
    # both mounts at 0-10, as version 1's two free arms allow
    both = Schedule(
        [ScheduledRequest("g", ["d0", "d1"], 15, 20)],
        [ops[0], ArmOperation("mount", "T2", "d1", 0, 10)],
    )
    report = validate(load_instance(INSTANCES / "busy-arm.json"), both)
    assert report.rules == {"arm-busy"}
    assert "arm(s) 1 (busy until 30 s) still busy" in str(report.violations[0])
