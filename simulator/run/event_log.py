"""The event log of a run: one JSON object a line, the simulated time and what happened.

What :class:`~simulator.run.simulation.Simulation` writes to its ``log``
stream and ``tapesched simulate --log`` keeps as ``events.jsonl``. Each line
holds ``t`` (the simulated time in seconds) and ``event``, then the event's
own fields (``request``, ``drive``, ``drives``, ``tape``, ``reason``, ...):

- a request's way: ``arrive``, ``disk-hit`` (served by the disk cache),
  ``reserve`` (drives held for it), ``start``, ``data-done``, ``done``,
  ``failed``; drives one at a time: ``queue`` and ``grant``;
- the scheduler's ejections: ``dismount``;
- faults: ``drive-failed``, ``mover-failed``, ``tape-lost``, ``stopped`` (a
  job a fault stopped), ``repack``, ``repack-dropped``, ``repacked``.
"""

from __future__ import annotations

from typing import IO, Any

import orjson

from tapesched.simulator.kernel.engine import Engine


class EventLog:
    """Writes a run's events to a binary stream, or nothing without one.

    Parameters
    ----------
    stream
        Where the lines go (``None``: nowhere).
    engine
        The run's engine, whose clock times the events.
    """

    __slots__ = ("_engine", "_stream", "on")

    def __init__(self, stream: IO[bytes] | None, engine: Engine) -> None:
        self._stream = stream
        self._engine = engine
        self.on = stream is not None
        """Whether events are written: a caller whose fields cost something to build asks
        first."""

    def __call__(self, event: str, **fields: Any) -> None:
        """Write ``event`` with ``fields`` at the engine's time (nothing without a stream)."""
        if self._stream is not None:
            fields = {"t": self._engine.now_s, "event": event, **fields}
            self._stream.write(orjson.dumps(fields) + b"\n")
