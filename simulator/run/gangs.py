"""Gang mode: requests get their drives one at a time (Golubchik, Muntz and Watson 1994, Section 4).

A scheduler of the simulator whose ``drives_one_at_a_time`` is true (the
``golubchik`` scheduler, :mod:`simulator.schedulers.golubchik`) runs the
platform as Golubchik's model does: a request it starts (the drives a
decision names are not used) joins a queue of gangs in the order started;
each idle drive goes to the request at the front of that queue, which holds
it (its tape is mounted at once) while it waits for the rest of its drives;
the next request gets drives only once the front one has all of its own;
and each drive is let go at its own transfer's end. A read's columns get
drives in order; a write takes its drives as they come and starts once it
has them all (its tapes are chosen then). Reads do not wait for a tape in
use: the drive granted waits until the tape is put away, which needs
``dismount`` ``at-once`` (checked by the platform) so that no drive holding a
tape waits for buddies that cannot come.
"""

from __future__ import annotations

from collections import deque
from typing import Protocol

from tapesched.simulator.kernel.engine import Engine
from tapesched.simulator.platform.platform import Job, Platform
from tapesched.simulator.run.admission import Admission
from tapesched.simulator.run.admitted import AdmittedRequest
from tapesched.simulator.run.event_log import EventLog
from tapesched.solvers.online.state import DispatchState


class _Run(Protocol):
    """What gang mode reads and asks of the run (:class:`~simulator.run.simulation.Simulation`)."""

    admission: Admission
    engine: Engine
    platform: Platform
    dispatch_state: DispatchState
    pooled: bool
    in_use: dict[str, int]
    log: EventLog

    def start(self, entry: AdmittedRequest, drives: list[int], waiting: bool = True) -> None:
        """Start ``entry`` on ``drives``."""
        ...

    def data_done(self, job: Job) -> None:
        """``job``'s data is done."""
        ...

    def job_done(self, job: Job) -> None:
        """``job`` is over."""
        ...


class Gangs:
    """The queue of requests started and lacking drives, in the order started."""

    def __init__(self, simulation: _Run) -> None:
        self._sim = simulation
        self.queue: deque[AdmittedRequest] = deque()
        """Requests started that lack drives, in the order started."""

    def join(self, entry: AdmittedRequest) -> None:
        """The scheduler started ``entry``: it stops waiting and queues for its drives."""
        sim = self._sim
        sim.admission.unwait(entry)
        self.queue.append(entry)
        if sim.log.on:
            sim.log("queue", request=entry.request.id)
        self.grant()

    def grant(self) -> None:
        """Give idle drives to the request at the front of the gangs, one at a time.

        A drive holding one of its tapes first, then the lowest numbered.
        The front request holds back every later one, as in Golubchik's
        input queue.
        """
        sim = self._sim
        platform = sim.platform
        gangs = self.queue
        idle_set, drives = sim.dispatch_state.idle_set, platform.drives
        while gangs and idle_set:
            entry = gangs[0]
            idle = [d for d in sorted(idle_set) if sim.pooled or drives[d].library == entry.library]
            if not idle:
                return
            drive = idle[0]
            for d in idle:
                if drives[d].tape in entry.tapes:
                    drive = d
                    break
            if self._give(entry, drive):
                gangs.popleft()

    def _give(self, entry: AdmittedRequest, drive: int) -> bool:
        """Give ``drive`` to ``entry``; whether it now has all its drives."""
        sim = self._sim
        platform = sim.platform
        key = entry.request.id
        if sim.log.on:
            sim.log("grant", request=key, drive=platform.drives[drive].id)
        if entry.file_request.kind == "write":
            platform.reserve(drive, key)
            entry.reserved += (drive,)
            if len(entry.reserved) < entry.width:
                return False
            sim.start(entry, list(entry.reserved), waiting=False)
            return True
        job = entry.job
        if job is None:
            assert entry.plan is not None
            for tape in entry.tapes:
                sim.in_use[tape] = sim.in_use.get(tape, 0) + 1
            entry.start_s = sim.engine.now_s
            entry.mounts_before = platform.mounts
            job = entry.job = Job(key, entry.plan, (), sim.data_done, sim.job_done)
            platform.begin(job, entry.library)
            if sim.log.on:
                sim.log("start", request=key, drives=[])
        holds = platform.drives[drive].tape
        free = [c for c, d in enumerate(job.drives) if d == -1]
        held = [c for c in free if any((e := p[c]) and e.tape == holds for p in job.phases)]
        column = (held or free)[0]
        complete = len(free) == 1
        if complete:
            entry.drives = tuple(d if c != column else drive for c, d in enumerate(job.drives))
        platform.grant(job, column, drive, expected_s=entry.service_s)
        return complete
