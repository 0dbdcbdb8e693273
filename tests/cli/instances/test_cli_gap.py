"""``--gap`` of ``tapesched solve`` and ``tapesched compare``: honoured, and checked."""

from __future__ import annotations

import json

import pytest

from tests.cli.test_cli import run

from ...conftest import INSTANCES

SPEC = str(INSTANCES / "spec-example.json")


@pytest.mark.parametrize("command", ["solve", "compare"])
@pytest.mark.parametrize(
    ("value", "line"),
    [
        ("-0.1", "--gap: -0.1 is not in the range 0<=x<=1."),
        ("1.5", "--gap: 1.5 is not in the range 0<=x<=1."),
        ("nan", "--gap: 'nan' is not a finite number"),
    ],
)
def test_a_bad_gap_is_one_line_and_exit_2(command, value, line):
    option = "--solver" if command == "solve" else "--solvers"
    code, out, err = run(command, SPEC, option, "local-search", "--gap", value)
    assert (code, out) == (2, "")
    assert err.splitlines() == [line]


def test_solve_refuses_a_gap_for_a_solver_that_has_none():
    code, _, err = run("solve", SPEC, "--solver", "fifo", "--gap", "0.1")
    assert code == 2
    assert err.splitlines() == ["--gap: solver 'fifo' stops at no gap"]


def test_solve_and_compare_stop_local_search_within_the_gap():
    code, out, _ = run("solve", SPEC, "--solver", "local-search", "--gap", "1.0", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["status"] == "feasible" and len(doc["trajectory"]) == 1
    assert 0 < doc["bound"] <= doc["objective"] == doc["trajectory"][0]["objective"]
    code, out, _ = run("compare", SPEC, "--solvers", "fifo,local-search", "--gap", "1", "--json")
    assert code == 0
    fifo, local = json.loads(out)
    assert local["status"] == "feasible" and local["objective"] <= fifo["objective"]
