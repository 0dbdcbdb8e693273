"""Solvers by name, imported only when first asked for.

A solver is any callable ``(instance, *, time_limit_s, seed) -> Result``. Two
ways to enter one:

- :func:`register` decorates the solver function in its own module; the entry
  exists once that module is imported.
- :func:`declare` names a solver by module path and attribute without
  importing it, so that a backend with a heavy dependency (OR-Tools, a MILP
  library) costs nothing, and need not even be installed, until :func:`get`
  is asked for it. The built-in solvers are declared here.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Protocol

from attrs import frozen

from solvers.result import Result
from toolkit.model import Instance


class Solver(Protocol):
    """Signature every registered solver has.

    ``time_limit_s`` bounds the wall-clock time (``None``: no limit; a solver
    that always finishes fast may ignore it) and ``seed`` fixes every random
    choice, so that a run is reproducible.
    """

    def __call__(self, instance: Instance, *, time_limit_s: float | None, seed: int) -> Result:
        """Solve ``instance``."""
        ...


class ParallelSolver(Protocol):
    """A solver that also takes its number of parallel workers (CP-SAT's threads)."""

    def __call__(
        self, instance: Instance, *, time_limit_s: float | None, seed: int, workers: int
    ) -> Result:
        """Solve ``instance`` with ``workers`` workers."""
        ...


class UnknownSolverError(KeyError):
    """No solver is registered or declared under the name asked for."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


@frozen
class Entry:
    """One registry entry: where to find a solver and what it does.

    ``solver`` is ``None`` until ``module`` has been imported and has
    registered the function named ``attribute``.
    """

    name: str
    description: str
    module: str
    attribute: str
    solver: Solver | None = None


_entries: dict[str, Entry] = {}


def declare(name: str, module: str, attribute: str, description: str) -> None:
    """Name a solver living in ``module`` as ``attribute`` without importing it.

    Parameters
    ----------
    name
        Name users pass to :func:`get` (and to ``solve(..., solver=name)``).
    module
        Dotted path of the module that defines the solver.
    attribute
        Name of the solver function in that module.
    description
        One line shown in listings.
    """
    known = _entries.get(name)
    if known is not None and (known.module, known.attribute) != (module, attribute):
        raise ValueError(f"solver {name!r} is already declared as {known.module}.{known.attribute}")
    if known is None:
        _entries[name] = Entry(name, description, module, attribute)


def register(name: str, description: str) -> Callable[[Solver], Solver]:
    """Decorator entering the decorated function as the solver ``name``.

    Registering a name that was declared for the same function fills in the
    declared entry; registering a name twice for different functions is an
    error, so that two solvers cannot silently shadow each other.
    """

    def decorate(solver: Solver) -> Solver:
        module = getattr(solver, "__module__", "")
        attribute = getattr(solver, "__name__", "")
        known = _entries.get(name)
        if known is not None and known.solver is not None and known.solver is not solver:
            raise ValueError(f"solver {name!r} is already registered")
        if (
            known is not None
            and known.solver is None
            and ((known.module, known.attribute) != (module, attribute))
        ):
            raise ValueError(f"solver {name!r} is declared as {known.module}.{known.attribute}")
        _entries[name] = Entry(name, description, module, attribute, solver)
        return solver

    return decorate


def get(name: str) -> Solver:
    """The solver registered or declared as ``name``, importing its module if needed.

    Raises
    ------
    UnknownSolverError
        (a ``KeyError``) when no solver has that name; the message lists the
        known names.
    """
    entry = _entries.get(name)
    if entry is None:
        known = ", ".join(repr(n) for n in names()) or "none"
        raise UnknownSolverError(f"unknown solver {name!r}; known solvers: {known}")
    if entry.solver is not None:
        return entry.solver
    module = importlib.import_module(entry.module)
    loaded = _entries[name]
    if loaded.solver is not None:
        return loaded.solver
    solver: Solver = getattr(module, entry.attribute)
    _entries[name] = Entry(name, entry.description, entry.module, entry.attribute, solver)
    return solver


def names() -> tuple[str, ...]:
    """Names of every known solver, sorted."""
    return tuple(sorted(_entries))


def describe(name: str) -> str:
    """One-line description of the solver ``name`` (without importing it)."""
    entry = _entries.get(name)
    if entry is None:
        raise UnknownSolverError(f"unknown solver {name!r}")
    return entry.description


declare(
    "greedy",
    "solvers.greedy",
    "greedy",
    "online list scheduler: requests in release order, each piece to the drive completing it first",
)

for _name, _attribute, _description in (
    ("fifo", "fifo", "online dispatcher: oldest request first, onto idle drives"),
    ("wspt", "wspt", "online dispatcher: largest weight over expected service first"),
    (
        "stretch",
        "stretch",
        "online dispatcher: largest current stretch first (highest response ratio)",
    ),
    (
        "tape-batching",
        "tape_batching",
        "online dispatcher: loaded tapes' requests first, in offset order",
    ),
    ("sltf", "sltf", "online dispatcher: loaded tapes' requests first, shortest locate first"),
    (
        "backfill",
        "backfill",
        "online dispatcher: fifo, smaller requests pass a waiting gang without delaying it",
    ),
    (
        "fifo-dismount-at-once",
        "fifo_dismount_at_once",
        "online dispatcher: fifo, unneeded tapes dismounted at once",
    ),
):
    declare(_name, "solvers.online.policies", _attribute, _description)

declare(
    "local-search",
    "solvers.local_search",
    "local_search",
    "offline local search from greedy: request order and drives, decoded by list scheduling",
)

declare(
    "cpsat",
    "solvers.cpsat",
    "cpsat",
    "exact CP-SAT model (OR-Tools): drive circuits, arm and tape intervals, best-heuristic hint",
)
declare(
    "milp-cbc",
    "solvers.milp",
    "milp_cbc",
    "exact MILP (disjunctive, big-M) solved by CBC, warm-started from the best heuristic",
)
declare(
    "milp-highs",
    "solvers.milp",
    "milp_highs",
    "exact MILP (disjunctive, big-M) solved by HiGHS, warm-started from the best heuristic",
)
