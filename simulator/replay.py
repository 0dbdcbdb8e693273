"""Replay of a cartridge trace on an SL8500 complex with a chosen number of drives.

The model is the SL8500's, at the grain of the ECMWF trace (which says what
cartridge was wanted, when, and for how long it then stayed in a drive):

- Each level (rail) has its storage slots, its drives and its handbot(s),
  shared by the level. A handbot serves loads before unloads, FIFO within
  each (a :class:`~simulator.resource.Resource` with two priority classes,
  as in the Golubchik model); a handbot holds one cartridge at a time.
- A mount takes the drive's handbot for one exchange (pick the cartridge
  from its slot, travel, put it in the drive), then the drive loads it; the
  request's latency ends when the cartridge is ready in the drive. The
  drive is then in use for the trace's seconds.
- A cartridge whose home is on another level than the drive first takes its
  own level's handbot for one exchange (slot to the elevator or pass-through
  port), then crosses: an elevator ride between rails of one library, a
  pass-through per library crossed between libraries of the complex
  (:meth:`SL8500Timings.transfer_s`); the drive's handbot then takes it on.
- A dismount: the drive unloads (rewind and eject), then its handbot takes
  the cartridge out (one exchange) and the drive is free. The cartridge is
  put in a free slot of the drive's level when there is one (ACSLS "float",
  which saves the pass-through back; the cartridge's home becomes that
  level), otherwise it goes back to its home level the way it came.

A cartridge to mount takes an empty drive of the nearest level that has one
(its own level first, then by :meth:`SL8500Timings.transfer_s`, then by
level number; the first drive of :func:`select_drives` order on that level);
keeping mounted, when no drive is empty, it evicts the cartridge idle for
the longest on the nearest level that has an idle drive. With no drive
empty or idle, requests wait in one FIFO queue, and the next drive to be
free goes to the oldest one. A request for a cartridge already in a drive,
or on its way to one for an earlier request, waits for that cartridge
instead and needs no mount of its own: a *hit* (a cartridge in a drive
serves every request queued for it before it leaves). Two policies for a
cartridge nobody asks for any more once a use ends:

- *keep mounted* (the default): it stays in its drive, ready for the next
  request for it; a request for another cartridge takes an empty drive if
  there is one, else evicts a kept cartridge (unload and dismount, then
  mount);
- *dismount at once*: it is dismounted right away.

Drives are chosen by :func:`select_drives`: ``N`` drives spread as evenly as
possible over the levels that have drives. Timings are
:class:`SL8500Timings`, whose docstring gives each figure's source.

Home levels are given (the cartridge map of the trace's snapshot, through
:func:`simulator.trace.place_cartridges`), or else seeded hashes
(:func:`simulator.trace.home_levels`). Everything is deterministic: no
random draw, ties broken by level, then drive order, then arrival order.

What a replay measures (:class:`ReplayResult`): the latency of every
request, from its arrival to its cartridge ready in a drive for it, summed
up separately over the requests that needed a mount (the mount latency) and
over all requests (a hit counts its wait for its cartridge, 0 s when it sat
idle in its drive); the shares of drive and handbot time over the horizon,
under the names ``simulate`` gives the same quantities
(:data:`toolkit.metrics.DEFINITIONS`); and the backlog,
requests arrived and not done, half-way through the trace and at its last
arrival. A backlog that grows by the rule of :mod:`simulator.results`
(:attr:`ReplayResult.saturated`) means the drives could not keep up with the
trace: the latencies then grow with the trace's length and their means
describe no steady state.
"""

from __future__ import annotations

import math
from collections import OrderedDict, deque
from collections.abc import Mapping, Sequence
from heapq import heappop, heappush
from typing import Any, Literal

from attrs import field, frozen

from simulator.engine import Engine
from simulator.resource import Resource
from simulator.results import is_saturated
from simulator.trace import LibraryLayout, TraceRequest, home_levels
from toolkit.metrics import share
from toolkit.technology import LIBRARIES, required

LOAD, UNLOAD = 0, 1
"""Priority classes of a handbot: loads (mount moves) before unloads (dismount moves)."""


def _time(_: object, attribute: Any, value: float) -> None:
    if not 0 <= value < math.inf:
        raise ValueError(f"{attribute.name} must be finite and >= 0, got {value!r}")


def _positive_int(_: object, attribute: Any, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{attribute.name} must be an integer >= 1, got {value!r}")


_SL8500 = LIBRARIES["SL8500"]
"""The table's SL8500 complex (its drive: the T10000D row), whose figures are the defaults."""


@frozen(kw_only=True)
class SL8500Timings:
    """Mechanical times of an SL8500 complex with T10000C/D drives, in seconds.

    The defaults are the SL8500 row of the technology table
    (:data:`toolkit.technology.LIBRARIES`) and its drive's (the T10000D
    row of :data:`toolkit.technology.DRIVES`), where each figure names its
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
        """Time to carry a cartridge between levels, handbot moves excluded.

        An elevator ride when the rails differ, plus a pass-through per
        library crossed: levels in the same library share the elevator,
        pass-through ports link the same rail of adjacent libraries.
        """
        if from_level == to_level:
            return 0.0
        per = self.rails_per_library
        libraries = abs(from_level // per - to_level // per)
        elevator = self.elevator_s if from_level % per != to_level % per else 0.0
        return libraries * self.pass_through_s + elevator

    def by_distance(self, from_level: int, levels: Sequence[int]) -> list[int]:
        """``levels`` nearest first from ``from_level`` (by :meth:`transfer_s`, then number)."""
        return sorted(levels, key=lambda level: (self.transfer_s(from_level, level), level))

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

        The rule of :func:`simulator.results.is_saturated`, with the trace's
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


_SHELF, _WAITING, _TO_DRIVE, _IN_DRIVE, _LEAVING = range(5)


class _Drive:
    __slots__ = ("busy_s", "busy_since_s", "cartridge", "id", "index", "level", "next", "read_s")

    def __init__(self, drive_id: str, index: int, level: int) -> None:
        self.id = drive_id
        self.index = index
        self.level = level
        self.cartridge: _Cartridge | None = None
        self.next: _Cartridge | None = None
        self.busy_s = 0.0
        self.busy_since_s = 0.0
        self.read_s = 0.0


class _Cartridge:
    __slots__ = ("drive", "home", "name", "queue", "state")

    def __init__(self, name: str, home: int) -> None:
        self.name = name
        self.home = home
        self.state = _SHELF
        self.drive: _Drive | None = None
        self.queue: deque[int] = deque()


class _Replay:
    """One replay's state and events (see the module docstring for the model)."""

    def __init__(
        self,
        requests: Sequence[TraceRequest],
        layout: LibraryLayout,
        drive_ids: Sequence[str],
        keep_mounted: bool,
        timings: SL8500Timings,
        homes: Mapping[str, int],
        float_on_dismount: bool,
    ) -> None:
        self.engine = Engine()
        self.requests = requests
        self.timings = timings
        self.keep_mounted = keep_mounted
        self.float_on_dismount = float_on_dismount
        level_of = {d: lv.id for lv in layout.levels for d in lv.drives}
        self.drives = [_Drive(d, i, level_of[d]) for i, d in enumerate(drive_ids)]
        self.robots = {
            lv.id: Resource(self.engine, lv.robots, priorities=2) for lv in layout.levels
        }
        self.slots = {lv.id: lv.slots for lv in layout.levels}
        self.cartridges = {name: _Cartridge(name, level) for name, level in homes.items()}
        self.occupied = dict.fromkeys(self.slots, 0)
        for level in homes.values():
            self.occupied[level] += 1
        drive_levels = sorted({d.level for d in self.drives})
        self.nearest = {home: timings.by_distance(home, drive_levels) for home in self.slots}
        self.empty: dict[int, list[int]] = {lv: [] for lv in drive_levels}
        for d in self.drives:
            heappush(self.empty[d.level], d.index)
        self.idle: dict[int, OrderedDict[int, _Drive]] = {lv: OrderedDict() for lv in drive_levels}
        self.idle_count = 0
        self.waiting: deque[_Cartridge] = deque()
        self.latencies_s = [math.nan] * len(requests)
        self.done_s = [math.nan] * len(requests)
        self.mounted = [False] * len(requests)
        self.cross_level_mounts = 0

    def run(self) -> ReplayResult:
        engine = self.engine
        for index, request in enumerate(self.requests):
            engine.at(request.arrival_s, self._arrive, index)
        engine.run()
        span_s = engine.now_s
        busy_s = read_s = 0.0
        for d in self.drives:
            busy_s += d.busy_s
            read_s += d.read_s
        drives = len(self.drives)
        robots = list(self.robots.values())
        handbots = sum(r.capacity for r in robots)
        end_s = max(r.arrival_s for r in self.requests)
        return ReplayResult(
            drive_ids=tuple(d.id for d in self.drives),
            keep_mounted=self.keep_mounted,
            latencies_s=tuple(self.latencies_s),
            mounted=tuple(self.mounted),
            span_s=span_s,
            drive_busy_share_over_horizon=share(busy_s, drives, span_s),
            drive_in_use_share_over_horizon=share(read_s, drives, span_s),
            arm_busy_share_over_horizon=share(sum(r.busy_s() for r in robots), handbots, span_s),
            cross_level_mounts=self.cross_level_mounts,
            trace_end_s=end_s,
            backlog_midway=self._backlog(end_s / 2),
            backlog_end=self._backlog(end_s),
        )

    def _backlog(self, at_s: float) -> int:
        """Requests arrived by ``at_s`` whose use had not ended by then."""
        return sum(
            1
            for request, done_s in zip(self.requests, self.done_s, strict=True)
            if request.arrival_s <= at_s < done_s
        )

    def _arrive(self, index: int) -> None:
        cartridge = self.cartridges[self.requests[index].cartridge]
        cartridge.queue.append(index)
        if cartridge.state == _SHELF:
            cartridge.state = _WAITING
            self._need_drive(cartridge)
        elif cartridge.state == _IN_DRIVE:
            drive = cartridge.drive
            assert drive is not None
            idle = self.idle[drive.level]
            if drive.index in idle:
                del idle[drive.index]
                self.idle_count -= 1
                drive.busy_since_s = self.engine.now_s
                self._start_use(drive)

    def _need_drive(self, cartridge: _Cartridge) -> None:
        for level in self.nearest[cartridge.home]:
            pool = self.empty[level]
            if pool:
                drive = self.drives[heappop(pool)]
                drive.busy_since_s = self.engine.now_s
                self._mount(drive, cartridge)
                return
        if self.idle_count:
            for level in self.nearest[cartridge.home]:
                idle = self.idle[level]
                if idle:
                    _, drive = idle.popitem(last=False)
                    self.idle_count -= 1
                    drive.busy_since_s = self.engine.now_s
                    self._dismount(drive, cartridge)
                    return
        self.waiting.append(cartridge)

    def _mount(self, drive: _Drive, cartridge: _Cartridge) -> None:
        cartridge.state = _TO_DRIVE
        cartridge.drive = drive
        drive.cartridge = cartridge
        self.mounted[cartridge.queue[0]] = True
        if cartridge.home == drive.level:
            self.robots[drive.level].request(LOAD, self._place, drive, cartridge)
        else:
            self.cross_level_mounts += 1
            self.robots[cartridge.home].request(LOAD, self._fetch, drive, cartridge)

    def _fetch(self, drive: _Drive, cartridge: _Cartridge) -> None:
        self.engine.after(self.timings.exchange_s, self._fetched, drive, cartridge)

    def _fetched(self, drive: _Drive, cartridge: _Cartridge) -> None:
        self.robots[cartridge.home].release()
        crossing_s = self.timings.transfer_s(cartridge.home, drive.level)
        self.engine.after(crossing_s, self._crossed, drive, cartridge)

    def _crossed(self, drive: _Drive, cartridge: _Cartridge) -> None:
        self.robots[drive.level].request(LOAD, self._place, drive, cartridge)

    def _place(self, drive: _Drive, cartridge: _Cartridge) -> None:
        self.engine.after(self.timings.exchange_s, self._placed, drive, cartridge)

    def _placed(self, drive: _Drive, cartridge: _Cartridge) -> None:
        self.robots[drive.level].release()
        self.engine.after(self.timings.load_s, self._loaded, drive, cartridge)

    def _loaded(self, drive: _Drive, cartridge: _Cartridge) -> None:
        cartridge.state = _IN_DRIVE
        self._start_use(drive)

    def _start_use(self, drive: _Drive) -> None:
        cartridge = drive.cartridge
        assert cartridge is not None
        index = cartridge.queue.popleft()
        now = self.engine.now_s
        self.latencies_s[index] = now - self.requests[index].arrival_s
        seconds = self.requests[index].seconds_in_drive
        self.done_s[index] = now + seconds
        drive.read_s += seconds
        self.engine.after(seconds, self._used, drive)

    def _used(self, drive: _Drive) -> None:
        cartridge = drive.cartridge
        assert cartridge is not None
        if cartridge.queue:
            self._start_use(drive)
        elif self.waiting:
            self._dismount(drive, self.waiting.popleft())
        elif self.keep_mounted:
            drive.busy_s += self.engine.now_s - drive.busy_since_s
            self.idle[drive.level][drive.index] = drive
            self.idle_count += 1
        else:
            self._dismount(drive, None)

    def _dismount(self, drive: _Drive, then: _Cartridge | None) -> None:
        cartridge = drive.cartridge
        assert cartridge is not None
        cartridge.state = _LEAVING
        drive.next = then
        self.engine.after(self.timings.unload_s, self._unloaded, drive)

    def _unloaded(self, drive: _Drive) -> None:
        self.robots[drive.level].request(UNLOAD, self._take_out, drive)

    def _take_out(self, drive: _Drive) -> None:
        self.engine.after(self.timings.exchange_s, self._taken_out, drive)

    def _taken_out(self, drive: _Drive) -> None:
        self.robots[drive.level].release()
        cartridge = drive.cartridge
        assert cartridge is not None
        drive.cartridge = None
        then, drive.next = drive.next, None
        if then is None and self.waiting:
            then = self.waiting.popleft()
        if then is not None:
            self._mount(drive, then)
        else:
            drive.busy_s += self.engine.now_s - drive.busy_since_s
            heappush(self.empty[drive.level], drive.index)
        level = drive.level
        if cartridge.home != level and self.float_on_dismount:
            if self.occupied[level] < self.slots[level]:
                self.occupied[cartridge.home] -= 1
                self.occupied[level] += 1
                cartridge.home = level
        if cartridge.home == level:
            self._shelved(cartridge)
        else:
            crossing_s = self.timings.transfer_s(level, cartridge.home)
            self.engine.after(crossing_s, self._back_home, cartridge)

    def _back_home(self, cartridge: _Cartridge) -> None:
        self.robots[cartridge.home].request(UNLOAD, self._put_home, cartridge)

    def _put_home(self, cartridge: _Cartridge) -> None:
        self.engine.after(self.timings.exchange_s, self._home, cartridge)

    def _home(self, cartridge: _Cartridge) -> None:
        self.robots[cartridge.home].release()
        self._shelved(cartridge)

    def _shelved(self, cartridge: _Cartridge) -> None:
        cartridge.drive = None
        cartridge.state = _SHELF
        if cartridge.queue:
            cartridge.state = _WAITING
            self._need_drive(cartridge)


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
) -> ReplayResult:
    """Replay ``requests`` on ``layout`` with ``drives`` drives (see the module docstring).

    Parameters
    ----------
    requests
        The trace (:func:`simulator.trace.read_requests`), in any order: each
        arrives at its ``arrival_s``, ties in the order given.
    layout
        The complex (:func:`simulator.trace.read_layout`).
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
        :func:`simulator.trace.home_levels` of the trace's cartridges with
        ``seed``.
    seed
        Seed of the home levels when ``homes`` is ``None``.
    float_on_dismount
        Put a dismounted cartridge in a free slot of the drive's level
        (``True``, ACSLS float) rather than back on its home level.

    Raises
    ------
    ValueError
        For no request, a drive count out of range, a cartridge without a
        home, a home that is not a level of the layout, or more cartridges
        on a level than it has slots.
    """
    if not requests:
        raise ValueError("no request to replay")
    timings = SL8500Timings() if timings is None else timings
    chosen = select_drives(layout, drives)
    names = {r.cartridge for r in requests}
    if homes is None:
        homes = home_levels(names, layout, seed)
    missing = sorted(names - homes.keys())
    if missing:
        raise ValueError(f"{len(missing)} cartridges have no home level, e.g. {missing[0]!r}")
    slots = {lv.id: lv.slots for lv in layout.levels}
    placed = {name: homes[name] for name in sorted(homes)}
    counts: dict[int, int] = {}
    for name, level in placed.items():
        if level not in slots:
            raise ValueError(f"cartridge {name!r}: home level {level!r} is not in the layout")
        counts[level] = counts.get(level, 0) + 1
    for level, count in sorted(counts.items()):
        if count > slots[level]:
            raise ValueError(f"level {level}: {count} cartridges but {slots[level]} slots")
    return _Replay(requests, layout, chosen, keep_mounted, timings, placed, float_on_dismount).run()
