"""CBC and HiGHS through PuLP, each reporting the same :class:`Outcome`.

Both get the same model, the same warm start and the same gap tolerances;
what differs is how each is asked for what PuLP does not return:

- **CBC** (the binary bundled with PuLP, run as :class:`pulp.COIN_CMD` on
  that binary: the ``PULP_CBC_CMD`` wrapper is deprecated in PuLP 3.3).
  PuLP maps a run stopped on time with an incumbent to "Optimal", and
  returns no bound, so the stop reason and the bound are read from CBC's
  log (``logPath``): the ``Result -`` line, then ``Lower bound:`` (a
  stopped search), the ``Objective value:`` of a finished one, or failing
  those the last ``best possible`` of the progress lines. The warm start is
  PuLP's ``warmStart``: every variable's initial value written as a CBC
  MIP start (``-mips``), which CBC checks and keeps as its first incumbent
  ("MIPStart provided solution" in the log); with a time limit, CBC's
  preprocessing is then off (see :func:`run_cbc`). CBC's seeds are
  ``randomCbcSeed`` and ``randomSeed`` (Clp); 0 means "the time of day"
  to CBC, so the seed passed is ``seed + 1``.
- **HiGHS** (highspy, PuLP's :class:`pulp.HiGHS` API solver). PuLP 3.3's
  interface has no warm start, so a subclass hands the initial values to
  ``Highs.setSolution`` just before ``run``; HiGHS checks the solution and
  keeps it as its incumbent. Status and bound come from highspy itself
  (``getModelStatus``, ``getInfo().mip_dual_bound``,
  ``primal_solution_status``), PuLP's own mapping calling a time-limited
  run "Optimal" too. The seed is HiGHS's ``random_seed``.

Both are asked for a relative gap of 1e-9 and an absolute gap of 1e-7
(CBC's and HiGHS's defaults, 0 / 1e-10 and 1e-4 / 1e-6, differ; HiGHS's
1e-4 would call a solution 0.01 % off optimal), so "optimal" means the
same proof to both.
"""

from __future__ import annotations

import os
import re
import tempfile
from typing import Any

import highspy
import pulp
from attrs import frozen

from tapesched.solvers.exact.stoppable import children_stopped, highs_stoppable

REL_GAP = 1e-9
"""Relative gap under which both solvers call an incumbent optimal."""

ABS_GAP = 1e-7
"""Absolute gap under which both solvers call an incumbent optimal."""

_SOLVED = (pulp.LpSolutionOptimal, pulp.LpSolutionIntegerFeasible)


@frozen
class Outcome:
    """How a solver run ended; values are in the instance's objective.

    Attributes
    ----------
    optimal
        The solver proved its incumbent optimal (within the gaps).
    infeasible
        The solver proved the model infeasible.
    time_limit
        The run stopped on its time limit.
    has_solution
        The variables hold the solver's best solution.
    bound
        Best bound on the model's optimum, ``None`` when none was obtained.
    message
        The solver's own words on how it stopped.
    """

    optimal: bool
    infeasible: bool
    time_limit: bool
    has_solution: bool
    bound: float | None
    message: str


def _float(pattern: str, text: str) -> float | None:
    found = re.findall(pattern, text, flags=re.MULTILINE)
    if not found:
        return None
    try:
        return float(found[-1])
    except ValueError:
        return None


def read_cbc_log(text: str, has_solution: bool) -> Outcome:
    """How a CBC run ended and its best bound, from its log.

    The ``Result -`` line gives the reason (``Optimal solution found``,
    ``Problem proven infeasible``, ``Stopped on time limit``, ...), or when
    the root LP is infeasible, ``Problem is infeasible`` alone. The bound
    is ``Lower bound:`` when the log has one (a search stopped on time, or
    within a gap asked for), the ``Objective value:`` when it finished
    otherwise (the gap being closed), else the last ``best possible`` of
    the progress lines, else ``None``.
    """
    result = re.findall(r"^Result - (.*)$", text, flags=re.MULTILINE)
    if not result:
        # An infeasible root LP ends the run before the search and its Result line.
        result = re.findall(r"^(Problem is infeasible)", text, flags=re.MULTILINE)
    message = result[-1].strip() if result else "no result line in the CBC log"
    lowered = message.lower()
    optimal = lowered.startswith("optimal")
    infeasible = "infeasible" in lowered
    time_limit = "time" in lowered and "stopped" in lowered
    number = r"([-+0-9.eE]+|[-+]?inf)"
    # A run stopped within a gap (gapRel) is "Optimal solution found (within gap
    # tolerance)" and prints its Lower bound too: that, not the objective, is its bound.
    within_gap = optimal and "gap" in lowered
    bound = _float(r"^Lower bound:\s+" + number, text) if within_gap or not optimal else None
    if optimal and bound is None:
        bound = _float(r"^Objective value:\s+" + number, text)
    if bound is None and not infeasible:
        bound = _float(r"best possible " + number, text)
    if bound is not None and abs(bound) >= 1e50:
        bound = None
    return Outcome(optimal, infeasible, time_limit, has_solution and not infeasible, bound, message)


def run_cbc(
    problem: Any,
    *,
    time_limit_s: float | None,
    seed: int,
    warm_start: bool,
    rel_gap: float = REL_GAP,
) -> Outcome:
    """Solve ``problem`` with the CBC bundled with PuLP.

    With a MIP start and a time limit, CBC's preprocessing is turned off:
    the bundled CBC 2.10.3 crashes (segmentation fault, losing its
    incumbent and its log) when a time limit stops a run that has both, in
    about half of the short runs tried. Without a time limit CBC keeps its
    preprocessing, and is run again without it if it crashes all the same.
    ``rel_gap``: CBC's ``gapRel``, :data:`REL_GAP` unless a gap is asked for.
    """
    keep_preprocessing = not (warm_start and time_limit_s is not None)
    outcome = _cbc(problem, time_limit_s, seed, warm_start, keep_preprocessing, rel_gap)
    if outcome is None and keep_preprocessing and warm_start:
        outcome = _cbc(problem, time_limit_s, seed, warm_start, False, rel_gap)
    if outcome is None:
        return Outcome(False, False, False, False, None, "CBC crashed")
    return outcome


def _cbc(
    problem: Any,
    time_limit_s: float | None,
    seed: int,
    warm_start: bool,
    preprocess: bool,
    rel_gap: float = REL_GAP,
) -> Outcome | None:
    """One CBC run; ``None`` when CBC fails (its exit status is not 0)."""
    cbc_seed = seed % (2**31 - 2) + 1
    options = [f"randomCbcSeed {cbc_seed}", f"randomSeed {cbc_seed}"]
    if not preprocess:
        options.append("preprocess off")
    with tempfile.TemporaryDirectory(prefix="tapesched-cbc-") as folder:
        log_path = os.path.join(folder, "cbc.log")
        solver = pulp.COIN_CMD(
            path=pulp.PULP_CBC_CMD.pulp_cbc_path,
            msg=False,
            timeLimit=time_limit_s,
            gapRel=rel_gap,
            gapAbs=ABS_GAP,
            warmStart=warm_start,
            logPath=log_path,
            options=options,
        )
        solver.tmpDir = folder  # PuLP's model, start and solution files go with the folder
        try:
            with children_stopped():
                problem.solve(solver)
        except pulp.PulpSolverError:
            return None
        with open(log_path, encoding="utf-8", errors="replace") as log:
            text = log.read()
    return read_cbc_log(text, problem.sol_status in _SOLVED)


class _WarmHiGHS(pulp.HiGHS):  # type: ignore[misc]
    """PuLP's HiGHS API solver, handing the variables' initial values to HiGHS first.

    The run's values are read back only when HiGHS holds a feasible
    solution; status and bound are left to :func:`run_highs`, which reads
    them from highspy (PuLP's mapping has no entry for some statuses).
    """

    def __init__(self, *, warm_start: bool, **options: Any) -> None:
        super().__init__(**options)
        self.warm_start = warm_start

    def callSolver(self, lp: Any) -> None:
        """Set the initial solution, when asked, then run HiGHS (stopped by Ctrl-C)."""
        if self.warm_start:
            columns = sorted(lp.variables(), key=lambda v: v.index)
            solution = highspy.HighsSolution()
            solution.col_value = [float(v.varValue or 0.0) for v in columns]
            solution.value_valid = True
            lp.solverModel.setSolution(solution)
        highs_stoppable(lp.solverModel)

    def actualSolve(self, lp: Any) -> int:
        """Build, run, and copy the solution into the variables when there is one."""
        self.createAndConfigureSolver(lp)
        self.buildSolverModel(lp)
        self.callSolver(lp)
        highs = lp.solverModel
        feasible = (
            highs.getInfo().primal_solution_status == highspy.SolutionStatus.kSolutionStatusFeasible
        )
        if feasible:
            values = list(highs.getSolution().col_value)
            for variable in lp.variables():
                variable.varValue = values[variable.index]
        status = pulp.LpStatusOptimal if feasible else pulp.LpStatusNotSolved
        lp.assignStatus(
            status, pulp.LpSolutionIntegerFeasible if feasible else pulp.LpSolutionNoSolutionFound
        )
        return int(status)


def run_highs(
    problem: Any,
    *,
    time_limit_s: float | None,
    seed: int,
    warm_start: bool,
    rel_gap: float = REL_GAP,
) -> Outcome:
    """Solve ``problem`` with HiGHS through highspy (``rel_gap``: its ``mip_rel_gap``)."""
    solver = _WarmHiGHS(
        warm_start=warm_start,
        msg=False,
        timeLimit=time_limit_s,
        gapRel=rel_gap,
        gapAbs=ABS_GAP,
        random_seed=seed % 2**31,
    )
    problem.solve(solver)
    highs = problem.solverModel
    status = highs.getModelStatus()
    info = highs.getInfo()
    has_solution = info.primal_solution_status == highspy.SolutionStatus.kSolutionStatusFeasible
    states = highspy.HighsModelStatus
    optimal = status == states.kOptimal
    infeasible = status in (states.kInfeasible, states.kUnboundedOrInfeasible)
    bound = float(info.mip_dual_bound)
    usable = bound == bound and abs(bound) < 1e50
    return Outcome(
        optimal,
        infeasible,
        status == states.kTimeLimit,
        has_solution and not infeasible,
        bound if usable and not infeasible else None,
        highs.modelStatusToString(status),
    )
