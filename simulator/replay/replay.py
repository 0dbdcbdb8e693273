"""A cartridge trace replayed on an SL8500 complex, in the one simulator.

The ECMWF trace says which cartridge was wanted, when, and for how long it
then stayed in a drive. Replaying it is a run of
:class:`simulator.run.simulation.Simulation` like any other, on a platform
(:func:`~simulator.replay.sl8500.trace_platform`) whose libraries are the complex's levels:

- Each level (rail) is a library of the platform, its handbots its arms
  (loads before unloads, FIFO within each), one exchange (pick, travel,
  put) for each move; its drives are T10000s (load and unload of
  :class:`~simulator.replay.sl8500.SL8500Timings`) that stream a request's trace seconds
  (positioning included: they locate in no time).
- The levels are joined as :class:`simulator.platform.library_complex.LibraryComplex`
  says: a cartridge of another level is taken out by a handbot of its own
  level, crosses (elevator, pass-throughs), and a handbot of the drive's
  level puts it in; a dismounted cartridge floats into a free slot of the
  drive's level (ACSLS float), or goes back home the way it came.
- Each request is a read of a file of its own
  (:class:`~simulator.replay.trace_archive.TraceArchive`), written
  unstriped at the start of its cartridge, whose transfer takes the
  trace's seconds.

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
arrival. A backlog that grows by the rule of :mod:`simulator.results.records`
(:attr:`ReplayResult.saturated`) means the drives could not keep up with the
trace: the latencies then grow with the trace's length and their means
describe no steady state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import cast

from tapesched.simulator.replay.replay_result import ReplayResult, ReplayTally
from tapesched.simulator.replay.sl8500 import SL8500Timings, trace_platform
from tapesched.simulator.replay.trace import (
    LibraryLayout,
    TraceRequest,
    home_levels,
    last_arrival_s,
    trace_cartridges,
)
from tapesched.simulator.replay.trace_archive import TraceArchive, TraceReads, trace_workload
from tapesched.simulator.results.replications import without_cyclic_gc
from tapesched.simulator.run.simulation import Simulation
from tapesched.simulator.schedulers.registry import GOLUBCHIK, simulator_scheduler
from tapesched.solvers.online.mount_policy import parse_mount_policy, with_mount_policy
from tapesched.solvers.online.protocol import Scheduler
from tapesched.solvers.plugins import (
    PluggedScheduler,
    SchedulerSpec,
    resolve_scheduler,
    with_plugins,
)
from tapesched.toolkit.errors import shown
from tapesched.toolkit.metrics import share


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
    arm_s: Mapping[int, tuple[float, float]] | None = None,
    drive_s: Mapping[str, tuple[float, float]] | None = None,
    per_request: bool = False,
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
    arm_s, drive_s
        A site's own times, by level (mount and dismount) and by drive (load and
        unload), where they differ from ``timings``
        (:func:`~simulator.replay.sl8500.trace_platform`).
    per_request
        Keep each request's latency and mount flag in the result
        (:attr:`ReplayResult.latencies_s`); otherwise no request is kept once
        it ends, and the replay's memory does not grow with the trace.

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
    names = trace_cartridges(requests)
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
    platform = trace_platform(
        layout,
        chosen,
        timings,
        placed,
        float_on_dismount=float_on_dismount,
        arm_s=arm_s,
        drive_s=drive_s,
    )
    if mount_policy is None:
        mount_policy = "lru" if keep_mounted else "at-once"
    name = scheduler if isinstance(scheduler, str) else getattr(scheduler, "__name__", "custom")
    # The workload, the run and its result build objects by the request that live to the
    # end: the collector's passes over them would cost as much as a tenth of the replay.
    end_s = last_arrival_s(requests)
    with without_cyclic_gc():
        workload = trace_workload(requests, placed)
        simulation = Simulation(
            platform,
            TraceReads(block_mb=1.0, archive=cast(TraceArchive, workload.archive)),
            trace_scheduler(scheduler, mount_policy, requests),
            workload,
            record=False,
        )
        tally = ReplayTally(len(requests), end_s, per_request)
        simulation.finish_sinks.append(tally.add)
        try:
            simulation.run()
            over_mounts, over_requests = tally.stats()
        finally:
            tally.close()
    latencies, mounted = tally.per_request()
    span_s = simulation.engine.now_s
    run = simulation.platform
    return ReplayResult(
        drive_ids=tuple(d.id for d in run.drives),
        keep_mounted=keep_mounted,
        requests=len(requests),
        mounts=tally.mounts,
        over_mounts=over_mounts,
        over_requests=over_requests,
        span_s=span_s,
        drive_busy_share_over_horizon=run.drive_busy_share_over_horizon(),
        drive_in_use_share_over_horizon=share(run.streamed_drive_s, len(run.drives), span_s),
        arm_busy_share_over_horizon=run.arm_busy_share_over_horizon(),
        cross_level_mounts=run.cross_level_mounts,
        trace_end_s=end_s,
        backlog_midway=tally.backlog_midway,
        backlog_end=tally.backlog_end,
        scheduler=name,
        mount_policy=mount_policy,
        latencies_s=latencies,
        mounted=mounted,
    )
