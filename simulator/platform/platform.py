"""The tape platform in time: libraries with arms, drives, movers, and the jobs they run.

A *job* is a :class:`~simulator.storage.files.JobSpec` carried out on a set of drives:
for each phase, every drive with an extent gets its tape ready (switching
tapes if needed: unload, arm dismount, arm mount, load; then a locate), the
extents stream in lockstep once all drives are ready (the Golubchik
"buddies"), and the heads move on. The platform knows nothing of files,
policies or which scheduler runs: whoever starts a job (the simulation) is
told when its data is done and when its drives are free.

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
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

from attrs import field, frozen

from tapesched.simulator.kernel.engine import Engine
from tapesched.simulator.kernel.resource import Resource
from tapesched.simulator.platform.faults import FaultSpec, TapeLoss, fault_rng
from tapesched.simulator.platform.library_complex import LibraryComplex
from tapesched.simulator.platform.technology import DriveModel, Duration
from tapesched.simulator.storage.files import Extent, JobSpec, Phase
from tapesched.solvers.online.state import DispatchState
from tapesched.toolkit.errors import shown
from tapesched.toolkit.metrics import share


def _tuple(items: Iterable[Any]) -> tuple[Any, ...]:
    return tuple(items)


MOUNT, DISMOUNT = 0, 1
"""Arm priority classes: mounts first."""


@frozen
class LibrarySpec:
    """A library: its arms and their times.

    Attributes
    ----------
    id
        Library id.
    arms
        Number of robot arms (>= 1).
    mount_s, dismount_s
        Arm time to carry a tape into a drive, and back to its slot.
    """

    id: str
    arms: int
    mount_s: Duration
    dismount_s: Duration

    def __attrs_post_init__(self) -> None:
        if self.arms < 1:
            raise ValueError(f"library {shown(self.id)}: arms must be >= 1, got {shown(self.arms)}")


@frozen
class DriveSpec:
    """A drive: its library, mover and technology."""

    id: str
    library: str
    model: DriveModel
    mover: str | None = None


@frozen
class MoverSpec:
    """A mover node: the drives it serves and its limits.

    Attributes
    ----------
    id
        Mover id.
    memory_mb
        Memory for erasure coding (RAIT and PARALLEL hold ``(X + Y) B``).
    disk_mb
        Local disk (VERTICAL accumulates parity there).
    bandwidth_mb_s
        Most native MB/s its busy drives may stream at once (``None``: no cap).
    """

    id: str
    memory_mb: float = float("inf")
    disk_mb: float = float("inf")
    bandwidth_mb_s: float | None = None


@frozen
class PlatformSpec:
    """A whole platform: libraries, drives, movers, tapes, and when tapes are put away.

    With ``pass_through_s``, the libraries are joined by pass-through ports:
    a drive may take a tape of another library, and the arm moving it
    through the port takes ``pass_through_s`` more, each way.

    With ``complex`` (:class:`~simulator.platform.library_complex.LibraryComplex`),
    the libraries are the levels of an SL8500 complex, each with its own
    handbots (its arms): a cartridge from another level is taken out of its
    slot by a handbot of its own level (one ``mount_s`` of that level), is
    carried across (:meth:`~simulator.platform.library_complex.LibraryComplex.transfer_s`:
    elevator and pass-throughs, no handbot held), and a handbot of the
    drive's level puts it in the drive (``mount_s``). A dismounted
    cartridge is taken out by a handbot of the drive's level
    (``dismount_s``: the drive is then free) and floats into a free slot
    of that level when the complex says so and one is free (that level
    becomes its home), or else is carried back and shelved by a handbot of
    its home level (``dismount_s``); meanwhile no drive can mount it.
    ``pass_through_s`` is then not given: the complex has its own.
    """

    libraries: tuple[LibrarySpec, ...] = field(converter=_tuple)
    drives: tuple[DriveSpec, ...] = field(converter=_tuple)
    movers: tuple[MoverSpec, ...] = field(converter=_tuple, default=())
    tape_capacity_mb: float = 1_000_000.0
    dismount: Literal["on-demand", "at-once"] = "on-demand"
    pass_through_s: Duration | None = None
    complex: LibraryComplex | None = None

    def __attrs_post_init__(self) -> None:
        libraries = {lib.id for lib in self.libraries}
        if self.complex is not None:
            if self.pass_through_s is not None:
                raise ValueError("a complex carries its own pass-through: give one or the other")
            if len(self.complex.numbers) != len(self.libraries):
                raise ValueError(
                    f"the complex has {len(self.complex.numbers)} levels, "
                    f"the platform {len(self.libraries)} libraries"
                )
        if len(libraries) != len(self.libraries) or not libraries:
            raise ValueError("libraries must be at least one, with distinct ids")
        movers = {m.id for m in self.movers}
        if len(movers) != len(self.movers):
            raise ValueError("mover ids must be distinct")
        if len({d.id for d in self.drives}) != len(self.drives) or not self.drives:
            raise ValueError("drives must be at least one, with distinct ids")
        for d in self.drives:
            if d.library not in libraries:
                raise ValueError(f"drive {shown(d.id)}: unknown library {shown(d.library)}")
            if d.mover is not None and d.mover not in movers:
                raise ValueError(f"drive {shown(d.id)}: unknown mover {shown(d.mover)}")
            if (d.mover is None) != (not self.movers):
                raise ValueError(f"drive {d.id!r}: every drive has a mover, or none does")
        if self.dismount not in ("on-demand", "at-once"):
            raise ValueError(f"dismount is on-demand or at-once, got {shown(self.dismount)}")
        if not self.tape_capacity_mb > 0:
            raise ValueError("tape_capacity_mb must be > 0")

    @property
    def random(self) -> bool:
        """Whether some time is drawn at random."""
        times = [t for lib in self.libraries for t in (lib.mount_s, lib.dismount_s)]
        times += [t for d in self.drives for t in (d.model.load_s, d.model.unload_s)]
        if self.pass_through_s is not None:
            times.append(self.pass_through_s)
        exponential = any(d.model.transfer == "exponential" for d in self.drives)
        return exponential or any(t.random for t in times)


class DriveState:
    """A drive during a run."""

    __slots__ = (
        "busy",
        "busy_s",
        "empty_idle",
        "expected_free_s",
        "head_mb",
        "id",
        "index",
        "job",
        "library",
        "model",
        "mover",
        "reserved",
        "since_s",
        "spec",
        "streaming_until_s",
        "tape",
        "tries",
    )

    def __init__(self, spec: DriveSpec, index: int, library: int, mover: int) -> None:
        self.spec = spec
        self.id = spec.id
        self.index = index
        self.library = library
        self.mover = mover
        self.model = spec.model
        self.tape: str | None = None
        self.head_mb = 0.0
        self.busy = False
        self.reserved: deque[str] = deque()
        self.busy_s = 0.0
        self.since_s = 0.0
        self.streaming_until_s = 0.0
        self.expected_free_s = 0.0
        self.empty_idle = False
        """Idle and holding no tape (counted per mover)."""
        self.job: Job | None = None
        """The job it works for (``None``: none, or a put-away of its own)."""
        self.tries = 0
        """Failed tries of the mount or dismount it is making (faults)."""


class MoverState:
    """A mover during a run: its drives (indices), memory, disk and bandwidth in use."""

    __slots__ = (
        "bandwidth_mb_s",
        "disk_mb",
        "drives",
        "empty_idle",
        "idle",
        "library",
        "memory_mb",
        "spec",
        "streaming_mb_s",
    )

    def __init__(self, spec: MoverSpec) -> None:
        self.spec = spec
        self.drives: list[int] = []
        self.idle = 0
        self.empty_idle = 0
        """Its idle drives holding no tape."""
        self.library = -1
        self.disk_mb = 0.0
        self.memory_mb = 0.0
        self.streaming_mb_s = 0.0
        self.bandwidth_mb_s = spec.bandwidth_mb_s


class Job:
    """A plan being carried out on drives (indices, one per plan column)."""

    __slots__ = (
        "data_done",
        "done",
        "drives",
        "first_stream_s",
        "held",
        "key",
        "mounts",
        "mover",
        "phase",
        "phases",
        "plan",
        "ready",
        "stoppable",
        "stopped",
        "stream_mb_s",
        "unavailable",
    )

    def __init__(
        self,
        key: str,
        plan: JobSpec,
        drives: Sequence[int],
        data_done: Callable[[Job], None],
        done: Callable[[Job], None],
    ) -> None:
        self.key = key
        self.plan = plan
        self.drives: Sequence[int] = tuple(drives)
        self.held = 0
        """Drives granted and not let go yet (a job begun before its drives, one-at-a-time)."""
        self.phases: tuple[Phase, ...] = plan.phases + plan.flush
        self.phase = 0
        self.ready = 0
        self.mounts = 0
        self.mover = -1
        self.stream_mb_s = 0.0
        self.first_stream_s: float | None = None
        """When its first phase began to stream: every tape ready, located (latencies)."""
        self.data_done = data_done
        self.done = done
        self.stoppable = False
        """Whether a mount given up or a tape found unreadable stops it (a read: it can be
        planned again around the tape); otherwise its mounts are tried until they succeed."""
        self.stopped: str | None = None
        """Why it stopped before its data was done (faults): ``done`` is then called early."""
        self.unavailable: tuple[str, ...] = ()
        """Tapes it could not read: a mount given up, or a tape found unreadable."""


class Transfer:
    """One phase streamed: for the export and the records."""

    __slots__ = ("drives", "end_s", "extents", "flush", "key", "phase", "start_s", "streamed_mb")

    def __init__(
        self,
        key: str,
        phase: int,
        flush: bool,
        drives: tuple[str, ...],
        extents: tuple[Extent, ...],
        streamed_mb: tuple[float, ...],
        start_s: float,
        end_s: float,
    ) -> None:
        self.streamed_mb = streamed_mb
        self.key = key
        self.phase = phase
        self.flush = flush
        self.drives = drives
        self.extents = extents
        self.start_s = start_s
        self.end_s = end_s


ArmRecord = tuple[str, str, str, float, float, str]
"""An arm operation done: ``(op, tape, drive, start_s, end_s, library)``."""


class Platform:
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
        self.at_once = spec.dismount == "at-once"
        if one_at_a_time and (spec.movers or spec.dismount != "at-once"):
            raise ValueError(
                "drives one at a time need dismount at-once and a platform without movers"
            )
        self.one_at_a_time = one_at_a_time
        """Jobs get their drives one by one and let each go at its own transfer's end."""
        self.arm_log: list[ArmRecord] = []
        self.transfers: list[Transfer] = []
        self.mounts = 0
        self.tape_mounts: dict[str, int] = {}
        self.streamed_drive_s = 0.0
        """Drive-seconds of every transfer started, whole (a phase holds its drives its longest)."""
        self.last_transfer_end_s = 0.0
        """End of the last transfer started: the run's makespan."""
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
        if faults is not None and one_at_a_time:
            raise ValueError("faults are not modelled with drives one at a time")
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
        self.unreadable: dict[str, list[TapeLoss]] = {}
        """Tapes lost, in whole or in part, and what of each is lost."""

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
        step = self.dispatch_state.set_idle(d.index, idle, not empty)
        if step:
            self.movers[d.mover].idle += step
        empty_idle = idle and empty
        if empty_idle != d.empty_idle:
            d.empty_idle = empty_idle
            self.movers[d.mover].empty_idle += 1 if empty_idle else -1

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
        drives = [self.drives[i] for i in job.drives]
        key = job.key
        number = drives[0].mover if drives else -1
        stream_mb_s = 0.0
        for d in drives:
            if d.mover != number or d.busy or (d.reserved and d.reserved[0] != key):
                raise ValueError(f"job {key!r}: drives must be idle and on one mover")
            stream_mb_s += d.model.rate_mb_s
        if not drives:
            raise ValueError(f"job {key!r}: drives must be idle and on one mover")
        for d in drives:
            if d.reserved:
                d.reserved.popleft()
        job.mover = number
        mover = self.movers[number]
        job.stream_mb_s = stream_mb_s
        mover.memory_mb += job.plan.memory_mb
        mover.streaming_mb_s += stream_mb_s
        free_s = self.engine.now_s + expected_s
        for d in drives:
            self._occupy(d)
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
        duration = lib.mount_s.draw(self.rng) + self._through(d, tape)
        self.arm_operation_s += duration
        if self.record:
            now = self.engine.now_s
            self.arm_log.append(("mount", tape, d.id, now, now + duration, lib.id))
        self.mounts += 1
        self.tape_mounts[tape] = self.tape_mounts.get(tape, 0) + 1
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
        duration = lib.dismount_s.draw(self.rng) + self._through(d, d.tape)
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
