"""Sweeps: the points of an experiment run in parallel, cached, replicated to a precision.

A sweep runs scenarios (its *points*, :class:`Point`) as
independent replications (:func:`run_replication`: one seeded run to the
horizon, its :class:`~simulator.results.RunSummary`), on any
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
    :func:`simulator.results.combine`). How many more is projected from the
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
    (:func:`toolkit.outputs.write_file`), so that an interrupt leaves none
    half written.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import statistics
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from functools import partial
from multiprocessing.context import SpawnContext, SpawnProcess
from pathlib import Path
from signal import SIGINT
from typing import Any

from attrs import evolve, frozen

from simulator.experiment import run_once
from simulator.results import Estimate, RunSummary, combine, t95
from simulator.scenario import Scenario
from toolkit.outputs import write_file
from toolkit.signals import signals_blocked

PRIMARY_METRIC = "mean_weighted_response_s_per_gb"
"""The paper's objective (Section 3.2): what the figures plot and the precision is judged on."""

NORMAL_95 = 1.959963984540054
"""The two-sided 95 % quantile of the normal law, to project the replications a point needs."""


def _digest_of_sources() -> str:
    """A hash of every module of the packages a replication runs (simulator, solvers, toolkit)."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for package in ("simulator", "solvers", "toolkit"):
        for path in sorted((root / package).rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode())
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
        The metric judged (a :class:`~simulator.results.RunSummary` field).
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
    """A point and its replications' summaries, in replication order."""

    point: Point
    runs: tuple[RunSummary, ...]
    seeds: tuple[int, ...]

    @property
    def saturated(self) -> bool:
        """Whether any replication could not keep up (:func:`simulator.results.is_saturated`)."""
        return any(r.saturated for r in self.runs)

    @property
    def estimates(self) -> dict[str, Estimate]:
        """Each metric over the replications (:func:`simulator.results.combine`)."""
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
    """One replication of ``scenario`` with ``seed``, no records kept: its summary."""
    return run_once(scenario, seed, record=False).summary


class Cache:
    """Replication summaries on disk, one JSON file per key (see the module's docstring)."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)

    def _path(self, key: str) -> Path:
        return self.directory / f"{key}.json"

    def get(self, key: str) -> RunSummary | None:
        """The summary kept under ``key``, or ``None`` (a file that cannot be read is none)."""
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
            return RunSummary(**data)
        except (OSError, ValueError, TypeError):
            return None

    def put(self, key: str, summary: RunSummary) -> None:
        """Keep ``summary`` under ``key``."""
        write_file(self._path(key), json.dumps(summary.to_dict(), sort_keys=True))


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
                kept = cache.get(key) if cache is not None else None
                if kept is not None:
                    counts["cached"] += 1
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
        PointResult(point, tuple(r for r in runs[i] if r is not None), tuple(seeds[i]))
        for i, point in enumerate(points)
    )
    return SweepOutcome(results, counts["simulated"], counts["cached"])
