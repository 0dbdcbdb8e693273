"""`tapesched experiment gol-stripe-search` on Golubchik et al.'s Ampex library: the search
against the closed forms, its files, and bad input in one line.

Short runs, each shared by the tests of the module and run in this process (``--workers
1``: a vector's seeds do not depend on the workers; local worker processes are tested with
the sweep, tests/studies/sweeps/test_sweep.py): 1-day replications, two a vector, seed 1.
The paper's claims (marked ``paper``, run by ``make test-papers``) take the full search on
its small classes (1/2/3 GB) at its lowest rate and its highest (0.05 and 0.8/min, Figure
8; at 0.8/min half the vectors cannot keep up and are pruned), and on the large ones
(4/8/12 GB) at 0.1/min; the files and the pruning are checked on the equi-striped vectors
alone at the same two rates, seconds of work. The library is the paper's with 100 files
preloaded instead of 3,000: its locate is instant and each request mounts its own tapes,
so where the files lie does not change what is measured, and the preload is most of a
short replication's time.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tapesched.cli import main
from tapesched.simulator.results.records import Estimate
from tapesched.studies.golubchik.figures import SCENARIO_FILE
from tapesched.studies.golubchik.stripe_report import best_row, draw_figure, widths_of
from tapesched.studies.golubchik.stripe_search import Selection
from tapesched.studies.results_file import COLUMNS, ResultRow, read_results_csv, results_csv
from tests.conftest import INSTANCES
from tests.studies import assert_redraws_its_own_figure

SHORT = ("--duration", "1d", "--max-replications", "2", "--workers", "1")


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["experiment", "gol-stripe-search", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def ampex(tmp_path_factory) -> str:
    """The paper's Ampex library with 100 files preloaded (see the module)."""
    document = json.loads(SCENARIO_FILE.read_text())
    document["workload"]["initial_files"] = 100
    path = tmp_path_factory.mktemp("ampex") / "ampex-100.json"
    path.write_text(json.dumps(document))
    return str(path)


def searched(out: Path, ampex: str, *args: str) -> tuple[dict, list[dict]]:
    code, _, err = run("--scenario", ampex, *args, *SHORT, "--out", str(out))
    assert code == 0, err
    with (out / "results.csv").open() as f:
        rows = list(csv.DictReader(f))
    return json.loads((out / "summary.json").read_text()), rows


@pytest.fixture(scope="module")
def small_out(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("small") / "out"


@pytest.fixture(scope="module")
def small(small_out, ampex):
    return searched(small_out, ampex, "--rates", "0.05/min,0.8/min")


@pytest.fixture(scope="module")
def equi(tmp_path_factory, ampex):
    out = tmp_path_factory.mktemp("equi") / "out"
    found = searched(out, ampex, "--rates", "0.05/min,0.8/min", "--equi-only")
    assert (out / "figure.png").stat().st_size > 0
    return found


@pytest.fixture(scope="module")
def large(tmp_path_factory, ampex):
    out = tmp_path_factory.mktemp("large") / "out"
    return searched(out, ampex, "--workload", "large", "--rates", "0.1/min")


def vector(rate: dict, name: str) -> dict:
    return next(v for v in rate["vectors"] if v["vector"] == name)


@pytest.mark.paper
def test_a_striped_vector_wins_at_the_lowest_rate_and_111_at_the_highest(small):
    low, high = small[0]["rates"]
    assert (low["rate_per_min"], high["rate_per_min"]) == (0.05, 0.8)
    assert max(low["best"]["widths"]) > 1
    assert high["best"]["vector"] == "111"


@pytest.mark.paper
def test_the_heavy_load_closed_form_is_the_simulators_best_at_the_highest_rate(small):
    _, high = small[0]["rates"]
    assert high["closed_form_heavy_load"] == high["best"]["widths"] == [1, 1, 1]


@pytest.mark.paper
def test_the_no_load_closed_form_is_as_good_as_the_best_at_the_lowest_rate(small):
    low, _ = small[0]["rates"]
    closed = vector(low, "".join(map(str, low["closed_form_no_load"])))
    best = low["best"]
    assert closed["mean_response_s"] - closed["half_width_s"] <= (
        best["mean_response_s"] + best["half_width_s"]
    )


@pytest.mark.paper
def test_equi_striping_is_within_10_percent_of_the_best_vector(small):
    for rate in small[0]["rates"]:
        assert 0 <= rate["gap"]["value"] <= 0.10
        assert rate["evaluated"] + rate["pruned"] == 64


def test_at_the_highest_rate_the_vectors_that_cannot_keep_up_are_pruned_unrun(equi):
    _, high = equi[0]["rates"]
    pruned = [v for v in high["vectors"] if v["pruned"] is not None]
    assert len(pruned) == high["pruned"] > 0
    assert all(v["pruned"] == "saturates" and v["mean_response_s"] is None for v in pruned)
    assert all(v["occupancy_limit_per_min"] <= 0.8 for v in pruned)


@pytest.mark.paper
def test_on_large_classes_equi_striping_is_within_10_percent_too(large):
    (rate,) = large[0]["rates"]
    assert 0 <= rate["gap"]["value"] <= 0.10
    assert rate["closed_form_no_load"] == [4, 4, 4]


def test_results_csv_has_a_row_per_rate_and_vector_run_with_the_common_columns(equi):
    summary, rows = equi
    assert tuple(rows[0]) == COLUMNS
    run_vectors = [
        (rate["rate_per_min"], v["vector"], v["mean_response_s"])
        for rate in summary["rates"]
        for v in rate["vectors"]
        if v["pruned"] is None
    ]
    vectors = [r for r in rows if r["metric"] == "mean_response_s"]
    assert [
        (float(r["x"]), r["series"], float(r["mean"]) if r["mean"] else None) for r in vectors
    ] == run_vectors
    assert all((r["mean"] == "") == (r["saturated"] == "true") for r in rows)
    assert {(r["experiment"], r["x_name"], r["metric"]) for r in rows} == {
        ("gol-stripe-search", "rate_per_min", "mean_response_s"),
        ("gol-stripe-search", "rate_per_min", "best_mean_response_s"),
    }
    assert {r["replications"] for r in rows} == {"2"}
    # then a row per rate for its best vector, the one the figure circles
    best = [(float(r["x"]), r["series"], r["mean"]) for r in rows[len(vectors) :]]
    assert best == [
        (rate["rate_per_min"], rate["best"]["vector"], repr(rate["best"]["mean_response_s"]))
        for rate in summary["rates"]
    ]
    assert summary["experiment"] == "gol-stripe-search" and summary["seed"] == 1
    assert summary["equi_only"] is True


def test_equi_only_runs_the_equi_striped_vectors_alone(equi):
    summary, rows = equi
    low, _ = summary["rates"]
    low_best = low["best"]["vector"]
    assert [v["vector"] for v in low["vectors"]] == ["111", "222", "333", "444"]
    assert [r["series"] for r in rows if r["x"] == "0.05"] == ["111", "222", "333", "444", low_best]
    fastest = min(low["vectors"], key=lambda v: v["mean_response_s"])
    assert low["best_equi"]["vector"] == fastest["vector"]


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (("--workload", "small", "--sizes", "1,2,3"),
         "--sizes: not with --workload (both set the class sizes)"),
        (("--sizes", "1,x,3"), "--sizes: 'x' is not a size in GB"),
        (("--sizes", "1,2"), "--sizes: expected 3 sizes, one per class, got 2"),
        (("--sizes", "1,-2,3"), "--sizes: sizes are positive GB up to 1e+06, got '-2'"),
        (("--rates", "0.1/min,fast"),
         "--rates: 'fast' is not a rate such as 0.005, 0.3/min or 65/h "
         "(65/hour, 2/day, 65 per hour)"),
    ],
)  # fmt: skip
def test_bad_settings_are_one_line_and_exit_2(tmp_path, args, line):
    out = tmp_path / "out"
    code, stdout, err = run("--rates", "0.1/min", *args, "--out", str(out))
    assert (code, stdout, err.splitlines()) == (2, "", [line])
    assert not out.exists()


def test_a_scenario_without_request_classes_is_one_line_and_exit_2(tmp_path):
    scenario = str(INSTANCES / "scenarios" / "blue-waters.json")
    code, out, err = run("--scenario", scenario, "--out", str(tmp_path / "out"))
    assert code == 2 and out == ""
    assert err.splitlines() == [
        f"{scenario}: workload.request_classes: missing; the search needs request classes"
    ]


def test_it_is_listed_with_its_parameters():
    result = CliRunner().invoke(main, ["experiment", "--list", "--json"])
    assert result.exit_code == 0
    listed = {e["name"]: e for e in json.loads(result.stdout)["experiments"]}
    assert len(listed) >= 17
    options = [p["option"] for p in listed["gol-stripe-search"]["parameters"]]
    assert options == [
        "--scenario", "--rates", "--workload", "--sizes", "--equi-only", "--duration",
        "--max-replications", "--workers", "--seed", "--allow-plugins",
    ]  # fmt: skip


def test_a_rate_where_no_vector_kept_up_keeps_its_panel_and_labels_read_back_to_widths():
    def row(series: str, x: float, metric: str, mean: float | None) -> ResultRow:
        estimate = Estimate(mean, None if mean is None else 1.0, 2, mean is None)
        return ResultRow("gol-stripe-search", series, "rate_per_min", x, metric, estimate)

    rows = [
        row("222", 0.1, "mean_response_s", 12.0),
        row("122", 0.1, "mean_response_s", 10.0),
        row("111", 0.9, "mean_response_s", None),
        row("122", 0.1, "best_mean_response_s", 10.0),
        row("none", 0.9, "best_mean_response_s", None),
    ]
    low, high = draw_figure(read_results_csv(results_csv(rows))).axes
    assert [a.get_title() for a in (low, high)] == ["0.1 requests/min", "0.9 requests/min"]
    assert [t.get_text() for t in low.get_xticklabels()] == ["122", "222"]
    assert len(low.get_lines()) == 1 + 2 * 3  # the best circled; each point, its two caps
    assert [t.get_text() for t in high.get_xticklabels()] == []
    assert [widths_of(v) for v in ("122", "4-10-12", "3")] == [(1, 2, 2), (4, 10, 12), (3,)]
    # the row a search with no best vector writes for its rate
    nothing = Selection(0.02, (), None, None, (1, 1, 1), (1, 1, 1))
    assert best_row(nothing) == ResultRow(
        "gol-stripe-search", "none", "rate_per_min", 0.02 * 60, "best_mean_response_s",
        Estimate(None, None, 0, True),
    )  # fmt: skip


@pytest.mark.paper
def test_plot_results_redraws_its_own_figure_from_the_search(small, small_out, tmp_path):
    assert_redraws_its_own_figure(small_out, tmp_path)
