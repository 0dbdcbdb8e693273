"""``cnaf-bulk-recall``: a CMS bulk recall on drives shared with other experiments, three ways.

Table 1 of Cavalli et al. ("Experience in dynamic tape drive allocation to
manage scientific data", INFN CNAF) compares two real CMS bulk recalls at
CNAF, about 95,000 files and 315 TB each on 16 T10000D drives shared with
the other experiments: 138 h, 3.7 drives on average and 650 MB/s under
static caps; 72 h, 6.3 drives and 1.2 GB/s under the Orchestrator. This
study replays a bulk recall of that size under
:class:`~simulator.sharing.allocator.StaticCaps`, under the
:class:`~simulator.sharing.allocator.Orchestrator`, and under the offline optimum
of the allocation (:mod:`simulator.sharing.offline_allocation`), over the same
batches and background load per seed (:mod:`simulator.sharing.hsm_run` plays them
on the one simulation: every file a read on the platform's drives, the
HSM's caps, reserve and links an admission around ``tape-batching``).

The scenario (the paper gives the drives, the rates and the recall's size;
the rest is chosen here, :data:`FULL`):

- 16 T10000D drives (252 MB/s, the technology table's load, unload and
  locate) in an SL8500 of 4 arms (the table's 11 s a trip), and 5 s per
  file besides its locate and transfer (the drive model's per-block cost):
  the paper's per-drive rates (650 / 3.7 = 176 MB/s,
  1200 / 6.3 = 190 MB/s) are well under the native 252 MB/s, and this
  overhead brings a 3.3 GB file to about 185 MB/s;
- the bulk recall: 95,000 files of 315 TB (log-normal sizes, mean
  3.3 GB, sigma 0.8) spread uniformly over 500 cartridges at uniform
  positions, all requested at time 0, one thread per cartridge in offset
  order;
- five groups, each with its own HSM server: CMS (Fibre Channel 2400 MB/s,
  9 drives at 252 MB/s), ATLAS (1600), LHCb, ALICE and the other
  experiments together (1200 each); the CMS link (9 drives) sets the
  Orchestrator's ceiling (the paper: 6.3 drives on average, 1.85 times
  static's throughput); static recall caps CMS 4, ATLAS 3 (the
  paper's), LHCb 3, ALICE 2, others 2; migration caps 2, 2, 1, 1, 1;
- the background load: Poisson recall lists of 1 to 6 cartridges (about 40
  files of 2 GB on each) and Poisson migrations of one cartridge's worth
  (100 files of 2 GB, played as reads of a cartridge of their own: see
  :mod:`simulator.sharing.hsm_run`), at rates giving an offered load in drives per queue
  (:attr:`CnafConfig.background_drives`, 6.9 drives in all), from time 0
  to the horizon;
- space reclamation (Orchestrator only): 2-drive processes of 2 h on a
  pool of 200 cartridges with uniform reclaimable shares, threshold 60 %,
  each a 2-wide request on the platform.

``--quick`` scales the recall and the horizon by a tenth, runs 3 seeds
and grids the linear program by 15 minutes; the full study runs 10.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence

from attrs import field, frozen

from tapesched.simulator.results.records import Estimate, estimate
from tapesched.simulator.sharing.allocator import Allocator, Queue, make_allocator
from tapesched.simulator.sharing.groups import (
    DriveSet,
    FileRecall,
    HsmGroup,
    HsmPlatform,
    HsmServer,
    Kind,
    Reclamation,
    TapeBatch,
    recall_batches,
)
from tapesched.simulator.sharing.hsm_run import HsmResult, run_hsm
from tapesched.simulator.sharing.offline_allocation import (
    backlog_area,
    offline_allocation,
    periods_for,
)

EXPERIMENT = "cnaf-bulk-recall"
"""The experiment's name under ``tapesched experiment``."""

TITLE = "a CMS bulk recall on 16 shared T10000D drives: static caps, Orchestrator, offline optimum"
"""The experiment's one-line title."""

SERIES = ("static", "orchestrator", "offline")
"""The allocations compared, in table order."""

METRICS = (
    "duration_h",
    "avg_drives",
    "throughput_mb_s",
    "backlog_drive_h",
    "background_wait_h",
    "tapes_reclaimed",
)
"""Per series: the bulk recall's duration, mean drives and throughput; the mean pending work of
every queue over the horizon (drive-hours); the mean wait of the background recalls for a
thread (hours); cartridges reclaimed."""

PAPER = {
    "static": {"duration_h": 138.0, "avg_drives": 3.7, "throughput_mb_s": 650.0},
    "orchestrator": {"duration_h": 72.0, "avg_drives": 6.3, "throughput_mb_s": 1200.0},
}
"""Table 1 of the paper (two real CMS bulk recalls, 2019 and 2021)."""

FOCUS = "cms"
"""The group making the bulk recall."""

HOUR_S = 3600.0


@frozen
class CnafConfig:
    """The study's settings (see the module for what they stand for)."""

    scale: float = 1.0
    seeds: int = 10
    lp_period_s: float = 300.0
    files: int = 95_000
    data_tb: float = 315.0
    cartridges: int = 500
    size_sigma: float = 0.8
    horizon_h: float = 200.0
    drives: int = 16
    arms: int = 4
    file_overhead_s: float = 5.0
    fc_mb_s: Mapping[str, float] = field(
        factory=lambda: {"cms": 2400.0, "atlas": 1600.0, "lhcb": 1200.0, "alice": 1200.0,
                         "other": 1200.0}
    )  # fmt: skip
    static_caps: Mapping[str, int] = field(
        factory=lambda: {"cms": 4, "atlas": 3, "lhcb": 3, "alice": 2, "other": 2}
    )
    migration_caps: Mapping[str, int] = field(
        factory=lambda: {"cms": 2, "atlas": 2, "lhcb": 1, "alice": 1, "other": 1}
    )
    background_drives: Mapping[tuple[str, Kind], float] = field(
        factory=lambda: {
            ("atlas", "recall"): 1.8, ("lhcb", "recall"): 1.0, ("alice", "recall"): 0.6,
            ("other", "recall"): 0.5, ("cms", "migration"): 0.6, ("atlas", "migration"): 1.0,
            ("lhcb", "migration"): 0.5, ("alice", "migration"): 0.4, ("other", "migration"): 0.5,
        }
    )  # fmt: skip
    background_file_mb: float = 2000.0
    recall_files_per_tape: int = 40
    migration_files: int = 100
    list_tapes: int = 6
    reclaim_duration_s: float = 7200.0
    reclaim_threshold_pct: float = 60.0
    reclaim_pool: int = 200
    seed: int = 1


FULL = CnafConfig()
"""The full study."""

QUICK = CnafConfig(scale=0.1, seeds=3, lp_period_s=900.0)
"""``--quick``: a tenth of the recall and of the horizon, 3 seeds, a 15-minute grid."""

SET = "t10kd"


def platform_of(config: CnafConfig, seed: int) -> HsmPlatform:
    """The servers, groups, drives, caps and reclamation pool of the scenario."""
    rng = random.Random(f"pool:{seed}")
    dset = DriveSet.of_technology(
        SET, "T10000D", config.drives, library="SL8500", arms=config.arms,
        file_overhead_s=config.file_overhead_s,
    )  # fmt: skip
    pool = Reclamation(
        duration_s=config.reclaim_duration_s,
        threshold_pct=config.reclaim_threshold_pct,
        tape_mb=8_500_000.0,
        reclaimable_pct=tuple(rng.uniform(0.0, 100.0) for _ in range(config.reclaim_pool)),
    )
    return HsmPlatform(
        servers=[HsmServer(g, fc) for g, fc in config.fc_mb_s.items()],
        groups=[HsmGroup(g, g) for g in config.fc_mb_s],
        drive_sets=[dset],
        migration_caps={(g, SET): c for g, c in config.migration_caps.items()},
        reclamation={SET: pool},
    )


def _lognormal(rng: random.Random, mean: float, sigma: float) -> float:
    return rng.lognormvariate(math.log(mean) - sigma * sigma / 2, sigma)


def bulk_recall(config: CnafConfig, seed: int) -> list[TapeBatch]:
    """The CMS bulk recall: its files on their cartridges, a batch per cartridge at time 0."""
    rng = random.Random(f"bulk:{seed}")
    files = max(round(config.files * config.scale), 1)
    tapes = max(round(config.cartridges * config.scale), 1)
    mean_mb = config.data_tb * 1e6 / config.files
    recalls = []
    for _ in range(files):
        size = _lognormal(rng, mean_mb, config.size_sigma)
        tape = f"cms{rng.randrange(tapes):04d}"
        offset = rng.uniform(0.0, max(8_500_000.0 - size, 0.0))
        recalls.append(FileRecall(FOCUS, SET, tape, offset, size))
    return recall_batches(recalls, prefix="cms-")


def background(config: CnafConfig, platform: HsmPlatform, seed: int) -> list[TapeBatch]:
    """The other queues' batches: Poisson lists over the horizon at the offered loads."""
    rng = random.Random(f"background:{seed}")
    dset = platform.drive_set(SET)
    horizon = config.horizon_h * config.scale * HOUR_S
    size = config.background_file_mb
    batches: list[TapeBatch] = []
    for (group, kind), drives in sorted(config.background_drives.items()):
        files = config.recall_files_per_tape if kind == "recall" else config.migration_files
        tapes_per_list = (1 + config.list_tapes) / 2 if kind == "recall" else 1.0
        probe = TapeBatch("probe", group, SET, kind, "probe", 0.0, [(0.0, size)] * files)
        mean_s = dset.thread_s(probe) + (
            files * config.background_file_mb / 4 / dset.locate_mb_s if kind == "recall" else 0
        )
        rate = drives / (mean_s * tapes_per_list)
        t = rng.expovariate(rate)
        while t < horizon:
            count = rng.randint(1, config.list_tapes) if kind == "recall" else 1
            listed: set[str] = set()
            for _ in range(count):
                n = max(1, int(rng.expovariate(1 / files)) + 1)
                head = 0.0
                extents = []
                for _ in range(n):
                    mb = _lognormal(rng, size, 0.8)
                    offset = rng.uniform(0.0, 8_500_000.0 - mb) if kind == "recall" else head
                    extents.append((offset, mb))
                    head += mb
                extents.sort()
                tape = f"{group}{rng.randrange(10_000):05d}"
                while tape in listed:  # a list names a cartridge once
                    tape = f"{group}{rng.randrange(10_000):05d}"
                listed.add(tape)
                name = f"{group}-{kind[0]}{len(batches)}"
                batches.append(TapeBatch(name, group, SET, kind, tape, t, extents))
            t += rng.expovariate(rate)
    return batches


def allocators(config: CnafConfig) -> dict[str, Allocator]:
    """The online allocators of the study, by series name."""
    caps = {(g, SET): c for g, c in config.static_caps.items()}
    return {name: make_allocator(name, caps=caps) for name in ("static", "orchestrator")}


@frozen
class SeriesRun:
    """One series on one seed: its metrics and its hourly throughput and drives."""

    series: str
    seed: int
    metrics: Mapping[str, float]
    hourly_mb_s: tuple[float, ...]
    hourly_drives: tuple[float, ...]


def _hourly(events: Sequence[tuple[float, float]], hours: int) -> list[float]:
    """MB per hour bin turned into MB/s, from ``(time_s, mb)`` events."""
    bins = [0.0] * hours
    for t, mb in events:
        bins[min(int(t // HOUR_S), hours - 1)] += mb
    return [b / HOUR_S for b in bins]


def _drives_hourly(spans: Sequence[tuple[float, float, float]], hours: int) -> list[float]:
    """Mean drives in use per hour bin, from ``(start_s, end_s, drives)`` spans."""
    bins = [0.0] * hours
    for start, end, drives in spans:
        h = int(start // HOUR_S)
        while h < hours and h * HOUR_S < end:
            lo, hi = max(start, h * HOUR_S), min(end, (h + 1) * HOUR_S)
            bins[h] += drives * max(hi - lo, 0.0) / HOUR_S
            h += 1
    return bins


def _online_run(
    name: str,
    result: HsmResult,
    platform: HsmPlatform,
    batches: Sequence[TapeBatch],
    period_s: float,
    periods: int,
    hours: int,
    seed: int,
) -> SeriesRun:
    by_id = {b.id: b for b in batches}
    mine = [t for t in result.threads if t.group == FOCUS and t.kind == "recall"]
    events = []
    for t in mine:
        batch = by_id[t.batch]
        for end, (_, mb) in zip(t.file_done_s, batch.files, strict=True):
            events.append((end, mb))
    first = min(by_id[t.batch].arrival_s for t in mine)
    done = max(t for t, _ in events)
    duration = done - first
    busy = sum(t.end_s - t.start_s for t in mine)
    data = sum(mb for _, mb in events)
    waits = [t.start_s - t.arrival_s for t in result.threads
             if t.group != FOCUS and t.kind == "recall"]  # fmt: skip
    metrics = {
        "duration_h": duration / HOUR_S,
        "avg_drives": busy / duration,
        "throughput_mb_s": data / duration,
        "backlog_drive_h": backlog_area(result.threads, batches, platform, period_s, periods)
        / (periods * period_s)
        / HOUR_S,
        "background_wait_h": (sum(waits) / len(waits) / HOUR_S) if waits else 0.0,
        "tapes_reclaimed": float(sum(r.tapes for r in result.reclamations)),
    }
    return SeriesRun(
        name,
        seed,
        metrics,
        tuple(_hourly(events, hours)),
        tuple(_drives_hourly([(t.start_s, t.end_s, 1.0) for t in mine], hours)),
    )


def run_seed(config: CnafConfig, seed: int, offline: bool = True) -> list[SeriesRun]:
    """Every series on one seed's batches (the offline optimum when ``offline``)."""
    platform = platform_of(config, seed)
    cms = bulk_recall(config, seed)
    batches = cms + background(config, platform, seed)
    results = {name: run_hsm(platform, batches, a) for name, a in allocators(config).items()}
    horizon = max(r.end_s for r in results.values())
    period = config.lp_period_s
    periods = periods_for(horizon, period)
    hours = math.ceil(periods * period / HOUR_S)
    runs = [
        _online_run(name, r, platform, batches, period, periods, hours, seed)
        for name, r in results.items()
    ]
    if not offline:
        return runs
    plan = offline_allocation(platform, batches, periods * period, period, focus=FOCUS)
    queue: Queue = (FOCUS, SET, "recall")
    dset = platform.drive_set(SET)
    work = sum(dset.thread_s(b) for b in cms)
    data = sum(b.size_mb for b in cms)
    if plan.focus_done_s is None:
        raise RuntimeError("the offline allocation leaves the bulk recall unfinished")
    service = plan.service_s[queue]
    events = [((k + 0.5) * period, y * data / work) for k, y in enumerate(service)]
    spans = [(k * period, (k + 1) * period, y / period) for k, y in enumerate(service)]
    metrics = {
        "duration_h": plan.focus_done_s / HOUR_S,
        "avg_drives": work / plan.focus_done_s,
        "throughput_mb_s": data / plan.focus_done_s,
        "backlog_drive_h": plan.backlog_area_s2 / (periods * period) / HOUR_S,
        "background_wait_h": math.nan,
        "tapes_reclaimed": 0.0,
    }
    runs.append(
        SeriesRun(
            "offline", seed, metrics, tuple(_hourly(events, hours)),
            tuple(_drives_hourly(spans, hours)),
        )
    )  # fmt: skip
    return runs


@frozen
class StudyOutcome:
    """Every run of the study and each series' estimates."""

    config: CnafConfig
    runs: tuple[SeriesRun, ...]
    estimates: Mapping[str, Mapping[str, Estimate]]


def run_study(
    config: CnafConfig, progress: Callable[[int], None] | None = None, offline: bool = True
) -> StudyOutcome:
    """Run every seed (``config.seed`` on), then estimate each series' metrics."""
    runs: list[SeriesRun] = []
    for k in range(config.seeds):
        runs += run_seed(config, config.seed + k, offline)
        if progress is not None:
            progress(k + 1)
    return outcome_of(config, runs)


def outcome_of(config: CnafConfig, runs: Sequence[SeriesRun]) -> StudyOutcome:
    """The study's outcome from every run: each series' metrics estimated over its seeds."""
    estimates: dict[str, dict[str, Estimate]] = {}
    by_series: dict[str, list[SeriesRun]] = defaultdict(list)
    for r in runs:
        by_series[r.series].append(r)
    for series, kept in by_series.items():
        estimates[series] = {
            m: estimate([None if math.isnan(r.metrics[m]) else r.metrics[m] for r in kept])
            for m in METRICS
        }
    return StudyOutcome(config, tuple(runs), estimates)
