"""The instance as the MILP sees it: the formulation's data, arcs, arm operations, bounds.

Everything here is plain numbers computed once from the instance (and from
the objective value of a feasible schedule when one is known), so that the
variable builder, each constraint family, the warm start and the reading of
solutions share one indexing and one set of bounds. Nothing here depends on
PuLP.

The nodes, their drives, the twin groups, the lengths in seconds and the tape
gaps are the formulation's (:class:`solvers.exact.formulation.Formulation`, shared
with CP-SAT): a *piece node* per piece of every request (indices ``0 ..
P-1``, in request and piece order) and an *initial node* per drive that holds
a tape at time 0 (indices ``P ..``), fixed on its drive, with transfer start
= end = 0 and the head at offset 0. :class:`MilpData` adds what is the
MILP's own: the arcs of each drive's sequence, pruned by the bounds, the arm
operations and lanes, and the bounds of every time.

Every big-M of the model is the difference of the bounds of the two times it
compares, and those bounds come from :class:`MilpData`: the smaller they are,
the stronger the LP relaxation, so they are computed with some care
(``lower_start``, ``upper_end``, :func:`horizon`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from attrs import frozen

from tapesched.solvers.exact.formulation import Formulation, Node
from tapesched.toolkit.model import Instance

ARM_EPS = 1e-6
"""Arm operations this short or shorter take no arm: the validator does not count them."""

TIME_TOL = 1e-9
"""Slack, in seconds, under which two computed bounds are taken as equal."""


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


class MilpData(Formulation):
    """The formulation's data, and the MILP's arcs, arm operations and bounds.

    The nodes, their drives and the lengths in seconds are those of
    :class:`~solvers.exact.formulation.Formulation`; the attributes below are the
    MILP's own. Drives are named by id, as in :attr:`Node.drives
    <solvers.exact.formulation.Node.drives>`.

    Parameters
    ----------
    instance
        A well-formed instance.
    known_objective
        The objective value of a feasible schedule of ``instance`` (the
        warm start's), which bounds the ends of an optimal one and so
        shrinks every big-M; ``None`` to use the horizon alone.
    prefetch
        ``False``: the non-anticipative problem (the constraints are
        :func:`solvers.milp.constraints.no_prefetch`; the data are the same).

    Attributes
    ----------
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
    conflicts
        Pairs of requests ``(j, k)``, ``j < k``, whose transfers cannot
        overlap (see :func:`_conflicts`), with the least time from ``C_j``
        to ``S_k`` when ``j`` comes first and from ``C_k`` to ``S_j`` when
        ``k`` does.
    orders
        For each pair of ``conflicts``, whether ``j`` may come first and
        whether ``k`` may, within the bounds (:func:`_orders`).
    ops
        Possible arm operations longer than :data:`ARM_EPS`, by library.
    lanes
        Arm lanes modelled per library: 0 when its arms outnumber its
        possible operations (no arm constraint is needed).
    residency_tapes
        Node indices per tape whose residencies may conflict: tapes of a
        library with two drives or more and with two nodes or more.
    latest_mount
        Latest start of the mount before each piece node within the bounds.
    earliest_dismount, latest_dismount
        Earliest and latest start of the dismount after each node.
    """

    def __init__(
        self, instance: Instance, known_objective: float | None = None, prefetch: bool = True
    ) -> None:
        super().__init__(instance, prefetch)
        nodes = self.nodes
        drive_by_id = instance.drive_by_id
        library_by_id = instance.library_by_id

        duration: dict[tuple[int, str], float] = {}
        ready: dict[tuple[int, str], float] = {}
        unload: dict[tuple[int, str], float] = {}
        for node in nodes:
            for d in node.drives:
                drive = drive_by_id[d]
                if not node.is_initial:
                    # From the end and the offset, as the model always had it: the size's
                    # transfer_s differs in the last bit on some data, and so would the model.
                    duration[node.index, d] = (node.end_mb - node.offset_mb) / drive.rate_mb_s
                    position = self.drive_index[d]
                    ready[node.index, d] = self.loaded_s(node.index, position) + self.into_locate_s(
                        node.index, position
                    )
                unload[node.index, d] = drive.unload_s

        lower_start = []
        shortest = []
        for j, request in enumerate(instance.requests):
            start = float(request.release_s)
            widest = 0.0
            for k in self.request_nodes[j]:
                drives = nodes[k].drives
                start = max(start, min(ready[k, d] for d in drives))
                widest = max(widest, min(duration[k, d] for d in drives))
            lower_start.append(start)
            shortest.append(widest)
        lower_flow = [
            s + t - float(r.release_s)
            for s, t, r in zip(lower_start, shortest, instance.requests, strict=True)
        ]
        cap = horizon(self)
        upper_end = _upper_ends(instance, lower_flow, cap, known_objective)
        upper_end = [
            max(u, s + t) for u, s, t in zip(upper_end, lower_start, shortest, strict=True)
        ]
        top = max(upper_end, default=0.0) if known_objective is not None else cap
        longest_dismount = max((lib.dismount_s for lib in instance.libraries), default=0.0)

        self.duration: Mapping[tuple[int, str], float] = duration
        self.ready: Mapping[tuple[int, str], float] = ready
        self.unload: Mapping[tuple[int, str], float] = unload
        self.lower_start: tuple[float, ...] = tuple(lower_start)
        self.upper_end: tuple[float, ...] = tuple(upper_end)
        self.shortest: tuple[float, ...] = tuple(shortest)
        self.horizon: float = top
        self.forever: float = top + longest_dismount + 1.0

        self.continue_arcs, self.switch_arcs = _arcs(self)
        successors: dict[tuple[int, str], list[int]] = {}
        predecessors: dict[tuple[int, str], list[int]] = {}
        for u, v, d in sorted({*self.continue_arcs, *self.switch_arcs}):
            successors.setdefault((u, d), []).append(v)
            predecessors.setdefault((v, d), []).append(u)
        self.successors: Mapping[tuple[int, str], tuple[int, ...]] = {
            k: tuple(v) for k, v in successors.items()
        }
        self.predecessors: Mapping[tuple[int, str], tuple[int, ...]] = {
            k: tuple(v) for k, v in predecessors.items()
        }

        self.empty_drives: tuple[str, ...] = tuple(
            d.id for d in instance.drives if d.id not in instance.initial_tape
        )
        self.ops, self.lanes = _arm_ops(instance, nodes, self.n_pieces)
        self.residency_tapes = _residency(instance, nodes)
        latest_mount: dict[int, float] = {}
        earliest_dismount: dict[int, float] = {}
        latest_dismount: dict[int, float] = {}
        for node in nodes:
            u = node.index
            library = library_by_id[node.library]
            if not node.is_initial:
                j = node.request
                tail = min(self.mount_tail(u, d) for d in node.drives)
                latest_mount[u] = max(0.0, upper_end[j] - shortest[j] - library.mount_s - tail)
                least_end = lower_start[j] + shortest[j]
                earliest_dismount[u] = min(
                    max(least_end, lower_start[j] + duration[u, d]) + unload[u, d]
                    for d in node.drives
                )
            else:
                earliest_dismount[u] = min(unload[u, d] for d in node.drives)
            latest_dismount[u] = max(top, earliest_dismount[u])
        self.latest_mount: Mapping[int, float] = latest_mount
        self.earliest_dismount: Mapping[int, float] = earliest_dismount
        self.latest_dismount: Mapping[int, float] = latest_dismount
        self.conflicts: Mapping[tuple[int, int], tuple[float, float]] = _conflicts(self)
        self.orders: Mapping[tuple[int, int], tuple[bool, bool]] = _orders(self)

    @property
    def drive_twin_ids(self) -> tuple[tuple[str, ...], ...]:
        """The formulation's :attr:`~solvers.exact.formulation.Formulation.drive_twins`, by drive
        id."""
        return tuple(tuple(self.drives[d].id for d in group) for group in self.drive_twins)

    def mount_tail(self, v: int, d: str) -> float:
        """Time from the end of the mount of ``v``'s tape into ``d`` to ``v`` being ready."""
        position = self.drive_index[d]
        return self.drives[position].load_s + self.load_locate_s(v, position)

    def lower_end_on(self, u: int, d: str) -> float:
        """Least ``C`` of node ``u`` on drive ``d`` (0 for an initial node)."""
        node = self.nodes[u]
        if node.is_initial:
            return 0.0
        j = node.request
        return max(
            self.lower_start[j] + self.duration[u, d], self.lower_start[j] + self.shortest[j]
        )

    def upper_end_of(self, u: int) -> float:
        """Greatest ``C`` of node ``u`` (0 for an initial node)."""
        node = self.nodes[u]
        return 0.0 if node.is_initial else self.upper_end[node.request]

    def lower_start_of(self, v: int) -> float:
        """Least ``S`` of piece node ``v``."""
        return self.lower_start[self.nodes[v].request]

    def upper_start_of(self, v: int) -> float:
        """Greatest ``S`` of piece node ``v``."""
        j = self.nodes[v].request
        return self.upper_end[j] - self.shortest[j]


def horizon(data: MilpData) -> float:
    """The horizon of ``solvers/exact/formulation.md``: every job done one after the other.

    The latest release, plus an unload and dismount of each initial tape,
    plus for every piece a full switch on its slowest drive (unload,
    dismount, mount, load, the longest locate into its offset, the
    transfer). A minimal optimal schedule (no mount without a transfer, no
    dismount that nothing needs) with every time as early as its order
    allows has each time at the end of a chain that starts at a release and
    uses each of those durations once at most, so it fits.

    The longest locate into a piece is, on a linear drive, one over the
    farther part of its tape from its offset; on a serpentine drive, the
    longest from the load point or the end of a node that may precede it
    (:meth:`~solvers.exact.formulation.Formulation.worst_into_locate_s`), the only
    locates into it a schedule can make.
    """
    instance = data.instance
    total = max((float(r.release_s) for r in instance.requests), default=0.0)
    for init in instance.initial:
        drive = instance.drive_by_id[init.drive]
        total += drive.unload_s + instance.library_by_id[drive.library].dismount_s
    for node in data.nodes:
        if node.is_initial:
            continue
        library = instance.library_by_id[node.library]
        size = node.end_mb - node.offset_mb
        far = max(node.offset_mb, data.capacity_mb[node.tape] - node.offset_mb)
        worst = 0.0
        for d in node.drives:
            position = data.drive_index[d]
            drive = data.drives[position]
            locate = (
                far / drive.locate_mb_s
                if drive.linear
                else data.worst_into_locate_s(node.index, position)
            )
            worst = max(
                worst,
                drive.switch_s(library) + locate + size / drive.rate_mb_s,
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


def _arcs(
    data: MilpData,
) -> tuple[dict[tuple[int, int, str], float], dict[tuple[int, int, str], float]]:
    """Continue and switch arcs of every drive with the least gap each needs.

    An arc ``u -> v`` is left out when ``v`` cannot start by its latest
    start even if ``u`` ends as early as it can and the gap is the least:
    no schedule within the bounds uses it.
    """
    continue_arcs: dict[tuple[int, int, str], float] = {}
    switch_arcs: dict[tuple[int, int, str], float] = {}
    drive_by_id = data.instance.drive_by_id
    library_by_id = data.instance.library_by_id
    lower_start, upper_end, shortest = data.lower_start, data.upper_end, data.shortest
    pieces_by_library: dict[str, list[Node]] = {}
    for node in data.nodes:
        if not node.is_initial:
            pieces_by_library.setdefault(node.library, []).append(node)
    for u_node in data.nodes:
        u = u_node.index
        for d in u_node.drives:
            drive = drive_by_id[d]
            library = library_by_id[drive.library]
            if u_node.is_initial:
                earliest_end = 0.0
            else:
                j = u_node.request
                earliest_end = lower_start[j] + max(data.duration[u, d], shortest[j])
            for v_node in pieces_by_library.get(drive.library, []):
                v = v_node.index
                if not data.can_follow(u, v):
                    continue
                k = v_node.request
                latest_start = upper_end[k] - shortest[k] + TIME_TOL
                key = (u, v, d)
                if v_node.tape == u_node.tape:
                    gap = data.locate_s(u, v, data.drive_index[d])
                    if earliest_end + gap <= latest_start:
                        continue_arcs[key] = gap
                gap = (
                    data.unload[u, d] + library.dismount_s + library.mount_s + data.mount_tail(v, d)
                )
                if earliest_end + gap <= latest_start:
                    switch_arcs[key] = gap
    return continue_arcs, switch_arcs


def _drive_gap_s(data: MilpData, u: int, v: int, d: str) -> float:
    """Least seconds from ``C(u)`` to ``S(v)`` when ``v`` runs after ``u`` on drive ``d``.

    Other nodes may run in between, so as in
    :meth:`~solvers.exact.formulation.Formulation.gap_to_later_use_s`: with no
    switch on the way (one tape), the head travels from where ``u`` leaves
    it to ``v``'s offset no faster than the drive's locate or read speed;
    with a switch, the drive unloads, the arm dismounts and mounts, the drive
    loads, and the head starts again from 0.

    On a serpentine drive, whose locates need not keep the triangle
    inequality, the head's travel has no floor from the distance: the last
    locate into ``v`` is bounded by
    :meth:`~solvers.exact.formulation.Formulation.into_locate_s` instead, after a
    switch (unload, dismount, mount, load) when the tapes differ.
    """
    drive = data.instance.drive_by_id[d]
    library = data.instance.library_by_id[drive.library]
    if not drive.linear:
        into = data.into_locate_s(v, data.drive_index[d])
        if data.nodes[u].tape == data.nodes[v].tape:
            return into
        return drive.switch_s(library) + into
    speed = max(drive.locate_mb_s, drive.rate_mb_s)
    offset = data.nodes[v].offset_mb
    switch = drive.switch_s(library) + offset / speed
    if data.nodes[u].tape != data.nodes[v].tape:
        return switch
    return min(switch, abs(offset - data.nodes[u].end_mb) / speed)


def _conflicts(data: MilpData) -> dict[tuple[int, int], tuple[float, float]]:
    """Pairs of requests whose transfers cannot overlap, and the least gap in each order.

    Two requests cannot overlap when their pieces in one library outnumber
    its drives (they share a drive, which is busy for a request until its
    end ``C``), or when they read one tape (the tape stays in its drive
    until the request's end). Then one comes first, and the other starts
    at least the gap after its end. On shared drives: with ``m`` pieces more
    than the library's drives, at least ``m`` pieces of the later request
    run on drives that the earlier one used, so the gap is the ``m``-th
    least, over the later request's pieces, of the least
    :func:`_drive_gap_s` from a piece of the earlier one;
    on a shared tape, the largest
    :meth:`~solvers.exact.formulation.Formulation.gap_to_later_use_s` over their
    pieces of one tape (each use of it follows); the larger of the two when
    both hold.
    """
    drives_of = data.instance.drives_of_library
    per_library: list[dict[str, list[int]]] = []
    for pieces in data.request_nodes:
        by_library: dict[str, list[int]] = {}
        for u in pieces:
            by_library.setdefault(data.nodes[u].library, []).append(u)
        per_library.append(by_library)
    out: dict[tuple[int, int], tuple[float, float]] = {}
    n = len(data.request_nodes)
    for j in range(n):
        for k in range(j + 1, n):
            gaps = [0.0, 0.0]
            conflict = False
            for library, mine in per_library[j].items():
                theirs = per_library[k].get(library, [])
                shared = len(mine) + len(theirs) - len(drives_of.get(library, ()))
                if theirs and shared > 0:
                    conflict = True
                    for side, (first, then) in enumerate(((mine, theirs), (theirs, mine))):
                        # At least `shared` pieces of the later request run on drives the
                        # earlier used: the shared-th least of their least gaps.
                        least = sorted(
                            min(
                                _drive_gap_s(data, u, v, d)
                                for u in first
                                for d in data.nodes[u].drives
                            )
                            for v in then
                        )
                        gaps[side] = max(gaps[side], least[shared - 1])
            for u in data.request_nodes[j]:
                for v in data.request_nodes[k]:
                    if data.nodes[u].tape == data.nodes[v].tape:
                        conflict = True
                        gaps[0] = max(gaps[0], data.gap_to_later_use_s(u, v))
                        gaps[1] = max(gaps[1], data.gap_to_later_use_s(v, u))
            if conflict:
                out[j, k] = (gaps[0], gaps[1])
    return out


def _orders(data: MilpData) -> dict[tuple[int, int], tuple[bool, bool]]:
    """Which order each pair of :attr:`MilpData.conflicts` may take within the bounds.

    ``(j first, k first)``: an order is possible when the later request can
    start by its latest start after the earlier one's least end and the gap.
    """
    out = {}
    for (j, k), (g_jk, g_kj) in data.conflicts.items():
        end_j = data.lower_start[j] + data.shortest[j]
        end_k = data.lower_start[k] + data.shortest[k]
        out[j, k] = (
            max(end_k, end_j + g_jk + data.shortest[k]) <= data.upper_end[k] + TIME_TOL,
            max(end_j, end_k + g_kj + data.shortest[j]) <= data.upper_end[j] + TIME_TOL,
        )
    return out


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
