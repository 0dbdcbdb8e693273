"""The simulator's event engine against SimPy, on the same reference library, side by side.

The reference library (the queueing model of Golubchik et al., section 3):
requests arrive in a Poisson stream; each takes a drive (FIFO), then an arm
to mount its tape (loads before unloads, FIFO within each), transfers for
an exponential time, then an arm to unload, and frees the drive. The model
is written twice: with :mod:`simulator.kernel.engine` and :mod:`simulator.kernel.resource`
(callbacks on a heap) and with SimPy 4 (a generator per request, a
``PriorityResource`` for the arms). Both draw the same arrival and transfer
times from one seeded stream before the run, so they simulate the same
sample path, each in its own idiom (the next arrival scheduled by the one
before; a SimPy source process starting a process per request): the script
checks that the mean response times agree, then prints requests per second
of wall-clock for each and their ratio (the issue's target: at least 5x
SimPy), each the best of ``--repeat`` runs, alternated.

Then the Ampex scenario (``instances/scenarios/ampex.json``: the same library of
Golubchik et al., one arm, 4 drives, 1 GB reads, tapes put away at once) runs through the
whole simulator, its workload, archival policy, scheduler and platform, for about as many
requests, and its requests per second are printed beside SimPy's bare model (issue 28's
target: at least as many), each the best of ``--repeat`` runs.

Run with ``make bench`` or ``.venv/bin/python benchmarks/engine.py``
(``--requests 50000``).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

import simpy

from tapesched.simulator.kernel.engine import Engine
from tapesched.simulator.kernel.resource import Resource
from tapesched.simulator.results.replications import override, run_once
from tapesched.simulator.scenario.document import load_scenario

AMPEX = Path(__file__).resolve().parents[1] / "instances" / "scenarios" / "ampex.json"

DRIVES = 8
ARMS = 4
MOUNT_S = 20.0
UNLOAD_S = 20.0
MEAN_TRANSFER_S = 80.0
LOAD = 0.8
"""Share of drive time in use on average (mount, transfer and unload)."""

LOAD_PRIORITY, UNLOAD_PRIORITY = 0, 1


def sample_path(n: int, seed: int) -> tuple[list[float], list[float]]:
    """Arrival times and transfer times of ``n`` requests, from one seeded stream."""
    rng = random.Random(seed)
    service = MOUNT_S + MEAN_TRANSFER_S + UNLOAD_S
    rate = LOAD * DRIVES / service
    arrivals, transfers = [], []
    t = 0.0
    for _ in range(n):
        t += rng.expovariate(rate)
        arrivals.append(t)
        transfers.append(rng.expovariate(1.0 / MEAN_TRANSFER_S))
    return arrivals, transfers


def run_engine(arrivals: list[float], transfers: list[float]) -> tuple[float, int]:
    """The model on :mod:`simulator.kernel.engine`; mean response time and events run."""
    engine = Engine()
    drives = Resource(engine, DRIVES)
    arms = Resource(engine, ARMS, priorities=2)
    total = [0.0]

    n = len(arrivals)

    def arrive(i: int) -> None:
        if i + 1 < n:
            engine.at(arrivals[i + 1], arrive, i + 1)
        drives.request(0, got_drive, i)

    def got_drive(i: int) -> None:
        arms.request(LOAD_PRIORITY, got_arm_to_mount, i)

    def got_arm_to_mount(i: int) -> None:
        engine.after(MOUNT_S, mounted, i)

    def mounted(i: int) -> None:
        arms.release()
        engine.after(transfers[i], transferred, i)

    def transferred(i: int) -> None:
        arms.request(UNLOAD_PRIORITY, got_arm_to_unload, i)

    def got_arm_to_unload(i: int) -> None:
        engine.after(UNLOAD_S, unloaded, i)

    def unloaded(i: int) -> None:
        arms.release()
        drives.release()
        total[0] += engine.now_s - arrivals[i]

    engine.at(arrivals[0], arrive, 0)
    engine.run()
    return total[0] / len(arrivals), engine.events_run


def run_simpy(arrivals: list[float], transfers: list[float]) -> float:
    """The same model on SimPy; mean response time."""
    env = simpy.Environment()
    drives = simpy.Resource(env, DRIVES)
    arms = simpy.PriorityResource(env, ARMS)
    total = [0.0]

    def source() -> Generator[Any, Any, None]:
        for i, t in enumerate(arrivals):
            yield env.timeout(t - env.now)
            env.process(request(i))

    def request(i: int) -> Generator[Any, Any, None]:
        with drives.request() as drive:
            yield drive
            with arms.request(priority=LOAD_PRIORITY) as arm:
                yield arm
                yield env.timeout(MOUNT_S)
            yield env.timeout(transfers[i])
            with arms.request(priority=UNLOAD_PRIORITY) as arm:
                yield arm
                yield env.timeout(UNLOAD_S)
        total[0] += env.now - arrivals[i]

    env.process(source())
    env.run()
    return total[0] / len(arrivals)


def run_ampex(requests: int, seed: int) -> tuple[float, int]:
    """The Ampex scenario through the whole simulator for about ``requests`` requests: wall
    seconds and requests done."""
    scenario = load_scenario(str(AMPEX))
    scenario = override(scenario, duration_s=requests / scenario.workload.rate_per_s)
    began = time.perf_counter()
    done = run_once(scenario, seed, record=False).summary.completed
    return time.perf_counter() - began, done


def main(argv: list[str] | None = None) -> int:
    """Run both models on one sample path; print the mean responses and the speed ratio."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--requests", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    arrivals, transfers = sample_path(args.requests, args.seed)
    best = {"engine": float("inf"), "simpy": float("inf"), "ampex": float("inf")}
    ampex_done = 0
    for _ in range(args.repeat):
        began = time.perf_counter()
        ours, events = run_engine(arrivals, transfers)
        best["engine"] = min(best["engine"], time.perf_counter() - began)
        began = time.perf_counter()
        theirs = run_simpy(arrivals, transfers)
        best["simpy"] = min(best["simpy"], time.perf_counter() - began)
        wall, ampex_done = run_ampex(args.requests, args.seed)
        best["ampex"] = min(best["ampex"], wall)
    print(
        f"Reference library: {DRIVES} drives, {ARMS} arms, load {LOAD:.0%}, "
        f"{args.requests} requests, seed {args.seed}, best of {args.repeat}"
    )
    print(f"mean response: engine {ours:.6f} s, SimPy {theirs:.6f} s")
    if abs(ours - theirs) > 1e-6 * max(1.0, theirs):
        print("the two models disagree: not the same sample path", file=sys.stderr)
        return 1
    for name in ("engine", "simpy"):
        rate = args.requests / best[name]
        print(f"{name:>7}: {best[name]:7.3f} s, {rate:10.0f} requests/s")
    print(f" engine: {events} events, {events / best['engine']:10.0f} events/s")
    print(f"  ratio: {best['simpy'] / best['engine']:.2f}x SimPy's speed (target 5x)")
    simpy_rate = args.requests / best["simpy"]
    ampex_rate = ampex_done / best["ampex"]
    print(
        f"  ampex: {best['ampex']:7.3f} s, {ampex_rate:10.0f} requests/s "
        f"({ampex_done} requests through the whole simulator: instances/scenarios/ampex.json)"
    )
    verdict = "met" if ampex_rate >= simpy_rate else "not met"
    print(f"  ratio: {ampex_rate / simpy_rate:.2f}x SimPy's bare model (target 1x): {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
