"""Mount policies in the simulator: scenario files, runs, and the command line."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tapesched.cli import main
from tapesched.simulator.results.replications import run_once
from tapesched.simulator.scenario.document import scenario_from_dict
from tapesched.toolkit.errors import InputError
from tests.conftest import INSTANCES

AMPEX = INSTANCES / "scenarios" / "ampex.json"
SPEC = str(INSTANCES / "spec-example.json")


def ampex(mount_policy: str | None = None, **run: Any) -> dict[str, Any]:
    """The Ampex scenario for 3 h, tapes kept mounted by the platform, one replication."""
    doc = json.loads(AMPEX.read_text())
    doc["platform"]["dismount"] = "on-demand"
    doc["workload"]["duration"] = "3h"
    doc["run"]["replications"] = 1
    doc["run"].update(run)
    if mount_policy is not None:
        doc["run"]["scheduler"] = {"name": doc["run"]["scheduler"], "mount_policy": mount_policy}
    return doc


def cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def test_a_scenario_without_a_mount_policy_keeps_the_default():
    assert scenario_from_dict(ampex()).run.mount_policy is None
    scenario = scenario_from_dict(ampex("lru+defer:60", scheduler="wspt"))
    assert (scenario.run.scheduler, scenario.run.mount_policy) == ("wspt", "lru+defer:60")


@pytest.mark.parametrize(
    ("doc", "fragment"),
    [
        (ampex("belady"), "run.scheduler.mount_policy: belady is offline"),
        (ampex("defer:x"), "run.scheduler.mount_policy: defer: T:"),
        (ampex("lru", scheduler="bw-main"), "run.scheduler.mount_policy: the bw-main scheduler"),
        (ampex("lru", scheduler="nope"), "run.scheduler.name: unknown scheduler 'nope'"),
    ],
)
def test_a_bad_mount_policy_is_one_line_at_its_path(doc, fragment):
    with pytest.raises(InputError) as caught:
        scenario_from_dict(copy.deepcopy(doc), "s.json")
    lines = caught.value.lines()
    assert len(lines) == 1 and fragment in lines[0], lines


def _events(mount_policy: str) -> list[dict[str, Any]]:
    log = io.BytesIO()
    run_once(scenario_from_dict(ampex(mount_policy)), 1, log=log)
    return [json.loads(line) for line in log.getvalue().splitlines()]


def test_defer_dismounts_each_idle_tape_t_after_its_drive_last_finished():
    events = _events("defer:60")
    drives_of: dict[str, list[str]] = {}
    last_done: dict[str, float] = {}
    dismounts = 0
    for event in events:
        if event["event"] == "start":
            drives_of[event["request"]] = event["drives"]
            for drive in event["drives"]:
                last_done.pop(drive, None)
        elif event["event"] == "done":
            for drive in drives_of[event["request"]]:
                last_done[drive] = event["t"]
        elif event["event"] == "dismount":
            dismounts += 1
            assert event["t"] == pytest.approx(last_done[event["drive"]] + 60)
    assert dismounts > 10


@pytest.mark.parametrize(
    "mount_policy", ["lru", "lfu", "fifo", "at-once", "cta:files=2,age=600", "dcache:share=0"]
)
def test_every_mount_policy_runs_the_scenario(mount_policy):
    replication = run_once(scenario_from_dict(ampex(mount_policy)), 1)
    assert len(replication.records) > 100
    assert replication.summary.mounts > 0


def test_cta_files_criterion_batches_reads_of_a_tape():
    kept = run_once(scenario_from_dict(ampex()), 1).summary.mounts
    batched = run_once(scenario_from_dict(ampex("cta:files=2,age=1h")), 1).summary.mounts
    assert batched < kept


# The command line.


def test_simulate_refuses_belady_with_one_line(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(ampex()))
    code, _, err = cli("simulate", str(path), "--mount-policy", "belady")
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2
    assert lines == [
        "--mount-policy: belady is offline (it reads future requests): "
        "use it with `tapesched solve` or `tapesched replay`, not in `simulate`"
    ]


def test_simulate_takes_a_mount_policy_on_the_command_line(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(ampex()))
    code, _, err = cli("simulate", str(path), "--mount-policy", "defer:60", "--json")
    assert code == 0, err


def test_simulate_runs_an_instance_under_belady(tmp_path):
    code, stdout, err = cli("simulate", SPEC, "--mount-policy", "belady")
    assert code == 0, err
    assert "feasible" in stdout


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("--solver", "fifo", "--mount-policy", "bogus"), "--mount-policy: unknown mount policy"),
        (("--solver", "fifo", "--mount-policy", "cta:files=2"), "age=SECONDS is required"),
        (("--solver", "local-search", "--mount-policy", "lru"), "is not an online heuristic"),
    ],
)
def test_solve_refuses_a_bad_mount_policy_with_one_line(tmp_path: Path, args, fragment):
    code, _, err = cli("solve", SPEC, *args, "--out", str(tmp_path / "s.json"))
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2
    assert len(lines) == 1 and fragment in lines[0], lines
    assert not (tmp_path / "s.json").exists()


def test_solve_under_a_mount_policy_writes_a_valid_schedule(tmp_path: Path):
    out = tmp_path / "s.json"
    code, stdout, err = cli(
        "solve", SPEC, "--solver", "fifo", "--mount-policy", "lru+defer:30", "--out", str(out)
    )
    assert code == 0, err
    code, stdout, err = cli(
        "solve", SPEC, "--solver", "wspt", "--mount-policy", "belady", "--out", str(out), "--json"
    )
    assert code == 0, err
    document = json.loads(stdout)
    assert document["feasible"] and document["mount_policy"] == "belady"
    code, _, err = cli("verify", SPEC, str(out))
    assert code == 0, err
