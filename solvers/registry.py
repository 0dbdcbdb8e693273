"""Solvers, online schedulers and recall orderers by name: declared once, here, imported when used.

Three registries (:class:`toolkit.registry.Registry`):

- :data:`SOLVERS`: every solver, a callable ``(instance, *, time_limit_s,
  seed) -> Result``, by the name ``solve(instance, solver=name)`` takes.
- :data:`SCHEDULERS`: every online heuristic as a scheduler for a
  dispatcher or the simulator (a class or factory making a fresh
  :class:`solvers.online.Scheduler`), by the same name; installed packages
  add theirs through the entry points of :data:`ENTRY_POINT_GROUP`
  (:mod:`solvers.plugins` resolves what users give).
- :data:`ORDERERS`: the recall orderers, each a
  :class:`~solvers.recall_order.Orderer` (the order to read a mounted tape's
  files, ``tapesched order --algorithm``); installed packages add theirs
  through the entry points of :data:`ORDERER_GROUP`, and
  :func:`resolve_orderer` also takes ``module.path:Attr``.

An online heuristic is declared once, by :func:`_online`: its name and
description enter both registries, as the scheduler and as the solver that
dispatches it, so that ``fifo`` is one declaration and both a solver and a
scheduler. The solver modules themselves register nothing. The functions
below (:func:`declare`, :func:`register`, :func:`get`, :func:`names`,
:func:`describe`) are the solver registry's interface as it has always been.
(The mount policies' registries are beside their specs,
:mod:`solvers.online.mount_policy`.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from tapesched.solvers.result import Result
from tapesched.toolkit.model import Instance
from tapesched.toolkit.registry import LoadError, Registry, UnknownNameError

if TYPE_CHECKING:  # OR-Tools, numpy and SciPy are imported only when an orderer is used
    from tapesched.solvers.recall_order import Orderer


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


class UnknownSolverError(UnknownNameError):
    """No solver is registered or declared under the name asked for (a ``KeyError``)."""


class SchedulerSpecError(LoadError):
    """A scheduler spec that gives no scheduler; the message is one line saying why."""


class UnknownSchedulerError(SchedulerSpecError, UnknownNameError):
    """A name that is neither a registered heuristic nor a declared entry point.

    A ``KeyError`` too, as an unknown name has always been.
    """


ENTRY_POINT_GROUP = "tapesched.schedulers"
"""Entry-point group in which packages declare their schedulers (``name = module:Attr``)."""

SOLVERS: Registry[Solver] = Registry("solver", unknown=UnknownSolverError, quoted=True)
"""Every solver by name; an online heuristic's entry has the metadata ``online=True``."""

SCHEDULERS: Registry[Callable[[], Any]] = Registry(
    "scheduler",
    group=ENTRY_POINT_GROUP,
    unknown=UnknownSchedulerError,
    failure=SchedulerSpecError,
    reserved=SOLVERS,
    hint="; or give module.path:Attr",
)
"""Every online heuristic by name, as a class or factory of :class:`solvers.online.Scheduler`
(typed loosely, as this module stands below :mod:`solvers.online`); entry points of
:data:`ENTRY_POINT_GROUP` add more, except under a solver's name."""


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

    Raises
    ------
    toolkit.registry.DuplicateNameError
        (a ``ValueError``) when a solver has that name already.
    """
    SOLVERS.declare(name, f"{module}:{attribute}", description)


def register(name: str, description: str) -> Callable[[Solver], Solver]:
    """Decorator entering the decorated function, at hand, as the solver ``name``.

    For solvers made at run time (the built-in ones are declared here). A
    name that is taken already is refused
    (:class:`toolkit.registry.DuplicateNameError`, a ``ValueError``), so
    that two solvers cannot silently shadow each other.
    """

    def decorate(solver: Solver) -> Solver:
        return SOLVERS.add(name, solver, description)

    return decorate


def get(name: str) -> Solver:
    """The solver registered or declared as ``name``, importing its module if needed.

    Raises
    ------
    UnknownSolverError
        (a ``KeyError``) when no solver has that name; the message lists the
        known names.
    """
    return SOLVERS[name]


def names() -> tuple[str, ...]:
    """Names of every known solver, sorted."""
    return tuple(sorted(SOLVERS))


def describe(name: str) -> str:
    """One-line description of the solver ``name`` (without importing it)."""
    return SOLVERS.describe(name)


def _online(name: str, scheduler: str, solver: str, description: str) -> None:
    """Declare the online heuristic ``name`` once: its scheduler and the solver dispatching it.

    Every online heuristic places requests on :class:`solvers.timeline.timeline.Timeline`,
    which times a serpentine locate by the drive's model (metadata ``serpentine``).
    """
    SCHEDULERS.declare(name, scheduler, description)
    SOLVERS.declare(name, solver, description, online=True, serpentine=True)


# The online heuristics, in the order ties between them go (solvers.warm_start).
_online(
    "fifo",
    "tapesched.solvers.online.heuristics:Fifo",
    "tapesched.solvers.online.heuristics:fifo",
    "online dispatcher: oldest request first, onto idle drives",
)
_online(
    "wspt",
    "tapesched.solvers.online.heuristics:Wspt",
    "tapesched.solvers.online.heuristics:wspt",
    "online dispatcher: largest weight over expected service first",
)
_online(
    "stretch",
    "tapesched.solvers.online.heuristics:Stretch",
    "tapesched.solvers.online.heuristics:stretch",
    "online dispatcher: largest current stretch first (highest response ratio)",
)
_online(
    "tape-batching",
    "tapesched.solvers.online.heuristics:TapeBatching",
    "tapesched.solvers.online.heuristics:tape_batching",
    "online dispatcher: loaded tapes' requests first, in offset order",
)
_online(
    "sltf",
    "tapesched.solvers.online.heuristics:Sltf",
    "tapesched.solvers.online.heuristics:sltf",
    "online dispatcher: loaded tapes' requests first, shortest locate first",
)
_online(
    "backfill",
    "tapesched.solvers.online.heuristics:Backfill",
    "tapesched.solvers.online.heuristics:backfill",
    "online dispatcher: fifo, smaller requests pass a waiting gang without delaying it",
)
_online(
    "fifo-dismount-at-once",
    "tapesched.solvers.online.heuristics:fifo_dismounting",
    "tapesched.solvers.online.heuristics:fifo_dismount_at_once",
    "online dispatcher: fifo, unneeded tapes dismounted at once",
)
_online(
    "greedy",
    "tapesched.solvers.online.heuristics:ReleaseOrder",
    "tapesched.solvers.greedy:greedy",
    "online list scheduler: requests in release order, each piece to the drive completing it first",
)

SOLVERS.declare(
    "local-search",
    "tapesched.solvers.local_search:local_search",
    "offline local search from the best online heuristic: request order and drives, list-decoded",
    serpentine=True,
)
SOLVERS.declare(
    "cpsat",
    "tapesched.solvers.cpsat:cpsat",
    "exact CP-SAT model (OR-Tools): drive circuits, arm and tape intervals, best-heuristic hint",
    serpentine=True,
)
SOLVERS.declare(
    "lns",
    "tapesched.solvers.lns:lns",
    "large-neighbourhood search from the best heuristic: neighbourhoods re-optimised by CP-SAT",
    serpentine=True,
)
SOLVERS.declare(
    "milp-cbc",
    "tapesched.solvers.milp:milp_cbc",
    "exact MILP (disjunctive, big-M) solved by CBC, warm-started from the best heuristic",
    serpentine=True,
)
SOLVERS.declare(
    "milp-highs",
    "tapesched.solvers.milp:milp_highs",
    "exact MILP (disjunctive, big-M) solved by HiGHS, warm-started from the best heuristic",
    serpentine=True,
)


class OrdererSpecError(LoadError):
    """A recall orderer spec that gives no orderer; the message is one line saying why."""


class UnknownOrdererError(OrdererSpecError, UnknownNameError):
    """A name that is neither a declared orderer nor an installed package's (a ``KeyError``)."""


ORDERER_GROUP = "tapesched.recall_orderers"
"""Entry-point group in which packages declare their recall orderers (``name = module:Attr``)."""

ORDERERS: Registry[Orderer] = Registry(
    "recall orderer",
    group=ORDERER_GROUP,
    unknown=UnknownOrdererError,
    failure=OrdererSpecError,
    hint="; or give module.path:Attr",
)
"""The recall orderers by name (``tapesched order --algorithm``), each a function (or any
callable) of :class:`~solvers.recall_order.Orderer`'s signature; entry points of
:data:`ORDERER_GROUP` add more."""

ORDERERS.declare(
    "none",
    "tapesched.solvers.recall_order:request_order",
    "the request order, as the files were given (BNL's noschedule)",
)
ORDERERS.declare(
    "offset",
    "tapesched.solvers.recall_order:offset_order",
    "block order, as BNL's ERADAT submits a tape's requests",
)
ORDERERS.declare(
    "sltf",
    "tapesched.solvers.recall_order:sltf_order",
    "shortest locate time first from the head (CTA's SLTFRAOAlgorithm)",
)
ORDERERS.declare(
    "exact",
    "tapesched.solvers.recall_order:exact_order",
    "the cheapest order, a travelling-salesman path from the head, within the time limit",
)


def resolve_orderer(spec: object) -> Orderer:
    """The recall orderer a spec names: a name of :data:`ORDERERS` (an installed package's
    too), ``module.path:Attr``, or the orderer itself.

    Raises
    ------
    OrdererSpecError
        (a ``ValueError``) with a one-line message: an unknown name (listing
        the known ones), a module that cannot be imported, a missing
        attribute, or something that cannot be called.
    """
    found = ORDERERS.resolve(spec)
    if not callable(found.value):
        raise OrdererSpecError(
            f"{found.name}: a {type(found.value).__name__} is not a recall orderer "
            "(a function of tape, model, head_block, files)"
        )
    orderer: Orderer = found.value
    return orderer
