"""The ``lns`` solver: large-neighbourhood search, each neighbourhood re-optimised by CP-SAT.

An exact model of a few thousand requests is far too large to solve, but a
few requests at a time are small. ``lns`` starts from the best schedule of
every online heuristic (:func:`solvers.online.best.best_heuristic`),
improved by the local search of :mod:`solvers.local_search` for
:data:`LOCAL_SHARE` of the time limit (not without prefetch, as the local
search may prefetch), holds it as its decisions timed as early as they
allow (:class:`solvers.cut.Incumbent`: never later than the schedule they
were read from), and, round after round, frees a *neighbourhood* of
requests, re-optimises it and keeps the result when the validator finds the
whole schedule better.

A neighbourhood is a time window of one library: the ``size`` requests
whose transfers start next from a random rank (the pivot), chosen either
uniformly or, every other time, in proportion to its objective's share
(the requests that cost most). :func:`solvers.cut.cut` writes it as an
instance of its own, in format 2, whose size depends on the neighbourhood,
not on the instance: the library's drives in the state the requests before
the window leave them (tape, head, busy until), the freed requests with
their releases counted from there. The CP-SAT model of :mod:`solvers.cpsat`
solves it from the incumbent's own stretch (the hint), each drive bound to
be ready for the requests after the window as the incumbent was
(:func:`solvers.cut.pin`); :func:`solvers.splice.splice` puts the solution
back, the requests after the window re-timed behind it.

The size adapts: it grows by :data:`GROW` after a round that improved the
incumbent or proved every neighbourhood optimal, and shrinks by
:data:`SHRINK` after a round whose sub-solves all ran out of time.

Both cores (``workers``, :data:`PARALLEL`): each round solves
``workers - 1`` neighbourhoods of the incumbent, each in a thread with one
CP-SAT worker and a *deterministic* time limit (:data:`SUB_DETERMINISTIC_S`),
while this thread runs a slice of the local search (CP-SAT releases the
interpreter's lock as it searches); the round keeps the best of them all,
the local search's schedule timed as early as its decisions allow. Each
slice starts from the local search's own best schedule (a decoded list's),
not from the incumbent, which, timed, outruns its decoded candidates at
first. The local search decodes lists of requests in Python and gains the
most early on loaded instances, the neighbourhoods what it
cannot reach (which requests share a stay, the arms' order); a slice lasts
about as long as the sub-solves (it grows or shrinks by how long they
outlast it). Without prefetch, or with one worker, every worker solves a
neighbourhood. A one-worker CP-SAT search with a deterministic limit is
reproducible, and without a time limit a slice is a fixed number of
decodes (:data:`SLICE_PLACEMENTS`), so a run with an iteration budget
(``iterations`` rounds) is deterministic for a seed, unless the wall-clock
limit cuts it short.
"""

from __future__ import annotations

import functools
import math
import random
import time
from collections import defaultdict
from collections.abc import Callable, Sequence

from attrs import frozen
from ortools.sat.python import cp_model

from tapesched.solvers.bounds.bounds import lower_bound
from tapesched.solvers.cpsat import CpsatModel, build_model
from tapesched.solvers.cpsat.data import CpsatData
from tapesched.solvers.cpsat.solution import read_plan
from tapesched.solvers.cut import Incumbent, cut, incumbent_of, pin, ranked
from tapesched.solvers.exact.deadline import Deadline, OutOfTime
from tapesched.solvers.exact.plan import plan_to_schedule
from tapesched.solvers.exact.stoppable import solve_stoppable
from tapesched.solvers.local_search import improve
from tapesched.solvers.online.best import best_heuristic
from tapesched.solvers.result import Progress, Result, Status, gap_target
from tapesched.solvers.splice import splice
from tapesched.toolkit.model import Instance, Schedule
from tapesched.toolkit.validator import validate

PARALLEL = 2
"""Threads per round, one per core of the reference machine: a local-search slice and
a neighbourhood (two neighbourhoods without prefetch)."""

INITIAL_SIZE = 8
"""Requests freed in the first round (all of them on smaller instances)."""

MIN_SIZE = 3
"""Fewest requests freed after shrinking."""

MAX_SIZE = 80
"""Most requests freed after growing: beyond, a sub-solve rarely ends within its limit."""

GROW = 1.25
"""Factor of the size after a round that improved or proved its neighbourhoods optimal."""

SHRINK = 0.8
"""Factor of the size after a round whose sub-solves all ran out of time."""

SUB_DETERMINISTIC_S = 1.0
"""CP-SAT's deterministic time limit of one sub-solve (about as many seconds)."""

DEFAULT_ITERATIONS = 30
"""Rounds run when neither a time limit nor an iteration budget is given."""

LOCAL_SHARE = 0.1
"""Share of the time limit that the local search runs alone first (``improve``).

The local search's list decoder prefetches every tape it can at once, which
on loaded instances gains more in seconds than CP-SAT's neighbourhoods do
in minutes; it then goes on beside them, a slice per round. Without a time
limit its first run is its default iteration budget, so that the run stays
deterministic.
"""

FIRST_SLICE_S = 2.0
"""Seconds of the first round's local-search slice under a time limit (see :func:`lns`)."""

MIN_SLICE_S = 0.5
"""Shortest local-search slice under a time limit."""

SLICE_SLACK_S = 0.2
"""A slice grows when the sub-solves outlast it by more than this, and shrinks below half of it."""

SLICE_PLACEMENTS = 20_000
"""Request placements of a round's local-search slice without a time limit (``n`` per decode)."""

MIN_SLICE_ITERATIONS = 10
"""Fewest decodes of a slice without a time limit."""

MAX_SLICE_ITERATIONS = 200
"""Most decodes of a slice without a time limit."""

RESOLUTION_S = 0.001
"""Seconds per tick of the sub-models (the CP-SAT solver's default)."""


def _tolerance(value: float) -> float:
    """Least improvement of ``value`` that counts (relative 1e-9)."""
    return 1e-9 * max(1.0, abs(value))


@frozen
class _Pick:
    """A neighbourhood: a library, the rank of its first request, its size."""

    library: int
    first: int
    size: int


def _pick(rng: random.Random, data: CpsatData, inc: Incumbent, size: int) -> _Pick:
    """A time window of ``size`` requests of a random library (all, on a small one).

    The pivot is uniform, or, every other draw, drawn in proportion to each
    request's weighted flow (its end less its release, times its weight).
    """
    requests = data.instance.requests
    by_library: dict[int, int] = defaultdict(int)
    for nodes in data.request_nodes:
        by_library[data.node_library[nodes[0]]] += 1
    libraries = sorted(by_library)
    lib = rng.choices(libraries, weights=[by_library[x] for x in libraries])[0]
    order = ranked(data, inc, lib)
    if size >= len(order):
        return _Pick(lib, 0, len(order))
    if rng.random() < 0.5:
        pivot = rng.randrange(len(order))
    else:
        costs = [
            requests[j].weight * max(0.0, inc.times.end[j] - requests[j].release_s) for j in order
        ]
        pivot = rng.choices(range(len(order)), weights=costs)[0] if sum(costs) > 0 else 0
    first = min(max(0, pivot - size // 2), len(order) - size)
    return _Pick(lib, first, size)


@frozen
class _SubResult:
    """One sub-solve: its schedule (of the sub-instance), whether it proved optimal, its bound.

    ``bound_s`` is CP-SAT's bound in seconds (lowered by what rounding can
    add), a bound of the instance only when the neighbourhood was all of it.
    """

    schedule: Schedule | None
    proved: bool
    bound_s: float | None = None


def _solve_all(
    built: Sequence[CpsatModel],
    seeds: Sequence[int],
    wall_s: float | None,
    prefetch: bool,
    meanwhile: Callable[[], None] | None = None,
) -> tuple[list[_SubResult], float]:
    """Solve the sub-models at once, one thread and one CP-SAT worker each.

    ``meanwhile`` runs in this thread while they search (CP-SAT releases
    the interpreter's lock while it searches, so the two share the cores).
    Each schedule found is checked against its sub-instance. Returns the
    results and how long this thread waited for the searches after
    ``meanwhile``.

    A Ctrl-C (or any exception raised in this thread) stops every search
    and goes on (:func:`solvers.exact.stoppable.solve_stoppable`).
    """
    solvers: list[cp_model.CpSolver] = []
    for seed in seeds:
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        solver.parameters.random_seed = seed
        solver.parameters.max_deterministic_time = SUB_DETERMINISTIC_S
        solver.parameters.cp_model_probing_level = 0  # probing a sub-model costs its whole limit
        solver.parameters.symmetry_level = 0  # a small sub-model gains nothing from it
        if wall_s is not None:
            solver.parameters.max_time_in_seconds = max(wall_s, 0.0)
        solvers.append(solver)
    waited: list[float] = []

    def then_wait() -> None:
        if meanwhile is not None:
            meanwhile()
        waited.append(time.perf_counter())

    searches = [(solver, sub.model) for solver, sub in zip(solvers, built, strict=True)]
    outcomes = solve_stoppable(searches, then_wait)
    out = []
    for sub, solver, outcome in zip(built, solvers, outcomes, strict=True):
        if outcome == cp_model.MODEL_INVALID:
            raise RuntimeError(f"CP-SAT rejects the sub-model: {sub.model.validate()}")
        proved = outcome == cp_model.OPTIMAL
        if outcome not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            out.append(_SubResult(None, proved))
            continue
        bound_s = sub.scaled.bound_s(solver.best_objective_bound, sub.data.tick)
        instance = sub.data.instance
        schedule = plan_to_schedule(instance, read_plan(solver, sub.data, sub.variables))
        report = validate(instance, schedule, prefetch=prefetch)
        if not report.feasible or report.objective is None:
            problems = "; ".join(str(v) for v in report.violations[:5])
            raise RuntimeError(f"an lns sub-solve gave an infeasible schedule: {problems}")
        out.append(_SubResult(schedule, proved, bound_s))
    return out, time.perf_counter() - waited[0]


def _local_slice(
    instance: Instance,
    start: Schedule,
    time_limit_s: float | None,
    seed: int,
    iterations: int | None,
    target: float,
    out: list[Schedule],
) -> None:
    """Append to ``out`` the local search's schedule from ``start`` (a round's slice)."""
    out.append(
        improve(
            instance,
            start,
            time_limit_s=time_limit_s,
            seed=seed,
            max_iterations=iterations,
            target=target,
        )
    )


def lns(
    instance: Instance,
    *,
    time_limit_s: float | None = None,
    seed: int = 0,
    workers: int = PARALLEL,
    iterations: int | None = None,
    prefetch: bool = True,
    progress: Callable[[Progress], None] | None = None,
    gap: float | None = None,
) -> Result:
    """Improve the best online heuristic's schedule by large-neighbourhood search with CP-SAT.

    Parameters
    ----------
    instance
        A well-formed instance.
    time_limit_s
        Wall-clock limit of the whole run; ``None``: none.
    seed
        Seed of the neighbourhoods and of every sub-solve.
    workers
        Threads per round (one per core): one runs a local-search slice
        (with prefetch, when ``workers >= 2``), each other solves a
        neighbourhood on one CP-SAT worker.
    iterations
        Most rounds; ``None``: :data:`DEFAULT_ITERATIONS` without a time
        limit, unbounded with one.
    prefetch
        ``False``: the non-anticipative problem (the start and every
        sub-model keep to it; see :func:`solvers.cpsat.cpsat`).
    progress
        Called with each new point of the trajectory as it comes (the
        start, then each improvement).
    gap
        Stop, status ``feasible``, as soon as the incumbent is within this
        relative gap of the bound (``(objective - bound) / objective <=
        gap``), before each round and in the local search; ``None``: only
        at the bound (``optimal``), the budget or the time limit.

    Returns
    -------
    Result
        ``optimal`` when the incumbent meets the bound: the larger of
        :func:`solvers.bounds.bounds.lower_bound` and, when a neighbourhood was the
        whole instance (a small one), CP-SAT's bound on it (lowered by what
        the model's rounding can add, see :mod:`solvers.cpsat`);
        ``timeout`` when the time limit ended the run; ``feasible`` when
        the iteration budget did, the model cannot express the start, or a
        neighbourhood that is the whole instance was solved to the optimum
        of the rounded model without meeting the bound (nothing is left to
        search);
        ``infeasible`` when no online heuristic schedules the instance (a
        gang wider than its library). The schedule is never worse than
        the start, and the objective is the validator's; the bound is
        :func:`solvers.bounds.bounds.lower_bound`, never above the objective, and
        the trajectory holds every improvement.
    """
    began = time.perf_counter()
    deadline = None if time_limit_s is None else began + time_limit_s
    budget = iterations
    if budget is None and time_limit_s is None:
        budget = DEFAULT_ITERATIONS
    start = best_heuristic(instance, prefetch)
    if start is None:
        return Result("lns", Status.INFEASIBLE, None, None, None, time.perf_counter() - began)
    incumbent, value = start
    bound = min(lower_bound(instance, prefetch=prefetch), value)
    trajectory = [Progress(time.perf_counter() - began, value, bound)]
    if progress is not None:
        progress(trajectory[-1])

    def improved(found: float) -> None:
        trajectory.append(Progress(time.perf_counter() - began, found, min(bound, found)))
        if progress is not None:
            progress(trajectory[-1])

    def target() -> float:
        """Where the local search may stop: the bound, or the objective within ``gap`` of it."""
        within = gap_target(bound, gap)
        return bound if within is None else max(bound, within)

    def close_enough() -> bool:
        """Whether the incumbent is within ``gap`` of the bound (never, without a gap)."""
        return gap is not None and value <= target() + _tolerance(target())

    local = prefetch and value > bound + _tolerance(bound) and not close_enough()
    if local:
        share = None if time_limit_s is None else LOCAL_SHARE * time_limit_s
        polished = improve(
            instance, incumbent, time_limit_s=share, seed=seed, target=target(), on_improve=improved
        )
        report = validate(instance, polished)
        if report.feasible and report.objective is not None and report.objective < value:
            incumbent, value = polished, report.objective
            bound = min(bound, value)

    def result(status: Status) -> Result:
        return Result(
            "lns",
            status,
            incumbent,
            value,
            bound,
            time.perf_counter() - began,
            tuple(trajectory),
        )

    searching = incumbent  # where the next local-search slice starts: its own last best
    data = CpsatData(instance, RESOLUTION_S, Deadline(deadline), prefetch)
    held = incumbent_of(data, incumbent, prefetch)
    if held is None:  # a stay without a transfer: the sub-models cannot express it
        return result(Status.FEASIBLE)
    if held.value < value - _tolerance(value):  # the same decisions, as early as they go
        incumbent, value = held.schedule, held.value
        bound = min(bound, value)
        improved(value)
    rng = random.Random(seed)
    n = len(instance.requests)
    size = min(n, INITIAL_SIZE)
    rounds = 0
    slice_s = FIRST_SLICE_S
    slice_iterations = min(
        MAX_SLICE_ITERATIONS, max(MIN_SLICE_ITERATIONS, SLICE_PLACEMENTS // max(n, 1))
    )
    while True:
        if value <= bound + _tolerance(bound):
            return result(Status.OPTIMAL)
        if close_enough():
            return result(Status.FEASIBLE)
        if budget is not None and rounds >= budget:
            return result(Status.FEASIBLE)
        if deadline is not None and time.perf_counter() >= deadline:
            return result(Status.TIMEOUT)
        rounds += 1
        sliced = local and workers >= 2 and size < n  # else CP-SAT sees the whole instance
        picks = [_pick(rng, data, held, size) for _ in range(max(1, workers - sliced))]
        seeds = [rng.randrange(2**31) for _ in picks]
        local_seed = rng.randrange(2**31)
        cuts = [cut(data, held, p.library, p.first, p.size) for p in picks]
        chosen = [(c, s) for c, s in zip(cuts, seeds, strict=True) if c is not None]
        try:
            built = [
                build_model(c.instance, RESOLUTION_S, c.hint, Deadline(deadline), prefetch=prefetch)
                for c, _ in chosen
            ]
        except OutOfTime:
            return result(Status.TIMEOUT)
        for (c, _), sub in zip(chosen, built, strict=True):
            pin(sub, c)
        wall = None if deadline is None else deadline - time.perf_counter()
        slices: list[Schedule] = []
        limit = None if wall is None else min(slice_s, max(wall, 0.0))
        local_slice = None
        if sliced:
            local_slice = functools.partial(
                _local_slice,
                instance,
                searching,
                limit,
                local_seed,
                slice_iterations if wall is None else None,
                target(),
                slices,
            )
        found, waited = _solve_all(built, [s for _, s in chosen], wall, prefetch, local_slice)
        if waited > SLICE_SLACK_S:  # the local search ended first: give it longer
            slice_s *= GROW
        elif waited < SLICE_SLACK_S / 2:
            slice_s = max(MIN_SLICE_S, slice_s * SHRINK)
        better: Incumbent | None = None
        for (c, _), f in zip(chosen, found, strict=True):
            if f.schedule is None:
                continue
            spliced = splice(data, held, c, f.schedule)
            if spliced is None or spliced.value >= value - _tolerance(value):
                continue
            if better is None or spliced.value < better.value:
                better = spliced
        for schedule in slices:
            searching = schedule  # the next slice goes on from the local search's own best
            searched = incumbent_of(data, schedule, prefetch)
            if searched is None or searched.value >= value - _tolerance(value):
                continue
            if better is None or searched.value < better.value:
                better = searched
        if better is not None:
            held, incumbent, value = better, better.schedule, better.value
            bound = min(bound, value)
            improved(value)
        whole = [f.bound_s for (c, _), f in zip(chosen, found, strict=True) if c.whole]
        proven = max((b for b in whole if b is not None), default=bound)
        if proven > bound + _tolerance(bound):  # CP-SAT's bound on the whole instance
            bound = min(proven, value)
            trajectory.append(Progress(time.perf_counter() - began, value, bound))
            if progress is not None:
                progress(trajectory[-1])
        if any(c.whole and f.proved for (c, _), f in zip(chosen, found, strict=True)):
            # The whole instance solved to optimality (of the rounded model): nothing left.
            done = value <= bound + _tolerance(bound)
            return result(Status.OPTIMAL if done else Status.FEASIBLE)
        if better is not None or (found and all(f.proved for f in found)):
            size = min(n, MAX_SIZE, max(size + 1, math.ceil(size * GROW)))
        elif not any(f.proved for f in found):
            size = max(min(n, MIN_SIZE), math.floor(size * SHRINK))
