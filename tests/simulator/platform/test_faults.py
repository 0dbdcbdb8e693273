"""Faults on the platform: handling failures, drives failing, tapes lost, and what runs survive."""

from __future__ import annotations

import json
import math
import os

import pytest
from attrs import evolve
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tapesched.simulator.platform.faults import NO_FAULTS, FaultSpec, TapeLoss, handling_given_up
from tapesched.simulator.platform.spec import DriveSpec, LibrarySpec, PlatformSpec
from tapesched.simulator.platform.technology import DRIVE_MODELS, Duration
from tapesched.simulator.results.replications import Replication, run_once
from tapesched.simulator.scenario.spec import RunSettings, Scenario
from tapesched.simulator.storage.data_account import data_account, file_state_in_run, lost_tapes_of
from tapesched.simulator.storage.files import FileRequest, FileSpec, Scheme
from tapesched.simulator.workload.workload import Workload, WorkloadParams
from tests.conftest import INSTANCES as INSTANCES_DIR
from tests.simulator.run.test_simulation import small_files, small_platform

HOUR = 3600.0


def generated(policy: str, faults: FaultSpec | None, seed: int = 4, hours: float = 6.0):
    """A small platform under 40 requests an hour of 10 MB to 2 GB files, with ``faults``.

    Tapes are put away at once, so that every request mounts its tapes.
    """
    params = small_files(40.0, hours)
    run = RunSettings(scheduler="fifo", warmup=0.0)
    platform = evolve(small_platform(20_000.0), dismount="at-once")
    policy_params = {} if policy == "vertical" else {"block_mb": 64.0}
    scenario = Scenario("small", "", platform, policy, policy_params, params, run, faults=faults)
    return run_once(scenario, seed=seed, record=True, to_end=True)


def outcome(run: Replication) -> list[tuple[str, float, float, tuple[str, ...]]]:
    return [(r.id, r.start_s, r.end_s, r.drives) for r in run.records]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"handling_failure": 1.0}, "handling_failure must be within [0, 1)"),
        ({"handling_failure": -0.1}, "handling_failure must be within [0, 1)"),
        ({"attempts": 0}, "attempts must be >= 1"),
        ({"retry_delay_s": -1.0}, "retry_delay_s must be >= 0"),
        ({"drive_failures_per_year": math.inf}, "drive_failures_per_year must be >= 0"),
        ({"drive_repair_s": math.nan}, "drive_repair_s must be >= 0"),
        ({"tape_losses_per_year": -2.0}, "tape_losses_per_year must be >= 0"),
    ],
)
def test_bad_fault_models_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace(")", r"\)")):
        FaultSpec(**kwargs)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((-1.0, "T1"), "at_s must be >= 0"),
        ((0.0, ""), "tape must be a tape id"),
        ((0.0, "T1", 5.0, None), "needs from_mb and to_mb, or neither"),
        ((0.0, "T1", 5.0, 5.0), "0 <= from_mb < to_mb"),
    ],
)
def test_bad_tape_losses_are_refused(args, message):
    with pytest.raises(ValueError, match=message):
        TapeLoss(*args)


def test_a_lost_region_covers_what_meets_it():
    region = TapeLoss(0.0, "T1", 100.0, 200.0)
    assert region.covers(150.0, 160.0) and region.covers(50.0, 101.0)
    assert not region.covers(0.0, 100.0) and not region.covers(200.0, 300.0)
    assert TapeLoss(0.0, "T1").covers(0.0, 1.0) and TapeLoss(0.0, "T1").whole


@pytest.mark.parametrize("policy", ["vertical", "parallel", "rait"])
def test_a_run_under_faults_that_never_strike_is_the_run_without_faults(policy):
    plain = generated(policy, None)
    never = generated(policy, NO_FAULTS)
    assert NO_FAULTS.none and not FaultSpec().none
    assert outcome(never) == outcome(plain)
    assert never.summary == plain.summary


def test_the_same_seed_gives_the_same_faults_and_results():
    faults = FaultSpec(handling_failure=0.2, drive_failures_per_year=2_000.0, drive_repair_s=600.0)
    first, second = generated("parallel", faults), generated("parallel", faults)
    assert outcome(first) == outcome(second)
    assert first.summary == second.summary
    assert first.summary.handling_failures > 0 and first.summary.drive_failures > 0
    other = generated("parallel", faults, seed=5)
    assert outcome(other) != outcome(first)


@pytest.mark.parametrize("policy", ["vertical", "parallel", "rait"])
def test_handling_failures_cost_mounts_and_time_but_lose_no_request(policy):
    """One handling in five fails (tried again after 60 s): every request still ends, later."""
    plain = generated(policy, None)
    faulty = generated(policy, FaultSpec(handling_failure=0.2, attempts=50))
    s = faulty.summary
    assert s.arrived == s.completed + s.failed + s.backlog and s.backlog == 0
    assert s.failed == 0 and s.mounts_given_up == 0  # 50 tries: given up with odds 0.2^50
    assert s.handling_failures > 0 and s.mounts > plain.summary.mounts
    assert s.mean_response_s is not None and plain.summary.mean_response_s is not None
    assert s.mean_response_s > plain.summary.mean_response_s


def test_the_share_of_failed_handlings_is_the_probability():
    """Each mount and dismount fails with probability p, independently: within 4 sigma."""
    p = 0.1
    params = small_files(40.0, 12.0)
    platform = evolve(small_platform(20_000.0), dismount="at-once")
    scenario = Scenario(
        "small", "", platform, "rait", {"block_mb": 64.0}, params,
        RunSettings(warmup=0.0), faults=FaultSpec(handling_failure=p, attempts=50),
    )  # fmt: skip
    run = run_once(scenario, seed=4, record=True, to_end=True)
    handlings = len(run.simulation.platform.arm_log)  # every try, failed or not
    failures = run.summary.handling_failures
    assert handlings > 1000
    assert abs(failures / handlings - p) <= 4 * math.sqrt(p * (1 - p) / handlings)


def test_a_mount_given_up_after_its_attempts_is_rare_as_the_paper_odds_say():
    assert handling_given_up(0.01, 3) == pytest.approx(1e-6)
    assert handling_given_up(0.5, 1) == 0.5


def one_drive_platform() -> PlatformSpec:
    return PlatformSpec(
        libraries=[LibrarySpec("L", 1, Duration(10.0), Duration(10.0))],
        drives=[DriveSpec("d0", "L", DRIVE_MODELS["ampex"])],
        tape_capacity_mb=1000.0,
    )


def test_a_failing_drive_stops_its_job_which_starts_again_after_the_repair():
    """One drive, failing about every 100 s and out 500 s: writes still all end, restarted."""
    spec = one_drive_platform()
    files = [FileSpec(f"f{i}", 300.0, Scheme(1, 0)) for i in range(6)]
    workload = Workload(
        initial=(),
        requests=tuple(FileRequest(f"w{i}", 10.0 * i, "write", f) for i, f in enumerate(files)),
    )
    params = WorkloadParams(rate_per_s=1.0, duration_s=100.0, min_size_mb=1, max_size_mb=1)
    faults = FaultSpec(
        handling_failure=0.0, drive_failures_per_year=365.25 * 864.0, drive_repair_s=500.0
    )
    scenario = Scenario(
        "one", "", spec, "vertical", {}, params, RunSettings(warmup=0.0), faults=faults
    )
    run = run_once(scenario, seed=2, workload=workload, to_end=True)
    s = run.summary
    assert s.completed == 6 and s.failed == 0 and s.backlog == 0
    assert s.drive_failures > 0 and s.restarts > 0
    assert run.simulation.platform.down == set()
    # A restarted write began again after a repair: its start is 500 s past a failure at least.
    restarted = [r for r in run.records if r.restarts]
    assert restarted and all(r.end_s - r.arrival_s >= 500.0 for r in restarted)


def test_faults_are_refused_with_drives_one_at_a_time():
    spec = evolve(one_drive_platform(), dismount="at-once")
    params = WorkloadParams(rate_per_s=0.01, duration_s=100.0, min_size_mb=1, max_size_mb=1)
    scenario = Scenario(
        "g", "", spec, "vertical", {}, params, RunSettings("golubchik"), faults=FaultSpec()
    )
    with pytest.raises(ValueError, match="faults are not modelled with drives one at a time"):
        run_once(scenario, seed=1)


def lost_tape_run(lost: list[str], reads: int = 2):
    """Three 2+1 PARALLEL files at time 0 (one row each, 3 tapes a file), ``lost`` at 0 s,
    then ``reads`` reads of each file an hour apart on four drives."""
    spec = PlatformSpec(
        libraries=[LibrarySpec("L", 2, Duration(10.0), Duration(10.0))],
        drives=[DriveSpec(f"d{i}", "L", DRIVE_MODELS["ampex"]) for i in range(4)],
        tape_capacity_mb=1000.0,
    )
    files = [FileSpec(f"f{i}", 400.0, Scheme(2, 1)) for i in range(3)]
    requests = tuple(
        FileRequest(f"r{k}-{f.id}", 10.0 + 3600.0 * k + i, "read", f)
        for k in range(reads)
        for i, f in enumerate(files)
    )
    params = WorkloadParams(rate_per_s=1.0, duration_s=100.0, min_size_mb=1, max_size_mb=1)
    faults = FaultSpec(handling_failure=0.0, tape_losses=[TapeLoss(0.0, t) for t in lost])
    scenario = Scenario(
        "lost", "", spec, "parallel", {"block_mb": 100.0}, params,
        RunSettings(warmup=0.0), faults=faults,
    )  # fmt: skip
    workload = Workload(initial=tuple(files), requests=requests, own_tapes=True)
    return run_once(scenario, seed=1, workload=workload, to_end=True)


def test_a_read_meeting_a_lost_data_tape_is_rebuilt_and_the_tape_repacked_for_later_reads():
    plain = lost_tape_run([])
    tapes = {f: plain.simulation.catalogue.layout(f).rows[0].tapes for f in ("f0", "f1", "f2")}
    data, parity = tapes["f0"][0], tapes["f0"][2]
    run = lost_tape_run([data])
    sim = run.simulation
    by_id = {r.id: r for r in run.records}
    first, second = by_id["r0-f0"], by_id["r1-f0"]
    assert first.restarts == 1 and first.rebuilt  # stopped on the lost tape, planned again
    assert data not in first.tapes and parity in first.tapes
    # The run repacked the lost tape onto a new one, through the scheduler, from f0's
    # surviving members (the other data tape and the parity), before the second read.
    (repack,) = sim.repacking.started
    new = sim.repacking.replaced[data]
    assert repack.repack == data and repack.done_s is not None and repack.start_s is not None
    assert set(repack.tapes) == {tapes["f0"][1], parity, new}
    assert repack.done_s < second.arrival_s
    assert second.restarts == 0 and not second.rebuilt
    assert new in second.tapes and data not in second.tapes and parity not in second.tapes
    assert not by_id["r0-f1"].rebuilt and by_id["r0-f1"].tapes == plain_tapes(plain, "r0-f1")
    s = run.summary
    assert s.completed == 6 and s.failed == 0 and s.tapes_lost == 1 and s.rebuilt_reads == 1
    assert not sim.repacking.lost_files


def plain_tapes(run: Replication, request: str) -> tuple[str, ...]:
    return next(r.tapes for r in run.records if r.id == request)


def test_a_read_of_a_file_with_more_lost_tapes_than_its_parity_fails_with_its_reason():
    plain = lost_tape_run([])
    f0 = plain.simulation.catalogue.layout("f0").rows[0].tapes
    run = lost_tape_run([f0[0], f0[2]])
    s = run.summary
    assert s.arrived == 6 and s.completed == 4 and s.failed == 2 and s.backlog == 0
    failed = {e.file_request.id: e.failure for e in run.simulation.failed}
    assert set(failed) == {"r0-f0", "r1-f0"}
    assert all("cannot be read" in reason for reason in failed.values())
    assert all(r.file != "f0" for r in run.records)
    # The repack of the tape found first met the second loss: f0 cannot be rebuilt, and
    # with nothing else on the tapes there is nothing left to repack.
    assert (
        set(run.simulation.repacking.lost_files) == {"f0"} and not run.simulation.repacking.started
    )


# --- from the command line and the scenario file ----------------------------------------


def test_simulate_with_fault_options_reports_what_struck(tmp_path):
    from click.testing import CliRunner

    from tapesched.cli import main
    from tests.conftest import INSTANCES

    out = tmp_path / "out"
    args = [
        "simulate", str(INSTANCES / "scenarios" / "ampex.json"), "--duration", "6h",
        "--handling-failure", "0.2", "--drive-failures-per-year", "100",
        "--mover-failures-per-year", "50", "--out", str(out),
    ]  # fmt: skip
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "faults, replication 1:" in result.stdout and "handlings failed" in result.stdout
    assert "no schedule exported: cannot export a run in which faults struck" in result.output
    doc = json.loads((out / "summary.json").read_text())
    assert doc["faults"]["handling_failure"] == 0.2
    assert doc["faults"]["drive_failures_per_year"] == 100.0
    assert doc["faults"]["tape_losses_per_year"] == 0.0
    assert doc["faults"]["mover_failures_per_year"] == 50.0
    rep = doc["replications"][0]
    assert rep["handling_failures"] > 0
    assert rep["arrived"] == rep["completed"] + rep["failed"] + rep["backlog"]
    # Ampex files have no parity: a mount given up (odds 0.2^3 a mount) fails the read.
    failed = doc["failed_requests"][0]
    assert len(failed) == rep["failed"] > 0 and rep["mounts_given_up"] >= rep["failed"]
    for f in failed:
        assert f["kind"] == "read" and f["reason"].startswith("mount of ")
        assert "failed 3 times; file " in f["reason"] and "(Y = 0)" in f["reason"]
    header = (out / "requests.csv").read_text().splitlines()[0].split(",")
    assert header[-2:] == ["restarts", "rebuilt"]


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--handling-failure", "1"),
        ("--handling-failure", "-0.5"),
        ("--tape-losses-per-year", "-1"),
        ("--drive-failures-per-year", "inf"),
        ("--mover-failures-per-year", "-3"),
    ],
)
def test_bad_fault_options_exit_2_naming_the_option(option, value):
    from click.testing import CliRunner

    from tapesched.cli import main
    from tests.conftest import INSTANCES

    args = ["simulate", str(INSTANCES / "scenarios" / "ampex.json"), option, value]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and option in result.stderr
    assert "Traceback" not in result.output


def scenario_with(faults: object) -> dict:
    document = json.loads((INSTANCES_DIR / "scenarios" / "ampex.json").read_text())
    document["faults"] = faults
    return document


@pytest.mark.parametrize(
    ("faults", "problem"),
    [
        ({"handling_failure": 1.5}, "faults.handling_failure: must be within [0, 1)"),
        ({"attempts": 0}, "faults.attempts: must be >= 1"),
        ({"tape_losses": [{"at_s": 1, "tape": "T1", "from_mb": 5}]}, "faults.tape_losses[0]"),
        ({"tape_losses": [{"tape": "T1"}]}, "faults.tape_losses[0].at_s: missing key"),
        ({"drive_failures": 3}, "faults.drive_failures"),
    ],
)
def test_bad_faults_sections_are_named_at_their_path(faults, problem):
    from tapesched.simulator.scenario.document import scenario_from_dict
    from tapesched.toolkit.errors import InputError

    with pytest.raises(InputError) as caught:
        scenario_from_dict(scenario_with(faults), "ampex.json")
    assert problem in str(caught.value)


def test_a_faults_section_gives_the_fault_model_with_its_defaults():
    from tapesched.simulator.scenario.document import scenario_from_dict

    scenario = scenario_from_dict(
        scenario_with({"tape_losses": [{"at_s": 60, "tape": "T000001"}]}), "ampex.json"
    )
    assert scenario.faults == FaultSpec(tape_losses=(TapeLoss(60.0, "T000001"),))
    assert scenario.faults.handling_failure == 0.01  # the paper's, by default


def test_a_failed_mover_takes_its_drives_out_and_its_requests_start_again():
    """Movers failing about twice an hour, out 20 min: every request still ends, later."""
    faults = FaultSpec(
        handling_failure=0.0, mover_failures_per_year=2 * 8766.0, mover_repair_s=1200
    )
    plain, run = generated("parallel", None), generated("parallel", faults)
    s = run.summary
    # Six drives a mover; those still out from the mover's last failure are not struck again.
    assert s.mover_failures > 0 and 6 <= s.drive_failures <= 6 * s.mover_failures
    assert s.completed == s.arrived and s.restarts > 0
    assert s.mean_response_s is not None and plain.summary.mean_response_s is not None
    assert s.mean_response_s > plain.summary.mean_response_s


# --- random fault scripts -----------------------------------------------------------------


def rows_beyond_repair(run: Replication, file_id: str, lost: frozenset[str]) -> bool:
    """Whether some row of the file has more than ``Y`` members with a piece on ``lost``
    (computed here from the layout, apart from the catalogue's own rule)."""
    layout = run.simulation.catalogue.layout(file_id)
    y = layout.file.scheme.parity
    return any(
        sum(any(p.tape in lost for p in m.pieces) for m in row.members) > y for row in layout.rows
    )


@settings(
    max_examples=int(os.environ.get("TAPESCHED_FAULT_EXAMPLES", "20")),
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    policy=st.sampled_from(["vertical", "parallel", "rait"]),
    seed=st.integers(0, 1_000),
    handling=st.floats(0.0, 0.3),
    attempts=st.integers(1, 3),
    drives_per_year=st.sampled_from([0.0, 300.0]),
    losses=st.lists(st.tuples(st.floats(0.0, 3 * HOUR), st.integers(1, 40)), max_size=8),
)
def test_under_random_fault_scripts_no_request_vanishes_and_no_file_is_misreported(
    policy, seed, handling, attempts, drives_per_year, losses
):
    script = [TapeLoss(at_s, f"T{k:06d}") for at_s, k in losses]
    faults = FaultSpec(
        handling_failure=handling,
        attempts=attempts,
        drive_failures_per_year=drives_per_year,
        drive_repair_s=900.0,
        tape_losses=script,
    )
    run = generated(policy, faults, seed=seed, hours=3.0)
    sim, s = run.simulation, run.summary
    # Every request ends, completed or failed with its reason; none is dropped.
    assert s.backlog == 0 and s.arrived == s.completed + s.failed
    assert len({r.id for r in run.records} | {e.file_request.id for e in sim.failed}) == s.arrived
    assert all(e.failure for e in sim.failed)
    # No read started after a tape was lost read it (it was stopped and planned around it).
    # A loss scripted for a tape holding no data yet struck nothing.
    assert all(x in script for x in sim.fault_processes.lost)
    for r in run.records:
        if r.kind == "read":
            assert not any(
                x.tape in r.tapes and x.at_s <= r.start_s for x in sim.fault_processes.lost
            )
    # Each file readable, rebuilt or lost as its rows say, with the still-lost tapes.
    for file_id in sim.catalogue.files():
        hit, still = lost_tapes_of(sim, file_id)
        state = file_state_in_run(sim, file_id)
        assert (state == "lost") == rows_beyond_repair(run, file_id, still)
        assert (state == "readable") == (not hit)
    account = data_account(sim)
    assert account.files == len(list(sim.catalogue.files()))
    if sim.fault_processes.lost:
        assert (account.files_lost, account.lost_mb) == (s.files_lost, s.lost_mb)
    event(f"files rebuilt: {account.files_rebuilt > 0}, lost: {account.files_lost > 0}")


def test_a_plan_folded_to_fewer_drives_reads_the_same_extents_in_turn():
    from tapesched.simulator.storage.files import Extent, JobSpec

    a, b, c, d = (Extent(t, 0.0, 1.0, 1.0) for t in "abcd")
    plan = JobSpec(((a, None, b, c), (None, d, None, None)), memory_mb=5.0, per_block=True)
    folded = plan.folded(2)
    assert folded.phases == ((a, b), (c, None), (d, None))
    assert (folded.width, folded.memory_mb, folded.per_block) == (2, 5.0, True)
    assert plan.folded(4) is plan and plan.folded(1).phases == ((a,), (b,), (c,), (d,))
    with pytest.raises(ValueError, match="at least one drive"):
        plan.folded(0)


def test_the_blue_waters_65h_scenario_has_the_papers_handling_failures():
    from tapesched.simulator.scenario.document import load_scenario

    scenario = load_scenario(INSTANCES_DIR / "scenarios" / "blue-waters-65h.json")
    assert scenario.faults == FaultSpec(handling_failure=0.01, tape_losses_per_year=0.01)
    assert scenario.workload.rate_per_s * 3600 == pytest.approx(65.0)
    assert (scenario.workload.min_size_mb, scenario.workload.max_size_mb) == (1e3, 1e6)
    assert scenario.run.scheduler == "bw-main" and scenario.policy_params["block_mb"] == 192


def test_a_stream_appending_to_a_tape_found_lost_is_retired():
    """w1 and w3 are writes of one type, r2 reads w1's file once its first tape is lost.

    Without the loss, w3 appends to w1's tapes; with it, the read finds the tape
    lost and w3 opens new tapes: no write goes to a tape found lost.
    """
    spec = PlatformSpec(
        libraries=[LibrarySpec("L", 2, Duration(10.0), Duration(10.0))],
        drives=[DriveSpec(f"d{i}", "L", DRIVE_MODELS["ampex"]) for i in range(3)],
        tape_capacity_mb=10_000.0,
    )
    f, g = FileSpec("f", 400.0, Scheme(2, 1)), FileSpec("g", 400.0, Scheme(2, 1))
    requests = (
        FileRequest("w1", 0.0, "write", f),
        FileRequest("r2", 2000.0, "read", f),
        FileRequest("w3", 4000.0, "write", g),
    )
    params = WorkloadParams(rate_per_s=1.0, duration_s=100.0, min_size_mb=1, max_size_mb=1)

    def run(lost: list[TapeLoss]) -> Replication:
        faults = FaultSpec(handling_failure=0.0, tape_losses=lost)
        scenario = Scenario(
            "stream", "", spec, "parallel", {"block_mb": 100.0}, params,
            RunSettings(warmup=0.0), faults=faults,
        )  # fmt: skip
        return run_once(scenario, seed=1, workload=Workload((), requests), to_end=True)

    plain = run([])
    tapes = {r.id: r.tapes for r in plain.records}
    assert tapes["w3"] == tapes["w1"]  # one stream: the second write appends to the first's
    lost = run([TapeLoss(1000.0, tapes["w1"][0])])
    moved = {r.id: r for r in lost.records}
    assert moved["r2"].rebuilt and moved["r2"].restarts == 1
    assert not set(moved["w3"].tapes) & set(tapes["w1"])  # new tapes for the next write
    assert lost.summary.completed == 3 and lost.summary.failed == 0
