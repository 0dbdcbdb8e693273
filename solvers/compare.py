"""Run several solvers on several instances and set each result against the best known.

This is what a tape site asks: how far is the scheduling it runs (an online
heuristic) from the best possible? For each instance the yardstick is the
proven optimum when some exact solver proved one; otherwise the best lower
bound known (the largest of the solvers' bounds and :func:`solvers.bounds.bounds.lower_bound`),
in which case the ratio printed is an upper bound on the true ratio to the
optimum. Every schedule is judged by the validator, and the objective shown is
the validator's, whatever the solver reported.

By default the yardstick is that of the contract, which lets a tape be
mounted before its requests arrive: no online heuristic can do that, so its
ratio also counts what knowing the future is worth. ``prefetch=False``
(``tapesched compare --no-prefetch``) measures against the non-anticipative
problem instead (``docs/core-problem.md``): the exact solvers solve it, the
bound is ``lower_bound(..., prefetch=False)`` and every schedule is judged
under it; a solver that may prefetch is refused (:func:`solvers.takes_prefetch`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, Literal

from attrs import asdict, evolve, frozen

from tapesched.solvers import solve, takes_gap, takes_prefetch
from tapesched.solvers.bounds.bounds import lower_bound
from tapesched.solvers.exact.formulation import UnmodelledState
from tapesched.toolkit.model import Instance
from tapesched.toolkit.validator import validate

Yardstick = Literal["optimum", "bound"]

PROVABLE_UP_TO = 16
"""Most requests of an instance that CP-SAT is expected to prove in a minute or so.

Beyond it ``lns`` is the offline yardstick: ``tapesched compare`` adds it to
the exact solvers asked for, and the online-vs-offline windows solve with it
too. Measured on the Ampex-like scenario (``ampex-window.json``, first three
windows, both yardsticks, 10 s per solver, 2026-11-24, docs/benchmarks.md): CP-SAT proves
6 of 6 yardsticks of windows of 8 requests, 4 of 6 of 12, 5 of 6 of 16 and
none of 24, where ``lns`` finds a better schedule on 4 of 6 (up to 3 %) and
never on the smaller windows.
"""

EXACT = ("cpsat", "milp-cbc", "milp-highs")
"""The exact solvers: asking for one asks for the best offline schedule."""

NOT_MODELLED = "not-modelled"
"""The status of a row whose solver does not model the instance's starting state."""


@frozen
class ComparisonRow:
    """One solver on one instance.

    ``ratio`` is ``objective / optimum`` when ``yardstick`` is ``"optimum"``,
    and ``objective / best bound`` (an upper bound on the true ratio) when it
    is ``"bound"``; ``None`` without a feasible schedule or a positive yardstick.
    ``prefetch`` says which problem the yardstick is of: the contract's
    (prefetch allowed) or the non-anticipative one (``False``), under which
    the schedule was also judged. ``reason`` is the result's
    (:attr:`solvers.result.Result.reason`: for ``not-built``, the limit met).
    """

    instance: str
    solver: str
    status: str
    feasible: bool
    objective: float | None
    bound: float | None
    runtime_s: float
    reference: float | None
    yardstick: Yardstick | None
    ratio: float | None
    prefetch: bool = True
    reason: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The row as a flat JSON-friendly dict."""
        return asdict(self)


def _run(
    label: str,
    instance: Instance,
    solver: str,
    time_limit_s: float | None,
    seed: int,
    prefetch: bool,
    gap: float | None = None,
) -> ComparisonRow:
    """The row of one run, its schedule judged by the validator (under ``prefetch``);
    no yardstick yet.

    A solver that does not model the instance's starting state or its
    serpentine locate (format 2) gives a row of status ``not-modelled``
    with no schedule and no bound, rather than ending the comparison of
    the others.
    """
    try:
        result = solve(
            instance,
            solver,
            time_limit_s=time_limit_s,
            seed=seed,
            prefetch=prefetch,
            gap=gap if takes_gap(solver) else None,
        )
    except UnmodelledState:
        return ComparisonRow(
            label, solver, NOT_MODELLED, False, None, None, 0.0, None, None, None, prefetch
        )
    feasible, objective = False, None
    if result.schedule is not None:
        report = validate(instance, result.schedule, prefetch=prefetch)
        feasible = report.feasible
        objective = report.objective if feasible else None
    return ComparisonRow(
        label,
        solver,
        result.status.value,
        feasible,
        objective,
        result.bound,
        result.runtime_s,
        None,
        None,
        None,
        prefetch,
        result.reason,
    )


def _yardstick(
    instance: Instance, runs: list[ComparisonRow], prefetch: bool
) -> tuple[float | None, Yardstick | None]:
    optima = [r.objective for r in runs if r.status == "optimal" and r.objective is not None]
    if optima:
        return min(optima), "optimum"
    bounds = [r.bound for r in runs if r.bound is not None and math.isfinite(r.bound)]
    bounds.append(lower_bound(instance, prefetch=prefetch))
    return max(bounds), "bound"


def solvers_for(
    instance: Instance, solvers: Sequence[str], lns_above: int | None
) -> tuple[str, ...]:
    """The solvers run on ``instance``: ``solvers``, and ``lns`` after them when the
    instance has more than ``lns_above`` requests (too many to prove), an exact
    solver is among ``solvers`` (the user asks for the offline yardstick) and
    ``lns`` is not; ``lns_above`` ``None`` adds nothing."""
    names = tuple(solvers)
    if (
        lns_above is not None
        and len(instance.requests) > lns_above
        and "lns" not in names
        and any(name in EXACT for name in names)
    ):
        names += ("lns",)
    return names


def compare(
    instances: Sequence[tuple[str, Instance]],
    solvers: Sequence[str],
    *,
    time_limit_s: float | None = None,
    seed: int = 0,
    on_run: Callable[[str, str], None] | None = None,
    lns_above: int | None = None,
    prefetch: bool = True,
    gap: float | None = None,
) -> list[ComparisonRow]:
    """Every solver on every instance, each result against the instance's yardstick.

    Parameters
    ----------
    instances
        ``(label, instance)`` pairs; the label names the instance in the rows
        (a file name, say).
    solvers
        Registered solver names or online schedulers of one's own
        (``module.path:Attr`` or an entry point's name; see
        :func:`solvers.plugins.find_solver`), run in this order.
    time_limit_s, seed
        Passed to every solver.
    on_run
        Called with ``(label, solver)`` after each run (for a progress bar).
    lns_above
        On an instance of more requests than this, ``lns`` also runs when an
        exact solver is asked for and ``lns`` is not (:func:`solvers_for`;
        ``tapesched compare`` passes :data:`PROVABLE_UP_TO`);
        ``None``: only ``solvers``.
    prefetch
        ``False``: every yardstick is of the non-anticipative problem (the
        exact solvers solve it, the bound is ``lower_bound(...,
        prefetch=False)``) and every schedule is judged under it.
    gap
        The relative optimality gap at which each solver that takes one
        stops (:func:`solvers.solve`); the others run as they are.

    Returns
    -------
    list of ComparisonRow
        One row per instance and solver, instances in the given order.

    Raises
    ------
    ValueError
        When ``prefetch`` is false and a solver may prefetch with no option
        not to (``local-search``), before anything runs.
    """
    if not prefetch:
        for solver in solvers:
            if not takes_prefetch(solver):
                raise ValueError(f"solver {solver!r} may prefetch and has no option not to")
    rows: list[ComparisonRow] = []
    for label, instance in instances:
        runs = []
        for solver in solvers_for(instance, solvers, lns_above):
            runs.append(_run(label, instance, solver, time_limit_s, seed, prefetch, gap))
            if on_run is not None:
                on_run(label, solver)
        reference, yardstick = _yardstick(instance, runs, prefetch)
        for run in runs:
            ratio = None
            if run.objective is not None and reference is not None and reference > 0:
                ratio = run.objective / reference
            rows.append(evolve(run, reference=reference, yardstick=yardstick, ratio=ratio))
    return rows
