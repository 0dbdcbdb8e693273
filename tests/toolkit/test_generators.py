"""Seeded generators: determinism, the spec's instance rules, Golubchik's parameters."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from tapesched.toolkit.errors import Problem
from tapesched.toolkit.files.instance_file import instance_to_dict, loads_instance
from tapesched.toolkit.files.json_documents import dumps
from tapesched.toolkit.generators import RandomChooser, RandomParams, random_instance
from tapesched.toolkit.golubchik_instances import TECHNOLOGIES, golubchik_instance
from tapesched.toolkit.hardware.technology import MB_PER_GB
from tapesched.toolkit.instance_checks import check_instance
from tapesched.toolkit.model import OBJECTIVES, REQUEST_KINDS, Instance


def rule_violations(inst: Instance) -> list[str]:
    """Every rule of the spec's "Instance file" section that ``inst`` breaks."""
    out: list[str] = []
    for kind, ids in (
        ("library", [x.id for x in inst.libraries]),
        ("drive", [x.id for x in inst.drives]),
        ("tape", [x.id for x in inst.tapes]),
        ("request", [x.id for x in inst.requests]),
    ):
        out += [f"duplicate {kind} id {i}" for i, n in Counter(ids).items() if n > 1]
    if inst.objective not in OBJECTIVES:
        out.append(f"objective {inst.objective}")
    for lib in inst.libraries:
        if type(lib.arms) is not int or lib.arms < 1:
            out.append(f"{lib.id}: arms {lib.arms}")
        if not (0 <= lib.mount_s < math.inf and 0 <= lib.dismount_s < math.inf):
            out.append(f"{lib.id}: arm times")
    for d in inst.drives:
        if d.library not in inst.library_by_id:
            out.append(f"{d.id}: unknown library {d.library}")
        if not (0 < d.rate_mb_s < math.inf and 0 < d.locate_mb_s < math.inf):
            out.append(f"{d.id}: rates")
        if not (0 <= d.load_s < math.inf and 0 <= d.unload_s < math.inf):
            out.append(f"{d.id}: drive times")
    for t in inst.tapes:
        if t.library not in inst.library_by_id:
            out.append(f"{t.id}: unknown library {t.library}")
        if not 0 <= t.capacity_mb < math.inf:
            out.append(f"{t.id}: capacity")
    drives_in_initial = Counter(x.drive for x in inst.initial)
    tapes_in_initial = Counter(x.tape for x in inst.initial)
    out += [f"drive {d} in initial {n} times" for d, n in drives_in_initial.items() if n > 1]
    out += [f"tape {t} in {n} drives" for t, n in tapes_in_initial.items() if n > 1]
    for x in inst.initial:
        drive, tape = inst.drive_by_id.get(x.drive), inst.tape_by_id.get(x.tape)
        if drive is None or tape is None:
            out.append(f"initial {x}: unknown drive or tape")
        elif drive.library != tape.library:
            out.append(f"initial {x}: tape of another library")
    for r in inst.requests:
        if not (0 <= r.release_s < math.inf and 0 < r.weight < math.inf):
            out.append(f"{r.id}: release or weight")
        if r.kind not in REQUEST_KINDS or not r.pieces:
            out.append(f"{r.id}: kind or no pieces")
        tapes = [inst.tape_by_id.get(p.tape) for p in r.pieces]
        if any(t is None for t in tapes):
            out.append(f"{r.id}: unknown tape")
            continue
        if len({p.tape for p in r.pieces}) != len(r.pieces):
            out.append(f"{r.id}: pieces share a tape")
        libs = {t.library for t in tapes if t is not None}
        if len(libs) != 1:
            out.append(f"{r.id}: pieces in libraries {sorted(libs)}")
        elif len(r.pieces) > len(inst.drives_of_library.get(libs.pop(), ())):
            out.append(f"{r.id}: gang of {len(r.pieces)} wider than its library")
        for p, held_by in zip(r.pieces, tapes, strict=True):
            assert held_by is not None
            if p.offset_mb < 0 or p.size_mb < 0 or p.end_mb > held_by.capacity_mb:
                out.append(f"{r.id}: piece on {p.tape} outside the tape")
    return out


VARIANTS = [
    RandomParams(),
    RandomParams(n_libraries=3, drives_per_library=(1, 5), arms=(1, 3), max_gang=4),
    RandomParams(tapes_per_library=2, drives_per_library=(4, 6), initial_fraction=1.0),
    RandomParams(max_gang=8, equal_pieces=False, weight="random", write_fraction=0.5),
    RandomParams(arrival_rate_per_s=0.01, weight="unit", homogeneous_drives=True),
    RandomParams(release_horizon_s=0.0, initial_fraction=0.0, objective="makespan"),
    RandomParams(size_mb=(5_000_000.0, 6_000_000.0), mount_s=(0.0, 0.0)),
]


def io_problems(inst: Instance) -> list[Problem]:
    """Problems the raw-JSON checker finds in ``inst``; also checks the JSON round trip."""
    data = instance_to_dict(inst)
    assert loads_instance(dumps(data)) == inst
    return check_instance(data)


def test_random_chooser_is_deterministic_and_private() -> None:
    a, b = RandomChooser(7), RandomChooser(7)
    draws = [(a.integer(0, 9), a.real(0, 1), a.log_uniform(1, 1e6), a.exponential(2.0))]
    assert draws == [(b.integer(0, 9), b.real(0, 1), b.log_uniform(1, 1e6), b.exponential(2.0))]
    assert a.sample("abcdef", 3) == b.sample("abcdef", 3)
    assert a.boolean(0.0) is False and a.boolean(1.0) is True


@pytest.mark.parametrize("params", VARIANTS)
def test_same_seed_same_instance_other_seed_other_instance(params: RandomParams) -> None:
    assert random_instance(params, 3) == random_instance(params, 3)
    assert random_instance(params, 3).requests != random_instance(params, 4).requests


@pytest.mark.parametrize("params", VARIANTS)
@pytest.mark.parametrize("seed", range(5))
def test_random_instances_follow_spec_rules(params: RandomParams, seed: int) -> None:
    inst = random_instance(params, seed)
    assert rule_violations(inst) == []
    assert io_problems(inst) == []


@pytest.mark.parametrize("params", VARIANTS)
def test_random_instances_respect_params(params: RandomParams) -> None:
    for seed in range(5):
        inst = random_instance(params, seed)
        assert inst.name == f"random-{seed}"
        assert inst.objective == params.objective
        assert len(inst.libraries) == params.n_libraries
        assert len(inst.requests) == params.n_requests
        assert [r.id for r in inst.requests] == [f"r{i}" for i in range(params.n_requests)]
        assert [d.id for d in inst.drives] == [f"d{i}" for i in range(len(inst.drives))]
        assert [t.id for t in inst.tapes] == [f"T{i}" for i in range(len(inst.tapes))]
        for lib in inst.libraries:
            assert params.arms[0] <= lib.arms <= params.arms[1]
            assert params.mount_s[0] <= lib.mount_s <= params.mount_s[1]
            lo, hi = params.drives_per_library
            assert lo <= len(inst.drives_of_library[lib.id]) <= hi
            assert sum(t.library == lib.id for t in inst.tapes) == params.tapes_per_library
            if params.homogeneous_drives:
                assert len({(d.rate_mb_s, d.load_s) for d in inst.drives_of_library[lib.id]}) == 1
        for d in inst.drives:
            assert params.rate_mb_s[0] <= d.rate_mb_s <= params.rate_mb_s[1]
            assert params.locate_mb_s[0] <= d.locate_mb_s <= params.locate_mb_s[1]
            assert params.unload_s[0] <= d.unload_s <= params.unload_s[1]
        releases = [r.release_s for r in inst.requests]
        assert releases == sorted(releases)
        if params.arrival_rate_per_s is None:
            assert all(0 <= x <= params.release_horizon_s for x in releases)
        for r in inst.requests:
            assert len(r.pieces) <= params.max_gang
            assert params.size_mb[0] * (1 - 1e-9) <= r.size_mb <= params.size_mb[1] * (1 + 1e-9)
            if params.weight == "inverse-size-gb":
                assert r.weight == pytest.approx(MB_PER_GB / r.size_mb)
            elif params.weight == "unit":
                assert r.weight == 1.0
            else:
                assert params.weight_range[0] <= r.weight <= params.weight_range[1]
            if params.write_fraction == 0:
                assert r.kind == "read"
            if params.equal_pieces:
                assert len({p.size_mb for p in r.pieces}) == 1


def test_initial_fraction_extremes() -> None:
    full = random_instance(RandomParams(tapes_per_library=20, initial_fraction=1.0), 0)
    assert {x.drive for x in full.initial} == {d.id for d in full.drives}
    assert random_instance(RandomParams(initial_fraction=0.0), 0).initial == ()
    scarce = random_instance(
        RandomParams(tapes_per_library=1, drives_per_library=(3, 3), initial_fraction=1.0), 0
    )
    assert len(scarce.initial) == 1


def test_poisson_releases_have_the_requested_rate() -> None:
    inst = random_instance(RandomParams(n_requests=2000, arrival_rate_per_s=0.5), 1)
    mean_gap = inst.requests[-1].release_s / len(inst.requests)
    assert mean_gap == pytest.approx(2.0, rel=0.1)


@pytest.mark.parametrize(
    "bad",
    [
        {"n_requests": -1},
        {"n_libraries": 0},
        {"drives_per_library": (3, 2)},
        {"arms": (0, 1)},
        {"size_mb": (0.0, 10.0)},
        {"size_mb": (1.0, 7_000_000.0)},
        {"initial_fraction": 1.5},
        {"weight": "heavy"},
        {"rate_mb_s": (0.0, 1.0)},
        {"load_s": (-1.0, 1.0)},
        {"objective": "tardiness"},
        {"arrival_rate_per_s": 0.0},
    ],
)
def test_bad_params_are_rejected(bad: dict[str, object]) -> None:
    with pytest.raises(ValueError, match=next(iter(bad))):
        RandomParams(**bad)  # type: ignore[arg-type]


def test_golubchik_is_seeded() -> None:
    assert golubchik_instance(50, seed=2) == golubchik_instance(50, seed=2)
    assert golubchik_instance(50, seed=2).requests != golubchik_instance(50, seed=3).requests
    assert golubchik_instance(50, seed=2).name == "golubchik-ampex-2"


def test_golubchik_ampex_has_the_papers_parameters() -> None:
    inst = golubchik_instance(10)
    (lib,) = inst.libraries
    assert lib.arms == 1 and lib.mount_s == 10 and lib.dismount_s == 10
    assert len(inst.drives) == 4 and len(inst.tapes) == 256 and inst.initial == ()
    assert {t.capacity_mb for t in inst.tapes} == {25_000}
    d = inst.drives[0]
    assert d.transfer_s(1 * MB_PER_GB) == pytest.approx(80.0)
    assert d.locate_s(0, 25_000 / 2) == pytest.approx(25.0)
    assert d.load_s == 5 and d.unload_s == 13 + 4
    # Section 3: C + L + T = 47 + 20 + 80 = 147 s for a 1 GB request on one drive.
    c = d.locate_s(0, 12_500) + d.unload_s + d.load_s
    assert c + lib.mount_s + lib.dismount_s + d.transfer_s(1000) == pytest.approx(147.0)


def test_golubchik_exabyte_has_the_papers_parameters() -> None:
    inst = golubchik_instance(10, technology="exabyte")
    (lib,) = inst.libraries
    assert lib.mount_s == 22 and lib.dismount_s == 22 and lib.arms == 1
    assert len(inst.drives) == 4 and len(inst.tapes) == 116
    assert {t.capacity_mb for t in inst.tapes} == {5_000}
    d = inst.drives[0]
    assert d.rate_mb_s == 0.47 and d.load_s == 35.4 and d.unload_s == 75 + 16.5
    assert d.locate_s(0, 2_500) == pytest.approx(84.0)
    # Section 3: a 1 GB transfer takes about 35 minutes, 250 MB about 9.
    assert d.transfer_s(1000) / 60 == pytest.approx(35, abs=1)
    assert d.transfer_s(250) / 60 == pytest.approx(9, abs=0.5)


def test_technologies_table() -> None:
    assert set(TECHNOLOGIES) == {"ampex", "exabyte"}
    for name, tech in TECHNOLOGIES.items():
        assert tech.name == name and "Golubchik" in tech.source
        assert tech.drives == 4 and tech.arms == 1


@pytest.mark.parametrize("technology", sorted(TECHNOLOGIES))
def test_golubchik_workload(technology: str) -> None:
    sizes, widths = (1.0, 2.0, 3.0), (1, 2, 3)
    inst = golubchik_instance(
        1500,
        technology=technology,
        sizes_gb=sizes,
        widths=widths,
        arrival_rate_per_s=0.01,
        seed=5,
        drives=3,
        arms=2,
    )
    assert rule_violations(inst) == []
    assert io_problems(inst) == []
    assert len(inst.drives) == 3 and inst.libraries[0].arms == 2
    classes: Counter[int] = Counter()
    capacity = TECHNOLOGIES[technology].drive.capacity_mb
    offsets = []
    for r in inst.requests:
        j = sizes.index(r.size_mb / MB_PER_GB)
        classes[j] += 1
        assert len(r.pieces) == widths[j]
        assert {p.size_mb for p in r.pieces} == {sizes[j] * MB_PER_GB / widths[j]}
        assert r.weight == pytest.approx(1 / sizes[j])
        assert r.kind == "read"
        offsets += [p.offset_mb / (capacity - p.size_mb) for p in r.pieces]
    assert all(n == pytest.approx(500, rel=0.15) for n in classes.values())
    assert sum(offsets) / len(offsets) == pytest.approx(0.5, abs=0.02)
    assert inst.requests[-1].release_s / len(inst.requests) == pytest.approx(100, rel=0.1)


def test_golubchik_default_workload_is_figure_8() -> None:
    inst = golubchik_instance(300, seed=1)
    assert {r.size_mb for r in inst.requests} == {1000, 2000, 3000}
    assert {len(r.pieces) for r in inst.requests} == {1}
    assert inst.requests[-1].release_s / 300 == pytest.approx(200, rel=0.2)


@pytest.mark.parametrize(
    "bad",
    [
        {"widths": (1, 1, 5)},
        {"widths": (0, 1, 1)},
        {"technology": "exabyte", "sizes_gb": (1.0, 2.0, 12.0)},
        {"probabilities": (0.0, 0.0, 0.0)},
        {"sizes_gb": (1.0, 2.0)},
        {"technology": "dlt"},
        {"arrival_rate_per_s": 0.0},
    ],
)
def test_golubchik_rejects_impossible_layouts(bad: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        golubchik_instance(5, **bad)  # type: ignore[arg-type]


def test_random_params_past_the_limits_are_refused_with_only_the_limits():
    # Many libraries of many drives, and a span of sizes also below its floor: the totals
    # and the size past a petabyte are said, not the bad lower bound.
    with pytest.raises(ValueError) as caught:
        RandomParams(n_libraries=1000, drives_per_library=(1, 2000), size_mb=(0.0, 2e9))
    assert str(caught.value) == (
        "invalid RandomParams: n_libraries x drives_per_library: 2,000,000 in all, more than "
        "1,000,000; size_mb: must be <= 1e+09 MB, got 2e+09"
    )
    params = RandomParams(n_requests=1000, arrival_rate_per_s=1e-3)
    assert params.limit_problems() == []
    with pytest.raises(ValueError, match="arrival_rate_per_s: 10,000 requests at this rate"):
        RandomParams(n_requests=10_000, arrival_rate_per_s=1e-6)


def test_golubchik_instance_refuses_arrivals_past_the_latest_release_first():
    with pytest.raises(ValueError) as caught:
        golubchik_instance(10_000, arrival_rate_per_s=1e-6, widths=(9, 9, 9))
    assert str(caught.value) == (
        "invalid Golubchik instance: arrival_rate_per_s: 10,000 requests at this rate arrive "
        "over about 1e+10 s, past the latest release time 1e+09 s"
    )
