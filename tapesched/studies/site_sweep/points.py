"""One point of a site sweep replayed, its metrics, and the cache of points.

:func:`replay_point` is what a worker runs (a top-level function, sent by reference to
local processes or a Dask cluster): it reads the log itself, on the point's changed site,
and gives the replay's summary (:meth:`simulator.replay.replay.ReplayResult.summary`) and
how its cartridges were placed. The metrics of a point (:data:`METRICS`) are read from
that summary alone (:func:`metric_value`), so that a point kept in the cache gives the same
rows as one replayed.

Cache
    One small JSON file per point (:class:`PointCache`), keyed by a sha256 of the sources
    (:data:`tapesched.studies.sweeps.sweep.CODE_DIGEST`), the changed site document, the
    log file's bytes, its columns and limit, and the run options (:func:`point_key`),
    written atomically. An entry is read as any input (:func:`read_point_entry`): a
    regular file of at most :data:`MAX_ENTRY_BYTES`, not followed through a link, JSON of
    :data:`ENTRY_FORMAT`, the key asked for, every number finite, of its type and >= 0. A
    bad entry is warned about and the point is run again.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import stat
from collections.abc import Callable, Mapping
from contextlib import suppress
from pathlib import Path
from typing import Any

from attrs import field, frozen

from tapesched.studies.site_sweep.axes import SitePoint
from tapesched.toolkit.errors import InputError, Problem, shown

METRICS = (
    "mounts",
    "hits",
    "cross_level_mounts",
    "mean_latency_s",
    "median_latency_s",
    "p95_latency_s",
    "max_latency_s",
    "mean_mount_latency_s",
    "drive_busy_share_over_horizon",
    "arm_busy_share_over_horizon",
    "backlog_end",
)
"""What a point may report (``--metric``): counts, the latency over all requests (mean,
median, 95th percentile, max) and the mean over the requests that needed a mount (none
for a saturated replay), the shares of drive and arm time busy, the backlog at the end."""

LATENCIES = {
    "mean_latency_s": ("latency_over_requests_s", "mean"),
    "median_latency_s": ("latency_over_requests_s", "median"),
    "p95_latency_s": ("latency_over_requests_s", "p95"),
    "max_latency_s": ("latency_over_requests_s", "max"),
    "mean_mount_latency_s": ("latency_over_mounts_s", "mean"),
}
"""The latency metrics: where each is in a replay's summary."""

COUNTS = (
    "drives",
    "requests",
    "mounts",
    "hits",
    "cross_level_mounts",
    "backlog_midway",
    "backlog_end",
)
SHARES = (
    "drive_busy_share_over_horizon",
    "drive_in_use_share_over_horizon",
    "arm_busy_share_over_horizon",
    "span_s",
    "trace_end_s",
)
STATS = ("count", "mean", "median", "p95", "max")
HOMES = ("homed", "hashed", "unlisted")


@frozen
class PointOutcome:
    """What a point gave: its replay's summary and its homes counts; ``cached`` when it was
    read from the cache (not compared)."""

    summary: Mapping[str, Any]
    homes: Mapping[str, Any]
    cached: bool = field(default=False, eq=False)

    @property
    def saturated(self) -> bool:
        """Whether the replay could not keep up."""
        return bool(self.summary["saturated"])

    def value(self, metric: str) -> float | None:
        """A metric of :data:`METRICS` (:func:`metric_value`)."""
        return metric_value(self.summary, metric)


def metric_value(summary: Mapping[str, Any], metric: str) -> float | None:
    """``metric`` of a replay's summary; ``None`` for a latency of a saturated replay."""
    if metric in LATENCIES:
        over, stat_name = LATENCIES[metric]
        stats = summary[over]
        return None if stats is None else float(stats[stat_name])
    return float(summary[metric])


def replay_point(point: SitePoint) -> PointOutcome:
    """Replay the site's log on the point's site (see the module)."""
    from tapesched.simulator.site.runs import read_site_log, replay_site
    from tapesched.toolkit.site.reader import site_from_dict

    site = site_from_dict(point.document, point.site_file)
    site_log = read_site_log(
        point.site_file,
        point.log_file,
        columns=point.columns,
        limit=point.limit,
        homes_seed=point.homes_seed,
        site=site,
    )
    replayed = replay_site(
        site_log,
        point.drives,
        keep_mounted=point.keep_mounted,
        scheduler=point.scheduler,
        mount_policy=point.mount_policy,
    )
    return PointOutcome(replayed.result.summary(), site_log.homes_document())


def file_digest(path: str) -> str:
    """A sha256 of a file's bytes as stored."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for chunk in iter(lambda: stream.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def point_key(point: SitePoint, log_digest: str) -> str:
    """The cache key of a point (see the module)."""
    from tapesched.studies.sweeps.sweep import CODE_DIGEST

    text = json.dumps(
        {
            "code": CODE_DIGEST,
            "site": point.document,
            "log": log_digest,
            "columns": dict(point.columns or {}),
            "limit": point.limit,
            "options": point.options(),
        },
        sort_keys=True,
    )
    return hashlib.sha256(text.encode()).hexdigest()


ENTRY_FORMAT = "tapesched.site-sweep-point/1"
"""The format of a cache entry: one point's replay summary and homes under its key."""

MAX_ENTRY_BYTES = 65_536
"""The largest entry read (one is about 1 KB); a larger one is run again unread."""

_ENTRY_KEYS = ("format", "key", "summary", "homes")


def _count(value: Any) -> bool:
    return type(value) is int and value >= 0


def _measure(value: Any) -> bool:
    return type(value) in (int, float) and math.isfinite(value) and value >= 0


def _summary_problems(summary: Any) -> list[Problem]:
    """What is wrong with a kept summary: its counts, measures, latencies and flag."""
    if type(summary) is not dict:
        return [Problem("summary", f"expected an object, got {shown(summary)}")]
    problems = []
    for name, good, what in (
        *((n, _count, "a count") for n in COUNTS),
        *((n, _measure, "a finite number >= 0") for n in SHARES),
    ):
        if not good(summary.get(name)):
            problems.append(
                Problem(f"summary.{name}", f"expected {what}, got {shown(summary.get(name))}")
            )
    saturated = summary.get("saturated")
    if type(saturated) is not bool:
        problems.append(
            Problem("summary.saturated", f"expected true or false, got {shown(saturated)}")
        )
    for over in ("latency_over_requests_s", "latency_over_mounts_s"):
        stats = summary.get(over)
        if stats is None:
            if saturated is False:
                problems.append(Problem(f"summary.{over}", "missing for a replay that kept up"))
        elif type(stats) is not dict or not all(_measure(stats.get(k)) for k in STATS):
            problems.append(Problem(f"summary.{over}", f"expected {', '.join(STATS)} >= 0"))
    return problems


def read_point_entry(path: str | os.PathLike[str], key: str) -> PointOutcome:
    """The outcome kept in the entry at ``path`` for the point ``key``.

    Raises
    ------
    FileNotFoundError
        When there is none.
    InputError
        Naming the entry and the first of what is wrong with it (see the module).
    """
    from tapesched.toolkit.files.reading import read_bytes

    source = os.fspath(path)
    if not os.path.lexists(source):
        raise FileNotFoundError(source)
    data = read_bytes(source, most_bytes=MAX_ENTRY_BYTES, follow_links=False)
    try:
        document = json.loads(data.decode("utf-8"))
    except ValueError as exc:
        raise InputError(source, [Problem("", f"not JSON: {exc}")]) from None
    if type(document) is not dict or sorted(document) != sorted(_ENTRY_KEYS):
        why = f"expected an object of {', '.join(_ENTRY_KEYS)}, got {shown(document)}"
        raise InputError(source, [Problem("", why)])
    problems = [
        Problem(name, f"expected {wanted!r}, got {shown(document[name])}")
        for name, wanted in (("format", ENTRY_FORMAT), ("key", key))
        if document[name] != wanted
    ]
    problems += _summary_problems(document["summary"])
    homes = document["homes"]
    if type(homes) is not dict or not all(_count(homes.get(k)) for k in HOMES):
        problems.append(Problem("homes", f"expected counts {', '.join(HOMES)}"))
    if problems:
        raise InputError(source, problems)
    return PointOutcome(document["summary"], homes, cached=True)


class PointCache:
    """Points' outcomes on disk, one JSON file per key (see the module); ``warn`` is given
    each one-line warning (an entry run again, an outcome that cannot be kept)."""

    def __init__(self, directory: str | os.PathLike[str], warn: Callable[[str], None]) -> None:
        self.directory = Path(directory)
        self.warn = warn

    def _path(self, key: str) -> Path:
        return self.directory / f"{key}.json"

    def get(self, key: str) -> PointOutcome | None:
        """The outcome kept under ``key``, or ``None`` (none, or a bad one: warned about)."""
        try:
            return read_point_entry(self._path(key), key)
        except FileNotFoundError:
            return None
        except InputError as exc:
            self.warn(f"warning: {exc.lines()[0]}; the point is run again")
            return None

    def put(self, key: str, outcome: PointOutcome) -> None:
        """Keep ``outcome`` under ``key``, written atomically, replacing what is there (a
        link, a FIFO or a device itself, not what it leads to)."""
        from tapesched.toolkit.files.json_documents import write_atomic

        path = self._path(key)
        document = {
            "format": ENTRY_FORMAT,
            "key": key,
            "summary": dict(outcome.summary),
            "homes": dict(outcome.homes),
        }
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            with suppress(FileNotFoundError):
                if not stat.S_ISREG(os.lstat(path).st_mode):
                    path.unlink()
            write_atomic(path, json.dumps(document, sort_keys=True))
        except (InputError, OSError) as exc:
            why = exc.lines()[0] if isinstance(exc, InputError) else f"{path}: {exc}"
            self.warn(f"warning: {why}; the point is not kept")
