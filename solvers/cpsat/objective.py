"""The three objectives of the core problem in the CP-SAT model, and their values in seconds.

CP-SAT minimises an integer expression, so the objective is scaled:

- ``weighted-flow``: ``sum W_j C_j`` with ``W_j`` the weight times a power of
  ten ``K`` that makes every weight whole when one up to ``10**6`` does (then
  exact), otherwise rounded weights with at least four significant digits.
  The constant ``sum w_j r_j`` is subtracted in seconds.
- ``makespan``: ``max C_j``, exact.
- ``max-weighted-flow``: ``max W_j (C_j - r_j)``, the release in ticks
  rounded down when it is not whole.

:class:`Scaled` converts the model's values and bounds back to seconds. The
bound of the rounded model is that of the instance when the model is exact
(:attr:`CpsatData.exact` and whole weights); otherwise :meth:`Scaled.bound_s`
subtracts what rounding can have added: a chain of ``k`` precedences gains
less than ``k`` ticks (each length is rounded up once, and the release at its
head too), and a chain enters each of the ``n_events`` events at most once,
so every ``C_j`` of the instance's optimal decisions, re-timed with rounded
lengths, is later by less than ``(n_events + 1)`` ticks.
"""

from __future__ import annotations

import math

from attrs import frozen
from ortools.sat.python import cp_model

from tapesched.solvers.cpsat.data import TOLERANCE, CpsatData, is_multiple
from tapesched.solvers.cpsat.variables import CpsatVariables

_LARGEST = 2**60
"""Largest objective value the scaling may produce (CP-SAT works in int64)."""


@frozen
class Scaled:
    """How the model's objective relates to the instance's, in seconds.

    Attributes
    ----------
    name
        The instance's objective.
    scale
        ``K``: model weights are the instance's times ``K``.
    weights
        ``W_j``, the integer weights of the model.
    offset_s
        Subtracted from the scaled value: ``sum w_j r_j`` for the weighted flow.
    exact
        Whether a model value in seconds equals the instance's objective.
    slack_s
        How much the model's optimum may exceed the instance's (0 when exact).
    target
        The variable holding the maximum, for the two max objectives.
    """

    name: str
    scale: int
    weights: tuple[int, ...]
    offset_s: float
    exact: bool
    slack_s: float
    target: cp_model.IntVar | None

    def value_s(self, value: float, tick: float) -> float:
        """A model objective value (or bound) in seconds."""
        if self.name == "makespan":
            return value * tick
        return value * tick / self.scale - self.offset_s

    def bound_s(self, value: float, tick: float) -> float:
        """A proven lower bound of the instance's optimum from the model's bound ``value``.

        The model's bound in seconds when the model is exact, lowered by
        :attr:`slack_s` otherwise; never below 0 (no objective is negative).
        """
        return max(0.0, self.value_s(value, tick) - self.slack_s)


def _weight_scale(weights: list[float], horizon: int) -> tuple[int, bool]:
    """``K`` and whether every ``w_j K`` is whole.

    The smallest power of ten up to ``10**6`` that makes every weight whole;
    failing that, one making the smallest weight at least ``10**4`` (four
    significant digits) yet keeping ``sum W_j * horizon`` within int64.
    """
    if not weights:
        return 1, True
    for k in range(7):
        scale = 10**k
        if all(is_multiple(w * scale, 1.0) for w in weights):
            if max(weights) * scale * horizon * len(weights) < _LARGEST:
                return scale, True
            break
    scale = 10 ** max(0, math.ceil(math.log10(1e4 / min(weights))))
    while scale > 1 and max(weights) * scale * horizon * len(weights) >= _LARGEST:
        scale //= 10
    return scale, False


def _maximum(
    model: cp_model.CpModel, target: cp_model.IntVar, terms: list[cp_model.LinearExprT]
) -> None:
    """``target == max(terms)``, 0 without terms (an instance without requests)."""
    if terms:
        model.add_max_equality(target, terms)
    else:
        model.add(target == 0)


@frozen
class Weights:
    """The model's integer weights: ``W_j``, the scale ``K``, and whether they are exact."""

    scale: int
    weights: tuple[int, ...]
    whole: bool

    @classmethod
    def of(cls, data: CpsatData) -> Weights:
        """The weights of ``data.instance`` (see :func:`_weight_scale`)."""
        weights_s = [float(r.weight) for r in data.instance.requests]
        scale, whole = _weight_scale(weights_s, data.chain_horizon)
        return cls(scale, tuple(round(w * scale) for w in weights_s), whole)


def _scaled_releases(data: CpsatData, weights: Weights) -> list[int]:
    """``W_j r_j`` in ticks: exact for a whole number of ticks, else rounded down."""
    out = []
    for j, w in enumerate(weights.weights):
        release = data.release_s(j)
        if is_multiple(release, data.tick):
            out.append(w * round(release / data.tick))
        else:
            out.append(math.floor(w * release / data.tick))
    return out


def objective_cap(data: CpsatData, ends: list[int]) -> int:
    """The latest request end, in ticks, of any solution at least as good as ``ends``.

    The largest of :func:`end_caps`; 1 without requests.
    """
    return max(end_caps(data, ends), default=1)


def end_caps(data: CpsatData, ends: list[int]) -> list[int]:
    """Per request, the latest end (ticks) of any solution at least as good as ``ends``.

    ``ends`` are the request ends (ticks) of a solution of the model. Under
    ``makespan`` no end passes the largest; under the weighted objectives
    ``W_j C_j`` is at most the known value less what the other requests
    must contribute at least (their release plus their shortest transfer:
    the lower bounds of their ``C`` variables). A request of weight 0 is
    capped by the uncapped horizon only.
    """
    name = data.instance.objective
    if not ends:
        return []
    if name == "makespan":
        return [max(ends)] * len(ends)
    weights = Weights.of(data).weights
    least = [
        data.release_t(j)
        + max(min(data.transfer_t(n, d) for d in data.drives_of_node[n]) for n in nodes)
        for j, nodes in enumerate(data.request_nodes)
    ]
    if name == "weighted-flow":
        known = sum(w * c for w, c in zip(weights, ends, strict=True))
        floor = sum(w * c for w, c in zip(weights, least, strict=True))
        return [
            (known - floor + w * c) // w if w > 0 else data.chain_horizon
            for w, c in zip(weights, least, strict=True)
        ]
    releases = _scaled_releases(data, Weights.of(data))
    known = max(w * c - r for w, c, r in zip(weights, ends, releases, strict=True))
    return [
        (known + r) // w if w > 0 else data.chain_horizon
        for w, r in zip(weights, releases, strict=True)
    ]


def set_objective(model: cp_model.CpModel, data: CpsatData, v: CpsatVariables) -> Scaled:
    """Minimise the instance's objective, scaled to integers; return how to read it back.

    The slack of an inexact model is measured over the uncapped horizon
    (:attr:`CpsatData.chain_horizon`): the instance's optimal decisions,
    re-timed with the model's lengths, may end later than a cap derived
    from a hint.
    """
    instance = data.instance
    name = instance.objective
    tick = data.tick
    horizon = data.horizon
    longest = data.chain_horizon
    requests = instance.requests
    weights_s = [float(r.weight) for r in requests]
    releases = [float(r.release_s) for r in requests]
    chain_s = (data.n_events + 1) * tick * (1 + TOLERANCE * longest)
    if name == "makespan":
        target = model.new_int_var(0, horizon, "Cmax")
        _maximum(model, target, [v.end[j] for j in range(len(requests))])
        model.minimize(target)
        return Scaled(name, 1, (), 0.0, data.exact, 0.0 if data.exact else chain_s, target)

    model_weights = Weights.of(data)
    scale, weights = model_weights.scale, model_weights.weights
    exact = data.exact and model_weights.whole
    weight_error_s = 0.0 if model_weights.whole else longest * tick / (2 * scale)
    if name == "weighted-flow":
        ends = [v.end[j] for j in range(len(requests))]
        model.minimize(cp_model.LinearExpr.weighted_sum(ends, list(weights)))
        offset = sum(w * r for w, r in zip(weights_s, releases, strict=True))
        slack = sum(w * chain_s for w in weights_s) + len(requests) * weight_error_s
        return Scaled(name, scale, weights, offset, exact, 0.0 if exact else slack, None)
    if name != "max-weighted-flow":
        raise ValueError(f"unknown objective {name!r}")
    scaled_releases = _scaled_releases(data, model_weights)
    flows: list[cp_model.LinearExprT] = [
        w * v.end[j] - r for j, (w, r) in enumerate(zip(weights, scaled_releases, strict=True))
    ]
    target = model.new_int_var(0, max(weights, default=0) * horizon, "Fmax")
    _maximum(model, target, flows)
    model.minimize(target)
    slack = max(weights_s, default=0.0) * chain_s + weight_error_s + tick / scale
    return Scaled(name, scale, weights, 0.0, exact, 0.0 if exact else slack, target)
