"""A heuristic's schedule as a solution hint for the CP-SAT model.

The schedule is read back into decisions
(:func:`~solvers.cpsat.decisions.decisions_from_schedule`), put in the form
that symmetry breaking keeps (:func:`canonical`), and timed in ticks with the
model's rounded lengths (:func:`~solvers.cpsat.decisions.earliest`), so that
every variable gets a value and the hint is a whole solution of the model:
CP-SAT starts from it, and never ends with less. A schedule the model cannot
express gives no hint.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from attrs import frozen
from ortools.sat.python import cp_model
from ortools.sat.python.cp_model_helper import Literal

from tapesched.solvers.cpsat.data import DEPOT, CpsatData
from tapesched.solvers.cpsat.decisions import (
    CpsatDecisions,
    InvalidDecisions,
    Times,
    decisions_from_schedule,
    earliest,
)
from tapesched.solvers.cpsat.variables import CpsatVariables
from tapesched.toolkit.model import Schedule, ScheduledRequest


def canonical(data: CpsatData, decisions: CpsatDecisions) -> CpsatDecisions:
    """``decisions`` in the form that symmetry breaking and dominance keep.

    Within each group of :attr:`~solvers.exact.formulation.Formulation.drive_twins`,
    the sequences are sorted by first node, idle drives last, as
    :func:`~solvers.cpsat.constraints.add_symmetry_breaking` requires.
    Lanes and tape orders name nodes, not drives, so they stay as they are.
    A drive's last node loses its dismount when no other node of its tape
    is mounted (:func:`~solvers.cpsat.constraints.add_dominance`): no later
    stay needs the tape, and the arm operation leaves its lane.
    """
    sequences = list(decisions.sequences)
    for group in data.drive_twins:
        ordered = sorted((sequences[d] for d in group), key=lambda s: (not s, s[:1]))
        for d, seq in zip(group, ordered, strict=True):
            sequences[d] = seq
    mounted = decisions.mounted(data)
    useless = {
        seq[-1]
        for seq in sequences
        if seq
        and seq[-1] in decisions.dismounted
        and not any(
            m in mounted and m != seq[-1] for m in data.nodes_of_tape[data.nodes[seq[-1]].tape]
        )
    }
    lanes = tuple(
        tuple(op for op in lane if not (op[0] == "dismount" and op[1] in useless))
        for lane in decisions.lanes
    )
    return CpsatDecisions(
        tuple(sequences), decisions.dismounted - useless, lanes, decisions.tape_orders
    )


@frozen
class Hint:
    """A schedule read as the model's decisions, timed in ticks."""

    decisions: CpsatDecisions
    times: Times

    def latest(self, data: CpsatData) -> float:
        """The latest event of the hint, the end of a dismount included (ticks)."""
        ends = [
            *self.times.end,
            *self.times.mount.values(),
            *(t + data.dismount_t(data.node_library[n]) for n, t in self.times.dismount.items()),
        ]
        return max(ends, default=0.0)


def read_hint(data: CpsatData, schedule: Schedule) -> Hint | None:
    """``schedule`` as a solution of the model, or ``None`` when the model cannot express it.

    Parameters
    ----------
    data
        The model's data.
    schedule
        A feasible schedule of ``data.instance``.
    """
    hint = _timed(data, schedule)
    if hint is None:
        return None
    ordered = twins_in_order(data, schedule, hint.times.start)
    return hint if ordered is schedule else _timed(data, ordered)


def _timed(data: CpsatData, schedule: Schedule) -> Hint | None:
    """``schedule``'s decisions in canonical form, timed in ticks (``None`` if inexpressible)."""
    decisions = decisions_from_schedule(data, schedule)
    if decisions is None:
        return None
    decisions = canonical(data, decisions)
    try:
        times = earliest(data, decisions, exact=False)
    except InvalidDecisions:
        return None
    return Hint(decisions, times)


def twins_in_order(data: CpsatData, schedule: Schedule, starts: Sequence[float]) -> Schedule:
    """``schedule`` with identical requests renamed so that they start in index order.

    ``starts`` are the requests' starts by index, as the model would time
    them. Identical requests (:attr:`~solvers.exact.formulation.Formulation.request_twins`)
    trade places freely, and :func:`~solvers.cpsat.constraints.add_twin_order`
    keeps one order: the one this renaming gives. ``schedule`` itself is
    returned when already in order.
    """
    ids = [request.id for request in data.instance.requests]
    rename: dict[str, str] = {}
    for group in data.request_twins:
        ordered = sorted(group, key=lambda j: (starts[j], j))
        rename.update((ids[j], ids[k]) for j, k in zip(ordered, group, strict=True) if j != k)
    if not rename:
        return schedule
    requests = tuple(
        ScheduledRequest(rename.get(e.id, e.id), e.drives, e.start_s, e.end_s)
        for e in schedule.requests
    )
    return Schedule(requests, schedule.operations, schedule.instance, schedule.objective)


def add_hint(model: cp_model.CpModel, data: CpsatData, v: CpsatVariables, hint: Hint) -> bool:
    """Hint every variable of the model with ``hint``; ``False`` when it passes the horizon."""
    if hint.latest(data) > data.horizon:
        return False
    hints = _Hints()
    _hint_decisions(hints, data, v, hint.decisions)
    _hint_times(hints, data, v, hint.decisions, hint.times)
    for var, value in hints.values.values():
        if isinstance(var, cp_model.IntVar):
            model.add_hint(var, value)
        else:
            model.add_hint(var, bool(value))
    return True


def add_schedule_hint(
    model: cp_model.CpModel, data: CpsatData, v: CpsatVariables, schedule: Schedule
) -> bool:
    """Hint every variable of the model with ``schedule``; ``False`` when it cannot be expressed.

    :func:`read_hint` then :func:`add_hint`.
    """
    hint = read_hint(data, schedule)
    return hint is not None and add_hint(model, data, v, hint)


class _Hints:
    """Hinted values by variable: one hint per variable, as CP-SAT requires.

    A literal may stand for two keys (a switch between two tapes is its arc;
    the arcs into initial nodes share one constant), so later hints of a
    variable already hinted are dropped.
    """

    def __init__(self) -> None:
        self.values: dict[int, tuple[Literal, int]] = {}

    def add(self, var: Literal, value: int | bool) -> None:
        """Hint ``var`` with ``value`` unless it already has a hint."""
        self.values.setdefault(var.index, (var, int(value)))


def _hint_decisions(
    hints: _Hints, data: CpsatData, v: CpsatVariables, decisions: CpsatDecisions
) -> None:
    """Hint the assignment, the circuits and the switch flags."""
    drive_of = decisions.drive_of()
    for (n, d), on in v.on.items():
        hints.add(on, drive_of.get(n) == d)
    chosen = set()
    for d, seq in enumerate(decisions.sequences):
        chosen.add((d, DEPOT, seq[0]) if seq else (d, DEPOT, DEPOT))
        chosen.update((d, a, b) for a, b in itertools.pairwise(seq))
        if seq:
            chosen.add((d, seq[-1], DEPOT))
    for key, arc in v.arc.items():
        if key[1] == key[2] != DEPOT:
            continue
        hints.add(arc, key in chosen)
    for key, switch in v.switch.items():
        if key in v.cont:
            on_arc = key in chosen
            hints.add(switch, on_arc and key[1] in decisions.dismounted)
            hints.add(v.cont[key], on_arc and key[1] not in decisions.dismounted)
    mounted = decisions.mounted(data)
    last = {seq[-1] for seq in decisions.sequences if seq}
    for node in data.nodes:
        n = node.index
        if n in v.mounted:
            hints.add(v.mounted[n], n in mounted)
        dismounted = n in decisions.dismounted
        hints.add(v.dismounted[n], dismounted)
        hints.add(v.kept[n], n in last and not dismounted)
        hints.add(v.continued[n], n not in last and not dismounted)


def _hint_times(
    hints: _Hints, data: CpsatData, v: CpsatVariables, decisions: CpsatDecisions, times: Times
) -> None:
    """Hint the transfer, arm and hold times (``times`` in ticks, as whole floats)."""
    start, end = times.start, times.end
    mounts, dismounts = times.mount, times.dismount
    for j in range(len(data.request_nodes)):
        hints.add(v.start[j], round(start[j]))
        hints.add(v.end[j], round(end[j]))
        hints.add(v.span[j], round(end[j] - start[j]))
    for n, var in v.mount.items():
        hints.add(var, round(mounts.get(n, 0.0)))
    for n, var in v.dismount.items():
        hints.add(var, round(dismounts.get(n, 0.0)))
    for d, nodes in decisions.stays():
        lib = data.drive_library[d]
        previous_end = 0.0
        for k, n in enumerate(nodes):
            node = data.nodes[n]
            own_end = (
                float(data.ticks(data.available_s(d))) if node.is_initial else end[node.request]
            )
            if k == 0:
                begin = 0.0 if node.is_initial else mounts[n]
            else:
                begin = previous_end
            if k + 1 < len(nodes):
                finish = own_end
            elif n in dismounts:
                finish = dismounts[n] + data.dismount_t(lib)
            else:
                finish = float(data.horizon)
            if n in v.hold:
                if not node.is_initial:
                    hints.add(v.hold_start[n], round(begin))
                hints.add(v.hold_end[n], round(finish))
            previous_end = own_end
