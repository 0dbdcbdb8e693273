"""A feasible schedule (the greedy heuristic's) as values of every MILP variable.

The solvers start from it (CBC reads it as a MIP start, HiGHS as a
solution set before the run), so that they hold a feasible incumbent from
the first node, and its objective value bounds the ends of an optimal
schedule (:class:`solvers.milp.data.MilpData`). The schedule is read as the
validator reads it (:meth:`solvers.exact.formulation.Formulation.stays_of`, shared
with CP-SAT): each drive's mounts and dismounts in time order make its tape
stays, each transfer belongs to the stay that holds its start, and the
stays' nodes in start order make the drive's sequence; arm operations are
split into lanes by interval partitioning.
"""

from __future__ import annotations

import math
from typing import Any

from tapesched.solvers.milp.data import MilpData
from tapesched.solvers.milp.solution import MilpDecisions, StayNodes
from tapesched.solvers.milp.variables import MilpVariables
from tapesched.toolkit.model import Schedule
from tapesched.toolkit.validator.violation import EPS

_BOUND_TOL = 1e-6
"""A hint value this far outside its variable's bounds is clamped; farther, the hint is dropped."""


def schedule_decisions(
    data: MilpData, schedule: Schedule
) -> tuple[MilpDecisions, list[float]] | None:
    """The decisions of ``schedule`` and its requests' starts (``None`` if it has none).

    ``None`` also when the schedule cannot be a solution of the model: a
    request missing or on the wrong drives, a mount with no transfer in its
    stay (never useful, and the model has no node for it), operations that
    contradict each other (see :func:`solvers.exact.plan.read_stays`).
    """
    read = data.stays_of(schedule)
    if read is None:
        return None
    by_id = {r.id: r for r in schedule.requests}
    starts = [float(by_id[r.id].start_s) for r in data.instance.requests]
    drive_of = dict(
        sorted(
            (k, d)
            for d, stays in read.items()
            for stay in stays
            for k in stay.nodes
            if not data.nodes[k].is_initial
        )
    )
    routes: dict[str, tuple[StayNodes, ...]] = {}
    clock: dict[tuple[str, int], float] = {}
    for d, stays in read.items():
        for stay in stays:
            if stay.mount is not None:
                clock["mount", stay.nodes[0]] = stay.begin_s
            if stay.dismount is not None:
                clock["dismount", stay.nodes[-1]] = schedule.operations[stay.dismount].start_s
        routes[d] = tuple(
            StayNodes(s.tape, s.nodes, s.mount is not None, s.dismount is not None) for s in stays
        )
    lanes = _lanes(data, routes, clock)
    if lanes is None:
        return None
    return MilpDecisions(drive_of, routes, lanes, clock), starts


def _lanes(
    data: MilpData, routes: dict[str, tuple[StayNodes, ...]], clock: dict[tuple[str, int], float]
) -> dict[tuple[str, int], int] | None:
    """Lanes of the arm operations: interval partitioning, lanes numbered by first operation.

    Operations in start order each take a lane free by their start (the
    validator's tolerance of 1e-6 s); a set never more than ``arms`` deep
    needs no more lanes. Lanes are then renumbered in the order of the
    smallest operation index on each, which meets the model's symmetry
    breaking (operation ``i`` on lanes ``0 .. i`` only).
    """
    present: set[tuple[str, int]] = set()
    for route in routes.values():
        for stay in route:
            if stay.mounted:
                present.add(("mount", stay.nodes[0]))
            if stay.dismounted:
                present.add(("dismount", stay.nodes[-1]))
    out: dict[tuple[str, int], int] = {}
    for lib, ops in data.ops.items():
        count = data.lanes[lib]
        if count == 0:
            continue
        timed = sorted(
            (
                clock[op.kind, op.node],
                clock[op.kind, op.node] + op.duration_s,
                op.index,
                (op.kind, op.node),
            )
            for op in ops
            if (op.kind, op.node) in present
        )
        free: list[float] = []
        lowest: list[int] = []
        raw: dict[tuple[str, int], int] = {}
        for start, end, index, key in timed:
            lane = next((a for a, t in enumerate(free) if t <= start + EPS), None)
            if lane is None:
                lane = len(free)
                free.append(0.0)
                lowest.append(index)
            free[lane] = end
            lowest[lane] = min(lowest[lane], index)
            raw[key] = lane
        if len(free) > count:
            return None
        label = {
            lane: rank for rank, lane in enumerate(sorted(range(len(free)), key=lowest.__getitem__))
        }
        out.update({key: label[lane] for key, lane in raw.items()})
    return out


def canonical(data: MilpData, decisions: MilpDecisions) -> MilpDecisions:
    """``decisions`` with each class of interchangeable drives renumbered by first piece.

    The drives of a class swap their routes so that the one running the
    smallest piece index comes first, then the next, unused drives last,
    as the model's symmetry breaking asks (see
    :func:`solvers.milp.constraints.assignment`). The schedule is the same
    up to the names of identical, initially empty drives.
    """
    first_piece: dict[str, float] = {}
    for k, d in decisions.drive_of.items():
        first_piece[d] = min(first_piece.get(d, math.inf), k)
    rename: dict[str, str] = {}
    for twins in data.drive_twin_ids:
        ordered = sorted(twins, key=lambda d: (first_piece.get(d, math.inf), data.drive_index[d]))
        rename.update(zip(ordered, twins, strict=True))
    if not rename:
        return decisions
    return MilpDecisions(
        {k: rename.get(d, d) for k, d in decisions.drive_of.items()},
        {rename.get(d, d): route for d, route in decisions.routes.items()},
        decisions.lanes,
        decisions.clock,
    )


def hint_values(data: MilpData, var: MilpVariables, schedule: Schedule) -> dict[Any, float] | None:
    """A value for every variable of ``var`` that encodes ``schedule``.

    ``None`` when the schedule is not a solution of the model (see
    :func:`schedule_decisions`, and an arc the model left out, or a value
    outside its bounds beyond rounding).
    """
    read = schedule_decisions(data, schedule)
    if read is None:
        return None
    decisions, starts = read
    decisions = canonical(data, decisions)
    values: dict[Any, float] = dict.fromkeys(var.all(), 0.0)
    values[var.one] = 1.0
    instance = data.instance
    ends = []
    for j, pieces in enumerate(data.request_nodes):
        ends.append(starts[j] + max(data.duration[k, decisions.drive_of[k]] for k in pieces))
        values[var.start[j]] = starts[j]
        values[var.end[j]] = ends[j]
    for k, d in decisions.drive_of.items():
        values[var.x[k, d]] = 1.0
    for u in var.dismount:
        values[var.dismount[u]] = data.earliest_dismount[u]

    def end_of(u: int) -> float:
        return 0.0 if data.nodes[u].is_initial else ends[data.nodes[u].request]

    hold_start: dict[int, float] = {}
    hold_end: dict[int, float] = {}
    for d, route in decisions.routes.items():
        sequence = [u for stay in route for u in stay.nodes]
        if not sequence:
            continue
        if data.drive_index[d] not in data.initial_node:
            values[var.first[sequence[0], d]] = 1.0
        position = 0
        for s, stay in enumerate(route):
            library = instance.library_by_id[data.nodes[stay.nodes[0]].library]
            if stay.mounted:
                values[var.is_mounted[stay.nodes[0]]] = 1.0
                values[var.mount[stay.nodes[0]]] = decisions.clock["mount", stay.nodes[0]]
                hold_start[stay.nodes[0]] = decisions.clock["mount", stay.nodes[0]]
            else:
                hold_start[stay.nodes[0]] = 0.0
            for u, v in zip(stay.nodes, stay.nodes[1:], strict=False):
                if (u, v, d) not in var.cont:
                    return None
                values[var.cont[u, v, d]] = 1.0
                hold_end[u] = end_of(u)
                hold_start[v] = end_of(u)
            for u in stay.nodes:
                if u in var.rank:
                    values[var.rank[u]] = position
                position += 0 if data.nodes[u].is_initial else 1
            last = stay.nodes[-1]
            if stay.dismounted:
                values[var.is_dismounted[last]] = 1.0
                values[var.dismount[last]] = decisions.clock["dismount", last]
                hold_end[last] = decisions.clock["dismount", last] + library.dismount_s
            else:
                hold_end[last] = data.forever
            if s + 1 < len(route):
                head = route[s + 1].nodes[0]
                if (last, head, d) not in var.switch:
                    return None
                values[var.switch[last, head, d]] = 1.0
            elif stay.dismounted:
                values[var.drop[last, d]] = 1.0
            else:
                values[var.keep[last, d]] = 1.0
    for u, variable in var.hold_start.items():
        values[variable] = hold_start[u]
        values[var.hold_end[u]] = hold_end[u]
    for u, w in var.before:
        if hold_end[u] <= hold_start[w] + EPS:
            values[var.before[u, w]] = 1.0
        elif hold_end[w] > hold_start[u] + EPS:
            return None
    for (j, k), order in var.pair_order.items():
        values[order] = 1.0 if ends[j] <= starts[k] + EPS else 0.0
    _arm_values(data, var, decisions, values)
    if var.objective is not None:
        values[var.objective] = max(
            (ends[j] if instance.objective == "makespan" else r.weight * (ends[j] - r.release_s))
            for j, r in enumerate(instance.requests)
        )
    return _within_bounds(values)


def _arm_values(
    data: MilpData, var: MilpVariables, decisions: MilpDecisions, values: dict[Any, float]
) -> None:
    """Lane and order binaries: lanes as read, order by start time."""
    for (lib, i, k), variable in var.order.items():
        a, b = data.ops[lib][i], data.ops[lib][k]
        a_start = decisions.clock.get((a.kind, a.node))
        b_start = decisions.clock.get((b.kind, b.node))
        if a_start is not None and b_start is not None and a_start <= b_start:
            values[variable] = 1.0
    for lib, ops in data.ops.items():
        if data.lanes[lib] < 2:
            continue
        for op in ops:
            lane = decisions.lanes.get((op.kind, op.node))
            if lane is not None:
                values[var.lane[lib, op.index, lane]] = 1.0


def _within_bounds(values: dict[Any, float]) -> dict[Any, float] | None:
    """``values`` clamped into their variables' bounds, or ``None`` if one is far outside."""
    out = {}
    for variable, value in values.items():
        low = variable.lowBound if variable.lowBound is not None else -math.inf
        high = variable.upBound if variable.upBound is not None else math.inf
        if value < low - _BOUND_TOL * max(1.0, abs(low)) or value > high + _BOUND_TOL * max(
            1.0, abs(high)
        ):
            return None
        out[variable] = min(max(value, low), high)
    return out


def apply_hint(data: MilpData, var: MilpVariables, schedule: Schedule) -> bool:
    """Set every variable's initial value from ``schedule``; ``False`` when it does not fit."""
    values = hint_values(data, var, schedule)
    if values is None:
        return False
    for variable, value in values.items():
        variable.setInitialValue(value, check=False)
    return True
