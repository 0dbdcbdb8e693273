"""`tapesched catalogue`: the technology table as two tables, or as JSON with its sources."""

from __future__ import annotations

import json

from click.testing import CliRunner

from tapesched.cli import main
from tapesched.toolkit.hardware.technology import (
    DRIVE_FIGURES,
    DRIVES,
    LIBRARIES,
    LIBRARY_FIGURES,
    TAPE_FORMAT_FIGURES,
    TAPE_FORMATS,
)

CURRENT_DRIVES = {"LTO-7", "LTO-8", "LTO-9", "LTO-10", "TS1160", "TS1170", "T10000D"}
LIBRARY_NAMES = {"TS4500", "TS4300", "SL8500", "SL3000", "TFinity", "Scalar-i6000"}


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["catalogue", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout


def test_json_lists_every_row_and_each_figure_with_its_source():
    code, out = run("--json")
    assert code == 0
    doc = json.loads(out)
    assert set(doc) == {"drives", "libraries", "tape_formats"}
    drives = {d["name"]: d for d in doc["drives"]}
    libraries = {lib["name"]: lib for lib in doc["libraries"]}
    assert CURRENT_DRIVES <= set(drives) and list(drives) == list(DRIVES)
    assert LIBRARY_NAMES <= set(libraries) and list(libraries) == list(LIBRARIES)
    assert [t["name"] for t in doc["tape_formats"]] == list(TAPE_FORMATS)
    kinds = [(DRIVE_FIGURES, drives.values()), (LIBRARY_FIGURES, libraries.values())]
    kinds.append((TAPE_FORMAT_FIGURES, doc["tape_formats"]))
    for names, row in ((names, row) for names, rows in kinds for row in rows):
        given = [k for k in names if row[k] is not None]
        assert set(row["sources"]) == set(given), row["name"]
        assert all(row["sources"][k].strip() for k in given)
        assert row["estimates"] == [k for k in given if row["sources"][k].startswith("estimate")]
    lto10 = drives["LTO-10"]
    assert (lto10["rate_mb_s"], lto10["capacity_mb"], lto10["load_s"]) == (400.0, 3e7, 12.0)
    assert "IBM documentation" in lto10["sources"]["load_s"] and lto10["estimates"] == []
    assert drives["TS1170"]["estimates"] == ["load_s", "unload_s", "half_tape_locate_s"]
    ts4500 = libraries["TS4500"]
    assert (ts4500["mount_s"], ts4500["arms"], ts4500["default_drive"]) == (3.0, 1, "LTO-9")
    assert "less than 3 s" in ts4500["sources"]["mount_s"]
    sl8500 = libraries["SL8500"]
    assert (sl8500["pass_through_s"], sl8500["default_drive"]) == (30.0, "T10000D")
    assert "pass_through_s" in sl8500["estimates"] and ts4500["pass_through_s"] is None


def test_the_tables_mark_estimates_and_say_where_the_sources_are():
    code, out = run()
    assert code == 0
    lines = out.splitlines()
    rows = {line.split("│")[1].strip(): line.split("│") for line in lines if "│" in line}
    assert CURRENT_DRIVES | LIBRARY_NAMES <= set(rows)
    # LTO-9: every figure published; TS1170: load, unload and locate are estimates.
    assert [c.strip() for c in rows["LTO-9"][3:8]] == ["400", "18", "17", "30", "45"]
    assert [c.strip() for c in rows["TS1170"][3:8]] == ["400", "50", "13*", "23*", "60*"]
    # Libraries: arms, mount, dismount, pass-through, default drive.
    assert [c.strip() for c in rows["TS4500"][3:8]] == ["1", "3", "3", "-", "LTO-9"]
    assert [c.strip() for c in rows["SL8500"][3:8]] == ["-", "11", "11", "30*", "T10000D"]
    assert rows["TFinity"][4].strip().endswith("*")
    assert lines[-1] == "* an estimate; tapesched catalogue --json gives every figure's source."
