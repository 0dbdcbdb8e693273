"""Solver runs that Ctrl-C (or SIGTERM) stops at once, and that leave the signals Python's.

Every OR-Tools search of the solvers runs through here:

- CP-SAT (:func:`solve_stoppable`): its own SIGINT handler
  (``catch_sigint_signal``, on by default) would end the search quietly,
  as if its time were up, and put SIGINT back to its default action
  afterwards, so that a later Ctrl-C kills Python with no clean-up; it is
  turned off. Each search runs in a thread (CP-SAT releases the
  interpreter while it searches) while the calling thread waits, so a
  signal's exception is raised there at once: the searches are stopped
  and the exception goes on. The wait is on an event each search sets as
  it ends, not on ``Thread.join``: a ``KeyboardInterrupt`` raised inside
  ``join`` (Python 3.11) can mark a thread still searching as ended, and
  the process would then exit under a running search (``terminate
  called``, SIGABRT).
- The routing solver (:func:`route_stoppable`) holds the interpreter for
  its whole search, and an exception raised in a callback it makes is
  lost: it runs under :func:`toolkit.runtime.signals.deferred_signals`, and a
  search monitor that sees every neighbour the local search weighs
  (thousands a second) cancels the search once the flag is set, the
  signal then raised when it returns.

HiGHS (:func:`highs_stoppable`) holds this thread for its whole run as
well: it runs deferred too, its interrupt callbacks (which HiGHS calls as
it goes, in each of its methods) asking it to stop once the flag is set.
A solver run as a process of its own (CBC, through PuLP) would go on after
an interrupt, its parent gone: :func:`children_stopped` stops it.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ortools.constraint_solver import pywrapcp
from ortools.sat.python import cp_model

from tapesched.toolkit.runtime.signals import InterruptFlag, deferred_signals

POLL_S = 0.1
"""How often the waiting thread wakes to let a signal's exception be raised."""

REAP_S = 1.0
"""Most seconds :func:`children_stopped` waits for the processes it stopped to end."""


def solve_stoppable(
    searches: Sequence[tuple[cp_model.CpSolver, cp_model.CpModel]],
    meanwhile: Callable[[], None] | None = None,
) -> list[Any]:
    """Each ``solver.solve(model)`` at once, one thread each: their statuses, in order.

    ``meanwhile`` runs in this thread while they search. Any exception
    raised in this thread (a signal's) stops every search and goes on; an
    exception of a search is raised once all have ended.
    """
    outcomes: list[Any] = [None] * len(searches)
    failures: list[BaseException] = []
    ended = [threading.Event() for _ in searches]
    for i, (solver, model) in enumerate(searches):
        solver.parameters.catch_sigint_signal = False

        def search(i: int = i, solver: cp_model.CpSolver = solver, model: Any = model) -> None:
            try:
                outcomes[i] = solver.solve(model)
            except BaseException as exc:
                failures.append(exc)
            finally:
                ended[i].set()

        threading.Thread(target=search, name=f"cp-sat-{i}", daemon=True).start()
    try:
        if meanwhile is not None:
            meanwhile()
        for event in ended:
            while not event.wait(POLL_S):
                pass
    except BaseException:
        for event, (solver, _) in zip(ended, searches, strict=True):
            while not event.is_set():  # stop_search is lost if it comes before the search starts
                solver.stop_search()
                event.wait(POLL_S)
        raise
    if failures:
        raise failures[0]
    return outcomes


class _CancelOnFlag(pywrapcp.SearchMonitor):
    """Cancels a routing search once a deferred signal has set the flag.

    Checked as each neighbour the local search evaluates is accepted or
    not (:meth:`AcceptDelta`: thousands a second, where the solutions it
    keeps may be seconds apart on a large path), the search's limits then
    ending it at their next check.
    """

    def __init__(self, routing: pywrapcp.RoutingModel, interrupted: InterruptFlag) -> None:
        super().__init__(routing.solver())
        self.routing = routing
        self.interrupted = interrupted

    def AcceptDelta(self, delta: Any, deltadelta: Any) -> bool:
        if self.interrupted:
            self.routing.CancelSearch()
        return True


def route_stoppable(
    routing: pywrapcp.RoutingModel, routes: list[list[int]], params: Any
) -> pywrapcp.Assignment | None:
    """Close ``routing`` with ``params`` and search from ``routes``, until a signal cancels it.

    The signal (SIGINT or SIGTERM) is raised when the search has returned
    (``KeyboardInterrupt`` for Ctrl-C), so the cancelled search's solution
    is never used.
    """
    with deferred_signals() as interrupted:
        monitor = _CancelOnFlag(routing, interrupted)  # lives as long as the search
        routing.AddSearchMonitor(monitor)
        routing.CloseModelWithParameters(params)
        start = routing.ReadAssignmentFromRoutes(routes, True)
        return routing.SolveFromAssignmentWithParameters(start, params)


def highs_stoppable(highs: Any) -> Any:
    """``highs.run()`` (a :class:`highspy.Highs`), asked to stop by a signal: its status.

    The signal is raised when the run has returned, so the stopped run's
    solution is never used.
    """
    with deferred_signals() as interrupted:

        def stop_if_interrupted(event: Any) -> None:
            if interrupted:
                event.interrupt()

        callbacks = (highs.cbSimplexInterrupt, highs.cbIpmInterrupt, highs.cbMipInterrupt)
        for callback in callbacks:
            callback.subscribe(stop_if_interrupted)
        try:
            return highs.run()
        finally:
            for callback in callbacks:
                callback.unsubscribe(stop_if_interrupted)


def _children() -> set[int]:
    """This process's child processes (Linux /proc; none known elsewhere)."""
    me = str(os.getpid())
    found = set()
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[1] == me:
            found.add(int(entry.name))
    return found


@contextmanager
def children_stopped() -> Iterator[None]:
    """On any exception (a signal's), SIGTERM the child processes the block started.

    For a library that runs a solver as a process and waits for it (PuLP's
    CBC): the wait is interrupted, but the process would search on, an
    orphan, to its time limit. They are reaped, waiting at most
    :data:`REAP_S`, and the exception goes on.
    """
    before = _children()
    try:
        yield
    except BaseException:
        started = _children() - before
        for pid in started:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                started.discard(pid)
        give_up = time.monotonic() + REAP_S
        while started and time.monotonic() < give_up:  # reaped, not left as zombies
            for pid in list(started):
                try:
                    if os.waitpid(pid, os.WNOHANG)[0] == pid:
                        started.discard(pid)
                except ChildProcessError:
                    started.discard(pid)
            time.sleep(0.01)
        raise
