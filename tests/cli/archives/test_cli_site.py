"""``tapesched site new`` writes a site file and ``tapesched check`` reads it back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tapesched.cli import main
from tapesched.toolkit.site.reader import read_site

NEW = ["site", "new", "--library", "SL8500", "--drives", "T10000D:16", "--tapes", "T10000D:3000"]
SUMMARY = (
    "site 'site': 1 library (2 arms), 16 drives (T10000D 16), 3,000 cartridges in 1 pool "
    "(T10000D), 3,750 slots"
)


def test_site_new_writes_a_site_that_check_reads(tmp_path: Path) -> None:
    out = tmp_path / "site.json"
    runner = CliRunner()
    made = runner.invoke(main, [*NEW, "--arms", "2", "--out", str(out)])
    assert made.exit_code == 0, made.output
    assert made.output == f"wrote {out}: {SUMMARY}\n"
    site = read_site(out)
    assert [d.id for d in site.drives][::15] == ["lib0-d00", "lib0-d15"]
    assert str(site.pools[0].pattern) == "T10000D####"
    checked = runner.invoke(main, ["check", str(out)])
    assert (checked.exit_code, checked.output) == (0, f"ok: {SUMMARY}\n")
    document = json.loads(runner.invoke(main, ["check", str(out), "--json"]).output)
    assert document["kind"] == "site" and document["format"] == "tapesched.site/1"
    assert (document["drives"], document["cartridges"], document["slots"]) == (16, 3000, 3750)
    assert document["drive_models"] == {"T10000D": 16} and document["formats"] == ["T10000D"]


def test_site_new_without_out_prints_the_file() -> None:
    printed = CliRunner().invoke(main, [*NEW, "--slots", "4000", "--name", "x"])
    assert printed.exit_code == 0
    document = json.loads(printed.stdout)
    assert document["name"] == "x" and document["libraries"][0]["slots"] == 4000


def test_site_new_with_a_bad_model_is_one_line_and_exit_2() -> None:
    bad = CliRunner().invoke(main, [*NEW, "--library", "SL9999"])
    assert bad.exit_code == 2
    assert bad.stderr.splitlines() == [
        "--library: unknown library 'SL9999' (known: " + bad.stderr.split("(known: ")[1].strip()
    ]
    assert "SL8500" in bad.stderr
    count = CliRunner().invoke(main, [*NEW[:-1], "T10000D:0"])
    assert count.exit_code == 2
    assert count.stderr == "--tapes: 'T10000D:0' is not MODEL:COUNT with a count >= 1\n"


def test_check_a_bad_site_says_every_problem_in_a_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    document = {
        "format": "tapesched.site/1",
        "name": "bad",
        "libraries": [
            {"id": "a", "model": "SL8500", "slots": 1, "drives": [{"model": "LTO-11", "count": 1}]}
        ],
        "pools": [{"name": "p", "format": "LTO-7", "ids": "P#", "count": 2, "fill": 2}],
    }
    path.write_text(json.dumps(document))
    bad = CliRunner().invoke(main, ["check", str(path)])
    assert bad.exit_code == 2
    assert bad.stderr.splitlines() == [
        f"{path}: libraries[0].drives[0].model: unknown drive 'LTO-11' (known: "
        + bad.stderr.split("(known: ")[1].splitlines()[0],
        f"{path}: pools[0].fill: must be within (0, 1], got 2.0",
    ]


LOG = (
    "time,cartridge,offset_mb,size_mb\n"
    "2026-11-02T08:00:00Z,L90007,1200.5,8000\n"
    "2026-11-02T08:00:40Z,A00001,0,2500\n"
    "2026-11-02T08:03:10Z,L90007,90000,100\n"
    "2026-11-02T08:05:00Z,B77777,5000000,40000\n"
)


def test_a_new_site_takes_a_log_of_cartridges_it_does_not_list(tmp_path: Path) -> None:
    """The issue's walk: site new, check, instance, solve, verify; replay --site --json."""
    site, log = tmp_path / "site.json", tmp_path / "req.csv"
    log.write_text(LOG)
    runner = CliRunner()
    new = ["site", "new", "--library", "TS4500", "--arms", "2", "--drives", "LTO-9:16"]
    made = runner.invoke(main, [*new, "--tapes", "LTO-9:3000", "--out", str(site)])
    assert made.exit_code == 0, made.output
    assert runner.invoke(main, ["check", str(site)]).exit_code == 0
    inst, sched = tmp_path / "i.json", tmp_path / "s.json"
    built = runner.invoke(main, ["instance", str(site), str(log), "--out", str(inst)])
    assert built.exit_code == 0, built.output
    assert "4 requests" in built.output and "3 tapes" in built.output
    assert "3 by seeded hash (seed 0), of which 2 in no pool" in built.output
    solved = runner.invoke(main, ["solve", str(inst), "--solver", "greedy", "--out", str(sched)])
    assert solved.exit_code == 0, solved.output
    assert runner.invoke(main, ["verify", str(inst), str(sched)]).exit_code == 0
    replayed = runner.invoke(main, ["replay", str(log), "--site", str(site), "--json"])
    assert replayed.exit_code == 0, replayed.output
    document = json.loads(replayed.stdout)
    assert (document["drives"], document["requests"], document["mounts"]) == (16, 4, 3)
    assert document["homes"] == {"file": None, "seed": 0, "homed": 0, "hashed": 3, "unlisted": 2}
    # An empty drive: the arm's move (3 s) and the LTO-9 load (17 s); the second request
    # for L90007 waits for nothing: its tape is already in a drive.
    assert document["latencies_s"][:2] == [20.0, 20.0] and document["mounted"][2] is False
    table = runner.invoke(main, ["replay", str(log), "--site", str(site), "--drives", "2"])
    assert table.exit_code == 0 and "of which cartridges in no pool" in table.output


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["replay", "LOG"], "replay: give a LAYOUT_FILE or --site SITE, one of them"),
        (["replay", "LOG", "SITE", "--site", "SITE"], "replay: give a LAYOUT_FILE or --site"),
        (["replay", "LOG", "SITE", "--drives", "2", "--columns", "time=ts"], "--columns: names"),
        (["replay", "LOG", "--site", "SITE", "--columns", "when=ts"], "--columns: unknown column"),
        (["replay", "LOG", "--site", "SITE", "--drives", "17"], "--drives: {site} has 16 drives"),
        (["instance", "SITE", "LOG", "--columns", "time"], "--columns: 'time' has no '='"),
    ],
)
def test_a_bad_site_run_is_one_line_and_exit_2(tmp_path: Path, args: list[str], line: str) -> None:
    site, log = tmp_path / "site.json", tmp_path / "req.csv"
    log.write_text(LOG)
    runner = CliRunner()
    new = ["site", "new", "--library", "TS4500", "--drives", "LTO-9:16", "--tapes", "LTO-9:30"]
    assert runner.invoke(main, [*new, "--out", str(site)]).exit_code == 0
    named = [str(site) if a == "SITE" else str(log) if a == "LOG" else a for a in args]
    result = runner.invoke(main, named)
    assert result.exit_code == 2, result.output
    [printed] = result.stderr.splitlines()
    assert printed.startswith(line.format(site=site))
