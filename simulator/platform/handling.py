"""The platform's drives and the arms that handle their tapes during a run.

:class:`TapeHandling` keeps which drive is busy, idle or reserved and which
tape is in which drive, and moves cartridges by the timing rules of
:mod:`simulator.platform.platform`: a switch on a drive (unload, arm dismount,
arm mount, load), a tape taken from another, idle, drive, the arms of a
library serving mounts before dismounts, the pass-through ports between
libraries, and the levels of a complex
(:class:`~simulator.platform.library_complex.LibraryComplex`), where a
cartridge is taken out by a handbot of its own level, carried across, and
floats or is carried home when dismounted.

It also carries out the faults of handling and of drives
(:mod:`simulator.platform.faults`): mounts and dismounts that fail and are
tried again, stuck cartridges, drives and movers struck and repaired.
:class:`~simulator.platform.platform.Platform` carries jobs out on top of it.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from tapesched.simulator.kernel.engine import Engine
from tapesched.simulator.kernel.resource import Resource
from tapesched.simulator.platform.faults import FaultSpec, fault_rng
from tapesched.simulator.platform.spec import MoverSpec, PlatformSpec
from tapesched.simulator.platform.state import ArmRecord, DriveState, MoverState, TapesSeen
from tapesched.solvers.online.state import DispatchState

MOUNT, DISMOUNT = 0, 1
"""Arm priority classes: mounts first."""


class TapeHandling:
    """The drives, movers and arms of a platform during a run, and the tapes they move.

    The base of :class:`~simulator.platform.platform.Platform`, whose
    parameters these are (all but ``one_at_a_time``).
    """

    def __init__(
        self,
        spec: PlatformSpec,
        engine: Engine,
        rng: random.Random,
        freed: Callable[[int], None],
        record: bool,
        home: Callable[[str], int] | None,
        faults: FaultSpec | None,
        seed: int,
    ) -> None:
        self.spec = spec
        self.home = home
        self.pass_throughs = 0
        """Tape moves through a pass-through port so far."""
        self.engine = engine
        self.rng = rng
        self.freed = freed
        self.record = record
        self.library_ids = [lib.id for lib in spec.libraries]
        self.library_index = {lib: i for i, lib in enumerate(self.library_ids)}
        self.libraries = list(spec.libraries)
        self.arms = [Resource(engine, lib.arms, priorities=2) for lib in spec.libraries]
        movers = spec.movers or tuple(MoverSpec(lib.id) for lib in spec.libraries)
        self.movers = [MoverState(m) for m in movers]
        mover_index = {m.id: i for i, m in enumerate(movers)}
        self.drives: list[DriveState] = []
        for i, d in enumerate(spec.drives):
            lib = self.library_index[d.library]
            mover = mover_index[d.mover] if d.mover is not None else lib
            self.drives.append(DriveState(d, i, lib, mover))
            self.movers[mover].drives.append(i)
            self.movers[mover].idle += 1
            self.movers[mover].empty_idle += 1
            self.drives[-1].empty_idle = True
            self.movers[mover].library = lib
        self.dispatch_state = DispatchState([d.library for d in self.drives], len(self.library_ids))
        """The idle drives (neither busy nor reserved), kept where the run keeps its waiting
        requests, the state the scheduler's questions are answered from."""
        self._set_idle = self.dispatch_state.set_idle
        self.drive_index = {d.id: d.index for d in self.drives}
        self.version = 0
        """Counts the changes of drive states, memory and bandwidth: equal, nothing changed."""
        self.releases = 0
        """Counts the drives freed and the tapes put away: equal, no tape left a busy drive."""
        self.movers_of: list[list[int]] = [[] for _ in self.library_ids]
        for m, mover_state in enumerate(self.movers):
            self.movers_of[mover_state.library].append(m)
        self.where: dict[str, int] = {}
        self.waiters: dict[str, list[tuple[DriveState, Callable[..., None], tuple]]] = {}
        self.arm_log: list[ArmRecord] = []
        self.mounts = 0
        self.tapes_mounted = TapesSeen()
        """The distinct tapes mounted so far (``mounts / len(tapes_mounted)``: mounts a tape)."""
        self.arm_operation_s = 0.0
        """Seconds of every arm operation started, whole."""
        self.complex = spec.complex
        """How the levels of a complex are joined (``None``: libraries apart, or pass-through)."""
        if self.complex is not None and home is None:
            raise ValueError("a complex needs the home level of each tape")
        self.tape_home: dict[str, int] = {}
        """Home level of each tape seen so far in a complex (it changes when a tape floats)."""
        self.shelved = list(self.complex.shelved) if self.complex is not None else []
        """Cartridges in the slots of each level of a complex now."""
        self.in_transit: dict[str, tuple[DriveState, Callable[..., None], tuple] | None] = {}
        """Tapes of a complex on their way back to their home level, and the mount waiting."""
        self.cross_level_mounts = 0
        """Mounts of a tape from another level than its drive's (a complex)."""
        self.faults = faults
        self.handling_failure = 0.0 if faults is None else faults.handling_failure
        self._handling_rng = fault_rng(seed, "handling")
        self.handling_failures = 0
        """Mounts and dismounts that failed (each tried again or given up)."""
        self.mounts_given_up = 0
        """Mounts failed ``attempts`` times: the job reading the tape stopped."""
        self.stuck = 0
        """Dismounts failed ``attempts`` times: the drive out until repaired."""
        self.drive_failures = 0
        """Drives that failed (struck by :meth:`fail_drive`, a mover's included)."""
        self.mover_failures = 0
        """Mover nodes that failed (struck by :meth:`fail_mover`)."""
        self.repair_s: dict[int, float] = {}
        """Repair time of drives struck with one of their own (a mover's)."""
        self.failing: set[int] = set()
        """Drives failed while working: out once the step they are in ends."""
        self.down: set[int] = set()
        """Drives out, being repaired."""

    # State changes.

    def _occupy(self, d: DriveState) -> None:
        self.version += 1
        d.busy = True
        d.since_s = self.engine.now_s
        self._refresh(d)

    def _free(self, d: DriveState) -> None:
        if self.failing and d.index in self.failing:
            self.failing.discard(d.index)
            self._out(d)
            return
        d.job = None
        if d.tape is not None and d.tape in self.waiters:
            # Another drive waits for the tape this one kept through its job: hand it over.
            self._put_away(d, self._free, d)
            return
        self.version += 1
        self.releases += 1
        d.busy = False
        d.busy_s += self.engine.now_s - d.since_s
        d.expected_free_s = self.engine.now_s
        self._refresh(d)
        self.freed(d.index)

    def _refresh(self, d: DriveState) -> None:
        """Keep the idle drives and counts in step: idle is neither busy nor reserved."""
        idle = not d.busy and not d.reserved
        empty = d.tape is None
        step = self._set_idle(d.index, idle, not empty)
        empty_idle = idle and empty
        if step or empty_idle != d.empty_idle:
            mover = self.movers[d.mover]
            mover.idle += step
            if empty_idle != d.empty_idle:
                d.empty_idle = empty_idle
                mover.empty_idle += 1 if empty_idle else -1

    def reserve(self, drive: int, key: str) -> None:
        """Queue ``key`` for ``drive``: a reserved drive is idle to no one else.

        Reservations of a drive are served in the order they were made.
        """
        d = self.drives[drive]
        self.version += 1
        d.reserved.append(key)
        self._refresh(d)

    def is_idle(self, drive: int) -> bool:
        """Whether ``drive`` is neither busy nor reserved."""
        return self.dispatch_state.idle[drive]

    def drive_busy_s(self, d: DriveState) -> float:
        """Seconds ``d`` has been busy so far."""
        return d.busy_s + (self.engine.now_s - d.since_s if d.busy else 0.0)

    # Tape movements.

    def _switch(self, d: DriveState, tape: str, then: Callable[..., None], *args: object) -> None:
        """Put ``d``'s tape away (if any), bring ``tape`` in, then ``then(*args)``."""
        if d.tape is None:
            self._fetch(d, tape, then, args)
        else:
            self._put_away(d, self._fetch, d, tape, then, args)

    def _fetch(self, d: DriveState, tape: str, then: Callable[..., None], args: tuple) -> None:
        holder = self.where.get(tape)
        if holder is None:
            self._mount(d, tape, then, args)
            return
        other = self.drives[holder]
        if other.busy:
            # The holder is putting the tape away for work of its own: mount once it is out.
            self.waiters.setdefault(tape, []).append((d, then, args))
            return
        self._occupy(other)
        self._put_away(other, self._evicted, other, d, tape, then, args)

    def _evicted(
        self, other: DriveState, d: DriveState, tape: str, then: Callable[..., None], args: tuple
    ) -> None:
        self._free(other)
        if tape in self.where:
            # A drive waiting for the tape got it as it came out: wait in turn.
            self.waiters.setdefault(tape, []).append((d, then, args))
        else:
            self._mount(d, tape, then, args)

    def _mount(self, d: DriveState, tape: str, then: Callable[..., None], args: tuple) -> None:
        self.where[tape] = d.index
        d.tape = tape
        if self.complex is not None:
            if tape in self.in_transit:
                # On its way back to its home level: mount it once it is shelved there.
                self.in_transit[tape] = (d, then, args)
                return
            home = self.tape_home.get(tape)
            if home is None:
                home = self.home_level(tape)
            if home != d.library:
                self.cross_level_mounts += 1
                self.arms[home].request(MOUNT, self._take_out, d, tape, home, then, args)
                return
        self.arms[d.library].request(MOUNT, self._arm_mount, d, tape, then, args)

    def home_level(self, tape: str) -> int:
        """The level (library index) ``tape`` lives on now: where it floated, else its home."""
        level = self.tape_home.get(tape)
        if level is None:
            assert self.home is not None
            level = self.tape_home[tape] = self.home(tape)
        return level

    def _take_out(
        self, d: DriveState, tape: str, home: int, then: Callable[..., None], args: tuple
    ) -> None:
        """A handbot of ``tape``'s level takes it out of its slot for a drive of another level."""
        duration = self.libraries[home].mount_s.draw(self.rng)
        self.arm_operation_s += duration
        self.engine.after(duration, self._taken_out, d, tape, home, then, args)

    def _taken_out(
        self, d: DriveState, tape: str, home: int, then: Callable[..., None], args: tuple
    ) -> None:
        self.arms[home].release()
        assert self.complex is not None
        crossing_s = self.complex.transfer_s(home, d.library)
        self.engine.after(crossing_s, self._crossed, d, tape, then, args)

    def _crossed(self, d: DriveState, tape: str, then: Callable[..., None], args: tuple) -> None:
        self.arms[d.library].request(MOUNT, self._arm_mount, d, tape, then, args)

    def _shelve(self, tape: str, level: int) -> None:
        """A tape just taken out of a drive of ``level``: float it there, or carry it home."""
        complex_ = self.complex
        assert complex_ is not None
        home = self.home_level(tape)
        if home == level:
            return
        if complex_.float_on_dismount and self.shelved[level] < complex_.slots[level]:
            self.shelved[home] -= 1
            self.shelved[level] += 1
            self.tape_home[tape] = level
            return
        self.in_transit[tape] = None
        crossing_s = complex_.transfer_s(level, home)
        self.engine.after(crossing_s, self._carried_home, tape, home)

    def _carried_home(self, tape: str, home: int) -> None:
        self.arms[home].request(DISMOUNT, self._put_home, tape, home)

    def _put_home(self, tape: str, home: int) -> None:
        duration = self.libraries[home].dismount_s.draw(self.rng)
        self.arm_operation_s += duration
        self.engine.after(duration, self._home_again, tape, home)

    def _home_again(self, tape: str, home: int) -> None:
        self.arms[home].release()
        waiting = self.in_transit.pop(tape)
        if waiting is not None:
            d, then, args = waiting
            self._mount(d, tape, then, args)

    def _through(self, d: DriveState, tape: str) -> float:
        """Pass-through time of ``tape`` to or from ``d`` (0 within a library)."""
        spec = self.spec.pass_through_s
        if spec is None or self.home is None or self.home(tape) == d.library:
            return 0.0
        self.pass_throughs += 1
        return spec.draw(self.rng)

    def _arm_mount(self, d: DriveState, tape: str, then: Callable[..., None], args: tuple) -> None:
        lib = self.libraries[d.library]
        duration = lib.mount_s.draw(self.rng) + (
            0.0 if self.spec.pass_through_s is None else self._through(d, tape)
        )
        self.arm_operation_s += duration
        if self.record:
            now = self.engine.now_s
            self.arm_log.append(("mount", tape, d.id, now, now + duration, lib.id))
        self.mounts += 1
        self.tapes_mounted.add(tape)
        if self.handling_failure and self._handling_rng.random() < self.handling_failure:
            self.engine.after(duration, self._mount_failed, d, tape, then, args)
            return
        self.engine.after(duration, self._mounted, d, then, args)

    def _mounted(self, d: DriveState, then: Callable[..., None], args: tuple) -> None:
        self.arms[d.library].release()
        d.tries = 0
        d.head_mb = 0.0
        self.engine.after(d.model.load_s.draw(self.rng), then, *args)

    def _put_away(self, d: DriveState, then: Callable[..., None], *args: object) -> None:
        """Unload ``d``'s tape and have an arm dismount it, then ``then(*args)``."""
        if d.tape is None:
            then(*args)
            return
        self.engine.after(d.model.unload_s.draw(self.rng), self._unloaded, d, then, args)

    def _unloaded(self, d: DriveState, then: Callable[..., None], args: tuple) -> None:
        self.arms[d.library].request(DISMOUNT, self._arm_dismount, d, then, args)

    def _arm_dismount(self, d: DriveState, then: Callable[..., None], args: tuple) -> None:
        lib = self.libraries[d.library]
        assert d.tape is not None
        duration = lib.dismount_s.draw(self.rng) + (
            0.0 if self.spec.pass_through_s is None else self._through(d, d.tape)
        )
        self.arm_operation_s += duration
        if self.record:
            now = self.engine.now_s
            self.arm_log.append(("dismount", d.tape, d.id, now, now + duration, lib.id))
        if self.handling_failure and self._handling_rng.random() < self.handling_failure:
            self.engine.after(duration, self._dismount_failed, d, then, args)
            return
        self.engine.after(duration, self._dismounted, d, then, args)

    def _dismounted(self, d: DriveState, then: Callable[..., None], args: tuple) -> None:
        self.arms[d.library].release()
        d.tries = 0
        self._emptied(d, then, args)

    def _emptied(self, d: DriveState, then: Callable[..., None], args: tuple) -> None:
        """``d``'s tape is out of it: shelve it, hand it to a drive waiting for it, go on."""
        tape = d.tape
        d.tape = None
        d.head_mb = 0.0
        if tape is not None and self.complex is not None:
            self._shelve(tape, d.library)
        if tape is not None and self.where.get(tape) == d.index:
            self._out_of_drive(tape)
        then(*args)

    def _out_of_drive(self, tape: str) -> None:
        """``tape`` is in no drive now: the first drive waiting for it mounts it."""
        del self.where[tape]
        self.releases += 1
        waiting = self.waiters.get(tape)
        if waiting:
            other, after, after_args = waiting.pop(0)
            if not waiting:
                del self.waiters[tape]
            self._mount(other, tape, after, after_args)

    def dismount(self, drive: int) -> None:
        """Put the tape of an idle drive away now; the drive is busy meanwhile.

        Raises
        ------
        ValueError
            For a busy drive, or one that holds no tape (a scheduler asking
            that again and again would never let the run move on).
        """
        d = self.drives[drive]
        if d.busy:
            raise ValueError(f"drive {d.id!r} is busy")
        if d.tape is None:
            raise ValueError(f"drive {d.id!r} holds no tape")
        self._occupy(d)
        self._put_away(d, self._free, d)

    # Faults (simulator.platform.faults).

    def _mount_failed(
        self, d: DriveState, tape: str, then: Callable[..., None], args: tuple
    ) -> None:
        """A mount failed: try again after the delay, or give it up (a read's data phase)."""
        self.arms[d.library].release()
        self.handling_failures += 1
        d.tries += 1
        faults = self.faults
        assert faults is not None
        job = d.job
        if (
            d.tries < faults.attempts
            or job is None
            or not job.stoppable
            or job.phase >= len(job.plan.phases)
        ):
            self.engine.after(faults.retry_delay_s, self._retry_mount, d, tape, then, args)
            return
        # Given up: the cartridge stays in its slot; the job stops and is planned again.
        d.tries = 0
        self.mounts_given_up += 1
        d.tape = None
        job.unavailable += (tape,)
        job.stopped = job.stopped or f"mount of {tape} failed {faults.attempts} times"
        self._out_of_drive(tape)
        then(*args)

    def _retry_mount(
        self, d: DriveState, tape: str, then: Callable[..., None], args: tuple
    ) -> None:
        self.arms[d.library].request(MOUNT, self._arm_mount, d, tape, then, args)

    def _dismount_failed(self, d: DriveState, then: Callable[..., None], args: tuple) -> None:
        """A dismount failed: try again after the delay; after ``attempts``, the cartridge is
        stuck and the drive out until repaired, when the tape comes out."""
        self.arms[d.library].release()
        self.handling_failures += 1
        d.tries += 1
        faults = self.faults
        assert faults is not None
        if d.tries < faults.attempts:
            self.engine.after(faults.retry_delay_s, self._unloaded, d, then, args)
            return
        d.tries = 0
        self.stuck += 1
        self.engine.after(faults.drive_repair_s, self._emptied, d, then, args)

    def fail_drive(self, drive: int, repair_s: float | None = None) -> bool:
        """Strike ``drive`` with a failure: out now when idle, else at the end of its step.

        It is out for ``repair_s`` (by default the faults' ``drive_repair_s``).
        A drive already out or failing is left as it is; whether it was struck.
        """
        if drive in self.down or drive in self.failing:
            return False
        d = self.drives[drive]
        self.drive_failures += 1
        if repair_s is not None:
            self.repair_s[drive] = repair_s
        if d.busy:
            self.failing.add(drive)
            return True
        self._occupy(d)
        self._out(d)
        return True

    def fail_mover(self, mover: int, repair_s: float) -> None:
        """Strike a mover node: every drive it serves is out for ``repair_s`` (as a drive
        failure each: the jobs on them stop); its memory and disk come back with it."""
        self.mover_failures += 1
        for drive in self.movers[mover].drives:
            self.fail_drive(drive, repair_s)

    def _out(self, d: DriveState) -> None:
        """``d`` (busy) is out for its repair; its tape stays in it meanwhile."""
        assert self.faults is not None
        self.down.add(d.index)
        d.job = None
        repair_s = self.repair_s.pop(d.index, self.faults.drive_repair_s)
        self.engine.after(repair_s, self._repaired, d)

    def _repaired(self, d: DriveState) -> None:
        self.down.discard(d.index)
        self._free(d)
