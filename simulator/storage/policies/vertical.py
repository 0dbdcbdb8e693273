"""VERTICAL: one drive fills data tapes one by one, then writes their parity (paper Section 4.3).

A group is a parity group of ``X`` data tapes and ``Y`` parity members.
Files are appended, contiguously, to the group's current data tape; when
it is full, to the next (a file may span two). Parity is computed over
whole data tapes, byte position by byte position, and accumulates on the
mover's disk meanwhile: :attr:`~simulator.storage.policies.policy.Group.disk_mb` is ``Y``
members, each as long as the longest data tape so far in host MB (a
shorter tape counts as zero-padded). When the ``X``-th data tape is full,
the same drive writes the ``Y`` parity members, each from a new tape, with
a new tape whenever one fills; then a new group begins. A stream that ends
with a group not full writes its parity then (:meth:`Vertical.close`, the
paper's "or there is no more data to be written").

Compression: data takes ``host / C_D`` of tape. A parity byte mixes the
bytes of several files, which compress differently; the parity members
take ``host / C_P`` with ``C_P`` the group's host-weighted harmonic mean
of its files' ``C_P`` (the parity takes, in all, the tape the files'
parity would take if each compressed as its file's).

Catalogue: a file's bytes on a data tape at host positions ``[lo, hi)``
make a row whose other members are the group's other data tapes and its
parity over ``[lo, hi)`` (see :mod:`simulator.storage.catalogue`); the file is
charged ``1/X`` of that parity. Parity on the mover's disk counts as safe.

Plans, all on one drive: a phase per piece. Parity written after the
file's last data goes in :attr:`~simulator.storage.files.JobSpec.flush` (the request
is complete, the drive is still busy); parity written when a group fills
in the middle of a file is in its phases. No mover memory is held: parity
lives on disk. A read streams the file's own data pieces only; a degraded
one rebuilds a window of a lost data tape from ``X`` other members of the
group on ``X`` drives (:meth:`Vertical.plan_read`).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import ClassVar

from attrs import define, frozen

from tapesched.simulator.storage.archive_layout import ArchiveSide, SlotFill, data_then_parity
from tapesched.simulator.storage.catalogue import Catalogue
from tapesched.simulator.storage.catalogue_records import TOLERANCE_MB, Row, RowSpan
from tapesched.simulator.storage.files import FileSpec, JobSpec, Phase, Scheme
from tapesched.simulator.storage.policies.policy import (
    Group,
    check_written_by,
    extent,
    fits,
    open_tapes,
    read_phases,
    state_of,
    writable_group,
    written_layout,
)


@define
class VerticalState:
    """The parity group being filled.

    Attributes
    ----------
    stripe
        Its stripe in the catalogue (None until data comes).
    slot
        Index of the data tape being filled.
    host_mb
        Data host MB written to the group.
    alone_mb
        Sum of each write's host MB over its ``C_P``: the tape its parity
        would take alone.
    longest_mb
        Host MB of the longest data tape: the length of each parity member.
    library
        Where its parity tapes go: the library of the last write to it.
    """

    stripe: int | None = None
    slot: int = 0
    host_mb: float = 0.0
    alone_mb: float = 0.0
    longest_mb: float = 0.0
    library: str | None = None


def _state(group: Group) -> VerticalState:
    return state_of(group, VerticalState, "VERTICAL")


def _own(row: Row) -> tuple[int, ...]:
    """What a VERTICAL read takes of a row: the file's own data member."""
    return row.own


@frozen
class Vertical:
    """VERTICAL."""

    name: ClassVar[str] = "vertical"

    def write_width(self, file: FileSpec) -> int:
        """1."""
        return 1

    def read_width(self, catalogue: Catalogue, file_id: str) -> int:
        """1."""
        check_written_by(catalogue, file_id, self.name)
        return 1

    def stream_of(self, file: FileSpec) -> str:
        """``"vertical"``."""
        return self.name

    def write_memory_mb(self, file: FileSpec) -> float:
        """0: parity accumulates on disk."""
        return 0.0

    def stream_disk_mb(self, file: FileSpec, tape_capacity_mb: float) -> float:
        """``Y`` tapes' worth: the paper's "enough local storage space to store Y
        uncompressed tapes" (Section 4.3), here ``Y`` times the tape capacity."""
        return file.scheme.parity * tape_capacity_mb

    def plan_read(
        self, catalogue: Catalogue, file_id: str, unavailable: Collection[str] = frozenset()
    ) -> JobSpec:
        """The file's data pieces, in order, on one drive.

        Degraded (:func:`~simulator.storage.policies.policy.read_phases`): when the file's
        own data tape in a row is unavailable, that row's window (its host
        positions) is rebuilt from ``X`` untouched members of the parity
        group over the same positions: the group's other data tapes first,
        then its parity members, in order. They are read in parallel on
        ``X`` drives, so the plan is ``X`` wide, with ``None`` in the
        columns past the first in the rows read as usual. A lost data tape
        thus costs up to ``X`` extra mounts (``X - 1`` data tapes and a
        parity tape), where PARALLEL needs one and RAIT none. Another data
        tape holding nothing at those positions (past its end, zeros), or
        parity still on a mover's disk, is read with no extent. No mover
        memory is held (VERTICAL has no block size; the rebuilding is
        streamed), as in a normal read.
        """
        layout = written_layout(catalogue, file_id, self.name)
        return JobSpec(read_phases(layout, _own, unavailable))

    def plan_write(
        self, catalogue: Catalogue, file: FileSpec, group: Group | None, library: str
    ) -> tuple[JobSpec, Group]:
        """Append the file to the group's data tapes; write the parity if the group fills."""
        group = writable_group(catalogue, library, group, self.name, file.scheme, VerticalState)
        x, y = file.scheme.data, file.scheme.parity
        phases: list[Phase] = []
        flush: list[Phase] = []
        spans: list[RowSpan] = []
        left = file.size_mb
        while left > 0:
            state = _state(group)
            if state.stripe is None:
                state.stripe = catalogue.open_stripe(file.scheme, shares=x)
            state.library = library
            tape = open_tapes(catalogue, group, library, 1)[0]
            free = catalogue.free_mb(tape)
            if fits(left / file.data_ratio, free):
                host, tape_mb = left, left / file.data_ratio
            else:
                host, tape_mb = free * file.data_ratio, free
            start = catalogue.member_length_mb(state.stripe, state.slot)
            piece = catalogue.append(
                state.stripe, state.slot, tape, data_host_mb=host, data_tape_mb=tape_mb
            )
            end = catalogue.member_length_mb(state.stripe, state.slot)
            spans.append(RowSpan(state.stripe, (state.slot,), start, end))
            phases.append((extent(piece),))
            left = 0.0 if host == left else left - host
            state.host_mb += host
            state.alone_mb += host / file.ec_ratio
            state.longest_mb = max(state.longest_mb, end)
            for j in range(x, x + y):
                catalogue.hold(state.stripe, j, state.longest_mb)
            group.disk_mb = y * state.longest_mb
            if catalogue.free_mb(tape) <= TOLERANCE_MB:
                catalogue.close_tape(tape, full=True)
                group.tapes = ()
                state.slot += 1
                if state.slot == x:
                    (phases if left > 0 else flush).extend(self._write_parity(catalogue, group))
        catalogue.record(file, self.name, spans)
        return JobSpec(tuple(phases), flush=tuple(flush)), group

    def _write_parity(self, catalogue: Catalogue, group: Group) -> list[Phase]:
        """Write the group's parity members, close its tapes, start a new group; the phases."""
        state = _state(group)
        stripe = state.stripe
        phases: list[Phase] = []
        if stripe is not None and state.library is not None and state.host_mb > 0:
            x, y = group.scheme.data, group.scheme.parity
            ratio = state.host_mb / state.alone_mb
            for j in range(x, x + y):
                catalogue.hold(stripe, j, 0.0)
                left = state.longest_mb
                while left > 0:
                    tape = catalogue.new_tape(state.library)
                    free = catalogue.free_mb(tape)
                    if fits(left / ratio, free):
                        host, tape_mb = left, left / ratio
                    else:
                        host, tape_mb = free * ratio, free
                    piece = catalogue.append(stripe, j, tape, ec_host_mb=host, ec_tape_mb=tape_mb)
                    phases.append((extent(piece),))
                    left = 0.0 if host == left else left - host
                    catalogue.close_tape(tape, full=catalogue.free_mb(tape) <= TOLERANCE_MB)
        for tape in group.tapes:
            catalogue.close_tape(tape)
        group.tapes = ()
        group.disk_mb = 0.0
        group.state = VerticalState()
        return phases

    def close(self, catalogue: Catalogue, group: Group) -> JobSpec | None:
        """Write the parity of a group whose data tapes are not all full; None if none is due."""
        if group.closed:
            raise ValueError(f"the {group.policy} {group.scheme} group is closed")
        if group.policy != self.name:
            raise ValueError(f"{self.name} cannot close a {group.policy} {group.scheme} group")
        _state(group)
        phases = self._write_parity(catalogue, group)
        group.closed = True
        return JobSpec(tuple(phases)) if phases else None

    # The archive at time 0 (simulator.storage.archive_layout).

    def archive_sides(self, lo_mb: float, hi_mb: float) -> tuple[ArchiveSide, ...]:
        """Every size, written by VERTICAL itself."""
        return (ArchiveSide(self, lo_mb, hi_mb, hi_mb),)

    def member_slots_mb(self, scheme: Scheme, size_mb: float, data_ratio: float) -> list[float]:
        """A whole file on a data tape, and its parity, uncompressed, on each parity member."""
        return [size_mb / data_ratio] * scheme.data + [size_mb] * scheme.parity

    def files_per_slot(self, scheme: Scheme) -> int:
        """``X``: each data tape of a parity group holds files of its own."""
        return scheme.data

    def fill_slot(self, file: FileSpec, index: int, slots: int) -> SlotFill:
        """The file on data member ``index // slots``, in contiguous blocks; the window over the
        group's other data tapes and the parity at the same slot: one row of ``X + Y``."""
        x, width = file.scheme.data, file.scheme.width
        own, slot = divmod(index, slots)
        amounts = ((file.size_mb, 0.0, 1),) * x + ((0.0, file.size_mb, 1),) * (width - x)
        kinds = data_then_parity(file.scheme)
        return SlotFill(slot, (own,), amounts, kinds, shares=x, one_row=True)
