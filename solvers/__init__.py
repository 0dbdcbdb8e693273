"""Solvers of the core problem, behind one entry point.

``solve(instance)`` runs a solver chosen by name; :func:`names` lists the
names. An online scheduler of one's own is a solver too (``solver`` given
as ``module.path:Attr``, an entry point's name or the object itself; see
:mod:`solvers.plugins`). Solver modules are imported only when their solver
is first used, so importing this package stays light whatever backends
exist.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from tapesched.solvers.registry import ParallelSolver, Solver, names
from tapesched.solvers.result import Progress, Result, Status
from tapesched.toolkit.model import Instance

if TYPE_CHECKING:
    from tapesched.solvers.online.mount_protocol import MountPolicy
    from tapesched.solvers.plugins import SchedulerSpec

__all__ = [
    "Progress",
    "Result",
    "Status",
    "names",
    "solve",
    "takes_gap",
    "takes_iterations",
    "takes_prefetch",
    "takes_workers",
]


def _found(solver: SchedulerSpec) -> tuple[str, Solver]:
    from tapesched.solvers.plugins import find_solver

    return find_solver(solver)


def takes_workers(solver: SchedulerSpec) -> bool:
    """Whether the solver ``solver`` names runs parallel workers (a ``workers`` keyword)."""
    return "workers" in inspect.signature(_found(solver)[1]).parameters


def takes_iterations(solver: SchedulerSpec) -> bool:
    """Whether the solver ``solver`` names takes an iteration budget (an ``iterations`` keyword)."""
    return "iterations" in inspect.signature(_found(solver)[1]).parameters


def takes_gap(solver: SchedulerSpec) -> bool:
    """Whether ``solver`` stops at a relative optimality gap (a ``gap`` keyword): the exact
    solvers, ``local-search`` and ``lns``."""
    return "gap" in inspect.signature(_found(solver)[1]).parameters


def takes_prefetch(solver: SchedulerSpec) -> bool:
    """Whether ``solver`` can solve without prefetch: an exact solver, or an online one.

    The exact solvers take a ``prefetch`` keyword; an online heuristic or
    scheduler decides only at or after a request's release, so it never
    prefetches; ``local-search`` may and cannot be told not to.
    """
    from tapesched.solvers.registry import SOLVERS

    name, run = _found(solver)
    if "prefetch" in inspect.signature(run).parameters:
        return True
    return name not in SOLVERS or bool(SOLVERS.entry(name).metadata.get("online"))


def times_serpentine(solver: SchedulerSpec) -> bool:
    """Whether ``solver`` times a drive's serpentine ``locate`` model (version 2).

    Every built-in solver does (registry metadata ``serpentine``): those
    built on :class:`solvers.timeline.timeline.Timeline` (the online heuristics,
    ``greedy``, ``local-search``, and every plug-in scheduler, dispatched on
    it), and the exact formulation's (``cpsat``, ``lns``, ``milp-cbc``,
    ``milp-highs``), whose locate arcs are timed pair by pair. A solver
    registered at run time (:func:`solvers.registry.register`) does not say
    so, and :func:`solve` refuses such an instance for it.
    """
    from tapesched.solvers.registry import SOLVERS

    name, _ = _found(solver)
    return name not in SOLVERS or bool(SOLVERS.entry(name).metadata.get("serpentine"))


def solve(
    instance: Instance,
    solver: SchedulerSpec = "greedy",
    time_limit_s: float | None = None,
    seed: int = 0,
    workers: int | None = None,
    prefetch: bool = True,
    iterations: int | None = None,
    progress: Callable[[Progress], None] | None = None,
    mount_policy: str | MountPolicy | None = None,
    gap: float | None = None,
) -> Result:
    """Solve ``instance`` with the solver named ``solver``.

    Parameters
    ----------
    instance
        A well-formed instance (see ``toolkit.instance_checks``).
    solver
        Registered name of the solver, one of :func:`names`; or an online
        scheduler of one's own, run by the dispatcher of the registered
        online heuristics: ``module.path:Attr``, an entry point's name, a
        scheduler or a class or factory of schedulers
        (:func:`solvers.plugins.find_solver`).
    time_limit_s
        Wall-clock limit in seconds, ``None`` for none.
    seed
        Seed of every random choice the solver makes.
    workers
        Parallel workers of a solver that has them (:func:`takes_workers`);
        ``None`` for its default.
    prefetch
        ``False`` solves the non-anticipative problem, in which no mount,
        load or locate serving a request starts before its release (what
        ``validate(..., prefetch=False)`` checks): the exact solvers model
        it; an online scheduler never prefetches and runs as it is.
    iterations
        Iteration budget of a solver that takes one (:func:`takes_iterations`,
        ``lns``); ``None`` for its default.
    mount_policy
        A mount policy for an online scheduler
        (:mod:`solvers.online.mount_policy`): a spec such as ``lru``,
        ``defer:300``, ``cta:files=10,age=1h``, or the object; ``None``
        keeps tapes mounted with the timeline's eviction, as before.
    gap
        Relative optimality gap, ``(objective - bound) / objective``, at
        which a solver that takes one (:func:`takes_gap`) stops: CP-SAT's
        ``relative_gap_limit`` (an absolute limit of the same worth for the
        weighted flow), CBC's and HiGHS's ``gapRel``, and ``local-search``
        and ``lns`` against their bound (:func:`solvers.bounds.bounds.lower_bound`
        and what CP-SAT proves). A run stopped there is ``feasible``, with its
        bound; ``None``: no gap, each solver as before.
    progress
        Called with each point of the run's trajectory (incumbent, bound):
        as they come from a solver that reports them (a ``progress``
        keyword: ``local-search``, ``lns``), otherwise once the run is
        over, from its trajectory, or from its result when it has none.

    Raises
    ------
    solvers.exact.formulation.UnmodelledLocate
        When a drive of ``instance`` has a serpentine ``locate`` model
        (version 2) and ``solver`` does not time it (:func:`times_serpentine`):
        it refuses the instance rather than give a schedule the validator
        rejects.
    KeyError
        When ``solver`` is not a known name; the message lists the known ones.
    ValueError
        When ``workers``, ``iterations`` or ``gap`` is given to a solver without them, ``gap``
        is negative, ``prefetch``
        is false for a solver that may prefetch (:func:`takes_prefetch`), or
        a scheduler spec gives no scheduler
        (:class:`solvers.plugins.SchedulerSpecError`), or ``mount_policy``
        is given to a solver that is not an online scheduler or names no
        mount policy (:class:`~solvers.online.mount_policy.MountPolicyError`).
    """
    if not times_serpentine(solver):
        from tapesched.solvers.exact.formulation import refuse_serpentine_locate

        refuse_serpentine_locate(instance, _found(solver)[0])
    if mount_policy is not None:
        return _solve_mounting(instance, solver, mount_policy)
    name, run = _found(solver)
    options: dict[str, object] = {}
    parameters = inspect.signature(run).parameters
    if not prefetch:
        if not takes_prefetch(solver):
            raise ValueError(f"solver {name!r} may prefetch and has no option not to")
        if "prefetch" in parameters:
            options["prefetch"] = False
    if iterations is not None:
        if "iterations" not in parameters:
            raise ValueError(f"solver {name!r} takes no iteration budget")
        options["iterations"] = iterations
    if gap is not None:
        if "gap" not in parameters:
            raise ValueError(f"solver {name!r} stops at no gap")
        if not gap >= 0:
            raise ValueError(f"gap {gap!r}: must be a number at least 0")
        options["gap"] = gap
    live = progress is not None and "progress" in parameters
    if live:
        options["progress"] = progress
    if workers is None:
        result = run(instance, time_limit_s=time_limit_s, seed=seed, **options)
    elif "workers" not in parameters:
        raise ValueError(f"solver {name!r} runs on one thread and takes no workers")
    else:
        parallel = cast(ParallelSolver, run)
        result = parallel(
            instance, time_limit_s=time_limit_s, seed=seed, workers=workers, **options
        )
    if progress is not None and not live:
        for point in _trajectory(result):
            progress(point)
    return result


def _solve_mounting(
    instance: Instance, solver: SchedulerSpec, mount_policy: str | MountPolicy
) -> Result:
    """The online scheduler ``solver`` dispatched over ``instance`` under ``mount_policy``."""
    from tapesched.solvers.online.dispatcher import solve_online
    from tapesched.solvers.online.mount_policy import parse_mount_policy, with_mount_policy
    from tapesched.solvers.plugins import resolve_scheduler, with_plugins
    from tapesched.solvers.registry import SCHEDULERS, SOLVERS

    if isinstance(solver, str) and solver in SOLVERS and solver not in SCHEDULERS:
        raise ValueError(f"solver {solver!r} is not an online scheduler and takes no mount policy")
    plugged = resolve_scheduler(solver)
    spec = mount_policy if isinstance(mount_policy, str) else None
    policy = (
        parse_mount_policy(mount_policy, instance=instance)
        if isinstance(mount_policy, str)
        else mount_policy
    )
    with with_plugins(plugged, plugged.factory, spec).guard():
        return solve_online(instance, with_mount_policy(plugged.make(), policy), plugged.name)


def _trajectory(result: Result) -> tuple[Progress, ...]:
    """The result's trajectory, or its one final point when it has none and a schedule."""
    if result.trajectory or result.objective is None:
        return result.trajectory
    return (Progress(result.runtime_s, result.objective, result.bound),)
