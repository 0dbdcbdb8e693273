"""Mount policies: eviction rules, dismount delays and mount criteria, on hand-made instances.

Each instance is small enough to work its answer out by hand: drives of
100 MB/s that load and unload in 5 s, arms that mount and dismount in 10 s,
requests of 10 MB (0.1 s of transfer) at offset 0, so that a request on an
empty drive ends 15.1 s after it starts and anything released 1000 s later
finds the platform idle.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tapesched import solvers
from tapesched.solvers.online.dispatcher import dispatch
from tapesched.solvers.online.heuristics import Fifo, fifo_dismounting
from tapesched.solvers.online.mount_criteria import CtaCriteria
from tapesched.solvers.online.mount_policied import MountPolicied
from tapesched.solvers.online.mount_policy import MountPolicyError, parse_mount_policy
from tapesched.solvers.online.mount_protocol import KEEP, Rules
from tapesched.solvers.result import Result
from tapesched.toolkit.generators import RandomParams, random_instance
from tapesched.toolkit.model import Drive, Instance, Library, Request, Schedule, Tape
from tapesched.toolkit.strategies import instances

from ...builders import assert_validated, operations, read

SERVICE_S = 10 + 5 + 0.1
"""A 10 MB request on an empty drive: mount, load, transfer."""


def platform(drives: int, requests: tuple[Request, ...], tapes: int = 4, arms: int = 1) -> Instance:
    """One library of ``drives`` identical drives ``d0``.., tapes ``T1``.. of 100 GB."""
    return Instance(
        name="mount-policy",
        libraries=(Library("L0", arms, 10, 10),),
        drives=tuple(Drive(f"d{i}", "L0", 100, 5, 5, 1000) for i in range(drives)),
        tapes=tuple(Tape(f"T{i}", "L0", 100_000) for i in range(1, tapes + 1)),
        requests=requests,
    )


def sequence(tapes: list[int], gap_s: float = 1000.0) -> tuple[Request, ...]:
    """One 10 MB request on tape ``T<k>`` every ``gap_s`` seconds (served one at a time)."""
    return tuple(read(f"r{i}", i * gap_s, (f"T{k}", 0, 10)) for i, k in enumerate(tapes))


def run(instance: Instance, policy: str) -> Result:
    """``fifo`` under ``policy``, dispatched; the schedule held to the validator."""
    result = solvers.solve(instance, "fifo", mount_policy=policy)
    assert_validated(instance, result)
    return result


def mounts(schedule: Schedule | None) -> int:
    return sum(op[0] == "mount" for op in operations(schedule))


def dismounts(schedule: Schedule | None) -> list[tuple[str, float]]:
    """Tape and start of every dismount."""
    return [(op[1], op[3]) for op in operations(schedule) if op[0] == "dismount"]


# Eviction.


def test_lru_fifo_and_lfu_evict_different_tapes():
    # Three drives; T1, T2, T3 mounted in that order; T1 used at 0 and 4000
    # (twice), T2 at 1000 and 2000 (twice), T3 at 3000 (once). T4 at 5000
    # must evict one: FIFO the first mounted (T1), LRU the least recently
    # used (T2, last at 2000), LFU the least used (T3, once).
    instance = platform(3, sequence([1, 2, 2, 3, 1, 4]))
    evicted = {}
    for policy in ("fifo", "lru", "lfu"):
        result = run(instance, policy)
        assert mounts(result.schedule) == 4
        [(tape, start)] = dismounts(result.schedule)
        assert start == pytest.approx(5000 + 5)  # unloaded at the decision, then carried
        evicted[policy] = tape
    assert evicted == {"fifo": "T1", "lru": "T2", "lfu": "T3"}


def test_belady_evicts_the_tape_needed_furthest_ahead():
    # T1, T2, T3 on three drives, then T4, T1, T3, T2. At T4, Belady evicts
    # T2 (needed last): T1 and T3 are then hits, T2 one more mount: 5. LRU
    # evicts T1 at T4, T2 at T1, T4 at T2 (T3 a hit): 6 mounts.
    instance = platform(3, sequence([1, 2, 3, 4, 1, 3, 2]))
    result = run(instance, "belady")
    assert dismounts(result.schedule)[0][0] == "T2"
    assert mounts(result.schedule) == 5
    assert mounts(run(instance, "lru").schedule) == 6


def test_keep_is_the_placement_of_before():
    instance = platform(2, sequence([1, 2, 3, 1, 2, 3, 4, 1]))
    plain = solvers.solve(instance, "fifo")
    kept = solvers.solve(instance, "fifo", mount_policy="keep")
    assert kept.schedule == plain.schedule
    assert parse_mount_policy("keep") == KEEP


@settings(max_examples=60, deadline=None)
@given(
    drives=st.integers(2, 3),
    tapes=st.lists(st.integers(1, 5), min_size=3, max_size=14),
)
def test_belady_never_mounts_more_than_lru_fifo_or_lfu(drives, tapes):
    # Requests one at a time: the mounts are the page faults of the tape
    # sequence with one frame per drive, and Belady's MIN is optimal.
    instance = platform(drives, sequence(tapes), tapes=5)
    belady = mounts(run(instance, "belady").schedule)
    for other in ("lru", "fifo", "lfu", "keep"):
        assert belady <= mounts(run(instance, other).schedule)


# Dismounts.


def test_defer_dismounts_an_idle_tape_exactly_t_after_its_last_use():
    instance = platform(1, sequence([1]))
    result = run(instance, "defer:300")
    assert dismounts(result.schedule) == [("T1", pytest.approx(SERVICE_S + 300 + 5))]


def test_defer_lets_a_reuse_within_t_keep_the_tape_and_restarts_the_delay():
    # T1 read at 0 and again at 200 (within 300 s of its last use): no
    # remount, and the dismount comes 300 s after the second read ends.
    instance = platform(1, (read("a", 0, ("T1", 0, 10)), read("b", 200, ("T1", 0, 10))))
    result = run(instance, "defer:300")
    assert mounts(result.schedule) == 1
    end_b = next(r.end_s for r in result.schedule.requests if r.id == "b")
    assert dismounts(result.schedule) == [("T1", pytest.approx(end_b + 300 + 5))]


def test_defer_gives_way_to_a_mount_needing_the_drive():
    # T2 at 100 needs the one drive before T1's delay runs out: T1 is
    # evicted then, and only T2's own delay follows.
    instance = platform(1, (read("a", 0, ("T1", 0, 10)), read("b", 100, ("T2", 0, 10))))
    result = run(instance, "defer:300")
    end_b = next(r.end_s for r in result.schedule.requests if r.id == "b")
    assert dismounts(result.schedule) == [
        ("T1", pytest.approx(100 + 5)),
        ("T2", pytest.approx(end_b + 300 + 5)),
    ]


def test_keep_never_dismounts_an_idle_tape():
    result = run(platform(1, sequence([1])), "lru")
    assert dismounts(result.schedule) == []


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_at_once_is_fifo_dismount_at_once(seed):
    instance = random_instance(
        RandomParams(n_requests=25, drives_per_library=(3, 3), tapes_per_library=6), seed
    )
    assert dispatch(instance, MountPolicied(Fifo(), Rules(idle_s=0.0))) == dispatch(
        instance, fifo_dismounting()
    )
    assert solvers.solve(instance, "fifo", mount_policy="at-once").schedule == dispatch(
        instance, fifo_dismounting()
    )


# Mount criteria.


def three_on_t1() -> Instance:
    """One drive; 10 MB requests on T1 released at 0, 10 and 20."""
    return platform(1, tuple(read(f"r{i}", 10.0 * i, ("T1", 0, 10)) for i in range(3)))


@pytest.mark.parametrize(
    ("policy", "mount_s"),
    [
        ("cta:files=2,age=1000", 10.0),  # the second file
        ("cta:files=3,age=1000", 20.0),  # the third
        ("cta:bytes=25MB,age=1000", 20.0),  # 30 MB queued at 20
        ("cta:bytes=20e6,age=1000", 10.0),  # 20 MB at 10
        ("cta:files=9,age=50", 50.0),  # the oldest request is 50 s old
        ("cta:age=0", 0.0),
    ],
)
def test_cta_holds_the_mount_until_files_bytes_or_age_pass(policy, mount_s):
    result = run(three_on_t1(), policy)
    first = next(op for op in operations(result.schedule) if op[0] == "mount")
    assert first[3] == pytest.approx(mount_s)
    assert mounts(result.schedule) == 1


def test_a_held_back_read_goes_once_another_request_mounts_its_tape():
    # x alone on T1 waits for the age (1000 s); T2's queue (three files)
    # passes, and z, a gang on T2 and T1, mounts T1: x then needs no mount.
    instance = platform(
        2,
        (
            read("x", 0, ("T1", 0, 10)),
            read("y1", 0, ("T2", 0, 10)),
            read("y2", 0, ("T2", 0, 10)),
            read("z", 0, ("T2", 0, 10), ("T1", 100, 10)),
        ),
    )
    result = run(instance, "cta:files=3,age=1000")
    starts = {r.id: r.start_s for r in result.schedule.requests}
    assert starts["y1"] < starts["z"] < starts["x"] < 1000
    assert mounts(result.schedule) == 2


def test_cta_holds_back_reads_only():
    write = Request("w", 0, 1.0, "write", read("x", 0, ("T2", 0, 10)).pieces)
    instance = platform(2, (read("r", 0, ("T1", 0, 10)), write))
    result = run(instance, "cta:files=9,age=1000")
    starts = {r.id: r.start_s for r in result.schedule.requests}
    assert starts["w"] == pytest.approx(SERVICE_S - 0.1)  # mounted and loaded at once
    assert starts["r"] >= 1000


def test_cta_max_drives_caps_the_tapes_at_work():
    instance = platform(3, tuple(read(f"r{k}", 0, (f"T{k}", 0, 1000)) for k in (1, 2, 3)), arms=3)
    result = run(instance, "cta:age=0,drives=2")
    starts = sorted(r.start_s for r in result.schedule.requests)
    assert starts[0] == starts[1] < starts[2]


def _overlap(schedule: Schedule | None) -> int:
    """Most requests running at once."""
    assert schedule is not None
    events = sorted(
        [(r.start_s, 1) for r in schedule.requests] + [(r.end_s, -1) for r in schedule.requests]
    )
    most = running = 0
    for _, step in events:
        running += step
        most = max(most, running)
    return most


@pytest.mark.parametrize("tapes", [1, 2, 3])
def test_dcache_max_active_tapes_caps_concurrent_mounts(tapes):
    # Three drives and arms, one 10 s read on each of T1, T2, T3 at 0: at
    # most ``tapes`` tapes are mounted and read at a time.
    instance = platform(3, tuple(read(f"r{k}", 0, (f"T{k}", 0, 1000)) for k in (1, 2, 3)), arms=3)
    result = run(instance, f"dcache:share=0,min-wait=0,max-age=1h,tapes={tapes}")
    assert _overlap(result.schedule) == tapes


def test_dcache_waits_for_a_quiet_tape_then_for_the_oldest_request_to_expire():
    # Tape capacity 100 GB: 10 MB is under any share above 0.01 %, so with
    # share 0.5 only expiry mounts; with share 0 a tape quiet for 60 s does.
    instance = platform(1, (read("a", 0, ("T1", 0, 10)), read("b", 30, ("T1", 0, 10))))
    quiet = run(instance, "dcache:share=0,min-wait=60,max-age=1h")
    assert operations(quiet.schedule)[0][3] == pytest.approx(30 + 60)
    expired = run(instance, "dcache:share=0.5,min-wait=60,max-age=500")
    assert operations(expired.schedule)[0][3] == pytest.approx(500)


def test_criteria_run_under_every_registered_heuristic():
    instance = random_instance(
        RandomParams(n_requests=40, n_libraries=2, tapes_per_library=5, initial_fraction=0.5), 3
    )
    for name in ("fifo", "wspt", "stretch", "tape-batching", "sltf", "backfill"):
        for policy in ("cta:files=2,age=600+lru", "dcache:share=0,min-wait=30,tapes=2+defer:60"):
            result = solvers.solve(instance, name, mount_policy=policy)
            assert_validated(instance, result)


@settings(max_examples=25, deadline=None)
@given(
    instance=instances(n_requests=(1, 12), drives_per_library=(1, 4), max_gang=(1, 3)),
    name=st.sampled_from(["fifo", "wspt", "stretch", "sltf", "backfill", "greedy"]),
    policy=st.sampled_from(
        [
            "lru",
            "fifo+at-once",
            "lfu+defer:20",
            "belady",
            "cta:files=2,bytes=1GB,age=100,drives=2",
            "dcache:share=0.001,min-wait=10,max-age=200,tapes=2+lru+defer:5",
        ]
    ),
)
def test_every_dispatched_schedule_validates(instance, name, policy):
    # Gangs, several libraries, initial tapes and busy drives included.
    assert_validated(instance, solvers.solve(instance, name, mount_policy=policy))


# Specs.


def test_specs_combine_one_rule_of_each_kind():
    rules = parse_mount_policy("lru+defer:5min+cta:files=10,age=1h")
    assert isinstance(rules, Rules)
    assert rules.idle_s == 300.0
    assert rules.criteria == CtaCriteria(min_age_s=3600.0, min_files=10)


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("bogus", "unknown mount policy 'bogus'"),
        ("defer:soon", "defer: T:"),
        ("defer", "defer: expected defer:T"),
        ("cta:files=3", "age=SECONDS is required"),
        ("cta:files=0,age=1", "files must be at least 1"),
        ("cta:colour=red,age=1", "cta: expected bytes=, files=, age=, drives="),
        ("dcache:share=2", "share must be within [0, 1]"),
        ("lru+fifo", "two eviction rules"),
        ("belady", "belady is offline"),
        ("no_such_module:Policy", "no_such_module:Policy: cannot import module 'no_such_module'"),
    ],
)
def test_a_bad_spec_is_one_line(spec, fragment):
    with pytest.raises(MountPolicyError) as caught:
        parse_mount_policy(spec, capacity_mb=lambda tape: 1.0)
    message = str(caught.value)
    assert fragment in message and "\n" not in message


def test_a_mount_policy_of_ones_own_plugs_in_by_module_path():
    policy = parse_mount_policy("tapesched.solvers.online.mount_protocol:Rules")
    assert policy == KEEP
