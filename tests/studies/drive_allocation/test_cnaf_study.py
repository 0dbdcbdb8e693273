"""The cnaf-bulk-recall study: the Orchestrator against static caps, and its command."""

from __future__ import annotations

import csv
import json

import pytest
from attrs import evolve
from click.testing import CliRunner

from tapesched.cli import main
from tapesched.studies.drive_allocation.report import HOURLY, RUN_METRICS
from tapesched.studies.drive_allocation.study import METRICS, QUICK, SERIES, bulk_recall, run_study
from tapesched.studies.results_file import COLUMNS
from tests.studies import assert_redraws_its_own_figure


def test_the_bulk_recall_has_the_papers_size_at_full_scale() -> None:
    config = evolve(QUICK, scale=0.05)
    batches = bulk_recall(config, 1)
    files = sum(len(b.files) for b in batches)
    assert files == round(95_000 * 0.05)
    assert 0.9 * 315e6 * 0.05 < sum(b.size_mb for b in batches) < 1.1 * 315e6 * 0.05
    assert all(list(b.files) == sorted(b.files) for b in batches)
    assert len({b.tape for b in batches}) == len(batches)


@pytest.mark.paper
def test_on_a_small_study_the_orchestrator_beats_static_caps_by_half() -> None:
    # The quick study's first seed, at 3 % of the recall and of the horizon (fast).
    outcome = run_study(evolve(QUICK, scale=0.03, seeds=1), offline=False)
    static = outcome.estimates["static"]
    dynamic = outcome.estimates["orchestrator"]
    s, o = static["throughput_mb_s"].mean, dynamic["throughput_mb_s"].mean
    assert s is not None and o is not None
    assert o >= 1.5 * s
    drives_s, drives_o = static["avg_drives"].mean, dynamic["avg_drives"].mean
    assert drives_s is not None and drives_o is not None
    assert drives_s <= 4.0 < drives_o
    assert dynamic["tapes_reclaimed"].mean
    assert not static["tapes_reclaimed"].mean


def test_the_command_writes_its_three_files(tmp_path) -> None:
    out = tmp_path / "cnaf"
    args = ["experiment", "cnaf-bulk-recall", "--quick", "--seeds", "1", "--scale", "0.01"]
    result = CliRunner().invoke(main, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "paper, orchestrator" in result.output
    with open(out / "results.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert tuple(rows[0]) == COLUMNS
    by_scale = {(r["series"], r["metric"]) for r in rows if r["x_name"] == "scale"}
    assert by_scale == {(s, m) for s in SERIES for m in METRICS}
    # What the figure draws: the first seed's hours, and its run's metrics for the legend.
    hourly = [r for r in rows if r["x_name"] == "hour"]
    assert {(r["series"], r["metric"]) for r in hourly} == {(s, m) for s in SERIES for m in HOURLY}
    hours = [float(r["x"]) for r in hourly if r["series"] == "static" and r["metric"] == HOURLY[0]]
    assert hours == [float(h) for h in range(len(hours))] and len(hours) >= 2
    run = {(r["series"], r["metric"]): r for r in rows if r["x_name"] == "seed"}
    assert set(run) == {(s, f"run_{m}") for s in SERIES for m in RUN_METRICS}
    assert {r["x"] for r in run.values()} == {"1.0"}
    # one seed: its run's metrics are the series' means
    means = {(r["series"], r["metric"]): r["mean"] for r in rows if r["x_name"] == "scale"}
    assert all(r["mean"] == means[(s, m[len("run_") :])] for (s, m), r in run.items())
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    offline = summary["series"]["offline"]
    assert (
        offline["throughput_mb_s"]["mean"] >= summary["series"]["static"]["throughput_mb_s"]["mean"]
    )
    assert summary["paper_table_1"]["static"]["throughput_mb_s"] == 650.0
    assert (out / "figure.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.paper
def test_plot_results_draws_its_own_figure_again_from_the_quick_results(tmp_path) -> None:
    # Two seeds from the third: the figure is the first seed's, its legend names it.
    out = tmp_path / "cnaf"
    args = ["experiment", "cnaf-bulk-recall", "--quick", "--seeds", "2", "--scale", "0.01"]
    assert CliRunner().invoke(main, [*args, "--seed", "3", "--out", str(out)]).exit_code == 0
    with open(out / "results.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert {r["x"] for r in rows if r["x_name"] == "seed"} == {"3.0"}
    assert_redraws_its_own_figure(out, tmp_path)
