"""Hypothesis strategies: instances follow the spec's rules and stay within their bounds."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

from tapesched.toolkit.generators import RandomParams
from tapesched.toolkit.golubchik_instances import golubchik_instance
from tapesched.toolkit.model import Instance
from tapesched.toolkit.strategies import instances, instances_for, random_params, requests_for
from tests.toolkit.test_generators import io_problems, rule_violations

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


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
def bounds(draw: st.DrawFn) -> dict[str, Any]:
    """Random bounds for :func:`instances`, so that every bound is varied."""

    def ints(lo: int, hi: int) -> tuple[int, int]:
        a, b = draw(st.integers(lo, hi)), draw(st.integers(lo, hi))
        return (min(a, b), max(a, b))

    def reals(lo: float, hi: float) -> tuple[float, float]:
        a, b = draw(st.floats(lo, hi)), draw(st.floats(lo, hi))
        return (min(a, b), max(a, b))

    size = reals(0.5, 500.0)
    return {
        "n_requests": ints(0, 5),
        "n_libraries": ints(1, 3),
        "drives_per_library": ints(1, 4),
        "arms": ints(1, 3),
        "max_gang": ints(1, 4),
        "tapes_per_library": ints(1, 5),
        "size_mb": size,
        "capacity_mb": reals(size[1], 2000.0),
        "initial_fraction": reals(0.0, 1.0),
        "release_horizon_s": reals(0.0, 50.0),
        "load_s": reals(0.0, 10.0),
        "rate_mb_s": reals(0.5, 50.0),
    }


@FAST
@given(st.data())
def test_instances_respect_their_bounds(data: st.DataObject) -> None:
    b = data.draw(bounds())
    inst = data.draw(instances(**b))
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


GOLUBCHIK = golubchik_instance(0, technology="exabyte", drives=3, tapes=8)


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


def test_counterexamples_shrink_to_a_minimal_gang() -> None:
    """Building through ``draw`` lets Hypothesis shrink a counterexample.

    The arm and drive ranges are pinned so that the search stays well under a
    second; counts, widths, tapes and offsets are still shrunk.
    """
    pinned: dict[str, Any] = {
        name: (value, value)
        for name, value in (
            ("mount_s", 0.0),
            ("dismount_s", 0.0),
            ("load_s", 0.0),
            ("unload_s", 0.0),
            ("rate_mb_s", 1.0),
            ("locate_mb_s", 10.0),
            ("capacity_mb", 1000.0),
            ("release_horizon_s", 0.0),
            ("initial_fraction", 0.0),
            ("size_mb", 1.0),
        )
    }
    smallest = find(
        instances(n_requests=(1, 1), n_libraries=(1, 1), **pinned),
        lambda inst: len(inst.requests[0].pieces) == 2,
        settings=settings(database=None, max_examples=500, derandomize=True),
    )
    assert len(smallest.drives) == 2 and len(smallest.tapes) == 2
    assert smallest.libraries[0].arms == 1
    assert all(p.offset_mb == 0 for p in smallest.requests[0].pieces)
