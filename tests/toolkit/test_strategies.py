"""Hypothesis strategies: instances follow the spec's rules and stay within their bounds."""

from __future__ import annotations

from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

from tests.toolkit.test_generators import io_problems, rule_violations
from toolkit.generators import MB_PER_GB, RandomParams, golubchik_instance
from toolkit.model import Instance
from toolkit.strategies import instances, instances_for, random_params, requests_for

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(instances())
def test_default_instances_are_valid_and_small(inst: Instance) -> None:
    assert rule_violations(inst) == []
    assert io_problems(inst) == []
    assert 1 <= len(inst.requests) <= 4
    assert 1 <= len(inst.libraries) <= 2
    for lib in inst.libraries:
        assert 1 <= len(inst.drives_of_library[lib.id]) <= 3
        assert 1 <= lib.arms <= 2
    assert all(len(r.pieces) <= 3 for r in inst.requests)
    assert all(0 <= r.release_s <= 100 for r in inst.requests)


@st.composite
def bounds(draw: st.DrawFn) -> dict[str, tuple[float, float]]:
    """Random bounds for :func:`instances`, so that every bound is varied."""

    def span(lo: float, hi: float, integer: bool) -> tuple[float, float]:
        values = st.integers(lo, hi) if integer else st.floats(lo, hi)  # type: ignore[arg-type]
        a, b = draw(values), draw(values)
        return (min(a, b), max(a, b))

    size = span(0.5, 500.0, False)
    return {
        "n_requests": span(0, 5, True),
        "n_libraries": span(1, 3, True),
        "drives_per_library": span(1, 4, True),
        "arms": span(1, 3, True),
        "max_gang": span(1, 4, True),
        "tapes_per_library": span(1, 5, True),
        "size_mb": size,
        "capacity_mb": span(size[1], 2000.0, False),
        "initial_fraction": span(0.0, 1.0, False),
        "release_horizon_s": span(0.0, 50.0, False),
        "load_s": span(0.0, 10.0, False),
        "rate_mb_s": span(0.5, 50.0, False),
    }


@FAST
@given(st.data())
def test_instances_respect_their_bounds(data: st.DataObject) -> None:
    b = data.draw(bounds())
    inst = data.draw(instances(**b))  # type: ignore[arg-type]
    assert rule_violations(inst) == []
    assert b["n_requests"][0] <= len(inst.requests) <= b["n_requests"][1]
    assert b["n_libraries"][0] <= len(inst.libraries) <= b["n_libraries"][1]
    for lib in inst.libraries:
        assert b["drives_per_library"][0] <= len(inst.drives_of_library[lib.id])
        assert len(inst.drives_of_library[lib.id]) <= b["drives_per_library"][1]
        assert b["arms"][0] <= lib.arms <= b["arms"][1]
        n_tapes = sum(t.library == lib.id for t in inst.tapes)
        assert b["tapes_per_library"][0] <= n_tapes <= b["tapes_per_library"][1]
    for t in inst.tapes:
        assert b["capacity_mb"][0] <= t.capacity_mb <= b["capacity_mb"][1]
    for d in inst.drives:
        assert b["load_s"][0] <= d.load_s <= b["load_s"][1]
        assert b["rate_mb_s"][0] <= d.rate_mb_s <= b["rate_mb_s"][1]
    if not b["initial_fraction"][1]:
        assert inst.initial == ()
    for r in inst.requests:
        assert 1 <= len(r.pieces) <= b["max_gang"][1]
        assert 0 <= r.release_s <= b["release_horizon_s"][1]
        lo, hi = b["size_mb"]
        assert lo * (1 - 1e-9) <= r.size_mb <= hi * (1 + 1e-9)


@FAST
@given(random_params())
def test_random_params_are_valid(params: RandomParams) -> None:
    assert params.problems() == []
    assert params.size_mb[1] <= params.capacity_mb


@FAST
@given(
    instances_for(
        RandomParams(
            n_requests=3,
            tapes_per_library=3,
            max_gang=3,
            equal_pieces=False,
            capacity_mb=10.0,
            size_mb=(1.0, 10.0),
        )
    )
)
def test_instances_for_fixed_params(inst: Instance) -> None:
    assert rule_violations(inst) == []
    assert len(inst.requests) == 3
    assert all(t.capacity_mb == 10.0 for t in inst.tapes)


GOLUBCHIK = golubchik_instance(0, technology="exabyte", drives=3)


@FAST
@given(requests_for(GOLUBCHIK))
def test_requests_for_keeps_the_platform(inst: Instance) -> None:
    assert rule_violations(inst) == []
    assert io_problems(inst) == []
    assert (inst.libraries, inst.drives, inst.tapes) == (
        GOLUBCHIK.libraries,
        GOLUBCHIK.drives,
        GOLUBCHIK.tapes,
    )
    assert len(inst.requests) == 3
    assert all(len(r.pieces) <= 3 for r in inst.requests)


def test_failing_instances_shrink_to_a_minimal_gang() -> None:
    """Building through ``draw`` lets Hypothesis shrink a counterexample."""
    smallest = find(
        instances(),
        lambda inst: any(len(r.pieces) == 2 for r in inst.requests),
        settings=settings(database=None, max_examples=500),
    )
    assert len(smallest.requests) == 1
    assert len(smallest.libraries) == 1
    assert len(smallest.drives) == 2 and len(smallest.tapes) == 2
    assert smallest.initial == ()
    r = smallest.requests[0]
    assert r.release_s == 0 and all(p.offset_mb == 0 for p in r.pieces)
    assert r.size_mb == 1.0 and r.weight in (1.0, MB_PER_GB)
