"""Signals held or deferred, for code that a Python exception cannot stop.

Ctrl-C and SIGTERM end a command as an exception raised in the main thread
between two bytecodes (:mod:`tapesched.cli.interrupts`). Two kinds of code
need more:

- A step that must not be cut in half (swapping directories, starting a
  worker process) runs with the signals *blocked* (:func:`signals_blocked`):
  one sent meanwhile is delivered when the step is done. A process started
  in such a step begins with them blocked too (the mask survives ``exec``).
- A long native computation that holds the interpreter (OR-Tools' routing
  solver, HiGHS) runs no bytecode of its own, and an exception raised in a
  callback it makes is lost in the native code. It runs *deferred*
  (:func:`deferred_signals`): SIGINT and SIGTERM only set an
  :class:`InterruptFlag`, which the computation checks (from a callback) to
  stop itself, as it checks its time limit; on leaving, the signal is
  raised again under the handler it had, so that the program unwinds from
  there as from any other interrupt.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from types import FrameType

INTERRUPTS = frozenset({signal.SIGINT, signal.SIGTERM})
"""The signals that interrupt a command."""


@contextmanager
def signals_blocked(signums: Collection[int] = INTERRUPTS) -> Iterator[None]:
    """``signums`` wait in this thread's mask (delivered on leaving) for the block.

    Where the platform has no ``pthread_sigmask``, the block runs as it is.
    """
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, signums)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


class InterruptFlag:
    """Whether an interrupt came during :func:`deferred_signals`, and which (``signum``)."""

    def __init__(self) -> None:
        self.signum: int | None = None

    def __bool__(self) -> bool:
        return self.signum is not None


@contextmanager
def deferred_signals() -> Iterator[InterruptFlag]:
    """SIGINT and SIGTERM set the flag yielded instead of acting; the first acts on leaving.

    Each signal whose handler was set from Python (and not ignored) is
    noted instead, in the main thread; on leaving, the handlers are put
    back and the first signal noted is raised again, so it does what it
    would have done at once (``KeyboardInterrupt`` from the leaving
    statement, for Ctrl-C). In another thread, where no handler can be
    set, the flag is never set and the signals act as ever.
    """
    flag = InterruptFlag()
    if threading.current_thread() is not threading.main_thread():
        yield flag
        return

    def note(signum: int, frame: FrameType | None) -> None:
        if flag.signum is None:
            flag.signum = signum

    previous = {}
    for signum in INTERRUPTS:
        handler = signal.getsignal(signum)
        if handler not in (signal.SIG_IGN, None):
            previous[signum] = handler
            signal.signal(signum, note)
    try:
        yield flag
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if flag.signum is not None:
            signal.raise_signal(flag.signum)
