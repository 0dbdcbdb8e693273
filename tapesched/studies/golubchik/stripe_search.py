"""Choosing a stripe width per request class: the full search, equi-striping, the pruning bounds.

Golubchik, Muntz and Watson (1994, Section 5) simulate every width vector
``(w_1, ..., w_J)``, ``1 <= w_j <= K``: ``K ** J`` of them. The best depends
on the load, and they note that giving every class the same width
(*equi-striping*, ``K`` vectors) comes close. :func:`select` does both for a
class mix and an arrival rate, with the simulator as judge (an
:class:`Evaluate` runs a batch of vectors and gives each its mean response
and 95 % half-width, or saturated):

1. equi-striping first: every ``(w, ..., w)`` not ruled out by a bound;
   its best is the incumbent;
2. then every other vector, in increasing order of its response bound,
   in batches (so that a sweep's workers stay busy), skipping those a
   bound shows cannot win:

   - *saturates*: the rate is at or above the vector's occupancy limit,
     the arrival rate its drives or arms could serve were they never idle
     (:func:`occupancy_limit_per_s`);
   - *slower*: its response bound, which no run can beat
     (:func:`response_bound_s`), is above the upper end of the incumbent's
     95 % interval.

Both bounds are valid for the simulator's model, not approximations: a
request's response cannot end before its last tape is mounted (one arm
mounts them one after the other), loaded and searched, and its share
transferred; and a drive is held from its tape's mount to its eject. The
paper's closed forms (:mod:`simulator.planning.striping_model`) are reported beside
as the fast first answer, not used to prune: they charge drive time for
waiting on the arm, which a run need not pay.

On the simulator, :func:`library_times` and :func:`mix_of` read a scenario
with request classes (``workload.request_classes``), and
:class:`SweepEvaluate` runs each batch as one sweep of
:mod:`tapesched.studies.sweeps.sweep` at the rate (on its workers, with its cache and
replications to a precision), every vector with the same seeds: the
vectors compared serve the same requests. The metric is the mean response
time (:data:`METRIC`), the paper's.

The gap between the best equi-striped vector and the best one is their
ratio less one, with a 95 % half-width by the delta method from the two
intervals (independent replications).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from concurrent.futures import Executor
from typing import Protocol

from attrs import evolve, frozen

from tapesched.simulator.planning.striping_model import (
    LibraryTimes,
    no_load_best_width,
    vector_no_load_response_s,
    vector_stability_limit_per_s,
)
from tapesched.simulator.results.replications import override
from tapesched.simulator.scenario.spec import Scenario
from tapesched.studies.sweeps.sweep import Cache, Point, Precision, run_sweep

Widths = tuple[int, ...]
"""A stripe width per request class."""


def label(widths: Sequence[int]) -> str:
    """The paper's name of a vector: ``"122"`` (widths joined by ``-`` when one has two digits)."""
    parts = [str(w) for w in widths]
    return ("" if all(len(p) == 1 for p in parts) else "-").join(parts)


@frozen
class Measured:
    """What the simulator gives a vector: mean response and 95 % half-width, ``None`` if saturated.

    Attributes
    ----------
    mean_s
        Mean response time over the replications (``None``: saturated).
    half_width_s
        Half-width of its 95 % interval (``None`` with one replication or
        saturated).
    replications
        Replications run.
    """

    mean_s: float | None
    half_width_s: float | None
    replications: int

    @property
    def upper_s(self) -> float:
        """The upper end of the interval (the mean without one; infinite when saturated)."""
        if self.mean_s is None:
            return math.inf
        return self.mean_s + (self.half_width_s or 0.0)


class Evaluate(Protocol):
    """Runs a batch of width vectors and measures each (in the batch's order)."""

    def __call__(self, batch: Sequence[Widths]) -> Sequence[Measured]:
        """One :class:`Measured` per vector of ``batch``."""
        ...


@frozen
class Mix:
    """The request classes: their sizes and probabilities."""

    sizes_mb: tuple[float, ...]
    shares: tuple[float, ...]

    def __attrs_post_init__(self) -> None:
        if not len(self.sizes_mb) == len(self.shares) >= 1:
            raise ValueError("one share per class size, and at least one class")
        if any(s <= 0 for s in self.sizes_mb):
            raise ValueError(f"class sizes are > 0, got {self.sizes_mb!r}")
        if any(p < 0 for p in self.shares) or not math.isclose(sum(self.shares), 1.0):
            raise ValueError(f"class shares are >= 0 and sum to 1, got {self.shares!r}")

    def __len__(self) -> int:
        return len(self.sizes_mb)


def response_bound_s(times: LibraryTimes, mix: Mix, widths: Sequence[int]) -> float:
    """A lower bound of the mean response under ``widths``, at any load.

    Class ``j``'s request waits for ``ceil(w_j / arms)`` mounts by one arm,
    then its last drive's load, then a ``1 / w_j`` share of the transfer:
    ``sum_j p_j (ceil(w_j / A) m + l + T_j / w_j)`` (the search, which may be
    short for a file near the tape's start, is left out) (with random
    times, the expected last of several phases is at least the last one's
    expectation, so the bound holds on means).
    """
    return sum(
        p * (math.ceil(w / times.arms) * times.mount_s + times.load_s
             + times.transfer_s(s) / w)
        for s, p, w in zip(mix.sizes_mb, mix.shares, widths, strict=True)
    )  # fmt: skip


def occupancy_limit_per_s(times: LibraryTimes, mix: Mix, widths: Sequence[int]) -> float:
    """The arrival rate above which ``widths`` must saturate: drives and arms never idle.

    A class-``j`` request holds each of its ``w_j`` drives from its tape's
    mount to its eject, ``w_j (m + l + re) + T_j`` drive-seconds (the search
    left out), and the
    arms ``w_j (m + d)``: the rate is at most ``K`` over the first mean and
    the arms' count over the second.
    """
    per_tape = times.mount_s + times.load_s + times.rewind_eject_s
    drive_time = sum(
        p * (w * per_tape + times.transfer_s(s))
        for s, p, w in zip(mix.sizes_mb, mix.shares, widths, strict=True)
    )
    arm_time = sum(p * w * times.arm_s for p, w in zip(mix.shares, widths, strict=True))
    limits = [math.inf]
    if drive_time > 0:
        limits.append(times.drives / drive_time)
    if arm_time > 0:
        limits.append(times.arms / arm_time)
    return min(limits)


@frozen
class Candidate:
    """A width vector, its bounds and the paper's closed forms, and how it fared.

    Attributes
    ----------
    widths
        The vector.
    response_bound_s, occupancy_limit_per_s
        :func:`response_bound_s` and :func:`occupancy_limit_per_s`.
    no_load_response_s, stability_limit_per_s
        The paper's closed forms (:mod:`simulator.planning.striping_model`).
    measured
        The simulator's answer (``None``: not run).
    pruned
        Why it was not run (``"saturates"`` or ``"slower"``; ``None``: run).
    """

    widths: Widths
    response_bound_s: float
    occupancy_limit_per_s: float
    no_load_response_s: float
    stability_limit_per_s: float
    measured: Measured | None = None
    pruned: str | None = None

    @property
    def label(self) -> str:
        """The paper's name: ``"122"``."""
        return label(self.widths)

    @property
    def equi(self) -> bool:
        """Whether every class has the same width."""
        return len(set(self.widths)) == 1


@frozen
class Selection:
    """What :func:`select` found at one rate.

    Attributes
    ----------
    rate_per_s
        The arrival rate.
    candidates
        Every vector, in the order considered (equi-striped ones first).
    best, best_equi
        The vector of least mean response among all those run, and among
        the equi-striped ones (``None``: every one run saturated).
    closed_form_no_load, closed_form_heavy_load
        The paper's fast answers: each class's width minimising ``L S + T /
        S``, and the vector with the highest stability limit.
    """

    rate_per_s: float
    candidates: tuple[Candidate, ...]
    best: Candidate | None
    best_equi: Candidate | None
    closed_form_no_load: Widths
    closed_form_heavy_load: Widths

    @property
    def evaluated(self) -> int:
        """Vectors run on the simulator."""
        return sum(c.measured is not None for c in self.candidates)

    @property
    def pruned(self) -> int:
        """Vectors a bound ruled out."""
        return sum(c.pruned is not None for c in self.candidates)

    @property
    def gap(self) -> tuple[float, float | None] | None:
        """Best equi-striped mean over the best mean, less one, and its 95 % half-width.

        ``None`` when either is missing. The half-width is ``None`` when an
        interval is.
        """
        if self.best is None or self.best_equi is None:
            return None
        best, equi = self.best.measured, self.best_equi.measured
        assert best is not None and equi is not None
        assert best.mean_s is not None and equi.mean_s is not None
        ratio = equi.mean_s / best.mean_s
        if best.half_width_s is None or equi.half_width_s is None:
            return ratio - 1.0, None
        spread = math.hypot(best.half_width_s / best.mean_s, equi.half_width_s / equi.mean_s)
        return ratio - 1.0, ratio * spread


def _candidate(times: LibraryTimes, mix: Mix, widths: Widths) -> Candidate:
    return Candidate(
        widths=widths,
        response_bound_s=response_bound_s(times, mix, widths),
        occupancy_limit_per_s=occupancy_limit_per_s(times, mix, widths),
        no_load_response_s=vector_no_load_response_s(times, mix.sizes_mb, mix.shares, widths),
        stability_limit_per_s=vector_stability_limit_per_s(times, mix.sizes_mb, mix.shares, widths),
    )


def _upper(c: Candidate | None) -> float:
    """The upper end of ``c``'s interval (infinite when there is no incumbent)."""
    return math.inf if c is None or c.measured is None else c.measured.upper_s


def _better(a: Candidate, b: Candidate | None) -> bool:
    """Whether ``a`` measured a lower mean than ``b`` (ties: the narrower vector first)."""
    assert a.measured is not None
    if a.measured.mean_s is None:
        return False
    if b is None:
        return True
    assert b.measured is not None and b.measured.mean_s is not None
    key_a = (a.measured.mean_s, sum(a.widths), a.widths)
    key_b = (b.measured.mean_s, sum(b.widths), b.widths)
    return key_a < key_b


def select(
    times: LibraryTimes,
    mix: Mix,
    rate_per_s: float,
    evaluate: Evaluate,
    *,
    batch: int = 4,
    equi_only: bool = False,
) -> Selection:
    """Search the width vectors of ``mix`` at ``rate_per_s`` (see the module docstring).

    Parameters
    ----------
    times
        The library, for the bounds and the closed forms.
    mix
        The request classes.
    rate_per_s
        The arrival rate.
    evaluate
        Runs a batch of vectors on the simulator.
    batch
        Vectors handed to ``evaluate`` at once (the workers of a sweep).
    equi_only
        Stop after equi-striping (``K`` vectors instead of ``K ** J``).
    """
    if batch < 1:
        raise ValueError(f"batch must be >= 1, got {batch!r}")
    widths = times.widths()
    equi = [_candidate(times, mix, (w,) * len(mix)) for w in widths]
    others = sorted(
        (
            _candidate(times, mix, v)
            for v in itertools.product(widths, repeat=len(mix))
            if len(set(v)) > 1
        ),
        key=lambda c: (c.response_bound_s, c.widths),
    )
    done: list[Candidate] = []
    best: Candidate | None = None
    best_equi: Candidate | None = None

    def run(queue: list[Candidate]) -> None:
        nonlocal best, best_equi
        while queue:
            chosen: list[Candidate] = []
            while queue and len(chosen) < batch:
                c = queue.pop(0)
                incumbent = _upper(best)
                if rate_per_s >= c.occupancy_limit_per_s:
                    done.append(evolve(c, pruned="saturates"))
                elif c.response_bound_s > incumbent:
                    done.append(evolve(c, pruned="slower"))
                else:
                    chosen.append(c)
            if not chosen:
                continue
            results = evaluate([c.widths for c in chosen])
            if len(results) != len(chosen):
                raise ValueError(f"evaluate gave {len(results)} results for {len(chosen)} vectors")
            for c, m in zip(chosen, results, strict=True):
                ran = evolve(c, measured=m)
                done.append(ran)
                if _better(ran, best):
                    best = ran
                if ran.equi and _better(ran, best_equi):
                    best_equi = ran

    run(equi)
    if not equi_only:
        run(others)
    heavy = max(
        (tuple(v) for v in itertools.product(widths, repeat=len(mix))),
        key=lambda v: (
            vector_stability_limit_per_s(times, mix.sizes_mb, mix.shares, v),
            [-w for w in v],
        ),
    )
    return Selection(
        rate_per_s=rate_per_s,
        candidates=tuple(done),
        best=best,
        best_equi=best_equi,
        closed_form_no_load=tuple(no_load_best_width(times, s) for s in mix.sizes_mb),
        closed_form_heavy_load=heavy,
    )


METRIC = "mean_response_s"
"""The metric the search minimises: Golubchik et al.'s mean response time."""


def library_times(scenario: Scenario) -> LibraryTimes:
    """The simple model's times of ``scenario``'s library: the means of its random times.

    The transfer rate is the drive's native rate times the workload's
    highest data compression ratio (a compressed file streams faster), so
    that the bounds stay valid; the search is half a tape at the locate
    rate, for the closed forms only.

    Raises
    ------
    ValueError
        For a platform of several libraries or drive models (the model has one
        of each).
    """
    platform = scenario.platform
    if len(platform.libraries) != 1:
        raise ValueError("the striping model has one library; the scenario has several")
    models = {d.model for d in platform.drives}
    if len(models) != 1:
        raise ValueError("the striping model has one kind of drive; the scenario has several")
    (library,) = platform.libraries
    (model,) = models
    return LibraryTimes(
        load_s=model.load_s.mean_s,
        rewind_eject_s=model.unload_s.mean_s,
        mount_s=library.mount_s.mean_s,
        dismount_s=library.dismount_s.mean_s,
        rate_mb_s=model.rate_mb_s * scenario.workload.data_ratio[1],
        drives=len(platform.drives),
        arms=library.arms,
        search_s=0.5 * platform.tape_capacity_mb / model.locate_mb_s,
    )


def mix_of(scenario: Scenario) -> Mix:
    """The request classes of ``scenario`` (``ValueError`` when it has none)."""
    classes = scenario.workload.classes
    if not classes:
        raise ValueError("the scenario has no request classes (workload.request_classes)")
    return Mix(tuple(c.size_mb for c in classes), tuple(c.share for c in classes))


class SweepEvaluate:
    """Runs a batch of vectors as one sweep of ``scenario`` at ``rate_per_s``.

    Parameters
    ----------
    scenario
        A scenario with request classes; its widths are replaced.
    rate_per_s
        The arrival rate (the sweep's x, so every vector has the same seeds).
    pool, precision, seed, cache
        As :func:`tapesched.studies.sweeps.sweep.run_sweep` takes them; the precision's
        metric should be :data:`METRIC`.
    """

    def __init__(
        self,
        scenario: Scenario,
        rate_per_s: float,
        *,
        pool: Executor,
        precision: Precision,
        seed: int,
        cache: Cache | None = None,
    ) -> None:
        self.base = override(scenario, rate_per_s=rate_per_s)
        self.rate_per_s = rate_per_s
        self.pool = pool
        self.precision = precision
        self.seed = seed
        self.cache = cache
        self.replications = 0

    def __call__(self, batch: Sequence[Widths]) -> list[Measured]:
        """The mean response time and its interval of each vector of ``batch``."""
        points = [Point(label(w), self.rate_per_s, override(self.base, striping=w)) for w in batch]
        outcome = run_sweep(
            points, seed=self.seed, precision=self.precision, pool=self.pool, cache=self.cache
        )
        self.replications += outcome.simulated + outcome.cached
        measured = []
        for result in outcome.results:
            estimate = result.estimates[METRIC]
            mean = None if result.saturated else estimate.mean
            measured.append(Measured(mean, estimate.half_width if mean is not None else None,
                                     len(result.runs)))  # fmt: skip
        return measured
