"""The arm timeline finds the earliest gap over its lanes, as a plain scan would."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tapesched.solvers.timeline.arms import NO_LANE, ArmTimeline


def scan_earliest(lanes: list[list[tuple[float, float]]], at: float, duration: float) -> tuple:
    """Reference: in each lane, walk the busy intervals in order from ``at``."""
    best: tuple[float, int] | None = None
    for lane, busy in enumerate(lanes):
        t = at
        for start, end in sorted(busy):
            if end <= t:
                continue
            if start >= t + duration:
                break
            t = end
        if best is None or t < best[0]:
            best = (t, lane)
    assert best is not None
    return best


def test_one_arm_queues_operations_back_to_back():
    arms = ArmTimeline(1, (10.0, 8.0))
    assert arms.earliest(0.0, 10.0) == (0.0, 0)
    arms.reserve(0.0, 10.0, 0)
    assert arms.earliest(0.0, 8.0) == (10.0, 0)
    arms.reserve(10.0, 8.0, 0)
    assert arms.earliest(5.0, 10.0) == (18.0, 0)
    assert arms.busy() == [(0.0, 18.0)]


def test_a_gap_is_used_only_when_long_enough():
    arms = ArmTimeline(1, (10.0,))
    arms.reserve(0.0, 10.0, 0)
    arms.reserve(15.0, 10.0, 0)
    assert arms.earliest(0.0, 5.0) == (10.0, 0)
    assert arms.earliest(0.0, 10.0) == (25.0, 0)
    assert arms.earliest(12.0, 3.0) == (12.0, 0)


def test_second_arm_takes_what_overlaps_the_first():
    arms = ArmTimeline(2, (10.0,))
    arms.reserve(0.0, 10.0, 0)
    assert arms.earliest(0.0, 10.0) == (0.0, 1)
    arms.reserve(0.0, 10.0, 1)
    assert arms.earliest(0.0, 10.0) == (10.0, 0)


def test_zero_length_takes_no_arm():
    arms = ArmTimeline(1, (0.0,))
    arms.reserve(0.0, 10.0, 0)
    assert arms.earliest(3.0, 0.0) == (3.0, NO_LANE)
    arms.reserve(3.0, 0.0, NO_LANE)
    assert arms.busy() == [(0.0, 10.0)]


def test_half_open_intervals_touch():
    arms = ArmTimeline(1)
    arms.reserve(0.0, 10.0, 0)
    assert arms.earliest(10.0, 4.0) == (10.0, 0)


def test_reserving_a_busy_stretch_is_refused():
    arms = ArmTimeline(1)
    arms.reserve(0.0, 10.0, 0)
    with pytest.raises(ValueError, match="not free"):
        arms.reserve(5.0, 10.0, 0)


def test_release_undoes_reserve():
    arms = ArmTimeline(1, (4.0,))
    arms.reserve(0.0, 4.0, 0)
    arms.reserve(4.0, 4.0, 0)
    arms.reserve(8.0, 4.0, 0)
    arms.release(4.0, 4.0, 0)
    assert arms.earliest(0.0, 4.0) == (4.0, 0)
    arms.release(0.0, 4.0, 0)
    arms.release(8.0, 4.0, 0)
    assert arms.busy() == []
    with pytest.raises(ValueError, match="not busy"):
        arms.release(0.0, 4.0, 0)


def test_a_single_arm_is_required():
    with pytest.raises(ValueError, match="at least one arm"):
        ArmTimeline(0)


steps = st.lists(
    st.tuples(
        st.sampled_from([0.0, 1.0, 2.5, 7.0, 13.0]) | st.floats(0, 60),
        st.sampled_from([0.0, 1.0, 2.5, 4.0]),
        st.booleans(),
    ),
    max_size=60,
)


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 4),
    st.lists(st.sampled_from([0.0, 1.0, 2.5]), max_size=2),
    steps,
    st.randoms(use_true_random=False),
)
def test_earliest_matches_a_scan_of_the_lanes(arms, indexed, steps, rnd):
    timeline = ArmTimeline(arms, indexed)
    lanes: list[list[tuple[float, float]]] = [[] for _ in range(arms)]
    durations: dict[tuple[int, float], float] = {}
    for at, duration, undo in steps:
        start, lane = timeline.earliest(at, duration)
        if duration == 0:
            assert (start, lane) == (at, NO_LANE)
            continue
        assert (start, lane) == scan_earliest(lanes, at, duration)
        timeline.reserve(start, duration, lane)
        lanes[lane].append((start, start + duration))
        durations[lane, start] = duration
        if undo:
            busy = [i for i in range(arms) if lanes[i]]
            lane = rnd.choice(busy)
            start, _ = lanes[lane].pop(rnd.randrange(len(lanes[lane])))
            timeline.release(start, durations.pop((lane, start)), lane)
    for busy in lanes:
        ordered = sorted(busy)
        assert all(a[1] <= b[0] for a, b in pairwise(ordered))
