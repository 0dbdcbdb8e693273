"""Priority servers: capacity, loads before unloads, FIFO within a class, utilisation."""

from __future__ import annotations

import pytest

from tapesched.simulator.kernel.engine import Engine
from tapesched.simulator.kernel.resource import Resource

LOAD, UNLOAD = 0, 1


def serve(engine: Engine, arm: Resource, log: list[tuple[str, float]], name: str, hold_s: float):
    """A request that holds one unit for ``hold_s`` once granted; logs its start."""

    def granted() -> None:
        log.append((name, engine.now_s))
        engine.after(hold_s, arm.release)

    return granted


def test_one_arm_serves_loads_before_unloads_and_fifo_within_each():
    engine = Engine()
    arm = Resource(engine, capacity=1, priorities=2)
    log: list[tuple[str, float]] = []
    arm.request(UNLOAD, serve(engine, arm, log, "u0", 10.0))  # granted at once
    arm.request(UNLOAD, serve(engine, arm, log, "u1", 10.0))
    arm.request(LOAD, serve(engine, arm, log, "l0", 10.0))
    arm.request(UNLOAD, serve(engine, arm, log, "u2", 10.0))
    arm.request(LOAD, serve(engine, arm, log, "l1", 10.0))
    assert arm.waiting == 4
    engine.run()
    assert log == [("u0", 0.0), ("l0", 10.0), ("l1", 20.0), ("u1", 30.0), ("u2", 40.0)]
    assert arm.busy == 0
    assert arm.utilisation() == pytest.approx(1.0)


def test_capacity_units_serve_at_once_and_utilisation_counts_unit_time():
    engine = Engine()
    arms = Resource(engine, capacity=2)
    log: list[tuple[str, float]] = []
    for name in ("a", "b", "c"):
        arms.request(0, serve(engine, arms, log, name, 4.0))
    engine.run()
    assert log == [("a", 0.0), ("b", 0.0), ("c", 4.0)]
    assert engine.now_s == 8.0
    # 12 unit-seconds of service over 2 units x 8 s.
    assert arms.utilisation() == pytest.approx(12.0 / 16.0)


def test_a_deterministic_single_server_queue_matches_the_hand_computation():
    # Arrivals at 0, 1, 2, 10; service 3 s each: starts 0, 3, 6, 10.
    engine = Engine()
    server = Resource(engine, capacity=1)
    log: list[tuple[str, float]] = []
    for i, t in enumerate((0.0, 1.0, 2.0, 10.0)):
        engine.at(t, server.request, 0, serve(engine, server, log, f"r{i}", 3.0))
    engine.run()
    assert [t for _, t in log] == [0.0, 3.0, 6.0, 10.0]
    assert server.utilisation() == pytest.approx(12.0 / 13.0)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda e: Resource(e, capacity=0), "capacity must be >= 1"),
        (lambda e: Resource(e, capacity=1, priorities=0), "priorities must be >= 1"),
        (lambda e: Resource(e, capacity=1).request(1, print), r"priority must be in \[0, 1\)"),
    ],
)
def test_bad_arguments_are_refused(make, message):
    with pytest.raises(ValueError, match=message):
        make(Engine())


def test_releasing_what_was_never_granted_is_an_error():
    with pytest.raises(RuntimeError, match="no unit granted"):
        Resource(Engine(), capacity=1).release()
