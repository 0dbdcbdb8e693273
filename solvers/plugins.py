"""Schedulers from outside the project: one place that turns a scheduler spec into schedulers.

An online scheduler is any object with the method of
:class:`solvers.online.protocol.Scheduler` (``decide(now, waiting, platform)``; the
contract is written there). Wherever the project takes a scheduler (the
simulator's :class:`~simulator.run.simulation.Simulation`,
:func:`~simulator.results.replications.run_scenario`,
:func:`~simulator.results.instance_run.simulate_instance`, a scenario file's
``run.scheduler``, :func:`solvers.solve`, ``tapesched simulate --scheduler``,
``tapesched solve --solver``, ``tapesched compare --solvers``), it takes a
*scheduler spec*, resolved here by :func:`resolve_scheduler`:

- a name of :data:`solvers.registry.SCHEDULERS` (``fifo``, ``wspt``, ...);
- ``module.path:Attr``: ``Attr`` (dotted for a nested attribute) of an
  importable module, being a class made with no arguments, a factory called
  with no arguments, or an object that is a scheduler already;
- the name of an entry point of the group :data:`ENTRY_POINT_GROUP` that an
  installed package declares (its value is a ``module.path:Attr`` as above),
  imported only when that name is asked for; when two packages declare one
  name, the first found on ``sys.path`` wins, and an entry point named as a
  solver of the registry is never used;
- the object itself: a scheduler, or a class or factory of schedulers.

Schedulers keep state during a run, so every run gets a scheduler of its
own (:meth:`PluggedScheduler.make`): a class or factory makes a fresh one,
and an object given as it is is copied (``copy.deepcopy``) for each run, so
that no run starts from the state another left and the object given is
never changed.

A spec is checked when it is resolved: the module imported, the attribute
found, one scheduler made and its ``decide`` found callable as
``decide(now, waiting, platform)``. Whatever is wrong is a
:class:`SchedulerSpecError` (a ``ValueError``) with a one-line message;
``tapesched`` prints it after the option's name and exits with code 2.

:func:`find_solver` makes a plug-in scheduler a solver too: it is run by the
dispatcher that runs the registered online heuristics
(:func:`solvers.online.dispatcher.solve_online`), and its result carries the lower
bound, as ``fifo``'s does.

Example
-------
A package declares its schedulers in its ``pyproject.toml``::

    [project.entry-points."tapesched.schedulers"]
    most-wanted = "my_package.schedulers:MostWantedTape"

after which ``tapesched simulate scenario.json --scheduler most-wanted`` runs
it, as ``--scheduler my_package.schedulers:MostWantedTape`` does without any
installation (the module only has to be importable).
"""

from __future__ import annotations

import copy
import functools
import inspect
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TypeAlias, cast

from attrs import evolve, field, frozen

from tapesched.solvers.online.dispatcher import solve_online
from tapesched.solvers.online.mount_policy import mount_policy_plugins
from tapesched.solvers.online.protocol import Scheduler
from tapesched.solvers.registry import (
    ENTRY_POINT_GROUP,
    SCHEDULERS,
    SOLVERS,
    SchedulerSpecError,
    Solver,
    UnknownSchedulerError,
    UnknownSolverError,
    names,
)
from tapesched.solvers.result import Result
from tapesched.toolkit.model import Instance
from tapesched.toolkit.registry import (
    Entry,
    LoadError,
    PluginEntry,
    qualified_name,
    unknown_message,
)
from tapesched.toolkit.runtime.plugin_calls import FAULTS, Plugin, exception_line, guarded

__all__ = [
    "ENTRY_POINT_GROUP",
    "PluggedScheduler",
    "PluginEntry",
    "SchedulerFactory",
    "SchedulerSpec",
    "SchedulerSpecError",
    "UnknownSchedulerError",
    "find_solver",
    "make_scheduler",
    "plug_scheduler",
    "plugin_entries",
    "resolve_scheduler",
    "scheduler_entry",
    "solver_list",
    "with_plugins",
]

SchedulerFactory: TypeAlias = Callable[[], Scheduler]
"""A class or function making a fresh scheduler from no arguments."""


@frozen
class PluggedScheduler:
    """A resolved scheduler spec: its name and how each run gets a scheduler of its own.

    Attributes
    ----------
    name
        How runs, results and listings name it: the registered or entry-point
        name, the ``module.path:Attr`` given, or, for an object, the
        ``module:qualified.name`` of its class or factory.
    origin
        Where it comes from: ``registry``, ``module``, ``entry point
        module:Attr of <package>``, or ``object``.
    factory
        Makes a fresh scheduler (unchecked; :meth:`make` checks it).
    plugins
        The plug-ins whose code its runs call (none for the registry's
        schedulers): what :meth:`guard` blames when a run fails.
    """

    name: str
    origin: str
    factory: Callable[[], object]
    plugins: tuple[Plugin, ...] = field(default=(), kw_only=True)

    def guard(self) -> AbstractContextManager[None]:
        """Wraps a run of its schedulers: a plug-in's failure is one
        :class:`~toolkit.runtime.plugin_calls.PluginError`
        (:func:`~toolkit.runtime.plugin_calls.guarded`)."""
        return guarded(self.plugins)

    def make(self) -> Scheduler:
        """A fresh scheduler for one run.

        Raises
        ------
        SchedulerSpecError
            When the class or factory fails, or makes something that is not
            a scheduler.
        """
        try:
            made = self.factory()
        except SchedulerSpecError:
            raise
        except FAULTS as exc:
            raise SchedulerSpecError(
                f"{self.name}: cannot make a scheduler: {exception_line(exc)}"
            ) from exc
        return _checked(made, self.name)


SchedulerSpec: TypeAlias = str | Scheduler | SchedulerFactory | PluggedScheduler
"""What names a scheduler: a name, ``module.path:Attr``, an entry point, the object itself,
or a spec resolved already."""


def with_plugins(
    plugged: PluggedScheduler, factory: Callable[[], object], *mount_policies: str | None
) -> PluggedScheduler:
    """``plugged`` making its schedulers with ``factory`` (its own, wrapped: under a mount
    policy), the plug-ins that ``mount_policies`` (specs) name (``module.path:Attr`` for one's
    own, installed packages' evictions and mount policies:
    :func:`~solvers.online.mount_policy.mount_policy_plugins`) beside its own, so that
    :meth:`~PluggedScheduler.guard` blames whichever fails."""
    plugins = [*plugged.plugins]
    for spec in mount_policies:
        plugins += mount_policy_plugins(spec)
    return evolve(plugged, factory=factory, plugins=tuple(plugins))


def _checked(made: object, name: str) -> Scheduler:
    """``made``, once it is seen to have ``decide(now, waiting, platform)``."""
    decide = getattr(made, "decide", None)
    if not callable(decide):
        raise SchedulerSpecError(
            f"{name}: a {type(made).__name__} is not a scheduler: "
            "it has no method decide(now, waiting, platform)"
        )
    try:
        signature = inspect.signature(decide)
    except (TypeError, ValueError):
        return cast(Scheduler, made)
    try:
        signature.bind(0.0, (), None)
    except TypeError as exc:
        raise SchedulerSpecError(
            f"{name}: its decide cannot be called as decide(now, waiting, platform): {exc}"
        ) from None
    return cast(Scheduler, made)


def _copier(obj: object, name: str) -> Callable[[], object]:
    """Makes a deep copy of ``obj`` per call, saying what to do when it cannot be copied."""

    def copy_of() -> object:
        try:
            return copy.deepcopy(obj)
        except Exception as exc:
            raise SchedulerSpecError(
                f"{name}: cannot copy the scheduler for a run ({exception_line(exc)}); "
                "give its class or a factory instead"
            ) from exc

    return copy_of


def _plugged(obj: object, name: str, origin: str) -> PluggedScheduler:
    """The scheduler ``obj`` names: a class or factory to call, or a scheduler to copy."""
    defined = obj.func if isinstance(obj, functools.partial) else obj
    found = None if origin == "registry" else Plugin.of(name, qualified_name(defined).split(":")[0])
    plugins = () if found is None else (found,)
    if inspect.isclass(obj):
        return PluggedScheduler(name, origin, obj, plugins=plugins)
    if callable(getattr(obj, "decide", None)):
        return PluggedScheduler(name, origin, _copier(obj, name), plugins=plugins)
    if callable(obj):
        return PluggedScheduler(name, origin, obj, plugins=plugins)
    raise SchedulerSpecError(
        f"{name}: a {type(obj).__name__} is neither a scheduler (no method decide) "
        "nor a class or factory of schedulers"
    )


def resolve_scheduler(spec: SchedulerSpec | PluggedScheduler) -> PluggedScheduler:
    """The scheduler a spec names, checked by making one.

    Parameters
    ----------
    spec
        A registered name, ``module.path:Attr``, an entry point's name, a
        scheduler, a class or factory of schedulers (see the module's
        docstring), or a spec resolved already (returned as it is).

    Raises
    ------
    SchedulerSpecError
        (a ``ValueError``) with a one-line message: an unknown name
        (:class:`UnknownSchedulerError`, a ``KeyError`` too), a module that
        cannot be imported, a missing attribute, an object that is not a
        scheduler, a class or factory that fails or makes none.
    """
    plugged = plug_scheduler(spec)
    plugged.make()
    return plugged


def plug_scheduler(spec: SchedulerSpec | PluggedScheduler) -> PluggedScheduler:
    """The scheduler a spec names, not checked yet (:meth:`PluggedScheduler.make` checks).

    Raises
    ------
    SchedulerSpecError
        As :func:`resolve_scheduler`, for what it finds without making a scheduler.
    """
    if isinstance(spec, PluggedScheduler):
        return spec
    if isinstance(spec, str):
        _refuse_offline(spec)
    found = SCHEDULERS.resolve(spec)
    return _plugged(found.value, found.name, found.origin)


def _refuse_offline(name: str) -> None:
    if name in SOLVERS and name not in SCHEDULERS:
        raise UnknownSchedulerError(
            f"{name!r} is an offline solver, not an online scheduler; "
            f"online: {', '.join(SCHEDULERS.known())}"
        )


def scheduler_entry(name: str) -> Entry:
    """The entry of a scheduler's name, the registry's or an installed package's, not imported.

    What a data file's name is checked against: reading a file imports
    nothing, the scheduler being loaded when its run starts.

    Raises
    ------
    UnknownSchedulerError
        For an offline solver's name, or a name no entry has.
    """
    _refuse_offline(name)
    return SCHEDULERS.entry(name)


def plugin_entries() -> tuple[PluginEntry, ...]:
    """Schedulers declared by installed packages, by name (none is imported).

    Every declaration is listed, a name declared twice included (the first
    listed of a name is the one that runs), each saying whether its name is
    ``hidden`` (by a solver of the registry or an earlier plug-in).
    """
    return SCHEDULERS.plugins()


def make_scheduler(spec: SchedulerSpec | PluggedScheduler) -> Scheduler:
    """A fresh scheduler for one run, from any spec (see :func:`resolve_scheduler`).

    Raises
    ------
    SchedulerSpecError
        As :func:`resolve_scheduler`.
    """
    return plug_scheduler(spec).make()


def _as_solver(plugged: PluggedScheduler) -> Solver:
    """``plugged`` as a solver: dispatched online, a fresh scheduler per instance."""

    def run(instance: Instance, *, time_limit_s: float | None = None, seed: int = 0) -> Result:
        with plugged.guard():
            return solve_online(instance, plugged.make(), plugged.name)

    return run


def find_solver(spec: SchedulerSpec) -> tuple[str, Solver]:
    """The solver a spec names, and its name: a solver of the registry, or a plug-in scheduler.

    A name of the registry (:func:`solvers.registry.names`) is its solver;
    any other spec is resolved as a scheduler (:func:`resolve_scheduler`)
    and run online by the dispatcher of the registered heuristics, with
    the lower bound as its bound. A plug-in scheduler ignores the time
    limit and the seed, as the online heuristics do.

    Raises
    ------
    UnknownSolverError
        (a ``KeyError``) for a name that is neither a solver nor a declared
        entry point, nor of the form ``module.path:Attr``; the message
        lists the known names.
    SchedulerSpecError
        (a ``ValueError``) for a plug-in that cannot be resolved.
    """
    if isinstance(spec, str) and spec in SOLVERS:
        return spec, SOLVERS[spec]
    if isinstance(spec, str) and ":" not in spec:
        plugged_in = SCHEDULERS.plugin_names()
        if spec not in plugged_in:
            known = [*names(), *plugged_in]
            raise UnknownSolverError(
                unknown_message("solver", spec, known, hint="; or a scheduler module.path:Attr")
            )
    plugged = resolve_scheduler(spec)
    return plugged.name, _as_solver(plugged)


def solver_list(text: str, option: str = "--solvers") -> tuple[list[str], list[str]]:
    """The comma-separated solver names of ``text``, and one line (naming ``option``) for each
    problem: a name that gives no solver (:func:`find_solver`), or no name at all."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        return [], [f"{option}: names no solver (give one or more, separated by commas)"]
    problems = []
    for name in names:
        try:
            find_solver(name)
        except LoadError as exc:
            problems.append(f"{option}: {exc}")
    return names, problems
