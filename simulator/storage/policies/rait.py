"""RAIT, the Redundant Array of Independent Tapes (Blue Waters paper, Section 4.1).

A file is cut into blocks of ``B`` host MB; each row of ``X`` data blocks
gets ``Y`` parity blocks computed in mover memory (``(X + Y) B`` held while
a request runs) and the ``X + Y`` blocks go to ``X + Y`` tapes at once. Row
``j`` of a group puts member ``m`` (data ``0..X-1``, then parity) on drive
``(m + j) mod (X + Y)``: the first row writes its data on drives
``0..X-1`` and its parity on the last ``Y``, and each next row shifts by
one, so data and parity are spread evenly over the tapes. The rotation
carries on from one write to the next on the same group, "as if a single
large request"; each file still starts a row of its own.

A data block takes ``B / C_D`` MB of tape, a parity block ``B / C_P``. The
last row of a file may be short: its last data block holds what is left,
the data blocks past it are absent, and its parity blocks are as long as
its longest data block. A row is written whole or not at all: when the next
row does not fit on every tape, all ``X + Y`` tapes are replaced by new ones
(the paper's "when a tape is filled, all loaded tapes are ejected").

Plans: a write is a phase per run of rows on the same tapes, one extent
per drive (``"mixed"`` where it holds data and parity), with ``blocks`` the
number of ``B``-blocks in it. The platform charges a per-block cost on RAIT
extents: it stands for the drives of a stripe synchronising on every row
(each waits for the others before the next row is handed out), which is
what makes a small ``B`` slow, as in the paper's Figure 5. A read streams
all ``X + Y`` tapes, parity included: with data and parity rotated across
the tapes, it cannot be skipped. A degraded read leaves the members on
unavailable tapes out and mounts nothing more (:meth:`Rait.plan_read`).
"""

from __future__ import annotations

import math
from collections.abc import Collection
from functools import partial
from typing import ClassVar

from attrs import define, frozen

from tapesched.simulator.storage.archive_layout import ArchiveSide, SlotFill
from tapesched.simulator.storage.catalogue import Catalogue
from tapesched.simulator.storage.catalogue_records import Kind, Row, RowSpan
from tapesched.simulator.storage.files import FileSpec, JobSpec, Phase, Scheme
from tapesched.simulator.storage.policies.policy import (
    Group,
    Striped,
    append_members,
    blocks_of,
    fits,
    most_fitting,
    open_tapes,
    read_phases,
    state_of,
    written_layout,
)


@define
class RaitState:
    """A RAIT group's rotation: rows written to it so far, modulo ``X + Y``."""

    rotation: int = 0


def _state(group: Group) -> RaitState:
    return state_of(group, RaitState, "RAIT")


@frozen
class _Rows:
    """Where the rows of one file fall on the drives of its group."""

    scheme: Scheme
    block_mb: float
    data_ratio: float
    ec_ratio: float

    def amounts(
        self, drive: int, rotation: int, rows: int, tail: tuple[float, ...]
    ) -> tuple[float, float, int]:
        """Data and parity host MB, and blocks, on ``drive`` for ``rows`` full rows then ``tail``.

        The rows start at group row ``rotation``; ``tail`` is the data
        blocks of a last, short row after them (empty for none).
        """
        x, w = self.scheme.data, self.scheme.width
        cycles, rest = divmod(rows, w)
        data_blocks = cycles * x + sum(1 for j in range(rest) if (drive - rotation - j) % w < x)
        data_host = data_blocks * self.block_mb
        ec_host = (rows - data_blocks) * self.block_mb
        blocks = rows
        if tail:
            member = (drive - rotation - rows) % w
            if member >= x:
                ec_host += max(tail)
                blocks += 1
            elif member < len(tail):
                data_host += tail[member]
                blocks += 1
        return data_host, ec_host, blocks

    def tape_mb(self, drive: int, rotation: int, rows: int, tail: tuple[float, ...]) -> float:
        data_host, ec_host, _ = self.amounts(drive, rotation, rows, tail)
        return data_host / self.data_ratio + ec_host / self.ec_ratio


def _every_member(row: Row) -> range:
    """What a RAIT read takes of a row: every member (parity cannot be bypassed)."""
    return range(len(row.members))


def _kind(data_host: float, ec_host: float, first_member: int, x: int) -> Kind:
    if data_host > 0 and ec_host > 0:
        return "mixed"
    if data_host > 0:
        return "data"
    if ec_host > 0:
        return "ec"
    return "data" if first_member < x else "ec"


@frozen
class Rait(Striped):
    """RAIT with blocks of ``block_mb`` host MB."""

    name: ClassVar[str] = "rait"
    reads_parity: ClassVar[bool] = True
    """Parity cannot be bypassed: it is rotated across the tapes with the data."""

    def plan_read(
        self, catalogue: Catalogue, file_id: str, unavailable: Collection[str] = frozenset()
    ) -> JobSpec:
        """A phase per run of rows, every drive reading its tape's share (data and parity).

        Degraded (:func:`~simulator.storage.policies.policy.read_phases`): a normal read
        already streams all ``X + Y`` members, so a member on an unavailable
        tape is simply left out (``None`` in its column) and its blocks are
        rebuilt from the others in each row; no extra tape is mounted. The
        plan keeps its ``X + Y`` columns and its ``(X + Y) B`` of memory.
        """
        layout = written_layout(catalogue, file_id, self.name)
        phases = read_phases(layout, _every_member, unavailable)
        return JobSpec(phases, memory_mb=layout.file.scheme.width * self.block_mb, per_block=True)

    def plan_write(
        self, catalogue: Catalogue, file: FileSpec, group: Group | None, library: str
    ) -> tuple[JobSpec, Group]:
        """Rows of ``X`` data and ``Y`` parity blocks, rotated by one drive per row."""
        group = self.writable(catalogue, file, group, library, RaitState)
        state = _state(group)
        scheme = file.scheme
        x, w = scheme.data, scheme.width
        rows, full_left, tail = self._rows_of(file)
        phases: list[Phase] = []
        spans: list[RowSpan] = []
        while full_left > 0 or tail:
            tapes = open_tapes(catalogue, group, library, w)
            free = [catalogue.free_mb(t) for t in tapes]
            g = state.rotation
            run = min(
                most_fitting(full_left, partial(rows.tape_mb, d, g, tail=()), free[d])
                for d in range(w)
            )
            with_tail = run == full_left and all(
                fits(rows.tape_mb(d, g, run, tail), free[d]) for d in range(w)
            )
            if run > 0 or with_tail:
                piece_tail = tail if with_tail else ()
                amounts = [rows.amounts(d, g, run, piece_tail) for d in range(w)]
                kinds = [_kind(a[0], a[1], (d - g) % w, x) for d, a in enumerate(amounts)]
                stripe = catalogue.open_stripe(scheme, kinds)
                phases.append(append_members(catalogue, file, stripe, tapes, amounts))
                spans.append(RowSpan(stripe, tuple(range(w))))
                state.rotation = (g + run + (1 if with_tail else 0)) % w
                full_left -= run
                if with_tail:
                    tail = ()
            if full_left > 0 or tail:
                g = state.rotation
                for d, tape in enumerate(tapes):
                    if full_left:
                        next_mb = rows.tape_mb(d, g, 1, ())
                    else:
                        next_mb = rows.tape_mb(d, g, 0, tail)
                    catalogue.close_tape(tape, full=not fits(next_mb, catalogue.free_mb(tape)))
                group.tapes = ()
        catalogue.record(file, self.name, spans)
        return JobSpec(tuple(phases), memory_mb=w * self.block_mb, per_block=True), group

    def _rows_of(self, file: FileSpec) -> tuple[_Rows, int, tuple[float, ...]]:
        """The file's rows: where they fall, how many are full, and the data blocks of the
        last one (short, or full)."""
        x = file.scheme.data
        count, last = blocks_of(file.size_mb, self.block_mb)
        full = math.ceil(count / x) - 1
        tail = (self.block_mb,) * (count - full * x - 1) + (last,)
        return _Rows(file.scheme, self.block_mb, file.data_ratio, file.ec_ratio), full, tail

    # The archive at time 0 (simulator.storage.archive_layout).

    def archive_sides(self, lo_mb: float, hi_mb: float) -> tuple[ArchiveSide, ...]:
        """Every size, written by RAIT itself."""
        return (ArchiveSide(self, lo_mb, hi_mb, hi_mb),)

    def member_slots_mb(self, scheme: Scheme, size_mb: float, data_ratio: float) -> list[float]:
        """The longest run of rows, on every tape: data and parity rotate over all of them."""
        return [self.longest_run_mb(scheme, size_mb)] * scheme.width

    def fill_slot(self, file: FileSpec, index: int, slots: int) -> SlotFill:
        """The file's rows at slot ``index``, rotated from member ``index mod (X + Y)``: a row
        per piece."""
        x, width = file.scheme.data, file.scheme.width
        rows, full, tail = self._rows_of(file)
        rotation = index % width
        amounts = tuple(rows.amounts(d, rotation, full, tail) for d in range(width))
        kinds = tuple(_kind(a[0], a[1], (d - rotation) % width, x) for d, a in enumerate(amounts))
        return SlotFill(index, tuple(range(width)), amounts, kinds, shares=1, one_row=False)
