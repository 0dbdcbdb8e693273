"""``tapesched site new`` writes a site file and ``tapesched check`` reads it back."""

from __future__ import annotations

import json
from pathlib import Path

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
