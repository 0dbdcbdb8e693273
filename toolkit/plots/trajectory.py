"""A solver's trajectory, read from the result ``tapesched solve --json`` writes, and its figure.

The result's ``trajectory`` is a list of points ``{"time_s", "objective",
"bound"}``: the incumbent and the best bound known each time either
changed. The figure draws both against time, as steps (each value holds
until the next point), so that a user sees how fast a solver improves and
how much of the gap is left. Reading checks every point and reports each
problem at its JSON path (``trajectory[2].objective``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from attrs import frozen

from tapesched.toolkit.errors import InputError, Problem, capped
from tapesched.toolkit.files.json_documents import read_json
from tapesched.toolkit.plots.figures import new_figure
from tapesched.toolkit.runtime.limits import MAX_NAME_CHARS

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@frozen
class TrajectoryPoint:
    """One point: seconds since the run began, the incumbent, the bound (or ``None``)."""

    time_s: float
    objective: float
    bound: float | None


@frozen
class Trajectory:
    """The trajectory of one run and what it names: solver, instance, status, runtime."""

    solver: str
    instance: str
    status: str
    points: tuple[TrajectoryPoint, ...]
    runtime_s: float | None = None


def _number(value: Any) -> float | None:
    """``value`` as a finite float, or ``None`` when it is not a finite number."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def read_trajectory(document: Any, source: str) -> Trajectory:
    """The trajectory of a result document (the JSON of ``tapesched solve --json``).

    Raises
    ------
    InputError
        One problem per bad value: not an object, no ``trajectory`` list, an
        empty one, a point that is not an object, a time, objective or bound
        that is not a finite number (the bound may be null), times that go
        back, a solver, instance or status name longer than
        :data:`~toolkit.runtime.limits.MAX_NAME_CHARS`.
    """
    if not isinstance(document, dict):
        raise InputError(source, [Problem("", "must be an object (tapesched solve --json)")])
    raw = document.get("trajectory")
    if not isinstance(raw, list):
        raise InputError(source, [Problem("trajectory", "must be a list of points")])
    if not raw:
        raise InputError(source, [Problem("trajectory", "is empty: nothing to draw")])
    problems: list[Problem] = []
    points: list[TrajectoryPoint] = []
    for i, point in enumerate(raw):
        where = f"trajectory[{i}]"
        if not isinstance(point, dict):
            problems.append(Problem(where, "must be an object"))
            continue
        time_s, objective = _number(point.get("time_s")), _number(point.get("objective"))
        bound = point.get("bound")
        if time_s is None or time_s < 0:
            problems.append(Problem(f"{where}.time_s", "must be a number of seconds >= 0"))
        if objective is None:
            problems.append(Problem(f"{where}.objective", "must be a finite number"))
        if bound is not None and _number(bound) is None:
            problems.append(Problem(f"{where}.bound", "must be a finite number or null"))
        if time_s is None or objective is None or (bound is not None and _number(bound) is None):
            continue
        if points and time_s < points[-1].time_s:
            problems.append(Problem(f"{where}.time_s", "goes back in time"))
            continue
        points.append(TrajectoryPoint(time_s, objective, _number(bound)))
    names = {key: str(document.get(key, "?")) for key in ("solver", "instance", "status")}
    for key, name in names.items():
        if len(name) > MAX_NAME_CHARS:
            why = f"{len(name):,} characters, longer than the {MAX_NAME_CHARS:,} of a name"
            problems.append(Problem(key, why))
    if problems:
        raise InputError(source, capped(problems))
    return Trajectory(
        names["solver"],
        names["instance"],
        names["status"],
        tuple(points),
        _number(document.get("runtime_s")),
    )


def load_trajectory(path: str) -> Trajectory:
    """The trajectory in the result file at ``path`` (:func:`read_trajectory`)."""
    return read_trajectory(read_json(path), path)


def _steps(
    times: Sequence[float], values: Sequence[float], end_s: float
) -> tuple[list[float], list[float]]:
    """The corners of a step line holding each value until the next time, then to ``end_s``."""
    xs: list[float] = []
    ys: list[float] = []
    for k, (t, value) in enumerate(zip(times, values, strict=True)):
        following = times[k + 1] if k + 1 < len(times) else end_s
        xs += [t, following]
        ys += [value, value]
    return xs, ys


def trajectory_figure(trajectory: Trajectory) -> Figure:
    """The incumbent and the bound against time, as steps; a log scale when they span decades.

    The lines end at the run's runtime (the last point's time when it has
    none or it is earlier).
    """
    points = trajectory.points
    times = [p.time_s for p in points]
    end = max(times[-1], trajectory.runtime_s or 0.0)
    if end <= times[0]:
        end = times[0] + 1.0
    figure = new_figure(7.0, 4.0)
    axes = figure.add_subplot()
    xs, ys = _steps(times, [p.objective for p in points], end)
    axes.plot(xs, ys, color="tab:blue", label="incumbent")
    axes.plot(times, [p.objective for p in points], "o", color="tab:blue", markersize=3)
    bounded = [p for p in points if p.bound is not None]
    if bounded:
        bs, bv = _steps([p.time_s for p in bounded], [float(p.bound or 0.0) for p in bounded], end)
        axes.plot(bs, bv, color="tab:red", linestyle="--", label="bound")
    values = [p.objective for p in points] + [p.bound for p in bounded if p.bound]
    positive = [v for v in values if v > 0]
    if positive and len(positive) == len(values) and max(positive) / min(positive) > 20:
        axes.set_yscale("log")
    last = points[-1]
    gap = ""
    if last.bound is not None and last.objective > 0:
        gap = f", gap {100 * max(0.0, (last.objective - last.bound) / last.objective):.1f} %"
    axes.set_title(
        f"{trajectory.solver} on {trajectory.instance}: {trajectory.status}, "
        f"{last.objective:.6g}{gap}",
        fontsize=9,
    )
    axes.set_xlabel("time (s)")
    axes.set_ylabel("objective")
    axes.legend(loc="best", fontsize=8)
    axes.grid(True, alpha=0.3)
    return figure
