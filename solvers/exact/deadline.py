"""A wall-clock deadline that long model building checks as it goes.

An exact model of a few hundred requests has millions of arcs, and building
it in Python can take longer than the whole time limit. The builders call
:meth:`Deadline.check` in their loops; past the deadline it raises
:class:`OutOfTime`, and the solver returns its warm start with status
``not-built`` instead of overrunning the limit (most such models are not
even begun: :mod:`solvers.exact.model_size` predicts their set-up time).
"""

from __future__ import annotations

import time


class OutOfTime(Exception):
    """The deadline passed while a model was being built."""


class Deadline:
    """A point in ``time.perf_counter()`` time, or none.

    Parameters
    ----------
    at
        The deadline; ``None`` never passes.
    every
        :meth:`check` reads the clock once in this many calls, so that a
        check in an inner loop costs a counter increment.
    """

    def __init__(self, at: float | None, every: int = 1024) -> None:
        self.at = at
        self.every = every
        self._calls = 0

    @classmethod
    def after(cls, seconds: float | None) -> Deadline:
        """The deadline ``seconds`` from now (``None``: none)."""
        return cls(None if seconds is None else time.perf_counter() + seconds)

    def left_s(self) -> float | None:
        """Seconds left (at least 0), ``None`` without a deadline."""
        return None if self.at is None else max(0.0, self.at - time.perf_counter())

    def check(self) -> None:
        """Raise :class:`OutOfTime` once the deadline has passed (read every ``every`` calls)."""
        if self.at is None:
            return
        self._calls += 1
        if self._calls % self.every == 0 and time.perf_counter() > self.at:
            raise OutOfTime

    def check_now(self) -> None:
        """Raise :class:`OutOfTime` if the deadline has passed, reading the clock now."""
        if self.at is not None and time.perf_counter() > self.at:
            raise OutOfTime
