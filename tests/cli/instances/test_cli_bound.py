"""`tapesched bound`: every bound family of an instance, and CP-SAT on windows of it."""

from __future__ import annotations

import json

from click.testing import CliRunner

from tapesched.cli import main
from tests.conftest import INSTANCES

SPEC = str(INSTANCES / "spec-example.json")


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["bound", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def test_the_families_and_the_best_of_them_as_json():
    code, out, _ = run(SPEC, "--json")
    assert code == 0
    values = json.loads(out)
    families = ("request", "drive-time", "arm", "tape", "switch")
    assert values["best"] == max(values[k] for k in families)
    assert values["objective"] == "weighted-flow" and "windows" not in values


def test_windows_raise_the_best_bound_to_the_spec_examples_optimum():
    code, out, _ = run(SPEC, "--windows", "3", "--time-limit", "20", "--seed", "1", "--json")
    assert code == 0
    values = json.loads(out)
    assert (values["window_count"], values["windows_proved"]) == (1, 1)
    assert values["best"] == values["windows"] > values["switch"]
    assert 19.12 <= values["best"] <= 19.1768


def test_the_lines_name_each_bound():
    code, out, _ = run(SPEC, "--windows", "2", "--time-limit", "10")
    assert code == 0
    names = [line.split()[0] for line in out.splitlines()[1:]]
    assert names == ["request", "drive-time", "arm", "tape", "switch", "windows", "best"]


def test_bad_input_is_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "bad.json"
    spec = json.loads((INSTANCES / "spec-example.json").read_text())
    spec["drives"][1]["rate_mb_s"] = -1
    bad.write_text(json.dumps(spec))
    code, out, err = run(str(bad))
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert "bad.json" in err and "drives[1].rate_mb_s" in err
    code, _, err = run(SPEC, "--windows", "0")
    assert code == 2 and "--windows" in err
