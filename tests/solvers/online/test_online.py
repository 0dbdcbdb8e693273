"""The online dispatchers: hand-computed choices, feasibility everywhere, and online-ness.

Every schedule is held to the independent validator, whose recomputed
objective must equal the one the solver reports. Hand-made cases use one
library whose arms take 10 s to mount and 10 s to dismount, and drives that
stream 100 MB/s, load 5 s, unload 5 s and locate 1000 MB/s.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tapesched.solvers.bounds.bounds import lower_bound
from tapesched.solvers.greedy import greedy
from tapesched.solvers.online import heuristics
from tapesched.solvers.online.dispatcher import Dispatcher, PlatformView, ServiceTimes, dispatch
from tapesched.solvers.online.heuristics import Fifo, ReleaseOrder
from tapesched.solvers.online.protocol import Dismount, Start
from tapesched.solvers.result import Result, Status
from tapesched.toolkit.files.instance_file import load_instance
from tapesched.toolkit.generators import RandomParams, random_instance
from tapesched.toolkit.metrics import alone_s
from tapesched.toolkit.model import (
    Drive,
    InitialTape,
    Instance,
    Library,
    Request,
    Schedule,
    Tape,
)
from tapesched.toolkit.strategies import instances
from tapesched.toolkit.validator import validate

from ...builders import assert_validated, operations, read, scheduled
from ...conftest import INSTANCES

SOLVERS: dict[str, Callable[..., Result]] = {
    "fifo": heuristics.fifo,
    "wspt": heuristics.wspt,
    "stretch": heuristics.stretch,
    "tape-batching": heuristics.tape_batching,
    "sltf": heuristics.sltf,
    "backfill": heuristics.backfill,
    "fifo-dismount-at-once": heuristics.fifo_dismount_at_once,
}
POLICIES = sorted(SOLVERS)
SHIPPED = sorted(
    p
    for p in INSTANCES.glob("*.json")
    if p.name != "optima.json" and not p.name.endswith(".optimum.json")
)
OPTIMA = json.loads((INSTANCES / "optima.json").read_text())


def checked(instance: Instance, name: str) -> Result:
    """Run the solver ``name``, hold its schedule to the validator; return the result."""
    result = SOLVERS[name](instance, time_limit_s=None, seed=0)
    assert result.solver == name
    assert result.status is Status.FEASIBLE
    assert result.bound == lower_bound(instance)
    assert result.bound <= result.objective + 1e-6
    assert result.runtime_s >= 0
    assert_validated(instance, result)
    return result


def one_library(
    drives: int,
    requests: tuple[Request, ...],
    *,
    arms: int = 1,
    initial: tuple[InitialTape, ...] = (),
) -> Instance:
    """One library ``L0`` of identical drives ``d0``.., tapes ``T1``..``T4`` of 100 GB."""
    return Instance(
        name="hand-made",
        libraries=(Library("L0", arms, 10, 10),),
        drives=tuple(Drive(f"d{i}", "L0", 100, 5, 5, 1000) for i in range(drives)),
        tapes=tuple(Tape(f"T{i}", "L0", 100000) for i in range(1, 5)),
        requests=requests,
        initial=initial,
    )


# Every policy, everywhere.


@pytest.mark.parametrize("name", POLICIES)
@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_every_policy_is_feasible_on_the_shipped_instances(path, name):
    instance = load_instance(path)
    result = checked(instance, name)
    if path.stem in OPTIMA:
        assert result.objective >= OPTIMA[path.stem]["optimum"] - 1e-6


@pytest.mark.parametrize("name", POLICIES)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instance=instances(n_requests=(1, 10), drives_per_library=(1, 4), max_gang=(1, 3)))
def test_every_policy_is_feasible_on_generated_instances(name, instance):
    checked(instance, name)


@pytest.mark.parametrize("name", POLICIES)
def test_policies_are_deterministic_on_a_random_instance(name):
    params = RandomParams(n_requests=150, max_gang=3, drives_per_library=(3, 6), arms=(1, 3))
    instance = random_instance(params, 5)
    first = checked(instance, name)
    again = SOLVERS[name](instance, time_limit_s=1.0, seed=9)
    assert again.schedule == first.schedule


def _until(schedule: Schedule, t: float) -> tuple[list[tuple], list[tuple]]:
    """Requests started and arm operations begun at or before ``t``, sorted."""
    requests = sorted(
        (r.id, r.drives, r.start_s, r.end_s) for r in schedule.requests if r.start_s <= t
    )
    ops = sorted(
        (o.start_s, o.end_s, o.op, o.tape, o.drive) for o in schedule.operations if o.start_s <= t
    )
    return requests, ops


@pytest.mark.parametrize("name", [*POLICIES, "greedy"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    instance=instances(n_requests=(2, 10), drives_per_library=(1, 3), max_gang=(1, 2)),
    cut=st.floats(0.0, 1.0),
)
def test_nothing_before_t_depends_on_requests_released_after_t(name, instance, cut):
    # Online-ness: a schedule records neither which request an arm operation
    # serves nor when a decision was made, so compare two runs instead: with
    # every request, and with only those released by t. What happened up to t
    # (transfers started, arm operations begun) must be the same: a decision
    # made at or before t cannot have seen a later release, and a decision made
    # after t acts after t. Every operation for a request thus waits for its
    # release, as the validator checks of its transfer.
    t = cut * max(r.release_s for r in instance.requests)
    early = attrs.evolve(instance, requests=[r for r in instance.requests if r.release_s <= t])
    solver = greedy if name == "greedy" else SOLVERS[name]
    full = solver(instance).schedule
    cut_short = solver(early).schedule
    assert full is not None and cut_short is not None
    assert _until(full, t) == _until(cut_short, t)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instance=instances(n_requests=(0, 10), drives_per_library=(1, 4), max_gang=(1, 3)))
def test_greedy_written_as_a_scheduler_gives_greedys_schedule(instance):
    assert dispatch(instance, ReleaseOrder()) == greedy(instance).schedule


@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_greedy_written_as_a_scheduler_on_the_shipped_instances(path):
    instance = load_instance(path)
    assert dispatch(instance, heuristics.SCHEDULERS["greedy"]()) == greedy(instance).schedule


def test_every_registered_policy_has_a_scheduler():
    assert set(heuristics.SCHEDULERS) == {*SOLVERS, "greedy"}


@settings(max_examples=100, deadline=None)
@given(instance=instances(n_requests=(1, 6), drives_per_library=(1, 5), max_gang=(1, 3)))
def test_expected_service_is_the_metrics_time_alone(instance):
    service = ServiceTimes(instance)
    for request in instance.requests:
        assert service(request) == alone_s(instance, request)


# Each policy's distinctive choice, by hand.


def test_fifo_waits_for_free_drives_where_greedy_queues(spec_instance):
    # fifo: r1 mounts T1 into the empty d1 (25-58.333), r2 locates on d0
    # (17-20.333); r3 waits for T1 until d1 is free at 58.333, then locates
    # 4 s on d1 while d0 locates back 12.1 s: 70.433-73.767. greedy committed
    # r3 at its release and located d0 from 30 s, starting r3 at 62.333.
    result = checked(spec_instance, "fifo")
    r3 = 25 + 10000 / 300 + 12.1
    assert scheduled(result) == {
        "r1": (("d1",), 25.0, pytest.approx(25 + 10000 / 300)),
        "r2": (("d0",), 17.0, pytest.approx(17 + 1000 / 300)),
        "r3": (("d1", "d0"), pytest.approx(r3), pytest.approx(r3 + 10 / 3)),
    }
    assert result.objective == pytest.approx(
        0.1 * (25 + 100 / 3) + 1.0 * (12 + 10 / 3) + 0.5 * (r3 + 10 / 3 - 30)
    )
    assert result.objective == pytest.approx(43.05)
    assert greedy(spec_instance).objective == pytest.approx(39.0)


def test_wspt_serves_the_heavy_request_first():
    # Both take 16 s alone (mount 10, load 5, 1 s); b weighs 5. fifo serves a
    # at 15-16, then unload 16-21, dismount 21-31, mount 31-41, load, b at
    # 46-47: 16 + 5 x 47 = 251. wspt serves b first: 5 x 16 + 47 = 127.
    instance = one_library(
        1, (read("a", 0, ("T1", 0, 100)), read("b", 0, ("T2", 0, 100), weight=5))
    )
    assert checked(instance, "fifo").objective == pytest.approx(251.0)
    result = checked(instance, "wspt")
    assert scheduled(result) == {"a": (("d0",), 46.0, 47.0), "b": (("d0",), 15.0, 16.0)}
    assert result.objective == pytest.approx(127.0)


def test_wspt_serves_the_short_request_first():
    instance = load_instance(INSTANCES / "one-drive-two-tapes.json")
    assert checked(instance, "fifo").objective == pytest.approx(81.0)
    assert checked(instance, "wspt").objective == pytest.approx(72.0)


@pytest.mark.parametrize(
    ("small_release", "fifo_value", "stretch_value", "wspt_value"),
    [(2.0, 533.0, 484.0, 484.0), (110.0, 425.0, 425.0, 376.0)],
)
def test_stretch_serves_the_most_slowed_down_request_first(
    small_release, fifo_value, stretch_value, wspt_value
):
    # long holds d0 until 115 s (mount 0-10, load, 15-115). Alone, big takes
    # 65 s and small 16 s. At 115 s with small released at 2 s, small's
    # stretch is (115 - 2 + 16) / 16 = 8.06 against big's (115 - 1 + 65) / 65
    # = 2.75: small first (145-146), then big (176-226): 115 + 144 + 225.
    # With small released at 110 s its stretch is 21 / 16 = 1.31: big first
    # (145-195), then small (225-226): 115 + 194 + 116, as fifo; wspt still
    # takes small first: 115 + 36 + 225.
    instance = one_library(
        1,
        (
            read("long", 0, ("T1", 0, 10000)),
            read("big", 1, ("T2", 0, 5000)),
            read("small", small_release, ("T3", 0, 100)),
        ),
    )
    assert checked(instance, "fifo").objective == pytest.approx(fifo_value)
    assert checked(instance, "stretch").objective == pytest.approx(stretch_value)
    assert checked(instance, "wspt").objective == pytest.approx(wspt_value)


def test_tape_batching_reads_the_loaded_tape_in_offset_order():
    # T1 is loaded in d0. Batching reads p1, p2, p3 (offsets 1000, 2000,
    # 3000 MB) from the head at 0: locate 1 s, 1-11, 11-21, 21-31; then x on
    # T2: unload 31-36, dismount 36-46, mount 46-56, load, 61-62. fifo first
    # switches to T2 for x (30-31), back to T1 for p3 (64-74), then p1 after
    # locating back 3 s (77-87) and p2 (87-97).
    instance = one_library(
        1,
        (
            read("x", 0, ("T2", 0, 100)),
            read("p3", 0, ("T1", 3000, 1000)),
            read("p1", 0, ("T1", 1000, 1000)),
            read("p2", 0, ("T1", 2000, 1000)),
        ),
        initial=(InitialTape("d0", "T1"),),
    )
    result = checked(instance, "tape-batching")
    assert scheduled(result) == {
        "p1": (("d0",), 1.0, 11.0),
        "p2": (("d0",), 11.0, 21.0),
        "p3": (("d0",), 21.0, 31.0),
        "x": (("d0",), 61.0, 62.0),
    }
    assert operations(result.schedule) == [
        ("dismount", "T1", "d0", 36.0, 46.0),
        ("mount", "T2", "d0", 46.0, 56.0),
    ]
    assert result.objective == pytest.approx(11 + 21 + 31 + 62)
    assert checked(instance, "fifo").objective == pytest.approx(31 + 74 + 87 + 97)


@pytest.mark.parametrize(
    ("name", "value"), [("sltf", 81.0), ("tape-batching", 85.0), ("fifo", 85.0)]
)
def test_sltf_takes_the_nearest_locate(name, value):
    # h reads 5000-6000 MB of the loaded T1 at 5-15 s. At 15 s, n (4000 MB,
    # 2 s back) is nearer the head than f (9000 MB, 3 s on): sltf reads n at
    # 17-27 then f after 4 s at 31-41: 15 + 26 + 40. The forward sweep of
    # tape batching (and fifo, f being listed first) reads f at 18-28, then
    # n after 6 s at 34-44: 15 + 27 + 43.
    instance = one_library(
        1,
        (
            read("h", 0, ("T1", 5000, 1000)),
            read("f", 1, ("T1", 9000, 1000)),
            read("n", 1, ("T1", 4000, 1000)),
        ),
        initial=(InitialTape("d0", "T1"),),
    )
    result = checked(instance, name)
    assert result.objective == pytest.approx(value)
    assert operations(result.schedule) == []


def _gang_behind_a_long_read(small_mb: float) -> Instance:
    """Two drives, two arms: busy holds d0 until 115 s, a gang of two waits, then small."""
    return one_library(
        2,
        (
            read("busy", 0, ("T1", 0, 10000)),
            read("gang", 1, ("T2", 0, 1000), ("T3", 0, 1000)),
            read("small", 2, ("T4", 0, small_mb)),
        ),
        arms=2,
    )


def test_backfill_lets_a_small_read_pass_a_gang_without_delaying_it():
    # From 1 s the gang has one idle drive (d1) of the two it needs; its
    # reservation: T2 into d1 and T3 into d0 once busy ends, start 145 s.
    # fifo keeps small behind it: gang 145-155, small 185-186 after a switch
    # on d0: 115 + 154 + 184. backfill runs small on d1 at once (mount 2-12,
    # load, 17-18); d1 switches to T2 while d0 switches to T1 (both arms at
    # 120-130 and 130-140), so the gang still runs 145-155: 115 + 16 + 154.
    instance = _gang_behind_a_long_read(100)
    assert checked(instance, "fifo").objective == pytest.approx(453.0)
    result = checked(instance, "backfill")
    assert scheduled(result) == {
        "busy": (("d0",), 15.0, 115.0),
        "gang": (("d1", "d0"), 145.0, 155.0),
        "small": (("d1",), 17.0, 18.0),
    }
    assert operations(result.schedule) == [
        ("mount", "T1", "d0", 0.0, 10.0),
        ("mount", "T4", "d1", 2.0, 12.0),
        ("dismount", "T4", "d1", 120.0, 130.0),
        ("dismount", "T1", "d0", 120.0, 130.0),
        ("mount", "T2", "d1", 130.0, 140.0),
        ("mount", "T3", "d0", 130.0, 140.0),
    ]
    assert result.objective == pytest.approx(285.0)


def test_backfill_holds_back_a_read_that_would_delay_the_gang():
    # A 200 s read on d1 would end after 145 s: backfill keeps fifo's order.
    instance = _gang_behind_a_long_read(20000)
    assert checked(instance, "backfill").schedule == checked(instance, "fifo").schedule
    assert checked(instance, "backfill").objective == pytest.approx(115 + 154 + 383)


def test_dismount_at_once_puts_the_tape_away_when_no_request_waits():
    # a reads T1 at 15-25; b reads T1 again at 100. Keep-mounted, b only
    # locates (0 s): 25 + 10. Dismount-at-once unloads at 25-30 and dismounts
    # at 30-40; b needs a mount at 100-110, load, locate 1 s: 116-126, and T1
    # goes away again at 131-141: 25 + 26.
    instance = one_library(1, (read("a", 0, ("T1", 0, 1000)), read("b", 100, ("T1", 1000, 1000))))
    kept = checked(instance, "fifo")
    assert operations(kept.schedule) == [("mount", "T1", "d0", 0.0, 10.0)]
    assert kept.objective == pytest.approx(35.0)
    result = checked(instance, "fifo-dismount-at-once")
    assert scheduled(result)["b"] == (("d0",), 116.0, 126.0)
    assert operations(result.schedule) == [
        ("mount", "T1", "d0", 0.0, 10.0),
        ("dismount", "T1", "d0", 30.0, 40.0),
        ("mount", "T1", "d0", 100.0, 110.0),
        ("dismount", "T1", "d0", 131.0, 141.0),
    ]
    assert result.objective == pytest.approx(51.0)


def test_dismount_at_once_puts_away_a_tape_no_request_waits_for_yet(spec_instance):
    # At 0 s only r1 waits (r2, on T2, comes at 5 s): r1 mounts T1 into d1
    # and d0 puts T2 away at once (unload 0-20, dismount 20-30), so r2 must
    # mount it back (30-40, load, locate 12 s: 67-70.333): 99.05 against
    # fifo's 43.05.
    result = checked(spec_instance, "fifo-dismount-at-once")
    assert operations(result.schedule)[:2] == [
        ("mount", "T1", "d1", 0.0, 10.0),
        ("dismount", "T2", "d0", 20.0, 30.0),
    ]
    assert result.objective == pytest.approx(99.05)


def test_dismount_at_once_keeps_a_tape_a_waiting_request_needs():
    # a takes the empty d1 at 0 s (15-25); the gang g needs d0's T1 and
    # another drive, so it waits for d1, and d0 keeps T1 for it meanwhile.
    # g then runs at 55-56 (T2 out of d1 at 30-40, T3 in at 40-50), after
    # which both tapes go away, one arm after the other.
    instance = one_library(
        2,
        (read("a", 0, ("T2", 0, 1000)), read("g", 0, ("T1", 0, 100), ("T3", 0, 100))),
        initial=(InitialTape("d0", "T1"),),
    )
    result = checked(instance, "fifo-dismount-at-once")
    assert scheduled(result)["g"] == (("d0", "d1"), 55.0, 56.0)
    assert operations(result.schedule) == [
        ("mount", "T2", "d1", 0.0, 10.0),
        ("dismount", "T2", "d1", 30.0, 40.0),
        ("mount", "T3", "d1", 40.0, 50.0),
        ("dismount", "T1", "d0", 61.0, 71.0),
        ("dismount", "T3", "d1", 71.0, 81.0),
    ]
    assert result.objective == pytest.approx(25 + 56)


# The dispatcher and its plug point.


class _Never:
    def decide(self, now: float, waiting: Sequence[Request], platform: PlatformView) -> None:
        return None


class _Eager:
    """Starts the oldest waiting request whether it can start or not."""

    def decide(self, now: float, waiting: Sequence[Request], platform: PlatformView):
        return Start(waiting[0]) if waiting else None


class _OnDrives:
    """Starts each request at once on the drives it names, in file order of drives."""

    def decide(self, now: float, waiting: Sequence[Request], platform: PlatformView):
        if not waiting:
            return None
        request = waiting[0]
        drives = tuple(d.id for d in platform.instance.drives[: len(request.pieces)])
        return Start(request, drives=drives)


def test_a_scheduler_that_never_decides_is_an_error(empty_pair):
    with pytest.raises(RuntimeError, match="nothing left to wait for"):
        dispatch(empty_pair, _Never())


def test_a_request_that_cannot_start_on_idle_drives_is_refused():
    instance = one_library(1, (read("a", 0, ("T1", 0, 100)), read("b", 0, ("T2", 0, 100))))
    with pytest.raises(ValueError, match="cannot start"):
        dispatch(instance, _Eager())


def test_a_scheduler_may_name_the_drives(empty_pair):
    schedule = dispatch(empty_pair, _OnDrives())
    assert validate(empty_pair, schedule).feasible
    assert {r.id: r.drives for r in schedule.requests} == {"a": ("d0",), "b": ("d0",)}


def test_a_dismount_of_an_empty_drive_is_refused(empty_pair):
    class _Silly:
        def decide(self, now, waiting, platform):
            return Dismount("d0")

    with pytest.raises(ValueError, match="holds no tape"):
        dispatch(empty_pair, _Silly())


def test_the_view_shows_the_platform_and_trials_leave_no_trace(spec_instance):
    dispatcher = Dispatcher(spec_instance, _Never())
    view = dispatcher.view
    assert dispatcher.next_event_s() == 0.0
    assert dispatcher.step() and dispatcher.step()
    assert view.now == 5.0
    r1, r2, r3 = spec_instance.requests
    assert list(dispatcher.waiting) == [r1, r2]
    assert view.is_waiting(r1) and not view.is_waiting(r3)
    assert view.idle_drives() == ["d0", "d1"]
    assert view.idle_drives(holding=True) == ["d0"]
    assert view.holder("T2") == "d0" and view.tape_in("d1") is None
    assert view.loaded(r2) and not view.loaded(r1)
    assert view.locate_s(r2) == pytest.approx(12.0)
    assert view.waiting_on("T2") == (r2,)
    assert view.can_start(r1) and view.arrival(r2) == 1
    assert view.library_of(r1) == "L0"
    before = dispatcher.timeline.schedule()
    with view.trial(Start(r2)):
        assert not view.is_idle("d0")
        assert view.available_s("d0") == pytest.approx(17 + 10 / 3)
        assert view.head_mb("d0") == 121000
        assert view.idle_count("L0") == 1
        assert view.plan(r1).drives == ("d1",)
    assert view.is_idle("d0") and view.idle_count("L0") == 2
    assert dispatcher.timeline.schedule() == before
    assert view.plan(r2) == (("d0",), 17.0, pytest.approx(17 + 10 / 3))
    with pytest.raises(ValueError, match="not released"):
        view.can_start(r3)


def test_fifo_is_the_default_class_of_the_fifo_solver(spec_instance):
    assert dispatch(spec_instance, Fifo()) == heuristics.fifo(spec_instance).schedule
