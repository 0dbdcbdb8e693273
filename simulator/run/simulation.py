"""A run of the platform: file requests arrive, a policy lays them out, a scheduler starts them.

Data flows one way: a workload (:mod:`simulator.workload.workload`) gives file
requests; an archival policy (:mod:`simulator.storage.policies.policy`) turns each into a
:class:`~simulator.storage.files.JobSpec` over the catalogue's tapes; a scheduler of
:mod:`solvers.online` (the same objects ``tapesched solve`` dispatches)
decides which waiting request starts, asked as :mod:`solvers.online.protocol`
says; the platform (:mod:`simulator.platform.platform`)
carries the plans out in time; the run's records go to
:mod:`simulator.results.records` and its realised schedule to :mod:`simulator.results.export`.

:class:`Simulation` is the run's loop: arrivals, the decisions it asks the
scheduler for and carries out, the jobs it starts, and their ends. The rest
of a run are its parts, each an object of the run's, made with what it
reads of the run (the parts that read much of it hold the run itself, typed
by a protocol of what they read), so that the modules import one another in
one direction:

- :mod:`.admission`: a request held back behind its file's, planned, shown to
  the scheduler (what the scheduler sees), kept as an
  :class:`~simulator.run.admitted.AdmittedRequest`;
- :mod:`.simulation_state`: the platform as the scheduler sees it
  (:class:`~simulator.run.simulation_state.SimulationState`, the
  :class:`~solvers.online.protocol.PlatformState` of the run);
- :mod:`.placement`: the drives of one mover a request starts on (where
  requests run);
- :mod:`.streams`: the idle streams writes append to, and those retired;
- :mod:`.gangs`: drives given one at a time (Golubchik's model);
- :mod:`.fault_processes` and :mod:`.repacking`: what fails, the tapes found
  lost, the lost tapes rebuilt;
- :mod:`.event_log`: the event log.

Asked on its own
    A scheduler of the simulator may have a method ``wake_s(now)``, asked
    after each decision time: the time at which it wants to be asked again
    though nothing happens then (``None``: at the next event only). The
    Blue Waters LOAD-BALANCER (:mod:`simulator.schedulers.bw_main`) runs so, every
    ``MINLBINTERVAL``; a mount policy's deferred dismounts
    (:mod:`solvers.online.mount_policy`) are due so. The protocol's other
    loop, the solvers' dispatcher, asks it too.

When a request starts
    A read waits while one of its tapes is in use by a running job. A
    decision naming drives that are busy, or a queued start
    (``Start(queue=True)``), holds its drives (a *reservation*): the request
    starts once they are free and its tapes are not in use.

Where the files are
    Initial files (the small archive at time 0) are laid out in the first
    library; the archive at the paper's scale (:mod:`simulator.storage.archive`)
    spreads its sets over every library and is laid out lazily: a read of one
    of its files asks the catalogue, which asks the archive.
"""

from __future__ import annotations

import functools
import gc
import random
from collections.abc import Callable, Container, Sequence
from typing import IO

from tapesched.simulator.kernel.engine import Engine
from tapesched.simulator.platform.faults import FaultSpec
from tapesched.simulator.platform.platform import Platform
from tapesched.simulator.platform.spec import PlatformSpec
from tapesched.simulator.platform.state import Job
from tapesched.simulator.run.admission import Admission
from tapesched.simulator.run.admitted import AdmittedRequest
from tapesched.simulator.run.event_log import EventLog
from tapesched.simulator.run.fault_processes import FaultProcesses
from tapesched.simulator.run.gangs import Gangs
from tapesched.simulator.run.placement import Placer
from tapesched.simulator.run.repacking import Repacking
from tapesched.simulator.run.simulation_state import SimulationState
from tapesched.simulator.run.streams import Streams
from tapesched.simulator.schedulers.registry import simulator_scheduler
from tapesched.simulator.storage.catalogue import Catalogue
from tapesched.simulator.storage.disk_cache import CacheSpec, DiskCache
from tapesched.simulator.storage.files import FileRequest
from tapesched.simulator.storage.policies.policy import Policy, preload
from tapesched.simulator.storage.policies.policy_registry import policy_plugins
from tapesched.simulator.workload.workload import Workload
from tapesched.solvers.online.protocol import Decision, Dismount, Scheduler
from tapesched.solvers.online.state import MAX_IDLE_WAKES, LeftWaiting
from tapesched.solvers.plugins import SchedulerSpec, plug_scheduler
from tapesched.toolkit.runtime.plugin_calls import guarded

NO_DRIVES: frozenset[int] = frozenset()
"""No drive (:meth:`Simulation.waits_for_tape` counts none busy beyond the platform's)."""


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
        (see :mod:`solvers.plugins`), or a name of the simulator's own
        (:mod:`simulator.schedulers.registry`: ``bw-main`` with its default
        parameters, ``golubchik``); the run makes its own from it
        (:attr:`scheduler`), as schedulers keep state per run.
    workload
        The initial archive and the requests.
    seed
        Seed of the random times (the same seed gives the same run).
    record
        Keep arm operations and transfers, for :mod:`simulator.results.export`.
    keep_finished
        Keep every finished request in :attr:`finished` (default: as ``record``).
        Otherwise a finished request leaves the run's memory once the
        :attr:`finish_sinks` have seen it: a long run's memory is then that of
        its platform and backlog, not of its horizon.
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
        keep_finished: bool | None = None,
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
        """Wraps :meth:`run`: a plug-in's failure (the scheduler's, its mount policy's, an
        installed package's archival policy's) is one
        :class:`~toolkit.runtime.plugin_calls.PluginError`
        (no cost per decision)."""
        self._idle_wakes = 0
        """Wake-ups in a row at which nothing else was left to happen (:data:`MAX_IDLE_WAKES`)."""
        self.workload = workload
        self.engine = Engine()
        self.rng = random.Random(seed)
        self.log = EventLog(log, self.engine)
        """The event log (:mod:`simulator.run.event_log`)."""
        self.admission = Admission(self)
        """Requests from their arrival until they start (:mod:`simulator.run.admission`)."""
        self.entries: dict[str, AdmittedRequest] = {}
        """The requests admitted and not done, by id."""
        self.one_at_a_time = bool(getattr(self.scheduler, "drives_one_at_a_time", False))
        """Whether requests get drives one at a time (:mod:`simulator.run.gangs`)."""
        self.platform = Platform(
            spec,
            self.engine,
            self.rng,
            self._freed,
            record=record,
            home=self.admission.home,
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
        self.releases = 0
        """Counts the tapes no job uses any more (with the platform's ``releases``: equal, no
        tape became free)."""
        self.completed = 0
        """Requests done (each once, as it ends)."""
        self.finished: list[AdmittedRequest] = []
        """The requests done, in the order they ended, when the run keeps them
        (``keep_finished``; empty otherwise: :attr:`completed` counts them)."""
        self.finish_sinks: list[Callable[[AdmittedRequest], object]] = []
        """Called with each request as it ends, in the order they end (statistics
        accumulated as the run goes: :mod:`simulator.results.records`)."""
        self._keep_finished = record if keep_finished is None else keep_finished
        self.failed: list[AdmittedRequest] = []
        """Requests that could not be served (faults), each with its ``failure``."""
        self.dispatch_state = self.platform.dispatch_state
        """The waiting requests (in admission order) and the idle drives."""
        self.in_use: dict[str, int] = {}
        """The tapes running jobs use, and how many use each."""
        self.reservations: dict[str, AdmittedRequest] = {}
        """The requests holding drives until they can start, by id."""
        self.streams = Streams(policy, self.platform, self.in_use, spec.tape_capacity_mb)
        """The streams writes append to (:mod:`simulator.run.streams`)."""
        self.placer = Placer(
            self.engine, self.platform, policy, self.streams, self.reservations, self.pooled
        )
        """Where requests start (:mod:`simulator.run.placement`)."""
        self.gangs = Gangs(self)
        """Drives given one at a time (:mod:`simulator.run.gangs`)."""
        self.fault_processes = FaultProcesses(
            self.engine, self.platform, self.catalogue, workload, self.log, self.has_work
        )
        """What fails, and the tapes lost (:mod:`simulator.run.fault_processes`)."""
        self.repacking = Repacking(
            self.engine, self.catalogue, policy, workload, self.log, self.fault_processes
        )
        """The lost tapes rebuilt (:mod:`simulator.run.repacking`)."""
        self.arrived = 0
        self.midway_backlog: int | None = None
        """Backlog half-way through the last :meth:`run` to a time (for saturation)."""
        self._arrivals = iter(workload.requests)
        """The requests still to arrive, read one at a time: a long workload may make each as
        it is read (the run keeps none it has not yet admitted)."""
        self._to_arrive = True
        self._deciding = False
        self._poked = False
        self._wake: Callable[[float], float | None] | None = getattr(self.scheduler, "wake_s", None)
        """The scheduler's ``wake_s(now)``, when it has one (see *Asked on its own*)."""
        self._wakes: set[float] = set()
        self.state = SimulationState(self)
        """The platform as the scheduler sees it (:mod:`simulator.run.simulation_state`)."""
        self._data_done, self._job_done = self.data_done, self.job_done
        """What each job calls (one bound method each for the run, not two a job)."""
        self._schedule_next_arrival()
        if faults is not None:
            self.fault_processes.schedule(faults, seed)

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
        return self.arrived - self.completed - len(self.failed)

    def has_work(self) -> bool:
        """Whether requests are still to arrive or not done (faults strike only then)."""
        return self._to_arrive or self.backlog > 0

    def _sample(self) -> None:
        self.midway_backlog = self.backlog

    # Arrivals.

    def _schedule_next_arrival(self) -> None:
        request = next(self._arrivals, None)
        if request is None:
            self._to_arrive = False
        else:
            self.engine.at(request.arrival_s, self._arrive, request)

    def _arrive(self, file_request: FileRequest) -> None:
        self._schedule_next_arrival()
        if self.cache is not None and self._served_from_disk(file_request):
            return
        self.arrived += 1
        if self.log.on:
            self.log("arrive", request=file_request.id, kind=file_request.kind)
        if not self.admission.arrive(file_request):
            return
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
        self.log("disk-hit", request=file_request.id)
        return True

    # Decisions.

    def poke(self) -> None:
        """Ask the scheduler for decisions once the events of this time are done."""
        if not self._poked and not self._deciding:
            self._poked = True
            self.engine.after(0.0, self._decide)

    def _decide(self) -> None:
        """Ask the scheduler for decisions until it waits (it sees an empty list too)."""
        self._poked = False
        self._deciding = True
        try:
            if self.one_at_a_time:
                self.gangs.grant()
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
            self.log("dismount", drive=decision.drive)
            return
        entry = self.entries.get(decision.request.id)
        if entry is None or entry.seq not in self.dispatch_state.by_rank:
            raise ValueError(f"the scheduler started {decision.request.id!r}, which is not waiting")
        if self.one_at_a_time:
            self.gangs.join(entry)
            return
        if decision.drives is not None:
            drive_index = self.platform.drive_index
            drives = [drive_index[d] for d in decision.drives]
            if len(drives) != entry.width:
                raise ValueError(
                    f"request {entry.request.id!r} needs {entry.width} drives, "
                    f"the scheduler gave {len(drives)}"
                )
            startable = not self.waits_for_tape(entry)
            if startable:
                idle = self.dispatch_state.idle
                for d in drives:
                    if not idle[d]:
                        startable = False
                        break
            if startable:
                self.start(entry, drives)
            else:
                self._reserve(entry, drives)
            return
        # A read whose tape is in use queues (it starts once the tape is free).
        placed = None if self.waits_for_tape(entry) else self.placer.start_drives(entry)
        if placed is not None:
            self.start(entry, placed)
        elif decision.queue:
            self._reserve(entry, self.placer.queue_drives(entry))
        else:
            raise ValueError(f"the scheduler started {entry.request.id!r}, which cannot start")

    def waits_for_tape(self, entry: AdmittedRequest, busy: Container[int] = NO_DRIVES) -> bool:
        """Whether one of the tapes the read ``entry`` needs is in use: a running job uses it,
        or a busy drive (or one of ``busy``) holds it. A write never waits for tapes."""
        if entry.file_request.kind == "write":
            return False
        in_use = self.in_use
        p = self.platform
        where = p.where
        for tape in entry.tapes:
            if tape in in_use:
                return True
            d = where.get(tape)
            if d is not None and (p.drives[d].busy or d in busy):
                return True
        return False

    # Starts.

    def _reserve(self, entry: AdmittedRequest, drives: Sequence[int]) -> None:
        self.admission.unwait(entry)
        entry.reserved = tuple(drives)
        key = entry.request.id
        for d in drives:
            self.platform.reserve(d, key)
        self.reservations[key] = entry
        if self.log.on:
            ids = [self.platform.drives[d].id for d in drives]
            self.log("reserve", request=key, drives=ids)
        self._try_reserved(entry)

    def _try_reserved(self, entry: AdmittedRequest) -> None:
        drives = self.platform.drives
        key = entry.request.id
        if any(drives[d].busy or drives[d].reserved[0] != key for d in entry.reserved):
            return
        if entry.file_request.kind == "read" and self.waits_for_tape(entry):
            return
        del self.reservations[entry.request.id]
        self.start(entry, list(entry.reserved), waiting=False)

    def retry_reservations(self) -> None:
        """Start the requests holding drives that can start now."""
        if self.reservations:
            for key, reserved in list(self.reservations.items()):
                if key in self.reservations:
                    self._try_reserved(reserved)

    def start(self, entry: AdmittedRequest, drives: list[int], waiting: bool = True) -> None:
        """Start ``entry`` on ``drives`` (``waiting``: it was waiting until now)."""
        if waiting:
            self.admission.unwait(entry)
        fr = entry.file_request
        platform = self.platform
        if fr.kind == "read":
            assert entry.plan is not None
            plan = entry.plan
        else:
            group = self.streams.take(fr.file, drives)
            library = platform.library_ids[platform.drives[drives[0]].library]
            plan, entry.group = self.policy.plan_write(self.catalogue, fr.file, group, library)
            if group is None:
                self.streams.opened(entry.group, fr.file, drives[0])
            self.admission.forget_read_plans(fr.file.id)
            entry.plan = plan
            entry.tapes = tuple(
                sorted({e.tape for phase in plan.phases + plan.flush for e in phase if e})
            )
        if len(drives) == 1:
            columns = drives
            if fr.kind == "read":
                e = plan.phases[0][0]
                if e is not None and platform.drives[drives[0]].tape != e.tape:
                    entry.mounted = True
        else:
            columns = self.placer.columns(plan, drives)
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
        if self.log.on:
            self.log("start", request=fr.id, drives=[platform.drives[d].id for d in columns])
        platform.start(job, expected_s=entry.service_s)

    # Ends.

    def data_done(self, job: Job) -> None:
        """``job``'s data is done (its tapes may still be put away): the next request for its
        file may be admitted."""
        entry = self.entries[job.key]
        entry.data_done_s = self.engine.now_s
        entry.ready_s = job.first_stream_s
        if self.log.on:
            self.log("data-done", request=job.key)
        if entry.repack is not None:
            return
        if self.cache is not None and entry.file_request.kind == "read":
            self.cache.staged(entry.file_request.file, self.engine.now_s)
        self.admission.next_of_file(entry.file_request.file.id)

    def job_done(self, job: Job) -> None:
        """``job`` is over: done, or stopped by a fault (:mod:`simulator.run.fault_processes`)."""
        if job.stopped is not None:
            self._stopped(job)
            return
        entry = self.entries.pop(job.key)
        entry.done_s = self.engine.now_s
        self.let_go(entry)
        entry.mounts_before = self.platform.mounts - entry.mounts_before
        if entry.repack is not None:
            self.repacking.done(entry)
            self.admission.forget_read_plans()
            self.retry_reservations()
            return
        self.finish(entry)
        if self.log.on:
            self.log("done", request=job.key)
        self.retry_reservations()
        self.fault_processes.work_ended()

    def finish(self, entry: AdmittedRequest) -> None:
        """``entry`` is done: counted, shown to the sinks, kept only when the run keeps them."""
        self.completed += 1
        for sink in self.finish_sinks:
            sink(entry)
        if self._keep_finished:
            self.finished.append(entry)

    def let_go(self, entry: AdmittedRequest) -> None:
        """``entry``'s job is over: its tapes are free, its stream idle."""
        for tape in entry.tapes:
            left = self.in_use[tape] - 1
            if left:
                self.in_use[tape] = left
            else:
                del self.in_use[tape]
                self.releases += 1
        if entry.group is not None:
            self.streams.idle(entry.group)

    def _stopped(self, job: Job) -> None:
        """A fault stopped ``job`` before its data was done: its request waits again.

        A read is planned again around the tapes it could not read (a tape
        found lost is from then on avoided by every read and no stream
        appends to it; one lost whole is repacked); a write starts over on a
        stream of its type. A read that cannot be planned fails.
        """
        entry = self.entries[job.key]
        self.let_go(entry)
        entry.restarts += 1
        self.log("stopped", request=job.key, reason=job.stopped)
        faults = self.fault_processes
        for tape in job.unavailable:
            if faults.found(tape):
                self.streams.retire(tape)
                self.admission.forget_read_plans()
                if any(loss.whole for loss in faults.found_lost[tape]):
                    self._repack(tape)
        entry.unavailable |= frozenset(job.unavailable)
        entry.job = None
        entry.group = None
        entry.start_s = None
        entry.drives = entry.reserved = ()
        if entry.file_request.kind == "write":
            entry.plan = None
        if entry.repack is not None and not self.repacking.replan(entry):
            del self.entries[job.key]
            self.poke()
            return
        self.admission.admit(entry.file_request, entry, job.stopped or "")
        self.retry_reservations()
        self.poke()

    def _repack(self, tape: str) -> None:
        """Admit the rebuild of ``tape``, found lost whole (:mod:`simulator.run.repacking`)."""
        entry = self.repacking.repack(tape)
        if entry is not None:
            self.entries[entry.file_request.id] = entry
            self.admission.admit(entry.file_request, entry)

    def _freed(self, drive: int) -> None:
        d = self.platform.drives[drive]
        if d.reserved and not d.busy:
            self._try_reserved(self.reservations[d.reserved[0]])
        self.poke()
