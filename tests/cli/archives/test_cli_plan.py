"""`tapesched plan`: the SDSC load sized, its what-ifs, --json, --check, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from tapesched.cli import main
from tapesched.toolkit.hardware.technology import DRIVES
from tests.conftest import INSTANCES
from tests.simulator.planning.test_sizing import SMALL_LOAD

SDSC = str(INSTANCES / "plan" / "sdsc-1998.json")


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["plan", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def test_the_sdsc_load_prints_each_class_and_the_whole():
    code, out, _ = run(SDSC)
    assert code == 0, out
    lines = out.splitlines()
    assert lines[0].startswith("sdsc-1998: IBM 3590")
    assert [line.split()[0] for line in lines[2:6]] == ["small", "medium", "large", "all"]
    assert lines[5].split()[1:3] == ["1.41", "2"]


def test_json_has_each_class_and_the_totals():
    code, out, _ = run(SDSC, "--json")
    assert code == 0
    doc = json.loads(out)
    assert [c["name"] for c in doc["classes"]] == ["small", "medium", "large"]
    assert doc["total"]["drives_average"] == 2
    assert 0.10 <= doc["total"]["streaming_share"] <= 0.20
    assert doc["scales"] == {"bytes": 1.0, "file": 1.0, "cache": 1.0}
    assert "check" not in doc


def test_half_the_cache_on_the_command_line_about_doubles_the_drives_busy():
    full = json.loads(run(SDSC, "--json")[1])["total"]["drives_busy"]
    half = json.loads(run(SDSC, "--json", "--cache-scale", "0.5")[1])["total"]["drives_busy"]
    assert 1.75 <= half / full <= 2.25


def test_check_prints_the_simulated_figures_beside_the_computed(tmp_path: Path):
    path = tmp_path / "load.json"
    path.write_text(json.dumps(SMALL_LOAD))
    code, out, _ = run(str(path), "--check", "--json", "--seed", "2")
    assert code == 0
    check = json.loads(out)["check"]
    assert check["seed"] == 2 and check["drives"] >= 1
    # Stated tolerance: the simulated drives busy within 15 % of the computed.
    assert abs(check["drives_busy"] - check["computed_drives_busy"]) <= (
        0.15 * check["computed_drives_busy"]
    )
    assert check["warnings"] == []
    code, out, err = run(str(path), "--check", "--drives", "1")
    assert code == 0 and err == ""
    assert "check: 1 simulated day on 1 drive " in out
    assert "drives busy  computed 0.55  simulated" in out


def test_a_check_that_disagrees_or_leaves_requests_unfinished_warns_and_exits_1(tmp_path: Path):
    """Four times the load on one drive: a quarter of the day's tape requests done, and the
    drive busy all day against nearly 4 computed."""
    path = tmp_path / "load.json"
    path.write_text(json.dumps(SMALL_LOAD))
    code, out, err = run(str(path), "--check", "--drives", "1", "--bytes-scale", "4")
    assert code == 1
    assert "check: 1 simulated day on 1 drive " in out
    warnings = err.splitlines()
    assert len(warnings) == 2 and all(w.startswith("warning: ") for w in warnings)
    assert "tape requests" in warnings[0] and "left" in warnings[0]
    assert "more than 10% apart" in warnings[1]
    code, out, err = run(str(path), "--check", "--drives", "1", "--bytes-scale", "4", "--json")
    assert code == 1
    assert [f"warning: {w}" for w in json.loads(out)["check"]["warnings"]] == err.splitlines()


def test_a_bad_load_is_one_line_with_exit_code_2(tmp_path: Path):
    path = tmp_path / "load.json"
    doc = json.loads(json.dumps(SMALL_LOAD))
    doc["classes"][0]["hit_rate"] = 2
    path.write_text(json.dumps(doc))
    code, out, err = run(str(path))
    assert code == 2 and out == ""
    assert err.splitlines() == [f"{path}: classes[0].hit_rate: must be within [0, 1], got 2.0"]
    code, _, err = run(str(tmp_path / "missing.json"))
    assert code == 2 and len(err.splitlines()) == 1 and "missing.json" in err


def test_every_drive_of_the_catalogue_is_a_load_files_drive(tmp_path: Path):
    path = tmp_path / "load.json"
    for name, drive in DRIVES.items():
        path.write_text(json.dumps({**SMALL_LOAD, "drive": name}))
        code, out, err = run(str(path))
        assert code == 0, (name, err)
        assert out.startswith(f"small: {drive.label} ({drive.rate_mb_s:g} MB/s; "), name
