"""The three objectives of the core problem over the MILP's request ends.

The solver's objective is the instance's own, constant included: PuLP's CBC
and HiGHS interfaces pass no objective constant to the solver, so the
constant ``-sum w_j r_j`` of the weighted flow sits on a column fixed to 1
(``MilpVariables.one``). The solvers' incumbents and bounds are then the
instance's values, and their relative gap is relative to the flow itself,
not to ``sum w_j C_j``, which the releases can make thousands of times
larger.
"""

from __future__ import annotations

import pulp

from tapesched.solvers.milp.constraints import Problem, add_row
from tapesched.solvers.milp.data import MilpData
from tapesched.solvers.milp.variables import MilpVariables


def set_objective(problem: Problem, data: MilpData, var: MilpVariables) -> None:
    """Set the instance's objective on ``problem``.

    ``weighted-flow`` minimises ``sum w_j C_j - (sum w_j r_j) * one``;
    ``makespan`` minimises a variable at least every ``C_j``;
    ``max-weighted-flow`` a variable at least every ``w_j (C_j - r_j)``.
    An instance without requests has the constant objective 0.
    """
    instance = data.instance
    if not instance.requests:
        problem += pulp.LpAffineExpression()
        return
    if instance.objective == "weighted-flow":
        weighted = {c: float(r.weight) for r, c in zip(instance.requests, var.end, strict=True)}
        weighted[var.one] = -sum(float(r.weight * r.release_s) for r in instance.requests)
        problem += pulp.LpAffineExpression(weighted)
        return
    top = var.objective
    for j, (request, end) in enumerate(zip(instance.requests, var.end, strict=True)):
        if instance.objective == "makespan":
            add_row(problem, [(top, 1.0), (end, -1.0)], ">=", 0, f"objective_{j}")
        else:
            terms = [(top, 1.0), (end, -float(request.weight))]
            rhs = -float(request.weight * request.release_s)
            add_row(problem, terms, ">=", rhs, f"objective_{j}")
    problem += pulp.LpAffineExpression([(top, 1.0)])
