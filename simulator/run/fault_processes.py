"""The faults of a run: drives, movers and tapes failing over time, and the requests they stop.

Three processes strike while a run has work (requests still to arrive or
not done), each with exponential times between its strikes
(:mod:`simulator.platform.faults` gives the rates and each process its own
random stream): each drive fails at ``drive_failures_per_year``, each mover
node at ``mover_failures_per_year`` (its drives out for ``mover_repair_s``),
and tapes holding data are lost at ``tape_losses_per_year`` per tape-year; a
scenario may also script losses at given times. Once nothing is left to
arrive or serve, the strikes to come are called off, so that a run to its
end ends with its last request.

A job a fault stops before its data is done (:meth:`FaultProcesses.stopped`)
is started again: a read is planned again around the tapes it could not
read (a tape found lost is from then on avoided by every read and no stream
appends to it; one lost whole is repacked, :mod:`simulator.run.repacking`),
a write starts over on a stream of its type. A read that cannot be planned
fails with its reason.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING

from tapesched.simulator.kernel.engine import Event
from tapesched.simulator.platform.faults import (
    YEAR_S,
    FaultSpec,
    TapeLoss,
    fault_rng,
    tapes_meeting,
)
from tapesched.simulator.platform.platform import Job
from tapesched.simulator.storage.archive import TAPE_PREFIX, Archive

if TYPE_CHECKING:
    from tapesched.simulator.run.simulation import Simulation


class FaultProcesses:
    """The fault processes of ``simulation``, the tapes lost, and those reads have found."""

    def __init__(self, simulation: Simulation) -> None:
        self._sim = simulation
        self._events: dict[tuple[str, int], Event] = {}
        """The next strike of each process, by process (``("drive", 3)``)."""
        self._mover_repair_s = 0.0
        self.lost: list[TapeLoss] = []
        """Tapes (or regions) lost so far, in order."""
        self.found_lost: dict[str, list[TapeLoss]] = {}
        """Lost tapes a read has found, and what of each is lost: reads are planned around
        them from then on (a loss is not known before a read meets it)."""

    def schedule(self, faults: FaultSpec, seed: int) -> None:
        """Start the processes of ``faults`` (and its scripted losses), drawn from ``seed``."""
        sim = self._sim
        self._mover_repair_s = faults.mover_repair_s
        for loss in sorted(faults.tape_losses, key=lambda x: x.at_s):
            sim.engine.at(loss.at_s, self._lose, loss)
        processes = (
            ("drive", len(sim.platform.drives), faults.drive_failures_per_year, self._drive_fails),
            ("mover", len(sim.platform.movers), faults.mover_failures_per_year, self._mover_fails),
        )
        for kind, count, per_year, strike in processes:
            if per_year > 0:
                rng = fault_rng(seed, f"{kind}s")
                rate = per_year / YEAR_S
                for i in range(count):
                    self._after((kind, i), rng.expovariate(rate), strike, i, rng, rate)
        if faults.tape_losses_per_year > 0:
            rng = fault_rng(seed, "tapes")
            self._tape_loss_next(rng, faults.tape_losses_per_year / YEAR_S)

    def _after(
        self, key: tuple[str, int], delay_s: float, strike: Callable[..., None], *args: object
    ) -> None:
        """The next fault of a process (``key``), kept to be called off once the work ends."""
        self._events[key] = self._sim.engine.after(delay_s, strike, *args)

    def work_ended(self) -> None:
        """Call off the faults to come once nothing is left to arrive or to serve, so that a
        run to its end ends with its last request, not with a fault striking no one."""
        if self._events and not self._sim.has_work():
            engine = self._sim.engine
            for event in self._events.values():
                engine.cancel(event)
            self._events.clear()

    def found_lost_of(self, file_id: str) -> frozenset[str]:
        """The tapes found lost that hold some of the file's layout where it is lost."""
        layout = self._sim.catalogue.layout(file_id)
        return frozenset(tapes_meeting(layout, self.found_lost))

    def forget(self, tape: str) -> None:
        """``tape`` is repacked: reads no longer plan around it (they read its new tape)."""
        self.found_lost.pop(tape, None)

    def stopped(self, job: Job) -> None:
        """A fault stopped ``job`` before its data was done: its request waits again.

        A read is planned again around the tapes it could not read (a tape
        found lost is from then on avoided by every read); a write starts
        over on a stream of its type. A read that cannot be planned fails.
        """
        sim = self._sim
        entry = sim.entries[job.key]
        sim.let_go(entry)
        entry.restarts += 1
        sim.log("stopped", request=job.key, reason=job.stopped)
        for tape in job.unavailable:
            losses = sim.platform.unreadable.get(tape)
            if losses is not None:
                self.found_lost[tape] = list(losses)
                sim.streams.retire(tape)
                sim.admission.forget_read_plans()
                if any(loss.whole for loss in losses):
                    sim.repacking.repack(tape)
        entry.unavailable |= frozenset(job.unavailable)
        entry.job = None
        entry.group = None
        entry.start_s = None
        entry.drives = entry.reserved = ()
        if entry.file_request.kind == "write":
            entry.plan = None
        if entry.repack is not None and not sim.repacking.replan(entry):
            sim.poke()
            return
        sim.admission.admit(entry.file_request, entry, job.stopped or "")
        sim.retry_reservations()
        sim.poke()

    # The processes.

    def _drive_fails(self, drive: int, rng: random.Random, rate: float) -> None:
        sim = self._sim
        if not sim.has_work():
            return
        sim.platform.fail_drive(drive)
        sim.log("drive-failed", drive=sim.platform.drives[drive].id)
        self._after(("drive", drive), rng.expovariate(rate), self._drive_fails, drive, rng, rate)

    def _mover_fails(self, mover: int, rng: random.Random, rate: float) -> None:
        sim = self._sim
        if not sim.has_work():
            return
        sim.platform.fail_mover(mover, self._mover_repair_s)
        sim.log("mover-failed", mover=sim.platform.movers[mover].spec.id)
        self._after(("mover", mover), rng.expovariate(rate), self._mover_fails, mover, rng, rate)

    def _data_tapes(self) -> tuple[list[str], int]:
        """The run's tapes holding data, and the archive's tapes (``A000000, ...``) beside them."""
        own = [t.id for t in self._sim.catalogue.tapes() if t.used_mb > 0]
        archive = self._sim.workload.archive
        return own, archive.tapes_used if isinstance(archive, Archive) else 0

    def _tape_loss_next(self, rng: random.Random, rate: float) -> None:
        """The next tape lost at ``rate`` per tape-second, among the tapes holding data now."""
        own, archived = self._data_tapes()
        count = len(own) + archived
        if count == 0:
            return
        self._after(("tape", 0), rng.expovariate(rate * count), self._tape_lost, rng, rate)

    def _tape_lost(self, rng: random.Random, rate: float) -> None:
        if not self._sim.has_work():
            return
        own, archived = self._data_tapes()
        k = rng.randrange(len(own) + archived)
        tape = own[k] if k < len(own) else f"{TAPE_PREFIX}{k - len(own):06d}"
        self._lose(TapeLoss(self._sim.engine.now_s, tape))
        self._tape_loss_next(rng, rate)

    def _lose(self, loss: TapeLoss) -> None:
        """Strike ``loss``; a tape that holds no data yet (or does not exist) loses nothing."""
        sim = self._sim
        try:
            if sim.catalogue.tape(loss.tape).used_mb <= 0:
                return
        except KeyError:
            return
        sim.platform.lose(loss)
        self.lost.append(loss)
        sim.log("tape-lost", tape=loss.tape)
