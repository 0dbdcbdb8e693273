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

A loss is not known before a read meets it: a job a fault stops reports the
tapes it could not read, and those lost are then *found* (:meth:`FaultProcesses.found`);
reads are planned around them from then on. The run starts the stopped
request again (:meth:`Simulation._stopped <simulator.run.simulation.Simulation._stopped>`);
a tape lost whole is repacked (:mod:`simulator.run.repacking`).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from tapesched.simulator.kernel.engine import Engine, Event
from tapesched.simulator.platform.faults import (
    YEAR_S,
    FaultSpec,
    TapeLoss,
    fault_rng,
    tapes_meeting,
)
from tapesched.simulator.platform.platform import Platform
from tapesched.simulator.run.event_log import EventLog
from tapesched.simulator.storage.archive import TAPE_PREFIX, Archive
from tapesched.simulator.storage.catalogue import Catalogue
from tapesched.simulator.workload.workload import Workload


class FaultProcesses:
    """The fault processes of a run, the tapes lost, and those reads have found.

    Parameters
    ----------
    engine, platform, catalogue, workload
        The run's engine, platform, catalogue and workload (whose archive's
        tapes may be lost too).
    log
        The run's event log.
    has_work
        Whether the run has requests still to arrive or not done.
    """

    def __init__(
        self,
        engine: Engine,
        platform: Platform,
        catalogue: Catalogue,
        workload: Workload,
        log: EventLog,
        has_work: Callable[[], bool],
    ) -> None:
        self._engine = engine
        self._platform = platform
        self._catalogue = catalogue
        self._workload = workload
        self._log = log
        self._has_work = has_work
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
        self._mover_repair_s = faults.mover_repair_s
        for loss in sorted(faults.tape_losses, key=lambda x: x.at_s):
            self._engine.at(loss.at_s, self._lose, loss)
        drives, movers = len(self._platform.drives), len(self._platform.movers)
        processes = (
            ("drive", drives, faults.drive_failures_per_year, self._drive_fails),
            ("mover", movers, faults.mover_failures_per_year, self._mover_fails),
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
        self._events[key] = self._engine.after(delay_s, strike, *args)

    def work_ended(self) -> None:
        """Call off the faults to come once nothing is left to arrive or to serve, so that a
        run to its end ends with its last request, not with a fault striking no one."""
        if self._events and not self._has_work():
            for event in self._events.values():
                self._engine.cancel(event)
            self._events.clear()

    def found_lost_of(self, file_id: str) -> frozenset[str]:
        """The tapes found lost that hold some of the file's layout where it is lost."""
        layout = self._catalogue.layout(file_id)
        return frozenset(tapes_meeting(layout, self.found_lost))

    def found(self, tape: str) -> bool:
        """Whether ``tape``, which a job could not read, is lost (else its mount was given up);
        a lost one is found: reads are planned around it from then on."""
        losses = self._platform.unreadable.get(tape)
        if losses is None:
            return False
        self.found_lost[tape] = list(losses)
        return True

    def forget(self, tape: str) -> None:
        """``tape`` is repacked: reads no longer plan around it (they read its new tape)."""
        self.found_lost.pop(tape, None)

    # The processes.

    def _drive_fails(self, drive: int, rng: random.Random, rate: float) -> None:
        if not self._has_work():
            return
        self._platform.fail_drive(drive)
        self._log("drive-failed", drive=self._platform.drives[drive].id)
        self._after(("drive", drive), rng.expovariate(rate), self._drive_fails, drive, rng, rate)

    def _mover_fails(self, mover: int, rng: random.Random, rate: float) -> None:
        if not self._has_work():
            return
        self._platform.fail_mover(mover, self._mover_repair_s)
        self._log("mover-failed", mover=self._platform.movers[mover].spec.id)
        self._after(("mover", mover), rng.expovariate(rate), self._mover_fails, mover, rng, rate)

    def _data_tapes(self) -> tuple[list[str], int]:
        """The run's tapes holding data, and the archive's tapes (``A000000, ...``) beside them."""
        own = [t.id for t in self._catalogue.tapes() if t.used_mb > 0]
        archive = self._workload.archive
        return own, archive.tapes_used if isinstance(archive, Archive) else 0

    def _tape_loss_next(self, rng: random.Random, rate: float) -> None:
        """The next tape lost at ``rate`` per tape-second, among the tapes holding data now."""
        own, archived = self._data_tapes()
        count = len(own) + archived
        if count == 0:
            return
        self._after(("tape", 0), rng.expovariate(rate * count), self._tape_lost, rng, rate)

    def _tape_lost(self, rng: random.Random, rate: float) -> None:
        if not self._has_work():
            return
        own, archived = self._data_tapes()
        k = rng.randrange(len(own) + archived)
        tape = own[k] if k < len(own) else f"{TAPE_PREFIX}{k - len(own):06d}"
        self._lose(TapeLoss(self._engine.now_s, tape))
        self._tape_loss_next(rng, rate)

    def _lose(self, loss: TapeLoss) -> None:
        """Strike ``loss``; a tape that holds no data yet (or does not exist) loses nothing."""
        try:
            if self._catalogue.tape(loss.tape).used_mb <= 0:
                return
        except KeyError:
            return
        self._platform.lose(loss)
        self.lost.append(loss)
        self._log("tape-lost", tape=loss.tape)
