"""Trials on a timeline: the undo log that takes back what was placed inside one.

A search tries a placement and takes it back
(:meth:`solvers.timeline.timeline.Timeline.trial`, and
:meth:`~solvers.timeline.timeline.Timeline.plan`, which is a placement
undone). While a trial is open, every change to the
:class:`~solvers.timeline.state.TimelineState` is logged before it is made:
the old value of each entry of its lists and dicts, each arm operation
reserved; when the trial ends, :class:`UndoLog` restores them in reverse
order, drops the arm operations done since, enters the drives touched anew
in their heaps and gives the state back its stamp, so that plans made
before the trial are valid again. Outside a trial nothing is logged (list
scheduling pays nothing for it).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TypeAlias

from tapesched.solvers.timeline.pieces import PiecePlacement
from tapesched.solvers.timeline.state import TimelineState

Mark: TypeAlias = tuple[int, int, int, int]
"""Lengths of the undo logs and of the operations, and the state stamp, at a trial's start."""

_MISSING = object()
"""Marks, in the undo log, a key that a dict did not hold."""


class UndoLog:
    """The changes made to ``state`` since the outermost open trial began (see the module).

    ``entries`` is ``None`` outside a trial: callers log a change only when
    it is not.
    """

    def __init__(self, state: TimelineState) -> None:
        self.state = state
        self.entries: list[tuple[Any, Any, Any, int]] | None = None
        """``(container, key, old value, drive or -1)`` per change, while a trial is open."""
        self._arm_log: list[tuple[int, float, float, int]] = []
        self._depth = 0

    def save(self, container: Any, key: Any, drive: int) -> None:
        """Log the value of ``container[key]`` (list or dict) before it changes."""
        assert self.entries is not None
        old = container.get(key, _MISSING) if isinstance(container, dict) else container[key]
        self.entries.append((container, key, old, drive))

    def save_arm(self, lib: int, start: float, duration: float, lane: int) -> None:
        """Log an arm operation reserved on library ``lib``'s lanes."""
        self._arm_log.append((lib, start, duration, lane))

    def save_tape_move(self, tape: str, drive: int) -> None:
        """Log what moving ``tape`` out of ``drive`` changes."""
        state = self.state
        self.save(state.where, tape, -1)
        self.save(state.back, tape, -1)
        self.save(state.held, drive, drive)
        self.save(state.empty_since, drive, drive)

    def save_piece(self, plan: PiecePlacement, tape: str, lib: int) -> None:
        """Log what committing ``plan`` changes."""
        state = self.state
        d = plan.drive
        mnt, dis = state.mount_s[lib], state.dismount_s[lib]
        arm_log = self._arm_log
        if plan.steal is not None:
            self.save_tape_move(tape, state.where[tape])
            arm_log.append((lib, plan.steal[0], dis, plan.steal[1]))
        old = state.held[d]
        if old is not None:
            self.save(state.where, old, -1)
            self.save(state.back, old, -1)
        self.save(state.where, tape, -1)
        self.save(state.held, d, d)
        if plan.evict is not None:
            arm_log.append((lib, plan.evict[0], dis, plan.evict[1]))
        if plan.mount is not None:
            arm_log.append((lib, plan.mount[0], mnt, plan.mount[1]))

    def save_start(self, j: int, drives: tuple[int, ...]) -> None:
        """Log what starting request ``j`` on ``drives`` changes."""
        state = self.state
        self.save(state.placed, j, -1)
        for d in drives:
            self.save(state.free, d, d)
            self.save(state.head, d, d)

    def begin(self) -> Mark:
        """Open a trial (trials nest); the mark to undo to."""
        if self.entries is None:
            self.entries = []
            self._arm_log = []
        self._depth += 1
        return (len(self.entries), len(self._arm_log), len(self.state.operations), self.state.stamp)

    @contextmanager
    def undone(self, mark: Mark) -> Iterator[None]:
        """Undo to ``mark`` when the block ends, normally or by an error.

        Not when an interrupt (Ctrl-C, SIGTERM: a :class:`BaseException`
        that is no :class:`Exception`) ends it: it may have come between
        logging a change and making it, so the undo could fail and hide it;
        the timeline is abandoned with the run.
        """
        try:
            yield
        except Exception:
            self.undo(mark)
            raise
        self.undo(mark)

    def undo(self, mark: Mark) -> None:
        """Restore the state at ``mark``: values, arm lanes, operations, heap entries."""
        log = self.entries
        assert log is not None
        state = self.state
        size, arm_size, ops_size, stamp = mark
        touched: set[int] = set()
        for container, key, old, drive in reversed(log[size:]):
            if old is _MISSING:
                container.pop(key, None)
            else:
                container[key] = old
            if drive >= 0:
                touched.add(drive)
        del log[size:]
        for lib, start, duration, lane in reversed(self._arm_log[arm_size:]):
            state.arms[lib].release(start, duration, lane)
        del self._arm_log[arm_size:]
        del state.operations[ops_size:]
        for d in sorted(touched):
            state.requeue(d)
        state.stamp = stamp
        self._depth -= 1
        if self._depth == 0:
            self.entries = None
