"""The solvers' loop of the scheduling protocol: a scheduler dispatched over an instance.

A :class:`Dispatcher` asks a :class:`~solvers.online.protocol.Scheduler` at
every event time (a release, or a drive becoming free) until it waits, and
carries out each decision on a :class:`~solvers.timeline.timeline.Timeline` in
online mode, so that nothing is done for a request before the decision that
starts it: its unloads, arm operations and locates begin at the decision
time or later, which is at or after its release. The same timeline places
the requests of :mod:`solvers.greedy`, and the simulator drives a
:class:`Dispatcher` step by step (:meth:`Dispatcher.step`, in
:mod:`simulator.results.instance_run`): each heuristic has one implementation. The
waiting requests and the idle drives are kept in a
:class:`~solvers.online.state.DispatchState`, as the simulator's run keeps
its own; :class:`PlatformView` is what the scheduler reads
(:class:`~solvers.online.protocol.PlatformState`).
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, NamedTuple

from tapesched.solvers.bounds.bounds import lower_bound
from tapesched.solvers.online.protocol import Decision, Dismount, Preview, Scheduler, Start
from tapesched.solvers.online.state import MAX_IDLE_WAKES, DispatchState, LeftWaiting, as_decision
from tapesched.solvers.result import Result, Status
from tapesched.solvers.timeline.timeline import Timeline
from tapesched.toolkit.metrics import alone_s, fastest_first
from tapesched.toolkit.model import Drive, Instance, Request, Schedule

if TYPE_CHECKING:  # numpy is imported only when a serpentine locate is ordered
    from tapesched.toolkit.hardware.tape_geometry import LocateModel, SerpentineTape


class ServiceTimes:
    """Expected service of each request: its time alone on an idle platform of empty drives.

    The same value as :func:`toolkit.metrics.alone_s`, the reference of the
    toolkit's stretch, with each library's drives sorted once rather than
    per request, and each request's value computed once.
    """

    def __init__(self, instance: Instance) -> None:
        self._instance = instance
        self._fastest: dict[str, list[Drive]] = {}
        self._known: dict[str, float] = {}

    def __call__(self, request: Request) -> float:
        """Seconds ``request`` takes alone: mounts (``arms`` at a time), load, locate, transfer."""
        known = self._known.get(request.id)
        if known is not None:
            return known
        library = self._instance.library_of_request(request)
        drives = self._fastest.get(library.id)
        if drives is None:
            drives = self._fastest[library.id] = fastest_first(self._instance, library.id)
        value = alone_s(self._instance, request, drives)
        self._known[request.id] = value
        return value


class _Info(NamedTuple):
    """What the dispatcher keeps of a request: index, library number, tapes, rank of arrival."""

    number: int
    library: int
    tapes: tuple[str, ...]
    arrival: int


class PlatformView:
    """What a scheduler may read of the platform at a decision time: the dispatcher's
    :class:`~solvers.online.protocol.PlatformState`.

    Drives and tapes are named by id. A drive is *idle* when it has nothing
    to do after the decision time; a tape is *held* by a drive from its
    mount to its dismount, and the state shown is the one at the end of the
    work committed so far (a busy drive's tape and head once it is done).
    Beyond the protocol, :attr:`instance` and :meth:`library_of` serve
    whoever runs the dispatcher; a scheduler reading them runs nowhere else.
    """

    def __init__(self, dispatcher: Dispatcher) -> None:
        self._dispatcher = dispatcher
        self._timeline = dispatcher.timeline
        self._state = dispatcher.state
        self.instance = dispatcher.instance
        self.service_s = ServiceTimes(dispatcher.instance)
        """Expected service of a request (see :class:`ServiceTimes`)."""
        self._peers: dict[int, tuple[str, ...]] = {}

    @property
    def now(self) -> float:
        """The decision time."""
        return self._dispatcher.now

    def any_idle(self) -> bool:
        """Whether some drive is idle."""
        return bool(self._state.idle_set)

    def is_idle(self, drive: str) -> bool:
        """Whether ``drive`` has nothing to do after now."""
        return self._state.idle[self._timeline.drive_index[drive]]

    def idle_count(self, library: str) -> int:
        """Number of idle drives of ``library``."""
        return self._state.idle_count[self._dispatcher.library_index[library]]

    def idle_counts(self) -> Sequence[int]:
        """Number of idle drives of each library, in file order of the libraries."""
        return self._state.idle_count

    def library_number(self, request: Request) -> int:
        """Index of ``request``'s library in file order."""
        return self._dispatcher.info(request).library

    def idle_drives(self, *, holding: bool = False) -> list[str]:
        """Idle drives in file order; with ``holding``, only those holding a tape."""
        state = self._state
        drives = state.idle_holding if holding else state.idle_set
        ids = self._timeline.drive_ids
        return [ids[d] for d in sorted(drives)]

    def idle_holding_count(self) -> int:
        """Number of idle drives holding a tape."""
        return len(self._state.idle_holding)

    def peers(self, drive: str) -> Sequence[str]:
        """Drives of ``drive``'s library (itself included), in file order."""
        timeline = self._timeline
        library = timeline.library_of[timeline.drive_index[drive]]
        peers = self._peers.get(library)
        if peers is None:
            ids = timeline.drive_ids
            peers = self._peers[library] = tuple(
                ids[d] for d, lib in enumerate(timeline.library_of) if lib == library
            )
        return peers

    def idle_held_tapes(self) -> Iterator[str]:
        """Tapes held by idle drives."""
        tape_in = self._timeline.tape_in
        for d in self._state.idle_holding:
            tape = tape_in(d)
            if tape is not None:
                yield tape

    def tape_in(self, drive: str) -> str | None:
        """Tape ``drive`` holds, or will hold once its committed work is done."""
        return self._timeline.tape_in(self._timeline.drive_index[drive])

    def head_mb(self, drive: str) -> float:
        """Head offset of ``drive`` once its committed work is done."""
        return self._timeline.head_mb(self._timeline.drive_index[drive])

    def available_s(self, drive: str) -> float:
        """When ``drive`` is done with the work committed to it (now if it is idle)."""
        done_s = self._timeline.available_s(self._timeline.drive_index[drive])
        return max(done_s, self._dispatcher.now)

    def holder(self, tape: str) -> str | None:
        """Drive holding ``tape`` (once committed work is done), or ``None``."""
        d = self._timeline.holder(tape)
        return None if d is None else self._timeline.drive_ids[d]

    def library_of(self, request: Request) -> str:
        """Id of the library of ``request``'s tapes."""
        return self._timeline.library_ids[self._dispatcher.info(request).library]

    def arrival(self, request: Request) -> int:
        """Rank of ``request`` in the order requests became waiting (release order, then file)."""
        return self._dispatcher.info(request).arrival

    def is_waiting(self, request: Request) -> bool:
        """Whether ``request`` is released and not started."""
        info = self._dispatcher.known.get(request.id)
        return info is not None and self._state.is_waiting(info.arrival)

    def waiting_on(self, tape: str) -> tuple[Request, ...]:
        """Waiting requests with a piece on ``tape``, in arrival order."""
        return self._state.waiting_on(tape)

    def waits_for_tape(self, request: Request) -> bool:
        """Whether one of ``request``'s tapes is in a busy drive."""
        where, idle = self._timeline.where, self._state.idle
        for tape in self._dispatcher.info(request).tapes:
            d = where.get(tape)
            if d is not None and not idle[d]:
                return True
        return False

    def can_start(self, request: Request) -> bool:
        """Whether ``request`` can start now on idle drives.

        It can when none of its tapes is in a busy drive and its library has
        an idle drive per piece.
        """
        info = self._dispatcher.info(request)
        if self._state.idle_count[info.library] < len(info.tapes):
            return False
        return not self.waits_for_tape(request)

    def loaded(self, request: Request) -> bool:
        """Whether every tape of ``request`` is held by an idle drive (no mount needed).

        Such a request can start.
        """
        where, idle = self._timeline.where, self._state.idle
        for tape in self._dispatcher.info(request).tapes:
            d = where.get(tape)
            if d is None or not idle[d]:
                return False
        return True

    def locate_s(self, request: Request) -> float | None:
        """Longest locate of ``request``'s pieces from the heads, when :meth:`loaded`."""
        if not self.loaded(request):
            return None
        timeline = self._timeline
        longest = 0.0
        for piece in request.pieces:
            d = timeline.where[piece.tape]
            located = timeline.locate_s(d, timeline.head[d], piece.offset_mb, piece.tape)
            longest = max(longest, located)
        return longest

    def locate_geometry(self, drive: str) -> tuple[SerpentineTape, LocateModel] | None:
        """The tape ``drive`` holds, of its capacity in the instance, and the drive's
        serpentine locate model; ``None`` for a linear drive or an empty one."""
        timeline = self._timeline
        d = timeline.drive_index[drive]
        locate = timeline.drive_models[d].locate
        tape = timeline.tape_in(d)
        if locate is None or tape is None:
            return None
        return locate.geometry(timeline.capacity[tape])

    def plan(
        self, request: Request, drives: tuple[str, ...] | None = None, queue: bool = False
    ) -> Preview:
        """Where and when ``request`` would run if started now as :class:`Start` says.

        The state is left as it is.

        Raises
        ------
        ValueError
            As the dispatcher would for that decision.
        """
        dispatcher = self._dispatcher
        info, wanted, idle_at = dispatcher.placement(Start(request, drives, queue))
        plan = self._timeline.plan(
            info.number, earliest=dispatcher.now, drives=wanted, idle_at=idle_at
        )
        ids = self._timeline.drive_ids
        return Preview(tuple(ids[d] for d in plan.drives), plan.start, plan.end)

    @contextmanager
    def trial(self, decision: Decision) -> Iterator[None]:
        """Inside the block, the view shows the platform as if ``decision`` had been carried out.

        Everything is undone on exit. The waiting requests are not changed.
        """
        dispatcher = self._dispatcher
        touched: Sequence[int] = ()
        try:
            with self._timeline.trial():
                touched = dispatcher.carry_out(as_decision(decision), record=False)
                yield
        finally:
            for d in touched:
                dispatcher.refresh(d)


class Dispatcher:
    """Runs a :class:`~solvers.online.protocol.Scheduler` online over an instance, event by event.

    Event times are 0, the releases and the times at which a drive becomes
    free (its last committed request or dismount ends). At each, the
    requests released by then join the waiting list (in release order, ties
    in file order: their order of arrival) and the scheduler is asked for
    decisions until it waits (:meth:`DispatchState.decide`). A scheduler
    with a method ``wake_s(now)`` is asked it after each decision time, as
    the simulator asks it: the time at which it wants to be asked again
    though nothing else happens then (``None``: at the next event only);
    a deferred dismount (:mod:`solvers.online.mount_policy`) is due so.
    Decisions are carried out on an online
    :class:`~solvers.timeline.timeline.Timeline` with the decision time as the
    earliest time of any operation. Drive-free events go on after the last
    request has started, so that a policy may still put tapes away.

    Parameters
    ----------
    instance
        A well-formed instance.
    scheduler
        The policy.
    """

    def __init__(self, instance: Instance, scheduler: Scheduler) -> None:
        self.instance = instance
        self.scheduler = scheduler
        self.timeline = Timeline(instance, online=True)
        self.library_index = {lib.id: i for i, lib in enumerate(instance.libraries)}
        self.now = 0.0
        self.state = DispatchState(self.timeline.library_of, len(instance.libraries))
        """The waiting requests and the idle drives."""
        self._events: list[tuple[float, int]] = []
        for d in range(len(instance.drives)):
            busy_s = self.timeline.available_s(d)
            idle = busy_s <= 0
            self.state.set_idle(d, idle, idle and self.timeline.tape_in(d) is not None)
            if not idle:  # busy at the start (version 2): idle once it is free
                self._events.append((busy_s, d))
        heapq.heapify(self._events)
        self.waiting = self.state.waiting
        """The waiting requests in arrival order (what the scheduler is shown)."""
        requests = instance.requests
        self._arrivals = sorted(range(len(requests)), key=lambda j: (requests[j].release_s, j))
        self._next_arrival = 0
        self.known: dict[str, _Info] = {}
        self._started = False
        self._wake: Callable[[float], float | None] | None = getattr(scheduler, "wake_s", None)
        """The scheduler's ``wake_s(now)``, when it has one (see :class:`Dispatcher`)."""
        self._wakes: list[float] = []
        self._decisions = 0
        """Decisions carried out so far."""
        self._idle_wakes = 0
        """Wake-ups in a row with nothing decided and nothing else left (:data:`MAX_IDLE_WAKES`)."""
        self.view = PlatformView(self)

    def run(self) -> Schedule:
        """Dispatch every request; return the schedule."""
        while self.step():
            pass
        return self.timeline.schedule()

    def info(self, request: Request) -> _Info:
        """What the dispatcher keeps of a released request.

        Raises
        ------
        ValueError
            For a request not released yet (or not of the instance).
        """
        info = self.known.get(request.id)
        if info is None:
            raise ValueError(f"request {request.id!r} is not released at {self.now} s")
        return info

    def next_event_s(self) -> float | None:
        """Time of the next event, ``None`` when none is left."""
        if not self._started:
            return 0.0
        events = self._events
        timeline = self.timeline
        while events and (
            events[0][0] <= self.now or timeline.available_s(events[0][1]) != events[0][0]
        ):
            heapq.heappop(events)
        times = []
        if events:
            times.append(events[0][0])
        if self._next_arrival < len(self._arrivals):
            times.append(self.instance.requests[self._arrivals[self._next_arrival]].release_s)
        wakes = self._wakes
        while wakes and wakes[0] <= self.now:
            heapq.heappop(wakes)
        if wakes:
            times.append(wakes[0])
        return min(times) if times else None

    def step(self) -> bool:
        """Move to the next event time and make every decision due then.

        Returns
        -------
        bool
            ``False`` when no event was left (the dispatch is over).

        Raises
        ------
        LeftWaiting
            (a ``RuntimeError``) when the scheduler waits with requests
            waiting and no event left that could change its mind (but its
            own wake-ups, :data:`~solvers.online.state.MAX_IDLE_WAKES` in a row).
        """
        t = self.next_event_s()
        if t is None:
            if self.waiting:
                raise LeftWaiting(len(self.waiting), self.now)
            return False
        self._started = True
        self.now = max(self.now, float(t))
        now = self.now
        self._admit(now)
        events = self._events
        while events and events[0][0] <= now:
            self.refresh(heapq.heappop(events)[1])
        decided = self._decisions
        self.state.decide(self.scheduler, now, self.view, self._commit)
        if self._wake is not None:
            self._count_idle_wake(decided)
            wake_s = self._wake(now)
            if wake_s is not None and wake_s > now:
                heapq.heappush(self._wakes, float(wake_s))
        return True

    def _commit(self, decision: Decision) -> None:
        self._decisions += 1
        self.carry_out(decision, record=True)

    def _count_idle_wake(self, decided: int) -> None:
        """Count a decision time at which nothing was decided (``decided``: the decisions
        before it) though requests wait, and nothing but a wake-up is left to happen."""
        idle = (
            self._decisions == decided
            and self.waiting
            and not self._events
            and self._next_arrival == len(self._arrivals)
        )
        self._idle_wakes = self._idle_wakes + 1 if idle else 0
        if self._idle_wakes > MAX_IDLE_WAKES:
            raise LeftWaiting(len(self.waiting), self.now)

    def _admit(self, now: float) -> None:
        """Move the requests released by ``now`` to the waiting list."""
        requests = self.instance.requests
        arrivals = self._arrivals
        tape_library = self.timeline.tape_library
        add = self.state.add
        while self._next_arrival < len(arrivals):
            j = arrivals[self._next_arrival]
            request = requests[j]
            if request.release_s > now:
                break
            tapes = tuple(piece.tape for piece in request.pieces)
            self.known[request.id] = _Info(j, tape_library[tapes[0]], tapes, add(request))
            self._next_arrival += 1

    def placement(self, decision: Start) -> tuple[_Info, list[int] | None, float | None]:
        """Request info, drives and ``idle_at`` with which the timeline carries out ``decision``.

        Raises
        ------
        ValueError
            For a request that is not waiting, unknown drives, or a request
            that cannot start when the timeline is to choose among idle drives.
        """
        request = decision.request
        info = self.known.get(request.id)
        if info is None or not self.state.is_waiting(info.arrival):
            raise ValueError(f"request {request.id!r} is not waiting at {self.now} s")
        if decision.drives is not None:
            index = self.timeline.drive_index
            unknown = [d for d in decision.drives if d not in index]
            if unknown:
                raise ValueError(f"request {request.id!r}: unknown drive {unknown[0]!r}")
            return info, [index[d] for d in decision.drives], None
        if decision.queue:
            return info, None, None
        if not self.view.can_start(request):
            raise ValueError(f"request {request.id!r} cannot start at {self.now} s")
        return info, None, self.now

    def carry_out(self, decision: Decision, *, record: bool) -> tuple[int, ...]:
        """Apply ``decision``; return the drives whose state it changed.

        ``record`` false (a trial) leaves the waiting list and the events
        alone.
        """
        timeline, idle = self.timeline, self.state.idle
        touched: tuple[int, ...]
        if isinstance(decision, Dismount):
            d = timeline.drive_index.get(decision.drive)
            if d is None:
                raise ValueError(f"unknown drive {decision.drive!r}")
            timeline.dismount(d, self.now)
            touched = (d,)
        else:
            info, drives, idle_at = self.placement(decision)
            plan = timeline.place(info.number, earliest=self.now, drives=drives, idle_at=idle_at)
            if record:
                self.state.remove(info.arrival)
            touched = (*plan.drives, *plan.sources)
        for d in touched:
            self.refresh(d)
            if record and not idle[d]:
                heapq.heappush(self._events, (timeline.available_s(d), d))
        return touched

    def refresh(self, drive: int) -> None:
        """Bring the idleness of ``drive`` (and per-library counts) up to the timeline's state."""
        timeline = self.timeline
        idle = timeline.available_s(drive) <= self.now
        self.state.set_idle(drive, idle, idle and timeline.tape_in(drive) is not None)


def dispatch(instance: Instance, scheduler: Scheduler) -> Schedule:
    """The schedule that ``scheduler`` makes of ``instance``, dispatched online."""
    return Dispatcher(instance, scheduler).run()


def solve_online(instance: Instance, scheduler: Scheduler, name: str) -> Result:
    """``scheduler`` dispatched over ``instance``, as a solver's result named ``name``.

    The result of every online heuristic, registered or plugged in
    (:mod:`solvers.plugins`): status ``feasible``, the schedule and its
    objective, and :func:`solvers.bounds.bounds.lower_bound` as the bound, so that
    the gap is always visible.
    """
    began = time.perf_counter()
    schedule = dispatch(instance, scheduler)
    assert schedule.objective is not None
    return Result(
        solver=name,
        status=Status.FEASIBLE,
        schedule=schedule,
        objective=schedule.objective.value,
        runtime_s=time.perf_counter() - began,
        bound=lower_bound(instance),
    )
