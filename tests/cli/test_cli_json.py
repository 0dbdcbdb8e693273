"""``--json`` on every command that prints results: one JSON document on stdout, and its shape."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from tapesched.cli import main
from tests.conftest import INSTANCES

SPEC = str(INSTANCES / "spec-example.json")
OPTIMUM = str(INSTANCES / "spec-example.optimum.json")
AMPEX = str(INSTANCES / "scenarios" / "ampex.json")
ECMWF = INSTANCES / "traces" / "ecmwf"
TRACE = str(ECMWF / "io_events_sample_10k.csv.bz2")
LAYOUT = str(ECMWF / "sl8500_from_snap20111001.json.bz2")


def json_of(*args: str) -> object:
    """Run a command, check it printed one JSON document and nothing on stderr, and parse it."""
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.exit_code == 0, result.stderr
    assert "Traceback" not in result.stderr
    return json.loads(result.stdout)


def test_check_an_instance():
    doc = json_of("check", SPEC, "--json")
    assert doc == {
        "file": SPEC,
        "kind": "instance",
        "format": "tapesched.instance/1",
        "name": "two-drives-three-reads",
        "libraries": 1,
        "arms": 1,
        "drives": 2,
        "tapes": 2,
        "initial": 1,
        "requests": 3,
        "gangs": 1,
        "widest": 2,
        "objective": "weighted-flow",
    }


def test_check_a_scenario():
    doc = json_of("check", AMPEX, "--json")
    assert (doc["kind"], doc["format"], doc["name"]) == (
        "scenario",
        "tapesched.scenario/1",
        "ampex",
    )
    assert (doc["drives"], doc["arms"], doc["rate_per_h"]) == (4, 1, 60.0)
    assert doc["policy"] == "parallel" and doc["scheduler"] == "fifo"


def test_solve(tmp_path):
    out = tmp_path / "s.json"
    doc = json_of("solve", SPEC, "--solver", "greedy", "--out", str(out), "--json")
    assert doc["solver"] == "greedy" and doc["status"] == "feasible" and doc["feasible"]
    assert doc["objective_name"] == "weighted-flow"
    assert doc["objective"] == pytest.approx(39.0)
    assert doc["bound"] <= 19.17667
    assert doc["out"] == str(out) and out.exists()


def test_solve_a_model_too_large_for_the_limit_says_not_built(tmp_path):
    # random-300: millions of arcs, no exact model builds in 4 s; the warm start is written.
    instance = str(INSTANCES / "random-300.json")
    out = tmp_path / "s.json"
    args = ["solve", instance, "--solver", "milp-highs", "--time-limit", "4", "--out", str(out)]
    doc = json_of(*args, "--json")
    assert doc["status"] == "not-built" and doc["feasible"]
    assert doc["reason"].startswith("the model would have 2,870,408 drive-sequence arcs, over the")
    assert 0 < doc["bound"] <= doc["objective"]
    assert doc["out"] == str(out) and out.exists()
    lines = CliRunner().invoke(main, args).stdout
    assert "solver milp-highs: status not-built," in lines
    assert "not-built: the model would have 2,870,408 drive-sequence arcs, over the limit" in lines
    assert "bound: " in lines and "objective weighted-flow: " in lines


def test_solve_json_and_stdout_schedule_are_refused_together(tmp_path):
    result = CliRunner().invoke(main, ["solve", SPEC, "--out", "-", "--json"])
    assert result.exit_code == 2
    assert result.stderr.strip() == "--json and --out -: both print on standard output; choose one"


def test_solvers():
    doc = json_of("solvers", "--json")
    assert {"greedy", "cpsat", "milp-highs"} <= {s["name"] for s in doc["solvers"]}


def test_verify():
    doc = json_of("verify", SPEC, OPTIMUM, "--json")
    assert doc["feasible"] is True
    assert doc["objective"]["name"] == "weighted-flow"
    assert doc["objective"]["value"] == pytest.approx(19.17667, abs=5e-6)


def test_metrics():
    doc = json_of("metrics", SPEC, OPTIMUM, "--json")
    assert doc["requests"] == 3 and doc["mounts"] == 1


def test_compare():
    doc = json_of("compare", SPEC, "--solvers", "greedy,fifo", "--json")
    assert [row["solver"] for row in doc] == ["greedy", "fifo"]


def test_simulate_a_scenario():
    doc = json_of("simulate", AMPEX, "--duration", "2h", "--replications", "2", "--json")
    assert doc["scenario"] == "ampex" and len(doc["replications"]) == 2
    assert set(doc["estimates"]["mean_response_s"]) >= {"mean", "half_width_95", "n"}


def test_replay():
    doc = json_of("replay", TRACE, LAYOUT, "--drives", "120", "--limit", "200", "--json")
    assert doc["requests"] == 200 and doc["drives"] == 120
