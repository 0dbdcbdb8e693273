"""`tapesched stripe` on Golubchik et al.'s Ampex library: the search against the closed forms.

Short runs (2-day replications, two a vector, seed 1) of the full search on
the paper's small classes (1/2/3 GB) at its lowest and highest rate, and on
the large ones (4/8/12 GB) at a middle rate; bad input in one line. The runs
are in this process (``--workers 1``): a vector's seeds do not depend on the
workers, and the search at these rates prunes no vector, so the results are
those of ``--workers 2``; local worker processes are tested with the sweep
(tests/studies/sweeps/test_sweep.py).
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from tapesched.cli import main
from tests.conftest import INSTANCES

SHORT = ("--duration", "2d", "--max-replications", "2", "--workers", "1", "--json")


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["stripe", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def small():
    code, out, err = run("--rate", "0.05/min", "--rate", "0.6/min", *SHORT)
    assert code == 0, err
    low, high = json.loads(out)["rates"]
    return low, high


def vector(rate: dict, name: str) -> dict:
    return next(v for v in rate["vectors"] if v["vector"] == name)


def test_a_striped_vector_wins_at_the_lowest_rate_and_111_at_the_highest(small):
    low, high = small
    assert max(low["best"]["widths"]) > 1
    assert high["best"]["vector"] == "111"


def test_the_heavy_load_closed_form_is_the_simulators_best_at_the_highest_rate(small):
    _, high = small
    assert high["closed_form_heavy_load"] == high["best"]["widths"] == [1, 1, 1]


def test_the_no_load_closed_form_is_as_good_as_the_best_at_the_lowest_rate(small):
    low, _ = small
    closed = vector(low, "".join(map(str, low["closed_form_no_load"])))
    best = low["best"]
    assert closed["mean_response_s"] - closed["half_width_s"] <= (
        best["mean_response_s"] + best["half_width_s"]
    )


def test_equi_striping_is_within_10_percent_of_the_best_vector(small):
    for rate in small:
        assert 0 <= rate["gap"]["value"] <= 0.10
        assert rate["evaluated"] + rate["pruned"] == 64


def test_on_large_classes_equi_striping_is_within_10_percent_too():
    code, out, err = run("--workload", "large", "--rate", "0.1/min", *SHORT)
    assert code == 0, err
    (rate,) = json.loads(out)["rates"]
    assert 0 <= rate["gap"]["value"] <= 0.10
    assert rate["closed_form_no_load"] == [4, 4, 4]


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (("--workload", "small", "--sizes", "1,2,3"),
         "--sizes: not with --workload (both set the class sizes)"),
        (("--sizes", "1,x,3"), "--sizes: 'x' is not a size in GB"),
        (("--sizes", "1,2"), "--sizes: expected 3 sizes, one per class, got 2"),
        (("--sizes", "1,-2,3"), "--sizes: sizes are positive GB up to 1e+06, got '-2'"),
    ],
)  # fmt: skip
def test_bad_sizes_are_one_line_and_exit_2(args, line):
    code, out, err = run("--rate", "0.1/min", *args)
    assert (code, out, err.splitlines()) == (2, "", [line])


def test_a_scenario_without_request_classes_is_one_line_and_exit_2():
    scenario = str(INSTANCES / "scenarios" / "blue-waters.json")
    code, out, err = run(scenario, "--rate", "0.1/min")
    assert code == 2 and out == ""
    assert err.splitlines() == [
        f"{scenario}: workload.request_classes: missing; the search needs request classes"
    ]
