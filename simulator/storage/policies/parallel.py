"""PARALLEL: data striped in long contiguous runs, parity on tapes of its own (paper Section 4.2).

A file of ``S`` blocks of ``B`` host MB is split over ``X`` data tapes in
contiguous runs: the first ``S mod X`` tapes get ``ceil(S / X)`` consecutive
blocks, the others ``floor(S / X)``. Row ``i`` is the ``i``-th block of each
run (``D_i, D_{i+W}, ...`` in the paper's Figure 2); its ``Y`` parity blocks,
computed in mover memory (``(X + Y) B``), are as long as its longest block
and go to ``Y`` parity tapes. Rows stream in lockstep on ``X + Y`` drives.
Only the file's last block is short, and a row past the end of some runs
simply has fewer data blocks.

Tape space: a data block takes its host size over ``C_D``, a parity block
over ``C_P``; a block is never split across tapes. When a data tape cannot
take its next block, every tape of the group is replaced by a new one (a
new stripe begins). When only parity tapes fill first (parity compresses
less, so they do), just those are replaced and their next blocks go to the
new tapes: the stripe's parity member then spans two tapes.

Plans: a write is a phase per run of rows between tape switches, a drive
per data tape then per parity tape (``None`` for a drive with nothing in a
phase). A drive whose tape is not switched continues on the same tape in
the next phase, contiguously: only the drives that switch reload, but the
others wait for them at the phase boundary, as the stripe moves in
lockstep. A read streams the ``X`` data tapes only, a phase per stripe;
it holds ``X B`` of mover memory. A degraded read reads a parity member in
place of each data member on an unavailable tape (:meth:`Parallel.plan_read`).
``blocks`` counts the ``B``-blocks of an extent (the platform's per-block
cost is for RAIT).
"""

from __future__ import annotations

from collections.abc import Collection
from functools import cached_property, partial
from typing import ClassVar

from attrs import frozen

from tapesched.simulator.storage.archive_layout import ArchiveSide, SlotFill, data_then_parity
from tapesched.simulator.storage.catalogue import Catalogue
from tapesched.simulator.storage.catalogue_records import RowSpan
from tapesched.simulator.storage.files import FileSpec, JobSpec, Phase, Scheme
from tapesched.simulator.storage.policies.policy import (
    Group,
    Striped,
    append_members,
    blocks_of,
    most_fitting,
    open_tapes,
    read_phases,
    written_layout,
)


@frozen
class Runs:
    """A file's blocks split over ``X`` data tapes, and the rows they make.

    Attributes
    ----------
    counts
        Blocks on each data tape.
    block_mb
        Host MB of a block.
    last_mb
        Host MB of the file's last block.
    """

    counts: tuple[int, ...]
    block_mb: float
    last_mb: float

    @classmethod
    def of(cls, size_mb: float, data_tapes: int, block_mb: float) -> Runs:
        """The runs of a file of ``size_mb`` over ``data_tapes`` tapes."""
        count, last = blocks_of(size_mb, block_mb)
        q, r = divmod(count, data_tapes)
        return cls(tuple(q + 1 if k < r else q for k in range(data_tapes)), block_mb, last)

    @property
    def rows(self) -> int:
        """Rows: the longest run."""
        return self.counts[0]

    @cached_property
    def last_tape(self) -> int:
        """The data tape holding the file's last block (at the end of its run)."""
        return max(k for k, n in enumerate(self.counts) if n > 0)

    @cached_property
    def last_row(self) -> int:
        """The row holding the file's last block."""
        return self.counts[self.last_tape] - 1

    @cached_property
    def _last_row_shared(self) -> bool:
        """Whether the last row holds a block of more than one data tape."""
        return sum(1 for n in self.counts if n > self.last_row) > 1

    def data(self, tape: int, start: int, stop: int) -> tuple[float, int]:
        """Host MB and blocks of data tape ``tape`` in rows ``[start, stop)``."""
        n = self.counts[tape]
        blocks = max(0, min(n, stop) - start)
        if blocks and tape == self.last_tape and stop >= n:
            return (blocks - 1) * self.block_mb + self.last_mb, blocks
        return blocks * self.block_mb, blocks

    def parity(self, start: int, stop: int) -> float:
        """Host MB of one parity member in rows ``[start, stop)``: each row's longest block."""
        rows = stop - start
        if not start <= self.last_row < stop:
            return rows * self.block_mb
        longest = max(self.block_mb, self.last_mb) if self._last_row_shared else self.last_mb
        return (rows - 1) * self.block_mb + longest

    def data_tape_mb(self, tape: int, start: int, ratio: float, rows: int) -> float:
        """Tape MB of data tape ``tape`` in ``rows`` rows from ``start``, at ratio ``ratio``."""
        return self.data(tape, start, start + rows)[0] / ratio

    def parity_tape_mb(self, start: int, ratio: float, rows: int) -> float:
        """Tape MB of a parity member in ``rows`` rows from ``start``, at ratio ``ratio``."""
        return self.parity(start, start + rows) / ratio


@frozen
class Parallel(Striped):
    """PARALLEL with blocks of ``block_mb`` host MB."""

    name: ClassVar[str] = "parallel"
    reads_parity: ClassVar[bool] = False

    def plan_read(
        self, catalogue: Catalogue, file_id: str, unavailable: Collection[str] = frozenset()
    ) -> JobSpec:
        """A phase per piece of each stripe, each data drive reading its run.

        Degraded (:func:`~simulator.storage.policies.policy.read_phases`): in a stripe where
        data members lie on unavailable tapes, each is replaced, in its
        column, by a parity member of the stripe (the first untouched ones,
        in order), read over the same rows; the decoder rebuilds the lost
        runs from the ``X`` members read. Each lost data tape costs one
        extra mount, of a parity tape (more if that parity member spans
        tapes). The plan keeps its ``X`` columns and its ``X B`` of memory.
        """
        layout = written_layout(catalogue, file_id, self.name)
        x = layout.file.scheme.data
        phases = read_phases(layout, lambda row: range(x), unavailable)
        return JobSpec(phases, memory_mb=x * self.block_mb)

    def plan_write(
        self, catalogue: Catalogue, file: FileSpec, group: Group | None, library: str
    ) -> tuple[JobSpec, Group]:
        """Contiguous runs on ``X`` data tapes, row parity on ``Y`` parity tapes."""
        group = self.writable(catalogue, file, group, library, lambda: None)
        scheme = file.scheme
        x, w = scheme.data, scheme.width
        runs = Runs.of(file.size_mb, x, self.block_mb)
        phases: list[Phase] = []
        spans: list[RowSpan] = []
        stripe: int | None = None
        row = 0
        while row < runs.rows:
            tapes = open_tapes(catalogue, group, library, w)
            if stripe is None:
                stripe = catalogue.open_stripe(scheme)
                spans.append(RowSpan(stripe, tuple(range(w))))
            left = runs.rows - row
            free = [catalogue.free_mb(t) for t in tapes]
            data_fit = [
                most_fitting(left, partial(runs.data_tape_mb, k, row, file.data_ratio), free[k])
                for k in range(x)
            ]
            ec_fit = [
                most_fitting(left, partial(runs.parity_tape_mb, row, file.ec_ratio), free[d])
                for d in range(x, w)
            ]
            run = min(data_fit + ec_fit)
            if run > 0:
                phases.append(self._write_rows(catalogue, file, runs, stripe, tapes, row, run))
                row += run
            if row == runs.rows:
                break
            if min(data_fit) == run:
                for d, tape in enumerate(tapes):
                    catalogue.close_tape(tape, full=(data_fit + ec_fit)[d] == run)
                group.tapes = ()
                stripe = None
            else:
                replaced = list(tapes)
                for d in range(x, w):
                    if ec_fit[d - x] == run:
                        catalogue.close_tape(tapes[d], full=True)
                        replaced[d] = catalogue.new_tape(library)
                group.tapes = tuple(replaced)
        catalogue.record(file, self.name, spans)
        return JobSpec(tuple(phases), memory_mb=w * self.block_mb), group

    def _write_rows(
        self,
        catalogue: Catalogue,
        file: FileSpec,
        runs: Runs,
        stripe: int,
        tapes: tuple[str, ...],
        row: int,
        count: int,
    ) -> Phase:
        """Append rows ``[row, row + count)`` on the group's tapes; the phase streaming them.

        Each data tape continues its run (a tape with no block in these rows
        is idle), each parity tape takes the rows' parity.
        """
        scheme = file.scheme
        data = [runs.data(k, row, row + count) for k in range(scheme.data)]
        parity = (0.0, runs.parity(row, row + count), count)
        amounts = [(host, 0.0, blocks) for host, blocks in data] + [parity] * scheme.parity
        return append_members(catalogue, file, stripe, tapes, amounts, merge=True)

    # The archive at time 0 (simulator.storage.archive_layout).

    def archive_sides(self, lo_mb: float, hi_mb: float) -> tuple[ArchiveSide, ...]:
        """Every size, written by PARALLEL itself."""
        return (ArchiveSide(self, lo_mb, hi_mb, hi_mb),)

    def member_slots_mb(self, scheme: Scheme, size_mb: float, data_ratio: float) -> list[float]:
        """The longest run on each data tape, at ``data_ratio``; as long a parity run on each
        parity tape, uncompressed."""
        run_mb = self.longest_run_mb(scheme, size_mb)
        return [run_mb / data_ratio] * scheme.data + [run_mb] * scheme.parity

    def fill_slot(self, file: FileSpec, index: int, slots: int) -> SlotFill:
        """The file's runs on the ``X`` data tapes and its row parity on the ``Y``, at slot
        ``index``: a row per piece."""
        x, width = file.scheme.data, file.scheme.width
        runs = Runs.of(file.size_mb, x, self.block_mb)
        data = [runs.data(m, 0, runs.rows) for m in range(x)]
        parity = (0.0, runs.parity(0, runs.rows), runs.rows)
        amounts = tuple((host, 0.0, blocks) for host, blocks in data) + (parity,) * (width - x)
        kinds = data_then_parity(file.scheme)
        return SlotFill(index, tuple(range(width)), amounts, kinds, shares=1, one_row=False)
