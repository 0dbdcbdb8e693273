"""What ``tapesched simulate`` does, called from Python: simulate_file, with_overrides and
run_instance, each refusal naming its setting."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from attrs import evolve

from tapesched.simulator.results.export import ExportError
from tapesched.simulator.results.instance_run import InstanceRun, run_instance
from tapesched.simulator.results.replications import RunOverrides, override, with_overrides
from tapesched.simulator.results.run_directory import Run, RunProgress, scenario_run, simulate_file
from tapesched.simulator.scenario.document import load_scenario
from tapesched.toolkit.errors import InputError, SettingProblem, SettingsError
from tapesched.toolkit.files.instance_file import load_instance
from tests.conftest import INSTANCES

AMPEX = str(INSTANCES / "scenarios" / "ampex.json")
SPEC_EXAMPLE = str(INSTANCES / "spec-example.json")


def test_simulate_file_runs_the_scenario_with_the_settings_and_reports_progress():
    seen: list[RunProgress] = []
    settings = RunOverrides(duration_s=3 * 3600.0, replications=2, seed=4)
    run = simulate_file(AMPEX, settings, progress=seen.append)
    assert isinstance(run, Run)
    expected = scenario_run(override(load_scenario(AMPEX), duration_s=3 * 3600.0,
                                     replications=2, seed=4))  # fmt: skip
    assert run.summary() == expected.summary()
    assert seen and {p.replication for p in seen} == {0, 1}
    last = seen[-1]
    assert (last.replications, last.duration_s, last.total_s) == (2, 3 * 3600.0, 6 * 3600.0)
    assert last.done_s == 3 * 3600.0 + last.now_s


def test_simulate_file_runs_an_instance_as_it_is_and_writes_its_schedule(tmp_path: Path):
    run = simulate_file(SPEC_EXAMPLE, RunOverrides(scheduler="wspt"), log=True)
    assert isinstance(run, InstanceRun)
    assert (run.scheduler, run.report.feasible) == ("wspt", True)
    assert run == run_instance(load_instance(SPEC_EXAMPLE), "wspt", log=True)
    run.write(tmp_path / "out")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["events.jsonl", "schedule.json"]
    assert (tmp_path / "out" / "events.jsonl").read_bytes() == run.events
    assert simulate_file(SPEC_EXAMPLE).scheduler == "fifo"  # type: ignore[union-attr]


def test_an_infeasible_instance_run_writes_nothing(tmp_path: Path):
    run = run_instance(load_instance(SPEC_EXAMPLE))
    bad = evolve(run, report=evolve(run.report, violations=("a violation",)))
    assert not bad.report.feasible
    with pytest.raises(ExportError, match="infeasible; nothing written"):
        bad.write(tmp_path / "out")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("settings", "setting"),
    [
        (RunOverrides(scheduler="no-such-scheduler"), "scheduler"),
        (RunOverrides(mount_policy="defer:x"), "mount_policy"),
        (RunOverrides(striping="1,x"), "striping"),
        (RunOverrides(striping=(1, 1)), "striping"),
    ],
)
def test_with_overrides_names_the_setting_at_fault(settings, setting):
    with pytest.raises(SettingsError) as caught:
        with_overrides(load_scenario(AMPEX), AMPEX, settings)
    assert [p.settings for p in caught.value.problems] == [(setting,)]


def test_with_overrides_refuses_each_bw_main_parameter_unless_bw_main_runs():
    settings = RunOverrides(max_light_load=3, max_imbalance=0.5)
    with pytest.raises(SettingsError) as caught:
        with_overrides(load_scenario(AMPEX), AMPEX, settings)
    why = "only the bw-main scheduler takes it; the scheduler is 'fifo'"
    assert caught.value.problems == [
        SettingProblem(("max_light_load",), why),
        SettingProblem(("max_imbalance",), why),
    ]
    runs = with_overrides(load_scenario(AMPEX), AMPEX, RunOverrides(scheduler="bw-main", **{
        "max_light_load": 3}))  # fmt: skip
    assert runs.run.bw_main.max_light_load == 3


def test_with_overrides_refuses_too_many_arrivals_by_rate_and_duration():
    settings = RunOverrides(rate_per_s=100.0, duration_s=3e5)
    with pytest.raises(SettingsError) as caught:
        with_overrides(load_scenario(AMPEX), AMPEX, settings)
    (problem,) = caught.value.problems
    assert problem.settings == ("rate_per_s", "duration_s")
    assert (
        with_overrides(load_scenario(AMPEX), AMPEX, settings, trace=True).workload.rate_per_s == 100
    )


def test_simulate_file_reports_a_file_of_another_format(tmp_path: Path):
    path = tmp_path / "other.json"
    path.write_text(json.dumps({"format": "something/1"}))
    with pytest.raises(InputError) as caught:
        simulate_file(str(path))
    assert caught.value.lines()[0].startswith(f"{path}: format: expected ")
