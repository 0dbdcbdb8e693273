"""The discrete-event core: a heap of (time, sequence number, callback), and nothing of tapes.

The simulator's speed target (at least five times SimPy on the same model)
rules out a generator or a thread per request: an event here is a plain
callback with its arguments, kept in a binary heap ordered by time and then
by a sequence number. Events at the same time run in the order they were
scheduled, so a run depends on nothing but its inputs and its seeds: the
same seed gives the same run, event for event.

Cancelling an event blanks its callback; the heap drops it when it comes to
the top (lazy deletion), which keeps scheduling and cancelling O(log n).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from heapq import heappop, heappush
from itertools import count
from typing import Any

Callback = Callable[..., Any]
"""What an event runs: any callable, given the arguments it was scheduled with."""


Event = list
"""A scheduled event: ``[time_s, sequence, callback, args]``, as kept in the heap.

A bare list, not an object, because creating one is the engine's most
frequent operation; :meth:`Engine.cancel` blanks its callback, and
:func:`event_time_s` reads its time.
"""

_INF = math.inf


def event_time_s(event: Event) -> float:
    """When ``event`` runs (or would have, once cancelled)."""
    return float(event[0])


class Engine:
    """A simulation clock and its pending events.

    Parameters
    ----------
    start_s
        The clock's time before the first event.

    Examples
    --------
    >>> engine = Engine()
    >>> seen = []
    >>> _ = engine.after(2.0, seen.append, "b")
    >>> _ = engine.after(1.0, seen.append, "a")
    >>> engine.run()
    2
    >>> seen, engine.now_s
    (['a', 'b'], 2.0)
    """

    __slots__ = ("_heap", "_sequence", "_stopped", "events_run", "now_s")

    def __init__(self, start_s: float = 0.0) -> None:
        if not math.isfinite(start_s):
            raise ValueError(f"start_s must be finite, got {start_s!r}")
        self.now_s = float(start_s)
        self.events_run = 0
        self._heap: list[Event] = []
        self._sequence = count()
        self._stopped = False

    def at(self, time_s: float, callback: Callback, *args: Any) -> Event:
        """Schedule ``callback(*args)`` at ``time_s`` (not before the clock)."""
        if not self.now_s <= time_s < _INF:
            raise ValueError(
                f"an event must be at a finite time no earlier than now ({self.now_s!r}), "
                f"got {time_s!r}"
            )
        event = [time_s, next(self._sequence), callback, args]
        heappush(self._heap, event)
        return event

    def after(self, delay_s: float, callback: Callback, *args: Any) -> Event:
        """Schedule ``callback(*args)`` ``delay_s`` seconds from now (``delay_s >= 0``)."""
        if not 0.0 <= delay_s < _INF:
            raise ValueError(f"a delay must be finite and >= 0, got {delay_s!r}")
        event = [self.now_s + delay_s, next(self._sequence), callback, args]
        heappush(self._heap, event)
        return event

    def soon(self, callback: Callback, args: tuple[Any, ...]) -> Event:
        """Schedule ``callback(*args)`` now, after the events already due now.

        :meth:`after` with no delay, for callers that hand on work at the
        current time (a server granting a released unit) and need no checks.
        """
        event = [self.now_s, next(self._sequence), callback, args]
        heappush(self._heap, event)
        return event

    def cancel(self, event: Event) -> None:
        """Keep ``event`` from running (no effect once it has run)."""
        event[2] = None

    @property
    def pending(self) -> int:
        """Events scheduled and not yet run (cancelled ones included until dropped)."""
        return len(self._heap)

    def peek_s(self) -> float:
        """Time of the next event that will run, ``inf`` when none is left."""
        heap = self._heap
        while heap and heap[0][2] is None:
            heappop(heap)
        return heap[0][0] if heap else math.inf

    def stop(self) -> None:
        """End :meth:`run` after the event being run."""
        self._stopped = True

    def run(self, until_s: float | None = None, max_events: int | None = None) -> int:
        """Run events in order of time, then of scheduling; return how many ran.

        Parameters
        ----------
        until_s
            Run the events at or before this time, then set the clock to it
            (the events after it stay pending); ``None``: until none is left.
        max_events
            Stop after this many events; ``None``: no limit.
        """
        if until_s is not None and not until_s >= self.now_s:
            raise ValueError(
                f"until_s must be no earlier than now ({self.now_s!r}), got {until_s!r}"
            )
        heap = self._heap
        ran = 0
        self._stopped = False
        if until_s is None and max_events is None:
            # The common case, without the checks of a limit.
            while heap:
                time_s, _, callback, args = heappop(heap)
                if callback is None:
                    continue
                self.now_s = time_s
                callback(*args)
                ran += 1
                if self._stopped:
                    break
            self.events_run += ran
            return ran
        limit = _INF if until_s is None else until_s
        budget = _INF if max_events is None else max_events
        while heap and ran < budget and not self._stopped:
            event = heappop(heap)
            time_s, _, callback, args = event
            if time_s > limit:
                heappush(heap, event)
                break
            if callback is None:
                continue
            self.now_s = time_s
            callback(*args)
            ran += 1
        self.events_run += ran
        if until_s is not None and not self._stopped and ran < budget:
            self.now_s = until_s
        return ran
