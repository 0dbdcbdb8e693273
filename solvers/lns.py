"""The ``lns`` solver: large-neighbourhood search, each neighbourhood re-optimised by CP-SAT.

An exact model of a few thousand requests is far too large to solve, but
the same model with most decisions fixed is small. ``lns`` starts from the
best schedule of every online heuristic
(:func:`solvers.online.best.best_heuristic`), improved by the local search
of :mod:`solvers.local_search` for :data:`LOCAL_SHARE` of the time limit
(as the exact solvers' warm start, with a larger share; not without
prefetch, as the local search may prefetch), and, round after round, frees a
*neighbourhood* of requests, re-optimises them with the CP-SAT model of
:mod:`solvers.cpsat` while every other request keeps its decisions, and
keeps the result when the validator finds it better.

What "fixed" means (:class:`LnsData`): the model is the one
:func:`solvers.cpsat.build_model` builds, over restricted data. A request
that is not freed keeps its drives (its nodes are candidates of no other
drive) and its place in its drive's sequence: of the nodes it may follow on
its drive, only the next kept node of the incumbent's sequence, or a freed
node. A kept node near the neighbourhood in time may take a freed node
before or after it; a kept node far from it may not, which keeps the model
linear in the size of the instance and quadratic only in the
neighbourhood. Times, mounts and dismounts stay free for every request
(kept ones may move earlier as freed ones make room). Whatever the
restriction, a solution of the model is a schedule of the instance; the
incumbent is one (it hints every variable), so a sub-solve never ends
worse.

Neighbourhoods (:data:`KINDS`), each around a random *pivot* request and
of a given size:

- ``window``: the requests whose incumbent start is nearest the pivot's;
- ``tapes``: every request of a few tapes, the pivot's first, then the
  tapes read nearest the pivot in time;
- ``drives``: the requests nearest the pivot in time run on its drives
  and on one other drive of its library;
- ``related``: a chain of requests sharing tapes, from the pivot, each the
  nearest in time to the pivot that shares a tape with one already chosen.

The size adapts: it grows by :data:`GROW` after a round that improved the
incumbent or proved every neighbourhood optimal, and shrinks by
:data:`SHRINK` after a round whose sub-solves all ran out of time.

Both cores: each round solves :data:`PARALLEL` neighbourhoods at once, in
threads, each CP-SAT sub-solve on one worker with a *deterministic* time
limit (:data:`SUB_DETERMINISTIC_S`), and keeps the best of them. A
one-worker CP-SAT search with a deterministic limit is reproducible, so a
run with an iteration budget (``iterations`` rounds) is deterministic for a
seed, unless the wall-clock limit cuts it short.
"""

from __future__ import annotations

import itertools
import math
import random
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from attrs import frozen
from ortools.sat.python import cp_model

from solvers.bounds import lower_bound
from solvers.cpsat import CpsatModel, build_model
from solvers.cpsat.data import CpsatData
from solvers.cpsat.decisions import CpsatDecisions, decisions_from_schedule
from solvers.cpsat.solution import read_plan
from solvers.deadline import Deadline, OutOfTime
from solvers.local_search import improve
from solvers.online.best import best_heuristic
from solvers.plan import plan_to_schedule
from solvers.result import Progress, Result, Status
from toolkit.model import Instance, Schedule
from toolkit.validator import validate

KINDS = ("window", "tapes", "drives", "related")
"""The neighbourhoods, chosen at random each sub-solve."""

PARALLEL = 2
"""Neighbourhoods solved at once per round (one per core of the reference machine)."""

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

SUB_DETERMINISTIC_S = 2.0
"""CP-SAT's deterministic time limit of one sub-solve (about as many seconds)."""

DEFAULT_ITERATIONS = 30
"""Rounds run when neither a time limit nor an iteration budget is given."""

LOCAL_SHARE = 0.25
"""Share of the time limit the start's local search gets (:func:`solvers.local_search.improve`).

The local search's list decoder prefetches every tape it can at once, which
on loaded instances gains more in seconds than CP-SAT's neighbourhoods do
in minutes; the neighbourhoods then improve what it cannot (which requests
share a stay, the arm's order). Without a time limit it runs its default
iteration budget, so that the run stays deterministic.
"""

RESOLUTION_S = 0.001
"""Seconds per tick of the sub-models (the CP-SAT solver's default)."""


def _tolerance(value: float) -> float:
    """Least improvement of ``value`` that counts (relative 1e-9)."""
    return 1e-9 * max(1.0, abs(value))


class LnsData(CpsatData):
    """The CP-SAT model's data with every request outside ``freed`` kept as in ``incumbent``.

    Parameters
    ----------
    instance, resolution_s, deadline, prefetch
        As :class:`~solvers.cpsat.data.CpsatData`.
    incumbent
        A feasible schedule the model can express.
    freed
        Positions of the requests freed.

    Raises
    ------
    ValueError
        When the model cannot express ``incumbent``.

    Notes
    -----
    A kept node is *near* the neighbourhood on its drive when its incumbent
    start lies within the freed requests' span of time widened by half of
    it on each side, or when it is the last kept node before or the first
    after that span; freed nodes may come right before or after near kept
    nodes only. Symmetry breaking among identical drives and identical
    requests is off: fixed decisions tell them apart.
    """

    def __init__(
        self,
        instance: Instance,
        resolution_s: float,
        deadline: Deadline | None,
        prefetch: bool,
        incumbent: Schedule,
        freed: frozenset[int],
    ) -> None:
        super().__init__(instance, resolution_s, deadline, prefetch)
        decisions = decisions_from_schedule(self, incumbent)
        if decisions is None:
            raise ValueError("the model cannot express the incumbent")
        self.freed_nodes = frozenset(n for j in freed for n in self.request_nodes[j])
        self._restrict(instance, incumbent, decisions, freed)

    def _restrict(
        self,
        instance: Instance,
        incumbent: Schedule,
        decisions: CpsatDecisions,
        freed: frozenset[int],
    ) -> None:
        timed = {e.id: (e.start_s, e.end_s) for e in incumbent.requests}
        ids = [r.id for r in instance.requests]

        def start_of(n: int) -> float:
            j = self.nodes[n].request
            return -math.inf if j < 0 else timed[ids[j]][0]

        lo = min(timed[ids[j]][0] for j in freed)
        hi = max(timed[ids[j]][1] for j in freed)
        slack = (hi - lo) / 2
        lo, hi = lo - slack, hi + slack
        self.next_kept: dict[int, int] = {}
        self.near: set[int] = set()
        drives_of_node = list(self.drives_of_node)
        for d, seq in enumerate(decisions.sequences):
            kept = [n for n in seq if n not in self.freed_nodes]
            for n in kept:
                drives_of_node[n] = (d,)
            for a, b in itertools.pairwise(kept):
                self.next_kept[a] = b
            before = [n for n in kept if start_of(n) < lo]
            after = [n for n in kept if start_of(n) > hi]
            self.near.update(n for n in kept if lo <= start_of(n) <= hi)
            self.near.update(before[-1:] + after[:1])
        self.drives_of_node = drives_of_node
        self.candidates = [
            tuple(n for n in cands if d in drives_of_node[n])
            for d, cands in enumerate(self.candidates)
        ]

    def can_follow(self, a: int, b: int) -> bool:
        """As the model's, restricted: kept nodes keep their order; freed ones go near."""
        if not super().can_follow(a, b):
            return False
        a_freed, b_freed = a in self.freed_nodes, b in self.freed_nodes
        if a_freed and b_freed:
            return True
        if a_freed:
            return b in self.near
        if b_freed:
            return a in self.near
        return self.next_kept.get(a) == b

    @property
    def drive_twins(self) -> tuple[tuple[int, ...], ...]:  # type: ignore[override]
        """None: kept decisions tell identical drives apart."""
        return ()

    @property
    def request_twins(self) -> tuple[tuple[int, ...], ...]:  # type: ignore[override]
        """None: kept decisions tell identical requests apart."""
        return ()


def fix_far(built: CpsatModel) -> int:
    """Fix every variable of the nodes far from the neighbourhood to its hinted value.

    Far: neither freed nor near (:class:`LnsData`), and of a request none
    of whose nodes is either. Their times, mounts, dismounts and arcs are
    those of the incumbent, which the model hints; the sub-model keeps only
    the neighbourhood's decisions and times, which lets CP-SAT's presolve
    remove the rest at once. Returns how many variables were fixed (0 when
    the model has no hint).
    """
    data = built.data
    assert isinstance(data, LnsData)
    proto = built.model.proto
    hinted = dict(zip(proto.solution_hint.vars, proto.solution_hint.values, strict=True))
    if not hinted:
        return 0
    v = built.variables
    loose = set(data.freed_nodes) | data.near
    loose_requests = {data.nodes[n].request for n in loose}
    loose.update(n for j in loose_requests if j >= 0 for n in data.request_nodes[j])
    far = [n for n in range(len(data.nodes)) if n not in loose]
    variables: list[Any] = []
    for j in range(len(data.request_nodes)):
        if j not in loose_requests:
            variables += [v.start[j], v.end[j], v.span[j]]
    for n in far:
        variables += [v.on.get((n, d)) for d in data.drives_of_node[n]]
        for family in (v.mounted, v.mount, v.dismounted, v.dismount, v.continued, v.kept):
            variables.append(family.get(n))
        variables += [v.hold_start.get(n), v.hold_end.get(n)]
    far_set = set(far)
    variables += [
        literal
        for (_, a, b), literal in v.arc.items()
        if (a in far_set or a < 0) and (b in far_set or b < 0)
    ]
    fixed = 0
    for var in variables:
        if isinstance(var, cp_model.IntVar) and var.index in hinted:
            built.model.add(var == hinted[var.index])
            fixed += 1
    return fixed


@frozen
class _Incumbent:
    """What the neighbourhoods are chosen from: each request's start, drives and tapes."""

    starts: tuple[float, ...]
    drives: tuple[tuple[str, ...], ...]
    tapes: tuple[tuple[str, ...], ...]
    library_drives: tuple[tuple[str, ...], ...]

    @classmethod
    def of(cls, instance: Instance, schedule: Schedule) -> _Incumbent:
        """The incumbent ``schedule`` of ``instance``."""
        by_id = {e.id: e for e in schedule.requests}
        scheduled = [by_id[r.id] for r in instance.requests]
        return cls(
            tuple(e.start_s for e in scheduled),
            tuple(tuple(e.drives) for e in scheduled),
            tuple(tuple(dict.fromkeys(p.tape for p in r.pieces)) for r in instance.requests),
            tuple(
                tuple(d.id for d in instance.drives_of_library[instance.library_of_request(r).id])
                for r in instance.requests
            ),
        )

    def nearest(self, pivot: int) -> list[int]:
        """Every request by distance of its start to the pivot's (ties: position)."""
        t = self.starts[pivot]
        return sorted(range(len(self.starts)), key=lambda j: (abs(self.starts[j] - t), j))


def _neighbourhood(kind: str, rng: random.Random, size: int, inc: _Incumbent) -> frozenset[int]:
    """``size`` requests (all, if fewer) of the neighbourhood ``kind`` around a random pivot."""
    n = len(inc.starts)
    if size >= n:
        return frozenset(range(n))
    pivot = rng.randrange(n)
    nearest = inc.nearest(pivot)
    chosen: dict[int, None] = {}
    if kind == "window":
        chosen.update(dict.fromkeys(nearest[:size]))
    elif kind == "tapes":
        readers: dict[str, list[int]] = defaultdict(list)
        for j in nearest:
            for tape in inc.tapes[j]:
                readers[tape].append(j)
        for j in nearest:
            for tape in inc.tapes[j]:
                for k in readers[tape][: size - len(chosen)]:
                    chosen[k] = None
            if len(chosen) >= size:
                break
    elif kind == "drives":
        own = set(inc.drives[pivot])
        others = sorted(set(inc.library_drives[pivot]) - own)
        if others:
            own.add(rng.choice(others))
        chosen.update(dict.fromkeys([j for j in nearest if own & set(inc.drives[j])][:size]))
    else:
        tapes: set[str] = set()
        while len(chosen) < size:
            linked = next(
                (j for j in nearest if j not in chosen and tapes & set(inc.tapes[j])), None
            )
            if linked is None:
                linked = next(j for j in nearest if j not in chosen)
            chosen[linked] = None
            tapes.update(inc.tapes[linked])
    for j in nearest:  # a neighbourhood short of requests is topped up by time
        if len(chosen) >= size:
            break
        chosen.setdefault(j, None)
    return frozenset(chosen)


@frozen
class _SubResult:
    """One sub-solve: its schedule and validated value, whether it proved optimal, its bound.

    ``bound_s`` is CP-SAT's bound in seconds (lowered by what rounding can
    add), a bound of the instance only when the neighbourhood was all of it.
    """

    schedule: Schedule | None
    value: float | None
    proved: bool
    bound_s: float | None = None


def _solve_all(
    instance: Instance,
    built: Sequence[CpsatModel],
    seeds: Sequence[int],
    wall_s: float | None,
    prefetch: bool,
) -> list[_SubResult]:
    """Solve the sub-models at once, one thread and one CP-SAT worker each.

    A Ctrl-C (or any exception raised in this thread) stops every search
    and goes on.
    """
    solvers: list[cp_model.CpSolver] = []
    outcomes: list[Any] = [None] * len(built)
    failures: list[BaseException] = []
    threads = []
    for i, (sub, seed) in enumerate(zip(built, seeds, strict=True)):
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        solver.parameters.random_seed = seed
        solver.parameters.max_deterministic_time = SUB_DETERMINISTIC_S
        solver.parameters.catch_sigint_signal = False
        solver.parameters.cp_model_probing_level = 0  # probing a sub-model costs its whole limit
        solver.parameters.symmetry_level = 0  # kept decisions leave no symmetry worth the search
        if wall_s is not None:
            solver.parameters.max_time_in_seconds = max(wall_s, 0.0)
        solvers.append(solver)

        def search(i: int = i, solver: cp_model.CpSolver = solver, sub: CpsatModel = sub) -> None:
            try:
                outcomes[i] = solver.solve(sub.model)
            except BaseException as exc:
                failures.append(exc)

        threads.append(threading.Thread(target=search, name=f"lns-{i}", daemon=True))
    for thread in threads:
        thread.start()
    try:
        for thread in threads:
            while thread.is_alive():
                thread.join(0.1)
    except BaseException:
        for thread, solver in zip(threads, solvers, strict=True):
            while thread.is_alive():
                solver.stop_search()
                thread.join(0.1)
        raise
    if failures:
        raise failures[0]
    out = []
    for sub, solver, outcome in zip(built, solvers, outcomes, strict=True):
        if outcome == cp_model.MODEL_INVALID:
            raise RuntimeError(f"CP-SAT rejects the sub-model: {sub.model.validate()}")
        proved = outcome == cp_model.OPTIMAL
        if outcome not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            out.append(_SubResult(None, None, proved))
            continue
        bound_s = sub.scaled.bound_s(solver.best_objective_bound, sub.data.tick)
        schedule = plan_to_schedule(instance, read_plan(solver, sub.data, sub.variables))
        report = validate(instance, schedule, prefetch=prefetch)
        if not report.feasible or report.objective is None:
            problems = "; ".join(str(v) for v in report.violations[:5])
            raise RuntimeError(f"an lns sub-solve gave an infeasible schedule: {problems}")
        out.append(_SubResult(schedule, report.objective, proved, bound_s))
    return out


def lns(
    instance: Instance,
    *,
    time_limit_s: float | None = None,
    seed: int = 0,
    workers: int = PARALLEL,
    iterations: int | None = None,
    prefetch: bool = True,
    progress: Callable[[Progress], None] | None = None,
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
        Neighbourhoods solved at once per round, each on one CP-SAT worker
        (one per core).
    iterations
        Most rounds; ``None``: :data:`DEFAULT_ITERATIONS` without a time
        limit, unbounded with one.
    prefetch
        ``False``: the non-anticipative problem (the start and every
        sub-model keep to it; see :func:`solvers.cpsat.cpsat`).
    progress
        Called with each new point of the trajectory as it comes (the
        start, then each improvement).

    Returns
    -------
    Result
        ``optimal`` when the incumbent meets the bound: the larger of
        :func:`solvers.bounds.lower_bound` and, when a neighbourhood was the
        whole instance (a small one), CP-SAT's bound on it (lowered by what
        the model's rounding can add, see :mod:`solvers.cpsat`);
        ``timeout`` when the time limit ended the run; ``feasible`` when
        the iteration budget did, or the model cannot express the start;
        ``infeasible`` when no online heuristic schedules the instance (a
        gang wider than its library). The schedule is never worse than
        the start, and the objective is the validator's; the bound is
        :func:`solvers.bounds.lower_bound`, never above the objective, and
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
    bound = min(lower_bound(instance), value)
    trajectory = [Progress(time.perf_counter() - began, value, bound)]
    if progress is not None:
        progress(trajectory[-1])

    def improved(found: float) -> None:
        trajectory.append(Progress(time.perf_counter() - began, found, min(bound, found)))
        if progress is not None:
            progress(trajectory[-1])

    if prefetch and value > bound + _tolerance(bound):
        share = None if time_limit_s is None else LOCAL_SHARE * time_limit_s
        polished = improve(
            instance, incumbent, time_limit_s=share, seed=seed, target=bound, on_improve=improved
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

    rng = random.Random(seed)
    n = len(instance.requests)
    size = min(n, INITIAL_SIZE)
    inc = _Incumbent.of(instance, incumbent)
    rounds = 0
    while True:
        if value <= bound + _tolerance(bound):
            return result(Status.OPTIMAL)
        if budget is not None and rounds >= budget:
            return result(Status.FEASIBLE)
        if deadline is not None and time.perf_counter() >= deadline:
            return result(Status.TIMEOUT)
        rounds += 1
        hoods = [_neighbourhood(rng.choice(KINDS), rng, size, inc) for _ in range(max(1, workers))]
        seeds = [rng.randrange(2**31) for _ in hoods]
        try:
            built = [
                build_model(
                    instance,
                    RESOLUTION_S,
                    incumbent,
                    prefetch=prefetch,
                    data=LnsData(
                        instance, RESOLUTION_S, Deadline(deadline), prefetch, incumbent, hood
                    ),
                )
                for hood in hoods
            ]
        except OutOfTime:
            return result(Status.TIMEOUT)
        except ValueError:
            return result(Status.FEASIBLE)
        for sub in built:
            fix_far(sub)
        wall = None if deadline is None else deadline - time.perf_counter()
        found = _solve_all(instance, built, seeds, wall, prefetch)
        better = [f for f in found if f.value is not None and f.value < value - _tolerance(value)]
        if better:
            best = min(better, key=lambda f: f.value if f.value is not None else math.inf)
            assert best.schedule is not None and best.value is not None
            incumbent, value = best.schedule, best.value
            bound = min(bound, value)
            inc = _Incumbent.of(instance, incumbent)
            trajectory.append(Progress(time.perf_counter() - began, value, bound))
            if progress is not None:
                progress(trajectory[-1])
        whole = [f.bound_s for f, hood in zip(found, hoods, strict=True) if len(hood) == n]
        proven = max((b for b in whole if b is not None), default=bound)
        if proven > bound + _tolerance(bound):  # CP-SAT's bound on the whole instance
            bound = min(proven, value)
            trajectory.append(Progress(time.perf_counter() - began, value, bound))
            if progress is not None:
                progress(trajectory[-1])
        if better or all(f.proved for f in found):
            size = min(n, MAX_SIZE, max(size + 1, math.ceil(size * GROW)))
        elif not any(f.proved for f in found):
            size = max(min(n, MIN_SIZE), math.floor(size * SHRINK))
