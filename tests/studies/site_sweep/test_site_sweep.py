"""``tapesched sweep`` and the ``site-sweep`` experiment on a tiny site (2 drives, 48
requests): the points, their rows and figure, the checks of the axes, the cache, the sweep
file."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tapesched.cli import main
from tapesched.studies.runner import run_experiment
from tests.studies import assert_redraws_its_own_figure

SITE = {
    "format": "tapesched.site/1",
    "name": "tiny",
    "libraries": [
        {
            "id": "a",
            "model": "TS4500",
            "arms": 1,
            "slots": 20,
            "drives": [{"model": "LTO-9", "count": 2}],
        },
    ],
    "pools": [{"name": "p", "format": "LTO-9", "ids": "L9##", "count": 10, "home": "a"}],
}


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    """The tiny site and a log of 48 reads of 40 s, one every 150 s, each cartridge twice in
    a row."""
    site = tmp_path / "site.json"
    site.write_text(json.dumps(SITE))
    log = tmp_path / "req.csv"
    rows = [f"{150 * i},L90{(i // 2) % 6},40" for i in range(48)]
    log.write_text("time,cartridge,duration_s\n" + "\n".join(rows) + "\n")
    return site, log


def sweep(*args: object) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["sweep", *map(str, args)])
    return result.exit_code, result.stdout, result.stderr


def rows(out: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO((out / "results.csv").read_text())))


def refused_before_any_run(code: int, stderr: str, line: str, out: Path) -> None:
    """A bad sweep: exit 2, the one ``line``, and neither the directory nor its cache made."""
    assert code == 2
    assert len(stderr.splitlines()) == 1 and stderr.startswith(line), stderr
    assert not out.exists() and not Path(f"{out}.cache").exists()


def test_drives_by_mount_policy_writes_four_points_a_metric_then_reads_them_back(files, tmp_path):
    site, log = files
    out = tmp_path / "out"
    args = ["--site", site, "--trace", log, "--vary", "drives=1,2"]
    args += ["--vary", "mount-policy=lru,at-once", "--workers", "1", "--out", out]
    code, stdout, stderr = sweep(*args)
    assert code == 0, stderr
    written = rows(out)
    assert [(r["metric"], r["series"], r["x"]) for r in written[:2]] == [
        ("mean_latency_s", "mount-policy=lru", "1.0"),
        ("mounts", "mount-policy=lru", "1.0"),
    ]
    for metric in ("mean_latency_s", "mounts"):
        mine = [r for r in written if r["metric"] == metric]
        assert len(mine) == 4 and {r["x_name"] for r in mine} == {"drives"}
        assert {r["series"] for r in mine} == {"mount-policy=lru", "mount-policy=at-once"}
        assert {(r["replications"], r["half_width"], r["saturated"]) for r in mine} == {
            ("1", "", "false")
        }
    mounts = {(r["series"], r["x"]): float(r["mean"]) for r in written if r["metric"] == "mounts"}
    assert mounts[("mount-policy=at-once", "2.0")] == 48  # every read mounts its cartridge
    assert mounts[("mount-policy=lru", "2.0")] < 48  # kept cartridges are hits
    assert (out / "figure.png").read_bytes().startswith(b"\x89PNG")
    summary = json.loads((out / "summary.json").read_text())
    assert [p["values"] for p in summary["points"]][1] == {"drives": 1, "mount-policy": "at-once"}
    assert summary["points"][3]["summary"]["drives"] == 2
    assert summary["points"][0]["homes"]["homed"] == 6
    assert "0 of 4 points from the cache" in stdout
    assert_redraws_its_own_figure(out, tmp_path)
    again = tmp_path / "again"
    code, stdout, stderr = sweep(*args[:-1], again, "--cache", f"{out}.cache")
    assert code == 0, stderr
    assert "4 of 4 points from the cache" in stdout
    assert (again / "results.csv").read_text() == (out / "results.csv").read_text()


BAD_AXES = [
    ("nodes=1,2", "--vary nodes: unknown axis (run options: drives, scheduler"),
    ("drives", "--vary drives: no value"),
    ("drives=1,", "--vary drives=1,: no value"),
    ("drives=1;drives=2", "--vary drives: an axis given twice"),
    ("drives=0", "--vary drives=0: must be >= 1, got 0"),
    ("drives=1.5", "--vary drives=1.5: expected an integer, got 1.5"),
    ("mount-policy=newest", "--vary mount-policy=newest: unknown mount policy 'newest'"),
    ("dismount-at-once=yes", "--vary dismount-at-once=yes: expected true or false, got 'yes'"),
    ("libraries[0].arms=0", "--vary libraries[0].arms=0: libraries[0].arms: must be >= 1, got 0"),
    (
        "libraries[2].arms=1",
        "--vary libraries[2].arms: libraries[2]: no such item (the site has 1)",
    ),
    ("complex.elevator_s=3", "--vary complex.elevator_s: complex: not in the site file"),
    ("pools[0].colour=red", "--vary pools[0].colour=red: pools[0]: unknown key 'colour'"),
]


@pytest.mark.parametrize(("vary", "line"), BAD_AXES, ids=[v for v, _ in BAD_AXES])
def test_a_bad_axis_is_one_line_naming_it_before_any_run(files, tmp_path, vary, line):
    site, log = files
    out = tmp_path / "out"
    code, _, stderr = sweep("--site", site, "--trace", log, "--vary", vary, "--out", out)
    refused_before_any_run(code, stderr, line, out)


def test_a_bad_metric_and_a_missing_site_are_one_line_each(files, tmp_path):
    site, log = files
    code, _, stderr = sweep(
        "--site",
        site,
        "--trace",
        log,
        "--vary",
        "drives=1",
        "--metric",
        "speed",
        "--out",
        tmp_path / "o",
    )
    assert (code, stderr.splitlines()[0]) == (
        2,
        "--metric: unknown metric 'speed' (known: mounts, hits, "
        "cross_level_mounts, mean_latency_s, median_latency_s, p95_latency_s, max_latency_s, "
        "mean_mount_latency_s, drive_busy_share_over_horizon, arm_busy_share_over_horizon, "
        "backlog_end)",
    )
    code, _, stderr = sweep("--trace", log, "--vary", "drives=1", "--out", tmp_path / "o")
    assert (code, stderr) == (2, "--site: required, and missing\n")


def test_a_slower_mount_on_the_site_raises_the_mean_latency(files):
    site, log = files
    results = run_experiment(
        "site-sweep", site=str(site), trace=str(log), vary="libraries[0].mount_s=3,30", workers=1
    )
    latency = {r.x: r.estimate.mean for r in results.rows if r.metric == "mean_latency_s"}
    assert latency[30.0] > latency[3.0] > 0
    assert {r.series for r in results.rows} == {"all"}


def test_an_axis_of_names_alone_is_on_x_by_position(files):
    site, log = files
    results = run_experiment(
        "site-sweep",
        site=str(site),
        trace=str(log),
        vary="mount-policy=lru,at-once;dismount-at-once=false",
        metric="mounts,hits",
        workers=1,
    )
    assert [(r.x_name, r.x, r.series, r.metric) for r in results.rows[:2]] == [
        ("mount-policy", 0.0, "dismount-at-once=false", "mounts"),
        ("mount-policy", 0.0, "dismount-at-once=false", "hits"),
    ]
    assert [r.x for r in results.rows] == [0.0, 0.0, 1.0, 1.0]


def test_a_bad_cache_entry_is_warned_about_and_run_again(files, tmp_path):
    site, log = files
    out, cache = str(tmp_path / "out"), tmp_path / "kept"
    settings = {
        "site": str(site),
        "trace": str(log),
        "vary": "drives=2",
        "workers": 1,
        "cache": str(cache),
    }
    first = run_experiment("site-sweep", **settings)
    (entry,) = cache.iterdir()
    kept = json.loads(entry.read_text())
    kept["summary"]["mounts"] = -1
    entry.write_text(json.dumps(kept))
    warned: list[str] = []
    from tapesched.studies.experiment import Show

    again = run_experiment("site-sweep", out, show=Show(warn=warned.append), **settings)
    assert again.rows == first.rows
    assert warned == [
        f"warning: {entry}: summary.mounts: expected a count, got -1; the point is run again"
    ]
    assert (
        json.loads(entry.read_text())["summary"]["mounts"]
        == first.summary["points"][0]["summary"]["mounts"]
    )


def test_the_sweep_file_gives_the_settings_and_the_options_win(files, tmp_path):
    site, log = files
    sweep_file = tmp_path / "sweep.json"
    document = {
        "format": "tapesched.sweep/1",
        "site": site.name,
        "trace": log.name,
        "vary": {"drives": [1, 2], "dismount-at-once": [True]},
        "metrics": ["mounts", "hits"],
        "limit": 10,
    }
    sweep_file.write_text(json.dumps(document))
    out = tmp_path / "out"
    code, _, stderr = sweep(sweep_file, "--limit", "20", "--workers", "1", "--out", out)
    assert code == 0, stderr
    written = rows(out)
    assert [(r["x"], r["series"], r["metric"], r["mean"]) for r in written[:2]] == [
        ("1.0", "dismount-at-once=true", "mounts", "20.0"),
        ("1.0", "dismount-at-once=true", "hits", "0.0"),
    ]
    document["vary"] = {"drives": []}
    sweep_file.write_text(json.dumps(document))
    code, _, stderr = sweep(sweep_file, "--out", out)
    assert code == 2
    assert stderr.splitlines() == [
        f"{sweep_file}: vary: drives: expected a non-empty list of values, got []",
    ]
    document["vary"] = {"drives": [1]}
    document["scenario"] = "recalls.json"
    sweep_file.write_text(json.dumps(document))
    code, _, stderr = sweep(sweep_file, "--out", out)
    assert code == 2
    assert stderr.splitlines() == [
        f"{sweep_file}: give one of trace (a log to replay) and scenario (a scenario to simulate)"
    ]


@pytest.mark.pool
def test_worker_processes_give_the_rows_of_one_process(files, tmp_path):
    site, log = files
    settings = {"site": str(site), "trace": str(log), "vary": "drives=1,2;mount-policy=lru,at-once"}
    alone = run_experiment("site-sweep", workers=1, **settings)
    pooled = run_experiment("site-sweep", workers=2, **settings)
    assert pooled.rows == alone.rows
