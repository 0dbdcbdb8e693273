"""Sizing an archive from its load: disk cache lifetime and tape drives per service class.

Moore et al. (SDSC, "Configuring and tuning archival storage systems", 1998)
size the disk cache and the tape drives of an HPSS archive from a month of
its load, service class by service class (files assigned to a class by
their size). Their arithmetic, as this module carries it out:

Cache lifetime (the paper's Table 3)
    A class's disk is filled each day by the reads that missed it (staged
    from tape) and by the writes: ``fill = (1 - h) R + W`` for ``R`` MB read
    and ``W`` MB written a day and a hit rate ``h``. Its *lifetime*, how
    long a file may stay on disk before it is purged, is the disk space over
    the fill: ``lifetime = cache / fill`` days, a lower bound as the paper
    says (every read and write taken to be of a different file). The peak
    day's fill (``peak_factor`` times the average) gives the shortest. A
    class with a target lifetime (the paper's: a month for small files, a
    week for medium, two days for large) is told the disk that meets it,
    ``target * fill``.

Tape drives (the paper's Table 4)
    The tapes carry the reads that missed, ``(1 - h) R``, and the writes'
    migration, ``copies * W`` (a class keeping two copies writes twice).
    A drive streams them at the drive's native rate; it positions too:
    each file read from tape costs a locate (half the tape on average, the
    file at a random place) and a share ``1 / files_per_mount`` of a tape
    exchange (unload, arm dismount, arm mount, load); each migration of
    ``migration_mb`` costs one exchange and one locate (the paper: "writes
    are assumed to be done directly to an available tape", so positioning
    falls on reads). A day's drive time is ``busy = streaming +
    positioning``; ``busy / 1 day`` drives are busy on an average day, each
    streaming ``streaming / busy`` of its time, and the drives needed are
    that rounded up; at peak, ``peak_factor`` times as many.

What the paper leaves open, chosen here (and said in docs/studies/sizing.md)
    - ``peak_factor`` default :data:`SDSC_PEAK_FACTOR`, 642 / 223: the
      paper's busiest day of November 1998 over its average day (its
      per-class peaks, Table 2, are lost in our copy);
    - a read from tape exchanges a tape (``files_per_mount`` 1), as reads of
      an archive far larger than its drives rarely find their tape mounted;
    - how the hit rate follows the cache size, for a what-if
      (:func:`what_if`): the miss rate inversely proportional to the cache
      per byte of daily load (``miss' = miss * bytes_scale / cache_scale``,
      at most 1). Half the cache doubles the misses, the reading under
      which the paper's "halving the cache doubles the drives" holds when
      positioning for reads dominates; 40 times the load on 40 times the
      cache keeps the hit rate and the lifetime, as the paper's 40 TB
      "to maintain a comparable file cache life" does.

Units: MB (10^6 bytes), seconds, a day of 86,400 s; the load file gives GB
a day and GB of cache, as the paper does.
"""

from __future__ import annotations

import math
import os
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

from attrs import evolve, frozen

from tapesched.toolkit.errors import InputError, Problem, ValueProblems, shown
from tapesched.toolkit.fields import (
    Rule,
    as_float,
    at_least_one,
    check,
    checked,
    nonempty_text,
    number,
    optional,
    parsed,
    positive,
    positive_size,
    require,
    text,
)
from tapesched.toolkit.files.json_documents import read_json
from tapesched.toolkit.files.structurer import JSON, KeyStyle
from tapesched.toolkit.hardware.servers import class_bound_problems
from tapesched.toolkit.hardware.technology import DRIVES, MB_PER_GB, DriveTechnology

DAY_S = 86_400.0
"""Seconds in the day the load is given per."""

FORMAT = "tapesched.load/1"
"""Format name of load files."""

SDSC_PEAK_FACTOR = 642.0 / 223.0
"""The paper's peak day (642 GB moved) over its average day (223 GB) in November 1998."""

DEFAULT_MIGRATION_MB = 10_000.0
"""MB a migration writes per tape mount when the load file does not say (a 10 GB tape's worth)."""


@frozen
class LoadClass:
    """A service class's load: what it reads and writes a day, its cache, its files.

    Attributes
    ----------
    name
        The class (``small``, ``medium``, ``large``).
    max_file_mb
        Its largest file (``None``: the last class, every larger file).
    file_mb
        Mean size of the files it moves.
    read_mb_per_day, write_mb_per_day
        Bytes read and written a day (the external load, before the cache).
    hit_rate
        Share of its reads served from disk.
    cache_mb
        Its disk (``None``: not given, no lifetime computed).
    copies
        Tape copies of each written file (1 or 2 at SDSC).
    files_per_mount
        Files read per tape exchange when reading from tape.
    target_days
        The lifetime the class should have (the paper's targets: a month for
        small files, a week for medium, two days for large; ``None``: none).
    """

    name: str
    max_file_mb: float | None
    file_mb: float
    read_mb_per_day: float
    write_mb_per_day: float
    hit_rate: float
    cache_mb: float | None
    copies: int = 1
    files_per_mount: float = 1.0
    target_days: float | None = None


@frozen
class Load:
    """A load description: the classes, the drive technology, the robot and the planning knobs.

    ``mount_s`` and ``dismount_s`` are the arm's (robot's) times to bring a
    cartridge to a drive and back; ``arms`` the robots (for ``--check``).
    """

    name: str
    description: str
    sources: tuple[str, ...]
    drive: DriveTechnology
    mount_s: float
    dismount_s: float
    arms: int
    peak_factor: float
    migration_mb: float
    classes: tuple[LoadClass, ...]

    @property
    def exchange_s(self) -> float:
        """A tape exchange on a drive: unload, dismount, mount, load."""
        return self.drive.switch_s(self.mount_s, self.dismount_s)

    @property
    def locate_s(self) -> float:
        """Mean locate from the beginning of the tape to a file at a random place: half a tape."""
        return self.drive.half_tape_locate_s


def drives_for(busy_s: float) -> int:
    """Drives that give ``busy_s`` of drive time in a day: whole drives, rounded up (a sum
    that is a whole number up to rounding is not one drive more)."""
    return math.ceil(busy_s / DAY_S - 1e-9)


class DailyDriveWork(ABC):
    """The drives a day's drive time asks for, for a class or the archive as a whole.

    A subclass gives ``busy_s`` (drive time on an average day) and
    ``peak_factor`` (the peak day's work over the average day's).
    """

    @property
    @abstractmethod
    def busy_s(self) -> float:
        """Drive time on an average day."""

    @property
    @abstractmethod
    def peak_factor(self) -> float:
        """The peak day's work over the average day's."""

    @property
    def drives_busy(self) -> float:
        """Drives busy on an average day."""
        return self.busy_s / DAY_S

    @property
    def drives_average(self) -> int:
        """Drives needed on an average day (at least one when there is tape work)."""
        return drives_for(self.busy_s)

    @property
    def drives_peak(self) -> int:
        """Drives needed on the peak day (``peak_factor`` times the average day's work)."""
        return drives_for(self.busy_s * self.peak_factor)


@frozen
class ClassSizing(DailyDriveWork):
    """What the arithmetic gives for one class (per average day unless said).

    Attributes
    ----------
    tape_read_mb, tape_write_mb
        MB read from tape (misses) and written to tape (migration, copies included).
    tape_reads, migrations
        Files read from tape; migrations (mounts for writing).
    streaming_s, positioning_s
        Drive time streaming, and exchanging and locating.
    fill_mb
        MB filling its disk: misses staged and writes.
    lifetime_days
        Cache lifetime on an average day (``None``: no cache size given).
    target_days
        The class's target lifetime (``None``: none given).
    """

    name: str
    tape_read_mb: float
    tape_write_mb: float
    tape_reads: float
    migrations: float
    streaming_s: float
    positioning_s: float
    fill_mb: float
    lifetime_days: float | None
    peak_factor: float
    target_days: float | None = None

    @property
    def cache_for_target_mb(self) -> float | None:
        """Disk that keeps files the target lifetime on an average day (the fill times it)."""
        return None if self.target_days is None else self.target_days * self.fill_mb

    @property
    def busy_s(self) -> float:
        """Drive time a day: streaming and positioning."""
        return self.streaming_s + self.positioning_s

    @property
    def streaming_share(self) -> float | None:
        """Share of a busy drive's time spent streaming (``None``: no tape work)."""
        return self.streaming_s / self.busy_s if self.busy_s > 0 else None

    @property
    def effective_mb_s(self) -> float | None:
        """What a busy drive moves per second, positioning included."""
        if self.busy_s <= 0:
            return None
        return (self.tape_read_mb + self.tape_write_mb) / self.busy_s

    @property
    def min_lifetime_days(self) -> float | None:
        """Cache lifetime on the peak day (the paper's minimum cache life)."""
        return None if self.lifetime_days is None else self.lifetime_days / self.peak_factor

    def to_dict(self) -> dict[str, object]:
        """As a JSON-ready mapping, the derived figures included."""
        return {
            "name": self.name,
            "tape_read_mb_per_day": self.tape_read_mb,
            "tape_write_mb_per_day": self.tape_write_mb,
            "tape_reads_per_day": self.tape_reads,
            "migrations_per_day": self.migrations,
            "streaming_s_per_day": self.streaming_s,
            "positioning_s_per_day": self.positioning_s,
            "drives_busy": self.drives_busy,
            "drives_average": self.drives_average,
            "drives_peak": self.drives_peak,
            "streaming_share": self.streaming_share,
            "effective_mb_s_per_drive": self.effective_mb_s,
            "fill_mb_per_day": self.fill_mb,
            "lifetime_days": self.lifetime_days,
            "min_lifetime_days": self.min_lifetime_days,
            "target_days": self.target_days,
            "cache_for_target_mb": self.cache_for_target_mb,
        }


@frozen
class Sizing(DailyDriveWork):
    """The plan of a load: each class's, and the archive's as a whole."""

    load: Load
    classes: tuple[ClassSizing, ...]

    @property
    def busy_s(self) -> float:
        """Drive time a day, every class."""
        return sum(c.busy_s for c in self.classes)

    @property
    def peak_factor(self) -> float:
        """The load's peak day over its average day (every class shares the drives)."""
        return self.load.peak_factor

    @property
    def drives_every_class_at_peak(self) -> int:
        """Drives when every class has its peak at once, each with drives of its own."""
        return sum(c.drives_peak for c in self.classes)

    @property
    def streaming_share(self) -> float | None:
        """Share of the drives' busy time spent streaming."""
        busy = self.busy_s
        return sum(c.streaming_s for c in self.classes) / busy if busy > 0 else None

    @property
    def effective_mb_s(self) -> float | None:
        """What a busy drive moves per second, every class."""
        busy = self.busy_s
        moved = sum(c.tape_read_mb + c.tape_write_mb for c in self.classes)
        return moved / busy if busy > 0 else None

    def to_dict(self) -> dict[str, object]:
        """As a JSON-ready mapping."""
        return {
            "load": self.load.name,
            "drive": self.load.drive.name,
            "peak_factor": self.load.peak_factor,
            "classes": [c.to_dict() for c in self.classes],
            "total": {
                "drives_busy": self.drives_busy,
                "drives_average": self.drives_average,
                "drives_peak": self.drives_peak,
                "drives_every_class_at_peak": self.drives_every_class_at_peak,
                "streaming_share": self.streaming_share,
                "effective_mb_s_per_drive": self.effective_mb_s,
            },
        }


def plan_class(load: Load, c: LoadClass) -> ClassSizing:
    """The arithmetic of the module docstring for one class."""
    tape_read_mb = (1.0 - c.hit_rate) * c.read_mb_per_day
    tape_write_mb = c.copies * c.write_mb_per_day
    tape_reads = tape_read_mb / c.file_mb
    migrations = tape_write_mb / load.migration_mb
    streaming_s = (tape_read_mb + tape_write_mb) / load.drive.rate_mb_s
    positioning_s = tape_reads * (load.exchange_s / c.files_per_mount + load.locate_s)
    positioning_s += migrations * (load.exchange_s + load.locate_s)
    fill_mb = tape_read_mb + c.write_mb_per_day
    lifetime = None
    if c.cache_mb is not None:
        lifetime = math.inf if fill_mb == 0 else c.cache_mb / fill_mb
    return ClassSizing(
        name=c.name,
        tape_read_mb=tape_read_mb,
        tape_write_mb=tape_write_mb,
        tape_reads=tape_reads,
        migrations=migrations,
        streaming_s=streaming_s,
        positioning_s=positioning_s,
        fill_mb=fill_mb,
        lifetime_days=lifetime,
        peak_factor=load.peak_factor,
        target_days=c.target_days,
    )


def plan(load: Load) -> Sizing:
    """The plan of every class of ``load``."""
    return Sizing(load, tuple(plan_class(load, c) for c in load.classes))


def what_if(
    load: Load, *, bytes_scale: float = 1.0, file_scale: float = 1.0, cache_scale: float = 1.0
) -> Load:
    """``load`` with every class's daily bytes, file size and cache scaled.

    The paper's scaling questions: 40 times the data moved (``bytes_scale``),
    data sets 40 times larger (``file_scale``), half the cache
    (``cache_scale`` 0.5). The miss rate follows the cache per byte of
    load (the module docstring's choice): ``miss * bytes_scale /
    cache_scale``, at most 1. A class's ``max_file_mb`` scales with its files.
    """
    for name, value in (("bytes", bytes_scale), ("file", file_scale), ("cache", cache_scale)):
        if not (0 < value < math.inf):
            raise ValueError(f"{name} scale must be > 0, got {shown(value)}")
    classes = []
    for c in load.classes:
        miss = min(1.0, (1.0 - c.hit_rate) * bytes_scale / cache_scale)
        classes.append(
            evolve(
                c,
                max_file_mb=None if c.max_file_mb is None else c.max_file_mb * file_scale,
                file_mb=c.file_mb * file_scale,
                read_mb_per_day=c.read_mb_per_day * bytes_scale,
                write_mb_per_day=c.write_mb_per_day * bytes_scale,
                hit_rate=1.0 - miss,
                cache_mb=None if c.cache_mb is None else c.cache_mb * cache_scale,
            )
        )
    return evolve(load, classes=tuple(classes))


# --- load files ------------------------------------------------------------------------------

_KEYS = KeyStyle(missing_at_key=True, unknown_at_key=True, list_known=True)

_share = number.then("0 <= {v} <= 1", "must be within [0, 1], got {v!r}")
_gb = number.then("0 <= {v} <= 1e9", "must be within [0, 1e9] GB, got {v!r}")
_copies = at_least_one.then("{v} <= 4", "must be within 1 to 4, got {v!r}")
_peak = number.then("1 <= {v} <= 1000", "must be within [1, 1000], got {v!r}")
_time = number.then("0 <= {v} <= 1e6", "must be within [0, 1e6] s, got {v!r}")

DRIVE_FIELDS = ("rate_mb_s", "capacity_mb", "load_s", "unload_s", "half_tape_locate_s")
"""The fields of a technology row a load file's ``drive`` object may override, beside its
``base`` name."""
_DRIVE_RULES: Mapping[str, Rule] = {
    "rate_mb_s": positive,
    "capacity_mb": positive_size,
    "load_s": _time,
    "unload_s": _time,
    "half_tape_locate_s": _time,
}


def _drive(value: Any) -> DriveTechnology:
    """A drive of :data:`toolkit.hardware.technology.DRIVES`, by name or ``{"base": NAME, ...}``."""
    if type(value) is str:
        if value not in DRIVES:
            raise ValueError(f"unknown drive {shown(value)} (known: {', '.join(DRIVES)})")
        return DRIVES[value]
    if type(value) is not dict or "base" not in value:
        raise ValueError("a drive is a name of the technology table or an object with a base name")
    base = _drive(value["base"])
    changes: dict[str, float] = {}
    problems = []
    for key, raw in value.items():
        if key == "base":
            continue
        if key not in DRIVE_FIELDS:
            problems.append(Problem(key, f"unknown drive field (known: {', '.join(DRIVE_FIELDS)})"))
            continue
        reason = _DRIVE_RULES[key](as_float(raw))
        if reason is not None:
            problems.append(Problem(key, reason))
            continue
        changes[key] = float(raw)
    if problems:
        raise ValueProblems(problems)
    if not changes:
        return base
    sources = dict(base.sources)
    sources.update({key: "the load file" for key in changes})
    return evolve(base, name=f"{base.name}*", sources=sources, **changes)  # type: ignore[arg-type]


@checked(kw_only=True)
class LoadClassEntry:
    """A class of a load file's ``classes``."""

    name: str = check(nonempty_text)
    max_file_mb: float | None = check(optional(positive_size), default=None, converter=as_float)
    file_mb: float = check(positive_size, converter=as_float)
    read_gb_per_day: float = check(_gb, converter=as_float)
    write_gb_per_day: float = check(_gb, converter=as_float)
    hit_rate: float = check(_share, converter=as_float)
    cache_gb: float | None = check(optional(positive), default=None, converter=as_float)
    copies: int = check(_copies, default=1)
    files_per_mount: float = check(
        number.then("{v} >= 1", "must be >= 1, got {v!r}"), default=1.0, converter=as_float
    )
    target_days: float | None = check(optional(positive), default=None, converter=as_float)


@checked(kw_only=True)
class LoadDocument:
    """A load file as written."""

    format: str = check(Rule(("{v} == {f}", "expected {f!r}, got {v!r}"), f=FORMAT))
    name: str = check(text, default="load")
    description: str = check(text, default="")
    sources: tuple[str, ...] = ()
    drive: DriveTechnology = parsed(_drive)
    mount_s: float = check(_time, converter=as_float)
    dismount_s: float = check(_time, converter=as_float)
    arms: int = check(at_least_one, default=1)
    peak_factor: float = check(_peak, default=SDSC_PEAK_FACTOR, converter=as_float)
    migration_mb: float = check(positive_size, default=DEFAULT_MIGRATION_MB, converter=as_float)
    classes: tuple[LoadClassEntry, ...] = check(Rule(("len({v}) > 0", "must not be empty")))


def _class_problems(entries: Sequence[LoadClassEntry]) -> list[Problem]:
    """Faults across classes: repeated names, bounds (as the scenario's ``disk_cache``), and
    a mean file above its class's bound."""
    problems = class_bound_problems(entries, "classes")
    for i, c in enumerate(entries):
        if c.max_file_mb is not None and c.file_mb > c.max_file_mb:
            why = f"the mean file ({c.file_mb:g} MB) is above the class's max_file_mb"
            problems.append(Problem(f"classes[{i}].file_mb", why))
    return problems


def load_from_dict(data: Any, source: str = "<load>") -> Load:
    """A load from its JSON document.

    Raises
    ------
    InputError
        Naming every bad value by its path.
    """
    document, problems = JSON.structure(data, LoadDocument, keys=_KEYS)
    if document is None:
        raise InputError(source, problems)
    problems = _class_problems(document.classes)
    if problems:
        raise InputError(source, problems)
    return Load(
        name=document.name,
        description=document.description,
        sources=tuple(require(text, s) for s in document.sources),
        drive=document.drive,
        mount_s=document.mount_s,
        dismount_s=document.dismount_s,
        arms=document.arms,
        peak_factor=document.peak_factor,
        migration_mb=document.migration_mb,
        classes=tuple(
            LoadClass(
                name=c.name,
                max_file_mb=c.max_file_mb,
                file_mb=c.file_mb,
                read_mb_per_day=c.read_gb_per_day * MB_PER_GB,
                write_mb_per_day=c.write_gb_per_day * MB_PER_GB,
                hit_rate=c.hit_rate,
                cache_mb=None if c.cache_gb is None else c.cache_gb * MB_PER_GB,
                copies=c.copies,
                files_per_mount=c.files_per_mount,
                target_days=c.target_days,
            )
            for c in document.classes
        ),
    )


def load_load(path: str | os.PathLike[str]) -> Load:
    """A load file.

    Raises
    ------
    InputError
        When the file cannot be read, is not JSON, or holds bad values.
    """
    return load_from_dict(read_json(path), str(path))
