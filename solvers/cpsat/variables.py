"""The variables of the CP-SAT model, built in one place.

Names follow ``solvers/exact/formulation.md``: ``on[p, d]`` is its ``x[p,d]``,
``arc[d, a, b]`` a circuit arc of drive ``d`` (``DEPOT`` at either end for
``first`` / ``last``, ``a == b`` for a node absent from the drive),
``switch[d, a, b]`` its ``w`` and ``cont[d, a, b]`` its complement on arcs
between nodes of one tape; ``mounted``, ``dismounted`` are ``mnt`` and
``dis``, ``continued[n]`` says that a continue arc leaves ``n`` and
``kept[n]`` that ``n`` is last on its drive, which keeps the tape. Times are
integer ticks in ``[0, horizon]`` (see :mod:`solvers.cpsat.data`).
"""

from __future__ import annotations

from collections.abc import Callable

from attrs import frozen
from ortools.sat.python import cp_model
from ortools.sat.python.cp_model_helper import Literal

from tapesched.solvers.cpsat.data import DEPOT, CpsatData

Arc = tuple[int, int, int]
"""``(drive, tail node, head node)``; ``DEPOT`` stands for the depot."""


@frozen
class CpsatVariables:
    """Every variable of the model, by the indices of :class:`CpsatData`.

    Attributes
    ----------
    start, end, span
        Per request: transfer start ``S_j`` (at its release at the
        earliest), end ``C_j`` and length ``C_j - S_j``.
    on
        ``(node, drive)``: the node runs on the drive (piece nodes only).
    arc
        Circuit literals of every drive, including self-loops of absent
        nodes and, on a drive empty at time 0, the depot's self-loop (the
        drive does nothing).
    switch, cont
        For an arc between two nodes: a dismount and a mount happen on it
        (``switch``), or the tape stays and the head locates (``cont``,
        only between nodes of one tape).
    mounted, mount
        Per piece node: an arm mounts its tape before it, at ``mount``.
    dismounted, dismount
        Per node: an arm dismounts its tape after it, at ``dismount``.
    continued, kept
        Per node: a continue arc leaves it; it is last and its drive keeps
        the tape. With ``dismounted``, exactly one holds.
    mount_interval, dismount_interval
        The arm operations, optional on ``mounted`` / ``dismounted``.
    hold_start, hold_end, hold
        Per node of a tape with two nodes or more: when it holds its tape in
        its drive (the formulation's hold interval; the holds of one stay
        tile it). A tape of one node conflicts with nothing.
    """

    start: dict[int, cp_model.IntVar]
    end: dict[int, cp_model.IntVar]
    span: dict[int, cp_model.IntVar]
    on: dict[tuple[int, int], cp_model.IntVar]
    arc: dict[Arc, Literal]
    switch: dict[Arc, cp_model.IntVar]
    cont: dict[Arc, cp_model.IntVar]
    mounted: dict[int, cp_model.IntVar]
    mount: dict[int, cp_model.IntVar]
    dismounted: dict[int, cp_model.IntVar]
    dismount: dict[int, cp_model.IntVar]
    continued: dict[int, cp_model.IntVar]
    kept: dict[int, cp_model.IntVar]
    mount_interval: dict[int, cp_model.IntervalVar]
    dismount_interval: dict[int, cp_model.IntervalVar]
    hold_start: dict[int, cp_model.IntVar]
    hold_end: dict[int, cp_model.IntVar]
    hold: dict[int, cp_model.IntervalVar]

    def end_of(self, data: CpsatData, n: int) -> cp_model.LinearExpr | int:
        """The transfer end of node ``n``: its request's ``C_j``; for an initial node,
        when its drive is free (``available_s``, 0 by default)."""
        request = data.nodes[n].request
        if request < 0:
            return data.ticks(data.available_s(data.drives_of_node[n][0]))
        return self.end[request]

    def start_of(self, data: CpsatData, n: int) -> cp_model.LinearExpr | int:
        """The transfer start of node ``n``: its request's ``S_j``, 0 for an initial node."""
        request = data.nodes[n].request
        return 0 if request < 0 else self.start[request]


def build_variables(
    model: cp_model.CpModel,
    data: CpsatData,
    keep: Callable[[int, int, int], bool] | None = None,
) -> CpsatVariables:
    """Create every variable of the model in ``model``.

    Parameters
    ----------
    model
        The model to add the variables to.
    data
        The instance, its nodes and its lengths in ticks.
    keep
        Whether arc ``(drive, a, b)`` between two nodes enters the model
        (:func:`solvers.cpsat.pruning.arc_keeper`); ``None``: every arc
        that :meth:`~solvers.exact.formulation.Formulation.can_follow` allows.
    """
    horizon = data.horizon
    start: dict[int, cp_model.IntVar] = {}
    end: dict[int, cp_model.IntVar] = {}
    span: dict[int, cp_model.IntVar] = {}
    for j, nodes in enumerate(data.request_nodes):
        lengths = [data.transfer_t(n, d) for n in nodes for d in data.drives_of_node[n]]
        shortest = max(min(data.transfer_t(n, d) for d in data.drives_of_node[n]) for n in nodes)
        release = data.release_t(j)
        start[j] = model.new_int_var(release, horizon, f"S[{j}]")
        span[j] = model.new_int_var(shortest, max(lengths), f"T[{j}]")
        end[j] = model.new_int_var(release + shortest, horizon, f"C[{j}]")

    on: dict[tuple[int, int], cp_model.IntVar] = {}
    for node in data.nodes[: data.n_pieces]:
        for d in data.drives_of_node[node.index]:
            on[node.index, d] = model.new_bool_var(f"x[{node.index},{d}]")

    arc: dict[Arc, Literal] = {}
    switch: dict[Arc, cp_model.IntVar] = {}
    cont: dict[Arc, cp_model.IntVar] = {}
    for d, cands in enumerate(data.candidates):
        initial = data.initial_node.get(d)
        if initial is None:
            arc[d, DEPOT, DEPOT] = model.new_bool_var(f"empty[{d}]")
        for a in cands:
            node = data.nodes[a]
            if node.is_initial:
                arc[d, DEPOT, a] = model.new_constant(1)
            else:
                arc[d, a, a] = ~on[a, d]
                if initial is None:
                    arc[d, DEPOT, a] = model.new_bool_var(f"first[{a},{d}]")
            arc[d, a, DEPOT] = model.new_bool_var(f"last[{a},{d}]")
            for b in cands:
                data.deadline.check()
                if not data.can_follow(a, b) or (keep is not None and not keep(d, a, b)):
                    continue
                literal = model.new_bool_var(f"y[{a},{b},{d}]")
                arc[d, a, b] = literal
                if node.tape == data.nodes[b].tape:
                    switch[d, a, b] = model.new_bool_var(f"w[{a},{b},{d}]")
                    cont[d, a, b] = model.new_bool_var(f"c[{a},{b},{d}]")
                else:
                    switch[d, a, b] = literal

    mounted: dict[int, cp_model.IntVar] = {}
    mount: dict[int, cp_model.IntVar] = {}
    mount_interval: dict[int, cp_model.IntervalVar] = {}
    dismounted: dict[int, cp_model.IntVar] = {}
    dismount: dict[int, cp_model.IntVar] = {}
    dismount_interval: dict[int, cp_model.IntervalVar] = {}
    continued: dict[int, cp_model.IntVar] = {}
    kept: dict[int, cp_model.IntVar] = {}
    hold_start: dict[int, cp_model.IntVar] = {}
    hold_end: dict[int, cp_model.IntVar] = {}
    hold: dict[int, cp_model.IntervalVar] = {}
    for node in data.nodes:
        n = node.index
        mount_t = data.mount_t(data.node_library[n])
        dismount_t = data.dismount_t(data.node_library[n])
        if not node.is_initial:
            mounted[n] = model.new_bool_var(f"mnt[{n}]")
            mount[n] = model.new_int_var(0, horizon, f"M[{n}]")
            mount_interval[n] = model.new_optional_fixed_size_interval_var(
                mount[n], mount_t, mounted[n], f"mount[{n}]"
            )
        dismounted[n] = model.new_bool_var(f"dis[{n}]")
        dismount[n] = model.new_int_var(0, max(0, horizon - dismount_t), f"D[{n}]")
        dismount_interval[n] = model.new_optional_fixed_size_interval_var(
            dismount[n], dismount_t, dismounted[n], f"dismount[{n}]"
        )
        continued[n] = model.new_bool_var(f"cont[{n}]")
        kept[n] = model.new_bool_var(f"keep[{n}]")
        if len(data.nodes_of_tape[node.tape]) > 1:
            if node.is_initial:
                hold_start[n] = model.new_constant(0)
            else:
                hold_start[n] = model.new_int_var(0, horizon, f"Hs[{n}]")
            hold_end[n] = model.new_int_var(0, horizon, f"He[{n}]")
            size = model.new_int_var(0, horizon, f"Hl[{n}]")
            hold[n] = model.new_interval_var(hold_start[n], size, hold_end[n], f"hold[{n}]")

    return CpsatVariables(
        start=start,
        end=end,
        span=span,
        on=on,
        arc=arc,
        switch=switch,
        cont=cont,
        mounted=mounted,
        mount=mount,
        dismounted=dismounted,
        dismount=dismount,
        continued=continued,
        kept=kept,
        mount_interval=mount_interval,
        dismount_interval=dismount_interval,
        hold_start=hold_start,
        hold_end=hold_end,
        hold=hold,
    )
