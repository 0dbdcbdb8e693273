"""Set-up time of each exact backend against the model's size (``solvers/exact/model_size.py``).

For each size ``n`` (``--sizes``), one random instance (one library of 4
drives, gangs of up to 2, tapes as many as requests, releases 60 s apart on
average; seed ``--seed``) is built by each backend without a warm start,
and its solver run under a 0.01 s limit: the seconds from the start of the
build to the solver's return are the least any run of that model can take
before it searches. A line gives :func:`solvers.exact.model_size.arc_count`, the
measured seconds, and what :data:`~solvers.exact.model_size.CBC_SETUP`,
:data:`~solvers.exact.model_size.HIGHS_SETUP` and
:data:`~solvers.exact.model_size.CPSAT_SETUP` predict. Wall-clock, so it grows
with whatever else loads the machine.

Run with ``.venv/bin/python benchmarks/build_rate.py --sizes 10,30,60``
(CBC takes minutes beyond 60 requests; ``--backends`` picks among
``cbc,highs,cpsat``).
"""

from __future__ import annotations

import argparse
import sys
import time

from ortools.sat.python import cp_model

from tapesched.solvers.cpsat import build_model as build_cpsat
from tapesched.solvers.exact.model_size import (
    CBC_SETUP,
    CPSAT_SETUP,
    HIGHS_SETUP,
    SetupCost,
    arc_count,
)
from tapesched.solvers.milp import build_model as build_milp
from tapesched.solvers.milp.backends import run_cbc, run_highs
from tapesched.toolkit.generators import RandomParams, random_instance
from tapesched.toolkit.model import Instance

SHORT_S = 0.01
"""The solver's time limit: the run ends as soon as the solver looks at the clock."""


def instance_for(n: int, seed: int) -> Instance:
    """The instance of size ``n``."""
    params = RandomParams(
        n_requests=n,
        n_libraries=1,
        drives_per_library=(4, 4),
        max_gang=2,
        tapes_per_library=max(4, n),
        release_horizon_s=60.0 * n,
    )
    return random_instance(params, seed)


def setup_s(backend: str, instance: Instance) -> float:
    """Seconds to build ``instance``'s model for ``backend`` and run it for :data:`SHORT_S`."""
    began = time.perf_counter()
    if backend == "cpsat":
        model = build_cpsat(instance).model
        solver = cp_model.CpSolver()
        solver.parameters.max_time_in_seconds = SHORT_S
        solver.parameters.num_workers = 2
        solver.solve(model)
    else:
        problem = build_milp(instance).problem
        run = run_cbc if backend == "cbc" else run_highs
        run(problem, time_limit_s=SHORT_S, seed=0, warm_start=False)
    return time.perf_counter() - began


def main(argv: list[str] | None = None) -> int:
    """Print one line per size and backend: arcs, measured and predicted seconds."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default="10,30,60")
    parser.add_argument("--backends", default="cbc,highs,cpsat")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    costs: dict[str, SetupCost] = {"cbc": CBC_SETUP, "highs": HIGHS_SETUP, "cpsat": CPSAT_SETUP}
    header = f"{'n':>4} {'arcs':>9} {'backend':>7}"
    print(f"{header} {'measured s':>10} {'predicted s':>11} {'arcs/s':>8}")
    for n in (int(x) for x in args.sizes.split(",")):
        instance = instance_for(n, args.seed)
        arcs = arc_count(instance)
        for backend in args.backends.split(","):
            seconds = setup_s(backend, instance)
            predicted = costs[backend].seconds(arcs)
            print(
                f"{n:>4} {arcs:>9} {backend:>7} {seconds:>10.2f} {predicted:>11.2f} "
                f"{arcs / seconds:>8.0f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
