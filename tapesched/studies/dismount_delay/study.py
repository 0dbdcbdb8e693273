"""The ECMWF defer-dismount study: mounts and mount latency against the dismount delay.

A tape site keeps a cartridge in its drive after use in the hope that it is
asked for again soon, and dismounts it after ``T`` seconds idle (the
"dismount delay" of ECMWF's and CTA's practice) or when a mount needs the
drive. A longer delay saves mounts (the next request for a kept cartridge
is a hit) and costs latency for the requests that find every drive holding
an idle cartridge (their mount first evicts one: an unload and a dismount
before the mount). This study replays the ECMWF sample
(:mod:`simulator.replay.replay`: its SL8500 complex, its cartridge map, one
handbot a rail) with ``lru+defer:T``, ``fifo+defer:T`` and
``belady+defer:T`` for ``T`` in :data:`DEFER_S`, and with each rule keeping
cartridges mounted (``T`` infinite: no deferred dismount at all), and
reports the mounts, the mean latency of the requests that needed a mount,
the mean latency over all requests and the cross-level mounts.

``T = 0`` is ``at-once``: with no delay the eviction rule never chooses
(every idle drive is empty), so the three series meet there. Belady (the
cartridge wanted again latest goes first) reads the trace's future: the
yardstick of eviction, not a policy a site can run.

A replay is deterministic (no random draw): each point is one run, with no
interval (``half_width`` empty, ``replications`` 1).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path

from attrs import frozen

from tapesched.instances import shipped
from tapesched.simulator.replay.replay import ReplayResult, replay
from tapesched.simulator.replay.trace import (
    LibraryLayout,
    TraceRequest,
    place_cartridges,
    read_homes,
    read_layout,
    read_requests,
)

EXPERIMENT = "ecmwf-defer-dismount"
"""The experiment's name under ``tapesched experiment``."""

X_NAME = "defer_s"
"""The swept setting: seconds an idle cartridge stays in its drive (``inf``: kept mounted)."""

METRICS = (
    "mounts",
    "mean_mount_latency_s",
    "mean_latency_s",
    "cross_level_mounts",
)
"""What each point reports (the latencies: arrival to cartridge ready in a drive)."""

DEFER_S = (0.0, 60.0, 120.0, 300.0, 600.0, 900.0, 1800.0, math.inf)
"""The delays of the full run; ``inf`` keeps cartridges mounted until a mount needs the drive."""

QUICK_DEFER_S = (0.0, 300.0, 1800.0, math.inf)
"""The delays of ``--quick``."""

EVICTIONS = ("lru", "fifo", "belady")
"""The eviction rules: one series each."""

TRACE_DIR = shipped("traces", "ecmwf")
"""Where the shipped sample, its layout and its cartridge map are."""


@frozen
class DeferConfig:
    """What one run of the study replays.

    Attributes
    ----------
    drives
        Drives of the complex used (:func:`simulator.replay.replay.select_drives`).
    defer_s
        The delays swept.
    evictions
        The eviction rules, a series each.
    requests
        Replay the first ``requests`` of the sample (``None``: all 10,000).
    """

    drives: int = 170
    defer_s: tuple[float, ...] = DEFER_S
    evictions: tuple[str, ...] = EVICTIONS
    requests: int | None = None


FULL = DeferConfig()
QUICK = DeferConfig(defer_s=QUICK_DEFER_S, requests=5_000)


def mount_policy(eviction: str, defer_s: float) -> str:
    """The mount policy spec of a point: ``eviction`` alone when kept mounted."""
    if math.isinf(defer_s):
        return eviction
    return f"{eviction}+defer:{defer_s:g}"


@frozen
class DeferPoint:
    """One replay of the study: its series (eviction rule), delay and what it measured."""

    eviction: str
    defer_s: float
    result: ReplayResult

    @property
    def series(self) -> str:
        """The series name: the eviction rule."""
        return self.eviction

    def value(self, metric: str) -> float | None:
        """A metric of :data:`METRICS` (``None``: a latency of a replay that could not keep up)."""
        r = self.result
        if metric == "mounts":
            return float(r.mounts)
        if metric == "cross_level_mounts":
            return float(r.cross_level_mounts)
        if r.saturated:
            return None
        if metric == "mean_mount_latency_s":
            return r.latency_stats("mounts")["mean"]
        if metric == "mean_latency_s":
            return r.latency_stats("requests")["mean"]
        raise KeyError(metric)


def load_sample(
    trace_dir: Path = TRACE_DIR,
) -> tuple[tuple[TraceRequest, ...], LibraryLayout, dict[str, int]]:
    """The shipped sample, its SL8500 layout and every cartridge's home level (the map's)."""
    requests = read_requests(trace_dir / "io_events_sample_10k.csv.bz2")
    layout = read_layout(trace_dir / "sl8500_from_snap20111001.json.bz2")
    mapped = read_homes(trace_dir / "crtmapping.json", layout)
    homes = place_cartridges((r.cartridge for r in requests), layout, mapped).levels
    return requests, layout, dict(homes)


Sample = tuple[Sequence[TraceRequest], LibraryLayout, dict[str, int]]
"""The requests replayed, their complex's layout and every cartridge's home level."""


def run_study(
    config: DeferConfig,
    advance: Callable[[str], None] | None = None,
    sample: Sample | None = None,
) -> list[DeferPoint]:
    """Replay the sample once per eviction rule and delay, in that order.

    ``advance(what)`` is called after each replay (for a progress bar).
    """
    requests, layout, homes = sample if sample is not None else load_sample()
    if config.requests is not None:
        requests = requests[: config.requests]
    points: list[DeferPoint] = []
    for eviction in config.evictions:
        for defer_s in config.defer_s:
            points.append(replay_point(config, eviction, defer_s, (requests, layout, homes)))
            if advance is not None:
                advance(mount_policy(eviction, defer_s))
    return points


def replay_point(config: DeferConfig, eviction: str, defer_s: float, sample: Sample) -> DeferPoint:
    """One replay of ``sample`` (its requests as replayed) under ``eviction`` and ``defer_s``."""
    requests, layout, homes = sample
    spec = mount_policy(eviction, defer_s)
    result = replay(requests, layout, config.drives, homes=homes, mount_policy=spec)
    return DeferPoint(eviction, defer_s, result)
