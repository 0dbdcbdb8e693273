"""What the catalogue records: tapes, the pieces on them, stripe members and rows, layouts.

Small frozen values, checked at construction, that the catalogue
(:mod:`tapesched.simulator.storage.catalogue`) hands out and the archival policies
read: a tape's state (:class:`TapeInfo`), a piece of a tape (:class:`Chunk`), a stripe
member (:class:`Member`), a row of a file's layout (:class:`Row`), a file's layout
(:class:`FileLayout`), what a write put where (:class:`Written`, :class:`RowSpan`).
Sizes are in MB, after compression on tape.
"""

from __future__ import annotations

import math
from typing import Literal

from attrs import field, frozen

from tapesched.simulator.storage.files import FileSpec

TOLERANCE_MB = 1e-9
"""Slack allowed on capacity checks (a thousandth of a byte), so that float sums
that fill a tape to its last byte are not refused."""

Kind = Literal["data", "ec", "mixed"]
KINDS: tuple[Kind, ...] = ("data", "ec", "mixed")


def _nonnegative(_: object, attribute: object, value: float) -> None:
    if not (math.isfinite(value) and value >= 0):
        raise ValueError(f"{getattr(attribute, 'name', 'value')} must be >= 0, got {value!r}")


def _at_least_one(_: object, attribute: object, value: int) -> None:
    if value < 1:
        raise ValueError(f"{getattr(attribute, 'name', 'value')} must be >= 1, got {value!r}")


@frozen
class TapeInfo:
    """What the catalogue knows of a tape, at the time it was asked.

    Attributes
    ----------
    id
        Tape id.
    library
        Library it belongs to.
    capacity_mb
        Tape space.
    used_mb
        Tape space taken, from offset 0 (tapes are append-only).
    full
        The next write did not fit on it.
    closed
        Nothing more will be appended to it (it is full, or the group that
        wrote it moved on to other tapes).
    """

    id: str
    library: str
    capacity_mb: float
    used_mb: float
    full: bool
    closed: bool

    @property
    def free_mb(self) -> float:
        """Tape space left at its end."""
        return self.capacity_mb - self.used_mb


@frozen
class Chunk:
    """Contiguous bytes on one tape: data, parity, or both interleaved (RAIT).

    The data and parity parts are kept apart because they compress
    differently; :attr:`tape_mb` and :attr:`host_mb` are their sums.

    Attributes
    ----------
    tape
        Tape id.
    offset_mb
        Where the piece begins on the tape.
    data_host_mb, data_tape_mb
        Data in it, before and after compression.
    ec_host_mb, ec_tape_mb
        Parity in it, before and after compression.
    blocks
        Number of blocks (records) it is made of.
    """

    tape: str
    offset_mb: float = field(validator=_nonnegative)
    data_host_mb: float = field(default=0.0, validator=_nonnegative)
    data_tape_mb: float = field(default=0.0, validator=_nonnegative)
    ec_host_mb: float = field(default=0.0, validator=_nonnegative)
    ec_tape_mb: float = field(default=0.0, validator=_nonnegative)
    blocks: int = field(default=1, validator=_at_least_one)

    def __attrs_post_init__(self) -> None:
        if not self.host_mb > 0:
            raise ValueError(f"a piece on {self.tape!r} must hold some bytes")

    @property
    def tape_mb(self) -> float:
        """Tape space it takes."""
        return self.data_tape_mb + self.ec_tape_mb

    @property
    def host_mb(self) -> float:
        """Bytes that cross the mover for it."""
        return self.data_host_mb + self.ec_host_mb

    @property
    def end_mb(self) -> float:
        """Where the next piece on the tape begins."""
        return self.offset_mb + self.tape_mb

    @property
    def kind(self) -> Kind:
        """``"data"``, ``"ec"``, or ``"mixed"`` when it holds both."""
        if self.ec_host_mb == 0:
            return "data"
        return "ec" if self.data_host_mb == 0 else "mixed"


@frozen
class Member:
    """One member of a stripe, as far as it concerns one row of a file.

    Attributes
    ----------
    kind
        ``"data"``, ``"ec"``, or ``"mixed"`` (a RAIT drive's stream).
    pieces
        What it occupies on tape, in order.
    held_mb
        Host MB of it held on a mover's disk and not yet on any tape
        (VERTICAL parity before its group's data tapes are full).
    """

    kind: Kind
    pieces: tuple[Chunk, ...] = ()
    held_mb: float = 0.0

    @property
    def tapes(self) -> tuple[str, ...]:
        """The tapes it touches, in order, each once."""
        return tuple(dict.fromkeys(p.tape for p in self.pieces))


@frozen
class Row:
    """A row of a file's layout: the ``X + Y`` members needed to rebuild the file's bytes in it.

    Attributes
    ----------
    members
        ``X`` data members then ``Y`` parity members (RAIT: one per drive,
        in drive order).
    own
        Indices of the members that hold the file's own bytes: all of them,
        but for a VERTICAL row, where one data member holds the file and the
        others are its parity group's other data tapes over the same host
        positions.
    """

    members: tuple[Member, ...]
    own: tuple[int, ...]

    @property
    def tapes(self) -> tuple[str, ...]:
        """Every tape the row touches, each once."""
        return tuple(dict.fromkeys(t for m in self.members for t in m.tapes))


@frozen
class FileLayout:
    """A file's current layout: its spec, the policy that wrote it, its rows in file order."""

    file: FileSpec
    policy: str
    rows: tuple[Row, ...]


@frozen
class Written:
    """Bytes a file's current layout put on tape, split into data and parity.

    In a shared VERTICAL parity group, the parity over a file's host range
    is shared by the group's ``X`` data tapes, so the file is charged a
    ``1/X`` share of it: ``Y`` times its size over ``X``, in host MB.

    Attributes
    ----------
    data_host_mb, data_tape_mb
        The file's data, before and after compression.
    ec_host_mb, ec_tape_mb
        Its parity (or parity share) written to tape.
    ec_held_mb
        Its parity (share) still held on a mover's disk.
    """

    data_host_mb: float
    data_tape_mb: float
    ec_host_mb: float
    ec_tape_mb: float
    ec_held_mb: float


@frozen
class RowSpan:
    """How a policy records a row: a stripe, the file's members in it, and an optional window.

    Attributes
    ----------
    stripe
        Stripe id from :meth:`Catalogue.open_stripe`.
    own
        Members holding the file's own bytes.
    lo_mb, hi_mb
        Host positions, within every member, the row covers (both ``None``:
        the whole stripe).
    """

    stripe: int
    own: tuple[int, ...]
    lo_mb: float | None = None
    hi_mb: float | None = None

    def __attrs_post_init__(self) -> None:
        if not self.own:
            raise ValueError("a row must name the members holding the file's bytes")
        if (self.lo_mb is None) != (self.hi_mb is None):
            raise ValueError("a row's window needs both ends or neither")
        if self.lo_mb is not None and self.hi_mb is not None and not self.lo_mb < self.hi_mb:
            raise ValueError(f"a row's window must not be empty: [{self.lo_mb}, {self.hi_mb})")
