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
    (:class:`~.lazy_archive.LazyArchive`, :mod:`simulator.storage.archive`): its files and tapes
    are answered from it, computed on demand, until a file is written again
    (the new layout is then the catalogue's own). Archive tapes are full and
    closed; nothing is appended to them, and :meth:`Catalogue.tapes` and
    :meth:`Catalogue.files` list only what the run wrote.

Sizes follow :mod:`simulator.storage.files`: MB; *tape* sizes are after
compression, *host* sizes before.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Collection, Iterator, Sequence
from typing import Any, Literal

from attrs import define, field, frozen

from tapesched.simulator.storage.catalogue_records import (
    KINDS,
    TOLERANCE_MB,
    Chunk,
    FileLayout,
    Kind,
    Member,
    Row,
    RowSpan,
    TapeInfo,
    Written,
)
from tapesched.simulator.storage.cold_store import ColdStore, HotCache
from tapesched.simulator.storage.files import FileSpec, Scheme
from tapesched.simulator.storage.lazy_archive import LazyArchive

HOT_STRIPES = 16_384
"""Stripes a catalogue keeps in memory (those used last); the others wait on disk
(:mod:`tapesched.simulator.storage.cold_store`)."""

HOT_FILES = 16_384
"""File layouts (of files written in the run) a catalogue keeps in memory."""

TAPE_PIECES_HOT = 256
"""Pieces of a tape a catalogue keeps in memory: those before its last few wait on disk, a
run of them at a time (a 1 TB tape holds tens of thousands of small files' pieces)."""

CLOSED_PIECES_HOT = 8
"""Pieces of a closed tape a catalogue keeps in memory (more go to disk as it closes)."""

FileState = Literal["readable", "rebuilt", "lost"]
"""What tape losses leave of a file (:meth:`Catalogue.file_state`)."""


@define
class _Tape:
    id: str
    library: str
    capacity_mb: float
    used_mb: float = 0.0
    full: bool = False
    closed: bool = False
    pieces: list[Chunk] = field(factory=list)
    """Its last pieces, after those on disk."""
    stored: int = 0
    """Runs of its pieces waiting on disk, in order, before :attr:`pieces`."""


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
    first: int
    """The file's rank among the files written (its first write's, kept by rewrites)."""


ChunkValues = tuple[str, float, float, float, float, float, int]


def _chunk_values(c: Chunk) -> ChunkValues:
    return (
        c.tape,
        c.offset_mb,
        c.data_host_mb,
        c.data_tape_mb,
        c.ec_host_mb,
        c.ec_tape_mb,
        c.blocks,
    )


def _chunks_of(values: list[ChunkValues]) -> list[Chunk]:
    return [Chunk(*v) for v in values]


def _encode_stripe(stripe: _Stripe) -> tuple[object, ...]:
    """A stripe as plain values (:mod:`.cold_store`)."""
    members = [
        (m.kind, m.held_mb, m.starts_mb, m.ends_mb, [_chunk_values(c) for c in m.pieces])
        for m in stripe.members
    ]
    return (stripe.scheme.data, stripe.scheme.parity, stripe.shares, members)


def _decode_stripe(values: tuple[Any, ...]) -> _Stripe:
    data, parity, shares, members = values
    return _Stripe(
        Scheme(data, parity),
        [
            _Member(kind, _chunks_of(pieces), starts, ends, held)
            for kind, held, starts, ends, pieces in members
        ],
        shares,
    )


def _encode_entry(entry: _Entry) -> tuple[object, ...]:
    """A file's layout as plain values (:mod:`.cold_store`)."""
    f = entry.file
    spans = [(s.stripe, s.own, s.lo_mb, s.hi_mb) for s in entry.spans]
    file = (f.id, f.size_mb, f.scheme.data, f.scheme.parity, f.data_ratio, f.ec_ratio)
    return (file, entry.policy, spans, entry.first)


def _decode_entry(values: tuple[Any, ...]) -> _Entry:
    (file_id, size_mb, data, parity, data_ratio, ec_ratio), policy, spans, first = values
    file = FileSpec(file_id, size_mb, Scheme(data, parity), data_ratio, ec_ratio)
    return _Entry(file, policy, tuple(RowSpan(*span) for span in spans), first)


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
        self._cold = ColdStore()
        """What the catalogue keeps on disk: stripes and layouts used least recently, the
        pieces of closed tapes (none until a cache overflows or a tape closes)."""
        self._stripes: HotCache[int, _Stripe] = HotCache(
            self._cold, "stripe", HOT_STRIPES, _encode_stripe, _decode_stripe
        )
        self._stripe_count = 0
        self._files: HotCache[str, _Entry] = HotCache(
            self._cold, "entry", HOT_FILES, _encode_entry, _decode_entry
        )
        self._file_count = 0
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
        t = self._tape(tape_id)
        stored = [v for run in range(t.stored) for v in self._cold.get("tape", f"{tape_id}/{run}")]
        return (*_chunks_of(stored), *t.pieces)

    def close_tape(self, tape_id: str, *, full: bool = False) -> None:
        """Append nothing more to a tape; ``full`` when it is closed because a write did not fit.

        Its pieces then wait on disk, where :meth:`tape_pieces` reads them, unless they are
        few (:data:`CLOSED_PIECES_HOT`).
        """
        t = self._tape(tape_id)
        t.closed = True
        t.full = t.full or full
        if len(t.pieces) > CLOSED_PIECES_HOT:
            self._store_pieces(t, len(t.pieces))

    def _store_pieces(self, t: _Tape, count: int) -> None:
        """Send the first ``count`` pieces in memory of ``t`` to disk, a run of them."""
        self._cold.put("tape", f"{t.id}/{t.stored}", [_chunk_values(c) for c in t.pieces[:count]])
        del t.pieces[:count]
        t.stored += 1

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
        number = self._stripe_count
        self._stripes.put(number, _Stripe(scheme, [_Member(k) for k in kinds], shares))
        self._stripe_count = number + 1
        return number

    def _stripe(self, stripe: int) -> _Stripe:
        found = self._stripes.get(stripe) if 0 <= stripe < self._stripe_count else None
        if found is None:
            raise KeyError(f"stripe {stripe!r} is not in the catalogue")
        return found

    def _member(self, stripe: int, member: int) -> _Member:
        members = self._stripe(stripe).members
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
        self._stripes.changed(stripe)
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
            if len(t.pieces) > TAPE_PIECES_HOT:
                self._store_pieces(t, len(t.pieces) - 1)  # the last one may be joined to
        return piece

    def hold(self, stripe: int, member: int, held_mb: float) -> None:
        """Set the host MB of a member held on a mover's disk, past what is on tape."""
        if not (math.isfinite(held_mb) and held_mb >= 0):
            raise ValueError(f"held_mb must be >= 0, got {held_mb!r}")
        self._member(stripe, member).held_mb = held_mb
        self._stripes.changed(stripe)

    # Files

    def record(self, file: FileSpec, policy: str, rows: Sequence[RowSpan]) -> None:
        """Make ``rows`` the layout of ``file``, replacing any earlier one."""
        if not rows:
            raise ValueError(f"file {file.id!r}: a layout needs at least one row")
        for span in rows:
            stripe = self._stripe(span.stripe)
            if stripe.scheme != file.scheme:
                raise ValueError(
                    f"file {file.id!r} is {file.scheme} but stripe {span.stripe} is {stripe.scheme}"
                )
            if not all(0 <= i < file.scheme.width for i in span.own):
                raise IndexError(f"stripe {span.stripe} has no member among {span.own}")
        before = self._files.get(file.id)
        if before is None:
            first, self._file_count = self._file_count, self._file_count + 1
        else:
            first = before.first
        self._files.put(file.id, _Entry(file, policy, tuple(rows), first))

    def _entry(self, file_id: str) -> _Entry:
        entry = self._files.get(file_id)
        if entry is None:
            raise KeyError(f"file {file_id!r} is not in the catalogue")
        return entry

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
        ranked = sorted((entry.first, entry.file.id) for entry in self._files.values())
        return (file_id for _, file_id in ranked)

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
            stripe = self._stripe(span.stripe)
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
        for number in range(self._stripe_count):
            stripe = self._stripe(number)
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
