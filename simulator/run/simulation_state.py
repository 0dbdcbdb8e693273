"""The platform of a run as a scheduler sees it: :class:`SimulationState`.

It implements :class:`solvers.online.protocol.PlatformState`, the one
protocol through which the online schedulers decide, in the simulator as in
the solvers' dispatcher, and answers besides the few questions of the
simulator's own schedulers (:class:`simulator.schedulers.registry.SimulatorState`:
a request's type, the movers' drives, what a mover can host, the requests
done). Its answers are read from the run (:class:`~simulator.run.simulation.Simulation`):
the waiting requests and the idle drives from its
:class:`~solvers.online.state.DispatchState`, where a request can start from
its :mod:`~simulator.run.placement`.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterator, Sequence
from contextlib import contextmanager
from heapq import merge
from typing import TYPE_CHECKING, Protocol, overload

from tapesched.simulator.kernel.engine import Engine
from tapesched.simulator.platform.platform import DriveState, Platform
from tapesched.simulator.run.admission import Admission
from tapesched.simulator.run.admitted import AdmittedRequest
from tapesched.simulator.run.placement import Placer
from tapesched.simulator.storage.policies.policy import GroupType, Policy, group_type
from tapesched.solvers.online.protocol import Decision, Preview, Start
from tapesched.solvers.online.state import DispatchState
from tapesched.toolkit.model import Request

if TYPE_CHECKING:  # numpy is imported only when a serpentine locate is ordered
    from tapesched.toolkit.hardware.tape_geometry import LocateModel, SerpentineTape


class _Run(Protocol):
    """What the state reads of the run (:class:`~simulator.run.simulation.Simulation`)."""

    engine: Engine
    platform: Platform
    policy: Policy
    dispatch_state: DispatchState
    pooled: bool
    entries: dict[str, AdmittedRequest]
    completed: int
    finish_sinks: list[Callable[[AdmittedRequest], object]]
    in_use: dict[str, int]
    releases: int
    admission: Admission
    placer: Placer

    def waits_for_tape(self, entry: AdmittedRequest, busy: Container[int] = ...) -> bool:
        """Whether one of the tapes the read ``entry`` needs is in use."""
        ...


def _rank(item: tuple[int, Request]) -> int:
    return item[0]


class Unblocked(Sequence[Request]):
    """The waiting requests of some sets of tapes, in arrival order, merged as they are read.

    Each set's requests (a dict by rank, :attr:`Admission.waiting_by_tapes
    <simulator.run.admission.Admission.waiting_by_tapes>`) are in rank order
    already, so that the whole order is a merge, read no further than the
    reader goes (a scheduler reads the first few of a long backlog), and
    the length the sum of the sets' lengths. It is read at once, before the
    run changes (as a scheduler reads its waiting list).
    """

    __slots__ = ("_count", "_groups", "_list")

    def __init__(self, groups: list[dict[int, Request]], count: int) -> None:
        self._groups = groups
        self._count = count
        self._list: list[Request] | None = None

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[Request]:
        if self._list is not None:
            return iter(self._list)
        groups = self._groups
        if len(groups) == 1:
            return iter(groups[0].values())
        return (request for _, request in merge(*(g.items() for g in groups), key=_rank))

    @overload
    def __getitem__(self, index: int) -> Request: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Request]: ...

    def __getitem__(self, index: int | slice) -> Request | Sequence[Request]:
        if self._list is None:
            self._list = list(self)
        return self._list[index]


class SimulationState:
    """The platform of a run as a scheduler sees it, through the protocol's methods.

    It implements :class:`solvers.online.protocol.PlatformState`. The
    waiting requests and the idle drives are read from the run's
    :class:`~solvers.online.state.DispatchState`; inside a :meth:`trial`,
    the drives the decision would take are not idle.
    """

    def __init__(self, simulation: _Run) -> None:
        self._sim = simulation
        self._platform = p = simulation.platform
        self._state = state = simulation.dispatch_state
        # The run's containers, each the same object for the whole run, read at every decision.
        self._entries = simulation.entries
        self._in_use = simulation.in_use
        self._where = p.where
        self._drives = p.drives
        self._drive_index = p.drive_index
        self._idle = state.idle
        self._idle_set = state.idle_set
        self._trial: dict[int, float] = {}
        self._blocked: set[tuple[str, ...]] = set()
        """Sets of tapes found in use, while no tape was released since (``_releases``)."""
        self._releases: tuple[int, int] = (-1, -1)
        self._done_ids: list[str] | None = None
        """Ids of the requests done from the :attr:`_done_base`-th on, once a scheduler asked
        (:meth:`finished`)."""
        self._done_base = 0

    @property
    def now(self) -> float:
        """The decision time."""
        return self._sim.engine.now_s

    def _entry(self, request: Request) -> AdmittedRequest:
        entry = self._entries.get(request.id)
        if entry is None:
            raise ValueError(f"request {request.id!r} is not in the run")
        return entry

    def _drive(self, drive: str) -> DriveState:
        return self._platform.drives[self._platform.drive_index[drive]]

    def service_s(self, request: Request) -> float:
        """Expected time alone on idle empty drives, from the mean times."""
        return self._entry(request).service_s

    def any_idle(self) -> bool:
        """Whether some drive is idle."""
        trial = self._trial
        if not trial:
            return bool(self._idle_set)
        return any(d not in trial for d in self._idle_set)

    def is_idle(self, drive: str) -> bool:
        """Whether ``drive`` is neither busy nor reserved."""
        d = self._drive_index[drive]
        return d not in self._trial and self._idle[d]

    def idle_count(self, library: str) -> int:
        """Idle drives of ``library``."""
        return self.idle_counts()[self._platform.library_index[library]]

    def idle_counts(self) -> Sequence[int]:
        """Idle drives of each library (of all, as one, when pass-through joins them)."""
        counts = self._state.idle_count
        if self._sim.pooled:
            return [len(self._state.idle_set) - len(self._trial)]
        if not self._trial:
            return counts
        counts = list(counts)
        for d in self._trial:
            counts[self._platform.drives[d].library] -= 1
        return counts

    def library_number(self, request: Request) -> int:
        """The library ``request`` runs in (0 for all when pass-through joins the libraries)."""
        if self._sim.pooled:
            return 0
        entry = self._entries.get(request.id)
        return self._entry(request).library if entry is None else entry.library

    def idle_drives(self, *, holding: bool = False) -> list[str]:
        """Idle drives in platform order (with ``holding``: those holding a tape)."""
        state, drives = self._state, self._platform.drives
        idle = state.idle_holding if holding else state.idle_set
        return [drives[d].id for d in sorted(idle) if d not in self._trial]

    def idle_holding_count(self) -> int:
        """Idle drives holding a tape."""
        return len(self._state.idle_holding)

    def idle_held_tapes(self) -> Iterator[str]:
        """Tapes held by idle drives."""
        drives = self._platform.drives
        for d in self._state.idle_holding:
            tape = drives[d].tape
            if tape is not None:
                yield tape

    def peers(self, drive: str) -> Sequence[str]:
        """Drives of ``drive``'s mover (itself included), in platform order."""
        p = self._platform
        return [p.drives[d].id for d in p.movers[self._drive(drive).mover].drives]

    def idle_peers(self, drive: str) -> list[tuple[str, str | None]]:
        """The idle drives of :meth:`peers` with the tape each holds, in platform order.

        Not part of the protocol: what :meth:`peers`, :meth:`is_idle` and
        :meth:`tape_in` answer drive by drive, in one call (a mount policy's
        eviction reads it: :class:`solvers.online.mount_policied.MountPolicied`).
        """
        drives, idle, trial = self._drives, self._idle, self._trial
        mover = drives[self._drive_index[drive]].mover
        return [
            (drives[d].id, drives[d].tape)
            for d in self._platform.movers[mover].drives
            if idle[d] and d not in trial
        ]

    def tape_in(self, drive: str) -> str | None:
        """The tape ``drive`` holds (or is getting)."""
        return self._drives[self._drive_index[drive]].tape

    def head_mb(self, drive: str) -> float:
        """Head offset of ``drive``."""
        p = self._platform
        return p.drives[p.drive_index[drive]].head_mb

    def available_s(self, drive: str) -> float:
        """When ``drive`` is expected free: now if idle, else from mean durations."""
        return self._available_s(self._drive(drive))

    def _available_s(self, d: DriveState) -> float:
        """:meth:`available_s` of a drive's state."""
        trial = self._trial
        if d.index in trial:
            return trial[d.index]
        return self._sim.placer.expected_free_s(d)

    def holder(self, tape: str) -> str | None:
        """Drive holding (or getting) ``tape``."""
        d = self._where.get(tape)
        return None if d is None else self._drives[d].id

    def arrival(self, request: Request) -> int:
        """Rank of ``request`` in the order requests became waiting (were admitted)."""
        return self._entry(request).seq

    def is_waiting(self, request: Request) -> bool:
        """Whether ``request`` is admitted and not started."""
        entry = self._entries.get(request.id)
        return entry is not None and entry.seq in self._state.by_rank

    def waiting_on(self, tape: str) -> Sequence[Request]:
        """Waiting requests with a piece on ``tape``, in arrival (admission) order."""
        return self._state.waiting_on(tape)

    def waits_for_tape(self, request: Request) -> bool:
        """Whether one of the tapes a read needs is in use (writes never wait for tapes)."""
        entry = self._entries.get(request.id)
        return self._sim.waits_for_tape(
            self._entry(request) if entry is None else entry, self._trial
        )

    def not_waiting_for_tape(self, waiting: Sequence[Request]) -> Sequence[Request] | None:
        """The requests of ``waiting`` that do not :meth:`waits_for_tape`, in arrival order.

        Only for the run's own waiting list outside a :meth:`trial` (``None``
        otherwise: the caller tests each request itself). The waiting
        requests are kept by the tapes they need
        (:attr:`Admission.waiting_by_tapes
        <simulator.run.admission.Admission.waiting_by_tapes>`), so that the requests held
        back by one tape in use cost one test together: the optional fast
        path of :func:`solvers.online.heuristics.unblocked`.
        """
        if waiting is not self._state.waiting or self._trial:
            return None
        sim, p = self._sim, self._platform
        in_use, where, drives = self._in_use, self._where, self._drives
        # Sets of tapes found blocked stay blocked until a tape is released (a drive freed, a
        # tape put away, a tape no job uses): they are not tested again until then.
        blocked = self._blocked
        if sim.releases != self._releases[0] or p.releases != self._releases[1]:
            self._releases = (sim.releases, p.releases)
            blocked.clear()
        found: list[dict[int, Request]] = []
        count = 0
        for tapes, requests in sim.admission.waiting_by_tapes.items():
            if tapes in blocked:
                continue
            for tape in tapes:
                if tape in in_use:
                    break
                d = where.get(tape)
                if d is not None and drives[d].busy:
                    break
            else:
                found.append(requests)
                count += len(requests)
                continue
            blocked.add(tapes)
        return Unblocked(found, count)

    def can_start(self, request: Request) -> bool:
        """Whether ``request`` can start now on idle drives of one mover."""
        if self._trial:
            return False
        sim = self._sim
        entry = self._entries.get(request.id)
        if entry is None:
            raise ValueError(f"request {request.id!r} is not in the run")
        if sim.waits_for_tape(entry):
            return False
        # The idle drives of its library (of all, pooled), as idle_counts() outside a trial.
        idle = len(self._idle_set) if sim.pooled else self._state.idle_count[entry.library]
        if idle < entry.width:
            return False
        return sim.placer.start_drives(entry) is not None

    def loaded(self, request: Request) -> bool:
        """Whether every tape ``request`` shows is held by an idle drive, and it can start.

        The protocol promises that a loaded request can start; here idle
        drives holding its tapes may still be on several movers, or a mover
        short of memory, so that is checked too.
        """
        where, idle, trial = self._where, self._idle, self._trial
        for piece in request.pieces:
            d = where.get(piece.tape)
            if d is None or not idle[d] or d in trial:
                return False
        return self.can_start(request)

    def locate_s(self, request: Request) -> float | None:
        """Longest locate from the heads, for a :meth:`loaded` request."""
        if not self.loaded(request):
            return None
        p = self._platform
        capacity_mb = p.spec.tape_capacity_mb
        longest = 0.0
        for piece in request.pieces:
            d = p.drives[p.where[piece.tape]]
            longest = max(longest, d.model.locate_s(d.head_mb, piece.offset_mb, capacity_mb))
        return longest

    def locate_geometry(self, drive: str) -> tuple[SerpentineTape, LocateModel] | None:
        """The tape ``drive`` holds, of ``tape_capacity_mb``, and its drive model's serpentine
        locate model; ``None`` for a linear drive or an empty one."""
        d = self._drive(drive)
        locate = d.model.locate
        if locate is None or d.tape is None:
            return None
        return locate.geometry(self._platform.spec.tape_capacity_mb)

    def plan(
        self, request: Request, drives: tuple[str, ...] | None = None, queue: bool = False
    ) -> Preview:
        """An estimate of where and when ``request`` would run, from expected free times."""
        sim = self._sim
        entry = self._entry(request)
        p = self._platform
        if drives is not None:
            chosen = [p.drive_index[d] for d in drives]
        else:
            placed = None if self._trial else sim.placer.start_drives(entry)
            if placed is None:
                placed = sim.placer.queue_drives(entry, self._available_s)
            chosen = placed
        states = p.drives
        ready = sim.engine.now_s
        for d in chosen:
            available = self._available_s(states[d])
            if available > ready:
                ready = available
        return Preview(tuple(states[d].id for d in chosen), ready, ready + entry.service_s)

    # Questions of the simulator's own schedulers (simulator.schedulers.registry.SimulatorState),
    # beyond the protocol.

    def request_type(self, request: Request) -> GroupType:
        """The paper's type of ``request``: the policy laying its file out, and its scheme."""
        return group_type(self._sim.policy, self._entry(request).file_request.file)

    def process_width(self, request: Request) -> int:
        """Drives a process of ``request``'s type binds: those a write of its file needs."""
        return self._sim.policy.write_width(self._entry(request).file_request.file)

    def width(self, request: Request) -> int:
        """Drives ``request`` runs on: one per column of its plan."""
        return self._entry(request).width

    def mover_drives(self) -> list[tuple[str, ...]]:
        """The drive ids of each mover, by mover number (a library is a mover without movers)."""
        drives = self._platform.drives
        return [tuple(drives[d].id for d in m.drives) for m in self._platform.movers]

    def movers_for(self, request: Request) -> list[int]:
        """Numbers of the movers that may run ``request`` (those of its library, or all when
        pass-through ports join the libraries)."""
        return self._sim.placer.movers_for(self._entry(request))

    def can_host(self, request: Request, mover: int) -> bool:
        """Whether ``mover`` has the memory, disk and bandwidth ``request`` needs (its drives
        aside)."""
        entry = self._entry(request)
        placer = self._sim.placer
        return placer.fits(mover, entry.width, placer.room(entry), drives=False)

    def finished(self, since: int) -> list[str]:
        """Ids of the requests done, in the order they were done, from the ``since``-th on.

        The ids are kept from the first call on (the run keeps no finished request), and
        only those from ``since`` on: a scheduler reads them once, in order, each call
        from where the last one ended (as :mod:`simulator.schedulers.bw_main` does).

        Raises
        ------
        ValueError
            When ``since`` asks for ids no longer (or never) kept: before this
            call's first, or before what an earlier call asked from.
        """
        sim = self._sim
        if self._done_ids is None:
            if since < sim.completed:
                raise ValueError(
                    f"finished({since}) asked first after {sim.completed} requests were done: "
                    "the ids are kept from a scheduler's first call on"
                )
            self._done_ids = []
            self._done_base = sim.completed
            sim.finish_sinks.append(self._note_done)
        if since < self._done_base:
            raise ValueError(f"finished({since}): ids before {self._done_base} are not kept")
        ids = self._done_ids
        del ids[: since - self._done_base]
        self._done_base = max(since, self._done_base)
        return ids[:]

    def _note_done(self, entry: AdmittedRequest) -> None:
        assert self._done_ids is not None
        self._done_ids.append(entry.request.id)

    @contextmanager
    def trial(self, decision: Decision) -> Iterator[None]:
        """Inside the block, the drives ``decision`` would take look busy until its expected end."""
        added: list[int] = []
        try:
            if isinstance(decision, Start):
                preview = self.plan(decision.request, decision.drives, decision.queue)
                for drive in preview.drives:
                    d = self._platform.drive_index[drive]
                    if d not in self._trial:
                        self._trial[d] = preview.end
                        added.append(d)
            yield
        finally:
            for d in added:
                del self._trial[d]
