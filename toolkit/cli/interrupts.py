"""Ctrl-C and SIGTERM end a command with one line, a shell's exit code and no output left.

Both become exceptions in the main thread (``KeyboardInterrupt``, and
:class:`Terminated` for SIGTERM), so every ``finally`` and ``except
BaseException`` on the way out runs: the temporary files and directories of
:mod:`toolkit.outputs` are removed and the target is left as it was. The
group of commands (:class:`toolkit.cli.group.CommandGroup`) then prints ``tapesched:
interrupted`` (or ``terminated``) on standard error and exits 130 (or 143),
128 plus the signal's number, which is what a shell reports for a command
that the signal killed; there is no traceback. click's own handling (print
``Aborted!``, exit 1) never sees them.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

import click

EXIT_INTERRUPTED = 128 + signal.SIGINT
EXIT_TERMINATED = 128 + signal.SIGTERM


class Terminated(BaseException):
    """SIGTERM, raised where the program is, so that it unwinds as for Ctrl-C.

    A :class:`BaseException`, like ``KeyboardInterrupt``, so that code
    catching ``Exception`` does not swallow it.
    """


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise Terminated


@contextmanager
def sigterm_raises() -> Iterator[None]:
    """SIGTERM raises :class:`Terminated` in the block (main thread; not if it is ignored)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGTERM)
    if previous == signal.SIG_IGN:
        yield
        return
    signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def stop(word: str, code: int) -> SystemExit:
    """The exit for a signal: one line on standard error, the shell's code for it."""
    if sys.stderr.isatty():
        click.echo(err=True)  # past the terminal's echo of ^C
    click.echo(f"tapesched: {word}", err=True)
    return SystemExit(code)
