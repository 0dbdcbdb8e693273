"""The platform in time: Golubchik's no-load closed forms, arms, switches, movers, bad specs."""

from __future__ import annotations

import random

import pytest
from attrs import evolve
from hypothesis import given, settings
from hypothesis import strategies as st

from tapesched.simulator.kernel.engine import Engine
from tapesched.simulator.platform import state as platform_state
from tapesched.simulator.platform.platform import Platform
from tapesched.simulator.platform.spec import DriveSpec, LibrarySpec, MoverSpec, PlatformSpec
from tapesched.simulator.platform.state import Job, TapesSeen
from tapesched.simulator.platform.technology import DRIVE_MODELS, Duration
from tapesched.simulator.storage.files import Extent, JobSpec
from tapesched.toolkit.metrics import streaming_drive_s
from tapesched.toolkit.model import Drive, Locate

AMPEX = DRIVE_MODELS["ampex"]
HALF_TAPE_MB = AMPEX.capacity_mb / 2


def ampex(dismount: str = "at-once", arms: int = 1) -> PlatformSpec:
    """The Ampex DST800 library of Golubchik et al. (1994): 1 arm, 4 drives, 10 s arm moves."""
    return PlatformSpec(
        libraries=[LibrarySpec("L", arms, Duration(10.0), Duration(10.0))],
        drives=[DriveSpec(f"d{i}", "L", AMPEX) for i in range(4)],
        tape_capacity_mb=AMPEX.capacity_mb,
        dismount=dismount,  # type: ignore[arg-type]
    )


class Run:
    """A platform on an engine, with the times each job's data and drives were done."""

    def __init__(self, spec: PlatformSpec) -> None:
        self.engine = Engine()
        self.freed: list[tuple[float, int]] = []
        self.platform = Platform(
            spec, self.engine, random.Random(0), lambda d: self.freed.append((self.engine.now_s, d))
        )
        self.data: dict[str, float] = {}
        self.done: dict[str, float] = {}

    def job(self, key: str, plan: JobSpec, drives: list[int]) -> Job:
        job = Job(
            key,
            plan,
            drives,
            lambda j: self.data.__setitem__(j.key, self.engine.now_s),
            lambda j: self.done.__setitem__(j.key, self.engine.now_s),
        )
        self.platform.start(job)
        return job


def striped_read(width: int, size_mb: float = 1000.0, prefix: str = "t") -> JobSpec:
    """A file of ``size_mb`` striped evenly over ``width`` tapes, each share at mid-tape."""
    share = size_mb / width
    phase = tuple(Extent(f"{prefix}{i}", HALF_TAPE_MB, share, share) for i in range(width))
    return JobSpec(phases=(phase,))


def test_unstriped_1gb_request_on_ampex_takes_147_s_with_no_load():
    """C + L + T = 47 + 20 + 80 (Golubchik, Muntz and Watson 1994, Section 3)."""
    run = Run(ampex())
    run.job("r", striped_read(1), [0])
    run.engine.run()
    assert run.data["r"] == pytest.approx(10 + 5 + 25 + 80)
    assert run.done["r"] == pytest.approx(47 + 20 + 80)


def test_1gb_request_striped_over_4_tapes_on_ampex_takes_147_s_with_no_load():
    """C + 4 L + T / 4 = 47 + 80 + 20: one arm serialises the four mounts and dismounts."""
    run = Run(ampex())
    run.job("r", striped_read(4), [0, 1, 2, 3])
    run.engine.run()
    assert run.data["r"] == pytest.approx(4 * 10 + 5 + 25 + 20)
    assert run.done["r"] == pytest.approx(47 + 4 * 20 + 80 / 4)
    mounts = [op for op in run.platform.arm_log if op[0] == "mount"]
    assert [op[3] for op in mounts] == [0, 10, 20, 30]


def test_loads_go_before_unloads_on_a_busy_arm():
    """A mount asked while dismounts queue goes first (one arm, FIFO within each class)."""
    run = Run(ampex())
    run.job("a", striped_read(2, prefix="a"), [0, 1])
    run.engine.run(until_s=100.0)
    # a's data ends at 20 + 5 + 25 + 40 = 90; its drives unload until 107.
    assert run.data["a"] == pytest.approx(90.0)
    run.engine.run(until_s=108.0)
    run.job("b", striped_read(1, prefix="b"), [2])
    run.engine.run()
    ops = [(op[0], op[1], op[3]) for op in run.platform.arm_log]
    # At 107 one dismount takes the arm and the other queues; b's mount, asked at 108,
    # passes the queued dismount.
    assert ops[2:5] == [
        ("dismount", "a0", pytest.approx(107.0)),
        ("mount", "b0", pytest.approx(117.0)),
        ("dismount", "a1", pytest.approx(127.0)),
    ]


def test_on_demand_keeps_the_tape_and_a_second_read_only_locates():
    run = Run(ampex(dismount="on-demand"))
    run.job("a", striped_read(1), [0])
    run.engine.run()
    assert run.done["a"] == pytest.approx(120.0)
    assert run.platform.drives[0].tape == "t0"
    back = JobSpec(phases=((Extent("t0", 0.0, 500.0, 500.0),),))
    run.job("b", back, [0])
    run.engine.run()
    # From the head at 13,500 MB back to 0: 27 s of locate, then 40 s of transfer.
    assert run.data["b"] == pytest.approx(120 + 27 + 40)
    assert run.platform.mounts == 1


@pytest.mark.parametrize("model", ["cta-lto", "physical"])
def test_a_serpentine_drive_locates_by_its_model_on_the_platforms_tape(model):
    serpentine = evolve(AMPEX, locate=Locate(model, "LTO-7"))
    spec = evolve(ampex(dismount="on-demand"), drives=[DriveSpec("d0", "L", serpentine)])
    drive = Drive(
        "d0", "L", AMPEX.rate_mb_s, 5.0, 17.0, AMPEX.locate_mb_s, locate=Locate(model, "LTO-7")
    )
    run = Run(spec)
    run.job("a", striped_read(1), [0])
    run.engine.run()
    first_s = drive.locate_s(0.0, HALF_TAPE_MB, AMPEX.capacity_mb)
    assert first_s != pytest.approx(25.0)  # not the linear half-tape search
    assert run.data["a"] == pytest.approx(10 + 5 + first_s + 80)
    back = JobSpec(phases=((Extent("t0", 0.0, 500.0, 500.0),),))
    run.job("b", back, [0])
    run.engine.run()
    back_s = drive.locate_s(HALF_TAPE_MB + 1000.0, 0.0, AMPEX.capacity_mb)
    assert run.data["b"] == pytest.approx(run.done["a"] + back_s + 40)


def test_a_tape_in_another_idle_drive_is_put_away_there_first():
    run = Run(ampex(dismount="on-demand"))
    run.job("a", striped_read(1), [0])
    run.engine.run()
    run.job("b", striped_read(1), [1])
    run.engine.run()
    # d0 unloads (17) and dismounts (10), then d1 mounts (10), loads (5), locates (25), reads (80).
    assert run.data["b"] == pytest.approx(120 + 17 + 10 + 10 + 5 + 25 + 80)
    assert run.platform.drives[0].tape is None
    assert run.platform.drives[1].tape == "t0"
    assert run.platform.mounts == 2 and len(run.platform.tapes_mounted) == 1


def test_phases_switch_tapes_on_the_drives_that_need_it():
    run = Run(ampex(dismount="on-demand"))
    plan = JobSpec(
        phases=(
            (Extent("x", 0.0, 125.0, 125.0), Extent("y", 0.0, 250.0, 250.0)),
            (Extent("x", 125.0, 125.0, 125.0), None),
            (Extent("z", 0.0, 125.0, 125.0), Extent("y", 250.0, 125.0, 125.0)),
        )
    )
    run.job("j", plan, [0, 1])
    run.engine.run()
    # Phase 1: mounts at 0 and 10, ready at 20 + 5 = 25; the longer extent takes 20 s: 45.
    # Phase 2: x continues at once (head where it was): 10 s: 55.
    # Phase 3: d0 switches x -> z: 17 + 10 + 10 + 5 = 42 s; d1 is ready at once: 97 + 10.
    assert [t.start_s for t in run.platform.transfers] == pytest.approx([25.0, 45.0, 97.0])
    assert run.data["j"] == pytest.approx(107.0)


def test_per_block_cost_streams_more_tape():
    model = DRIVE_MODELS["ampex"]
    extent = Extent("t", 0.0, 100.0, 100.0, blocks=4)
    assert Platform.stream_mb(evolve(model, block_s=0.5), extent, True) == pytest.approx(
        100.0 + 4 * 0.5 * model.rate_mb_s
    )
    assert Platform.stream_mb(evolve(model, block_s=0.5), extent, False) == 100.0
    assert Platform.stream_mb(model, extent, True) == 100.0


def test_drive_busy_share_counts_busy_drive_time():
    run = Run(ampex())
    run.job("r", striped_read(1), [0])
    run.engine.run(until_s=294.0)
    assert run.platform.drive_busy_share_over_horizon() == pytest.approx(147.0 / (4 * 294.0))


def test_the_shares_by_hand_with_a_transfer_in_flight():
    # One 1 GB read on d0: mount 0-10, load 10-15, locate 15-40, stream 40-120,
    # unload 120-137, dismount 137-147 (at once).
    run = Run(ampex())
    run.job("r", striped_read(1), [0])
    run.engine.run(until_s=100.0)
    p = run.platform
    assert p.drive_busy_share_over_horizon() == pytest.approx(100 / (4 * 100))
    assert p.drive_streaming_share_over_horizon() == pytest.approx(60 / (4 * 100))
    assert p.arm_busy_share_over_horizon() == pytest.approx(10 / 100)
    # Over the makespan, the transfer under way counts whole: it ends at 120.
    assert p.makespan_s == pytest.approx(120.0)
    assert p.drive_streaming_share_over_makespan() == pytest.approx(80 / (4 * 120))
    assert p.arm_busy_share_over_makespan() == pytest.approx(10 / 120)
    run.engine.run()
    assert run.engine.now_s == pytest.approx(147.0)
    assert p.drive_streaming_share_over_horizon() == pytest.approx(80 / (4 * 147))
    assert p.arm_busy_share_over_horizon() == pytest.approx(20 / 147)
    assert p.arm_busy_share_over_makespan() == pytest.approx(20 / 120)


def test_the_arm_share_pools_the_arms_of_every_library():
    spec = PlatformSpec(
        libraries=[
            LibrarySpec("A", 1, Duration(10.0), Duration(10.0)),
            LibrarySpec("B", 3, Duration(10.0), Duration(10.0)),
        ],
        drives=[DriveSpec("a0", "A", AMPEX), DriveSpec("b0", "B", AMPEX)],
        tape_capacity_mb=AMPEX.capacity_mb,
        dismount="at-once",
    )
    run = Run(spec)
    run.job("r", striped_read(1), [0])
    run.engine.run()
    # 20 s of arm time in library A, over 4 arms x 147 s (not the libraries' mean share).
    assert run.platform.arm_busy_share_over_horizon() == pytest.approx(20 / (4 * 147))


def test_the_makespan_shares_count_what_the_platform_recorded():
    run = Run(ampex("on-demand", arms=2))
    run.job("a", striped_read(2, prefix="a"), [0, 1])
    run.job("b", striped_read(1, prefix="b"), [2])
    run.engine.run()
    run.job("c", striped_read(2, size_mb=3000.0, prefix="a"), [2, 3])
    run.engine.run()
    p = run.platform
    assert len(p.transfers) == 3 and len(p.arm_log) > 5
    assert p.makespan_s == max(t.end_s for t in p.transfers)
    assert p.drive_streaming_share_over_makespan() == pytest.approx(
        streaming_drive_s(p.transfers) / (4 * p.makespan_s)
    )
    arm_s = sum(end - start for _, _, _, start, end, _ in p.arm_log)
    assert p.arm_busy_share_over_makespan() == pytest.approx(arm_s / (2 * p.makespan_s))


def test_a_job_runs_on_one_mover_and_idle_drives_only():
    spec = PlatformSpec(
        libraries=[LibrarySpec("L", 1, Duration(1.0), Duration(1.0))],
        drives=[DriveSpec(f"d{i}", "L", AMPEX, mover=f"m{i // 2}") for i in range(4)],
        movers=[MoverSpec("m0"), MoverSpec("m1")],
    )
    run = Run(spec)
    with pytest.raises(ValueError, match="one mover"):
        run.job("r", striped_read(2), [1, 2])
    run.job("r", striped_read(2), [0, 1])
    with pytest.raises(ValueError, match="idle"):
        run.job("s", striped_read(1, prefix="s"), [0])
    assert run.platform.movers[0].idle == 0 and run.platform.movers[1].idle == 2


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda: LibrarySpec("L", 0, Duration(1.0), Duration(1.0)), "arms must be >= 1"),
        (lambda: Duration(-1.0), "must be >= 0"),
        (lambda: Duration(1.0, "normal"), "fixed or exponential"),  # type: ignore[arg-type]
        (
            lambda: PlatformSpec(
                libraries=[LibrarySpec("L", 1, Duration(1.0), Duration(1.0))],
                drives=[DriveSpec("d", "M", AMPEX)],
            ),
            "unknown library",
        ),
        (
            lambda: PlatformSpec(
                libraries=[LibrarySpec("L", 1, Duration(1.0), Duration(1.0))],
                drives=[DriveSpec("d", "L", AMPEX, mover="m")],
            ),
            "unknown mover",
        ),
        (
            lambda: PlatformSpec(
                libraries=[LibrarySpec("L", 1, Duration(1.0), Duration(1.0))],
                drives=[DriveSpec("d", "L", AMPEX)],
                dismount="never",  # type: ignore[arg-type]
            ),
            "on-demand or at-once",
        ),
    ],
)
def test_bad_platform_specs_are_refused(build, message):
    with pytest.raises(ValueError, match=message):
        build()


def test_exponential_durations_draw_from_the_seed_and_average_their_mean():
    d = Duration(10.0, "exponential")
    a = [d.draw(random.Random(3)) for _ in range(3)]
    b = [d.draw(random.Random(3)) for _ in range(3)]
    assert a == b
    rng = random.Random(5)
    draws = [d.draw(rng) for _ in range(20_000)]
    assert sum(draws) / len(draws) == pytest.approx(10.0, rel=0.03)
    assert Duration(10.0).draw(rng) == 10.0
    assert Duration.from_json({"mean_s": 2, "dist": "exponential"}) == Duration(2.0, "exponential")
    with pytest.raises(ValueError):
        Duration.from_json("ten")


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.builds(
                lambda p, n, w: f"{p}{n:0{w}d}",
                st.sampled_from(["A", "T", "LT"]),
                st.integers(0, 5000),
                st.integers(1, 8),
            ),
            st.text(min_size=1, max_size=6),
            st.just(f"A{1 << 30}"),
        ),
        max_size=60,
    )
)
def test_the_tapes_seen_are_those_of_a_set(tapes: list[str]) -> None:
    # Kept as plain ids, and moved to bitmaps past the fourth distinct one.
    for plain_up_to in (10**6, 4):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(platform_state, "PLAIN_UP_TO", plain_up_to)
            seen = TapesSeen()
            for tape in tapes:
                seen.add(tape)
        assert len(seen) == len(set(tapes))
        assert all(tape in seen for tape in tapes)
        assert not any(f"{tape}0" in seen for tape in tapes if f"{tape}0" not in tapes)
