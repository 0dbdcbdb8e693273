"""How a long command shows its progress: a bar on a terminal, lines elsewhere.

On a terminal, standard error carries a ``rich`` progress bar, redrawn in place and gone at
the end. Elsewhere (a log file, ``nohup``, CI) a bar would print nothing until the end, so
the command writes a line on standard error instead, at most one every :data:`EVERY_S`
seconds: what it does, how far it is, how long it has run and
about how long is left, then what runs now::

    bw-fig5: 3 of 12 done (25 %), 1 min 10 s elapsed, about 3 min 30 s left; rate 60/h

Both take the same calls (:class:`ProgressDisplay`): ``add_task(name, total=...,
current=...)``, then ``update(task, completed=... or advance=..., current=...)``. A command
that shows progress takes ``--quiet`` (:func:`quiet_option`), which silences both.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any, Protocol, Self

import click
from rich.console import Console
from rich.progress import Progress, TaskID, TextColumn

Traceback = TracebackType | None

EVERY_S = 10.0
"""The most often a progress line is written when standard error is not a terminal."""

QUIET = "tapesched.quiet"
"""The key of the click context's ``meta`` that ``--quiet`` sets."""


def _set_quiet(context: click.Context, _: click.Parameter, quiet: bool) -> None:
    if quiet:
        context.meta[QUIET] = True


QUIET_OPTION: dict[str, Any] = {
    "is_flag": True,
    "expose_value": False,
    "callback": _set_quiet,
    "help": "Show no progress on standard error (warnings and errors still go there).",
}
"""The ``--quiet`` option of a command that shows its progress: ``quiet_option`` decorates
a command, ``click.Option(["--quiet"], **QUIET_OPTION)`` joins a command's parameters."""

quiet_option = click.option("--quiet", **QUIET_OPTION)


class ProgressDisplay(Protocol):
    """A progress display: a ``rich`` bar or :class:`ProgressLines`."""

    def __enter__(self) -> Self: ...

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None: ...

    def add_task(self, description: str, **fields: Any) -> TaskID: ...

    def update(self, task_id: TaskID, **changes: Any) -> None: ...


def duration(seconds: float) -> str:
    """``1 h 05 min``, ``3 min 30 s``, ``12 s``: a duration as a person reads it."""
    s = max(0, round(seconds))
    if s >= 3600:
        return f"{s // 3600} h {s % 3600 // 60:02d} min"
    if s >= 60:
        return f"{s // 60} min {s % 60} s"
    return f"{s} s"


class ProgressLines:
    """Progress as lines, one at most every ``every_s`` seconds (a run shorter than that
    prints none).

        Parameters
        ----------
        write
            Takes each line (standard error by default).
        every_s
            The least time between two lines of a task (default :data:`EVERY_S`).
        clock
            The monotonic clock (the tests give their own).
    """

    def __init__(
        self,
        write: Callable[[str], None] | None = None,
        every_s: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.write = write or (lambda line: click.echo(line, err=True))
        self.every_s = EVERY_S if every_s is None else every_s
        self.clock = clock
        self.tasks: list[dict[str, Any]] = []

    def __enter__(self) -> ProgressLines:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        return None

    def add_task(self, description: str, total: float | None = None, **fields: Any) -> TaskID:
        now = self.clock()
        self.tasks.append(
            {"name": description, "total": total, "done": 0.0, "start": now, "last": now, **fields}
        )
        return TaskID(len(self.tasks) - 1)

    def update(
        self,
        task_id: TaskID,
        *,
        completed: float | None = None,
        advance: float | None = None,
        **fields: Any,
    ) -> None:
        task = self.tasks[task_id]
        if completed is not None:
            task["done"] = completed
        if advance is not None:
            task["done"] += advance
        task.update(fields)
        now = self.clock()
        if now - task["last"] >= self.every_s:
            task["last"] = now
            self.write(self.line(task, now))

    @staticmethod
    def line(task: dict[str, Any], now: float) -> str:
        """``name: done of total (share), elapsed, about the rest left; what runs now``."""
        elapsed = now - task["start"]
        done, total = task["done"], task["total"]
        parts = [f"{task['name']}:"]
        if total:
            share = done / total
            count = (
                f"{done:g} of {total:g} done ({share * 100:.0f} %)"
                if float(total).is_integer() and float(done).is_integer()
                else f"{share * 100:.0f} % done"
            )
            parts.append(f"{count}, {duration(elapsed)} elapsed")
            if 0 < share < 1 and math.isfinite(elapsed):
                parts[-1] += f", about {duration(elapsed * (1 - share) / share)} left"
        else:
            parts.append(f"{duration(elapsed)} elapsed")
        current = task.get("current")
        return " ".join(parts) + (f"; {current}" if current else "")


def progress_bar(every_s: float | None = None) -> ProgressDisplay:
    """A progress bar with a field ``current`` on standard error when it is a terminal;
    :class:`ProgressLines` otherwise, a line at most every ``every_s`` seconds (default
    :data:`EVERY_S`); nothing at all under ``--quiet``."""
    context = click.get_current_context(silent=True)
    if context is not None and context.meta.get(QUIET):
        return ProgressLines(write=lambda line: None)
    console = Console(stderr=True)
    if not console.is_terminal:
        return ProgressLines(every_s=every_s)
    return Progress(
        *Progress.get_default_columns(),
        TextColumn("{task.fields[current]}"),
        console=console,
        transient=True,
    )
