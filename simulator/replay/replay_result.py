"""What a replay measured, taken as each request ends: no request is kept unless asked.

:class:`ReplayTally` is the sink of a replay's run (a
:attr:`~simulator.run.simulation.Simulation.finish_sinks` entry): it counts the
mounts, sums the latencies exactly and keeps their order statistics
(:class:`~simulator.results.tally.OrderStatistics`: in memory up to 262,144
values, on disk past that), and counts the backlog at the trace's half-way
point and end from each request's arrival and end. Per-request latencies and
mount flags are kept, in trace order, only when a result document asks for
them. :class:`ReplayResult` is what it gives at the end.
"""

from __future__ import annotations

import math
from array import array
from typing import Any, Literal

from attrs import frozen

from tapesched.simulator.results.records import is_saturated
from tapesched.simulator.results.tally import OrderStatistics
from tapesched.simulator.run.admitted import AdmittedRequest


@frozen
class LatencyStats:
    """Count, mean, median, 95th percentile (linear between ranks) and max of latencies."""

    count: int
    mean: float
    median: float
    p95: float
    max: float

    def to_dict(self) -> dict[str, float | int]:
        """As the result document gives them."""
        return {
            "count": self.count,
            "mean": self.mean,
            "median": self.median,
            "p95": self.p95,
            "max": self.max,
        }


def _stats(values: OrderStatistics) -> LatencyStats | None:
    if values.count == 0:
        return None
    return LatencyStats(
        values.count, values.mean(), values.quantile(0.5), values.quantile(0.95), values.max
    )


@frozen
class ReplayResult:
    """What a replay measured.

    Attributes
    ----------
    drive_ids
        The drives used, in :func:`~simulator.replay.replay.select_drives` order.
    keep_mounted
        The policy replayed.
    requests, mounts
        Requests replayed, and those served by a mount of their own.
    over_mounts, over_requests
        The latency statistics over the requests that needed a mount and
        over all requests (``None`` over mounts when none did). A latency
        runs from a request's arrival to its cartridge ready in a drive for
        it (for a hit, to the end of the wait for the cartridge, 0 when it
        sat idle in its drive).
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
    latencies_s, mounted
        Per request, in the order given, when the replay kept them
        (``per_request``; ``None`` otherwise): its latency, and whether it
        was served by a mount of its own (``False``: a hit).
    """

    drive_ids: tuple[str, ...]
    keep_mounted: bool
    requests: int
    mounts: int
    over_mounts: LatencyStats | None
    over_requests: LatencyStats
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
    latencies_s: tuple[float, ...] | None = None
    mounted: tuple[bool, ...] | None = None

    @property
    def drives(self) -> int:
        """Number of drives used."""
        return len(self.drive_ids)

    @property
    def hits(self) -> int:
        """Requests served by a cartridge already in a drive or on its way to one."""
        return self.requests - self.mounts

    @property
    def saturated(self) -> bool:
        """Whether the replay could not keep up with the trace.

        The rule of :func:`simulator.results.records.is_saturated`, with the trace's
        end as the run's end: the backlog at the last arrival outnumbers
        both 20 and 1 % of the requests, and has grown by half since
        half-way. The latencies of such a replay grow with the trace's
        length: their means describe no steady state of the library.
        """
        return is_saturated(self.backlog_end, self.requests, self.backlog_midway)

    @property
    def mount_latencies_s(self) -> tuple[float, ...]:
        """The latencies of the requests served by a mount of their own, in order (kept
        per request only).

        Raises
        ------
        ValueError
            When the replay kept no per-request latencies.
        """
        if self.latencies_s is None or self.mounted is None:
            raise ValueError("the replay kept no per-request latencies (per_request)")
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
        stats = self.over_mounts if over == "mounts" else self.over_requests
        if stats is None:
            raise ValueError("no request needed a mount")
        return stats.to_dict()

    @property
    def mean_latency_s(self) -> float:
        """Mean of the latencies."""
        return self.over_requests.mean

    @property
    def median_latency_s(self) -> float:
        """Median of the latencies."""
        return self.over_requests.median

    @property
    def p95_latency_s(self) -> float:
        """95th percentile of the latencies (linear interpolation between ranks)."""
        return self.over_requests.p95

    @property
    def max_latency_s(self) -> float:
        """Longest latency."""
        return self.over_requests.max

    def summary(self) -> dict[str, Any]:
        """The measures without the per-request lists, for a table or JSON.

        The latency statistics (:meth:`latency_stats`) are ``None`` when the
        replay is :attr:`saturated`.
        """
        saturated = self.saturated
        mounts = self.over_mounts
        return {
            "drives": self.drives,
            "keep_mounted": self.keep_mounted,
            "scheduler": self.scheduler,
            "mount_policy": self.mount_policy,
            "requests": self.requests,
            "mounts": self.mounts,
            "hits": self.hits,
            "cross_level_mounts": self.cross_level_mounts,
            "latency_over_mounts_s": None if saturated or mounts is None else mounts.to_dict(),
            "latency_over_requests_s": None if saturated else self.over_requests.to_dict(),
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
        """:meth:`summary`, the drives, and the per-request latencies and mount flags when the
        replay kept them."""
        document = {**self.summary(), "drive_ids": list(self.drive_ids)}
        if self.latencies_s is not None and self.mounted is not None:
            document["latencies_s"] = list(self.latencies_s)
            document["mounted"] = list(self.mounted)
        return document


class ReplayTally:
    """A replay's statistics, taken as each request ends (see the module).

    Parameters
    ----------
    requests
        Requests of the trace; request ``k`` of the trace is the run's ``r{k}``.
    trace_end_s
        The last arrival (the backlog is counted at it and half-way to it).
    per_request
        Keep each request's latency and mount flag, in trace order.
    """

    def __init__(self, requests: int, trace_end_s: float, per_request: bool) -> None:
        self.requests = requests
        self.trace_end_s = trace_end_s
        self.done = 0
        self.mounts = 0
        self.over_mounts = OrderStatistics()
        self.over_requests = OrderStatistics()
        self.backlog_midway = 0
        self.backlog_end = 0
        self._latencies = array("d", [math.nan]) * requests if per_request else None
        self._mounted = bytearray(requests) if per_request else None

    def add(self, entry: AdmittedRequest) -> None:
        """A request ended: its latency is its cartridge ready less its arrival."""
        fr = entry.file_request
        ready_s, end_s = entry.ready_s, entry.data_done_s
        assert ready_s is not None and end_s is not None
        arrival_s = fr.arrival_s
        latency = ready_s - arrival_s
        self.done += 1
        self.over_requests.add(latency)
        if entry.mounted:
            self.mounts += 1
            self.over_mounts.add(latency)
        half = self.trace_end_s / 2
        if arrival_s <= half < end_s:
            self.backlog_midway += 1
        if arrival_s <= self.trace_end_s < end_s:
            self.backlog_end += 1
        if self._latencies is not None and self._mounted is not None:
            k = int(fr.id[1:])
            self._latencies[k] = latency
            self._mounted[k] = entry.mounted

    def close(self) -> None:
        """Remove the temporary files of the order statistics."""
        self.over_mounts.close()
        self.over_requests.close()

    def stats(self) -> tuple[LatencyStats | None, LatencyStats]:
        """The latency statistics over mounts and over requests.

        Raises
        ------
        ValueError
            When some request did not end.
        """
        if self.done != self.requests:
            raise ValueError(f"the run ended with {self.requests - self.done} requests not done")
        over_requests = _stats(self.over_requests)
        assert over_requests is not None
        return _stats(self.over_mounts), over_requests

    def per_request(self) -> tuple[tuple[float, ...] | None, tuple[bool, ...] | None]:
        """The kept latencies and mount flags, in trace order (``None``: not kept)."""
        if self._latencies is None or self._mounted is None:
            return None, None
        return tuple(self._latencies), tuple(bool(m) for m in self._mounted)
