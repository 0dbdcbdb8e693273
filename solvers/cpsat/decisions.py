"""The decisions of a solution, and the earliest times they allow.

A schedule of the core problem is fixed, up to idle time, by a few orders:
the nodes each drive runs, in sequence, and which are followed by a dismount
(:attr:`Decisions.sequences`, :attr:`Decisions.dismounted`); the order of the
arm operations on each arm (:attr:`Decisions.lanes`); and the order in which
the drives hold each tape (:attr:`Decisions.tape_orders`). Given them, every
rule of the spec is a precedence ``t(v) >= t(u) + length`` between events
(transfer starts and ends, mount and dismount starts) or a lower bound
(releases, time 0), and :func:`earliest` computes the earliest times: the
longest chains of precedences (:class:`~solvers.retiming.EventGraph`, shared
with the MILP reader).

Two uses, one code:

- *exact re-timing* of a CP-SAT solution: its decisions, timed with the
  exact lengths in seconds. Each time is then no later than the model's
  (whose lengths are rounded up), and the schedule is feasible whatever the
  rounding: the rounding of the model never reaches the schedule;
- *hinting*: a heuristic's schedule, read back into decisions
  (:func:`decisions_from_schedule`) and timed in ticks, is a complete
  solution of the model to start the search from.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Callable, Mapping

from attrs import frozen

from solvers.cpsat.data import ModelData
from solvers.plan import Plan, Stay
from solvers.retiming import EventGraph, PositiveCycle
from toolkit.model import Schedule

EPS = 1e-6
"""Tolerance of the validator, used when reading a schedule's times."""

Op = tuple[str, int]
"""An arm operation: ``("mount", node)`` before a node or ``("dismount", node)`` after it."""

Event = tuple[str, int]
"""An event of :func:`earliest`: an arm operation's start (:data:`Op`), or a request's
``("start", j)`` or ``("end", j)``."""


@frozen
class Decisions:
    """The orders that fix a schedule up to idle time.

    Attributes
    ----------
    sequences
        Per drive, its nodes in order (a drive's initial node first).
    dismounted
        Nodes after which their drive's tape is dismounted. The node after
        one (or the first node of a drive empty at time 0) is mounted.
    lanes
        Arm operations of positive length, in order on each arm lane (lanes
        of all libraries together; a lane belongs to one library).
    tape_orders
        Per tape, the first nodes of its stays in the order the drives hold it.
    """

    sequences: tuple[tuple[int, ...], ...]
    dismounted: frozenset[int]
    lanes: tuple[tuple[Op, ...], ...]
    tape_orders: Mapping[str, tuple[int, ...]]

    def drive_of(self) -> dict[int, int]:
        """The drive of every node."""
        return {n: d for d, seq in enumerate(self.sequences) for n in seq}

    def stays(self) -> list[tuple[int, list[int]]]:
        """Every stay as ``(drive, nodes)``: the runs of a drive's nodes between dismounts."""
        out: list[tuple[int, list[int]]] = []
        for d, seq in enumerate(self.sequences):
            current: list[int] = []
            for n in seq:
                current.append(n)
                if n in self.dismounted:
                    out.append((d, current))
                    current = []
            if current:
                out.append((d, current))
        return out

    def mounted(self, data: ModelData) -> set[int]:
        """Nodes preceded by a mount: the first of every stay but an initial tape's."""
        return {nodes[0] for _, nodes in self.stays() if not data.nodes[nodes[0]].is_initial}


@frozen
class Times:
    """Earliest times of every event, in seconds or in ticks.

    ``start`` and ``end`` are per request, ``mount`` per mounted node and
    ``dismount`` per dismounted node.
    """

    start: tuple[float, ...]
    end: tuple[float, ...]
    mount: Mapping[int, float]
    dismount: Mapping[int, float]


class InvalidDecisions(ValueError):
    """Decisions that no schedule satisfies (a cycle of positive length, a broken stay)."""


def earliest(data: ModelData, decisions: Decisions, *, exact: bool) -> Times:
    """The earliest times of ``decisions``: exact seconds, or model ticks (whole floats).

    The precedences go into the shared :class:`~solvers.retiming.EventGraph`
    (events named as in :data:`Event`), whose longest paths are the times.

    Raises
    ------
    InvalidDecisions
        When a stay mixes tapes, a tape is taken from a drive that keeps it,
        or the precedences form a cycle of positive length.
    """
    length: Callable[[float], float] = (
        (lambda seconds: seconds) if exact else (lambda seconds: float(data.ticks(seconds)))
    )
    events = EventGraph[Event]()
    requests = range(len(data.request_nodes))
    for j in requests:
        events.event(("start", j), data.release_s(j) if exact else float(data.release_t(j)))
    drive_of = decisions.drive_of()
    for j, pieces in enumerate(data.request_nodes):
        span = max(length(data.transfer_s(n, drive_of[n])) for n in pieces)
        events.after(("start", j), ("end", j), span)

    stays = decisions.stays()
    first_of: dict[int, tuple[int, list[int]]] = {}
    for d, nodes in stays:
        tape = data.nodes[nodes[0]].tape
        first_of[nodes[0]] = (d, nodes)
        head = nodes[0]
        if not data.nodes[head].is_initial:
            ready = length(data.ready_s(head, d))
            events.after(("mount", head), ("start", data.nodes[head].request), ready)
        for a, b in itertools.pairwise(nodes):
            if data.nodes[b].tape != tape:
                raise InvalidDecisions(f"a stay on drive {d} mixes tapes")
            locate = length(data.locate_s(a, b, d))
            target = ("start", data.nodes[b].request)
            if data.nodes[a].is_initial:
                events.event(target, locate)
            else:
                events.after(("end", data.nodes[a].request), target, locate)
        tail = nodes[-1]
        if tail in decisions.dismounted:
            unload = length(data.unload_s(d))
            if data.nodes[tail].is_initial:
                events.event(("dismount", tail), unload)
            else:
                events.after(("end", data.nodes[tail].request), ("dismount", tail), unload)
    for d, seq in enumerate(decisions.sequences):
        lib = data.drive_library[d]
        for a, b in itertools.pairwise(seq):
            if a in decisions.dismounted:
                events.after(("dismount", a), ("mount", b), length(data.dismount_s(lib)))
    for tape, order in decisions.tape_orders.items():
        for previous, following in itertools.pairwise(order):
            holder, held = first_of[previous]
            if held[-1] not in decisions.dismounted or data.nodes[following].is_initial:
                raise InvalidDecisions(f"tape {tape!r} is taken from a drive that keeps it")
            lib = data.drive_library[holder]
            dismount = length(data.dismount_s(lib))
            events.after(("dismount", held[-1]), ("mount", following), dismount)
    for lane in decisions.lanes:
        for op, following_op in itertools.pairwise(lane):
            kind, node = op
            lib = data.nodes[node].library
            op_s = data.mount_s(lib) if kind == "mount" else data.dismount_s(lib)
            events.after(op, following_op, length(op_s))

    try:
        times = events.earliest()
    except PositiveCycle as cycle:
        raise InvalidDecisions(str(cycle)) from cycle
    return Times(
        start=tuple(times["start", j] for j in requests),
        end=tuple(times["end", j] for j in requests),
        mount={n: times["mount", n] for n in decisions.mounted(data)},
        dismount={n: times["dismount", n] for n in decisions.dismounted},
    )


def to_plan(data: ModelData, decisions: Decisions, times: Times) -> Plan:
    """The :class:`~solvers.plan.Plan` of ``decisions`` at ``times`` (in seconds)."""
    instance = data.instance
    drive_of = decisions.drive_of()
    starts = {r.id: times.start[j] for j, r in enumerate(instance.requests)}
    drives = {
        r.id: tuple(data.drives[drive_of[n]].id for n in data.request_nodes[j])
        for j, r in enumerate(instance.requests)
    }
    stays = []
    for d, nodes in decisions.stays():
        head, tail = nodes[0], nodes[-1]
        stays.append(
            Stay(
                drive=data.drives[d].id,
                tape=data.nodes[head].tape,
                mount_start_s=None if data.nodes[head].is_initial else times.mount[head],
                dismount_start_s=times.dismount.get(tail),
            )
        )
    return Plan(starts=starts, drives=drives, stays=tuple(stays))


def assign_lanes(
    ops: list[tuple[float, float, Op, int]], arms_of_library: list[int]
) -> tuple[tuple[Op, ...], ...] | None:
    """Split timed arm operations ``(start, end, op, library)`` into arm lanes.

    Operations in order of start, each on a lane of its library whose last
    operation has ended (to within :data:`EPS`): intervals never more than
    ``arms`` deep always fit in ``arms`` lanes this way. ``None`` when they
    do not fit (the times break the arm capacity).
    """
    lanes: dict[int, list[list[tuple[float, Op]]]] = {
        lib: [[] for _ in range(arms)] for lib, arms in enumerate(arms_of_library)
    }
    for start, end, op, lib in sorted(ops, key=lambda o: (o[0], o[1])):
        free = [lane for lane in lanes[lib] if not lane or lane[-1][0] <= start + EPS]
        if not free:
            return None
        free[0].append((end, op))
    return tuple(tuple(op for _, op in lane) for libs in lanes.values() for lane in libs if lane)


def decisions_from_schedule(data: ModelData, schedule: Schedule) -> Decisions | None:
    """The decisions of a feasible schedule, or ``None`` when the model cannot express them.

    Nodes run on their drives in order of start; a dismount on a drive
    between two nodes (or after its last node) marks the earlier node
    dismounted. The model cannot express a stay without a transfer (other
    than an initial tape's) nor two tapes in a row without a dismount.
    """
    instance = data.instance
    index = {r.id: j for j, r in enumerate(instance.requests)}
    drive_index = {d.id: i for i, d in enumerate(data.drives)}
    start: dict[int, float] = {}
    end: dict[int, float] = {}
    per_drive: list[list[tuple[float, int]]] = [[] for _ in data.drives]
    for entry in schedule.requests:
        j = index[entry.id]
        for n, drive in zip(data.request_nodes[j], entry.drives, strict=True):
            per_drive[drive_index[drive]].append((entry.start_s, n))
            start[n], end[n] = entry.start_s, entry.end_s
    ops = schedule.operations
    mounts: list[list[tuple[float, int]]] = [[] for _ in data.drives]
    dismounts: list[list[tuple[float, int]]] = [[] for _ in data.drives]
    for i, op in enumerate(schedule.operations):
        bucket = mounts if op.op == "mount" else dismounts
        bucket[drive_index[op.drive]].append((op.start_s, i))

    sequences = []
    dismounted: set[int] = set()
    op_node: dict[int, Op] = {}
    for d in range(len(data.drives)):
        seq = [n for _, n in sorted(per_drive[d])]
        if d in data.initial_node:
            seq.insert(0, data.initial_node[d])
        sequences.append(tuple(seq))
        dis = [i for _, i in sorted(dismounts[d])]
        mnt = [(t, i) for t, i in sorted(mounts[d])]
        if seq and d not in data.initial_node:
            if not mnt:
                return None
            op_node[mnt.pop(0)[1]] = ("mount", seq[0])
        for k, n in enumerate(seq):
            done = 0.0 if data.nodes[n].is_initial else end[n]
            following = seq[k + 1] if k + 1 < len(seq) else None
            until = start[following] if following is not None else float("inf")
            between = [i for i in dis if done - EPS <= ops[i].start_s <= until + EPS]
            if len(between) > 1:
                return None
            if between:
                dismounted.add(n)
                dis.remove(between[0])
                op_node[between[0]] = ("dismount", n)
                if following is not None:
                    if not mnt or mnt[0][0] > until + EPS:
                        return None
                    op_node[mnt.pop(0)[1]] = ("mount", following)
            elif following is not None and data.nodes[following].tape != data.nodes[n].tape:
                return None
        if dis or mnt:
            return None

    timed = [
        (ops[i].start_s, ops[i].end_s, op, data.nodes[op[1]].library)
        for i, op in op_node.items()
        if ops[i].end_s - ops[i].start_s > 0
    ]
    lanes = assign_lanes(timed, [lib.arms for lib in data.libraries])
    if lanes is None:
        return None
    begins: dict[str, list[tuple[float, int]]] = defaultdict(list)
    decisions = Decisions(tuple(sequences), frozenset(dismounted), lanes, {})
    mount_time = {op[1]: ops[i].start_s for i, op in op_node.items() if op[0] == "mount"}
    for _, nodes in decisions.stays():
        head = nodes[0]
        begin = -1.0 if data.nodes[head].is_initial else mount_time[head]
        begins[data.nodes[head].tape].append((begin, head))
    orders = {tape: tuple(n for _, n in sorted(b)) for tape, b in begins.items()}
    return Decisions(decisions.sequences, decisions.dismounted, lanes, orders)
