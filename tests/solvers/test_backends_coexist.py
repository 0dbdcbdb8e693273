"""OR-Tools and HiGHS solve in one process, whichever is imported first.

highspy 1.15.1 and OR-Tools 9.15 clash on HiGHS symbols; the pinned pair must
not. Each order runs in a fresh interpreter, since import order is the point.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

SOLVE_BOTH = """
import sys
if sys.argv[1] == "ortools-first":
    from ortools.sat.python import cp_model
    import pulp
else:
    import highspy
    import pulp
    from ortools.sat.python import cp_model
model = cp_model.CpModel()
x, y = model.new_int_var(0, 10, "x"), model.new_int_var(0, 10, "y")
model.add(x + y >= 7)
model.minimize(3 * x + 2 * y)
solver = cp_model.CpSolver()
assert solver.solve(model) == cp_model.OPTIMAL
problem = pulp.LpProblem("t", pulp.LpMinimize)
a = pulp.LpVariable("a", 0, 10, cat="Integer")
b = pulp.LpVariable("b", 0, 10, cat="Integer")
problem += 3 * a + 2 * b
problem += a + b >= 7
problem.solve(pulp.HiGHS(msg=False))
print(solver.objective_value, pulp.value(problem.objective))
"""


@pytest.mark.parametrize("order", ["ortools-first", "highs-first"])
def test_cpsat_and_highs_solve_in_one_process(order):
    done = subprocess.run(
        [sys.executable, "-c", SOLVE_BOTH, order], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout.split() == ["14.0", "14.0"]
