"""Serpentine tape geometry: where a block lies on a tape, and what a locate to it costs.

An LTO or 3592 tape is written in *wraps* that run the length of the tape
alternately forward and back, grouped into four *bands*. A block's place is
its wrap and its longitudinal position (LPOS): reading two files in block
order can mean a long way back along the tape, and two files far apart in
block order can sit side by side on neighbouring wraps. This module is the
pure geometry the recall orderers (:mod:`solvers.recall_order`) and, later,
the validator and the simulator read:

- :class:`SerpentineTape`: a tape as a CTA site knows it (its number of
  wraps, its LPOS range and the last block id of each wrap written so
  far), or a whole tape of a named technology
  (:meth:`SerpentineTape.full`, figures from
  :data:`toolkit.hardware.technology.TAPE_FORMATS`); it maps a block id to its
  wrap, band and LPOS by interpolation, as CERN CTA's
  ``InterpolationFilePositionEstimator`` does.
- Two locate-time models behind one signature (:class:`LocateModel`):
  :class:`CtaCostHeuristic`, the default, CTA's linear cost fitted on
  LTO-7M media (``taped/rao/CTACostHeuristic.cpp``), and
  :class:`PhysicalLocate`, a head that changes wrap and band in fixed times
  and moves along the tape at a fixed speed.
- :class:`TapeFile` and :func:`order_time_s`: the estimated time of reading
  files in a given order (locates plus reads).

Both models give a locate to the block the head is already on (the next
file on the tape, contiguous with the one just read) zero seconds: the
drive streams on. So reading a whole written tape in block order costs
exactly its sequential read.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt
from attrs import field, frozen

from tapesched.toolkit.hardware.technology import BANDS, TapeFormat

MB = 1_000_000
"""Bytes in a megabyte (powers of ten, as the core problem's units)."""

BlockIds = int | npt.NDArray[np.int64]
"""One block id, or an array of them (the locate models broadcast)."""


def _positive(_instance: object, attribute: object, value: float) -> None:
    if not (value > 0 and math.isfinite(value)):
        raise ValueError(f"{getattr(attribute, 'name', '?')} must be positive, got {value!r}")


def _non_negative(_instance: object, attribute: object, value: float) -> None:
    if not (value >= 0 and math.isfinite(value)):
        raise ValueError(f"{getattr(attribute, 'name', '?')} must be >= 0, got {value!r}")


@frozen
class SerpentineTape:
    """A serpentine tape: its wraps, its LPOS range and where its written wraps end.

    Attributes
    ----------
    wraps
        Wraps of the tape (the media type's ``nbWraps`` in CTA), a multiple
        of the four bands.
    min_lpos, max_lpos
        LPOS of the beginning and the end of a wrap: even wraps run from
        ``min_lpos`` to ``max_lpos``, odd wraps back.
    end_of_wrap_blocks
        The last block id of each wrap written so far, increasing (as the
        drive reports them: CTA's ``getEndOfWrapPositions``). The last wrap
        may be written only in part.
    block_bytes
        Bytes of a block (CTA: 256 KiB).
    rate_mb_s
        The drive's streaming rate when reading.

    Notes
    -----
    A block's wrap is the first wrap whose last block is at or after it; its
    LPOS is interpolated linearly between the wrap's ends over the wrap's
    blocks, as CTA's ``InterpolationFilePositionEstimator`` does (wrap 0
    spanning ``end_of_wrap_blocks[0]`` blocks, wrap ``w`` the difference of
    its last block and the previous wrap's; LPOS truncated to an integer).
    A last wrap written in part would be squeezed onto the whole tape
    length; like CTA (``RAOHelpers::improveEndOfLastWrapPositionIfPossible``)
    its blocks are spread at the density of the wraps before it instead
    (here: the mean of their spans, and never less than its own span).
    """

    wraps: int
    min_lpos: int
    max_lpos: int
    end_of_wrap_blocks: tuple[int, ...]
    block_bytes: int
    rate_mb_s: float = field(validator=_positive)

    def __attrs_post_init__(self) -> None:
        if self.wraps < BANDS or self.wraps % BANDS:
            raise ValueError(f"wraps must be a positive multiple of {BANDS}, got {self.wraps}")
        if not 0 <= self.min_lpos < self.max_lpos:
            raise ValueError(
                f"min_lpos ({self.min_lpos}) must be >= 0 and below max_lpos ({self.max_lpos})"
            )
        eow = self.end_of_wrap_blocks
        if not eow:
            raise ValueError("end_of_wrap_blocks is empty: no wrap written")
        if len(eow) > self.wraps:
            raise ValueError(f"end_of_wrap_blocks has {len(eow)} wraps, the tape {self.wraps}")
        if eow[0] < 1 or any(b <= a for a, b in itertools.pairwise(eow)):
            raise ValueError("end_of_wrap_blocks must be positive and strictly increasing")
        if self.block_bytes < 1:
            raise ValueError(f"block_bytes must be positive, got {self.block_bytes}")

    @classmethod
    def full(cls, tape_format: TapeFormat, *, block_bytes: int = 1) -> SerpentineTape:
        """A tape of ``tape_format`` written to its capacity, the same number of blocks a wrap.

        With the default ``block_bytes`` of 1 a block id is a byte offset:
        the tape of a technology whose files are known by their offsets.
        """
        blocks = int(tape_format.capacity_mb * MB) // block_bytes
        per_wrap = blocks // tape_format.wraps
        return cls(
            wraps=tape_format.wraps,
            min_lpos=tape_format.min_lpos,
            max_lpos=tape_format.max_lpos,
            end_of_wrap_blocks=tuple((w + 1) * per_wrap - 1 for w in range(tape_format.wraps)),
            block_bytes=block_bytes,
            rate_mb_s=tape_format.rate_mb_s,
        )

    @property
    def last_block(self) -> int:
        """The last block written."""
        return self.end_of_wrap_blocks[-1]

    @property
    def wraps_per_band(self) -> int:
        """Wraps in each of the four bands."""
        return self.wraps // BANDS

    def blocks_of(self, size_bytes: int) -> int:
        """Blocks a file of ``size_bytes`` fills (at least one: an empty file has its block)."""
        return max(1, -(-size_bytes // self.block_bytes))

    def wrap(self, block: BlockIds) -> npt.NDArray[np.int64]:
        """The wrap of each block (the last wrap for the block after the last one written)."""
        eow = np.asarray(self.end_of_wrap_blocks, dtype=np.int64)
        found = np.searchsorted(eow, np.asarray(block, dtype=np.int64), side="left")
        return np.minimum(found, len(eow) - 1).astype(np.int64)

    def band(self, block: BlockIds) -> npt.NDArray[np.int64]:
        """The band (0 to 3) of each block."""
        return self.wrap(block) // self.wraps_per_band

    def _spans(self) -> npt.NDArray[np.float64]:
        eow = np.asarray(self.end_of_wrap_blocks, dtype=np.float64)
        spans = np.diff(eow, prepend=0.0)
        if len(spans) >= 2:
            spans[-1] = max(spans[-1], float(spans[:-1].mean()))
        return spans

    def lpos(self, block: BlockIds) -> npt.NDArray[np.float64]:
        """The longitudinal position of each block, interpolated over its wrap (truncated)."""
        blocks = np.asarray(block, dtype=np.int64)
        wrap = self.wrap(blocks)
        eow = np.asarray(self.end_of_wrap_blocks, dtype=np.int64)
        before = np.where(wrap > 0, eow[np.maximum(wrap - 1, 0)], 0)
        share = (blocks - before) / self._spans()[wrap]
        reach = self.max_lpos - self.min_lpos
        along = np.where(
            wrap % 2 == 0, self.min_lpos + share * reach, self.max_lpos - share * reach
        )
        return np.floor(along)

    def landing_zone(self, block: BlockIds) -> npt.NDArray[np.int64]:
        """CTA's landing zone of each block: 0 below the middle LPOS, 1 at or past it.

        The middle is CTA's ``(max_lpos - min_lpos) / 2`` (``RAOHelpers::
        determineLandingZone``), kept as CTA computes it so that the fitted
        coefficients apply as fitted.
        """
        middle = (self.max_lpos - self.min_lpos) // 2
        return (self.lpos(block) >= middle).astype(np.int64)


class LocateModel(Protocol):
    """A locate-time model: the seconds to move the head from one block to another.

    ``locate_s(tape, head_block, target_block)`` broadcasts over arrays of
    block ids (a whole cost matrix in one call). The head is on
    ``head_block`` (the block after the last one read, or where it was left);
    a locate to that same block costs nothing.
    """

    def locate_s(
        self, tape: SerpentineTape, head_block: BlockIds, target_block: BlockIds
    ) -> npt.NDArray[np.float64]:
        """Seconds from ``head_block`` to the start of ``target_block``."""
        ...


@frozen
class CtaCostHeuristic:
    """CERN CTA's cost of a locate between two files on LTO, in seconds.

    The cost from the end of one file to the beginning of the next is a
    linear function fitted on LTO-7M media (CTA's
    ``taped/rao/CTACostHeuristic.cpp``; the coefficients documented in
    CTA's notes "Cost coefficients calculated by German for LTO-7M media"):
    a constant, plus a term for each of a change of wrap, of band, of
    landing zone (half of the tape), of direction (wrap parity), a step back
    along the wrap being read, and one per LPOS of longitudinal distance.
    The predicates are CTA's (``RAOHelpers.cpp``). Written here from that
    description, not translated.

    Two departures, both for a cost that reads as a time: a locate to the
    block the head is on costs 0 (CTA charges the constant, even between
    contiguous files: here the drive streams on), and the fitted sum is
    never below its constant, the cost of a locate of no length (a change
    of landing zone within a wrap over a short distance, whose coefficient
    is negative, would otherwise make it smaller, even negative).
    """

    constant_s: float = 4.29
    wrap_change_s: float = 6.69
    band_change_s: float = 3.2
    landing_zone_change_s: float = -6.04
    direction_change_s: float = 5.22
    step_back_s: float = 11.32
    per_lpos_s: float = 0.0006192

    def locate_s(
        self, tape: SerpentineTape, head_block: BlockIds, target_block: BlockIds
    ) -> npt.NDArray[np.float64]:
        """Seconds from ``head_block`` to ``target_block`` (see the class)."""
        head = np.asarray(head_block, dtype=np.int64)
        target = np.asarray(target_block, dtype=np.int64)
        w1, w2 = tape.wrap(head), tape.wrap(target)
        l1, l2 = tape.lpos(head), tape.lpos(target)
        same_wrap = w1 == w2
        forward = w1 % 2 == 0
        step_back = same_wrap & np.where(forward, l1 > l2, l1 < l2)
        cost = (
            self.constant_s
            + self.wrap_change_s * ~same_wrap
            + self.band_change_s * (tape.band(head) != tape.band(target))
            + self.landing_zone_change_s * (tape.landing_zone(head) != tape.landing_zone(target))
            + self.direction_change_s * (w1 % 2 != w2 % 2)
            + self.step_back_s * step_back
            + self.per_lpos_s * np.abs(l1 - l2)
        )
        return np.where(head == target, 0.0, np.maximum(cost, self.constant_s))


@frozen
class PhysicalLocate:
    """A locate from the head's mechanics: reposition, wrap and band change, longitudinal travel.

    A locate stops the tape and starts it again (``reposition_s``), steps
    the head to another wrap of the same band (``wrap_change_s``) or to
    another band (``band_change_s`` on top), and winds the tape at locate
    speed, crossing the whole wrap length in ``end_to_end_s`` (the
    longitudinal part is proportional to the LPOS distance). Direction and
    step backs cost nothing more: the tape winds either way at the same
    speed.

    Attributes
    ----------
    end_to_end_s
        Wind from ``min_lpos`` to ``max_lpos`` at locate speed.
    wrap_change_s
        Step the head to another wrap.
    band_change_s
        Move the head to another band, on top of the wrap change.
    reposition_s
        Stop, settle and start of any locate but a zero one (positive: a
        locate elsewhere is never free).
    """

    end_to_end_s: float = field(validator=_positive)
    wrap_change_s: float = field(validator=_non_negative)
    band_change_s: float = field(validator=_non_negative)
    reposition_s: float = field(validator=_positive)

    @classmethod
    def for_format(cls, tape_format: TapeFormat) -> PhysicalLocate:
        """The model of a tape format, from its average locate (figures are estimates).

        A locate from the beginning of the tape to a uniform random block
        travels half the wrap length on average, so ``end_to_end_s`` is
        twice the average locate (less the fixed parts). Wrap and band
        changes have no published figure: 2 s and 4 s are estimates, near
        the order of CTA's fitted wrap and band coefficients.
        """
        wrap_change_s, band_change_s, reposition_s = 2.0, 4.0, 2.0
        fixed = reposition_s + wrap_change_s + band_change_s * (BANDS - 1) / BANDS
        return cls(
            end_to_end_s=2 * max(tape_format.average_locate_s - fixed, 1.0),
            wrap_change_s=wrap_change_s,
            band_change_s=band_change_s,
            reposition_s=reposition_s,
        )

    def locate_s(
        self, tape: SerpentineTape, head_block: BlockIds, target_block: BlockIds
    ) -> npt.NDArray[np.float64]:
        """Seconds from ``head_block`` to ``target_block`` (see the class)."""
        head = np.asarray(head_block, dtype=np.int64)
        target = np.asarray(target_block, dtype=np.int64)
        travel = np.abs(tape.lpos(head) - tape.lpos(target)) / (tape.max_lpos - tape.min_lpos)
        cost = (
            self.reposition_s
            + self.wrap_change_s * (tape.wrap(head) != tape.wrap(target))
            + self.band_change_s * (tape.band(head) != tape.band(target))
            + self.end_to_end_s * travel
        )
        return np.where(head == target, 0.0, cost)


@frozen
class TapeFile:
    """A file to read from a tape: its first block and its size.

    Attributes
    ----------
    id
        The file's name in the request.
    block
        Block id of its first block.
    size_bytes
        Its size; it fills :meth:`SerpentineTape.blocks_of` blocks.
    """

    id: str
    block: int
    size_bytes: int

    def end_block(self, tape: SerpentineTape) -> int:
        """The block after its last one: where the head is once it is read."""
        return self.block + tape.blocks_of(self.size_bytes)

    def read_s(self, tape: SerpentineTape) -> float:
        """Seconds to read it at the tape's streaming rate."""
        return self.size_bytes / (tape.rate_mb_s * MB)


def check_files(tape: SerpentineTape, files: Sequence[TapeFile]) -> None:
    """Raise ``ValueError`` unless every file lies on the written part of ``tape``."""
    for k, f in enumerate(files):
        if f.block < 0 or f.size_bytes < 0:
            raise ValueError(f"files[{k}]: block and size_bytes must be >= 0")
        if f.end_block(tape) - 1 > tape.last_block:
            raise ValueError(
                f"files[{k}]: ends at block {f.end_block(tape) - 1}, past the last block "
                f"written ({tape.last_block})"
            )


def locate_matrix_s(
    tape: SerpentineTape, model: LocateModel, head_block: int, files: Sequence[TapeFile]
) -> npt.NDArray[np.float64]:
    """Locate times between the head and the files, as an ``(n + 1) x (n + 1)`` matrix.

    Row 0 is the head at ``head_block``, row ``i`` the head after reading
    ``files[i - 1]``; column ``j`` the start of ``files[j - 1]`` (column 0,
    the way back to the head, is 0: an order is a path, not a tour).
    """
    ends = np.array([head_block] + [f.end_block(tape) for f in files], dtype=np.int64)
    starts = np.array([f.block for f in files], dtype=np.int64)
    matrix = np.zeros((len(files) + 1, len(files) + 1))
    matrix[:, 1:] = model.locate_s(tape, ends[:, None], starts[None, :])
    return matrix


def order_time_s(
    tape: SerpentineTape,
    model: LocateModel,
    head_block: int,
    files: Sequence[TapeFile],
    order: Sequence[int],
) -> float:
    """Estimated seconds to read ``files`` in ``order`` (indices) from ``head_block``.

    The sum of the locates (from the head, then from the end of each file to
    the start of the next) and of the reads (size over the streaming rate).
    """
    if sorted(order) != list(range(len(files))):
        raise ValueError("order must name every file once")
    if not files:
        return 0.0
    ordered = [files[k] for k in order]
    heads = np.array([head_block] + [f.end_block(tape) for f in ordered[:-1]], dtype=np.int64)
    targets = np.array([f.block for f in ordered], dtype=np.int64)
    locates = model.locate_s(tape, heads, targets).tolist()  # one vector call
    total = 0.0
    for f, locate in zip(ordered, locates, strict=True):
        total += locate + f.read_s(tape)
    return total
