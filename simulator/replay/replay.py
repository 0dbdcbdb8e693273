"""A cartridge trace replayed on an SL8500 complex, in the one simulator.

The ECMWF trace says which cartridge was wanted, when, and for how long it
then stayed in a drive. Replaying it is a run of
:class:`simulator.run.simulation.Simulation` like any other, on a platform
(:func:`trace_platform`) whose libraries are the complex's levels:

- Each level (rail) is a library of the platform, its handbots its arms
  (loads before unloads, FIFO within each), one exchange (pick, travel,
  put) for each move; its drives are T10000s (load and unload of
  :class:`SL8500Timings`) that stream a request's trace seconds
  (positioning included: they locate in no time).
- The levels are joined as :class:`simulator.platform.library_complex.LibraryComplex`
  says: a cartridge of another level is taken out by a handbot of its own
  level, crosses (elevator, pass-throughs), and a handbot of the drive's
  level puts it in; a dismounted cartridge floats into a free slot of the
  drive's level (ACSLS float), or goes back home the way it came.
- Each request is a read of a file of its own (:class:`TraceArchive`),
  written unstriped at the start of its cartridge, whose transfer takes
  the trace's seconds.

Which waiting request starts is a scheduler's choice, which idle tape a
mount evicts and when an idle tape goes a mount policy's
(:mod:`solvers.online.mount_policy`), both as ``simulate`` takes them. The
defaults are those of the site's practice the replay first modelled:
``tape-batching`` (a cartridge in a drive serves the requests queued for
it before it leaves, otherwise oldest first) under ``lru`` (keep
mounted: a mount takes an empty drive of the nearest level that has one,
else evicts the cartridge idle the longest on the nearest level with an
idle drive), or ``at-once`` (dismount as soon as nobody waits for the
cartridge). A request for a cartridge in a drive or on its way to one waits
for it: a *hit*, which needs no mount of its own. ``belady`` (evict the
cartridge wanted again latest) reads the trace's future: a yardstick.

Drives are chosen by :func:`select_drives`: ``N`` drives spread as evenly as
possible over the levels that have drives. Home levels are given (the
cartridge map of the trace's snapshot, through
:func:`simulator.replay.trace.place_cartridges`), or else seeded hashes
(:func:`simulator.replay.trace.home_levels`). Nothing is drawn at random: the
same trace gives the same result.

What a replay measures (:class:`ReplayResult`): the latency of every
request, from its arrival to its cartridge ready in a drive for it (its
transfer's start), summed up separately over the requests that needed a
mount (the mount latency) and over all requests (a hit counts its wait for
its cartridge, 0 s when it sat idle in its drive); the shares of drive and
handbot time over the horizon, under the names ``simulate`` gives the same
quantities (:data:`toolkit.metrics.DEFINITIONS`); and the backlog,
requests arrived and not done, half-way through the trace and at its last
arrival. A backlog that grows by the rule of :mod:`simulator.run.results`
(:attr:`ReplayResult.saturated`) means the drives could not keep up with the
trace: the latencies then grow with the trace's length and their means
describe no steady state.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from typing import Any, Literal, cast

from attrs import field, frozen

from tapesched.simulator.platform.library_complex import LibraryComplex, crossing_s
from tapesched.simulator.platform.spec import DriveSpec, LibrarySpec, PlatformSpec
from tapesched.simulator.platform.technology import DriveModel, Duration
from tapesched.simulator.replay.trace import LibraryLayout, TraceRequest, home_levels
from tapesched.simulator.run.experiment import without_cyclic_gc
from tapesched.simulator.run.results import is_saturated
from tapesched.simulator.run.simulation import Simulation
from tapesched.simulator.schedulers.registry import GOLUBCHIK, simulator_scheduler
from tapesched.simulator.storage.catalogue import (
    Catalogue,
    Chunk,
    FileLayout,
    Member,
    NumberedFiles,
    Row,
)
from tapesched.simulator.storage.files import Extent, FileRequest, FileSpec, JobSpec, Scheme
from tapesched.simulator.storage.parallel import Parallel
from tapesched.simulator.storage.policy import without_parity
from tapesched.simulator.workload.workload import Workload
from tapesched.solvers.online.mount_policy import parse_mount_policy, with_mount_policy
from tapesched.solvers.online.protocol import Scheduler
from tapesched.solvers.plugins import (
    PluggedScheduler,
    SchedulerSpec,
    resolve_scheduler,
    with_plugins,
)
from tapesched.toolkit.errors import shown
from tapesched.toolkit.hardware.technology import LIBRARIES, required
from tapesched.toolkit.metrics import share


def _time(_: object, attribute: Any, value: float) -> None:
    if not 0 <= value < math.inf:
        raise ValueError(f"{attribute.name} must be finite and >= 0, got {shown(value)}")


def _positive_int(_: object, attribute: Any, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{attribute.name} must be an integer >= 1, got {shown(value)}")


_SL8500 = LIBRARIES["SL8500"]
"""The table's SL8500 complex (its drive: the T10000D row), whose figures are the defaults."""


@frozen(kw_only=True)
class SL8500Timings:
    """Mechanical times of an SL8500 complex with T10000C/D drives, in seconds.

    The defaults are the SL8500 row of the technology table
    (:data:`toolkit.hardware.technology.LIBRARIES`) and its drive's (the T10000D
    row of :data:`toolkit.hardware.technology.DRIVES`), where each figure names its
    source: the handbot's move from Oracle's figures, the T10000 load and
    unload as quoted from its data sheet (unchecked), the elevator and the
    pass-through estimates.

    Attributes
    ----------
    exchange_s
        One handbot move of a cartridge: pick it (at a slot, a drive or a
        port), travel, put it (the table's ``mount_s``, equal to its
        ``dismount_s``).
    load_s
        Drive load and thread to ready (ECMWF's drives were T10000s).
    unload_s
        Rewind and eject, before a handbot can take the cartridge.
    elevator_s
        One elevator ride between two rails of a library, the handbots'
        hand-offs at either end excluded.
    pass_through_s
        One pass-through port between the same rail of two adjacent
        libraries.
    rails_per_library
        Rails (levels) of one library: 4 in an SL8500, so levels ``4k ..
        4k+3`` form library ``k`` (ACSLS numbers each rail as an LSM, four
        per library, top-down, libraries right to left).
    """

    exchange_s: float = field(default=_SL8500.mount_s, validator=_time)
    load_s: float = field(default=_SL8500.drive.load_s, validator=_time)
    unload_s: float = field(default=_SL8500.drive.unload_s, validator=_time)
    elevator_s: float = field(
        default=required(_SL8500.elevator_s, "SL8500 elevator_s"), validator=_time
    )
    pass_through_s: float = field(
        default=required(_SL8500.pass_through_s, "SL8500 pass_through_s"), validator=_time
    )
    rails_per_library: int = field(
        default=required(_SL8500.rails_per_library, "SL8500 rails_per_library"),
        validator=_positive_int,
    )

    def transfer_s(self, from_level: int, to_level: int) -> float:
        """Time to carry a cartridge between level numbers, handbot moves excluded
        (:func:`simulator.platform.library_complex.crossing_s`)."""
        return crossing_s(
            from_level,
            to_level,
            rails_per_library=self.rails_per_library,
            elevator_s=self.elevator_s,
            pass_through_s=self.pass_through_s,
        )

    def fastest_mount_s(self, from_level: int, to_level: int) -> float:
        """Latency of a mount that never waits: the least a request that needs one can see."""
        if from_level == to_level:
            return self.exchange_s + self.load_s
        return 2 * self.exchange_s + self.transfer_s(from_level, to_level) + self.load_s


def select_drives(layout: LibraryLayout, count: int) -> tuple[str, ...]:
    """``count`` drives spread as evenly as possible over the levels that have drives.

    Round robin over the levels in order of their number: the first pass
    takes the first drive (in id order) of every level with drives, the
    second pass the second drive of every level that has one, and so on
    until ``count`` drives are taken. With the ECMWF layout (12 levels with
    13-15 drives, 4 without), 20 drives are two on each of levels 0-7 and
    one on each of levels 8-11.

    Raises
    ------
    ValueError
        When ``count`` is below 1 or above the layout's drives.
    """
    if not 1 <= count <= layout.drives:
        raise ValueError(f"drives must be within [1, {layout.drives}] for this layout, got {count}")
    chosen: list[str] = []
    depth = 0
    while len(chosen) < count:
        for level in layout.levels:
            if depth < len(level.drives) and len(chosen) < count:
                chosen.append(level.drives[depth])
        depth += 1
    return tuple(chosen)


def _percentile(ordered: Sequence[float], q: float) -> float:
    """The ``q``-quantile of sorted values, interpolated linearly between ranks."""
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


@frozen
class ReplayResult:
    """What a replay measured.

    Attributes
    ----------
    drive_ids
        The drives used, in :func:`select_drives` order.
    keep_mounted
        The policy replayed.
    latencies_s
        Per request, in the order given: from its arrival to its cartridge
        ready in a drive for it (for a hit, to the end of the wait for the
        cartridge, 0 when it sat idle in its drive).
    mounted
        Per request: whether it was served by a mount of its own (``False``:
        a hit).
    span_s
        From the first arrival (time 0) to the last event (the last use
        ended, or the last dismount): the horizon of the shares.
    drive_busy_share_over_horizon
        Drive time not free over ``drives * span``: loading, in use,
        unloading, and waiting for a handbot to mount or dismount. A kept
        cartridge idle in its drive does not count: the drive is free for
        any request. ``simulate``'s quantity of the same name.
    drive_in_use_share_over_horizon
        Drive time in use (the trace's seconds, positioning and reading)
        over ``drives * span``. The trace does not tell positioning from
        streaming, so this is not ``drive_streaming_share_over_horizon``.
    arm_busy_share_over_horizon
        Handbot time busy over ``handbots * span``, all levels' handbots
        (the handbots are the arms).
    cross_level_mounts
        Mounts of a cartridge from another level than the drive's.
    trace_end_s
        The last arrival: the end of the trace, after which no request comes.
    backlog_midway
        Requests arrived and not done (their use not ended) half-way
        through the trace, at ``trace_end_s / 2``.
    backlog_end
        Requests arrived and not done at ``trace_end_s``.
    """

    drive_ids: tuple[str, ...]
    keep_mounted: bool
    latencies_s: tuple[float, ...]
    mounted: tuple[bool, ...]
    span_s: float
    drive_busy_share_over_horizon: float
    drive_in_use_share_over_horizon: float
    arm_busy_share_over_horizon: float
    cross_level_mounts: int
    trace_end_s: float
    backlog_midway: int
    backlog_end: int
    scheduler: str = "tape-batching"
    mount_policy: str = "lru"

    @property
    def drives(self) -> int:
        """Number of drives used."""
        return len(self.drive_ids)

    @property
    def requests(self) -> int:
        """Number of requests replayed."""
        return len(self.latencies_s)

    @property
    def mounts(self) -> int:
        """Mounts done (one per request that was not a hit)."""
        return sum(self.mounted)

    @property
    def hits(self) -> int:
        """Requests served by a cartridge already in a drive or on its way to one."""
        return self.requests - self.mounts

    @property
    def saturated(self) -> bool:
        """Whether the replay could not keep up with the trace.

        The rule of :func:`simulator.run.results.is_saturated`, with the trace's
        end as the run's end: the backlog at the last arrival outnumbers
        both 20 and 1 % of the requests, and has grown by half since
        half-way. The latencies of such a replay grow with the trace's
        length: their means describe no steady state of the library.
        """
        return is_saturated(self.backlog_end, self.requests, self.backlog_midway)

    @property
    def mount_latencies_s(self) -> tuple[float, ...]:
        """The latencies of the requests served by a mount of their own, in order."""
        return tuple(x for x, m in zip(self.latencies_s, self.mounted, strict=True) if m)

    def latency_stats(self, over: Literal["mounts", "requests"]) -> dict[str, float | int]:
        """Count, mean, median, p95 and max of the latencies over mounts or over requests.

        Over mounts: the requests that needed a mount, each from its arrival
        to its cartridge ready in the drive. Over requests: every request,
        a hit counting its wait for a cartridge already in a drive or on its
        way (0 s when the cartridge sat idle in its drive).
        """
        if over not in ("mounts", "requests"):
            raise ValueError(f"over is 'mounts' or 'requests', got {over!r}")
        values = self.mount_latencies_s if over == "mounts" else self.latencies_s
        ordered = sorted(values)
        return {
            "count": len(ordered),
            "mean": math.fsum(ordered) / len(ordered),
            "median": _percentile(ordered, 0.5),
            "p95": _percentile(ordered, 0.95),
            "max": ordered[-1],
        }

    @property
    def mean_latency_s(self) -> float:
        """Mean of the latencies."""
        return math.fsum(self.latencies_s) / len(self.latencies_s)

    @property
    def median_latency_s(self) -> float:
        """Median of the latencies."""
        return _percentile(sorted(self.latencies_s), 0.5)

    @property
    def p95_latency_s(self) -> float:
        """95th percentile of the latencies (linear interpolation between ranks)."""
        return _percentile(sorted(self.latencies_s), 0.95)

    @property
    def max_latency_s(self) -> float:
        """Longest latency."""
        return max(self.latencies_s)

    def summary(self) -> dict[str, Any]:
        """The measures without the per-request lists, for a table or JSON.

        The latency statistics (:meth:`latency_stats`) are ``None`` when the
        replay is :attr:`saturated`.
        """
        saturated = self.saturated
        return {
            "drives": self.drives,
            "keep_mounted": self.keep_mounted,
            "scheduler": self.scheduler,
            "mount_policy": self.mount_policy,
            "requests": self.requests,
            "mounts": self.mounts,
            "hits": self.hits,
            "cross_level_mounts": self.cross_level_mounts,
            "latency_over_mounts_s": None if saturated else self.latency_stats("mounts"),
            "latency_over_requests_s": None if saturated else self.latency_stats("requests"),
            "drive_busy_share_over_horizon": self.drive_busy_share_over_horizon,
            "drive_in_use_share_over_horizon": self.drive_in_use_share_over_horizon,
            "arm_busy_share_over_horizon": self.arm_busy_share_over_horizon,
            "span_s": self.span_s,
            "trace_end_s": self.trace_end_s,
            "backlog_midway": self.backlog_midway,
            "backlog_end": self.backlog_end,
            "saturated": saturated,
        }

    def as_dict(self) -> dict[str, Any]:
        """:meth:`summary`, the drives, and the per-request latencies and mount flags."""
        return {
            **self.summary(),
            "drive_ids": list(self.drive_ids),
            "latencies_s": list(self.latencies_s),
            "mounted": list(self.mounted),
        }


TRACE_RATE_MB_S = 1.0
"""Rate of the replay's drives: a trace request is a file of ``seconds_in_drive`` MB, so that
its transfer takes the trace's seconds (positioning included, which is why the replay's drives
locate in no time)."""

LEAST_USE_S = 1e-6
"""The use of a request the trace gives 0 s (a file holds some bytes): one microsecond."""

POLICY = "parallel"
"""The archival policy the trace's files are read by: one data member on one cartridge (1+0)."""


class TraceArchive(NumberedFiles):
    """A trace as the archive at time 0 (:class:`simulator.storage.catalogue.LazyArchive`).

    Request ``k`` reads file ``f{k}``, of the request's seconds in drive
    (MB at :data:`TRACE_RATE_MB_S`), written unstriped (1+0) by
    :data:`POLICY` at the start of its cartridge; a cartridge is a tape of
    the library (level) that is its home at the start.
    """

    def __init__(self, requests: Sequence[TraceRequest], homes: Mapping[str, int]) -> None:
        self.requests = requests
        self.homes = homes

    def __len__(self) -> int:
        """One file per request."""
        return len(self.requests)

    def file(self, k: int) -> FileSpec:
        """The file request ``k`` reads."""
        size_mb = max(self.requests[k].seconds_in_drive, LEAST_USE_S) * TRACE_RATE_MB_S
        return FileSpec(self.file_id(k), size_mb, UNSTRIPED)

    def layout(self, k: int) -> tuple[FileLayout, int]:
        """One data member: the file at the start of its cartridge."""
        file = self.file(k)
        chunk = Chunk(
            self.requests[k].cartridge, 0.0, data_host_mb=file.size_mb, data_tape_mb=file.size_mb
        )
        row = Row((Member("data", (chunk,)),), (0,))
        return FileLayout(file, POLICY, (row,)), 1

    def writer(self, k: int) -> str:
        """The policy that wrote every file of the trace."""
        return POLICY

    def tape_library(self, tape_id: str) -> str | None:
        """The library (level) id of a cartridge's home at the start."""
        level = self.homes.get(tape_id)
        return None if level is None else level_id(level)


UNSTRIPED = Scheme(1, 0)


@frozen
class TraceReads(Parallel):
    """:data:`POLICY` reading a trace's files, their plans made straight from the requests.

    The plan of file ``f{k}`` is the one :class:`~simulator.storage.parallel.Parallel` makes of
    its :class:`TraceArchive` layout (one extent: the request's seconds at the start of
    its cartridge; a test holds the two equal), built without the layout's objects: a
    long trace reads each of its files once, and the layout would be made for that one
    read. Files not of the archive are read as PARALLEL reads them.
    """

    archive: TraceArchive | None = field(default=None, eq=False)

    def plan_read(
        self, catalogue: Catalogue, file_id: str, unavailable: Collection[str] = frozenset()
    ) -> JobSpec:
        """One phase, one extent: the file's bytes at the start of its cartridge.

        A trace's file has no parity (1+0): when its cartridge is
        unavailable the read raises :class:`~simulator.storage.policy.Unrecoverable`.
        """
        archive = self.archive
        k = None if archive is None else archive.file_number(file_id)
        if archive is None or k is None:
            return super().plan_read(catalogue, file_id, unavailable)
        request = archive.requests[k]
        size_mb = max(request.seconds_in_drive, LEAST_USE_S) * TRACE_RATE_MB_S
        extent = Extent(request.cartridge, 0.0, size_mb, size_mb)
        without_parity(file_id, (extent,), unavailable)
        return JobSpec(((extent,),), memory_mb=self.block_mb)


def level_id(level: int) -> str:
    """The platform's library id of a level of the complex."""
    return f"level{level}"


def trace_platform(
    layout: LibraryLayout,
    drive_ids: Sequence[str],
    timings: SL8500Timings,
    homes: Mapping[str, int],
    *,
    float_on_dismount: bool = True,
) -> PlatformSpec:
    """The SL8500 complex of ``layout`` as a platform, with the drives ``drive_ids``.

    Each level is a library whose arms are its handbots (an exchange each
    way); the drives are T10000s of :attr:`SL8500Timings.load_s` and
    ``unload_s`` that stream the trace's seconds and locate in no time; the
    complex (:class:`~simulator.platform.library_complex.LibraryComplex`) joins the
    levels, ``homes`` filling their slots at the start.
    """
    exchange = Duration(timings.exchange_s)
    libraries = [
        LibrarySpec(level_id(lv.id), lv.robots, exchange, exchange) for lv in layout.levels
    ]
    model = DriveModel(
        name="T10000-trace",
        rate_mb_s=TRACE_RATE_MB_S,
        load_s=Duration(timings.load_s),
        unload_s=Duration(timings.unload_s),
        locate_mb_s=math.inf,
        capacity_mb=math.inf,
        source="the trace's seconds in drive; load and unload: SL8500Timings",
    )
    level_of = {d: lv.id for lv in layout.levels for d in lv.drives}
    drives = [DriveSpec(d, level_id(level_of[d]), model) for d in drive_ids]
    shelved = dict.fromkeys((lv.id for lv in layout.levels), 0)
    for level in homes.values():
        shelved[level] += 1
    complex_ = LibraryComplex(
        numbers=[lv.id for lv in layout.levels],
        slots=[lv.slots for lv in layout.levels],
        shelved=[shelved[lv.id] for lv in layout.levels],
        elevator_s=timings.elevator_s,
        pass_through_s=timings.pass_through_s,
        rails_per_library=timings.rails_per_library,
        float_on_dismount=float_on_dismount,
    )
    return PlatformSpec(libraries, drives, tape_capacity_mb=1e12, complex=complex_)


def trace_workload(requests: Sequence[TraceRequest], homes: Mapping[str, int]) -> Workload:
    """The trace's requests as reads of the :class:`TraceArchive`'s files, by arrival."""
    order = sorted(range(len(requests)), key=lambda k: requests[k].arrival_s)
    archive = TraceArchive(requests, homes)
    reads = tuple(
        FileRequest(f"r{k}", requests[k].arrival_s, "read", archive.file(k)) for k in order
    )
    return Workload(initial=(), requests=reads, archive=archive)  # type: ignore[arg-type]


def future_uses(requests: Sequence[TraceRequest]) -> dict[str, list[float]]:
    """Arrival times of the requests for each cartridge, sorted: what Belady reads."""
    uses: dict[str, list[float]] = {}
    for r in requests:
        uses.setdefault(r.cartridge, []).append(r.arrival_s)
    for times in uses.values():
        times.sort()
    return uses


def unreplayable(scheduler: SchedulerSpec) -> str | None:
    """Why ``scheduler`` cannot replay a trace (one line), or ``None`` when it can.

    ``golubchik`` gives each drive back as soon as its transfer ends (the
    platform's ``at-once`` dismount) and manages its drives itself, taking no
    mount policy; a replay keeps cartridges mounted under a mount policy
    (``lru``, or ``at-once`` with ``keep_mounted`` false), which it would
    silently ignore.
    """
    if scheduler == GOLUBCHIK:
        return (
            f"{GOLUBCHIK} runs scenarios only (tapesched simulate): it needs each drive to "
            "put its tape away as soon as its transfer ends and takes no mount policy, "
            "and a replay runs its scheduler under one"
        )
    return None


def trace_scheduler(
    scheduler: SchedulerSpec, mount_policy: str | None, requests: Sequence[TraceRequest]
) -> PluggedScheduler:
    """A factory of ``scheduler`` under ``mount_policy`` (Belady reads the trace's future)."""
    plugged = resolve_scheduler(simulator_scheduler(scheduler))
    future = future_uses(requests) if mount_policy and "belady" in mount_policy else None

    def make() -> Scheduler:
        policy = None if mount_policy is None else parse_mount_policy(mount_policy, future=future)
        return with_mount_policy(plugged.make(), policy)

    return with_plugins(plugged, make, mount_policy)


def replay(
    requests: Sequence[TraceRequest],
    layout: LibraryLayout,
    drives: int,
    keep_mounted: bool = True,
    *,
    timings: SL8500Timings | None = None,
    homes: Mapping[str, int] | None = None,
    seed: int = 0,
    float_on_dismount: bool = True,
    scheduler: SchedulerSpec = "tape-batching",
    mount_policy: str | None = None,
) -> ReplayResult:
    """Replay ``requests`` on ``layout`` with ``drives`` drives (see the module docstring).

    Parameters
    ----------
    requests
        The trace (:func:`simulator.replay.trace.read_requests`), in any order: each
        arrives at its ``arrival_s``, ties in the order given.
    layout
        The complex (:func:`simulator.replay.trace.read_layout`).
    drives
        How many of the layout's drives to use (:func:`select_drives`).
    keep_mounted
        Keep a cartridge in its drive after use until the drive is needed
        (``True``), or dismount it at once (``False``).
    timings
        Mechanical times; :class:`SL8500Timings` defaults when ``None``.
    homes
        Home level of each cartridge of the trace, and of any other
        cartridge that takes a slot (it is never moved, but a cartridge
        cannot float into its slot); when ``None``,
        :func:`simulator.replay.trace.home_levels` of the trace's cartridges with
        ``seed``.
    seed
        Seed of the home levels when ``homes`` is ``None``.
    float_on_dismount
        Put a dismounted cartridge in a free slot of the drive's level
        (``True``, ACSLS float) rather than back on its home level.
    scheduler
        The online scheduler (a name of the registry, ``module.path:Attr``,
        ...: :mod:`solvers.plugins`): which waiting request starts next.
    mount_policy
        A mount policy spec (:mod:`solvers.online.mount_policy`); by
        default ``lru`` when ``keep_mounted`` (a mount evicts the tape idle
        the longest among the idle drives of the level it takes), else
        ``at-once``. ``belady`` reads the trace's future arrivals.

    Raises
    ------
    ValueError
        For no request, a drive count out of range, a cartridge without a
        home, a home that is not a level of the layout, more cartridges
        on a level than it has slots, or a scheduler that cannot replay a
        trace (:func:`unreplayable`).
    """
    why = unreplayable(scheduler)
    if why is not None:
        raise ValueError(why)
    if not requests:
        raise ValueError("no request to replay")
    timings = SL8500Timings() if timings is None else timings
    chosen = select_drives(layout, drives)
    names = {r.cartridge for r in requests}
    if homes is None:
        homes = home_levels(names, layout, seed)
    missing = sorted(names - homes.keys())
    if missing:
        raise ValueError(f"{len(missing)} cartridges have no home level, e.g. {shown(missing[0])}")
    slots = {lv.id: lv.slots for lv in layout.levels}
    placed = {name: homes[name] for name in sorted(homes)}
    counts: dict[int, int] = {}
    for name, level in placed.items():
        if level not in slots:
            raise ValueError(
                f"cartridge {shown(name)}: home level {shown(level)} is not in the layout"
            )
        counts[level] = counts.get(level, 0) + 1
    for level, count in sorted(counts.items()):
        if count > slots[level]:
            raise ValueError(f"level {level}: {count} cartridges but {slots[level]} slots")
    platform = trace_platform(layout, chosen, timings, placed, float_on_dismount=float_on_dismount)
    if mount_policy is None:
        mount_policy = "lru" if keep_mounted else "at-once"
    name = scheduler if isinstance(scheduler, str) else getattr(scheduler, "__name__", "custom")
    # The workload, the run and its result build objects by the request that live to the
    # end: the collector's passes over them would cost as much as a tenth of the replay.
    with without_cyclic_gc():
        workload = trace_workload(requests, placed)
        simulation = Simulation(
            platform,
            TraceReads(block_mb=1.0, archive=cast(TraceArchive, workload.archive)),
            trace_scheduler(scheduler, mount_policy, requests),
            workload,
            record=False,
        )
        simulation.run()
        return _result(simulation, requests, keep_mounted, name, mount_policy)


def _result(
    simulation: Simulation,
    requests: Sequence[TraceRequest],
    keep_mounted: bool,
    scheduler: str,
    mount_policy: str,
) -> ReplayResult:
    """What a run of the trace measured, in the trace's request order."""
    platform = simulation.platform
    n = len(requests)
    latencies = [math.nan] * n
    mounted = [False] * n
    done = [math.nan] * n
    for entry in simulation.finished:
        k = int(entry.file_request.id[1:])
        assert entry.ready_s is not None and entry.data_done_s is not None
        latencies[k] = entry.ready_s - entry.file_request.arrival_s
        mounted[k] = entry.mounted
        done[k] = entry.data_done_s
    if len(simulation.finished) != n:
        raise ValueError(f"the run ended with {n - len(simulation.finished)} requests not done")
    span_s = simulation.engine.now_s
    end_s = max(r.arrival_s for r in requests)
    arrivals = [r.arrival_s for r in requests]

    def backlog(at_s: float) -> int:
        return sum(
            1 for arrival, finish in zip(arrivals, done, strict=True) if arrival <= at_s < finish
        )

    return ReplayResult(
        drive_ids=tuple(d.id for d in platform.drives),
        keep_mounted=keep_mounted,
        latencies_s=tuple(latencies),
        mounted=tuple(mounted),
        span_s=span_s,
        drive_busy_share_over_horizon=platform.drive_busy_share_over_horizon(),
        drive_in_use_share_over_horizon=share(
            platform.streamed_drive_s, len(platform.drives), span_s
        ),
        arm_busy_share_over_horizon=platform.arm_busy_share_over_horizon(),
        cross_level_mounts=platform.cross_level_mounts,
        trace_end_s=end_s,
        backlog_midway=backlog(end_s / 2),
        backlog_end=backlog(end_s),
        scheduler=scheduler,
        mount_policy=mount_policy,
    )
