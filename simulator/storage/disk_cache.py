"""A disk cache in front of the tapes, one LRU cache per service class (the SDSC archive's).

Moore et al. (SDSC, HPSS archive tuning, 1998) run the archive behind disk:
files are assigned a *service class* by their size (small, medium, large),
and each class has disk space of its own. A read of a file resident on
disk is served from disk; any other read stages the file from tape, after
which it is resident; a write lands on disk and is migrated to tape. The
paper judges each class by its hit rate (62 % of the file accesses of
November 1998 were served from disk) and by its *cache lifetime*, how long
a file stays on disk before it is purged to make room.

What this module decides (the paper is silent on it)
    - Eviction is least recently used, per class: a hit or a new copy makes
      a file the most recent; room for a new file is made by evicting the
      least recent ones of its class until it fits.
    - A file larger than its class's whole cache is not kept (it bypasses
      the disk); a file already resident that is written again is renewed
      (its residency restarts, its size is the new one).
    - Eviction does not wait for a written file's migration: the cache is
      sized in days, far longer than a migration takes, and the paper's
      lower bound of the lifetime makes the same assumption.
    - *Residency* is the time from a file's arrival on disk (written or
      staged) to its eviction; the mean over the files evicted is the
      class's measured cache lifetime. A run too short for any eviction
      has none (``None``); :attr:`ClassReport.fill_lifetime_s` then gives
      the paper's own estimate, cache size over the rate it was filled at.

The simulator (:mod:`simulator.run.simulation`) asks :meth:`DiskCache.read` when
a read arrives (a hit is done there and then, no tape work), tells
:meth:`DiskCache.written` when a write arrives and :meth:`DiskCache.staged`
when a read from tape has its data; :meth:`DiskCache.report` gives each
class's figures. Sizes in MB, times in seconds, as everywhere in the simulator.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Sequence
from itertools import pairwise

from attrs import field, frozen

from tapesched.simulator.storage.files import FileSpec


@frozen
class ServiceClass:
    """A service class: the files up to ``max_file_mb`` (``None``: every larger file), its disk.

    Attributes
    ----------
    name
        The class's name (``small``, ``medium``, ``large`` at SDSC).
    max_file_mb
        Largest file of the class; files above it belong to the next class.
        The last class has none and takes every file above the others.
    cache_mb
        Disk space of the class.
    """

    name: str
    max_file_mb: float | None
    cache_mb: float

    def __attrs_post_init__(self) -> None:
        if not self.name:
            raise ValueError("a service class needs a name")
        if self.max_file_mb is not None and not (0 < self.max_file_mb < math.inf):
            raise ValueError(
                f"class {self.name!r}: max_file_mb must be > 0, got {self.max_file_mb!r}"
            )
        if not (0 < self.cache_mb < math.inf):
            raise ValueError(f"class {self.name!r}: cache_mb must be > 0, got {self.cache_mb!r}")


def _classes(value: Sequence[ServiceClass]) -> tuple[ServiceClass, ...]:
    return tuple(value)


@frozen
class CacheSpec:
    """The service classes, in increasing ``max_file_mb``, the last one unbounded.

    Raises
    ------
    ValueError
        For no class, a repeated name, bounds not increasing, or a bounded
        last class (a file above it would belong to no class).
    """

    classes: tuple[ServiceClass, ...] = field(converter=_classes)

    def __attrs_post_init__(self) -> None:
        if not self.classes:
            raise ValueError("at least one service class")
        names = [c.name for c in self.classes]
        if len(set(names)) != len(names):
            raise ValueError(f"service class names must differ, got {names}")
        bounds = [c.max_file_mb for c in self.classes]
        if bounds[-1] is not None:
            raise ValueError("the last service class takes every larger file: no max_file_mb")
        if any(b is None for b in bounds[:-1]):
            raise ValueError("every service class but the last has a max_file_mb")
        finite = [b for b in bounds[:-1] if b is not None]
        if any(a >= b for a, b in pairwise(finite)):
            raise ValueError(f"max_file_mb must increase from class to class, got {finite}")

    def class_of(self, size_mb: float) -> int:
        """Index of the class a file of ``size_mb`` belongs to."""
        for k, c in enumerate(self.classes):
            if c.max_file_mb is None or size_mb <= c.max_file_mb:
                return k
        raise AssertionError("the last class is unbounded")


@frozen
class ClassReport:
    """What one class's cache did in a run.

    Attributes
    ----------
    name, cache_mb
        The class.
    reads, hits
        Reads asked of it and those it served from disk.
    filled_mb
        MB that arrived on its disk (written or staged; bypasses excluded).
    evictions
        Files evicted.
    mean_residency_s
        Mean time from arrival to eviction of the files evicted (``None``:
        none was), the measured cache lifetime.
    resident_mb
        MB on its disk at the end.
    span_s
        The time the figures cover (the run's end).
    """

    name: str
    cache_mb: float
    reads: int
    hits: int
    filled_mb: float
    evictions: int
    mean_residency_s: float | None
    resident_mb: float
    span_s: float

    @property
    def hit_rate(self) -> float | None:
        """Share of the reads served from disk (``None``: no read)."""
        return self.hits / self.reads if self.reads else None

    @property
    def fill_lifetime_s(self) -> float | None:
        """The paper's estimate of the lifetime: cache size over the rate it was filled at."""
        if self.filled_mb <= 0 or self.span_s <= 0:
            return None
        return self.cache_mb / (self.filled_mb / self.span_s)

    def to_dict(self) -> dict[str, object]:
        """As a JSON-ready mapping, the derived figures included."""
        return {
            "name": self.name,
            "cache_mb": self.cache_mb,
            "reads": self.reads,
            "hits": self.hits,
            "hit_rate": self.hit_rate,
            "filled_mb": self.filled_mb,
            "evictions": self.evictions,
            "mean_residency_s": self.mean_residency_s,
            "fill_lifetime_s": self.fill_lifetime_s,
            "resident_mb": self.resident_mb,
        }


class LruCache:
    """One class's disk: files by id, least recently used first.

    Parameters
    ----------
    capacity_mb
        Its disk space.
    """

    __slots__ = (
        "_files",
        "bypassed",
        "capacity_mb",
        "evictions",
        "filled_mb",
        "hits",
        "reads",
        "residency_s",
        "used_mb",
    )

    def __init__(self, capacity_mb: float) -> None:
        self.capacity_mb = capacity_mb
        self._files: OrderedDict[str, tuple[float, float]] = OrderedDict()
        """File id to (size MB, arrival time), least recent first."""
        self.used_mb = 0.0
        self.reads = 0
        self.hits = 0
        self.filled_mb = 0.0
        self.evictions = 0
        self.residency_s = 0.0
        self.bypassed = 0

    def __contains__(self, file_id: str) -> bool:
        return file_id in self._files

    def order(self) -> list[str]:
        """Resident file ids, least recently used first."""
        return list(self._files)

    def read(self, file_id: str) -> bool:
        """Whether ``file_id`` is resident (then it becomes the most recent); counted."""
        self.reads += 1
        if file_id not in self._files:
            return False
        self._files.move_to_end(file_id)
        self.hits += 1
        return True

    def put(self, file_id: str, size_mb: float, now_s: float) -> None:
        """``file_id`` arrives on disk at ``now_s``, evicting the least recent files for room."""
        old = self._files.pop(file_id, None)
        if old is not None:
            self.used_mb -= old[0]
        if size_mb > self.capacity_mb:
            self.bypassed += 1
            return
        files = self._files
        while self.used_mb + size_mb > self.capacity_mb and files:
            _, (evicted_mb, since_s) = files.popitem(last=False)
            self.used_mb -= evicted_mb
            self.evictions += 1
            self.residency_s += now_s - since_s
        files[file_id] = (size_mb, now_s)
        self.used_mb += size_mb
        self.filled_mb += size_mb


class DiskCache:
    """The disk caches of every service class of ``spec``."""

    def __init__(self, spec: CacheSpec) -> None:
        self.spec = spec
        self.caches = [LruCache(c.cache_mb) for c in spec.classes]

    def cache_of(self, file: FileSpec) -> LruCache:
        """The cache of ``file``'s class."""
        return self.caches[self.spec.class_of(file.size_mb)]

    def read(self, file: FileSpec) -> bool:
        """Whether a read of ``file`` is served from disk (a hit; counted either way)."""
        return self.cache_of(file).read(file.id)

    def written(self, file: FileSpec, now_s: float) -> None:
        """A write of ``file`` lands on disk (its migration to tape is the platform's)."""
        self.cache_of(file).put(file.id, file.size_mb, now_s)

    def staged(self, file: FileSpec, now_s: float) -> None:
        """A read from tape has brought ``file`` to disk: it is resident from now."""
        self.cache_of(file).put(file.id, file.size_mb, now_s)

    def report(self, now_s: float) -> tuple[ClassReport, ...]:
        """Each class's figures up to ``now_s``."""
        return tuple(
            ClassReport(
                name=c.name,
                cache_mb=c.cache_mb,
                reads=cache.reads,
                hits=cache.hits,
                filled_mb=cache.filled_mb,
                evictions=cache.evictions,
                mean_residency_s=(cache.residency_s / cache.evictions if cache.evictions else None),
                resident_mb=cache.used_mb,
                span_s=now_s,
            )
            for c, cache in zip(self.spec.classes, self.caches, strict=True)
        )
