"""The ECMWF trace replayed through the one simulator: 10,000 and 250,000 requests.

The sample (``instances/traces/ecmwf/``: 10,000 cartridge requests of
2011, the SL8500 layout of the same site and its cartridge map) runs on 170
drives, one handbot a rail, keeping cartridges mounted (``tape-batching`` under
``lru``: :func:`simulator.replay.replay.replay`'s defaults); then the sample
repeated 25 times end to end, each copy shifted by the sample's span
(:func:`simulator.replay.trace.repeat_trace`), 250,000 requests. For each it
prints the wall-clock time of the replay alone (the files read before),
requests per second, the CPU seconds of the replay (``time.process_time``:
less sensitive than the wall clock to other jobs on the machine), the
process's peak resident memory so far
(``ru_maxrss``: the 250,000-request row includes the first), and what the
run did (mounts, hits, mean mount latency). The issue's target: the
250,000 requests in under 15 s on the 2-core machine. The load average is
printed first: other jobs on the machine slow every row.

Run with ``make bench`` or ``.venv/bin/python benchmarks/replay.py``
(``--drives 170``, ``--copies 25``).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

from tapesched.simulator.replay.replay import replay
from tapesched.simulator.replay.trace import (
    place_cartridges,
    read_homes,
    read_layout,
    read_requests,
    repeat_trace,
)

TRACE = Path(__file__).resolve().parent.parent / "instances" / "traces" / "ecmwf"
TARGET_S = 15.0
"""The issue's bound on the 250,000-request replay."""


def peak_rss_mb() -> float:
    """The process's peak resident memory so far, in MB (Linux reports KB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    """Print one row per trace length; exit 0 (the target is reported, not enforced)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--drives", type=int, default=170)
    parser.add_argument("--copies", type=int, default=25)
    args = parser.parse_args(argv)
    sample = read_requests(TRACE / "io_events_sample_10k.csv.bz2")
    layout = read_layout(TRACE / "sl8500_from_snap20111001.json.bz2")
    mapped = read_homes(TRACE / "crtmapping.json", layout)
    homes = place_cartridges((r.cartridge for r in sample), layout, mapped).levels
    print(f"load average {os.getloadavg()[0]:.2f} (2-core machine, shared)")
    print(
        f"{'requests':>9} {'wall s':>7} {'cpu s':>7} {'requests/s':>11} {'peak MB':>8} "
        f"{'mounts':>7} {'hits':>7} {'mount latency s':>16}"
    )
    for copies in (1, args.copies):
        trace = repeat_trace(sample, copies)
        start, cpu_start = time.perf_counter(), time.process_time()
        result = replay(trace, layout, args.drives, homes=homes)
        wall = time.perf_counter() - start
        cpu = time.process_time() - cpu_start
        stats = result.summary()["latency_over_mounts_s"]
        latency = "saturated" if stats is None else f"{stats['mean']:.1f}"
        print(
            f"{len(trace):>9,d} {wall:>7.2f} {cpu:>7.2f} {len(trace) / wall:>11,.0f} "
            f"{peak_rss_mb():>8.0f} {result.mounts:>7,d} {result.hits:>7,d} {latency:>16}"
        )
        if copies == args.copies:
            verdict = "met" if wall < TARGET_S else "not met"
            print(f"target: {len(trace):,d} requests under {TARGET_S:g} s: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
