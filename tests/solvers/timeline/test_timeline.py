"""The placement timeline: decode, plans and commits, trials, online and offline modes.

Every schedule is held to the independent validator.
"""

from __future__ import annotations

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tapesched.solvers.greedy import greedy, release_order
from tapesched.solvers.timeline.timeline import Timeline, decode
from tapesched.toolkit.files.instance_file import load_instance
from tapesched.toolkit.generators import RandomParams, random_instance
from tapesched.toolkit.model import Instance, Schedule
from tapesched.toolkit.strategies import instances
from tapesched.toolkit.validator import validate

from ...conftest import INSTANCES

SPEC_OPTIMUM = 19.17667
SHIPPED = sorted(
    p
    for p in INSTANCES.glob("*.json")
    if p.name != "optima.json" and not p.name.endswith(".optimum.json")
)


def feasible(instance: Instance, schedule: Schedule) -> float:
    """Hold ``schedule`` to the validator; return its recomputed objective."""
    report = validate(instance, schedule)
    assert report.feasible, [str(v) for v in report.violations]
    assert schedule.objective is not None
    assert report.objective == pytest.approx(schedule.objective.value, rel=1e-9, abs=1e-9)
    return report.objective


@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_decoding_the_release_order_online_is_greedy(path):
    instance = load_instance(path)
    order = [instance.requests[j].id for j in release_order(instance)]
    assert decode(instance, order, online=True) == greedy(instance).schedule


def test_decode_takes_indices_as_well_as_ids(spec_instance):
    assert decode(spec_instance, [1, 2, 0]) == decode(spec_instance, ["r2", "r3", "r1"])


def test_the_spec_optimum_is_one_order_and_one_choice_of_drives_away(spec_instance):
    # Offline, r2 locates on d0 from 0 s (12-15.333), T1 is mounted into d1
    # at 0-10 and located by 30 for r3 (d0 locates back by 27.433), and r1
    # follows on d1 after locating back 5.1 s: the optimum of the spec.
    order = ["r2", "r3", "r1"]
    drives = {"r1": ["d1"], "r2": ["d0"], "r3": ["d1", "d0"]}
    schedule = decode(spec_instance, order, drives)
    assert feasible(spec_instance, schedule) == pytest.approx(SPEC_OPTIMUM, abs=1e-5)
    assert decode(spec_instance, order) == schedule
    # Online, r2 cannot locate before its release at 5 s.
    online = decode(spec_instance, order, drives, online=True)
    assert feasible(spec_instance, online) > SPEC_OPTIMUM + 1


def test_offline_decoding_prefetches():
    instance = load_instance(INSTANCES / "prefetch.json")
    offline = decode(instance, ["late"])
    assert feasible(instance, offline) == pytest.approx(10.0)
    assert [(o.op, o.start_s) for o in offline.operations] == [("mount", 0.0)]
    assert feasible(instance, decode(instance, ["late"], online=True)) == pytest.approx(25.0)


def test_a_partial_order_schedules_only_its_requests(spec_instance):
    schedule = decode(spec_instance, ["r2"])
    assert [r.id for r in schedule.requests] == ["r2"]
    assert schedule.objective is not None
    assert schedule.objective.value == pytest.approx(12 + 10 / 3 - 5)


@pytest.mark.parametrize(
    ("order", "drives", "message"),
    [
        (["r9"], None, "unknown request 'r9'"),
        ([7], None, "no request of index 7"),
        (["r1", "r1"], None, "already placed"),
        (["r1"], {"r1": ["d0", "d1"]}, "has 1 pieces, given 2 drives"),
        (["r3"], {"r3": ["d0", "d0"]}, "drives given twice"),
        (["r1"], {"r1": ["dX"]}, "unknown drive 'dX'"),
    ],
)
def test_decode_refuses_bad_orders_and_drives(spec_instance, order, drives, message):
    with pytest.raises(ValueError, match=message):
        decode(spec_instance, order, drives)


def test_drives_of_another_library_are_refused():
    instance = random_instance(RandomParams(n_requests=5, n_libraries=2, max_gang=1), 1)
    request = instance.requests[0]
    library = instance.tape_by_id[request.pieces[0].tape].library
    other = next(d.id for d in instance.drives if d.library != library)
    with pytest.raises(ValueError, match="is not a drive of library"):
        decode(instance, [request.id], {request.id: [other]})


def test_online_mode_refuses_work_before_a_release(spec_instance):
    timeline = Timeline(spec_instance, online=True)
    with pytest.raises(ValueError, match="before its release"):
        timeline.plan("r2", earliest=1.0)
    assert Timeline(spec_instance).plan("r2", earliest=1.0).start == pytest.approx(13.0)


def test_a_plan_changes_nothing_and_commits_as_placed(spec_instance):
    timeline = Timeline(spec_instance)
    timeline.place("r2")
    before = timeline.schedule()
    plan = timeline.plan("r3")
    assert timeline.schedule() == before
    assert not timeline.is_placed("r3")
    timeline.commit(plan)
    placed = Timeline(spec_instance)
    placed.place("r2")
    assert placed.place("r3") == plan
    assert timeline.schedule() == placed.schedule()
    assert timeline.placement("r3") == (plan.drives, plan.start, plan.end)


def test_a_stale_plan_is_refused_and_a_trial_keeps_plans_valid(spec_instance):
    timeline = Timeline(spec_instance)
    plan = timeline.plan("r3")
    with timeline.trial():
        timeline.place("r1")
        timeline.dismount(timeline.drive_index["d0"])
    timeline.commit(plan)
    with pytest.raises(ValueError, match="another state"):
        timeline.commit(timeline.plan("r1")._replace(stamp=-1))
    stale = timeline.plan("r1")
    timeline.place("r2")
    with pytest.raises(ValueError, match="another state"):
        timeline.commit(stale)


def test_an_interrupt_inside_a_trial_is_not_turned_into_an_undo_error(spec_instance, monkeypatch):
    # Ctrl-C may come between logging an arm slot and reserving it; undoing
    # then would fail ("not busy on lane 0") and hide the interrupt.
    timeline = Timeline(spec_instance)
    d0 = timeline.drive_index["d0"]
    arms = timeline.arms[timeline.library_of[d0]]

    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(type(arms), "reserve", interrupted)
    with pytest.raises(KeyboardInterrupt), timeline.trial():
        timeline.dismount(d0)


def test_an_error_inside_a_trial_undoes_it(spec_instance):
    timeline = Timeline(spec_instance)
    with pytest.raises(RuntimeError), timeline.trial():
        timeline.place("r1")
        raise RuntimeError
    assert timeline.schedule() == Timeline(spec_instance).schedule()


def test_dismount_unloads_then_takes_an_arm(spec_instance):
    timeline = Timeline(spec_instance, online=True)
    d0 = timeline.drive_index["d0"]
    assert timeline.dismount(d0, earliest=3.0) == (23.0, 33.0)
    assert timeline.tape_in(d0) is None and timeline.holder("T2") is None
    assert timeline.back_s("T2") == 33.0 and timeline.available_s(d0) == 33.0
    with pytest.raises(ValueError, match="holds no tape"):
        timeline.dismount(d0)


def test_drives_chosen_among_idle_ones(spec_instance):
    # With d1 busy with r1 until 58.333 s, only d0 is idle at 0 s: r2 reads
    # T2 there. At 30 s the gang r3 finds no idle drive for T1 (held by the
    # busy d1), d0 holding its other tape.
    timeline = Timeline(spec_instance, online=True)
    timeline.place("r1", drives=[timeline.drive_index["d1"]])
    plan = timeline.plan("r2", idle_at=0.0)
    assert plan.drives == (timeline.drive_index["d0"],)
    with pytest.raises(ValueError, match="too few drives"):
        timeline.place("r3", earliest=30.0, idle_at=30.0)


@st.composite
def decodings(draw: st.DrawFn) -> tuple[Instance, list[str], dict[str, list[str]], bool]:
    """An instance, an order of some of its requests, drives for some, and a mode."""
    instance = draw(instances(n_requests=(0, 10), drives_per_library=(1, 4), max_gang=(1, 3)))
    order = draw(st.permutations([r.id for r in instance.requests]))
    order = order[: draw(st.integers(0, len(order)))] if draw(st.booleans()) else order
    drives: dict[str, list[str]] = {}
    for rid in order:
        request = instance.request_by_id[rid]
        if draw(st.booleans()):
            library = instance.tape_by_id[request.pieces[0].tape].library
            ids = [d.id for d in instance.drives_of_library[library]]
            chosen = draw(st.permutations(ids))[: len(request.pieces)]
            drives[rid] = chosen
    return instance, order, drives, draw(st.booleans())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(decodings())
def test_every_decoding_is_feasible(case):
    instance, order, drives, online = case
    schedule = decode(instance, order, drives, online=online)
    assert [r.id for r in schedule.requests] == [r.id for r in instance.requests if r.id in order]
    if len(order) == len(instance.requests):
        feasible(instance, schedule)
    else:
        partial = attrs.evolve(instance, requests=[instance.request_by_id[rid] for rid in order])
        feasible(partial, schedule)
    if online:
        releases = {r.id: r.release_s for r in instance.requests}
        assert all(r.start_s >= releases[r.id] for r in schedule.requests)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(decodings(), st.data())
def test_a_trial_leaves_no_trace(case, data):
    instance, order, drives, online = case
    split = data.draw(st.integers(0, len(order)))
    timeline = Timeline(instance, online=online)
    index = timeline.drive_index

    def place(e: Timeline, rid: str) -> None:
        given_drives = drives.get(rid)
        e.place(rid, drives=None if given_drives is None else [index[d] for d in given_drives])

    for rid in order[:split]:
        place(timeline, rid)
    with timeline.trial():
        for rid in order[split:]:
            place(timeline, rid)
        held = [d for d in range(len(instance.drives)) if timeline.tape_in(d) is not None]
        if held:
            timeline.dismount(held[0])
    for rid in order[split:]:
        place(timeline, rid)
    assert timeline.schedule() == decode(instance, order, drives, online=online)
