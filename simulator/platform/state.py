"""What the platform keeps during a run: each drive, each mover, each job, each transfer.

Plain mutable records (a run changes them millions of times; a drive's and a mover's with
``__slots__``, a job's with its defaults on its class, as one is made for every request),
kept by :class:`~simulator.platform.platform.Platform`: a :class:`DriveState` per
drive (its tape, head, reservations and busy time), a :class:`MoverState` per
mover node (memory, disk and bandwidth in use), a :class:`Job` per plan being
carried out, and a :class:`Transfer` per phase streamed, for the exported
schedule; :data:`ArmRecord` is an arm operation done.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence

from tapesched.simulator.platform.spec import DriveSpec, MoverSpec
from tapesched.simulator.storage.files import Extent, JobSpec, Phase


class DriveState:
    """A drive during a run."""

    __slots__ = (
        "busy",
        "busy_s",
        "empty_idle",
        "expected_free_s",
        "head_mb",
        "id",
        "index",
        "job",
        "library",
        "model",
        "mover",
        "reserved",
        "since_s",
        "spec",
        "streaming_until_s",
        "tape",
        "tries",
    )

    def __init__(self, spec: DriveSpec, index: int, library: int, mover: int) -> None:
        self.spec = spec
        self.id = spec.id
        self.index = index
        self.library = library
        self.mover = mover
        self.model = spec.model
        self.tape: str | None = None
        self.head_mb = 0.0
        self.busy = False
        self.reserved: deque[str] = deque()
        self.busy_s = 0.0
        self.since_s = 0.0
        self.streaming_until_s = 0.0
        self.expected_free_s = 0.0
        self.empty_idle = False
        """Idle and holding no tape (counted per mover)."""
        self.job: Job | None = None
        """The job it works for (``None``: none, or a put-away of its own)."""
        self.tries = 0
        """Failed tries of the mount or dismount it is making (faults)."""


class MoverState:
    """A mover during a run: its drives (indices), memory, disk and bandwidth in use."""

    __slots__ = (
        "bandwidth_mb_s",
        "disk_mb",
        "drives",
        "empty_idle",
        "idle",
        "library",
        "memory_mb",
        "spec",
        "streaming_mb_s",
    )

    def __init__(self, spec: MoverSpec) -> None:
        self.spec = spec
        self.drives: list[int] = []
        self.idle = 0
        self.empty_idle = 0
        """Its idle drives holding no tape."""
        self.library = -1
        self.disk_mb = 0.0
        self.memory_mb = 0.0
        self.streaming_mb_s = 0.0
        self.bandwidth_mb_s = spec.bandwidth_mb_s


class Job:
    """A plan being carried out on drives (indices, one per plan column).

    Every field but its key, plan, drives, phases and callbacks starts at its class's value
    (a job is made for every request).
    """

    held = 0
    """Drives granted and not let go yet (a job begun before its drives, one-at-a-time)."""
    phase = 0
    ready = 0
    mounts = 0
    mover = -1
    stream_mb_s = 0.0
    first_stream_s: float | None = None
    """When its first phase began to stream: every tape ready, located (latencies)."""
    stoppable = False
    """Whether a mount given up or a tape found unreadable stops it (a read: it can be
    planned again around the tape); otherwise its mounts are tried until they succeed."""
    stopped: str | None = None
    """Why it stopped before its data was done (faults): ``done`` is then called early."""
    unavailable: tuple[str, ...] = ()
    """Tapes it could not read: a mount given up, or a tape found unreadable."""

    def __init__(
        self,
        key: str,
        plan: JobSpec,
        drives: Sequence[int],
        data_done: Callable[[Job], None],
        done: Callable[[Job], None],
    ) -> None:
        self.key = key
        self.plan = plan
        self.drives: Sequence[int] = tuple(drives)
        self.phases: tuple[Phase, ...] = plan.phases + plan.flush
        self.data_done = data_done
        self.done = done


class Transfer:
    """One phase streamed: for the export and the records."""

    __slots__ = ("drives", "end_s", "extents", "flush", "key", "phase", "start_s", "streamed_mb")

    def __init__(
        self,
        key: str,
        phase: int,
        flush: bool,
        drives: tuple[str, ...],
        extents: tuple[Extent, ...],
        streamed_mb: tuple[float, ...],
        start_s: float,
        end_s: float,
    ) -> None:
        self.streamed_mb = streamed_mb
        self.key = key
        self.phase = phase
        self.flush = flush
        self.drives = drives
        self.extents = extents
        self.start_s = start_s
        self.end_s = end_s


class TapesSeen:
    """The distinct tape ids seen, counted, in little memory: a run over an archive of half a
    million tapes mounts most of them.

    Up to :data:`PLAIN_UP_TO` ids are kept as they are, in a set; past that, an id made of
    letters and a number below :data:`NUMBERED_UP_TO` (``T000123``, ``L90042``) is a bit in
    a bitmap of its letters and its digits' count, and any other id stays in the set.

    >>> seen = TapesSeen()
    >>> for tape in ("A000001", "A000001", "A01", "tape-x", "tape-x"):
    ...     seen.add(tape)
    >>> len(seen), "A01" in seen, "A001" in seen
    (3, True, False)
    """

    __slots__ = ("_bits", "_count", "_others")

    def __init__(self) -> None:
        self._bits: dict[tuple[str, int], bytearray] | None = None
        """The bitmaps, once the set outgrew :data:`PLAIN_UP_TO` (``None`` until then)."""
        self._others: set[str] = set()
        self._count = 0

    @staticmethod
    def _numbered(tape: str) -> tuple[tuple[str, int], int]:
        """The key of ``tape``'s bitmap and its bit (-1: it is kept as it is)."""
        letters = tape.rstrip("0123456789")
        start = len(letters)
        if start == len(tape) or not letters.isalpha():
            return ("", 0), -1
        number = int(tape[start:])
        return (letters, len(tape) - start), number if number < NUMBERED_UP_TO else -1

    def add(self, tape: str) -> None:
        """Note ``tape`` (again, maybe)."""
        if self._bits is None:
            others = self._others
            if tape not in others:
                others.add(tape)
                self._count += 1
                if self._count > PLAIN_UP_TO:
                    self._to_bits()
            return
        key, number = self._numbered(tape)
        if number < 0:
            if tape not in self._others:
                self._others.add(tape)
                self._count += 1
            return
        bits = self._bits.get(key)
        if bits is None:
            bits = self._bits[key] = bytearray()
        byte = number >> 3
        if byte >= len(bits):
            bits.extend(bytes(byte + 1 - len(bits)))
        mask = 1 << (number & 7)
        if not bits[byte] & mask:
            bits[byte] |= mask
            self._count += 1

    def _to_bits(self) -> None:
        """Move the numbered ids of the set to bitmaps."""
        plain, self._others, self._bits, self._count = self._others, set(), {}, 0
        for tape in plain:
            self.add(tape)

    def __contains__(self, tape: str) -> bool:
        if self._bits is None:
            return tape in self._others
        key, number = self._numbered(tape)
        if number < 0:
            return tape in self._others
        bits = self._bits.get(key)
        byte = number >> 3
        return bits is not None and byte < len(bits) and bool(bits[byte] & 1 << (number & 7))

    def __len__(self) -> int:
        return self._count


PLAIN_UP_TO = 65_536
"""Distinct tapes :class:`TapesSeen` keeps as plain ids (some 100 bytes each) before it moves
them to bitmaps."""

NUMBERED_UP_TO = 1 << 24
"""The largest number (exclusive) of an id :class:`TapesSeen` keeps as a bit (a bitmap of 2 MB
at most for one prefix)."""


ArmRecord = tuple[str, str, str, float, float, str]
"""An arm operation done: ``(op, tape, drive, start_s, end_s, library)``."""
