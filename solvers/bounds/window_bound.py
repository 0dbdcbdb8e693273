"""A lower bound from exact solves of windows of requests, each alone.

The bounds of :mod:`solvers.bounds.bounds` see each request alone or all of them
pooled; on instances too large to prove they leave most of the gap to the
best schedule (docs/benchmarks.md, "Where the gap sits"). This bound is CP-SAT's own
bound, on pieces small enough for it to bite: the requests, in release
order, are cut into windows of ``window`` requests, each window is solved as
an instance of its own (the same libraries, drives, tapes and starting
state, only its requests), and the windows' bounds are added up (for
``weighted-flow``) or their largest taken (``makespan``,
``max-weighted-flow``).

Why it is a lower bound
-----------------------
Take an optimal schedule of the whole instance and delete the transfers of
every request outside a window ``W``, keeping every arm operation. What is
left is a feasible schedule of ``W`` alone: tapes move exactly as before,
every drive still does no more than before, and a request kept after a
deleted one on the same tape needs a locate no longer than the time the
drive took for the deleted read and the locates around it, by the triangle
inequality, *provided the head moves at least as fast locating as reading*
(``locate_mb_s >= rate_mb_s``, true of every tape drive; an instance where
some drive reads faster than it locates gets :func:`solvers.bounds.bounds.lower_bound`
alone, and so does one with a serpentine ``locate`` model, whose locates need
not keep the triangle inequality). So the optimum of ``W`` alone is at most the part of the whole
optimum that ``W``'s requests contribute; a weighted flow is a sum over
requests, so the windows' optima add up to at most the whole optimum, and a
maximum over requests is at least each window's. Any lower bound of each
window's optimum (CP-SAT's proven bound, or :func:`solvers.bounds.bounds.lower_bound`
of the window) can stand in for it. The argument holds for the contract's
clairvoyant problem, whose optimum is never above the non-anticipative one,
so the bound serves both.

What it misses is the interaction between windows: a window starts from the
instance's starting state, with every drive and arm free for it, so a
backlog carried from one window into the next is not seen. It bites where
requests released close together compete for drives, tapes and arms.
"""

from __future__ import annotations

import math
import time

from attrs import evolve, frozen

from tapesched.solvers.bounds.bounds import lower_bound
from tapesched.solvers.cpsat import cpsat
from tapesched.solvers.result import Status
from tapesched.toolkit.model import Instance, Request

DEFAULT_WINDOW = 10
"""Requests per window: CP-SAT proves most windows of 10 within seconds (docs/benchmarks.md)."""


@frozen
class WindowBound:
    """The bound and how it was reached.

    Parameters
    ----------
    bound
        The lower bound on the instance's optimum (never below
        :func:`solvers.bounds.bounds.lower_bound` of the instance).
    windows
        Windows the requests were cut into.
    proved
        Windows whose optimum CP-SAT proved (their bound is the optimum).
    solved
        Windows CP-SAT ran on before the time ran out (the others count
        :func:`solvers.bounds.bounds.lower_bound` of the window).
    runtime_s
        Wall-clock seconds spent.
    """

    bound: float
    windows: int
    proved: int
    solved: int
    runtime_s: float


def windows_of(instance: Instance, window: int) -> list[tuple[Request, ...]]:
    """The requests in release order (ties by id), cut into runs of ``window``."""
    if window < 1:
        raise ValueError(f"window must be at least 1, not {window}")
    ordered = sorted(instance.requests, key=lambda r: (r.release_s, r.id))
    return [tuple(ordered[i : i + window]) for i in range(0, len(ordered), window)]


def applies(instance: Instance) -> bool:
    """Whether the windows argument holds: every drive locates linearly (a serpentine
    ``locate`` model need not keep the triangle inequality) and at least as fast as it
    reads."""
    return all(d.linear and d.locate_mb_s >= d.rate_mb_s for d in instance.drives)


def window_bound(
    instance: Instance,
    *,
    window: int = DEFAULT_WINDOW,
    time_limit_s: float = 60.0,
    seed: int = 0,
    workers: int = 2,
) -> WindowBound:
    """A lower bound on ``instance``'s optimum from CP-SAT on each window alone.

    Parameters
    ----------
    instance
        A well-formed instance; its own objective is bounded.
    window
        Requests per window (the last one may be shorter).
    time_limit_s
        Wall-clock seconds for all the windows; each window gets an equal
        share of what is left when its turn comes, and the windows the time
        does not reach count :func:`solvers.bounds.bounds.lower_bound` of their
        requests.
    seed, workers
        CP-SAT's seed and search threads (equal seeds, workers and time give
        equal bounds only up to the wall clock: the limit is in seconds).

    Returns
    -------
    WindowBound
        The bound, at least :func:`solvers.bounds.bounds.lower_bound` of the instance.
    """
    began = time.perf_counter()
    whole = lower_bound(instance)
    if not instance.requests or not applies(instance):
        return WindowBound(whole, 0, 0, 0, time.perf_counter() - began)
    parts = windows_of(instance, window)
    values: list[float] = []
    proved = solved = 0
    for index, requests in enumerate(parts):
        alone = evolve(instance, requests=requests)  # type: ignore[misc]  # @checked hides attrs from mypy
        value = lower_bound(alone)
        left = time_limit_s - (time.perf_counter() - began)
        share = left / (len(parts) - index)
        if share > 0.05:
            result = cpsat(alone, time_limit_s=share, seed=seed, workers=workers)
            solved += 1
            if result.bound is not None and math.isfinite(result.bound):
                value = max(value, result.bound)
            proved += result.status == Status.OPTIMAL
        values.append(value)
    combined = sum(values) if instance.objective == "weighted-flow" else max(values)
    return WindowBound(
        max(whole, combined), len(parts), proved, solved, time.perf_counter() - began
    )
