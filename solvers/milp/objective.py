"""The three objectives of the core problem over the MILP's request ends.

The model's objective leaves out constants (PuLP's CBC and HiGHS interfaces
do not pass an objective constant to the solver, so the solver's own values,
among them its best bound, never include one): :func:`set_objective`
returns the constant to add to the solver's values to get the instance's.
"""

from __future__ import annotations

import pulp

from solvers.milp.constraints import Problem, add_row
from solvers.milp.data import MilpData
from solvers.milp.variables import Variables


def set_objective(problem: Problem, data: MilpData, var: Variables) -> float:
    """Set the instance's objective on ``problem``; return the constant left out.

    ``weighted-flow`` minimises ``sum w_j C_j`` (the constant is ``-sum w_j
    r_j``); ``makespan`` minimises a variable at least every ``C_j``;
    ``max-weighted-flow`` a variable at least every ``w_j (C_j - r_j)``.
    An instance without requests has the constant objective 0.
    """
    instance = data.instance
    if not instance.requests:
        problem += pulp.LpAffineExpression()
        return 0.0
    if instance.objective == "weighted-flow":
        weighted = {c: float(r.weight) for r, c in zip(instance.requests, var.end, strict=True)}
        problem += pulp.LpAffineExpression(weighted)
        return -sum(float(r.weight * r.release_s) for r in instance.requests)
    top = var.objective
    for j, (request, end) in enumerate(zip(instance.requests, var.end, strict=True)):
        if instance.objective == "makespan":
            add_row(problem, [(top, 1.0), (end, -1.0)], ">=", 0, f"objective_{j}")
        else:
            terms = [(top, 1.0), (end, -float(request.weight))]
            rhs = -float(request.weight * request.release_s)
            add_row(problem, terms, ">=", rhs, f"objective_{j}")
    problem += pulp.LpAffineExpression([(top, 1.0)])
    return 0.0
