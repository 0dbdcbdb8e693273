"""The five archival policies: the paper's figures by hand, bad input, and properties of any layout.

Hand-made cases use 1 MB blocks so that the blocks can be counted on the
fingers. The properties run random sequences of writes, rewrites and
closes on tapes small enough to fill every few writes, and check what any
layout must satisfy: every file survives the loss of any ``Y`` of its tapes
and no tape holds two members of a row; the bytes written are the data plus
its parity and compress as stated; tapes are filled append-only within
capacity; a read plan streams exactly what was written for the file.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from itertools import combinations, islice

import pytest
from attrs import evolve, frozen
from hypothesis import given, settings
from hypothesis import strategies as st

from tapesched.simulator.storage.catalogue import Catalogue
from tapesched.simulator.storage.catalogue_records import Chunk, FileLayout
from tapesched.simulator.storage.files import Extent, FileSpec, JobSpec, Scheme
from tapesched.simulator.storage.policies.hetero import Hetero
from tapesched.simulator.storage.policies.parallel import Parallel
from tapesched.simulator.storage.policies.policy import (
    Group,
    Policy,
    Unrecoverable,
    blocks_of,
    group_type,
    preload,
)
from tapesched.simulator.storage.policies.policy_registry import POLICIES, make_policy
from tapesched.simulator.storage.policies.rait import Rait
from tapesched.simulator.storage.policies.single import Single
from tapesched.simulator.storage.policies.vertical import Vertical

FOUR_ONE = Scheme(4, 1)
TWO_ONE = Scheme(2, 1)
TOL = 1e-6


def ext(e: Extent | None) -> tuple[str, float, float, float, int, str] | None:
    """An extent as a tuple, for tables of expected extents."""
    return None if e is None else (e.tape, e.offset_mb, e.tape_mb, e.host_mb, e.blocks, e.kind)


def tape(number: int) -> str:
    """The id of the ``number``-th tape created."""
    return f"T{number:06d}"


def table(plan_phases: Iterable[tuple[Extent | None, ...]]) -> list[list[object]]:
    return [[ext(e) for e in phase] for phase in plan_phases]


# RAIT


def test_rait_rotates_rows_by_one_drive_as_in_figure_1():
    cat = Catalogue(100.0, ["L0"])
    rait = Rait(1.0)
    file = FileSpec("a", 10.0, FOUR_ONE, data_ratio=2.0, ec_ratio=1.0)
    plan, group = rait.plan_write(cat, file, None, "L0")
    # Row 0: D1-D4 on drives 0-3, P1 on 4. Row 1: D5-D8 on 1-4, P2 on 0.
    # Row 2 (short): D9, D10 on drives 2, 3, P3 on 1; drives 4 and 0 have no block.
    # A data block takes 0.5 MB of tape, a parity block 1 MB.
    assert table(plan.phases) == [
        [
            ("T000001", 0.0, 1.5, 2.0, 2, "mixed"),  # D1 P2
            ("T000002", 0.0, 2.0, 3.0, 3, "mixed"),  # D2 D5 P3
            ("T000003", 0.0, 1.5, 3.0, 3, "data"),  # D3 D6 D9
            ("T000004", 0.0, 1.5, 3.0, 3, "data"),  # D4 D7 D10
            ("T000005", 0.0, 1.5, 2.0, 2, "mixed"),  # P1 D8
        ]
    ]
    assert plan.memory_mb == 5.0 and plan.flush == ()
    assert group.tapes == ("T000001", "T000002", "T000003", "T000004", "T000005")
    assert rait.plan_read(cat, "a") == plan
    assert rait.read_width(cat, "a") == rait.write_width(file) == 5

    # The next write on the group goes on with the rotation: its row is the group's row 3.
    plan, group = rait.plan_write(cat, FileSpec("b", 4.0, FOUR_ONE, 2.0, 1.0), group, "L0")
    assert table(plan.phases) == [
        [
            ("T000001", 1.5, 0.5, 1.0, 1, "data"),  # D3
            ("T000002", 2.0, 0.5, 1.0, 1, "data"),  # D4
            ("T000003", 1.5, 1.0, 1.0, 1, "ec"),  # P1
            ("T000004", 1.5, 0.5, 1.0, 1, "data"),  # D1
            ("T000005", 1.5, 0.5, 1.0, 1, "data"),  # D2
        ]
    ]


def test_rait_replaces_every_tape_when_the_next_row_does_not_fit():
    cat = Catalogue(3.0, ["L0"])
    plan, group = Rait(1.0).plan_write(cat, FileSpec("a", 8.0, TWO_ONE), None, "L0")
    assert table(plan.phases) == [
        [
            ("T000001", 0.0, 3.0, 3.0, 3, "mixed"),
            ("T000002", 0.0, 3.0, 3.0, 3, "mixed"),
            ("T000003", 0.0, 3.0, 3.0, 3, "mixed"),
        ],
        [
            ("T000004", 0.0, 1.0, 1.0, 1, "data"),
            ("T000005", 0.0, 1.0, 1.0, 1, "data"),
            ("T000006", 0.0, 1.0, 1.0, 1, "ec"),
        ],
    ]
    assert [(t.full, t.closed) for t in cat.tapes()] == [(True, True)] * 3 + [(False, False)] * 3
    assert group.tapes == ("T000004", "T000005", "T000006")
    assert len(cat.layout("a").rows) == 2


def test_rait_last_row_parity_is_as_long_as_its_longest_block():
    cat = Catalogue(100.0, ["L0"])
    rait = Rait(4.0)
    plan, _ = rait.plan_write(cat, FileSpec("a", 3.0, TWO_ONE), None, "L0")
    assert table(plan.phases) == [
        [("T000001", 0.0, 3.0, 3.0, 1, "data"), None, ("T000003", 0.0, 3.0, 3.0, 1, "ec")]
    ]
    cat2 = Catalogue(100.0, ["L0"])
    rait.plan_write(cat2, FileSpec("b", 5.0, TWO_ONE), None, "L0")
    assert cat2.written_mb("b").ec_host_mb == 4.0


# PARALLEL


def test_parallel_writes_contiguous_runs_and_replaces_a_full_parity_tape_alone_as_in_figure_2():
    cat = Catalogue(10.0, ["L0"])
    parallel = Parallel(1.0)

    def write(file_id: str, group: Group | None) -> tuple[JobSpec, Group]:
        return parallel.plan_write(cat, FileSpec(file_id, 24.0, FOUR_ONE, 2.0, 1.0), group, "L0")

    # 24 blocks: D1-D6, D7-D12, D13-D18, D19-D24 on four data tapes, P1-P6 on the fifth.
    plan, group = write("a", None)
    assert table(plan.phases) == [
        [(tape(i), 0.0, 3.0, 6.0, 6, "data") for i in range(1, 5)]
        + [("T000005", 0.0, 6.0, 6.0, 6, "ec")]
    ]
    # Figure 2(b): the parity tape fills after P4; P5 and P6 go to a new tape,
    # and the data drives go on, contiguously, on their tapes.
    plan, group = write("b", group)
    assert table(plan.phases) == [
        [(tape(i), 3.0, 2.0, 4.0, 4, "data") for i in range(1, 5)]
        + [("T000005", 6.0, 4.0, 4.0, 4, "ec")],
        [(tape(i), 5.0, 1.0, 2.0, 2, "data") for i in range(1, 5)]
        + [("T000006", 0.0, 2.0, 2.0, 2, "ec")],
    ]
    assert cat.tape("T000005").full and not cat.tape("T000001").closed
    (row,) = cat.layout("b").rows
    assert [m.pieces for m in row.members[:4]] == [
        (Chunk(tape(i), 3.0, 6.0, 3.0, blocks=6),) for i in range(1, 5)
    ]
    assert row.members[4].tapes == ("T000005", "T000006")
    assert parallel.plan_read(cat, "b") == JobSpec(
        (tuple(Extent(tape(i), 3.0, 3.0, 6.0, 6) for i in range(1, 5)),), memory_mb=4.0
    )
    assert parallel.read_width(cat, "b") == 4 and parallel.write_width(cat.file("b")) == 5

    plan, group = write("c", group)
    # A data tape fills: after two rows every tape is replaced, a new stripe begins.
    plan, group = write("d", group)
    assert table(plan.phases) == [
        [(tape(i), 9.0, 1.0, 2.0, 2, "data") for i in range(1, 5)]
        + [("T000006", 8.0, 2.0, 2.0, 2, "ec")],
        [(tape(i), 0.0, 2.0, 4.0, 4, "data") for i in range(7, 11)]
        + [("T000011", 0.0, 4.0, 4.0, 4, "ec")],
    ]
    assert len(cat.layout("d").rows) == 2
    assert group.tapes == tuple(tape(i) for i in range(7, 12))


def test_parallel_gives_ceil_then_floor_blocks_and_pads_short_rows_with_parity():
    cat = Catalogue(100.0, ["L0"])
    parallel = Parallel(1.0)
    # 21.5 MB: 22 blocks, runs of 6, 6, 5, 5; the short last block ends tape 3's run.
    plan, _ = parallel.plan_write(cat, FileSpec("a", 21.5, FOUR_ONE), None, "L0")
    assert [(e.host_mb, e.blocks) for e in plan.phases[0] if e] == [
        (6.0, 6),
        (6.0, 6),
        (5.0, 5),
        (4.5, 5),
        (6.0, 6),
    ]
    # 2.5 MB: three blocks in one row; the fourth data drive has nothing.
    plan, _ = parallel.plan_write(cat, FileSpec("b", 2.5, FOUR_ONE), None, "L0")
    assert [e.host_mb if e else None for e in plan.phases[0]] == [1.0, 1.0, 0.5, None, 1.0]
    assert parallel.plan_read(cat, "b").width == 4


# VERTICAL


def test_vertical_fills_x_data_tapes_then_writes_parity_after_the_last_data():
    cat = Catalogue(10.0, ["L0"])
    vertical = Vertical()
    plan, group = vertical.plan_write(cat, FileSpec("a", 15.0, TWO_ONE), None, "L0")
    assert table(plan.phases) == [
        [("T000001", 0.0, 10.0, 10.0, 1, "data")],
        [("T000002", 0.0, 5.0, 5.0, 1, "data")],
    ]
    assert plan.flush == () and plan.memory_mb == 0.0
    assert group.tapes == ("T000002",) and group.disk_mb == 10.0
    assert cat.written_mb("a").ec_held_mb == 7.5
    assert cat.recoverable("a", {"T000001"})

    # b fills the second data tape exactly: the parity follows as a flush.
    plan, group = vertical.plan_write(cat, FileSpec("b", 5.0, TWO_ONE), group, "L0")
    assert table(plan.phases) == [[("T000002", 5.0, 5.0, 5.0, 1, "data")]]
    assert table(plan.flush) == [[("T000003", 0.0, 10.0, 10.0, 1, "ec")]]
    assert group.tapes == () and group.disk_mb == 0.0
    assert cat.written_mb("a").ec_tape_mb == 7.5 and cat.written_mb("b").ec_tape_mb == 2.5
    row_a0, row_a1 = cat.layout("a").rows
    assert [m.tapes for m in row_a0.members] == [("T000001",), ("T000002",), ("T000003",)]
    assert row_a1.members[0].pieces == (Chunk("T000001", 0.0, 5.0, 5.0),)
    assert vertical.plan_read(cat, "a") == JobSpec(
        (
            (Extent("T000001", 0.0, 10.0, 10.0),),
            (Extent("T000002", 0.0, 5.0, 5.0),),
        )
    )
    assert vertical.read_width(cat, "a") == vertical.write_width(cat.file("a")) == 1


def test_vertical_writes_parity_mid_file_when_its_group_fills_and_on_close():
    cat = Catalogue(10.0, ["L0"])
    vertical = Vertical()
    _, group = vertical.plan_write(cat, FileSpec("a", 15.0, TWO_ONE), None, "L0")
    plan, group = vertical.plan_write(cat, FileSpec("b", 13.0, TWO_ONE), group, "L0")
    assert table(plan.phases) == [
        [("T000002", 5.0, 5.0, 5.0, 1, "data")],
        [("T000003", 0.0, 10.0, 10.0, 1, "ec")],
        [("T000004", 0.0, 8.0, 8.0, 1, "data")],
    ]
    assert plan.flush == ()
    assert group.disk_mb == 8.0
    assert not cat.tape("T000004").closed
    closing = vertical.close(cat, group)
    assert closing is not None and table(closing.phases) == [[("T000005", 0.0, 8.0, 8.0, 1, "ec")]]
    assert group.closed and cat.tape("T000004").closed and not cat.tape("T000004").full
    assert cat.written_mb("b").ec_host_mb == pytest.approx(6.5)
    with pytest.raises(ValueError, match="group is closed"):
        vertical.plan_write(cat, FileSpec("c", 1.0, TWO_ONE), group, "L0")


def test_vertical_parity_spills_onto_new_tapes_and_compresses_at_the_groups_mean_ratio():
    cat = Catalogue(10.0, ["L0"])
    vertical = Vertical()
    # Host-weighted harmonic mean of C_P 1 and 3 over 6 MB each: 12 / (6 + 2) = 1.5.
    _, group = vertical.plan_write(cat, FileSpec("a", 6.0, TWO_ONE, 3.0, 1.0), None, "L0")
    _, group = vertical.plan_write(cat, FileSpec("b", 6.0, TWO_ONE, 3.0, 3.0), group, "L0")
    closing = vertical.close(cat, group)
    assert closing is not None
    assert table(closing.phases) == [[("T000002", 0.0, 8.0, 12.0, 1, "ec")]]
    assert cat.written_mb("a").ec_tape_mb == pytest.approx(3.0 / 1.5)

    cat = Catalogue(10.0, ["L0"])
    _, group = vertical.plan_write(cat, FileSpec("a", 25.0, Scheme(3, 2), 2.0, 1.0), None, "L0")
    closing = vertical.close(cat, group)
    assert closing is not None
    # Two parity members of 20 host MB, each from a new tape and spilling onto another.
    assert [ext(p[0]) for p in closing.phases] == [
        ("T000003", 0.0, 10.0, 10.0, 1, "ec"),
        ("T000004", 0.0, 10.0, 10.0, 1, "ec"),
        ("T000005", 0.0, 10.0, 10.0, 1, "ec"),
        ("T000006", 0.0, 10.0, 10.0, 1, "ec"),
    ]


def test_vertical_without_parity_has_nothing_to_close():
    cat = Catalogue(10.0, ["L0"])
    _, group = Vertical().plan_write(cat, FileSpec("a", 4.0, Scheme(1, 0)), None, "L0")
    assert group.disk_mb == 0.0
    assert Vertical().close(cat, group) is None


@pytest.mark.parametrize(
    ("size_mb", "block_mb", "expected"),
    [
        (10.0, 1.0, (10, 1.0)),
        (10.5, 1.0, (11, 0.5)),
        (0.25, 1.0, (1, 0.25)),
        (0.9, 0.3, (3, 0.3)),  # 0.9 / 0.3 is 3.0000000000000004
        (0.3, 0.1, (3, pytest.approx(0.1))),  # 0.3 / 0.1 is 2.9999999999999996
    ],
)
def test_a_file_is_cut_into_whole_blocks_and_a_shorter_last_one(size_mb, block_mb, expected):
    assert blocks_of(size_mb, block_mb) == expected


# SINGLE

ONE_COPY = Scheme(1, 0)


def test_single_appends_each_file_on_one_drive_and_cuts_at_a_block_when_the_tape_fills():
    cat = Catalogue(10.0, ["L0"])
    single = Single()
    group = None
    plans = []
    for file_id, size_mb in [("a", 4.0), ("b", 5.0), ("c", 3.5), ("d", 2.0)]:
        plan, group = single.plan_write(cat, FileSpec(file_id, size_mb, ONE_COPY), group, "L0")
        plans.append(plan)
    # a and b follow one another on the first tape, an extent each, on one drive.
    assert [table(p.phases) for p in plans[:2]] == [
        [[("T000001", 0.0, 4.0, 4.0, 4, "data")]],
        [[("T000001", 4.0, 5.0, 5.0, 5, "data")]],
    ]
    # c (four 1 MB blocks, the last of 0.5) does not fit the 1 MB left: its first
    # block ends the tape, closed as full, the rest goes on a new one.
    assert table(plans[2].phases) == [
        [("T000001", 9.0, 1.0, 1.0, 1, "data")],
        [("T000002", 0.0, 2.5, 2.5, 3, "data")],
    ]
    assert table(plans[3].phases) == [[("T000002", 2.5, 2.0, 2.0, 2, "data")]]
    assert all(p.memory_mb == 0.0 and p.flush == () for p in plans)
    assert [(t.id, t.full, t.closed) for t in cat.tapes()] == [
        ("T000001", True, True),
        ("T000002", False, False),
    ]
    assert single.plan_read(cat, "c") == JobSpec(plans[2].phases, memory_mb=0.0)
    assert cat.writer("c") == "single" and single.read_width(cat, "c") == 1
    assert single.write_width(cat.file("c")) == 1 and group.tapes == ("T000002",)
    assert single.write_memory_mb(cat.file("c")) == 0.0
    assert single.stream_disk_mb(cat.file("c"), 10.0) == 0.0
    # One copy: a lost tape loses the files on it, and only those.
    with pytest.raises(Unrecoverable, match="'c' cannot be read"):
        single.plan_read(cat, "c", {"T000002"})
    assert single.plan_read(cat, "a", {"T000002"}) == single.plan_read(cat, "a")
    assert single.close(cat, group) is None and cat.tape("T000002").closed


def test_single_is_parallel_one_plus_zero_but_for_the_memory_and_refuses_other_schemes():
    """Same blocks, same tapes, same extents as PARALLEL writing 1+0; the plans hold no
    mover memory (PARALLEL's hold a block)."""
    files = [FileSpec(f"f{i}", size_mb, ONE_COPY) for i, size_mb in enumerate([3.0, 6.5, 2.0])]
    plans: dict[str, list[JobSpec]] = {}
    for policy in (Single(2.0), Parallel(2.0)):
        cat = Catalogue(8.0, ["L0"])
        group = None
        plans[policy.name] = []
        for file in files:
            plan, group = policy.plan_write(cat, file, group, "L0")
            plans[policy.name].append(plan)
    assert [p.phases for p in plans["single"]] == [p.phases for p in plans["parallel"]]
    assert {p.memory_mb for p in plans["parallel"]} == {2.0}
    cat = Catalogue(8.0, ["L0"])
    with pytest.raises(ValueError, match=r"keeps one copy \(scheme 1\+0\), not 2\+1"):
        Single().plan_write(cat, FileSpec("x", 1.0, TWO_ONE), None, "L0")
    assert cat.tapes() == () and not cat.has_file("x")
    assert Single().scheme_problem(ONE_COPY) is None


# HETERO, the registry, preload


def test_hetero_writes_small_files_vertically_and_large_ones_in_parallel_on_separate_groups():
    cat = Catalogue(100.0, ["L0"])
    hetero = Hetero(block_mb=1.0, threshold_mb=5.0)
    small, large = FileSpec("s", 4.9, TWO_ONE), FileSpec("l", 5.0, TWO_ONE)
    assert (hetero.write_width(small), hetero.write_width(large)) == (1, 3)
    assert (hetero.stream_of(small), hetero.stream_of(large)) == ("vertical", "parallel")
    assert (hetero.write_memory_mb(small), hetero.write_memory_mb(large)) == (0.0, 3.0)
    _, vgroup = hetero.plan_write(cat, small, None, "L0")
    _, pgroup = hetero.plan_write(cat, large, None, "L0")
    assert (vgroup.policy, pgroup.policy) == ("vertical", "parallel")
    assert group_type(hetero, small) == vgroup.type
    with pytest.raises(ValueError, match="parallel 2\\+1 write cannot go to a vertical"):
        hetero.plan_write(cat, FileSpec("l2", 50.0, TWO_ONE), vgroup, "L0")
    assert (hetero.read_width(cat, "s"), hetero.read_width(cat, "l")) == (1, 2)
    assert hetero.plan_read(cat, "s") == Vertical().plan_read(cat, "s")
    assert hetero.plan_read(cat, "l") == Parallel(1.0).plan_read(cat, "l")
    # Rewritten at a size above the threshold, the file is read in parallel.
    _, pgroup = hetero.plan_write(cat, FileSpec("s", 8.0, TWO_ONE), pgroup, "L0")
    assert cat.writer("s") == "parallel" and hetero.read_width(cat, "s") == 2
    assert hetero.close(cat, vgroup) is not None
    assert hetero.close(cat, pgroup) is None


def test_the_registry_builds_each_policy():
    assert sorted(POLICIES) == ["hetero", "parallel", "rait", "single", "vertical"]
    assert make_policy("single") == Single(1.0)
    assert make_policy("single", block_mb=2.0, threshold_mb=5.0) == Single(2.0)
    assert make_policy("rait", block_mb=2.0) == Rait(2.0)
    assert make_policy("parallel", block_mb=2.0) == Parallel(2.0)
    assert make_policy("vertical") == Vertical()
    assert make_policy("hetero", block_mb=2.0) == Hetero(2.0, 1000.0)
    assert make_policy("hetero", block_mb=2.0, threshold_mb=10.0).threshold_mb == 10.0


def test_preload_lays_files_out_and_closes_every_group():
    cat = Catalogue(10.0, ["L0", "L1"])
    files = [FileSpec(f"f{i}", 3.0, TWO_ONE) for i in range(3)] + [FileSpec("g", 2.0, FOUR_ONE)]
    preload(cat, Vertical(), files, "L1")
    assert all(t.closed and t.library == "L1" for t in cat.tapes())
    assert all(cat.written_mb(f.id).ec_held_mb == 0 for f in files)
    assert Vertical().plan_read(cat, "f2").phases == ((Extent("T000001", 6.0, 3.0, 3.0),),)


# Bad input


@pytest.mark.parametrize("text", ["4", "4+1+1", "a+b", "4 + x", "-1+2", ""])
def test_a_scheme_is_written_x_plus_y(text):
    with pytest.raises(ValueError, match="written X\\+Y"):
        Scheme.parse(text)


def write_one(policy: Policy, library: str) -> None:
    """A 1 MB write on 10 MB tapes of library ``L``, in ``library``."""
    policy.plan_write(Catalogue(10.0, ["L"]), FileSpec("f", 1.0, TWO_ONE), None, library)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Scheme(0, 1), "data must be >= 1"),
        (lambda: Scheme(2, -1), "parity must be >= 0"),
        (lambda: FileSpec("f", 0.0, TWO_ONE), "size_mb must be > 0"),
        (lambda: FileSpec("f", -3.0, TWO_ONE), "size_mb must be > 0"),
        (lambda: FileSpec("f", math.nan, TWO_ONE), "size_mb must be > 0"),
        (lambda: FileSpec("f", 1.0, TWO_ONE, data_ratio=0.5), "data_ratio must be >= 1"),
        (lambda: FileSpec("f", 1.0, TWO_ONE, 2.0, 2.5), "ec_ratio must be within"),
        (lambda: FileSpec("f", 1.0, TWO_ONE, 2.0, 0.9), "ec_ratio must be within"),
        (lambda: Rait(0.0), "block_mb must be > 0"),
        (lambda: Parallel(-1.0), "block_mb must be > 0"),
        (lambda: Single(0.0), "block_mb must be > 0"),
        (lambda: Rait(math.inf), "block_mb must be > 0"),
        (lambda: Hetero(1.0, threshold_mb=0.0), "threshold_mb must be > 0"),
        (lambda: make_policy("raid", block_mb=1.0), "unknown policy 'raid'"),
        (lambda: write_one(Rait(20.0), "L"), "larger than a tape"),
        (lambda: write_one(Vertical(), "X"), "unknown library 'X'"),
    ],
)
def test_bad_input_is_refused_with_a_clear_message(make, message):
    with pytest.raises(ValueError, match=message):
        make()


@pytest.mark.parametrize("policy", [Rait(1.0), Parallel(1.0), Vertical()])
def test_a_write_to_an_unknown_library_changes_nothing(policy):
    cat = Catalogue(4.0, ["L0"])
    _, group = policy.plan_write(cat, FileSpec("a", 3.0, TWO_ONE), None, "L0")
    before = cat.tapes()
    with pytest.raises(ValueError, match="unknown library 'L7'"):
        policy.plan_write(cat, FileSpec("b", 30.0, TWO_ONE), group, "L7")
    assert cat.tapes() == before and not cat.has_file("b")


@pytest.mark.parametrize("policy", [Rait(1.0), Parallel(1.0), Vertical(), Hetero(1.0)])
def test_reading_a_file_that_was_never_written_names_it(policy):
    cat = Catalogue(10.0, ["L0"])
    with pytest.raises(KeyError, match="file 'nope' is not in the catalogue"):
        policy.plan_read(cat, "nope")
    with pytest.raises(KeyError, match="file 'nope'"):
        policy.read_width(cat, "nope")


def test_a_policy_refuses_files_and_groups_of_another_policy_or_scheme():
    cat = Catalogue(100.0, ["L0"])
    _, group = Rait(1.0).plan_write(cat, FileSpec("a", 3.0, TWO_ONE), None, "L0")
    with pytest.raises(ValueError, match="'a' was written by rait, not parallel"):
        Parallel(1.0).plan_read(cat, "a")
    with pytest.raises(ValueError, match="rait 4\\+1 write cannot go to a rait 2\\+1 group"):
        Rait(1.0).plan_write(cat, FileSpec("b", 3.0, FOUR_ONE), group, "L0")
    with pytest.raises(ValueError, match="vertical 2\\+1 write cannot go to a rait 2\\+1"):
        Vertical().plan_write(cat, FileSpec("b", 3.0, TWO_ONE), group, "L0")
    with pytest.raises(ValueError, match="vertical cannot close a rait"):
        Vertical().close(cat, group)
    with pytest.raises(ValueError, match="hetero writes with vertical or parallel, not rait"):
        Hetero(1.0).plan_read(cat, "a")
    with pytest.raises(ValueError, match="group was not opened by VERTICAL"):
        Vertical().plan_write(cat, FileSpec("b", 1.0, TWO_ONE), Group("vertical", TWO_ONE), "L0")
    assert Rait(1.0).close(cat, group) is None
    with pytest.raises(ValueError, match="group is closed"):
        Rait(1.0).close(cat, group)


# Properties of any layout

SCHEMES = [Scheme(1, 0), Scheme(2, 1), Scheme(3, 1), Scheme(3, 2), Scheme(4, 2)]
THRESHOLD_MB = 5.0


@frozen
class Write:
    file: FileSpec
    library: str


@frozen
class Close:
    index: int


@frozen
class Scenario:
    policy: str
    block_mb: float
    capacity_mb: float
    steps: tuple[Write | Close, ...]


@st.composite
def writes(draw: st.DrawFn) -> Write:
    data_ratio = draw(st.floats(1.0, 3.0))
    file = FileSpec(
        id=f"f{draw(st.integers(0, 5))}",
        size_mb=draw(st.integers(1, 3000)) / 100,
        scheme=draw(st.sampled_from(SCHEMES)),
        data_ratio=data_ratio,
        ec_ratio=draw(st.floats(1.0, data_ratio)),
    )
    return Write(file, draw(st.sampled_from(["L0", "L1"])))


scenarios = st.builds(
    Scenario,
    policy=st.sampled_from(sorted(POLICIES)),
    block_mb=st.sampled_from([0.5, 1.0, 2.5]),
    capacity_mb=st.sampled_from([2.5, 4.0, 7.5, 20.0]),
    steps=st.lists(
        st.one_of(writes(), writes(), st.builds(Close, st.integers(0, 3))), min_size=1, max_size=9
    ).map(tuple),
)


@frozen
class Outcome:
    catalogue: Catalogue
    policy: Policy
    plans: tuple[JobSpec, ...]
    last_write: dict[str, JobSpec]


def play(scenario: Scenario) -> Outcome:
    """Run the scenario's writes and closes, then close every group left open."""
    cat = Catalogue(scenario.capacity_mb, ["L0", "L1"])
    if scenario.policy == "vertical":
        policy = make_policy("vertical")
    elif scenario.policy == "hetero":
        policy = make_policy("hetero", block_mb=scenario.block_mb, threshold_mb=THRESHOLD_MB)
    else:
        policy = make_policy(scenario.policy, block_mb=scenario.block_mb)
    groups: dict[tuple[str, Scheme], Group] = {}
    plans: list[JobSpec] = []
    last_write: dict[str, JobSpec] = {}
    for step in scenario.steps:
        if isinstance(step, Write):
            if scenario.policy == "single":  # one copy: SINGLE writes 1+0 only
                step = Write(evolve(step.file, scheme=Scheme(1, 0)), step.library)
            key = group_type(policy, step.file)
            plan, groups[key] = policy.plan_write(cat, step.file, groups.get(key), step.library)
            assert all(len(p) == policy.write_width(step.file) for p in plan.phases + plan.flush)
            plans.append(plan)
            last_write[step.file.id] = plan
        elif groups:
            key = sorted(groups, key=str)[step.index % len(groups)]
            closing = policy.close(cat, groups.pop(key))
            if closing is not None:
                plans.append(closing)
    for group in groups.values():
        closing = policy.close(cat, group)
        if closing is not None:
            assert all(len(p) == 1 for p in closing.phases)
            plans.append(closing)
    return Outcome(cat, policy, tuple(plans), last_write)


PROPERTY_SETTINGS = settings(derandomize=True, max_examples=200, deadline=None)


@PROPERTY_SETTINGS
@given(scenarios)
def test_every_file_survives_the_loss_of_any_y_of_its_tapes_and_no_more(scenario):
    out = play(scenario)
    cat = out.catalogue
    for file_id in cat.files():
        layout = cat.layout(file_id)
        y = layout.file.scheme.parity
        for row in layout.rows:
            assert len(row.members) == layout.file.scheme.width
            seen: set[str] = set()
            for member in row.members:
                assert seen.isdisjoint(member.tapes), "a tape holds two members of a row"
                seen.update(member.tapes)
            on_tape = [m for m in row.members if m.pieces]
            if len(on_tape) > y:
                assert not cat.recoverable(file_id, {m.pieces[0].tape for m in on_tape[: y + 1]})
        tapes = sorted({t for row in layout.rows for t in row.tapes})
        for lost in islice(combinations(tapes, min(y, len(tapes))), 40):
            assert cat.recoverable(file_id, lost)


def block_sizes(size_mb: float, block_mb: float) -> list[float]:
    count = max(1, math.ceil(size_mb / block_mb - 1e-6))
    return [block_mb] * (count - 1) + [size_mb - (count - 1) * block_mb]


def expected_parity_host_mb(policy: str, file: FileSpec, block_mb: float) -> float:
    """``Y`` times the sum, over the file's rows of blocks, of each row's longest block."""
    blocks = block_sizes(file.size_mb, block_mb)
    x = file.scheme.data
    if policy == "rait":
        rows = [blocks[i : i + x] for i in range(0, len(blocks), x)]
    else:
        q, r = divmod(len(blocks), x)
        counts = [q + 1 if k < r else q for k in range(x)]
        starts = [sum(counts[:k]) for k in range(x)]
        rows = [
            [blocks[starts[k] + i] for k in range(x) if i < counts[k]] for i in range(counts[0])
        ]
    return file.scheme.parity * sum(max(row) for row in rows)


@PROPERTY_SETTINGS
@given(scenarios)
def test_bytes_written_are_the_data_and_its_parity_compressed_as_stated(scenario):
    out = play(scenario)
    cat = out.catalogue
    ratios = [
        s.file.ec_ratio
        for s in scenario.steps
        if isinstance(s, Write)
        and (out.policy.stream_of(s.file) == "vertical" or scenario.policy == "vertical")
    ]
    for file_id in cat.files():
        file = cat.file(file_id)
        x, y = file.scheme.data, file.scheme.parity
        written = cat.written_mb(file_id)
        assert written.ec_held_mb == 0
        assert written.data_host_mb == pytest.approx(file.size_mb, rel=TOL)
        assert written.data_tape_mb == pytest.approx(file.size_mb / file.data_ratio, rel=TOL)
        writer = cat.writer(file_id)
        share = y * file.size_mb / x
        if writer == "vertical":
            assert written.ec_host_mb == pytest.approx(share, rel=TOL, abs=TOL)
            low, high = written.ec_host_mb / max(ratios), written.ec_host_mb / min(ratios)
            assert low - TOL <= written.ec_tape_mb <= high + TOL
            continue
        expected = expected_parity_host_mb(writer, file, scenario.block_mb)
        assert written.ec_host_mb == pytest.approx(expected, rel=TOL, abs=TOL)
        assert written.ec_tape_mb == pytest.approx(expected / file.ec_ratio, rel=TOL, abs=TOL)
        # The padding of the short rows: RAIT's last row pads at most (X-1)/X of a
        # block per parity member; PARALLEL's two last rows less than a block.
        bound = y * scenario.block_mb * ((x - 1) / x if writer == "rait" else 1.0)
        assert share - TOL <= written.ec_host_mb <= share + bound + TOL


@PROPERTY_SETTINGS
@given(scenarios)
def test_tapes_are_filled_append_only_within_capacity_and_plans_stream_all_that_is_on_them(
    scenario,
):
    out = play(scenario)
    cat = out.catalogue
    for tape in cat.tapes():
        assert tape.closed, "every group was closed"
        end = 0.0
        for piece in cat.tape_pieces(tape.id):
            assert piece.offset_mb == end
            end = piece.end_mb
        assert tape.used_mb == end <= tape.capacity_mb + TOL
    extents = [e for plan in out.plans for p in plan.phases + plan.flush for e in p if e]
    assert sum(e.tape_mb for e in extents) == pytest.approx(
        sum(t.used_mb for t in cat.tapes()), rel=TOL, abs=TOL
    )
    on_tape = [
        Extent(p.tape, p.offset_mb, p.tape_mb, p.host_mb)
        for t in cat.tapes()
        for p in cat.tape_pieces(t.id)
    ]
    assert same_intervals(extents, on_tape)


def merged(extents: Iterable[Extent]) -> list[tuple[str, float, float]]:
    """Tape intervals ``(tape, start, end)`` covered by ``extents``, touching ones joined."""
    out: list[tuple[str, float, float]] = []
    for e in sorted(extents, key=lambda e: (e.tape, e.offset_mb)):
        if out and out[-1][0] == e.tape and abs(out[-1][2] - e.offset_mb) <= TOL:
            out[-1] = (e.tape, out[-1][1], e.offset_mb + e.tape_mb)
        else:
            out.append((e.tape, e.offset_mb, e.offset_mb + e.tape_mb))
    return out


def same_intervals(a: Iterable[Extent], b: Iterable[Extent]) -> bool:
    """Whether two sets of extents cover the same tape intervals, up to rounding."""
    left, right = merged(a), merged(b)
    return len(left) == len(right) and all(
        t == u and math.isclose(s, v, abs_tol=TOL) and math.isclose(e, f, abs_tol=TOL)
        for (t, s, e), (u, v, f) in zip(left, right, strict=True)
    )


def own_pieces(layout: FileLayout) -> list[Chunk]:
    """What a read of the file must stream: all of RAIT's rows, else the file's data."""
    if layout.policy == "rait":
        return [p for row in layout.rows for m in row.members for p in m.pieces]
    x = layout.file.scheme.data
    return [p for row in layout.rows for i in row.own if i < x for p in row.members[i].pieces]


@PROPERTY_SETTINGS
@given(scenarios)
def test_a_read_plan_streams_exactly_what_the_files_last_write_put_on_tape(scenario):
    out = play(scenario)
    cat, policy = out.catalogue, out.policy
    for file_id in cat.files():
        file = cat.file(file_id)
        layout = cat.layout(file_id)
        plan = policy.plan_read(cat, file_id)
        width = policy.read_width(cat, file_id)
        assert plan.width == width and all(len(p) == width for p in plan.phases)
        assert plan.flush == ()
        read = [e for p in plan.phases for e in p if e]
        written = [
            e
            for p in out.last_write[file_id].phases
            for e in p
            if e and (layout.policy == "rait" or e.kind == "data")
        ]
        assert same_intervals(read, written)
        pieces = own_pieces(layout)
        assert sorted((e.tape, e.offset_mb, e.tape_mb) for e in read) == sorted(
            (p.tape, p.offset_mb, p.tape_mb) for p in pieces
        )
        host = sum(e.host_mb for e in read)
        parity = cat.written_mb(file_id).ec_host_mb if layout.policy == "rait" else 0.0
        assert host == pytest.approx(file.size_mb + parity, rel=TOL)
        assert read_memory(layout.policy, file, scenario.block_mb) == plan.memory_mb


def read_memory(policy: str, file: FileSpec, block_mb: float) -> float:
    return {"rait": file.scheme.width * block_mb, "parallel": file.scheme.data * block_mb}.get(
        policy, 0.0
    )
