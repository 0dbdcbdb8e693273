"""What a policy tells the archive at time 0 to lay its files out as it would write them.

The archive (:mod:`simulator.storage.archive`) is made of regions, each the
files of one *writer* (a policy that writes files itself) and one scheme, in
identical *sets* of tapes: one *track* of tapes per member of the scheme, cut
into equal *slots*. What the archive needs of the policy in force is here, as
two protocols, so that any policy can take part, an installed package's too:

- an :class:`ArchiveLayout` says which writers write which sizes
  (:meth:`ArchiveLayout.archive_sides`): HETERO splits the sizes at its
  threshold between VERTICAL and PARALLEL, the others write every size
  themselves;
- a :class:`SlotWriter` says how long each member's slot is, how many files a
  slot holds, and what each member holds of a file in its slot
  (:class:`SlotFill`).

RAIT, PARALLEL and VERTICAL are both; HETERO is an :class:`ArchiveLayout`. A
policy that is no :class:`ArchiveLayout` cannot have an archive at time 0: the
archive refuses it (a scenario's ``workload.initial_archive`` then says so).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from attrs import frozen

from tapesched.simulator.storage.catalogue_records import Kind
from tapesched.simulator.storage.files import FileSpec, Scheme

MemberAmounts = tuple[float, float, int]
"""What one member holds of a file: data host MB, parity host MB, and blocks."""


@frozen
class SlotFill:
    """Where one file of the archive lies in its set, and what each member holds of it.

    Attributes
    ----------
    slot
        The slot, on each member's track, at whose start the file lies.
    own
        The members holding the file's own bytes: all of them, but VERTICAL's
        one data member (the others are its parity group's other data tapes).
    amounts
        What each member holds of the file (none: ``(0.0, 0.0, blocks)``).
    kinds
        Each member's kind: ``"data"``, ``"ec"`` or ``"mixed"`` (RAIT's rotated rows).
    shares
        The data members sharing each row's parity: VERTICAL's ``X``, the data
        tapes of a parity group; 1 for a stripe of the file's own.
    one_row
        The file's members make one row holding every piece of each
        (VERTICAL: a window over its parity group); otherwise a row per piece,
        row ``r`` holding piece ``r`` of every member (a stripe's rows).
    """

    slot: int
    own: tuple[int, ...]
    amounts: tuple[MemberAmounts, ...]
    kinds: tuple[Kind, ...]
    shares: int
    one_row: bool


class SlotWriter(Protocol):
    """A policy writing the archive's files itself: how they lie in the slots of a set."""

    @property
    def name(self) -> str:
        """Registry name, recorded as the policy that wrote its files."""
        ...

    def member_slots_mb(self, scheme: Scheme, size_mb: float, data_ratio: float) -> list[float]:
        """Tape MB each member of ``scheme`` takes at most for a file of ``size_mb``: the
        length of its slots. Data at ``data_ratio`` (the lowest ``C_D``), parity uncompressed
        (``C_P >= 1``)."""
        ...

    def files_per_slot(self, scheme: Scheme) -> int:
        """Files one slot holds across the members (VERTICAL: one per data member; else 1)."""
        ...

    def fill_slot(self, file: FileSpec, index: int, slots: int) -> SlotFill:
        """Where file ``index`` of its set (``slots`` slots a track) lies, and what each
        member holds of it."""
        ...


def data_then_parity(scheme: Scheme) -> tuple[Kind, ...]:
    """The members' kinds of a file whose ``X`` data members come before its ``Y`` parity
    members, each holding one or the other (VERTICAL, PARALLEL)."""
    data: Kind = "data"
    parity: Kind = "ec"
    return (data,) * scheme.data + (parity,) * scheme.parity


@frozen
class ArchiveSide:
    """A writer of the archive and the sizes it writes: ``[lo_mb, hi_mb]``."""

    writer: SlotWriter
    lo_mb: float
    hi_mb: float
    top_mb: float
    """The largest size it draws (below ``hi_mb`` when a threshold ends the range)."""


@runtime_checkable
class ArchiveLayout(Protocol):
    """A policy the archive at time 0 can be laid out by."""

    def archive_sides(self, lo_mb: float, hi_mb: float) -> tuple[ArchiveSide, ...]:
        """The writers of the archive's files of sizes ``[lo_mb, hi_mb]``, each with its sizes."""
        ...
