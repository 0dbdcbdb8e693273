"""Groups, drive sets and HSM servers; the static and the Orchestrator allocations, in a run
(:mod:`simulator.sharing.hsm_run`, on the one simulation)."""

from __future__ import annotations

import functools
import random
from collections import defaultdict

import pytest
from attrs import evolve

from tapesched.simulator.sharing.allocator import (
    Allocation,
    AllocationView,
    Allocator,
    Orchestrator,
    StaticCaps,
)
from tapesched.simulator.sharing.groups import (
    DriveSet,
    FileRecall,
    HsmGroup,
    HsmPlatform,
    HsmServer,
    Reclamation,
    TapeBatch,
    recall_batches,
)
from tapesched.simulator.sharing.hsm_run import HsmResult, run_hsm
from tapesched.studies.drive_allocation.study import (
    QUICK,
    SET,
    allocators,
    background,
    bulk_recall,
    platform_of,
)


def _set(drives: int = 16) -> DriveSet:
    return DriveSet("d", drives, rate_mb_s=250.0, load_s=20.0, unload_s=30.0, locate_mb_s=1000.0,
                    arm_s=10.0, arms=2, file_overhead_s=2.0)  # fmt: skip


def _platform(fc: dict[str, float], drives: int = 16) -> HsmPlatform:
    return HsmPlatform(
        servers=[HsmServer(g, f) for g, f in fc.items()],
        groups=[HsmGroup(g, g) for g in fc],
        drive_sets=[_set(drives)],
    )


def _batches(group: str, count: int, arrival_s: float = 0.0, start: int = 0) -> list[TapeBatch]:
    return [
        TapeBatch(f"{group}{start + k}", group, "d", "recall", f"{group}t{k}", arrival_s,
                  [(100.0 * j, 500.0) for j in range(3)])
        for k in range(count)
    ]  # fmt: skip


def test_thread_time_is_mount_locates_transfers_overheads_dismount() -> None:
    batch = TapeBatch("b", "g", "d", "recall", "t", 0.0, [(1000.0, 500.0), (3000.0, 250.0)])
    # arm 10 + load 20; locate 1000/1000 = 1, read 2 + 2 (the head moves on 500 MB more);
    # locate (3000 - 2000)/1000 = 1, read 1 + 2; unload 30 + arm 10.
    assert _set().thread_s(batch) == pytest.approx(79.0)


def test_a_batch_alone_takes_on_the_platform_the_time_the_offline_allocation_sees() -> None:
    platform = _platform({"g": 1e9})
    batch = TapeBatch("b", "g", "d", "recall", "t", 5.0, [(1000.0, 500.0), (3000.0, 250.0)])
    result = run_hsm(platform, [batch], StaticCaps({("g", "d"): 1}))
    (thread,) = result.threads
    # Its files end when the thread's time says, less the unload and the arm trip.
    assert thread.start_s == 5.0
    assert thread.end_s - thread.start_s == pytest.approx(79.0 - 40.0)
    assert thread.file_done_s == pytest.approx((5.0 + 35.0, 5.0 + 39.0))
    assert result.end_s == pytest.approx(5.0 + 39.0)


def test_recall_batches_group_by_cartridge_in_offset_order() -> None:
    files = [
        FileRecall("cms", "d", "t1", 500.0, 1.0),
        FileRecall("cms", "d", "t2", 10.0, 1.0),
        FileRecall("cms", "d", "t1", 20.0, 2.0),
        FileRecall("atlas", "d", "t1", 5.0, 3.0),
    ]
    batches = {(b.group, b.tape): b for b in recall_batches(files)}
    assert set(batches) == {("cms", "t1"), ("cms", "t2"), ("atlas", "t1")}
    assert batches[("cms", "t1")].files == ((20.0, 2.0), (500.0, 1.0))


def test_platform_rejects_unknown_server() -> None:
    with pytest.raises(ValueError, match="unknown server"):
        HsmPlatform(servers=[HsmServer("s", 1.0)], groups=[HsmGroup("g", "x")],
                      drive_sets=[_set()])  # fmt: skip


def _random_view(rng: random.Random) -> AllocationView:
    groups = ["a", "b", "c", "d"]
    platform = _platform({g: rng.choice([500.0, 1000.0, 2000.0, 5000.0]) for g in groups})
    running = {(g, "d", "recall"): rng.randint(0, 3) for g in groups}
    busy = sum(running.values()) + rng.randint(0, 4)
    return AllocationView(
        now_s=0.0,
        platform=platform,
        free={"d": max(16 - busy, 0)},
        running=running,
        pending={(g, "d", "recall"): rng.randint(0, 20) for g in groups},
        server_mb_s={g: min(running[(g, "d", "recall")] * 250.0, platform.server_of(g).fc_mb_s)
                     for g in groups},
    )  # fmt: skip


def test_orchestrator_keeps_the_reserve_and_every_link_in_random_states() -> None:
    rng = random.Random(7)
    for _ in range(300):
        view = _random_view(rng)
        allocation = Orchestrator().allocate(view)
        granted = {
            g.id: allocation.recall_caps[(g.id, "d")] - view.runs(g.id, "d")
            for g in view.platform.groups
        }
        assert all(n >= 0 for n in granted.values())
        assert sum(granted.values()) <= max(view.free["d"] - 2, 0)
        for g in view.platform.groups:
            assert granted[g.id] <= view.waits(g.id, "d")
            assert granted[g.id] * 250.0 <= view.fc_headroom_mb_s(g.server) + 1e-9


def test_orchestrator_without_competition_gives_all_free_drives_but_the_reserve() -> None:
    platform = _platform({"cms": 1e9, "atlas": 1e9})
    view = AllocationView(0.0, platform, {"d": 16}, {}, {("cms", "d", "recall"): 100}, {})
    allocation = Orchestrator().allocate(view)
    assert allocation.recall_caps[("cms", "d")] == 14
    assert allocation.recall_caps[("atlas", "d")] == 0
    result = run_hsm(platform, _batches("cms", 100), Orchestrator(reclaim=False))
    assert _most_concurrent(result, lambda t: t.group == "cms") == 14


def test_orchestrator_hands_drives_most_pending_first_one_at_a_time() -> None:
    platform = _platform({"a": 1e9, "b": 1e9, "c": 1e9})
    pending = {("a", "d", "recall"): 2, ("b", "d", "recall"): 9, ("c", "d", "recall"): 5}
    view = AllocationView(0.0, platform, {"d": 8}, {}, pending, {})
    caps = Orchestrator().allocate(view).recall_caps
    # 6 drives beyond the reserve, in turn b, c, a, b, c, a.
    assert (caps[("a", "d")], caps[("b", "d")], caps[("c", "d")]) == (2, 2, 2)
    view = AllocationView(0.0, platform, {"d": 12}, {}, pending, {})
    caps = Orchestrator().allocate(view).recall_caps
    assert (caps[("a", "d")], caps[("b", "d")], caps[("c", "d")]) == (2, 4, 4)


def _most_concurrent(result: HsmResult, keep: object) -> int:
    changes = sorted(
        [(t.end_s, -1) for t in result.threads if keep(t)]  # type: ignore[operator]
        + [(t.start_s, 1) for t in result.threads if keep(t)]  # type: ignore[operator]
    )
    most = running = 0
    for _, step in changes:
        running += step
        most = max(most, running)
    return most


SMALL = evolve(QUICK, scale=0.02)
"""The quick study's workload, scaled down to keep the tests fast."""


@functools.cache
def _quick_runs() -> tuple[HsmPlatform, list[TapeBatch], dict[str, HsmResult]]:
    platform = platform_of(SMALL, 1)
    batches = bulk_recall(SMALL, 1) + background(SMALL, platform, 1)
    return platform, batches, {n: run_hsm(platform, batches, a)
                               for n, a in allocators(SMALL).items()}  # fmt: skip


def test_runs_never_exceed_a_link_and_orchestrator_recalls_never_take_the_reserve() -> None:
    platform, _, runs = _quick_runs()
    rate = platform.drive_set(SET).rate_mb_s
    for result in runs.values():
        assert not result.stranded
        for server in platform.servers:
            most = _most_concurrent(result, lambda t, s=server.id: t.group == s)
            assert most * rate <= server.fc_mb_s
    result = runs["orchestrator"]
    recalls = [a for a in result.admissions if a.queue[2] == "recall"]
    assert recalls
    assert all(a.free_after >= 2 for a in recalls)
    # What an admission counts as taken is never less than what the run shows busy then.
    for a in result.admissions:
        busy = sum(1 for t in result.threads if t.start_s < a.time_s < t.end_s)
        busy += sum(r.drives for r in result.reclamations if r.start_s < a.time_s < r.end_s)
        assert busy <= a.committed - 1, a
    assert result.reclamations


def test_static_caps_are_never_exceeded() -> None:
    _, _, runs = _quick_runs()
    caps = SMALL.static_caps
    result = runs["static"]
    for group, cap in caps.items():
        most = _most_concurrent(result, lambda t, g=group: t.group == g and t.kind == "recall")
        assert 0 < most <= cap
    for group, cap in SMALL.migration_caps.items():
        most = _most_concurrent(result, lambda t, g=group: t.group == g and t.kind != "recall")
        assert most <= cap
    assert not result.reclamations


class HalfOfWhatIsFree:
    """A user's allocator: no base class, half the free drives to whoever has most pending."""

    period_s = 600.0

    def allocate(self, view: AllocationView) -> Allocation:
        caps: dict[tuple[str, str], int] = defaultdict(int)
        for (group, dset, kind), n in view.running.items():
            if kind == "recall":
                caps[(group, dset)] += n
        if view.pending:
            group, dset, _ = max(view.pending, key=lambda q: view.pending[q])
            caps[(group, dset)] += view.free.get(dset, 0) // 2
        return Allocation(recall_caps=dict(caps))


def test_a_users_object_is_an_allocator_and_runs() -> None:
    allocator = HalfOfWhatIsFree()
    assert isinstance(allocator, Allocator)
    platform = _platform({"cms": 1e9})
    result = run_hsm(platform, _batches("cms", 30), allocator)
    assert len(result.threads) == 30
    assert _most_concurrent(result, lambda t: True) == 8
    assert result.allocations[1].time_s == 600.0


def test_a_cap_of_zero_leaves_batches_stranded_and_the_run_ends() -> None:
    platform = _platform({"cms": 1e9, "atlas": 1e9})
    batches = _batches("cms", 3) + _batches("atlas", 2, arrival_s=50.0)
    result = run_hsm(platform, batches, StaticCaps({("cms", "d"): 1}))
    assert sorted(result.stranded) == ["atlas0", "atlas1"]
    assert len(result.threads) == 3


def test_two_drive_sets_share_a_servers_link_and_keep_a_reserve_each() -> None:
    t10k = DriveSet("t10k", 16, rate_mb_s=250.0, load_s=20.0, unload_s=20.0, locate_mb_s=1e4)
    ts1160 = DriveSet("ts", 19, rate_mb_s=400.0, load_s=20.0, unload_s=20.0, locate_mb_s=1e4)
    platform = HsmPlatform(
        servers=[HsmServer("s", 2000.0)],
        groups=[HsmGroup("cms", "s")],
        drive_sets=[t10k, ts1160],
    )
    pending = {("cms", "t10k", "recall"): 50, ("cms", "ts", "recall"): 50}
    view = AllocationView(0.0, platform, {"t10k": 16, "ts": 19}, {}, pending, {})
    caps = Orchestrator().allocate(view).recall_caps
    # 8 T10000D at 250 MB/s fill the 2000 MB/s link: none is left for the TS1160 set.
    assert (caps[("cms", "t10k")], caps[("cms", "ts")]) == (8, 0)
    view = AllocationView(0.0, platform, {"t10k": 3, "ts": 19}, {}, pending, {})
    caps = Orchestrator().allocate(view).recall_caps
    # 1 T10000D beyond its set's reserve (250 MB/s), then 4 TS1160 (1600 MB/s) within the link.
    assert (caps[("cms", "t10k")], caps[("cms", "ts")]) == (1, 4)
    batches = [
        TapeBatch(f"{s.id}{k}", "cms", s.id, "recall", f"{s.id}t{k}", 0.0, [(0.0, 4e5)])
        for s in (t10k, ts1160)
        for k in range(30)
    ]
    result = run_hsm(platform, batches, Orchestrator())
    for t in result.threads:
        busy = [u for u in result.threads if u.start_s <= t.start_s < u.end_s]
        streaming = sum(250.0 if u.drive_set == "t10k" else 400.0 for u in busy)
        assert streaming <= 2000.0


def test_reclamation_takes_only_cartridges_above_its_threshold() -> None:
    pool = Reclamation(duration_s=3600.0, threshold_pct=50.0, tape_mb=1e6,
                       reclaimable_pct=(10.0, 60.0, 90.0, 49.9))  # fmt: skip
    assert pool.eligible() == 2
    platform = HsmPlatform(
        servers=[HsmServer("s", 1e9)],
        groups=[HsmGroup("g", "s")],
        drive_sets=[_set(6)],
        reclamation={"d": pool},
    )
    result = run_hsm(platform, _batches("g", 1), Orchestrator())
    # (1 - 0.9) * 1e6 / 250 = 400 s and (1 - 0.6) * 1e6 / 250 = 1600 s: both within an hour.
    assert sum(r.tapes for r in result.reclamations) == 2
    assert all(r.drives == 2 for r in result.reclamations)
    # A process is a 2-wide request on the platform: both drives mount (10 s; the batch's
    # mount at time 0 takes one of the two arms first, so one waits 10 s) and load (20 s),
    # then stream for the process's hour (plus its one block's 2 s).
    (process,) = result.reclamations
    assert process.end_s - process.start_s == pytest.approx(10.0 + 30.0 + 3600.0 + 2.0)
