"""A GEMSS-like HSM on the one simulation: group queues, a thread per cartridge, an allocator.

The run takes a :class:`~simulator.sharing.groups.HsmPlatform`, the tape batches of
every group (:class:`~simulator.sharing.groups.TapeBatch`) and an
:class:`~simulator.sharing.allocator.Allocator`, and plays them out as a run of
:class:`simulator.run.simulation.Simulation` like any other:

- the platform is :meth:`~simulator.sharing.groups.HsmPlatform.platform_spec`: a
  library per drive set, its arms, its drives (mount, load, locate,
  stream, unload, dismount: the platform's one timing);
- every batch's files are the archive at time 0 (:class:`HsmArchive`), at
  their cartridges and offsets; each file of a batch is a read
  (:class:`~simulator.storage.files.FileRequest`) arriving with its batch;
  migrations are reads too, of files laid end to end from the start of a
  cartridge of their own (the drive time of writing them; see *Migrations*);
- which request starts is an online scheduler's choice (``tape-batching``
  by default) under a mount policy (``at-once`` by default: a cartridge is
  put away when its thread is done, as ISP-HSM does), composed as ``simulate``
  composes them, inside :class:`HsmAdmission`, the HSM's own rules.

:class:`HsmAdmission` is a scheduler wrapping another
(:class:`~solvers.online.mount_policied.MountPolicied`'s pattern). It holds
back every request and shows the inner scheduler only what GEMSS would
let run:

- a batch (a cartridge of a group's list) is admitted as a *thread* when
  its queue ``(group, set, kind)`` is under its cap (recalls: the
  allocator's; migrations: the platform's fixed ``migration_caps``), a
  drive of its set is free (beyond the set's reserve, for a recall) and
  its group's HSM server keeps within its Fibre Channel link at the set's
  native rate; among the queues that may start, the oldest pending batch
  goes first;
- of a thread, the inner scheduler sees the next file only, in position
  order (ISP-HSM hands a thread its cartridge's list ordered by offset),
  and only while the cartridge is not in a busy drive: it chooses among
  threads, not among a cartridge's files;
- a thread counts against its queue, its server and its set from its
  admission until its drive is free again (its last file read and its
  cartridge put away);
- the allocator is asked at the first decision time (once all its
  arrivals are in) and then every
  ``period_s`` (the wrapper's ``wake_s``, which the simulation honours)
  while batches wait or arrivals are to come; its caps, reserve and
  reclamations hold until the next period;
- a space reclamation process is a request of its own on two drives of
  its set (a 2-wide read of the pool's cartridge and of the cartridge it
  copies to, streaming for the process's duration), admitted when the
  allocator says and the set's drives beyond the reserve allow; the
  cartridges it reclaims are counted as before, from the pool's shares.

Migrations
    The simulator's writes go where the archival policy's streams are,
    and streams are shared by type (policy and scheme), not by group: a
    CMS migration would append to a cartridge an ATLAS one left mounted,
    and no thread would own a cartridge. A migration is therefore played
    as reads of the files it writes, end to end from the start of a
    cartridge of its own: the same mount, load, stream, unload and
    dismount on one drive, in the group's migration queue.

What a run measures (:class:`HsmResult`): each batch's thread (its first
file's start, its last file's end, when each file's data was done), each
reclamation, each allocation, each admission, and the batches never
started.
"""

from __future__ import annotations

import bisect
import math
from collections import defaultdict, deque
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING, cast

from attrs import field, frozen

from tapesched.simulator.run.simulation import Simulation
from tapesched.simulator.schedulers.registry import simulator_scheduler
from tapesched.simulator.sharing.allocator import Allocation, AllocationView, Allocator, Queue
from tapesched.simulator.sharing.groups import HsmPlatform, TapeBatch
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
from tapesched.solvers.online.filtered import FilteredPlatform
from tapesched.solvers.online.mount_policy import parse_mount_policy, with_mount_policy
from tapesched.solvers.online.protocol import Decision, PlatformState, Scheduler, Start
from tapesched.solvers.plugins import SchedulerSpec, resolve_scheduler, with_plugins
from tapesched.toolkit.model import Request

if TYPE_CHECKING:  # numpy is imported only when a serpentine locate is ordered
    pass

POLICY = "parallel"
"""The archival policy the files are read by: unstriped files, 2-wide reclamations."""

UNSTRIPED = Scheme(1, 0)
RECLAIM = Scheme(2, 0)
"""A reclamation process: two drives, the pool's cartridge read and another written."""


class HsmArchive(NumberedFiles):
    """Every batch's files and the reclamation processes, as the archive at time 0.

    File ``f{k}`` is the ``k``-th file of the batches in the order given
    (each batch's files in its order), on the batch's cartridge at its
    offset, a tape of the batch's drive set (library); then, per set with a
    reclamation pool, the processes it may need, each a 2-wide file on two
    cartridges of their own streaming ``duration_s`` at the set's rate.
    (:class:`simulator.storage.catalogue.LazyArchive`.)
    """

    def __init__(self, platform: HsmPlatform, batches: Sequence[TapeBatch]) -> None:
        self.files: list[tuple[str, float, float]] = []
        """``(tape, offset_mb, size_mb)`` of each file."""
        self.batch_of: list[int] = []
        """Index in ``batches`` of each file's batch (-1: a reclamation)."""
        self.reclaim_set: dict[int, str] = {}
        """The set of each reclamation file."""
        self.tape_set: dict[str, str] = {}
        for i, batch in enumerate(batches):
            self.tape_set[batch.tape] = batch.drive_set
            for offset_mb, size_mb in batch.files:
                self.files.append((batch.tape, offset_mb, size_mb))
                self.batch_of.append(i)
        for dset_id, pool in platform.reclamation.items():
            dset = platform.drive_set(dset_id)
            size = pool.duration_s * dset.rate_mb_s
            for j in range(processes_needed(platform, dset_id)):
                tape = f"reclaim-{dset_id}-{j}"
                self.tape_set[tape] = self.tape_set[f"{tape}-to"] = dset_id
                self.reclaim_set[len(self.files)] = dset_id
                self.files.append((tape, 0.0, size))
                self.batch_of.append(-1)

    def __len__(self) -> int:
        """The batches' files and the reclamation processes."""
        return len(self.files)

    def file(self, k: int) -> FileSpec:
        """File ``k``'s spec."""
        _, _, size_mb = self.files[k]
        scheme = RECLAIM if k in self.reclaim_set else UNSTRIPED
        return FileSpec(self.file_id(k), size_mb * scheme.data, scheme)

    def extents(self, k: int) -> tuple[Extent, ...]:
        """What file ``k``'s read streams: one extent of one block (a reclamation: two)."""
        tape, offset_mb, size_mb = self.files[k]
        if k in self.reclaim_set:
            to = f"{tape}-to"
            return (Extent(tape, 0.0, size_mb, size_mb), Extent(to, 0.0, size_mb, size_mb))
        return (Extent(tape, offset_mb, size_mb, size_mb, blocks=1),)

    def layout(self, k: int) -> tuple[FileLayout, int]:
        """A data member per extent, in one row."""
        members = tuple(
            Member("data", (Chunk(e.tape, e.offset_mb, data_host_mb=e.host_mb,
                                  data_tape_mb=e.tape_mb),))
            for e in self.extents(k)
        )  # fmt: skip
        row = Row(members, tuple(range(len(members))))
        return FileLayout(self.file(k), POLICY, (row,)), len(members)

    def writer(self, k: int) -> str:
        """The policy that wrote every file."""
        return POLICY

    def tape_library(self, tape_id: str) -> str | None:
        """The set (library) of a cartridge."""
        return self.tape_set.get(tape_id)


def processes_needed(platform: HsmPlatform, dset: str) -> int:
    """Reclamation processes that reclaim every eligible cartridge of ``dset``'s pool."""
    pool = platform.reclamation.get(dset)
    if pool is None:
        return 0
    rate = platform.drive_set(dset).rate_mb_s
    need = sum(
        (100.0 - share) / 100.0 * pool.tape_mb / rate
        for share in pool.reclaimable_pct
        if share >= pool.threshold_pct
    )
    return math.ceil(need / pool.duration_s) + 1 if need else 0


@frozen
class HsmReads(Parallel):
    """:data:`POLICY` reading the :class:`HsmArchive`'s files, their plans made straight.

    A file's plan is one phase of its extents (:meth:`HsmArchive.extents`),
    with the per-block cost on (its one block is the per-file overhead).
    """

    archive: HsmArchive | None = field(default=None, eq=False)

    def plan_read(
        self, catalogue: Catalogue, file_id: str, unavailable: Collection[str] = frozenset()
    ) -> JobSpec:
        """One phase: the file's extent (a reclamation's two).

        The files have no parity (1+0, a reclamation 2+0): when a tape of
        one is unavailable the read raises
        :class:`~simulator.storage.policy.Unrecoverable`.
        """
        archive = self.archive
        k = None if archive is None else archive.file_number(file_id)
        if archive is None or k is None:
            return super().plan_read(catalogue, file_id, unavailable)
        extents = archive.extents(k)
        without_parity(file_id, extents, unavailable)
        return JobSpec((extents,), memory_mb=self.block_mb * len(extents), per_block=True)


class _Thread:
    """An admitted batch (or reclamation): its queue, cartridge, and files left to start."""

    __slots__ = ("dset", "files", "key", "queue", "rank", "release_s", "tape")

    def __init__(
        self, rank: int, queue: Queue | None, dset: str, key: str, files: Sequence[Request]
    ) -> None:
        self.rank = rank
        self.queue = queue
        self.dset = dset
        self.key = key
        self.tape = files[0].pieces[0].tape
        self.release_s = files[0].release_s
        self.files = deque(files)

    def join(self, request: Request) -> None:
        """Add a file of the same batch arriving after the thread was admitted, by offset."""
        offset = request.pieces[0].offset_mb
        files = self.files
        k = len(files)
        while k > 0 and files[k - 1].pieces[0].offset_mb > offset:
            k -= 1
        files.insert(k, request)


class _Admitted(FilteredPlatform):
    """The platform as the inner scheduler sees it: only the threads' next files wait.

    Every method is the platform's but for what is waiting: a request is
    waiting when it is the next file of an admitted thread, ranked by its
    thread's admission.
    """

    def __init__(self, admission: HsmAdmission, platform: PlatformState) -> None:
        super().__init__(platform)
        self._a = admission

    def arrival(self, request: Request) -> int:
        """Rank of admission of ``request``'s thread."""
        thread = self._a.thread_of(request)
        if thread is None:
            raise ValueError(f"request {request.id!r} is not admitted")
        return thread.rank

    def is_waiting(self, request: Request) -> bool:
        """Whether ``request`` is a thread's next file, not started."""
        thread = self._a.thread_of(request)
        return (
            thread is not None
            and bool(thread.files)
            and thread.files[0].id == request.id
            and self._p.is_waiting(request)
        )

    def waiting_on(self, tape: str) -> Sequence[Request]:
        """The next file of the thread on ``tape``, if any."""
        thread = self._a.threads.get(tape)
        return (thread.files[0],) if thread is not None and thread.files else ()


@frozen
class AllocationRecord:
    """An allocation made: when, the free drives then, and what was decided."""

    time_s: float
    free: tuple[tuple[str, int], ...]
    allocation: Allocation


@frozen
class AdmissionRecord:
    """A thread admitted: when, its queue, the drives of its set committed and free after it."""

    time_s: float
    queue: Queue
    committed: int
    free_after: int


class HsmAdmission:
    """The HSM's admission around any scheduler (see the module): a scheduler again.

    Parameters
    ----------
    inner
        The scheduler choosing among the threads' next files (under its
        mount policy).
    platform
        Servers, groups, drive sets, migration caps, reclamation pools.
    allocator
        Asked at the first decision time, then every ``allocator.period_s``.
    queue_of
        Request id to its queue, for every file request of a batch.
    reclaim_of
        Request id to its set, for every reclamation request.
    arrivals_s
        The arrival times of the run's requests, sorted: a decision time
        is taken once all its arrivals are in (the simulation asks at each
        arrival), and allocations go on until the last while nothing waits.
    """

    def __init__(
        self,
        inner: Scheduler,
        platform: HsmPlatform,
        allocator: Allocator,
        queue_of: Mapping[str, Queue],
        reclaim_of: Mapping[str, str],
        arrivals_s: Sequence[float],
    ) -> None:
        if not allocator.period_s > 0:
            raise ValueError(f"the allocator's period must be > 0, got {allocator.period_s!r}")
        self.inner = inner
        self.platform = platform
        self.allocator = allocator
        self.queue_of = queue_of
        self.reclaim_of = reclaim_of
        self.arrivals_s = arrivals_s
        self.last_arrival_s = arrivals_s[-1] if arrivals_s else 0.0
        self._taken = 0
        self.sets = {s.id: s for s in platform.drive_sets}
        self.drive_set = {d: s.id for s in platform.drive_sets for d in s.drive_ids()}
        self.server_of = {g.id: g.server for g in platform.groups}
        self.fc = {s.id: s.fc_mb_s for s in platform.servers}
        self.held: dict[Queue, dict[tuple[str, float], list[Request]]] = {}
        """Batches not admitted, per queue, by cartridge and arrival, in order of arrival."""
        self.reclaim_held: dict[str, deque[Request]] = defaultdict(deque)
        self.threads: dict[str, _Thread] = {}
        """Admitted threads not over, by cartridge (a reclamation: by id), in admission order:
        a thread is over when it has no file left to start and its cartridge is in no busy
        drive (a reclamation: once started)."""
        self.drive_queue: dict[str, Queue | None] = {}
        """The queue of the last request started on each drive (``None``: a reclamation)."""
        self.caps: dict[tuple[str, str], int] = {}
        self.reserve: dict[str, int] = {}
        self.pools = {
            dset: sorted((p for p in pool.reclaimable_pct if p >= pool.threshold_pct), reverse=True)
            for dset, pool in platform.reclamation.items()
        }
        self.carry_s = dict.fromkeys(self.pools, 0.0)
        """Reclamation work done on the first cartridge of each pool, carried over."""
        self.allocations: list[AllocationRecord] = []
        self.admissions: list[AdmissionRecord] = []
        self.reclaimed: dict[str, int] = {}
        """Reclamation request id to the cartridges its process reclaims."""
        self.next_allocation_s: float | None = None
        self.stuck = False
        self._seen = -1
        self._rank = 0
        self._version = 0
        self._weighed: tuple[float, tuple[int, ...], int] | None = None
        self._platform: PlatformState | None = None
        self._inner_wake: Callable[[float], float | None] | None = getattr(inner, "wake_s", None)

    # The protocol.

    def decide(
        self, now: float, waiting: Sequence[Request], platform: PlatformState
    ) -> Decision | None:
        """The inner scheduler's decision among the admitted threads' next files."""
        self._platform = platform
        self._take(waiting, platform)
        if self._taken < bisect.bisect_right(self.arrivals_s, now):
            return None  # more arrivals at this time: the simulation asks again at each
        if self.next_allocation_s is None or now >= self.next_allocation_s:
            self._allocate(now, platform)
        key = (now, tuple(platform.idle_counts()), self._version)
        if key != self._weighed:
            self._admit(now, platform)
            self._weighed = key
        heads = [t.files[0] for t in self.threads.values() if t.files and self.at_rest(t)]
        decision = self.inner.decide(now, heads, _Admitted(self, platform))
        if isinstance(decision, Start):
            self._started(decision, platform)
        return decision

    def wake_s(self, now: float) -> float | None:
        """The next allocation while batches wait or arrive (and the inner scheduler's wake)."""
        times = []
        waits = any(self.held.values()) or now < self.last_arrival_s
        if waits and not self.stuck and self.next_allocation_s is not None:
            times.append(self.next_allocation_s)
        if self._inner_wake is not None:
            inner = self._inner_wake(now)
            if inner is not None:
                times.append(inner)
        later = [t for t in times if t > now]
        return min(later) if later else None

    # What the threads hold.

    def thread_of(self, request: Request) -> _Thread | None:
        """The admitted thread ``request`` belongs to."""
        if request.id in self.reclaim_of:
            return self.threads.get(request.id)
        thread = self.threads.get(request.pieces[0].tape)
        return thread if thread is not None and thread.key == thread.tape else None

    def at_rest(self, thread: _Thread) -> bool:
        """Whether ``thread``'s cartridge is in no busy drive (its next file may start)."""
        platform = self._platform
        assert platform is not None
        holder = platform.holder(thread.tape)
        return holder is None or platform.is_idle(holder)

    def _state(
        self, platform: PlatformState
    ) -> tuple[dict[Queue, int], dict[str, int], dict[str, float]]:
        """Threads running per queue, free drives per set, native MB/s per server, now.

        A thread runs from its admission until its drive is free again: a
        busy drive counts for the queue of the last request started on it,
        a thread at rest (admitted, its cartridge in no busy drive) for its
        own, and its set's idle drives are one fewer for it (two for a
        reclamation not started).
        """
        running: dict[Queue, int] = defaultdict(int)
        committed: dict[str, int] = defaultdict(int)
        for drive, queue in self.drive_queue.items():
            if queue is not None and not platform.is_idle(drive):
                running[queue] += 1
        over = []
        for thread in self.threads.values():
            if thread.queue is None:
                committed[thread.dset] += RECLAIM.width
            elif self.at_rest(thread):
                if not thread.files:
                    over.append(thread.key)
                    continue
                running[thread.queue] += 1
                committed[thread.dset] += 1
        for key in over:
            del self.threads[key]
        free = {s: platform.idle_count(s) - committed[s] for s in self.sets}
        server_mb_s = dict.fromkeys(self.fc, 0.0)
        for (group, dset, _), n in running.items():
            server_mb_s[self.server_of[group]] += n * self.sets[dset].rate_mb_s
        return running, free, server_mb_s

    def _may_start(
        self,
        queue: Queue,
        running: Mapping[Queue, int],
        free: Mapping[str, int],
        server_mb_s: Mapping[str, float],
    ) -> bool:
        group, dset, kind = queue
        server = self.server_of[group]
        if server_mb_s[server] + self.sets[dset].rate_mb_s > self.fc[server] + 1e-9:
            return False
        if kind == "migration":
            cap = self.platform.migration_caps.get((group, dset), 0)
            return free[dset] > 0 and running.get(queue, 0) < cap
        return free[dset] > self.reserve.get(dset, 0) and running.get(queue, 0) < self.caps.get(
            (group, dset), 0
        )

    # Arrivals, admissions, allocations.

    def _take(self, waiting: Sequence[Request], platform: PlatformState) -> None:
        """Hold back the new arrivals: a batch per cartridge of its queue, reclamations aside."""
        fresh: list[Request] = []
        for request in reversed(waiting):
            if platform.arrival(request) <= self._seen:
                break
            fresh.append(request)
        self._taken += len(fresh)
        for request in reversed(fresh):
            self._seen = max(self._seen, platform.arrival(request))
            dset = self.reclaim_of.get(request.id)
            if dset is not None:
                self.reclaim_held[dset].append(request)
                continue
            queue = self.queue_of[request.id]
            tape = request.pieces[0].tape
            thread = self.threads.get(tape)
            same = thread is not None and thread.queue == queue
            if same and thread is not None and thread.release_s == request.release_s:
                thread.join(request)  # a file of its batch, arrived after its admission
                continue
            batch = (tape, request.release_s)
            self.held.setdefault(queue, {}).setdefault(batch, []).append(request)
        if fresh:
            self._version += 1

    def _admit(self, now: float, platform: PlatformState) -> int:
        """Admit threads while a queue may start one, oldest batch first; how many."""
        running, free, server_mb_s = self._state(platform)
        admitted = 0
        while True:
            best: tuple[tuple[float, int], Queue] | None = None
            for queue, tapes in self.held.items():
                if not tapes:
                    continue
                (tape, _), files = next(iter(tapes.items()))
                if tape in self.threads or not self._may_start(queue, running, free, server_mb_s):
                    continue
                head = (files[0].release_s, platform.arrival(files[0]))
                if best is None or head < best[0]:
                    best = (head, queue)
            if best is None:
                return admitted
            queue = best[1]
            tapes = self.held[queue]
            batch = next(iter(tapes))
            tape = batch[0]
            files = sorted(tapes.pop(batch), key=lambda r: r.pieces[0].offset_mb)
            group, dset, _ = queue
            self.threads[tape] = _Thread(self._rank, queue, dset, tape, files)
            self._rank += 1
            running[queue] += 1
            free[dset] -= 1
            server_mb_s[self.server_of[group]] += self.sets[dset].rate_mb_s
            admitted += 1
            self.admissions.append(
                AdmissionRecord(now, queue, self.sets[dset].drives - free[dset], free[dset])
            )

    def _allocate(self, now: float, platform: PlatformState) -> None:
        """Ask the allocator; admit threads, then start the reclamations it says."""
        running, free, server_mb_s = self._state(platform)
        pending = {q: len(tapes) for q, tapes in self.held.items() if tapes}
        view = AllocationView(
            now_s=now,
            platform=self.platform,
            free=dict(free),
            running={q: n for q, n in running.items() if n},
            pending=pending,
            server_mb_s=server_mb_s,
            reclaimable={dset: len(tapes) for dset, tapes in self.pools.items()},
        )
        allocation = self.allocator.allocate(view)
        self.allocations.append(AllocationRecord(now, tuple(sorted(free.items())), allocation))
        self.caps = dict(allocation.recall_caps)
        self.reserve = dict(allocation.reserve)
        started = self._admit(now, platform)
        _, free, _ = self._state(platform)
        for dset, processes in allocation.reclaim.items():
            for _ in range(processes):
                started += self._reclaim(now, dset, free)
        self.next_allocation_s = now + self.allocator.period_s
        idle = sum(platform.idle_counts()) == sum(s.drives for s in self.sets.values())
        self.stuck = now >= self.last_arrival_s and idle and not self.threads and not started
        self._version += 1

    def _reclaim(self, now: float, dset: str, free: dict[str, int]) -> int:
        """Start a reclamation process on ``dset`` if its pool and drives allow (1), else 0."""
        pool = self.platform.reclamation[dset]
        tapes = self.pools.get(dset)
        held = self.reclaim_held[dset]
        if not tapes or not held or free[dset] - self.reserve.get(dset, 0) < pool.drives:
            return 0
        rate = self.sets[dset].rate_mb_s
        budget, reclaimed = pool.duration_s + self.carry_s[dset], 0
        while tapes:
            need = (100.0 - tapes[0]) / 100.0 * pool.tape_mb / rate
            if need > budget:
                break
            budget -= need
            tapes.pop(0)
            reclaimed += 1
        self.carry_s[dset] = budget if tapes else 0.0
        request = held.popleft()
        self.threads[request.id] = _Thread(self._rank, None, dset, request.id, [request])
        self._rank += 1
        self.reclaimed[request.id] = reclaimed
        free[dset] -= pool.drives
        return 1

    def _started(self, decision: Start, platform: PlatformState) -> None:
        """Note the drives a thread's file starts on; a thread with no file left is dropped."""
        request = decision.request
        thread = self.thread_of(request)
        if thread is None or not thread.files or thread.files[0].id != request.id:
            raise ValueError(f"the scheduler started {request.id!r}, which is not a thread's next")
        thread.files.popleft()
        drives = decision.drives
        if drives is None:
            drives = platform.plan(request, queue=decision.queue).drives
        for drive in drives:
            self.drive_queue[drive] = thread.queue
        if thread.queue is None:
            del self.threads[thread.key]
        self._version += 1


@frozen
class ThreadRecord:
    """A batch's thread in the run: its queue, when it began and ended, and its files' ends.

    ``start_s`` is its first file's start (the mount's), ``end_s`` its last
    file's end (before its cartridge is put away), ``work_s`` the platform's
    time for the batch alone (:meth:`~simulator.sharing.groups.DriveSet.thread_s`),
    ``file_done_s`` when each file's data was done, in the batch's order.
    """

    batch: str
    group: str
    drive_set: str
    kind: str
    start_s: float
    end_s: float
    size_mb: float
    arrival_s: float
    work_s: float
    file_done_s: tuple[float, ...]


@frozen
class ReclamationRecord:
    """A reclamation process run: its set, drives, span and cartridges reclaimed."""

    drive_set: str
    drives: int
    start_s: float
    end_s: float
    tapes: int


@frozen
class HsmResult:
    """What a run did: every thread, reclamation, allocation and admission; what it left."""

    threads: tuple[ThreadRecord, ...]
    reclamations: tuple[ReclamationRecord, ...]
    allocations: tuple[AllocationRecord, ...]
    admissions: tuple[AdmissionRecord, ...]
    end_s: float
    """The last file's (or reclamation's) end."""
    stranded: tuple[str, ...] = ()
    """Batches not done: pending when nothing ran, no batch was to come and an
    allocation admitted nothing (a cap of 0, say)."""


def hsm_workload(
    platform: HsmPlatform, batches: Sequence[TapeBatch]
) -> tuple[Workload, dict[str, Queue], dict[str, str]]:
    """The batches' files as reads of the :class:`HsmArchive`, by arrival; queues; reclamations.

    Request ``r{k}`` reads file ``f{k}``; the reclamation requests arrive at
    time 0 and wait until the allocator starts them.
    """
    archive = HsmArchive(platform, batches)
    queue_of: dict[str, Queue] = {}
    reclaim_of: dict[str, str] = {}
    arrivals = []
    for k, b in enumerate(archive.batch_of):
        rid = f"r{k}"
        if b < 0:
            reclaim_of[rid] = archive.reclaim_set[k]
            arrivals.append((0.0, 1, k))
        else:
            queue_of[rid] = batches[b].queue
            arrivals.append((batches[b].arrival_s, 0, k))
    arrivals.sort()
    requests = tuple(FileRequest(f"r{k}", t, "read", archive.file(k)) for t, _, k in arrivals)
    workload = Workload(initial=(), requests=requests, archive=archive)  # type: ignore[arg-type]
    return workload, queue_of, reclaim_of


def run_hsm(
    platform: HsmPlatform,
    batches: Sequence[TapeBatch],
    allocator: Allocator,
    *,
    scheduler: SchedulerSpec = "tape-batching",
    mount_policy: str | None = "at-once",
) -> HsmResult:
    """Run ``batches`` on ``platform`` under ``allocator`` (see the module).

    Parameters
    ----------
    platform, batches, allocator
        What is run.
    scheduler
        The inner scheduler (a name of the registry, ``module.path:Attr``...).
    mount_policy
        Its mount policy spec (:mod:`solvers.online.mount_policy`);
        ``at-once`` puts a cartridge away when its thread is done.
    """
    platform.check_batches(batches)
    workload, queue_of, reclaim_of = hsm_workload(platform, batches)
    archive = cast(HsmArchive, workload.archive)
    arrivals = [r.arrival_s for r in workload.requests]
    plugged = resolve_scheduler(simulator_scheduler(scheduler))
    admissions: list[HsmAdmission] = []

    def make() -> Scheduler:
        policy = None if mount_policy is None else parse_mount_policy(mount_policy)
        inner = with_mount_policy(plugged.make(), policy)
        admission = HsmAdmission(inner, platform, allocator, queue_of, reclaim_of, arrivals)
        admissions.append(admission)
        return admission

    simulation = Simulation(
        platform.platform_spec(),
        HsmReads(block_mb=1.0, archive=archive),
        with_plugins(plugged, make, mount_policy),
        workload,
        record=False,
    )
    simulation.run(may_strand=True)  # a cap may strand a group's batches
    admission = admissions[-1]
    return _result(simulation, platform, batches, archive, admission)


def _result(
    simulation: Simulation,
    platform: HsmPlatform,
    batches: Sequence[TapeBatch],
    archive: HsmArchive,
    admission: HsmAdmission,
) -> HsmResult:
    sets = {s.id: s for s in platform.drive_sets}
    spans: dict[int, list[tuple[int, float, float, float]]] = defaultdict(list)
    reclamations = []
    for entry in simulation.finished:
        rid = entry.file_request.id
        k = int(rid[1:])
        assert entry.start_s is not None and entry.done_s is not None
        assert entry.data_done_s is not None
        b = archive.batch_of[k]
        if b < 0:
            dset = archive.reclaim_set[k]
            drives = platform.reclamation[dset].drives
            reclamations.append(
                ReclamationRecord(dset, drives, entry.start_s, entry.done_s,
                                  admission.reclaimed.get(rid, 0))
            )  # fmt: skip
        else:
            spans[b].append((k, entry.start_s, entry.done_s, entry.data_done_s))
    threads = []
    stranded = []
    for b, batch in enumerate(batches):
        got = sorted(spans.get(b, []))
        if len(got) < len(batch.files):
            stranded.append(batch.id)
            continue
        threads.append(
            ThreadRecord(
                batch.id, batch.group, batch.drive_set, batch.kind,
                min(s for _, s, _, _ in got), max(e for _, _, e, _ in got), batch.size_mb,
                batch.arrival_s, sets[batch.drive_set].thread_s(batch),
                tuple(d for _, _, _, d in got),
            )
        )  # fmt: skip
    threads.sort(key=lambda t: (t.start_s, t.batch))
    reclamations.sort(key=lambda r: r.start_s)
    return HsmResult(
        tuple(threads),
        tuple(reclamations),
        tuple(admission.allocations),
        tuple(admission.admissions),
        max((e.done_s or 0.0 for e in simulation.finished), default=0.0),
        tuple(stranded),
    )
