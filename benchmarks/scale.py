"""Long horizons: does a run's time grow linearly and its memory stay flat?

Two families of runs, each row in a process of its own so that its peak
resident memory (``ru_maxrss`` of the child) is its own:

- the ECMWF sample (``instances/traces/ecmwf/``, 10,000 requests) repeated
  end to end 10, 100 and 1,000 times (100,000 to 10,000,000 requests;
  :class:`simulator.replay.trace.RepeatedTrace`), replayed on its 170 drives
  as :mod:`benchmarks.replay` does;
- the Blue Waters scenario under PARALLEL at 600 requests/h for 1, 4 and 52
  simulated weeks, scheduler ``bw-main``, as :mod:`benchmarks.blue_waters` runs it.

Printed per row: requests, wall seconds, requests per second, the peak
memory, and against the family's first row the time per request and the
memory (1.00: linear time, flat memory). Issue 28's targets: time within
20 % per request from row to row, memory within 20 % from the first row to
the last, and 10,000,000 replayed requests in at most 4 minutes under 1 GB;
the verdicts are printed, not enforced. The load average is printed first:
other jobs on the machine slow every row.

Run with ``make bench`` or ``.venv/bin/python benchmarks/scale.py``
(``--copies 10,100,1000 --weeks 1,4,52``; ``--family replay`` or
``--family blue-waters`` for one of them).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TRACE = ROOT / "instances" / "traces" / "ecmwf"
SCENARIO = ROOT / "instances" / "scenarios" / "blue-waters.json"
WEEK_S = 7 * 86400.0
PARALLEL_PER_H = 600.0
"""The rate of :mod:`benchmarks.blue_waters` for PARALLEL: just under what it sustains."""
LINEAR = 1.2
"""Most the time per request, or the memory, may grow against the family's first row."""
TEN_MILLION_S, TEN_MILLION_MB = 240.0, 1000.0
"""Issue 28's bounds on the 10,000,000-request replay."""


def replay_row(copies: int) -> dict[str, float]:
    """The sample repeated ``copies`` times, replayed (in this process)."""
    from tapesched.simulator.replay.replay import replay
    from tapesched.simulator.replay.trace import (
        place_cartridges,
        read_homes,
        read_layout,
        read_requests,
        repeat_trace,
    )

    sample = read_requests(TRACE / "io_events_sample_10k.csv.bz2")
    layout = read_layout(TRACE / "sl8500_from_snap20111001.json.bz2")
    mapped = read_homes(TRACE / "crtmapping.json", layout)
    homes = place_cartridges((r.cartridge for r in sample), layout, mapped).levels
    trace = repeat_trace(sample, copies)
    began = time.perf_counter()
    result = replay(trace, layout, 170, homes=homes)
    wall = time.perf_counter() - began
    return {"requests": result.requests, "wall_s": wall, "mounts": result.mounts}


def blue_waters_row(weeks: float) -> dict[str, float]:
    """Blue Waters PARALLEL for ``weeks`` simulated weeks (in this process)."""
    from tapesched.simulator.results.replications import override, run_once
    from tapesched.simulator.scenario.document import load_scenario

    scenario = override(
        load_scenario(str(SCENARIO)),
        policy="parallel",
        scheduler="bw-main",
        rate_per_s=PARALLEL_PER_H / 3600,
        duration_s=weeks * WEEK_S,
    )
    began = time.perf_counter()
    run = run_once(scenario, 1, record=False)
    wall = time.perf_counter() - began
    return {"requests": run.summary.completed, "wall_s": wall, "mounts": run.summary.mounts}


def child(family: str, size: float) -> int:
    """Run one row and print it as JSON, with this process's peak memory."""
    row = replay_row(int(size)) if family == "replay" else blue_waters_row(size)
    row["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(row))
    return 0


def run_family(family: str, sizes: list[float], unit: str) -> None:
    """Each size in a process of its own, one row a size."""
    print(f"\n{family}")
    print(f"{unit:>8} {'requests':>11} {'wall s':>8} {'requests/s':>11} {'peak MB':>8} "
          f"{'s/request vs 1st':>17} {'memory vs 1st':>14}")  # fmt: skip
    first: dict[str, float] | None = None
    rows = []
    for size in sizes:
        out = subprocess.run(
            [sys.executable, __file__, "--child", family, str(size)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        row = json.loads(out.strip().splitlines()[-1])
        per_request = row["wall_s"] / row["requests"]
        if first is None:
            first = {"per_request": per_request, "peak_mb": row["peak_mb"]}
        print(
            f"{size:>8g} {row['requests']:>11,d} {row['wall_s']:>8.1f} "
            f"{row['requests'] / row['wall_s']:>11,.0f} {row['peak_mb']:>8.0f} "
            f"{per_request / first['per_request']:>17.2f} "
            f"{row['peak_mb'] / first['peak_mb']:>14.2f}",
            flush=True,
        )
        rows.append((per_request, row))
    assert first is not None
    times = [p for p, _ in rows]
    steps = all(b <= LINEAR * a for a, b in itertools.pairwise(times))
    flat = rows[-1][1]["peak_mb"] <= LINEAR * first["peak_mb"]
    verdict = {True: "met", False: "not met"}
    print(f"time linear (each step within {LINEAR:g}x per request): {verdict[steps]}")
    print(f"memory flat (last within {LINEAR:g}x of first): {verdict[flat]}")
    last = rows[-1][1]
    if family == "replay" and last["requests"] >= 10_000_000:
        within = last["wall_s"] <= TEN_MILLION_S and last["peak_mb"] <= TEN_MILLION_MB
        print(
            f"10,000,000 requests in at most {TEN_MILLION_S:g} s under {TEN_MILLION_MB:g} MB: "
            f"{'met' if within else 'not met'}"
        )


def main(argv: list[str] | None = None) -> int:
    """Print both families' tables; exit 0 (the targets are reported, not enforced)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", default="10,100,1000")
    parser.add_argument("--weeks", default="1,4,52")
    parser.add_argument("--family", choices=("replay", "blue-waters"))
    parser.add_argument("--child", nargs=2, metavar=("FAMILY", "SIZE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args.child[0], float(args.child[1]))
    print(f"load average {os.getloadavg()[0]:.2f} (2-core machine, shared)")
    if args.family in (None, "replay"):
        run_family("replay", [float(c) for c in args.copies.split(",")], "copies")
    if args.family in (None, "blue-waters"):
        run_family("blue-waters", [float(w) for w in args.weeks.split(",")], "weeks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
