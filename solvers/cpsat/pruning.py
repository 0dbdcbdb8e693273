"""Arcs that no solution as good as the hint can use: left out of the CP-SAT model.

With a hint (a feasible schedule, read as a solution of the model), every
solution of the model at least as good ends each request ``j`` by a cap
``cap_j`` (:func:`solvers.cpsat.objective.end_caps`). An arc ``a -> b`` of
drive ``d`` (``b`` right after ``a``) forces, in every solution that uses
it (the redundant precedence of :func:`solvers.cpsat.constraints.add_redundant`
and the switch timing, each length rounded up to ticks as the model has it):

    C(b) >= lower_end(a, d) + gap(a, b, d) + max(shortest(k), transfer(b, d))

where ``k`` is ``b``'s request, ``lower_end(a, d)`` the least transfer end
of ``a`` on ``d`` (its request's :func:`~solvers.cpsat.constraints.earliest_start`
or release, whichever is later, plus the longer of ``a``'s transfer on ``d``
and its request's shortest length; for an initial node, when ``d`` is
free), and ``gap`` the least time between two consecutive nodes on ``d``:
the locate when both read one tape, else (or when shorter) unload,
dismount, mount, load and locate. When that least end exceeds ``cap_k``,
every solution using the arc is worse than the hint, so no optimal
solution uses it, and the arc is left out (with its ``switch`` and
``cont`` literals and every constraint on them).

Soundness: the model's optimum is at most the hint's value, so it meets
every cap and uses none of the arcs left out; the hint itself meets the
caps (each cap is taken no lower than the hint's own end). The rule gives
twin drives (equal timings) and twin requests (same release, weight and
pieces) the same arcs, so the symmetry breaking keeps an optimal solution.
The proof is ``solvers/exact/formulation.md``'s "What stays out of the model".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tapesched.solvers.cpsat.constraints import earliest_start
from tapesched.solvers.cpsat.data import CpsatData

__all__ = ["arc_keeper"]


def arc_keeper(data: CpsatData, caps: Sequence[int]) -> Callable[[int, int, int], bool]:
    """Whether arc ``(d, a, b)`` may be in a solution whose request ends meet ``caps``.

    Parameters
    ----------
    data
        The model's data (lengths in ticks).
    caps
        Latest end (ticks) of each request, in request order.
    """
    shortest = [
        max(min(data.transfer_t(n, d) for d in data.drives_of_node[n]) for n in nodes)
        for nodes in data.request_nodes
    ]
    least_start = [
        max([data.release_t(j), *(earliest_start(data, n) for n in nodes)])
        for j, nodes in enumerate(data.request_nodes)
    ]
    lower_end: dict[tuple[int, int], int] = {}
    latest_start: dict[tuple[int, int], int] = {}
    switch_in: dict[tuple[int, int], int] = {}
    for node in data.nodes:
        n = node.index
        for d in data.drives_of_node[n]:
            if node.is_initial:
                lower_end[n, d] = data.ticks(data.available_s(d))
                continue
            j = node.request
            length = max(shortest[j], data.transfer_t(n, d))
            lower_end[n, d] = least_start[j] + length
            latest_start[n, d] = caps[j] - length
            lib = data.drive_library[d]
            switch_in[n, d] = data.unload_t(d) + data.dismount_t(lib) + data.ready_t(n, d)

    def keep(d: int, a: int, b: int) -> bool:
        gap = switch_in[b, d]
        if data.nodes[a].tape == data.nodes[b].tape:
            gap = min(gap, data.locate_t(a, b, d))
        return lower_end[a, d] + gap <= latest_start[b, d]

    return keep
