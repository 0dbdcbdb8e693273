"""The online heuristics of the registry, each a :class:`~solvers.online.protocol.Scheduler`.

Each reads the platform through :class:`~solvers.online.protocol.PlatformState`
only, so that it runs unchanged in the solvers' dispatcher
(:mod:`solvers.online.dispatcher`) and in the simulator; each is registered
as a solver too (``fifo``, ``wspt``, ...: the heuristic dispatched over an
instance, :func:`~solvers.online.dispatcher.solve_online`).

Heuristics (``decide`` of each class below)
    Every heuristic ranks the waiting requests that do not wait for a tape and
    starts the first one ranked that can start. Within a library the order
    is kept: when the first-ranked request of a library lacks idle drives,
    the requests ranked after it in that library wait as well, except under
    :class:`Backfill`, which lets them go ahead when that does not delay it.
    Ties go to the order of arrival (:meth:`PlatformState.arrival`: release
    order over an instance, ties in file order). Expected service, used by
    ``wspt`` and ``stretch``, is a request's time alone on an idle platform
    whose drives are empty (:func:`toolkit.metrics.alone_s`).

    - ``fifo`` (:class:`Fifo`): oldest first (in arrival order).
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
      drives first, shortest locate first (under each drive's locate
      model), then the others oldest first.

    On a drive with a serpentine locate model, which of the requests on its
    tape ``tape-batching`` and ``sltf`` read first is an orderer's choice
    (:class:`~solvers.online.read_order.ReadOrder`,
    :mod:`solvers.recall_order`): ``offset`` (block order, from the head
    forward) and ``sltf`` (shortest locate from the head under the model) by
    default, any orderer given to the class
    (``Sltf(orderer=exact_order)``) otherwise. The default orderers choose
    as the keys above do, so that they change no schedule; on linear
    drives no orderer is asked.
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
      heuristic keeps tapes mounted until a switch needs the drive or the tape.

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
    :class:`~solvers.online.dispatcher.Dispatcher` it gives greedy's
    schedule.

:data:`SCHEDULERS` gives a fresh scheduler of each online heuristic of the
solver registry by its registered name, ``greedy`` included, for whoever
dispatches them (the registered solvers here, a simulator). A scheduler of
one's own is found by ``module.path:Attr`` or by an installed package's
entry point: :mod:`solvers.plugins`.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from tapesched import solvers
from tapesched.solvers.online.dispatcher import solve_online
from tapesched.solvers.online.protocol import Decision, Dismount, PlatformState, Scheduler, Start
from tapesched.solvers.online.read_order import ORDER_TIME_LIMIT_S, ReadOrder
from tapesched.solvers.result import Result
from tapesched.toolkit.model import Instance, Request

if TYPE_CHECKING:  # the orderers need numpy, OR-Tools and SciPy: imported when used
    from tapesched.solvers.recall_order import Orderer

EPS = 1e-9
"""Slack, in seconds, under which a backfilled request is deemed not to delay a gang."""

BACKFILL_DEPTH = 4
"""Most requests :class:`Backfill` tries, per library and decision, ahead of a blocked gang."""


def first_startable(requests: Iterable[Request], platform: PlatformState) -> Request | None:
    """The first of ``requests`` that can start, the order being kept within each library.

    Requests that wait for a tape are passed over; the first request of a
    library that lacks idle drives holds back the later ones of that
    library. ``requests`` is read lazily, and no further than needed.
    """
    idle_count = platform.idle_counts()
    open_libraries = 0
    for count in idle_count:
        if count > 0:
            open_libraries += 1
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


def unblocked(waiting: Sequence[Request], platform: PlatformState) -> Sequence[Request]:
    """The requests of ``waiting`` that do not wait for a tape, in the order of ``waiting``.

    A platform may answer this itself, from an index it keeps, with a
    method ``not_waiting_for_tape(waiting)`` (not part of
    :class:`PlatformState`: optional) returning that list, or ``None`` when
    it cannot (``waiting`` is not its own waiting list, a trial is open);
    the simulator's state does (:class:`simulator.run.simulation_state.SimulationState`),
    so that a scheduler does not test, at every decision, each request held
    back by a tape in use. Otherwise ``waiting`` itself is returned: the
    callers (:func:`first_startable`, :func:`_loaded`) pass over such
    requests anyway, so either answer gives the same decision.
    """
    fast = getattr(platform, "not_waiting_for_tape", None)
    if fast is not None:
        found: Sequence[Request] | None = fast(waiting)
        if found is not None:
            return found
    return waiting


class Fifo:
    """Oldest first: arrival order (over an instance, release order, ties in file order)."""

    def decide(
        self, now: float, waiting: Sequence[Request], platform: PlatformState
    ) -> Decision | None:
        """The oldest request that can start, unless an older one of its library lacks drives."""
        request = first_startable(unblocked(waiting, platform), platform)
        return None if request is None else Start(request)


def _new_arrivals(waiting: Sequence[Request], seen: set[str]) -> list[Request]:
    """The requests of ``waiting`` not in ``seen``, in arrival order; they join ``seen``.

    New arrivals are last in ``waiting`` (arrival order), so it is read
    backwards, no further than the newest request seen before.
    """
    arrived: list[Request] = []
    for request in reversed(waiting):
        if request.id in seen:
            break
        arrived.append(request)
    arrived.reverse()
    seen.update(request.id for request in arrived)
    return arrived


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
        heap = self._heap
        for request in _new_arrivals(waiting, self._seen):
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
        entries = self._entries
        for request in _new_arrivals(waiting, self._seen):
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


def _loaded(waiting: Sequence[Request], platform: PlatformState) -> list[Request]:
    """The waiting requests whose tapes are all held by idle drives (in no set order).

    Found from the waiting list or from the idle drives' tapes, whichever
    is shorter.
    """
    if len(waiting) <= platform.idle_holding_count():
        return [request for request in waiting if platform.loaded(request)]
    seen: set[str] = set()
    found: list[Request] = []
    for tape in platform.idle_held_tapes():
        for request in platform.waiting_on(tape):
            if request.id not in seen and platform.loaded(request):
                seen.add(request.id)
                found.append(request)
    return found


def _loaded_first(
    waiting: Sequence[Request],
    platform: PlatformState,
    key: Callable[[Request, PlatformState], tuple[float | None, ...]],
    reads: ReadOrder | None = None,
) -> Decision | None:
    """The loaded request of least ``key(request, platform)`` (ties to the oldest), else the
    oldest that can start.

    With ``reads``, a serpentine drive's loaded requests stand for its tape
    by the one its orderer reads first (:meth:`ReadOrder.firsts`).
    """
    if not waiting or not platform.any_idle():
        return None
    # A loaded request does not wait for a tape: both searches read the unblocked ones only.
    waiting = unblocked(waiting, platform)
    if not waiting:
        return None
    loaded = _loaded(waiting, platform)
    if len(loaded) == 1:
        # Alone: its own first read (ReadOrder.firsts) and the least of one.
        return Start(loaded[0])
    if loaded:
        if reads is not None:
            loaded = reads.firsts(loaded, platform)
        return Start(min((key(r, platform), platform.arrival(r), r) for r in loaded)[2])
    request = first_startable(waiting, platform)
    return None if request is None else Start(request)


class TapeBatching:
    """Requests on loaded tapes first, in offset order along each tape; then oldest first.

    Parameters
    ----------
    orderer
        Orders a serpentine drive's requests (:class:`ReadOrder`, given those
        at or past the head first): ``offset``, block order, by default, the
        forward sweep of the key below.
    time_limit_s
        The orderer's time limit at each decision.
    """

    def __init__(
        self, orderer: Orderer | None = None, *, time_limit_s: float = ORDER_TIME_LIMIT_S
    ) -> None:
        self.reads = ReadOrder(orderer, "offset", ahead_first=True, time_limit_s=time_limit_s)

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
        return _loaded_first(waiting, platform, self.key, self.reads)


def _locate_key(request: Request, platform: PlatformState) -> tuple[float | None]:
    return (platform.locate_s(request),)


class Sltf:
    """Requests on loaded tapes first, shortest locate first; then oldest first.

    Parameters
    ----------
    orderer
        Orders a serpentine drive's requests (:class:`ReadOrder`): ``sltf``,
        shortest locate under the drive's model from the head, by default;
        ``exact`` reads them in the cheapest order found from the head,
        recomputed at each decision.
    time_limit_s
        The orderer's time limit at each decision.
    """

    def __init__(
        self, orderer: Orderer | None = None, *, time_limit_s: float = ORDER_TIME_LIMIT_S
    ) -> None:
        self.reads = ReadOrder(orderer, "sltf", time_limit_s=time_limit_s)

    def decide(
        self, now: float, waiting: Sequence[Request], platform: PlatformState
    ) -> Decision | None:
        """The loaded request nearest its heads, else the oldest that can start."""
        return _loaded_first(waiting, platform, _locate_key, self.reads)


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
        for request in unblocked(waiting, platform):
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
    """Another scheduler, with tapes put away as soon as no waiting request needs them.

    When the wrapped scheduler waits, each idle drive holding a tape that no
    waiting request reads unloads it and an arm dismounts it, one decision
    at a time, drives in file order.

    Parameters
    ----------
    inner
        The scheduler choosing which request starts.
    """

    def __init__(self, inner: Scheduler) -> None:
        self.inner = inner

    def decide(
        self, now: float, waiting: Sequence[Request], platform: PlatformState
    ) -> Decision | None:
        """The wrapped scheduler's decision, else a dismount of an unneeded tape, else wait."""
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

    Every waiting request is started at once, in arrival order, with
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
    """A fresh ``fifo-dismount-at-once``: :class:`Fifo` inside :class:`DismountAtOnce`."""
    return DismountAtOnce(Fifo())


SCHEDULERS: Mapping[str, Callable[[], Scheduler]] = solvers.registry.SCHEDULERS
"""A fresh scheduler of each online heuristic, by registered name (declared in
:mod:`solvers.registry`, once for the solver and the scheduler)."""


def _registered(name: str, attribute: str, doc: str) -> Callable[..., Result]:
    """The solver ``name``: a fresh scheduler of :data:`SCHEDULERS` dispatched over the instance.

    It must be bound in this module as ``attribute``, where
    :mod:`solvers.registry` declares it. The time limit and seed are
    ignored: a dispatch is one deterministic pass.
    """

    def solver(instance: Instance, *, time_limit_s: float | None = None, seed: int = 0) -> Result:
        return solve_online(instance, SCHEDULERS[name](), name)

    solver.__name__ = solver.__qualname__ = attribute
    solver.__doc__ = doc
    return solver


fifo = _registered("fifo", "fifo", "Dispatch ``instance`` oldest first (:class:`Fifo`).")
wspt = _registered(
    "wspt", "wspt", "Dispatch ``instance`` by weight over expected service (:class:`Wspt`)."
)
stretch = _registered(
    "stretch", "stretch", "Dispatch ``instance`` largest current stretch first (:class:`Stretch`)."
)
tape_batching = _registered(
    "tape-batching",
    "tape_batching",
    "Dispatch ``instance`` loaded tapes first, in offset order (:class:`TapeBatching`).",
)
sltf = _registered(
    "sltf", "sltf", "Dispatch ``instance`` loaded tapes first, shortest locate (:class:`Sltf`)."
)
backfill = _registered(
    "backfill",
    "backfill",
    "Dispatch ``instance`` oldest first with gang-aware backfilling (:class:`Backfill`).",
)
fifo_dismount_at_once = _registered(
    "fifo-dismount-at-once",
    "fifo_dismount_at_once",
    "Dispatch ``instance`` as ``fifo``, dismounting unneeded tapes (:class:`DismountAtOnce`).",
)
