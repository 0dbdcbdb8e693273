"""Degraded reads: plans that read around unavailable tapes, and the files they cannot save.

Hand-made catalogues (1 MB blocks, small tapes) check which tapes each
policy's degraded plan reads and how many more it mounts for a lost data
tape: RAIT none, PARALLEL one parity tape per lost data run, VERTICAL ``X``
(the group's ``X - 1`` other data tapes and a parity tape). A property over
random layouts and random sets of unavailable tapes checks what any
degraded plan must satisfy, and that a read fails exactly when
:meth:`~simulator.storage.catalogue.Catalogue.recoverable` says the file is lost.
"""

from __future__ import annotations

import pickle
from collections.abc import Collection

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tapesched.simulator.replay.trace import TraceRequest
from tapesched.simulator.replay.trace_archive import TraceArchive, TraceReads
from tapesched.simulator.sharing.groups import (
    DriveSet,
    HsmGroup,
    HsmPlatform,
    HsmServer,
    Reclamation,
    TapeBatch,
)
from tapesched.simulator.sharing.hsm_archive import HsmArchive, HsmReads
from tapesched.simulator.storage.archive import Archive, ArchiveParams
from tapesched.simulator.storage.catalogue import Catalogue
from tapesched.simulator.storage.catalogue_records import FileLayout, Row
from tapesched.simulator.storage.files import FileSpec, JobSpec, Scheme
from tapesched.simulator.storage.policies.hetero import Hetero
from tapesched.simulator.storage.policies.parallel import Parallel
from tapesched.simulator.storage.policies.policy import Policy, Unrecoverable, extent, preload
from tapesched.simulator.storage.policies.policy_registry import make_policy
from tapesched.simulator.storage.policies.rait import Rait
from tapesched.simulator.storage.policies.vertical import Vertical
from tapesched.simulator.workload.workload import SIZE_CLASSES_MB, TABLE_1
from tests.simulator.storage.test_policies import play, scenarios, table, tape

FOUR_ONE, FOUR_TWO, EIGHT_TWO = Scheme(4, 1), Scheme(4, 2), Scheme(8, 2)
SCHEMES = [FOUR_ONE, FOUR_TWO, EIGHT_TWO]


def tapes_read(plan: JobSpec) -> set[str]:
    """Every tape a plan reads."""
    return {e.tape for p in plan.phases for e in p if e is not None}


def columns(plan: JobSpec) -> list[list[str | None]]:
    """The tape each drive reads in each phase."""
    return [[None if e is None else e.tape for e in p] for p in plan.phases]


def extra_mounts(policy: Policy, cat: Catalogue, file_id: str, lost: Collection[str]) -> int:
    """Tapes the degraded plan reads that the normal plan does not."""
    return len(
        tapes_read(policy.plan_read(cat, file_id, lost))
        - tapes_read(policy.plan_read(cat, file_id))
    )


def full_vertical_group(scheme: Scheme) -> Catalogue:
    """A VERTICAL group of ``X`` files ``f0, f1, ...`` filling one 10 MB data tape each.

    Data tapes are ``T1..TX``; the parity, written when the ``X``-th fills,
    takes ``T(X+1)..T(X+Y)``.
    """
    cat = Catalogue(10.0, ["L0"])
    files = [FileSpec(f"f{i}", 10.0, scheme) for i in range(scheme.data)]
    preload(cat, Vertical(), files, "L0")
    return cat


# RAIT


@pytest.mark.parametrize("scheme", SCHEMES)
def test_rait_leaves_the_lost_members_out_and_mounts_nothing_more(scheme):
    x, y, w = scheme.data, scheme.parity, scheme.width
    cat = Catalogue(100.0, ["L0"])
    rait = Rait(1.0)
    preload(cat, rait, [FileSpec("f", 2.0 * x, scheme)], "L0")
    normal = rait.plan_read(cat, "f")
    assert columns(normal) == [[tape(i) for i in range(1, w + 1)]]
    lost = {tape(i) for i in range(1, y + 1)}
    plan = rait.plan_read(cat, "f", lost)
    assert columns(plan) == [[None] * y + [tape(i) for i in range(y + 1, w + 1)]]
    assert plan.phases[0][y:] == normal.phases[0][y:]
    assert (plan.memory_mb, plan.per_block) == (normal.memory_mb, True) == (w * 1.0, True)
    assert extra_mounts(rait, cat, "f", lost) == 0
    with pytest.raises(Unrecoverable) as info:
        rait.plan_read(cat, "f", lost | {tape(w)})
    assert (info.value.file_id, info.value.row) == ("f", 0)
    assert str(info.value) == (
        f"file 'f' cannot be read: row 0 has {y + 1} members on unavailable tapes, "
        f"more than the {y} its scheme rebuilds (Y = {y})"
    )


# PARALLEL


@pytest.mark.parametrize("scheme", SCHEMES)
def test_parallel_reads_a_parity_run_in_the_column_of_each_lost_data_run(scheme):
    x, y = scheme.data, scheme.parity
    cat = Catalogue(100.0, ["L0"])
    parallel = Parallel(1.0)
    preload(cat, parallel, [FileSpec("f", 2.0 * x, scheme)], "L0")
    normal = parallel.plan_read(cat, "f")
    data = [tape(i) for i in range(1, x + 1)]
    parity = [tape(i) for i in range(x + 1, x + y + 1)]
    assert columns(normal) == [data]
    # The second data tape lost: the first parity run is read in its column.
    plan = parallel.plan_read(cat, "f", {tape(2)})
    assert columns(plan) == [[data[0], parity[0], *data[2:]]]
    assert table(plan.phases)[0][1] == (parity[0], 0.0, 2.0, 2.0, 2, "ec")
    assert [e for i, e in enumerate(plan.phases[0]) if i != 1] == [
        e for i, e in enumerate(normal.phases[0]) if i != 1
    ]
    assert (plan.width, plan.memory_mb, plan.per_block) == (x, x * 1.0, False)
    assert extra_mounts(parallel, cat, "f", {tape(2)}) == 1
    # Y data tapes lost: the Y parity runs, in order, in their columns.
    lost = {data[2 * k] for k in range(y)}
    expected = list(data)
    for k in range(y):
        expected[2 * k] = parity[k]
    assert columns(parallel.plan_read(cat, "f", lost)) == [expected]
    assert extra_mounts(parallel, cat, "f", lost) == y
    # Parity tapes lost alone: the data is read as usual.
    assert parallel.plan_read(cat, "f", set(parity)) == normal
    with pytest.raises(Unrecoverable) as info:
        parallel.plan_read(cat, "f", {data[-1], *parity})
    assert (info.value.row, info.value.touched, info.value.parity) == (0, y + 1, y)


def test_parallel_reads_both_tapes_of_a_parity_member_that_spans_two():
    # Figure 2(b): file b's parity run fills T5 and ends on T6.
    cat = Catalogue(10.0, ["L0"])
    parallel = Parallel(1.0)
    files = [FileSpec(f, 24.0, FOUR_ONE, 2.0, 1.0) for f in "ab"]
    preload(cat, parallel, files, "L0")
    assert cat.layout("b").rows[0].members[4].tapes == (tape(5), tape(6))
    plan = parallel.plan_read(cat, "b", {tape(1)})
    assert table(plan.phases) == [
        [(tape(5), 6.0, 4.0, 4.0, 4, "ec")]
        + [(tape(i), 3.0, 3.0, 6.0, 6, "data") for i in (2, 3, 4)],
        [(tape(6), 0.0, 2.0, 2.0, 2, "ec"), None, None, None],
    ]
    assert extra_mounts(parallel, cat, "b", {tape(1)}) == 2


# VERTICAL


@pytest.mark.parametrize("scheme", SCHEMES)
def test_vertical_rebuilds_a_lost_data_tape_from_x_members_of_its_group_on_x_drives(scheme):
    x, y = scheme.data, scheme.parity
    cat = full_vertical_group(scheme)
    vertical = Vertical()
    assert columns(vertical.plan_read(cat, "f1")) == [[tape(2)]]
    plan = vertical.plan_read(cat, "f1", {tape(2)})
    # The other X - 1 data tapes, then the first parity tape: X drives.
    others = [tape(i) for i in range(1, x + 1) if i != 2]
    assert columns(plan) == [[*others, tape(x + 1)]]
    assert table(plan.phases) == [
        [(t, 0.0, 10.0, 10.0, 1, "data") for t in others]
        + [(tape(x + 1), 0.0, 10.0, 10.0, 1, "ec")]
    ]
    assert (plan.width, plan.memory_mb, plan.flush) == (x, 0.0, ())
    assert extra_mounts(vertical, cat, "f1", {tape(2)}) == x
    # Another file's data tape, or a parity tape, lost: f1 is read as usual.
    assert vertical.plan_read(cat, "f1", {tape(1), *(tape(x + j) for j in range(1, y))}) == (
        vertical.plan_read(cat, "f1")
    )
    # Y + 1 tapes of the group lost: the group cannot be rebuilt, and every file
    # of it is reported lost, f0 too, whose own tape is still readable (as
    # Catalogue.recoverable says: the row is more than Y members short).
    lost = {tape(i) for i in range(2, y + 3)}
    assert not cat.recoverable("f0", lost)
    for file_id in ("f0", "f1"):
        with pytest.raises(Unrecoverable, match=f"row 0 has {y + 1} members"):
            vertical.plan_read(cat, file_id, lost)


def test_vertical_rows_read_as_usual_sit_in_the_first_column_of_a_degraded_plan():
    # 2+1 on 10 MB tapes: a (15 MB) fills T1 and begins T2; b (5 MB) fills T2; parity on T3.
    cat = Catalogue(10.0, ["L0"])
    vertical = Vertical()
    preload(
        cat, vertical, [FileSpec("a", 15.0, Scheme(2, 1)), FileSpec("b", 5.0, Scheme(2, 1))], "L0"
    )
    plan = vertical.plan_read(cat, "a", {tape(1)})
    # a's first 10 MB, on T1, from T2 (a's then b's bytes) and the parity on T3;
    # its last 5 MB, on T2, as usual.
    assert table(plan.phases) == [
        [(tape(2), 0.0, 5.0, 5.0, 1, "data"), (tape(3), 0.0, 10.0, 10.0, 1, "ec")],
        [(tape(2), 5.0, 5.0, 5.0, 1, "data"), None],
        [(tape(2), 0.0, 5.0, 5.0, 1, "data"), None],
    ]
    assert extra_mounts(vertical, cat, "a", {tape(1)}) == 1


def test_vertical_parity_held_on_disk_is_read_with_no_extent():
    # 2+1, the group not full: a's parity is on the mover's disk, and T2 has 5 MB.
    cat = Catalogue(10.0, ["L0"])
    vertical = Vertical()
    _, group = vertical.plan_write(cat, FileSpec("a", 15.0, Scheme(2, 1)), None, "L0")
    assert group.disk_mb == 10.0
    plan = vertical.plan_read(cat, "a", {tape(1)})
    # T1's 10 MB from T2's 5 MB (then zeros) and the parity on disk.
    assert table(plan.phases) == [
        [(tape(2), 0.0, 5.0, 5.0, 1, "data"), None],
        [(tape(2), 0.0, 5.0, 5.0, 1, "data"), None],
    ]
    assert extra_mounts(vertical, cat, "a", {tape(1)}) == 0
    with pytest.raises(Unrecoverable):
        vertical.plan_read(cat, "a", {tape(1), tape(2)})


# HETERO, and the one-member files of a trace or an HSM


def test_hetero_degrades_as_the_policy_that_wrote_the_file():
    cat = Catalogue(100.0, ["L0"])
    hetero = Hetero(1.0, threshold_mb=5.0)
    preload(cat, hetero, [FileSpec("small", 3.0, FOUR_ONE), FileSpec("large", 8.0, FOUR_ONE)], "L0")
    for file_id, writer in (("small", Vertical()), ("large", Parallel(1.0))):
        own = cat.layout(file_id).rows[0]
        lost = {own.members[own.own[0]].tapes[0]}
        assert hetero.plan_read(cat, file_id, lost) == writer.plan_read(cat, file_id, lost)
        assert hetero.plan_read(cat, file_id, lost) != hetero.plan_read(cat, file_id)


def test_a_trace_file_is_lost_with_its_cartridge():
    requests = [TraceRequest("A", 0.0, 100.0), TraceRequest("B", 5.0, 3.0)]
    archive = TraceArchive(requests, {"A": 0, "B": 1})
    cat = Catalogue(1e12, ["level0", "level1"], archive)
    reads = TraceReads(block_mb=1.0, archive=archive)
    assert reads.plan_read(cat, "f0", {"B"}) == reads.plan_read(cat, "f0")
    with pytest.raises(Unrecoverable) as info:
        reads.plan_read(cat, "f0", {"A"})
    assert (info.value.file_id, info.value.row, info.value.touched, info.value.parity) == (
        "f0",
        0,
        1,
        0,
    )
    assert not cat.recoverable("f0", {"A"})


def test_an_hsm_file_or_reclamation_is_lost_with_any_of_its_cartridges():
    dset = DriveSet("d", 4, rate_mb_s=250.0, load_s=20.0, unload_s=30.0, locate_mb_s=1000.0,
                    arm_s=10.0, arms=2, file_overhead_s=2.0)  # fmt: skip
    pool = Reclamation(duration_s=10.0, threshold_pct=50.0, tape_mb=1e4, reclaimable_pct=(80.0,))
    platform = HsmPlatform(
        servers=[HsmServer("g", 1e9)],
        groups=[HsmGroup("g", "g")],
        drive_sets=[dset],
        reclamation={"d": pool},
    )
    batch = TapeBatch("b", "g", "d", "recall", "t", 0.0, [(0.0, 5.0), (100.0, 5.0)])
    archive = HsmArchive(platform, [batch])
    cat = Catalogue(1e12, ["d"], archive)
    reads = HsmReads(block_mb=1.0, archive=archive)
    assert reads.plan_read(cat, "f0", {"other"}) == reads.plan_read(cat, "f0")
    with pytest.raises(Unrecoverable, match="row 0 has 1 members"):
        reads.plan_read(cat, "f1", {"t"})
    reclaim = archive.file_id(2)
    (phase,) = reads.plan_read(cat, reclaim).phases
    assert len(phase) == 2
    for lost in ({phase[0].tape}, {phase[1].tape}):
        assert not cat.recoverable(reclaim, lost)
        with pytest.raises(Unrecoverable):
            reads.plan_read(cat, reclaim, lost)


def test_unrecoverable_is_a_value_error_that_survives_pickling():
    error = Unrecoverable("f", 3, 2, 1)
    again = pickle.loads(pickle.dumps(error))
    assert isinstance(again, ValueError)
    assert (again.file_id, again.row, again.touched, again.parity) == ("f", 3, 2, 1)
    assert str(again) == str(error)


# Properties of any degraded plan


def wanted(layout: FileLayout, row: Row) -> tuple[int, ...]:
    """The members of a row a normal read takes."""
    if layout.policy == "rait":
        return tuple(range(len(row.members)))
    if layout.policy == "parallel":
        return tuple(range(layout.file.scheme.data))
    return row.own


def touched(row: Row, lost: Collection[str]) -> set[int]:
    return {i for i, m in enumerate(row.members) if any(p.tape in lost for p in m.pieces)}


def check_degraded(policy: Policy, cat: Catalogue, file_id: str, lost: set[str]) -> JobSpec | None:
    """Check the degraded plan of ``file_id`` against its layout; the plan (None: lost)."""
    layout = cat.layout(file_id)
    y, x = layout.file.scheme.parity, layout.file.scheme.data
    normal = policy.plan_read(cat, file_id)
    short = [r for r, row in enumerate(layout.rows) if len(touched(row, lost)) > y]
    assert cat.recoverable(file_id, lost) == (not short)
    if short:
        with pytest.raises(Unrecoverable) as info:
            policy.plan_read(cat, file_id, lost)
        assert (info.value.file_id, info.value.row) == (file_id, short[0])
        assert info.value.touched == len(touched(layout.rows[short[0]], lost))
        return None
    plan = policy.plan_read(cat, file_id, lost)
    assert not tapes_read(plan) & lost
    assert all(len(p) == plan.width for p in plan.phases) and plan.flush == ()
    assert (plan.memory_mb, plan.per_block) == (normal.memory_mb, normal.per_block)
    if not lost & {t for row in layout.rows for t in row.tapes}:
        assert plan == normal
    # What the normal read takes of untouched members is read as then, in the same column
    # (a member with a piece on a lost tape is rebuilt whole, its other pieces too).
    rebuilt = {
        extent(c) for row in layout.rows for m in touched(row, lost) for c in row.members[m].pieces
    }
    kept = {(i, e) for p in normal.phases for i, e in enumerate(p) if e and e not in rebuilt}
    assert kept <= {(i, e) for p in plan.phases for i, e in enumerate(p) if e}
    # Every row can be decoded: its wanted members read whole, or X members read whole.
    read = {e for p in plan.phases for e in p if e}

    def whole(m: int, row: Row) -> bool:
        return all(extent(c) in read for c in row.members[m].pieces)

    for row in layout.rows:
        hit = touched(row, lost)
        if hit.isdisjoint(wanted(layout, row)):
            assert all(whole(m, row) for m in wanted(layout, row))
        else:
            assert sum(1 for m in range(len(row.members)) if m not in hit and whole(m, row)) >= x
    return plan


@settings(derandomize=True, max_examples=150, deadline=None)
@given(scenarios, st.data())
def test_a_degraded_plan_reads_no_unavailable_tape_and_fails_exactly_when_the_file_is_lost(
    scenario, data
):
    out = play(scenario)
    cat, policy = out.catalogue, out.policy
    for file_id in cat.files():
        tapes = sorted({t for row in cat.layout(file_id).rows for t in row.tapes})
        lost = set(data.draw(st.sets(st.sampled_from([*tapes, "T999999"]), max_size=4)))
        check_degraded(policy, cat, file_id, lost)


# The archive at time 0


@pytest.mark.parametrize("policy_name", ["vertical", "parallel", "rait", "hetero"])
def test_the_archives_files_get_degraded_plans_too(policy_name):
    kwargs = {} if policy_name == "vertical" else {"block_mb": 16.0}
    policy = make_policy(policy_name, **kwargs)
    archive = Archive(
        ArchiveParams(20_000),
        policy,
        sizes_mb=SIZE_CLASSES_MB["mixed"],
        schemes=tuple(TABLE_1.items()),
        data_ratio=(1.0, 3.0),
        ec_ratio=None,
        capacity_mb=1_000_000.0,
        libraries=("L0",),
        seed=5,
    )
    cat = Catalogue(1_000_000.0, ["L0"], archive)
    for k in range(0, archive.count, archive.count // 60):
        file_id = f"a{k}"
        layout = cat.layout(file_id)
        row = layout.rows[0]
        first = row.members[wanted(layout, row)[0]].tapes[0]
        lost = {first}
        plan = check_degraded(policy, cat, file_id, lost)
        x, y = layout.file.scheme.data, layout.file.scheme.parity
        if y == 0:
            assert plan is None
            continue
        assert plan is not None
        extra = len(tapes_read(plan) - tapes_read(policy.plan_read(cat, file_id)))
        if layout.policy == "rait":
            assert extra == 0
        elif layout.policy == "parallel":
            assert extra == len(row.members[x].tapes) >= 1
        else:
            others = [m for m in range(len(row.members)) if m not in row.own][:x]
            assert extra == len({t for m in others for t in row.members[m].tapes}) >= x
            assert plan.width == x
        check_degraded(policy, cat, file_id, set(row.tapes[: y + 1]))
