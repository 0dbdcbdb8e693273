"""BNL's recall-ordering study (tapesched/studies/recall/study.py) and
`tapesched experiment bnl-coverage`.

The study's shapes on reduced runs with a fixed seed: ordering gains shrink
as coverage grows and vanish at 100 %; random spacing gains more than even
spacing at 10 % on the paper's own case of it (1 GB files on the TS1150,
its Tables 5 and 8). The window model reads what the orderers order, and
the command writes the experiment's files.
"""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from click.testing import CliRunner

from tapesched.cli import main
from tapesched.solvers.registry import ORDERERS
from tapesched.studies.recall import study
from tapesched.studies.recall.study import (
    ORDERINGS,
    StudyConfig,
    TapeCase,
    chosen_files,
    read_in_flight,
    read_time_s,
    run_study,
)
from tapesched.studies.results_file import COLUMNS
from tapesched.toolkit.hardware.tape_geometry import CtaCostHeuristic, PhysicalLocate
from tapesched.toolkit.hardware.technology import TAPE_FORMATS
from tests.studies import assert_redraws_its_own_figure

SMALL = TapeCase("TS1150", 20_000.0)
"""A full TS1150 tape of 500 files of 20 GB: the study's geometry, a tenth of its files."""

ORDERING = {p.name: p for p in ORDERINGS}


def _gain(points, spacing: str, policy: str, coverage: float) -> float:
    (point,) = [
        p
        for p in points
        if p.spacing == spacing and p.ordering == policy and p.coverage_pct == coverage
    ]
    mean = point.estimates["gain_over_offset_pct"].mean
    assert mean is not None
    return mean


@pytest.mark.parametrize(
    "model", [CtaCostHeuristic(), PhysicalLocate.for_format(TAPE_FORMATS["TS1150"])]
)
def test_every_request_in_flight_reads_the_orderers_order(model):
    tape = SMALL.tape()
    listed = chosen_files(SMALL, 10.0, "random", np.random.default_rng(3))
    files = SMALL.tape_files(listed)
    everything = list(range(len(files)))
    for name in ("none", "offset", "sltf"):
        expected = ORDERERS[name](tape, model, 0, files).order
        assert read_in_flight(tape, model, files, everything, name, len(files)) == list(expected)


def test_first_come_first_served_reads_the_submission_order():
    tape, model = SMALL.tape(), CtaCostHeuristic()
    files = SMALL.tape_files(chosen_files(SMALL, 10.0, "random", np.random.default_rng(5)))
    submitted = list(np.random.default_rng(6).permutation(len(files)))
    assert read_in_flight(tape, model, files, submitted, "none", 3) == submitted
    # Three in flight let SLTF choose only among neighbours of the submission order.
    order = read_in_flight(tape, model, files, submitted, "sltf", 3)
    pending = list(submitted)
    for k in order:
        assert k in pending[:3]
        pending.remove(k)
    assert not pending


def test_even_spacing_takes_every_kth_file_and_lists_them_shuffled():
    listed = chosen_files(SMALL, 10.0, "even", np.random.default_rng(1))
    assert sorted(listed) == list(range(0, 500, 10))
    assert listed != sorted(listed)


def test_ordering_gains_shrink_with_coverage_and_vanish_at_100():
    config = StudyConfig(
        cases=(SMALL,),
        orderings=(ORDERING["offset"], ORDERING["sltf"], ORDERING["exact"]),
        replications=2,
        exact_time_limit_s=0.5,
        exact_max_files=60,
    )
    points = run_study(config)
    for spacing in ("even", "random"):
        ten, fifty, whole = (_gain(points, spacing, "sltf", c) for c in (10.0, 50.0, 100.0))
        assert ten > fifty > whole
        assert whole == pytest.approx(0.0, abs=1e-9)
        assert _gain(points, spacing, "exact", 10.0) >= ten - 1e-9
        assert _gain(points, spacing, "exact", 100.0) == pytest.approx(0.0, abs=1e-9)
    # Reading the whole tape back to back streams at the drive's rate, whatever the order.
    whole = [p for p in points if p.coverage_pct == 100.0]
    rate = TAPE_FORMATS["TS1150"].rate_mb_s
    assert all(p.estimates["throughput_mb_s"].mean == pytest.approx(rate) for p in whole)


def test_random_spacing_gains_more_than_even_at_10_percent():
    config = StudyConfig(
        cases=(TapeCase("TS1150", 1_000.0),),
        coverages_pct=(10.0,),
        orderings=(ORDERING["offset"], ORDERING["sltf"]),
        replications=2,
    )
    points = run_study(config)
    assert _gain(points, "random", "sltf", 10.0) > _gain(points, "even", "sltf", 10.0) > 0


def test_read_time_is_locates_plus_reads():
    tape, model = SMALL.tape(), CtaCostHeuristic()
    files = SMALL.tape_files([0, 1, 2])
    assert read_time_s(tape, model, files, [0, 1, 2]) == pytest.approx(3 * 20_000 / 360.0)
    assert read_time_s(tape, model, files, [2, 1, 0]) > 3 * 20_000 / 360.0


def test_the_command_writes_the_experiments_files(tmp_path, monkeypatch):
    small = StudyConfig(
        cases=(SMALL,),
        coverages_pct=(10.0, 100.0),
        replications=2,
        exact_time_limit_s=0.3,
        exact_max_files=60,
    )
    monkeypatch.setattr(study, "QUICK", small)
    out = tmp_path / "bnl"
    result = CliRunner().invoke(
        main, ["experiment", "bnl-coverage", "--quick", "--out", str(out), "--seed", "4"]
    )
    assert result.exit_code == 0, result.output
    assert "TS1150 20GB" in result.stdout and "sltf gain %" in result.stdout
    rows = list(csv.DictReader(io.StringIO((out / "results.csv").read_text())))
    assert tuple(rows[0]) == COLUMNS
    assert {r["experiment"] for r in rows} == {"bnl-coverage"}
    assert {r["x_name"] for r in rows} == {"coverage_pct"}
    assert {r["metric"] for r in rows} == {"throughput_mb_s", "gain_over_offset_pct"}
    assert len(rows) == 2 * len(ORDERINGS) * 2 * 2  # spacings, policies, coverages, metrics
    assert {r["saturated"] for r in rows} == {"false"}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["experiment"] == "bnl-coverage"
    assert summary["settings"]["seed"] == 4 and summary["settings"]["quick"] is True
    assert {p["in_flight"] for p in summary["settings"]["policies"]} == {3, 70, None}
    offset = summary["series"]["TS1150 20GB random offset"]["points"]
    assert [p["x"] for p in offset] == [10.0, 100.0] and offset[0]["files"] == 50
    assert (out / "figure.png").read_bytes().startswith(b"\x89PNG")
    assert_redraws_its_own_figure(out, tmp_path)


def test_the_command_needs_an_output_directory():
    result = CliRunner().invoke(main, ["experiment", "bnl-coverage", "--quick"])
    assert result.exit_code == 2
    assert result.stderr.strip() == "--out: required, and missing"
