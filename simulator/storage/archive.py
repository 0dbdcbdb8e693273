"""The archive at time 0 at the paper's scale, laid out lazily from the seed.

The Blue Waters paper simulates "the maximum capacity of the Blue Waters
archival storage (0.5 Exabytes)": 500,000 tapes of 1 TB (Section 3.1).
Half a million tape objects and the hundreds of millions of files they hold
are never built: a file and its placement are computed when a request
names it, from ``(seed, file number)`` alone, so the same seed gives the
same archive and a run touches only the files it reads.

How the archive is laid out
    Files are drawn like the workload's new files (its sizes, Table 1's
    schemes, ``C_D`` and ``C_P``) and written by the policy in force, as it
    says itself (:mod:`simulator.storage.archive_layout`): each
    *region* of the archive holds the files of one writer (VERTICAL,
    PARALLEL or RAIT; HETERO's VERTICAL below its threshold and PARALLEL
    above) and one scheme, in proportion to the scheme's probability and to
    the share of log-uniform sizes on the writer's side of the threshold.
    A region is made of identical *sets* of tapes, one per member of the
    scheme (a VERTICAL parity group: ``X`` data tapes and ``Y`` parity
    tapes; a PARALLEL or RAIT group: ``X + Y`` tapes), each member's tapes
    cut into equal *slots* as long as the member's share of the largest
    file of the region (a member longer than a tape spans several tapes, a
    file per set). A file lies in one slot, at the slot's start, on every
    member it has: under VERTICAL its data on one data tape in contiguous
    blocks, the window over the group's other data tapes and the parity at
    the same slot; under PARALLEL a contiguous run on each of ``X`` data
    tapes and the row parity on ``Y``; under RAIT its rows rotated over
    ``X + Y`` tapes (the rotation begins at the slot number). What a slot
    holds past its file is data not read in the run: rewritten or deleted
    files, whose bytes stay on append-only tapes (the paper cites 20-50 %
    of archived data deleted).

    Archive tapes are ``A000000``, ``A000001``, ... (the run's new tapes
    are ``T000001``, ...), full and read-only: new writes, rewrites of
    archive files included, go to fresh tapes as in any run. Set ``g`` of
    the archive lies in library ``g mod L`` of the ``L`` libraries, so the
    files spread evenly over three libraries joined by pass-through.

Which files requests name
    Archive files are ``a0, a1, ...``; a read or a rewrite picks one by the
    archive's popularity: ``uniform`` (every file alike) or ``zipf`` (file
    of popularity rank ``r`` with probability proportional to
    ``r^-exponent``, ranks shuffled over the archive by a seeded affine
    permutation so that popular files lie on unrelated tapes). Files the
    run itself created are picked uniformly, in proportion to their number
    beside the archive's.

Everything here is a pure function of the seed and the parameters: no
global random state, and two archives with the same arguments are equal
file for file.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from random import Random
from typing import Literal

from attrs import field, frozen

from tapesched.simulator.storage.archive_layout import ArchiveLayout, SlotWriter
from tapesched.simulator.storage.catalogue_records import Chunk, FileLayout, Member, Row
from tapesched.simulator.storage.files import FileSpec, Scheme
from tapesched.simulator.storage.policies.policy import Policy

TAPE_PREFIX = "A"
"""Archive tapes are ``A000000``, ``A000001``, ..."""

FILE_PREFIX = "a"
"""Archive files are ``a0``, ``a1``, ..."""

POPULARITIES = ("uniform", "zipf")
"""How reads and rewrites pick among the archive's files."""

Popularity = Literal["uniform", "zipf"]

_MASK = (1 << 64) - 1
_TWO_64 = float(1 << 64)


def _mix(x: int) -> int:
    """SplitMix64's finaliser: a 64-bit value that looks random, from any integer."""
    x = (x + 0x9E3779B97F4A7C15) & _MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
    return x ^ (x >> 31)


def _positive_count(_: object, attribute: object, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{getattr(attribute, 'name', 'value')} must be an integer >= 1")


def _popularity(_: object, attribute: object, value: str) -> None:
    if value not in POPULARITIES:
        raise ValueError(f"popularity must be one of {', '.join(POPULARITIES)}, got {value!r}")


def _exponent(_: object, attribute: object, value: float) -> None:
    if not (math.isfinite(value) and 0 < value <= MAX_ZIPF_EXPONENT):
        raise ValueError(f"zipf_exponent must be within (0, {MAX_ZIPF_EXPONENT:g}], got {value!r}")


MAX_ZIPF_EXPONENT = 10.0
"""Past this, a Zipf popularity reads the same file over and over (rank 2 is 2^-10 as likely)."""


@frozen
class ArchiveParams:
    """What the archive at time 0 is: how many tapes, and how requests pick its files.

    Parameters
    ----------
    tapes
        Tapes of the archive, full at time 0 (500,000 in the paper).
    popularity
        ``"uniform"`` (the default) or ``"zipf"``.
    zipf_exponent
        The Zipf exponent ``s`` (rank ``r`` read with probability
        proportional to ``r^-s``); used with ``popularity="zipf"``.
    """

    tapes: int = field(validator=_positive_count)
    popularity: Popularity = field(default="uniform", validator=_popularity)
    zipf_exponent: float = field(default=1.0, validator=_exponent)


@frozen
class _Track:
    """A member's tapes in a set, cut into slots of ``slot_mb``."""

    slot_mb: float
    per_tape: int
    """Slots a tape holds (0 when a slot spans several tapes)."""
    tapes_per_slot: int
    tapes: int

    @classmethod
    def of(cls, slot_mb: float, slots: int, capacity_mb: float) -> _Track:
        if slot_mb <= capacity_mb:
            per_tape = max(1, int(capacity_mb // slot_mb))
            return cls(capacity_mb / per_tape, per_tape, 1, math.ceil(slots / per_tape))
        span = math.ceil(slot_mb / capacity_mb)
        return cls(slot_mb, 0, span, slots * span)


@frozen
class _Region:
    """Files of one writer and scheme: ``sets`` identical sets of ``set_tapes`` tapes."""

    writer: SlotWriter
    scheme: Scheme
    lo_mb: float
    hi_mb: float
    top_mb: float
    """Largest size drawn (below ``hi_mb`` when the threshold of HETERO ends the range)."""
    slots: int
    tracks: tuple[_Track, ...]
    set_tapes: int
    files_per_set: int
    sets: int = 0
    first_tape: int = 0
    first_file: int = 0
    first_set: int = 0


class Archive:
    """A lazily laid-out archive: files, their placement and their popularity, from a seed.

    Parameters
    ----------
    params
        Tapes and popularity.
    policy
        The archival policy in force: the archive is as it would have
        written the files (VERTICAL, PARALLEL, RAIT, HETERO, or any
        :class:`~simulator.storage.archive_layout.ArchiveLayout`).
    sizes_mb
        The range of file sizes (log-uniform), the workload's.
    schemes
        ``(scheme, probability)`` pairs, the workload's.
    data_ratio
        Range of ``C_D``; ``ec_ratio`` fixes ``C_P`` (``None``: drawn in ``[1, C_D]``).
    capacity_mb
        Tape capacity.
    libraries
        Library ids; set ``g`` lies in ``libraries[g % len(libraries)]``.
    seed
        The run's seed.

    Raises
    ------
    ValueError
        When the policy is not one the archive can lay out, or the tapes
        hold no set of any region.
    """

    def __init__(
        self,
        params: ArchiveParams,
        policy: Policy,
        *,
        sizes_mb: tuple[float, float],
        schemes: Sequence[tuple[Scheme, float]],
        data_ratio: tuple[float, float],
        ec_ratio: float | None,
        capacity_mb: float,
        libraries: Sequence[str],
        seed: int,
    ) -> None:
        self.params = params
        self.policy_name = policy.name
        self.capacity_mb = float(capacity_mb)
        self.libraries = tuple(libraries)
        self.data_ratio = data_ratio
        self.ec_ratio = ec_ratio
        self._key = _mix(_mix(seed & _MASK) ^ 0xA5C1_17E0)
        lo_mb, hi_mb = sizes_mb
        log_span = math.log(hi_mb / lo_mb)
        if not isinstance(policy, ArchiveLayout):
            raise ValueError(
                f"the archive is laid out by vertical, parallel, rait, hetero or a policy with "
                f"archive_sides (simulator.storage.archive_layout), not {policy.name}"
            )
        shapes: list[tuple[_Region, float]] = []
        for s in policy.archive_sides(lo_mb, hi_mb):
            writer, w_lo, w_hi, top = s.writer, s.lo_mb, s.hi_mb, s.top_mb
            side = 1.0 if log_span == 0 else math.log(w_hi / w_lo) / log_span
            for scheme, p in schemes:
                if p <= 0 or side <= 0:
                    continue
                widths = writer.member_slots_mb(scheme, top, data_ratio[0])
                slots = _Track.of(widths[0], 1, capacity_mb).per_tape or 1
                tracks = tuple(_Track.of(w, slots, capacity_mb) for w in widths)
                per_set = slots * writer.files_per_slot(scheme)
                set_tapes = sum(t.tapes for t in tracks)
                region = _Region(writer, scheme, w_lo, w_hi, top, slots, tracks, set_tapes, per_set)
                shapes.append((region, p * side))
        self._regions: list[_Region] = []
        tapes_per_file = sum(share * r.set_tapes / r.files_per_set for r, share in shapes)
        total_files = params.tapes / tapes_per_file if tapes_per_file > 0 else 0.0
        tape = file = sets = 0
        for region, share in shapes:
            count = math.floor(total_files * share / region.files_per_set)
            if count == 0:
                continue
            placed = _Region(
                region.writer, region.scheme, region.lo_mb, region.hi_mb, region.top_mb,
                region.slots, region.tracks, region.set_tapes, region.files_per_set,
                count, tape, file, sets,
            )  # fmt: skip
            self._regions.append(placed)
            tape += count * region.set_tapes
            file += count * region.files_per_set
            sets += count
        if not self._regions:
            widest = max((r.set_tapes for r, _ in shapes), default=0)
            raise ValueError(
                f"{params.tapes} tapes hold no set of the archive (the smallest takes "
                f"{min((r.set_tapes for r, _ in shapes), default=widest)} tapes)"
            )
        self.tapes_used = tape
        """Tapes the sets occupy (at most ``params.tapes``; the rest are left out)."""
        self.count = file
        """Files in the archive."""
        self._tape_starts = [r.first_tape for r in self._regions]
        self._file_starts = [r.first_file for r in self._regions]
        zipf = params.popularity == "zipf"
        self._zipf = _Zipf(self.count, params.zipf_exponent) if zipf else None
        rng = Random(self._key)
        self._stride = 1 + rng.randrange(self.count)
        while math.gcd(self._stride, self.count) != 1:
            self._stride += 1
        self._shift = rng.randrange(self.count)

    # Which file.

    def pick(self, rng: Random) -> int:
        """An archive file number drawn by the popularity, from ``rng``."""
        if self._zipf is None:
            return rng.randrange(self.count)
        rank = self._zipf.sample(rng)
        return (self._stride * (rank - 1) + self._shift) % self.count

    def file_number(self, file_id: str) -> int | None:
        """The number of archive file ``file_id`` (``None``: not an archive file)."""
        if not file_id.startswith(FILE_PREFIX):
            return None
        digits = file_id[len(FILE_PREFIX) :]
        if not digits.isdigit() or (len(digits) > 1 and digits[0] == "0"):
            return None
        k = int(digits)
        return k if k < self.count else None

    def _region(self, k: int) -> _Region:
        return self._regions[bisect_right(self._file_starts, k) - 1]

    def _uniform(self, k: int, draw: int) -> float:
        return _mix(self._key ^ _mix(k * 8 + draw)) / _TWO_64

    def file(self, k: int) -> FileSpec:
        """Archive file ``k``: its size, scheme and compression ratios."""
        region = self._region(k)
        lo, top = region.lo_mb, region.top_mb
        size_mb = min(top, max(lo, lo * math.exp(self._uniform(k, 0) * math.log(top / lo))))
        cd_lo, cd_hi = self.data_ratio
        data_ratio = min(cd_hi, cd_lo + self._uniform(k, 1) * (cd_hi - cd_lo))
        if self.ec_ratio is None:
            ec_ratio = min(data_ratio, 1.0 + self._uniform(k, 2) * (data_ratio - 1.0))
        else:
            ec_ratio = self.ec_ratio
        return FileSpec(f"{FILE_PREFIX}{k}", size_mb, region.scheme, data_ratio, ec_ratio)

    def writer(self, k: int) -> str:
        """Name of the policy that wrote archive file ``k``."""
        return self._region(k).writer.name

    # Where it lies.

    def tape_library(self, tape_id: str) -> str | None:
        """Library of archive tape ``tape_id`` (``None``: not an archive tape)."""
        if not tape_id.startswith(TAPE_PREFIX) or not tape_id[1:].isdigit():
            return None
        t = int(tape_id[1:])
        if t >= self.tapes_used:
            return None
        region = self._regions[bisect_right(self._tape_starts, t) - 1]
        set_index = region.first_set + (t - region.first_tape) // region.set_tapes
        return self.libraries[set_index % len(self.libraries)]

    def files_on(self, tape_id: str) -> range:
        """Archive files of the set ``tape_id`` belongs to: every file that may have bytes
        (its own, or its group's parity or window) on it; empty for no archive tape."""
        if self.tape_library(tape_id) is None:
            return range(0)
        t = int(tape_id[1:])
        region = self._regions[bisect_right(self._tape_starts, t) - 1]
        first = region.first_file + (t - region.first_tape) // region.set_tapes * (
            region.files_per_set
        )
        return range(first, first + region.files_per_set)

    def layout(self, k: int) -> tuple[FileLayout, int]:
        """Archive file ``k``'s layout, and the members its rows' parity is shared by."""
        region = self._region(k)
        spec = self.file(k)
        q = k - region.first_file
        set_index, q = divmod(q, region.files_per_set)
        base = region.first_tape + set_index * region.set_tapes
        writer = region.writer
        fill = writer.fill_slot(spec, q, region.slots)
        kinds, own = fill.kinds, fill.own
        members: list[list[Chunk]] = []
        first = base
        for m, track in enumerate(region.tracks):
            data_host, ec_host, blocks = fill.amounts[m]
            members.append(self._pieces(track, first, fill.slot, spec, data_host, ec_host, blocks))
            first += track.tapes
        if fill.one_row:
            row = Row(tuple(Member(kinds[m], tuple(p)) for m, p in enumerate(members)), own)
            return FileLayout(spec, writer.name, (row,)), fill.shares
        depth = max(len(p) for p in members)
        layout_rows = tuple(
            Row(tuple(Member(kinds[m], tuple(p[r : r + 1])) for m, p in enumerate(members)), own)
            for r in range(depth)
        )
        return FileLayout(spec, writer.name, layout_rows), fill.shares

    def _pieces(
        self,
        track: _Track,
        first_tape: int,
        slot: int,
        spec: FileSpec,
        data_host: float,
        ec_host: float,
        blocks: int,
    ) -> list[Chunk]:
        """The pieces of one member in ``slot`` of its track (tapes from ``first_tape``)."""
        if data_host == 0 and ec_host == 0:
            return []
        tape_mb = data_host / spec.data_ratio + ec_host / spec.ec_ratio
        if track.per_tape:
            tape, at = divmod(slot, track.per_tape)
            name = f"{TAPE_PREFIX}{first_tape + tape:06d}"
            offset = at * track.slot_mb
            return [Chunk(name, offset, data_host, data_host / spec.data_ratio, ec_host,
                          ec_host / spec.ec_ratio, blocks)]  # fmt: skip
        pieces = []
        left = tape_mb
        tape = first_tape + slot * track.tapes_per_slot
        while left > 1e-9 * tape_mb:
            part = min(left, self.capacity_mb)
            share = part / tape_mb
            pieces.append(
                Chunk(
                    f"{TAPE_PREFIX}{tape:06d}",
                    0.0,
                    data_host * share,
                    data_host * share / spec.data_ratio,
                    ec_host * share,
                    ec_host * share / spec.ec_ratio,
                    max(1, round(blocks * share)),
                )
            )
            left -= part
            tape += 1
        return pieces


class _Zipf:
    """Zipf ranks ``1..n`` with exponent ``s`` in O(1): rejection-inversion.

    W. Hörmann and G. Derflinger, "Rejection-inversion to generate variates
    from monotone discrete distributions", ACM TOMACS 6(3), 1996; the same
    algorithm as Apache Commons RNG's ``RejectionInversionZipfSampler``.
    """

    def __init__(self, n: int, s: float) -> None:
        self.n = n
        self.s = s
        self.h_x1 = self._h_integral(1.5) - 1.0
        self.h_n = self._h_integral(n + 0.5)
        self.cut = 2.0 - self._h_integral_inverse(self._h_integral(2.5) - self._h(2.0))

    def _h(self, x: float) -> float:
        return math.exp(-self.s * math.log(x))

    def _h_integral(self, x: float) -> float:
        log_x = math.log(x)
        return _helper2((1.0 - self.s) * log_x) * log_x

    def _h_integral_inverse(self, x: float) -> float:
        t = max(-1.0, x * (1.0 - self.s))
        return math.exp(_helper1(t) * x)

    def sample(self, rng: Random) -> int:
        """A rank."""
        while True:
            u = self.h_n + rng.random() * (self.h_x1 - self.h_n)
            x = self._h_integral_inverse(u)
            k = min(self.n, max(1, int(x + 0.5)))
            if k - x <= self.cut or u >= self._h_integral(k + 0.5) - self._h(k):
                return k


def _helper1(x: float) -> float:
    """``log1p(x) / x``, continued at 0."""
    if abs(x) > 1e-8:
        return math.log1p(x) / x
    return 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x))


def _helper2(x: float) -> float:
    """``expm1(x) / x``, continued at 0."""
    if abs(x) > 1e-8:
        return math.expm1(x) / x
    return 1.0 + x * 0.5 * (1.0 + x * (1.0 / 3.0) * (1.0 + 0.25 * x))


__all__ = ["FILE_PREFIX", "POPULARITIES", "TAPE_PREFIX", "Archive", "ArchiveParams"]
