"""What every archival policy offers the platform, and the writing streams they keep.

A policy is pure layout (:mod:`simulator.storage.files`): it turns a read into the
extents to stream, and a write into the extents it appends, recording them
in the :class:`~simulator.storage.catalogue.Catalogue`. Writes go through a
:class:`Group`, an open writing stream: consecutive writes of the same type
(the policy that lays them out and their resiliency scheme, as the paper's
requests are typed) append to the same tapes, as the paper's I/O processes
keep their tapes loaded between requests. The platform keeps one open group
per type and process, passes it back to the next write of that type, and
closes it when the stream ends.

The five policies are :mod:`.single` (one copy of each file on one tape, a plain
recall site's default), :mod:`.rait`, :mod:`.parallel`, :mod:`.vertical` and
:mod:`.hetero`, which import this module; :mod:`.policy_registry` names them.

Degraded reads
    A read may be told tapes that cannot be read now (lost, unreadable, or
    not mountable). Row by row of the file's layout, a member is *touched*
    when one of its pieces lies on such a tape. A row with more than ``Y``
    touched members cannot be rebuilt: the read raises
    :class:`Unrecoverable`. A row whose members the normal read takes are
    all untouched is read as usual; otherwise the read takes ``X``
    untouched members over the row's positions, those the normal read
    takes first, then the row's other untouched members in member order
    (data, then parity), and the erasure code rebuilds the rest. Parity
    held on a mover's disk is untouched and read from disk (no extent).
    :func:`read_phases` does this for RAIT, PARALLEL and VERTICAL, which
    differ only in what their normal read takes, hence in the extra mounts
    a lost tape costs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import ClassVar, Protocol, TypeVar, runtime_checkable

from attrs import define, field, frozen

from tapesched.simulator.storage.catalogue import Catalogue
from tapesched.simulator.storage.catalogue_records import TOLERANCE_MB, Chunk, FileLayout, Row
from tapesched.simulator.storage.files import Extent, FileSpec, JobSpec, Phase, Scheme

GroupType = tuple[str, Scheme]
"""The policy that lays a write out, and its scheme: writes of one type share groups."""


@define
class Group:
    """An open writing stream: the tapes it appends to and what its policy remembers.

    Attributes
    ----------
    policy
        Name of the policy that writes it (for HETERO, the one it chose:
        ``"vertical"`` or ``"parallel"``).
    scheme
        Resiliency scheme of every file written to it.
    tapes
        The tapes open for appending, one per drive of the write width
        (entry ``i`` for the job's drive ``i``); empty until a write needs
        tapes, and between VERTICAL parity groups.
    disk_mb
        Parity held on the mover's disk (VERTICAL, until its data tapes
        are full); 0 for the others.
    state
        The policy's own state (RAIT's rotation, VERTICAL's parity group).
    closed
        Closed by :meth:`Policy.close`; no more writes.
    """

    policy: str
    scheme: Scheme
    tapes: tuple[str, ...] = ()
    disk_mb: float = 0.0
    state: object = None
    closed: bool = False

    @property
    def type(self) -> GroupType:
        """``(policy, scheme)``."""
        return (self.policy, self.scheme)


class Policy(Protocol):
    """An archival policy: how a file's data and parity are laid out on tapes."""

    @property
    def name(self) -> str:
        """Registry name, also recorded in the catalogue for each file it writes."""
        ...

    def write_width(self, file: FileSpec) -> int:
        """Drives a write of ``file`` needs."""
        ...

    def read_width(self, catalogue: Catalogue, file_id: str) -> int:
        """Drives a read of the file needs, as it was written."""
        ...

    def stream_of(self, file: FileSpec) -> str:
        """Name of the policy laying a write of ``file`` out (its group's :attr:`Group.policy`)."""
        ...

    def write_memory_mb(self, file: FileSpec) -> float:
        """Mover memory a write of ``file`` holds (known before it is planned)."""
        ...

    def stream_disk_mb(self, file: FileSpec, tape_capacity_mb: float) -> float:
        """Mover disk a stream of ``file``'s type keeps while it is open (0: none).

        A stream that keeps disk is tied to the mover it was opened on.
        """
        ...

    def plan_read(
        self, catalogue: Catalogue, file_id: str, unavailable: Collection[str] = frozenset()
    ) -> JobSpec:
        """The extents to read, in order, to get the file back; changes nothing.

        ``unavailable`` are tapes that cannot be read now: the plan reads
        none of them, and rebuilds what they hold from the surviving members
        of each row (see "Degraded reads" above). With none of the file's
        tapes among them, the plan is the normal one.

        Raises
        ------
        KeyError
            When the file is not in the catalogue.
        Unrecoverable
            When more than ``Y`` members of a row of the file lie on
            unavailable tapes.
        ValueError
            When another policy wrote it.
        """
        ...

    def plan_write(
        self, catalogue: Catalogue, file: FileSpec, group: Group | None, library: str
    ) -> tuple[JobSpec, Group]:
        """Lay ``file`` out after what ``group`` wrote (a new group when None); plan and group.

        Records the layout in the catalogue, opening tapes in ``library``
        when the group has none or they fill. The group returned (the one
        given, updated) is for the next write of the same type.

        Raises
        ------
        ValueError
            When ``group`` is closed or of another type, or a block does not
            fit on an empty tape.
        """
        ...

    def close(self, catalogue: Catalogue, group: Group) -> JobSpec | None:
        """End a stream: what is left to write (VERTICAL's parity), or None."""
        ...


@runtime_checkable
class OneScheme(Protocol):
    """A policy that writes some schemes only (SINGLE: ``1+0``); the others write any."""

    def scheme_problem(self, scheme: Scheme) -> str | None:
        """Why the policy cannot write ``scheme``, in one line; ``None`` when it can."""
        ...


def scheme_problem(policy: object, scheme: Scheme) -> str | None:
    """Why ``policy`` cannot write ``scheme`` (a :class:`OneScheme`'s answer); else ``None``."""
    return policy.scheme_problem(scheme) if isinstance(policy, OneScheme) else None


class Unrecoverable(ValueError):
    """A file that cannot be read: more than ``Y`` members of one of its rows are unavailable.

    Parameters
    ----------
    file_id
        The file.
    row
        Index of the first row of the file's layout that cannot be rebuilt.
    touched
        Members of that row with a piece on an unavailable tape.
    parity
        The scheme's ``Y``: how many members of a row the code rebuilds.
    """

    def __init__(self, file_id: str, row: int, touched: int, parity: int) -> None:
        super().__init__(
            f"file {file_id!r} cannot be read: row {row} has {touched} members on "
            f"unavailable tapes, more than the {parity} its scheme rebuilds (Y = {parity})"
        )
        self.file_id = file_id
        self.row = row
        self.touched = touched
        self.parity = parity

    def __reduce__(self) -> tuple[type[Unrecoverable], tuple[str, int, int, int]]:
        """Pickle with the constructor's arguments (a run's results cross processes)."""
        return (type(self), (self.file_id, self.row, self.touched, self.parity))


def preload(
    catalogue: Catalogue,
    policy: Policy,
    files: Iterable[FileSpec],
    library: str,
    own_tapes: bool = False,
) -> None:
    """Write ``files`` at time zero, untimed, with the policy's own layout, and close the groups.

    A simulation then starts with an archive to read from. Files of one
    type share a group, as consecutive writes do; with ``own_tapes`` each
    file gets a group, hence tapes, of its own (Golubchik's library, where
    no two requests share a tape and a file never spans a tape's end).
    """
    groups: dict[GroupType, Group] = {}
    for file in files:
        key = group_type(policy, file)
        _, group = policy.plan_write(catalogue, file, groups.get(key), library)
        if own_tapes:
            policy.close(catalogue, group)
        else:
            groups[key] = group
    for group in groups.values():
        policy.close(catalogue, group)


def group_type(policy: Policy, file: FileSpec) -> GroupType:
    """Type of the group a write of ``file`` appends to: ``(policy.stream_of(file), scheme)``."""
    return (policy.stream_of(file), file.scheme)


# Helpers shared by the policies.


def writable_group(
    catalogue: Catalogue,
    library: str,
    group: Group | None,
    policy: str,
    scheme: Scheme,
    state: Callable[[], object],
) -> Group:
    """``group``, checked to take a write of this type, or a new one with ``state()``.

    The library is checked too, before anything is written.
    """
    if library not in catalogue.libraries:
        raise ValueError(f"unknown library {library!r}; the libraries are {catalogue.libraries}")
    if group is None:
        return Group(policy, scheme, state=state())
    if group.closed:
        raise ValueError(f"the {group.policy} {group.scheme} group is closed")
    if group.type != (policy, scheme):
        raise ValueError(
            f"a {policy} {scheme} write cannot go to a {group.policy} {group.scheme} group"
        )
    return group


def close_tapes(catalogue: Catalogue, group: Group, policy: str) -> None:
    """Close the group's open tapes and the group (what RAIT and PARALLEL do at a stream's end)."""
    if group.policy != policy:
        raise ValueError(f"{policy} cannot close a {group.policy} {group.scheme} group")
    if group.closed:
        raise ValueError(f"the {group.policy} {group.scheme} group is closed")
    for tape in group.tapes:
        catalogue.close_tape(tape)
    group.tapes = ()
    group.closed = True


def check_written_by(catalogue: Catalogue, file_id: str, policy: str) -> None:
    """Raise unless ``policy`` wrote the file's current version."""
    writer = catalogue.writer(file_id)
    if writer != policy:
        raise ValueError(f"file {file_id!r} was written by {writer}, not {policy}")


def written_layout(catalogue: Catalogue, file_id: str, policy: str) -> FileLayout:
    """The file's layout, once checked to be ``policy``'s (what a read plan starts from)."""
    check_written_by(catalogue, file_id, policy)
    return catalogue.layout(file_id)


def read_phases(
    layout: FileLayout,
    wanted: Callable[[Row], Sequence[int]],
    unavailable: Collection[str] = frozenset(),
) -> tuple[Phase, ...]:
    """The phases reading ``layout``: members ``wanted(row)`` of each row, around ``unavailable``.

    Column ``i`` of a row's phases reads member ``wanted(row)[i]``, a phase
    per piece of it (``None`` once a member has no more). A row whose wanted
    members lie on no unavailable tape is read so, and with no unavailable
    tape the phases are the policy's normal read. Otherwise (see "Degraded
    reads" above) the row reads ``X`` untouched members: its untouched
    wanted members stay in their columns, and the row's other untouched
    members, in member order, take the touched ones' columns, then new
    columns, until ``X`` are read (RAIT wants every member: its untouched
    ones are already at least ``X``, so it only leaves the touched ones
    out). Every phase is as wide as the widest row; narrower rows read
    ``None`` in the columns past theirs.

    Raises
    ------
    Unrecoverable
        At the first row with more than ``Y`` members touched.
    """
    scheme = layout.file.scheme
    lost = frozenset(unavailable)
    rows: list[tuple[Row, list[int | None]]] = []
    for r, row in enumerate(layout.rows):
        columns: list[int | None] = list(wanted(row))
        if lost:
            touched = {
                i for i, m in enumerate(row.members) if any(p.tape in lost for p in m.pieces)
            }
            if len(touched) > scheme.parity:
                raise Unrecoverable(layout.file.id, r, len(touched), scheme.parity)
            if touched.intersection(columns):
                columns = _rebuilding(columns, touched, scheme.data, len(row.members))
        rows.append((row, columns))
    width = max(len(columns) for _, columns in rows)
    phases: list[Phase] = []
    for row, columns in rows:
        members = [None if c is None else row.members[c] for c in columns]
        members += [None] * (width - len(members))
        depth = max((len(m.pieces) for m in members if m is not None), default=0)
        phases.extend(
            tuple(None if m is None or p >= len(m.pieces) else extent(m.pieces[p]) for m in members)
            for p in range(depth)
        )
    return tuple(phases)


def _rebuilding(
    columns: Sequence[int | None], touched: Collection[int], data: int, members: int
) -> list[int | None]:
    """The columns of a row rebuilding its touched wanted members from ``data`` untouched ones."""
    kept: list[int | None] = [None if c in touched else c for c in columns]
    need = max(0, data - sum(1 for c in kept if c is not None))
    spare = iter([i for i in range(members) if i not in touched and i not in columns][:need])
    for k, c in enumerate(kept):
        if c is None:
            kept[k] = next(spare, None)
    kept.extend(spare)
    return kept


def without_parity(file_id: str, extents: Iterable[Extent], unavailable: Collection[str]) -> None:
    """Raise :class:`Unrecoverable` when a file with no parity has an extent on an unavailable tape.

    For the plans made straight from a listed archive (a trace's, an
    HSM's), one row with a data member per extent and ``Y = 0``.
    """
    if unavailable:
        touched = sum(1 for e in extents if e.tape in unavailable)
        if touched:
            raise Unrecoverable(file_id, 0, touched, 0)


def open_tapes(catalogue: Catalogue, group: Group, library: str, width: int) -> tuple[str, ...]:
    """The group's tapes open for appending: ``width`` new ones in ``library`` when it has none."""
    if not group.tapes:
        group.tapes = tuple(catalogue.new_tape(library) for _ in range(width))
    return group.tapes


def append_members(
    catalogue: Catalogue,
    file: FileSpec,
    stripe: int,
    tapes: Sequence[str],
    amounts: Sequence[tuple[float, float, int]],
    *,
    merge: bool = False,
) -> Phase:
    """Append what each member of ``stripe`` gets to its tape; the phase streaming it.

    ``amounts`` gives, for member ``d`` (written to ``tapes[d]``), its data
    and parity host MB and its blocks; a member given nothing has no extent
    (``None``) in the phase. Tape MB are host MB over the file's data and
    parity ratios; ``merge`` as in :meth:`~simulator.storage.catalogue.Catalogue.append`.
    """
    phase: list[Extent | None] = []
    for d, (data_host, ec_host, blocks) in enumerate(amounts):
        if data_host == 0 and ec_host == 0:
            phase.append(None)
            continue
        piece = catalogue.append(
            stripe,
            d,
            tapes[d],
            data_host_mb=data_host,
            data_tape_mb=data_host / file.data_ratio,
            ec_host_mb=ec_host,
            ec_tape_mb=ec_host / file.ec_ratio,
            blocks=blocks,
            merge=merge,
        )
        phase.append(extent(piece))
    return tuple(phase)


def check_block(block_mb: float, catalogue: Catalogue) -> None:
    """Raise unless a block fits on an empty tape (else a write could never progress)."""
    if block_mb > catalogue.capacity_mb:
        raise ValueError(
            f"block_mb {block_mb!r} is larger than a tape ({catalogue.capacity_mb!r} MB)"
        )


S = TypeVar("S")


def state_of(group: Group, kind: type[S], policy: str) -> S:
    """``group``'s policy state, checked to be ``kind`` (the group was opened by ``policy``).

    Raises
    ------
    ValueError
        When another policy opened the group.
    """
    if not isinstance(group.state, kind):
        raise ValueError(f"the {group.policy} {group.scheme} group was not opened by {policy}")
    return group.state


def check_block_mb(_: object, attribute: object, value: float) -> None:
    """attrs validator: a block size is a positive finite number."""
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{getattr(attribute, 'name', 'value')} must be > 0, got {value!r}")


@frozen
class Striped:
    """What RAIT and PARALLEL share: blocks of ``block_mb`` host MB, ``X + Y`` drives
    to write, and a row of blocks with its parity, ``(X + Y) B``, in the mover's memory."""

    block_mb: float = field(validator=check_block_mb)
    name: ClassVar[str] = ""
    reads_parity: ClassVar[bool] = True
    """Whether a read streams the parity tapes too (RAIT), or the data tapes only (PARALLEL)."""

    def write_width(self, file: FileSpec) -> int:
        """``X + Y``."""
        return file.scheme.width

    def read_width(self, catalogue: Catalogue, file_id: str) -> int:
        """``X + Y`` when a read streams the parity too, else ``X``."""
        check_written_by(catalogue, file_id, self.name)
        scheme = catalogue.file(file_id).scheme
        return scheme.width if self.reads_parity else scheme.data

    def writable(
        self,
        catalogue: Catalogue,
        file: FileSpec,
        group: Group | None,
        library: str,
        state: Callable[[], object],
    ) -> Group:
        """The group a write of ``file`` goes to (see :func:`writable_group`), the block checked."""
        check_block(self.block_mb, catalogue)
        return writable_group(catalogue, library, group, self.name, file.scheme, state)

    def close(self, catalogue: Catalogue, group: Group) -> JobSpec | None:
        """Close the group's tapes: each row took its parity with it, nothing is left to write."""
        close_tapes(catalogue, group, self.name)
        return None

    def stream_of(self, file: FileSpec) -> str:
        """The policy's own name: it writes every file itself."""
        return self.name

    def write_memory_mb(self, file: FileSpec) -> float:
        """``(X + Y) B``: a row of blocks and its parity."""
        return file.scheme.width * self.block_mb

    def stream_disk_mb(self, file: FileSpec, tape_capacity_mb: float) -> float:
        """0: the parity is computed in memory."""
        return 0.0

    def files_per_slot(self, scheme: Scheme) -> int:
        """1: a file is striped over every member of its set."""
        return 1

    def longest_run_mb(self, scheme: Scheme, size_mb: float) -> float:
        """Host MB of the longest run of blocks a member holds of a file of ``size_mb``."""
        count, _ = blocks_of(size_mb, self.block_mb)
        return math.ceil(count / scheme.data) * self.block_mb


def blocks_of(size_mb: float, block_mb: float) -> tuple[int, float]:
    """Blocks of ``block_mb`` a file of ``size_mb`` makes, and the host MB of the last one.

    A size that is a whole number of blocks up to rounding (``0.9 / 0.3``)
    makes that number of blocks, not one more of a few bytes, and the last
    block is never longer than ``block_mb``: with :func:`check_block`, any
    block fits on an empty tape, so every write progresses.
    """
    count = max(1, math.ceil(size_mb / block_mb))
    last = size_mb - (count - 1) * block_mb
    if count > 1 and last <= 1e-9 * block_mb:
        count -= 1
        last = block_mb
    return count, min(last, block_mb)


def fits(tape_mb: float, free_mb: float) -> bool:
    """Whether ``tape_mb`` fits in ``free_mb``, up to :data:`TOLERANCE_MB`."""
    return tape_mb <= free_mb + TOLERANCE_MB


def most_fitting(limit: int, tape_mb: Callable[[int], float], free_mb: float) -> int:
    """The largest ``n <= limit`` whose ``tape_mb(n)`` fits in ``free_mb`` (nondecreasing in n)."""
    lo, hi = 0, limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(tape_mb(mid), free_mb):
            lo = mid
        else:
            hi = mid - 1
    return lo


def extent(piece: Chunk) -> Extent:
    """The extent streaming ``piece``."""
    return Extent(
        piece.tape, piece.offset_mb, piece.tape_mb, piece.host_mb, piece.blocks, piece.kind
    )
