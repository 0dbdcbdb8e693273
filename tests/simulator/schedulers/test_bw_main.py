"""``bw-main``: the Blue Waters paper's MAIN-SCHEDULER and LOAD-BALANCER (Section 5).

Small hand-made platforms with fixed times: one library, movers of a few
drives of 100 MB/s, VERTICAL (a process binds one drive) or PARALLEL (a
process binds ``X + Y``), writes of new files whose sizes set how long they
run (30 GB: 300 s of streaming).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
from attrs import evolve
from click.testing import CliRunner

from tapesched.cli import main
from tapesched.simulator.platform.spec import DriveSpec, LibrarySpec, MoverSpec, PlatformSpec
from tapesched.simulator.platform.technology import DRIVE_MODELS, Duration
from tapesched.simulator.run.admitted import AdmittedRequest
from tapesched.simulator.run.simulation import Simulation
from tapesched.simulator.schedulers.bw_main import BwMain, BwMainParams
from tapesched.simulator.storage.files import FileRequest, FileSpec, Scheme
from tapesched.simulator.storage.policies.policy_registry import make_policy
from tapesched.simulator.workload.workload import Workload
from tests.conftest import INSTANCES

MODEL = evolve(DRIVE_MODELS["LTO-7"], rate_mb_s=100.0, load_s=Duration(5.0), unload_s=Duration(5.0))
LONG_MB = 30_000.0
"""A write of 300 s of streaming."""
SHORT_MB = 100.0
"""A write of 1 s of streaming."""


def platform(*movers: int) -> PlatformSpec:
    """One library of one arm (10 s moves); mover ``k`` has ``movers[k]`` drives."""
    drives = []
    for m, count in enumerate(movers):
        for k in range(count):
            drives.append(DriveSpec(f"m{m}d{k}", "L0", MODEL, f"m{m}"))
    return PlatformSpec(
        libraries=(LibrarySpec("L0", 1, Duration(10.0), Duration(10.0)),),
        drives=tuple(drives),
        movers=tuple(MoverSpec(f"m{m}") for m in range(len(movers))),
        tape_capacity_mb=1_000_000.0,
    )


def writes(*requests: tuple[float, str, float]) -> Workload:
    """Writes of new files, each ``(arrival_s, scheme, size_mb)``, named ``r0, r1, ...``."""
    return Workload(
        initial=(),
        requests=tuple(
            FileRequest(f"r{i}", t, "write", FileSpec(f"f{i}", size, Scheme.parse(scheme)))
            for i, (t, scheme, size) in enumerate(requests)
        ),
    )


def simulate(
    spec: PlatformSpec,
    workload: Workload,
    policy: str = "vertical",
    until_s: float | None = None,
    **params: float,
) -> Simulation:
    simulation = Simulation(
        spec,
        make_policy(policy, block_mb=100.0),
        functools.partial(BwMain, BwMainParams(**params)),  # type: ignore[arg-type]
        workload,
        seed=1,
    )
    simulation.run(until_s)
    return simulation


def scheduler(simulation: Simulation) -> BwMain:
    assert isinstance(simulation.scheduler, BwMain)
    return simulation.scheduler


def done(simulation: Simulation) -> dict[str, AdmittedRequest]:
    return {e.request.id: e for e in simulation.finished}


def drives_of(simulation: Simulation, entry: AdmittedRequest) -> tuple[str, ...]:
    return tuple(simulation.platform.drives[d].id for d in entry.drives)


def dismounts(simulation: Simulation) -> list[tuple[str, str, float]]:
    return [
        (tape, drive, s)
        for op, tape, drive, s, _, _ in simulation.platform.arm_log
        if op == "dismount"
    ]


# MAIN-SCHEDULER.


def test_a_process_is_created_on_a_mover_with_enough_idle_drives_and_bound_to_them():
    """A PARALLEL 2+1 write needs 3 drives: of movers of 2, 4 and 3 drives, the tightest fit."""
    simulation = simulate(platform(2, 4, 3), writes((0.0, "2+1", SHORT_MB)), policy="parallel")
    (process,) = scheduler(simulation).processes[("parallel", Scheme(2, 1))]
    assert process.mover == 2
    assert process.drives == ("m2d0", "m2d1", "m2d2")
    assert sorted(drives_of(simulation, done(simulation)["r0"])) == list(process.drives)


def test_the_process_keeps_its_drives_and_serves_its_type_again():
    simulation = simulate(
        platform(4, 4), writes((0.0, "2+1", SHORT_MB), (500.0, "2+1", SHORT_MB)), policy="parallel"
    )
    records = done(simulation)
    assert drives_of(simulation, records["r0"]) == drives_of(simulation, records["r1"])
    assert len(scheduler(simulation).processes[("parallel", Scheme(2, 1))]) == 1
    assert records["r1"].mounts_before == 0  # mounts during the run: it appends to loaded tapes


@pytest.mark.parametrize(("max_light_load", "processes"), [(1, 1), (0, 2)])
def test_a_request_goes_to_a_light_process_rather_than_a_new_one(max_light_load, processes):
    """The second write arrives while the first runs: its process has one request scheduled,
    light under MAXLIGHTLOAD 1 (the paper's "no more than"), not under 0."""
    simulation = simulate(
        platform(3),
        writes((0.0, "1+0", LONG_MB), (10.0, "1+0", SHORT_MB)),
        max_light_load=max_light_load,
    )
    assert len(scheduler(simulation).processes[("vertical", Scheme(1, 0))]) == processes
    records = done(simulation)
    same_drive = drives_of(simulation, records["r0"]) == drives_of(simulation, records["r1"])
    assert same_drive == (processes == 1)
    if processes == 1:  # behind the first write, in its process
        assert records["r1"].start_s == pytest.approx(records["r0"].done_s)


def test_with_no_light_process_and_no_drives_a_request_joins_the_least_loaded_of_its_type():
    simulation = simulate(
        platform(2),
        writes(*[(float(t), "1+0", LONG_MB) for t in range(5)]),
        max_light_load=0,
    )
    processes = scheduler(simulation).processes[("vertical", Scheme(1, 0))]
    assert len(processes) == 2
    on = [drives_of(simulation, done(simulation)[f"r{i}"]) for i in range(5)]
    assert on == [("m0d0",), ("m0d1",), ("m0d0",), ("m0d1",), ("m0d0",)]


def test_a_request_with_no_process_of_its_type_and_no_drive_waits_in_the_waiting_list():
    simulation = simulate(
        platform(1),
        writes((0.0, "1+0", LONG_MB), (60.0, "2+1", SHORT_MB)),
        until_s=5000.0,
        min_lb_interval_s=10_000.0,
    )
    bw = scheduler(simulation)
    assert list(bw.waiting_list) == ["r1"]
    assert bw.waiting_list["r1"][1] == 60.0
    assert "r1" not in done(simulation) and bw.balancer_runs == []


def test_a_new_type_takes_the_drives_of_a_process_with_nothing_mapped():
    """Two 1+0 processes (MAXLIGHTLOAD 0), one per mover; the first one's write is done by 60 s
    and its drive counts as idle, so the 2+1 write ends that process (its tape ejected: unload
    5 s) and gets a process at once, not at the balancer; the busy process is left alone."""
    simulation = simulate(
        platform(1, 1),
        writes((0.0, "1+0", SHORT_MB), (1.0, "1+0", LONG_MB), (60.0, "2+1", SHORT_MB)),
        max_light_load=0,
        min_lb_interval_s=10_000.0,
    )
    bw = scheduler(simulation)
    records = done(simulation)
    (tape,) = records["r0"].tapes
    assert drives_of(simulation, records["r0"]) == ("m0d0",)
    assert drives_of(simulation, records["r1"]) == ("m1d0",)
    # the idle process on m0 is ended, not the busy one on m1
    assert (tape, "m0d0", 60.0 + MODEL.unload_s.mean_s) in dismounts(simulation)
    assert drives_of(simulation, records["r2"]) == ("m0d0",)
    assert records["r2"].start_s < records["r1"].done_s
    assert [p.drives for p in bw.processes[("vertical", Scheme(1, 0))]] == [("m1d0",)]
    assert [p.drives for p in bw.processes[("vertical", Scheme(2, 1))]] == [("m0d0",)]
    assert bw.balancer_runs == [] and bw.waiting_list == {}


# LOAD-BALANCER: when it runs.


def two_types_on_one_drive(until_s: float | None = None, **params: float) -> Simulation:
    """A long 1+0 write takes the only drive; a 2+1 write arrives at 60 s, while it runs, and
    waits."""
    return simulate(
        platform(1),
        writes((0.0, "1+0", LONG_MB), (60.0, "2+1", SHORT_MB)),
        until_s=until_s,
        **params,
    )


def test_the_balancer_runs_every_min_lb_interval_once_the_oldest_waited_max_waiting_time():
    simulation = two_types_on_one_drive(
        min_lb_interval_s=1000.0, max_waiting_time_s=2500.0, max_req_count=10, max_imbalance=10
    )
    bw = scheduler(simulation)
    assert bw.balancer_runs == [3000.0]  # at 1000 and 2000 it had waited 940 and 1940 s
    # it starts once the idle 1+0 process's tape is ejected: unload 5 s, arm 10 s
    assert done(simulation)["r1"].start_s == pytest.approx(3015.0)


def test_the_balancer_does_not_run_before_min_lb_interval():
    simulation = two_types_on_one_drive(min_lb_interval_s=4000.0, max_waiting_time_s=1.0)
    assert scheduler(simulation).balancer_runs == [4000.0]
    assert done(simulation)["r1"].start_s >= 4000.0


def test_the_balancer_runs_when_the_waiting_list_exceeds_max_req_count():
    requests = [(0.0, "1+0", LONG_MB)] + [(60.0 + i, "2+1", SHORT_MB) for i in range(3)]
    common = {"min_lb_interval_s": 1000.0, "max_waiting_time_s": 1e6, "max_imbalance": 100.0}
    ran = simulate(platform(1), writes(*requests), until_s=1500.0, max_req_count=2, **common)
    kept = simulate(platform(1), writes(*requests), until_s=1500.0, max_req_count=3, **common)
    assert scheduler(ran).balancer_runs == [1000.0]
    assert scheduler(kept).balancer_runs == []
    assert len(scheduler(kept).waiting_list) == 3


def imbalanced(max_imbalance: float) -> Simulation:
    """Type 1+0: seven long writes on one process (load 7); type 2+1: one (load 1)."""
    requests = [(0.0, "1+0", LONG_MB), (1.0, "2+1", LONG_MB)]
    requests += [(2.0 + i, "1+0", LONG_MB) for i in range(6)]
    return simulate(
        platform(4),
        writes(*requests),
        until_s=150.0,
        max_light_load=100,
        min_lb_interval_s=100.0,
        max_waiting_time_s=1e6,
        max_req_count=100,
        max_imbalance=max_imbalance,
    )


@pytest.mark.parametrize(("max_imbalance", "runs"), [(5.9, [100.0]), (6.0, [])])
def test_the_balancer_runs_when_the_imbalance_exceeds_max_imbalance(max_imbalance, runs):
    simulation = imbalanced(max_imbalance)
    assert scheduler(simulation).balancer_runs == runs


# LOAD-BALANCER: what it does.


def test_the_balancer_maps_each_request_to_the_least_loaded_process_of_its_type():
    """The six queued 1+0 writes are reset; the running ones go on; the two idle drives get a
    process each for the one type needed, and the six are dealt to them in turn."""
    simulation = imbalanced(max_imbalance=1.0)
    bw = scheduler(simulation)
    processes = bw.processes[("vertical", Scheme(1, 0))]
    assert [(p.drives, p.load) for p in processes] == [(("m0d2",), 3), (("m0d3",), 3)]
    assert ("vertical", Scheme(2, 1)) not in bw.processes
    simulation.run()
    on = {r: drives_of(simulation, e) for r, e in done(simulation).items()}
    assert on["r0"] == ("m0d0",) and on["r1"] == ("m0d1",)  # they ran to their end
    assert [on[f"r{i}"] for i in range(2, 8)] == [("m0d2",), ("m0d3",)] * 3


def test_terminated_processes_finish_their_running_request_and_eject_their_tapes():
    """At 100 s the balancer ends the 1+0 process while its 300 s write runs: the write ends,
    then its tape is ejected and the drive serves the waiting 2+1 write."""
    simulation = simulate(
        platform(1),
        writes((0.0, "1+0", LONG_MB), (60.0, "2+1", SHORT_MB)),
        min_lb_interval_s=100.0,
        max_waiting_time_s=30.0,
    )
    records = done(simulation)
    first, second = records["r0"], records["r1"]
    assert first.done_s is not None and first.done_s > 300.0  # not cut at 100 s
    (tape,) = first.tapes
    assert (tape, "m0d0", first.done_s + MODEL.unload_s.mean_s) in dismounts(simulation)
    runs = scheduler(simulation).balancer_runs
    assert runs[0] == 100.0 and runs[-1] == 400.0  # the drive is free again by 400 s
    assert second.start_s == pytest.approx(400.0)


def test_the_balancer_ejects_the_tapes_of_idle_processes_at_once():
    simulation = two_types_on_one_drive(min_lb_interval_s=1000.0, max_waiting_time_s=100.0)
    (tape,) = done(simulation)["r0"].tapes
    assert (tape, "m0d0", 1000.0 + MODEL.unload_s.mean_s) in dismounts(simulation)
    assert simulation.platform.drives[0].tape != tape


def test_runs_repeat_and_every_request_is_served():
    requests = [
        (i * 7.0, f"{1 + i % 3}+{i % 2}", LONG_MB if i % 4 == 0 else SHORT_MB) for i in range(40)
    ]
    params = {"min_lb_interval_s": 500.0, "max_waiting_time_s": 100.0, "max_light_load": 1}
    first = simulate(platform(3, 3), writes(*requests), **params)
    second = simulate(platform(3, 3), writes(*requests), **params)
    assert sorted(done(first)) == sorted(f"r{i}" for i in range(40))
    assert [(e.request.id, e.start_s, e.drives) for e in first.finished] == [
        (e.request.id, e.start_s, e.drives) for e in second.finished
    ]


# The command line.


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def small_scenario(tmp_path: Path) -> Path:
    """The Blue Waters scenario cut down: 2 movers of 10 drives, 60 requests/h for 3 h."""
    document = json.loads((INSTANCES / "scenarios" / "blue-waters.json").read_text())
    document["platform"]["drives"][0]["count"] = 20
    document["workload"].update({"rate": "60/h", "duration": "3h", "initial_files": 50})
    document["run"]["scheduler"] = {"name": "bw-main", "max_light_load": 2, "min_lb_interval": "1h"}
    path = tmp_path / "small.json"
    path.write_text(json.dumps(document))
    return path


def test_simulate_with_bw_main_and_its_parameters_exports_a_schedule_the_validator_accepts(
    small_scenario, tmp_path
):
    out = tmp_path / "out"
    code, stdout, err = run(
        "simulate", str(small_scenario), "--scheduler", "bw-main", "--min-lb-interval", "30min",
        "--max-waiting-time", "10min", "--max-req-count", "5", "--max-imbalance", "2.5",
        "--out", str(out),
    )  # fmt: skip
    assert code == 0, err
    assert "vertical, bw-main" in stdout
    assert "exported schedule, checked by the validator" in stdout and "feasible" in stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["scheduler"] == "bw-main"
    assert summary["bw_main"] == {  # the file's, replaced by the options given
        "max_light_load": 2,  # from the file
        "min_lb_interval_s": 1800.0,
        "max_waiting_time_s": 600.0,
        "max_req_count": 5,
        "max_imbalance": 2.5,
    }
    assert summary["replications"][0]["completed"] > 100
    code, stdout, _ = run("verify", str(out / "instance.json"), str(out / "schedule.json"))
    assert (code, stdout.startswith("feasible: ")) == (0, True)


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["--scheduler", "bw-main", "--min-lb-interval", "6"],
         "--min-lb-interval: '6' is ambiguous: give a unit, such as 90s, 2min or 30d"),
        (["--scheduler", "bw-main", "--max-imbalance", "-1"],
         "--max-imbalance: -1.0 is not in the range x>=0."),
        (["--scheduler", "fifo", "--max-req-count", "5"],
         "--max-req-count: only the bw-main scheduler takes it; the scheduler is 'fifo'"),
    ],
)  # fmt: skip
def test_a_bad_bw_main_option_is_one_line_and_exit_2(small_scenario, args, line):
    code, stdout, err = run("simulate", str(small_scenario), *args)
    assert (code, stdout, err) == (2, "", line + "\n")


def test_a_bad_bw_main_parameter_in_the_scenario_file_is_named_by_its_path(small_scenario):
    document = json.loads(small_scenario.read_text())
    document["run"]["scheduler"] = {"name": "bw-main", "min_lb_interval": -5, "max_light_load": 1.5}
    small_scenario.write_text(json.dumps(document))
    code, stdout, err = run("simulate", str(small_scenario))
    assert (code, stdout) == (2, "")
    assert err.splitlines() == [
        f"{small_scenario}: run.scheduler.max_light_load: expected an integer, got 1.5",
        f"{small_scenario}: run.scheduler.min_lb_interval: must be > 0, got -5.0",
    ]
    document["run"]["scheduler"] = {"name": "fifo", "max_light_load": 1}
    small_scenario.write_text(json.dumps(document))
    code, stdout, err = run("simulate", str(small_scenario))
    assert (code, stdout) == (2, "")
    assert err == f"{small_scenario}: run.scheduler.name: must be one of 'bw-main', got 'fifo'\n"


def test_bw_main_is_refused_on_a_core_problem_instance():
    code, stdout, err = run(
        "simulate", str(INSTANCES / "spec-example.json"), "--scheduler", "bw-main"
    )
    assert (code, stdout) == (2, "")
    assert err == "--scheduler: bw-main runs scenarios only (it needs movers and typed requests)\n"
