"""The full stripe-width search against equi-striping on the paper's medium classes: time, answer.

Golubchik et al.'s Ampex library with its medium classes (2/4/6 GB), at
0.05, 0.2 and 0.4 requests a minute: the full search (``K ** J`` = 64
vectors, those a bound rules out skipped) and equi-striping alone (4
vectors), each replicated to ±5 % or 3 replications, 4-day runs, on 2
workers. Printed per rate: each method's wall time, vectors run and
replications, its best vector, and the ratio of the two times; then the
peak memory of this process. The load average is printed first: others'
work on a shared machine slows the workers.

Run with ``make bench`` or ``.venv/bin/python benchmarks/stripe_search.py``
(``--workers 2 --days 4``).
"""

from __future__ import annotations

import argparse
import os
import resource
import time

from attrs import evolve

from tapesched.simulator.results.replications import override
from tapesched.simulator.scenario.document import load_scenario
from tapesched.simulator.workload.workload import with_class_sizes
from tapesched.studies.golubchik.figures import SCENARIO_FILE
from tapesched.studies.golubchik.stripe_search import (
    METRIC,
    SweepEvaluate,
    library_times,
    mix_of,
    select,
)
from tapesched.studies.sweeps.sweep import Precision, executor

RATES_PER_MIN = (0.05, 0.2, 0.4)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--days", type=float, default=4.0)
    args = parser.parse_args(argv)
    scenario = load_scenario(SCENARIO_FILE)
    medium = with_class_sizes(scenario.workload, (2000.0, 4000.0, 6000.0))
    scenario = override(evolve(scenario, workload=medium), duration_s=args.days * 86400)
    times, mix = library_times(scenario), mix_of(scenario)
    precision = Precision(share=0.05, min_replications=2, max_replications=3, metric=METRIC)
    cores = len(os.sched_getaffinity(0))
    print(f"medium classes 2/4/6 GB, {args.days:g}-day runs, {args.workers} workers")
    print(f"{cores} cores, load average {os.getloadavg()[0]:.1f}")
    heads = ("rate/min", "method", "time s", "run", "reps", "best", "mean s")
    print(" ".join(f"{h:>8}" for h in heads))
    with executor(args.workers) as pool:
        for rate_min in RATES_PER_MIN:
            walls = {}
            for method, equi_only in (("full", False), ("equi", True)):
                evaluate = SweepEvaluate(
                    scenario, rate_min / 60, pool=pool, precision=precision, seed=1
                )
                began = time.perf_counter()
                got = select(times, mix, rate_min / 60, evaluate, batch=2 * args.workers,
                             equi_only=equi_only)  # fmt: skip
                walls[method] = time.perf_counter() - began
                best = got.best
                mean = (
                    "sat."
                    if best is None or best.measured is None
                    else (f"{best.measured.mean_s:.1f}")
                )
                cells = (f"{rate_min:g}", method, f"{walls[method]:.1f}", got.evaluated,
                         evaluate.replications, best.label if best else "-", mean)  # fmt: skip
                print(" ".join(f"{c:>8}" for c in cells))
            print(f"{rate_min:8g}  full / equi time: {walls['full'] / walls['equi']:.1f}x")
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory of this process: {peak_mb:.0f} MB (the workers' not counted)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
