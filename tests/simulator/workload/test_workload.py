"""The Blue Waters workload generator: its parameters, its statistics, and the unit parsers."""

from __future__ import annotations

import math
import statistics
from collections import Counter
from itertools import pairwise

import pytest

from tapesched.simulator.storage.files import Scheme
from tapesched.simulator.workload.workload import (
    DEFAULT_INITIAL_FILES,
    SIZE_CLASSES_MB,
    TABLE_1,
    RequestClass,
    WorkloadParams,
    generate,
    parse_duration,
    parse_rate,
)


def params(**overrides) -> WorkloadParams:
    base = {"rate_per_s": 65 / 3600, "duration_s": 86_400.0, "min_size_mb": 10.0}
    base["max_size_mb"] = 1000.0
    return WorkloadParams(**{**base, **overrides})


def test_defaults_are_the_papers():
    p = params()
    assert (p.read_share, p.new_file_share, p.data_ratio, p.ec_ratio) == (0.5, 0.9, (1, 3), None)
    assert dict(p.schemes) == dict(TABLE_1)
    assert TABLE_1[Scheme(4, 2)] == 0.3
    assert sum(TABLE_1.values()) == pytest.approx(1.0)
    assert p.initial_files == DEFAULT_INITIAL_FILES
    assert hash(p) == hash(params())


@pytest.mark.parametrize(
    ("name", "bounds_mb"),
    [
        ("small", (10, 1e3)),
        ("medium", (1e3, 1e5)),
        ("large", (1e6, 1e8)),
        ("mixed", (10, 1e7)),
        ("gb-tb", (1e3, 1e6)),
    ],
)
def test_size_classes_of_sections_6_2_and_6_3(name, bounds_mb):
    assert SIZE_CLASSES_MB[name] == bounds_mb
    p = WorkloadParams.for_size_class(name, rate_per_s=1.0, duration_s=10.0, read_share=0.2)
    assert (p.min_size_mb, p.max_size_mb, p.read_share) == (*bounds_mb, 0.2)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"rate_per_s": 0.0}, "rate_per_s must be finite and > 0"),
        ({"duration_s": math.inf}, "duration_s must be finite and > 0"),
        ({"min_size_mb": -1.0}, "min_size_mb must be finite and > 0"),
        ({"min_size_mb": 2000.0}, r"min_size_mb \(2000.0\) exceeds max_size_mb \(1000.0\)"),
        ({"read_share": 1.5}, r"read_share must be within \[0, 1\]"),
        ({"new_file_share": -0.1}, r"new_file_share must be within \[0, 1\]"),
        ({"schemes": {}}, "at least one scheme"),
        ({"schemes": {Scheme(4, 2): 0.5, Scheme(8, 2): 0.4}}, "must sum to 1, got 0.9"),
        ({"schemes": {Scheme(4, 2): 1.5, Scheme(8, 2): -0.5}}, "4\\+2: probability must be"),
        ({"schemes": [(Scheme(4, 2), 0.5), (Scheme(4, 2), 0.5)]}, "names a scheme twice"),
        ({"data_ratio": (0.5, 3.0)}, "data_ratio must be a range 1 <= lo <= hi"),
        ({"data_ratio": (3.0, 2.0)}, "data_ratio must be a range"),
        ({"data_ratio": (2.0, 3.0), "ec_ratio": 2.5}, r"ec_ratio must be within \[1, lowest"),
        ({"initial_files": -1}, "initial_files must be >= 0"),
        ({"initial_files": 0}, "initial_files must be >= 1 when requests may read or rewrite"),
        ({"initial_files": 0, "read_share": 0.0}, "initial_files must be >= 1"),
    ],
)
def test_bad_parameters_are_refused_at_construction(overrides, message):
    with pytest.raises(ValueError, match=message):
        params(**overrides)


def test_unknown_size_class_names_the_known_ones():
    with pytest.raises(ValueError, match="unknown size class 'huge'; known: small, medium"):
        WorkloadParams.for_size_class("huge", rate_per_s=1.0, duration_s=1.0)


def test_writes_only_need_no_initial_file():
    workload = generate(params(initial_files=0, read_share=0.0, new_file_share=1.0), seed=1)
    assert workload.initial == ()
    assert workload.requests
    assert all(r.kind == "write" for r in workload.requests)
    assert [r.file.id for r in workload.requests] == [
        f"f{i}" for i in range(len(workload.requests))
    ]


def test_same_seed_same_workload_another_seed_another():
    p = params(initial_files=50)
    assert generate(p, seed=7) == generate(p, seed=7)
    assert generate(p, seed=7) != generate(p, seed=8)


def test_a_small_workload_exactly():
    workload = generate(params(rate_per_s=1 / 600, duration_s=3600.0, initial_files=2), seed=11)
    assert [f.id for f in workload.initial] == ["f0", "f1"]
    requests = workload.requests
    assert [r.id for r in requests] == [f"r{i}" for i in range(len(requests))]
    arrivals = [r.arrival_s for r in requests]
    assert arrivals == sorted(arrivals)
    assert 0 < arrivals[0] and arrivals[-1] < 3600.0


@pytest.fixture(scope="module")
def big():
    """About 20,000 requests at one a second, with 20,000 initial files."""
    p = params(rate_per_s=1.0, duration_s=20_000.0, initial_files=20_000)
    return p, generate(p, seed=2024)


def test_interarrivals_average_one_over_the_rate(big):
    _, workload = big
    arrivals = [0.0] + [r.arrival_s for r in workload.requests]
    assert len(workload.requests) == pytest.approx(20_000, rel=0.05)
    gaps = [b - a for a, b in pairwise(arrivals)]
    assert statistics.fmean(gaps) == pytest.approx(1.0, rel=0.05)
    assert statistics.stdev(gaps) == pytest.approx(1.0, rel=0.05)


def test_half_reads_and_nine_writes_in_ten_create_a_file(big):
    _, workload = big
    known = {f.id for f in workload.initial}
    reads = new = rewrites = 0
    for r in workload.requests:
        if r.kind == "read":
            reads += 1
        elif r.file.id in known:
            rewrites += 1
        else:
            new += 1
        known.add(r.file.id)
    assert reads / len(workload.requests) == pytest.approx(0.5, abs=0.015)
    assert new / (new + rewrites) == pytest.approx(0.9, abs=0.01)


def test_reads_and_rewrites_target_files_that_exist_and_keep_their_spec(big):
    _, workload = big
    specs = {f.id: f for f in workload.initial}
    for r in workload.requests:
        if r.kind == "read" or r.file.id in specs:
            assert specs[r.file.id] == r.file
        else:
            assert r.file.id == f"f{len(specs)}"
            specs[r.file.id] = r.file


def test_schemes_follow_table_1(big):
    _, workload = big
    counts = Counter(f.scheme for f in workload.initial)
    for scheme, p in TABLE_1.items():
        assert counts[scheme] / len(workload.initial) == pytest.approx(p, abs=0.015)


def test_sizes_are_log_uniform_within_the_range(big):
    p, workload = big
    sizes = [f.size_mb for f in workload.initial]
    assert min(sizes) >= p.min_size_mb and max(sizes) <= p.max_size_mb
    geometric_mean = math.sqrt(p.min_size_mb * p.max_size_mb)
    assert statistics.median(sizes) == pytest.approx(geometric_mean, rel=0.05)
    decades = Counter(int(math.log10(s)) for s in sizes)
    assert decades[1] / len(sizes) == pytest.approx(0.5, abs=0.015)


def test_cd_uniform_in_1_3_and_cp_uniform_in_1_cd(big):
    _, workload = big
    files = workload.initial
    assert all(1 <= f.ec_ratio <= f.data_ratio <= 3 for f in files)
    assert statistics.fmean(f.data_ratio for f in files) == pytest.approx(2.0, abs=0.03)
    where = [(f.ec_ratio - 1) / (f.data_ratio - 1) for f in files if f.data_ratio > 1]
    assert statistics.fmean(where) == pytest.approx(0.5, abs=0.01)


def test_a_fixed_ec_ratio_as_in_the_compression_experiment():
    workload = generate(params(data_ratio=(3, 3), ec_ratio=1.5, initial_files=30), seed=5)
    assert {(f.data_ratio, f.ec_ratio) for f in workload.initial} == {(3.0, 1.5)}


@pytest.mark.parametrize(
    ("text", "per_s"),
    [("65/h", 65 / 3600), ("0.005", 0.005), ("0.3/min", 0.005), ("2/d", 2 / 86400), ("3/s", 3.0)],
)
def test_parse_rate(text, per_s):
    assert parse_rate(text) == pytest.approx(per_s)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("65/y", "'65/y' is not a rate such as 0.005, 0.3/min or 65/h"),
        ("fast", "is not a rate"),
        ("0/h", "'0/h' must be a positive finite rate"),
        ("-3/h", "must be a positive finite rate"),
    ],
)
def test_parse_rate_refuses_with_a_clear_message(text, message):
    with pytest.raises(ValueError, match=message):
        parse_rate(text)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("90", 90.0),
        ("45s", 45.0),
        ("30min", 1800.0),
        ("12h", 43_200.0),
        ("30d", 2_592_000.0),
        ("2w", 1_209_600.0),
        (" 1.5 h ", 5400.0),
        ("1e3s", 1000.0),
    ],
)
def test_parse_duration(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("3y", "'3y': unknown unit 'y'; use s, min, h, d or w"),
        ("h", "'h' is not a duration such as 90, 45s, 30min, 12h, 30d or 2w"),
        ("1.2.3h", "is not a duration"),
        ("", "is not a duration"),
        ("0d", "'0d' must be a positive finite duration"),
        ("-2h", "must be a positive finite duration"),
        ("1e400", "must be a positive finite duration"),
    ],
)
def test_parse_duration_refuses_with_a_clear_message(text, message):
    with pytest.raises(ValueError, match=message):
        parse_duration(text)


@pytest.mark.parametrize("with_classes", [False, True])
def test_requests_are_drawn_again_equal_at_each_reading(with_classes):
    if with_classes:
        classes = (RequestClass(1000.0, 1, 0.5), RequestClass(2000, 2, 0.5))  # an int size
        p = WorkloadParams.of_classes(classes, rate_per_s=0.05, duration_s=20_000.0)
    else:
        p = params(rate_per_s=0.05, duration_s=20_000.0, initial_files=5)
    requests = generate(p, seed=3).requests
    first, again = list(requests), list(requests)
    assert first == again and len(requests) == len(first) > 500
    assert (
        requests[7] == first[7] and requests[-1] == first[-1] and requests[3:9] == tuple(first[3:9])
    )
    # A file kept as numbers is the file again: a read or rewrite of a file created by a
    # write carries the spec that write created, value and type alike.
    created = {f.id: f for f in generate(p, seed=3).initial}
    for r in first:
        if r.file.id in created:
            assert r.file == created[r.file.id]
            assert type(r.file.size_mb) is type(created[r.file.id].size_mb)
        else:
            assert r.kind == "write"
            created[r.file.id] = r.file
    assert sum(r.kind == "read" for r in first) > 100
    with pytest.raises(IndexError):
        requests[len(first)]
