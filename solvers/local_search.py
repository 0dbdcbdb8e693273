"""The ``local-search`` solver: an offline improver over request orders and drives.

A candidate is a request order and, for each request, its drives (one per
piece); :func:`solvers.timeline.timeline.decode` turns it into a feasible offline
schedule by list scheduling (tapes may be prefetched before releases). The
search starts from a given schedule (for the registered solver, the best of
every online heuristic, :func:`solvers.online.best.best_heuristic`), whose
start order and drives make the first candidate (the same order with the
drives left to the decoder makes the second), and tries random moves:

- *insert*: take one request out of the order and put it back elsewhere,
  often a few places away (most gains are local), sometimes anywhere;
- *swap*: exchange two requests of the order;
- *drive*: move one piece of a request to another drive of its library
  (exchanging drives with the request's piece already there, if any);
- *free*: let the decoder choose a request's drives again.

A move is kept when the decoded schedule is no worse than the current one
(equal moves let the search cross plateaus); after a run of moves without
gain the search restarts from the best schedule, shaken by a few random
moves (iterated local search). The best schedule is judged by the
validator's objective, so that whatever the decoder does, the schedule
returned is feasible and its value recomputed. The search stops at the time
limit, at an iteration budget, or when the best schedule meets
:func:`solvers.bounds.bounds.lower_bound` (it is then optimal), or, given a
relative ``gap``, comes within it of that bound.

Every random choice comes from one ``random.Random(seed)``: with an
iteration budget and no time limit, equal seeds give equal schedules.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable

from tapesched.solvers.bounds.bounds import lower_bound
from tapesched.solvers.greedy import greedy
from tapesched.solvers.online.best import best_heuristic
from tapesched.solvers.result import Progress, Result, Status, gap_target
from tapesched.solvers.timeline.timeline import decode
from tapesched.toolkit.model import Instance, ObjectiveValue, Schedule
from tapesched.toolkit.validator import validate

DEFAULT_ITERATIONS = 1000
"""Most candidates decoded when neither a time limit nor an iteration budget is given."""

DEFAULT_PLACEMENTS = 50_000
"""Without a time limit nor a budget, also at most this many request placements in all.

A decode places every request, so on large instances the default budget is
``DEFAULT_PLACEMENTS / n`` decodes (at least :data:`MIN_ITERATIONS`), which
keeps a run without a limit to seconds on hundreds of requests and to
minutes on 100,000, and deterministic.
"""

MIN_ITERATIONS = 10
"""Fewest candidates decoded under the default budget."""

NEAR = 3
"""Farthest a *near* insert or swap moves a request in the order."""

_Drives = dict[str, tuple[str, ...]]


def _scale(value: float) -> float:
    """Tolerance for comparing objective values near ``value``."""
    return 1e-9 * max(1.0, abs(value))


class _Search:
    """State of one run: the current and the best candidates, the clock, the budget."""

    def __init__(
        self,
        instance: Instance,
        rng: random.Random,
        deadline: float | None,
        budget: int | None,
        on_improve: Callable[[float], None] | None = None,
    ) -> None:
        self.instance = instance
        self.on_improve = on_improve
        self.rng = rng
        self.deadline = deadline
        self.budget = budget
        self.decodes = 0
        self.last_decode_s = 0.0
        self.ids = [r.id for r in instance.requests]
        self.library_drives = {
            r.id: tuple(d.id for d in instance.drives_of_library[instance.library_of_request(r).id])
            for r in instance.requests
        }
        self.widths = {r.id: len(r.pieces) for r in instance.requests}
        self.best: Schedule | None = None
        self.best_value = math.inf

    def can_decode(self) -> bool:
        """Whether one more decode fits in the budget and, by the last one's time, the limit."""
        if self.budget is not None and self.decodes >= self.budget:
            return False
        if self.deadline is None:
            return True
        return time.perf_counter() + self.last_decode_s <= self.deadline

    def decode(self, order: list[str], drives: _Drives) -> tuple[Schedule, float, _Drives]:
        """Decode a candidate; return its schedule, its value and the drives it got."""
        began = time.perf_counter()
        schedule = decode(self.instance, order, drives=drives, online=False)
        self.last_decode_s = time.perf_counter() - began
        self.decodes += 1
        assert schedule.objective is not None
        got = {r.id: r.drives for r in schedule.requests}
        return schedule, schedule.objective.value, got

    def offer(self, schedule: Schedule, value: float) -> None:
        """Keep ``schedule`` as the best if the validator finds it feasible and better."""
        if self.best is not None and value >= self.best_value - _scale(self.best_value):
            return
        report = validate(self.instance, schedule)
        if not report.feasible or report.objective is None:
            return
        if self.best is None or report.objective < self.best_value - _scale(self.best_value):
            self.best = schedule
            self.best_value = report.objective
            if self.on_improve is not None:
                self.on_improve(report.objective)

    def valid_drives(self, schedule: Schedule) -> _Drives:
        """The drives of ``schedule`` that fit their request (the decoder rejects the others)."""
        out: _Drives = {}
        for scheduled in schedule.requests:
            allowed = self.library_drives.get(scheduled.id)
            drives = tuple(scheduled.drives)
            if (
                allowed is not None
                and len(drives) == self.widths[scheduled.id]
                and len(set(drives)) == len(drives)
                and all(d in allowed for d in drives)
            ):
                out[scheduled.id] = drives
        return out

    def moves(self) -> list[Callable[[list[str], _Drives], bool]]:
        """The moves that can change something on this instance, with their weights repeated."""
        out: list[Callable[[list[str], _Drives], bool]] = []
        if len(self.ids) > 1:
            out += [self.insert] * 4 + [self.swap] * 2
        if any(len(self.library_drives[j]) > 1 for j in self.ids):
            out += [self.reassign] * 3 + [self.free]
        return out

    def _other_position(self, i: int, n: int) -> int:
        """A position other than ``i`` in ``range(n)``: near ``i`` half the time."""
        rng = self.rng
        if rng.random() < 0.5:
            j = i + rng.choice((-1, 1)) * rng.randint(1, NEAR)
            j = min(max(j, 0), n - 1)
            if j != i:
                return j
        j = rng.randrange(n - 1)
        return j + 1 if j >= i else j

    def insert(self, order: list[str], drives: _Drives) -> bool:
        """Move one request to another place in the order."""
        n = len(order)
        i = self.rng.randrange(n)
        j = self._other_position(i, n)
        order.insert(j, order.pop(i))
        return True

    def swap(self, order: list[str], drives: _Drives) -> bool:
        """Exchange two requests of the order."""
        n = len(order)
        i = self.rng.randrange(n)
        j = self._other_position(i, n)
        order[i], order[j] = order[j], order[i]
        return True

    def reassign(self, order: list[str], drives: _Drives) -> bool:
        """Move one piece of a request to another drive of its library."""
        rng = self.rng
        movable = [j for j in self.ids if len(self.library_drives[j]) > 1]
        j = rng.choice(movable)
        current = list(drives.get(j, ()))
        if len(current) != self.widths[j]:
            return False
        p = rng.randrange(len(current))
        target = rng.choice([d for d in self.library_drives[j] if d != current[p]])
        if target in current:
            q = current.index(target)
            current[q] = current[p]
        current[p] = target
        drives[j] = tuple(current)
        return True

    def free(self, order: list[str], drives: _Drives) -> bool:
        """Let the decoder choose the drives of one request."""
        fixed = [j for j in self.ids if j in drives and len(self.library_drives[j]) > 1]
        if not fixed:
            return False
        del drives[self.rng.choice(fixed)]
        return True


def improve(
    instance: Instance,
    schedule: Schedule,
    *,
    time_limit_s: float | None,
    seed: int,
    max_iterations: int | None = None,
    target: float | None = None,
    on_improve: Callable[[float], None] | None = None,
) -> Schedule:
    """A schedule no worse than ``schedule``, found by local search over orders and drives.

    Parameters
    ----------
    instance
        A well-formed instance.
    schedule
        Where to start: its requests in order of start (ties: end, then
        file order) and its drives make the first candidate. It is returned
        when nothing better is found and it is feasible.
    time_limit_s
        Wall-clock limit; a decode is not started when the last one's time
        would overrun it. ``None``: no limit.
    seed
        Seed of every random choice.
    max_iterations
        Most candidates decoded; without a time limit, by default
        :data:`DEFAULT_ITERATIONS` or fewer on large instances (see
        :data:`DEFAULT_PLACEMENTS`); with one, unbounded.
    target
        Stop as soon as the best objective is at most this value (a lower
        bound, for instance); ``None``: never stop early.
    on_improve
        Called with the validated objective of each new best schedule found
        (not with ``schedule``'s own).

    Returns
    -------
    Schedule
        The best schedule found, feasible by the validator, recording its
        objective. If neither ``schedule`` nor any candidate is feasible
        (the decoder always yields feasible schedules, so this means a
        defect), ``schedule`` is returned as it is.
    """
    began = time.perf_counter()
    deadline = None if time_limit_s is None else began + time_limit_s
    budget = max_iterations
    if budget is None and time_limit_s is None:
        per_decode = max(len(instance.requests), 1)
        budget = min(DEFAULT_ITERATIONS, max(MIN_ITERATIONS, DEFAULT_PLACEMENTS // per_decode))
    search = _Search(instance, random.Random(seed), deadline, budget)
    report = validate(instance, schedule)
    if report.feasible and report.objective is not None:
        search.best = schedule
        search.best_value = report.objective
    search.on_improve = on_improve

    def done() -> bool:
        return target is not None and search.best_value <= target + _scale(target)

    index = {rid: i for i, rid in enumerate(search.ids)}
    timed = {r.id: (r.start_s, r.end_s) for r in schedule.requests}
    order = sorted(search.ids, key=lambda j: (*timed.get(j, (math.inf, math.inf)), index[j]))
    drives = search.valid_drives(schedule)
    moves = search.moves()
    if not search.ids or done() or not search.can_decode():
        return _finished(instance, search, schedule)
    decoded, value, got = search.decode(order, drives)
    search.offer(decoded, value)
    current = (order, got, value)
    if drives and search.can_decode():
        decoded, value, got = search.decode(order, {})
        search.offer(decoded, value)
        if value < current[2]:
            current = (order, got, value)
    stall_limit = max(30, 3 * len(order))
    stalled = 0
    while moves and not done() and search.can_decode():
        if stalled >= stall_limit:
            current = _kick(search, moves, current)
            stalled = 0
            continue
        order, drives = list(current[0]), dict(current[1])
        if not search.rng.choice(moves)(order, drives):
            stalled += 1
            continue
        decoded, value, got = search.decode(order, drives)
        search.offer(decoded, value)
        if value < current[2] - _scale(current[2]):
            stalled = 0
        else:
            stalled += 1
        if value <= current[2] + _scale(current[2]):
            current = (order, got, value)
    return _finished(instance, search, schedule)


def _kick(
    search: _Search,
    moves: list[Callable[[list[str], _Drives], bool]],
    current: tuple[list[str], _Drives, float],
) -> tuple[list[str], _Drives, float]:
    """Restart from the best schedule shaken by two to four random moves, whatever they give."""
    if search.best is None:
        order, drives = list(current[0]), dict(current[1])
    else:
        index = {rid: i for i, rid in enumerate(search.ids)}
        timed = {r.id: (r.start_s, r.end_s) for r in search.best.requests}
        order = sorted(search.ids, key=lambda j: (*timed[j], index[j]))
        drives = search.valid_drives(search.best)
    for _ in range(search.rng.randint(2, 4)):
        search.rng.choice(moves)(order, drives)
    if not search.can_decode():
        return current
    decoded, value, got = search.decode(order, drives)
    search.offer(decoded, value)
    return order, got, value


def _finished(instance: Instance, search: _Search, start: Schedule) -> Schedule:
    """The best schedule, recording its validated objective (``start`` if none is feasible)."""
    if search.best is None:
        return start
    return Schedule(
        search.best.requests,
        search.best.operations,
        instance.name,
        ObjectiveValue(instance.objective, search.best_value),
    )


def local_search(
    instance: Instance,
    *,
    time_limit_s: float | None = None,
    seed: int = 0,
    progress: Callable[[Progress], None] | None = None,
    gap: float | None = None,
) -> Result:
    """Improve the best online heuristic's schedule by local search, offline.

    Parameters
    ----------
    instance
        A well-formed instance.
    time_limit_s
        Wall-clock limit of the whole run; ``None``: the default budget of
        :func:`improve`.
    seed
        Seed of every random choice.
    progress
        Called with each new point of the trajectory as it comes.
    gap
        Stop as soon as the best schedule is within this relative gap of
        :func:`solvers.bounds.bounds.lower_bound` (``(objective - bound) /
        objective <= gap``; 1 or more: the start is enough); ``None``: only
        when it meets the bound.

    Returns
    -------
    Result
        Status ``feasible`` (also when the gap stopped it), the best schedule
        and its validated objective, :func:`solvers.bounds.bounds.lower_bound`
        as the bound, and the trajectory:
        the start (the best of :func:`solvers.online.best.best_heuristic`,
        or ``greedy``'s when no heuristic schedules the instance), then each
        improvement.
    """
    began = time.perf_counter()
    bound = lower_bound(instance)
    found = best_heuristic(instance)
    if found is None:
        start = greedy(instance, time_limit_s=None, seed=seed).schedule
        assert start is not None
    else:
        start = found[0]
    trajectory: list[Progress] = []

    def improved(value: float) -> None:
        trajectory.append(Progress(time.perf_counter() - began, value, min(bound, value)))
        if progress is not None:
            progress(trajectory[-1])

    if found is not None:
        improved(found[1])
    left = None if time_limit_s is None else max(0.0, time_limit_s - (time.perf_counter() - began))
    target = gap_target(bound, gap)
    schedule = improve(
        instance,
        start,
        time_limit_s=left,
        seed=seed,
        target=bound if target is None else max(bound, target),
        on_improve=improved,
    )
    report = validate(instance, schedule)
    objective = report.objective
    return Result(
        solver="local-search",
        status=Status.FEASIBLE,
        schedule=schedule,
        objective=objective,
        bound=bound if objective is None else min(bound, objective),
        runtime_s=time.perf_counter() - began,
        trajectory=tuple(trajectory),
    )
