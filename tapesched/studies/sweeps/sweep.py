"""Sweeps: the points of an experiment run in parallel, cached, replicated to a precision.

A sweep runs scenarios (its *points*, :class:`Point`) as
independent replications (:func:`run_replication`: one seeded run to the
horizon, its :class:`~simulator.results.records.RunSummary`), on any
:class:`concurrent.futures.Executor`: in this process (:class:`InProcess`,
``--workers 1``), on local worker processes
(:class:`~concurrent.futures.ProcessPoolExecutor`, started with ``spawn``
so that no thread of the parent is forked), or on a Dask distributed
cluster (its client's executor); :func:`executor` makes the one asked for.

Seeds
    Replication ``k`` of the point at ``x`` runs with
    :func:`replication_seed` ``(seed, x, k)``: a hash of the experiment's
    seed, the point's x and ``k``, never of the order in which workers take
    tasks. Every series at one x gets the same seeds, so the policies
    compared there serve the same requests (common random numbers: the
    differences between series are the policies', not the draws').

Replications
    Each point runs :attr:`Precision.min_replications` replications, then
    more until the 95 % interval of the primary metric is within
    :attr:`Precision.share` of its mean (the ±5 % of Golubchik et al.,
    1994), or :attr:`Precision.max_replications` is reached, or the point
    is saturated (then there is no mean to make precise: see
    :func:`simulator.results.records.combine`). How many more is projected from the
    spread so far (:func:`wanted`), at most doubling at a time. The decision
    for a point reads only its own replications, in order, so the number
    of replications, and every figure of the results, is the same serially,
    on processes and on Dask.

Cache
    Each replication's summary is kept in a directory (:class:`Cache`),
    one JSON file per key: a hash of the scenario as run (its ``repr``,
    with the seed and replication count of its ``run`` section left out,
    since :func:`run_replication` takes its own seed), the replication's
    seed and index, and the digest of the simulator's and solvers' sources
    (:data:`CODE_DIGEST`), so that changed code never reuses old results.
    A replication found there is not run again: an interrupted sweep
    resumes where it stopped. A summary is kept as soon as its replication
    is done (a callback of its future), and written atomically
    (:func:`toolkit.files.outputs.write_file`), so that an interrupt leaves none
    half written.

Cache entries
    An entry (:data:`ENTRY_FORMAT`) holds the key it was computed for, the
    summary, and a digest of both (:func:`entry_digest`). It is read as any
    input (:func:`read_entry`, the one reader of entries): a regular file of
    at most :data:`MAX_ENTRY_BYTES`, checked before a byte is read (a link to
    ``/dev/zero`` is not followed), JSON of the format, the key asked for, the
    digest matching, every number finite and of its type, and the summary
    consistent (its seed the replication's; the counts adding up; saturated
    only with the backlog that calls it so). An entry that is not is
    recomputed, with a one-line warning, and replaced.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import math
import os
import stat
import statistics
import sys
import typing
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager, suppress
from functools import partial
from multiprocessing.context import SpawnContext, SpawnProcess
from pathlib import Path
from signal import SIGINT
from typing import Any

import attrs
from attrs import evolve, field, frozen

from tapesched.simulator.results.records import (
    SATURATION_FLOOR,
    SATURATION_SHARE,
    Estimate,
    RunSummary,
    combine,
    t95,
)
from tapesched.simulator.results.replications import run_summary
from tapesched.simulator.scenario.spec import Scenario
from tapesched.toolkit.errors import InputError, Problem, join_path, shown
from tapesched.toolkit.fields import Rule, natural, nonnegative_finite, optional
from tapesched.toolkit.files.outputs import write_file
from tapesched.toolkit.files.reading import read_bytes
from tapesched.toolkit.runtime.signals import signals_blocked

PRIMARY_METRIC = "mean_weighted_response_s_per_gb"
"""The paper's objective (Section 3.2): what the figures plot and the precision is judged on."""

NORMAL_95 = 1.959963984540054
"""The two-sided 95 % quantile of the normal law, to project the replications a point needs."""


def _digest_of_sources() -> str:
    """A hash of every module of the layers a replication runs (studies, simulator, solvers,
    toolkit).

    Read where each is imported from: the folders of a checkout (an editable
    install maps them in) or the installed package.
    """
    digest = hashlib.sha256()
    for name in ("studies", "simulator", "solvers", "toolkit"):
        for root in importlib.import_module(f"tapesched.{name}").__path__:
            for path in sorted(Path(root).rglob("*.py")):
                digest.update(f"{name}/{path.relative_to(root).as_posix()}".encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


CODE_DIGEST = _digest_of_sources()
"""The sources a cached replication was computed with (part of every cache key)."""


@frozen
class Point:
    """One point of a sweep: its series, its x, and the scenario run there."""

    series: str
    x: float
    scenario: Scenario


@frozen
class Precision:
    """When a point has replications enough.

    Attributes
    ----------
    share
        The 95 % half-width sought, as a share of the mean (0.05: ±5 %).
    min_replications
        Replications every point runs (at least 2, for an interval).
    max_replications
        The cap.
    metric
        The metric judged (a :class:`~simulator.results.records.RunSummary` field).
    """

    share: float = 0.05
    min_replications: int = 2
    max_replications: int = 10
    metric: str = PRIMARY_METRIC

    def __attrs_post_init__(self) -> None:
        if not 0 < self.share < math.inf:
            raise ValueError(f"share must be > 0, got {self.share!r}")
        if not 2 <= self.min_replications <= self.max_replications:
            raise ValueError(
                "replications must be 2 <= min <= max, got "
                f"{self.min_replications!r} and {self.max_replications!r}"
            )


@frozen
class PointResult:
    """A point and its replications' summaries, in replication order; ``cached`` of them
    were found in the cache, not run (not compared: the same results, wherever they came
    from)."""

    point: Point
    runs: tuple[RunSummary, ...]
    seeds: tuple[int, ...]
    cached: int = field(default=0, eq=False)

    @property
    def saturated(self) -> bool:
        """Whether any replication could not keep up
        (:func:`simulator.results.records.is_saturated`)."""
        return any(r.saturated for r in self.runs)

    @property
    def estimates(self) -> dict[str, Estimate]:
        """Each metric over the replications (:func:`simulator.results.records.combine`)."""
        return combine(self.runs)


@frozen
class SweepOutcome:
    """What a sweep gives: a result per point (in the points' order), and what it ran."""

    results: tuple[PointResult, ...]
    simulated: int
    cached: int


def replication_seed(seed: int, x: float, replication: int) -> int:
    """The seed of replication ``replication`` at ``x`` of a sweep seeded ``seed`` (63 bits)."""
    text = f"tapesched.sweep/1 {seed} {float(x)!r} {replication}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def as_run(scenario: Scenario) -> Scenario:
    """The scenario with what a replication does not read (its seed and count) set aside."""
    return evolve(scenario, run=evolve(scenario.run, seed=0, replications=1))


def replication_key(scenario: Scenario, seed: int, replication: int) -> str:
    """The cache key of one replication: scenario as run, seed, index, sources."""
    text = f"{CODE_DIGEST}\n{as_run(scenario)!r}\n{seed}\n{replication}"
    return hashlib.sha256(text.encode()).hexdigest()


def run_replication(scenario: Scenario, seed: int) -> RunSummary:
    """One replication of ``scenario`` with ``seed``, no records kept: its summary (the run
    freed before it returns: :func:`~simulator.results.replications.run_summary`)."""
    return run_summary(scenario, seed)


ENTRY_FORMAT = "tapesched.replication/1"
"""The format of a cache entry: one replication's summary under the key it was computed for."""

MAX_ENTRY_BYTES = 65_536
"""The largest cache entry read (one is about 1.5 KB); a larger one is recomputed unread."""

_ENTRY_KEYS = ("digest", "format", "key", "summary")

_BOOLEAN = Rule(("type({v}) is bool", "expected true or false, got {v!r}"))

_SUMMARY_RULES: dict[str, Rule] = {
    f.name: {
        int: natural,
        float: nonnegative_finite,
        bool: _BOOLEAN,
        float | None: optional(nonnegative_finite),
    }[typing.get_type_hints(RunSummary)[f.name]]
    for f in attrs.fields(RunSummary)
}
"""What each field of a kept summary must be: every count and measure is >= 0 and finite."""

_RESPONSES = ("mean_weighted_response_s_per_gb", "mean_response_s", "mean_stretch")
"""The summary's means over the measured requests: none when saturated or none measured."""


def entry_digest(key: str, summary: dict[str, object]) -> str:
    """The digest an entry carries: of its key and its summary as written (sorted keys)."""
    text = f"{ENTRY_FORMAT}\n{key}\n{json.dumps(summary, sort_keys=True)}"
    return hashlib.sha256(text.encode()).hexdigest()


def _summary_problems(summary: dict[str, typing.Any]) -> list[Problem]:
    """What is wrong with a kept summary as written: keys, and each value against its rule."""
    problems = [Problem(f"summary.{k}", "missing key") for k in _SUMMARY_RULES if k not in summary]
    problems += [
        Problem(join_path("summary", k), "unknown key") for k in summary if k not in _SUMMARY_RULES
    ]
    for name, rule in _SUMMARY_RULES.items():
        reason = rule(summary[name]) if name in summary else None
        if reason is not None:
            problems.append(Problem(f"summary.{name}", reason))
    return problems


def _inconsistencies(summary: RunSummary, seed: int) -> list[Problem]:
    """How a summary that reads well contradicts itself or the replication it is kept for."""
    s = summary
    problems = []
    if s.seed != seed:
        problems.append(Problem("summary.seed", f"{s.seed} is not the replication's seed {seed}"))
    if s.arrived != s.completed + s.failed + s.backlog:
        problems.append(
            Problem("summary.arrived", f"{s.arrived} is not completed + failed + backlog")
        )
    if s.measured > s.completed:
        problems.append(Problem("summary.measured", f"{s.measured} is more than completed"))
    if s.saturated and s.backlog <= max(SATURATION_FLOOR, SATURATION_SHARE * s.arrived):
        problems.append(
            Problem("summary.saturated", f"true with a backlog of {s.backlog}, too few for that")
        )
    means = s.measured > 0 and not s.saturated
    run = f"a run with {s.measured} measured, saturated {str(s.saturated).lower()}"
    for name in _RESPONSES:
        if (getattr(s, name) is not None) != means:
            problems.append(
                Problem(f"summary.{name}", f"{'missing' if means else 'given'} for {run}")
            )
    return problems


def read_entry(path: str | os.PathLike[str], key: str, seed: int) -> RunSummary:
    """The summary kept in the cache entry at ``path`` for the replication ``key`` of ``seed``.

    Raises
    ------
    FileNotFoundError
        When there is no entry.
    InputError
        Naming the entry and the first of what is wrong with it (see Cache entries in the
        module's docstring).
    """
    source = os.fspath(path)

    def bad(problems: list[Problem]) -> InputError:
        return InputError(source, problems)

    if not os.path.lexists(source):
        raise FileNotFoundError(source)
    data = read_bytes(source, most_bytes=MAX_ENTRY_BYTES, follow_links=False)
    try:
        document = json.loads(data.decode("utf-8"))
    except ValueError as exc:
        raise bad([Problem("", f"not JSON: {exc}")]) from None
    if type(document) is not dict:
        raise bad([Problem("", f"expected an object, got {shown(document)}")])
    problems = [Problem(k, "missing key") for k in _ENTRY_KEYS if k not in document]
    problems += [Problem("", f"unknown key {shown(k)}") for k in document if k not in _ENTRY_KEYS]
    if problems:
        raise bad(problems)
    for name, wanted in (("format", ENTRY_FORMAT), ("key", key)):
        if document[name] != wanted:
            problems.append(Problem(name, f"expected {wanted!r}, got {shown(document[name])}"))
    summary = document["summary"]
    if type(summary) is not dict:
        problems.append(Problem("summary", f"expected an object, got {shown(summary)}"))
    else:
        problems += _summary_problems(summary)
    if problems:
        raise bad(problems)
    if document["digest"] != entry_digest(key, summary):
        raise bad([Problem("digest", "does not match the key and summary (changed since kept)")])
    kept = RunSummary(**summary)
    problems = _inconsistencies(kept, seed)
    if problems:
        raise bad(problems)
    return kept


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


class Cache:
    """Replication summaries on disk, one JSON file per key (see the module's docstring).

    ``warn`` is given each one-line warning: an entry that is bad (recomputed) or a
    summary that cannot be kept (standard error by default).
    """

    def __init__(
        self, directory: str | os.PathLike[str], warn: Callable[[str], None] = _to_stderr
    ) -> None:
        self.directory = Path(directory)
        self.warn = warn

    def _path(self, key: str) -> Path:
        return self.directory / f"{key}.json"

    def get(self, key: str, seed: int) -> RunSummary | None:
        """The summary kept under ``key`` for the replication of ``seed``, or ``None`` when
        there is none or it is bad (:func:`read_entry`; a warning then: it is run again)."""
        try:
            return read_entry(self._path(key), key, seed)
        except FileNotFoundError:
            return None
        except InputError as exc:
            self.warn(f"warning: {exc.lines()[0]}; the replication is run again")
            return None

    def put(self, key: str, summary: RunSummary) -> None:
        """Keep ``summary`` under ``key``, replacing what is there (a symbolic link, a FIFO or
        a device itself, not what it leads to); a warning when it cannot be kept."""
        path = self._path(key)
        data = summary.to_dict()
        document = {
            "digest": entry_digest(key, data),
            "format": ENTRY_FORMAT,
            "key": key,
            "summary": data,
        }
        try:
            with suppress(FileNotFoundError):
                mode = os.lstat(path).st_mode
                if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                    path.unlink()
            write_file(path, json.dumps(document, sort_keys=True))
        except (InputError, OSError) as exc:
            why = exc.lines()[0] if isinstance(exc, InputError) else f"{path}: {exc}"
            self.warn(f"warning: {why}; the replication is not kept")


def _keep(cache: Cache, key: str, future: Future[RunSummary]) -> None:
    """Keep a replication's summary as soon as it is done, whichever thread finishes it."""
    if not future.cancelled() and future.exception() is None:
        cache.put(key, future.result())


def wanted(runs: Sequence[RunSummary], precision: Precision) -> int:
    """How many replications a point wants in all, given its first ``runs``.

    ``len(runs)`` means it is done: saturated, nothing measured, precise
    enough, or at the cap. Otherwise the count the spread so far projects
    for the interval sought (normal quantile), at least one more and at
    most twice as many.
    """
    n = len(runs)
    if n < precision.min_replications:
        return precision.min_replications
    values = [getattr(r, precision.metric) for r in runs]
    if n >= precision.max_replications or any(r.saturated for r in runs) or None in values:
        return n
    mean = statistics.fmean(values)
    spread = statistics.stdev(values)
    target = precision.share * abs(mean)
    if t95(n - 1) * spread / math.sqrt(n) <= target:
        return n
    projected = math.ceil((NORMAL_95 * spread / target) ** 2) if target > 0 else 2 * n
    return min(precision.max_replications, max(n + 1, min(2 * n, projected)))


class InProcess(Executor):
    """An executor that runs each task at once, in this process (``--workers 1``)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except Exception as exc:
            future.set_exception(exc)
        return future


class _WorkerProcess(SpawnProcess):
    """A worker process that never sees SIGINT: it starts, and stays, with SIGINT blocked.

    Ctrl-C at a terminal reaches every process of the foreground group, the
    workers too; only the parent answers it (it stops the workers and
    unwinds, :func:`executor`), so that a worker neither prints a traceback
    nor dies half-way through a task the parent still waits for. The
    parent blocks SIGINT for the moment of the start (one sent meanwhile
    reaches it on leaving), and the child inherits the mask through
    ``exec``, from its first instruction.
    """

    def start(self) -> None:
        with signals_blocked({SIGINT}):
            super().start()


class _WorkerContext(SpawnContext):
    """``spawn``, with workers that never see SIGINT (:class:`_WorkerProcess`)."""

    Process = _WorkerProcess


class ClusterUnreachable(OSError):
    """No Dask scheduler answers at the address given; the message is one line."""


@contextmanager
def executor(workers: int = 1, dask_address: str | None = None) -> Iterator[Executor]:
    """The executor of a sweep: a Dask cluster's, ``workers`` local processes, or this one.

    On the way out (an interrupt included) tasks not started are cancelled
    and local worker processes are stopped, so that no run goes on after
    the sweep. Local workers ignore SIGINT (:class:`_WorkerProcess`): a
    Ctrl-C is the parent's to answer.

    Raises
    ------
    ClusterUnreachable
        When the Dask scheduler at ``dask_address`` cannot be reached.
    """
    if dask_address is not None:
        from distributed import Client

        try:
            client = Client(dask_address, timeout="10s")
        except (OSError, ValueError) as exc:
            raise ClusterUnreachable(
                f"cannot reach a Dask scheduler at {dask_address!r}: {exc}"
            ) from None
        with client:
            pool = client.get_executor(pure=False)
            try:
                yield pool
            finally:
                pool.shutdown(wait=False)
        return
    if workers <= 1:
        yield InProcess()
        return
    processes = ProcessPoolExecutor(workers, mp_context=_WorkerContext())
    try:
        yield processes
    except BaseException:
        for process in list(getattr(processes, "_processes", {}).values()):
            process.terminate()
        processes.shutdown(wait=False, cancel_futures=True)
        raise
    processes.shutdown()


def run_sweep(
    points: Sequence[Point],
    *,
    seed: int,
    precision: Precision,
    pool: Executor,
    cache: Cache | None = None,
    progress: Callable[[int, int], None] | None = None,
    run: Callable[[Scenario, int], RunSummary] | None = None,
) -> SweepOutcome:
    """Every point of a sweep, replicated to ``precision``, on ``pool``.

    Parameters
    ----------
    points
        The scenarios to run, each at its x.
    seed
        The experiment's seed (:func:`replication_seed`).
    precision
        When a point has replications enough (:func:`wanted`).
    pool
        Where replications run (:func:`executor`).
    cache
        Where replications are kept and found again; ``None``: none.
    progress
        Called as ``progress(done, total)`` each time a point is done.
    run
        What runs one replication (:func:`run_replication`; tests count
        calls with their own), sent to the workers by reference.
    """
    task = run or run_replication
    runs: list[list[RunSummary | None]] = [[] for _ in points]
    seeds: list[list[int]] = [[] for _ in points]
    cached = [0 for _ in points]
    pending: dict[Future[RunSummary], tuple[int, int]] = {}
    counts = {"simulated": 0, "cached": 0, "done": 0}

    def advance(i: int) -> None:
        """Ask for point ``i``'s next replications, or count it done."""
        point = points[i]
        while None not in runs[i]:
            done = [r for r in runs[i] if r is not None]
            target = wanted(done, precision)
            if target == len(done):
                counts["done"] += 1
                if progress is not None:
                    progress(counts["done"], len(points))
                return
            for k in range(len(done), target):
                s = replication_seed(seed, point.x, k)
                key = replication_key(point.scenario, s, k)
                seeds[i].append(s)
                kept = cache.get(key, s) if cache is not None else None
                if kept is not None:
                    counts["cached"] += 1
                    cached[i] += 1
                    runs[i].append(kept)
                else:
                    runs[i].append(None)
                    future = pool.submit(task, point.scenario, s)
                    if cache is not None:
                        future.add_done_callback(partial(_keep, cache, key))
                    pending[future] = (i, k)

    for i in range(len(points)):
        advance(i)
    while pending:
        finished, _ = wait(list(pending), return_when=FIRST_COMPLETED)
        for future in sorted(finished, key=lambda f: pending[f]):
            i, k = pending.pop(future)
            runs[i][k] = future.result()
            counts["simulated"] += 1
            advance(i)
    results = tuple(
        PointResult(point, tuple(r for r in runs[i] if r is not None), tuple(seeds[i]), cached[i])
        for i, point in enumerate(points)
    )
    return SweepOutcome(results, counts["simulated"], counts["cached"])
