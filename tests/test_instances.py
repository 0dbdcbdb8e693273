"""The shipped instances load, their hand-made optima verify, and no heuristic beats them."""

from __future__ import annotations

import json

import pytest

from tapesched import solvers
from tapesched.toolkit.files.instance_file import load_instance
from tapesched.toolkit.files.schedule_file import load_schedule
from tapesched.toolkit.validator import validate

from .conftest import INSTANCES

OPTIMA = json.loads((INSTANCES / "optima.json").read_text())
SHIPPED = sorted(
    p
    for p in INSTANCES.glob("*.json")
    if p.name != "optima.json" and not p.name.endswith(".optimum.json")
)


@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_every_shipped_instance_loads(path):
    instance = load_instance(path)
    assert instance.requests


@pytest.mark.parametrize("name", sorted(OPTIMA))
def test_hand_made_optimum_verifies_with_its_stated_value(name):
    instance = load_instance(INSTANCES / f"{name}.json")
    report = validate(instance, load_schedule(INSTANCES / f"{name}.optimum.json"))
    assert report.feasible, [str(v) for v in report.violations]
    assert instance.objective == OPTIMA[name]["objective"]
    assert report.objective == pytest.approx(OPTIMA[name]["optimum"], rel=1e-9)


@pytest.mark.parametrize("name", sorted(OPTIMA))
@pytest.mark.parametrize("solver", ["greedy"])
def test_no_heuristic_beats_a_hand_made_optimum(name, solver):
    instance = load_instance(INSTANCES / f"{name}.json")
    result = solvers.solve(instance, solver=solver, seed=0)
    report = validate(instance, result.schedule)
    assert report.feasible, [str(v) for v in report.violations]
    assert report.objective >= OPTIMA[name]["optimum"] - 1e-6
    assert result.objective == pytest.approx(report.objective)
