"""Hypothesis strategies for instances of the core problem.

Import this module to property-test a scheduler of your own: every instance it
draws satisfies the rules of the "Instance file" section of
``docs/core-problem.md``, so whatever your scheduler returns for it can
be held to the validator. For example::

    from hypothesis import given
    from tapesched.toolkit.strategies import instances

    @given(instances(max_gang=(1, 2)))
    def test_my_scheduler_is_feasible(instance):
        schedule = my_scheduler(instance)
        ...  # validate the schedule against the instance

The instances are built by the very code of :mod:`toolkit.generators`, run over
Hypothesis' ``draw`` instead of a seeded generator (:class:`DrawChooser`), so a
failing instance shrinks to a small one: fewer requests, drives and tapes, no
initial tapes, releases, offsets and durations at 0, single-piece requests.
The default bounds are small (a few requests, drives and tapes) so that a
property test runs many examples in a second or two, and they include the
edge cases of the spec: zero durations, zero releases, pieces ending exactly
at a tape's capacity, empty pieces of uneven stripes, gangs as wide as their
library.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, TypeVar

from hypothesis import strategies as st

from tapesched.toolkit.generators import (
    WEIGHT_RULES,
    GeneratedPlatform,
    RandomParams,
    build_instance,
    build_requests,
)
from tapesched.toolkit.model import OBJECTIVES, Instance

T = TypeVar("T")

IntRange = tuple[int, int]
FloatRange = tuple[float, float]


class DrawChooser:
    """A :class:`toolkit.generators.Chooser` answered by Hypothesis' ``draw``.

    Every answer is a draw from a strategy whose bounds are those of the
    question, so Hypothesis explores the boundaries and shrinks towards the
    lower bound, the first element, ``False`` and zero waiting times.
    Probabilities strictly between 0 and 1 are not honoured: both outcomes are
    explored.

    Parameters
    ----------
    draw
        The ``draw`` function of an ``@st.composite`` strategy.
    """

    def __init__(self, draw: st.DrawFn) -> None:
        self._draw = draw

    def integer(self, lo: int, hi: int) -> int:
        """An integer in ``[lo, hi]``."""
        return self._draw(st.integers(lo, hi))

    def real(self, lo: float, hi: float) -> float:
        """A finite number in ``[lo, hi]``."""
        if lo == hi:
            return lo
        return self._draw(st.floats(lo, hi, allow_nan=False, allow_infinity=False))

    def log_uniform(self, lo: float, hi: float) -> float:
        """A number in ``[lo, hi]``, drawn through its logarithm."""
        if lo == hi:
            return lo
        x = math.exp(self._draw(st.floats(math.log(lo), math.log(hi))))
        return min(max(x, lo), hi)

    def choice(self, seq: Sequence[T]) -> T:
        """One element of ``seq``."""
        return self._draw(st.sampled_from(seq))

    def sample(self, seq: Sequence[T], k: int) -> list[T]:
        """``k`` distinct elements of ``seq``."""
        if k == 0:
            return []
        picks = st.lists(st.integers(0, len(seq) - 1), min_size=k, max_size=k, unique=True)
        return [seq[i] for i in self._draw(picks)]

    def exponential(self, rate: float) -> float:
        """An exponential variate of mean ``1 / rate``, by inversion."""
        u = self._draw(st.floats(0.0, 1.0, exclude_max=True))
        return -math.log1p(-u) / rate

    def boolean(self, p: float) -> bool:
        """``False`` at ``p <= 0``, ``True`` at ``p >= 1``, otherwise either."""
        if p <= 0:
            return False
        if p >= 1:
            return True
        return self._draw(st.booleans())


def _check_range(name: str, value: tuple[float, float], least: float) -> None:
    if len(value) != 2 or not least <= value[0] <= value[1]:
        raise ValueError(f"{name}: expected a range (lo, hi) with {least} <= lo <= hi, got {value}")


@st.composite
def random_params(
    draw: st.DrawFn,
    *,
    n_requests: IntRange = (1, 4),
    n_libraries: IntRange = (1, 2),
    drives_per_library: IntRange = (1, 3),
    arms: IntRange = (1, 2),
    max_gang: IntRange = (1, 3),
    tapes_per_library: IntRange = (1, 4),
    capacity_mb: FloatRange = (1000.0, 4000.0),
    size_mb: FloatRange = (1.0, 1000.0),
    initial_fraction: FloatRange = (0.0, 1.0),
    release_horizon_s: FloatRange = (0.0, 100.0),
    mount_s: FloatRange = (0.0, 20.0),
    dismount_s: FloatRange = (0.0, 20.0),
    load_s: FloatRange = (0.0, 20.0),
    unload_s: FloatRange = (0.0, 20.0),
    rate_mb_s: FloatRange = (1.0, 100.0),
    locate_mb_s: FloatRange = (10.0, 1000.0),
    weights: Sequence[str] = WEIGHT_RULES,
    objectives: Sequence[str] = OBJECTIVES,
) -> RandomParams:
    """Parameters of :func:`toolkit.generators.random_instance`, within bounds.

    Every argument is an inclusive range ``(lo, hi)`` or a set of choices; a
    value is drawn for each scalar field of :class:`RandomParams`, and the
    ranges of the per-library and per-drive fields are passed on as they are.
    Releases are uniform over the drawn horizon; the weight rule, objective,
    even or uneven stripes, identical drives and the share of writes vary.

    Parameters
    ----------
    n_requests, n_libraries, tapes_per_library, max_gang
        Ranges of the counts.
    drives_per_library, arms
        Ranges of each library's drives and arms.
    capacity_mb
        Range of the tapes' capacity; its lower bound must be at least the
        upper bound of ``size_mb``, so that every request fits.
    size_mb
        Range of a request's total size (lower bound > 0).
    initial_fraction
        Range of the share of drives holding a tape at time 0.
    release_horizon_s
        Range of the horizon over which releases are drawn.
    mount_s, dismount_s, load_s, unload_s, rate_mb_s, locate_mb_s
        Ranges of the arm and drive parameters (rates > 0).
    weights
        Weight rules to pick from (see ``toolkit.generators.WEIGHT_RULES``).
    objectives
        Objectives to pick from.
    """
    if capacity_mb[0] < size_mb[1]:
        raise ValueError("capacity_mb: lower bound must be >= the upper bound of size_mb")
    for name, value, least in (
        ("n_requests", n_requests, 0),
        ("n_libraries", n_libraries, 1),
        ("max_gang", max_gang, 1),
        ("tapes_per_library", tapes_per_library, 1),
        ("initial_fraction", initial_fraction, 0),
        ("release_horizon_s", release_horizon_s, 0),
    ):
        _check_range(name, value, least)
    choose = DrawChooser(draw)
    return RandomParams(
        n_requests=choose.integer(*n_requests),
        n_libraries=choose.integer(*n_libraries),
        drives_per_library=drives_per_library,
        arms=arms,
        max_gang=choose.integer(*max_gang),
        tapes_per_library=choose.integer(*tapes_per_library),
        capacity_mb=choose.real(*capacity_mb),
        size_mb=size_mb,
        equal_pieces=choose.boolean(0.5),
        initial_fraction=choose.real(*initial_fraction),
        release_horizon_s=choose.real(*release_horizon_s),
        weight=choose.choice(weights),
        write_fraction=0.5,
        mount_s=mount_s,
        dismount_s=dismount_s,
        load_s=load_s,
        unload_s=unload_s,
        rate_mb_s=rate_mb_s,
        locate_mb_s=locate_mb_s,
        homogeneous_drives=choose.boolean(0.5),
        objective=choose.choice(objectives),
    )


@st.composite
def instances_for(draw: st.DrawFn, params: RandomParams, name: str = "hypothesis") -> Instance:
    """Instances drawn from fixed ``params``, as :func:`random_instance` draws them.

    Parameters
    ----------
    params
        Ranges to draw from; prefer small counts, Hypothesis draws every choice.
    name
        Name of every instance.
    """
    return build_instance(params, DrawChooser(draw), name)


@st.composite
def instances(draw: st.DrawFn, *, name: str = "hypothesis", **bounds: Any) -> Instance:
    """Valid instances of the core problem within the given bounds.

    Draws parameters with :func:`random_params` (same arguments, same
    meaning), then an instance from them. Bounds hold per library (drives,
    arms, tapes) and per request (size, width: at most ``max_gang[1]`` pieces
    and never more than its library's drives or tapes); every release lies in
    ``[0, release_horizon_s[1]]``.

    Parameters
    ----------
    name
        Name of every instance.
    **bounds
        Any keyword argument of :func:`random_params`.

    Examples
    --------
    Offline single-library instances without gangs::

        instances(n_libraries=(1, 1), max_gang=(1, 1), release_horizon_s=(0, 0))
    """
    params = draw(random_params(**bounds))
    return build_instance(params, DrawChooser(draw), name)


@st.composite
def requests_for(
    draw: st.DrawFn, instance: Instance, params: RandomParams | None = None
) -> Instance:
    """``instance`` with its requests replaced by a fresh workload on the same platform.

    Useful to test a scheduler against many workloads of one fixed library
    layout (for example a :func:`toolkit.golubchik_instances.golubchik_instance`).

    Parameters
    ----------
    instance
        GeneratedPlatform to keep: libraries, drives, tapes and initial tapes.
    params
        Workload fields to draw from (requests, width, sizes, releases,
        weights); a few small requests over 100 s when not given. Sizes must
        fit the platform's smallest tape.
    """
    if params is None:
        smallest = min((t.capacity_mb for t in instance.tapes), default=1.0)
        params = RandomParams(
            n_requests=3,
            max_gang=3,
            capacity_mb=smallest,
            size_mb=(min(1.0, smallest), smallest),
            release_horizon_s=100.0,
            write_fraction=0.5,
        )
    platform = GeneratedPlatform(
        instance.libraries, instance.drives, instance.tapes, instance.initial
    )
    return Instance(
        name=instance.name,
        libraries=instance.libraries,
        drives=instance.drives,
        tapes=instance.tapes,
        initial=instance.initial,
        requests=build_requests(params, DrawChooser(draw), platform),
        objective=instance.objective,
    )


__all__ = ["DrawChooser", "instances", "instances_for", "random_params", "requests_for"]
