"""The ECMWF trace importer: requests and layout files, their errors, and home levels."""

from __future__ import annotations

import bz2
import json
from collections import Counter
from pathlib import Path

import pytest

from tapesched.simulator.replay.trace import (
    MAX_PROBLEMS,
    Level,
    LibraryLayout,
    TraceRequest,
    home_levels,
    homes_from_dict,
    layout_from_dict,
    place_cartridges,
    read_homes,
    read_layout,
    read_requests,
)
from tapesched.toolkit.errors import InputError

ECMWF = Path(__file__).resolve().parents[3] / "instances" / "traces" / "ecmwf"
TRACE = ECMWF / "io_events_sample_10k.csv.bz2"
LAYOUT = ECMWF / "sl8500_from_snap20111001.json.bz2"
MAP = ECMWF / "crtmapping.json"

GOOD_LINES = [
    "CB1172;20110819T001558;304",
    "WB2950;20110819T001601;188",
    "CB1172;20110819T001601;0",
    "ZB0027;20110820T001611;216",
]


def write(path: Path, lines: list[str]) -> Path:
    text = "\n".join(lines) + "\n"
    if path.suffix == ".bz2":
        path.write_bytes(bz2.compress(text.encode()))
    else:
        path.write_text(text)
    return path


def the_one_error(path: Path) -> str:
    """The one line of the error reading the trace ``path`` raises."""
    with pytest.raises(InputError) as info:
        read_requests(path)
    (message,) = info.value.lines()
    return message


@pytest.mark.parametrize("name", ["trace.csv", "trace.csv.bz2"])
def test_requests_arrive_relative_to_the_first_in_file_order(tmp_path, name):
    requests = read_requests(write(tmp_path / name, [*GOOD_LINES, ""]))
    assert requests == (
        TraceRequest("CB1172", 0.0, 304.0),
        TraceRequest("WB2950", 3.0, 188.0),
        TraceRequest("CB1172", 3.0, 0.0),
        TraceRequest("ZB0027", 86413.0, 216.0),
    )


@pytest.mark.parametrize(
    ("line", "where", "expected"),
    [
        (
            "CB1172;20110819T001558",
            "",
            "expected CARTRIDGE;YYYYMMDDTHHMMSS;SECONDS (3 fields), got 2",
        ),
        ("CB1172;20110819T001558;3;4", "", "got 4 fields"),
        ("CB1172,20110819T001558,304", "", "got 1 field:"),
        (";20110819T001558;304", ".cartridge", "a cartridge id is a non-empty word, got ''"),
        ("CB 1172;20110819T001558;304", ".cartridge", "non-empty word, got 'CB 1172'"),
        ("CB1172;2011-08-19 00:15:58;304", ".time", "got '2011-08-19 00:15:58'"),
        ("CB1172;20110819001558;304", ".time", "expected YYYYMMDDTHHMMSS"),
        ("CB1172;20110230T001558;304", ".time", "no such date or time: '20110230T001558'"),
        ("CB1172;20110819T246000;304", ".time", "no such date or time"),
        ("CB1172;20110819T001558;-5", ".seconds", "must be >= 0, got '-5'"),
        ("CB1172;20110819T001558;abc", ".seconds", "expected a number, got 'abc'"),
        ("CB1172;20110819T001558;nan", ".seconds", "expected a number, got 'nan'"),
        ("CB1172;20110819T001558;inf", ".seconds", "must be <= 1e+09 s, got 'inf'"),
        ("CB1172;20110818T001558;30", ".time", "is earlier than the line before (20110819T001601)"),
    ],
)
def test_a_bad_line_is_one_error_naming_the_file_the_line_and_the_fault(
    tmp_path, line, where, expected
):
    path = write(tmp_path / "trace.csv", [GOOD_LINES[0], GOOD_LINES[1], line])
    message = the_one_error(path)
    assert message.startswith(f"{path}: line 3{where}: ")
    assert expected in message


def test_every_bad_line_is_reported_up_to_a_cap_then_counted(tmp_path):
    path = write(tmp_path / "trace.csv.bz2", [f"C{i};bad;1" for i in range(MAX_PROBLEMS + 5)])
    with pytest.raises(InputError) as info:
        read_requests(path)
    lines = info.value.lines()
    assert len(lines) == MAX_PROBLEMS + 1
    assert lines[1].startswith(f"{path}: line 2.time: expected YYYYMMDDTHHMMSS, got 'bad'")
    assert lines[-1] == f"{path}: 5 more problems not shown"


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("empty.csv", b"\n\n", "no request in the file"),
        ("binary.csv", b"CB1172;20110819T001558;304\n\xff\xfe;x;1\n", "line 2: not UTF-8 text"),
        ("fake.csv.bz2", b"CB1172;20110819T001558;304\n", "cannot read file: Invalid data stream"),
        ("cut.csv.bz2", bz2.compress(b"CB1172;20110819T001558;304\n" * 50)[:40], "truncated"),
    ],
)
def test_unusable_files_are_one_error_naming_the_file(tmp_path, name, content, expected):
    path = tmp_path / name
    path.write_bytes(content)
    message = the_one_error(path)
    assert message.startswith(f"{path}: ")
    assert expected in message


def test_a_missing_file_is_one_error(tmp_path):
    with pytest.raises(InputError, match=r"missing\.csv: cannot read file: No such file"):
        read_requests(tmp_path / "missing.csv")


def level_body(slots: int, drives: list[str], robots: object = 1) -> dict[str, object]:
    return {
        "libraries": {f"L_{i:03d}": {} for i in range(slots)},
        "drives": {d: {} for d in drives},
        "robots": robots,
    }


def small_layout_dict() -> dict[str, object]:
    return {
        "level": {
            "1": level_body(3, ["D_01_01", "D_01_00"]),
            "0": level_body(2, ["D_00_00"]),
            "4": level_body(5, []),
        }
    }


@pytest.mark.parametrize("name", ["layout.json", "layout.json.bz2"])
def test_layout_levels_in_order_with_slot_counts_sorted_drives_and_robots(tmp_path, name):
    path = tmp_path / name
    text = json.dumps(small_layout_dict())
    path.write_bytes(bz2.compress(text.encode()) if name.endswith(".bz2") else text.encode())
    layout = read_layout(path)
    assert layout == LibraryLayout(
        (
            Level(0, 2, ("D_00_00",), 1),
            Level(1, 3, ("D_01_00", "D_01_01"), 1),
            Level(4, 5, (), 1),
        )
    )
    assert (layout.slots, layout.drives) == (10, 3)
    assert layout.level(4).slots == 5


def mutated(change) -> dict:
    data = small_layout_dict()
    change(data)
    return data


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ([1, 2], ["expected an object, got [1, 2]"]),
        ({}, ["missing key 'level'"]),
        (
            {"level": {}, "extra": 1},
            ["extra: unknown key 'extra'", "level: must not be empty"],
        ),
        ({"level": []}, ["level: expected an object, got []"]),
        ({"level": {}}, ["level: must not be empty"]),
        (
            mutated(lambda d: d["level"].update({"x": level_body(1, [])})),
            ["level.x: a level number is an integer >= 0, got 'x'"],
        ),
        (
            mutated(lambda d: d["level"].update({"-1": level_body(1, [])})),
            ["level.-1: a level number is an integer >= 0, got '-1'"],
        ),
        (
            mutated(lambda d: d["level"]["0"].update(robots=0)),
            ["level.0.robots: must be >= 1, got 0"],
        ),
        (
            mutated(lambda d: d["level"]["0"].update(robots="1")),
            ["level.0.robots: expected an integer, got '1'"],
        ),
        (
            mutated(lambda d: d["level"]["0"].update(robots=True)),
            ["level.0.robots: expected an integer, got True"],
        ),
        (
            mutated(lambda d: d["level"]["0"].update(drives=["D_00_00"])),
            ["level.0.drives: expected an object, got ['D_00_00']"],
        ),
        (
            mutated(lambda d: d["level"]["0"]["libraries"].update(L_000=3)),
            ["level.0.libraries.L_000: expected an object, got 3"],
        ),
        (
            mutated(lambda d: d["level"]["0"].pop("robots")),
            ["level.0: missing key 'robots'"],
        ),
        (
            mutated(lambda d: d["level"]["0"].update(arms=2)),
            ["level.0.arms: unknown key 'arms'"],
        ),
        (
            mutated(lambda d: d["level"]["4"]["drives"].update(D_00_00={})),
            ["level.4.drives.D_00_00: drive also on level.0"],
        ),
        (
            mutated(lambda d: d["level"]["1"]["drives"].update({"": {}})),
            ["level.1.drives: a drive id is a non-empty word, got ''"],
        ),
    ],
)
def test_a_bad_layout_names_the_json_path_of_each_bad_value(data, expected):
    with pytest.raises(InputError) as info:
        layout_from_dict(data, "lay.json")
    assert info.value.lines() == [f"lay.json: {line}" for line in expected]


def test_bad_json_is_one_error_naming_the_file(tmp_path):
    path = tmp_path / "layout.json"
    path.write_text('{"level": {"0": ')
    with pytest.raises(InputError) as info:
        read_layout(path)
    (message,) = info.value.lines()
    assert message.startswith(f"{path}: bad JSON: ")


def test_home_levels_are_seeded_stable_and_independent_of_the_other_cartridges():
    layout = layout_from_dict(small_layout_dict())
    names = ["A", "B", "C", "D"]
    homes = home_levels(names, layout, seed=3)
    assert homes == home_levels(reversed(names * 2), layout, seed=3)
    assert set(homes.values()) <= {0, 1, 4}
    assert {n: homes[n] for n in ("A", "B")} == home_levels(["A", "B"], layout, seed=3)
    seeds = [home_levels(names, layout, seed=s) for s in range(20)]
    assert len({tuple(h.values()) for h in seeds}) > 1


def test_home_levels_follow_the_slots_and_overflow_to_the_next_level():
    layout = LibraryLayout((Level(0, 1000, (), 1), Level(1, 3000, (), 1)))
    counts = Counter(home_levels([f"c{i}" for i in range(2000)], layout).values())
    assert counts[0] == pytest.approx(500, abs=70)
    tight = LibraryLayout((Level(0, 2, (), 1), Level(1, 1, (), 1), Level(2, 1, (), 1)))
    full = Counter(home_levels(["a", "b", "c", "d"], tight).values())
    assert full == {0: 2, 1: 1, 2: 1}
    with pytest.raises(ValueError, match="5 cartridges do not fit in the layout's 4 slots"):
        home_levels(["a", "b", "c", "d", "e"], tight)


def test_the_shipped_trace_and_layout_read_whole():
    requests = read_requests(TRACE)
    assert len(requests) == 10_000
    assert requests[0] == TraceRequest("CB1172", 0.0, 304.0)
    assert requests[-1].arrival_s == 51_070.0
    assert len({r.cartridge for r in requests}) == 1407
    layout = read_layout(LAYOUT)
    assert [lv.id for lv in layout.levels] == list(range(16))
    assert all(lv.slots == 2522 and lv.robots == 1 for lv in layout.levels)
    assert [len(lv.drives) for lv in layout.levels] == [
        *(13, 14, 15, 14, 14, 15, 15, 14, 15, 13, 15, 13),
        *(0, 0, 0, 0),
    ]
    assert layout.drives == 170


def test_the_shipped_layout_maps_no_cartridge_to_any_slot():
    data = json.loads(bz2.decompress(LAYOUT.read_bytes()))
    entries = [v for level in data["level"].values() for v in level["libraries"].values()]
    assert len(entries) == 16 * 2522
    assert all(entry == {} for entry in entries)


MAP_LAYOUT = LibraryLayout((Level(0, 2, ("D0",), 1), Level(4, 3, (), 1)))
"""Two slots on level 0 (which has the drive), three on level 4 (library 1)."""


def test_a_cartridge_map_gives_levels_by_cartridge_id_without_the_slash():
    homes = homes_from_dict({"RB06/82": 4, "CB1172": 0, "WB29/50": 4}, MAP_LAYOUT)
    assert homes == {"RB0682": 4, "CB1172": 0, "WB2950": 4}


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ([["RB06/82", 4]], ["expected an object, got [['RB06/82', 4]]"]),
        ({"RB06/82": "4"}, ["RB06/82: expected an integer, got '4'"]),
        ({"RB06/82": True}, ["RB06/82: expected an integer, got True"]),
        ({"RB06/82": -1}, ["RB06/82: must be >= 0, got -1"]),
        ({"RB06/82": 2.0}, ["RB06/82: expected an integer, got 2.0"]),
        ({"RB06/82": 1}, ["RB06/82: level 1 is not in the layout (levels 0, 4)"]),
        ({"RB 06/82": 0}, ["RB 06/82: a cartridge id is a non-empty word, got 'RB 06/82'"]),
        ({"": 0}, ["\"\": a cartridge id is a non-empty word, got ''"]),
        ({"RB/06/82": 0}, ["RB/06/82: expected a cartridge id with at most one '/' inside"]),
        ({"/RB0682": 0}, ["/RB0682: expected a cartridge id with at most one '/' inside"]),
        ({"RB06/82": 0, "RB0682": 4}, ["RB0682: cartridge 'RB0682' also at 'RB06/82'"]),
        ({"A": 0, "B": 0, "C": 0}, ["level 0: 3 cartridges but 2 slots"]),
    ],
)
def test_a_bad_cartridge_map_names_the_key_of_each_bad_entry(data, expected):
    with pytest.raises(InputError) as info:
        homes_from_dict(data, MAP_LAYOUT, "map.json")
    lines = info.value.lines()
    assert len(lines) == len(expected)
    for line, start in zip(lines, expected, strict=True):
        assert line.startswith(f"map.json: {start}")


def test_a_cartridge_map_file_that_cannot_be_read_is_one_error(tmp_path):
    with pytest.raises(InputError, match=r"gone\.json: cannot read file: No such file"):
        read_homes(tmp_path / "gone.json", MAP_LAYOUT)
    path = tmp_path / "map.json.bz2"
    path.write_bytes(bz2.compress(b'{"RB06/82": '))
    with pytest.raises(InputError) as info:
        read_homes(path, MAP_LAYOUT)
    (message,) = info.value.lines()
    assert message.startswith(f"{path}: bad JSON: ")


def test_cartridges_the_map_does_not_name_are_hashed_into_the_slots_left_free():
    # The map fills level 0; every other cartridge must go to level 4, and
    # the map's cartridges keep their slots though the trace never asks for them.
    mapped = {"A": 0, "B": 0}
    homes = place_cartridges(["A", "X", "Y", "Z"], MAP_LAYOUT, mapped, seed=5)
    assert homes.levels == {"A": 0, "B": 0, "X": 4, "Y": 4, "Z": 4}
    assert (homes.mapped, homes.hashed) == (1, 3)
    without = place_cartridges(["A", "X"], MAP_LAYOUT, seed=5)
    assert without.levels == home_levels(["A", "X"], MAP_LAYOUT, seed=5)
    assert (without.mapped, without.hashed) == (0, 2)
    with pytest.raises(ValueError, match="4 cartridges do not fit in the layout's 3 slots left"):
        place_cartridges(["W", "X", "Y", "Z"], MAP_LAYOUT, mapped)


def test_the_shipped_map_places_every_cartridge_of_the_sample_on_a_level_with_drives():
    layout = read_layout(LAYOUT)
    mapped = read_homes(MAP, layout)
    assert len(mapped) == 10_028
    assert mapped["RB0682"] == 2
    assert set(mapped.values()) == set(range(12))
    assert all(layout.level(level).drives for level in mapped.values())
    cartridges = {r.cartridge for r in read_requests(TRACE)}
    homes = place_cartridges(cartridges, layout, mapped)
    # Measured: the map names all 1,407 cartridges of the sample.
    assert (homes.mapped, homes.hashed) == (1407, 0)
    assert homes.levels == mapped
