"""The archive's state: its tapes, what was appended to them, and where each file's stripes lie.

The archival policies write through this catalogue and read their plans
from it; it knows the policies only by name. Three ideas carry it.

Tapes
    Created on demand (:meth:`Catalogue.new_tape`), numbered in creation
    order (``T000001``, ``T000002``, ...), each in one library with the same
    capacity. Tapes are append-only: a piece goes at the tape's end, and a
    rewritten file leaves its old bytes where they are (no space is
    reclaimed). A tape is *full* when the next write did not fit on it, and
    *closed* once no more will be appended to it (full, or retired with the
    group of tapes that was writing it).

Stripes
    An erasure code protects ``X + Y`` *members* (``X`` data, ``Y`` parity)
    of a stripe: any ``Y`` may be lost. A stripe here is a run of
    consecutive stripe rows lying on the same tapes member for member, not
    one row of blocks: a terabyte in 1 MB blocks is a million rows, and
    which tapes a row needs is all that recovery depends on. Each member is
    the list of pieces it occupies, in order; it spans several tapes when
    one fills. RAIT rotates data and parity across its tapes every row, so
    its members are its drives' streams (``"mixed"``): each row still puts
    one block on each, so losing a member loses at most one block of any
    row. Parity not yet written (VERTICAL keeps it on a mover's disk until
    its data tapes are full) is counted as *held*.

Rows of a file
    A file's layout is a list of rows: a stripe, the members holding the
    file's own bytes, and optionally a window of host positions. Windowed
    rows are how VERTICAL's parity groups are shared: the parity is computed
    over whole data tapes, so the file's bytes on one data tape at host
    positions ``[lo, hi)`` are rebuilt from the same positions on the
    group's other data tapes (other files' bytes, or none past their end)
    and parity members. The catalogue keeps the stripe shared and resolves
    the window when asked, so later writes to the group and its parity are
    seen by every file in it.

The archive at time 0
    A catalogue may stand on a lazily laid-out archive
    (:class:`LazyArchive`, :mod:`simulator.storage.archive`): its files and tapes
    are answered from it, computed on demand, until a file is written again
    (the new layout is then the catalogue's own). Archive tapes are full and
    closed; nothing is appended to them, and :meth:`Catalogue.tapes` and
    :meth:`Catalogue.files` list only what the run wrote.

Sizes follow :mod:`simulator.storage.files`: MB; *tape* sizes are after
compression, *host* sizes before.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from bisect import bisect_right
from collections.abc import Collection, Iterator, Sequence
from typing import Literal, Protocol

from attrs import define, field, frozen

from tapesched.simulator.storage.files import FileSpec, Scheme

TOLERANCE_MB = 1e-9
"""Slack allowed on capacity checks (a thousandth of a byte), so that float sums
that fill a tape to its last byte are not refused."""

Kind = Literal["data", "ec", "mixed"]
KINDS: tuple[Kind, ...] = ("data", "ec", "mixed")

FileState = Literal["readable", "rebuilt", "lost"]
"""What tape losses leave of a file (:meth:`Catalogue.file_state`)."""


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


@define
class _Tape:
    id: str
    library: str
    capacity_mb: float
    used_mb: float = 0.0
    full: bool = False
    closed: bool = False
    pieces: list[Chunk] = field(factory=list)


@define
class _Member:
    """A stripe member with the host position each of its pieces starts and ends at."""

    kind: Kind
    pieces: list[Chunk] = field(factory=list)
    starts_mb: list[float] = field(factory=list)
    ends_mb: list[float] = field(factory=list)
    held_mb: float = 0.0

    @property
    def length_mb(self) -> float:
        return self.ends_mb[-1] if self.ends_mb else 0.0

    def view(self, lo_mb: float | None, hi_mb: float | None) -> Member:
        """The member restricted to host positions ``[lo_mb, hi_mb)``.

        A piece partly inside is cut in proportion (a piece has one
        compression ratio throughout); one wholly inside is returned as is,
        so a file's own piece comes back exactly.
        """
        if lo_mb is None or hi_mb is None:
            return Member(self.kind, tuple(self.pieces), self.held_mb)
        cut: list[Chunk] = []
        i = bisect_right(self.ends_mb, lo_mb)
        while i < len(self.pieces) and self.starts_mb[i] < hi_mb:
            start, end, piece = self.starts_mb[i], self.ends_mb[i], self.pieces[i]
            if lo_mb <= start and end <= hi_mb:
                cut.append(piece)
            else:
                cut.append(_clip(piece, max(lo_mb, start) - start, min(hi_mb, end) - start))
            i += 1
        held_lo = self.length_mb
        held = max(0.0, min(hi_mb, held_lo + self.held_mb) - max(lo_mb, held_lo))
        return Member(self.kind, tuple(cut), held)


def _clip(piece: Chunk, from_mb: float, to_mb: float) -> Chunk:
    """The part of ``piece`` between host MB ``from_mb`` and ``to_mb`` of it."""
    share = (to_mb - from_mb) / piece.host_mb
    return Chunk(
        piece.tape,
        piece.offset_mb + piece.tape_mb * from_mb / piece.host_mb,
        piece.data_host_mb * share,
        piece.data_tape_mb * share,
        piece.ec_host_mb * share,
        piece.ec_tape_mb * share,
    )


@define
class _Stripe:
    scheme: Scheme
    members: list[_Member]
    shares: int


@define
class _Entry:
    file: FileSpec
    policy: str
    spans: tuple[RowSpan, ...]


@frozen
class RowExposure:
    """The tapes one row of a file depends on.

    Attributes
    ----------
    members
        Per member of the row, the tapes holding a piece of it (empty: all
        of it is on a mover's disk, or the member holds nothing there).
    data_tapes
        The tapes holding the file's own data in the row: a read of the row
        needs nothing else while they are whole.
    """

    members: tuple[frozenset[str], ...]
    data_tapes: frozenset[str]


@frozen
class Exposure:
    """The tapes a file's layout depends on, and what losing some of them leaves of it.

    Attributes
    ----------
    parity
        ``Y``: members of a row that may be lost with the row still rebuilt.
    rows
        The file's rows, each as :class:`RowExposure` (rows on the same
        tapes given once).
    """

    parity: int
    rows: tuple[RowExposure, ...]

    @property
    def tapes(self) -> frozenset[str]:
        """Every tape a loss of which changes the file's state."""
        return frozenset(t for row in self.rows for m in row.members for t in m)

    def state(self, lost_tapes: Collection[str]) -> FileState:
        """``"readable"``, ``"rebuilt"`` or ``"lost"`` when ``lost_tapes`` are lost.

        ``"lost"`` when some row has more than ``Y`` members with a piece
        on a lost tape: that row cannot be rebuilt, and a read of the file
        fails (the policies' degraded read plans refuse it too).
        ``"readable"`` otherwise when no tape holding the file's own data
        is lost: a read needs nothing else (lost parity, and the other
        files' data of a VERTICAL parity group, do not matter to it).
        ``"rebuilt"`` otherwise: a read rebuilds the rows whose data is on a
        lost tape from their surviving members. Parity held on a mover's
        disk is on no tape and survives (the model has no mover failures).
        """
        lost = lost_tapes if isinstance(lost_tapes, set | frozenset) else frozenset(lost_tapes)
        if not lost:
            return "readable"
        touched = False
        for row in self.rows:
            if sum(1 for m in row.members if not lost.isdisjoint(m)) > self.parity:
                return "lost"
            touched = touched or not lost.isdisjoint(row.data_tapes)
        return "rebuilt" if touched else "readable"


class LazyArchive(Protocol):
    """The archive at time 0 as a catalogue asks it (:class:`simulator.storage.archive.Archive`)."""

    def file_number(self, file_id: str) -> int | None:
        """The archive's number for ``file_id`` (``None``: not one of its files)."""
        ...

    def layout(self, k: int) -> tuple[FileLayout, int]:
        """File ``k``'s layout and the data members sharing its parity."""
        ...

    def file(self, k: int) -> FileSpec:
        """File ``k``'s spec."""
        ...

    def writer(self, k: int) -> str:
        """The policy that wrote file ``k``."""
        ...

    def tape_library(self, tape_id: str) -> str | None:
        """Library of an archive tape (``None``: not one of its tapes)."""
        ...


class NumberedFiles(ABC):
    """Files named ``f0``, ``f1``, ...: the naming of an archive listed as given.

    A :class:`LazyArchive` whose files are the entries of a list (a trace's
    requests, an HSM's batches) names file ``k`` ``f{k}``; a subclass says
    how many there are (:meth:`__len__`).
    """

    @abstractmethod
    def __len__(self) -> int:
        """How many files there are."""

    @staticmethod
    def file_id(k: int) -> str:
        """Id of file ``k``."""
        return f"f{k}"

    def file_number(self, file_id: str) -> int | None:
        """Number of ``f{k}`` (``None``: not one of the files)."""
        if not file_id.startswith("f") or not file_id[1:].isdigit():
            return None
        k = int(file_id[1:])
        return k if k < len(self) else None


class Catalogue:
    """The tape pool and the layout of every archived file.

    Parameters
    ----------
    capacity_mb
        Tape space of every tape.
    libraries
        Library ids; new tapes go in one of them.
    archive
        The archive at time 0, laid out lazily (``None``: the catalogue
        starts empty).

    Examples
    --------
    >>> from tapesched.simulator.storage.files import FileSpec, Scheme
    >>> cat = Catalogue(100.0, ["L0"])
    >>> a, b = cat.new_tape("L0"), cat.new_tape("L0")
    >>> s = cat.open_stripe(Scheme(1, 1), ["data", "ec"])
    >>> _ = cat.append(s, 0, a, data_host_mb=20.0, data_tape_mb=10.0)
    >>> _ = cat.append(s, 1, b, ec_host_mb=20.0, ec_tape_mb=20.0)
    >>> cat.record(FileSpec("f", 20.0, Scheme(1, 1), 2.0, 1.0), "demo", [RowSpan(s, (0, 1))])
    >>> cat.recoverable("f", {a}), cat.recoverable("f", {a, b})
    (True, False)
    """

    def __init__(
        self, capacity_mb: float, libraries: Sequence[str], archive: LazyArchive | None = None
    ) -> None:
        if not (math.isfinite(capacity_mb) and capacity_mb > 0):
            raise ValueError(f"capacity_mb must be a positive number, got {capacity_mb!r}")
        if not libraries:
            raise ValueError("a catalogue needs at least one library")
        if len(set(libraries)) != len(libraries):
            raise ValueError(f"library ids must be distinct, got {list(libraries)!r}")
        self.capacity_mb = float(capacity_mb)
        self.libraries: tuple[str, ...] = tuple(libraries)
        self._tapes: dict[str, _Tape] = {}
        self._stripes: list[_Stripe] = []
        self._files: dict[str, _Entry] = {}
        self.archive = archive

    # Tapes

    def new_tape(self, library: str) -> str:
        """A new empty tape in ``library``; ids follow creation order."""
        if library not in self.libraries:
            raise ValueError(f"unknown library {library!r}; the libraries are {self.libraries}")
        tape_id = f"T{len(self._tapes) + 1:06d}"
        self._tapes[tape_id] = _Tape(tape_id, library, self.capacity_mb)
        return tape_id

    def _tape(self, tape_id: str) -> _Tape:
        try:
            return self._tapes[tape_id]
        except KeyError:
            raise KeyError(f"tape {tape_id!r} is not in the catalogue") from None

    def tape(self, tape_id: str) -> TapeInfo:
        """What is known of a tape now (an archive tape is full and closed)."""
        if tape_id not in self._tapes and self.archive is not None:
            library = self.archive.tape_library(tape_id)
            if library is not None:
                return TapeInfo(tape_id, library, self.capacity_mb, self.capacity_mb, True, True)
        t = self._tape(tape_id)
        return TapeInfo(t.id, t.library, t.capacity_mb, t.used_mb, t.full, t.closed)

    def library(self, tape_id: str) -> str:
        """The library of a tape: :meth:`tape`'s ``library``, without the rest of it."""
        if tape_id not in self._tapes and self.archive is not None:
            library = self.archive.tape_library(tape_id)
            if library is not None:
                return library
        return self._tape(tape_id).library

    def tapes(self) -> tuple[TapeInfo, ...]:
        """Every tape, in creation order."""
        return tuple(self.tape(t) for t in self._tapes)

    def free_mb(self, tape_id: str) -> float:
        """Tape space left at the end of a tape."""
        t = self._tape(tape_id)
        return t.capacity_mb - t.used_mb

    def tape_pieces(self, tape_id: str) -> tuple[Chunk, ...]:
        """Everything appended to a tape, in order (also what rewritten files left behind)."""
        return tuple(self._tape(tape_id).pieces)

    def close_tape(self, tape_id: str, *, full: bool = False) -> None:
        """Append nothing more to a tape; ``full`` when it is closed because a write did not fit."""
        t = self._tape(tape_id)
        t.closed = True
        t.full = t.full or full

    # Stripes

    def open_stripe(
        self, scheme: Scheme, kinds: Sequence[Kind] | None = None, shares: int = 1
    ) -> int:
        """A new stripe of ``scheme.width`` members; its id.

        ``kinds`` are the members' kinds (by default ``X`` data then ``Y``
        parity). ``shares`` is the number of data members whose files share
        its parity (``X`` for a VERTICAL parity group, 1 when the stripe is
        one file's own); a file is charged ``1/shares`` of the parity in its
        rows.
        """
        if kinds is None:
            data: Kind = "data"
            ec: Kind = "ec"
            kinds = [data] * scheme.data + [ec] * scheme.parity
        if len(kinds) != scheme.width:
            raise ValueError(f"a {scheme} stripe has {scheme.width} members, not {len(kinds)}")
        if any(k not in KINDS for k in kinds):
            raise ValueError(f"member kinds are {KINDS}, got {list(kinds)!r}")
        if shares < 1:
            raise ValueError(f"shares must be >= 1, got {shares!r}")
        self._stripes.append(_Stripe(scheme, [_Member(k) for k in kinds], shares))
        return len(self._stripes) - 1

    def _member(self, stripe: int, member: int) -> _Member:
        if not 0 <= stripe < len(self._stripes):
            raise KeyError(f"stripe {stripe!r} is not in the catalogue")
        members = self._stripes[stripe].members
        if not 0 <= member < len(members):
            raise IndexError(f"stripe {stripe} has members 0..{len(members) - 1}, not {member}")
        return members[member]

    def member_length_mb(self, stripe: int, member: int) -> float:
        """Host MB appended to a stripe member so far: where its next piece starts."""
        return self._member(stripe, member).length_mb

    def append(
        self,
        stripe: int,
        member: int,
        tape_id: str,
        *,
        data_host_mb: float = 0.0,
        data_tape_mb: float = 0.0,
        ec_host_mb: float = 0.0,
        ec_tape_mb: float = 0.0,
        blocks: int = 1,
        merge: bool = False,
    ) -> Chunk:
        """Write at the end of a tape, for a member of a stripe; the piece written.

        With ``merge``, a piece that continues the member's last piece on
        the same tape is joined to it in the catalogue (one read extent
        instead of two); the piece returned is still the part just written.

        Raises
        ------
        ValueError
            When the tape is closed or the piece does not fit on it.
        """
        t = self._tape(tape_id)
        m = self._member(stripe, member)
        if t.closed:
            raise ValueError(f"tape {tape_id!r} is closed; nothing more can be appended")
        piece = Chunk(t.id, t.used_mb, data_host_mb, data_tape_mb, ec_host_mb, ec_tape_mb, blocks)
        if t.used_mb + piece.tape_mb > t.capacity_mb + TOLERANCE_MB:
            raise ValueError(
                f"{piece.tape_mb!r} MB does not fit on tape {tape_id!r} "
                f"({t.capacity_mb - t.used_mb!r} MB free)"
            )
        t.used_mb = piece.end_mb
        start = m.length_mb
        last = m.pieces[-1] if m.pieces else None
        if merge and last is not None and last.tape == t.id and last.end_mb == piece.offset_mb:
            joined = Chunk(
                t.id,
                last.offset_mb,
                last.data_host_mb + data_host_mb,
                last.data_tape_mb + data_tape_mb,
                last.ec_host_mb + ec_host_mb,
                last.ec_tape_mb + ec_tape_mb,
                last.blocks + blocks,
            )
            m.pieces[-1] = joined
            m.ends_mb[-1] = m.starts_mb[-1] + joined.host_mb
            t.pieces[-1] = joined
            t.used_mb = joined.end_mb
        else:
            m.pieces.append(piece)
            m.starts_mb.append(start)
            m.ends_mb.append(start + piece.host_mb)
            t.pieces.append(piece)
        return piece

    def hold(self, stripe: int, member: int, held_mb: float) -> None:
        """Set the host MB of a member held on a mover's disk, past what is on tape."""
        if not (math.isfinite(held_mb) and held_mb >= 0):
            raise ValueError(f"held_mb must be >= 0, got {held_mb!r}")
        self._member(stripe, member).held_mb = held_mb

    # Files

    def record(self, file: FileSpec, policy: str, rows: Sequence[RowSpan]) -> None:
        """Make ``rows`` the layout of ``file``, replacing any earlier one."""
        if not rows:
            raise ValueError(f"file {file.id!r}: a layout needs at least one row")
        for span in rows:
            stripe = self._stripes[span.stripe] if 0 <= span.stripe < len(self._stripes) else None
            if stripe is None:
                raise KeyError(f"stripe {span.stripe!r} is not in the catalogue")
            if stripe.scheme != file.scheme:
                raise ValueError(
                    f"file {file.id!r} is {file.scheme} but stripe {span.stripe} is {stripe.scheme}"
                )
            if not all(0 <= i < file.scheme.width for i in span.own):
                raise IndexError(f"stripe {span.stripe} has no member among {span.own}")
        self._files[file.id] = _Entry(file, policy, tuple(rows))

    def _entry(self, file_id: str) -> _Entry:
        try:
            return self._files[file_id]
        except KeyError:
            raise KeyError(f"file {file_id!r} is not in the catalogue") from None

    def _archived(self, file_id: str) -> int | None:
        """The archive's number of ``file_id`` when its layout is the archive's."""
        if self.archive is None or file_id in self._files:
            return None
        return self.archive.file_number(file_id)

    def has_file(self, file_id: str) -> bool:
        """Whether the file has been written (in the run, or in the archive)."""
        return file_id in self._files or self._archived(file_id) is not None

    def files(self) -> Iterator[str]:
        """Ids of the files written, in the order first written."""
        return iter(self._files)

    def file(self, file_id: str) -> FileSpec:
        """The spec of the file's current version."""
        k = self._archived(file_id)
        if k is not None and self.archive is not None:
            return self.archive.file(k)
        return self._entry(file_id).file

    def writer(self, file_id: str) -> str:
        """Name of the policy that wrote the file's current version."""
        k = self._archived(file_id)
        if k is not None and self.archive is not None:
            return self.archive.writer(k)
        return self._entry(file_id).policy

    def _rows(self, file_id: str) -> tuple[FileSpec, list[tuple[Row, int]]]:
        """The file's spec, and its rows with the members sharing each row's parity."""
        k = self._archived(file_id)
        if k is not None and self.archive is not None:
            layout, shares = self.archive.layout(k)
            return layout.file, [(row, shares) for row in layout.rows]
        entry = self._entry(file_id)
        rows = []
        for span in entry.spans:
            stripe = self._stripes[span.stripe]
            members = tuple(m.view(span.lo_mb, span.hi_mb) for m in stripe.members)
            rows.append((Row(members, span.own), stripe.shares))
        return entry.file, rows

    def layout(self, file_id: str) -> FileLayout:
        """The file's rows as they stand, parity written since included."""
        k = self._archived(file_id)
        if k is not None and self.archive is not None:
            return self.archive.layout(k)[0]
        entry = self._entry(file_id)
        file, rows = self._rows(file_id)
        return FileLayout(file, entry.policy, tuple(row for row, _ in rows))

    def exposure(self, file_id: str) -> Exposure:
        """The tapes the file's current layout depends on, row by row (see :class:`Exposure`)."""
        file, rows = self._rows(file_id)
        exposed = []
        for row, _ in rows:
            members = tuple(frozenset(p.tape for p in m.pieces) for m in row.members)
            data = frozenset(
                p.tape for i in row.own for p in row.members[i].pieces if p.data_host_mb > 0
            )
            exposed.append(RowExposure(members, data))
        return Exposure(file.scheme.parity, tuple(dict.fromkeys(exposed)))

    def file_state(self, file_id: str, lost_tapes: Collection[str]) -> FileState:
        """What losing ``lost_tapes`` leaves of the file: readable, rebuilt or lost.

        ``"readable"``, ``"rebuilt"`` or ``"lost"``: :meth:`Exposure.state`
        of the file's :meth:`exposure`; archive files (:class:`LazyArchive`)
        are answered from their layout like any other.
        """
        return self.exposure(file_id).state(lost_tapes)

    def recoverable(self, file_id: str, lost_tapes: Collection[str]) -> bool:
        """Whether every byte of the file can be rebuilt when ``lost_tapes`` are lost.

        A row survives when at most ``Y`` of its members have a piece on a
        lost tape: :meth:`file_state` is not ``"lost"``.
        """
        return self.file_state(file_id, lost_tapes) != "lost"

    def stripe_tapes(self) -> Iterator[tuple[tuple[str, ...], ...]]:
        """Each stripe written in the run, in order: the tapes of each of its members.

        A member with nothing on tape yet (parity held on a mover's disk, or
        a data member no file reached) has no tapes. The lazily laid-out
        archive's stripes are not listed (its sets are computed per file).
        """
        for stripe in self._stripes:
            yield tuple(tuple(dict.fromkeys(p.tape for p in m.pieces)) for m in stripe.members)

    def written_mb(self, file_id: str) -> Written:
        """Host and tape MB of the file's data and parity (share) in its current layout."""
        _, rows = self._rows(file_id)
        data_host = data_tape = ec_host = ec_tape = ec_held = 0.0
        for row, shares in rows:
            for i, m in enumerate(row.members):
                if i in row.own:
                    data_host += sum(p.data_host_mb for p in m.pieces)
                    data_tape += sum(p.data_tape_mb for p in m.pieces)
                ec_host += sum(p.ec_host_mb for p in m.pieces) / shares
                ec_tape += sum(p.ec_tape_mb for p in m.pieces) / shares
                ec_held += m.held_mb / shares
        return Written(data_host, data_tape, ec_host, ec_tape, ec_held)
