"""A GEMSS-like HSM in time: group queues, recall and migration threads, an allocator's period.

The run takes a :class:`~simulator.groups.GemssPlatform`, the tape batches
of every group (:class:`~simulator.groups.TapeBatch`, one thread each) and
an :class:`~simulator.allocator.Allocator`, and plays them out on the
event engine (:mod:`simulator.engine`):

- a batch joins its queue ``(group, set, kind)`` at its arrival;
- the allocator is asked at time 0 (after the arrivals due then) and every
  ``period_s`` while work is left, and its caps, reserve and reclamations
  hold until the next period;
- a thread starts, on a free drive of the batch's set, whenever its queue
  is under its cap (recalls: the allocator's; migrations: the platform's
  fixed ``migration_caps``), a recall leaves the set's reserve free, and
  the group's HSM server keeps within its Fibre Channel link at the set's
  native rate; among the queues that may start, the oldest pending batch
  goes first;
- a thread holds its drive for :meth:`~simulator.groups.DriveSet.thread_s`
  (fixed by the batch), a reclamation process holds its drives for its
  duration.

Why a run of its own rather than :class:`simulator.simulation.Simulation`
    The simulation's unit of work is a file request, started by an online
    scheduler over drives of one mover; GEMSS's is a thread bound to a
    cartridge and a group's queue, started under caps a periodic allocator
    sets. Modelling a thread per cartridge with its time fixed by the
    cartridge's files keeps a 95,000-file bulk recall at a few thousand
    events, and makes each batch's work a number the offline allocation
    (:mod:`simulator.offline_allocation`) sees exactly.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from attrs import frozen

from simulator.allocator import Allocation, AllocationView, Allocator, Queue
from simulator.engine import Engine
from simulator.groups import GemssPlatform, TapeBatch


@frozen
class ThreadRecord:
    """A thread run: its batch, its queue, and when it held its drive."""

    batch: str
    group: str
    drive_set: str
    kind: str
    start_s: float
    end_s: float
    size_mb: float
    arrival_s: float


@frozen
class ReclamationRecord:
    """A reclamation process run: its set, drives, span and cartridges reclaimed."""

    drive_set: str
    drives: int
    start_s: float
    end_s: float
    tapes: int


@frozen
class AllocationRecord:
    """An allocation made: when, the free drives then, and what was decided."""

    time_s: float
    free: tuple[tuple[str, int], ...]
    allocation: Allocation


@frozen
class GemssResult:
    """What a run did: every thread, reclamation and allocation, when it ended, what it left."""

    threads: tuple[ThreadRecord, ...]
    reclamations: tuple[ReclamationRecord, ...]
    allocations: tuple[AllocationRecord, ...]
    end_s: float
    stranded: tuple[str, ...] = ()
    """Batches never started: pending when nothing ran, no batch was to come and an
    allocation started nothing (a cap of 0, say)."""


class GemssRun:
    """One run of batches under an allocator (see the module).

    Parameters
    ----------
    platform
        Servers, groups, drive sets, migration caps, reclamation pools.
    batches
        Every batch of the run.
    allocator
        Asked every ``allocator.period_s``.
    """

    def __init__(
        self, platform: GemssPlatform, batches: Sequence[TapeBatch], allocator: Allocator
    ) -> None:
        platform.check_batches(batches)
        if not allocator.period_s > 0:
            raise ValueError(f"the allocator's period must be > 0, got {allocator.period_s!r}")
        self.platform = platform
        self.allocator = allocator
        self.engine = Engine()
        self.batches = sorted(batches, key=lambda b: (b.arrival_s, b.id))
        self.sets = {s.id: s for s in platform.drive_sets}
        self.server_of = {g.id: g.server for g in platform.groups}
        self.fc = {s.id: s.fc_mb_s for s in platform.servers}
        self.free = {s.id: s.drives for s in platform.drive_sets}
        self.queues: dict[Queue, deque[TapeBatch]] = {}
        self.running: dict[Queue, int] = {}
        self.server_mb_s = dict.fromkeys(self.fc, 0.0)
        self.caps: dict[tuple[str, str], int] = {}
        self.reserve: dict[str, int] = {}
        pools = platform.reclamation
        self.pools = {
            dset: sorted((p for p in pool.reclaimable_pct if p >= pool.threshold_pct), reverse=True)
            for dset, pool in pools.items()
        }
        self.threads: list[ThreadRecord] = []
        self.reclamations: list[ReclamationRecord] = []
        self.allocations: list[AllocationRecord] = []
        self.carry_s = dict.fromkeys(self.pools, 0.0)
        """Reclamation work done on the first cartridge of each pool, carried over."""
        self.left = len(self.batches)
        self.threads_running = 0
        self.reclaiming = 0
        self._next = 0

    def run(self) -> GemssResult:
        """Play every batch out; the run ends when the last thread or reclamation is done."""
        self._schedule_arrivals()
        self.engine.at(0.0, self._allocate)
        self.engine.run()
        end = max(
            [t.end_s for t in self.threads] + [r.end_s for r in self.reclamations], default=0.0
        )
        stranded = tuple(b.id for q in self.queues.values() for b in q)
        return GemssResult(
            tuple(self.threads), tuple(self.reclamations), tuple(self.allocations), end, stranded
        )

    def _schedule_arrivals(self) -> None:
        if self._next < len(self.batches):
            time_s = self.batches[self._next].arrival_s
            self.engine.at(time_s, self._arrive, time_s)

    def _arrive(self, time_s: float) -> None:
        while self._next < len(self.batches) and self.batches[self._next].arrival_s == time_s:
            batch = self.batches[self._next]
            self._next += 1
            self.queues.setdefault(batch.queue, deque()).append(batch)
        self._schedule_arrivals()
        self._start()

    def view(self) -> AllocationView:
        """The platform now, as the allocator sees it."""
        pending = {q: len(b) for q, b in self.queues.items() if b}
        return AllocationView(
            now_s=self.engine.now_s,
            platform=self.platform,
            free=dict(self.free),
            running={q: n for q, n in self.running.items() if n},
            pending=pending,
            server_mb_s=dict(self.server_mb_s),
            reclaimable={dset: len(tapes) for dset, tapes in self.pools.items()},
        )

    def _allocate(self) -> None:
        allocation = self.allocator.allocate(self.view())
        now = self.engine.now_s
        self.allocations.append(AllocationRecord(now, tuple(sorted(self.free.items())), allocation))
        self.caps = dict(allocation.recall_caps)
        self.reserve = dict(allocation.reserve)
        started = len(self.threads)
        self._start()
        for dset, processes in allocation.reclaim.items():
            for _ in range(processes):
                self._reclaim(dset)
        arrivals_left = self._next < len(self.batches)
        stuck = (
            not arrivals_left
            and not self.threads_running
            and not self.reclaiming
            and len(self.threads) == started
        )
        if self.left and not stuck:
            self.engine.after(self.allocator.period_s, self._allocate)

    def _reclaim(self, dset: str) -> None:
        pool = self.platform.reclamation[dset]
        tapes = self.pools.get(dset)
        if not tapes or self.free[dset] - self.reserve.get(dset, 0) < pool.drives:
            return
        spec = self.sets[dset]
        budget, reclaimed = pool.duration_s + self.carry_s[dset], 0
        while tapes:
            need = (100.0 - tapes[0]) / 100.0 * pool.tape_mb / spec.rate_mb_s
            if need > budget:
                break
            budget -= need
            tapes.pop(0)
            reclaimed += 1
        self.carry_s[dset] = budget if tapes else 0.0
        self.free[dset] -= pool.drives
        self.reclaiming += 1
        now = self.engine.now_s
        self.reclamations.append(
            ReclamationRecord(dset, pool.drives, now, now + pool.duration_s, reclaimed)
        )
        self.engine.after(pool.duration_s, self._reclaimed, dset, pool.drives)

    def _reclaimed(self, dset: str, drives: int) -> None:
        self.free[dset] += drives
        self.reclaiming -= 1
        self._start()

    def _may_start(self, queue: Queue) -> bool:
        group, dset, kind = queue
        free = self.free[dset]
        spec = self.sets[dset]
        server = self.server_of[group]
        if self.server_mb_s[server] + spec.rate_mb_s > self.fc[server] + 1e-9:
            return False
        running = self.running.get(queue, 0)
        if kind == "migration":
            return free > 0 and running < self.platform.migration_caps.get((group, dset), 0)
        return free > self.reserve.get(dset, 0) and running < self.caps.get((group, dset), 0)

    def _start(self) -> None:
        while True:
            ready = [q for q, b in self.queues.items() if b and self._may_start(q)]
            if not ready:
                return
            queue = min(ready, key=lambda q: (self.queues[q][0].arrival_s, self.queues[q][0].id))
            self._run_thread(self.queues[queue].popleft())

    def _run_thread(self, batch: TapeBatch) -> None:
        spec = self.sets[batch.drive_set]
        server = self.server_of[batch.group]
        self.free[batch.drive_set] -= 1
        self.server_mb_s[server] += spec.rate_mb_s
        self.running[batch.queue] = self.running.get(batch.queue, 0) + 1
        self.left -= 1
        self.threads_running += 1
        now = self.engine.now_s
        duration = spec.thread_s(batch)
        self.threads.append(
            ThreadRecord(
                batch.id,
                batch.group,
                batch.drive_set,
                batch.kind,
                now,
                now + duration,
                batch.size_mb,
                batch.arrival_s,
            )
        )
        self.engine.after(duration, self._thread_done, batch)

    def _thread_done(self, batch: TapeBatch) -> None:
        spec = self.sets[batch.drive_set]
        self.free[batch.drive_set] += 1
        self.server_mb_s[self.server_of[batch.group]] -= spec.rate_mb_s
        self.running[batch.queue] -= 1
        self.threads_running -= 1
        self._start()


def run_gemss(
    platform: GemssPlatform, batches: Sequence[TapeBatch], allocator: Allocator
) -> GemssResult:
    """Run ``batches`` on ``platform`` under ``allocator`` (see :class:`GemssRun`)."""
    return GemssRun(platform, batches, allocator).run()
