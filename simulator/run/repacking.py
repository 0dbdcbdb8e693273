"""Repacking: a tape found lost whole is rebuilt onto a new tape of its library.

A repack is a request the scheduler sees and finds drives for like any
read: it reads, for each file with bytes on the tape (its own, its groups'
parity or windows), what a read of the file around the tape reads (the
surviving members, which also give back the parity), into the mover's disk,
then writes the tape's bytes to the new tape in one pass on its first drive
(as wide as the widest of those reads, so that it fits a mover). Files that
cannot be rebuilt are lost for good (:attr:`Repacking.lost_files`). Once it
is done, reads of the lost tape read the new one. A repack stopped by a
fault is planned again around the tapes found lost meanwhile, or dropped
when nothing is left to rebuild.
"""

from __future__ import annotations

from attrs import evolve

from tapesched.simulator.kernel.engine import Engine
from tapesched.simulator.run.admitted import AdmittedRequest
from tapesched.simulator.run.event_log import EventLog
from tapesched.simulator.run.fault_processes import FaultProcesses
from tapesched.simulator.storage.archive import FILE_PREFIX, Archive
from tapesched.simulator.storage.catalogue import Catalogue
from tapesched.simulator.storage.files import Extent, FileRequest, JobSpec, Phase
from tapesched.simulator.storage.policies.policy import Policy, Unrecoverable
from tapesched.simulator.workload.workload import Workload


class Repacking:
    """The repacks of a run's lost tapes: started, done, and what they restored.

    Parameters
    ----------
    engine, catalogue, policy, workload
        The run's engine, catalogue, archival policy and workload (whose
        archive's files may have bytes on a lost tape).
    log
        The run's event log.
    faults
        The run's fault processes: the tapes found lost.
    """

    def __init__(
        self,
        engine: Engine,
        catalogue: Catalogue,
        policy: Policy,
        workload: Workload,
        log: EventLog,
        faults: FaultProcesses,
    ) -> None:
        self._engine = engine
        self._catalogue = catalogue
        self._policy = policy
        self._workload = workload
        self._log = log
        self._faults = faults
        self.started: list[AdmittedRequest] = []
        """Repacks started (done when their ``done_s`` is set)."""
        self.replaced: dict[str, str] = {}
        """Tapes lost whole and repacked, and the new tape each was rebuilt onto: reads of
        the old one read the new one."""
        self.restored: dict[str, frozenset[str]] = {}
        """The files whose bytes each repacked tape's new tape holds again."""
        self.lost_files: dict[str, str] = {}
        """Files a repack found it could not rebuild, and the tape that lost them."""
        self._to: dict[str, str] = {}
        """The new tape each repack writes to."""
        self._files: dict[str, tuple[str, ...]] = {}
        """The files each repack rebuilds."""

    def repack(self, tape: str) -> AdmittedRequest | None:
        """The rebuild of ``tape``, found lost whole, to admit (``None``: none, as one runs or
        is done already, or nothing on the tape can be rebuilt)."""
        if tape in self.replaced or any(e.repack == tape for e in self.started):
            return None
        plan = self._plan(tape)
        if plan is None:
            return None
        info = self._catalogue.tape(tape)
        # Of the type of the first file on the tape: a scheduler binding drives by type (the
        # paper's I/O processes) finds it drives as for those files.
        first = self._catalogue.file(self._files[tape][0])
        file = evolve(first, id=f"repack:{tape}", size_mb=info.used_mb)
        entry = AdmittedRequest(FileRequest(f"repack:{tape}", self._engine.now_s, "read", file))
        entry.repack = tape
        entry.plan = plan
        self.started.append(entry)
        self._log("repack", tape=tape)
        return entry

    def replan(self, entry: AdmittedRequest) -> bool:
        """A fault stopped the repack ``entry``: plan it again around the tapes found lost
        meanwhile; whether it goes on (else it is dropped: nothing is left to rebuild)."""
        assert entry.repack is not None
        entry.plan = self._plan(entry.repack)
        if entry.plan is not None:
            return True
        self.started.remove(entry)
        self._log("repack-dropped", tape=entry.repack)
        return False

    def _plan(self, tape: str) -> JobSpec | None:
        """What rebuilding ``tape`` reads and writes now (``None``: nothing can be rebuilt)."""
        catalogue, policy = self._catalogue, self._policy
        plans: list[JobSpec] = []
        covered = []
        for file_id in self._files_on(tape):
            unavailable = self._faults.found_lost_of(file_id) | {tape}
            try:
                plans.append(policy.plan_read(catalogue, file_id, unavailable))
                covered.append(file_id)
            except Unrecoverable:
                self.lost_files.setdefault(file_id, tape)
        self._files[tape] = tuple(covered)
        info = catalogue.tape(tape)
        if not plans or info.used_mb <= 0:
            return None
        new = self._to.get(tape)
        if new is None:
            new = self._to[tape] = catalogue.new_tape(info.library)
        width = max(p.width for p in plans)
        phases = [phase + (None,) * (width - len(phase)) for p in plans for phase in p.phases]
        phases.append((Extent(new, 0.0, info.used_mb, info.used_mb),) + (None,) * (width - 1))
        plan = JobSpec(tuple(phases), memory_mb=max(p.memory_mb for p in plans))
        return plan.folded(policy.write_width(catalogue.file(covered[0])))

    def done(self, entry: AdmittedRequest) -> None:
        """A repack is done: reads of its tape read the new one (read plans kept before
        read the old one: the run drops them)."""
        assert entry.repack is not None and entry.plan is not None
        new = entry.plan.phases[-1][0]
        assert new is not None
        self.replaced[entry.repack] = new.tape
        self.restored[entry.repack] = frozenset(self._files.pop(entry.repack))
        self._faults.forget(entry.repack)
        self._log("repacked", tape=entry.repack, to=new.tape)

    def renamed(self, plan: JobSpec) -> JobSpec:
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
        files = list(self._catalogue.files())
        archive = self._workload.archive
        if isinstance(archive, Archive):
            files += [f"{FILE_PREFIX}{k}" for k in archive.files_on(tape)]
        return [f for f in dict.fromkeys(files) if tape in self._layout_tapes(f)]

    def _layout_tapes(self, file_id: str) -> set[str]:
        return {t for row in self._catalogue.layout(file_id).rows for t in row.tapes}
