"""The ECMWF defer-dismount study: its shapes on part of the sample (the SC16 study's claims,
marked paper: make test-papers), and the command's files."""

from __future__ import annotations

import csv
import io
import json
import math

import pytest
from click.testing import CliRunner

from tapesched.cli import main
from tapesched.studies.dismount_delay import study
from tapesched.studies.dismount_delay.study import DeferConfig, load_sample, mount_policy, run_study
from tapesched.studies.results_file import COLUMNS
from tests.studies import assert_redraws_its_own_figure

STUDY = DeferConfig(defer_s=(0.0, 300.0, 1800.0, math.inf), requests=3_000)
"""The first 3,000 requests of the sample on 170 drives, four delays, three rules."""


@pytest.fixture(scope="module")
def sample():
    return load_sample()


@pytest.fixture(scope="module")
def points(sample):
    return {(p.eviction, p.defer_s): p for p in run_study(STUDY, sample=sample)}


def test_mount_policy_specs():
    assert mount_policy("lru", 300.0) == "lru+defer:300"
    assert mount_policy("belady", math.inf) == "belady"


@pytest.mark.paper
def test_a_longer_delay_saves_mounts(points):
    for eviction in STUDY.evictions:
        mounts = [points[eviction, t].value("mounts") for t in (0.0, 300.0, 1800.0)]
        assert mounts[0] > mounts[1] > mounts[2]


@pytest.mark.paper
def test_with_no_delay_every_idle_drive_is_empty_so_the_rule_never_chooses(points):
    at_once = {points[e, 0.0].value("mounts") for e in STUDY.evictions}
    assert len(at_once) == 1


@pytest.mark.paper
def test_belady_kept_mounted_mounts_least_and_a_dismount_costs_mount_latency(points):
    kept = {e: points[e, math.inf] for e in STUDY.evictions}
    assert kept["belady"].value("mounts") < kept["lru"].value("mounts")
    assert kept["belady"].value("mounts") < kept["fifo"].value("mounts")
    # Kept mounted, a mount first evicts an idle cartridge (unload, dismount): slower than a
    # mount into an empty drive, which a short delay leaves.
    for e in STUDY.evictions:
        slow = kept[e].value("mean_mount_latency_s")
        assert slow is not None and slow > points[e, 300.0].value("mean_mount_latency_s")


def test_the_command_writes_the_experiments_files(tmp_path, monkeypatch, sample):
    monkeypatch.setattr(study, "QUICK", DeferConfig(defer_s=(0.0, math.inf), requests=500))
    out = tmp_path / "defer"
    result = CliRunner().invoke(
        main, ["experiment", "ecmwf-defer-dismount", "--quick", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "lru mounts" in result.stdout and "kept" in result.stdout
    rows = list(csv.DictReader(io.StringIO((out / "results.csv").read_text())))
    assert tuple(rows[0]) == COLUMNS
    assert {r["experiment"] for r in rows} == {"ecmwf-defer-dismount"}
    assert {r["series"] for r in rows} == {"lru", "fifo", "belady"}
    assert {r["x"] for r in rows} == {"0.0", "inf"}
    assert len(rows) == 3 * 2 * len(study.METRICS)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["settings"]["requests"] == 500 and summary["settings"]["drives"] == 170
    lru = summary["series"]["lru"]
    assert [p["x"] for p in lru] == [0.0, None]
    assert [p["mount_policy"] for p in lru] == ["lru+defer:0", "lru"]
    assert lru[0]["summary"]["requests"] == 500
    assert (out / "figure.png").read_bytes().startswith(b"\x89PNG")
    assert_redraws_its_own_figure(out, tmp_path)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "--out: required, and missing"),
        (("--drives", "500", "--out", "x"), "--drives: the sample's layout has"),
    ],
)
def test_the_command_refuses_in_one_line(args, message):
    result = CliRunner().invoke(main, ["experiment", "ecmwf-defer-dismount", "--quick", *args])
    assert result.exit_code == 2
    assert result.stderr.strip().startswith(message)
