"""``tapesched sweep --scenario``: a scenario simulated on a tiny site (one TS4500, 2 LTO-9
drives) at every point of the axes, the scenario's keys among them, replicated."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.studies import assert_redraws_its_own_figure
from tests.studies.site_sweep.test_site_sweep import SITE, refused_before_any_run, rows, sweep

SCENARIO = {
    "format": "tapesched.scenario/1",
    "name": "recalls",
    "workload": {
        "sizes": [2000, 2000],
        "rate": "10/h",
        "duration": "12h",
        "read_share": 1.0,
        "initial_archive": {"tapes": 10},
    },
    "run": {"warmup": 0},
}
"""Recalls of 2 GB files at 10 an hour for 12 hours from an archive on 10 tapes, one copy
each (no policy: single)."""


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    site = tmp_path / "site.json"
    site.write_text(json.dumps(SITE))
    scenario = tmp_path / "recalls.json"
    scenario.write_text(json.dumps(SCENARIO))
    return site, scenario


def test_drives_by_rate_replicates_each_point_and_reads_them_back(files, tmp_path):
    site, scenario = files
    out = tmp_path / "out"
    args = ["--site", site, "--scenario", scenario, "--vary", "drives=1,2"]
    args += ["--vary", "workload.rate=10/h,30/h", "--max-replications", "2"]
    args += ["--workers", "1", "--out", out]
    code, stdout, stderr = sweep(*args)
    assert code == 0, stderr
    written = rows(out)
    assert [(r["metric"], r["series"], r["x"]) for r in written[:2]] == [
        ("mean_response_s", "workload.rate=10/h", "1.0"),
        ("mounts_per_tape", "workload.rate=10/h", "1.0"),
    ]
    response = {
        (r["series"], r["x"]): float(r["mean"]) for r in written if r["metric"] == "mean_response_s"
    }
    assert len(response) == 4 and {r["replications"] for r in written} == {"2"}
    assert all(r["half_width"] != "" for r in written)
    # three times the load on one drive waits longer than on two
    assert response[("workload.rate=30/h", "1.0")] > response[("workload.rate=30/h", "2.0")]
    assert response[("workload.rate=30/h", "1.0")] > response[("workload.rate=10/h", "1.0")]
    summary = json.loads((out / "summary.json").read_text())
    first = summary["points"][0]
    assert first["values"] == {"drives": 1, "workload.rate": "10/h"}
    assert first["replications"] == 2 and len(first["seeds"]) == 2
    # every series at one x serves the same requests: the same seeds
    assert summary["points"][1]["seeds"] == first["seeds"]
    assert "0 of 8 replications from the cache" in stdout
    assert_redraws_its_own_figure(out, tmp_path)
    again = tmp_path / "again"
    code, stdout, stderr = sweep(*args[:-1], again, "--cache", f"{out}.cache")
    assert code == 0, stderr
    assert "8 of 8 replications from the cache" in stdout
    assert (again / "results.csv").read_text() == (out / "results.csv").read_text()


def test_the_policy_is_an_axis_and_a_scenario_key_beside_a_site_key(files, tmp_path):
    site, scenario = files
    out = tmp_path / "out"
    code, _, stderr = sweep(
        "--site", site, "--scenario", scenario, "--vary", "libraries[0].mount_s=3,30",
        "--vary", "policy.name=single", "--metric", "mean_response_s",
        "--max-replications", "2", "--workers", "1", "--out", out,
    )  # fmt: skip
    assert code == 0, stderr
    response = {float(r["x"]): float(r["mean"]) for r in rows(out)}
    assert response[30.0] > response[3.0]  # a slower robot, a longer response


BAD = [
    ("seed=1,2", "--vary seed=1: no axis of a scenario sweep: each replication's seed comes"),
    ("workload.colour=red", "--vary workload.colour=red: workload.colour: unknown key (known:"),
    ("workload.rate=fast", "--vary workload.rate=fast: workload.rate: 'fast' is not a rate"),
    ("run.scheduler=nope", "--vary run.scheduler=nope: run.scheduler: unknown scheduler 'nope'"),
    ("scheduler=nope", "--vary scheduler=nope: unknown scheduler 'nope'"),
    ("mount-policy=newest", "--vary mount-policy=newest: unknown mount policy 'newest'"),
    ("policy.name=vertical", "--vary policy.name=vertical: workload.schemes: missing key"),
    ("faults.tape_losses[0].at_s=1", "--vary faults.tape_losses[0].at_s: faults: not in the"),
    ("libraries[0].arms=0", "--vary libraries[0].arms=0: libraries[0].arms: must be >= 1"),
]


@pytest.mark.parametrize(("vary", "line"), BAD, ids=[v for v, _ in BAD])
def test_a_bad_axis_of_a_scenario_sweep_is_one_line_before_any_run(files, tmp_path, vary, line):
    site, scenario = files
    out = tmp_path / "out"
    code, _, stderr = sweep("--site", site, "--scenario", scenario, "--vary", vary, "--out", out)
    refused_before_any_run(code, stderr, line, out)


def test_a_sweep_replays_a_log_or_simulates_a_scenario_not_both_nor_neither(files, tmp_path):
    site, scenario = files
    out = tmp_path / "out"
    for given in (["--trace", scenario, "--scenario", scenario], []):
        code, _, stderr = sweep("--site", site, *given, "--vary", "drives=1", "--out", out)
        assert code == 2
        assert stderr.splitlines() == [
            "--trace or --scenario: give one (a log to replay or a scenario to simulate)"
        ]


def test_a_replay_sweep_names_a_scenario_key_as_one(files, tmp_path):
    site, _ = files
    log = tmp_path / "req.csv"
    log.write_text("time,cartridge,duration_s\n0,L9000,40\n")
    out = tmp_path / "out"
    code, _, stderr = sweep(
        "--site", site, "--trace", log, "--vary", "workload.rate=1/h", "--out", out
    )
    assert code == 2
    assert stderr.startswith("--vary workload.rate: a key of a scenario"), stderr
