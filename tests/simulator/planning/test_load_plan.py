"""A load file planned in one call (simulator.planning.load_plan.plan_file)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tapesched.simulator.planning.load_plan import plan_file
from tapesched.simulator.planning.sizing import load_load, plan, what_if
from tapesched.toolkit.errors import InputError, SettingsError
from tests.simulator.planning.test_sizing import SMALL_LOAD


@pytest.fixture
def load_file(tmp_path: Path) -> str:
    path = tmp_path / "load.json"
    path.write_text(json.dumps(SMALL_LOAD))
    return str(path)


def test_plan_file_is_the_plan_of_the_scaled_load(load_file):
    planned = plan_file(load_file, cache_scale=0.5)
    scaled = what_if(load_load(load_file), cache_scale=0.5)
    assert planned.load == scaled and planned.computed == plan(scaled)
    assert planned.scaled and planned.checked is None
    document = planned.to_dict()
    assert document == {**plan(scaled).to_dict(), "scales": document["scales"]}
    assert document["scales"] == {"bytes": 1.0, "file": 1.0, "cache": 0.5}
    assert not plan_file(load_file).scaled


def test_plan_file_checks_on_the_drives_given_with_its_seed(load_file):
    planned = plan_file(load_file, check=True, drives=3, seed=2, days=0.5)
    assert planned.checked is not None and planned.checked.drives == 3
    check = planned.to_dict()["check"]
    assert isinstance(check, dict)
    assert (check["seed"], check["days"], check["drives"]) == (2, 0.5, 3)


def test_plan_file_refuses_a_check_that_would_draw_too_much(load_file):
    with pytest.raises(SettingsError) as caught:
        plan_file(load_file, check=True, bytes_scale=1e6, days=30)
    (problem,) = caught.value.problems
    assert problem.settings == ("check",)
    assert problem.message.startswith(f"{load_file} at these scales expects ")
    assert plan_file(load_file, bytes_scale=1e6, days=30).checked is None


def test_plan_file_reports_a_bad_file_by_its_path(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("{}")
    with pytest.raises(InputError) as caught:
        plan_file(str(path))
    assert caught.value.source == str(path)
