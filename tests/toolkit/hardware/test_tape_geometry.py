"""Serpentine tape geometry and its two locate models, checked against CERN CTA's own cases.

The figures of the first tests are those of CTA's ``taped/rao/RAOTest.cpp``
(media type LTO7M, a tape written into its fourth wrap): a block's wrap,
LPOS, band and landing zone must be what CTA's interpolation gives.
"""

from __future__ import annotations

import numpy as np
import pytest

from tapesched.toolkit.hardware.tape_geometry import (
    CtaCostHeuristic,
    PhysicalLocate,
    SerpentineTape,
    TapeFile,
    locate_matrix_s,
    order_time_s,
)
from tapesched.toolkit.hardware.technology import TAPE_FORMAT_FIGURES, TAPE_FORMATS, TapeFormat

MIN_LPOS, MAX_LPOS = 2696, 171097
EOW = (208310, 416271, 624562, 633521)


def lto7m(eow: tuple[int, ...] = EOW) -> SerpentineTape:
    return SerpentineTape(
        wraps=112,
        min_lpos=MIN_LPOS,
        max_lpos=MAX_LPOS,
        end_of_wrap_blocks=eow,
        block_bytes=262144,
        rate_mb_s=300.0,
    )


def test_block_to_wrap_and_lpos_as_cta_interpolates():
    tape = lto7m()
    assert int(tape.wrap(0)) == 0 and int(tape.lpos(0)) == MIN_LPOS
    assert int(tape.wrap(EOW[0])) == 0 and int(tape.wrap(EOW[0] + 1)) == 1
    end = 0 + 100_000_000 // 262144 + 1  # CTA's end block of a 100 MB file at block 0
    assert int(tape.lpos(end)) == MIN_LPOS + end * (MAX_LPOS - MIN_LPOS) // EOW[0]
    # CTA's wrap-1 case: block 210000 runs back from max_lpos.
    span = EOW[1] - EOW[0]
    expected = int(MAX_LPOS - (210000 - EOW[0]) * (MAX_LPOS - MIN_LPOS) / span)
    assert (int(tape.wrap(210000)), int(tape.lpos(210000))) == (1, expected)
    assert int(tape.landing_zone(210000)) == 1 and int(tape.landing_zone(0)) == 0


def test_bands_split_the_wraps_in_four_as_cta_does():
    full = lto7m(tuple(range(10, 1130, 10)))  # 112 written wraps of 10 blocks
    wraps = np.array([0, 27, 28, 111])
    blocks = wraps * 10 + 5
    assert full.wrap(blocks).tolist() == wraps.tolist()
    assert full.band(blocks).tolist() == [0, 0, 1, 3]


def test_a_last_wrap_written_in_part_keeps_the_density_of_the_wraps_before():
    tape = lto7m()
    last_share = (EOW[3] - EOW[2]) / np.mean(np.diff((0, *EOW[:3])))
    # Wrap 3 runs back: its last written block is near max_lpos, not at min_lpos.
    assert int(tape.lpos(EOW[3])) == pytest.approx(
        MAX_LPOS - last_share * (MAX_LPOS - MIN_LPOS), abs=1
    )


def test_the_cta_cost_sums_its_terms():
    tape, cta = lto7m(), CtaCostHeuristic()
    # Forward on wrap 0, same landing zone: the constant and the distance.
    a, b = 1000, 5000
    distance = float(tape.lpos(b) - tape.lpos(a))
    assert float(cta.locate_s(tape, a, b)) == pytest.approx(4.29 + 0.0006192 * distance)
    # Back on the same wrap: a step back on top.
    assert float(cta.locate_s(tape, b, a)) == pytest.approx(4.29 + 11.32 + 0.0006192 * distance)
    # To wrap 1 (same band, other direction), near the same LPOS at the far end.
    c, d = EOW[0] - 10, EOW[0] + 10
    dist = abs(float(tape.lpos(c) - tape.lpos(d)))
    assert float(cta.locate_s(tape, c, d)) == pytest.approx(4.29 + 6.69 + 5.22 + 0.0006192 * dist)


def test_a_locate_to_the_block_under_the_head_is_free_and_no_other_is():
    tape = lto7m()
    blocks = np.arange(0, EOW[-1], 997)
    for model in (CtaCostHeuristic(), PhysicalLocate(100.0, 2.0, 4.0, 2.0)):
        assert model.locate_s(tape, blocks, blocks).tolist() == [0.0] * len(blocks)
        costs = model.locate_s(tape, blocks[:-1], blocks[1:])
        assert float(costs.min()) > 0


def test_the_cta_cost_never_goes_below_its_constant():
    # A short hop across the middle of wrap 0 changes landing zone: the fitted sum
    # (4.29 - 6.04 + distance) would be negative; a locate costs at least the constant.
    tape = SerpentineTape(
        wraps=4, min_lpos=0, max_lpos=10000, end_of_wrap_blocks=(10000,), block_bytes=1,
        rate_mb_s=1.0,
    )  # fmt: skip
    assert float(CtaCostHeuristic().locate_s(tape, 4990, 5010)) == pytest.approx(4.29)


def test_the_physical_model_adds_its_parts():
    tape = lto7m()
    phys = PhysicalLocate(end_to_end_s=100.0, wrap_change_s=2.0, band_change_s=4.0,
                          reposition_s=1.0)  # fmt: skip
    a, b = 1000, 101000
    share = float(tape.lpos(b) - tape.lpos(a)) / (MAX_LPOS - MIN_LPOS)
    assert float(phys.locate_s(tape, a, b)) == pytest.approx(1.0 + 100.0 * share)
    assert float(phys.locate_s(tape, b, a)) == pytest.approx(1.0 + 100.0 * share)
    full = lto7m(tuple(range(10, 1130, 10)))
    # Wrap 27 (band 0) to wrap 28 (band 1), both near the same end of the tape.
    assert float(phys.locate_s(full, 279, 281)) == pytest.approx(1.0 + 2.0 + 4.0, abs=0.1)


def test_order_time_is_locates_plus_reads():
    tape, cta = lto7m(), CtaCostHeuristic()
    files = [TapeFile("a", 0, 262144 * 10), TapeFile("b", 10, 262144), TapeFile("c", 5000, 1)]
    reads = sum(f.size_bytes for f in files) / 300e6
    locate_c = float(cta.locate_s(tape, 11, 5000))
    assert order_time_s(tape, cta, 0, files, [0, 1, 2]) == pytest.approx(reads + locate_c)
    matrix = locate_matrix_s(tape, cta, 0, files)
    assert matrix.shape == (4, 4) and matrix[:, 0].tolist() == [0.0] * 4
    assert matrix[1, 2] == 0.0 and matrix[2, 3] == pytest.approx(locate_c)
    with pytest.raises(ValueError, match="every file once"):
        order_time_s(tape, cta, 0, files, [0, 0, 2])


def test_a_full_tape_of_a_technology_is_addressed_by_byte_offset():
    fmt = TAPE_FORMATS["LTO-7"]
    tape = SerpentineTape.full(fmt)
    assert len(tape.end_of_wrap_blocks) == 112 and tape.block_bytes == 1
    assert tape.last_block == pytest.approx(6e12, rel=1e-6)
    per_wrap = 6e12 / 112
    assert int(tape.wrap(int(per_wrap * 2.5))) == 2
    assert int(tape.band(int(per_wrap * 30))) == 1
    assert TapeFile("x", 10, 90).end_block(tape) == 100


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"wraps": 6}, "multiple of 4"),
        ({"min_lpos": 200000}, "below max_lpos"),
        ({"end_of_wrap_blocks": ()}, "empty"),
        ({"end_of_wrap_blocks": (5, 5)}, "strictly increasing"),
        ({"block_bytes": 0}, "block_bytes"),
        ({"rate_mb_s": 0.0}, "rate_mb_s"),
    ],
)
def test_a_bad_tape_is_refused(changes, message):
    fields = {"wraps": 112, "min_lpos": MIN_LPOS, "max_lpos": MAX_LPOS,
              "end_of_wrap_blocks": EOW, "block_bytes": 262144, "rate_mb_s": 300.0}  # fmt: skip
    with pytest.raises(ValueError, match=message):
        SerpentineTape(**{**fields, **changes})


def test_every_tape_format_names_its_sources_and_the_published_wraps():
    assert {n: f.wraps for n, f in TAPE_FORMATS.items()} == {
        "LTO-7": 112, "LTO-8": 208, "LTO-9": 280, "TS1150": 160,
    }  # fmt: skip
    for name, fmt in TAPE_FORMATS.items():
        assert fmt.name == name and set(fmt.sources) == set(TAPE_FORMAT_FIGURES)
        assert all(text.strip() for text in fmt.sources.values())
    assert TAPE_FORMATS["TS1150"].sources["wraps"].startswith("estimate")
    sources = dict(TAPE_FORMATS["LTO-7"].sources)
    del sources["wraps"]
    with pytest.raises(ValueError, match=r"figures without a source \['wraps'\]"):
        TapeFormat("x", "x", 112, 0, 1, 1, 1.0, 1.0, 1.0, sources=sources)


def test_the_physical_model_of_a_format_locates_on_average_near_its_published_time():
    # From the beginning of the tape to uniform random blocks of a full tape.
    for fmt in TAPE_FORMATS.values():
        tape = SerpentineTape.full(fmt, block_bytes=fmt.block_bytes)
        targets = np.linspace(1, tape.last_block, 4001).astype(np.int64)
        mean = float(PhysicalLocate.for_format(fmt).locate_s(tape, 0, targets).mean())
        assert mean == pytest.approx(fmt.average_locate_s, rel=0.1)
