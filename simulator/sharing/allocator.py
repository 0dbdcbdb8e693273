"""Drive allocators: who may start recall threads on which drive set, decided every period.

The plug point is :class:`Allocator`: the run (:mod:`simulator.sharing.hsm_run`)
asks it every ``period_s`` (300 s, CNAF's five minutes, by default) with an
:class:`AllocationView` of the queues and the drives, and carries the
:class:`Allocation` it returns out until the next period:

- ``recall_caps``: the most recall threads each ``(group, set)`` may run
  (GEMSS's per-queue parameter); a thread of a group that ends lets the
  next cartridge of its queue start at once while the group is under its
  cap, as in GEMSS;
- ``reserve``: free drives of each set that recall threads must leave
  free (migrations may take them: the reserve is kept for them);
- ``reclaim``: space reclamation processes to start now on each set.

Whatever the allocator says, the run never lets an HSM server's drives
stream more than its Fibre Channel link at their native rates. Any object
with ``period_s`` and ``allocate`` is an allocator: a user's own needs no
base class.

The two here are the paper's: :class:`StaticCaps` (the administrators'
fixed maxima, e.g. ATLAS 3) and :class:`Orchestrator` (CNAF's dynamic
allocation). The offline yardstick is :mod:`simulator.sharing.offline_allocation`.

:data:`ALLOCATORS` names them (``static``, ``orchestrator``); installed
packages add theirs through the entry points of :data:`ENTRY_POINT_GROUP`,
and :func:`make_allocator` makes one from a name, a ``module.path:Attr``
or the class itself, with the parameters it takes.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Mapping
from typing import Protocol, runtime_checkable

from attrs import field, frozen

from tapesched.simulator.sharing.groups import HsmPlatform, Kind
from tapesched.toolkit.registry import LoadError, Registry, UnknownNameError, taken_params
from tapesched.toolkit.runtime.plugin_calls import PluginError, call_plugin, exception_line

PERIOD_S = 300.0
"""CNAF's period: the Orchestrator "ran at a configurable frequency (typically every five
minutes)"."""

RESERVE = 2
"""Drives the Orchestrator keeps free per set ("which we set to 2 for each of the groups of
drives")."""

Queue = tuple[str, str, Kind]
"""A queue: ``(group, drive set, kind)``."""


@frozen
class AllocationView:
    """The platform at an allocation time, as an allocator sees it.

    Attributes
    ----------
    now_s
        The allocation time.
    platform
        The servers, groups and drive sets.
    free
        Set id to its drives free now (no thread, no reclamation).
    running
        Queue to its threads running now (absent: none).
    pending
        Queue to its batches waiting for a thread (absent: none).
    server_mb_s
        Server id to the native MB/s of the drives serving its groups now.
    reclaimable
        Set id to the cartridges of its pool still at or above the
        reclamation threshold (absent: no reclamation configured).
    """

    now_s: float
    platform: HsmPlatform
    free: Mapping[str, int]
    running: Mapping[Queue, int]
    pending: Mapping[Queue, int]
    server_mb_s: Mapping[str, float]
    reclaimable: Mapping[str, int] = field(factory=dict)

    def runs(self, group: str, dset: str, kind: Kind = "recall") -> int:
        """Threads of that queue running now."""
        return self.running.get((group, dset, kind), 0)

    def waits(self, group: str, dset: str, kind: Kind = "recall") -> int:
        """Batches of that queue pending now."""
        return self.pending.get((group, dset, kind), 0)

    def fc_headroom_mb_s(self, server: str) -> float:
        """What the server's link can still take, at native rates."""
        spec = next(s for s in self.platform.servers if s.id == server)
        return spec.fc_mb_s - self.server_mb_s.get(server, 0.0)


@frozen
class Allocation:
    """What an allocator decides for the next period (see the module)."""

    recall_caps: Mapping[tuple[str, str], int]
    reserve: Mapping[str, int] = field(factory=dict)
    reclaim: Mapping[str, int] = field(factory=dict)


@runtime_checkable
class Allocator(Protocol):
    """Decides, every ``period_s``, the recall caps, the reserve and the reclamations."""

    @property
    def period_s(self) -> float:
        """Seconds between two allocations."""
        ...

    def allocate(self, view: AllocationView) -> Allocation:
        """The allocation for the period starting at ``view.now_s``."""
        ...


@frozen
class StaticCaps:
    """The administrators' fixed maxima: each group's recall threads per set, never changed.

    Attributes
    ----------
    caps
        ``(group, set)`` to its most recall threads (absent: 0).
    period_s
        Asked every period all the same (the answer never changes).
    """

    caps: Mapping[tuple[str, str], int]
    period_s: float = PERIOD_S

    def allocate(self, view: AllocationView) -> Allocation:
        """The fixed caps; no reserve, no reclamation."""
        return Allocation(recall_caps=dict(self.caps))


@frozen
class Orchestrator:
    """CNAF's Orchestrator (Cavalli et al., Section 2), run every ``period_s``.

    For each drive set, in the platform's order: the free drives less
    ``reserve`` are handed to the groups with pending recalls on that set,
    one drive at a time in turn, the group with most runnable recalls
    first (runnable: pending, up to the group's maximum, which is what its
    server's Fibre Channel link still takes at the set's native rate,
    lowered by ``max_threads`` when the administrator gives one), until
    each group has its runnable maximum or no drive is left. A group's cap
    becomes its running threads plus the drives handed to it; a group with
    no pending recall keeps its running threads as its cap. The servers'
    headroom is shared by every set and group they serve.

    Drives still free after that, beyond the reserve, start space
    reclamation on the set's pool when the platform configures it and
    cartridges at or above its threshold remain: as many processes as
    drives allow (each holds :attr:`simulator.sharing.groups.Reclamation.drives`
    for its duration).

    Attributes
    ----------
    reserve
        Free drives kept per set.
    max_threads
        Group id to the administrator's most recall threads (absent: the
        Fibre Channel link alone decides).
    reclaim
        Whether to start space reclamation on drives left free.
    period_s
        The period.
    """

    reserve: int = RESERVE
    max_threads: Mapping[str, int] = field(factory=dict)
    reclaim: bool = True
    period_s: float = PERIOD_S

    def allocate(self, view: AllocationView) -> Allocation:
        """Hand the free drives out, keep the reserve, start reclamation (see the class)."""
        platform = view.platform
        headroom = {s.id: view.fc_headroom_mb_s(s.id) for s in platform.servers}
        caps: dict[tuple[str, str], int] = {}
        reserve: dict[str, int] = {}
        reclaim: dict[str, int] = {}
        for dset in platform.drive_sets:
            reserve[dset.id] = self.reserve
            available = max(view.free.get(dset.id, 0) - self.reserve, 0)
            runnable: dict[str, int] = {}
            for g in platform.groups:
                running = view.runs(g.id, dset.id)
                caps[(g.id, dset.id)] = running
                pending = view.waits(g.id, dset.id)
                if pending == 0:
                    continue
                limit = math.floor(headroom[g.server] / dset.rate_mb_s + 1e-9)
                if g.id in self.max_threads:
                    limit = min(limit, max(self.max_threads[g.id] - running, 0))
                runnable[g.id] = min(pending, limit)
            order = sorted(
                (g for g in platform.groups if runnable.get(g.id, 0) > 0),
                key=lambda g: (-runnable[g.id], -view.waits(g.id, dset.id), g.id),
            )
            granted = dict.fromkeys(runnable, 0)
            progress = True
            while available > 0 and progress:
                progress = False
                for g in order:
                    if available == 0:
                        break
                    if granted[g.id] >= runnable[g.id]:
                        continue
                    if headroom[g.server] + 1e-9 < dset.rate_mb_s:
                        continue
                    granted[g.id] += 1
                    headroom[g.server] -= dset.rate_mb_s
                    caps[(g.id, dset.id)] += 1
                    available -= 1
                    progress = True
            pool = platform.reclamation.get(dset.id)
            if self.reclaim and pool is not None and view.reclaimable.get(dset.id, 0) > 0:
                processes = min(available // pool.drives, view.reclaimable[dset.id])
                if processes > 0:
                    reclaim[dset.id] = processes
        return Allocation(recall_caps=caps, reserve=reserve, reclaim=reclaim)


class AllocatorSpecError(LoadError):
    """An allocator spec that gives no allocator; the message is one line saying why."""


class UnknownAllocatorError(AllocatorSpecError, UnknownNameError):
    """A name that is neither the project's allocator nor an installed package's."""


ENTRY_POINT_GROUP = "tapesched.allocators"
"""Entry-point group in which packages declare their allocators (``name = module:Class``)."""

ALLOCATORS: Registry[Callable[..., Allocator]] = Registry(
    "allocator",
    group=ENTRY_POINT_GROUP,
    unknown=UnknownAllocatorError,
    failure=AllocatorSpecError,
    hint="; or give module.path:Attr",
)
"""The allocators by name, each a class (or factory) of :class:`Allocator` built with those of
its parameters that :func:`make_allocator` is given; entry points of :data:`ENTRY_POINT_GROUP`
add more."""

ALLOCATORS.add(
    "static", StaticCaps, "the administrators' fixed maxima of recall threads, never changed"
)
ALLOCATORS.add(
    "orchestrator",
    Orchestrator,
    "CNAF's Orchestrator: free drives handed out every period, a reserve kept, reclamation",
)


def make_allocator(spec: object, **params: object) -> Allocator:
    """The allocator ``spec`` names, made with those of ``params`` its class or factory takes.

    ``spec`` is a name of :data:`ALLOCATORS` (an installed package's too), a
    ``module.path:Attr``, a class or factory of allocators, or an allocator
    itself (returned as it is). ``StaticCaps`` takes ``caps``; every
    allocator here takes ``period_s``.

    Raises
    ------
    AllocatorSpecError
        (a ``ValueError``) with a one-line message: an unknown name (listing
        the known ones), a module that cannot be imported, a missing
        attribute, a class or factory that fails (a required parameter not
        given), or something that is not an allocator (``period_s``,
        ``allocate``).
    """
    found = ALLOCATORS.resolve(spec)
    obj = found.value
    if inspect.isclass(obj) or (callable(obj) and not isinstance(obj, Allocator)):
        factory: Callable[..., object] = obj
        given = taken_params(factory, params)
        try:
            obj = call_plugin(found.name, "make", lambda: factory(**given))
        except PluginError as exc:
            why = exception_line(exc.error)
            raise AllocatorSpecError(f"{found.name}: cannot make an allocator: {why}") from exc
    if not isinstance(obj, Allocator):
        raise AllocatorSpecError(f"{found.name}: not an allocator (period_s, allocate)")
    return obj
