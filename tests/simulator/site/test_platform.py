"""A site as a scenario's platform (simulator.site.platform), and a scenario naming its site."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from attrs import evolve

from tapesched.simulator.scenario.document import load_scenario
from tapesched.simulator.site.platform import on_site, site_cache, site_platform
from tapesched.simulator.storage.disk_cache import CacheSpec, ServiceClass
from tapesched.toolkit.errors import InputError
from tapesched.toolkit.hardware.technology import DRIVES
from tapesched.toolkit.site.reader import read_site, site_from_dict
from tests.conftest import INSTANCES

AMPEX = INSTANCES / "scenarios" / "ampex.json"


def tiny_site() -> dict[str, Any]:
    """Two levels of a complex: 5 drives (one loading slower) and 2, movers of 2 drives,
    100 LTO-7 cartridges at home on ``a`` and 10 LTO-9 ones hashed, a cache of two classes."""
    return {
        "format": "tapesched.site/1",
        "name": "tiny",
        "libraries": [
            {
                "id": "a",
                "model": "SL8500",
                "arms": 2,
                "slots": 400,
                "drives": [
                    {"model": "LTO-7", "count": 4},
                    {"model": "LTO-7", "ids": ["ax"], "load_s": 20},
                ],
            },
            {
                "id": "b",
                "model": "SL8500",
                "slots": 400,
                "level": 5,
                "drives": [{"model": "LTO-7", "count": 2}],
            },
        ],
        "complex": {"rails_per_library": 4, "elevator_s": 20, "pass_through_s": 30},
        "pools": [
            {"name": "p", "format": "LTO-7", "ids": "L7###", "count": 100, "home": "a"},
            {"name": "q", "format": "LTO-9", "ids": "L9##", "count": 10},
        ],
        "movers": {"drives_per_mover": 2, "memory_mb": 65536, "bandwidth_mb_s": 1600},
        "disk_cache": {
            "classes": [
                {"name": "small", "max_file_mb": 500, "cache_mb": 5e4},
                {"name": "large", "cache_mb": 2e5},
            ]
        },
    }


def test_a_site_s_platform_has_its_drives_arms_movers_and_complex() -> None:
    site = site_from_dict(tiny_site())
    platform = site_platform(site, "at-once")
    assert [(lib.id, lib.arms, lib.mount_s.mean_s) for lib in platform.libraries] == [
        ("a", 2, site.libraries[0].mount_s),
        ("b", site.libraries[1].arms, site.libraries[1].mount_s),
    ]
    assert [(d.id, d.library, d.mover) for d in platform.drives] == [
        ("a-d00", "a", "a-m00"),
        ("a-d01", "a", "a-m00"),
        ("a-d02", "a", "a-m01"),
        ("a-d03", "a", "a-m01"),
        ("ax", "a", "a-m02"),
        ("b-d00", "b", "b-m00"),
        ("b-d01", "b", "b-m00"),
    ]
    models = {d.model for d in platform.drives}
    assert sorted((m.name, m.load_s.mean_s) for m in models) == [
        ("LTO-7", DRIVES["LTO-7"].load_s),
        ("LTO-7*", 20.0),
    ]
    mover = platform.movers[0]
    assert (mover.memory_mb, mover.disk_mb, mover.bandwidth_mb_s) == (65536, float("inf"), 1600)
    assert len(platform.movers) == site.mover_count == 4
    complex_ = platform.complex
    assert complex_ is not None and complex_.numbers == (0, 5)
    assert sum(complex_.shelved) == 110 and complex_.shelved[0] >= 100  # the hashed 10 too
    assert (complex_.elevator_s, complex_.pass_through_s) == (20, 30)
    # most cartridges are LTO-7: the platform's one capacity is theirs
    assert (
        platform.tape_capacity_mb == DRIVES["LTO-7"].capacity_mb and platform.dismount == "at-once"
    )
    assert site_cache(site) == CacheSpec(
        (ServiceClass("small", 500.0, 5e4), ServiceClass("large", None, 2e5))
    )
    plain = {**tiny_site(), "libraries": tiny_site()["libraries"][:1], "complex": None}
    del plain["movers"], plain["disk_cache"], plain["complex"]
    bare = site_platform(site_from_dict(plain))
    assert (bare.movers, bare.complex, bare.dismount) == ((), None, "on-demand")
    assert site_cache(site_from_dict(plain)) is None


def test_the_ecmwf_site_builds_as_a_platform() -> None:
    site = read_site(INSTANCES / "sites" / "ecmwf.json")
    platform = site_platform(site)
    assert (len(platform.libraries), len(platform.drives), platform.movers) == (16, 170, ())
    assert platform.complex is not None and sum(platform.complex.shelved) == site.cartridge_count
    assert platform.tape_capacity_mb == DRIVES["T10000D"].capacity_mb


def test_on_site_keeps_the_scenario_s_dismount_and_its_own_cache_first() -> None:
    site = site_from_dict(tiny_site())
    scenario = load_scenario(AMPEX)
    played = on_site(scenario, site)
    assert played.platform == site_platform(site, "at-once")
    assert played.disk_cache == site_cache(site) and played.workload == scenario.workload
    own = CacheSpec((ServiceClass("all", None, 1e3),))
    assert on_site(evolve(scenario, disk_cache=own), site).disk_cache == own


def _scenario_on(tmp_path: Path, site: str, **platform: Any) -> Path:
    doc = json.loads(AMPEX.read_text())
    doc["platform"] = {"site": site, "dismount": "at-once", **platform}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc))
    return path


def test_a_scenario_names_its_site_from_its_own_folder(tmp_path: Path) -> None:
    (tmp_path / "sites").mkdir()
    (tmp_path / "sites" / "tiny.json").write_text(json.dumps(tiny_site()))
    scenario = load_scenario(_scenario_on(tmp_path, "sites/tiny.json"))
    site = read_site(tmp_path / "sites" / "tiny.json")
    assert scenario.platform == site_platform(site, "at-once")
    assert scenario.disk_cache == site_cache(site)


@pytest.mark.parametrize(
    ("site", "platform", "line"),
    [
        ("nope.json", {}, "nope.json: cannot read file"),
        ("bad.json", {}, "bad.json: movers.drives_per_mover: must be >= 1, got 0"),
        (
            "sites/tiny.json",
            {"tape_capacity_mb": 5},
            "s.json: platform.tape_capacity_mb: not with platform.site: the site file gives it",
        ),
    ],
)
def test_a_scenario_s_bad_site_is_one_line_naming_the_file(
    tmp_path: Path, site: str, platform: dict[str, Any], line: str
) -> None:
    (tmp_path / "sites").mkdir()
    (tmp_path / "sites" / "tiny.json").write_text(json.dumps(tiny_site()))
    bad = tiny_site()
    bad["movers"]["drives_per_mover"] = 0
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    with pytest.raises(InputError) as caught:
        load_scenario(_scenario_on(tmp_path, site, **platform))
    (only,) = caught.value.lines()
    assert only.startswith(str(tmp_path / line.split(": ")[0])) and line.split(": ", 1)[1] in only
