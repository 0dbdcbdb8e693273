"""The guide's "Write your own scheduler" (docs/guide/plug-ins.md), run as it says: Python,
the command line, a package.

The example's code is read from that page (the block after the marker
``<!-- example: most_wanted.py -->``) and saved as ``most_wanted.py`` in a
temporary directory put on ``sys.path`` (``PYTHONPATH`` for the
subprocesses), so that the page shows what runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from tapesched.cli import main
from tapesched.simulator.results.export import export
from tapesched.simulator.results.instance_run import simulate_instance
from tapesched.simulator.results.replications import override, run_once, run_scenario
from tapesched.simulator.run.simulation import Simulation
from tapesched.simulator.scenario.document import load_scenario
from tapesched.simulator.workload.workload import generate
from tapesched.solvers import solve
from tapesched.solvers.bounds.bounds import lower_bound
from tapesched.solvers.plugins import ENTRY_POINT_GROUP
from tapesched.toolkit.files.instance_file import load_instance
from tapesched.toolkit.files.schedule_file import load_schedule
from tapesched.toolkit.model import Drive, Instance, Library, Piece, Request, Tape
from tapesched.toolkit.validator import validate
from tests.conftest import INSTANCES, ROOT, dist_info
from tests.docs.documents import doc_block

README = ROOT / "README.md"
SPEC = str(INSTANCES / "spec-example.json")
STRIPED = str(INSTANCES / "golubchik-exabyte-striped-200.json")
AMPEX = str(INSTANCES / "scenarios" / "ampex.json")
TAPESCHED = str(Path(sys.executable).parent / "tapesched")
CLASS = "most_wanted:MostWantedTape"


PLUG_INS = ROOT / "docs" / "guide" / "plug-ins.md"
"""The page "Your own scheduler, experiment and plug-ins"."""


@pytest.fixture
def example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The guide's example as ``most_wanted.py`` on ``sys.path``; the directory holding it."""
    (tmp_path / "most_wanted.py").write_text(doc_block("most_wanted.py"))
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("most_wanted", None)
    yield tmp_path
    sys.modules.pop("most_wanted", None)


def tapesched(directory: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The installed command, with ``directory`` on ``PYTHONPATH``."""
    env = {**os.environ, "PYTHONPATH": str(directory)}
    return subprocess.run(
        [TAPESCHED, *args], capture_output=True, text=True, check=False, env=env, cwd=directory
    )


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def own_tapes(n: int) -> Instance:
    """Two drives, ``n`` reads each on a tape of its own, released 20 s apart."""
    return Instance(
        name="own-tapes",
        libraries=(Library("L0", 1, 10, 8),),
        drives=tuple(Drive(f"d{i}", "L0", 100, 5, 7, 1000) for i in range(2)),
        tapes=tuple(Tape(f"T{k}", "L0", 100000) for k in range(n)),
        requests=tuple(
            Request(f"r{k}", 20.0 * (k // 2), 1.0, "read", (Piece(f"T{k}", 1000.0 * k, 3000),))
            for k in range(n)
        ),
    )


def test_the_example_is_a_complete_twenty_line_module():
    code = doc_block("most_wanted.py")
    lines = [line for line in code.splitlines() if line.strip()]
    assert 15 <= len(lines) <= 25
    namespace: dict[str, object] = {}
    exec(compile(code, "most_wanted.py", "exec"), namespace)
    assert callable(getattr(namespace["MostWantedTape"], "decide", None))


@pytest.mark.usefixtures("example")
def test_from_python_the_class_an_object_and_its_name_give_one_schedule():
    from most_wanted import MostWantedTape

    instance = load_instance(STRIPED)
    schedule, events = simulate_instance(instance, MostWantedTape)
    assert events > len(instance.requests)
    assert simulate_instance(instance, MostWantedTape())[0] == schedule
    assert simulate_instance(instance, CLASS)[0] == schedule
    report = validate(instance, schedule)
    assert report.feasible
    assert sorted(r.id for r in schedule.requests) == sorted(r.id for r in instance.requests)
    result = solve(instance, solver=MostWantedTape())
    assert (result.solver, result.status) == (CLASS, "feasible")
    assert result.schedule == schedule
    assert result.bound == lower_bound(instance)
    assert result.objective == report.objective
    # The guide's figures: about half fifo's weighted flow, near wspt's.
    assert result.objective == pytest.approx(1_730_510, abs=1)
    assert solve(instance, solver="fifo").objective == pytest.approx(3_487_517, abs=1)
    assert solve(instance, solver="wspt").objective == pytest.approx(1_657_795, abs=1)


@pytest.mark.usefixtures("example")
def test_when_every_request_reads_its_own_tape_it_is_fifo():
    # Every tape is wanted by one request and none is loaded but by a done
    # request: the ranking falls to the oldest, which is fifo without gangs.
    instance = own_tapes(9)
    schedule, _ = simulate_instance(instance, CLASS)
    assert validate(instance, schedule).feasible
    assert schedule == simulate_instance(instance, "fifo")[0]


@pytest.mark.usefixtures("example")
def test_the_readme_usage_block_runs(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    namespace: dict[str, object] = {}
    exec(compile(doc_block("usage"), "usage", "exec"), namespace)
    instance, schedule, result = namespace["instance"], namespace["schedule"], namespace["result"]
    assert isinstance(instance, Instance)
    assert schedule == result.schedule
    assert result.bound == lower_bound(instance)
    runs, estimates = namespace["runs"], namespace["estimates"]
    assert len(runs) == 5
    assert all(r.summary.completed > 0 and not r.summary.saturated for r in runs)
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith(f"{CLASS} feasible 1730509.58")
    assert printed[1] == str(estimates["mean_response_s"])


@pytest.mark.usefixtures("example")
def test_a_scenario_run_to_its_end_completes_every_request_and_exports_a_valid_schedule():
    from most_wanted import MostWantedTape

    scenario = override(load_scenario(AMPEX), rate_per_s=90 / 3600, duration_s=4 * 3600)
    trace = generate(scenario.workload, 3)
    runs, _ = run_scenario(scenario, scheduler=MostWantedTape, workload=trace)
    assert len(runs) == scenario.run.replications
    for replication in runs:
        assert replication.summary.backlog == 0
        assert replication.summary.completed == len(trace.requests)
    first = runs[0].simulation
    assert first is not None and type(first.scheduler).__name__ == "MostWantedTape"
    # Each replication makes a scheduler of its own (the ones after the first are dropped
    # as they end, and run_once makes them the same way).
    own = override(scenario, scheduler=MostWantedTape)
    second = run_once(own, scenario.run.seed + 1, workload=trace, to_end=True)
    assert second.summary == runs[1].summary
    assert second.simulation is not None and second.simulation.scheduler is not first.scheduler
    exported = export(first, name="ampex-most-wanted")
    assert validate(*exported).feasible


@pytest.mark.usefixtures("example")
def test_a_simulation_takes_the_object_or_its_name():
    from most_wanted import MostWantedTape

    from tapesched.simulator.storage.policies.policy_registry import make_policy

    scenario = override(load_scenario(AMPEX), duration_s=3 * 3600)
    runs = []
    for given in (MostWantedTape(), CLASS, "fifo"):
        simulation = Simulation(
            scenario.platform,
            make_policy(scenario.policy, **scenario.policy_params),
            given,
            generate(scenario.workload, 1),
            seed=1,
        )
        simulation.run(scenario.workload.duration_s)
        runs.append(simulation)
    assert [type(r.scheduler).__name__ for r in runs] == ["MostWantedTape"] * 2 + ["Fifo"]
    assert runs[0].finished and len(runs[0].finished) == len(runs[1].finished)
    assert [e.done_s for e in runs[0].finished] == [e.done_s for e in runs[1].finished]


def test_from_the_command_line_as_module_class(example):
    out = example / "out"
    done = tapesched(example, "simulate", SPEC, "--scheduler", CLASS, "--out", str(out))
    assert (done.returncode, done.stderr) == (0, "")
    assert f"two-drives-three-reads: 3 requests under {CLASS}" in done.stdout
    assert "feasible: 3 requests" in done.stdout
    instance = load_instance(SPEC)
    assert load_schedule(out / "schedule.json") == simulate_instance(instance, "fifo")[0]

    schedule_file = example / "mw.json"
    done = tapesched(example, "solve", STRIPED, "--solver", CLASS, "--out", str(schedule_file))
    assert (done.returncode, done.stderr) == (0, "")
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"solver {CLASS}: status feasible")
    assert f"bound: {lower_bound(load_instance(STRIPED)):.6f}" in lines
    assert "objective weighted-flow: 1730509.583196" in lines
    assert tapesched(example, "verify", STRIPED, str(schedule_file)).returncode == 0


@pytest.mark.usefixtures("example")
def test_simulate_a_scenario_and_compare_in_process(tmp_path):
    out = tmp_path / "ampex"
    code, stdout, _ = run(
        "simulate", AMPEX, "--scheduler", CLASS, "--duration", "6h", "--replications", "2",
        "--out", str(out),
    )  # fmt: skip
    assert code == 0, stdout
    assert f"ampex: parallel, {CLASS}" in " ".join(stdout.split())
    summary = json.loads((out / "summary.json").read_text())
    assert summary["scheduler"] == CLASS
    assert [r["saturated"] for r in summary["replications"]] == [False, False]

    scenario = json.loads(Path(AMPEX).read_text())
    scenario["run"] = {"scheduler": CLASS, "replications": 1}
    scenario["workload"]["duration"] = "3h"
    scenario_file = tmp_path / "mine.json"
    scenario_file.write_text(json.dumps(scenario))
    code, stdout, _ = run("simulate", str(scenario_file), "--allow-plugins")
    assert code == 0 and CLASS in " ".join(stdout.split())
    scenario["run"]["scheduler"] = "most_wanted:Nothing"
    scenario_file.write_text(json.dumps(scenario))
    code, stdout, err = run("simulate", str(scenario_file), "--allow-plugins")
    assert (code, stdout) == (2, "")
    assert err == (
        f"{scenario_file}: run.scheduler: most_wanted:Nothing: "
        "module 'most_wanted' has no attribute 'Nothing'\n"
    )

    code, stdout, _ = run("compare", SPEC, STRIPED, "--solvers", f"fifo,{CLASS}", "--json")
    assert code == 0
    rows = {(r["instance"], r["solver"]): r for r in json.loads(stdout)}
    assert rows[(STRIPED, CLASS)]["objective"] == pytest.approx(1_730_509.583, abs=1e-3)
    assert rows[(STRIPED, CLASS)]["bound"] == pytest.approx(lower_bound(load_instance(STRIPED)))
    assert rows[(SPEC, CLASS)]["objective"] == rows[(SPEC, "fifo")]["objective"]


@pytest.mark.usefixtures("example")
@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["simulate", SPEC, "--scheduler", "most_wanted:Nothing"],
         "--scheduler: most_wanted:Nothing: module 'most_wanted' has no attribute 'Nothing'"),
        (["simulate", AMPEX, "--scheduler", "nowhere:X"],
         "--scheduler: nowhere:X: cannot import module 'nowhere': "
         "ModuleNotFoundError: No module named 'nowhere'"),
        (["solve", SPEC, "--solver", "most_wanted:Start", "--out", "{out}"],
         "--solver: most_wanted:Start: cannot make a scheduler: TypeError: "),
        (["compare", SPEC, "--solvers", "fifo,most_wanted:Nothing,magic"],
         "--solvers: most_wanted:Nothing: module 'most_wanted' has no attribute 'Nothing'"),
    ],
)  # fmt: skip
def test_a_spec_that_gives_no_scheduler_is_one_line_and_exit_2(tmp_path, args, line):
    out = tmp_path / "never.json"
    code, stdout, err = run(*(a.format(out=out) for a in args))
    assert code == 2
    assert stdout == ""
    assert err.splitlines()[0].startswith(line)
    assert not out.exists()


def test_the_readme_error_line_is_what_the_command_prints(example):
    done = tapesched(example, "simulate", SPEC, "--scheduler", "most_wanted:Nothing")
    assert done.returncode == 2 and done.stdout == ""
    text = PLUG_INS.read_text(encoding="utf-8")
    assert f"\n{done.stderr.strip()}\n" in text
    assert done.stderr.count("\n") == 1


def _install(example: Path) -> Path:
    """The guide's entry-point declaration as an installed package's metadata beside the module."""
    declared = tomllib.loads(doc_block("entry points"))
    entries = declared["project"]["entry-points"][ENTRY_POINT_GROUP]
    return dist_info(example, "most-wanted", ENTRY_POINT_GROUP, entries)


def test_an_installed_package_declares_it_by_name(example, tmp_path):
    _install(example)
    readme_line = next(
        line.strip()
        for line in PLUG_INS.read_text(encoding="utf-8").splitlines()
        if line.strip().startswith("most-wanted: plug-in scheduler")
    )
    code, stdout, _ = run("solvers")
    assert code == 0
    lines = stdout.splitlines()
    assert lines[0].startswith("backfill: ")
    assert lines[-2] == f"plug-in schedulers (entry points of the group {ENTRY_POINT_GROUP}):"
    assert lines[-1] == readme_line
    assert "most_wanted" not in sys.modules  # listed, not imported

    code, stdout, _ = run("simulate", SPEC, "--scheduler", "most-wanted")
    assert code == 0 and "3 requests under most-wanted" in stdout
    schedule_file = tmp_path / "ep.json"
    code, stdout, _ = run("solve", STRIPED, "--solver", "most-wanted", "--out", str(schedule_file))
    assert code == 0 and stdout.startswith("solver most-wanted: status feasible")
    assert load_schedule(schedule_file) == simulate_instance(load_instance(STRIPED), CLASS)[0]

    done = tapesched(example, "solvers")
    assert done.returncode == 0
    assert done.stdout.splitlines()[-1] == readme_line


def test_without_plug_ins_the_listing_says_so():
    code, stdout, _ = run("solvers")
    assert code == 0
    assert stdout.splitlines()[-1] == (
        f"no plug-in schedulers (entry points of the group {ENTRY_POINT_GROUP})"
    )


def test_the_listing_as_json_names_solvers_and_plug_ins(example):
    _install(example)
    code, stdout, _ = run("solvers", "--json")
    assert code == 0
    document = json.loads(stdout)
    names = [s["name"] for s in document["solvers"]]
    assert names == sorted(names) and {"greedy", "fifo", "cpsat"} <= set(names)
    online = {s["name"] for s in document["solvers"] if s["online"]}
    assert "fifo" in online and "cpsat" not in online and "local-search" not in online
    assert all(s["description"] for s in document["solvers"])
    [plugin] = [p for p in document["plugins"] if p["name"] == "most-wanted"]
    assert plugin["value"] == CLASS
    assert plugin["hidden"] is None
