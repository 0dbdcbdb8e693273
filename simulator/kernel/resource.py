"""A server of ``capacity`` identical units with priority classes, FIFO within each.

The platform builds its robot arms on it (a library's arms serve loads
before unloads, FIFO within each, as in the Golubchik model) and may build
drives or mover bandwidth slots the same way; the engine and this class know
nothing of what is served. A request names a priority (lower first) and a
callback run, through the engine, when a unit is granted; the holder gives
the unit back with :meth:`Resource.release`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from tapesched.simulator.kernel.engine import Engine
from tapesched.toolkit.metrics import share


class Resource:
    """``capacity`` units granted to waiting requests by priority, then arrival.

    Parameters
    ----------
    engine
        The engine whose clock and events the resource uses.
    capacity
        Number of units (>= 1).
    priorities
        Number of priority classes; class 0 is served first.

    Attributes
    ----------
    busy
        Units granted and not yet released.
    busy_time_s
        Unit-seconds of service up to the last grant or release
        (:meth:`utilisation` adds what has passed since).
    """

    __slots__ = (
        "_changed_s",
        "_queues",
        "_started_s",
        "_waiting",
        "busy",
        "busy_time_s",
        "capacity",
        "engine",
    )

    def __init__(self, engine: Engine, capacity: int, priorities: int = 1) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be >= 1, got {capacity!r}")
        if priorities < 1:
            raise ValueError(f"priorities must be >= 1, got {priorities!r}")
        self.engine = engine
        self.capacity = capacity
        self.busy = 0
        self.busy_time_s = 0.0
        self._changed_s = engine.now_s
        self._started_s = engine.now_s
        self._waiting = 0
        self._queues: list[deque[tuple[Callable[..., Any], tuple[Any, ...]]]] = [
            deque() for _ in range(priorities)
        ]

    @property
    def waiting(self) -> int:
        """Requests queued and not yet granted."""
        return self._waiting

    def busy_s(self) -> float:
        """Unit-seconds in use since the resource was made, up to now."""
        return self.busy_time_s + self.busy * (self.engine.now_s - self._changed_s)

    def utilisation(self) -> float:
        """Share of unit-time in use since the resource was made (0 before time passes)."""
        return share(self.busy_s(), self.capacity, self.engine.now_s - self._started_s)

    def request(self, priority: int, granted: Callable[..., Any], *args: Any) -> None:
        """Ask for a unit; ``granted(*args)`` runs once one is given.

        A request finding a free unit and nobody waiting is granted at once:
        ``granted`` runs before ``request`` returns (no event, which is what
        makes the common case cheap). Otherwise it queues behind every
        request of its class and of the classes before it, and ``granted``
        runs as an event at the time of the release that frees its unit.
        """
        queues = self._queues
        if not 0 <= priority < len(queues):
            raise ValueError(f"priority must be in [0, {len(queues)}), got {priority!r}")
        busy = self.busy
        if busy < self.capacity and not self._waiting:
            now = self.engine.now_s
            self.busy_time_s += busy * (now - self._changed_s)
            self._changed_s = now
            self.busy = busy + 1
            granted(*args)
            return
        queues[priority].append((granted, args))
        self._waiting += 1

    def release(self) -> None:
        """Give a unit back; the first waiting request, if any, gets it (as an event now)."""
        if self.busy == 0:
            raise RuntimeError("release of a resource with no unit granted")
        if self._waiting:
            self._waiting -= 1
            for queue in self._queues:
                if queue:
                    granted, args = queue.popleft()
                    break
            self.engine.soon(granted, args)
            return
        now = self.engine.now_s
        self.busy_time_s += self.busy * (now - self._changed_s)
        self._changed_s = now
        self.busy -= 1
