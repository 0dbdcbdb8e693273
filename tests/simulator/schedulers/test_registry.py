"""The simulator's own schedulers on the one Registry: by name, by entry point, refused where
they cannot run, and never among the solvers' schedulers."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from tapesched.simulator.schedulers.bw_main import BwMain, BwMainParams
from tapesched.simulator.schedulers.golubchik import Golubchik
from tapesched.simulator.schedulers.registry import (
    BW_MAIN,
    ENTRY_POINT_GROUP,
    GOLUBCHIK,
    SIMULATOR_SCHEDULERS,
    is_simulator_scheduler,
    scenarios_only,
    simulator_scheduler,
)
from tapesched.solvers.registry import SCHEDULERS
from tests.cli.archives.test_cli_simulate import run
from tests.conftest import INSTANCES, dist_info

GOLUBCHIK_AMPEX = str(INSTANCES / "scenarios" / "golubchik" / "ampex.json")
SPEC = str(INSTANCES / "spec-example.json")


def test_the_simulators_schedulers_are_declared_once_and_are_no_solvers_schedulers():
    assert SIMULATOR_SCHEDULERS.names() == (BW_MAIN, GOLUBCHIK) == ("bw-main", "golubchik")
    assert SIMULATOR_SCHEDULERS[BW_MAIN] is BwMain
    assert SIMULATOR_SCHEDULERS[GOLUBCHIK] is Golubchik
    assert not set(SIMULATOR_SCHEDULERS) & set(SCHEDULERS)
    assert SIMULATOR_SCHEDULERS.group == ENTRY_POINT_GROUP == "tapesched.simulator_schedulers"


def test_a_spec_is_looked_up_among_them_first_and_passed_on_otherwise():
    assert simulator_scheduler(GOLUBCHIK) is Golubchik
    made = simulator_scheduler(BW_MAIN, BwMainParams(max_req_count=7))
    assert isinstance(made, functools.partial)
    assert made().params == BwMainParams(max_req_count=7)
    assert simulator_scheduler(BW_MAIN)().params == BwMainParams()
    for spec in ("fifo", "nope", "module.path:Attr", Golubchik):
        assert simulator_scheduler(spec) is spec
        assert not is_simulator_scheduler(spec)
    assert scenarios_only(BW_MAIN) == "it needs movers and typed requests"


def test_an_installed_packages_simulator_scheduler_runs_a_scenario(tmp_path, monkeypatch):
    dist_info(
        tmp_path,
        "more-gangs",
        ENTRY_POINT_GROUP,
        {
            "my-gangs": "tapesched.simulator.schedulers.golubchik:Golubchik",
            "fifo": "tapesched.simulator.schedulers.golubchik:Golubchik",
        },
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert is_simulator_scheduler("my-gangs") and simulator_scheduler("my-gangs") is Golubchik
    # A name of the solvers' schedulers stays theirs.
    assert not is_simulator_scheduler("fifo") and simulator_scheduler("fifo") == "fifo"
    (hidden,) = [p for p in SIMULATOR_SCHEDULERS.plugins() if p.name == "fifo"]
    assert hidden.hidden == "the registry has a scheduler of that name"

    args = ["--duration", "6h", "--replications", "1", "--json"]
    code, stdout, err = run("simulate", GOLUBCHIK_AMPEX, "--scheduler", "my-gangs", *args)
    assert code == 0, err
    plugged = json.loads(stdout)
    code, stdout, _ = run("simulate", GOLUBCHIK_AMPEX, "--scheduler", GOLUBCHIK, *args)
    assert code == 0
    assert plugged["scheduler"] == "my-gangs"
    assert plugged["replications"] == json.loads(stdout)["replications"]

    document = json.loads(Path(GOLUBCHIK_AMPEX).read_text())
    document["run"]["scheduler"] = "my-gangs"
    document["workload"]["duration"] = "6h"
    document["run"]["replications"] = 1
    scenario = tmp_path / "my-gangs.json"
    scenario.write_text(json.dumps(document))
    code, stdout, err = run("simulate", str(scenario), "--json")
    assert code == 0, err
    assert json.loads(stdout)["replications"] == plugged["replications"]

    code, stdout, err = run("simulate", SPEC, "--scheduler", "my-gangs")
    assert (code, stdout) == (2, "")
    assert err == "--scheduler: my-gangs runs scenarios only (it is a scheduler of the simulator)\n"


def test_the_simulators_schedulers_run_no_instance_and_say_why():
    for name, why in (
        (BW_MAIN, "it needs movers and typed requests"),
        (GOLUBCHIK, "it gives drives one at a time"),
    ):
        code, stdout, err = run("simulate", SPEC, "--scheduler", name)
        assert (code, stdout, err) == (2, "", f"--scheduler: {name} runs scenarios only ({why})\n")
