"""A run of the platform: file requests arrive, a policy lays them out, a scheduler starts them.

Data flows one way: a workload (:mod:`simulator.workload.workload`) gives file
requests; an archival policy (:mod:`simulator.storage.policy`) turns each into a
:class:`~simulator.storage.files.JobSpec` over the catalogue's tapes; a scheduler of
:mod:`solvers.online` (the same objects ``tapesched solve`` dispatches)
decides which waiting request starts, asked as :mod:`solvers.online.protocol`
says; the platform (:mod:`simulator.platform.platform`)
carries the plans out in time; the run's records go to
:mod:`simulator.run.results` and its realised schedule to :mod:`simulator.run.export`.

What the scheduler sees
    Each admitted file request is shown as a core-problem
    :class:`~toolkit.model.Request`: its release is the arrival, its weight
    ``1000 / size_mb`` (the paper's weighted response time is the response
    divided by the size, here per GB), its pieces the first phase of its
    read plan. A write shows pieces on tapes that do not exist yet (ids
    beginning ``new:``): where a write goes is the policy's choice when it
    starts, so no scheduler can rank it by tape; the platform appends it to
    an idle stream of its type (policy and scheme) whose tapes are mounted
    on idle drives of one mover when there is one. The platform state is
    shown through :class:`SimulationState`, which implements
    :class:`solvers.online.protocol.PlatformState`. The waiting requests and
    the idle drives are kept in the platform's
    :class:`~solvers.online.state.DispatchState`, as the solvers'
    dispatcher keeps its own: a request's rank of arrival is its rank of
    admission, the order in which requests became waiting.

Asked on its own
    A scheduler of the simulator may have a method ``wake_s(now)``, asked
    after each decision time: the time at which it wants to be asked again
    though nothing happens then (``None``: at the next event only). The
    Blue Waters LOAD-BALANCER (:mod:`simulator.schedulers.bw_main`) runs so, every
    ``MINLBINTERVAL``; a mount policy's deferred dismounts
    (:mod:`solvers.online.mount_policy`) are due so. The protocol's other
    loop, the solvers' dispatcher, asks it too.

Drives one at a time (Golubchik, Muntz and Watson 1994, Section 4)
    A scheduler of the simulator whose ``drives_one_at_a_time`` is true (the
    ``golubchik`` scheduler, :mod:`simulator.schedulers.golubchik`) runs the platform
    as Golubchik's model does: a request it starts (the drives a decision
    names are not used) joins a queue of gangs in the order started; each
    idle drive goes to the request at the front of that queue, which holds
    it (its tape is mounted at once) while it waits for the rest of its
    drives; the next request gets drives only once the front one has all of
    its own; and each drive is let go at its own transfer's end. A read's
    columns get drives in order; a write takes its drives as they come and
    starts once it has them all (its tapes are chosen then). Reads do not
    wait for a tape in use: the drive granted waits until the tape is put
    away, which needs ``dismount`` ``at-once`` (checked by the platform) so
    that no drive holding a tape waits for buddies that cannot come.

When a request waits (Blue Waters paper, Section 5)
    A request is not shown to the scheduler while an earlier request for
    the same file is pending (until that one's data is done); a read waits
    while one of its tapes is in use by a running job. A request can start
    when some mover of its library has an idle drive per column of its plan
    and the memory and bandwidth for it.

Where requests run
    A read runs in the library of its tapes, or, when pass-through ports join
    the libraries (``pass_through_s`` in the platform), on any drive, its own
    library's movers first; the scheduler then sees one pool of drives. A
    write runs in the library of the stream it appends to, or for a new
    stream in the library with the most drives (the first of those): the
    Blue Waters runs have one library. Initial files (the small archive at
    time 0) are laid out in the first library; the archive at the paper's
    scale (:mod:`simulator.storage.archive`) spreads its sets over every library and
    is laid out lazily: a read of one of its files asks the catalogue, which
    asks the archive.
"""

from __future__ import annotations

import functools
import gc
import random
from collections import deque
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from typing import IO, TYPE_CHECKING, Any

import orjson
from attrs import evolve

from tapesched.simulator.kernel.engine import Engine, Event
from tapesched.simulator.platform.faults import (
    YEAR_S,
    FaultSpec,
    TapeLoss,
    fault_rng,
    tapes_meeting,
)
from tapesched.simulator.platform.platform import Platform
from tapesched.simulator.platform.spec import PlatformSpec
from tapesched.simulator.platform.state import DriveState, Job
from tapesched.simulator.platform.technology import DriveModel
from tapesched.simulator.schedulers.bw_main import simulator_scheduler
from tapesched.simulator.storage.archive import FILE_PREFIX, TAPE_PREFIX, Archive
from tapesched.simulator.storage.catalogue import Catalogue
from tapesched.simulator.storage.disk_cache import CacheSpec, DiskCache
from tapesched.simulator.storage.files import Extent, FileRequest, FileSpec, JobSpec, Phase
from tapesched.simulator.storage.policy import (
    Group,
    GroupType,
    Policy,
    Unrecoverable,
    group_type,
    preload,
)
from tapesched.simulator.storage.policy_registry import policy_plugins
from tapesched.simulator.workload.workload import Workload
from tapesched.solvers.online.protocol import Decision, Dismount, Preview, Scheduler, Start
from tapesched.solvers.online.state import MAX_IDLE_WAKES, LeftWaiting
from tapesched.solvers.plugins import SchedulerSpec, plug_scheduler
from tapesched.toolkit.model import Piece, Request
from tapesched.toolkit.runtime.plugin_calls import guarded

if TYPE_CHECKING:  # numpy is imported only when a serpentine locate is ordered
    from tapesched.toolkit.hardware.tape_geometry import LocateModel, SerpentineTape

READ_PLANS_KEPT = 65_536
"""Read plans kept for files read again (a plan is recomputed, equal, once dropped): reads
spread over an archive of millions of files would otherwise keep one for each."""

NOTHING_UNAVAILABLE: frozenset[str] = frozenset()
"""One empty set shared by every request (an empty frozenset is an object of 216 bytes)."""

NEW_TAPE = "new:"
"""Prefix of the tape ids a waiting write shows (tapes that do not exist yet)."""


class AdmittedRequest:
    """What the run keeps of an admitted request.

    Its ``seq`` is its rank of arrival among the waiting requests, given by
    the run's :class:`~solvers.online.state.DispatchState` when the request
    becomes waiting.
    """

    __slots__ = (
        "data_done_s",
        "done_s",
        "drives",
        "failure",
        "file_request",
        "group",
        "job",
        "library",
        "mounted",
        "mounts_before",
        "plan",
        "ready_s",
        "repack",
        "request",
        "reserved",
        "restarts",
        "seq",
        "service_s",
        "start_s",
        "tapes",
        "unavailable",
        "width",
    )

    def __init__(self, file_request: FileRequest) -> None:
        self.file_request = file_request
        self.seq = -1
        self.request: Request
        self.plan: JobSpec | None = None
        self.group: Group | None = None
        self.job: Job | None = None
        self.library = 0
        self.width = 1
        self.tapes: tuple[str, ...] = ()
        self.service_s = 0.0
        self.start_s: float | None = None
        self.data_done_s: float | None = None
        self.done_s: float | None = None
        self.drives: tuple[int, ...] = ()
        self.reserved: tuple[int, ...] = ()
        self.mounts_before = 0
        self.ready_s: float | None = None
        """When its first phase began to stream (its tapes ready in their drives, located)."""
        self.mounted = False
        """Whether a drive it started on did not hold the tape it first reads (a read)."""
        self.failure: str | None = None
        """Why it failed (faults; ``None``: it did not)."""
        self.unavailable: frozenset[str] = NOTHING_UNAVAILABLE
        """Tapes its read is planned around: lost, or their mount given up (faults)."""
        self.restarts = 0
        """Times it was stopped by a fault and started again."""
        self.repack: str | None = None
        """The lost tape it rebuilds onto a new one (a repack the run made; faults)."""


class Simulation:
    """One run: a platform, a policy, a scheduler and a workload, from a seed.

    Parameters
    ----------
    spec
        The platform.
    policy
        The archival policy laying files out.
    scheduler
        The online scheduler: a registered name, ``module.path:Attr``, an
        entry point's name, a class or factory of schedulers, or a scheduler
        (see :mod:`solvers.plugins`), or ``bw-main`` with its default
        parameters (:mod:`simulator.schedulers.bw_main`); the run makes its own from
        it (:attr:`scheduler`), as schedulers keep state per run.
    workload
        The initial archive and the requests.
    seed
        Seed of the random times (the same seed gives the same run).
    record
        Keep arm operations and transfers, for :mod:`simulator.run.export`.
    log
        A binary stream to write the event log to, one JSON object a line.
    cache
        Service classes with a disk cache each in front of the tapes
        (:mod:`simulator.storage.disk_cache`; ``None``: none). A read of a resident
        file is served from disk when it arrives and never reaches the
        scheduler (nor the run's requests and records: :attr:`served_from_disk`
        counts them); a write lands on disk and is migrated as before; a
        read from tape makes its file resident once its data is done.
    faults
        What fails and how often (:mod:`simulator.platform.faults`; ``None``: nothing).
        A request stopped by a fault is started again, a read planned
        around the tapes it could not read (its file rebuilt from its
        groups' surviving members); one that cannot be served is failed
        with its reason (:attr:`failed`), never dropped.
    """

    def __init__(
        self,
        spec: PlatformSpec,
        policy: Policy,
        scheduler: SchedulerSpec,
        workload: Workload,
        seed: int = 0,
        record: bool = True,
        log: IO[bytes] | None = None,
        cache: CacheSpec | None = None,
        faults: FaultSpec | None = None,
    ) -> None:
        self.spec = spec
        self.faults = faults
        self.cache = None if cache is None else DiskCache(cache)
        """The disk caches of the service classes (``None``: the tapes alone)."""
        self.served_from_disk = 0
        """Reads the disk cache served (not counted in :attr:`arrived`)."""
        self.policy = policy
        plugged = plug_scheduler(simulator_scheduler(scheduler))
        self.scheduler: Scheduler = plugged.make()
        """The run's own scheduler."""
        self._guard = functools.partial(guarded, (*plugged.plugins, *policy_plugins(policy)))
        self._idle_wakes = 0
        """Wake-ups in a row at which nothing else was left to happen (:data:`MAX_IDLE_WAKES`)."""
        """Wraps :meth:`run`: a plug-in's failure (the scheduler's, its mount policy's, an
        installed package's archival policy's) is one
        :class:`~toolkit.runtime.plugin_calls.PluginError`
        (no cost per decision)."""
        self.workload = workload
        self.engine = Engine()
        self.rng = random.Random(seed)
        self.log = log
        self.one_at_a_time = bool(getattr(self.scheduler, "drives_one_at_a_time", False))
        """Whether requests get drives one at a time (see *Drives one at a time*)."""
        self.platform = Platform(
            spec,
            self.engine,
            self.rng,
            self._freed,
            record=record,
            home=self._home,
            one_at_a_time=self.one_at_a_time,
            faults=faults,
            seed=seed,
        )
        self.pooled = (spec.pass_through_s is not None or spec.complex is not None) and len(
            spec.libraries
        ) > 1
        """Whether pass-through ports (or a complex's elevators) join the libraries into one
        pool of drives."""
        library_ids = self.platform.library_ids
        self.catalogue = Catalogue(spec.tape_capacity_mb, library_ids, workload.archive)
        preload(self.catalogue, policy, workload.initial, library_ids[0], workload.own_tapes)
        drives_per_library = [0] * len(library_ids)
        for d in self.platform.drives:
            drives_per_library[d.library] += 1
        self.write_library = max(range(len(library_ids)), key=lambda i: (drives_per_library[i], -i))
        self.entries: dict[str, AdmittedRequest] = {}
        self.releases = 0
        """Counts the tapes no job uses any more (with the platform's ``releases``: equal, no
        tape became free)."""
        self.waiting_by_tapes: dict[tuple[str, ...], dict[int, Request]] = {}
        """The waiting requests by the tapes they wait for (a read's :attr:`AdmittedRequest.tapes`,
        none for a write), by rank: :meth:`SimulationState.not_waiting_for_tape` tests each
        set of tapes once, not each request."""
        self.finished: list[AdmittedRequest] = []
        self.failed: list[AdmittedRequest] = []
        """Requests that could not be served (faults), each with its ``failure``."""
        self._fault_events: dict[tuple[str, int], Event] = {}
        self.lost: list[TapeLoss] = []
        """Tapes (or regions) lost so far, in order (faults)."""
        self.found_lost: dict[str, list[TapeLoss]] = {}
        """Lost tapes a read has found, and what of each is lost: reads are planned around
        them from then on (a loss is not known before a read meets it)."""
        self.ever_found_lost: set[str] = set()
        """Every tape a read has found lost, repacked since or not: no stream appends to it."""
        self.replaced: dict[str, str] = {}
        """Tapes lost whole and repacked, and the new tape each was rebuilt onto: reads of
        the old one read the new one."""
        self.repacks: list[AdmittedRequest] = []
        """Repacks started (done when their ``done_s`` is set)."""
        self._repack_to: dict[str, str] = {}
        """The new tape each repack writes to."""
        self._repack_files: dict[str, tuple[str, ...]] = {}
        self.restored: dict[str, frozenset[str]] = {}
        """The files whose bytes each repacked tape's new tape holds again."""
        self.lost_files: dict[str, str] = {}
        """Files a repack found it could not rebuild, and the tape that lost them."""
        self.dispatch_state = self.platform.dispatch_state
        """The waiting requests (in admission order) and the idle drives."""
        self.in_use: dict[str, int] = {}
        self.file_busy: dict[str, deque[FileRequest] | None] = {}
        """The files with a request pending, and the requests arrived for each since (``None``:
        none yet; a queue is made for the few files asked for again meanwhile)."""
        self.idle_groups: dict[GroupType, list[Group]] = {}
        self.reservations: dict[str, AdmittedRequest] = {}
        self.gangs: deque[AdmittedRequest] = deque()
        """Requests started that lack drives, in the order started (one-at-a-time)."""
        self.groups_version = 0
        self.group_mover: dict[int, int] = {}
        """Mover of each stream tied to one (by ``id`` of the group): its parity is on its disk."""
        self._read_plans: dict[str, JobSpec] = {}
        """Read plan of each file read so far, until it is written again (a layout is final)."""
        self._placed: tuple[tuple[int, int, int], list[int] | None] | None = None
        self._nearest_movers: dict[int, list[int]] = {}
        """The movers of a complex by distance from each level (:meth:`_movers_for`)."""
        self._first_models: dict[int, DriveModel] = {}
        """The model of the first drive of each library (:meth:`_alone_s`)."""
        self._libraries: dict[str, int] = {}
        """The library index of each tape met so far (:meth:`_home`)."""
        self.arrived = 0
        self.midway_backlog: int | None = None
        """Backlog half-way through the last :meth:`run` to a time (for saturation)."""
        self._requests = workload.requests
        self._next = 0
        self._deciding = False
        self._poked = False
        self._wake: Callable[[float], float | None] | None = getattr(self.scheduler, "wake_s", None)
        """The scheduler's ``wake_s(now)``, when it has one (see *Asked on its own*)."""
        self._wakes: set[float] = set()
        self.state = SimulationState(self)
        self._schedule_next_arrival()
        if faults is not None:
            self._schedule_faults(faults, seed)

    # Running.

    def run(
        self,
        until_s: float | None = None,
        progress: Callable[[float], None] | None = None,
        *,
        may_strand: bool = False,
    ):
        """Run to ``until_s`` (or until nothing is left); ``progress(now)`` now and then.

        ``may_strand``: requests may be left waiting when the events run out
        (an allocator's cap of zero strands a group's batches by design);
        otherwise that is the scheduler's fault.

        The cyclic garbage collector is off meanwhile: a run makes no
        reference cycles it drops, and the collector's passes over the
        run's many live objects would make long runs slower per simulated
        day than short ones.

        Raises
        ------
        LeftWaiting
            (a ``RuntimeError``) when a run without ``until_s`` and without
            ``may_strand`` runs out of events with requests waiting: its
            scheduler never started them.
        toolkit.runtime.plugin_calls.PluginError
            When a plug-in of the run fails (:meth:`PluggedScheduler.guard
            <solvers.plugins.PluggedScheduler.guard>`).
        """
        if until_s is not None and until_s > self.engine.now_s:
            self.engine.at((self.engine.now_s + until_s) / 2, self._sample)
        enabled = gc.isenabled()
        gc.disable()
        try:
            with self._guard():
                self._run(until_s, progress, may_strand)
        finally:
            if enabled:
                gc.enable()

    def _run(
        self, until_s: float | None, progress: Callable[[float], None] | None, may_strand: bool
    ) -> None:
        if progress is None:
            self.engine.run(until_s)
        else:
            step = 50_000
            while self.engine.run(until_s, max_events=step) == step:
                progress(self.engine.now_s)
            progress(self.engine.now_s)
        waiting = self.dispatch_state.waiting
        if until_s is None and waiting and not may_strand:
            raise LeftWaiting(len(waiting), self.engine.now_s)

    @property
    def backlog(self) -> int:
        """Requests arrived and neither done nor failed."""
        return self.arrived - len(self.finished) - len(self.failed)

    def _sample(self) -> None:
        self.midway_backlog = self.backlog

    def _schedule_next_arrival(self) -> None:
        if self._next < len(self._requests):
            request = self._requests[self._next]
            self._next += 1
            self.engine.at(request.arrival_s, self._arrive, request)

    def _arrive(self, file_request: FileRequest) -> None:
        self._schedule_next_arrival()
        if self.cache is not None and self._served_from_disk(file_request):
            return
        self.arrived += 1
        if self.log is not None:
            self._log("arrive", request=file_request.id, kind=file_request.kind)
        file_id = file_request.file.id
        file_busy = self.file_busy
        if file_id in file_busy:
            queue = file_busy[file_id]
            if queue is None:
                queue = file_busy[file_id] = deque()
            queue.append(file_request)
            return
        file_busy[file_id] = None
        self._admit(file_request)
        if self._poked or self._deciding:
            return
        self._decide()

    def _served_from_disk(self, file_request: FileRequest) -> bool:
        """Whether the disk cache serves ``file_request`` (a resident read); a write lands on it.

        A read arriving while its file is being staged by an earlier read is a
        miss and waits for it, as any read of a busy file does.
        """
        assert self.cache is not None
        if file_request.kind == "write":
            self.cache.written(file_request.file, self.engine.now_s)
            return False
        if not self.cache.read(file_request.file):
            return False
        self.served_from_disk += 1
        self._log("disk-hit", request=file_request.id)
        return True

    def _admit(
        self, file_request: FileRequest, entry: AdmittedRequest | None = None, cause: str = ""
    ) -> None:
        """Make ``file_request`` waiting (``entry``: again, once a fault, ``cause``, stopped it)."""
        if entry is None:
            entry = AdmittedRequest(file_request)
            self.entries[file_request.id] = entry
        file = file_request.file
        pieces: tuple[Piece, ...]
        plan: JobSpec
        if entry.repack is not None:
            assert entry.plan is not None
            plan = entry.plan
        elif file_request.kind == "read":
            if self.found_lost:
                entry.unavailable |= self._found_lost_of(file.id)
            if entry.unavailable:
                try:
                    plan = self.policy.plan_read(self.catalogue, file.id, entry.unavailable)
                except Unrecoverable as exc:
                    self._fail(entry, f"{cause}; {exc}" if cause else str(exc))
                    return
                # Read on no more drives than a write of the file holds (a process of its type).
                plan = plan.folded(self.policy.write_width(file))
            else:
                kept = self._read_plans.get(file.id)
                if kept is None:
                    if len(self._read_plans) >= READ_PLANS_KEPT:
                        self._read_plans.clear()
                    kept = self._read_plans[file.id] = self.policy.plan_read(
                        self.catalogue, file.id
                    )
                plan = kept
            if self.replaced:
                plan = self._renamed(plan)
        if file_request.kind == "read":
            entry.plan = plan
            if not plan.phases:
                self._from_disk_alone(entry)
                return
            first = plan.phases[0]
            e = first[0] if len(plan.phases) == 1 and not plan.flush and len(first) == 1 else None
            if e is not None:
                # One extent (a trace's read, say): what the general case below gives.
                pieces = (Piece(e.tape, e.offset_mb, e.tape_mb),)
                entry.tapes = (e.tape,)
                entry.width = 1  # (a request planned again may have been wider)
            else:
                entry.width = plan.width
                pieces = tuple(
                    Piece(e.tape, e.offset_mb, e.tape_mb) for e in first if e is not None
                )
                entry.tapes = tuple(
                    sorted({e.tape for phase in plan.phases + plan.flush for e in phase if e})
                )
            entry.library = self._home(pieces[0].tape)
        else:
            entry.width = self.policy.write_width(file)
            share = file.size_mb / entry.width
            pieces = tuple(
                Piece(f"{NEW_TAPE}{file_request.id}:{i}", 0.0, share) for i in range(entry.width)
            )
            lib = self.write_library
            if len(self.platform.library_ids) > 1:
                group = self._best_group(file)
                if group is not None and group.tapes:
                    tape = self.catalogue.tape(group.tapes[0])
                    lib = self.platform.library_index[tape.library]
            entry.library = lib
        entry.request = Request(
            id=file_request.id,
            release_s=file_request.arrival_s,
            weight=1000.0 / file.size_mb,
            kind=file_request.kind,
            pieces=pieces,
        )
        entry.service_s = self._alone_s(entry)
        entry.seq = seq = self.dispatch_state.add(entry.request)
        tapes = entry.tapes if file_request.kind == "read" else ()
        by_tapes = self.waiting_by_tapes.get(tapes)
        if by_tapes is None:
            self.waiting_by_tapes[tapes] = {seq: entry.request}
        else:
            by_tapes[seq] = entry.request

    def _home(self, tape: str) -> int:
        """Index of the library ``tape`` belongs to (a tape's library never changes: kept)."""
        library = self._libraries.get(tape)
        if library is None:
            library = self.platform.library_index[self.catalogue.library(tape)]
            self._libraries[tape] = library
        return library

    def _poke(self) -> None:
        if not self._poked and not self._deciding:
            self._poked = True
            self.engine.after(0.0, self._decide)

    def _decide(self) -> None:
        """Ask the scheduler for decisions until it waits (it sees an empty list too)."""
        self._poked = False
        self._deciding = True
        try:
            if self.one_at_a_time:
                self._grant()
            self.dispatch_state.decide(
                self.scheduler, self.engine.now_s, self.state, self._carry_out
            )
        finally:
            self._deciding = False
        if self._wake is not None:
            wake_s = self._wake(self.engine.now_s)
            if wake_s is not None and wake_s > self.engine.now_s and wake_s not in self._wakes:
                self._wakes.add(wake_s)
                self.engine.at(wake_s, self._woken, wake_s)

    def _woken(self, wake_s: float) -> None:
        self._wakes.discard(wake_s)
        if self._deciding:
            return
        alone = self.engine.pending == 0
        self._decide()
        if alone and self.engine.pending <= 1 and self.dispatch_state.waiting:
            self._idle_wakes += 1  # nothing but this wake-up was left, and nothing else is
            if self._idle_wakes > MAX_IDLE_WAKES:
                raise LeftWaiting(len(self.dispatch_state.waiting), self.engine.now_s)
        else:
            self._idle_wakes = 0

    def _carry_out(self, decision: Decision) -> None:
        if isinstance(decision, Dismount):
            self.platform.dismount(self.platform.drive_index[decision.drive])
            self._log("dismount", drive=decision.drive)
            return
        entry = self.entries.get(decision.request.id)
        if entry is None or not self.dispatch_state.is_waiting(entry.seq):
            raise ValueError(f"the scheduler started {decision.request.id!r}, which is not waiting")
        if self.one_at_a_time:
            self._unwait(entry)
            self.gangs.append(entry)
            self._log("queue", request=entry.request.id)
            self._grant()
            return
        if decision.drives is not None:
            drives = [self.platform.drive_index[d] for d in decision.drives]
            if len(drives) != entry.width:
                raise ValueError(
                    f"request {entry.request.id!r} needs {entry.width} drives, "
                    f"the scheduler gave {len(drives)}"
                )
            blocked = self.state._waits(entry)
            if not blocked and all(self.platform.is_idle(d) for d in drives):
                self._start(entry, drives)
            else:
                self._reserve(entry, drives)
            return
        # A read whose tape is in use queues (it starts once the tape is free).
        placed = None if self.state._waits(entry) else self.placement(entry)
        if placed is not None:
            self._start(entry, placed)
        elif decision.queue:
            self._reserve(entry, self.queue_drives(entry))
        else:
            raise ValueError(f"the scheduler started {entry.request.id!r}, which cannot start")

    def _grant(self) -> None:
        """Give idle drives to the request at the front of the gangs, one at a time.

        A drive holding one of its tapes first, then the lowest numbered.
        The front request holds back every later one, as in Golubchik's
        input queue.
        """
        platform = self.platform
        gangs = self.gangs
        while gangs:
            entry = gangs[0]
            idle = [
                d
                for d in sorted(self.dispatch_state.idle_set)
                if self.pooled or platform.drives[d].library == entry.library
            ]
            if not idle:
                return
            drive = next((d for d in idle if platform.drives[d].tape in entry.tapes), idle[0])
            if self._give(entry, drive):
                gangs.popleft()

    def _give(self, entry: AdmittedRequest, drive: int) -> bool:
        """Give ``drive`` to ``entry``; whether it now has all its drives."""
        platform = self.platform
        key = entry.request.id
        self._log("grant", request=key, drive=platform.drives[drive].id)
        if entry.file_request.kind == "write":
            platform.reserve(drive, key)
            entry.reserved += (drive,)
            if len(entry.reserved) < entry.width:
                return False
            self._start(entry, list(entry.reserved), waiting=False)
            return True
        job = entry.job
        if job is None:
            assert entry.plan is not None
            for tape in entry.tapes:
                self.in_use[tape] = self.in_use.get(tape, 0) + 1
            entry.start_s = self.engine.now_s
            entry.mounts_before = platform.mounts
            job = entry.job = Job(key, entry.plan, (), self._data_done, self._job_done)
            platform.begin(job, entry.library)
            if self.log is not None:
                self._log("start", request=key, drives=[])
        holds = platform.drives[drive].tape
        free = [c for c, d in enumerate(job.drives) if d == -1]
        held = [c for c in free if any((e := p[c]) and e.tape == holds for p in job.phases)]
        column = (held or free)[0]
        complete = len(free) == 1
        if complete:
            entry.drives = tuple(d if c != column else drive for c, d in enumerate(job.drives))
        platform.grant(job, column, drive, expected_s=entry.service_s)
        return complete

    def _unwait(self, entry: AdmittedRequest) -> None:
        self.dispatch_state.remove(entry.seq)
        tapes = entry.tapes if entry.file_request.kind == "read" else ()
        by_tapes = self.waiting_by_tapes[tapes]
        del by_tapes[entry.seq]
        if not by_tapes:
            del self.waiting_by_tapes[tapes]

    def _reserve(self, entry: AdmittedRequest, drives: Sequence[int]) -> None:
        self._unwait(entry)
        entry.reserved = tuple(drives)
        key = entry.request.id
        for d in drives:
            self.platform.reserve(d, key)
        self.reservations[key] = entry
        if self.log is not None:
            ids = [self.platform.drives[d].id for d in drives]
            self._log("reserve", request=key, drives=ids)
        self._try_reserved(entry)

    def _try_reserved(self, entry: AdmittedRequest) -> None:
        drives = self.platform.drives
        key = entry.request.id
        if any(drives[d].busy or drives[d].reserved[0] != key for d in entry.reserved):
            return
        if entry.file_request.kind == "read" and self.state.waits_for_tape(entry.request):
            return
        del self.reservations[entry.request.id]
        self._start(entry, list(entry.reserved), waiting=False)

    def _start(self, entry: AdmittedRequest, drives: list[int], waiting: bool = True) -> None:
        if waiting:
            self._unwait(entry)
        fr = entry.file_request
        platform = self.platform
        if fr.kind == "read":
            assert entry.plan is not None
            plan = entry.plan
        else:
            group = self._take_group(fr.file, drives)
            library = platform.library_ids[platform.drives[drives[0]].library]
            plan, entry.group = self.policy.plan_write(self.catalogue, fr.file, group, library)
            if group is None and self._stream_disk_mb(fr.file) > 0:
                self.group_mover[id(entry.group)] = platform.drives[drives[0]].mover
            self._read_plans.pop(fr.file.id, None)
            entry.plan = plan
            entry.tapes = tuple(
                sorted({e.tape for phase in plan.phases + plan.flush for e in phase if e})
            )
        columns = drives if len(drives) == 1 else self._columns(plan, drives)
        if fr.kind == "read":
            states = platform.drives
            for d, e in zip(columns, plan.phases[0], strict=True):
                if e is not None and states[d].tape != e.tape:
                    entry.mounted = True
                    break
        in_use = self.in_use
        for tape in entry.tapes:
            in_use[tape] = in_use.get(tape, 0) + 1
        entry.start_s = self.engine.now_s
        entry.drives = tuple(columns)
        entry.mounts_before = platform.mounts
        job = Job(fr.id, plan, columns, self._data_done, self._job_done)
        job.stoppable = fr.kind == "read"
        if self.log is not None:
            self._log("start", request=fr.id, drives=[platform.drives[d].id for d in columns])
        platform.start(job, expected_s=entry.service_s)

    def _columns(self, plan: JobSpec, drives: list[int]) -> list[int]:
        """The drives in plan-column order: a column whose first tape a drive holds gets it."""
        if len(drives) == 1:
            return drives
        platform = self.platform
        free = list(drives)
        columns: list[int | None] = [None] * plan.width
        for i in range(plan.width):
            tape = next((e.tape for p in plan.phases + plan.flush if (e := p[i]) is not None), None)
            holder = platform.where.get(tape) if tape is not None else None
            if holder is not None and holder in free:
                columns[i] = holder
                free.remove(holder)
        free.sort(key=lambda d: (platform.drives[d].tape is not None, d))
        it = iter(free)
        return [c if c is not None else next(it) for c in columns]

    def _data_done(self, job: Job) -> None:
        entry = self.entries[job.key]
        entry.data_done_s = self.engine.now_s
        entry.ready_s = job.first_stream_s
        if self.log is not None:
            self._log("data-done", request=job.key)
        if entry.repack is not None:
            return
        if self.cache is not None and entry.file_request.kind == "read":
            self.cache.staged(entry.file_request.file, self.engine.now_s)
        self._next_of_file(entry.file_request.file.id)

    def _next_of_file(self, file_id: str) -> None:
        """The file's request in hand is over: admit the next one waiting for the file."""
        queue = self.file_busy[file_id]
        if queue:
            self._admit(queue.popleft())
            self._poke()
        else:
            del self.file_busy[file_id]

    def _job_done(self, job: Job) -> None:
        if job.stopped is not None:
            self._stopped(job)
            return
        entry = self.entries.pop(job.key)
        entry.done_s = self.engine.now_s
        self._let_go(entry)
        entry.mounts_before = self.platform.mounts - entry.mounts_before
        if entry.repack is not None:
            self._repacked(entry)
            return
        self.finished.append(entry)
        if self.log is not None:
            self._log("done", request=job.key)
        self._retry_reservations()
        if self._fault_events:
            self._work_ended()

    def _let_go(self, entry: AdmittedRequest) -> None:
        """``entry``'s job is over: its tapes are free, its stream idle."""
        for tape in entry.tapes:
            left = self.in_use[tape] - 1
            if left:
                self.in_use[tape] = left
            else:
                del self.in_use[tape]
                self.releases += 1
        group = entry.group
        if group is not None and not (self.ever_found_lost and self._writes_a_lost_tape(group)):
            self.idle_groups.setdefault(group.type, []).append(group)
            self.groups_version += 1

    def _writes_a_lost_tape(self, group: Group) -> bool:
        """Whether ``group`` appends to a tape found lost (it is retired: no write goes to
        it again, and the next write of its type opens new tapes)."""
        return any(t in self.ever_found_lost for t in group.tapes)

    def _retire_streams(self, tape: str) -> None:
        """Retire the idle streams appending to ``tape``, found lost."""
        for groups in self.idle_groups.values():
            kept = [g for g in groups if tape not in g.tapes]
            if len(kept) < len(groups):
                groups[:] = kept
                self.groups_version += 1

    def _retry_reservations(self) -> None:
        if self.reservations:
            for key, reserved in list(self.reservations.items()):
                if key in self.reservations:
                    self._try_reserved(reserved)

    # Faults (simulator.platform.faults).

    def _stopped(self, job: Job) -> None:
        """A fault stopped ``job`` before its data was done: its request waits again.

        A read is planned again around the tapes it could not read (a tape
        found lost is from then on avoided by every read); a write starts
        over on a stream of its type. A read that cannot be planned fails.
        """
        entry = self.entries[job.key]
        self._let_go(entry)
        entry.restarts += 1
        self._log("stopped", request=job.key, reason=job.stopped)
        for tape in job.unavailable:
            losses = self.platform.unreadable.get(tape)
            if losses is not None:
                self.found_lost[tape] = list(losses)
                self.ever_found_lost.add(tape)
                self._retire_streams(tape)
                self._read_plans.clear()
                if any(loss.whole for loss in losses):
                    self._repack(tape)
        entry.unavailable |= frozenset(job.unavailable)
        entry.job = None
        entry.group = None
        entry.start_s = None
        entry.drives = entry.reserved = ()
        if entry.file_request.kind == "write":
            entry.plan = None
        if entry.repack is not None:
            # Planned again around the tapes found lost meanwhile (or dropped: nothing left).
            entry.plan = self._repack_plan(entry.repack)
            if entry.plan is None:
                del self.entries[job.key]
                self.repacks.remove(entry)
                self._log("repack-dropped", tape=entry.repack)
                self._poke()
                return
        self._admit(entry.file_request, entry, job.stopped or "")
        self._retry_reservations()
        self._poke()

    def _repack(self, tape: str) -> None:
        """Queue the rebuild of ``tape``, found lost whole, onto a new tape of its library.

        The repack is a request the scheduler sees and finds drives for like
        any read: it reads, for each file with bytes on the tape (its own,
        its groups' parity or windows), what a read of the file around the
        tape reads (the surviving members, which also give back the parity),
        into the mover's disk, then writes the tape's bytes to the new tape
        in one pass on its first drive (as wide as the widest of those reads,
        so that it fits a mover). Files that cannot be rebuilt are lost for good
        (:attr:`lost_files`). Reads of the tape then read the new one.
        """
        if tape in self.replaced or any(e.repack == tape for e in self.repacks):
            return
        plan = self._repack_plan(tape)
        if plan is None:
            return
        info = self.catalogue.tape(tape)
        # Of the type of the first file on the tape: a scheduler binding drives by type (the
        # paper's I/O processes) finds it drives as for those files.
        first = self.catalogue.file(self._repack_files[tape][0])
        file = evolve(first, id=f"repack:{tape}", size_mb=info.used_mb)
        entry = AdmittedRequest(FileRequest(f"repack:{tape}", self.engine.now_s, "read", file))
        entry.repack = tape
        entry.plan = plan
        self.entries[entry.file_request.id] = entry
        self.repacks.append(entry)
        self._log("repack", tape=tape)
        self._admit(entry.file_request, entry)

    def _repack_plan(self, tape: str) -> JobSpec | None:
        """What rebuilding ``tape`` reads and writes now (``None``: nothing can be rebuilt)."""
        plans: list[JobSpec] = []
        covered = []
        for file_id in self._files_on(tape):
            unavailable = self._found_lost_of(file_id) | {tape}
            try:
                plans.append(self.policy.plan_read(self.catalogue, file_id, unavailable))
                covered.append(file_id)
            except Unrecoverable:
                self.lost_files.setdefault(file_id, tape)
        self._repack_files[tape] = tuple(covered)
        info = self.catalogue.tape(tape)
        if not plans or info.used_mb <= 0:
            return None
        new = self._repack_to.get(tape)
        if new is None:
            new = self._repack_to[tape] = self.catalogue.new_tape(info.library)
        width = max(p.width for p in plans)
        phases = [phase + (None,) * (width - len(phase)) for p in plans for phase in p.phases]
        phases.append((Extent(new, 0.0, info.used_mb, info.used_mb),) + (None,) * (width - 1))
        plan = JobSpec(tuple(phases), memory_mb=max(p.memory_mb for p in plans))
        return plan.folded(self.policy.write_width(self.catalogue.file(covered[0])))

    def _repacked(self, entry: AdmittedRequest) -> None:
        """A repack is done: reads of its tape read the new one."""
        assert entry.repack is not None and entry.plan is not None
        new = entry.plan.phases[-1][0]
        assert new is not None
        self.replaced[entry.repack] = new.tape
        self.restored[entry.repack] = frozenset(self._repack_files.pop(entry.repack))
        self.found_lost.pop(entry.repack, None)
        self._read_plans.clear()
        self._log("repacked", tape=entry.repack, to=new.tape)
        self._retry_reservations()

    def _renamed(self, plan: JobSpec) -> JobSpec:
        """``plan`` reading repacked tapes' new tapes in place of the lost ones."""
        replaced = self.replaced

        def renamed(phases: tuple[Phase, ...]) -> tuple[Phase, ...]:
            return tuple(
                tuple(
                    evolve(e, tape=replaced[e.tape]) if e is not None and e.tape in replaced else e
                    for e in phase
                )
                for phase in phases
            )

        if not any(e is not None and e.tape in replaced for p in plan.phases for e in p):
            return plan
        return evolve(plan, phases=renamed(plan.phases), flush=renamed(plan.flush))

    def _files_on(self, tape: str) -> list[str]:
        """Files with bytes (their own, or their groups') on ``tape``, in the catalogue's
        order, then the archive's."""
        files = list(self.catalogue.files())
        archive = self.workload.archive
        if isinstance(archive, Archive):
            files += [f"{FILE_PREFIX}{k}" for k in archive.files_on(tape)]
        return [f for f in dict.fromkeys(files) if tape in self._layout_tapes(f)]

    def _layout_tapes(self, file_id: str) -> set[str]:
        return {t for row in self.catalogue.layout(file_id).rows for t in row.tapes}

    def _from_disk_alone(self, entry: AdmittedRequest) -> None:
        """A read rebuilt from what the mover's disk holds alone (VERTICAL parity not yet
        on tape, the group's other data tapes shorter than the file's window): done now."""
        now = self.engine.now_s
        entry.start_s = entry.data_done_s = entry.done_s = now
        entry.tapes = entry.drives = ()
        entry.mounts_before = 0
        del self.entries[entry.file_request.id]
        self.finished.append(entry)
        self._log("done", request=entry.file_request.id, from_disk=True)
        self._next_of_file(entry.file_request.file.id)
        self._work_ended()

    def _fail(self, entry: AdmittedRequest, reason: str) -> None:
        """``entry`` cannot be served: it ends failed, with ``reason``."""
        entry.failure = reason
        entry.done_s = self.engine.now_s
        del self.entries[entry.file_request.id]
        self.failed.append(entry)
        self._log("failed", request=entry.file_request.id, reason=reason)
        self._next_of_file(entry.file_request.file.id)
        self._work_ended()

    def _found_lost_of(self, file_id: str) -> frozenset[str]:
        """The tapes found lost that hold some of the file's layout where it is lost."""
        return frozenset(tapes_meeting(self.catalogue.layout(file_id), self.found_lost))

    def _has_work(self) -> bool:
        """Whether requests are still to arrive or not done (faults strike only then)."""
        arrived = self.arrived + self.served_from_disk
        return arrived < len(self._requests) or self.backlog > 0

    def _schedule_faults(self, faults: FaultSpec, seed: int) -> None:
        for loss in sorted(faults.tape_losses, key=lambda x: x.at_s):
            self.engine.at(loss.at_s, self._lose, loss)
        processes = (
            ("drive", len(self.platform.drives), faults.drive_failures_per_year, self._drive_fails),
            ("mover", len(self.platform.movers), faults.mover_failures_per_year, self._mover_fails),
        )
        for kind, count, per_year, strike in processes:
            if per_year > 0:
                rng = fault_rng(seed, f"{kind}s")
                rate = per_year / YEAR_S
                for i in range(count):
                    self._fault_after((kind, i), rng.expovariate(rate), strike, i, rng, rate)
        if faults.tape_losses_per_year > 0:
            rng = fault_rng(seed, "tapes")
            self._tape_loss_next(rng, faults.tape_losses_per_year / YEAR_S)

    def _fault_after(
        self, key: tuple[str, int], delay_s: float, strike: Callable[..., None], *args: object
    ) -> None:
        """The next fault of a process (``key``), kept to be called off once the work ends."""
        self._fault_events[key] = self.engine.after(delay_s, strike, *args)

    def _work_ended(self) -> None:
        """Call off the faults to come once nothing is left to arrive or to serve, so that a
        run to its end ends with its last request, not with a fault striking no one."""
        if self._fault_events and not self._has_work():
            for event in self._fault_events.values():
                self.engine.cancel(event)
            self._fault_events.clear()

    def _drive_fails(self, drive: int, rng: random.Random, rate: float) -> None:
        if not self._has_work():
            return
        self.platform.fail_drive(drive)
        self._log("drive-failed", drive=self.platform.drives[drive].id)
        self._fault_after(
            ("drive", drive), rng.expovariate(rate), self._drive_fails, drive, rng, rate
        )

    def _mover_fails(self, mover: int, rng: random.Random, rate: float) -> None:
        if not self._has_work():
            return
        assert self.faults is not None
        self.platform.fail_mover(mover, self.faults.mover_repair_s)
        self._log("mover-failed", mover=self.platform.movers[mover].spec.id)
        self._fault_after(
            ("mover", mover), rng.expovariate(rate), self._mover_fails, mover, rng, rate
        )

    def _data_tapes(self) -> tuple[list[str], int]:
        """The run's tapes holding data, and the archive's tapes (``A000000, ...``) beside them."""
        own = [t.id for t in self.catalogue.tapes() if t.used_mb > 0]
        archive = self.workload.archive
        return own, archive.tapes_used if isinstance(archive, Archive) else 0

    def _tape_loss_next(self, rng: random.Random, rate: float) -> None:
        """The next tape lost at ``rate`` per tape-second, among the tapes holding data now."""
        own, archived = self._data_tapes()
        count = len(own) + archived
        if count == 0:
            return
        self._fault_after(("tape", 0), rng.expovariate(rate * count), self._tape_lost, rng, rate)

    def _tape_lost(self, rng: random.Random, rate: float) -> None:
        if not self._has_work():
            return
        own, archived = self._data_tapes()
        k = rng.randrange(len(own) + archived)
        tape = own[k] if k < len(own) else f"{TAPE_PREFIX}{k - len(own):06d}"
        self._lose(TapeLoss(self.engine.now_s, tape))
        self._tape_loss_next(rng, rate)

    def _lose(self, loss: TapeLoss) -> None:
        """Strike ``loss``; a tape that holds no data yet (or does not exist) loses nothing."""
        try:
            if self.catalogue.tape(loss.tape).used_mb <= 0:
                return
        except KeyError:
            return
        self.platform.lose(loss)
        self.lost.append(loss)
        self._log("tape-lost", tape=loss.tape)

    def _freed(self, drive: int) -> None:
        d = self.platform.drives[drive]
        if d.reserved and not d.busy:
            self._try_reserved(self.reservations[d.reserved[0]])
        self._poke()

    # Streams (groups) of writes.

    def _free_groups(self, file: FileSpec) -> list[Group]:
        """Idle streams of ``file``'s type whose tapes no job uses or is putting away."""
        groups = self.idle_groups.get(group_type(self.policy, file))
        if not groups:
            return []
        in_use, where, drives = self.in_use, self.platform.where, self.platform.drives
        return [
            g
            for g in groups
            if not any(t in in_use or (t in where and drives[where[t]].busy) for t in g.tapes)
        ]

    def _best_group(self, file: FileSpec, near: Collection[int] | None = None) -> Group | None:
        """The free stream of ``file``'s type with most tapes in idle drives (of ``near``).

        Ties go to the stream idle the longest.
        """
        return self._pick(self._free_groups(file), near)

    def _pick(self, groups: list[Group], near: Collection[int] | None) -> Group | None:
        if not groups:
            return None
        where, platform = self.platform.where, self.platform

        def held(group: Group) -> int:
            return sum(
                t in where and platform.is_idle(where[t]) and (near is None or where[t] in near)
                for t in group.tapes
            )

        return max(groups, key=held)

    def _stream_disk_mb(self, file: FileSpec) -> float:
        return self.policy.stream_disk_mb(file, self.spec.tape_capacity_mb)

    def _take_group(self, file: FileSpec, drives: list[int]) -> Group | None:
        """The free stream the write goes to on ``drives`` (``None``: a new one).

        A stream keeping parity on a mover's disk is tied to that mover: only
        those of the drives' mover are taken, and opening one there reserves
        its disk.
        """
        near = set(drives)
        mover = self.platform.drives[drives[0]].mover
        tied = self._stream_disk_mb(file) > 0
        if tied:
            candidates = [g for g in self._free_groups(file) if self.group_mover[id(g)] == mover]
            group = self._pick(candidates, near)
        else:
            group = self._best_group(file, near)
        if group is not None:
            self.idle_groups[group_type(self.policy, file)].remove(group)
            self.groups_version += 1
        elif tied:
            self.platform.movers[mover].disk_mb += self._stream_disk_mb(file)
        return group

    # Placement.

    def placement(self, entry: AdmittedRequest) -> list[int] | None:
        """Idle drives of one mover to start ``entry`` on now, or ``None`` when it cannot start.

        The mover holding most of its tapes in idle drives, then the one with
        most idle drives, then the first; the drives holding its tapes, then
        empty drives, then the others. The answer is kept until the platform
        changes (a scheduler asks :meth:`SimulationState.can_start`, then the
        start asks again).
        """
        platform = self.platform
        key = (entry.seq, platform.version, self.groups_version)
        if self._placed is not None and self._placed[0] == key:
            return self._placed[1]
        placed = self._place(entry)
        self._placed = (key, placed)
        return placed

    def _room(self, entry: AdmittedRequest) -> tuple[float, float, list[int]]:
        """What ``entry`` needs of a mover: memory, disk of a new stream, and the mover of
        each free stream of its type (``hosts``, where it needs no new disk)."""
        disk = 0.0
        hosts: list[int] = []
        if entry.file_request.kind == "write":
            file = entry.file_request.file
            disk = self._stream_disk_mb(file)
            if disk > 0:
                hosts = [self.group_mover[id(g)] for g in self._free_groups(file)]
        return self._memory_mb(entry), disk, hosts

    def _fits(
        self, m: int, width: int, room: tuple[float, float, list[int]], drives: bool = True
    ) -> bool:
        """Whether mover ``m`` has the ``room`` and, with ``drives``, ``width`` idle drives."""
        memory, disk, hosts = room
        mover = self.platform.movers[m]
        if drives and mover.idle < width:
            return False
        if mover.memory_mb + memory > mover.spec.memory_mb:
            return False
        if disk > 0 and m not in hosts and mover.disk_mb + disk > mover.spec.disk_mb:
            return False
        if mover.bandwidth_mb_s is None:
            return True
        rate = self.platform.drives[mover.drives[0]].model.rate_mb_s
        return mover.streaming_mb_s + width * rate <= mover.bandwidth_mb_s + 1e-9

    def _place(self, entry: AdmittedRequest) -> list[int] | None:
        platform = self.platform
        width = entry.width
        wanted = self._wanted_tapes(entry)
        where, drives, movers = platform.where, platform.drives, platform.movers
        is_idle = platform.dispatch_state.idle
        held: dict[int, int] = {}
        for tape in wanted:
            d = where.get(tape)
            if d is not None and is_idle[d]:
                m = drives[d].mover
                held[m] = held.get(m, 0) + 1
        room = self._room(entry)
        for m in room[2]:
            held[m] = held.get(m, 0) + 1
        fits = self._fits

        chosen = None
        ranked = (
            held if len(held) < 2 else sorted(held, key=lambda m: (-held[m], -movers[m].idle, m))
        )
        for m in ranked:
            if fits(m, width, room):
                chosen = m
                break
        if chosen is None and platform.complex is not None:
            # A complex: the nearest level with an empty idle drive, else the nearest with
            # an idle drive (whose tape the mount then evicts).
            nearest = self._movers_for(entry)
            for m in nearest:
                if movers[m].empty_idle and fits(m, width, room):
                    chosen = m
                    break
            else:
                for m in nearest:
                    if movers[m].idle and fits(m, width, room):
                        chosen = m
                        break
        if chosen is None:
            most = -1
            for m in self._movers_for(entry):
                idle = movers[m].idle
                if idle > most and fits(m, width, room):
                    chosen, most = m, idle
                    if idle == len(movers[m].drives):
                        break
        if chosen is None:
            return None
        # The holders (idle drives of the mover holding its tapes), then the empty idle
        # drives, then the other idle ones, each in platform order, the first ``width``.
        holders: list[int] = []
        for tape in wanted:
            d = where.get(tape)
            if d is not None and is_idle[d] and drives[d].mover == chosen:
                holders.append(d)
        placed = holders[:width]
        for empty in (True, False):
            if len(placed) == width:
                break
            for d in movers[chosen].drives:
                if is_idle[d] and (drives[d].tape is None) == empty and d not in holders:
                    placed.append(d)
                    if len(placed) == width:
                        break
        return placed

    def queue_drives(
        self, entry: AdmittedRequest, free_at: Callable[[DriveState], float] | None = None
    ) -> list[int]:
        """Drives of one mover of the library that free up first (for a queued start).

        ``free_at`` gives when a drive is expected free (by default, now for
        an idle drive, else the expected end of its job).
        """
        platform = self.platform
        if free_at is None:
            free_at = self.expected_free_s

        best: tuple[float, int] | None = None
        chosen: list[int] = []
        for m, mover in enumerate(platform.movers):
            if (mover.library != entry.library and not self.pooled) or len(
                mover.drives
            ) < entry.width:
                continue
            free = list(mover.drives)
            free.sort(key=lambda d: (free_at(platform.drives[d]), d))
            ready = free_at(platform.drives[free[entry.width - 1]])
            if best is None or (ready, m) < best:
                best, chosen = (ready, m), free[: entry.width]
        if not chosen:
            raise ValueError(f"no mover can ever run {entry.request.id!r}")
        return chosen

    def expected_free_s(self, d: DriveState) -> float:
        """When ``d`` is expected free: its job's expected end, then its reservations' services."""
        free_s = d.expected_free_s if d.busy else self.engine.now_s
        if not d.reserved:
            return free_s
        return free_s + sum(self.reservations[key].service_s for key in d.reserved)

    def _movers_for(self, entry: AdmittedRequest) -> list[int]:
        """Movers that may run ``entry``: its library's, then, with pass-through, the others."""
        platform = self.platform
        own = platform.movers_of[entry.library]
        if not self.pooled:
            return own
        complex_ = platform.complex
        if complex_ is None:
            return own + [m for lib in platform.movers_of for m in lib if m not in own]
        # A complex: the levels nearest the tape's level now (it may have floated) first.
        pieces = entry.request.pieces
        level = (
            platform.home_level(pieces[0].tape)
            if entry.file_request.kind == "read"
            else entry.library
        )
        nearest = self._nearest_movers.get(level)
        if nearest is None:
            levels = complex_.by_distance(level, range(len(platform.movers_of)))
            nearest = self._nearest_movers[level] = [
                m for lib in levels for m in platform.movers_of[lib]
            ]
        return nearest

    def _wanted_tapes(self, entry: AdmittedRequest) -> list[str]:
        if entry.file_request.kind == "read":
            pieces = entry.request.pieces
            return [pieces[0].tape] if len(pieces) == 1 else [p.tape for p in pieces]
        file = entry.file_request.file
        if self._stream_disk_mb(file) > 0:
            return [t for g in self._free_groups(file) for t in g.tapes]
        group = self._best_group(file)
        return list(group.tapes) if group is not None else []

    def _memory_mb(self, entry: AdmittedRequest) -> float:
        if entry.plan is not None:
            return entry.plan.memory_mb
        return self.policy.write_memory_mb(entry.file_request.file)

    # Estimates.

    def _alone_s(self, entry: AdmittedRequest) -> float:
        """Expected time of ``entry`` alone on idle empty drives, from the mean times.

        Its mounts (``arms`` at a time), a load, the first locate of each
        drive and the phases' transfers; a write, whose layout is not known
        yet, streams an equal share of its size uncompressed on each drive.
        """
        platform = self.platform
        lib = platform.libraries[entry.library]
        model = self._first_models.get(entry.library)
        if model is None:
            model = self._first_models[entry.library] = next(
                (d for d in platform.drives if d.library == entry.library), platform.drives[0]
            ).model
        mount = lib.mount_s.mean_s
        total = max(entry.width * mount / lib.arms, mount) + model.load_s.mean_s
        if entry.plan is None:
            return total + entry.file_request.file.size_mb / entry.width / model.rate_mb_s
        capacity_mb, per_block = platform.spec.tape_capacity_mb, entry.plan.per_block
        for k, phase in enumerate(entry.plan.phases):
            longest = 0.0
            for extent in phase:
                if extent is not None:
                    locate = model.locate_s(0.0, extent.offset_mb, capacity_mb) if k == 0 else 0.0
                    took = locate + platform.stream_mb(model, extent, per_block) / model.rate_mb_s
                    if took > longest:
                        longest = took
            total += longest
        return total

    def _log(self, event: str, **fields: Any) -> None:
        if self.log is not None:
            fields = {"t": self.engine.now_s, "event": event, **fields}
            self.log.write(orjson.dumps(fields) + b"\n")


def _rank(item: tuple[int, Request]) -> int:
    return item[0]


class SimulationState:
    """The platform of a run as a scheduler sees it, through the protocol's methods.

    It implements :class:`solvers.online.protocol.PlatformState`. The
    waiting requests and the idle drives are read from the run's
    :class:`~solvers.online.state.DispatchState`; inside a :meth:`trial`,
    the drives the decision would take are not idle.
    """

    def __init__(self, simulation: Simulation) -> None:
        self._sim = simulation
        self._platform = simulation.platform
        self._state = simulation.dispatch_state
        self._trial: dict[int, float] = {}
        self._blocked: set[tuple[str, ...]] = set()
        """Sets of tapes found in use, while no tape was released since (``_releases``)."""
        self._releases: tuple[int, int] = (-1, -1)

    @property
    def now(self) -> float:
        """The decision time."""
        return self._sim.engine.now_s

    def _entry(self, request: Request) -> AdmittedRequest:
        entry = self._sim.entries.get(request.id)
        if entry is None:
            raise ValueError(f"request {request.id!r} is not in the run")
        return entry

    def _drive(self, drive: str) -> DriveState:
        return self._platform.drives[self._platform.drive_index[drive]]

    def service_s(self, request: Request) -> float:
        """Expected time alone on idle empty drives, from the mean times."""
        return self._entry(request).service_s

    def any_idle(self) -> bool:
        """Whether some drive is idle."""
        trial = self._trial
        if not trial:
            return bool(self._state.idle_set)
        return any(d not in trial for d in self._state.idle_set)

    def is_idle(self, drive: str) -> bool:
        """Whether ``drive`` is neither busy nor reserved."""
        d = self._platform.drive_index[drive]
        return d not in self._trial and self._state.idle[d]

    def idle_count(self, library: str) -> int:
        """Idle drives of ``library``."""
        return self.idle_counts()[self._platform.library_index[library]]

    def idle_counts(self) -> Sequence[int]:
        """Idle drives of each library (of all, as one, when pass-through joins them)."""
        counts = self._state.idle_count
        if self._sim.pooled:
            return [len(self._state.idle_set) - len(self._trial)]
        if not self._trial:
            return counts
        counts = list(counts)
        for d in self._trial:
            counts[self._platform.drives[d].library] -= 1
        return counts

    def library_number(self, request: Request) -> int:
        """The library ``request`` runs in (0 for all when pass-through joins the libraries)."""
        return 0 if self._sim.pooled else self._entry(request).library

    def idle_drives(self, *, holding: bool = False) -> list[str]:
        """Idle drives in platform order (with ``holding``: those holding a tape)."""
        state, drives = self._state, self._platform.drives
        idle = state.idle_holding if holding else state.idle_set
        return [drives[d].id for d in sorted(idle) if d not in self._trial]

    def idle_holding_count(self) -> int:
        """Idle drives holding a tape."""
        return len(self._state.idle_holding)

    def idle_held_tapes(self) -> Iterator[str]:
        """Tapes held by idle drives."""
        drives = self._platform.drives
        for d in self._state.idle_holding:
            tape = drives[d].tape
            if tape is not None:
                yield tape

    def peers(self, drive: str) -> Sequence[str]:
        """Drives of ``drive``'s mover (itself included), in platform order."""
        p = self._platform
        return [p.drives[d].id for d in p.movers[self._drive(drive).mover].drives]

    def idle_peers(self, drive: str) -> list[tuple[str, str | None]]:
        """The idle drives of :meth:`peers` with the tape each holds, in platform order.

        Not part of the protocol: what :meth:`peers`, :meth:`is_idle` and
        :meth:`tape_in` answer drive by drive, in one call (a mount policy's
        eviction reads it: :class:`solvers.online.mount_policy.MountPolicied`).
        """
        p = self._platform
        drives, idle, trial = p.drives, self._state.idle, self._trial
        return [
            (drives[d].id, drives[d].tape)
            for d in p.movers[self._drive(drive).mover].drives
            if idle[d] and d not in trial
        ]

    def tape_in(self, drive: str) -> str | None:
        """The tape ``drive`` holds (or is getting)."""
        p = self._platform
        return p.drives[p.drive_index[drive]].tape

    def head_mb(self, drive: str) -> float:
        """Head offset of ``drive``."""
        p = self._platform
        return p.drives[p.drive_index[drive]].head_mb

    def available_s(self, drive: str) -> float:
        """When ``drive`` is expected free: now if idle, else from mean durations."""
        return self._available_s(self._drive(drive))

    def _available_s(self, d: DriveState) -> float:
        """:meth:`available_s` of a drive's state."""
        trial = self._trial
        if d.index in trial:
            return trial[d.index]
        return self._sim.expected_free_s(d)

    def holder(self, tape: str) -> str | None:
        """Drive holding (or getting) ``tape``."""
        d = self._platform.where.get(tape)
        return None if d is None else self._platform.drives[d].id

    def arrival(self, request: Request) -> int:
        """Rank of ``request`` in the order requests became waiting (were admitted)."""
        return self._entry(request).seq

    def is_waiting(self, request: Request) -> bool:
        """Whether ``request`` is admitted and not started."""
        entry = self._sim.entries.get(request.id)
        return entry is not None and self._state.is_waiting(entry.seq)

    def waiting_on(self, tape: str) -> Sequence[Request]:
        """Waiting requests with a piece on ``tape``, in arrival (admission) order."""
        return self._state.waiting_on(tape)

    def waits_for_tape(self, request: Request) -> bool:
        """Whether one of the tapes a read needs is in use (writes never wait for tapes)."""
        return self._waits(self._entry(request))

    def _waits(self, entry: AdmittedRequest) -> bool:
        """:meth:`waits_for_tape` of an admitted request."""
        if entry.file_request.kind == "write":
            return False
        in_use = self._sim.in_use
        p = self._platform
        where, trial = p.where, self._trial
        for tape in entry.tapes:
            if tape in in_use:
                return True
            d = where.get(tape)
            if d is not None and (p.drives[d].busy or d in trial):
                return True
        return False

    def not_waiting_for_tape(self, waiting: Sequence[Request]) -> list[Request] | None:
        """The requests of ``waiting`` that do not :meth:`waits_for_tape`, in arrival order.

        Only for the run's own waiting list outside a :meth:`trial` (``None``
        otherwise: the caller tests each request itself). The waiting
        requests are kept by the tapes they need
        (:attr:`Simulation.waiting_by_tapes`), so that the requests held
        back by one tape in use cost one test together: the optional fast
        path of :func:`solvers.online.policies.unblocked`.
        """
        if waiting is not self._state.waiting or self._trial:
            return None
        sim, p = self._sim, self._platform
        in_use, where, drives = sim.in_use, p.where, p.drives
        # Sets of tapes found blocked stay blocked until a tape is released (a drive freed, a
        # tape put away, a tape no job uses): they are not tested again until then.
        blocked = self._blocked
        if sim.releases != self._releases[0] or p.releases != self._releases[1]:
            self._releases = (sim.releases, p.releases)
            blocked.clear()
        found: list[tuple[int, Request]] = []
        for tapes, requests in sim.waiting_by_tapes.items():
            if tapes in blocked:
                continue
            for tape in tapes:
                if tape in in_use:
                    break
                d = where.get(tape)
                if d is not None and drives[d].busy:
                    break
            else:
                found.extend(requests.items())
                continue
            blocked.add(tapes)
        if len(found) < 2:
            return [found[0][1]] if found else []
        found.sort(key=_rank)
        return [request for _, request in found]

    def can_start(self, request: Request) -> bool:
        """Whether ``request`` can start now on idle drives of one mover."""
        if self._trial:
            return False
        sim = self._sim
        entry = sim.entries.get(request.id)
        if entry is None:
            raise ValueError(f"request {request.id!r} is not in the run")
        if self._waits(entry):
            return False
        # The idle drives of its library (of all, pooled), as idle_counts() outside a trial.
        state = self._state
        idle = len(state.idle_set) if sim.pooled else state.idle_count[entry.library]
        if idle < entry.width:
            return False
        return sim.placement(entry) is not None

    def loaded(self, request: Request) -> bool:
        """Whether every tape ``request`` shows is held by an idle drive, and it can start.

        The protocol promises that a loaded request can start; here idle
        drives holding its tapes may still be on several movers, or a mover
        short of memory, so that is checked too.
        """
        where = self._platform.where
        idle, trial = self._state.idle, self._trial
        for piece in request.pieces:
            d = where.get(piece.tape)
            if d is None or not idle[d] or d in trial:
                return False
        return self.can_start(request)

    def locate_s(self, request: Request) -> float | None:
        """Longest locate from the heads, for a :meth:`loaded` request."""
        if not self.loaded(request):
            return None
        p = self._platform
        capacity_mb = p.spec.tape_capacity_mb
        longest = 0.0
        for piece in request.pieces:
            d = p.drives[p.where[piece.tape]]
            longest = max(longest, d.model.locate_s(d.head_mb, piece.offset_mb, capacity_mb))
        return longest

    def locate_geometry(self, drive: str) -> tuple[SerpentineTape, LocateModel] | None:
        """The tape ``drive`` holds, of ``tape_capacity_mb``, and its drive model's serpentine
        locate model; ``None`` for a linear drive or an empty one."""
        d = self._drive(drive)
        locate = d.model.locate
        if locate is None or d.tape is None:
            return None
        return locate.geometry(self._platform.spec.tape_capacity_mb)

    def plan(
        self, request: Request, drives: tuple[str, ...] | None = None, queue: bool = False
    ) -> Preview:
        """An estimate of where and when ``request`` would run, from expected free times."""
        sim = self._sim
        entry = self._entry(request)
        p = self._platform
        if drives is not None:
            chosen = [p.drive_index[d] for d in drives]
        else:
            placed = None if self._trial else sim.placement(entry)
            if placed is None:
                placed = sim.queue_drives(entry, self._available_s)
            chosen = placed
        states = p.drives
        ready = sim.engine.now_s
        for d in chosen:
            available = self._available_s(states[d])
            if available > ready:
                ready = available
        return Preview(tuple(states[d].id for d in chosen), ready, ready + entry.service_s)

    # Questions of the simulator's own schedulers (simulator.schedulers.bw_main), beyond the
    # protocol.

    def request_type(self, request: Request) -> GroupType:
        """The paper's type of ``request``: the policy laying its file out, and its scheme."""
        return group_type(self._sim.policy, self._entry(request).file_request.file)

    def process_width(self, request: Request) -> int:
        """Drives a process of ``request``'s type binds: those a write of its file needs."""
        return self._sim.policy.write_width(self._entry(request).file_request.file)

    def width(self, request: Request) -> int:
        """Drives ``request`` runs on: one per column of its plan."""
        return self._entry(request).width

    def mover_drives(self) -> list[tuple[str, ...]]:
        """The drive ids of each mover, by mover number (a library is a mover without movers)."""
        drives = self._platform.drives
        return [tuple(drives[d].id for d in m.drives) for m in self._platform.movers]

    def movers_for(self, request: Request) -> list[int]:
        """Numbers of the movers that may run ``request`` (those of its library, or all when
        pass-through ports join the libraries)."""
        return self._sim._movers_for(self._entry(request))

    def can_host(self, request: Request, mover: int) -> bool:
        """Whether ``mover`` has the memory, disk and bandwidth ``request`` needs (its drives
        aside)."""
        entry = self._entry(request)
        return self._sim._fits(mover, entry.width, self._sim._room(entry), drives=False)

    def finished(self, since: int) -> list[str]:
        """Ids of the requests done, in the order they were done, from the ``since``-th on."""
        return [e.request.id for e in self._sim.finished[since:]]

    @contextmanager
    def trial(self, decision: Decision) -> Iterator[None]:
        """Inside the block, the drives ``decision`` would take look busy until its expected end."""
        added: list[int] = []
        try:
            if isinstance(decision, Start):
                preview = self.plan(decision.request, decision.drives, decision.queue)
                for drive in preview.drives:
                    d = self._platform.drive_index[drive]
                    if d not in self._trial:
                        self._trial[d] = preview.end
                        added.append(d)
            yield
        finally:
            for d in added:
                del self._trial[d]
