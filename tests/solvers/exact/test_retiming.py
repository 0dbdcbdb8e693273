"""The shared retiming: least times from lower bounds along "at least ``offset`` after" edges."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tapesched.solvers.exact.retiming import EventGraph, PositiveCycle


def test_hand_made_graph_has_its_longest_paths():
    # A drive's stay, in seconds: a mount at 0 readies the first read 25 s later,
    # released at 20 s; the second read follows the first's 40 s transfer and a
    # 5 s locate, released at 30 s; the dismount follows a 20 s unload.
    events = EventGraph[str]()
    events.event("mount")
    events.event("read 1", 20.0)
    events.event("read 2", 30.0)
    events.after("mount", "read 1", 25.0)
    events.after("read 1", "read 2", 45.0)
    events.after("read 2", "dismount", 10.0 + 20.0)
    assert events.earliest() == {"mount": 0.0, "read 1": 25.0, "read 2": 70.0, "dismount": 100.0}


def test_lower_bounds_win_when_later_and_only_rise():
    events = EventGraph[str]()
    events.after("a", "b", 3.0)
    events.event("b", 50.0)
    events.event("b", 10.0)
    events.event("a", 4.0)
    times = events.earliest()
    assert times == {"a": 4.0, "b": 50.0}


def test_the_larger_of_two_offsets_between_the_same_events_binds():
    events = EventGraph[int]()
    events.after(0, 1, 8.0)
    events.after(0, 1, 3.0)
    assert events.earliest()[1] == 8.0


def test_a_cycle_of_zero_offsets_ties_its_events_to_one_time():
    events = EventGraph[str]()
    events.event("a", 3.0)
    events.event("b", 7.0)
    events.after("a", "b", 0.0)
    events.after("b", "a", 0.0)
    events.after("b", "c", 2.0)
    events.after("c", "c", 0.0)
    assert events.earliest() == {"a": 7.0, "b": 7.0, "c": 9.0}


def test_a_cycle_of_negative_length_binds_only_its_positive_edges():
    events = EventGraph[str]()
    events.event("a", 1.0)
    events.after("a", "b", 2.0)
    events.after("b", "a", -3.0)
    assert events.earliest() == {"a": 1.0, "b": 3.0}


@pytest.mark.parametrize(
    "edges",
    [
        [("a", "b", 1.0), ("b", "c", 0.0), ("c", "a", 0.0)],
        [("a", "b", 0.0), ("b", "a", 0.5), ("b", "c", 2.0)],
        [("a", "a", 1e-9)],
    ],
    ids=["three events", "two events and a tail", "one event"],
)
def test_a_cycle_of_positive_length_is_reported(edges):
    events = EventGraph[str]()
    for a, b, offset in edges:
        events.after(a, b, offset)
    with pytest.raises(PositiveCycle, match="cycle of positive length"):
        events.earliest()


@st.composite
def dags(draw: st.DrawFn) -> tuple[list[float], list[tuple[int, int, float]], list[int]]:
    """Lower bounds, edges from a lower to a higher event, and an order to name the events in."""
    count = draw(st.integers(1, 12))
    times = st.sampled_from([0.0, 1.0, 2.5, 10.0]) | st.floats(0, 1e4)
    lower = draw(st.lists(times, min_size=count, max_size=count))
    pairs = st.integers(0, count - 2).flatmap(
        lambda a: st.tuples(st.just(a), st.integers(a + 1, count - 1))
    )
    edges = draw(st.lists(st.tuples(pairs, times), max_size=3 * count)) if count > 1 else []
    order = draw(st.permutations(range(count)))
    return lower, [(a, b, offset) for (a, b), offset in edges], order


@settings(max_examples=300, deadline=None)
@given(dags())
def test_every_time_meets_its_edges_and_is_its_bound_or_tight_on_one(dag):
    lower, edges, order = dag
    events = EventGraph[int]()
    for v in order:
        events.event(v, lower[v])
    for a, b, offset in edges:
        events.after(a, b, offset)
    times = events.earliest()
    assert sorted(times) == list(range(len(lower)))
    for a, b, offset in edges:
        assert times[b] >= times[a] + offset
    for v, time in times.items():
        assert time >= lower[v]
        tight = [a for a, b, offset in edges if b == v and time == times[a] + offset]
        assert time == lower[v] or tight
