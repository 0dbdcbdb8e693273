"""The offline allocation: a lower bound on every run's backlog area, and what it says."""

from __future__ import annotations

import random

import pytest
from attrs import evolve

from tapesched.simulator.sharing.allocator import Orchestrator, StaticCaps
from tapesched.simulator.sharing.groups import DriveSet, HsmGroup, HsmPlatform, HsmServer, TapeBatch
from tapesched.simulator.sharing.hsm_run import run_hsm
from tapesched.simulator.sharing.offline_allocation import (
    backlog_area,
    offline_allocation,
    periods_for,
)
from tapesched.studies.drive_allocation.study import (
    QUICK,
    SET,
    allocators,
    background,
    bulk_recall,
    platform_of,
)


def _small(seed: int) -> tuple[HsmPlatform, list[TapeBatch]]:
    rng = random.Random(seed)
    dset = DriveSet("d", 6, rate_mb_s=250.0, load_s=20.0, unload_s=20.0, locate_mb_s=1e4,
                    arm_s=10.0)  # fmt: skip
    platform = HsmPlatform(
        servers=[HsmServer("s1", 1000.0), HsmServer("s2", 600.0)],
        groups=[HsmGroup("a", "s1"), HsmGroup("b", "s1"), HsmGroup("c", "s2")],
        drive_sets=[dset],
        migration_caps={("c", "d"): 1},
    )
    batches = []
    for k in range(40):
        group = rng.choice("abc")
        kind = "migration" if group == "c" and rng.random() < 0.3 else "recall"
        files = [(rng.uniform(0, 1e6), rng.uniform(1e3, 5e5)) for _ in range(rng.randint(1, 5))]
        batches.append(TapeBatch(f"x{k}", group, "d", kind, f"t{k}",
                                 rng.uniform(0, 8 * 3600.0), sorted(files)))  # fmt: skip
    return platform, batches


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_offline_is_never_worse_than_either_online_allocator(seed: int) -> None:
    platform, batches = _small(seed)
    caps = {("a", "d"): 1, ("b", "d"): 2, ("c", "d"): 1}
    runs = [run_hsm(platform, batches, a) for a in (StaticCaps(caps), Orchestrator())]
    horizon = max(r.end_s for r in runs)
    for period in (300.0, 1800.0):
        periods = periods_for(horizon, period)
        plan = offline_allocation(platform, batches, periods * period, period, focus="a")
        for run in runs:
            online = backlog_area(run.threads, batches, platform, period, periods)
            assert plan.backlog_area_s2 <= online * (1 + 1e-6) + 1e-3


def test_offline_is_never_worse_on_the_quick_study_workload() -> None:
    config = evolve(QUICK, scale=0.02)
    platform = platform_of(config, 3)
    batches = bulk_recall(config, 3) + background(config, platform, 3)
    runs = [run_hsm(platform, batches, a) for a in allocators(config).values()]
    period = 900.0
    periods = periods_for(max(r.end_s for r in runs), period)
    plan = offline_allocation(platform, batches, periods * period, period, focus="cms")
    for run in runs:
        assert plan.backlog_area_s2 <= backlog_area(
            run.threads, batches, platform, period, periods
        ) * (1 + 1e-6)
    assert plan.focus_done_s is not None
    cms = [t for t in runs[1].threads if t.group == "cms" and t.kind == "recall"]
    assert plan.focus_done_s <= max(t.end_s for t in cms)


def test_offline_respects_drives_and_links_per_period() -> None:
    platform, batches = _small(4)
    plan = offline_allocation(platform, batches, 12 * 3600.0, 600.0)
    for k in range(plan.periods):
        total = sum(s[k] for s in plan.service_s.values())
        assert total <= 6 * 600.0 + 1e-6
        s1 = sum(s[k] for q, s in plan.service_s.items() if q[0] in "ab")
        assert s1 * 250.0 <= 1000.0 * 600.0 + 1e-3


def test_backlog_area_of_one_thread() -> None:
    dset = DriveSet(SET, 1, rate_mb_s=100.0, load_s=0.0, unload_s=0.0, locate_mb_s=1e9)
    platform = HsmPlatform([HsmServer("s", 1e9)], [HsmGroup("g", "s")], [dset])
    batch = TapeBatch("b", "g", SET, "recall", "t", 0.0, [(0.0, 20_000.0)])  # 200 s of work
    run = run_hsm(platform, [batch], StaticCaps({("g", SET): 1}, period_s=50.0))
    # Backlog 100 at t = 100, 0 at t = 200: area 100 * 100.
    assert backlog_area(run.threads, [batch], platform, 100.0, 2) == pytest.approx(10_000.0)
    plan = offline_allocation(platform, [batch], 200.0, 100.0, focus="g")
    assert plan.backlog_area_s2 == pytest.approx(10_000.0)
    assert plan.focus_done_s == pytest.approx(200.0)
