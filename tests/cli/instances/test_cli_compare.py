"""``tapesched compare``: the ratio column says what it is against, and ``--no-prefetch``."""

from __future__ import annotations

import json

from tests.cli.test_cli import run

from ...conftest import INSTANCES

PREFETCH = str(INSTANCES / "prefetch.json")


def test_the_ratio_header_names_the_problem_of_its_yardstick():
    code, out, _ = run("compare", PREFETCH, "--solvers", "greedy")
    assert code == 0
    assert "<= vs bound (prefetch allowed)" in out and "no prefetch" not in out
    assert "<= 2.5000" in out
    code, out, _ = run("compare", PREFETCH, "--solvers", "greedy", "--no-prefetch")
    assert code == 0
    assert "<= vs bound (no prefetch)" in out and "prefetch allowed" not in out
    assert "<= 1.0000" in out


def test_no_prefetch_rows_say_so_in_json():
    code, out, _ = run("compare", PREFETCH, "--solvers", "fifo", "--no-prefetch", "--json")
    assert code == 0
    (row,) = json.loads(out)
    assert (row["prefetch"], row["reference"], row["ratio"]) == (False, 25.0, 1.0)


def test_no_prefetch_refuses_a_solver_that_may_prefetch_in_one_line():
    code, out, err = run("compare", PREFETCH, "--solvers", "greedy,local-search", "--no-prefetch")
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        "--no-prefetch: solver 'local-search' may prefetch and has no option not to"
    ]


def test_a_solver_not_built_is_followed_by_the_limit_it_met():
    spec = str(INSTANCES / "spec-example.json")
    code, out, _ = run("compare", spec, "--solvers", "greedy,cpsat", "--time-limit", "0.001")
    assert code == 0
    assert out.splitlines()[-1].startswith(
        f"cpsat on {spec}: not-built: the model would have 50 drive-sequence arcs, over the limit"
    )
