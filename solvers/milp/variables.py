"""Every variable of the MILP, built in one place with the bounds of :mod:`solvers.milp.data`.

Decisions (``solvers/exact/formulation.md``), with the names used here:

- ``x[k, d]``: piece node ``k`` runs on drive ``d``.
- ``cont[u, v, d]`` and ``switch[u, v, d]``: ``v`` follows ``u`` on ``d``,
  the tape staying in (a *continue* arc) or switched (a *switch* arc). They
  are the formulation's successor binary ``y`` split by its switch flag
  ``w``: ``y = cont + switch`` and ``w = switch``, so that each big-M is
  switched on by a single binary. A switch arc between nodes of one tape
  is a legal remount (reading 5).
- ``first[v, d]``: ``v`` is the first node of the empty drive ``d``; the
  initial node of a drive that holds a tape is always its first.
- ``keep[u, d]`` and ``drop[u, d]``: ``u`` is the last node of ``d``, which
  keeps the tape to the end or dismounts it (``last = keep + drop``). The
  formulation's ``dis[u, d]`` is ``drop[u, d]`` plus the switch arcs out of
  ``u``, and ``mnt[v, d]`` is ``first[v, d]`` plus the switch arcs into ``v``
  (:meth:`MilpVariables.dismount_binaries`, :meth:`MilpVariables.mount_binaries`).
- ``start[j]``, ``end[j]``: ``S_j`` and ``C_j`` in seconds.
- ``is_mounted[v]``, ``is_dismounted[u]``: 1 when a mount precedes piece
  node ``v`` (on whichever drive) and when a dismount follows node ``u``;
  continuous, equal to sums of binaries, so that the arm and residency rows
  name one column each instead of every arc into or out of the node.
- ``dismount[u]``, ``mount[v]``: start of the dismount after node ``u`` and of
  the mount before piece node ``v`` (meaningful when the operation exists).
  A node runs on one drive, so one time per node serves all its drives.
- ``hold_start[u]``, ``hold_end[u]``: the node's hold of its tape (tape
  residency), only for nodes whose tape could be in two drives at once.
- ``rank[v]``: position of ``v`` along its drive, only for pieces on an arc
  that may take no time at all (see :func:`solvers.milp.constraints.sequencing`).
- ``lane[lib, i, a]``: arm operation ``i`` of library ``lib`` runs on arm
  lane ``a`` (libraries with more than one arm and more operations than arms).
- ``order[lib, i, k]``: operation ``i`` comes before operation ``k`` on a lane.
- ``before[u, w]``: node ``u``'s hold of their common tape precedes ``w``'s.
- ``pair_order[j, k]``: request ``j`` runs before request ``k``, for pairs of
  requests that cannot overlap and may come in either order
  (:attr:`solvers.milp.data.MilpData.orders`).
- ``objective``: ``max C_j`` or ``max w_j (C_j - r_j)`` for the min-max objectives.
- ``one``: a column fixed to 1 that carries the weighted flow's constant
  (see :mod:`solvers.milp.objective`).
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import pulp
from attrs import frozen

from tapesched.solvers.milp.data import MilpData

LpVar = Any
"""A ``pulp.LpVariable`` (PuLP ships no type information)."""


@frozen
class MilpVariables:
    """The variables of one model, keyed as in the module docstring."""

    x: dict[tuple[int, str], LpVar]
    start: tuple[LpVar, ...]
    end: tuple[LpVar, ...]
    cont: dict[tuple[int, int, str], LpVar]
    switch: dict[tuple[int, int, str], LpVar]
    first: dict[tuple[int, str], LpVar]
    keep: dict[tuple[int, str], LpVar]
    drop: dict[tuple[int, str], LpVar]
    is_mounted: dict[int, LpVar]
    is_dismounted: dict[int, LpVar]
    dismount: dict[int, LpVar]
    mount: dict[int, LpVar]
    hold_start: dict[int, LpVar]
    hold_end: dict[int, LpVar]
    rank: dict[int, LpVar]
    lane: dict[tuple[str, int, int], LpVar]
    order: dict[tuple[str, int, int], LpVar]
    before: dict[tuple[int, int], LpVar]
    pair_order: dict[tuple[int, int], LpVar]
    objective: LpVar | None
    one: LpVar

    def all(self) -> list[LpVar]:
        """Every variable, in a fixed order."""
        out: list[LpVar] = [*self.start, *self.end]
        for group in (
            self.x,
            self.cont,
            self.switch,
            self.first,
            self.keep,
            self.drop,
            self.is_mounted,
            self.is_dismounted,
            self.dismount,
            self.mount,
            self.hold_start,
            self.hold_end,
            self.rank,
            self.lane,
            self.order,
            self.before,
            self.pair_order,
        ):
            out.extend(group.values())
        if self.objective is not None:
            out.append(self.objective)
        out.append(self.one)
        return out

    def dismount_binaries(self, data: MilpData, u: int, d: str) -> list[LpVar]:
        """The binaries whose sum is ``dis[u, d]``: a dismount follows node ``u`` on ``d``."""
        heads = data.successors.get((u, d), ())
        return [self.switch[u, v, d] for v in heads if (u, v, d) in self.switch] + [self.drop[u, d]]

    def mount_binaries(self, data: MilpData, v: int, d: str) -> list[LpVar]:
        """The binaries whose sum is ``mnt[v, d]``: a mount precedes piece node ``v`` on ``d``."""
        tails = data.predecessors.get((v, d), ())
        out = [self.switch[u, v, d] for u in tails if (u, v, d) in self.switch]
        if (v, d) in self.first:
            out.append(self.first[v, d])
        return out

    def end_of(self, data: MilpData, u: int) -> LpVar | None:
        """``C`` of node ``u``: its request's end, ``None`` (time 0) for an initial node."""
        node = data.nodes[u]
        return None if node.is_initial else self.end[node.request]


def build_variables(problem: Any, data: MilpData) -> MilpVariables:
    """Create every variable of the model with its bounds, through ``problem.add_variable``.

    Bounds carry what is known before solving: releases and readiness below
    each start, the horizon (or the ends an optimal schedule cannot exceed)
    above each time, and ``x[k, d] = 0`` when ``d`` cannot get piece ``k``
    ready by its latest start.
    """
    instance = data.instance
    new = problem.add_variable
    index = data.drive_index
    lib_index = data.library_index
    n_pieces = data.n_pieces

    def name(prefix: str, *keys: int | str) -> str:
        return prefix + "_" + "_".join(str(index[k] if isinstance(k, str) else k) for k in keys)

    start = tuple(
        new(f"S_{j}", data.lower_start[j], data.upper_end[j] - data.shortest[j])
        for j in range(len(instance.requests))
    )
    end = tuple(
        new(f"C_{j}", data.lower_start[j] + data.shortest[j], data.upper_end[j])
        for j in range(len(instance.requests))
    )
    x = {}
    for k in range(n_pieces):
        latest = data.upper_start_of(k)
        for d in data.nodes[k].drives:
            reachable = data.ready[k, d] <= latest + 1e-9
            x[k, d] = new(name("x", k, d), 0, 1 if reachable else 0, cat=pulp.LpInteger)
    cont = {key: new(name("c", *key), cat=pulp.LpBinary) for key in data.continue_arcs}
    switch = {key: new(name("w", *key), cat=pulp.LpBinary) for key in data.switch_arcs}
    empty = set(data.empty_drives)
    first = {
        (v, d): new(name("first", v, d), cat=pulp.LpBinary)
        for v in range(n_pieces)
        for d in data.nodes[v].drives
        if d in empty
    }
    keep = {}
    drop = {}
    for node in data.nodes:
        for d in node.drives:
            keep[node.index, d] = new(name("keep", node.index, d), cat=pulp.LpBinary)
            drop[node.index, d] = new(name("drop", node.index, d), cat=pulp.LpBinary)
    is_mounted = {v: new(f"mnt_{v}", 0, 1) for v in range(n_pieces)}
    is_dismounted = {node.index: new(f"dis_{node.index}", 0, 1) for node in data.nodes}
    dismount = {
        node.index: new(
            f"D_{node.index}",
            data.earliest_dismount[node.index],
            data.latest_dismount[node.index],
        )
        for node in data.nodes
        if node.drives
    }
    mount = {
        v: new(f"M_{v}", 0.0, data.latest_mount[v]) for v in range(n_pieces) if data.nodes[v].drives
    }
    hold_start = {}
    hold_end = {}
    for members in data.residency_tapes.values():
        for u in members:
            top = 0.0 if data.nodes[u].is_initial else data.horizon
            hold_start[u] = new(f"hs_{u}", 0.0, top)
            hold_end[u] = new(f"he_{u}", 0.0, data.forever)
    ranked: set[int] = set()
    for u, v, d in data.continue_arcs:
        if zero_arc(data, u, v, d):
            ranked.update((u, v))
    rank = {v: new(f"rank_{v}", 0.0, max(0, n_pieces - 1)) for v in sorted(ranked)}
    lane = {}
    order = {}
    for lib, ops in data.ops.items():
        lanes = data.lanes[lib]
        if lanes == 0:
            continue
        if lanes > 1:
            for op in ops:
                for a in range(min(op.index, lanes - 1) + 1):
                    lane[lib, op.index, a] = new(
                        name("lane", lib_index[lib], op.index, a), cat=pulp.LpBinary
                    )
        for a_op, b_op in combinations(ops, 2):
            if arm_pair_needed(data, a_op.index, b_op.index, lib):
                order[lib, a_op.index, b_op.index] = new(
                    name("ord", lib_index[lib], a_op.index, b_op.index), cat=pulp.LpBinary
                )
    before = {
        (u, w): new(f"before_{u}_{w}", cat=pulp.LpBinary)
        for members in data.residency_tapes.values()
        for u, w in combinations(members, 2)
    }
    pair_order = {
        (j, k): new(f"order_{j}_{k}", cat=pulp.LpBinary)
        for (j, k), (j_first, k_first) in data.orders.items()
        if j_first and k_first
    }
    objective = None
    if instance.objective != "weighted-flow" and instance.requests:
        lows, highs = [], []
        for j, request in enumerate(instance.requests):
            low, high = data.lower_start[j] + data.shortest[j], data.upper_end[j]
            if instance.objective == "max-weighted-flow":
                low = request.weight * (low - request.release_s)
                high = request.weight * (high - request.release_s)
            lows.append(low)
            highs.append(high)
        objective = new("objective", max(lows), max(highs))
    return MilpVariables(
        x=x,
        start=start,
        end=end,
        cont=cont,
        switch=switch,
        first=first,
        keep=keep,
        drop=drop,
        is_mounted=is_mounted,
        is_dismounted=is_dismounted,
        dismount=dismount,
        mount=mount,
        hold_start=hold_start,
        hold_end=hold_end,
        rank=rank,
        lane=lane,
        order=order,
        before=before,
        pair_order=pair_order,
        objective=objective,
        one=new("one", 1.0, 1.0),
    )


def _zero_arc(data: MilpData, u: int, v: int, gap: float) -> bool:
    """Whether the continue arc ``u -> v`` may take no time (``u`` an empty piece, no locate)."""
    node = data.nodes[u]
    return not node.is_initial and node.end_mb == node.offset_mb and gap == 0.0


def zero_arc(data: MilpData, u: int, v: int, d: str) -> bool:
    """Whether the continue arc ``u -> v`` of drive ``d`` may take no time at all.

    Only such arcs can close a cycle of the successor binaries that the
    time ordering does not forbid (every time along it equal).
    """
    gap = data.continue_arcs.get((u, v, d))
    return gap is not None and _zero_arc(data, u, v, gap)


def op_window(data: MilpData, lib: str, i: int) -> tuple[float, float]:
    """Earliest and latest start of arm operation ``i`` of library ``lib``."""
    op = data.ops[lib][i]
    if op.kind == "mount":
        return 0.0, data.latest_mount[op.node]
    return data.earliest_dismount[op.node], data.latest_dismount[op.node]


def arm_pair_needed(data: MilpData, i: int, k: int, lib: str) -> bool:
    """Whether operations ``i`` and ``k`` of ``lib`` need a disjunction.

    Not when they are the mount and the dismount of one node (the dismount
    always follows the node's transfer, which follows the mount), nor when
    their time windows keep them apart whatever the schedule.
    """
    a, b = data.ops[lib][i], data.ops[lib][k]
    if a.node == b.node:
        return False
    a_low, a_high = op_window(data, lib, i)
    b_low, b_high = op_window(data, lib, k)
    return not (a_high + a.duration_s <= b_low or b_high + b.duration_s <= a_low)
