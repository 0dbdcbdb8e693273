"""Solvers of the core problem, behind one entry point.

``solve(instance)`` runs a solver chosen by name; :func:`names` lists the
names. Solver modules are imported only when their solver is first used, so
importing this package stays light whatever backends exist.
"""

from __future__ import annotations

from solvers.registry import get, names
from solvers.result import Result, Status
from toolkit.model import Instance

__all__ = ["Result", "Status", "names", "solve"]


def solve(
    instance: Instance,
    solver: str = "greedy",
    time_limit_s: float | None = None,
    seed: int = 0,
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

    Raises
    ------
    KeyError
        When ``solver`` is not a known name; the message lists the known ones.
    """
    return get(solver)(instance, time_limit_s=time_limit_s, seed=seed)
