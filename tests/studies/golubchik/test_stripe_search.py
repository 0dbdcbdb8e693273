"""The stripe-width search: pruning loses nothing, equi-striping, the gap, batches, bad input.

The simulator is replaced here by a queue-like stand-in that honours both
bounds (its mean is the response bound inflated by ``1 / (1 - rho)``, rho
the rate over the paper's stability limit, which is below the occupancy
limit; saturated at 1), so that what pruning may skip is known; the search
on the simulator itself is tested with the Golubchik experiments.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tapesched.simulator.planning.striping_model import LibraryTimes, vector_stability_limit_per_s
from tapesched.studies.golubchik.stripe_search import (
    Measured,
    Mix,
    label,
    occupancy_limit_per_s,
    response_bound_s,
    select,
)
from tests.simulator.planning.test_striping_model import AMPEX, GB

SMALL = Mix((1 * GB, 2 * GB, 3 * GB), (1 / 3, 1 / 3, 1 / 3))


class QueueLike:
    """A stand-in simulator: bound / (1 - rho), saturated at rho >= 1; counts its batches.

    rho is the rate over the paper's limit, which charges a gang for
    waiting on the arm and so is below the occupancy limit.
    """

    def __init__(self, times: LibraryTimes, mix: Mix, rate_per_s: float, spread: float = 0.02):
        self.times, self.mix, self.rate, self.spread = times, mix, rate_per_s, spread
        self.batches: list[list[tuple[int, ...]]] = []

    def mean(self, widths):
        limit = vector_stability_limit_per_s(self.times, self.mix.sizes_mb, self.mix.shares, widths)
        assert limit <= occupancy_limit_per_s(self.times, self.mix, widths) * (1 + 1e-9)
        rho = self.rate / limit
        if rho >= 1:
            return None
        return response_bound_s(self.times, self.mix, widths) / (1 - rho)

    def __call__(self, batch):
        self.batches.append(list(batch))
        out = []
        for widths in batch:
            m = self.mean(widths)
            out.append(Measured(m, None if m is None else self.spread * m, 3))
        return out


def exhaustive_best(fake: QueueLike):
    means = {v: fake.mean(v) for v in itertools.product(fake.times.widths(), repeat=len(fake.mix))}
    finite = {v: m for v, m in means.items() if m is not None}
    return min(finite, key=lambda v: (finite[v], sum(v), v)) if finite else None


def test_labels_are_the_papers():
    assert label((1, 2, 2)) == "122" and label((4, 4, 4)) == "444" and label((1, 12)) == "1-12"


def test_pruning_skips_vectors_and_the_full_search_runs_more_than_equi_striping():
    rate = 0.05 / 60
    full = select(AMPEX, SMALL, rate, QueueLike(AMPEX, SMALL, rate))
    equi = select(AMPEX, SMALL, rate, QueueLike(AMPEX, SMALL, rate), equi_only=True)
    assert len(full.candidates) == 4**3 and full.evaluated + full.pruned == 64
    assert full.pruned > 0 and {c.pruned for c in full.candidates} >= {"slower"}
    assert equi.evaluated <= 4 and all(c.equi for c in equi.candidates)
    assert equi.best == equi.best_equi and full.best_equi == equi.best_equi


def test_the_gap_is_the_ratio_less_one_with_its_delta_method_interval():
    rate = 0.2 / 60
    got = select(AMPEX, SMALL, rate, QueueLike(AMPEX, SMALL, rate))
    assert got.best is not None and got.best_equi is not None
    best, equi = got.best.measured, got.best_equi.measured
    gap, half = got.gap
    assert gap == pytest.approx(equi.mean_s / best.mean_s - 1) and gap >= 0
    assert half == pytest.approx((gap + 1) * 0.02 * 2**0.5)


def test_batches_never_exceed_the_size_asked():
    rate = 0.1 / 60
    fake = QueueLike(AMPEX, SMALL, rate)
    select(AMPEX, SMALL, rate, fake, batch=3)
    assert fake.batches and all(1 <= len(b) <= 3 for b in fake.batches)


def test_when_every_vector_saturates_there_is_no_best_and_no_gap():
    rate = 10.0
    got = select(AMPEX, SMALL, rate, QueueLike(AMPEX, SMALL, rate))
    assert got.best is None and got.best_equi is None and got.gap is None
    assert got.evaluated == 0 and {c.pruned for c in got.candidates} == {"saturates"}


def test_the_closed_forms_are_reported_beside():
    got = select(AMPEX, SMALL, 0.1 / 60, QueueLike(AMPEX, SMALL, 0.1 / 60))
    assert got.closed_form_no_load == (2, 3, 3)
    assert got.closed_form_heavy_load == (1, 1, 1)


@pytest.mark.parametrize(
    "build",
    [
        lambda: Mix((GB,), (0.5,)),
        lambda: Mix((GB, GB), (1.0,)),
        lambda: Mix((0.0,), (1.0,)),
        lambda: select(AMPEX, SMALL, 0.1, QueueLike(AMPEX, SMALL, 0.1), batch=0),
        lambda: select(AMPEX, SMALL, 1e-4, lambda batch: []),
    ],
)
def test_bad_values_are_refused(build):
    with pytest.raises(ValueError):
        build()


mixes = st.lists(st.floats(10, 20_000), min_size=1, max_size=3).map(
    lambda sizes: Mix(tuple(sizes), tuple(1 / len(sizes) for _ in sizes))
)


@settings(max_examples=40, deadline=None)
@given(mixes, st.integers(1, 4), st.integers(1, 2), st.floats(1e-5, 2e-2))
def test_pruning_never_loses_the_best_vector(mix, drives, arms, rate):
    times = LibraryTimes(33, 14, 10, 10, 12.5, drives, arms=arms)
    fake = QueueLike(times, mix, rate, spread=0.0)
    got = select(times, mix, rate, fake, batch=2)
    want = exhaustive_best(fake)
    assert (None if got.best is None else got.best.widths) == want
