"""The decisions of a solution, and the earliest times they allow.

A schedule of the core problem is fixed, up to idle time, by a few orders:
the nodes each drive runs, in sequence, and which are followed by a dismount
(:attr:`CpsatDecisions.sequences`, :attr:`CpsatDecisions.dismounted`); the order of the
arm operations on each arm (:attr:`CpsatDecisions.lanes`); and the order in which
the drives hold each tape (:attr:`CpsatDecisions.tape_orders`). Given them, every
rule of the spec is a precedence ``t(v) >= t(u) + length`` between events
(transfer starts and ends, mount and dismount starts) or a lower bound
(releases, time 0), and :func:`earliest` computes the earliest times: the
longest chains of precedences (:class:`~solvers.exact.retiming.EventGraph`, shared
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

from tapesched.solvers.cpsat.data import CpsatData
from tapesched.solvers.exact.plan import Plan, Stay
from tapesched.solvers.exact.retiming import EventGraph, PositiveCycle
from tapesched.toolkit.model import Schedule

EPS = 1e-6
"""Tolerance of the validator, used when reading a schedule's times."""

Op = tuple[str, int]
"""An arm operation: ``("mount", node)`` before a node or ``("dismount", node)`` after it."""

Event = tuple[str, int]
"""An event of :func:`earliest`: an arm operation's start (:data:`Op`), or a request's
``("start", j)`` or ``("end", j)``."""


@frozen
class CpsatDecisions:
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

    def mounted(self, data: CpsatData) -> set[int]:
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


def earliest(data: CpsatData, decisions: CpsatDecisions, *, exact: bool) -> Times:
    """The earliest times of ``decisions``: exact seconds, or model ticks (whole floats).

    The precedences go into the shared :class:`~solvers.exact.retiming.EventGraph`
    (events named as in :data:`Event`), whose longest paths are the times.
    Without prefetch (``data.prefetch`` false) a stay's mount is no earlier
    than its first request's release, and each locate no earlier than its
    request's: lower bounds of the mount and of ``release + locate`` on the
    transfer's start.

    Raises
    ------
    InvalidDecisions
        When a stay mixes tapes, a tape is taken from a drive that keeps it,
        or the precedences form a cycle of positive length.
    """
    length: Callable[[float], float] = (
        (lambda seconds: seconds) if exact else (lambda seconds: float(data.ticks(seconds)))
    )

    def release(j: int) -> float:
        return data.release_s(j) if exact else float(data.release_t(j))

    events = EventGraph[Event]()
    requests = range(len(data.request_nodes))
    for j in requests:
        events.event(("start", j), release(j))
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
        free = length(data.available_s(d))
        if not data.nodes[head].is_initial:
            ready = length(data.ready_s(head, d))
            events.after(("mount", head), ("start", data.nodes[head].request), ready)
            events.event(("mount", head), free)
            if not data.prefetch:
                events.event(("mount", head), release(data.nodes[head].request))
        for a, b in itertools.pairwise(nodes):
            if data.nodes[b].tape != tape:
                raise InvalidDecisions(f"a stay on drive {d} mixes tapes")
            locate = length(data.locate_s(a, b, d))
            target = ("start", data.nodes[b].request)
            if not data.prefetch:
                events.event(target, release(data.nodes[b].request) + locate)
            if data.nodes[a].is_initial:
                events.event(target, free + locate)
            else:
                events.after(("end", data.nodes[a].request), target, locate)
        tail = nodes[-1]
        if tail in decisions.dismounted:
            unload = length(data.unload_s(d))
            if data.nodes[tail].is_initial:
                events.event(("dismount", tail), free + unload)
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
    arm_free = [t for lib in range(len(data.libraries)) for t in data.arm_free_s(lib)]
    for lane, free_s in zip(decisions.lanes, arm_free, strict=True):
        if lane:
            events.event(lane[0], length(free_s))
        for op, following_op in itertools.pairwise(lane):
            kind, node = op
            lib = data.node_library[node]
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


def to_plan(data: CpsatData, decisions: CpsatDecisions, times: Times) -> Plan:
    """The :class:`~solvers.exact.plan.Plan` of ``decisions`` at ``times`` (in seconds)."""
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
    ops: list[tuple[float, float, Op, int]], arm_free: list[tuple[float, ...]]
) -> tuple[tuple[Op, ...], ...] | None:
    """Split timed arm operations ``(start, end, op, library)`` into arm lanes.

    ``arm_free`` holds, per library, when each of its arms is free at the
    start (:meth:`~solvers.exact.formulation.Formulation.arm_free_s`, in the unit
    of ``ops``). Operations in order of start, each on a lane of its
    library whose last operation has ended, or whose arm is free, by then
    (to within :data:`EPS`): intervals never more than ``arms`` deep, the
    busy arms counted, always fit this way. The lanes come one per arm, in
    library and arm order, empty ones too (:func:`earliest` starts each
    after its arm is free). ``None`` when they do not fit (the times break
    the arm capacity).
    """
    lanes: dict[int, list[tuple[list[float], list[Op]]]] = {
        lib: [([free_s], []) for free_s in frees] for lib, frees in enumerate(arm_free)
    }
    for start, end, op, lib in sorted(ops, key=lambda o: (o[0], o[1])):
        free = [lane for lane in lanes[lib] if lane[0][0] <= start + EPS]
        if not free:
            return None
        free[0][0][0] = end
        free[0][1].append(op)
    return tuple(tuple(lane[1]) for libs in lanes.values() for lane in libs)


def decisions_from_schedule(data: CpsatData, schedule: Schedule) -> CpsatDecisions | None:
    """The decisions of a feasible schedule, or ``None`` when the model cannot express them.

    The schedule is read as the validator reads it
    (:meth:`~solvers.exact.formulation.Formulation.stays_of`):
    each drive's stays, the nodes each runs in order, the mount before a
    stay's first node and the dismount after its last. Arm operations of
    positive length go to lanes in order of start; each tape's stays are
    ordered as they hold it, by begin then end, a drive's tape at time 0
    first. The model cannot express a stay without a transfer (other than
    an initial tape's).
    """
    read = data.stays_of(schedule)
    if read is None:
        return None

    ops = schedule.operations
    sequences = []
    dismounted: set[int] = set()
    op_node: dict[int, Op] = {}
    holds: dict[str, list[tuple[float, float, int]]] = defaultdict(list)
    for drive in data.drives:
        seq: list[int] = []
        for stay in read[drive.id]:
            head, tail = stay.nodes[0], stay.nodes[-1]
            seq.extend(stay.nodes)
            if stay.mount is not None:
                op_node[stay.mount] = ("mount", head)
            if stay.dismount is not None:
                op_node[stay.dismount] = ("dismount", tail)
                dismounted.add(tail)
            begin = -1.0 if stay.mount is None else stay.begin_s
            holds[stay.tape].append((begin, stay.end_s, head))
        sequences.append(tuple(seq))

    timed = [
        (ops[i].start_s, ops[i].end_s, op, data.node_library[op[1]])
        for i, op in op_node.items()
        if ops[i].end_s - ops[i].start_s > 0
    ]
    lanes = assign_lanes(timed, [data.arm_free_s(lib) for lib in range(len(data.libraries))])
    if lanes is None:
        return None
    orders = {tape: tuple(n for _, _, n in sorted(held)) for tape, held in holds.items()}
    return CpsatDecisions(tuple(sequences), frozenset(dismounted), lanes, orders)
