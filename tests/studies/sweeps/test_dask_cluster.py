"""A real Dask cluster: ``dask scheduler`` and two ``dask worker`` processes, as a site starts
them, one of them killed part-way through an experiment (issue 28, part 4).

The workers run without a nanny, so that a SIGKILL is the loss of a worker for good, not a
restart: the tasks it held are rerun on the other one, and ``results.csv`` is the local run's
byte for byte.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from attrs import evolve, frozen
from click.testing import CliRunner

from tapesched.cli import main
from tapesched.studies.registry import ENTRY_POINT_GROUP
from tapesched.studies.sweeps.swept_study import SweptStudy
from tests.conftest import INSTANCES, ROOT, dist_info
from tests.studies.sweeps.test_sweep import TINY

pytestmark = [pytest.mark.paper, pytest.mark.pool]  # 10 s of processes: make test-papers

AMPEX = str(INSTANCES / "scenarios" / "ampex.json")

SMALL_EXPERIMENT = SweptStudy(
    evolve(TINY, name="small", quick_x_values=(30.0, 60.0), quick_duration_s=1800.0)
)
"""Two policies at two rates for half an hour, two replications each (``--max-replications 2``):
eight tasks of a fraction of a second, enough for a worker to hold some when it is killed."""

START_TIMEOUT_S = 60.0
"""How long the scheduler and its workers may take to come up on a loaded machine."""


@frozen
class Cluster:
    """A scheduler's address and its workers' processes, by the name each was started with."""

    address: str
    workers: dict[str, subprocess.Popen[bytes]]


def _start(module: str, *args: str, log: Path) -> subprocess.Popen[bytes]:
    """``python -m distributed.cli.MODULE ARGS`` in a session of its own (its group is killed
    whole), logging to ``log``."""
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", f"distributed.cli.{module}", *args],
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=ROOT,
            start_new_session=True,
        )


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    process.wait(timeout=30)


def _wait_for(condition: Callable[[], bool], what: str, logs: list[Path]) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while not condition():
        if time.monotonic() > deadline:
            shown = "\n".join(f"--- {p.name}\n{p.read_text()[-2000:]}" for p in logs)
            raise AssertionError(f"{what} not up in {START_TIMEOUT_S:.0f} s\n{shown}")
        time.sleep(0.1)


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    """``dask scheduler`` on a free port and two ``dask worker`` (one thread each, no nanny),
    every one stopped (its process group killed) when the test ends, whatever happened."""
    from distributed import Client

    scheduler_file = tmp_path / "scheduler.json"
    logs = [tmp_path / "scheduler.log"]
    processes = []
    try:
        processes.append(
            _start(
                "dask_scheduler",
                *("--host", "127.0.0.1", "--port", "0", "--no-dashboard"),
                *("--scheduler-file", str(scheduler_file)),
                log=logs[0],
            )
        )
        _wait_for(scheduler_file.exists, "the scheduler", logs)
        _wait_for(lambda: scheduler_file.stat().st_size > 0, "the scheduler file", logs)
        workers = {}
        for name in ("w0", "w1"):
            logs.append(tmp_path / f"{name}.log")
            workers[name] = _start(
                "dask_worker",
                *("--scheduler-file", str(scheduler_file), "--name", name),
                *("--nthreads", "1", "--nworkers", "1", "--no-nanny", "--no-dashboard"),
                log=logs[-1],
            )
            processes.append(workers[name])
        address = json.loads(scheduler_file.read_text())["address"]
        with Client(address, timeout="30s") as client:
            client.wait_for_workers(2, timeout=START_TIMEOUT_S)
        yield Cluster(address, workers)
    finally:
        for process in reversed(processes):
            _stop(process)


@pytest.fixture
def small(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, ...]:
    """:data:`SMALL_EXPERIMENT`, installed as ``small`` (an entry point): its command line."""
    site = tmp_path / "site"
    target = "tests.studies.sweeps.test_dask_cluster:SMALL_EXPERIMENT"
    dist_info(site, "small-experiment", ENTRY_POINT_GROUP, {"small": target})
    monkeypatch.syspath_prepend(str(site))
    return ("experiment", "small", "--scenario", AMPEX, "--quick", "--max-replications", "2")


def _entries(cache: Path) -> list[Path]:
    """The cache's entries (not the hidden temporary files of an entry being written)."""
    return list(cache.glob("*.json")) if cache.is_dir() else []


def test_a_worker_killed_part_way_leaves_results_csv_byte_for_byte(cluster, small, tmp_path):
    from distributed import Client

    local = CliRunner().invoke(main, [*small, "--workers", "1", "--out", str(tmp_path / "local")])
    assert local.exit_code == 0, local.output

    cache = tmp_path / "dask.cache"
    killed: dict[str, object] = {}
    failed: list[BaseException] = []
    finished = threading.Event()

    def kill_a_busy_worker() -> None:
        """Once the first replication is in the cache, SIGKILL a worker that holds tasks."""
        try:
            watch()
        except BaseException as exc:
            failed.append(exc)

    def watch() -> None:
        with Client(cluster.address, timeout="30s") as watcher:
            while not finished.is_set():
                kept = len(_entries(cache))
                busy = {a: t for a, t in watcher.processing().items() if t} if kept else {}
                if busy:
                    names = {a: w["name"] for a, w in watcher.scheduler_info()["workers"].items()}
                    address, tasks = sorted(busy.items())[0]
                    name = names[address]
                    os.killpg(cluster.workers[name].pid, signal.SIGKILL)
                    killed.update(name=name, tasks=len(tasks), kept=kept)
                    return
                time.sleep(0.02)

    watcher = threading.Thread(target=kill_a_busy_worker)
    watcher.start()
    try:
        dask = ["--dask", cluster.address, "--out", str(tmp_path / "dask"), "--cache", str(cache)]
        result = CliRunner().invoke(main, [*small, *dask])
    finally:
        finished.set()
        watcher.join(timeout=60)
    assert result.exit_code == 0, result.output
    assert not failed, failed

    # The kill came part-way: after a first replication, with tasks on the worker, before the end.
    assert killed, "no worker was busy once the first replication was kept"
    assert killed["tasks"] >= 1 and 1 <= killed["kept"] < len(_entries(cache))
    assert cluster.workers[str(killed["name"])].wait(timeout=30) == -signal.SIGKILL
    with Client(cluster.address, timeout="30s") as client:
        left = [w["name"] for w in client.scheduler_info()["workers"].values()]
    assert left == [n for n in cluster.workers if n != killed["name"]]

    written = (tmp_path / "dask" / "results.csv").read_bytes()
    assert written == (tmp_path / "local" / "results.csv").read_bytes()
