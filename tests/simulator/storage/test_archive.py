"""The archive at the paper's scale: lazy, seeded, laid out as the policy in force writes."""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

import pytest
from attrs import evolve

from tapesched.simulator.results.replications import override, run_once
from tapesched.simulator.scenario.document import load_scenario
from tapesched.simulator.scenario.spec import Scenario, make_archive
from tapesched.simulator.storage.archive import Archive, ArchiveParams
from tapesched.simulator.storage.archive_layout import ArchiveSide
from tapesched.simulator.storage.catalogue import Catalogue
from tapesched.simulator.storage.files import Scheme
from tapesched.simulator.storage.policies.parallel import Parallel
from tapesched.simulator.storage.policies.policy import Unrecoverable
from tapesched.simulator.storage.policies.policy_registry import make_policy
from tapesched.simulator.workload.workload import SIZE_CLASSES_MB, TABLE_1, WorkloadParams, generate
from tests.conftest import INSTANCES

SCENARIOS = INSTANCES / "scenarios"
HOUR = 3600.0
CAPACITY_MB = 1_000_000.0
POLICIES = {"vertical": {}, "parallel": {"block_mb": 16.0}, "rait": {"block_mb": 16.0}}


def _archive(
    policy: str | object = "vertical",
    seed: int = 1,
    *,
    tapes: int = 500_000,
    sizes: str = "small",
    popularity: str = "uniform",
    exponent: float = 1.0,
    libraries: tuple[str, ...] = ("L0",),
) -> Archive:
    return Archive(
        ArchiveParams(tapes, popularity, exponent),  # type: ignore[arg-type]
        make_policy(policy, **POLICIES.get(policy, {"block_mb": 16.0}))
        if isinstance(policy, str)
        else policy,
        sizes_mb=SIZE_CLASSES_MB[sizes],
        schemes=tuple(TABLE_1.items()),
        data_ratio=(1.0, 3.0),
        ec_ratio=None,
        capacity_mb=CAPACITY_MB,
        libraries=libraries,
        seed=seed,
    )


def _scenario(name: str = "blue-waters") -> Scenario:
    return load_scenario(SCENARIOS / f"{name}.json")


def test_the_papers_archive_fills_half_a_million_tapes_with_hundreds_of_millions_of_files():
    archive = _archive()
    assert 499_000 <= archive.tapes_used <= 500_000
    assert archive.count > 100_000_000
    # Table 1's schemes in their proportions, over the whole archive.
    counts = Counter(archive.file(k).scheme for k in range(0, archive.count, archive.count // 4000))
    for scheme, p in TABLE_1.items():
        assert counts[scheme] / sum(counts.values()) == pytest.approx(p, abs=0.02)


@pytest.mark.parametrize("policy", ["vertical", "parallel", "rait", "hetero"])
def test_the_same_seed_gives_the_same_archive_and_another_seed_another(policy):
    first, again, other = _archive(policy, 7), _archive(policy, 7), _archive(policy, 8)
    assert first.count == again.count == other.count
    numbers = range(0, first.count, first.count // 50)
    assert [first.file(k) for k in numbers] == [again.file(k) for k in numbers]
    assert [first.layout(k) for k in numbers] == [again.layout(k) for k in numbers]
    assert [first.file(k) for k in numbers] != [other.file(k) for k in numbers]


def test_the_same_seed_gives_the_same_workload_over_the_archive():
    scenario = override(_scenario(), duration_s=HOUR)
    first = generate(scenario.workload, 3, make_archive(scenario, 3))
    assert first.requests == generate(scenario.workload, 3, make_archive(scenario, 3)).requests
    assert first.requests != generate(scenario.workload, 4, make_archive(scenario, 4)).requests


def _read_tapes(archive: Archive, policy: str, k: int) -> tuple[Catalogue, list[list[str]]]:
    catalogue = Catalogue(CAPACITY_MB, archive.libraries, archive)
    plan = make_policy(policy, **POLICIES[policy]).plan_read(catalogue, f"a{k}")
    return catalogue, [[e.tape for e in phase if e is not None] for phase in plan.phases]


@pytest.mark.parametrize("policy", ["vertical", "parallel", "rait"])
def test_an_archive_file_is_laid_out_as_its_policy_writes(policy):
    archive = _archive(policy)
    for k in range(0, archive.count, archive.count // 40):
        file = archive.file(k)
        x, y = file.scheme.data, file.scheme.parity
        catalogue, phases = _read_tapes(archive, policy, k)
        tapes = {t for phase in phases for t in phase}
        layout = catalogue.layout(f"a{k}")
        assert catalogue.writer(f"a{k}") == policy and layout.file == file
        if policy == "vertical":
            # One data tape, one contiguous piece: one drive reads it in one go.
            assert len(phases) == 1 and len(tapes) == 1
        elif policy == "parallel":
            # Contiguous runs on X data tapes (fewer for a file of fewer blocks).
            assert len(phases) == 1 and len(tapes) <= x
        else:
            # Rows rotated over X + Y tapes, parity read too.
            assert len(phases) == 1
            assert 1 < len(tapes) <= x + y or x + y == 1
        # A member with no block of a small file has no piece, as when written.
        row_tapes = sorted({t for row in layout.rows for t in row.tapes})
        assert y < len(row_tapes) <= x + y
        assert all(catalogue.tape(t).full and catalogue.tape(t).closed for t in row_tapes)
        for piece in (p for row in layout.rows for m in row.members for p in m.pieces):
            assert 0 <= piece.offset_mb and piece.end_mb <= CAPACITY_MB + 1e-6
        # Any Y of its tapes may be lost, not Y + 1.
        assert catalogue.recoverable(f"a{k}", row_tapes[:y])
        assert not catalogue.recoverable(f"a{k}", row_tapes[: y + 1])


def test_a_single_copy_archive_holds_each_file_whole_on_one_tape_and_loses_it_with_the_tape():
    archive = Archive(
        ArchiveParams(1000),
        make_policy("single"),
        sizes_mb=SIZE_CLASSES_MB["medium"],
        schemes=((Scheme(1, 0), 1.0),),
        data_ratio=(1.0, 3.0),
        ec_ratio=None,
        capacity_mb=CAPACITY_MB,
        libraries=("L0",),
        seed=3,
    )
    assert 990 <= archive.tapes_used <= 1000
    catalogue = Catalogue(CAPACITY_MB, archive.libraries, archive)
    single = make_policy("single")
    extents = []
    for k in range(0, archive.count, archive.count // 40):
        plan = single.plan_read(catalogue, f"a{k}")
        assert catalogue.writer(f"a{k}") == "single" and plan.memory_mb == 0.0
        ((extent,),) = plan.phases
        assert extent.host_mb == pytest.approx(archive.file(k).size_mb)
        extents.append((extent.tape, extent.offset_mb, extent.offset_mb + extent.tape_mb))
        with pytest.raises(Unrecoverable):
            single.plan_read(catalogue, f"a{k}", {extent.tape})
    for (tape, _, end), (next_tape, start, _) in pairwise(sorted(extents)):
        assert tape != next_tape or end <= start + 1e-6


def test_files_of_one_tape_do_not_overlap():
    archive = _archive("vertical")
    extents = []
    for k in range(3000):
        catalogue, _ = _read_tapes(archive, "vertical", k)
        (row,) = catalogue.layout(f"a{k}").rows
        (piece,) = row.members[row.own[0]].pieces
        extents.append((piece.tape, piece.offset_mb, piece.end_mb))
    extents.sort()
    for (tape, _, end), (next_tape, start, _) in pairwise(extents):
        assert tape != next_tape or end <= start


def test_large_files_span_several_tapes_of_a_member():
    archive = _archive("parallel", sizes="large")
    k = next(k for k in range(archive.count) if archive.file(k).size_mb > 20 * CAPACITY_MB)
    catalogue, phases = _read_tapes(archive, "parallel", k)
    assert len(phases) > 1
    assert sum(p.data_host_mb for row in catalogue.layout(f"a{k}").rows for m in row.members
               for p in m.pieces) == pytest.approx(archive.file(k).size_mb)  # fmt: skip


def test_hetero_lays_small_files_out_vertically_and_the_others_in_parallel():
    archive = _archive("hetero", sizes="mixed")
    writers = {archive.writer(k): archive.file(k).size_mb for k in (0, archive.count - 1)}
    assert set(writers) == {"vertical", "parallel"}
    assert writers["vertical"] < 1000 <= writers["parallel"]


def test_archive_sets_are_dealt_to_the_libraries_in_turn():
    archive = _archive(libraries=("L0", "L1", "L2"))
    step = archive.tapes_used // 3000
    tapes = range(0, archive.tapes_used, step)
    libraries = Counter(archive.tape_library(f"A{t:06d}") for t in tapes)
    assert set(libraries) == {"L0", "L1", "L2"}
    assert min(libraries.values()) > 0.3 * sum(libraries.values())
    assert archive.tape_library(f"A{archive.tapes_used:06d}") is None
    assert archive.tape_library("T000001") is None


def _reads(popularity: str, exponent: float = 1.0) -> Counter[str]:
    params = WorkloadParams.for_size_class(
        "small",
        rate_per_s=1.0,
        duration_s=4000.0,
        read_share=1.0,
        archive=ArchiveParams(500_000, popularity, exponent),  # type: ignore[arg-type]
    )
    archive = _archive(popularity=popularity, exponent=exponent)
    return Counter(r.file.id for r in generate(params, 1, archive).requests)


def test_zipf_popularity_skews_reads_to_a_few_files():
    uniform, zipf = _reads("uniform"), _reads("zipf", 1.2)
    total = sum(zipf.values())
    assert max(uniform.values()) <= 2
    top = sum(n for _, n in zipf.most_common(10))
    assert top > 0.3 * total
    assert len(zipf) < 0.5 * len(uniform)


def test_a_steeper_zipf_reads_fewer_files():
    assert len(_reads("zipf", 2.0)) < len(_reads("zipf", 1.0))


def test_a_short_run_at_full_scale_reads_the_archive_and_mounts_for_nearly_every_read():
    for policy in ("vertical", "parallel", "rait"):
        run = run_once(override(_scenario(), policy=policy, duration_s=HOUR / 2), seed=1)
        reads = [r for r in run.records if r.kind == "read"]
        assert reads and all(r.file.startswith(("a", "f")) for r in reads)
        archive_reads = [r for r in reads if r.file.startswith("a")]
        assert len(archive_reads) > 0.9 * len(reads)
        assert all(t.startswith("A") for r in archive_reads for t in r.tapes)
        assert sum(r.mounts > 0 for r in archive_reads) > 0.9 * len(archive_reads)
        assert not run.summary.saturated


def test_a_rewrite_of_an_archive_file_goes_to_new_tapes():
    scenario = override(_scenario(), duration_s=2 * HOUR)
    scenario = evolve(scenario, workload=evolve(scenario.workload, new_file_share=0.0))
    run = run_once(scenario, seed=2)
    catalogue = run.simulation.catalogue
    rewrites = [r for r in run.records if r.kind == "write" and r.file.startswith("a")]
    assert rewrites
    for record in rewrites:
        assert all(t.startswith("T") for t in record.tapes)
        layout = catalogue.layout(record.file)
        assert {t for row in layout.rows for t in row.tapes} <= {t.id for t in catalogue.tapes()}


def test_three_libraries_read_through_pass_through():
    scenario = _scenario("blue-waters-3-libraries")
    platform = scenario.platform
    assert [lib.id for lib in platform.libraries] == ["L0", "L1", "L2"]
    assert Counter(d.library for d in platform.drives) == {"L0": 170, "L1": 170, "L2": 160}
    assert sum(lib.arms for lib in platform.libraries) == 20
    assert platform.pass_through_s is not None and platform.pass_through_s.mean_s == 30.0
    # With 20 drives a library, a library's own drives are sometimes all busy, and a
    # read takes a drive of another one, its tape coming through a pass-through port.
    drives = tuple(d for d in platform.drives if int(d.id.split("-d")[1]) < 20)
    movers = tuple(m for m in platform.movers if any(d.mover == m.id for d in drives))
    scenario = evolve(scenario, platform=evolve(platform, drives=drives, movers=movers))
    run = run_once(override(scenario, duration_s=HOUR), seed=1, record=True)
    sim = run.simulation
    assert sim.pooled
    assert sim.platform.pass_throughs > 0
    reads = [r for r in run.records if r.kind == "read" and r.file.startswith("a")]
    homes = {sim.catalogue.tape(r.tapes[0]).library for r in reads}
    assert homes == {"L0", "L1", "L2"}
    crossed = [
        r for r in reads if sim.catalogue.tape(r.tapes[0]).library != r.drives[0].split("-")[0]
    ]
    assert crossed


def test_an_archive_the_tapes_cannot_hold_is_refused():
    with pytest.raises(ValueError, match="hold no set"):
        Archive(
            ArchiveParams(3),
            make_policy("parallel", block_mb=16.0),
            sizes_mb=(10.0, 100.0),
            schemes=((Scheme(4, 2), 1.0),),
            data_ratio=(1.0, 3.0),
            ec_ratio=None,
            capacity_mb=CAPACITY_MB,
            libraries=("L0",),
            seed=1,
        )


class _Mirrored:
    """A policy of a user's package that lays the archive out as PARALLEL does, under its own
    name: no built-in policy, and no subclass of one."""

    name = "mirrored"

    def __init__(self, block_mb: float) -> None:
        self._parallel = Parallel(block_mb)

    def archive_sides(self, lo_mb, hi_mb):
        return (ArchiveSide(self, lo_mb, hi_mb, hi_mb),)

    def member_slots_mb(self, scheme, size_mb, data_ratio):
        return self._parallel.member_slots_mb(scheme, size_mb, data_ratio)

    def files_per_slot(self, scheme):
        return self._parallel.files_per_slot(scheme)

    def fill_slot(self, file, index, slots):
        return self._parallel.fill_slot(file, index, slots)


def test_a_policy_of_ones_own_lays_the_archive_out_by_what_it_says():
    own, parallel = _archive(_Mirrored(16.0), tapes=5000), _archive("parallel", tapes=5000)
    assert (own.count, own.tapes_used) == (parallel.count, parallel.tapes_used)
    for k in range(0, own.count, own.count // 200):
        layout, shares = own.layout(k)
        expected, expected_shares = parallel.layout(k)
        assert own.writer(k) == layout.policy == "mirrored"
        assert (evolve(layout, policy="parallel"), shares) == (expected, expected_shares)


def test_a_policy_that_cannot_lay_an_archive_out_is_refused():
    class Unlaid:
        name = "unlaid"

    with pytest.raises(ValueError, match=r"archive_sides .* not unlaid"):
        _archive(Unlaid())
