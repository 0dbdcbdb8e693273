"""Sizing an archive (SDSC 1998): the paper's arithmetic on the shipped load, and load files."""

from __future__ import annotations

import copy
import json
from typing import Any

import attrs
import pytest

from tapesched.simulator.planning.sizing import DAY_S, load_from_dict, load_load, plan, what_if
from tapesched.simulator.planning.sizing_check import CheckResult, simulate_load
from tapesched.toolkit.errors import InputError
from tests.conftest import INSTANCES

SDSC = INSTANCES / "plan" / "sdsc-1998.json"
SOURCE = "load.json"


def test_the_sdsc_load_is_the_papers_average_day():
    load = load_load(SDSC)
    read = sum(c.read_mb_per_day for c in load.classes)
    written = sum(c.write_mb_per_day for c in load.classes)
    # 2.3 TB read and 4.4 TB written in November (30 days): 223 GB a day.
    assert read == pytest.approx(2.3e6 / 30, rel=1e-3)
    assert written == pytest.approx(4.4e6 / 30, rel=1e-3)
    assert read + written == pytest.approx(223e3, rel=2e-3)
    assert {c.hit_rate for c in load.classes} == {0.62}


def test_the_small_class_keeps_its_files_a_month_and_the_large_two_days():
    # The paper: the small class "is meeting its dominant requirement" (a month on disk);
    # the large class should hold data "for at least two days".
    small, medium, large = plan(load_load(SDSC)).classes
    assert small.lifetime_days is not None and small.lifetime_days >= 30
    assert large.lifetime_days is not None and large.lifetime_days >= 2
    assert medium.cache_for_target_mb == pytest.approx(7 * medium.fill_mb)


def test_about_two_drives_busy_each_streaming_about_fifteen_percent():
    # The paper: "on average usage days, we keep two tape drives continually busy ...
    # roughly 15% of the time reading or writing data". Stated tolerance: the drives
    # needed on the average day are 2 (more than one drive's work, at most two), and the
    # streaming share is 15 % +- 5 points.
    sized = plan(load_load(SDSC))
    assert 1.0 < sized.drives_busy <= 2.0
    assert sized.drives_average == 2
    assert sized.streaming_share is not None
    assert 0.10 <= sized.streaming_share <= 0.20


def test_the_arithmetic_by_hand_for_one_class():
    load = load_load(SDSC)
    large = plan(load).classes[2]
    c = load.classes[2]
    tape_read = 0.38 * c.read_mb_per_day
    assert large.tape_read_mb == pytest.approx(tape_read)
    assert large.streaming_s == pytest.approx((tape_read + c.write_mb_per_day) / 9.0)
    exchange = 20 + 10 + 10 + 20  # unload, dismount, mount, load
    assert (c.file_mb, c.cache_mb, load.migration_mb) == (300, 160e3, 10e3)
    positioning = tape_read / 300 * (exchange + 30) + c.write_mb_per_day / 10e3 * (exchange + 30)
    assert large.positioning_s == pytest.approx(positioning)
    assert large.lifetime_days == pytest.approx(160e3 / (tape_read + c.write_mb_per_day))
    assert large.min_lifetime_days == pytest.approx(large.lifetime_days / load.peak_factor)
    assert large.drives_busy == pytest.approx((large.streaming_s + positioning) / DAY_S)


def test_forty_times_larger_data_sets_make_drives_about_five_times_more_effective():
    # Stated tolerance: 5 +- 1.
    load = load_load(SDSC)
    before = plan(load).effective_mb_s
    after = plan(what_if(load, file_scale=40)).effective_mb_s
    assert before is not None and after is not None
    assert 4.0 <= after / before <= 6.0


def test_halving_the_cache_about_doubles_the_drives_needed():
    # Stated tolerance: 2 +- 0.25 (the misses double; streaming of writes does not).
    load = load_load(SDSC)
    full = plan(load)
    half = plan(what_if(load, cache_scale=0.5))
    assert all(c.hit_rate == pytest.approx(0.24) for c in what_if(load, cache_scale=0.5).classes)
    assert 1.75 <= half.drives_busy / full.drives_busy <= 2.25
    assert [h.lifetime_days for h in half.classes] != [f.lifetime_days for f in full.classes]


def test_forty_times_the_load_with_forty_times_the_cache_keeps_the_lifetime():
    load = load_load(SDSC)
    scaled = plan(what_if(load, bytes_scale=40, cache_scale=40))
    base = plan(load)
    for s, b in zip(scaled.classes, base.classes, strict=True):
        assert s.lifetime_days == pytest.approx(b.lifetime_days)
        assert s.streaming_s == pytest.approx(40 * b.streaming_s)
    assert scaled.drives_busy == pytest.approx(40 * base.drives_busy)


SMALL_LOAD: dict[str, Any] = {
    "format": "tapesched.load/1",
    "name": "small",
    "drive": "LTO-7",
    "mount_s": 10,
    "dismount_s": 10,
    "arms": 1,
    "peak_factor": 2,
    "migration_mb": 20000,
    "classes": [
        {"name": "all", "file_mb": 2000, "read_gb_per_day": 1200, "write_gb_per_day": 1200,
         "hit_rate": 0.5, "cache_gb": 2000}
    ],
}  # fmt: skip


@pytest.fixture(scope="module")
def small_day() -> CheckResult:
    return simulate_load(load_from_dict(SMALL_LOAD), seed=3)


def test_the_simulated_day_keeps_the_computed_drives_busy_within_fifteen_percent(small_day):
    checked = small_day
    assert checked.backlog <= 2
    assert checked.plan.drives_busy > 0.2
    assert abs(checked.relative_gap) <= 0.15, checked.to_dict()
    (cache,) = checked.classes
    assert cache.hit_rate is not None and abs(cache.hit_rate - 0.5) <= 0.1


@pytest.mark.parametrize(
    ("drives", "tape_requests", "backlog", "warns"),
    [
        (5, 8956, 0, False),
        (5, 8956, 1, False),  # in service when the day stops
        (5, 8956, 89, False),  # 1 %
        (5, 8956, 90, True),
        (200, 8956, 200, False),  # one in each drive
        (200, 8956, 201, True),
        (1, 2781, 1337, True),  # the day fell behind
    ],
)
def test_only_a_queue_left_at_the_end_of_the_day_is_a_warning(
    small_day: CheckResult, drives: int, tape_requests: int, backlog: int, warns: bool
):
    checked = attrs.evolve(
        small_day,
        drives=drives,
        tape_requests=tape_requests,
        backlog=backlog,
        done=tape_requests - backlog,
    )
    assert any("left" in w for w in checked.warnings) == warns


def _mutated(*path: str | int, value: Any = None, drop: bool = False) -> dict[str, Any]:
    doc = copy.deepcopy(SMALL_LOAD)
    node: Any = doc
    for key in path[:-1]:
        node = node[key]
    if drop:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return doc


_SECOND = {"name": "b", "file_mb": 1, "read_gb_per_day": 1, "write_gb_per_day": 1, "hit_rate": 0}

BAD = [
    ("wrong format", _mutated("format", value="tapesched.load/2"), "format", "expected"),
    ("unknown drive", _mutated("drive", value="DLT"), "drive", "unknown drive 'DLT'"),
    ("bad drive field", _mutated("drive", value={"base": "LTO-7", "rate_mb_s": -1}),
     "drive.rate_mb_s", "must be > 0"),
    ("unknown drive field", _mutated("drive", value={"base": "LTO-7", "speed": 3}),
     "drive.speed", "unknown drive field"),
    ("missing mount", _mutated("mount_s", drop=True), "mount_s", "missing key"),
    ("peak below 1", _mutated("peak_factor", value=0.5), "peak_factor", "within [1, 1000]"),
    ("no classes", _mutated("classes", value=[]), "classes", "must not be empty"),
    ("hit rate above 1", _mutated("classes", 0, "hit_rate", value=1.5),
     "classes[0].hit_rate", "within [0, 1]"),
    ("missing hit rate", _mutated("classes", 0, "hit_rate", drop=True),
     "classes[0].hit_rate", "missing key"),
    ("negative reads", _mutated("classes", 0, "read_gb_per_day", value=-1),
     "classes[0].read_gb_per_day", "within [0, 1e9]"),
    ("zero file", _mutated("classes", 0, "file_mb", value=0), "classes[0].file_mb",
     "must be > 0"),
    ("three copies", _mutated("classes", 0, "copies", value=5), "classes[0].copies",
     "within 1 to 4"),
    ("unknown class key", _mutated("classes", 0, "ttl", value=3), "classes[0].ttl",
     "unknown key"),
    ("bounded last", _mutated("classes", 0, "max_file_mb", value=5000),
     "classes[0].max_file_mb", "the last class takes every larger file"),
    ("file above bound",
     _mutated("classes", value=[{**SMALL_LOAD["classes"][0], "max_file_mb": 100}, _SECOND]),
     "classes[0].file_mb", "above the class's max_file_mb"),
]  # fmt: skip


@pytest.mark.parametrize(("doc", "path", "fragment"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_each_bad_load_value_is_one_line_naming_its_path(doc, path, fragment):
    with pytest.raises(InputError) as caught:
        load_from_dict(doc, SOURCE)
    lines = caught.value.lines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"{SOURCE}: {path}: "), lines
    assert fragment in lines[0], lines


def test_the_shipped_load_names_its_source():
    doc = json.loads(SDSC.read_text())
    assert any("Moore" in s and "SDSC" in s for s in doc["sources"])


def test_a_disk_that_turns_over_keeps_files_the_computed_lifetime():
    # No hits: the disk is a queue of staged and written files, and the mean residency
    # of the files evicted is the computed lifetime, 200 GB over 2.4 TB a day (2 h).
    # Stated tolerance: 10 %.
    doc = copy.deepcopy(SMALL_LOAD)
    doc["classes"][0].update(hit_rate=0.0, cache_gb=200)
    load = load_from_dict(doc)
    lifetime_s = plan(load).classes[0].lifetime_days * DAY_S  # type: ignore[operator]
    assert lifetime_s == pytest.approx(7200.0)
    (cache,) = simulate_load(load, seed=2).classes
    assert cache.evictions > 500
    assert cache.mean_residency_s == pytest.approx(lifetime_s, rel=0.10)
