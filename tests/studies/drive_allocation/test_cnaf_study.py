"""The cnaf-bulk-recall study: the Orchestrator against static caps, and its command."""

from __future__ import annotations

import csv
import json

import pytest
from attrs import evolve
from click.testing import CliRunner

from tapesched.cli import main
from tapesched.studies.drive_allocation.study import METRICS, QUICK, SERIES, bulk_recall, run_study
from tapesched.studies.results_file import COLUMNS
from tests.conftest import redraws


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
    assert {(r["series"], r["metric"]) for r in rows} == {(s, m) for s in SERIES for m in METRICS}
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    offline = summary["series"]["offline"]
    assert (
        offline["throughput_mb_s"]["mean"] >= summary["series"]["static"]["throughput_mb_s"]["mean"]
    )
    assert summary["paper_table_1"]["static"]["throughput_mb_s"] == 650.0
    assert (out / "figure.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.paper
def test_plot_results_redraws_the_quick_results_a_panel_per_metric(tmp_path) -> None:
    out = tmp_path / "cnaf"
    args = ["experiment", "cnaf-bulk-recall", "--quick", "--seeds", "1", "--scale", "0.01"]
    assert CliRunner().invoke(main, [*args, "--out", str(out)]).exit_code == 0
    printed = redraws(out / "results.csv", tmp_path / "again.png")
    # its figure is the hourly series of the first seed, which results.csv does not hold
    assert "a panel per metric of cnaf-bulk-recall" in printed
    assert "own figure needs more than its results.csv" in printed
