"""The HSM's admission: which batches may run as threads, around any online scheduler.

:class:`HsmAdmission` wraps the scheduler that picks among the threads' next files
(:class:`~tapesched.solvers.online.mount_policied.MountPolicied`'s pattern), asks the
allocator every period, admits threads under their queue's cap, their set's free drives
and their server's link, and starts reclamations; what it decided is kept as
:class:`AllocationRecord` and :class:`AdmissionRecord`. The rules are those of
:mod:`tapesched.simulator.sharing.hsm_run`'s docstring.
"""

from __future__ import annotations

import bisect
from collections import defaultdict, deque
from collections.abc import Callable, Mapping, Sequence

from attrs import frozen

from tapesched.simulator.sharing.allocator import Allocation, AllocationView, Allocator, Queue
from tapesched.simulator.sharing.groups import HsmPlatform
from tapesched.simulator.sharing.hsm_archive import RECLAIM
from tapesched.solvers.online.filtered import FilteredPlatform
from tapesched.solvers.online.protocol import Decision, PlatformState, Scheduler, Start
from tapesched.toolkit.model import Request


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
