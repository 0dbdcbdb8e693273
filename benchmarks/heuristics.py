"""The heuristics' gap to the optimum or to the best bound, on 20, 200 and 2,000 requests.

Each size draws one instance from :func:`toolkit.generators.random_instance`
(one library of 6 drives and 2 arms, gangs of up to 2 pieces, Poisson
arrivals that would keep the drives about 70 % busy were every request
served alone with a switch, the generator's LTO-class defaults otherwise)
and runs every online heuristic of the registry, the local search and, up
to :data:`EXACT_UP_TO` requests, CP-SAT, through
:func:`solvers.compare.compare`. The ratio is to CP-SAT's proven optimum
when it has one, else to the best lower bound known (CP-SAT's or
:func:`solvers.bounds.bounds.lower_bound`), marked ``<=``: then it is an upper
bound on the true ratio.

Run with ``make bench`` or ``.venv/bin/python benchmarks/heuristics.py``
(``--sizes 20,200,2000``, ``--time-limit 60`` for CP-SAT and the local search).
"""

from __future__ import annotations

import argparse
import sys

from tapesched.solvers.compare import compare
from tapesched.solvers.registry import names
from tapesched.toolkit.generators import RandomParams, random_instance
from tapesched.toolkit.model import Instance

HEURISTICS = (
    "greedy",
    "fifo",
    "wspt",
    "stretch",
    "tape-batching",
    "sltf",
    "backfill",
    "fifo-dismount-at-once",
    "local-search",
)
"""The heuristics compared (every registered one but the exact solvers)."""

EXACT_UP_TO = 200
"""Largest size on which CP-SAT runs (for an optimum, or a bound)."""

LOAD = 0.7
"""Target share of drive time in use: sets the arrival rate."""


def drive_seconds(instance: Instance) -> float:
    """Mean drive-seconds a request of ``instance`` takes, served alone with a tape switch.

    Per piece: unload, dismount, mount and load, the locate from 0 to its
    offset and its transfer, with the library's and drives' mean timings.
    """
    drives = instance.drives
    n = len(drives)
    library = instance.libraries[0]
    switch = library.mount_s + library.dismount_s + sum(d.load_s + d.unload_s for d in drives) / n
    locate = sum(d.locate_mb_s for d in drives) / n
    rate = sum(d.rate_mb_s for d in drives) / n
    total = 0.0
    for request in instance.requests:
        for piece in request.pieces:
            total += switch + piece.offset_mb / locate + piece.size_mb / rate
    return total / max(1, len(instance.requests))


def instance_for(n: int, seed: int) -> Instance:
    """``n`` requests arriving so that 6 drives are about :data:`LOAD` busy.

    A first draw measures the mean drive-seconds of a request
    (:func:`drive_seconds`: locates over 6 TB tapes dominate), which sets
    the Poisson rate of the second draw.
    """

    def draw(rate: float) -> Instance:
        params = RandomParams(
            n_requests=n,
            n_libraries=1,
            drives_per_library=(6, 6),
            arms=(2, 2),
            max_gang=2,
            tapes_per_library=max(10, n // 4),
            arrival_rate_per_s=rate,
        )
        return random_instance(params, seed)

    return draw(LOAD * 6 / drive_seconds(draw(1.0)))


def main(argv: list[str] | None = None) -> int:
    """Print one table per size."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default="20,200,2000")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    assert set(HEURISTICS) <= set(names())
    for n in (int(x) for x in args.sizes.split(",")):
        instance = instance_for(n, args.seed)
        chosen = [*HEURISTICS, "cpsat"] if n <= EXACT_UP_TO else list(HEURISTICS)
        rows = compare(
            [(f"{n} requests", instance)], chosen, time_limit_s=args.time_limit, seed=args.seed
        )
        reference = rows[0]
        what = "optimum" if reference.yardstick == "optimum" else "best bound"
        print(f"{n} requests, seed {args.seed}: {what} {reference.reference:.3f}")
        print(f"{'solver':>22} {'status':>8} {'seconds':>8} {'objective':>14} {'ratio':>9}")
        for row in rows:
            mark = "<=" if row.yardstick == "bound" else ""
            ratio = f"{mark}{row.ratio:.3f}" if row.ratio is not None else "-"
            objective = f"{row.objective:.3f}" if row.objective is not None else "-"
            print(
                f"{row.solver:>22} {row.status:>8} {row.runtime_s:>8.2f} {objective:>14} "
                f"{ratio:>9}",
                flush=True,
            )
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
