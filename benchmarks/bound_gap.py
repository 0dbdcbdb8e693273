"""Where the gap sits on instances small enough to prove: the bound or the schedules.

For each load (seconds between releases on average, ``--spreads``) and
size (``--sizes``), one instance of single-piece requests on 3 drives and 1
arm is drawn from :func:`toolkit.generators.random_instance` (the
generator's LTO-class defaults otherwise: 6 TB tapes, weights ``1 / size in
GB``, weighted flow), as in ``benchmarks/exact.py``. CP-SAT proves its
optimum (``--time-limit`` s); the line gives the optimum, the best lower
bound of :func:`solvers.bounds.bounds.lower_bound` beside the bound before it
(:func:`solvers.bounds.bounds.basic_bound`), the best schedule of the online
heuristics and of the local search, and the ratios bound / optimum and
heuristic / optimum: the side whose ratio is further from 1 is the weak one.

A second table does the same on instances too large to prove: those of
``benchmarks/heuristics.py`` (200 and 2,000 requests on 6 drives and 2
arms, ``--large``) and ``instances/random-300.json``, with the old and the
new bound, their runtime, and the best of ``greedy`` and ``wspt``.

Both tables also give the window bound of :mod:`solvers.bounds.window_bound`
(CP-SAT's bound on runs of requests, each run alone, added up): on the small
instances with two windows of ``n / 2`` requests (``--window-time`` s for
both), on the large ones with windows of ``--window`` requests
(``--window-time`` s for all of them).

Run with ``make bench`` or ``.venv/bin/python benchmarks/bound_gap.py``
(``--sizes 8,10,12``, ``--spreads 120,60,30,15``, ``--large 200,2000``,
``--seed 1``, ``--time-limit 60`` for CP-SAT, ``--window 10``,
``--window-time 60``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from exact import instance_for as exact_instance
from heuristics import instance_for as loaded_instance

from tapesched import solvers
from tapesched.solvers.bounds.bounds import basic_bound, lower_bound
from tapesched.solvers.bounds.window_bound import window_bound
from tapesched.toolkit.files.instance_file import load_instance
from tapesched.toolkit.model import Instance

QUICK = ("greedy", "wspt")
"""The heuristics run on the large instances (seconds on 2,000 requests)."""

RANDOM_300 = Path(__file__).parent.parent / "instances" / "random-300.json"

ONLINE = ("greedy", "fifo", "wspt", "stretch", "tape-batching", "sltf", "backfill")
"""The online heuristics whose best schedule is reported."""


def instance_for(n: int, spread_s: float, seed: int) -> Instance:
    """``n`` single-piece requests on 3 drives and 1 arm, releases ``spread_s`` apart on average.

    The instance of ``benchmarks/exact.py`` for that cell.
    """
    return exact_instance("single", 3, 1, n, seed, spread_s)


def best_objective(instance: Instance, names: tuple[str, ...], limit_s: float, seed: int) -> float:
    """The least objective of ``names`` on ``instance``."""
    values = []
    for name in names:
        result = solvers.solve(instance, solver=name, time_limit_s=limit_s, seed=seed)
        if result.objective is not None:
            values.append(result.objective)
    return min(values)


def large(sizes: list[int], seed: int, window: int, window_s: float) -> None:
    """Print the old, new and window bounds against the best quick heuristic on large instances."""
    cases = [(f"{n} requests", loaded_instance(n, seed)) for n in sizes]
    cases.append(("random-300", load_instance(RANDOM_300)))
    print(
        f"{'instance':>14} {'old bound':>11} {'bound':>11} {'seconds':>7} {'best':>12} "
        f"{'solver':>7} {'best/old':>8} {'best/new':>8} {'windows':>11} {'proved':>7} "
        f"{'best/win':>8}"
    )
    for label, instance in cases:
        began = time.perf_counter()
        old = basic_bound(instance)
        bound = lower_bound(instance)
        seconds = time.perf_counter() - began
        results = [solvers.solve(instance, solver=name, seed=seed) for name in QUICK]
        best = min((r for r in results if r.objective is not None), key=lambda r: r.objective or 0)
        assert best.objective is not None
        win = window_bound(instance, window=window, time_limit_s=window_s, seed=seed)
        print(
            f"{label:>14} {old:>11.1f} {bound:>11.1f} {seconds:>7.2f} {best.objective:>12.1f} "
            f"{best.solver:>7} {best.objective / old:>8.1f} {best.objective / bound:>8.1f} "
            f"{win.bound:>11.1f} {win.proved:>3}/{win.windows:<3} "
            f"{best.objective / win.bound:>8.1f}",
            flush=True,
        )


def main(argv: list[str] | None = None) -> int:
    """Print one line per instance, small then large."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default="8,10,12")
    parser.add_argument("--spreads", default="120,60,30,15")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--large", default="200,2000")
    parser.add_argument("--window", type=int, default=10)
    parser.add_argument("--window-time", type=float, default=60.0)
    args = parser.parse_args(argv)
    print(f"Seed {args.seed}, CP-SAT limit {args.time_limit:g} s")
    print(
        f"{'n':>3} {'spread':>6} {'status':>8} {'optimum':>11} {'old bound':>11} "
        f"{'bound':>11} {'windows':>11} {'online':>11} {'local':>11} {'old/opt':>7} "
        f"{'bnd/opt':>7} {'win/opt':>7} {'onl/opt':>7} {'loc/opt':>7}"
    )
    for spread in (float(x) for x in args.spreads.split(",")):
        for n in (int(x) for x in args.sizes.split(",")):
            instance = instance_for(n, spread, args.seed)
            exact = solvers.solve(
                instance, solver="cpsat", time_limit_s=args.time_limit, seed=args.seed
            )
            optimum = exact.objective
            assert optimum is not None
            old = basic_bound(instance)
            bound = lower_bound(instance)
            win = window_bound(
                instance, window=max(1, n // 2), time_limit_s=args.window_time, seed=args.seed
            ).bound
            online = best_objective(instance, ONLINE, args.time_limit, args.seed)
            local = best_objective(instance, ("local-search",), 10.0, args.seed)
            print(
                f"{n:>3} {spread:>6g} {exact.status.value:>8} {optimum:>11.2f} {old:>11.2f} "
                f"{bound:>11.2f} {win:>11.2f} {online:>11.2f} {local:>11.2f} "
                f"{old / optimum:>7.3f} {bound / optimum:>7.3f} {win / optimum:>7.3f} "
                f"{online / optimum:>7.3f} {local / optimum:>7.3f}",
                flush=True,
            )
    print()
    large([int(x) for x in args.large.split(",")], args.seed, args.window, args.window_time)
    return 0


if __name__ == "__main__":
    sys.exit(main())
