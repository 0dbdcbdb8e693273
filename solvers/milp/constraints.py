"""The constraint families of the MILP, one function each.

Every disjunction is a big-M constraint whose ``M`` is the difference of the
bounds of the two times it compares (:mod:`solvers.milp.data`), never a
blanket constant: the LP bound, hence the proof of optimality, depends on
it. A constraint that holds "when binary ``b`` is 1" is written
``lhs - rhs >= (gap + M) * b - M``, so that ``b = 0`` leaves ``lhs - rhs >=
-M``, which the bounds already imply, and ``b = 1`` gives ``lhs - rhs >=
gap``. Arcs and operations of one node on several drives share one row,
the sum of their binaries being at most 1, which is also the tighter
relaxation.

Rows are built as lists of ``(variable, coefficient)`` terms and handed to
PuLP as one expression each: PuLP's operator arithmetic copies expressions
at every step, which made building a model of ten requests take most of a
second.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations, pairwise
from typing import Any

import pulp

from tapesched.solvers.exact.deadline import Deadline
from tapesched.solvers.milp.data import MilpData
from tapesched.solvers.milp.variables import MilpVariables, op_window, zero_arc

Problem = Any
"""A ``pulp.LpProblem``."""

Terms = Iterable[tuple[Any, float]]
"""``(variable, coefficient)`` pairs of a row; a variable may appear twice."""

_SENSES = {">=": pulp.LpConstraintGE, "<=": pulp.LpConstraintLE, "==": pulp.LpConstraintEQ}


def add_row(problem: Problem, terms: Terms, sense: str, rhs: float, label: str) -> None:
    """Add the row ``sum terms  sense  rhs`` to ``problem`` as ``label``.

    Coefficients of a repeated variable are summed, zero ones dropped.

    Raises
    ------
    ValueError
        When no variable is left and the row does not hold: the bounds alone
        make the model infeasible, which a well-formed instance never does.
    """
    coefficients: dict[Any, float] = {}
    for variable, coefficient in terms:
        coefficients[variable] = coefficients.get(variable, 0.0) + coefficient
    expression = {v: c for v, c in coefficients.items() if c != 0}
    if not expression:
        holds = {">=": 0 >= rhs - 1e-9, "<=": 0 <= rhs + 1e-9, "==": abs(rhs) <= 1e-9}[sense]
        if not holds:
            raise ValueError(f"row {label} cannot hold")
        return
    problem += pulp.LpConstraint(pulp.LpAffineExpression(expression), _SENSES[sense], label, rhs)


def _ones(variables: Iterable[Any], coefficient: float = 1.0) -> list[tuple[Any, float]]:
    return [(v, coefficient) for v in variables]


def _end(var: MilpVariables, data: MilpData, u: int, coefficient: float) -> list[tuple[Any, float]]:
    """``coefficient * C(u)``, nothing for an initial node (its ``C`` is 0)."""
    end = var.end_of(data, u)
    return [] if end is None else [(end, coefficient)]


def assignment(problem: Problem, data: MilpData, var: MilpVariables) -> None:
    """Every piece on exactly one drive of its library; a gang's pieces on distinct drives.

    Interchangeable drives (:attr:`~solvers.exact.formulation.Formulation.drive_twins`) are
    ordered by the first piece they run: piece ``k`` may run on the next
    drive of a class only if a piece before ``k`` runs on the previous one.
    Renumbering the drives of a class by their first piece maps any schedule
    onto one that meets this, so no optimum is lost and the search does not
    visit each schedule once per permutation of the class.
    """
    for k in range(data.n_pieces):
        add_row(problem, _ones(var.x[k, d] for d in data.nodes[k].drives), "==", 1, f"assign_{k}")
    for j, pieces in enumerate(data.request_nodes):
        if len(pieces) < 2:
            continue
        for d in data.nodes[pieces[0]].drives:
            terms = _ones(var.x[k, d] for k in pieces)
            add_row(problem, terms, "<=", 1, f"gang_{j}_{data.drive_index[d]}")
    for twins in data.drive_twin_ids:
        library = data.instance.drive_by_id[twins[0]].library
        members = [k for k in range(data.n_pieces) if data.nodes[k].library == library]
        for a, b in pairwise(twins):
            for position, k in enumerate(members):
                terms = [
                    (var.x[k, b], 1.0),
                    *_ones((var.x[q, a] for q in members[:position]), -1.0),
                ]
                add_row(problem, terms, "<=", 0, f"twin_{data.drive_index[b]}_{k}")


def sequencing(problem: Problem, data: MilpData, var: MilpVariables) -> None:
    """Each drive's nodes form one path from its first node; arcs order the transfers.

    Flow conservation: a piece node on ``d`` has one predecessor there (or
    is its first node, on an empty drive) and one successor (or is its
    last node, keeping or dismounting its tape); an initial node has no
    predecessor and is always on its drive; an empty drive has at most one
    first node. Time ordering: on a continue arc ``u -> v``, ``S(v) >= C(u)``
    plus the locate from where ``u`` left the head; on a switch arc, plus
    unload, dismount, mount, load and the locate from 0 (the chain of
    :func:`switch_timing` implies it; stating it on the arc directly gives a
    stronger relaxation). A cycle of nodes whose transfers and locates all
    take no time satisfies the time ordering, so the pieces on such arcs
    carry a rank that must grow along them (Miller-Tucker-Zemlin).
    """
    n_pieces = data.n_pieces
    for node in data.nodes:
        u = node.index
        for d in node.drives:
            di = data.drive_index[d]
            heads = data.successors.get((u, d), ())
            out = [
                *(var.cont[u, v, d] for v in heads if (u, v, d) in var.cont),
                *(var.switch[u, v, d] for v in heads if (u, v, d) in var.switch),
                var.keep[u, d],
                var.drop[u, d],
            ]
            if node.is_initial:
                add_row(problem, _ones(out), "==", 1, f"out_{u}_{di}")
                continue
            add_row(problem, [*_ones(out), (var.x[u, d], -1.0)], "==", 0, f"out_{u}_{di}")
            tails = data.predecessors.get((u, d), ())
            incoming = [
                *(var.cont[w, u, d] for w in tails if (w, u, d) in var.cont),
                *(var.switch[w, u, d] for w in tails if (w, u, d) in var.switch),
            ]
            if (u, d) in var.first:
                incoming.append(var.first[u, d])
            add_row(problem, [*_ones(incoming), (var.x[u, d], -1.0)], "==", 0, f"in_{u}_{di}")
    for d in data.empty_drives:
        firsts = [var.first[v, d] for v in range(n_pieces) if (v, d) in var.first]
        if firsts:
            add_row(problem, _ones(firsts), "<=", 1, f"first_{data.drive_index[d]}")

    pairs: dict[tuple[int, int], list[tuple[float, Any]]] = {}
    for (u, v, d), gap in data.continue_arcs.items():
        pairs.setdefault((u, v), []).append((gap, var.cont[u, v, d]))
    for (u, v, d), gap in data.switch_arcs.items():
        pairs.setdefault((u, v), []).append((gap, var.switch[u, v, d]))
    for (u, v), arcs in pairs.items():
        big = max(0.0, data.upper_end_of(u) - data.lower_start_of(v))
        terms = [
            (var.start[data.nodes[v].request], 1.0),
            *_end(var, data, u, -1.0),
            *((b, -(gap + big)) for gap, b in arcs),
        ]
        add_row(problem, terms, ">=", -big, f"arc_{u}_{v}")

    _predecessor_bounds(problem, data, var)
    top = max(0, n_pieces - 1)
    for (u, v, d), b in var.cont.items():
        if zero_arc(data, u, v, d):
            terms = [(var.rank[v], 1.0), (var.rank[u], -1.0), (b, -(1.0 + top))]
            add_row(problem, terms, ">=", -top, f"rank_{u}_{v}_{data.drive_index[d]}")


def _predecessor_bounds(problem: Problem, data: MilpData, var: MilpVariables) -> None:
    """``S(v)`` is at least the mix, over its in-arcs, of each arc's earliest readiness.

    A piece has exactly one predecessor arc (or is first on an empty drive),
    so ``S(v) >= sum over arcs of (least C(u) on d + gap) * arc + ready *
    first`` holds with no big-M. In the LP it counts what the big-M rows
    lose: at most one piece per empty drive goes without a predecessor, so
    the others pay a locate, or a whole switch after some other transfer.
    """
    library_by_id = data.instance.library_by_id
    for v in range(data.n_pieces):
        node = data.nodes[v]
        mount_s = library_by_id[node.library].mount_s
        terms: list[tuple[Any, float]] = [(var.start[node.request], 1.0)]
        for d in node.drives:
            if (v, d) in var.first:
                terms.append((var.first[v, d], -(mount_s + data.mount_tail(v, d))))
            for u in data.predecessors.get((v, d), ()):
                earliest = data.lower_end_on(u, d)
                gap = data.continue_arcs.get((u, v, d))
                if gap is not None:
                    terms.append((var.cont[u, v, d], -(earliest + gap)))
                gap = data.switch_arcs.get((u, v, d))
                if gap is not None:
                    terms.append((var.switch[u, v, d], -(earliest + gap)))
        add_row(problem, terms, ">=", 0, f"ready_{v}")


def switch_timing(problem: Problem, data: MilpData, var: MilpVariables) -> None:
    """Unload, dismount, mount and load of every switch, in order (reading 2).

    Also defines ``is_dismounted`` and ``is_mounted`` as the sums of the
    binaries that put a dismount after, or a mount before, a node.

    ``D(u) >= C(u) + unload`` when a dismount follows ``u`` (a switch arc or a
    last node giving up its tape); ``M(v) >= D(u) + dismount_s`` on a switch
    arc ``u -> v``; ``S(v) >= M(v) + mount_s + load + o(v) / locate`` when a
    mount precedes ``v`` (a switch arc, or first on an empty drive).
    """
    library_by_id = data.instance.library_by_id
    for node in data.nodes:
        u = node.index
        dismounts = [(b, -1.0) for d in node.drives for b in var.dismount_binaries(data, u, d)]
        add_row(problem, [(var.is_dismounted[u], 1.0), *dismounts], "==", 0, f"dismounted_{u}")
        if not node.is_initial:
            mounts = [(b, -1.0) for d in node.drives for b in var.mount_binaries(data, u, d)]
            add_row(problem, [(var.is_mounted[u], 1.0), *mounts], "==", 0, f"mounted_{u}")
        big = max(0.0, data.upper_end_of(u) - data.earliest_dismount[u])
        terms = [(var.dismount[u], 1.0), *_end(var, data, u, -1.0)]
        for d in node.drives:
            coefficient = -(data.unload[u, d] + big)
            terms.extend((b, coefficient) for b in var.dismount_binaries(data, u, d))
        add_row(problem, terms, ">=", -big, f"unload_{u}")

    by_pair: dict[tuple[int, int], list[Any]] = {}
    for (u, v, _), b in var.switch.items():
        by_pair.setdefault((u, v), []).append(b)
    for (u, v), binaries in by_pair.items():
        dismount_s = library_by_id[data.nodes[u].library].dismount_s
        big = data.latest_dismount[u]
        terms = [
            (var.mount[v], 1.0),
            (var.dismount[u], -1.0),
            *_ones(binaries, -(dismount_s + big)),
        ]
        add_row(problem, terms, ">=", -big, f"switch_{u}_{v}")

    for v in range(data.n_pieces):
        node = data.nodes[v]
        mount_s = library_by_id[node.library].mount_s
        big = max(0.0, data.latest_mount[v] - data.lower_start_of(v))
        terms = [(var.start[node.request], 1.0), (var.mount[v], -1.0)]
        for d in node.drives:
            coefficient = -(mount_s + data.mount_tail(v, d) + big)
            terms.extend((b, coefficient) for b in var.mount_binaries(data, v, d))
        add_row(problem, terms, ">=", -big, f"load_{v}")


def arm_lanes(problem: Problem, data: MilpData, var: MilpVariables) -> None:
    """No more than ``arms`` arm operations at once in each library.

    Each present operation of positive length takes one of the library's
    ``arms`` lanes (a set of intervals never more than ``arms`` deep splits
    into that many lanes, so nothing is lost), and two operations on one
    lane do not overlap: the one that comes first (``order``) ends when or
    before the other starts (half-open intervals, reading 6). With one arm
    the lane is the operation's presence itself. Lanes are interchangeable,
    so operation ``i`` may use lanes ``0 .. i`` only: renumbering the lanes
    by their first operation maps any assignment onto one of those.
    """
    for lib, ops in data.ops.items():
        lanes = data.lanes[lib]
        if lanes == 0:
            continue
        li = data.library_index[lib]
        presence = [
            var.is_mounted[op.node] if op.kind == "mount" else var.is_dismounted[op.node]
            for op in ops
        ]
        starts = [var.mount[op.node] if op.kind == "mount" else var.dismount[op.node] for op in ops]
        windows = [op_window(data, lib, op.index) for op in ops]
        if lanes > 1:
            for op in ops:
                choices = [var.lane[lib, op.index, a] for a in range(min(op.index, lanes - 1) + 1)]
                terms = [*_ones(choices), (presence[op.index], -1.0)]
                add_row(problem, terms, "==", 0, f"lane_{li}_{op.index}")
        for a_op, b_op in combinations(ops, 2):
            i, k = a_op.index, b_op.index
            order = var.order.get((lib, i, k))
            if order is None:
                continue
            (a_low, a_high), (b_low, b_high) = windows[i], windows[k]
            big_ab = max(0.0, a_high + a_op.duration_s - b_low)
            big_ba = max(0.0, b_high + b_op.duration_s - a_low)
            if lanes == 1:
                shared = [(presence[i], presence[k])]
            else:
                shared = [
                    (var.lane[lib, i, a], var.lane[lib, k, a])
                    for a in range(min(i, k, lanes - 1) + 1)
                ]
            for s, (on_i, on_k) in enumerate(shared):
                # b after a when order = 1: S_b - S_a >= dur_a - M (1 - order) - M (2 - on_i - on_k)
                terms = [
                    (starts[k], 1.0),
                    (starts[i], -1.0),
                    (order, -big_ab),
                    (on_i, -big_ab),
                    (on_k, -big_ab),
                ]
                rhs = a_op.duration_s - 3 * big_ab
                add_row(problem, terms, ">=", rhs, f"arm_{li}_{i}_{k}_{s}_a")
                # a after b when order = 0: S_a - S_b >= dur_b - M order - M (2 - on_i - on_k)
                terms = [
                    (starts[i], 1.0),
                    (starts[k], -1.0),
                    (order, big_ba),
                    (on_i, -big_ba),
                    (on_k, -big_ba),
                ]
                rhs = b_op.duration_s - 2 * big_ba
                add_row(problem, terms, ">=", rhs, f"arm_{li}_{i}_{k}_{s}_b")


def tape_residency(problem: Problem, data: MilpData, var: MilpVariables) -> None:
    """A tape is in one drive at a time (reading 3).

    Each node holds its tape from the start of its mount (0 for an initial
    node, else the end of its predecessor's transfer when the tape stays in)
    to the end of its dismount (else the end of its transfer when the tape
    stays in for the next node, else forever). The holds of one stay tile it,
    so two nodes of one tape on different drives must not overlap; on one
    drive their holds follow the sequence and never overlap either, so the
    disjunction is stated for every pair of nodes of the tape (``before``),
    with no need to know their drives. Holds may only be larger than the
    real residency, never smaller.
    """
    library_by_id = data.instance.library_by_id
    forever = data.forever
    top = data.horizon
    for members in data.residency_tapes.values():
        for u in members:
            node = data.nodes[u]
            hs, he = var.hold_start[u], var.hold_end[u]
            if not node.is_initial:
                # hs <= M(u) + top (1 - mounted)
                terms = [(hs, 1.0), (var.mount[u], -1.0), (var.is_mounted[u], top)]
                add_row(problem, terms, "<=", top, f"hold_mount_{u}")
                staying: dict[int, list[Any]] = {}
                for d in node.drives:
                    for w in data.predecessors.get((u, d), ()):
                        if (w, u, d) in var.cont:
                            staying.setdefault(w, []).append(var.cont[w, u, d])
                for w, binaries in staying.items():
                    # hs <= C(w) + top (1 - continue w -> u)
                    terms = [(hs, 1.0), *_end(var, data, w, -1.0), *_ones(binaries, top)]
                    add_row(problem, terms, "<=", top, f"hold_stay_{w}_{u}")
            dismount_s = library_by_id[node.library].dismount_s
            # he >= D(u) + dismount_s when dismounted
            big = data.latest_dismount[u] + dismount_s
            terms = [
                (he, 1.0),
                (var.dismount[u], -1.0),
                (var.is_dismounted[u], -(dismount_s + big)),
            ]
            add_row(problem, terms, ">=", -big, f"hold_drop_{u}")
            if not node.is_initial:
                leaving = [
                    var.cont[u, v, d]
                    for d in node.drives
                    for v in data.successors.get((u, d), ())
                    if (u, v, d) in var.cont
                ]
                if leaving:
                    # he >= C(u) when a continue arc leaves u
                    big_end = data.upper_end_of(u)
                    terms = [(he, 1.0), *_end(var, data, u, -1.0), *_ones(leaving, -big_end)]
                    add_row(problem, terms, ">=", -big_end, f"hold_pass_{u}")
            kept = [var.keep[u, d] for d in node.drives]
            add_row(problem, [(he, 1.0), *_ones(kept, -forever)], ">=", 0, f"hold_keep_{u}")
        for u, w in combinations(members, 2):
            first = var.before[u, w]
            # u before w: hs(w) >= he(u) - forever (1 - first); else hs(u) >= he(w) - forever first
            terms = [(var.hold_start[w], 1.0), (var.hold_end[u], -1.0), (first, -forever)]
            add_row(problem, terms, ">=", -forever, f"tape_{u}_{w}_a")
            terms = [(var.hold_start[u], 1.0), (var.hold_end[w], -1.0), (first, forever)]
            add_row(problem, terms, ">=", 0, f"tape_{u}_{w}_b")


def tape_order(problem: Problem, data: MilpData, var: MilpVariables) -> None:
    """Two requests reading one tape transfer one after the other, set-up between (redundant).

    The order of two pieces' holds (``before``) is the order of their
    transfers, which are inside the holds, and the later starts at least
    :meth:`~solvers.exact.formulation.Formulation.gap_to_later_use_s` after the
    earlier ends. :func:`tape_residency` implies
    it through the holds' ends and starts, which are free to move within
    their big-M rows; stated on the transfers, it lifts the LP bound.
    """
    for members in data.residency_tapes.values():
        pieces = [u for u in members if not data.nodes[u].is_initial]
        for u, w in combinations(pieces, 2):
            first = var.before[u, w]
            for a, b, on in ((u, w, 1.0), (w, u, 0.0)):
                gap = data.gap_to_later_use_s(a, b)
                big = max(0.0, gap + data.upper_end_of(a) - data.lower_start_of(b))
                start_b = var.start[data.nodes[b].request]
                # S(b) >= C(a) + gap when a comes first (first == on)
                sign = 1.0 if on else -1.0
                terms = [(start_b, 1.0), *_end(var, data, a, -1.0), (first, -big * sign)]
                add_row(problem, terms, ">=", gap - big if on else gap, f"tape_order_{a}_{b}")


def conflicting_pairs(problem: Problem, data: MilpData, var: MilpVariables) -> None:
    """Two requests that cannot overlap: one order binary, and the hull of both orders.

    For a pair of :attr:`~solvers.milp.data.MilpData.conflicts` that may
    come in either order (:attr:`~solvers.milp.data.MilpData.orders`), the
    binary ``pair_order[j, k]`` chooses: ``S_k >= C_j + g_jk`` when it is
    1, ``S_j >= C_k + g_kj`` when it is 0 (big-M rows, ``M`` from the
    bounds). The arcs and the tape's order imply the disjunction through
    many binaries spread over the drives; one binary per pair lets the
    search fix the order of two requests in one branch, with the gap that
    the shared drives or tape force.

    And with no binary: ``j`` first puts the ends at least at ``P1 = (a_j,
    max(a_k, a_j + g_jk + p_k))`` and ``k`` first at ``P2 = (max(a_j, a_k +
    g_kj + p_j), a_k)`` (``a`` the least end, ``p`` the least length). Each
    order's region is a cone at its corner opening towards larger ends, so
    both lie above the line through ``P1`` and ``P2``: ``(b1 - b2) C_j +
    (a2 - a1) C_k >= (b1 - b2) a2 + (a2 - a1) b2``, which the LP cannot
    meet with both ends at their least. A pair with one possible order
    states it as it is.
    """
    lower_end = [s + t for s, t in zip(data.lower_start, data.shortest, strict=True)]
    for (j, k), (g_jk, g_kj) in data.conflicts.items():
        j_first, k_first = data.orders[j, k]
        if j_first and not k_first:
            terms = [(var.start[k], 1.0), (var.end[j], -1.0)]
            add_row(problem, terms, ">=", g_jk, f"pair_{j}_{k}_order")
            continue
        if k_first and not j_first:
            terms = [(var.start[j], 1.0), (var.end[k], -1.0)]
            add_row(problem, terms, ">=", g_kj, f"pair_{j}_{k}_order")
            continue
        if not (j_first and k_first):
            continue
        order = var.pair_order[j, k]
        # S_k - C_j >= g_jk - M (1 - order); S_j - C_k >= g_kj - M' order
        big = max(0.0, g_jk + data.upper_end[j] - data.lower_start[k])
        terms = [(var.start[k], 1.0), (var.end[j], -1.0), (order, -big)]
        add_row(problem, terms, ">=", g_jk - big, f"pair_{j}_{k}_a")
        big = max(0.0, g_kj + data.upper_end[k] - data.lower_start[j])
        terms = [(var.start[j], 1.0), (var.end[k], -1.0), (order, big)]
        add_row(problem, terms, ">=", g_kj, f"pair_{j}_{k}_b")
        a1, b2 = lower_end[j], lower_end[k]
        b1 = max(b2, a1 + g_jk + data.shortest[k])
        a2 = max(a1, b2 + g_kj + data.shortest[j])
        alpha, beta = b1 - b2, a2 - a1
        if alpha > 0 and beta > 0:
            terms = [(var.end[j], alpha), (var.end[k], beta)]
            add_row(problem, terms, ">=", alpha * a2 + beta * b2, f"pair_{j}_{k}_hull")


def no_prefetch(problem: Problem, data: MilpData, var: MilpVariables) -> None:
    """Without prefetch (``data.prefetch`` false), nothing is done for a request before its release.

    A mount before piece ``v`` starts at its request's release or later:
    ``M(v) >= r * mounted(v)``. The locate into ``v`` starts there too: ``v``
    has one predecessor arc at most, so ``S(v) >= r + sum over continue
    arcs into v of locate * cont`` (a switch arc's locate follows the mount,
    hence the release, already). Neither row needs a big-M.
    """
    if data.prefetch:
        return
    into: dict[int, list[tuple[Any, float]]] = {}
    for (u, v, d), gap in data.continue_arcs.items():
        if gap > 0:
            into.setdefault(v, []).append((var.cont[u, v, d], -gap))
    for v in range(data.n_pieces):
        node = data.nodes[v]
        release = float(data.instance.requests[node.request].release_s)
        if release > 0:
            terms = [(var.mount[v], 1.0), (var.is_mounted[v], -release)]
            add_row(problem, terms, ">=", 0.0, f"no_prefetch_mount_{v}")
        if v in into:
            terms = [(var.start[node.request], 1.0), *into[v]]
            add_row(problem, terms, ">=", release, f"no_prefetch_locate_{v}")


def releases_and_ends(problem: Problem, data: MilpData, var: MilpVariables) -> None:
    """``C_j >= S_j +`` each piece's transfer on its drive; ``S_j >= r_j`` is a bound.

    ``C_j`` is only bounded below: every objective is non-decreasing in each
    ``C_j`` and no constraint gains from a larger one, so an optimal solution
    with ``C_j = S_j + max`` transfer exists, and the schedule is rebuilt from
    the starts with exact ends anyway (:mod:`solvers.milp.solution`).
    """
    for j, pieces in enumerate(data.request_nodes):
        for k in pieces:
            terms = [
                (var.end[j], 1.0),
                (var.start[j], -1.0),
                *((var.x[k, d], -data.duration[k, d]) for d in data.nodes[k].drives),
            ]
            add_row(problem, terms, ">=", 0, f"end_{j}_{k}")


def add_all(
    problem: Problem, data: MilpData, var: MilpVariables, deadline: Deadline | None = None
) -> None:
    """Every constraint family of the formulation, the deadline checked between families.

    Raises :class:`~solvers.exact.deadline.OutOfTime` once ``deadline`` has passed.
    """
    for family in (
        assignment,
        sequencing,
        switch_timing,
        arm_lanes,
        tape_residency,
        tape_order,
        conflicting_pairs,
        releases_and_ends,
        no_prefetch,
    ):
        if deadline is not None:
            deadline.check_now()
        family(problem, data, var)
