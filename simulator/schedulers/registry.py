"""The simulator's own schedulers by name: declared once, here, and imported when first used.

:data:`SIMULATOR_SCHEDULERS` (a :class:`toolkit.registry.Registry`) holds
the schedulers that run in the simulator only (``bw-main``, ``golubchik``):
they need more of the platform than a core-problem instance shows (movers,
request types, drives given one at a time), so the solvers' dispatcher
cannot run them and :data:`solvers.registry.SCHEDULERS` does not list them.
Installed packages add theirs through the entry points of
:data:`ENTRY_POINT_GROUP`, except under a name of the solvers' schedulers.

A scheduler of the simulator speaks :mod:`solvers.online.protocol` like
any other. Beyond :class:`~solvers.online.protocol.PlatformState`, it may
read what :class:`SimulatorState` asks (the simulation's
:class:`~simulator.run.simulation_state.SimulationState` answers), and may
have a ``drives_one_at_a_time`` that is true (the simulation then gives the
drives of the requests it starts one at a time: :mod:`simulator.run.gangs`)
and a ``wake_s(now)`` (the simulation asks it again then).

:func:`simulator_scheduler` is where a scheduler spec is looked up among
them: every run of a scenario, a replay or an HSM run asks it before
resolving the spec as any scheduler (:mod:`solvers.plugins`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Protocol

from tapesched.simulator.storage.policies.policy import GroupType
from tapesched.solvers.online.protocol import PlatformState, Scheduler
from tapesched.solvers.plugins import SchedulerSpec
from tapesched.solvers.registry import SCHEDULERS, SchedulerSpecError, UnknownSchedulerError
from tapesched.toolkit.model import Request
from tapesched.toolkit.registry import Registry

ENTRY_POINT_GROUP = "tapesched.simulator_schedulers"
"""Entry-point group in which packages declare schedulers of the simulator
(``name = module:Class``)."""

BW_MAIN = "bw-main"
"""The Blue Waters paper's MAIN-SCHEDULER and LOAD-BALANCER
(:mod:`simulator.schedulers.bw_main`)."""

GOLUBCHIK = "golubchik"
"""Golubchik, Muntz and Watson's discipline (:mod:`simulator.schedulers.golubchik`)."""

SIMULATOR_SCHEDULERS: Registry[Callable[..., Scheduler]] = Registry(
    "scheduler",
    group=ENTRY_POINT_GROUP,
    reserved=SCHEDULERS,
    unknown=UnknownSchedulerError,
    failure=SchedulerSpecError,
)
"""The simulator's schedulers by name, each a class or factory of schedulers; an entry's
metadata ``scenarios_only`` says why it runs no core-problem instance."""

SIMULATOR_SCHEDULERS.declare(
    BW_MAIN,
    "tapesched.simulator.schedulers.bw_main:BwMain",
    "the Blue Waters paper's MAIN-SCHEDULER and LOAD-BALANCER: I/O processes on movers' drives",
    scenarios_only="it needs movers and typed requests",
)
SIMULATOR_SCHEDULERS.declare(
    GOLUBCHIK,
    "tapesched.simulator.schedulers.golubchik:Golubchik",
    "Golubchik, Muntz and Watson (1994): requests oldest first, their drives one at a time",
    scenarios_only="it gives drives one at a time",
)


class SimulatorState(PlatformState, Protocol):
    """What a scheduler of the simulator may read: the protocol's state and the simulator's
    own questions (:class:`~simulator.run.simulation_state.SimulationState` answers them)."""

    def request_type(self, request: Request) -> GroupType:
        """The policy laying ``request``'s file out, and its scheme."""
        ...

    def process_width(self, request: Request) -> int:
        """Drives a process of ``request``'s type binds."""
        ...

    def width(self, request: Request) -> int:
        """Drives ``request`` runs on."""
        ...

    def mover_drives(self) -> list[tuple[str, ...]]:
        """The drive ids of each mover, by mover number."""
        ...

    def movers_for(self, request: Request) -> list[int]:
        """The movers that may run ``request``."""
        ...

    def can_host(self, request: Request, mover: int) -> bool:
        """Whether ``mover`` has the memory, disk and bandwidth ``request`` needs."""
        ...

    def finished(self, since: int) -> list[str]:
        """Ids of the requests done, from the ``since``-th on."""
        ...


def is_simulator_scheduler(spec: object) -> bool:
    """Whether ``spec`` is the name of a scheduler of the simulator, declared here or by an
    installed package (nothing is imported)."""
    if not isinstance(spec, str) or ":" in spec:
        return False
    if spec in SIMULATOR_SCHEDULERS:
        return True
    # A name of the solvers' schedulers is theirs: no entry point of the group may take it.
    return spec not in SCHEDULERS and spec in SIMULATOR_SCHEDULERS.plugin_names()


def scenarios_only(name: str) -> str:
    """Why the simulator's scheduler ``name`` runs scenarios and no core-problem instance."""
    why = SIMULATOR_SCHEDULERS.entry(name).metadata.get("scenarios_only")
    return str(why) if why is not None else "it is a scheduler of the simulator"


def simulator_scheduler(spec: SchedulerSpec, bw_main: object = None) -> SchedulerSpec:
    """``spec``, or when it names a scheduler of the simulator, its class or factory.

    ``bw_main`` are the parameters of ``bw-main``
    (:class:`~simulator.schedulers.bw_main.BwMainParams`; ``None``: its
    defaults), made into its factory; the others take none.

    Raises
    ------
    SchedulerSpecError
        When an installed package's scheduler cannot be loaded.
    """
    if not is_simulator_scheduler(spec):
        return spec
    assert isinstance(spec, str)
    factory = SIMULATOR_SCHEDULERS.load(spec)
    if spec == BW_MAIN:
        return functools.partial(factory, bw_main)
    return factory
