"""BNL's recall-ordering study (Yu et al., "Best practices in accessing tape-resident data").

BNL read 10 %, 50 % and 100 % of the files of a full tape (LTO-7 and IBM
TS1150 on JD media; 10 GB and 1 GB files), chosen evenly spaced (every
k-th file) or at random (``shuf -n``), and measured the throughput of
ERADAT's offset order against the drive's Recommended Access Order (RAO)
(their Tables 1-9). This module is that study on one mounted tape under a
locate model (:mod:`toolkit.hardware.tape_geometry`): no library, no mount, no
platform; the tape is mounted, the head at its beginning, and the time is
every locate plus every read at the drive's streaming rate.

What the requests in flight mean (the paper's Sections 1.2.1 and 2)
-------------------------------------------------------------------
The chosen files form a *request list* in random order (``shuf``'s, for
both spacings: nothing is assumed of the order a user asks in). A
*recall ordering* (:class:`RecallOrdering`; the series' last word, its
``policy`` in ``summary.json``) submits that list in a *submission order*
and keeps ``in_flight`` requests queued at the drive; each time a file has
been read, the drive reads next the request in flight its orderer picks
(the first of the orderer's order over the requests in flight, from the
head), and the next request of the submission order joins:

- ``none`` (HPSS "noschedule"): the list as given, 3 in flight, read first
  come first served: the list's order, the random access of the paper's
  abstract.
- ``offset`` (ERADAT): the list sorted by offset, 3 in flight ("batch
  submission size is 3"), first come first served: offset order. The
  baseline of every gain, as "No RAO" is the paper's.
- ``sltf`` (HPSS TOR with RAO): the list sorted by offset (every list of
  the paper went "to HPSS via ERADAT", Section 2), 70 in flight ("submit
  70 bulk requests ... to keep 70 requests full filled per tape"); the
  drive reads next the request in flight with the shortest locate from the
  head (CTA's SLTF under the locate model stands for RAO, whose algorithm
  IBM does not publish). Submitted unsorted, a window of 70 random
  requests would rarely hold the file next to the head, and at 100 %
  coverage SLTF would read at 18 % (1 GB files) to 75 % (10 GB) of the
  drive's rate (measured so, once): the paper saw nothing of the kind
  (its Tables 1 and 4 at 100 %).
- ``sltf-3``: RAO under ERADAT's own submission: the offset-sorted list, 3
  in flight, the shortest locate among the 3. What RAO could gain with
  the concurrency of the issue's question: SLTF may read the second or
  third of the next three in offset order first when it lies on a nearer
  wrap, which is part of what 70 in flight gain at 10 % coverage and
  little at 50 %.
- ``exact``: every request in flight (the whole list), read in the
  cheapest order (:func:`solvers.recall_order.exact_order`, an asymmetric
  TSP path, within a time limit): what no queue of HPSS reaches, the
  bound of ordering; stopped by its time limit above an order another
  ordering read, it takes that order (the cheapest known). Run up to
  :attr:`StudyConfig.exact_max_files` files; at 100 % coverage the files
  cover the tape back to back, offset order has no locate and is optimal,
  so it is the exact order without a solve.

With no per-request overhead modelled (HPSS's staging of a file, the
stop of the drive between two requests) the requests in flight matter
only for which files a drive may choose among: with first come first
served, 3 in flight read exactly the submission order.

The picks for a window of requests in flight (:data:`PICKS`) are the first
choice of the orderers of :data:`solvers.registry.ORDERERS` (tested:
with every request in flight they read the orderer's whole order), done
without the orderer's own bookkeeping, so that a window moving over 10,000
files stays linear in the window (SLTF's locates computed at once up to
:data:`MATRIX_MAX_FILES` files).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType

import numpy as np
import numpy.typing as npt
from attrs import frozen

from tapesched.simulator.results.records import Estimate, estimate
from tapesched.solvers.registry import ORDERERS
from tapesched.toolkit.hardware.tape_geometry import (
    MB,
    CtaCostHeuristic,
    LocateModel,
    PhysicalLocate,
    SerpentineTape,
    TapeFile,
)
from tapesched.toolkit.hardware.technology import TAPE_FORMATS
from tapesched.toolkit.runtime.limits import MAX_DENSE_FILES

EXPERIMENT = "bnl-coverage"
"""The experiment's name under ``tapesched experiment``."""

X_NAME = "coverage_pct"
"""The x of every point: the share of the tape's files read, in per cent."""

METRICS = ("throughput_mb_s", "gain_over_offset_pct")
"""What each point reports: bytes read over the time (locates and reads), and the gain of that
throughput over offset order on the same files, in per cent (the paper's "Gain %")."""

COVERAGES_PCT = (10.0, 50.0, 100.0)
"""The paper's coverages."""

SPACINGS = ("even", "random")
"""Every k-th file (the paper's Figure 2), or a uniform random sample (its Section 4)."""

HEAD_BLOCK = 0
"""Where the head is when the reading starts: the beginning of the tape, just mounted."""


@frozen
class TapeCase:
    """A full tape of one format written with files of one size, back to back from block 0.

    Attributes
    ----------
    format_name
        Key of :data:`toolkit.hardware.technology.TAPE_FORMATS`.
    file_mb
        Size of every file; the tape holds as many as fit in its capacity.
    """

    format_name: str
    file_mb: float

    @property
    def name(self) -> str:
        """``LTO-7 10GB``: the format and the file size, as the series name it."""
        return f"{self.format_name} {self.file_mb / 1000:g}GB"

    def tape(self) -> SerpentineTape:
        """The full tape, block ids as byte offsets."""
        return SerpentineTape.full(TAPE_FORMATS[self.format_name])

    @property
    def file_bytes(self) -> int:
        """Bytes of each file."""
        return int(self.file_mb * MB)

    @property
    def files(self) -> int:
        """Files on the tape: as many whole ones as its written blocks hold."""
        return (self.tape().last_block + 1) // self.file_bytes

    def tape_files(self, indices: Sequence[int]) -> list[TapeFile]:
        """The files of ``indices`` (their place on the tape, from 0), in that order."""
        return [TapeFile(f"f{k:05d}", k * self.file_bytes, self.file_bytes) for k in indices]


CASES = (
    TapeCase("LTO-7", 10_000.0),
    TapeCase("LTO-7", 1_000.0),
    TapeCase("TS1150", 10_000.0),
    TapeCase("TS1150", 1_000.0),
)
"""The paper's tapes: LTO-7 (6 TB) and TS1150 on JD media (10 TB), 10 GB and 1 GB files."""


@frozen
class RecallOrdering:
    """How the request list reaches the drive and which request in flight it reads next.

    Attributes
    ----------
    name
        The series' last word.
    orderer
        Key of :data:`solvers.registry.ORDERERS`: what picks among the
        requests in flight.
    in_flight
        Requests queued at the drive at once; ``None``: the whole list.
    sorted_submission
        Submitted in offset order (ERADAT sorts) rather than as listed.
    """

    name: str
    orderer: str
    in_flight: int | None
    sorted_submission: bool


ORDERINGS = (
    RecallOrdering("none", "none", 3, sorted_submission=False),
    RecallOrdering("offset", "offset", 3, sorted_submission=True),
    RecallOrdering("sltf", "sltf", 70, sorted_submission=True),
    RecallOrdering("sltf-3", "sltf", 3, sorted_submission=True),
    RecallOrdering("exact", "exact", None, sorted_submission=False),
)
"""The orderings of the study (see the module's docstring)."""

BASELINE = "offset"
"""The ordering every gain is measured against (ERADAT; the paper's "No RAO")."""

Pick = Callable[[SerpentineTape, LocateModel, int, npt.NDArray[np.int64]], int]
"""The index, in the window, of the request in flight read next: from the tape, the locate
model, the head's block and the first blocks of the requests in flight (in window order)."""


def _first(
    tape: SerpentineTape, model: LocateModel, head: int, window: npt.NDArray[np.int64]
) -> int:
    return 0


def _lowest_block(
    tape: SerpentineTape, model: LocateModel, head: int, window: npt.NDArray[np.int64]
) -> int:
    return int(np.argmin(window))


def _shortest_locate(
    tape: SerpentineTape, model: LocateModel, head: int, window: npt.NDArray[np.int64]
) -> int:
    return int(np.argmin(model.locate_s(tape, head, window)))


PICKS: Mapping[str, Pick] = MappingProxyType(
    {"none": _first, "offset": _lowest_block, "sltf": _shortest_locate}
)
"""The first choice of each greedy orderer over a window (ties to the request first in it)."""

MATRIX_MAX_FILES = MAX_DENSE_FILES
"""Up to this many files ``sltf``'s locates are computed at once (the dense matrix of
:data:`~toolkit.runtime.limits.MAX_DENSE_FILES`, the one bound on a matrix of n^2 locates) instead
of
one window at a time: the same picks, a hundred times fewer calls."""


def read_in_flight(
    tape: SerpentineTape,
    model: LocateModel,
    files: Sequence[TapeFile],
    submission: Sequence[int],
    orderer: str,
    in_flight: int,
) -> list[int]:
    """The order the drive reads ``files`` in, ``in_flight`` requests queued at a time.

    ``submission`` is the order the requests are submitted in (indices
    into ``files``); the window holds the first ``in_flight`` not read yet,
    and :data:`PICKS` ``[orderer]`` chooses among them from the head.
    """
    pick = PICKS[orderer]
    blocks = np.array([f.block for f in files], dtype=np.int64)
    ends = np.array([f.end_block(tape) for f in files], dtype=np.int64)
    matrix = None
    if pick is _shortest_locate and len(files) <= MATRIX_MAX_FILES:
        heads = np.concatenate(([HEAD_BLOCK], ends))
        matrix = model.locate_s(tape, heads[:, None], blocks[None, :])
    queue = list(submission)
    window = queue[:in_flight]
    following = in_flight
    head, row, order = HEAD_BLOCK, 0, []
    while window:
        if matrix is not None:
            at = int(np.argmin(matrix[row, window]))
        else:
            at = pick(tape, model, head, blocks[window])
        k = window.pop(at)
        order.append(k)
        head, row = int(ends[k]), k + 1
        if following < len(queue):
            window.append(queue[following])
            following += 1
    return order


def locates_s(
    tape: SerpentineTape, model: LocateModel, files: Sequence[TapeFile], order: Sequence[int]
) -> float:
    """The locates of reading ``files`` in ``order`` from :data:`HEAD_BLOCK` (one vector call)."""
    chosen = [files[k] for k in order]
    starts = np.array([f.block for f in chosen], dtype=np.int64)
    ends = np.array([HEAD_BLOCK] + [f.end_block(tape) for f in chosen[:-1]], dtype=np.int64)
    return float(np.sum(model.locate_s(tape, ends, starts)))


def read_time_s(
    tape: SerpentineTape, model: LocateModel, files: Sequence[TapeFile], order: Sequence[int]
) -> float:
    """Locates and reads of ``files`` in ``order`` from :data:`HEAD_BLOCK`."""
    return locates_s(tape, model, files, order) + sum(files[k].read_s(tape) for k in order)


def chosen_files(
    case: TapeCase, coverage_pct: float, spacing: str, rng: np.random.Generator
) -> list[int]:
    """The request list: the files read, in random order (as ``shuf`` lists them).

    ``even`` takes every (files / k)-th file from the first (the paper's
    Figure 2: 4 of 40 are files 1, 11, 21, 31), ``random`` a uniform sample
    of k; k is the coverage's share of the tape's files, rounded.
    """
    n = case.files
    k = max(1, round(n * coverage_pct / 100))
    if spacing == "even":
        picked = (np.arange(k) * n) // k
    elif spacing == "random":
        picked = rng.choice(n, size=k, replace=False)
    else:
        raise ValueError(f"spacing must be one of {SPACINGS}, got {spacing!r}")
    return [int(i) for i in rng.permutation(picked)]


@frozen
class StudyConfig:
    """What a run of the study covers.

    Attributes
    ----------
    cases, coverages_pct, spacings, orderings
        The study's grid.
    replications
        Request lists drawn per case, coverage and spacing (each ordering reads
        the same lists, so that its gain over offset is paired).
    exact_time_limit_s
        The exact orderer's limit per list.
    exact_max_files
        Lists longer than this get no exact order (but at 100 %
        coverage, where offset order is optimal): the matrix of 3,000 or
        more files is too large for the 2-core machine.
    locate
        ``cta-lto`` (CTA's LTO cost heuristic) or ``physical``
        (:meth:`~toolkit.hardware.tape_geometry.PhysicalLocate.for_format`).
    seed
        Seeds the request lists (replication ``r`` of a point uses a
        generator of ``(seed, case, coverage, spacing, r)``).
    """

    cases: tuple[TapeCase, ...] = CASES
    coverages_pct: tuple[float, ...] = COVERAGES_PCT
    spacings: tuple[str, ...] = SPACINGS
    orderings: tuple[RecallOrdering, ...] = ORDERINGS
    replications: int = 5
    exact_time_limit_s: float = 10.0
    exact_max_files: int = 1000
    locate: str = "cta-lto"
    seed: int = 1


QUICK = StudyConfig(
    cases=tuple(c for c in CASES if c.file_mb == 10_000.0),
    replications=3,
    exact_time_limit_s=2.0,
    exact_max_files=300,
)
"""``--quick``: the 10 GB tapes only (up to 1,000 files a list), 3 lists a point, exact up to 300
files (LTO-7 at 10 and 50 %, TS1150 at 10 %) with 2 s each: about a minute on 2 cores."""

FULL = StudyConfig()
"""A full run: 5 lists a point, exact up to 1,000 files (every 10 % case), 10 s a list."""


def locate_model(config: StudyConfig, case: TapeCase) -> LocateModel:
    """The locate model of ``config`` for the case's format."""
    if config.locate == "cta-lto":
        return CtaCostHeuristic()
    if config.locate == "physical":
        return PhysicalLocate.for_format(TAPE_FORMATS[case.format_name])
    raise ValueError(f"locate must be 'cta-lto' or 'physical', got {config.locate!r}")


def read_order(
    ordering: RecallOrdering,
    tape: SerpentineTape,
    model: LocateModel,
    files: Sequence[TapeFile],
    config: StudyConfig,
) -> list[int] | None:
    """The order ``ordering`` reads the request list ``files`` in (``None``: no exact order)."""
    listed = range(len(files))
    by_block = sorted(listed, key=lambda k: files[k].block)
    if ordering.in_flight is None:
        if ordering.orderer == "exact" and locates_s(tape, model, files, by_block) == 0.0:
            return by_block  # Offset order has no locate at all: nothing is cheaper.
        if ordering.orderer == "exact" and len(files) > config.exact_max_files:
            return None
        found = ORDERERS[ordering.orderer](
            tape, model, HEAD_BLOCK, files, time_limit_s=config.exact_time_limit_s
        )
        return list(found.order)
    submission = by_block if ordering.sorted_submission else listed
    return read_in_flight(
        tape, model, files, list(submission), ordering.orderer, ordering.in_flight
    )


@frozen
class Measure:
    """One ordering's reading of one request list."""

    ordering: str
    throughput_mb_s: float | None
    gain_over_offset_pct: float | None


def _rng(
    config: StudyConfig, case_index: int, coverage_pct: float, spacing: str, r: int
) -> np.random.Generator:
    key = (config.seed, case_index, int(coverage_pct * 100), SPACINGS.index(spacing), r)
    return np.random.default_rng(key)


def measure_list(
    case: TapeCase,
    listed: Sequence[int],
    config: StudyConfig,
    solved: dict[tuple[int, ...], float | None] | None = None,
) -> dict[str, Measure]:
    """Every ordering of ``config`` on one request list (file indices on the tape, in list order).

    The whole-list orderings (``exact``) see a set, not a list: ``solved``,
    when given, keeps their time per set of files (an even spacing draws the
    same set in every replication, so it is solved once). An exact order
    stopped by its time limit above an order another ordering read is
    replaced by that order: ``exact`` is the cheapest order known.
    """
    tape = case.tape()
    model = locate_model(config, case)
    files = case.tape_files(listed)
    total_mb = len(files) * case.file_mb
    times: dict[str, float | None] = {}
    for ordering in config.orderings:
        key = (config.orderings.index(ordering), *sorted(listed))
        if ordering.in_flight is None and solved is not None and key in solved:
            times[ordering.name] = solved[key]
            continue
        order = read_order(ordering, tape, model, files, config)
        times[ordering.name] = None if order is None else read_time_s(tape, model, files, order)
        if ordering.in_flight is None and solved is not None:
            solved[key] = times[ordering.name]
    known = [t for t in times.values() if t is not None]
    throughput: dict[str, float | None] = {}
    for ordering in config.orderings:
        spent = times[ordering.name]
        if spent is not None and ordering.orderer == "exact":
            spent = min(spent, *known)
        throughput[ordering.name] = None if spent is None else total_mb / spent
    base = throughput.get(BASELINE)
    return {
        name: Measure(
            name,
            value,
            None if value is None or base is None else 100.0 * (value / base - 1.0),
        )
        for name, value in throughput.items()
    }


@frozen
class StudyPoint:
    """One series at one coverage: its estimates over the replications.

    ``series`` is ``<case> <spacing> <ordering>`` (``LTO-7 10GB random sltf``);
    ``files`` the length of the request list.
    """

    case: str
    spacing: str
    ordering: str
    coverage_pct: float
    files: int
    estimates: Mapping[str, Estimate]

    @property
    def series(self) -> str:
        """The series' name in ``results.csv``."""
        return f"{self.case} {self.spacing} {self.ordering}"


def run_study(
    config: StudyConfig, progress: Callable[[str], None] | None = None
) -> list[StudyPoint]:
    """Every point of ``config``: case, spacing, ordering and coverage, in that order
    (:func:`run_case` for each case and spacing)."""
    return [
        point
        for c in range(len(config.cases))
        for spacing in config.spacings
        for point in run_case(config, c, spacing, progress)
    ]


def run_case(
    config: StudyConfig, c: int, spacing: str, progress: Callable[[str], None] | None = None
) -> list[StudyPoint]:
    """The points of the case ``config.cases[c]`` at ``spacing``: ordering and coverage.

    Even spacing picks the same files in every replication (only the list's
    order changes, which only ``none`` and ``sltf`` see). ``progress`` is told
    each coverage done.
    """
    case = config.cases[c]
    by_coverage: dict[float, list[dict[str, Measure]]] = {}
    solved: dict[tuple[int, ...], float | None] = {}
    sizes: dict[float, int] = {}
    for coverage in config.coverages_pct:
        runs = []
        for r in range(config.replications):
            listed = chosen_files(case, coverage, spacing, _rng(config, c, coverage, spacing, r))
            sizes[coverage] = len(listed)
            runs.append(measure_list(case, listed, config, solved))
        by_coverage[coverage] = runs
        if progress is not None:
            progress(f"{case.name} {spacing} {coverage:g} %")
    points: list[StudyPoint] = []
    for ordering in config.orderings:
        for coverage, runs in by_coverage.items():
            estimates = {
                "throughput_mb_s": _estimate([m[ordering.name].throughput_mb_s for m in runs]),
                "gain_over_offset_pct": _estimate(
                    [m[ordering.name].gain_over_offset_pct for m in runs]
                ),
            }
            points.append(
                StudyPoint(case.name, spacing, ordering.name, coverage, sizes[coverage], estimates)
            )
    return points


def _estimate(values: Sequence[float | None]) -> Estimate:
    """Mean and 95 % half-width, or no mean (``not run``) when a list had no order."""
    if any(v is None for v in values):
        return Estimate(None, None, 0, reason="not run (too many files for exact)")
    found = estimate(values)
    if found.half_width is not None and not math.isfinite(found.half_width):
        return Estimate(found.mean, None, found.replications)
    return found
