"""Solvers of the core problem, behind one entry point.

``solve(instance)`` runs a solver chosen by name; :func:`names` lists the
names. Solver modules are imported only when their solver is first used, so
importing this package stays light whatever backends exist.
"""

from __future__ import annotations

import inspect
from typing import cast

from solvers.registry import ParallelSolver, get, names
from solvers.result import Result, Status
from toolkit.model import Instance

__all__ = ["Result", "Status", "names", "solve", "takes_workers"]


def takes_workers(solver: str) -> bool:
    """Whether the solver named ``solver`` runs parallel workers (a ``workers`` keyword)."""
    return "workers" in inspect.signature(get(solver)).parameters


def solve(
    instance: Instance,
    solver: str = "greedy",
    time_limit_s: float | None = None,
    seed: int = 0,
    workers: int | None = None,
) -> Result:
    """Solve ``instance`` with the solver named ``solver``.

    Parameters
    ----------
    instance
        A well-formed instance (see ``toolkit.instance_checks``).
    solver
        Registered name of the solver, one of :func:`names`.
    time_limit_s
        Wall-clock limit in seconds, ``None`` for none.
    seed
        Seed of every random choice the solver makes.
    workers
        Parallel workers of a solver that has them (:func:`takes_workers`);
        ``None`` for its default.

    Raises
    ------
    KeyError
        When ``solver`` is not a known name; the message lists the known ones.
    ValueError
        When ``workers`` is given to a solver without workers.
    """
    run = get(solver)
    if workers is None:
        return run(instance, time_limit_s=time_limit_s, seed=seed)
    if not takes_workers(solver):
        raise ValueError(f"solver {solver!r} runs on one thread and takes no workers")
    parallel = cast(ParallelSolver, run)
    return parallel(instance, time_limit_s=time_limit_s, seed=seed, workers=workers)
