"""From the solver's values to a :class:`~solvers.exact.plan.Plan` with exact times.

A MILP solver meets its constraints only to tolerances: a binary may be off
by 1e-6 and a big-M row of a few thousand seconds then slack by milliseconds,
far above the validator's 1e-6 s. The continuous values are therefore not
trusted as they are. :func:`read_decisions` keeps what the solution decided
(each piece's drive, each drive's sequence read along the successor
binaries and split into tape stays, each arm operation's lane) and the
solver's times only to order things, and :func:`retime` recomputes every
time exactly as the earliest that those decisions allow: a longest path
over "event ``b`` at least ``offset`` after event ``a``" edges (transfer
starts, mount and dismount starts; :class:`~solvers.exact.retiming.EventGraph`,
shared with the CP-SAT reader), all offsets being exact durations of the
instance. The result is never later than the solver's own times (up to
its tolerances), so its objective is at most the solver's incumbent, and it
meets every rule of the validator by construction.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import pairwise

from attrs import frozen

from tapesched.solvers.exact.plan import Plan, Stay
from tapesched.solvers.exact.retiming import EventGraph, PositiveCycle
from tapesched.solvers.milp.data import ARM_EPS, MilpData
from tapesched.solvers.milp.variables import MilpVariables

Event = tuple[object, ...]
"""An event of :func:`retime`: ``("S", request)``, ``("M", drive, stay)`` or ``("D", drive, stay)``.

A request's transfer start, a stay's mount start or its dismount start.
"""


@frozen
class StayNodes:
    """One tape stay of a drive: its nodes in order, whether mounted and dismounted.

    ``mounted`` is false only for the stay of an initial tape (its first node
    is the initial node); ``dismounted`` false means the drive keeps the tape
    to the end, which only its last stay may do.
    """

    tape: str
    nodes: tuple[int, ...]
    mounted: bool
    dismounted: bool


@frozen
class MilpDecisions:
    """What a solution decides, apart from times.

    Attributes
    ----------
    drive_of
        Drive of every piece node.
    routes
        Tape stays of every drive, in order.
    lanes
        Lane of every present arm operation of positive length in the
        libraries whose lanes are modelled, keyed ``(kind, node)`` (``mount``
        before the stay's first node, ``dismount`` after its last).
    clock
        A time for every mount and dismount keyed ``(kind, node)``, used only
        to order the operations of one lane and the stays of one tape.
    """

    drive_of: Mapping[int, str]
    routes: Mapping[str, tuple[StayNodes, ...]]
    lanes: Mapping[tuple[str, int], int]
    clock: Mapping[tuple[str, int], float]


def _value(variable: object) -> float:
    value = getattr(variable, "varValue", None)
    return 0.0 if value is None else float(value)


def _on(variable: object) -> bool:
    return _value(variable) > 0.5


def read_decisions(data: MilpData, var: MilpVariables) -> MilpDecisions | None:
    """The decisions of the solution held in ``var``'s values.

    Each drive's sequence is read from its first node (its initial node, or
    the piece whose ``first`` is set) along the successor binaries, a stay
    ending at each switch arc. Returns ``None`` when the values do not form
    a valid set of decisions (a piece on no drive or on two, a sequence
    that misses a piece or loops), which only a solver's numerical failure
    can cause.
    """
    drive_of: dict[int, str] = {}
    for k in range(data.n_pieces):
        chosen = [d for d in data.nodes[k].drives if _on(var.x[k, d])]
        if len(chosen) != 1:
            return None
        drive_of[k] = chosen[0]
    routes: dict[str, tuple[StayNodes, ...]] = {}
    for drive in data.instance.drives:
        d = drive.id
        route = _route(data, var, d)
        if route is None:
            return None
        visited = [u for stay in route for u in stay.nodes if not data.nodes[u].is_initial]
        expected = sorted(k for k, where in drive_of.items() if where == d)
        if sorted(visited) != expected:
            return None
        routes[d] = route
    lanes: dict[tuple[str, int], int] = {}
    for lib, ops in data.ops.items():
        count = data.lanes[lib]
        if count == 0:
            continue
        for op in ops:
            if count == 1:
                lanes[op.kind, op.node] = 0
                continue
            taken = [a for a in range(count) if _on(var.lane.get((lib, op.index, a)))]
            if taken:
                lanes[op.kind, op.node] = taken[0]
    clock = {("mount", v): _value(m) for v, m in var.mount.items()}
    clock.update({("dismount", u): _value(t) for u, t in var.dismount.items()})
    return MilpDecisions(drive_of, routes, lanes, clock)


def _route(data: MilpData, var: MilpVariables, d: str) -> tuple[StayNodes, ...] | None:
    """Stays of drive ``d`` along its successor binaries (``None`` when they loop)."""
    initial = data.initial_node.get(data.drive_index[d])
    if initial is not None:
        current = initial
        mounted = False
    else:
        firsts = [v for v in range(data.n_pieces) if _on(var.first.get((v, d)))]
        if not firsts:
            return ()
        if len(firsts) > 1:
            return None
        current = firsts[0]
        mounted = True
    stays: list[StayNodes] = []
    nodes = [current]
    seen = {current}
    while True:
        step = None
        for v in data.successors.get((current, d), ()):
            if _on(var.cont.get((current, v, d))):
                step = (v, False)
            elif _on(var.switch.get((current, v, d))):
                step = (v, True)
            if step is not None:
                break
        if step is None:
            tape = data.nodes[nodes[0]].tape
            stays.append(StayNodes(tape, tuple(nodes), mounted, _on(var.drop[current, d])))
            return tuple(stays)
        nxt, switched = step
        if nxt in seen:
            return None
        seen.add(nxt)
        if switched:
            stays.append(StayNodes(data.nodes[nodes[0]].tape, tuple(nodes), mounted, True))
            nodes, mounted = [nxt], True
        else:
            nodes.append(nxt)
        current = nxt


def retime(data: MilpData, decisions: MilpDecisions) -> Plan | None:
    """The plan of ``decisions`` with every time as early as they allow.

    Edges: a request starts at its release at the earliest; on each drive
    the first transfer of a stay follows the mount (mount, load, locate
    from 0) or, on the initial tape, the locate from 0; each next transfer
    of the stay follows the previous end and the locate; the dismount
    follows the last end (or time 0 on an untouched initial tape) and the
    drive's unload; the next mount into the drive follows the dismount's
    end (reading 2). The stays of one tape follow one another in the order
    of the solver's mount times, each mount after the previous dismount's
    end (reading 3); the operations of one arm lane follow one another in
    the solver's order. Without prefetch (``data.prefetch`` false) a stay's
    mount is no earlier than its first request's release and each transfer
    no earlier than its release plus its locate. Returns ``None`` when the decisions are
    contradictory (a tape kept while another drive mounts it later, a
    cycle), which only a solver's numerical failure can cause.
    """
    instance = data.instance
    drive_by_id = instance.drive_by_id
    library_by_id = instance.library_by_id
    longest = [
        max(data.duration[k, decisions.drive_of[k]] for k in pieces)
        for pieces in data.request_nodes
    ]
    events = EventGraph[Event]()
    starts = [events.event(("S", j), float(r.release_s)) for j, r in enumerate(instance.requests)]
    tape_stays: dict[str, list[tuple[float, int, str, int]]] = {}
    ops_of: dict[tuple[str, int], list[tuple[Event, float, float, int]]] = {}
    for d, route in decisions.routes.items():
        drive = drive_by_id[d]
        library = library_by_id[drive.library]
        previous_dismount: Event | None = None
        for s, stay in enumerate(route):
            first = stay.nodes[0]
            mount: Event | None = None
            if stay.mounted:
                if s > 0 and previous_dismount is None:
                    return None
                mount = events.event(("M", d, s))
                if previous_dismount is not None:
                    events.after(previous_dismount, mount, library.dismount_s)
                if not _arm(
                    decisions, data, ops_of, drive.library, "mount", first, mount, library.mount_s
                ):
                    return None
            key = decisions.clock.get(("mount", first), 0.0) if stay.mounted else -1.0
            tape_stays.setdefault(stay.tape, []).append((key, data.drive_index[d], d, s))
            head, end_event, end_offset = 0.0, None, 0.0
            for position, u in enumerate(stay.nodes):
                node = data.nodes[u]
                if node.is_initial:
                    head = node.end_mb
                    continue
                j = node.request
                locate = data.head_locate_s(data.drive_index[d], node.tape, head, node.offset_mb)
                if not data.prefetch:
                    release = float(instance.requests[j].release_s)
                    events.event(("S", j), release + locate)
                    if position == 0 and mount is not None:
                        events.event(mount, release)
                if position == 0 and mount is not None:
                    events.after(mount, starts[j], library.mount_s + drive.load_s + locate)
                elif end_event is None:
                    events.event(("S", j), locate)
                else:
                    events.after(end_event, starts[j], end_offset + locate)
                head = node.end_mb
                end_event, end_offset = starts[j], longest[j]
            previous_dismount = None
            if stay.dismounted:
                last = stay.nodes[-1]
                dismount = events.event(("D", d, s))
                unload = data.unload[last, d]
                if end_event is None:
                    events.event(("D", d, s), unload)
                else:
                    events.after(end_event, dismount, end_offset + unload)
                if not _arm(
                    decisions,
                    data,
                    ops_of,
                    drive.library,
                    "dismount",
                    last,
                    dismount,
                    library.dismount_s,
                ):
                    return None
                previous_dismount = dismount
    for stays in tape_stays.values():
        stays.sort()
        for (_, _, d0, s0), (_, _, d1, s1) in pairwise(stays):
            before, after = decisions.routes[d0][s0], decisions.routes[d1][s1]
            if not before.dismounted or not after.mounted:
                return None
            dismount_s = library_by_id[drive_by_id[d0].library].dismount_s
            events.after(("D", d0, s0), ("M", d1, s1), dismount_s)
    for lane_ops in ops_of.values():
        lane_ops.sort(key=lambda op: (op[1], op[3]))
        for (a, _, duration, _), (b, _, _, _) in pairwise(lane_ops):
            events.after(a, b, duration)
    try:
        times = events.earliest()
    except PositiveCycle:
        return None
    plan_stays = []
    for d, route in decisions.routes.items():
        for s, stay in enumerate(route):
            mounted = times["M", d, s] if stay.mounted else None
            dismounted = times["D", d, s] if stay.dismounted else None
            plan_stays.append(Stay(d, stay.tape, mounted, dismounted))
    return Plan(
        starts={r.id: times[starts[j]] for j, r in enumerate(instance.requests)},
        drives={
            r.id: tuple(decisions.drive_of[k] for k in data.request_nodes[j])
            for j, r in enumerate(instance.requests)
        },
        stays=tuple(plan_stays),
    )


def _arm(
    decisions: MilpDecisions,
    data: MilpData,
    ops_of: dict[tuple[str, int], list[tuple[Event, float, float, int]]],
    library: str,
    kind: str,
    node: int,
    event: Event,
    duration: float,
) -> bool:
    """File an arm operation under its lane; ``False`` when it should have one and has none.

    Operations of at most :data:`~solvers.milp.data.ARM_EPS`, and every
    operation of a library whose lanes are not modelled (its arms outnumber
    its possible operations), take no lane.
    """
    if duration <= ARM_EPS or data.lanes[library] == 0:
        return True
    lane = decisions.lanes.get((kind, node))
    if lane is None:
        return False
    filed = ops_of.setdefault((library, lane), [])
    filed.append((event, decisions.clock.get((kind, node), 0.0), duration, len(filed)))
    return True
