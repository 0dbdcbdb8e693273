"""Whole runs: Golubchik's saturation rates, Erlang C on the platform, exports, determinism."""

from __future__ import annotations

import io
import math
import os
import random

import pytest
from attrs import evolve
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tapesched.simulator.platform.spec import DriveSpec, LibrarySpec, MoverSpec, PlatformSpec
from tapesched.simulator.platform.technology import DRIVE_MODELS, Duration
from tapesched.simulator.results.export import ExportError, export
from tapesched.simulator.results.replications import override, run_once
from tapesched.simulator.scenario.document import load_scenario
from tapesched.simulator.scenario.spec import RunSettings, Scenario
from tapesched.simulator.storage.files import FileRequest, FileSpec, Scheme
from tapesched.simulator.storage.policies.policy_registry import POLICIES
from tapesched.simulator.workload.workload import Workload, WorkloadParams
from tapesched.solvers.online.dispatcher import dispatch
from tapesched.solvers.online.heuristics import SCHEDULERS, Sltf
from tapesched.toolkit.files.instance_file import load_instance
from tapesched.toolkit.files.json_documents import dumps
from tapesched.toolkit.files.schedule_file import schedule_to_dict
from tapesched.toolkit.hardware.tape_geometry import CtaCostHeuristic
from tapesched.toolkit.model import Locate, serpentine_tape
from tapesched.toolkit.validator import validate
from tests.conftest import INSTANCES
from tests.simulator.kernel.test_queueing import erlang_c_wait
from tests.solvers.online.test_online_serpentine import Recording

SCENARIOS = INSTANCES / "scenarios"
HOUR = 3600.0


def ampex(schemes: dict[Scheme, float], rate_per_s: float, days: float) -> Scenario:
    """The shipped Ampex scenario with 1 GB reads of the given stripe widths."""
    scenario = load_scenario(SCENARIOS / "ampex.json")
    workload = evolve(
        scenario.workload, schemes=schemes, rate_per_s=rate_per_s, duration_s=days * 86400
    )
    return evolve(scenario, workload=workload)


@pytest.mark.paper
@pytest.mark.parametrize(
    "width, capacity_per_s",
    [(1, 4 / 147), (4, 1 / 147)],
    ids=["unstriped", "striped-4"],
)
def test_golubchik_saturation_rates_on_ampex(width, capacity_per_s):
    """At 0.9 of ``k mu`` the run keeps up, at 1.2 it is saturated (Golubchik et al. 1994, §3).

    Unstriped: 4 servers of 147 s, ``4/147`` requests/s; striped over 4: one
    super-server of 147 s, ``1/147``.
    """
    schemes = {Scheme(width, 0): 1.0}
    below = run_once(ampex(schemes, 0.9 * capacity_per_s, days=6), seed=1).summary
    above = run_once(ampex(schemes, 1.2 * capacity_per_s, days=6), seed=1).summary
    assert not below.saturated and below.mean_response_s is not None
    assert below.drive_busy_share_over_horizon == pytest.approx(0.9, abs=0.04)
    assert above.saturated and above.mean_response_s is None
    assert above.drive_busy_share_over_horizon > 0.99


def test_golubchik_no_load_response_on_ampex():
    """A lone 1 GB read: arm 10 s, load 5 s, locate to its offset, 80 s of transfer."""
    scenario = ampex({Scheme(1, 0): 1.0}, 1e-6, days=1)
    workload = Workload(
        initial=(FileSpec("f", 12_500.0, Scheme(1, 0)), FileSpec("g", 1000.0, Scheme(1, 0))),
        requests=(FileRequest("r", 10.0, "read", FileSpec("g", 1000.0, Scheme(1, 0))),),
    )
    (record,) = run_once(scenario, seed=1, workload=workload).records
    assert record.response_s == pytest.approx(10 + 5 + 12_500 / 500 + 80)
    assert record.free_s - record.arrival_s == pytest.approx(147.0)


@pytest.mark.paper  # 6 s: a long M/M/c run against the closed form
def test_mean_wait_on_the_platform_matches_erlang_c():
    """Exponential service on 4 drives whose arms and drive times take nothing: M/M/4.

    Writes of new files of exponential sizes, VERTICAL 1+0, so each takes
    one drive for ``size / rate``; five seeded replications of 8,000
    requests at load 0.8, the first tenth dropped.
    """
    model = evolve(
        DRIVE_MODELS["LTO-7"], load_s=Duration(0.0), unload_s=Duration(0.0), locate_mb_s=1e12
    )
    spec = PlatformSpec(
        libraries=[LibrarySpec("L", 1, Duration(0.0), Duration(0.0))],
        drives=[DriveSpec(f"d{i}", "L", model) for i in range(4)],
        tape_capacity_mb=1e12,
    )
    service_s, servers, load = 100.0, 4, 0.8
    rate = load * servers / service_s
    n = 8_000
    params = WorkloadParams(
        rate_per_s=rate, duration_s=n / rate, min_size_mb=1, max_size_mb=1, read_share=0.0
    )
    scenario = Scenario("mmc", "", spec, "vertical", {}, params, RunSettings(warmup=0.0))
    waits = []
    for seed in range(5):
        rng = random.Random(seed)
        t = 0.0
        requests = []
        for i in range(n):
            t += rng.expovariate(rate)
            size = rng.expovariate(1 / (service_s * model.rate_mb_s))
            requests.append(FileRequest(f"r{i}", t, "write", FileSpec(f"f{i}", size, Scheme(1, 0))))
        run = run_once(scenario, seed, workload=Workload((), tuple(requests)))
        kept = [r for r in run.records if r.arrival_s >= requests[n // 10].arrival_s]
        waits.append(sum(r.start_s - r.arrival_s for r in kept) / len(kept))
    mean = sum(waits) / len(waits)
    half = 2.776 * math.sqrt(sum((w - mean) ** 2 for w in waits) / 4) / math.sqrt(5)
    expected = erlang_c_wait(rate, 1 / service_s, servers)
    assert abs(mean - expected) <= half + 0.05 * expected


def small_platform(capacity_mb: float) -> PlatformSpec:
    model = evolve(DRIVE_MODELS["LTO-7"], locate_mb_s=2000.0, block_s=0.01)
    return PlatformSpec(
        libraries=[LibrarySpec("L", 2, Duration(8.0), Duration(6.0))],
        drives=[DriveSpec(f"d{i}", "L", model, mover=f"m{i // 6}") for i in range(12)],
        movers=[MoverSpec("m0", memory_mb=10_000), MoverSpec("m1", memory_mb=10_000)],
        tape_capacity_mb=capacity_mb,
    )


EXPORT_EXAMPLES = int(os.environ.get("TAPESCHED_EXPORT_EXAMPLES", "30"))
"""Random workloads whose exports are validated (raise it to search harder)."""

SMALL_SCHEMES = {Scheme(1, 0): 0.25, Scheme(2, 1): 0.25, Scheme(3, 2): 0.25, Scheme(4, 2): 0.25}


def under(policy: str, params: WorkloadParams) -> WorkloadParams:
    """``params`` as ``policy`` writes them: SINGLE keeps one copy, so its files are 1+0."""
    return evolve(params, schemes={Scheme(1, 0): 1.0}) if policy == "single" else params


def small_files(rate_per_h: float, hours: float) -> WorkloadParams:
    """Files of 10 MB to 2 GB in :data:`SMALL_SCHEMES`, 30 of them written first."""
    return WorkloadParams(
        rate_per_s=rate_per_h / HOUR,
        duration_s=hours * HOUR,
        min_size_mb=10,
        max_size_mb=2_000,
        schemes=SMALL_SCHEMES,
        initial_files=30,
    )


@settings(
    max_examples=EXPORT_EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@example("hetero", "backfill", 1442, 51.0, 3000.0, "on-demand")  # a PARALLEL fill, fixed
@example("hetero", "greedy", 63, 91.0, 3000.0, "on-demand")  # one tape in two drives, fixed
@example("vertical", "sltf", 1110, 44.0, 3000.0, "on-demand")  # loaded yet unable to start
@given(
    policy=st.sampled_from(sorted(POLICIES)),
    scheduler=st.sampled_from(sorted(SCHEDULERS)),
    seed=st.integers(0, 10_000),
    rate_per_h=st.floats(5, 120),
    capacity_mb=st.sampled_from([3_000.0, 20_000.0]),
    dismount=st.sampled_from(["on-demand", "at-once"]),
)
def test_exported_schedules_pass_the_validator(
    policy, scheduler, seed, rate_per_h, capacity_mb, dismount
):
    params = under(policy, small_files(rate_per_h, 6))
    spec = evolve(small_platform(capacity_mb), dismount=dismount)
    scenario = Scenario(
        "h", "", spec, policy, {"block_mb": 64.0}, params, RunSettings(scheduler=scheduler)
    )
    run = run_once(scenario, seed)
    instance, schedule = export(run.simulation)
    report = validate(instance, schedule)
    assert report.feasible, [str(v) for v in report.violations[:3]]
    assert len(schedule.requests) >= len(run.records)


def serpentine(spec: PlatformSpec, block_s: float = 0.0) -> PlatformSpec:
    """``spec`` with every drive locating by CTA's LTO cost heuristic on LTO-7's geometry."""
    locate = Locate("cta-lto", "LTO-7")
    return evolve(
        spec,
        drives=[
            evolve(d, model=evolve(d.model, locate=locate, block_s=block_s)) for d in spec.drives
        ],
    )


@pytest.mark.parametrize("scheduler", ["fifo", "sltf", "tape-batching", "greedy"])
@pytest.mark.parametrize("policy", ["parallel", "rait", "vertical"])
def test_serpentine_runs_export_schedules_the_validator_accepts(policy, scheduler):
    spec = serpentine(small_platform(3_000.0))
    scenario = Scenario(
        "s", "", spec, policy, {"block_mb": 64.0}, small_files(60, 6),
        RunSettings(scheduler=scheduler),
    )  # fmt: skip
    run = run_once(scenario, 5)
    instance, schedule = export(run.simulation)
    assert instance.locate_paths and not instance.drives[0].linear
    report = validate(instance, schedule)
    assert report.feasible, [str(v) for v in report.violations[:3]]


def test_a_simulated_sltf_orders_a_serpentine_tapes_reads_on_the_platforms_tape():
    orderer = Recording()
    scenario = Scenario(
        "s", "", serpentine(small_platform(3_000.0)), "parallel", {"block_mb": 64.0},
        small_files(120, 6), RunSettings(scheduler=lambda: Sltf(orderer=orderer)),
    )  # fmt: skip
    run = run_once(scenario, 5)
    assert orderer.calls
    tape = serpentine_tape("LTO-7", 3_000.0)
    assert all((t, m) == (tape, CtaCostHeuristic()) for t, m, _, _ in orderer.calls)
    instance, schedule = export(run.simulation)
    assert validate(instance, schedule).feasible


class LocatesChecked:
    """``sltf``, checking at each decision that the run shows each loaded request's locate
    as the drive model times it from the head on the platform's tape."""

    def __init__(self, capacity_mb: float) -> None:
        self.inner = Sltf()
        self.capacity_mb = capacity_mb
        self.checked = 0

    def decide(self, now, waiting, platform):
        for request in waiting:
            if platform.loaded(request):
                expected = 0.0
                for piece in request.pieces:
                    drive = platform.holder(piece.tape)
                    head = platform.head_mb(drive)
                    expected = max(
                        expected,
                        Locate("cta-lto", "LTO-7").locate_s(
                            head, piece.offset_mb, self.capacity_mb
                        ),
                    )
                assert platform.locate_s(request) == expected
                self.checked += 1
        return self.inner.decide(now, waiting, platform)


def test_a_simulated_scheduler_sees_serpentine_locates_from_the_heads():
    checker = LocatesChecked(3_000.0)
    scenario = Scenario(
        "s", "", serpentine(small_platform(3_000.0)), "parallel", {"block_mb": 64.0},
        small_files(120, 6), RunSettings(scheduler=lambda: checker),
    )  # fmt: skip
    run_once(scenario, 5)
    assert checker.checked > 0


def test_a_serpentine_run_streamed_past_the_tape_capacity_is_not_exported():
    spec = serpentine(small_platform(3_000.0), block_s=0.01)
    scenario = Scenario(
        "s", "", spec, "rait", {"block_mb": 64.0}, small_files(60, 6),
        RunSettings(scheduler="sltf"),
    )  # fmt: skip
    run = run_once(scenario, 5)
    with pytest.raises(ExportError, match="streamed past the platform's tape capacity"):
        export(run.simulation)


@pytest.mark.parametrize("scheduler", sorted(SCHEDULERS))
@pytest.mark.parametrize("policy", sorted(POLICIES))
def test_every_heuristic_runs_every_policy_on_the_platform(policy, scheduler):
    params = WorkloadParams(
        rate_per_s=20 / HOUR,
        duration_s=12 * HOUR,
        min_size_mb=10,
        max_size_mb=5_000,
        schemes=SMALL_SCHEMES,
        initial_files=40,
    )
    params = under(policy, params)
    scenario = Scenario(
        "all", "", small_platform(20_000.0), policy, {"block_mb": 64.0}, params,
        RunSettings(scheduler=scheduler),
    )  # fmt: skip
    run = run_once(scenario, seed=3)
    assert not run.summary.saturated
    assert run.summary.completed >= run.summary.arrived - 3
    assert all(r.end_s >= r.start_s >= r.arrival_s for r in run.records)


def test_same_seed_gives_byte_identical_results():
    scenario = override(
        load_scenario(SCENARIOS / "blue-waters.json"),
        policy="parallel",
        scheduler="stretch",
        duration_s=2 * HOUR,
    )

    def outputs(seed: int) -> tuple[str, str, bytes]:
        log = io.BytesIO()
        run = run_once(scenario, seed, log=log)
        _, schedule = export(run.simulation)
        records = "\n".join(repr(r) for r in run.records)
        return records + repr(run.summary), dumps(schedule_to_dict(schedule)), log.getvalue()

    first = outputs(7)
    assert first == outputs(7)
    assert first[0] != outputs(8)[0]
    assert first[2].count(b"\n") > 100


def test_exponential_times_cannot_be_exported():
    scenario = override(load_scenario(SCENARIOS / "ampex.json"), duration_s=HOUR)
    lib = scenario.platform.libraries[0]
    randomised = evolve(
        scenario.platform, libraries=(evolve(lib, mount_s=Duration(10.0, "exponential")),)
    )
    run = run_once(evolve(scenario, platform=randomised), seed=1)
    with pytest.raises(ExportError, match="exponential"):
        export(run.simulation)


def two_libraries(pass_through_s: float | None) -> Scenario:
    """Two Ampex libraries of one drive each, 1 GB tapes, files of 1 GB: one file a tape."""
    spec = PlatformSpec(
        libraries=[LibrarySpec(lib, 1, Duration(10.0), Duration(10.0)) for lib in ("L0", "L1")],
        drives=[DriveSpec(f"{lib}-d", lib, DRIVE_MODELS["ampex"]) for lib in ("L0", "L1")],
        tape_capacity_mb=1000.0,
        pass_through_s=None if pass_through_s is None else Duration(pass_through_s),
    )
    params = WorkloadParams(rate_per_s=1.0, duration_s=1000.0, min_size_mb=1, max_size_mb=1)
    return Scenario("two", "", spec, "vertical", {}, params, RunSettings(warmup=0.0))


def test_a_pass_through_lets_a_drive_of_another_library_read_a_tape():
    """r2's tape is in L0, whose one drive reads r1: L1's drive takes it through the port."""
    f, g = (FileSpec(name, 1000.0, Scheme(1, 0)) for name in ("f", "g"))
    workload = Workload(
        initial=(f, g),
        requests=(FileRequest("r1", 0.0, "read", f), FileRequest("r2", 1.0, "read", g)),
    )
    joined = run_once(two_libraries(30.0), seed=1, workload=workload)
    by_id = {r.id: r for r in joined.records}
    assert by_id["r1"].drives == ("L0-d",) and by_id["r1"].end_s == pytest.approx(10 + 5 + 80)
    assert by_id["r2"].drives == ("L1-d",)
    assert by_id["r2"].end_s == pytest.approx(1 + 10 + 30 + 5 + 80)
    assert joined.simulation.platform.pass_throughs == 1
    with pytest.raises(ExportError, match="pass-through"):
        export(joined.simulation)
    apart = run_once(two_libraries(None), seed=1, workload=workload)
    later = {r.id: r for r in apart.records}["r2"]
    assert later.drives == ("L0-d",) and later.start_s == pytest.approx(95.0)


@pytest.mark.parametrize("disk_mb, concurrent", [(1000.0, False), (2000.0, True)])
def test_a_vertical_stream_keeps_its_parity_room_on_its_movers_disk(disk_mb, concurrent):
    """Each open 2+1 VERTICAL stream holds one tape's worth of disk on its mover.

    With room for one stream, a second write of the type waits for the first
    stream; with room for two, it opens its own stream at once.
    """
    spec = PlatformSpec(
        libraries=[LibrarySpec("L", 2, Duration(10.0), Duration(10.0))],
        drives=[DriveSpec(f"d{i}", "L", DRIVE_MODELS["ampex"], mover="m") for i in range(2)],
        movers=[MoverSpec("m", disk_mb=disk_mb)],
        tape_capacity_mb=1000.0,
    )
    params = WorkloadParams(rate_per_s=1.0, duration_s=1000.0, min_size_mb=1, max_size_mb=1)
    scenario = Scenario("disk", "", spec, "vertical", {}, params, RunSettings(warmup=0.0))
    files = [FileSpec(name, 100.0, Scheme(2, 1)) for name in ("a", "b")]
    workload = Workload(
        initial=(),
        requests=tuple(FileRequest(f"w{i}", float(i), "write", f) for i, f in enumerate(files)),
    )
    run = run_once(scenario, seed=1, workload=workload)
    first, second = sorted(run.records, key=lambda r: r.arrival_s)
    assert (second.start_s < first.end_s) == concurrent
    mover = run.simulation.platform.movers[0]
    assert mover.disk_mb == (2 if concurrent else 1) * 1000.0


def overlapping(intervals: list[tuple[float, float]], limit: int) -> bool:
    """Whether more than ``limit`` of the half-open intervals overlap at some time."""
    events = sorted(
        [(a, 1) for a, b in intervals if b > a] + [(b, -1) for a, b in intervals if b > a]
    )
    live = 0
    for _, step in events:
        live += step
        if live > limit:
            return True
    return False


def joined_libraries(capacity_mb: float) -> PlatformSpec:
    """Two libraries of 6 drives (one mover each), joined by a pass-through port."""
    model = evolve(DRIVE_MODELS["LTO-7"], locate_mb_s=2000.0, block_s=0.01)
    libraries = [LibrarySpec(lib, 1, Duration(8.0), Duration(6.0)) for lib in ("L0", "L1")]
    return PlatformSpec(
        libraries=libraries,
        drives=[
            DriveSpec(f"{lib}-d{i}", lib, model, mover=f"{lib}-m") for lib in ("L0", "L1")
            for i in range(6)
        ],
        movers=[MoverSpec("L0-m", memory_mb=10_000), MoverSpec("L1-m", memory_mb=10_000)],
        tape_capacity_mb=capacity_mb,
        pass_through_s=Duration(20.0),
    )  # fmt: skip


def platform_rules_hold(run: object, arms_per_library: dict[str, int]) -> None:
    """No library's arms carry more tapes than it has arms, no tape is in two drives,
    and no drive streams twice at once."""
    platform = run.simulation.platform  # type: ignore[attr-defined]
    by_library: dict[str, list[tuple[float, float]]] = {}
    for op in platform.arm_log:
        by_library.setdefault(op[5], []).append((op[3], op[4]))
    for library, spans in by_library.items():
        assert not overlapping(spans, arms_per_library[library])
    held: dict[str, list[tuple[float, float]]] = {}
    mounted: dict[tuple[str, str], float] = {}
    for op, tape, drive, start, end, _ in platform.arm_log:
        if op == "mount":
            mounted[(tape, drive)] = start
        else:
            held.setdefault(tape, []).append((mounted.pop((tape, drive)), end))
    for (tape, _), start in mounted.items():
        held.setdefault(tape, []).append((start, math.inf))
    assert not any(overlapping(spans, 1) for spans in held.values())
    streams: dict[str, list[tuple[float, float]]] = {}
    for t in platform.transfers:
        for drive in t.drives:
            streams.setdefault(drive, []).append((t.start_s, t.end_s))
    assert not any(overlapping(spans, 1) for spans in streams.values())


def randomised(spec: PlatformSpec) -> PlatformSpec:
    """``spec`` with exponential arm and load times of the same means."""
    libraries = tuple(
        evolve(
            lib,
            mount_s=Duration(lib.mount_s.mean_s, "exponential"),
            dismount_s=Duration(lib.dismount_s.mean_s, "exponential"),
        )
        for lib in spec.libraries
    )
    model = evolve(spec.drives[0].model, load_s=Duration(15.0, "exponential"))
    drives = tuple(evolve(d, model=model) for d in spec.drives)
    return evolve(spec, libraries=libraries, drives=drives)


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(
    policy=st.sampled_from(sorted(POLICIES)),
    scheduler=st.sampled_from(sorted(SCHEDULERS)),
    seed=st.integers(0, 10_000),
    rate_per_h=st.floats(5, 150),
    joined=st.booleans(),
)
def test_runs_with_exponential_times_keep_the_platform_rules(
    policy, scheduler, seed, rate_per_h, joined
):
    """No arm carries two tapes, no tape is in two drives, no drive streams twice at once.

    On one library, or on two joined by a pass-through port.
    """
    spec = randomised(joined_libraries(3_000.0) if joined else small_platform(3_000.0))
    params = under(policy, small_files(rate_per_h, 4))
    scenario = Scenario(
        "x", "", spec, policy, {"block_mb": 64.0}, params, RunSettings(scheduler=scheduler)
    )
    run = run_once(scenario, seed)
    assert all(r.arrival_s <= r.start_s <= r.end_s <= r.free_s for r in run.records)
    platform_rules_hold(run, {lib.id: lib.arms for lib in spec.libraries})


class _Watched:
    """A scheduler of :data:`SCHEDULERS`, checking at each decision what the protocol promises.

    The waiting requests come in arrival order (ranks rising), each listed
    on its tapes; an idle drive is available now, and the idle counts are
    those of the idle drives. ``seen`` gets ``(now, ids, ranks)`` of each call.
    """

    def __init__(self, name: str, seen: list[tuple[float, list[str], list[int]]]) -> None:
        self.inner = SCHEDULERS[name]()
        self.seen = seen

    def decide(self, now, waiting, platform):
        ranks = [platform.arrival(r) for r in waiting]
        assert ranks == sorted(set(ranks))
        for request in waiting:
            assert platform.is_waiting(request)
            for piece in request.pieces:
                on_tape = [platform.arrival(r) for r in platform.waiting_on(piece.tape)]
                assert platform.arrival(request) in on_tape and on_tape == sorted(on_tape)
        idle = platform.idle_drives()
        assert all(platform.available_s(d) == now for d in idle)
        assert sum(platform.idle_counts()) == len(idle) == sum(map(platform.is_idle, idle))
        self.seen.append((now, [r.id for r in waiting], ranks))
        return self.inner.decide(now, waiting, platform)


def test_a_request_held_behind_its_file_arrives_when_it_is_admitted():
    """r2 reads f, which r1 reads: it becomes waiting once r1's data is done, after r3.

    Arrival is the order in which requests became waiting, in the simulator
    as in the dispatcher: r2, released before r3, is shown after it and
    ranked after it, and fifo serves r3 first on the one drive.
    """
    spec = PlatformSpec(
        libraries=[LibrarySpec("L", 1, Duration(10.0), Duration(10.0))],
        drives=[DriveSpec("d", "L", DRIVE_MODELS["ampex"])],
        tape_capacity_mb=1000.0,
    )
    seen: list[tuple[float, list[str], list[int]]] = []
    params = WorkloadParams(rate_per_s=1.0, duration_s=1000.0, min_size_mb=1, max_size_mb=1)
    run_settings = RunSettings(scheduler=lambda: _Watched("fifo", seen), warmup=0.0)
    scenario = Scenario("one", "", spec, "vertical", {}, params, run_settings)
    f, g = (FileSpec(name, 600.0, Scheme(1, 0)) for name in ("f", "g"))
    workload = Workload(
        initial=(f, g),
        requests=(
            FileRequest("r1", 0.0, "read", f),
            FileRequest("r2", 1.0, "read", f),
            FileRequest("r3", 2.0, "read", g),
        ),
    )
    run = run_once(scenario, seed=1, workload=workload)
    start = {r.id: r.start_s for r in run.records}
    assert start["r1"] < start["r3"] < start["r2"]
    both = [(ids, ranks) for _, ids, ranks in seen if len(ids) == 2]
    assert both and all(ids == ["r3", "r2"] and ranks == [1, 2] for ids, ranks in both)
    simulation = run.simulation
    assert simulation.dispatch_state is simulation.platform.dispatch_state
    assert not simulation.dispatch_state.waiting and simulation.dispatch_state.arrived == 3


@pytest.mark.parametrize("name", ["fifo", "wspt", "backfill"])
def test_both_loops_show_what_the_protocol_promises(name):
    """The same checks at every decision of the dispatcher and of a simulated scenario."""
    instance = load_instance(INSTANCES / "golubchik-ampex-300.json")
    seen: list[tuple[float, list[str], list[int]]] = []
    dispatch(instance, _Watched(name, seen))
    by_release = sorted(instance.requests, key=lambda r: r.release_s)
    rank = {r.id: k for k, r in enumerate(by_release)}
    assert max(len(ids) for _, ids, _ in seen) > 1
    assert all(ranks == [rank[i] for i in ids] for _, ids, ranks in seen)
    seen.clear()
    scenario = override(
        load_scenario(SCENARIOS / "ampex.json"),
        scheduler=lambda: _Watched(name, seen),
        duration_s=4 * HOUR,
        rate_per_s=0.03,
    )
    run_once(scenario, seed=3)
    assert max(len(ids) for _, ids, _ in seen) > 1
