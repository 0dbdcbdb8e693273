"""Checking a sizing by simulation: a generated day of a load on the planned drives and caches.

:mod:`simulator.planning.sizing` computes, from a load, the drives an archive keeps
busy and the share of their time spent streaming. :func:`simulate_load`
runs the same load through the simulator (:mod:`simulator.run.simulation`),
with each class's disk cache in front of the tapes
(:mod:`simulator.storage.disk_cache`) and the drive count of the plan, and measures
the same figures, so the arithmetic's assumptions meet a timed platform:
arms that make drives wait, reads that find their tape mounted, writes
whose tape was taken for a read.

The generated day (seeded; one library, the load's drive technology and
robot times, tapes put away on demand, files written one by one to one tape
as VERTICAL 1+0 does, requests started in arrival order)
    - each class's reads arrive as a Poisson process of
      ``read_mb_per_day / file_mb`` a day, its writes likewise; every file
      of a class has the class's mean size ``file_mb``;
    - a read is, with the class's hit rate, of one of the class's *hot*
      files (``hot_files`` of them, or as many as fill a quarter of its
      disk when fewer; on tape and resident on disk at the start, as the
      files a community works on are), otherwise of a file
      read once in the day, alone on a tape of its own at a random
      position (an archive far larger than its drives: every read from
      tape exchanges a tape and locates half a tape on average);
    - a write is of a new file. Writes are migrated as the load says, a
      class's written files going to tape together once ``migration_mb``
      of them wait (the day begins with files of the day before making a
      random share of a migration, as the day ends with some left: on
      average the day migrates what it writes), one job per file in a row (a
      class of two copies writes a second file). A written file lands on
      disk when its migration begins (earlier on a real archive: the
      day's fill is the same).

Whether the hot files stay resident is the cache's business: a cache too
small for a day's fill evicts some and the simulated hit rate falls below
the load's, which the check shows. The drive figures are over the day
(:meth:`simulator.platform.platform.Platform.drive_busy_share_over_horizon` times the
drives), the arms' waits included, as a planner's drive count must cover.
"""

from __future__ import annotations

import random

from attrs import frozen

from tapesched.simulator.planning.sizing import DAY_S, Load, Sizing, plan
from tapesched.simulator.platform.spec import DriveSpec, LibrarySpec, PlatformSpec
from tapesched.simulator.platform.technology import Duration, drive_model
from tapesched.simulator.run.simulation import Simulation
from tapesched.simulator.storage.disk_cache import CacheSpec, ClassReport, ServiceClass
from tapesched.simulator.storage.files import FileRequest, FileSpec, Scheme
from tapesched.simulator.storage.policies.policy import preload
from tapesched.simulator.storage.policies.policy_registry import make_policy
from tapesched.simulator.workload.workload import Workload

LIBRARY = "L0"
"""The one library of the check."""

ONE_TAPE = Scheme(1, 0)
"""Every file of the check on one tape, without parity."""

DEFAULT_HOT_FILES = 64
"""Hot files per class (read again and again, resident at the start)."""

AGREEMENT = 0.10
"""How far apart the simulated and the computed drives busy may be for the day to confirm
the plan: 10 %."""

UNFINISHED_SHARE = 0.01
"""The share of the day's tape requests that may be left at its end without a warning, when
that is more than the drives: the requests in service or just arrived when the day stops.
More left means a queue that the day did not clear."""


@frozen
class CheckResult:
    """What the simulated day measured, beside the plan it checks.

    Attributes
    ----------
    plan
        The computed plan.
    drives
        Drives simulated.
    duration_s
        Simulated time.
    drives_busy
        Drives busy on average over the day (busy drive time over the day).
    streaming_share
        Share of the busy drive time spent streaming (``None``: no tape work).
    tape_requests, served_from_disk
        Requests that reached the tapes; reads served from disk.
    done, backlog
        Tape requests done, and left at the end of the day.
    mounts
        Tape mounts.
    classes
        Each class's cache figures.
    """

    plan: Sizing
    drives: int
    duration_s: float
    drives_busy: float
    streaming_share: float | None
    tape_requests: int
    served_from_disk: int
    done: int
    backlog: int
    mounts: int
    classes: tuple[ClassReport, ...]

    @property
    def relative_gap(self) -> float:
        """(simulated - computed) drives busy, over the computed."""
        computed = self.plan.drives_busy
        return (self.drives_busy - computed) / computed if computed > 0 else 0.0

    @property
    def warnings(self) -> tuple[str, ...]:
        """Why the day does not confirm the plan: the simulation left more tape requests
        unfinished than its drives and :data:`UNFINISHED_SHARE` of them allow (a queue: its
        figures then undercount the load), or its drives busy differ from the computed ones
        by more than :data:`AGREEMENT` (empty: it confirms it)."""
        found = []
        if self.backlog > max(self.drives, UNFINISHED_SHARE * self.tape_requests):
            found.append(
                f"the simulated day finished {self.done:,} of {self.tape_requests:,} tape "
                f"requests ({self.backlog:,} left): its figures undercount the load; give "
                "it more drives (--drives) or more time (--days)"
            )
        if abs(self.relative_gap) > AGREEMENT:
            found.append(
                f"drives busy: simulated {self.drives_busy:.2f} against computed "
                f"{self.plan.drives_busy:.2f} ({self.relative_gap:+.1%}), more than "
                f"{AGREEMENT:.0%} apart"
            )
        return tuple(found)

    def to_dict(self) -> dict[str, object]:
        """As a JSON-ready mapping (the plan is the caller's to print)."""
        return {
            "warnings": list(self.warnings),
            "drives": self.drives,
            "duration_s": self.duration_s,
            "drives_busy": self.drives_busy,
            "computed_drives_busy": self.plan.drives_busy,
            "relative_gap": self.relative_gap,
            "streaming_share": self.streaming_share,
            "computed_streaming_share": self.plan.streaming_share,
            "tape_requests": self.tape_requests,
            "served_from_disk": self.served_from_disk,
            "done": self.done,
            "backlog": self.backlog,
            "mounts": self.mounts,
            "classes": [c.to_dict() for c in self.classes],
        }


def cache_spec(load: Load) -> CacheSpec:
    """The service classes of ``load`` with their disks (a class without one: no room at all).

    A class without ``cache_mb`` gets a disk of 1 MB, which keeps nothing
    of its files: the check then has no hit to offer it.
    """
    return CacheSpec(
        tuple(
            ServiceClass(c.name, c.max_file_mb, c.cache_mb if c.cache_mb is not None else 1.0)
            for c in load.classes
        )
    )


def platform_of(load: Load, drives: int) -> PlatformSpec:
    """One library of ``drives`` drives of the load's technology and its robot's times."""
    model = drive_model(load.drive)
    return PlatformSpec(
        libraries=(
            LibrarySpec(LIBRARY, load.arms, Duration(load.mount_s), Duration(load.dismount_s)),
        ),
        drives=tuple(DriveSpec(f"{LIBRARY}-d{k:03d}", LIBRARY, model) for k in range(drives)),
        tape_capacity_mb=load.drive.capacity_mb,
        dismount="on-demand",
    )


def _poisson(rng: random.Random, per_day: float, duration_s: float) -> list[float]:
    times: list[float] = []
    if per_day <= 0:
        return times
    rate = per_day / DAY_S
    t = rng.expovariate(rate)
    while t < duration_s:
        times.append(t)
        t += rng.expovariate(rate)
    return times


def generated_day(
    load: Load, seed: int, duration_s: float = DAY_S, hot_files: int = DEFAULT_HOT_FILES
) -> tuple[Workload, dict[str, list[FileSpec]], list[FileSpec]]:
    """The day's requests (see the module docstring), its hot files per class, its cold files.

    Returns the workload (its initial files are the hot ones), the hot files
    of each class, and the files read once from tape (laid out by
    :func:`simulate_load`, each on a tape of its own).
    """
    rng = random.Random(seed)
    events: list[tuple[float, str, FileSpec]] = []
    hot: dict[str, list[FileSpec]] = {}
    cold: list[FileSpec] = []
    for k, c in enumerate(load.classes):
        room = hot_files if c.cache_mb is None else int(c.cache_mb / 4 / c.file_mb)
        count = max(1, min(hot_files, room))
        files = [FileSpec(f"h{k}-{i}", c.file_mb, ONE_TAPE) for i in range(count)]
        hot[c.name] = files
        for t in _poisson(rng, c.read_mb_per_day / c.file_mb, duration_s):
            if rng.random() < c.hit_rate:
                events.append((t, "read", files[rng.randrange(len(files))]))
            else:
                file = FileSpec(f"c{k}-{len(cold)}", c.file_mb, ONE_TAPE)
                cold.append(file)
                events.append((t, "read", file))
        carried = int(rng.uniform(0.0, load.migration_mb) / c.file_mb)
        pending = [FileSpec(f"w{k}-y{i}", c.file_mb, ONE_TAPE) for i in range(carried)]
        pending_mb = carried * c.file_mb
        for i, t in enumerate(_poisson(rng, c.write_mb_per_day / c.file_mb, duration_s)):
            for copy in range(c.copies):
                suffix = "" if copy == 0 else f"#{copy + 1}"
                pending.append(FileSpec(f"w{k}-{i}{suffix}", c.file_mb, ONE_TAPE))
                pending_mb += c.file_mb
            if pending_mb >= load.migration_mb:
                events.extend((t, "write", file) for file in pending)
                pending, pending_mb = [], 0.0
    events.sort(key=lambda e: e[0])
    requests = tuple(
        FileRequest(f"r{i}", t, kind, file)  # type: ignore[arg-type]
        for i, (t, kind, file) in enumerate(events)
    )
    initial = tuple(f for files in hot.values() for f in files)
    return Workload(initial, requests), hot, cold


def expected_draws(load: Load, duration_s: float, hot_files: int = DEFAULT_HOT_FILES) -> float:
    """Requests and files that :func:`generated_day` expects to draw for ``load`` over
    ``duration_s``: each class's hot files, its reads and its writes (a file and a request
    per copy), and the written files carried from the day before (at most a migration).

    Compared with :data:`~toolkit.units.MAX_ARRIVALS` before a check runs: the day is drawn
    in full before the simulation starts, so this bounds its memory as well as its time.
    """
    days = duration_s / DAY_S
    total = 0.0
    for c in load.classes:
        reads = c.read_mb_per_day * days / c.file_mb
        writes = c.write_mb_per_day * days / c.file_mb * c.copies
        total += hot_files + reads + writes + load.migration_mb / c.file_mb
    return total


def simulate_load(
    load: Load,
    *,
    drives: int | None = None,
    seed: int = 1,
    duration_s: float = DAY_S,
    hot_files: int = DEFAULT_HOT_FILES,
) -> CheckResult:
    """Simulate a generated day of ``load`` on ``drives`` drives (default: the plan's peak).

    Raises
    ------
    ValueError
        For fewer than one drive.
    """
    computed = plan(load)
    if drives is None:
        drives = max(1, computed.drives_peak)
    if drives < 1:
        raise ValueError(f"drives must be >= 1, got {drives!r}")
    workload, hot, cold = generated_day(load, seed, duration_s, hot_files)
    policy = make_policy("vertical")
    sim = Simulation(
        platform_of(load, drives),
        policy,
        "fifo",
        workload,
        seed=seed,
        record=False,
        cache=cache_spec(load),
    )
    rng = random.Random(seed ^ 0x5D5C)
    capacity_mb = load.drive.capacity_mb
    for file in cold:
        offset_mb = rng.uniform(0.0, max(capacity_mb - file.size_mb, 0.0))
        before = [FileSpec(f"pad-{file.id}", offset_mb, ONE_TAPE)] if offset_mb >= 1e-3 else []
        preload(sim.catalogue, policy, [*before, file], LIBRARY)
    assert sim.cache is not None
    for files in hot.values():
        for file in files:
            sim.cache.written(file, 0.0)
    for cache in sim.cache.caches:
        cache.filled_mb = 0.0  # the hot files were there before the day: not its fill
    sim.run(duration_s)
    platform = sim.platform
    busy_share = platform.drive_busy_share_over_horizon()
    streaming = platform.drive_streaming_share_over_horizon()
    return CheckResult(
        plan=computed,
        drives=drives,
        duration_s=sim.engine.now_s,
        drives_busy=busy_share * drives,
        streaming_share=streaming / busy_share if busy_share > 0 else None,
        tape_requests=sim.arrived,
        served_from_disk=sim.served_from_disk,
        done=sim.completed,
        backlog=sim.backlog,
        mounts=platform.mounts,
        classes=sim.cache.report(sim.engine.now_s),
    )
