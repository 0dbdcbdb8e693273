"""Online dispatching heuristics: a queue of released requests, served as drives free up.

The plug point is :class:`Scheduler`, one method: at a decision time it sees
the requests released and not yet started (``waiting``, in release order,
ties in file order) and a read-only :class:`PlatformView` of the platform
state, and returns which request starts next (:class:`Start`, optionally on
given drives), which tape to put away (:class:`Dismount`), or ``None`` to
wait. A :class:`Dispatcher` asks it at every event time (a release, or a
drive becoming free) until it waits, and carries out each decision on an
:class:`~solvers.timeline.Timeline` in online mode, so that nothing is done for a
request before the decision that starts it: its unloads, arm operations and
locates begin at the decision time or later, which is at or after its
release. The same timeline places the requests of :mod:`solvers.greedy`, and a
discrete-event simulator can drive a :class:`Dispatcher` step by step
(:meth:`Dispatcher.step`): each heuristic has one implementation.

When a request may start
    A request *waits for a tape* while one of its tapes is in a drive that is
    busy (has work committed after the decision time); it *can start* when
    it does not wait for a tape and its library has at least as many idle
    drives as it has pieces. By default (:class:`Start` with ``queue``
    false) a request starts on idle drives only, those the timeline finds
    best for it; this is how a tape system's queue works, and what lets a
    policy reorder requests that compete for drives.

Policies (``decide`` of each class below)
    Every policy ranks the waiting requests that do not wait for a tape and
    starts the first one ranked that can start. Within a library the order
    is kept: when the first-ranked request of a library lacks idle drives,
    the requests ranked after it in that library wait as well, except under
    :class:`Backfill`, which lets them go ahead when that does not delay it.
    Ties go to release order, then file order. Expected service, used by
    ``wspt`` and ``stretch``, is a request's time alone on an idle platform
    whose drives are empty (:func:`toolkit.metrics.alone_s`).

    - ``fifo`` (:class:`Fifo`): oldest first.
    - ``wspt`` (:class:`Wspt`): largest weight over expected service first.
    - ``stretch`` (:class:`Stretch`): largest current stretch first, the
      stretch being ``(now - release + service) / service``, the slow-down
      the request would suffer if it started now and ran as if alone; the
      most slowed-down request goes first (highest response ratio next).
      This is the rule aiming at the smallest stretch: taking the least
      slowed-down request first would favour each newcomer and starve the
      oldest requests.
    - ``tape-batching`` (:class:`TapeBatching`): requests whose tapes are all
      loaded in idle drives first, in logical-offset order on each tape (by
      the offset of the first piece: the smallest at or past the head, then
      wrapping to the smallest: one forward sweep, as BNL's ERADAT and LTFS
      ordered copy read a tape), then the others oldest first.
    - ``sltf`` (:class:`Sltf`): requests whose tapes are all loaded in idle
      drives first, shortest locate first, then the others oldest first.
    - ``backfill`` (:class:`Backfill`): oldest first, but when the oldest
      request of a library lacks idle drives (a wide gang), a later request
      of that library that can start goes ahead if, once it is placed, the
      timeline still gets the gang ready as early as before (its start on the
      best drives, busy ones included, is not later): EASY backfilling, the
      first-fit idea of Golubchik, Muntz and Watson's Section 6. At most
      :data:`BACKFILL_DEPTH` requests are tried per library and decision.
    - ``fifo-dismount-at-once`` (:class:`DismountAtOnce` around
      :class:`Fifo`): as ``fifo``, but an idle drive unloads and dismounts
      its tape as soon as no waiting request needs it, where every other
      policy keeps tapes mounted until a switch needs the drive or the tape.

``fifo`` versus ``greedy``
    The ``greedy`` list scheduler commits every request at its release, onto
    the drives that would complete it first even when they are still busy
    (it queues behind them). ``fifo`` starts a request only when drives are
    idle for it and chooses among idle drives, and a request waits while its
    tape is busy. They coincide when every request finds idle drives at its
    release and no busy drive would serve it earlier; under load they
    differ, either way. On the spec's example greedy locates d0 for the
    gang r3 while d1 still reads r1 (39.0); fifo waits for d1 (43.05).
    :class:`ReleaseOrder` is ``greedy`` written as a scheduler (each
    request started at its release with ``queue``): run by a
    :class:`Dispatcher` it gives greedy's schedule.

:data:`SCHEDULERS` gives a fresh scheduler of each online heuristic of the
solver registry by its registered name, ``greedy`` included, for whoever
dispatches them (the registered solvers here, a simulator). A scheduler of
one's own is found by ``module.path:Attr`` or by an installed package's
entry point: :mod:`solvers.plugins`.

Example
-------
A policy of one's own, smallest request first among those that can start::

    class SmallestFirst:
        def decide(self, now, waiting, platform):
            ready = [r for r in waiting if platform.can_start(r)]
            return Start(min(ready, key=lambda r: r.size_mb)) if ready else None

    schedule = dispatch(instance, SmallestFirst())
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import NamedTuple, Protocol, overload

from attrs import frozen

import solvers.registry
from solvers.bounds import lower_bound
from solvers.result import Result, Status
from solvers.timeline import Timeline
from toolkit.metrics import alone_s, fastest_first
from toolkit.model import Drive, Instance, Request, Schedule

EPS = 1e-9
"""Slack, in seconds, under which a backfilled request is deemed not to delay a gang."""

BACKFILL_DEPTH = 4
"""Most requests :class:`Backfill` tries, per library and decision, ahead of a blocked gang."""


@frozen
class Start:
    """Decision: start ``request`` now.

    Attributes
    ----------
    request
        A waiting request.
    drives
        Drive ids, one per piece in piece order, for the request to run on
        (they may be busy: it then waits for them); by default the timeline
        chooses among the drives idle now, and the request must be able to
        start.
    queue
        Without ``drives``: let the timeline choose among all drives of the
        library, busy ones included (the request queues behind their work),
        as ``greedy`` does; the request need not be able to start.
    """

    request: Request
    drives: tuple[str, ...] | None = None
    queue: bool = False


@frozen
class Dismount:
    """Decision: unload and dismount the tape in ``drive`` now (or once it is free)."""

    drive: str


Decision = Start | Dismount


class Preview(NamedTuple):
    """Where and when a request would run: its drives (ids), start and end."""

    drives: tuple[str, ...]
    start: float
    end: float


class PlatformState(Protocol):
    """What a policy may read of a platform: the plug point's other half.

    :class:`PlatformView` implements it over a core-problem dispatch; the
    simulator implements it over its live platform, so that each policy of
    this module runs unchanged in both. Drives and tapes are named by id,
    libraries by id or by their number (0, 1, ... in the order of
    :meth:`idle_counts`). A drive is *idle* when it has nothing to do after
    the decision time; a tape is *held* by a drive from its mount to its
    dismount.
    """

    @property
    def now(self) -> float:
        """The decision time."""
        ...

    def service_s(self, request: Request) -> float:
        """Expected service of ``request``: its time alone on an idle platform."""
        ...

    def any_idle(self) -> bool:
        """Whether some drive is idle."""
        ...

    def is_idle(self, drive: str) -> bool:
        """Whether ``drive`` has nothing to do after now."""
        ...

    def idle_count(self, library: str) -> int:
        """Number of idle drives of ``library``."""
        ...

    def idle_counts(self) -> Sequence[int]:
        """Number of idle drives of each library, by library number."""
        ...

    def library_number(self, request: Request) -> int:
        """Number of the library ``request`` runs in (an index of :meth:`idle_counts`)."""
        ...

    def idle_drives(self, *, holding: bool = False) -> list[str]:
        """Idle drives in platform order; with ``holding``, only those holding a tape."""
        ...

    def idle_holding_count(self) -> int:
        """Number of idle drives holding a tape."""
        ...

    def idle_held_tapes(self) -> Iterator[str]:
        """Tapes held by idle drives (in no set order)."""
        ...

    def tape_in(self, drive: str) -> str | None:
        """Tape ``drive`` holds, or will hold once its committed work is done."""
        ...

    def head_mb(self, drive: str) -> float:
        """Head offset of ``drive`` once its committed work is done."""
        ...

    def holder(self, tape: str) -> str | None:
        """Drive holding ``tape`` (once committed work is done), or ``None``."""
        ...

    def arrival(self, request: Request) -> int:
        """Rank of ``request`` in release order (ties in file order)."""
        ...

    def is_waiting(self, request: Request) -> bool:
        """Whether ``request`` is released and not started."""
        ...

    def waiting_on(self, tape: str) -> Sequence[Request]:
        """Waiting requests with a piece on ``tape``, in release order."""
        ...

    def waits_for_tape(self, request: Request) -> bool:
        """Whether one of ``request``'s tapes is in a busy drive."""
        ...

    def can_start(self, request: Request) -> bool:
        """Whether ``request`` can start now on idle drives."""
        ...

    def loaded(self, request: Request) -> bool:
        """Whether every tape of ``request`` is held by an idle drive (no mount needed)."""
        ...

    def locate_s(self, request: Request) -> float | None:
        """Longest locate of ``request``'s pieces from the heads, when :meth:`loaded`."""
        ...

    def plan(
        self, request: Request, drives: tuple[str, ...] | None = None, queue: bool = False
    ) -> Preview:
        """Where and when ``request`` would run if started now as :class:`Start` says."""
        ...

    def trial(self, decision: Decision) -> AbstractContextManager[None]:
        """A block inside which the state shows ``decision`` carried out; undone on exit."""
        ...


class Scheduler(Protocol):
    """What a dispatcher asks at each decision time: the plug point of every policy.

    A scheduler must decide from what it is shown only: the decision time,
    the waiting requests (released, not started) and the platform's state.
    That, and the dispatcher acting at the decision time, makes a policy
    online. Any object with this one method is a scheduler, ours or a
    user's (:mod:`solvers.plugins` finds one by ``module.path:Attr`` or by
    an entry point); this is its whole contract.

    When it is asked
        At every event time: time 0, each release (in the simulator, each
        admission of a file request), each time a drive becomes free. At one
        time it is asked again and again until it returns ``None``; each
        decision is carried out before the next call, so the next call sees
        its effect (the request gone from ``waiting``, its drives busy).

    What it may read
        ``now``; the ``waiting`` requests, each a
        :class:`~toolkit.model.Request` (``id``, ``release_s``, ``weight``,
        ``kind``, ``pieces`` of ``tape``, ``offset_mb`` and ``size_mb``,
        and ``size_mb`` in all); and the methods of :class:`PlatformState`,
        which every dispatcher implements (:class:`PlatformView` over a
        core-problem instance, the simulator's state over its platform):
        idle drives and their counts per library, which tape a drive holds
        and where its head is, which drive holds a tape, the waiting
        requests on a tape, whether a request waits for a tape, can start
        now or has all its tapes loaded, its locate and expected service,
        its rank of arrival, and :meth:`PlatformState.plan` and
        :meth:`PlatformState.trial` to preview a decision without making
        it. Nothing else is promised: a scheduler that reads more of one
        dispatcher's objects will not run in the other.

    What it returns
        - ``Start(request)``: start a request of ``waiting`` now, on the
          idle drives the timeline finds best for it; the request must be
          able to start (:meth:`PlatformState.can_start`).
        - ``Start(request, queue=True)``: start it on the drives of its
          library that complete it first, busy ones included; it then
          waits for them (``greedy``'s way). Any waiting request may be so
          started.
        - ``Start(request, drives=(...))``: start it on these drives, one
          drive id per piece in piece order, of its library; busy drives
          are waited for.
        - ``Dismount(drive)``: unload ``drive``'s tape and put it away, now
          or once the drive is done.
        - ``None``: nothing more now; it is asked again at the next event.

        Starting a request that is not waiting, or one that cannot start
        without ``queue`` or ``drives``, is a ``ValueError`` of the
        dispatcher; returning anything else is a ``TypeError``. A scheduler
        that returns ``None`` while requests wait and nothing is left to
        happen (every drive idle, no release to come) would wait for ever:
        the dispatcher raises ``RuntimeError``.

    Its own state
        It may keep state between the calls of one run (a heap of ranks,
        say), and must not keep ``waiting`` or change anything it is shown.
        Each run gets a scheduler of its own (a fresh one from a class or
        factory, a copy of an object given as it is). Anything random must
        come from a generator it seeds itself, so that a run repeats.
    """

    def decide(
        self, now: float, waiting: Sequence[Request], platform: PlatformState
    ) -> Decision | None:
        """The next decision at time ``now``, or ``None`` to wait for the next event.

        Parameters
        ----------
        now
            Decision time, in seconds.
        waiting
            Requests released by ``now`` and not started, in release order
            (ties in file order): a live read-only sequence, valid during
            the call; iterating it lazily costs only what is read.
        platform
            Read-only state of the platform at ``now``.
        """
        ...


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
    """What the dispatcher keeps of a request: index, library index, tapes, arrival rank."""

    number: int
    library: int
    tapes: tuple[str, ...]
    arrival: int


class WaitingRequests(Sequence[Request]):
    """The waiting requests in release order, read live from the dispatcher (read-only)."""

    def __init__(self, items: dict[int, Request]) -> None:
        self._items = items

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Request]:
        return iter(self._items.values())

    def __reversed__(self) -> Iterator[Request]:
        return reversed(self._items.values())

    @overload
    def __getitem__(self, index: int) -> Request: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Request]: ...

    def __getitem__(self, index: int | slice) -> Request | Sequence[Request]:
        if index == 0:
            for request in self._items.values():
                return request
        return list(self._items.values())[index]


class PlatformView:
    """What a scheduler may read of the platform at a decision time.

    Drives and tapes are named by id. A drive is *idle* when it has nothing
    to do after the decision time; a tape is *held* by a drive from its
    mount to its dismount, and the state shown is the one at the end of the
    work committed so far (a busy drive's tape and head once it is done).
    """

    def __init__(self, dispatcher: Dispatcher) -> None:
        self._dispatcher = dispatcher
        self._timeline = dispatcher.timeline
        self.instance = dispatcher.instance
        self.service_s = ServiceTimes(dispatcher.instance)
        """Expected service of a request (see :class:`ServiceTimes`)."""

    @property
    def now(self) -> float:
        """The decision time."""
        return self._dispatcher.now

    def any_idle(self) -> bool:
        """Whether some drive is idle."""
        return bool(self._dispatcher.idle_set)

    def is_idle(self, drive: str) -> bool:
        """Whether ``drive`` has nothing to do after now."""
        return self._dispatcher.idle[self._timeline.drive_index[drive]]

    def idle_count(self, library: str) -> int:
        """Number of idle drives of ``library``."""
        return self._dispatcher.idle_count[self._dispatcher.library_index[library]]

    def idle_counts(self) -> Sequence[int]:
        """Number of idle drives of each library, in file order of the libraries."""
        return self._dispatcher.idle_count

    def library_number(self, request: Request) -> int:
        """Index of ``request``'s library in file order."""
        return self._dispatcher.info(request).library

    def idle_drives(self, *, holding: bool = False) -> list[str]:
        """Idle drives in file order; with ``holding``, only those holding a tape."""
        dispatcher = self._dispatcher
        drives = dispatcher.idle_holding if holding else dispatcher.idle_set
        ids = self._timeline.drive_ids
        return [ids[d] for d in sorted(drives)]

    def idle_holding_count(self) -> int:
        """Number of idle drives holding a tape."""
        return len(self._dispatcher.idle_holding)

    def idle_held_tapes(self) -> Iterator[str]:
        """Tapes held by idle drives."""
        tape_in = self._timeline.tape_in
        for d in self._dispatcher.idle_holding:
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
        """When ``drive`` is done with the work committed to it."""
        return self._timeline.available_s(self._timeline.drive_index[drive])

    def holder(self, tape: str) -> str | None:
        """Drive holding ``tape`` (once committed work is done), or ``None``."""
        d = self._timeline.holder(tape)
        return None if d is None else self._timeline.drive_ids[d]

    def library_of(self, request: Request) -> str:
        """Id of the library of ``request``'s tapes."""
        return self._timeline.library_ids[self._dispatcher.info(request).library]

    def arrival(self, request: Request) -> int:
        """Rank of ``request`` in release order (ties in file order)."""
        return self._dispatcher.info(request).arrival

    def is_waiting(self, request: Request) -> bool:
        """Whether ``request`` is released and not started."""
        info = self._dispatcher.known.get(request.id)
        return info is not None and info.number in self._dispatcher.waiting_by_index

    def waiting_on(self, tape: str) -> tuple[Request, ...]:
        """Waiting requests with a piece on ``tape``, in release order."""
        on_tape = self._dispatcher.waiting_by_tape.get(tape)
        return tuple(on_tape.values()) if on_tape else ()

    def waits_for_tape(self, request: Request) -> bool:
        """Whether one of ``request``'s tapes is in a busy drive."""
        where, idle = self._timeline.where, self._dispatcher.idle
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
        if self._dispatcher.idle_count[info.library] < len(info.tapes):
            return False
        return not self.waits_for_tape(request)

    def loaded(self, request: Request) -> bool:
        """Whether every tape of ``request`` is held by an idle drive (no mount needed).

        Such a request can start.
        """
        where, idle = self._timeline.where, self._dispatcher.idle
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
            longest = max(longest, abs(piece.offset_mb - timeline.head[d]) / timeline.locate[d])
        return longest

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
        j, wanted, idle_at = dispatcher.placement(Start(request, drives, queue))
        plan = self._timeline.plan(j, earliest=dispatcher.now, drives=wanted, idle_at=idle_at)
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
                touched = dispatcher.carry_out(decision, record=False)
                yield
        finally:
            for d in touched:
                dispatcher.refresh(d)


class Dispatcher:
    """Runs a :class:`Scheduler` online over an instance, event by event.

    Event times are 0, the releases and the times at which a drive becomes
    free (its last committed request or dismount ends). At each, the
    requests released by then join the waiting list and the scheduler is
    asked for decisions until it waits. Decisions are carried out on an
    online :class:`~solvers.timeline.Timeline` with the decision time as the
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
        n = len(instance.drives)
        self.idle = [True] * n
        self.idle_set = set(range(n))
        self.idle_holding = {d for d in range(n) if self.timeline.tape_in(d) is not None}
        self.idle_count = [0] * len(instance.libraries)
        for lib in self.timeline.library_of:
            self.idle_count[lib] += 1
        requests = instance.requests
        self._arrivals = sorted(range(len(requests)), key=lambda j: (requests[j].release_s, j))
        self._next_arrival = 0
        self.known: dict[str, _Info] = {}
        self.waiting_by_index: dict[int, Request] = {}
        self.waiting_by_tape: dict[str, dict[int, Request]] = {}
        self.waiting = WaitingRequests(self.waiting_by_index)
        self._events: list[tuple[float, int]] = []
        self._started = False
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
        return min(times) if times else None

    def step(self) -> bool:
        """Move to the next event time and make every decision due then.

        Returns
        -------
        bool
            ``False`` when no event was left (the dispatch is over).

        Raises
        ------
        RuntimeError
            When the scheduler waits with requests waiting and no event left
            that could change its mind.
        """
        t = self.next_event_s()
        if t is None:
            if self.waiting_by_index:
                raise RuntimeError(
                    f"the scheduler leaves {len(self.waiting_by_index)} requests waiting at "
                    f"{self.now} s with nothing left to wait for"
                )
            return False
        self._started = True
        self.now = max(self.now, float(t))
        now = self.now
        self._admit(now)
        events = self._events
        while events and events[0][0] <= now:
            self.refresh(heapq.heappop(events)[1])
        while True:
            decision = self.scheduler.decide(now, self.waiting, self.view)
            if decision is None:
                break
            self.carry_out(decision, record=True)
        return True

    def _admit(self, now: float) -> None:
        """Move the requests released by ``now`` to the waiting list."""
        requests = self.instance.requests
        arrivals = self._arrivals
        tape_library = self.timeline.tape_library
        while self._next_arrival < len(arrivals):
            j = arrivals[self._next_arrival]
            request = requests[j]
            if request.release_s > now:
                break
            tapes = tuple(piece.tape for piece in request.pieces)
            self.known[request.id] = _Info(j, tape_library[tapes[0]], tapes, self._next_arrival)
            self.waiting_by_index[j] = request
            for tape in tapes:
                self.waiting_by_tape.setdefault(tape, {})[j] = request
            self._next_arrival += 1

    def placement(self, decision: Start) -> tuple[int, list[int] | None, float | None]:
        """Request index, drives and ``idle_at`` with which the timeline carries out ``decision``.

        Raises
        ------
        ValueError
            For a request that is not waiting, unknown drives, or a request
            that cannot start when the timeline is to choose among idle drives.
        """
        request = decision.request
        info = self.known.get(request.id)
        if info is None or info.number not in self.waiting_by_index:
            raise ValueError(f"request {request.id!r} is not waiting at {self.now} s")
        j = info.number
        if decision.drives is not None:
            index = self.timeline.drive_index
            unknown = [d for d in decision.drives if d not in index]
            if unknown:
                raise ValueError(f"request {request.id!r}: unknown drive {unknown[0]!r}")
            return j, [index[d] for d in decision.drives], None
        if decision.queue:
            return j, None, None
        if not self.view.can_start(request):
            raise ValueError(f"request {request.id!r} cannot start at {self.now} s")
        return j, None, self.now

    def carry_out(self, decision: Decision, *, record: bool) -> tuple[int, ...]:
        """Apply ``decision``; return the drives whose state it changed.

        ``record`` false (a trial) leaves the waiting list and the events
        alone.
        """
        timeline = self.timeline
        touched: tuple[int, ...]
        if isinstance(decision, Dismount):
            d = timeline.drive_index.get(decision.drive)
            if d is None:
                raise ValueError(f"unknown drive {decision.drive!r}")
            timeline.dismount(d, self.now)
            touched = (d,)
        elif isinstance(decision, Start):
            j, drives, idle_at = self.placement(decision)
            plan = timeline.place(j, earliest=self.now, drives=drives, idle_at=idle_at)
            if record:
                request = self.waiting_by_index.pop(j)
                for piece in request.pieces:
                    on_tape = self.waiting_by_tape[piece.tape]
                    del on_tape[j]
                    if not on_tape:
                        del self.waiting_by_tape[piece.tape]
            touched = (*plan.drives, *plan.sources)
        else:
            raise TypeError(
                f"a scheduler decided {decision!r:.80}: not a Start, a Dismount or None"
            )
        for d in touched:
            self.refresh(d)
            if record and not self.idle[d]:
                heapq.heappush(self._events, (timeline.available_s(d), d))
        return touched

    def refresh(self, drive: int) -> None:
        """Bring the idleness of ``drive`` (and per-library counts) up to the timeline's state."""
        timeline = self.timeline
        idle = timeline.available_s(drive) <= self.now
        if idle != self.idle[drive]:
            self.idle[drive] = idle
            self.idle_count[timeline.library_of[drive]] += 1 if idle else -1
            if idle:
                self.idle_set.add(drive)
            else:
                self.idle_set.discard(drive)
        if idle and timeline.tape_in(drive) is not None:
            self.idle_holding.add(drive)
        else:
            self.idle_holding.discard(drive)


def dispatch(instance: Instance, scheduler: Scheduler) -> Schedule:
    """The schedule that ``scheduler`` makes of ``instance``, dispatched online."""
    return Dispatcher(instance, scheduler).run()


# Policies.


def first_startable(requests: Iterable[Request], platform: PlatformState) -> Request | None:
    """The first of ``requests`` that can start, the order being kept within each library.

    Requests that wait for a tape are passed over; the first request of a
    library that lacks idle drives holds back the later ones of that
    library. ``requests`` is read lazily, and no further than needed.
    """
    idle_count = platform.idle_counts()
    open_libraries = sum(1 for count in idle_count if count > 0)
    if not open_libraries:
        return None
    blocked: set[int] = set()
    library_number = platform.library_number
    for request in requests:
        lib = library_number(request)
        if lib in blocked or not idle_count[lib] or platform.waits_for_tape(request):
            continue
        if platform.can_start(request):
            return request
        blocked.add(lib)
        if len(blocked) == open_libraries:
            return None
    return None


class Fifo:
    """Oldest first (release order, ties in file order)."""

    def decide(
        self, now: float, waiting: Sequence[Request], platform: PlatformState
    ) -> Decision | None:
        """The oldest request that can start, unless an older one of its library lacks drives."""
        request = first_startable(waiting, platform)
        return None if request is None else Start(request)


class Wspt:
    """Largest weight over expected service first (weighted shortest processing time).

    The ranking does not change with time, so it is kept in a heap across
    decisions: new arrivals are pushed (they are at the end of the waiting
    list), started requests dropped when met. An object serves one dispatch.
    """

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, Request]] = []
        self._seen: set[str] = set()

    def key(self, request: Request, platform: PlatformState) -> float:
        """Minus the weight over the expected service (a zero service ranks first)."""
        service = platform.service_s(request)
        return -request.weight / service if service > 0 else -float("inf")

    def decide(
        self, now: float, waiting: Sequence[Request], platform: PlatformState
    ) -> Decision | None:
        """The first-ranked request that can start, unless one ranked before it lacks drives."""
        heap, seen = self._heap, self._seen
        arrived = []
        for request in reversed(waiting):
            if request.id in seen:
                break
            arrived.append(request)
        for request in arrived:
            seen.add(request.id)
            heapq.heappush(heap, (self.key(request, platform), platform.arrival(request), request))
        kept: list[tuple[float, int, Request]] = []
        try:
            chosen = first_startable(self._ranked(kept, platform), platform)
        finally:
            for entry in kept:
                heapq.heappush(heap, entry)
        return None if chosen is None else Start(chosen)

    def _ranked(
        self, kept: list[tuple[float, int, Request]], platform: PlatformState
    ) -> Iterator[Request]:
        """Waiting requests in rank order, popped from the heap into ``kept``."""
        heap = self._heap
        while heap:
            entry = heapq.heappop(heap)
            if platform.is_waiting(entry[2]):
                kept.append(entry)
                yield entry[2]


class Stretch:
    """Largest current stretch first: ``(now - release + service) / service``.

    The stretch grows with time at a rate of one over the service, so the
    order changes between decisions; each decision ranks the waiting
    requests afresh, from their release and service kept since arrival, and
    reads the ranking no further than needed. An object serves one dispatch.
    """

    def __init__(self) -> None:
        self._entries: list[tuple[float, float, int, Request]] = []
        self._seen: set[str] = set()

    def decide(
        self, now: float, waiting: Sequence[Request], platform: PlatformState
    ) -> Decision | None:
        """The most stretched request that can start, unless one ranked before it lacks drives."""
        entries, seen = self._entries, self._seen
        arrived = []
        for request in reversed(waiting):
            if request.id in seen:
                break
            arrived.append(request)
        for request in reversed(arrived):
            seen.add(request.id)
            service = platform.service_s(request)
            if service > 0:
                slope, base = 1.0 / service, 1.0 - request.release_s / service
            else:
                slope, base = 0.0, float("inf")
            entries.append((slope, base, platform.arrival(request), request))
        if len(entries) > 2 * len(waiting):
            entries[:] = [e for e in entries if platform.is_waiting(e[3])]
        if not platform.any_idle():
            return None
        ranked = [
            (-(slope * now + base), arrival, k)
            for k, (slope, base, arrival, _) in enumerate(entries)
        ]
        heapq.heapify(ranked)

        def best_first() -> Iterator[Request]:
            while ranked:
                request = entries[heapq.heappop(ranked)[2]][3]
                if platform.is_waiting(request):
                    yield request

        chosen = first_startable(best_first(), platform)
        return None if chosen is None else Start(chosen)


def _loaded(waiting: Sequence[Request], platform: PlatformState) -> Iterator[Request]:
    """The waiting requests whose tapes are all held by idle drives (in no set order).

    Found from the waiting list or from the idle drives' tapes, whichever
    is shorter.
    """
    if len(waiting) <= platform.idle_holding_count():
        yield from (request for request in waiting if platform.loaded(request))
        return
    seen: set[str] = set()
    for tape in platform.idle_held_tapes():
        for request in platform.waiting_on(tape):
            if request.id not in seen and platform.loaded(request):
                seen.add(request.id)
                yield request


class TapeBatching:
    """Requests on loaded tapes first, in offset order along each tape; then oldest first."""

    def key(self, request: Request, platform: PlatformState) -> tuple[float, float]:
        """``(behind the head, offset)`` of the first piece, for a loaded request."""
        piece = request.pieces[0]
        holder = platform.holder(piece.tape)
        assert holder is not None
        return (1.0 if piece.offset_mb < platform.head_mb(holder) else 0.0, piece.offset_mb)

    def decide(
        self, now: float, waiting: Sequence[Request], platform: PlatformState
    ) -> Decision | None:
        """The next loaded request in the forward sweep, else the oldest that can start."""
        if not platform.any_idle():
            return None
        best = min(
            ((self.key(r, platform), platform.arrival(r), r) for r in _loaded(waiting, platform)),
            default=None,
        )
        if best is not None:
            return Start(best[2])
        request = first_startable(waiting, platform)
        return None if request is None else Start(request)


class Sltf:
    """Requests on loaded tapes first, shortest locate first; then oldest first."""

    def decide(
        self, now: float, waiting: Sequence[Request], platform: PlatformState
    ) -> Decision | None:
        """The loaded request nearest its heads, else the oldest that can start."""
        if not platform.any_idle():
            return None
        best = min(
            ((platform.locate_s(r), platform.arrival(r), r) for r in _loaded(waiting, platform)),
            default=None,
        )
        if best is not None:
            return Start(best[2])
        request = first_startable(waiting, platform)
        return None if request is None else Start(request)


class Backfill:
    """Oldest first; a later request may pass a gang short of drives if it does not delay it.

    Parameters
    ----------
    depth
        Most requests tried per library and decision ahead of a blocked
        gang (each try places the request and the gang tentatively).
    """

    def __init__(self, depth: int = BACKFILL_DEPTH) -> None:
        self.depth = depth

    def decide(
        self, now: float, waiting: Sequence[Request], platform: PlatformState
    ) -> Decision | None:
        """The oldest request that can start, or one that does not delay a blocked gang.

        The first request of a library that cannot start for want of idle
        drives gets a reservation: its start as the timeline would place it
        now on the best drives, busy ones included. A later request of that
        library that can start goes ahead only if, placed first, it leaves
        that start where it was.
        """
        idle_count = platform.idle_counts()
        open_libraries = sum(1 for count in idle_count if count > 0)
        reserved: dict[int, tuple[Request, float]] = {}
        tries: dict[int, int] = {}
        done = 0
        for request in waiting:
            if done == open_libraries:
                break
            lib = platform.library_number(request)
            if not idle_count[lib] or platform.waits_for_tape(request):
                continue
            held = reserved.get(lib)
            if held is None:
                if platform.can_start(request):
                    return Start(request)
                reserved[lib] = (request, platform.plan(request, queue=True).start)
                tries[lib] = 0
                done += self.depth <= 0
                continue
            if tries[lib] >= self.depth or not platform.can_start(request):
                continue
            tries[lib] += 1
            done += tries[lib] == self.depth
            gang, start = held
            decision = Start(request)
            with platform.trial(decision):
                delayed = platform.plan(gang, queue=True).start > start + EPS
            if not delayed:
                return decision
        return None


class DismountAtOnce:
    """Another policy, with tapes put away as soon as no waiting request needs them.

    When the wrapped policy waits, each idle drive holding a tape that no
    waiting request reads unloads it and an arm dismounts it, one decision
    at a time, drives in file order.

    Parameters
    ----------
    inner
        The policy choosing which request starts.
    """

    def __init__(self, inner: Scheduler) -> None:
        self.inner = inner

    def decide(
        self, now: float, waiting: Sequence[Request], platform: PlatformState
    ) -> Decision | None:
        """The wrapped policy's decision, else a dismount of an unneeded tape, else wait."""
        decision = self.inner.decide(now, waiting, platform)
        if decision is not None:
            return decision
        for drive in platform.idle_drives(holding=True):
            tape = platform.tape_in(drive)
            if tape is not None and not platform.waiting_on(tape):
                return Dismount(drive)
        return None


class ReleaseOrder:
    """``greedy`` as a scheduler: each request starts at its release, on the best drives.

    Every waiting request is started at once, in release order, with
    ``queue`` (busy drives allowed); dispatched, this gives the schedule of
    :func:`solvers.greedy.greedy`.
    """

    def decide(
        self, now: float, waiting: Sequence[Request], platform: PlatformState
    ) -> Decision | None:
        """The oldest waiting request, queued on the drives that complete it first."""
        for request in waiting:
            return Start(request, queue=True)
        return None


def fifo_dismounting() -> Scheduler:
    """A fresh ``fifo-dismount-at-once``: :class:`Fifo` putting unneeded tapes away at once."""
    return DismountAtOnce(Fifo())


SCHEDULERS: Mapping[str, Callable[[], Scheduler]] = solvers.registry.SCHEDULERS
"""A fresh scheduler of each online heuristic, by the name :mod:`solvers.registry` declares."""


def solve_online(instance: Instance, scheduler: Scheduler, name: str) -> Result:
    """``scheduler`` dispatched over ``instance``, as a solver's result named ``name``.

    The result of every online heuristic, registered or plugged in
    (:mod:`solvers.plugins`): status ``feasible``, the schedule and its
    objective, and :func:`solvers.bounds.lower_bound` as the bound, so that
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


def _solve(name: str, instance: Instance) -> Result:
    return solve_online(instance, SCHEDULERS[name](), name)


def fifo(instance: Instance, *, time_limit_s: float | None = None, seed: int = 0) -> Result:
    """Dispatch ``instance`` oldest first (:class:`Fifo`); limit and seed are ignored."""
    return _solve("fifo", instance)


def wspt(instance: Instance, *, time_limit_s: float | None = None, seed: int = 0) -> Result:
    """Dispatch ``instance`` by weight over expected service (:class:`Wspt`)."""
    return _solve("wspt", instance)


def stretch(instance: Instance, *, time_limit_s: float | None = None, seed: int = 0) -> Result:
    """Dispatch ``instance`` largest current stretch first (:class:`Stretch`)."""
    return _solve("stretch", instance)


def tape_batching(
    instance: Instance, *, time_limit_s: float | None = None, seed: int = 0
) -> Result:
    """Dispatch ``instance`` loaded tapes first, in offset order (:class:`TapeBatching`)."""
    return _solve("tape-batching", instance)


def sltf(instance: Instance, *, time_limit_s: float | None = None, seed: int = 0) -> Result:
    """Dispatch ``instance`` loaded tapes first, shortest locate first (:class:`Sltf`)."""
    return _solve("sltf", instance)


def backfill(instance: Instance, *, time_limit_s: float | None = None, seed: int = 0) -> Result:
    """Dispatch ``instance`` oldest first with gang-aware backfilling (:class:`Backfill`)."""
    return _solve("backfill", instance)


def fifo_dismount_at_once(
    instance: Instance, *, time_limit_s: float | None = None, seed: int = 0
) -> Result:
    """Dispatch ``instance`` as ``fifo``, dismounting unneeded tapes (:class:`DismountAtOnce`)."""
    return _solve("fifo-dismount-at-once", instance)
