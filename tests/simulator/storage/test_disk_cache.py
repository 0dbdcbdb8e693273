"""The disk cache of the service classes: LRU order, hit rate, residency, and its hook in a run."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tapesched.simulator.platform.spec import DriveSpec, LibrarySpec, PlatformSpec
from tapesched.simulator.platform.technology import DRIVE_MODELS, Duration
from tapesched.simulator.results.replications import run_once
from tapesched.simulator.run.simulation import Simulation
from tapesched.simulator.scenario.document import scenario_from_dict
from tapesched.simulator.storage.disk_cache import CacheSpec, DiskCache, LruCache, ServiceClass
from tapesched.simulator.storage.files import FileRequest, FileSpec, Scheme
from tapesched.simulator.storage.policies.policy_registry import make_policy
from tapesched.simulator.workload.workload import Workload
from tapesched.toolkit.errors import InputError
from tests.conftest import INSTANCES

ONE = Scheme(1, 0)
SOURCE = "s.json"


def test_lru_evicts_the_least_recently_used_and_a_hit_renews():
    cache = LruCache(capacity_mb=3.0)
    for t, name in enumerate("abc"):
        cache.put(name, 1.0, float(t))
    assert cache.order() == ["a", "b", "c"]
    assert cache.read("a")
    assert cache.order() == ["b", "c", "a"]
    cache.put("d", 1.0, 10.0)
    assert cache.order() == ["c", "a", "d"]
    assert "b" not in cache and cache.evictions == 1


def test_hit_rate_of_a_hand_made_sequence():
    # Two files fit. Reads: a(miss) a(hit) b(miss) a(hit) c(miss, evicts b) b(miss, evicts a)
    # a(miss): 2 hits in 7 reads; each miss is staged after it.
    cache = LruCache(capacity_mb=2.0)
    hits = []
    for t, name in enumerate("aabacba"):
        hit = cache.read(name)
        hits.append(hit)
        if not hit:
            cache.put(name, 1.0, float(t))
    assert hits == [False, True, False, True, False, False, False]
    assert (cache.hits, cache.reads) == (2, 7)


def test_residency_is_the_time_from_arrival_to_eviction():
    cache = LruCache(capacity_mb=2.0)
    cache.put("a", 1.0, 0.0)
    cache.put("b", 1.0, 5.0)
    cache.put("c", 1.0, 10.0)  # evicts a after 10 s
    cache.put("d", 1.0, 25.0)  # evicts b after 20 s
    assert cache.evictions == 2
    assert cache.residency_s / cache.evictions == pytest.approx(15.0)


def test_a_file_larger_than_the_disk_bypasses_it():
    cache = LruCache(capacity_mb=2.0)
    cache.put("a", 1.0, 0.0)
    cache.put("huge", 5.0, 1.0)
    assert cache.order() == ["a"] and cache.bypassed == 1 and cache.evictions == 0


def test_files_go_to_the_class_of_their_size_and_report_their_figures():
    spec = CacheSpec((ServiceClass("small", 10.0, 100.0), ServiceClass("large", None, 1000.0)))
    assert [spec.class_of(s) for s in (1.0, 10.0, 10.5, 1e6)] == [0, 0, 1, 1]
    cache = DiskCache(spec)
    small, large = FileSpec("s", 5.0, ONE), FileSpec("l", 500.0, ONE)
    assert not cache.read(small)
    cache.staged(small, 0.0)
    cache.written(large, 0.0)
    assert cache.read(small) and cache.read(large)
    report = {c.name: c for c in cache.report(86400.0)}
    assert report["small"].hit_rate == 0.5 and report["large"].hit_rate == 1.0
    assert report["small"].fill_lifetime_s == pytest.approx(100.0 / 5.0 * 86400.0)
    assert report["large"].mean_residency_s is None


@pytest.mark.parametrize(
    ("classes", "fragment"),
    [
        ((), "at least one"),
        ((ServiceClass("a", 10.0, 1.0),), "last service class"),
        ((ServiceClass("a", None, 1.0), ServiceClass("b", None, 1.0)), "but the last"),
        ((ServiceClass("a", 10.0, 1.0), ServiceClass("a", None, 1.0)), "must differ"),
        (
            (
                ServiceClass("a", 10.0, 1.0),
                ServiceClass("b", 5.0, 1.0),
                ServiceClass("c", None, 1.0),
            ),
            "increase",
        ),
    ],
)
def test_bad_class_lists_are_refused(classes, fragment):
    with pytest.raises(ValueError, match=fragment):
        CacheSpec(classes)


def _run(requests: list[FileRequest], initial: tuple[FileSpec, ...]) -> Simulation:
    library = LibrarySpec("L0", 1, Duration(10.0), Duration(10.0))
    platform = PlatformSpec(
        (library,), (DriveSpec("L0-d000", "L0", DRIVE_MODELS["LTO-7"]),), tape_capacity_mb=6e6
    )
    sim = Simulation(
        platform,
        make_policy("vertical"),
        "fifo",
        Workload(initial, tuple(requests)),
        seed=1,
        cache=CacheSpec((ServiceClass("all", None, 10_000.0),)),
    )
    sim.run()
    return sim


def test_a_resident_read_does_no_tape_work_and_a_miss_becomes_resident():
    old, new = FileSpec("f0", 1000.0, ONE), FileSpec("f1", 1000.0, ONE)
    requests = [
        FileRequest("r0", 0.0, "read", old),  # miss: staged from tape
        FileRequest("r1", 5000.0, "read", old),  # resident: from disk
        FileRequest("r2", 6000.0, "write", new),  # lands on disk, migrated
        FileRequest("r3", 6001.0, "read", new),  # resident
    ]
    sim = _run(requests, (old,))
    assert sim.served_from_disk == 2
    assert [e.request.id for e in sim.finished] == ["r0", "r2"]
    assert sim.arrived == 2 and sim.backlog == 0
    assert sim.cache is not None
    (report,) = sim.cache.report(sim.engine.now_s)
    assert (report.reads, report.hits, report.filled_mb) == (3, 2, 2000.0)
    # Without the cache, every read goes to tape.
    alone = Simulation(
        sim.spec, make_policy("vertical"), "fifo", Workload((old,), tuple(requests)), seed=1
    )
    alone.run()
    assert len(alone.finished) == 4 and alone.served_from_disk == 0
    busy_alone = alone.platform.drive_busy_s(alone.platform.drives[0])
    assert busy_alone > sim.platform.drive_busy_s(sim.platform.drives[0])


# --- scenario files ----------------------------------------------------------------------


def _ampex() -> dict[str, Any]:
    return json.loads((INSTANCES / "scenarios" / "ampex.json").read_text())


GOOD = {
    "classes": [
        {"name": "small", "max_file_mb": 100, "cache_mb": 5000},
        {"name": "large", "cache_mb": 50000},
    ]
}


def test_a_scenario_selects_the_cache_and_a_run_reports_it():
    doc = _ampex()
    doc["disk_cache"] = GOOD
    doc["workload"]["duration"] = "6h"
    scenario = scenario_from_dict(doc, SOURCE)
    assert scenario.disk_cache == CacheSpec(
        (ServiceClass("small", 100.0, 5000.0), ServiceClass("large", None, 50000.0))
    )
    run = run_once(scenario, 1, record=False)
    cache = run.simulation.cache
    assert cache is not None
    reports = cache.report(run.simulation.engine.now_s)
    assert sum(r.hits for r in reports) == run.simulation.served_from_disk
    assert sum(r.reads for r in reports) > 0


def _with_cache(value: Any) -> dict[str, Any]:
    doc = _ampex()
    doc["disk_cache"] = value
    return doc


def _classes(*entries: dict[str, Any]) -> dict[str, Any]:
    return {"classes": list(entries)}


BAD = [
    ("not an object", 3, "disk_cache", "expected an object"),
    ("no classes", _classes(), "disk_cache.classes", "must not be empty"),
    ("missing classes", {}, "disk_cache.classes", "missing key"),
    ("unknown key", {"classes": GOOD["classes"], "policy": "lru"}, "disk_cache.policy",
     "unknown key"),
    ("missing cache", _classes({"name": "a"}), "disk_cache.classes[0].cache_mb", "missing key"),
    ("zero cache", _classes({"name": "a", "cache_mb": 0}), "disk_cache.classes[0].cache_mb",
     "must be > 0"),
    ("empty name", _classes({"name": "", "cache_mb": 1}), "disk_cache.classes[0].name",
     "non-empty"),
    ("negative bound", _classes({"name": "a", "max_file_mb": -1, "cache_mb": 1},
                                {"name": "b", "cache_mb": 1}),
     "disk_cache.classes[0].max_file_mb", "must be > 0"),
    ("bounded last", _classes({"name": "a", "max_file_mb": 10, "cache_mb": 1}),
     "disk_cache.classes[0].max_file_mb", "the last class takes every larger file"),
    ("unbounded middle", _classes({"name": "a", "cache_mb": 1}, {"name": "b", "cache_mb": 1}),
     "disk_cache.classes[0].max_file_mb", "every class but the last"),
    ("decreasing", _classes({"name": "a", "max_file_mb": 10, "cache_mb": 1},
                            {"name": "b", "max_file_mb": 5, "cache_mb": 1},
                            {"name": "c", "cache_mb": 1}),
     "disk_cache.classes[1].max_file_mb", "must be above the previous class's 10, got 5"),
    ("twice", _classes({"name": "a", "max_file_mb": 10, "cache_mb": 1},
                       {"name": "a", "cache_mb": 1}),
     "disk_cache.classes[1].name", "class 'a' is given twice"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("value", "path", "fragment"), [b[1:] for b in BAD], ids=[b[0] for b in BAD]
)
def test_each_bad_disk_cache_value_is_one_line_naming_its_path(value, path, fragment):
    with pytest.raises(InputError) as caught:
        scenario_from_dict(_with_cache(value), SOURCE)
    lines = caught.value.lines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"{SOURCE}: {path}: "), lines
    assert fragment in lines[0], lines
