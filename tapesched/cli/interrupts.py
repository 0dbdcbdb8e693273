"""Ctrl-C and SIGTERM end a command with one line, a shell's exit code and no output left.

Both become exceptions in the main thread (``KeyboardInterrupt``, and
:class:`Terminated` for SIGTERM), so every ``finally`` and ``except
BaseException`` on the way out runs: the temporary files and directories of
:mod:`toolkit.files.outputs` are removed and the target is left as it was. The
group of commands (:class:`tapesched.cli.group.CommandGroup`) then prints ``tapesched:
interrupted`` (or ``terminated``) on standard error and exits 130 (or 143),
128 plus the signal's number, which is what a shell reports for a command
that the signal killed; there is no traceback. click's own handling (print
``Aborted!``, exit 1) never sees them.

The first of the two signals is taken, and every later one ignored: a
second Ctrl-C while the first unwinds (worker processes stopped, temporary
files removed) neither cuts the clean-up short nor kills the process, which
ends as for the first. The unwind is bounded (no clean-up on the way out
waits for a computation to finish), so that nothing is left unstoppable.
The same holds from the start: while :mod:`tapesched.cli` imports the
commands, a signal ends the program the same way (:func:`ending_on_signals`
around the imports).

Native code that holds the interpreter for long (OR-Tools' routing solver,
HiGHS) sees neither exception; it stops at the flag of
:func:`toolkit.runtime.signals.deferred_signals` instead, and the signal is raised
when it returns, then taken here.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

import click

from tapesched.toolkit.runtime.signals import INTERRUPTS

EXIT_INTERRUPTED = 128 + signal.SIGINT
EXIT_TERMINATED = 128 + signal.SIGTERM


class Terminated(BaseException):
    """SIGTERM, raised where the program is, so that it unwinds as for Ctrl-C.

    A :class:`BaseException`, like ``KeyboardInterrupt``, so that code
    catching ``Exception`` does not swallow it.
    """


def stop(word: str, code: int) -> SystemExit:
    """The exit for a signal: one line on standard error, the shell's code for it."""
    if sys.stderr.isatty():
        click.echo(err=True)  # past the terminal's echo of ^C
    click.echo(f"tapesched: {word}", err=True)
    return SystemExit(code)


@contextmanager
def ending_on_signals() -> Iterator[None]:
    """SIGINT and SIGTERM end the block with :func:`stop`'s ``SystemExit`` (130 or 143).

    The first signal raises its exception where the program is (main
    thread), the unwind runs, and the exception becomes the one line and
    the exit code. From that signal on, SIGINT and SIGTERM are ignored
    until the process ends. A signal ignored when the block begins stays
    ignored, and one whose handler was not set from Python is left alone.
    Left without a signal, the handlers are those it found. Outside the
    main thread only the exceptions are turned into exits (no handler can
    be set there).
    """
    taken: list[int] = []

    def take(signum: int, frame: FrameType | None) -> None:
        for other in INTERRUPTS:
            signal.signal(other, signal.SIG_IGN)
        taken.append(signum)
        if signum == signal.SIGTERM:
            raise Terminated
        raise KeyboardInterrupt

    previous = {}
    if threading.current_thread() is threading.main_thread():
        for signum in INTERRUPTS:
            handler = signal.getsignal(signum)
            if handler not in (signal.SIG_IGN, None):  # None: not set from Python
                previous[signum] = handler
                signal.signal(signum, take)
    try:
        yield
    except KeyboardInterrupt:
        raise stop("interrupted", EXIT_INTERRUPTED) from None
    except Terminated:
        raise stop("terminated", EXIT_TERMINATED) from None
    finally:
        if not taken:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
