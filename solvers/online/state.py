"""What both loops of the scheduling protocol keep between decisions: one object for both.

The solvers' :class:`~solvers.online.dispatcher.Dispatcher` (over a
core-problem instance) and the simulator's
:class:`~simulator.run.simulation.Simulation` (over its platform) each run the
protocol of :mod:`solvers.online.protocol`: requests become waiting, drives
become idle or busy, and at each event the scheduler is asked until it
waits. A :class:`DispatchState` keeps, for both, the waiting requests (in
the order they became waiting, by rank and by tape) and the idle drives
(with the idle drives holding a tape and the count per library), and runs
the ask-until-it-waits loop (:meth:`DispatchState.decide`). Each loop says
when a request becomes waiting or starts, and when a drive's idleness
changes; what the scheduler reads is computed from this one object, so that
a rank of arrival, a waiting list or an idle count means the same in both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import overload

from tapesched.solvers.online.protocol import Decision, Dismount, PlatformState, Scheduler, Start
from tapesched.toolkit.model import Request
from tapesched.toolkit.runtime.plugin_calls import PluginFault


class WaitingRequests(Sequence[Request]):
    """The waiting requests in arrival order, read live from a :class:`DispatchState`."""

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


_DECISIONS = (Start, Dismount)


class NotADecision(PluginFault, TypeError):
    """A scheduler's ``decide`` returned neither a decision nor ``None``."""


class BadDecision(PluginFault, ValueError):
    """A scheduler's decision that cannot be carried out."""


MAX_IDLE_WAKES = 100_000
"""Wake-ups in a row at which a scheduler decides nothing, with requests waiting and nothing
else left to happen, after which it is found to wait for ever (:class:`LeftWaiting`): a
scheduler that asks to be woken again and again (``wake_s``) would otherwise never let a run
end."""


class LeftWaiting(PluginFault, RuntimeError):
    """A scheduler waits with requests waiting and nothing left that could change its mind
    (but its own wake-ups, :data:`MAX_IDLE_WAKES` in a row)."""

    def __init__(self, count: int, now: float) -> None:
        super().__init__(
            "decide", f"left {count} requests waiting at {now} s with nothing left to wait for"
        )


def as_decision(decision: object) -> Decision:
    """``decision`` if it is a :class:`Start` or a :class:`Dismount`.

    Raises
    ------
    NotADecision
        (a ``TypeError``) for anything else (the protocol's answer to a
        scheduler returning it).
    """
    if isinstance(decision, (Start, Dismount)):
        return decision
    raise NotADecision("decide", f"returned {decision!r:.80}: not a Start, a Dismount or None")


class DispatchState:
    """The waiting requests and the idle drives of one run of the protocol.

    Requests are numbered by *rank of arrival*, 0, 1, ... in the order they
    are added (:meth:`add`): the order in which they became waiting, which
    is the order of :attr:`waiting` and what
    :meth:`~solvers.online.protocol.PlatformState.arrival` answers. Drives
    are numbered by their index in the platform, each in a library
    (numbered too); all start idle and holding no tape.

    Parameters
    ----------
    drive_library
        Number of the library of each drive, by drive index.
    libraries
        Number of libraries.

    Attributes
    ----------
    waiting
        The waiting requests in arrival order, a live read-only sequence
        (what the scheduler is shown).
    by_rank
        The waiting requests by rank of arrival, in that order.
    by_tape
        For each tape, the waiting requests with a piece on it, by rank.
    idle
        Whether each drive is idle, by index.
    idle_set
        The idle drives' indices.
    idle_holding
        The idle drives holding a tape.
    idle_count
        Number of idle drives of each library, by library number.
    """

    __slots__ = (
        "arrived",
        "by_rank",
        "by_tape",
        "drive_library",
        "idle",
        "idle_count",
        "idle_holding",
        "idle_set",
        "waiting",
    )

    def __init__(self, drive_library: Sequence[int], libraries: int) -> None:
        self.drive_library = tuple(drive_library)
        self.idle = [True] * len(self.drive_library)
        self.idle_set = set(range(len(self.drive_library)))
        self.idle_holding: set[int] = set()
        self.idle_count = [0] * libraries
        for lib in self.drive_library:
            self.idle_count[lib] += 1
        self.arrived = 0
        """Requests added so far: the rank of the next."""
        self.by_rank: dict[int, Request] = {}
        self.by_tape: dict[str, dict[int, Request]] = {}
        self.waiting = WaitingRequests(self.by_rank)

    # Waiting requests.

    def add(self, request: Request) -> int:
        """Make ``request`` waiting, last in arrival order; return its rank."""
        rank = self.arrived
        self.arrived = rank + 1
        self.by_rank[rank] = request
        by_tape = self.by_tape
        for piece in request.pieces:
            on_tape = by_tape.get(piece.tape)
            if on_tape is None:
                by_tape[piece.tape] = {rank: request}
            else:
                on_tape[rank] = request
        return rank

    def remove(self, rank: int) -> Request:
        """The waiting request of rank ``rank``, which is waiting no more (it started)."""
        request = self.by_rank.pop(rank)
        by_tape = self.by_tape
        for piece in request.pieces:
            on_tape = by_tape[piece.tape]
            del on_tape[rank]
            if not on_tape:
                del by_tape[piece.tape]
        return request

    def is_waiting(self, rank: int) -> bool:
        """Whether the request of rank ``rank`` is waiting."""
        return rank in self.by_rank

    def waiting_on(self, tape: str) -> tuple[Request, ...]:
        """Waiting requests with a piece on ``tape``, in arrival order."""
        on_tape = self.by_tape.get(tape)
        return tuple(on_tape.values()) if on_tape else ()

    # Idle drives.

    def set_idle(self, drive: int, idle: bool, holding: bool) -> int:
        """Record whether ``drive`` is idle and, if so, whether it holds a tape.

        Returns
        -------
        int
            1 when the drive became idle, -1 when it stopped being idle, 0
            when its idleness is unchanged (for counts kept beside these,
            such as the simulator's per mover).
        """
        step = 0
        if idle != self.idle[drive]:
            self.idle[drive] = idle
            if idle:
                step = 1
                self.idle_set.add(drive)
            else:
                step = -1
                self.idle_set.discard(drive)
            self.idle_count[self.drive_library[drive]] += step
        if idle and holding:
            self.idle_holding.add(drive)
        else:
            self.idle_holding.discard(drive)
        return step

    # The loop.

    def decide(
        self,
        scheduler: Scheduler,
        now: float,
        platform: PlatformState,
        carry_out: Callable[[Decision], object],
    ) -> None:
        """Ask ``scheduler`` at ``now`` until it waits, carrying out each decision before the next.

        The scheduler sees :attr:`waiting` (an empty list too) and
        ``platform``; ``carry_out`` is the loop's own way of making a
        decision happen, which changes this state (through :meth:`remove`
        and :meth:`set_idle`) before the scheduler is asked again.

        Raises
        ------
        NotADecision
            (a ``TypeError``) when the scheduler returns neither a decision
            nor ``None``.
        BadDecision
            (a ``ValueError``) when ``carry_out`` refuses a decision (a
            request that is not waiting or cannot start, an unknown drive,
            a drive without a tape to put away).
        """
        decide, waiting = scheduler.decide, self.waiting
        decision = decide(now, waiting, platform)
        while decision is not None:
            if not isinstance(decision, _DECISIONS):
                as_decision(decision)  # raises NotADecision
            try:
                carry_out(decision)
            except ValueError as exc:
                raise BadDecision("decide", f"returned {decision!r:.120}: {exc}") from exc
            decision = decide(now, waiting, platform)
