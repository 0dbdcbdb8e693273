"""What a run measured: a record per request, the metrics, replications and their intervals.

Metrics (Blue Waters paper, Section 3.2)
    - *weighted response time*: a request's response time (arrival to the
      end of its data) divided by its size, here in seconds per GB; the mean
      over requests is the paper's objective of choice;
    - *stretch*: the response time over the request's expected time alone
      on an idle platform (:meth:`simulator.run.admission.Admission.alone_s`);
    - *throughput* (``throughput_mb_s_over_window``): MB of files read or
      written per second, over the measured window;
    - the shares of drive and arm time, named by what they count and over
      which span (:data:`toolkit.metrics.DEFINITIONS`): drive time busy
      (switches included) and streaming, arm time busy, over the horizon
      (the run's end); and, to set a run beside ``tapesched metrics`` of
      its exported schedule, the makespan (the last transfer's end) and the
      streaming and arm shares over it, which are that command's;
    - mounts, and mounts per tape mounted.

Warm-up
    Requests arriving in the first ``warmup`` share of the run are left
    out of the means (they found an empty platform); the shares of drive
    and arm time are over the whole run.

Saturation
    A run *cannot keep up* when requests pile up without bound. It is
    reported saturated when, at the end, the requests arrived and not done
    (the backlog) outnumber both 20 and 1 % of all arrivals, and the backlog
    has grown by half since half-way through the run: a stable queue holds a
    bounded number of requests whatever the length of the run, an unstable
    one a number that grows with it (in proportion: twice as many at the end
    as half-way). A saturated run has no mean response (its value would only
    measure the run's length). On the Ampex library with 1 GB reads this
    tells 0.95 of Golubchik's ``4/147`` requests/s (stable) from 1.05 times
    it (saturated).

Replications
    The same scenario with seeds ``seed, seed + 1, ...``: each metric is
    given as its mean and the half-width of its 95 % confidence interval
    (Student's t over the replications). If any replication is saturated,
    the scenario is.
"""

from __future__ import annotations

import marshal
import math
import statistics
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from typing import IO, Any, overload

from attrs import asdict, evolve, fields, frozen

from tapesched.simulator.results.tally import ExactSum
from tapesched.simulator.run.admitted import AdmittedRequest
from tapesched.simulator.run.simulation import Simulation
from tapesched.simulator.storage.data_account import data_account

SATURATION_FLOOR = 20
"""Fewest requests left undone at the end for a run to be called saturated."""

SATURATION_SHARE = 0.01
"""Share of the arrivals left undone at the end above which a run may be saturated."""

SATURATION_GROWTH = 1.5
"""Growth of the backlog over the second half of a run above which it may be saturated."""

CONFIDENCE = 0.95
"""Confidence level of the intervals over replications."""


@cache
def t95(degrees: int) -> float:
    """The two-sided 95 % quantile of Student's t with ``degrees`` degrees of freedom.

    From :func:`scipy.stats.t.ppf` at 0.975, so that an interval over any
    number of replications uses its exact quantile (12.706 for two
    replications, 2.045 for thirty, 1.96 only in the limit).
    """
    if degrees < 1:
        raise ValueError(f"degrees of freedom must be >= 1, got {degrees!r}")
    from scipy.stats import t

    return float(t.ppf(0.5 + CONFIDENCE / 2, degrees))


@frozen
class RequestRecord:
    """One request as it ran.

    Attributes
    ----------
    id, kind, file, size_mb
        The request and its file.
    arrival_s, start_s, end_s
        Arrival, start (the scheduler's decision) and end of its data.
    free_s
        When its drives were free again (after parity flushes, and after
        the tapes were put away when they are at once).
    drives, tapes
        Drive ids (plan columns) and the tapes it used.
    host_mb
        MB that crossed the mover (data and parity).
    mounts
        Tape mounts made on the platform while it ran (its own and others').
    alone_s
        Expected time alone on an idle platform.
    restarts
        Times a fault stopped it and it was started again (faults).
    rebuilt
        Whether its read was planned around tapes it could not read: its
        file rebuilt from the surviving members of its groups.
    """

    id: str
    kind: str
    file: str
    size_mb: float
    arrival_s: float
    start_s: float
    end_s: float
    free_s: float
    drives: tuple[str, ...]
    tapes: tuple[str, ...]
    host_mb: float
    mounts: int
    alone_s: float
    restarts: int = 0
    rebuilt: bool = False

    @property
    def response_s(self) -> float:
        """Arrival to the end of the data."""
        return self.end_s - self.arrival_s

    @property
    def weighted_response_s_per_gb(self) -> float:
        """Response time per GB of file (the Blue Waters paper's weighted response time)."""
        return self.response_s / (self.size_mb / 1000.0)

    @property
    def stretch(self) -> float:
        """Response time over the expected time alone."""
        return self.response_s / self.alone_s if self.alone_s > 0 else 1.0


_RECORD_FIELDS = tuple(a.name for a in fields(RequestRecord))


class RecordSpool(Sequence[RequestRecord]):
    """A run's records, written to a temporary file as its requests end and read back in
    order: a long run keeps none of them in memory (``requests.csv`` is written from it).

    The file is unlinked from the start (nothing is left behind by a run that stops); a
    spool is pickled as the tuple of its records.
    """

    def __init__(self, records: Iterable[RequestRecord] = ()) -> None:
        self._file: IO[bytes] | None = None
        self._count = 0
        self._written = 0
        for record in records:
            self.append(record)

    def append(self, record: RequestRecord) -> None:
        """Add ``record``, last."""
        if self._file is None:
            self._file = tempfile.TemporaryFile(prefix="tapesched-", suffix=".records")
        self._file.seek(self._written)
        self._file.write(marshal.dumps(tuple(getattr(record, name) for name in _RECORD_FIELDS)))
        self._written = self._file.tell()
        self._count += 1

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[RequestRecord]:
        file, count, at = self._file, self._count, 0
        if file is None:
            return
        for _ in range(count):
            file.seek(at)
            values = marshal.load(file)
            at = file.tell()
            yield RequestRecord(*values)

    @overload
    def __getitem__(self, index: int) -> RequestRecord: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[RequestRecord, ...]: ...

    def __getitem__(self, index: int | slice) -> RequestRecord | tuple[RequestRecord, ...]:
        return tuple(self)[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RecordSpool | tuple | list):
            return tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __reduce__(self) -> tuple[Any, ...]:
        return (RecordSpool, (tuple(self),))


def record_of(entry: AdmittedRequest, simulation: Simulation) -> RequestRecord:
    """The record of a finished request."""
    assert entry.plan is not None and entry.start_s is not None
    assert entry.data_done_s is not None and entry.done_s is not None
    fr = entry.file_request
    drives = simulation.platform.drives
    host = sum(e.host_mb for phase in entry.plan.phases + entry.plan.flush for e in phase if e)
    return RequestRecord(
        id=fr.id,
        kind=fr.kind,
        file=fr.file.id,
        size_mb=fr.file.size_mb,
        arrival_s=fr.arrival_s,
        start_s=entry.start_s,
        end_s=entry.data_done_s,
        free_s=entry.done_s,
        drives=tuple(drives[d].id for d in entry.drives),
        tapes=entry.tapes,
        host_mb=host,
        mounts=entry.mounts_before,
        alone_s=entry.service_s,
        restarts=entry.restarts,
        rebuilt=fr.kind == "read" and bool(entry.unavailable),
    )


@frozen
class FailedRecord:
    """A request that could not be served (faults): when it gave up, and why."""

    id: str
    kind: str
    file: str
    size_mb: float
    arrival_s: float
    failed_s: float
    reason: str


def failed_record_of(entry: AdmittedRequest) -> FailedRecord:
    """The record of a failed request."""
    fr = entry.file_request
    assert entry.failure is not None and entry.done_s is not None
    return FailedRecord(
        fr.id, fr.kind, fr.file.id, fr.file.size_mb, fr.arrival_s, entry.done_s, entry.failure
    )


@frozen
class RunSummary:
    """The metrics of one run.

    Response metrics are ``None`` when the run is saturated or when no
    request completed in the measured window. ``duration_s`` is the
    horizon of the ``*_over_horizon`` shares; every share and throughput is
    defined in :data:`toolkit.metrics.DEFINITIONS`.
    """

    seed: int
    duration_s: float
    warmup_s: float
    arrived: int
    completed: int
    measured: int
    backlog: int
    saturated: bool
    mean_weighted_response_s_per_gb: float | None
    mean_response_s: float | None
    mean_stretch: float | None
    throughput_mb_s_over_window: float
    drive_busy_share_over_horizon: float
    drive_streaming_share_over_horizon: float
    arm_busy_share_over_horizon: float
    mounts: int
    mounts_per_tape: float
    makespan_s: float
    drive_streaming_share_over_makespan: float
    arm_busy_share_over_makespan: float
    failed: int = 0
    """Requests that could not be served (faults): ``arrived = completed + failed + backlog``."""
    handling_failures: int = 0
    """Mounts and dismounts that failed (tried again or given up)."""
    mounts_given_up: int = 0
    stuck_cartridges: int = 0
    drive_failures: int = 0
    """Drives that failed, those of failed movers included."""
    mover_failures: int = 0
    tapes_lost: int = 0
    """Tapes, or regions of them, lost in the run."""
    restarts: int = 0
    """Starts again of requests a fault stopped."""
    rebuilt_reads: int = 0
    """Reads completed from the surviving members of their groups."""
    files_rebuilt: int = 0
    """Files (:func:`simulator.storage.data_account.data_account`) with bytes lost on a tape and
    rebuilt or rebuildable."""
    files_lost: int = 0
    """Files (:func:`simulator.storage.data_account.data_account`) that cannot be rebuilt."""
    rebuilt_mb: float = 0.0
    lost_mb: float = 0.0

    def to_dict(self) -> dict[str, object]:
        """As a JSON-ready mapping."""
        return asdict(self)


def is_saturated(backlog: int, arrived: int, midway_backlog: int | None) -> bool:
    """Whether a run could not keep up (see Saturation in the module docstring).

    ``backlog`` is the requests arrived and not done at the end of the run,
    ``arrived`` all its arrivals, ``midway_backlog`` the backlog half-way
    (``None`` when the run never got there).
    """
    return backlog > max(SATURATION_FLOOR, SATURATION_SHARE * arrived) and (
        midway_backlog is None or backlog >= SATURATION_GROWTH * midway_backlog
    )


class RunTally:
    """What :func:`summarise` reads of the finished requests, taken as each ends.

    A run adds each request as it ends (:meth:`add_entry`, a sink of
    :attr:`Simulation.finish_sinks <simulator.run.simulation.Simulation.finish_sinks>`),
    so that it need not keep them: the means are exact sums
    (:class:`~simulator.results.tally.ExactSum`, equal to :func:`statistics.fmean`
    over a list of records), the MB done summed in the order requests ended.
    """

    def __init__(self, warmup_s: float) -> None:
        self.warmup_s = warmup_s
        self.completed = 0
        self.weighted = ExactSum()
        """Weighted response times (s per GB) of the measured requests."""
        self.response = ExactSum()
        self.stretch = ExactSum()
        self.done_mb = 0.0
        """MB of the requests whose data ended after the warm-up."""
        self.restarts = 0
        self.rebuilt_reads = 0

    @property
    def measured(self) -> int:
        """Requests arrived after the warm-up and done."""
        return self.response.count

    def add(
        self,
        size_mb: float,
        arrival_s: float,
        end_s: float,
        alone_s: float,
        restarts: int = 0,
        rebuilt: bool = False,
    ) -> None:
        """A request done (the fields of :class:`RequestRecord` that the summary reads)."""
        self.completed += 1
        if arrival_s >= self.warmup_s:
            response = end_s - arrival_s
            self.weighted.add(response / (size_mb / 1000.0))
            self.response.add(response)
            self.stretch.add(response / alone_s if alone_s > 0 else 1.0)
        if end_s >= self.warmup_s:
            self.done_mb += size_mb
        self.restarts += restarts
        self.rebuilt_reads += rebuilt

    def add_record(self, r: RequestRecord) -> None:
        """A request done, from its record."""
        self.add(r.size_mb, r.arrival_s, r.end_s, r.alone_s, r.restarts, r.rebuilt)

    def add_entry(self, entry: AdmittedRequest) -> None:
        """A request done, as the run ends it (what :func:`record_of` would record)."""
        fr = entry.file_request
        assert entry.data_done_s is not None
        self.add(
            fr.file.size_mb,
            fr.arrival_s,
            entry.data_done_s,
            entry.service_s,
            entry.restarts,
            fr.kind == "read" and bool(entry.unavailable),
        )


def summarise(
    simulation: Simulation,
    records: Sequence[RequestRecord] | RunTally,
    seed: int,
    warmup_s: float,
) -> RunSummary:
    """The metrics of a run that has been run to its end time, from its records or from
    the tally its run kept (:class:`RunTally`, with the same ``warmup_s``)."""
    if isinstance(records, RunTally):
        tally = records
    else:
        tally = RunTally(warmup_s)
        for r in records:
            tally.add_record(r)
    now = simulation.engine.now_s
    arrived = simulation.arrived
    failed = len(simulation.failed)
    backlog = arrived - tally.completed - failed
    saturated = is_saturated(backlog, arrived, simulation.midway_backlog)
    platform = simulation.platform
    window = now - warmup_s
    have = tally.measured > 0 and not saturated
    return RunSummary(
        seed=seed,
        duration_s=now,
        warmup_s=warmup_s,
        arrived=arrived,
        completed=tally.completed,
        measured=tally.measured,
        backlog=backlog,
        saturated=saturated,
        mean_weighted_response_s_per_gb=tally.weighted.mean() if have else None,
        mean_response_s=tally.response.mean() if have else None,
        mean_stretch=tally.stretch.mean() if have else None,
        throughput_mb_s_over_window=tally.done_mb / window if window > 0 else 0.0,
        drive_busy_share_over_horizon=platform.drive_busy_share_over_horizon(),
        drive_streaming_share_over_horizon=platform.drive_streaming_share_over_horizon(),
        arm_busy_share_over_horizon=platform.arm_busy_share_over_horizon(),
        mounts=platform.mounts,
        # The mean of each tape's mounts over the tapes mounted (statistics.fmean of the
        # counts, as exactly).
        mounts_per_tape=(
            platform.mounts / len(platform.tapes_mounted) if platform.tapes_mounted else 0.0
        ),
        makespan_s=platform.makespan_s,
        drive_streaming_share_over_makespan=platform.drive_streaming_share_over_makespan(),
        arm_busy_share_over_makespan=platform.arm_busy_share_over_makespan(),
        failed=failed,
        handling_failures=platform.handling_failures,
        mounts_given_up=platform.mounts_given_up,
        stuck_cartridges=platform.stuck,
        drive_failures=platform.drive_failures,
        mover_failures=platform.mover_failures,
        tapes_lost=len(simulation.fault_processes.lost),
        restarts=tally.restarts,
        rebuilt_reads=tally.rebuilt_reads,
        **_losses(simulation),
    )


def _losses(simulation: Simulation) -> dict[str, Any]:
    """The data account's rebuilt and lost files and MB, when the run lost tapes."""
    if not simulation.fault_processes.lost:
        return {}
    data = data_account(simulation)
    return {
        "files_rebuilt": data.files_rebuilt,
        "files_lost": data.files_lost,
        "rebuilt_mb": data.rebuilt_mb,
        "lost_mb": data.lost_mb,
    }


@frozen
class Estimate:
    """A metric at a point, over its replications: the mean and the half-width of its 95 %
    interval, the replications, and whether the point is saturated.

    The one estimate of the project: a run's metrics (:func:`combine`), every row of an
    experiment's ``results.csv`` and every point of its figure. ``mean`` is ``None``
    when there is nothing to estimate: ``reason`` then says why (``"saturated"``: the
    platform could not keep up, so a mean would only measure the run's length; ``"no
    request measured"``: no request arriving after the warm-up completed).
    ``half_width`` is ``None`` with a single replication, which gives no interval.
    ``saturated`` is the point's (a replication could not keep up), whatever the
    metric: a saturated point's utilisation has a mean.
    """

    mean: float | None
    half_width: float | None
    replications: int
    saturated: bool = False
    reason: str = "saturated"

    @property
    def degrees_of_freedom(self) -> int:
        """Of the Student's t behind the interval: replications less one."""
        return max(self.replications - 1, 0)

    @property
    def wide(self) -> bool:
        """Whether the interval is wider than the mean itself: too few replications to tell."""
        return (
            self.mean is not None
            and self.half_width is not None
            and self.half_width > abs(self.mean)
        )

    def __str__(self) -> str:
        if self.mean is None:
            return self.reason
        if self.half_width is None or not math.isfinite(self.half_width):
            return f"{self.mean:.4g}"
        text = f"{self.mean:.4g} ± {self.half_width:.2g}"
        if self.wide:
            text += f" (t, {self.degrees_of_freedom} df: wider than the mean)"
        return text

    def to_dict(self) -> dict[str, object]:
        """As a JSON-ready mapping (``summary.json``; ``n``: the replications; whether the point
        is saturated is said beside, once a point)."""
        return {
            "mean": self.mean,
            "half_width_95": self.half_width,
            "n": self.replications,
            "degrees_of_freedom": self.degrees_of_freedom,
            "wider_than_mean": self.wide,
            "missing": None if self.mean is not None else self.reason,
        }


def estimate(values: Sequence[float | None]) -> Estimate:
    """Mean and 95 % confidence half-width of ``values`` (any ``None``: saturated)."""
    if not values or any(v is None for v in values):
        return Estimate(None, None, len(values))
    numbers = [float(v) for v in values if v is not None]
    mean = statistics.fmean(numbers)
    if len(numbers) < 2:
        return Estimate(mean, None, 1)
    half = t95(len(numbers) - 1) * statistics.stdev(numbers) / math.sqrt(len(numbers))
    return Estimate(mean, half, len(numbers))


METRICS = (
    "mean_weighted_response_s_per_gb",
    "mean_response_s",
    "mean_stretch",
    "throughput_mb_s_over_window",
    "drive_busy_share_over_horizon",
    "drive_streaming_share_over_horizon",
    "arm_busy_share_over_horizon",
    "mounts_per_tape",
)
"""The metrics estimated over replications, in table order."""


def combine(runs: Sequence[RunSummary]) -> dict[str, Estimate]:
    """Each metric of :data:`METRICS` over the replications ``runs``, saturated when one is.

    A response metric is missing when any replication is saturated, or when
    one measured no request; the estimate says which.
    """
    saturated = any(r.saturated for r in runs)
    out: dict[str, Estimate] = {}
    for name in METRICS:
        values = [getattr(r, name) for r in runs]
        if saturated and name.startswith("mean_"):
            found = Estimate(None, None, len(runs))
        elif any(v is None for v in values):
            found = Estimate(None, None, len(runs), reason="no request measured")
        else:
            found = estimate(values)
        out[name] = evolve(found, saturated=saturated)
    return out
