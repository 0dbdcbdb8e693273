"""`tapesched experiment`: the listing, a run's files, the cache, bad input and interrupts."""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys

import pytest
from click.testing import CliRunner

from tapesched.cli import main
from tapesched.studies.registry import ENTRY_POINT_GROUP
from tapesched.studies.results_file import COLUMNS
from tests.conftest import INSTANCES, dist_info

AMPEX = str(INSTANCES / "scenarios" / "ampex.json")


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    """The tiny experiment of the sweep tests, installed as ``tiny`` (an entry point)."""
    site = tmp_path / "site"
    target = "tests.studies.sweeps.test_sweep:TINY_EXPERIMENT"
    dist_info(site, "tiny-experiment", ENTRY_POINT_GROUP, {"tiny": target})
    monkeypatch.syspath_prepend(str(site))
    return ("experiment", "tiny", "--scenario", AMPEX, "--quick", "--workers", "1")


def test_list_names_every_experiment_and_why_one_cannot_run():
    code, out, _ = run("experiment", "--list")
    assert code == 0
    for name in ("bw-fig5", "bw-fig6", "bw-fig7", "bw-fig8", "bw-fig9", "bw-fig10", "bw-fig11"):
        assert f"\n{name}: Figure" in f"\n{out}"
    assert "unavailable" not in out
    assert "x = rate_per_h: 200, 400" in out


def test_the_load_balancer_period_under_another_scheduler_is_one_line_and_exit_2(tmp_path):
    code, out, err = run(
        "experiment", "bw-fig10", "--scheduler", "fifo", "--out", str(tmp_path / "x")
    )
    assert code == 2 and out == "" and not (tmp_path / "x").exists()
    assert err.splitlines() == [
        "bw-fig10: scheduler 'fifo' has no MINLBINTERVAL (the paper's load-balancer period); "
        "this experiment needs 'bw-main'"
    ]


def test_an_unknown_scheduler_is_one_line_and_exit_2(tmp_path):
    code, out, err = run(
        "experiment", "bw-fig6", "--scheduler", "nope", "--out", str(tmp_path / "x")
    )
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("--scheduler: ")


def test_an_unknown_experiment_is_one_line_and_exit_2(tmp_path):
    code, out, err = run("experiment", "bw-fig99", "--out", str(tmp_path / "x"))
    assert code == 2 and out == ""
    assert err.splitlines() == [
        "unknown experiment 'bw-fig99'; known: bw-fig5, bw-fig6, bw-fig7, bw-fig8, bw-fig9, "
        "bw-fig10, bw-fig11, gol-fig8, gol-fig10, gol-fig12, gol-fig14, gol-stripe-search, "
        "online-vs-offline, bnl-coverage, ecmwf-defer-dismount, cnaf-bulk-recall, durability, "
        "site-sweep"
    ]
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (("bw-fig6",), "--out: required, and missing"),
        ((), "NAME: required, and missing (see tapesched experiment --list)"),
        (("bw-fig6", "--out", "o", "--workers", "2", "--dask", "tcp://127.0.0.1:1"),
         "--workers: not with --dask (the cluster's workers run the points)"),
        (("bw-fig6", "--out", "o", "--scheduler", "fifo", "--max-light-load", "5"),
         "--max-light-load: only the bw-main scheduler takes it; the scheduler is 'fifo'"),
        (("bw-fig10", "--out", "o", "--min-lb-interval", "2d"),
         "--min-lb-interval: bw-fig10 varies it (its x axis)"),
    ],
)  # fmt: skip
def test_missing_or_clashing_options_are_one_line_and_exit_2(tmp_path, monkeypatch, args, line):
    monkeypatch.chdir(tmp_path)
    code, _, err = run("experiment", *args)
    assert code == 2 and err.splitlines() == [line]


def test_a_run_writes_results_summary_and_figure_then_resumes_from_its_cache(tmp_path, tiny):
    out = tmp_path / "tiny"
    code, stdout, err = run(*tiny, "--out", str(out))
    assert code == 0, err
    assert sorted(p.name for p in out.iterdir()) == ["figure.png", "results.csv", "summary.json"]
    with (out / "results.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert tuple(rows[0]) == COLUMNS and len(rows) == 4 * 3
    assert {(r["series"], r["x"]) for r in rows} == {
        (s, x) for s in ("parallel", "vertical") for x in ("60.0", "2000.0")
    }
    summary = json.loads((out / "summary.json").read_text())
    assert summary["settings"]["quick"] is True and summary["settings"]["seed"] == 1
    for series in ("parallel", "vertical"):
        assert summary["series"][series]["max_sustainable_rate_per_h"] == 60.0
        assert summary["series"][series]["lowest_saturated_rate_per_h"] == 2000.0
    assert (out / "figure.png").read_bytes().startswith(b"\x89PNG")
    assert "parallel: maximum sustainable rate 60 requests/h" in stdout
    assert stdout.splitlines()[-1] == f"wrote {out}; figure: {out / 'figure.png'}"
    cache = tmp_path / "tiny.cache"
    kept = len(list(cache.glob("*.json")))
    assert kept >= 8 and f"{kept} replications run, 0 from the cache" in stdout

    first = (out / "results.csv").read_text()
    code, stdout, err = run(*tiny, "--out", str(out))
    assert code == 0, err
    assert f"0 replications run, {kept} from the cache" in stdout
    assert (out / "results.csv").read_text() == first


def test_an_interrupted_run_leaves_no_directory_and_its_replications_in_the_cache(
    tmp_path, tiny, monkeypatch
):
    from tapesched.studies.sweeps import sweep

    calls = []
    real = sweep.run_replication

    def interrupted(scenario, seed):
        calls.append(seed)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(scenario, seed)

    monkeypatch.setattr(sweep, "run_replication", interrupted)
    out = tmp_path / "tiny"
    code, _, err = run(*tiny, "--out", str(out), "--cache", str(tmp_path / "kept"))
    assert code == 130 and err.splitlines() == ["tapesched: interrupted"]
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept", "site"]
    assert len(list((tmp_path / "kept").glob("*.json"))) == 2


def test_the_balancer_parameters_given_reach_every_point_and_the_summary(
    tmp_path, tiny, monkeypatch
):
    from tapesched.studies.sweeps import sweep

    seen = []
    real = sweep.run_replication

    def spy(scenario, seed):
        seen.append(scenario.run.bw_main)
        return real(scenario, seed)

    monkeypatch.setattr(sweep, "run_replication", spy)
    out = tmp_path / "tiny"
    code, _, err = run(*tiny, "--out", str(out), "--max-light-load", "1000",
                       "--max-imbalance", "3")  # fmt: skip
    assert code == 0, err
    assert seen and {(p.max_light_load, p.max_imbalance) for p in seen} == {(1000, 3.0)}
    settings = json.loads((out / "summary.json").read_text())["settings"]
    assert settings["bw_main"]["max_light_load"] == 1000
    assert settings["bw_main"]["max_imbalance"] == 3.0
    assert settings["bw_main"]["min_lb_interval_s"] == seen[0].min_lb_interval_s


@pytest.mark.paper
@pytest.mark.pool
def test_a_quick_bw_fig5_into_a_log_writes_its_progress_as_it_goes(tmp_path):
    """The issue's check: standard error a file, not a terminal; two lines or more, each
    saying how far the run is, before the results are written."""
    log = tmp_path / "log"
    command = [sys.executable, "-m", "tapesched", "experiment", "bw-fig5", "--quick"]
    with log.open("w") as stderr:
        done = subprocess.run(
            [*command, "--out", str(tmp_path / "out")],
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            timeout=900,
            check=False,
        )
    assert done.returncode == 0, log.read_text()[-2000:]
    lines = log.read_text().splitlines()
    progress = [line for line in lines if re.match(r"bw-fig5: \d+ of \d+ done \(\d+ %\)", line)]
    assert len(progress) >= 2, lines
    assert "elapsed" in progress[0] and "left" in progress[0]
    assert (tmp_path / "out" / "results.csv").is_file()
