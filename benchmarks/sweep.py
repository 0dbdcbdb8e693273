"""A sweep of 8 points on 2 local worker processes against 1: the speed-up.

The points are ``bw-fig6``'s (small files on the shipped Blue Waters
scenario) for PARALLEL and VERTICAL at 200, 400, 600 and 800 requests an
hour, half a simulated day each, two replications per point (the precision
made unreachable, so that both runs do the same work), no cache. The
worker run includes starting its processes (``spawn``). Printed: the wall
time of each, the speed-up, and whether both gave the same results.csv; the
load average first, since on a shared machine other work takes the cores
the workers would use.

Run with ``make bench`` or ``.venv/bin/python benchmarks/sweep.py``
(``--workers 2 --hours 12``).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from attrs import evolve

from tapesched.simulator.scenario.document import load_scenario
from tapesched.studies.blue_waters.figures import BW_FIG6
from tapesched.studies.results_file import results_csv
from tapesched.studies.sweeps.report import result_rows
from tapesched.studies.sweeps.study import SCENARIO_FILE, points
from tapesched.studies.sweeps.sweep import Precision, executor, run_sweep


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--hours", type=float, default=12.0)
    args = parser.parse_args(argv)
    study = evolve(
        BW_FIG6.study,
        series=("parallel", "vertical"),
        quick_x_values=(200, 400, 600, 800),
        quick_duration_s=args.hours * 3600,
    )
    swept = points(study, load_scenario(SCENARIO_FILE), quick=True)
    precision = Precision(share=1e-9, min_replications=2, max_replications=2)
    print(f"{len(swept)} points of {study.name}, {args.hours:g} h each, 2 replications")
    cores = len(os.sched_getaffinity(0))
    print(f"{cores} cores, load average {os.getloadavg()[0]:.1f} (others' work slows the workers)")
    walls = {}
    texts = set()
    for workers in (1, args.workers):
        began = time.perf_counter()
        with executor(workers) as pool:
            outcome = run_sweep(swept, seed=1, precision=precision, pool=pool)
        walls[workers] = time.perf_counter() - began
        texts.add(results_csv(result_rows(study, outcome.results)))
        print(f"{workers} worker(s): {walls[workers]:6.1f} s")
    speedup = walls[1] / walls[args.workers]
    print(f"speed-up on {args.workers} workers: {speedup:.2f}x")
    print(f"same results.csv: {'yes' if len(texts) == 1 else 'NO'}")
    return 0 if len(texts) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
