"""What an archival policy tells the platform to do, and the files it is told about.

The archival policies (:mod:`simulator.storage.policies`) are pure layout: given the
file catalogue they say which bytes go to, or come from, which tape, and
record what they write. The platform (:mod:`simulator.platform.platform`) carries the
plans out in time, with arms, drives and movers. This module holds the types
the two sides share.

Units: sizes in MB (10^6 bytes), as in the core problem. A size "on tape" is
after the drive's hardware compression; a size "host" is what crosses the
mover (uncompressed).
"""

from __future__ import annotations

from typing import Literal

from attrs import field, frozen


def _positive_int(_: object, attribute: object, value: int) -> None:
    if value < 1:
        raise ValueError(f"{getattr(attribute, 'name', 'value')} must be >= 1, got {value!r}")


@frozen
class Scheme:
    """A resiliency scheme ``X + Y``: ``data`` blocks protected by ``parity`` erasure-code blocks.

    Any ``parity`` of the ``data + parity`` blocks of a stripe row may be
    lost and the row still be rebuilt. ``X >= 1`` and ``0 <= Y <= X``: the
    schemes of the Blue Waters paper (Table 1) protect data with at most as
    many parity blocks as data blocks, and the policies' layouts (parity
    runs as long as the longest data run, VERTICAL's parity kept on the
    mover's disk) are built for them; more parity than data is refused, not
    run.
    """

    data: int = field(validator=_positive_int)
    parity: int = field()

    @parity.validator
    def _check_parity(self, _: object, value: int) -> None:
        if value < 0:
            raise ValueError(f"parity must be >= 0, got {value!r}")
        if value > self.data:
            raise ValueError(
                f"parity must be <= data (Y <= X), got {self.data}+{value}: "
                "more parity blocks than data blocks"
            )

    @property
    def width(self) -> int:
        """``X + Y``."""
        return self.data + self.parity

    def __str__(self) -> str:
        return f"{self.data}+{self.parity}"

    @classmethod
    def parse(cls, text: str) -> Scheme:
        """A scheme from ``"X+Y"``.

        Raises
        ------
        ValueError
            When ``text`` is not two integers joined by ``+``.
        """
        parts = text.split("+")
        if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
            raise ValueError(f"a resiliency scheme is written X+Y, got {text!r}")
        return cls(int(parts[0]), int(parts[1]))


@frozen
class FileSpec:
    """An archived file: its size, resiliency scheme and compressibility.

    Attributes
    ----------
    id
        File id.
    size_mb
        Uncompressed size.
    scheme
        Resiliency scheme ``X + Y`` it is written with.
    data_ratio
        Hardware compression ratio of its data blocks (``C_D >= 1``): a
        block of ``b`` MB takes ``b / C_D`` MB of tape.
    ec_ratio
        Compression ratio of its erasure-code blocks (``1 <= C_P <= C_D``:
        parity is less compressible than data, Blue Waters paper Section 6.1).
    """

    id: str
    size_mb: float
    scheme: Scheme
    data_ratio: float = 1.0
    ec_ratio: float = 1.0

    def __attrs_post_init__(self) -> None:
        if not self.size_mb > 0:
            raise ValueError(f"file {self.id!r}: size_mb must be > 0, got {self.size_mb!r}")
        if not self.data_ratio >= 1:
            raise ValueError(f"file {self.id!r}: data_ratio must be >= 1, got {self.data_ratio!r}")
        if not 1 <= self.ec_ratio <= self.data_ratio:
            raise ValueError(
                f"file {self.id!r}: ec_ratio must be within [1, data_ratio], got {self.ec_ratio!r}"
            )


@frozen
class FileRequest:
    """A read or a write of a whole file, arriving at ``arrival_s``."""

    id: str
    arrival_s: float
    kind: Literal["read", "write"]
    file: FileSpec

    def __attrs_post_init__(self) -> None:
        if not self.arrival_s >= 0:
            raise ValueError(f"request {self.id!r}: arrival_s must be >= 0, got {self.arrival_s!r}")
        if self.kind not in ("read", "write"):
            raise ValueError(f"request {self.id!r}: kind must be read or write, got {self.kind!r}")


@frozen
class Extent:
    """Contiguous bytes of one file on one tape, read or written by one drive in one go.

    Attributes
    ----------
    tape
        Tape id.
    offset_mb
        Where the extent begins on the tape (tape space).
    tape_mb
        Tape space it takes (after compression).
    host_mb
        Bytes that cross the mover for it (before compression).
    blocks
        Number of blocks (records) it is made of; the platform charges a
        per-block cost where the policy's model has one (RAIT).
    kind
        ``"data"``, ``"ec"`` (erasure code) or ``"mixed"`` (both, interleaved:
        RAIT rotates data and parity blocks across its tapes).
    """

    tape: str
    offset_mb: float
    tape_mb: float
    host_mb: float
    blocks: int = 1
    kind: Literal["data", "ec", "mixed"] = "data"


Phase = tuple[Extent | None, ...]
"""One transfer of a job: an extent per drive of the job (``None``: that drive sits it out).

The extents of a phase stream at once and the phase ends when its longest
extent does (the drives of a gang move in lockstep, as the erasure code is
computed over a row of blocks at a time). Between phases a drive whose next
extent is on another tape switches tapes.
"""


@frozen
class JobSpec:
    """What a request asks of the platform: phases on ``width`` drives, and mover resources.

    Attributes
    ----------
    phases
        The transfers, in order; each has ``width`` entries, entry ``i``
        for the job's ``i``-th drive.
    memory_mb
        Mover memory held while the plan runs (``(X + Y) B`` for RAIT and
        PARALLEL, whose erasure code is computed in memory).
    flush
        Phases run on the same drives after the request is complete and
        before the drives are free (VERTICAL writing its parity tapes once
        its ``X`` data tapes are full).
    per_block
        Whether each block of an extent costs the drive's ``block_s`` of
        streaming (RAIT, whose drives synchronise on every row).
    """

    phases: tuple[Phase, ...]
    memory_mb: float = 0.0
    flush: tuple[Phase, ...] = ()
    per_block: bool = False

    @property
    def width(self) -> int:
        """Number of drives the plan runs on."""
        first = self.phases[0] if self.phases else (self.flush[0] if self.flush else ())
        return len(first)

    def folded(self, width: int) -> JobSpec:
        """The plan on at most ``width`` drives: a phase with more extents is read as phases of
        ``width`` of them, one after another, in column order.

        A degraded read that needs more members than its request holds drives
        (a VERTICAL file rebuilt from ``X`` tapes, on its one drive) reads
        them in turn; what is read is unchanged.

        >>> e = [Extent(t, 0.0, 1.0, 1.0) for t in "abc"]
        >>> JobSpec(((e[0], None, e[1], e[2]),)).folded(2).phases == ((e[0], e[1]), (e[2], None))
        True
        """
        if width < 1:
            raise ValueError(f"a plan needs at least one drive, got {width}")
        if self.width <= width:
            return self

        def fold(phases: tuple[Phase, ...]) -> tuple[Phase, ...]:
            out: list[Phase] = []
            for phase in phases:
                extents = [e for e in phase if e is not None]
                for k in range(0, max(len(extents), 1), width):
                    part = extents[k : k + width]
                    out.append(tuple(part) + (None,) * (width - len(part)))
            return tuple(out)

        return JobSpec(fold(self.phases), self.memory_mb, fold(self.flush), self.per_block)
