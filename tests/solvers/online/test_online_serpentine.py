"""``sltf`` and ``tape-batching`` on serpentine drives: a tape's reads in an orderer's order.

Hand-made cases: one LTO-7 drive (CTA's cost heuristic or the physical
model) holding a 6 TB tape at time 0, head at 0, every request released at
0, so that each decision chooses among the requests on the loaded tape.
A wrap of that tape holds 6 TB / 112 of offsets; wrap 0 runs forward along
the tape and wrap 1 back, so the end of wrap 1 lies beside the head while
the middle of wrap 0, nearer by offset, is half a tape away.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest
from attrs import evolve

from tapesched.solvers import solve
from tapesched.solvers.online.dispatcher import dispatch
from tapesched.solvers.online.heuristics import Sltf, TapeBatching, first_startable
from tapesched.solvers.online.protocol import PlatformState, Start
from tapesched.solvers.recall_order import (
    Orderer,
    RecallOrder,
    exact_order,
    offset_order,
    request_order,
    sltf_order,
)
from tapesched.toolkit.generators import RandomParams, random_instance
from tapesched.toolkit.hardware.tape_geometry import (
    CtaCostHeuristic,
    LocateModel,
    SerpentineTape,
    TapeFile,
)
from tapesched.toolkit.model import (
    Drive,
    InitialTape,
    Instance,
    Library,
    Locate,
    Piece,
    Request,
    Schedule,
    Tape,
    serpentine_tape,
)
from tapesched.toolkit.validator import validate

CAPACITY_MB = 6_000_000.0
WRAP_MB = CAPACITY_MB / 112
"""Offsets a wrap of the LTO-7 tape holds."""

NEAR_BY_OFFSET = WRAP_MB / 2
"""The middle of wrap 0: the nearest offset, half the tape's length away."""

NEAR_BY_LPOS = 2 * WRAP_MB - 200
"""The end of wrap 1: 107,000 MB further, beside the head across one wrap."""


def one_tape(offsets: Sequence[float], model: str | None = "cta-lto") -> Instance:
    """One drive holding T1 at 0, one 100 MB read released at 0 per offset (``r0``, ...)."""
    locate = None if model is None else Locate(model, "LTO-7")
    return Instance(
        name="serpentine-block-order",
        libraries=[Library("L0", 1, 10.0, 10.0)],
        drives=[Drive("d0", "L0", 300.0, 15.0, 20.0, 10_000.0, locate=locate)],
        tapes=[Tape("T1", "L0", CAPACITY_MB)],
        requests=[
            Request(f"r{k}", 0.0, 1.0, "read", [Piece("T1", offset, 100.0)])
            for k, offset in enumerate(offsets)
        ],
        initial=[InitialTape("d0", "T1")],
    )


def read_order(schedule: Schedule) -> list[str]:
    return [r.id for r in sorted(schedule.requests, key=lambda r: r.start_s)]


def locates_s(instance: Instance, schedule: Schedule) -> float:
    """Every locate the one drive makes, from the head at 0, by the drive's own model."""
    drive, head, total = instance.drives[0], 0.0, 0.0
    for rid in read_order(schedule):
        piece = instance.request_by_id[rid].pieces[0]
        total += drive.locate_s(head, piece.offset_mb, CAPACITY_MB)
        head = piece.end_mb
    return total


@pytest.mark.parametrize("model", ["cta-lto", "physical"])
def test_sltf_reads_the_neighbouring_wrap_first_where_block_order_goes_far(model):
    instance = one_tape([NEAR_BY_OFFSET, NEAR_BY_LPOS], model)
    sltf = solve(instance, solver="sltf").schedule
    batching = solve(instance, solver="tape-batching").schedule
    assert validate(instance, sltf).feasible and validate(instance, batching).feasible
    assert read_order(batching) == ["r0", "r1"]  # block order
    assert read_order(sltf) == ["r1", "r0"]
    assert locates_s(instance, sltf) < locates_s(instance, batching)


def test_on_linear_drives_the_same_requests_are_read_in_block_order_by_both():
    instance = one_tape([NEAR_BY_OFFSET, NEAR_BY_LPOS], model=None)
    for name in ("sltf", "tape-batching"):
        assert read_order(solve(instance, solver=name).schedule) == ["r0", "r1"]


class Recording:
    """An orderer that notes what it is given and orders as ``inner`` does."""

    def __init__(self, inner: Orderer = sltf_order) -> None:
        self.inner = inner
        self.calls: list[tuple[SerpentineTape, LocateModel, int, list[TapeFile]]] = []

    def __call__(
        self,
        tape: SerpentineTape,
        model: LocateModel,
        head_block: int,
        files: Sequence[TapeFile],
        *,
        time_limit_s: float = 0.0,
    ) -> RecallOrder:
        self.calls.append((tape, model, head_block, list(files)))
        return self.inner(tape, model, head_block, files)


def test_the_orderer_is_asked_on_the_drives_tape_and_model_and_only_for_serpentine_drives():
    offsets = [NEAR_BY_OFFSET, NEAR_BY_LPOS, 3 * WRAP_MB]
    instance = one_tape(offsets)
    orderer = Recording()
    schedule = dispatch(instance, Sltf(orderer=orderer))
    assert schedule == solve(instance, solver="sltf").schedule
    assert read_order(schedule) == ["r1", "r0", "r2"]
    assert len(orderer.calls) == 1  # then the drive reads the rest of its plan
    tape, model, head_block, files = orderer.calls[0]
    assert (tape, model, head_block) == (
        serpentine_tape("LTO-7", CAPACITY_MB),
        CtaCostHeuristic(),
        0,
    )
    assert [(f.id, f.block, f.size_bytes) for f in files] == [
        (f"r{k}", round(offset * 1e6), 100_000_000) for k, offset in enumerate(offsets)
    ]
    linear = evolve(instance, drives=[evolve(instance.drives[0], locate=None)])
    unused = Recording()
    assert dispatch(linear, Sltf(orderer=unused)) == solve(linear, solver="sltf").schedule
    assert unused.calls == []


def test_a_request_joining_the_tape_asks_the_orderer_again_from_the_head():
    instance = one_tape([NEAR_BY_OFFSET, NEAR_BY_LPOS, 3 * WRAP_MB])
    late = Request("r3", 1.0, 1.0, "read", [Piece("T1", 2 * WRAP_MB, 100.0)])
    instance = evolve(instance, requests=[*instance.requests, late])
    orderer = Recording()
    schedule = dispatch(instance, Sltf(orderer=orderer))
    assert schedule == solve(instance, solver="sltf").schedule
    assert validate(instance, schedule).feasible
    assert [[f.id for f in call[3]] for call in orderer.calls] == [
        ["r0", "r1", "r2"],
        ["r0", "r2", "r3"],
    ]
    assert orderer.calls[1][2] == round((NEAR_BY_LPOS + 100) * 1e6)  # from the end of r1


def test_the_orderer_decides_the_order_request_order_reads_as_given():
    instance = one_tape([NEAR_BY_OFFSET, NEAR_BY_LPOS])
    schedule = dispatch(instance, Sltf(orderer=request_order))
    assert read_order(schedule) == ["r0", "r1"]
    assert validate(instance, schedule).feasible


def test_tape_batching_sweeps_forward_from_the_head_under_the_offset_orderer():
    instance = one_tape([3 * WRAP_MB, NEAR_BY_OFFSET, NEAR_BY_LPOS])
    schedule = solve(instance, solver="tape-batching").schedule
    assert read_order(schedule) == ["r1", "r2", "r0"]
    orderer = Recording(offset_order)
    assert dispatch(instance, TapeBatching(orderer=orderer)) == schedule
    assert [len(call[3]) for call in orderer.calls] == [3]


OFFSETS_WHERE_SLTF_IS_GREEDY = [183_978.0, 213_687.0, 280_023.0, 306_316.0, 306_747.0]
"""Five reads over the first six wraps on which shortest-locate-first is 10 s off the best."""


def test_an_exact_orderer_reads_the_tape_in_fewer_locates_than_sltf():
    instance = one_tape(OFFSETS_WHERE_SLTF_IS_GREEDY)
    exact = dispatch(instance, Sltf(orderer=exact_order, time_limit_s=2.0))
    sltf = solve(instance, solver="sltf").schedule
    batching = solve(instance, solver="tape-batching").schedule
    for schedule in (exact, sltf, batching):
        assert validate(instance, schedule).feasible
    assert locates_s(instance, exact) < locates_s(instance, sltf) < locates_s(instance, batching)


class KeyOnly:
    """A policy's choice by its key alone, every loaded request a candidate (no orderer)."""

    def __init__(self, key: Callable[[Request, PlatformState], tuple[float | None, ...]]) -> None:
        self.key = key

    def decide(
        self, now: float, waiting: Sequence[Request], platform: PlatformState
    ) -> Start | None:
        if not platform.any_idle():
            return None
        loaded = [r for r in waiting if platform.loaded(r)]
        if loaded:
            return Start(min(loaded, key=lambda r: (self.key(r, platform), platform.arrival(r))))
        request = first_startable(waiting, platform)
        return None if request is None else Start(request)


def nearest(request: Request, platform: PlatformState) -> tuple[float | None, ...]:
    return (platform.locate_s(request),)


def sweep(request: Request, platform: PlatformState) -> tuple[float | None, ...]:
    return TapeBatching().key(request, platform)


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("model", ["cta-lto", "physical"])
def test_the_default_orderers_choose_as_the_keys_do(model, seed):
    """Gangs and one-piece reads, 3 tapes a library, some released together."""
    params = RandomParams(n_requests=40, tapes_per_library=3, max_gang=2, release_horizon_s=600.0)
    linear = random_instance(params, seed)
    locate = Locate(model, "LTO-7")
    instance = evolve(linear, drives=[evolve(d, locate=locate) for d in linear.drives])
    for policy, key in ((Sltf(), nearest), (TapeBatching(), sweep)):
        schedule = dispatch(instance, policy)
        assert schedule == dispatch(instance, KeyOnly(key))
        assert validate(instance, schedule).feasible
