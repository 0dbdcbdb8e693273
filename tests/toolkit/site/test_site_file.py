"""The site file (toolkit.site): read with every problem at its path, written back, built."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tapesched.toolkit.errors import InputError, SettingsError
from tapesched.toolkit.site.model import SiteCacheClass, SiteMovers
from tapesched.toolkit.site.new import new_site
from tapesched.toolkit.site.reader import site_from_dict, site_to_dict
from tapesched.toolkit.site.summary import describe_site

GOOD: dict[str, Any] = {
    "format": "tapesched.site/1",
    "name": "two",
    "libraries": [
        {
            "id": "a",
            "model": "SL8500",
            "slots": 6,
            "drives": [
                {"model": "T10000D", "count": 2},
                {"model": "LTO-7", "ids": ["x1"], "load_s": 20},
                {"model": "T10000D", "count": 1},
            ],
        },
        {"id": "b", "arms": 2, "mount_s": 5, "dismount_s": 6, "slots": 4, "level": 7},
    ],
    "complex": {"rails_per_library": 4, "elevator_s": 20, "pass_through_s": 30},
    "pools": [
        {"name": "p", "format": "T10000D", "ids": "C##", "count": 3, "first": 8, "home": "a"},
        {"name": "q", "format": "LTO-7", "ids": ["E1", "E2"], "fill": 0.5},
    ],
    "placement": {"seed": 3},
}


def bad(path: str, value: Any) -> dict[str, Any]:
    """GOOD with the value at the dotted ``path`` set (``None``: the key removed)."""
    doc = copy.deepcopy(GOOD)
    *parents, last = path.split(".")
    node: Any = doc
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    if value is None:
        del node[last]
    elif isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return doc


def test_a_site_resolves_its_drives_cartridges_and_defaults() -> None:
    site = site_from_dict(GOOD)
    a, b = site.libraries
    assert (a.arms, a.mount_s, a.level, b.arms, b.dismount_s, b.level) == (1, 11.0, 0, 2, 6.0, 7)
    assert [d.id for d in a.drives] == ["a-d00", "a-d01", "x1", "a-d02"]
    assert [(d.model, d.load_s, d.rate_mb_s) for d in a.drives[1:3]] == [
        ("T10000D", 13.0, 252.0),
        ("LTO-7", 20.0, 300.0),
    ]
    assert [c.id for c in site.cartridges()] == ["C08", "C09", "C10", "E1", "E2"]
    assert site.cartridge("C10") is not None and site.cartridge("C10").home == "a"  # type: ignore[union-attr]
    assert site.cartridge("C11") is None and site.cartridge("E2").format == "LTO-7"  # type: ignore[union-attr]
    assert (site.placement.seed, site.placement.unlisted_format) == (3, "T10000D")
    assert describe_site(site) == (
        "site 'two': 2 libraries (3 arms), 4 drives (T10000D 3, LTO-7 1), "
        "5 cartridges in 2 pools (T10000D, LTO-7), 10 slots"
    )


def test_a_site_written_reads_back_equal_and_says_what_it_said() -> None:
    site = site_from_dict(GOOD)
    written = site_to_dict(site)
    assert site_from_dict(written) == site
    assert written["libraries"][0] == {**GOOD["libraries"][0], "arms": 1, "level": 0}
    assert written["pools"][1] == GOOD["pools"][1]


def test_movers_and_a_disk_cache_are_read_written_back_and_summarised() -> None:
    doc = {
        **GOOD,
        "movers": {"drives_per_mover": 3, "memory_mb": 64, "bandwidth_mb_s": 500},
        "disk_cache": {"classes": [SMALL, LARGE]},
    }
    site = site_from_dict(doc)
    assert site.movers == SiteMovers(3, 64.0, None, 500.0)
    assert site.disk_cache == (
        SiteCacheClass("small", 5.0, 50.0),
        SiteCacheClass("large", None, 2e3),
    )
    assert site.mover_count == 2  # a's 4 drives on 2 movers, b has none
    assert site_to_dict(site)["movers"] == doc["movers"]
    assert site_from_dict(site_to_dict(site)) == site
    assert describe_site(site).endswith(
        "10 slots, 2 movers (3 drives each), a disk cache of 2 classes (2,050 MB)"
    )
    assert "mover" not in describe_site(site_from_dict(GOOD))


def test_a_pool_of_a_million_tapes_is_a_pattern_until_asked() -> None:
    big = {"name": "big", "format": "T10000D", "ids": "B######", "count": 10**6}
    more = {"name": "more", "format": "T10000D", "ids": "B######", "count": 9, "first": 10**6 - 9}
    doc = bad("pools", [big, more])
    doc["libraries"][0]["slots"] = 10**6
    doc["libraries"][1]["slots"] = 10
    with pytest.raises(InputError, match="'B999991' also in pools\\[0\\] \\(and 8 more\\)"):
        site_from_dict(doc)
    doc["pools"][1]["ids"] = "A######"
    site = site_from_dict(doc)
    assert site.cartridge_count == 10**6 + 9 and site.pools[0].ids is None
    assert site.cartridge("B999999") is not None and site.cartridge("B1000000") is None


SMALL = {"name": "small", "max_file_mb": 5, "cache_mb": 50}
LARGE = {"name": "large", "cache_mb": 2e3}
"""A bounded class of a disk cache, and the last, unbounded, one."""

BAD_SITES = [
    (
        bad("libraries.0.drives.1.model", "LTO-11"),
        "libraries[0].drives[1].model: unknown drive 'LTO-11' (known: ",
    ),
    (bad("libraries.0.model", "TS9999"), "libraries[0].model: unknown library 'TS9999' (known: "),
    (bad("libraries.1.arms", None), "libraries[1].arms: missing key: required without a 'model'"),
    (bad("libraries.0.slots", None), "libraries[0]: missing key 'slots'"),
    (bad("libraries.0.colour", "red"), "libraries[0]: unknown key 'colour'"),
    (bad("libraries.1.id", "a"), "libraries[1].id: library id 'a' also at libraries[0].id"),
    (bad("libraries.1.level", 0), "libraries[1].level: level 0 also at libraries[0].level"),
    (
        bad("libraries.0.drives.1.ids", ["a-d01"]),
        "libraries[0].drives[1].ids[0]: drive id 'a-d01' also at libraries[0].drives[0].count",
    ),
    (
        bad("libraries.0.drives.0.ids", ["y"]),
        "libraries[0].drives[0]: give exactly one of 'count' and 'ids'",
    ),
    (bad("pools.1.name", "p"), "pools[1].name: pool name 'p' also at pools[0].name"),
    (bad("pools.1.ids", ["C09"]), "pools[1].ids: cartridge 'C09' also in pools[0]"),
    (
        bad("pools.0.ids", "C#D#"),
        "pools[0].ids: a pattern has exactly one run of '#', 'C#D#' has several runs",
    ),
    (
        bad("pools.0.count", 93),
        "pools[0].count: 93 cartridges from 8 do not fit the 2 digits of 'C##'",
    ),
    (bad("pools.0.home", "z"), "pools[0].home: no library 'z' (libraries: a, b)"),
    (bad("pools.0.count", None), "pools[0].count: missing key: required with a pattern"),
    (bad("pools.1.first", 1), "pools[1].first: only with a pattern of ids, not a list"),
    (bad("pools.1.fill", 0), "pools[1].fill: must be within (0, 1], got 0"),
    (
        bad("libraries.0.slots", 2),
        "libraries[0].slots: 2 slots, but the pools home 3 cartridges here",
    ),
    (
        bad("pools.1.ids", [f"E{n}" for n in range(8)]),
        "pools: 11 cartridges, more than the 10 slots of all libraries",
    ),
    (bad("pools.1.ids", ["E1", "E2", "E1"]), "pools[1].ids: cartridge 'E1' also in this pool"),
    (
        bad("pools.1", {"name": "r", "format": "T10000D", "ids": "C##", "count": 3, "first": 7}),
        "pools[1].ids: cartridge 'C08' also in pools[0] (and 1 more)",
    ),
    (
        bad("pools.1", {"name": "r", "format": "T10000D", "ids": "C0#", "count": 10}),
        "pools[1].ids: cartridge 'C08' also in pools[0] (and 1 more)",
    ),
    (bad("complex", None), "missing key 'complex' (required with several libraries)"),
    (bad("movers", {"drives_per_mover": 0}), "movers.drives_per_mover: must be >= 1, got 0"),
    (bad("movers", {"memory_mb": 10}), "movers: missing key 'drives_per_mover'"),
    (
        bad("movers", {"drives_per_mover": 2, "bandwidth_mb_s": -1}),
        "movers.bandwidth_mb_s: must be > 0, got -1.0",
    ),
    (bad("movers", {"drives_per_mover": 2, "cpus": 3}), "movers: unknown key 'cpus'"),
    (bad("disk_cache", {"classes": []}), "disk_cache.classes: must not be empty"),
    (
        bad(
            "disk_cache", {"classes": [{"name": "a", "cache_mb": 5}, {"name": "b", "cache_mb": 5}]}
        ),
        "disk_cache.classes[0].max_file_mb: missing key (every class but the last has one)",
    ),
    (
        bad(
            "disk_cache",
            {"classes": [{"name": "a", "max_file_mb": 9, "cache_mb": 5}, SMALL, LARGE]},
        ),
        "disk_cache.classes[1].max_file_mb: must be above the previous class's 9, got 5",
    ),
    (
        bad("disk_cache", {"classes": [{"name": "a", "cache_mb": 0}]}),
        "disk_cache.classes[0].cache_mb: must be > 0, got 0.0",
    ),
    (
        bad("format", "tapesched.site/2"),
        "format: expected 'tapesched.site/1', got 'tapesched.site/2'",
    ),
]


@pytest.mark.parametrize(("doc", "line"), BAD_SITES, ids=[line[:40] for _, line in BAD_SITES])
def test_a_bad_site_is_one_line_at_the_path_of_its_bad_value(
    doc: dict[str, Any], line: str
) -> None:
    with pytest.raises(InputError) as caught:
        site_from_dict(doc, "s.json")
    assert len(caught.value.lines()) == 1
    assert caught.value.lines()[0].startswith(f"s.json: {line}")


def test_a_site_without_pools_needs_the_format_of_unlisted_cartridges() -> None:
    doc = {**GOOD, "pools": [], "placement": {}}
    with pytest.raises(InputError, match="placement: missing key 'unlisted_format'"):
        site_from_dict(doc)
    site = site_from_dict({**doc, "placement": {"unlisted_format": "LTO-7"}})
    assert site.cartridge_count == 0 and site.placement.unlisted_format == "LTO-7"


def test_new_site_takes_the_table_s_figures_and_a_pattern_per_format() -> None:
    site = new_site("SL8500", [("T10000D", 16)], [("T10000D", 3000), ("LTO-7", 12000)], arms=2)
    (lib,) = site.libraries
    assert (lib.arms, lib.mount_s, lib.slots, len(lib.drives)) == (2, 11.0, 18750, 16)
    assert [(str(p.pattern), p.count, p.home) for p in site.pools] == [
        ("T10000D####", 3000, None),
        ("L7#####", 12000, None),
    ]
    assert site_from_dict(site_to_dict(site)) == site
    with pytest.raises(SettingsError) as caught:
        new_site("nope", [("LTO-11", 1)], [("LTO-7", 5), ("LTO-7", 1)], slots=3)
    assert [(p.settings, p.message.split(" (")[0]) for p in caught.value.problems] == [
        (("library",), "unknown library 'nope'"),
        (("drives",), "unknown drive 'LTO-11'"),
        (("tapes",), "format 'LTO-7' given twice"),
        (("slots",), "3 slots for 6 tapes"),
    ]
