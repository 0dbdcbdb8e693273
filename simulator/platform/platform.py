"""The tape platform in time: libraries with arms, drives, movers, and the jobs they run.

A *job* is a :class:`~simulator.storage.files.JobSpec` carried out on a set of drives:
for each phase, every drive with an extent gets its tape ready (switching
tapes if needed: unload, arm dismount, arm mount, load; then a locate), the
extents stream in lockstep once all drives are ready (the Golubchik
"buddies"), and the heads move on. The platform knows nothing of files,
policies or which scheduler runs: whoever starts a job (the simulation) is
told when its data is done and when its drives are free.

:class:`Platform` carries jobs out (phases, locates, transfers in lockstep,
the shares of drive and arm time); the tape movements and the faults of
handling and drives are its base, :class:`~simulator.platform.handling.TapeHandling`.
It runs a :class:`~simulator.platform.spec.PlatformSpec` and keeps the records
of :mod:`simulator.platform.state`.

Timing rules are those of the core problem (``docs/core-problem.md``),
so that a run with fixed times exports a schedule the validator accepts:

- an arm carries one cartridge at a time, for ``mount_s`` or ``dismount_s``;
  a library's arms serve mounts before dismounts, FIFO within each
  (Golubchik, Muntz and Watson 1994, Section 4);
- a switch on a drive is sequential: unload, dismount, mount, load;
- a tape held by another, idle, drive is first unloaded and dismounted
  there;
- a transfer of ``x`` MB on a drive of rate ``r`` takes ``x / r``; an
  extent of ``b`` blocks streams ``b * block_s * r`` MB more (the per-block
  cost, charged as streaming time);
- a locate moves the head from where it is (0 after a load) to the
  extent's offset in the time the drive model gives
  (:meth:`~simulator.platform.technology.DriveModel.locate_s`, the core problem's
  one locate time): ``|offset - head|`` at ``locate_mb_s``, or what the
  model's serpentine ``locate`` says on a tape of ``tape_capacity_mb``.

Mover nodes group drives: a job runs on the drives of one mover, holds
``memory_mb`` of its memory while it runs, and the mover admits jobs while
the native rates of its busy drives stay within its ``bandwidth_mb_s``.

Tapes are dismounted when a switch needs their drive or their tape
(``dismount="on-demand"``, the core problem's rule), or as soon as a job is
done (``"at-once"``, the Golubchik model, where the drives stay busy until
their tapes are back in their slots).

Golubchik's service discipline (Golubchik, Muntz and Watson 1994, Section 4)
    With ``one_at_a_time`` (asked by the ``golubchik`` scheduler,
    :mod:`simulator.schedulers.golubchik`) a job may be begun before it
    has its drives (:meth:`Platform.begin`) and given them one by one
    (:meth:`Platform.grant`): each drive granted gets its tape at once
    (arm mount, load, locate) and then waits for its "buddies"; the phase
    streams when every drive is ready. In the job's last phase each drive
    is let go as soon as its own transfer ends: it puts its tape away
    (``at-once``) and is free when the arm has dismounted it, whatever its
    buddies do. (Otherwise a job starts on all its drives at once and frees
    them together.) With a drive model's ``transfer`` ``"exponential"``,
    a phase's transfer is drawn exponential: one draw ``e`` of mean 1 per
    phase, each drive streaming its ``x`` MB in ``e * x / r`` (the drives of
    a gang stream in lockstep, so a striped file's pieces end together);
    ``"fixed"``, the default, is ``x / r``.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from tapesched.simulator.kernel.engine import Engine
from tapesched.simulator.platform.faults import FaultSpec, TapeLoss
from tapesched.simulator.platform.handling import TapeHandling
from tapesched.simulator.platform.spec import PlatformSpec
from tapesched.simulator.platform.state import DriveState, Job, Transfer
from tapesched.simulator.platform.technology import DriveModel
from tapesched.simulator.storage.files import Extent
from tapesched.toolkit.metrics import share


class Platform(TapeHandling):
    """The platform during a run: carries jobs out and keeps its state.

    Parameters
    ----------
    spec
        The platform.
    engine
        The event engine.
    rng
        Source of the random times.
    freed
        Called with a drive index when that drive becomes free (idle).
    record
        Keep the arm operations and transfers (for the exported schedule).
    home
        The library (index) a tape belongs to, for the pass-through; by
        default every tape belongs to the library of the drive it goes to.
    one_at_a_time
        Jobs may be begun before their drives and given them one by one
        (Golubchik's discipline; needs ``dismount="at-once"`` and no movers).
    faults
        What fails and how often (:mod:`simulator.platform.faults`; ``None``: nothing).
        Handling failures are drawn here; drive failures and tape losses
        are struck by whoever runs the platform (:meth:`fail_drive`,
        :meth:`lose`). Not with ``one_at_a_time``.
    seed
        Seed of the handling failures' own stream.
    """

    def __init__(
        self,
        spec: PlatformSpec,
        engine: Engine,
        rng: random.Random,
        freed: Callable[[int], None],
        record: bool = True,
        home: Callable[[str], int] | None = None,
        one_at_a_time: bool = False,
        faults: FaultSpec | None = None,
        seed: int = 0,
    ) -> None:
        if one_at_a_time and (spec.movers or spec.dismount != "at-once"):
            raise ValueError(
                "drives one at a time need dismount at-once and a platform without movers"
            )
        super().__init__(spec, engine, rng, freed, record, home, faults, seed)
        if faults is not None and one_at_a_time:
            raise ValueError("faults are not modelled with drives one at a time")
        self.at_once = spec.dismount == "at-once"
        self.one_at_a_time = one_at_a_time
        """Jobs get their drives one by one and let each go at its own transfer's end."""
        self.transfers: list[Transfer] = []
        self.streamed_drive_s = 0.0
        """Drive-seconds of every transfer started, whole (a phase holds its drives its longest)."""
        self.last_transfer_end_s = 0.0
        """End of the last transfer started: the run's makespan."""
        self.unreadable: dict[str, list[TapeLoss]] = {}
        """Tapes lost, in whole or in part, and what of each is lost."""

    # The shares of drive and arm time (toolkit.metrics.DEFINITIONS), from the run's records.

    def drive_busy_share_over_horizon(self) -> float:
        """Drive time busy (claimed for a job or a put-away) since time 0, over drives x now."""
        busy_s = sum(self.drive_busy_s(d) for d in self.drives)
        return share(busy_s, len(self.drives), self.engine.now_s)

    def drive_streaming_share_over_horizon(self) -> float:
        """Drive time streaming up to now (a transfer in flight: so far), over drives x now."""
        now = self.engine.now_s
        ahead_s = sum(max(d.streaming_until_s - now, 0.0) for d in self.drives)
        return share(self.streamed_drive_s - ahead_s, len(self.drives), now)

    def arm_busy_share_over_horizon(self) -> float:
        """Arm time busy up to now, over all libraries' arms x now."""
        busy_s = sum(arm.busy_s() for arm in self.arms)
        return share(busy_s, sum(arm.capacity for arm in self.arms), self.engine.now_s)

    @property
    def makespan_s(self) -> float:
        """End of the last transfer started (that of the exported schedule)."""
        return self.last_transfer_end_s

    def drive_streaming_share_over_makespan(self) -> float:
        """Drive time of every transfer started, whole, over drives x makespan."""
        return share(self.streamed_drive_s, len(self.drives), self.last_transfer_end_s)

    def arm_busy_share_over_makespan(self) -> float:
        """Time of every arm operation started, whole, over all libraries' arms x makespan."""
        arms = sum(arm.capacity for arm in self.arms)
        return share(self.arm_operation_s, arms, self.last_transfer_end_s)

    # Jobs.

    def start(self, job: Job, expected_s: float = 0.0) -> None:
        """Carry ``job`` out on its drives, which must be idle and on one mover."""
        all_drives = self.drives
        drives = [all_drives[i] for i in job.drives]
        key = job.key
        number = drives[0].mover if drives else -1
        stream_mb_s = 0.0
        for d in drives:
            if d.mover != number or d.busy or (d.reserved and d.reserved[0] != key):
                raise ValueError(f"job {key!r}: drives must be idle and on one mover")
            stream_mb_s += d.model.rate_mb_s
        if not drives:
            raise ValueError(f"job {key!r}: drives must be idle and on one mover")
        job.mover = number
        mover = self.movers[number]
        job.stream_mb_s = stream_mb_s
        mover.memory_mb += job.plan.memory_mb
        mover.streaming_mb_s += stream_mb_s
        free_s = self.engine.now_s + expected_s
        occupy = self._occupy
        for d in drives:
            if d.reserved:
                d.reserved.popleft()
            occupy(d)
            d.job = job
            d.expected_free_s = free_s
        job.held = len(drives)
        self._prepare(job)

    def begin(self, job: Job, library: int) -> None:
        """Begin ``job`` in ``library`` with none of its drives yet (``one-at-a-time``).

        Each column gets its drive through :meth:`grant`; the first phase
        streams once every column's drive is ready.
        """
        if not self.one_at_a_time:
            raise ValueError("jobs are begun before their drives only one-at-a-time")
        job.drives = [-1] * job.plan.width
        job.mover = library
        rate = next(d.model.rate_mb_s for d in self.drives if d.library == library)
        job.stream_mb_s = rate * job.plan.width
        mover = self.movers[job.mover]
        mover.memory_mb += job.plan.memory_mb
        mover.streaming_mb_s += job.stream_mb_s
        job.ready = job.plan.width

    def grant(self, job: Job, column: int, drive: int, expected_s: float = 0.0) -> None:
        """Give the idle ``drive`` to column ``column`` of a job begun: it gets its tape now."""
        d = self.drives[drive]
        if d.busy or (d.reserved and d.reserved[0] != job.key) or job.drives[column] != -1:
            raise ValueError(f"job {job.key!r}: drive {d.id!r} or column {column} is taken")
        if d.reserved:
            d.reserved.popleft()
        self._occupy(d)
        d.expected_free_s = self.engine.now_s + expected_s
        job.drives[column] = drive  # type: ignore[index]
        job.held += 1
        extent = job.phases[0][column]
        if extent is None:
            self._ready(job)
        else:
            self._get_ready(job, d, extent)

    def _prepare(self, job: Job) -> None:
        phase = job.phases[job.phase]
        if len(phase) == 1:
            # One column (a plain read or write): the loops below, for it alone.
            extent = phase[0]
            if extent is None:
                job.ready = 0
                self._phase_done(job)
            else:
                job.ready = 1
                self._get_ready(job, self.drives[job.drives[0]], extent)
            return
        ready = 0
        for extent in phase:
            if extent is not None:
                ready += 1
        job.ready = ready
        if ready == 0:
            self._phase_done(job)
            return
        drives, job_drives = self.drives, job.drives
        for i, extent in enumerate(phase):
            if extent is not None:
                self._get_ready(job, drives[job_drives[i]], extent)

    def _get_ready(self, job: Job, d: DriveState, extent: Extent) -> None:
        if self.unreadable and job.stoppable and self._lost(extent):
            # Found unreadable: the job stops once its other drives are ready (or stopped).
            job.unavailable += (extent.tape,)
            job.stopped = job.stopped or f"tape {extent.tape} unreadable"
            self._ready(job)
            return
        if d.tape == extent.tape:
            self._locate(job, d, extent.offset_mb)
        else:
            self._switch(d, extent.tape, self._locate, job, d, extent.offset_mb)

    def _locate(self, job: Job, d: DriveState, offset_mb: float) -> None:
        if job.stopped is not None:
            self._ready(job)
            return
        delay = d.model.locate_s(d.head_mb, offset_mb, self.spec.tape_capacity_mb)
        d.head_mb = offset_mb
        if delay > 0:
            self.engine.after(delay, self._ready, job)
        else:
            self._ready(job)

    def _ready(self, job: Job) -> None:
        job.ready -= 1
        if job.ready:
            return
        if job.stopped is not None:
            self._stop(job)
            return
        phase = job.phases[job.phase]
        now = self.engine.now_s
        if job.first_stream_s is None:
            job.first_stream_s = now
        drives, job_drives, per_block = self.drives, job.drives, job.plan.per_block
        if len(phase) == 1 and not self.one_at_a_time and not self.record:
            extent = phase[0]
            if extent is not None:
                # One column, nothing recorded: what the general case below does, for it alone.
                d = drives[job_drives[0]]
                model = d.model
                stream = self.stream_mb(model, extent, per_block)
                d.head_mb = extent.offset_mb + stream
                alone_s = stream / model.rate_mb_s
                if model.transfer == "exponential":
                    alone_s = alone_s * self.rng.expovariate(1.0)
                end_s = now + alone_s
                d.streaming_until_s = end_s
                self.streamed_drive_s += alone_s
                if end_s > self.last_transfer_end_s:
                    self.last_transfer_end_s = end_s
                self.engine.after(alone_s, self._phase_done, job)
                return
        columns: list[int] = []
        streamed: list[float] = []
        took: list[float] = []
        for i, extent in enumerate(phase):
            if extent is None:
                continue
            d = drives[job_drives[i]]
            model = d.model
            stream = self.stream_mb(model, extent, per_block)
            d.head_mb = extent.offset_mb + stream
            took.append(stream / model.rate_mb_s)
            columns.append(d.index)
            streamed.append(stream)
        if took and drives[columns[0]].model.transfer == "exponential":
            # The drives of a phase stream in lockstep: one draw scales all their times.
            factor = self.rng.expovariate(1.0)
            took = [t * factor for t in took]
        longest = 0.0
        for t in took:
            if t > longest:
                longest = t
        end_s = now + longest
        last = self.one_at_a_time and job.phase == len(job.phases) - 1
        if last:
            for c, s in zip(columns, took, strict=True):
                drives[c].streaming_until_s = now + s
            self.streamed_drive_s += sum(took)
            # Golubchik: each drive puts its tape away as soon as its own transfer ends.
            for i in job.drives:
                if i not in columns:
                    self._let_go(job, drives[i])
            for c, s in zip(columns, took, strict=True):
                self.engine.after(s, self._let_go, job, drives[c])
        else:
            for c in columns:
                drives[c].streaming_until_s = end_s
            self.streamed_drive_s += longest * len(columns)
        if end_s > self.last_transfer_end_s:
            self.last_transfer_end_s = end_s
        if self.record:
            ids = tuple(drives[d].id for d in columns)
            flush = job.phase >= len(job.plan.phases)
            self.transfers.append(
                Transfer(
                    job.key,
                    job.phase,
                    flush,
                    ids,
                    tuple(extent for extent in phase if extent is not None),
                    tuple(streamed),
                    now,
                    end_s,
                )
            )
        self.engine.after(longest, self._phase_done, job)

    @staticmethod
    def stream_mb(model: DriveModel, extent: Extent, per_block: bool) -> float:
        """Tape MB the head streams over for ``extent``: its data, and its blocks' cost if any."""
        if per_block and model.block_s:
            return extent.tape_mb + extent.blocks * model.block_s * model.rate_mb_s
        return extent.tape_mb

    def _phase_done(self, job: Job) -> None:
        if self.failing and job.phase < len(job.plan.phases):
            failed = next((i for i in job.drives if i in self.failing), None)
            if failed is not None:
                # A drive failed while the phase streamed: its data is lost, the job stops.
                job.stopped = f"drive {self.drives[failed].id} failed"
                self._stop(job)
                return
        job.phase += 1
        if job.phase == len(job.plan.phases):
            self.version += 1
            mover = self.movers[job.mover]
            mover.memory_mb -= job.plan.memory_mb
            job.data_done(job)
        if job.phase < len(job.phases):
            self._prepare(job)
            return
        mover = self.movers[job.mover]
        mover.streaming_mb_s -= job.stream_mb_s
        if self.one_at_a_time:
            if job.held == 0:
                job.done(job)
            return
        self._end(job)

    def _end(self, job: Job) -> None:
        """Free a job's drives (its tapes put away first with ``at-once``) and call ``done``."""
        if not self.at_once:
            for i in job.drives:
                self._free(self.drives[i])
            job.done(job)
            return
        job.ready = len(job.drives)
        for i in job.drives:
            self._put_away(self.drives[i], self._put_away_done, job)

    def _let_go(self, job: Job, d: DriveState) -> None:
        """A drive of a job one-at-a-time is done: its tape put away if ``at-once``, it is free."""
        if self.at_once:
            self._put_away(d, self._released, job, d)
        else:
            self._released(job, d)

    def _released(self, job: Job, d: DriveState) -> None:
        job.held -= 1
        self._free(d)
        if job.held == 0 and job.phase == len(job.phases):
            job.done(job)

    def _put_away_done(self, job: Job) -> None:
        job.ready -= 1
        if job.ready == 0:
            for i in job.drives:
                self._free(self.drives[i])
            job.done(job)

    # Tapes lost (simulator.platform.faults).

    def lose(self, loss: TapeLoss) -> None:
        """Make a tape, or a region of it, unreadable from now on (reads reaching it stop)."""
        self.unreadable.setdefault(loss.tape, []).append(loss)

    def _lost(self, extent: Extent) -> bool:
        losses = self.unreadable.get(extent.tape)
        if not losses:
            return False
        end_mb = extent.offset_mb + extent.tape_mb
        return any(loss.covers(extent.offset_mb, end_mb) for loss in losses)

    def _stop(self, job: Job) -> None:
        """End ``job`` before its data is done (:attr:`Job.stopped` says why): free its drives
        as at a job's end and call ``done``."""
        self.version += 1
        mover = self.movers[job.mover]
        if job.phase < len(job.plan.phases):
            mover.memory_mb -= job.plan.memory_mb
        mover.streaming_mb_s -= job.stream_mb_s
        job.phase = len(job.phases)
        self._end(job)
