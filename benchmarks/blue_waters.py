"""The Blue Waters platform for 1, 2 and 4 simulated weeks: run time should grow linearly.

The shipped scenario ``instances/scenarios/blue-waters.json`` (500 drives, 20
arms, 50 movers of 10 drives, 1 TB tapes, small files of 10 MB-1 GB at 800
requests an hour, VERTICAL, fifo) is run for each duration in one process,
side by side, without recording arm operations (as a sweep would). Printed
per duration: wall-clock seconds, requests done, engine events per second,
and the seconds per simulated week against the 1-week run (1.0 is linear).
The issue's target: 4 weeks in under 2 minutes on the 2-core machine.

Run with ``make bench`` or ``.venv/bin/python benchmarks/blue_waters.py``
(``--weeks 1,2,4 --policy vertical --scheduler fifo``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from simulator.experiment import override, run_once
from simulator.scenario import load_scenario

SCENARIO = Path(__file__).resolve().parents[1] / "instances" / "scenarios" / "blue-waters.json"
WEEK_S = 7 * 86400.0
TARGET_4_WEEKS_S = 120.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weeks", default="1,2,4")
    parser.add_argument("--policy", default=None)
    parser.add_argument("--scheduler", default=None)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    weeks = [float(w) for w in args.weeks.split(",")]
    base = load_scenario(SCENARIO)
    print(
        f"Blue Waters ({len(base.platform.drives)} drives), "
        f"{base.workload.rate_per_s * 3600:g} requests/h of "
        f"{base.workload.min_size_mb:g}-{base.workload.max_size_mb:g} MB files"
    )
    print(f"{'weeks':>5} {'policy':>9} {'wall s':>8} {'requests':>9} {'events/s':>9} {'s/week':>7} "
          f"{'vs 1st':>7}")  # fmt: skip
    first = None
    failed = False
    for w in weeks:
        scenario = override(
            base,
            policy=args.policy,
            scheduler=args.scheduler,
            duration_s=w * WEEK_S,
        )
        began = time.perf_counter()
        run = run_once(scenario, args.seed, record=False)
        wall = time.perf_counter() - began
        per_week = wall / w
        first = first or per_week
        events = run.simulation.engine.events_run
        print(
            f"{w:>5g} {scenario.policy:>9} {wall:>8.1f} {run.summary.completed:>9} "
            f"{events / wall:>9.0f} {per_week:>7.1f} {per_week / first:>7.2f}"
        )
        if w == 4 and wall > TARGET_4_WEEKS_S:
            failed = True
    if failed:
        print(f"4 weeks took more than the {TARGET_4_WEEKS_S:.0f} s target")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
