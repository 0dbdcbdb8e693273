"""Where each exact formulation stops proving: CP-SAT, MILP-CBC and MILP-HiGHS side by side.

For each configuration (one library, ``drives`` drives, ``arms`` arms,
single-piece requests or gangs of up to 3 pieces) and each size ``n`` of
:data:`SIZES`, one instance is drawn from
:func:`toolkit.generators.random_instance` (the generator's LTO-class
defaults otherwise: 6 TB tapes, about half the drives holding a tape at time
0, weights ``1 / size in GB``, weighted flow) with releases spread over
``--release-per-request`` seconds per request, so that the drives stay busy
as ``n`` grows. Every solver runs with the time limit; a line gives its
status, the seconds to the proven optimum (or the limit), the objective, the
bound and the gap ``(objective - bound) / objective``. Once a solver fails
to prove a size of a configuration, it is not run on the larger ones
(``-`` in the table): the table then shows where each formulation stops.

The targets: issue 3's, CP-SAT proving 12 single-piece requests on 3
drives with 1 arm in under 60 s on the 2-core reference machine; issue
13's (:data:`TARGETS`), 20 single-piece requests and 12 requests with gangs
of up to 3 pieces, same library, within 60 s on at least 4 of 5 seeds.
``--target-seeds`` runs the targets named by ``--targets`` on several
seeds. Times are wall-clock and grow with whatever else loads the machine
(the reference machine is shared: note its load with each measurement).

Run with ``make bench`` or ``.venv/bin/python benchmarks/exact.py``
(``--time-limit 60``, ``--sizes 4,6,8,10,12,14,16,20``, ``--quick`` for a
short smoke run). One formulation, one configuration, only the targets::

    .venv/bin/python benchmarks/exact.py --solvers cpsat \
        --configurations single:3:1,gang:3:1 --sizes 10,12,14,16,20 --targets none
    .venv/bin/python benchmarks/exact.py --solvers cpsat --no-table --targets single,gang
"""

from __future__ import annotations

import argparse
import sys
import time

from tapesched import solvers
from tapesched.toolkit.generators import RandomParams, random_instance
from tapesched.toolkit.model import Instance

EXACT = ("cpsat", "milp-cbc", "milp-highs")
"""The exact solvers compared."""

SIZES = (4, 6, 8, 10, 12, 14, 16, 20)
"""Requests per instance, smallest first."""

CONFIGURATIONS = (
    ("single", 3, 1),
    ("single", 3, 3),
    ("gang", 3, 1),
    ("gang", 3, 3),
    ("single", 6, 1),
)
"""``(pieces, drives, arms)`` of each configuration."""

TARGETS = {
    "single": ("single", 3, 1, 20),
    "gang": ("gang", 3, 1, 12),
}
"""The targets of issue 13 by name: 20 single-piece requests, or 12 with gangs of
up to 3 pieces, on 3 drives with 1 arm (issue 3's was 12 single-piece ones)."""


def instance_for(
    pieces: str, drives: int, arms: int, n: int, seed: int, spread_s: float
) -> Instance:
    """The instance of one cell of the table."""
    params = RandomParams(
        n_requests=n,
        n_libraries=1,
        drives_per_library=(drives, drives),
        arms=(arms, arms),
        max_gang=1 if pieces == "single" else 3,
        tapes_per_library=max(4, n),
        release_horizon_s=spread_s * n,
    )
    return random_instance(params, seed)


def _line(label: str, solver: str, result: solvers.Result | None, seconds: float) -> str:
    if result is None:
        return f"{label} {solver:>10} {'-':>8}"
    objective = result.objective if result.objective is not None else float("nan")
    bound = result.bound if result.bound is not None else float("nan")
    gap = (objective - bound) / objective if objective else 0.0
    return (
        f"{label} {solver:>10} {result.status.value:>8} {seconds:>8.2f} "
        f"{objective:>12.3f} {bound:>12.3f} {gap:>7.2%}"
    )


def run(
    solver: str, instance: Instance, time_limit_s: float, seed: int
) -> tuple[solvers.Result, float]:
    """One exact solver on one instance; its result and wall-clock seconds."""
    began = time.perf_counter()
    result = solvers.solve(instance, solver=solver, time_limit_s=time_limit_s, seed=seed)
    return result, time.perf_counter() - began


def scaling(
    sizes: list[int],
    time_limit_s: float,
    seed: int,
    spread_s: float,
    exact: tuple[str, ...] = EXACT,
    configurations: tuple[tuple[str, int, int], ...] = CONFIGURATIONS,
) -> None:
    """Print the scaling table of the solvers ``exact`` on ``configurations``."""
    print(
        f"Exact solvers, limit {time_limit_s:g} s each, seed {seed}, "
        f"releases over {spread_s:g} s per request"
    )
    header = f"{'pieces':>6} {'drives':>6} {'arms':>4} {'n':>3}"
    print(
        f"{header} {'solver':>10} {'status':>8} {'seconds':>8} {'objective':>12} "
        f"{'bound':>12} {'gap':>7}"
    )
    for pieces, drives, arms in configurations:
        stopped: set[str] = set()
        for n in sizes:
            instance = instance_for(pieces, drives, arms, n, seed, spread_s)
            label = f"{pieces:>6} {drives:>6} {arms:>4} {n:>3}"
            for solver in exact:
                if solver in stopped:
                    print(_line(label, solver, None, 0.0))
                    continue
                result, seconds = run(solver, instance, time_limit_s, seed)
                print(_line(label, solver, result, seconds), flush=True)
                if result.status is not solvers.Status.OPTIMAL:
                    stopped.add(solver)
        print()


def target(
    seeds: list[int],
    time_limit_s: float,
    spread_s: float,
    goal: tuple[str, int, int, int] = TARGETS["single"],
) -> None:
    """Print CP-SAT on the target ``goal`` for each seed, and how many it proved in time."""
    pieces, drives, arms, n = goal
    print(f"Target: CP-SAT on {n} {pieces} requests, {drives} drives, {arms} arms")
    proven = 0
    for seed in seeds:
        instance = instance_for(pieces, drives, arms, n, seed, spread_s)
        result, seconds = run("cpsat", instance, time_limit_s, seed)
        proven += result.status is solvers.Status.OPTIMAL and seconds < time_limit_s
        print(_line(f"seed {seed:>3}", "cpsat", result, seconds), flush=True)
    print(f"proven optimal within {time_limit_s:g} s: {proven} of {len(seeds)} seeds")


def _ints(text: str) -> list[int]:
    """``"1-5"`` or ``"4,6,8"`` as a list of integers."""
    if "-" in text:
        first, last = text.split("-", 1)
        return list(range(int(first), int(last) + 1))
    return [int(x) for x in text.split(",")]


def main(argv: list[str] | None = None) -> int:
    """Print the scaling table, then the target runs."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--target-seeds", default="1-5")
    parser.add_argument("--release-per-request", type=float, default=60.0)
    parser.add_argument(
        "--solvers",
        default=",".join(EXACT),
        help=f"comma-separated exact solvers of the table, of {', '.join(EXACT)}",
    )
    parser.add_argument(
        "--configurations",
        default="all",
        help="comma-separated pieces:drives:arms of the table (single:3:1,gang:3:1) or all",
    )
    parser.add_argument(
        "--targets",
        default=",".join(TARGETS),
        help=f"comma-separated CP-SAT targets run on --target-seeds, of {', '.join(TARGETS)}; "
        "none (or cpsat not among --solvers) for no target run",
    )
    parser.add_argument("--no-table", action="store_true", help="only the target runs")
    parser.add_argument("--quick", action="store_true", help="sizes 4,6 and a 10 s limit")
    args = parser.parse_args(argv)
    exact = tuple(s for s in args.solvers.split(",") if s)
    unknown = [s for s in exact if s not in EXACT]
    if unknown:
        parser.error(f"--solvers: unknown {', '.join(unknown)}; choose from {', '.join(EXACT)}")
    configurations = CONFIGURATIONS
    if args.configurations != "all":
        try:
            configurations = tuple(
                (p, int(d), int(a))
                for p, d, a in (c.split(":") for c in args.configurations.split(","))
            )
        except ValueError:
            parser.error("--configurations: expected pieces:drives:arms,...")
    goals = [] if args.targets == "none" or "cpsat" not in exact else args.targets.split(",")
    if any(g not in TARGETS for g in goals):
        parser.error(f"--targets: choose from {', '.join(TARGETS)} or none")
    sizes = [4, 6] if args.quick else _ints(args.sizes)
    limit = 10.0 if args.quick else args.time_limit
    if not args.no_table:
        scaling(sizes, limit, args.seed, args.release_per_request, exact, configurations)
    for goal in goals:
        target(
            _ints("1" if args.quick else args.target_seeds),
            limit,
            args.release_per_request,
            TARGETS[goal],
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
