"""Admission: a file request that arrives is planned and shown to the scheduler, or held back.

What the scheduler sees
    Each admitted file request is shown as a core-problem
    :class:`~toolkit.model.Request`: its release is the arrival, its weight
    ``1000 / size_mb`` (the paper's weighted response time is the response
    divided by the size, here per GB), its pieces the first phase of its
    read plan. A write shows pieces on tapes that do not exist yet (ids
    beginning ``new:``): where a write goes is the policy's choice when it
    starts, so no scheduler can rank it by tape; the platform appends it to
    an idle stream of its type (policy and scheme, :mod:`simulator.run.streams`)
    whose tapes are mounted on idle drives of one mover when there is one.
    The waiting requests are kept in the platform's
    :class:`~solvers.online.state.DispatchState`, as the solvers' dispatcher
    keeps its own: a request's rank of arrival is its rank of admission, the
    order in which requests became waiting.

When a request waits (Blue Waters paper, Section 5)
    A request is not shown to the scheduler while an earlier request for
    the same file is pending (until that one's data is done). A read is
    planned around the tapes found lost (faults); one that cannot be
    planned fails with its reason, and one that needs no tape (rebuilt from
    what a mover's disk holds) is done at once.

A request's expected service (:meth:`Admission.alone_s`) is its time alone
on idle empty drives, from the mean times.
"""

from __future__ import annotations

from collections import deque
from typing import Protocol

from tapesched.simulator.kernel.engine import Engine
from tapesched.simulator.platform.platform import Platform
from tapesched.simulator.platform.technology import DriveModel
from tapesched.simulator.run.admitted import AdmittedRequest
from tapesched.simulator.run.event_log import EventLog
from tapesched.simulator.run.fault_processes import FaultProcesses
from tapesched.simulator.run.repacking import Repacking
from tapesched.simulator.run.streams import Streams
from tapesched.simulator.storage.catalogue import Catalogue
from tapesched.simulator.storage.files import FileRequest, JobSpec
from tapesched.simulator.storage.policies.policy import Policy, Unrecoverable
from tapesched.solvers.online.state import DispatchState
from tapesched.toolkit.model import Piece, Request

READ_PLANS_KEPT = 16_384
"""Read plans kept for files read again (a plan is recomputed, equal, once dropped): reads
spread over an archive of millions of files would otherwise keep one for each."""

LIBRARIES_KEPT = 16_384
"""Tapes whose library admission keeps (an archive's half a million tapes would be kept
otherwise; a library is found again, the same, once dropped)."""

NEW_TAPE = "new:"
"""Prefix of the tape ids a waiting write shows (tapes that do not exist yet)."""


class _Run(Protocol):
    """What admission reads and changes of the run
    (:class:`~simulator.run.simulation.Simulation`)."""

    entries: dict[str, AdmittedRequest]
    failed: list[AdmittedRequest]
    engine: Engine
    platform: Platform
    catalogue: Catalogue
    policy: Policy
    dispatch_state: DispatchState
    write_library: int
    streams: Streams
    fault_processes: FaultProcesses
    repacking: Repacking
    log: EventLog

    def poke(self) -> None:
        """Ask the scheduler for decisions once the events of this time are done."""
        ...

    def finish(self, entry: AdmittedRequest) -> None:
        """``entry`` is done."""
        ...


class Admission:
    """The requests of ``simulation`` from their arrival until they start (see the module)."""

    def __init__(self, simulation: _Run) -> None:
        self._sim = simulation
        self.file_busy: dict[str, deque[FileRequest] | None] = {}
        """The files with a request pending, and the requests arrived for each since (``None``:
        none yet; a queue is made for the few files asked for again meanwhile)."""
        self.waiting_by_tapes: dict[tuple[str, ...], dict[int, Request]] = {}
        """The waiting requests by the tapes they wait for (a read's :attr:`AdmittedRequest.tapes`,
        none for a write), by rank: :meth:`SimulationState.not_waiting_for_tape
        <simulator.run.simulation_state.SimulationState.not_waiting_for_tape>` tests each
        set of tapes once, not each request."""
        self._read_plans: dict[str, JobSpec] = {}
        """Read plan of each file read so far, until it is written again (a layout is final)."""
        self._keep_plans = bool(getattr(simulation.policy, "keep_read_plans", True))
        """Whether read plans are kept: a policy may say that planning a read costs less than
        keeping its plan (``keep_read_plans = False``: a trace's files, each read once)."""
        self._libraries: dict[str, int] = {}
        """The library index of each tape met so far (:meth:`home`)."""
        self._switch_s: dict[tuple[int, int], tuple[float, DriveModel]] = {}
        """By library and width, the mounts and load of a request alone (from the mean times)
        and the model of the library's first drive (:meth:`alone_s`)."""

    def arrive(self, file_request: FileRequest) -> bool:
        """Admit ``file_request``, unless an earlier request for its file is pending: it then
        waits for that one's data (:meth:`next_of_file`). Whether it was admitted."""
        file_id = file_request.file.id
        file_busy = self.file_busy
        if file_id in file_busy:
            queue = file_busy[file_id]
            if queue is None:
                queue = file_busy[file_id] = deque()
            queue.append(file_request)
            return False
        file_busy[file_id] = None
        self.admit(file_request)
        return True

    def next_of_file(self, file_id: str) -> None:
        """The file's request in hand is over: admit the next one waiting for the file."""
        queue = self.file_busy[file_id]
        if queue:
            self.admit(queue.popleft())
            self._sim.poke()
        else:
            del self.file_busy[file_id]

    def forget_read_plans(self, file_id: str | None = None) -> None:
        """Drop the read plans kept (of ``file_id`` alone: the file is written again)."""
        if file_id is None:
            self._read_plans.clear()
        else:
            self._read_plans.pop(file_id, None)

    def admit(
        self, file_request: FileRequest, entry: AdmittedRequest | None = None, cause: str = ""
    ) -> None:
        """Make ``file_request`` waiting (``entry``: again, once a fault, ``cause``, stopped it)."""
        sim = self._sim
        if entry is None:
            entry = AdmittedRequest(file_request)
            sim.entries[file_request.id] = entry
        file = file_request.file
        read = file_request.kind == "read"
        pieces: tuple[Piece, ...]
        plan: JobSpec
        if entry.repack is not None:
            assert entry.plan is not None
            plan = entry.plan
        elif read:
            faults = sim.fault_processes
            if faults.found_lost:
                entry.unavailable |= faults.found_lost_of(file.id)
            if entry.unavailable:
                try:
                    plan = sim.policy.plan_read(sim.catalogue, file.id, entry.unavailable)
                except Unrecoverable as exc:
                    self._fail(entry, f"{cause}; {exc}" if cause else str(exc))
                    return
                # Read on no more drives than a write of the file holds (a process of its type).
                plan = plan.folded(sim.policy.write_width(file))
            elif not self._keep_plans:
                plan = sim.policy.plan_read(sim.catalogue, file.id)
            else:
                read_plans = self._read_plans
                kept = read_plans.get(file.id)
                if kept is None:
                    if len(read_plans) >= READ_PLANS_KEPT:
                        read_plans.clear()
                    kept = read_plans[file.id] = sim.policy.plan_read(sim.catalogue, file.id)
                plan = kept
            if sim.repacking.replaced:
                plan = sim.repacking.renamed(plan)
        if read:
            entry.plan = plan
            phases = plan.phases
            if not phases:
                self._from_disk_alone(entry)
                return
            first = phases[0]
            e = first[0] if len(phases) == 1 and not plan.flush and len(first) == 1 else None
            if e is not None:
                # One extent (a trace's read, say): what the general case below gives.
                tape = e.tape
                pieces = (Piece(tape, e.offset_mb, e.tape_mb),)
                entry.tapes = (tape,)
                entry.width = 1  # (a request planned again may have been wider)
            else:
                entry.width = plan.width
                pieces = tuple(
                    Piece(e.tape, e.offset_mb, e.tape_mb) for e in first if e is not None
                )
                entry.tapes = tuple(
                    sorted({e.tape for phase in plan.phases + plan.flush for e in phase if e})
                )
                tape = pieces[0].tape
            library = self._libraries.get(tape)
            entry.library = self.home(tape) if library is None else library
        else:
            entry.width = sim.policy.write_width(file)
            share = file.size_mb / entry.width
            pieces = tuple(
                Piece(f"{NEW_TAPE}{file_request.id}:{i}", 0.0, share) for i in range(entry.width)
            )
            lib = sim.write_library
            if len(sim.platform.library_ids) > 1:
                group = sim.streams.best(file)
                if group is not None and group.tapes:
                    info = sim.catalogue.tape(group.tapes[0])
                    lib = sim.platform.library_index[info.library]
            entry.library = lib
        entry.request = request = Request(
            id=file_request.id,
            release_s=file_request.arrival_s,
            weight=1000.0 / file.size_mb,
            kind=file_request.kind,
            pieces=pieces,
        )
        entry.service_s = self.alone_s(entry)
        entry.seq = seq = sim.dispatch_state.add(request)
        tapes = entry.tapes if read else ()
        by_tapes = self.waiting_by_tapes.get(tapes)
        if by_tapes is None:
            self.waiting_by_tapes[tapes] = {seq: request}
        else:
            by_tapes[seq] = request

    def unwait(self, entry: AdmittedRequest) -> None:
        """``entry`` is waiting no more (it starts, or holds drives)."""
        self._sim.dispatch_state.remove(entry.seq)
        tapes = entry.tapes if entry.file_request.kind == "read" else ()
        by_tapes = self.waiting_by_tapes[tapes]
        del by_tapes[entry.seq]
        if not by_tapes:
            del self.waiting_by_tapes[tapes]

    def home(self, tape: str) -> int:
        """Index of the library ``tape`` belongs to (a tape's library never changes: kept, for
        :data:`LIBRARIES_KEPT` tapes at a time)."""
        libraries = self._libraries
        library = libraries.get(tape)
        if library is None:
            platform = self._sim.platform
            library = platform.library_index[self._sim.catalogue.library(tape)]
            if len(libraries) >= LIBRARIES_KEPT:
                libraries.clear()
            libraries[tape] = library
        return library

    def _from_disk_alone(self, entry: AdmittedRequest) -> None:
        """A read rebuilt from what the mover's disk holds alone (VERTICAL parity not yet
        on tape, the group's other data tapes shorter than the file's window): done now."""
        sim = self._sim
        now = sim.engine.now_s
        entry.start_s = entry.data_done_s = entry.done_s = now
        entry.tapes = entry.drives = ()
        entry.mounts_before = 0
        del sim.entries[entry.file_request.id]
        sim.finish(entry)
        sim.log("done", request=entry.file_request.id, from_disk=True)
        self.next_of_file(entry.file_request.file.id)
        sim.fault_processes.work_ended()

    def _fail(self, entry: AdmittedRequest, reason: str) -> None:
        """``entry`` cannot be served: it ends failed, with ``reason``."""
        sim = self._sim
        entry.failure = reason
        entry.done_s = sim.engine.now_s
        del sim.entries[entry.file_request.id]
        sim.failed.append(entry)
        sim.log("failed", request=entry.file_request.id, reason=reason)
        self.next_of_file(entry.file_request.file.id)
        sim.fault_processes.work_ended()

    def alone_s(self, entry: AdmittedRequest) -> float:
        """Expected time of ``entry`` alone on idle empty drives, from the mean times.

        Its mounts (``arms`` at a time), a load, the first locate of each
        drive and the phases' transfers; a write, whose layout is not known
        yet, streams an equal share of its size uncompressed on each drive.
        """
        key = (entry.library, entry.width)
        known = self._switch_s.get(key)
        if known is None:
            platform = self._sim.platform
            lib = platform.libraries[entry.library]
            model = next(
                (d for d in platform.drives if d.library == entry.library), platform.drives[0]
            ).model
            mount = lib.mount_s.mean_s
            switch_s = max(entry.width * mount / lib.arms, mount) + model.load_s.mean_s
            known = self._switch_s[key] = (switch_s, model)
        total, model = known
        plan = entry.plan
        if plan is None:
            return total + entry.file_request.file.size_mb / entry.width / model.rate_mb_s
        platform = self._sim.platform
        capacity_mb, per_block = platform.spec.tape_capacity_mb, plan.per_block
        stream_mb, rate_mb_s = platform.stream_mb, model.rate_mb_s
        k = 0
        for phase in plan.phases:
            longest = 0.0
            for extent in phase:
                if extent is not None:
                    locate = model.locate_s(0.0, extent.offset_mb, capacity_mb) if k == 0 else 0.0
                    took = locate + stream_mb(model, extent, per_block) / rate_mb_s
                    if took > longest:
                        longest = took
            total += longest
            k += 1
        return total
