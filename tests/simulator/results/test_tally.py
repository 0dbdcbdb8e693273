"""The accumulators a run keeps instead of its finished requests: exactly what the lists gave."""

from __future__ import annotations

import math
import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tapesched.simulator.results import tally
from tapesched.simulator.results.tally import ExactSum, OrderStatistics

# Latencies as runs give them: many ties (0 s hits, whole seconds), some fractions.
VALUES = st.lists(
    st.one_of(
        st.just(0.0),
        st.integers(0, 200).map(float),
        st.floats(0.0, 1e7, allow_nan=False, allow_infinity=False),
    ),
    min_size=1,
    max_size=300,
)


def _quantile(values: list[float], q: float) -> float:
    """The quantile the replay's statistics always took: linear between ranks of the list."""
    ordered = sorted(values)
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


@given(VALUES)
def test_an_exact_sum_gives_fmean_to_the_last_bit(values: list[float]) -> None:
    total = ExactSum(values)
    assert total.count == len(values)
    assert total.mean() == statistics.fmean(values)
    assert total.value == math.fsum(values)


@settings(max_examples=60, deadline=None)
@given(VALUES, st.sampled_from([1, 7, 10**6]))
def test_order_statistics_on_disk_or_in_memory_are_those_of_the_sorted_list(
    values: list[float], spill_after: int
) -> None:
    with OrderStatistics(spill_after=spill_after) as found:
        for value in values:
            found.add(value)
        assert found.count == len(values)
        assert found.max == max(values)
        assert found.mean() == statistics.fmean(values)
        for q in (0.0, 0.5, 0.95, 1.0):
            assert found.quantile(q) == _quantile(values, q)


def test_a_value_is_found_by_narrowing_histograms_over_the_file(monkeypatch) -> None:
    # Small chunks and few bins force the narrowing passes a long run's file needs.
    monkeypatch.setattr(tally, "CHUNK", 8)
    monkeypatch.setattr(tally, "BINS", 3)
    values = [float(k % 17) for k in range(500)] + [0.5 + k * 1e-9 for k in range(40)]
    with OrderStatistics(spill_after=16) as found:
        for value in values:
            found.add(value)
        ordered = sorted(values)
        for rank in (0, 1, 37, 250, 538, 539):
            assert found.value_at(rank) == ordered[rank]
        with pytest.raises(ValueError, match="rank 540 of 540"):
            found.value_at(540)


@pytest.mark.parametrize(
    ("q", "message"), [(1.5, "within \\[0, 1\\]"), (-0.1, "within \\[0, 1\\]")]
)
def test_a_quantile_outside_zero_and_one_is_refused(q: float, message: str) -> None:
    found = OrderStatistics()
    found.add(1.0)
    with pytest.raises(ValueError, match=message):
        found.quantile(q)


def test_no_value_has_no_quantile() -> None:
    with pytest.raises(ValueError, match="no value"):
        OrderStatistics().quantile(0.5)


@settings(max_examples=60, deadline=None)
@given(VALUES, st.integers(1, 9))
def test_an_exact_sum_folded_every_few_values_stays_exact(values, every) -> None:
    # Folding the buffer into its partial sums every few values, and every value added at
    # once, leave the sum and mean fsum and fmean give.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tally, "COMPACT_AFTER", every)
        total = ExactSum(values)
        assert (total.value, total.mean()) == (math.fsum(values), statistics.fmean(values))
    at_once = ExactSum()
    at_once.add_all(values)
    assert (at_once.count, at_once.value) == (len(values), math.fsum(values))


def test_a_sum_of_values_that_cancel_is_exact() -> None:
    values = [1e308, 1.0, -1e308, 1e-300, 3.0, -1e-300] * 50
    total = ExactSum()
    for value in values:
        total.add(value)
    total.add_all(values)
    assert total.value == 8.0 * 50 and total.count == 600
