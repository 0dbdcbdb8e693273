"""The offline yardstick at realistic sizes: each solver's objective against the best bound.

Three instances: the generated ones of ``benchmarks/heuristics.py`` with 200
and 2,000 requests (6 drives, 2 arms, gangs of up to 2, about 70 % load;
:func:`heuristics.instance_for`) and ``instances/random-300.json``. On each,
``greedy``, ``wspt``, ``local-search``, ``lns`` and ``cpsat`` run for the
same time limit (60 s by default, one after another: on the 2-core
reference machine ``lns`` and ``cpsat`` use both cores), through
:func:`solvers.compare.compare`, which judges every schedule with the
validator. The table gives the best bound known (the largest of the
solvers' bounds, :func:`solvers.bounds.bounds.lower_bound` and the window bound of
:mod:`solvers.bounds.window_bound` given the same time limit, windows of 10
requests; or the optimum when a solver proved one) and each solver's
objective with its ratio to it, an upper bound on its true ratio to the
optimum (marked ``<=``). The last column is the best offline schedule's
ratio, against the issue's targets (1.5 on 200 requests, 3 on 2,000).

Run with ``make bench`` or ``.venv/bin/python benchmarks/yardstick.py``
(``--time-limit 60``, ``--seed 1``; ``--quick`` for 10 s per solver while
developing, or the environment variable ``TAPESCHED_BENCH_QUICK=1``). The
figures depend on the machine's load: on a shared machine, say so beside
them.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from attrs import evolve
from heuristics import instance_for

from tapesched.solvers.bounds.window_bound import window_bound
from tapesched.solvers.compare import compare
from tapesched.toolkit.files.instance_file import load_instance
from tapesched.toolkit.model import Instance

SOLVERS = ("greedy", "wspt", "local-search", "lns", "cpsat")
"""The solvers of the table, in its column order."""

OFFLINE = ("local-search", "lns", "cpsat")
"""The offline improvers whose best schedule the last column measures."""

QUICK_S = 10.0
"""Seconds per solver with ``--quick``."""

ROOT = Path(__file__).resolve().parent.parent


def instances(seed: int) -> list[tuple[str, Instance]]:
    """The three instances of the table, labelled."""
    return [
        (f"generated-200 (seed {seed})", instance_for(200, seed)),
        (f"generated-2000 (seed {seed})", instance_for(2000, seed)),
        ("random-300.json", load_instance(ROOT / "instances" / "random-300.json")),
    ]


def main(argv: list[str] | None = None) -> int:
    """Print the table, one row per instance (Markdown, as docs/benchmarks.md shows it)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_S:g} s per solver")
    args = parser.parse_args(argv)
    quick = args.quick or os.environ.get("TAPESCHED_BENCH_QUICK") == "1"
    limit = QUICK_S if quick else args.time_limit
    print(f"yardstick: {limit:g} s per solver, seed {args.seed}")
    header = ["instance", "best bound"]
    header += [f"{name} (ratio)" for name in SOLVERS] + ["best offline ratio"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for label, instance in instances(args.seed):
        rows = compare([(label, instance)], SOLVERS, time_limit_s=limit, seed=args.seed)
        by_solver = {row.solver: row for row in rows}
        reference = rows[0].reference
        mark = "" if rows[0].yardstick == "optimum" else "<="
        if mark and reference is not None:
            windows = window_bound(instance, time_limit_s=limit, seed=args.seed).bound
            if windows > reference:
                rows = [
                    evolve(
                        row,
                        reference=windows,
                        ratio=None if row.objective is None else row.objective / windows,
                    )
                    for row in rows
                ]
                by_solver = {row.solver: row for row in rows}
                reference = windows
        cells = [label, "-" if reference is None else f"{reference:,.1f}"]
        for name in SOLVERS:
            row = by_solver[name]
            if row.objective is None or row.ratio is None:
                cells.append(f"- ({row.status})")
                continue
            status = "" if row.status in ("feasible", "optimal") else f", {row.status}"
            cells.append(f"{row.objective:,.1f} ({mark}{row.ratio:.2f}{status})")
        offline = [by_solver[n].ratio for n in OFFLINE if by_solver[n].ratio is not None]
        cells.append(f"{mark}{min(offline):.2f}" if offline else "-")  # type: ignore[type-var]
        print("| " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
