"""The event engine: order, cancellation, clock, stopping, bad times, determinism."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tapesched.simulator.kernel.engine import Engine, event_time_s


def test_events_run_in_time_order_and_ties_in_scheduling_order():
    engine = Engine()
    seen: list[str] = []
    engine.at(2.0, seen.append, "late")
    engine.at(1.0, seen.append, "first at 1")
    engine.at(1.0, seen.append, "second at 1")
    engine.after(0.5, seen.append, "early")
    assert engine.run() == 4
    assert seen == ["early", "first at 1", "second at 1", "late"]
    assert engine.now_s == 2.0
    assert engine.events_run == 4


def test_an_event_scheduled_now_runs_after_those_already_due_now():
    engine = Engine()
    seen: list[str] = []

    def first() -> None:
        seen.append("first")
        engine.after(0.0, seen.append, "scheduled by first")

    engine.at(1.0, first)
    engine.at(1.0, seen.append, "second")
    engine.run()
    assert seen == ["first", "second", "scheduled by first"]


def test_a_cancelled_event_never_runs():
    engine = Engine()
    seen: list[int] = []
    doomed = engine.at(1.0, seen.append, 1)
    engine.at(2.0, seen.append, 2)
    engine.cancel(doomed)
    assert event_time_s(doomed) == 1.0
    assert engine.peek_s() == 2.0
    assert engine.run() == 1
    assert seen == [2]


def test_run_until_stops_at_the_time_and_keeps_later_events():
    engine = Engine()
    seen: list[float] = []
    for t in (1.0, 2.0, 3.0):
        engine.at(t, seen.append, t)
    assert engine.run(until_s=2.0) == 2
    assert seen == [1.0, 2.0]
    assert engine.now_s == 2.0
    assert engine.pending == 1
    assert engine.run(until_s=2.5) == 0
    assert engine.now_s == 2.5
    assert engine.run() == 1
    assert seen == [1.0, 2.0, 3.0]
    assert engine.peek_s() == math.inf


def test_max_events_and_stop_end_a_run_early():
    engine = Engine()
    seen: list[int] = []
    for i in range(5):
        engine.at(float(i), seen.append, i)
    assert engine.run(max_events=2) == 2
    engine.at(2.5, engine.stop)
    assert engine.run() == 2  # the event at 2, then stop at 2.5
    assert seen == [0, 1, 2]
    assert engine.now_s == 2.5
    assert engine.run() == 2
    assert seen == [0, 1, 2, 3, 4]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda e: e.at(0.5, print), "no earlier than now"),
        (lambda e: e.at(math.inf, print), "finite time"),
        (lambda e: e.at(math.nan, print), "finite time"),
        (lambda e: e.after(-1.0, print), "delay must be finite and >= 0"),
        (lambda e: e.after(math.nan, print), "delay must be finite and >= 0"),
        (lambda e: e.run(until_s=0.5), "until_s must be no earlier than now"),
    ],
)
def test_times_in_the_past_or_not_finite_are_refused(call, message):
    engine = Engine(start_s=1.0)
    with pytest.raises(ValueError, match=message):
        call(engine)


@given(st.lists(st.floats(0, 1e6, allow_nan=False), max_size=200))
def test_any_schedule_runs_sorted_by_time_then_by_scheduling(times):
    engine = Engine()
    seen: list[int] = []
    for i, t in enumerate(times):
        engine.at(t, seen.append, i)
    engine.run()
    assert seen == sorted(range(len(times)), key=lambda i: (times[i], i))


def _poisson_trace(seed: int) -> list[tuple[float, int]]:
    """A process that reschedules itself at random: (time, id) of every event."""
    rng = random.Random(seed)
    engine = Engine()
    trace: list[tuple[float, int]] = []

    def arrive(k: int) -> None:
        trace.append((engine.now_s, k))
        if k < 500:
            engine.after(rng.expovariate(1.0), arrive, k + 1)
            if rng.random() < 0.3:
                engine.after(rng.expovariate(2.0), trace.append, (engine.now_s, -k))

    engine.at(0.0, arrive, 0)
    engine.run()
    return trace


def test_the_same_seed_gives_the_same_run_event_for_event():
    assert _poisson_trace(7) == _poisson_trace(7)
    assert _poisson_trace(7) != _poisson_trace(8)
