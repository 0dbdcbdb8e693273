"""The instance as the MILP sees it: nodes, arcs, arm operations, bounds, horizon.

Everything here is plain numbers computed once from the instance (and from
the objective value of a feasible schedule when one is known), so that the
variable builder, each constraint family, the warm start and the reading of
solutions share one indexing and one set of bounds. Nothing here depends on
PuLP.

Nodes follow ``solvers/formulation.md``: a *piece node* per piece of every
request (indices ``0 .. P-1``, in request and piece order) and an *initial
node* per drive that holds a tape at time 0 (indices ``P ..``), fixed on its
drive, with transfer start = end = 0 and the head at offset 0.

Every big-M of the model is the difference of the bounds of the two times it
compares, and those bounds come from :class:`MilpData`: the smaller they are,
the stronger the LP relaxation, so they are computed with some care
(``lower_start``, ``upper_end``, :func:`horizon`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from attrs import frozen

from toolkit.model import Instance

ARM_EPS = 1e-6
"""Arm operations this short or shorter take no arm: the validator does not count them."""

TIME_TOL = 1e-9
"""Slack, in seconds, under which two computed bounds are taken as equal."""


@frozen
class Node:
    """A piece of a request, or the tape a drive holds at time 0.

    ``request`` is the request's index in the instance, ``-1`` for an initial
    node; ``drives`` are the drives the node may run on (its library's, or
    the one drive of an initial node).
    """

    index: int
    request: int
    tape: str
    offset_mb: float
    end_mb: float
    library: str
    drives: tuple[str, ...]

    @property
    def initial(self) -> bool:
        """Whether this is the initial node of a drive."""
        return self.request < 0


@frozen
class ArmOp:
    """A possible arm operation: the mount before a piece node, or the dismount after a node.

    ``index`` is the operation's rank among its library's possible operations
    (the lane symmetry breaking uses it); only operations longer than
    :data:`ARM_EPS` are listed: those of zero length take no arm (reading 6),
    and the validator, comparing to 1e-6 s, does not count shorter ones either.
    """

    index: int
    kind: str
    node: int
    library: str
    duration_s: float


@frozen
class MilpData:
    """Indices, durations and bounds of one instance, shared by every part of the model.

    Attributes
    ----------
    instance
        The instance modelled.
    nodes
        Piece nodes then initial nodes.
    pieces_of
        Node indices of each request's pieces, in piece order.
    initial_node
        Initial node of each drive that holds a tape at time 0.
    duration
        Transfer time of piece node ``k`` on drive ``d``, keyed ``(k, d)``.
    ready
        Earliest time piece node ``k`` can be ready on drive ``d`` (tape in,
        loaded, head located) whatever else happens, keyed ``(k, d)``.
    lower_start, upper_end
        Bounds of each request's start ``S_j`` and end ``C_j``.
    shortest
        Least possible ``C_j - S_j`` of each request (its widest piece on its
        fastest drive).
    horizon
        Upper bound of every time of some optimal schedule (see :func:`horizon`).
    forever
        End of the tape residency of a node whose drive keeps its tape to the
        end: larger than every time of the model.
    unload
        Least time from the end of node ``u``'s transfer to the dismount of
        its tape from drive ``d``, keyed ``(u, d)``: the drive's ``unload_s``
        (the validator places a transfer at an instant switch in its tape's
        stay, so a switch of no time needs no padding).
    continue_arcs, switch_arcs
        Possible arcs ``(u, v, d)`` of drive ``d``'s sequence with the least
        time from ``C_j(u)`` to ``S_j(v)`` they need: a locate from where the
        head rests (continue, same tape only), or unload, dismount, mount,
        load and a locate from offset 0 (switch). Arcs that no schedule within
        the bounds can use are left out.
    successors, predecessors
        Heads of the arcs leaving ``(u, d)`` and tails of those entering ``(v, d)``.
    empty_drives
        Drives empty at time 0 (their first piece is mounted).
    ops
        Possible arm operations longer than :data:`ARM_EPS`, by library.
    lanes
        Arm lanes modelled per library: 0 when its arms outnumber its
        possible operations (no arm constraint is needed).
    residency_tapes
        Node indices per tape whose residencies may conflict: tapes of a
        library with two drives or more and with two nodes or more.
    twins
        Classes of two drives or more that nothing tells apart: one library,
        equal timings and rates, empty at time 0 (in instance order).
    latest_mount
        Latest start of the mount before each piece node within the bounds.
    earliest_dismount, latest_dismount
        Earliest and latest start of the dismount after each node.
    drive_index, library_index
        Position of each drive and library in the instance, for names.
    """

    instance: Instance
    nodes: tuple[Node, ...]
    pieces_of: tuple[tuple[int, ...], ...]
    initial_node: Mapping[str, int]
    duration: Mapping[tuple[int, str], float]
    ready: Mapping[tuple[int, str], float]
    lower_start: tuple[float, ...]
    upper_end: tuple[float, ...]
    shortest: tuple[float, ...]
    horizon: float
    forever: float
    unload: Mapping[tuple[int, str], float]
    continue_arcs: Mapping[tuple[int, int, str], float]
    switch_arcs: Mapping[tuple[int, int, str], float]
    successors: Mapping[tuple[int, str], tuple[int, ...]]
    predecessors: Mapping[tuple[int, str], tuple[int, ...]]
    empty_drives: tuple[str, ...]
    ops: Mapping[str, tuple[ArmOp, ...]]
    lanes: Mapping[str, int]
    residency_tapes: Mapping[str, tuple[int, ...]]
    twins: tuple[tuple[str, ...], ...]
    latest_mount: Mapping[int, float]
    earliest_dismount: Mapping[int, float]
    latest_dismount: Mapping[int, float]
    drive_index: Mapping[str, int]
    library_index: Mapping[str, int]

    @property
    def piece_count(self) -> int:
        """Number of piece nodes (they come first in :attr:`nodes`)."""
        return sum(len(p) for p in self.pieces_of)

    def mount_tail(self, v: int, d: str) -> float:
        """Time from the end of the mount of ``v``'s tape into ``d`` to ``v`` being ready."""
        drive = self.instance.drive_by_id[d]
        return drive.load_s + self.nodes[v].offset_mb / drive.locate_mb_s

    def lower_end_on(self, u: int, d: str) -> float:
        """Least ``C`` of node ``u`` on drive ``d`` (0 for an initial node)."""
        node = self.nodes[u]
        if node.initial:
            return 0.0
        j = node.request
        return max(
            self.lower_start[j] + self.duration[u, d], self.lower_start[j] + self.shortest[j]
        )

    def upper_end_of(self, u: int) -> float:
        """Greatest ``C`` of node ``u`` (0 for an initial node)."""
        node = self.nodes[u]
        return 0.0 if node.initial else self.upper_end[node.request]

    def lower_start_of(self, v: int) -> float:
        """Least ``S`` of piece node ``v``."""
        return self.lower_start[self.nodes[v].request]

    def upper_start_of(self, v: int) -> float:
        """Greatest ``S`` of piece node ``v``."""
        j = self.nodes[v].request
        return self.upper_end[j] - self.shortest[j]


def _nodes(instance: Instance) -> tuple[tuple[Node, ...], tuple[tuple[int, ...], ...]]:
    """Piece nodes in request and piece order, then one initial node per initial tape."""
    tape_library = {t.id: t.library for t in instance.tapes}
    drive_ids = {lib: tuple(d.id for d in ds) for lib, ds in instance.drives_of_library.items()}
    nodes: list[Node] = []
    pieces_of: list[tuple[int, ...]] = []
    for j, request in enumerate(instance.requests):
        indices = []
        for piece in request.pieces:
            library = tape_library[piece.tape]
            indices.append(len(nodes))
            nodes.append(
                Node(
                    len(nodes),
                    j,
                    piece.tape,
                    float(piece.offset_mb),
                    float(piece.offset_mb + piece.size_mb),
                    library,
                    drive_ids.get(library, ()),
                )
            )
        pieces_of.append(tuple(indices))
    for init in instance.initial:
        library = tape_library[init.tape]
        nodes.append(Node(len(nodes), -1, init.tape, 0.0, 0.0, library, (init.drive,)))
    return tuple(nodes), tuple(pieces_of)


def _ready(instance: Instance, node: Node, d: str, nearest_mb: float) -> float:
    """Earliest time ``node``'s tape can be in drive ``d``, loaded and located.

    Located in place when ``d`` holds the tape at time 0; otherwise mounted
    after ``d`` has given up its own initial tape and the tape's initial
    holder, if any, has given it up. The locate is the shortest the head
    can make: from offset 0 or from the end of another piece of the tape,
    ``nearest_mb`` away at the least.
    """
    drive = instance.drive_by_id[d]
    library = instance.library_by_id[drive.library]
    held = instance.initial_tape.get(d)
    locate = nearest_mb / drive.locate_mb_s
    if held == node.tape:
        return locate
    drive_free = drive.unload_s + library.dismount_s if held is not None else 0.0
    tape_free = 0.0
    for other, tape in instance.initial_tape.items():
        if tape == node.tape:
            tape_free = instance.drive_by_id[other].unload_s + library.dismount_s
    return max(drive_free, tape_free) + library.mount_s + drive.load_s + locate


def _nearest(nodes: tuple[Node, ...]) -> dict[int, float]:
    """Shortest locate, in MB, to each piece node: from 0 or another piece's end on its tape."""
    ends: dict[str, list[tuple[int, float]]] = {}
    for node in nodes:
        if not node.initial:
            ends.setdefault(node.tape, []).append((node.request, node.end_mb))
    return {
        node.index: min(
            [node.offset_mb]
            + [abs(node.offset_mb - e) for j, e in ends[node.tape] if j != node.request]
        )
        for node in nodes
        if not node.initial
    }


def horizon(
    instance: Instance, unload: Mapping[tuple[int, str], float], nodes: tuple[Node, ...]
) -> float:
    """The horizon of ``solvers/formulation.md``: every job done one after the other.

    The latest release, plus an unload and dismount of each initial tape,
    plus for every piece a full switch on its slowest drive (unload,
    dismount, mount, load, a locate over the farther part of its tape from
    its offset, the transfer). A minimal optimal schedule (no mount without
    a transfer, no dismount that nothing needs) with every time as early as
    its order allows has each time at the end of a chain that starts at a
    release and uses each of those durations once at most, so it fits.
    """
    total = max((float(r.release_s) for r in instance.requests), default=0.0)
    for init in instance.initial:
        drive = instance.drive_by_id[init.drive]
        total += drive.unload_s + instance.library_by_id[drive.library].dismount_s
    capacity = {t.id: float(t.capacity_mb) for t in instance.tapes}
    for node in nodes:
        if node.initial:
            continue
        library = instance.library_by_id[node.library]
        size = node.end_mb - node.offset_mb
        far = max(node.offset_mb, capacity[node.tape] - node.offset_mb)
        worst = 0.0
        for d in node.drives:
            drive = instance.drive_by_id[d]
            worst = max(
                worst,
                unload[node.index, d]
                + library.dismount_s
                + library.mount_s
                + drive.load_s
                + far / drive.locate_mb_s
                + size / drive.rate_mb_s,
            )
        total += worst
    return total


def _upper_ends(
    instance: Instance, lower_flow: list[float], cap: float, known: float | None
) -> list[float]:
    """Greatest ``C_j`` of an optimal schedule: the horizon, or less given a known value.

    With the objective value ``known`` of a feasible schedule, an optimal one
    has ``w_j (C_j - r_j) <= known`` less the least flows of the others
    (weighted flow), ``w_j (C_j - r_j) <= known`` (max weighted flow) or
    ``C_j <= known`` (makespan). A relative slack of 1e-9 keeps the schedule
    that gave ``known`` inside despite rounding.
    """
    n = len(instance.requests)
    if known is None or not math.isfinite(known):
        return [cap] * n
    out = []
    total_lower = sum(r.weight * f for r, f in zip(instance.requests, lower_flow, strict=True))
    for j, request in enumerate(instance.requests):
        r, w = float(request.release_s), float(request.weight)
        if instance.objective == "weighted-flow":
            others = total_lower - w * lower_flow[j]
            bound = r + (known - others) / w
        elif instance.objective == "max-weighted-flow":
            bound = r + known / w
        else:
            bound = known
        bound += 1e-9 * max(1.0, abs(bound)) + TIME_TOL
        out.append(min(cap, bound))
    return out


def prepare(instance: Instance, known_objective: float | None = None) -> MilpData:
    """Nodes, arcs, arm operations and bounds of ``instance``.

    Parameters
    ----------
    instance
        A well-formed instance.
    known_objective
        The objective value of a feasible schedule of ``instance`` (the
        warm start's), which bounds the ends of an optimal one and so
        shrinks every big-M; ``None`` to use the horizon alone.
    """
    nodes, pieces_of = _nodes(instance)
    n_pieces = sum(len(p) for p in pieces_of)
    drive_by_id = instance.drive_by_id
    library_by_id = instance.library_by_id

    nearest = _nearest(nodes)
    duration: dict[tuple[int, str], float] = {}
    ready: dict[tuple[int, str], float] = {}
    unload: dict[tuple[int, str], float] = {}
    for node in nodes:
        library = library_by_id[node.library]
        for d in node.drives:
            drive = drive_by_id[d]
            dur = 0.0 if node.initial else (node.end_mb - node.offset_mb) / drive.rate_mb_s
            if not node.initial:
                duration[node.index, d] = dur
                ready[node.index, d] = _ready(instance, node, d, nearest[node.index])
            unload[node.index, d] = drive.unload_s

    lower_start = []
    shortest = []
    for j, request in enumerate(instance.requests):
        start = float(request.release_s)
        widest = 0.0
        for k in pieces_of[j]:
            drives = nodes[k].drives
            start = max(start, min(ready[k, d] for d in drives))
            widest = max(widest, min(duration[k, d] for d in drives))
        lower_start.append(start)
        shortest.append(widest)
    lower_flow = [
        s + t - float(r.release_s)
        for s, t, r in zip(lower_start, shortest, instance.requests, strict=True)
    ]
    cap = horizon(instance, unload, nodes)
    upper_end = _upper_ends(instance, lower_flow, cap, known_objective)
    upper_end = [max(u, s + t) for u, s, t in zip(upper_end, lower_start, shortest, strict=True)]
    top = max(upper_end, default=0.0) if known_objective is not None else cap
    longest_dismount = max((lib.dismount_s for lib in instance.libraries), default=0.0)
    forever = top + longest_dismount + 1.0

    base = _arcs(instance, nodes, duration, unload, lower_start, upper_end, shortest)
    continue_arcs, switch_arcs = base
    successors: dict[tuple[int, str], list[int]] = {}
    predecessors: dict[tuple[int, str], list[int]] = {}
    for u, v, d in sorted({*continue_arcs, *switch_arcs}):
        successors.setdefault((u, d), []).append(v)
        predecessors.setdefault((v, d), []).append(u)

    empty = tuple(d.id for d in instance.drives if d.id not in instance.initial_tape)
    ops, lanes = _arm_ops(instance, nodes, n_pieces)
    residency = _residency(instance, nodes)
    latest_mount: dict[int, float] = {}
    earliest_dismount: dict[int, float] = {}
    latest_dismount: dict[int, float] = {}
    for node in nodes:
        u = node.index
        library = library_by_id[node.library]
        if not node.initial:
            j = node.request
            tail = min(
                drive_by_id[d].load_s + node.offset_mb / drive_by_id[d].locate_mb_s
                for d in node.drives
            )
            latest_mount[u] = max(0.0, upper_end[j] - shortest[j] - library.mount_s - tail)
            least_end = lower_start[j] + shortest[j]
            earliest_dismount[u] = min(
                max(least_end, lower_start[j] + duration[u, d]) + unload[u, d] for d in node.drives
            )
        else:
            earliest_dismount[u] = min(unload[u, d] for d in node.drives)
        latest_dismount[u] = max(top, earliest_dismount[u])
    return MilpData(
        instance=instance,
        nodes=nodes,
        pieces_of=pieces_of,
        initial_node={nodes[i].drives[0]: i for i in range(n_pieces, len(nodes))},
        duration=duration,
        ready=ready,
        lower_start=tuple(lower_start),
        upper_end=tuple(upper_end),
        shortest=tuple(shortest),
        horizon=top,
        forever=forever,
        unload=unload,
        continue_arcs=continue_arcs,
        switch_arcs=switch_arcs,
        successors={k: tuple(v) for k, v in successors.items()},
        predecessors={k: tuple(v) for k, v in predecessors.items()},
        empty_drives=empty,
        ops=ops,
        lanes=lanes,
        residency_tapes=residency,
        twins=_twins(instance),
        latest_mount=latest_mount,
        earliest_dismount=earliest_dismount,
        latest_dismount=latest_dismount,
        drive_index={d.id: i for i, d in enumerate(instance.drives)},
        library_index={lib.id: i for i, lib in enumerate(instance.libraries)},
    )


def _arcs(
    instance: Instance,
    nodes: tuple[Node, ...],
    duration: Mapping[tuple[int, str], float],
    unload: Mapping[tuple[int, str], float],
    lower_start: list[float],
    upper_end: list[float],
    shortest: list[float],
) -> tuple[dict[tuple[int, int, str], float], dict[tuple[int, int, str], float]]:
    """Continue and switch arcs of every drive with the least gap each needs.

    An arc ``u -> v`` is left out when ``v`` cannot start by its latest
    start even if ``u`` ends as early as it can and the gap is the least:
    no schedule within the bounds uses it.
    """
    continue_arcs: dict[tuple[int, int, str], float] = {}
    switch_arcs: dict[tuple[int, int, str], float] = {}
    drive_by_id = instance.drive_by_id
    library_by_id = instance.library_by_id
    pieces_by_library: dict[str, list[Node]] = {}
    for node in nodes:
        if not node.initial:
            pieces_by_library.setdefault(node.library, []).append(node)
    for u_node in nodes:
        for d in u_node.drives:
            drive = drive_by_id[d]
            library = library_by_id[drive.library]
            if u_node.initial:
                earliest_end = 0.0
            else:
                j = u_node.request
                earliest_end = lower_start[j] + max(duration[u_node.index, d], shortest[j])
            for v_node in pieces_by_library.get(drive.library, []):
                if v_node.index == u_node.index or v_node.request == u_node.request:
                    continue
                k = v_node.request
                latest_start = upper_end[k] - shortest[k] + TIME_TOL
                key = (u_node.index, v_node.index, d)
                if v_node.tape == u_node.tape:
                    gap = abs(v_node.offset_mb - u_node.end_mb) / drive.locate_mb_s
                    if earliest_end + gap <= latest_start:
                        continue_arcs[key] = gap
                gap = (
                    unload[u_node.index, d]
                    + library.dismount_s
                    + library.mount_s
                    + drive.load_s
                    + v_node.offset_mb / drive.locate_mb_s
                )
                if earliest_end + gap <= latest_start:
                    switch_arcs[key] = gap
    return continue_arcs, switch_arcs


def _arm_ops(
    instance: Instance, nodes: tuple[Node, ...], n_pieces: int
) -> tuple[dict[str, tuple[ArmOp, ...]], dict[str, int]]:
    """Possible arm operations longer than :data:`ARM_EPS` per library, and the lanes to model.

    Each piece node may be mounted and each node may be dismounted. When a
    library's arms are at least its possible operations, no two can ever
    exceed its capacity and no lane is modelled.
    """
    ops: dict[str, tuple[ArmOp, ...]] = {}
    lanes: dict[str, int] = {}
    for library in instance.libraries:
        listed: list[ArmOp] = []
        for node in nodes:
            if node.library != library.id or not node.drives:
                continue
            if node.index < n_pieces and library.mount_s > ARM_EPS:
                listed.append(ArmOp(len(listed), "mount", node.index, library.id, library.mount_s))
            if library.dismount_s > ARM_EPS:
                listed.append(
                    ArmOp(len(listed), "dismount", node.index, library.id, library.dismount_s)
                )
        ops[library.id] = tuple(listed)
        lanes[library.id] = library.arms if len(listed) > library.arms else 0
    return ops, lanes


def _residency(instance: Instance, nodes: tuple[Node, ...]) -> dict[str, tuple[int, ...]]:
    """Nodes of each tape that may be in two drives at once, were nothing to forbid it."""
    by_tape: dict[str, list[int]] = {}
    for node in nodes:
        if len(instance.drives_of_library.get(node.library, ())) >= 2:
            by_tape.setdefault(node.tape, []).append(node.index)
    return {t: tuple(ns) for t, ns in by_tape.items() if len(ns) >= 2}


def _twins(instance: Instance) -> tuple[tuple[str, ...], ...]:
    """Classes of interchangeable drives: same library and timings, empty at time 0."""
    classes: dict[tuple[str, float, float, float, float], list[str]] = {}
    for d in instance.drives:
        if d.id in instance.initial_tape:
            continue
        key = (d.library, d.rate_mb_s, d.load_s, d.unload_s, d.locate_mb_s)
        classes.setdefault(key, []).append(d.id)
    return tuple(tuple(ds) for ds in classes.values() if len(ds) >= 2)
