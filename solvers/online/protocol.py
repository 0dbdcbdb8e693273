"""The scheduling protocol: what an online scheduler is asked, what it may read, what it returns.

The plug point is :class:`Scheduler`, one method: at a decision time it sees
the requests waiting (not started yet, in the order they became waiting) and
a read-only :class:`PlatformState` of the platform, and returns which
request starts next (:class:`Start`, optionally on given drives), which tape
to put away (:class:`Dismount`), or ``None`` to wait. Two loops carry the
protocol out, each asking at every event time until the scheduler waits:
the solvers' :class:`~solvers.online.dispatcher.Dispatcher` over a
core-problem instance, and the simulator's
:class:`~simulator.run.simulation.Simulation` over its platform. Both keep the
waiting requests and the idle drives in one
:class:`~solvers.online.state.DispatchState`, so that what a scheduler reads
means the same in both; what a scheduler may read is :class:`PlatformState`,
and nothing else.

When a request may start
    A request *waits for a tape* while one of its tapes is in a drive that is
    busy (has work committed after the decision time); it *can start* when
    it does not wait for a tape and its library has at least as many idle
    drives as it has pieces. By default (:class:`Start` with ``queue``
    false) a request starts on idle drives only, those the dispatcher finds
    best for it; this is how a tape system's queue works, and what lets a
    scheduler reorder requests that compete for drives.

Arrival
    The requests are shown, and ranked by :meth:`PlatformState.arrival`, in
    the order in which they became waiting. Over a core-problem instance
    that is release order, ties in file order. In the simulator a request
    for a file becomes waiting only when the earlier request for that file
    has its data, so a later release may come first: a scheduler taking the
    oldest first takes the one that has waited longest as a waiting request.

Optional fast paths
    A platform state may answer two questions in one call that the
    protocol's methods answer request by request or drive by drive:
    ``not_waiting_for_tape(waiting)`` (:func:`solvers.online.heuristics.unblocked`)
    and ``idle_peers(drive)`` (read by
    :class:`~solvers.online.mount_policied.MountPolicied` when it evicts).
    The simulator's state has both; without them the callers ask the
    methods above, with the same answers.

Example
-------
A scheduler of one's own, smallest request first among those that can start::

    class SmallestFirst:
        def decide(self, now, waiting, platform):
            ready = [r for r in waiting if platform.can_start(r)]
            return Start(min(ready, key=lambda r: r.size_mb)) if ready else None

    schedule = dispatch(instance, SmallestFirst())

(:func:`~solvers.online.dispatcher.dispatch`; the online heuristics of the
registry are in :mod:`solvers.online.heuristics`.)
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, NamedTuple, Protocol

from attrs import frozen

from tapesched.toolkit.model import Request

if TYPE_CHECKING:  # numpy is imported only when a serpentine locate is ordered
    from tapesched.toolkit.hardware.tape_geometry import LocateModel, SerpentineTape


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
    """What a scheduler may read of a platform: the plug point's other half.

    :class:`~solvers.online.dispatcher.PlatformView` implements it over a
    core-problem dispatch, :class:`~simulator.run.simulation_state.SimulationState`
    over the simulator's live platform, so that each scheduler runs unchanged
    in both; a scheduler may read these methods and nothing else. Drives and
    tapes are named by id, libraries by id or by their number (0, 1, ... in
    the order of :meth:`idle_counts`). A drive is *idle* when it has nothing
    to do after the decision time; a tape is *held* by a drive from its
    mount to its dismount.
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

    def peers(self, drive: str) -> Sequence[str]:
        """Drives that may stand in for ``drive`` in a placement (``drive`` included).

        Those of its library over an instance; in the simulator those of its
        mover (a library without movers is one mover), whose drives a
        request's pieces share. A mount policy choosing which idle drive's
        tape to evict (:mod:`solvers.online.mount_policy`) chooses among them
        (on drives of unequal timings it then chooses the drive's speed too).
        """
        ...

    def tape_in(self, drive: str) -> str | None:
        """Tape ``drive`` holds, or will hold once its committed work is done."""
        ...

    def head_mb(self, drive: str) -> float:
        """Head offset of ``drive`` once its committed work is done."""
        ...

    def available_s(self, drive: str) -> float:
        """When ``drive`` is expected done with the work committed to it (``now`` if idle).

        The dispatcher knows it exactly; the simulator estimates it from
        mean durations (a running job's expected end, then the expected
        services of the requests reserving the drive), so that a job running
        late shows a time already past.
        """
        ...

    def holder(self, tape: str) -> str | None:
        """Drive holding ``tape`` (once committed work is done), or ``None``."""
        ...

    def arrival(self, request: Request) -> int:
        """Rank of ``request`` in the order requests became waiting (rising along ``waiting``).

        Release order, ties in file order, over a core-problem instance; see
        *Arrival* in the module's description for the simulator.
        """
        ...

    def is_waiting(self, request: Request) -> bool:
        """Whether ``request`` is waiting (released, or admitted, and not started)."""
        ...

    def waiting_on(self, tape: str) -> Sequence[Request]:
        """Waiting requests with a piece on ``tape``, in arrival order."""
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

    def locate_geometry(self, drive: str) -> tuple[SerpentineTape, LocateModel] | None:
        """The tape ``drive`` holds and its locate model, when the drive's locates are serpentine.

        ``None`` for a drive that locates linearly or holds no tape. A block
        of the tape is a byte (offset ``x`` MB is block ``round(x * 10**6)``),
        and the model is the one that times the drive's locates
        (:meth:`toolkit.model.Locate.geometry`), so that an order of reads
        chosen on it (:mod:`solvers.recall_order`) is chosen under the
        times the run then pays.
        """
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
    """What a dispatcher asks at each decision time: the plug point of every scheduler.

    A scheduler must decide from what it is shown only: the decision time,
    the waiting requests (released, not started) and the platform's state.
    That, and the dispatcher acting at the decision time, makes a scheduler
    online. Any object with this one method is a scheduler, ours or a
    user's (:mod:`solvers.plugins` finds one by ``module.path:Attr`` or by
    an entry point); this is its whole contract.

    When it is asked
        At every event time: time 0, each release (in the simulator, each
        admission of a file request: its arrival, or the end of the earlier
        request for its file), each time a drive becomes free. At one
        time it is asked again and again until it returns ``None``; each
        decision is carried out before the next call, so the next call sees
        its effect (the request gone from ``waiting``, its drives busy).

    What it may read
        ``now``; the ``waiting`` requests, in arrival order, each a
        :class:`~toolkit.model.Request` (``id``, ``release_s``, ``weight``,
        ``kind``, ``pieces`` of ``tape``, ``offset_mb`` and ``size_mb``,
        and ``size_mb`` in all); and the methods of :class:`PlatformState`,
        which both loops implement (the dispatcher's view of a core-problem
        instance, the simulator's state of its platform): idle drives and
        their counts per library, which tape a drive holds, where its head
        is and when it is done, which drive holds a tape, the waiting
        requests on a tape, whether a request waits for a tape, can start
        now or has all its tapes loaded, its locate and expected service,
        a serpentine drive's tape geometry and locate model, its rank of
        arrival, and :meth:`PlatformState.plan` and
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
            Requests waiting at ``now`` (released, or admitted, and not
            started) in arrival order, the order in which they became
            waiting (:meth:`PlatformState.arrival`): a live read-only
            sequence, valid during the call; iterating it lazily costs only
            what is read.
        platform
            Read-only state of the platform at ``now``.
        """
        ...
