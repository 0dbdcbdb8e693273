"""A site as a replay's inputs: layout, timings, homes; the shipped ECMWF site is the sample's."""

from __future__ import annotations

import copy

from tapesched.simulator.replay.ecmwf_site import HOMES, SNAPSHOT, ecmwf_site
from tapesched.simulator.replay.sl8500 import SL8500Timings
from tapesched.simulator.replay.trace import read_homes, read_layout
from tapesched.simulator.site.layout import site_homes, site_layout, site_mechanics, site_timings
from tapesched.toolkit.site.reader import read_site, site_from_dict
from tests.conftest import INSTANCES

ECMWF = INSTANCES / "traces" / "ecmwf"

TWO = {
    "format": "tapesched.site/1",
    "name": "two",
    "libraries": [
        {"id": "a", "model": "SL8500", "arms": 2, "slots": 4, "level": 3,
         "drives": [{"model": "T10000D", "count": 2}]},
        {"id": "b", "model": "SL8500", "slots": 6, "level": 1, "drives": []},
    ],
    "complex": {"rails_per_library": 2, "elevator_s": 5, "pass_through_s": 7},
    "pools": [
        {"name": "homed", "format": "T10000D", "ids": ["H1", "H2", "H3"], "home": "a"},
        {"name": "hashed", "format": "T10000D", "ids": "X##", "count": 5},
    ],
    "placement": {"seed": 4},
}  # fmt: skip


def test_the_shipped_ecmwf_site_is_the_snapshot_and_its_map() -> None:
    site = read_site(INSTANCES / "sites" / "ecmwf.json")
    layout = read_layout(ECMWF / SNAPSHOT)
    assert site_layout(site) == layout
    assert site_homes(site).levels == read_homes(ECMWF / HOMES, layout)
    assert site_timings(site) == SL8500Timings()
    assert site == ecmwf_site(ECMWF)


def test_a_site_s_layout_timings_and_homes() -> None:
    site = site_from_dict(TWO)
    assert [(lv.id, lv.slots, lv.drives, lv.robots) for lv in site_layout(site).levels] == [
        (1, 6, (), 1),
        (3, 4, ("a-d00", "a-d01"), 2),
    ]
    timings = site_timings(site)
    assert (timings.exchange_s, timings.load_s, timings.elevator_s) == (11.0, 13.0, 5.0)
    assert (timings.pass_through_s, timings.rails_per_library) == (7.0, 2)
    homes = site_homes(site, ["H1", "X03", "new1", "new2"])
    assert {c: homes.levels[c] for c in ("H1", "H2", "H3")} == dict.fromkeys(("H1", "H2", "H3"), 3)
    assert sorted(homes.levels) == ["H1", "H2", "H3", *(f"X0{n}" for n in range(5)), "new1", "new2"]
    assert (homes.listed, len(homes.homed), len(homes.hashed), len(homes.unlisted)) == (8, 3, 7, 2)
    assert homes.counts(["H1", "X03", "new1"]) == {"homed": 1, "hashed": 2, "unlisted": 1}
    per_level = [list(homes.levels.values()).count(level) for level in (1, 3)]
    assert per_level[1] <= 4 and sum(per_level) == 10
    again = site_homes(site, ["new1"])
    assert all(again.levels[c] == homes.levels[c] for c in again.levels)  # listed: not by trace


def test_each_library_and_drive_of_a_site_keeps_its_own_times() -> None:
    doc = copy.deepcopy(TWO)
    doc["libraries"][1]["mount_s"] = 9  # type: ignore[index]
    doc["libraries"][0]["drives"].append({"model": "LTO-7", "count": 1})  # type: ignore[index]
    arm_s, drive_s = site_mechanics(site_from_dict(doc))
    assert arm_s == {3: (11.0, 11.0), 1: (9.0, 11.0)}
    assert drive_s == {"a-d00": (13.0, 23.0), "a-d01": (13.0, 23.0), "a-d02": (15.0, 20.0)}
