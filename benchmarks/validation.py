"""Validation speed: load and verify greedy schedules of 1,000 to 100,000 requests on 500 drives.

Prints, for each size, the seconds to load the instance, load the schedule and
validate, the requests per second, and the growth of the total time against
the smallest size side by side with the growth of n, n log n and n^2, so that
the scaling can be read off one run. The target: 100,000 requests load and
verify in under 5 s on the 2-core reference machine.

Run with ``make bench`` (or ``.venv/bin/python benchmarks/validation.py``).
"""

from __future__ import annotations

import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tapesched import solvers
from tapesched.toolkit.files.instance_file import load_instance, save_instance
from tapesched.toolkit.files.schedule_file import load_schedule, save_schedule
from tapesched.toolkit.generators import RandomParams, random_instance
from tapesched.toolkit.validator import validate

SIZES = (1_000, 10_000, 100_000)
TARGET_S = 5.0


def platform(n_requests: int) -> RandomParams:
    """A Blue Waters sized library: 500 drives, 20 arms, Poisson arrivals that keep it busy."""
    return RandomParams(
        n_requests=n_requests,
        n_libraries=1,
        drives_per_library=(500, 500),
        arms=(20, 20),
        tapes_per_library=5000,
        max_gang=1,
        size_mb=(100.0, 20_000.0),
        initial_fraction=0.5,
        arrival_rate_per_s=0.5,
        homogeneous_drives=True,
    )


def best_of(runs: int, func) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    best, value = math.inf, None
    for _ in range(runs):
        t0 = time.perf_counter()
        value = func()
        best = min(best, time.perf_counter() - t0)
    return best, value


def main() -> int:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for n in SIZES:
            instance = random_instance(platform(n), seed=n)
            t0 = time.perf_counter()
            result = solvers.solve(instance, solver="greedy")
            greedy_s = time.perf_counter() - t0
            assert result.schedule is not None
            ipath, spath = folder / f"i{n}.json", folder / f"s{n}.json"
            save_instance(instance, ipath)
            save_schedule(result.schedule, spath)
            runs = 3 if n < 100_000 else 2
            load_i, inst = best_of(runs, lambda p=ipath: load_instance(p))
            load_s, sched = best_of(runs, lambda p=spath: load_schedule(p))
            check_s, report = best_of(runs, lambda i=inst, s=sched: validate(i, s))
            assert report.feasible, report.violations[:3]
            t0 = time.perf_counter()
            done = subprocess.run(
                [str(Path(sys.executable).parent / "tapesched"), "verify", str(ipath), str(spath)],
                capture_output=True,
                text=True,
                check=False,
            )
            cli_s = time.perf_counter() - t0
            assert done.returncode == 0, done.stderr
            rows.append(
                (n, len(result.schedule.operations), greedy_s, load_i, load_s, check_s, cli_s)
            )

    print("Validation speed (500 drives, 20 arms; best of repeated runs, seconds)")
    print(
        f"{'requests':>9} {'arm ops':>8} {'greedy':>8} {'load inst':>9} {'load sched':>10} "
        f"{'validate':>8} {'total':>7} {'req/s':>9} {'CLI verify':>10}"
    )
    for n, ops, greedy_s, li, ls, cs, cli in rows:
        total = li + ls + cs
        print(
            f"{n:>9,} {ops:>8,} {greedy_s:>8.2f} {li:>9.3f} {ls:>10.3f} {cs:>8.3f} {total:>7.3f} "
            f"{n / total:>9,.0f} {cli:>10.2f}"
        )
    print()
    print("Growth of load + validate time against the smallest size, beside the growth of")
    print("n, n log n and n^2 (validation is n log n when 'measured' tracks 'n log n'):")
    n0, *_ = rows[0]
    t0 = sum(rows[0][3:6])
    print(f"{'requests':>9} {'measured':>9} {'n':>9} {'n log n':>9} {'n^2':>11}")
    for n, *rest in rows:
        total = sum(rest[2:5])
        print(
            f"{n:>9,} {total / t0:>9.1f} {n / n0:>9.1f} "
            f"{(n * math.log(n)) / (n0 * math.log(n0)):>9.1f} {(n / n0) ** 2:>11.0f}"
        )
    largest = rows[-1]
    cli = largest[6]
    verdict = "meets" if cli < TARGET_S else "MISSES"
    print()
    print(
        f"{largest[0]:,} requests: `tapesched verify` end to end {cli:.2f} s, {verdict} the "
        f"{TARGET_S:.0f} s target ({cli / TARGET_S:.2f} of it)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
