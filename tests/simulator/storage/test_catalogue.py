"""The catalogue: tapes append-only, stripes and windows, recovery, bytes written, bad input."""

from __future__ import annotations

import doctest
import math

import pytest

from tapesched import simulator
from tapesched.simulator.storage.catalogue import Catalogue
from tapesched.simulator.storage.catalogue_records import Chunk, RowSpan, TapeInfo, Written
from tapesched.simulator.storage.files import FileSpec, Scheme

TWO_ONE = Scheme(2, 1)


def catalogue(capacity_mb: float = 100.0) -> Catalogue:
    return Catalogue(capacity_mb, ["L0", "L1"])


def test_docstring_example_runs():
    assert doctest.testmod(simulator.storage.catalogue).failed == 0


def test_tapes_are_numbered_in_creation_order_across_libraries_and_start_empty():
    cat = catalogue(50.0)
    assert [cat.new_tape("L0"), cat.new_tape("L1"), cat.new_tape("L0")] == [
        "T000001",
        "T000002",
        "T000003",
    ]
    assert cat.tape("T000002") == TapeInfo("T000002", "L1", 50.0, 0.0, False, False)
    assert [cat.library(t) for t in ("T000001", "T000002")] == ["L0", "L1"]
    assert [t.id for t in cat.tapes()] == ["T000001", "T000002", "T000003"]
    assert cat.free_mb("T000003") == 50.0
    assert cat.tape_pieces("T000001") == ()


@pytest.mark.parametrize(
    ("capacity_mb", "libraries", "message"),
    [
        (0.0, ["L0"], "capacity_mb must be a positive number"),
        (-5.0, ["L0"], "capacity_mb must be a positive number"),
        (math.nan, ["L0"], "capacity_mb must be a positive number"),
        (math.inf, ["L0"], "capacity_mb must be a positive number"),
        (10.0, [], "at least one library"),
        (10.0, ["L0", "L0"], "must be distinct"),
    ],
)
def test_a_bad_catalogue_is_refused(capacity_mb, libraries, message):
    with pytest.raises(ValueError, match=message):
        Catalogue(capacity_mb, libraries)


def test_a_tape_in_an_unknown_library_is_refused():
    with pytest.raises(ValueError, match="unknown library 'L9'"):
        catalogue().new_tape("L9")


@pytest.mark.parametrize(
    "ask",
    [
        lambda c: c.layout("ghost"),
        lambda c: c.file("ghost"),
        lambda c: c.writer("ghost"),
        lambda c: c.written_mb("ghost"),
        lambda c: c.recoverable("ghost", ()),
    ],
)
def test_asking_for_a_file_not_written_names_it(ask):
    cat = catalogue()
    assert not cat.has_file("ghost")
    with pytest.raises(KeyError, match="file 'ghost' is not in the catalogue"):
        ask(cat)


@pytest.mark.parametrize(
    "ask",
    [
        lambda c: c.tape("T000009"),
        lambda c: c.library("T000009"),
        lambda c: c.free_mb("T000009"),
        lambda c: c.tape_pieces("T000009"),
        lambda c: c.close_tape("T000009"),
    ],
)
def test_asking_for_a_tape_not_created_names_it(ask):
    with pytest.raises(KeyError, match="tape 'T000009' is not in the catalogue"):
        ask(catalogue())


def test_appends_are_contiguous_and_a_piece_that_does_not_fit_is_refused():
    cat = catalogue(10.0)
    tape = cat.new_tape("L0")
    s = cat.open_stripe(Scheme(1, 0))
    first = cat.append(s, 0, tape, data_host_mb=9.0, data_tape_mb=3.0, blocks=3)
    second = cat.append(s, 0, tape, data_host_mb=6.0, data_tape_mb=6.0)
    assert (first.offset_mb, first.end_mb, second.offset_mb, second.end_mb) == (0, 3, 3, 9)
    assert first.kind == "data" and first.host_mb == 9.0 and first.tape_mb == 3.0
    with pytest.raises(ValueError, match=r"does not fit on tape 'T000001' \(1.0 MB free\)"):
        cat.append(s, 0, tape, data_host_mb=2.0, data_tape_mb=2.0)
    cat.append(s, 0, tape, data_host_mb=1.0, data_tape_mb=1.0 + 1e-10)
    assert cat.tape(tape).used_mb == pytest.approx(10.0)
    assert cat.tape_pieces(tape)[:2] == (first, second)


def test_nothing_is_appended_to_a_closed_tape_and_full_implies_closed():
    cat = catalogue()
    a, b = cat.new_tape("L0"), cat.new_tape("L0")
    s = cat.open_stripe(Scheme(1, 0))
    cat.close_tape(a)
    cat.close_tape(b, full=True)
    assert (cat.tape(a).closed, cat.tape(a).full, cat.tape(b).closed, cat.tape(b).full) == (
        True,
        False,
        True,
        True,
    )
    with pytest.raises(ValueError, match="tape 'T000001' is closed"):
        cat.append(s, 0, a, data_host_mb=1.0, data_tape_mb=1.0)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"offset_mb": -1.0, "data_host_mb": 1.0}, "offset_mb must be >= 0"),
        ({"offset_mb": 0.0, "data_host_mb": -1.0}, "data_host_mb must be >= 0"),
        ({"offset_mb": 0.0, "ec_tape_mb": math.nan, "ec_host_mb": 1.0}, "ec_tape_mb must be >= 0"),
        ({"offset_mb": 0.0, "data_host_mb": math.inf}, "data_host_mb must be >= 0"),
        ({"offset_mb": 0.0}, "must hold some bytes"),
        ({"offset_mb": 0.0, "data_host_mb": 1.0, "blocks": 0}, "blocks must be >= 1"),
    ],
)
def test_a_bad_piece_is_refused(fields, message):
    with pytest.raises(ValueError, match=message):
        Chunk("T1", **fields)


def test_a_mixed_piece_keeps_data_and_parity_apart():
    piece = Chunk("T1", 2.0, data_host_mb=6.0, data_tape_mb=2.0, ec_host_mb=3.0, ec_tape_mb=3.0)
    assert (piece.kind, piece.host_mb, piece.tape_mb, piece.end_mb) == ("mixed", 9.0, 5.0, 7.0)
    assert Chunk("T1", 0.0, ec_host_mb=1.0, ec_tape_mb=1.0).kind == "ec"


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [
        (lambda c: c.open_stripe(TWO_ONE, ["data", "ec"]), ValueError, "has 3 members, not 2"),
        (lambda c: c.open_stripe(TWO_ONE, ["data", "data", "p"]), ValueError, "member kinds"),
        (lambda c: c.open_stripe(TWO_ONE, shares=0), ValueError, "shares must be >= 1"),
        (lambda c: c.hold(c.open_stripe(TWO_ONE), 2, -1.0), ValueError, "held_mb must be >= 0"),
        (lambda c: c.hold(7, 0, 1.0), KeyError, "stripe 7 is not in the catalogue"),
        (lambda c: c.member_length_mb(c.open_stripe(TWO_ONE), 3), IndexError, "members 0..2"),
    ],
)
def test_bad_stripes_are_refused(make, error, message):
    with pytest.raises(error, match=message):
        make(catalogue())


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"own": ()}, "must name the members"),
        ({"own": (0,), "lo_mb": 1.0}, "both ends or neither"),
        ({"own": (0,), "lo_mb": 2.0, "hi_mb": 2.0}, "must not be empty"),
    ],
)
def test_a_bad_row_span_is_refused(fields, message):
    with pytest.raises(ValueError, match=message):
        RowSpan(0, **fields)


def test_a_layout_must_match_its_stripes():
    cat = catalogue()
    s = cat.open_stripe(TWO_ONE)
    f = FileSpec("f", 1.0, Scheme(3, 1))
    with pytest.raises(ValueError, match="at least one row"):
        cat.record(f, "demo", [])
    with pytest.raises(ValueError, match="'f' is 3\\+1 but stripe 0 is 2\\+1"):
        cat.record(f, "demo", [RowSpan(s, (0,))])
    with pytest.raises(KeyError, match="stripe 4"):
        cat.record(f, "demo", [RowSpan(4, (0,))])
    with pytest.raises(IndexError, match="no member among \\(3,\\)"):
        cat.record(FileSpec("g", 1.0, TWO_ONE), "demo", [RowSpan(s, (3,))])


def write_two_one(cat: Catalogue, file_id: str = "f") -> tuple[str, str, str, str]:
    """A 2+1 file of 8 MB (C_D 2, C_P 1) whose parity member spans two tapes; its tapes."""
    d0, d1, p0, p1 = (cat.new_tape("L0") for _ in range(4))
    s = cat.open_stripe(TWO_ONE)
    cat.append(s, 0, d0, data_host_mb=4.0, data_tape_mb=2.0)
    cat.append(s, 1, d1, data_host_mb=4.0, data_tape_mb=2.0)
    cat.append(s, 2, p0, ec_host_mb=3.0, ec_tape_mb=3.0)
    cat.append(s, 2, p1, ec_host_mb=1.0, ec_tape_mb=1.0)
    cat.record(FileSpec(file_id, 8.0, TWO_ONE, 2.0, 1.0), "demo", [RowSpan(s, (0, 1, 2))])
    return d0, d1, p0, p1


def test_a_row_survives_up_to_y_lost_members_however_many_tapes_a_member_spans():
    cat = catalogue()
    d0, d1, p0, p1 = write_two_one(cat)
    assert cat.recoverable("f", ())
    for tape in (d0, d1, p0, p1):
        assert cat.recoverable("f", {tape})
    assert cat.recoverable("f", {p0, p1, "T999999"})
    assert not cat.recoverable("f", {d0, p1})
    assert not cat.recoverable("f", [d0, d1])
    (row,) = cat.layout("f").rows
    assert [m.tapes for m in row.members] == [(d0,), (d1,), (p0, p1)]
    assert row.tapes == (d0, d1, p0, p1)
    assert cat.writer("f") == "demo"


def test_bytes_written_split_data_and_parity():
    cat = catalogue()
    write_two_one(cat)
    assert cat.written_mb("f") == Written(8.0, 4.0, 4.0, 4.0, 0.0)


def test_merge_joins_a_piece_that_continues_the_members_last_one():
    cat = catalogue()
    tape, other = cat.new_tape("L0"), cat.new_tape("L0")
    s = cat.open_stripe(Scheme(1, 0))
    cat.append(s, 0, tape, data_host_mb=2.0, data_tape_mb=1.0, blocks=2)
    part = cat.append(s, 0, tape, data_host_mb=4.0, data_tape_mb=2.0, blocks=4, merge=True)
    assert part == Chunk(tape, 1.0, 4.0, 2.0, blocks=4)
    cat.append(s, 0, other, data_host_mb=1.0, data_tape_mb=1.0, merge=True)
    cat.record(FileSpec("f", 7.0, Scheme(1, 0), 2.0), "demo", [RowSpan(s, (0,))])
    (row,) = cat.layout("f").rows
    assert row.members[0].pieces == (
        Chunk(tape, 0.0, 6.0, 3.0, blocks=6),
        Chunk(other, 0.0, 1.0, 1.0),
    )
    assert cat.tape_pieces(tape) == (Chunk(tape, 0.0, 6.0, 3.0, blocks=6),)
    assert cat.tape(tape).used_mb == 3.0


def test_windowed_rows_see_later_writes_to_their_group_and_held_parity_survives():
    cat = catalogue()
    d0, d1 = cat.new_tape("L0"), cat.new_tape("L0")
    s = cat.open_stripe(TWO_ONE, shares=2)
    a = FileSpec("a", 4.0, TWO_ONE, 2.0, 1.0)
    b = FileSpec("b", 6.0, TWO_ONE, 3.0, 1.0)
    cat.append(s, 0, d0, data_host_mb=4.0, data_tape_mb=2.0)
    cat.record(a, "vertical", [RowSpan(s, (0,), 0.0, 4.0)])
    cat.hold(s, 2, 4.0)
    (row,) = cat.layout("a").rows
    assert [m.pieces for m in row.members[1:]] == [(), ()]
    assert row.members[2].held_mb == 4.0
    assert cat.recoverable("a", {d0, d1})  # nothing else is on tape yet: the disk holds parity

    cat.append(s, 1, d1, data_host_mb=6.0, data_tape_mb=2.0)
    cat.record(b, "vertical", [RowSpan(s, (1,), 0.0, 6.0)])
    cat.hold(s, 2, 6.0)
    (row,) = cat.layout("a").rows
    assert row.members[1].pieces == (Chunk(d1, 0.0, 4.0, 4.0 / 3.0),)
    assert cat.recoverable("a", {d0}) and not cat.recoverable("a", {d0, d1})
    assert cat.written_mb("a") == Written(4.0, 2.0, 0.0, 0.0, 2.0)

    p = cat.new_tape("L0")
    cat.hold(s, 2, 0.0)
    cat.append(s, 2, p, ec_host_mb=6.0, ec_tape_mb=6.0)
    (row_b,) = cat.layout("b").rows
    assert row_b.members[0].pieces == (Chunk(d0, 0.0, 4.0, 2.0),)
    assert row_b.members[2].pieces == (Chunk(p, 0.0, ec_host_mb=6.0, ec_tape_mb=6.0),)
    assert cat.written_mb("b") == Written(6.0, 2.0, 3.0, 3.0, 0.0)
    assert cat.written_mb("a") == Written(4.0, 2.0, 2.0, 2.0, 0.0)
    assert not cat.recoverable("a", {d1, p})
    assert cat.recoverable("b", {d0})
    # At host positions past a's end, d0 holds nothing: a row there needs only d1 and p.
    cat.record(b, "vertical", [RowSpan(s, (1,), 4.0, 6.0)])
    (row_b,) = cat.layout("b").rows
    assert row_b.members[0].pieces == ()
    assert row_b.members[2].pieces == (Chunk(p, 4.0, ec_host_mb=2.0, ec_tape_mb=2.0),)
    assert cat.recoverable("b", {d0, p})
    assert not cat.recoverable("b", {d1, p})


def test_a_rewrite_replaces_the_layout_and_leaves_the_old_bytes_on_tape():
    cat = catalogue()
    old = write_two_one(cat)
    write_two_one(cat)
    assert cat.layout("f").rows[0].tapes != old
    assert cat.recoverable("f", set(old))
    assert sum(cat.tape(t).used_mb for t in old) == 8.0
    assert list(cat.files()) == ["f"]
