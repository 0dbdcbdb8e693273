"""Online scheduling: a queue of waiting requests, served as drives free up.

- :mod:`solvers.online.protocol`: the contract between a scheduler and a loop
  that runs it (:class:`~solvers.online.protocol.Scheduler`, what it may
  read of the platform, :class:`~solvers.online.protocol.PlatformState`,
  and its decisions); a scheduler of one's own needs this module only.
- :mod:`solvers.online.state`: what both loops keep between decisions, the
  waiting requests and the idle drives, and the ask-until-it-waits loop.
- :mod:`solvers.online.dispatcher`: the solvers' loop, a scheduler
  dispatched over a core-problem instance on a
  :class:`~solvers.timeline.timeline.Timeline` (the simulator's loop is
  :class:`simulator.run.simulation.Simulation`).
- mount policies (which idle tape a mount evicts, when an idle tape is put
  away, which queues may trigger a mount): the plug point and the project's
  rules composed, :mod:`solvers.online.mount_protocol`; the eviction rules,
  :mod:`solvers.online.evictions`; CTA's and dCache's mount criteria,
  :mod:`solvers.online.mount_criteria`; any scheduler under any mount policy,
  :mod:`solvers.online.mount_policied`; specs, plug-ins and their
  registries, :mod:`solvers.online.mount_policy`.
- :mod:`solvers.online.heuristics`: the registry's online heuristics
  (``fifo``, ``wspt``, ``stretch``, ``tape-batching``, ``sltf``,
  ``backfill``, ``fifo-dismount-at-once``, and ``greedy`` as a scheduler),
  :data:`~solvers.online.heuristics.SCHEDULERS`, and their registered solvers;
  :mod:`solvers.online.read_order`: which request a serpentine drive reads
  first, a recall orderer's choice (``tape-batching``, ``sltf``).

The names below are re-exported for users (``from tapesched.solvers.online import
Start``); the project's own modules import from the submodules.
"""

from __future__ import annotations

from tapesched.solvers.online.dispatcher import Dispatcher, PlatformView, dispatch, solve_online
from tapesched.solvers.online.heuristics import (
    SCHEDULERS,
    Backfill,
    DismountAtOnce,
    Fifo,
    ReleaseOrder,
    Sltf,
    Stretch,
    TapeBatching,
    Wspt,
)
from tapesched.solvers.online.protocol import (
    Decision,
    Dismount,
    PlatformState,
    Preview,
    Scheduler,
    Start,
)

__all__ = [
    "SCHEDULERS",
    "Backfill",
    "Decision",
    "Dismount",
    "DismountAtOnce",
    "Dispatcher",
    "Fifo",
    "PlatformState",
    "PlatformView",
    "Preview",
    "ReleaseOrder",
    "Scheduler",
    "Sltf",
    "Start",
    "Stretch",
    "TapeBatching",
    "Wspt",
    "dispatch",
    "solve_online",
]
