"""Recall ordering: in which order to read the files requested from one mounted tape.

On a serpentine tape (:mod:`toolkit.hardware.tape_geometry`) the cheapest order to
read a set of files is not their block order: two files far apart in block
order may lie side by side on neighbouring wraps. The orderers here answer
BNL's question (Yu et al., "Best practices in accessing tape-resident data
in HPSS": request order, ERADAT's offset order, the drive's RAO) and CERN
CTA's (SLTF under its cost heuristic), all under one locate model:

- ``none``: the request order, as the files were given.
- ``offset``: block order, as BNL's ERADAT submits a tape's requests.
- ``sltf``: shortest locate time first from the head, CTA's
  ``SLTFRAOAlgorithm`` (ties to the file given first).
- ``exact``: the cheapest order, an asymmetric travelling-salesman path from
  the head, started from the better of ``sltf`` and ``offset``: OR-Tools'
  routing solver (guided local search) for :data:`ROUTING_SHARE` of the
  time limit from :data:`SEARCH_FIRST_FROM` files, then CP-SAT's circuit
  constraint from its order, up to :data:`CP_SAT_MAX_FILES` files; the
  routing solver alone beyond, up to :data:`~toolkit.runtime.limits.MAX_DENSE_FILES`
  (the dense locate matrix grows as n^2). Proven optimal when
  the solver closes the gap within its time limit, else the best order
  found with a lower bound (the larger of the solver's bound and the
  assignment relaxation's). Ctrl-C stops either solver at once
  (:mod:`solvers.exact.stoppable`).

``sltf`` and ``exact`` work on the dense matrix of locates; ``sltf`` on more
than :data:`~toolkit.runtime.limits.MAX_DENSE_FILES` files computes each step's row
when it takes it instead.

Every orderer follows :class:`Orderer`; :data:`solvers.registry.ORDERERS` names them
(installed packages' too, :func:`solvers.registry.resolve_orderer`).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence
from typing import Literal, Protocol

import numpy as np
import numpy.typing as npt
from attrs import frozen
from ortools.constraint_solver import pywrapcp, routing_enums_pb2
from ortools.sat.python import cp_model
from scipy.optimize import linear_sum_assignment

from tapesched.solvers.exact.stoppable import route_stoppable, solve_stoppable
from tapesched.toolkit.hardware.tape_geometry import (
    LocateModel,
    SerpentineTape,
    TapeFile,
    check_files,
    locate_matrix_s,
    order_time_s,
)
from tapesched.toolkit.runtime.limits import MAX_DENSE_FILES

Status = Literal["heuristic", "optimal", "feasible"]

TICKS_PER_S = 1_000_000
"""The exact solvers' integer time unit: microseconds."""

CP_SAT_MAX_FILES = 300
"""Above this many files ``exact`` uses the routing solver (a circuit of n^2 literals grows
too large for CP-SAT to start from in a short time limit)."""


ROUTING_SHARE = 0.3
"""Share of the time limit that ``exact`` gives the routing solver's local search before CP-SAT
(from :data:`SEARCH_FIRST_FROM` to :data:`CP_SAT_MAX_FILES` files), whose circuit starts from
the order it found (guided local search runs to its limit, never proving anything)."""

SEARCH_FIRST_FROM = 50
"""Fewer files than this go to CP-SAT at once: it proves such paths in well under a second."""


@frozen
class RecallOrder:
    """An order to read files, its estimated time and how good it is known to be.

    Attributes
    ----------
    algorithm
        The orderer that found it.
    order
        Indices into the files, in reading order.
    time_s
        Estimated time: every locate and every read
        (:func:`~toolkit.hardware.tape_geometry.order_time_s`).
    locate_s
        Its locates alone (``time_s`` less the reads, which no order changes).
    status
        ``heuristic`` (no claim), ``optimal`` (proven) or ``feasible`` (the
        best ``exact`` found, with ``lower_bound_s``).
    lower_bound_s
        A lower bound on the time of any order (``exact`` only), same terms
        as ``time_s``.
    solve_s
        Wall-clock seconds the orderer took.
    """

    algorithm: str
    order: tuple[int, ...]
    time_s: float
    locate_s: float
    status: Status = "heuristic"
    lower_bound_s: float | None = None
    solve_s: float = 0.0


class Orderer(Protocol):
    """Orders the files to read from a mounted tape, the head at ``head_block``."""

    def __call__(
        self,
        tape: SerpentineTape,
        model: LocateModel,
        head_block: int,
        files: Sequence[TapeFile],
        *,
        time_limit_s: float = ...,
    ) -> RecallOrder:
        """The order of ``files`` (every file once) and its estimate."""
        ...


def _result(
    algorithm: str,
    tape: SerpentineTape,
    model: LocateModel,
    head_block: int,
    files: Sequence[TapeFile],
    order: Sequence[int],
    began: float,
    *,
    status: Status = "heuristic",
    lower_bound_s: float | None = None,
) -> RecallOrder:
    total = order_time_s(tape, model, head_block, files, order)
    reads = sum(f.read_s(tape) for f in files)
    return RecallOrder(
        algorithm=algorithm,
        order=tuple(order),
        time_s=total,
        locate_s=total - reads,
        status=status,
        lower_bound_s=lower_bound_s,
        solve_s=time.perf_counter() - began,
    )


def request_order(
    tape: SerpentineTape,
    model: LocateModel,
    head_block: int,
    files: Sequence[TapeFile],
    *,
    time_limit_s: float = 0.0,
) -> RecallOrder:
    """``none``: the files in the order given (BNL's "noschedule")."""
    began = time.perf_counter()
    check_files(tape, files)
    return _result("none", tape, model, head_block, files, range(len(files)), began)


def offset_order(
    tape: SerpentineTape,
    model: LocateModel,
    head_block: int,
    files: Sequence[TapeFile],
    *,
    time_limit_s: float = 0.0,
) -> RecallOrder:
    """``offset``: block order (ties in the order given), as BNL's ERADAT sorts requests."""
    began = time.perf_counter()
    check_files(tape, files)
    order = sorted(range(len(files)), key=lambda k: files[k].block)
    return _result("offset", tape, model, head_block, files, order, began)


def _sltf_path(matrix: npt.NDArray[np.float64]) -> list[int]:
    """Greedy path over nodes 1..n from node 0, cheapest next (lowest index on ties)."""
    n = matrix.shape[0] - 1
    left = np.ones(n + 1, dtype=bool)
    left[0] = False
    at, path = 0, []
    for _ in range(n):
        costs = np.where(left, matrix[at], np.inf)
        at = int(np.argmin(costs))
        left[at] = False
        path.append(at - 1)
    return path


def _sltf_path_by_rows(
    tape: SerpentineTape, model: LocateModel, head_block: int, files: Sequence[TapeFile]
) -> list[int]:
    """:func:`_sltf_path` computing each step's locates when it takes them, from the head to
    the files not read yet: memory in n, not n^2 (for more than
    :data:`~toolkit.runtime.limits.MAX_DENSE_FILES` files)."""
    ends = np.array([f.end_block(tape) for f in files], dtype=np.int64)
    starts = np.array([f.block for f in files], dtype=np.int64)
    left = np.arange(len(files))
    at, path = head_block, []
    while left.size:
        k = int(np.argmin(model.locate_s(tape, at, starts[left])))  # lowest index on ties
        path.append(int(left[k]))
        at = int(ends[left[k]])
        left = np.delete(left, k)
    return path


def sltf_order(
    tape: SerpentineTape,
    model: LocateModel,
    head_block: int,
    files: Sequence[TapeFile],
    *,
    time_limit_s: float = 0.0,
) -> RecallOrder:
    """``sltf``: from the head, always the file with the shortest locate next (CTA's SLTF)."""
    began = time.perf_counter()
    check_files(tape, files)
    if len(files) > MAX_DENSE_FILES:
        order = _sltf_path_by_rows(tape, model, head_block, files)
    else:
        order = _sltf_path(locate_matrix_s(tape, model, head_block, files))
    return _result("sltf", tape, model, head_block, files, order, began)


def _ticks(matrix: npt.NDArray[np.float64]) -> npt.NDArray[np.int64]:
    return np.rint(matrix * TICKS_PER_S).astype(np.int64)


def assignment_bound_s(matrix: npt.NDArray[np.float64]) -> float:
    """A lower bound on the locates of any path from node 0: the assignment relaxation.

    Every node is left once and entered once (node 0 entered by the free
    arc back from the last file): a path is such an assignment with no
    subtour, so the cheapest assignment is no dearer.
    """
    n = matrix.shape[0]
    if n <= 1:
        return 0.0
    costs = matrix.copy()
    np.fill_diagonal(costs, costs.max() * n + 1.0)
    rows, cols = linear_sum_assignment(costs)
    return float(costs[rows, cols].sum())


def _cp_sat_path(
    ticks: npt.NDArray[np.int64], hint: Sequence[int], deadline: float
) -> tuple[list[int] | None, float, bool]:
    """Path by CP-SAT's circuit: (order or None, the bound in ticks, proven optimal).

    ``deadline`` is a :func:`time.perf_counter` time: the search gets what is
    left of it once the model is built.
    """
    n = ticks.shape[0]
    model = cp_model.CpModel()
    arcs, literal = [], {}
    for i in range(n):
        for j in range(n):
            if i != j:
                lit = model.new_bool_var(f"a{i}_{j}")
                literal[i, j] = lit
                arcs.append((i, j, lit))
    model.add_circuit(arcs)
    model.minimize(sum(int(ticks[i, j]) * lit for (i, j), lit in literal.items() if j))
    chain = [0, *(k + 1 for k in hint), 0]
    used = set(itertools.pairwise(chain))
    for key, lit in literal.items():
        model.add_hint(lit, key in used)
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = max(deadline - time.perf_counter(), 0.01)
    solver.parameters.num_workers = 1
    (status,) = solve_stoppable([(solver, model)])
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None, 0.0, False
    succ = {i: j for (i, j), lit in literal.items() if solver.boolean_value(lit)}
    order, at = [], succ[0]
    while at != 0:
        order.append(at - 1)
        at = succ[at]
    return order, solver.best_objective_bound, status == cp_model.OPTIMAL


def _routing_path(
    ticks: npt.NDArray[np.int64], hint: Sequence[int], deadline: float
) -> list[int] | None:
    """Path by OR-Tools' routing solver, guided local search from ``hint``, until ``deadline``."""
    n = ticks.shape[0]
    manager = pywrapcp.RoutingIndexManager(n, 1, 0)
    routing = pywrapcp.RoutingModel(manager)
    transit = routing.RegisterTransitMatrix(ticks.tolist())
    routing.SetArcCostEvaluatorOfAllVehicles(transit)
    params = pywrapcp.DefaultRoutingSearchParameters()
    params.local_search_metaheuristic = (
        routing_enums_pb2.LocalSearchMetaheuristic.GUIDED_LOCAL_SEARCH
    )
    params.time_limit.FromMilliseconds(max(int((deadline - time.perf_counter()) * 1000), 10))
    solution = route_stoppable(routing, [[k + 1 for k in hint]], params)
    if solution is None:
        return None
    order, index = [], solution.Value(routing.NextVar(routing.Start(0)))
    while not routing.IsEnd(index):
        order.append(manager.IndexToNode(index) - 1)
        index = solution.Value(routing.NextVar(index))
    return order


def exact_order(
    tape: SerpentineTape,
    model: LocateModel,
    head_block: int,
    files: Sequence[TapeFile],
    *,
    time_limit_s: float = 10.0,
) -> RecallOrder:
    """``exact``: the cheapest order (an asymmetric TSP path from the head), within a time limit.

    Solved in integer microseconds, started from the better of ``sltf`` and
    ``offset``; the answer is the best of the solver's order and those two
    on the model's own (floating-point) estimate, so it is never worse than
    either. ``optimal`` when the solver proves it (or the bound meets the
    order's time), else ``feasible`` with the lower bound.

    Raises
    ------
    ValueError
        For more than :data:`~toolkit.runtime.limits.MAX_DENSE_FILES` files, whose dense
        locate matrix and assignment bound would not fit the time limit.
    """
    began = time.perf_counter()
    check_files(tape, files)
    if len(files) > MAX_DENSE_FILES:
        raise ValueError(
            f"{len(files):,} files, more than the {MAX_DENSE_FILES:,} the exact order is "
            "searched for (its locate matrix grows as n^2)"
        )
    matrix = locate_matrix_s(tape, model, head_block, files)
    reads = sum(f.read_s(tape) for f in files)
    seeds = [
        o.order
        for o in (
            offset_order(tape, model, head_block, files),
            _result("sltf", tape, model, head_block, files, _sltf_path(matrix), began),
        )
    ]
    ticks = _ticks(matrix)

    def cost(order: Sequence[int]) -> int:
        chain = [0, *(k + 1 for k in order)]
        return int(sum(ticks[a, b] for a, b in itertools.pairwise(chain)))

    hint: Sequence[int] = min(seeds, key=cost)
    deadline = began + time_limit_s
    proven = False
    bound_s = assignment_bound_s(matrix)
    if len(files) <= 1:
        found: list[int] | None = list(range(len(files)))
        proven = True
    elif time.perf_counter() >= deadline:
        found = None  # the matrix and the bound took the time limit: the better seed stands
    elif len(files) <= CP_SAT_MAX_FILES:
        if len(files) >= SEARCH_FIRST_FROM:
            # Local search first (quick to improve), then the circuit to prove or bound.
            searched = _routing_path(ticks, hint, began + ROUTING_SHARE * time_limit_s)
            if searched is not None and cost(searched) < cost(hint):
                seeds.append(tuple(searched))
                hint = searched
        found, bound_ticks, proven = _cp_sat_path(ticks, hint, deadline)
        bound_s = max(bound_s, bound_ticks / TICKS_PER_S - len(files) / (2 * TICKS_PER_S))
    else:
        found = _routing_path(ticks, hint, deadline)
    candidates = [*seeds, *([found] if found is not None else [])]
    best = min(candidates, key=lambda o: order_time_s(tape, model, head_block, files, o))
    result = _result("exact", tape, model, head_block, files, best, began)
    bound_s = min(bound_s, result.locate_s)
    status: Status = "optimal" if proven or result.locate_s - bound_s <= 1e-6 else "feasible"
    return RecallOrder(
        algorithm="exact",
        order=result.order,
        time_s=result.time_s,
        locate_s=result.locate_s,
        status=status,
        lower_bound_s=bound_s + reads,
        solve_s=time.perf_counter() - began,
    )
