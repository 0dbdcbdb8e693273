"""Reading a CP-SAT solution back into a :class:`solvers.exact.plan.Plan`.

The solver's values give the decisions (each drive's circuit, which nodes
are dismounted, the order of the arm operations and of each tape's stays);
:func:`~solvers.cpsat.decisions.earliest` then times them with the exact
lengths in seconds. The plan's times are thus never later than the model's
(the model's lengths are rounded up) and exact: no rounding reaches the
schedule, which is why an instance whose data are not whole ticks still gets
its optimum to the validator's precision when the rounded model orders things
as the instance's optimum does.
"""

from __future__ import annotations

from collections import defaultdict

from ortools.sat.python import cp_model

from tapesched.solvers.cpsat.data import DEPOT, CpsatData
from tapesched.solvers.cpsat.decisions import CpsatDecisions, Op, assign_lanes, earliest, to_plan
from tapesched.solvers.cpsat.variables import CpsatVariables
from tapesched.solvers.exact.plan import Plan


def read_decisions(solver: cp_model.CpSolver, data: CpsatData, v: CpsatVariables) -> CpsatDecisions:
    """The decisions of the solver's best solution.

    Each drive's sequence follows its circuit from the depot. Arm operations
    of positive length are split into lanes by their model times, which
    respect the arm capacity; each tape's stays are ordered by the model's
    hold starts, which do not overlap (a tape without holds has one node,
    hence one stay).
    """
    successor: dict[tuple[int, int], int] = {}
    for (d, a, b), literal in v.arc.items():
        if a != b and solver.boolean_value(literal):
            successor[d, a] = b
    sequences = []
    for d in range(len(data.drives)):
        seq = []
        node = successor.get((d, DEPOT), DEPOT)
        while node != DEPOT:
            seq.append(node)
            node = successor[d, node]
        sequences.append(tuple(seq))
    dismounted = frozenset(n for n, lit in v.dismounted.items() if solver.boolean_value(lit))

    ops: list[tuple[float, float, Op, int]] = []
    for n, present in v.mounted.items():
        lib = data.node_library[n]
        if solver.boolean_value(present) and data.mount_t(lib) > 0:
            begin = solver.value(v.mount[n])
            ops.append((begin, begin + data.mount_t(lib), ("mount", n), lib))
    for n in dismounted:
        lib = data.node_library[n]
        if data.dismount_t(lib) > 0:
            begin = solver.value(v.dismount[n])
            ops.append((begin, begin + data.dismount_t(lib), ("dismount", n), lib))
    arm_free = [
        tuple(float(data.ticks(t)) for t in data.arm_free_s(lib))
        for lib in range(len(data.libraries))
    ]
    lanes = assign_lanes(ops, arm_free)
    if lanes is None:
        raise RuntimeError("the CP-SAT solution breaks the arm capacity")

    begins: dict[str, list[tuple[int, int, int]]] = defaultdict(list)
    for order in sequences:
        for k, n in enumerate(order):
            if k == 0 or order[k - 1] in dismounted:
                head = data.nodes[n]
                begin = solver.value(v.hold_start[n]) if n in v.hold else 0
                begins[head.tape].append((begin, not head.is_initial, n))
    orders = {tape: tuple(n for *_, n in sorted(b)) for tape, b in begins.items()}
    return CpsatDecisions(tuple(sequences), dismounted, lanes, orders)


def read_plan(solver: cp_model.CpSolver, data: CpsatData, v: CpsatVariables) -> Plan:
    """The solver's best solution as a plan, re-timed with exact lengths."""
    decisions = read_decisions(solver, data, v)
    return to_plan(data, decisions, earliest(data, decisions, exact=True))
