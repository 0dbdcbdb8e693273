"""The three objectives of the core problem, as pure functions of request ends."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from tapesched.toolkit.model import Instance, Request


def flows(requests: Iterable[Request], ends: Mapping[str, float]) -> list[tuple[Request, float]]:
    """Each request with its flow time ``C_j - r_j`` (requests without an end are left out)."""
    return [(r, ends[r.id] - r.release_s) for r in requests if r.id in ends]


def objective_value(
    instance: Instance, ends: Mapping[str, float], name: str | None = None
) -> float:
    """Value of objective ``name`` (default: the instance's) for the given request ends.

    Parameters
    ----------
    instance
        The instance whose releases and weights define the objective.
    ends
        ``C_j`` by request id.
    name
        ``weighted-flow`` (sum of ``w_j (C_j - r_j)``), ``makespan`` (max ``C_j``)
        or ``max-weighted-flow`` (max ``w_j (C_j - r_j)``).
    """
    return objective_of(instance.requests, ends, name or instance.objective)


def objective_of(requests: Iterable[Request], ends: Mapping[str, float], name: str) -> float:
    """Value of objective ``name`` over ``requests`` alone (those without an end are left out).

    What :func:`objective_value` computes for a whole instance, for a part of
    one too (the requests of one library, say, when a bound sums over
    libraries).
    """
    if name == "weighted-flow":
        return float(sum(r.weight * f for r, f in flows(requests, ends)))
    if name == "makespan":
        return float(max((ends[r.id] for r in requests if r.id in ends), default=0.0))
    if name == "max-weighted-flow":
        return float(max((r.weight * f for r, f in flows(requests, ends)), default=0.0))
    raise ValueError(f"unknown objective {name!r}")
