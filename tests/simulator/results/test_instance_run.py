"""A core-problem instance run in the simulator gives the schedule ``tapesched solve`` gives."""

from __future__ import annotations

import io
import json

import pytest
from attrs import evolve
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tapesched.simulator.results.instance_run import simulate_instance
from tapesched.solvers import solve
from tapesched.solvers.online.heuristics import SCHEDULERS
from tapesched.toolkit.files.instance_file import load_instance
from tapesched.toolkit.model import Instance, Locate
from tapesched.toolkit.strategies import instances
from tapesched.toolkit.validator import validate
from tests.conftest import INSTANCES

SHIPPED = [
    "spec-example.json",
    "spec-example-lto7.json",
    "prefetch.json",
    "offset-order.json",
    "golubchik-ampex-300.json",
]


@pytest.mark.parametrize("scheduler", sorted(SCHEDULERS))
@pytest.mark.parametrize("name", SHIPPED)
def test_simulated_instance_gives_the_solver_schedule(name, scheduler):
    instance = load_instance(INSTANCES / name)
    schedule, events = simulate_instance(instance, scheduler)
    assert schedule == solve(instance, solver=scheduler).schedule
    assert validate(instance, schedule).feasible
    assert events >= 1


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instance=instances(n_requests=(1, 8)))
def test_every_heuristic_gives_the_same_schedule_on_random_instances(instance):
    for scheduler in SCHEDULERS:
        schedule, _ = simulate_instance(instance, scheduler)
        assert schedule == solve(instance, solver=scheduler).schedule


def serpentine(instance: Instance, model: str) -> Instance:
    """``instance`` with every drive locating by ``model`` on LTO-7's geometry."""
    locate = Locate(model, "LTO-7")
    return evolve(instance, drives=[evolve(d, locate=locate) for d in instance.drives])


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instance=instances(n_requests=(1, 8)), model=st.sampled_from(["cta-lto", "physical"]))
def test_serpentine_drives_are_simulated_by_their_locate_model(instance, model):
    instance = serpentine(instance, model)
    for scheduler in ("fifo", "sltf", "tape-batching"):
        schedule, _ = simulate_instance(instance, scheduler)
        assert schedule == solve(instance, solver=scheduler).schedule
        report = validate(instance, schedule)
        assert report.feasible, [str(v) for v in report.violations[:3]]


def test_event_log_is_json_lines_in_time_order(spec_instance):
    log = io.BytesIO()
    simulate_instance(spec_instance, "fifo", log=log)
    lines = [json.loads(line) for line in log.getvalue().splitlines()]
    assert lines and all(line["event"] == "decide" for line in lines)
    times = [line["t"] for line in lines]
    assert times == sorted(times)


def test_unknown_scheduler_is_refused(spec_instance):
    with pytest.raises(KeyError, match="unknown scheduler"):
        simulate_instance(spec_instance, "nope")
