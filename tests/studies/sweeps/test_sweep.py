"""Sweeps: seeds, replications to a precision, the cache, executors, and what they report."""

from __future__ import annotations

import csv
import io
import json
import threading
from collections.abc import Sequence
from pathlib import Path

import pytest
from attrs import evolve

from tapesched.simulator.results.records import RunSummary
from tapesched.simulator.scenario.document import load_scenario
from tapesched.simulator.scenario.spec import Scenario
from tapesched.studies.blue_waters.figures import BW_FIG6, BW_FIG10
from tapesched.studies.registry import EXPERIMENTS
from tapesched.studies.results_file import COLUMNS, results_csv
from tapesched.studies.sweeps.figure import study_figure
from tapesched.studies.sweeps.report import (
    max_sustainable_rate,
    result_rows,
    summary_document,
)
from tapesched.studies.sweeps.study import (
    METRICS,
    RATE,
    SCENARIO_FILE,
    SCHEDULER,
    Study,
    Unavailable,
    points,
    unavailable,
)
from tapesched.studies.sweeps.sweep import (
    Cache,
    InProcess,
    Point,
    PointResult,
    Precision,
    executor,
    replication_seed,
    run_replication,
    run_sweep,
)
from tapesched.studies.sweeps.swept_study import SweptStudy
from tapesched.toolkit.plots.figures import render
from tests.conftest import INSTANCES

AMPEX = INSTANCES / "scenarios" / "ampex.json"

TINY = Study(
    "tiny",
    "two policies on the Ampex library, small files",
    "none",
    "small",
    RATE,
    (60, 2000),
    (60, 2000),
    ("parallel", "vertical"),
    6 * 3600.0,
    6 * 3600.0,
    block_mb=64,
)
"""A sweep of four points of well under a second each: 60/h keeps up, 2000/h is saturated."""

TINY_EXPERIMENT = SweptStudy(TINY)
""":data:`TINY` as an experiment (``tapesched experiment
tests.studies.sweeps.test_sweep:TINY_EXPERIMENT``, or installed under the name ``tiny``)."""

ONE = evolve(
    TINY,
    name="one",
    x_values=(60.0,),
    quick_x_values=(60.0,),
    series=("vertical",),
    quick_duration_s=2 * 3600.0,
)
"""The tiny sweep cut to one point: an experiment of two replications of a moment each."""

ONE_EXPERIMENT = SweptStudy(ONE)
""":data:`ONE` as an experiment."""


def tiny_csv(results: Sequence[PointResult]) -> str:
    """The ``results.csv`` of :data:`TINY`'s results."""
    return results_csv(result_rows(TINY, results))


PRECISION = Precision(share=0.05, min_replications=2, max_replications=3)


@pytest.fixture(scope="module")
def tiny_points() -> list[Point]:
    return points(TINY, load_scenario(AMPEX), quick=True)


@pytest.fixture(scope="module")
def tiny_results(tiny_points) -> tuple[PointResult, ...]:
    """The tiny sweep run once, in this process."""
    return sweep(tiny_points)


def summary(value: float | None = 10.0, *, saturated: bool = False, seed: int = 0) -> RunSummary:
    """A hand-made run summary whose weighted response is ``value``."""
    return RunSummary(
        seed=seed,
        duration_s=100.0,
        warmup_s=10.0,
        arrived=10,
        completed=10,
        measured=9,
        backlog=0,
        saturated=saturated,
        mean_weighted_response_s_per_gb=None if saturated else value,
        mean_response_s=None if saturated else value,
        mean_stretch=None if saturated else 1.0,
        throughput_mb_s_over_window=5.0,
        drive_busy_share_over_horizon=0.5,
        drive_streaming_share_over_horizon=0.4,
        arm_busy_share_over_horizon=0.1,
        mounts=3,
        mounts_per_tape=1.0,
        makespan_s=90.0,
        drive_streaming_share_over_makespan=0.4,
        arm_busy_share_over_makespan=0.1,
    )


def steady(scenario: Scenario, seed: int) -> RunSummary:
    """Every replication measures the same: precise after the first two."""
    return summary(100.0, seed=seed)


def scattered(scenario: Scenario, seed: int) -> RunSummary:
    """Replications far apart (seeds are uniform over 63 bits): never precise, so the cap
    ends the point."""
    return summary(float(seed), seed=seed)


class Counting:
    """Runs replications and counts them (in this process: ``--workers 1``)."""

    def __init__(self, fail_at: int | None = None) -> None:
        self.calls = 0
        self.fail_at = fail_at

    def __call__(self, scenario: Scenario, seed: int) -> RunSummary:
        self.calls += 1
        if self.calls == self.fail_at:
            raise KeyboardInterrupt
        return run_replication(scenario, seed)


def sweep(pts: list[Point], **kwargs: object) -> tuple[PointResult, ...]:
    kwargs.setdefault("pool", InProcess())
    return run_sweep(pts, seed=1, precision=PRECISION, **kwargs).results


# --- seeds and replications -------------------------------------------------------------


def test_seeds_come_from_the_experiment_seed_the_x_and_the_replication_alone():
    assert replication_seed(1, 60.0, 0) == replication_seed(1, 60, 0)
    seeds = {replication_seed(s, x, k) for s in (1, 2) for x in (60.0, 2000.0) for k in (0, 1)}
    assert len(seeds) == 8
    assert all(0 <= s < 2**63 for s in seeds)


def test_series_at_one_x_share_their_seeds(tiny_results):
    by_x: dict[float, set[tuple[int, ...]]] = {}
    for r in tiny_results:
        by_x.setdefault(r.point.x, set()).add(r.seeds[:2])
    assert all(len(seeds) == 1 for seeds in by_x.values())
    assert by_x[60.0] != by_x[2000.0]


def test_replications_stop_at_the_precision(tiny_points):
    precision = Precision(share=0.05, min_replications=2, max_replications=8)
    outcome = run_sweep(tiny_points[:1], seed=1, precision=precision, pool=InProcess(), run=steady)
    assert [len(r.runs) for r in outcome.results] == [2]


def test_replications_stop_at_the_cap(tiny_points):
    precision = Precision(share=0.05, min_replications=2, max_replications=5)
    outcome = run_sweep(
        tiny_points[:2], seed=1, precision=precision, pool=InProcess(), run=scattered
    )
    assert [len(r.runs) for r in outcome.results] == [5, 5]
    estimate = outcome.results[0].estimates["mean_weighted_response_s_per_gb"]
    assert estimate.half_width is not None and estimate.mean is not None
    assert estimate.half_width > 0.05 * estimate.mean


def test_a_saturated_point_stops_at_the_first_replications(tiny_results):
    saturated = [r for r in tiny_results if r.point.x == 2000.0]
    assert saturated and all(r.saturated and len(r.runs) == 2 for r in saturated)
    assert all(r.estimates["mean_weighted_response_s_per_gb"].mean is None for r in saturated)
    kept = [r for r in tiny_results if r.point.x == 60.0]
    assert all(not r.saturated and len(r.runs) >= 2 for r in kept)


# --- the cache ---------------------------------------------------------------------------


def test_a_second_sweep_takes_every_replication_from_the_cache(tmp_path, tiny_points):
    first, again = Counting(), Counting()
    cache = Cache(tmp_path / "cache")
    one = run_sweep(
        tiny_points, seed=1, precision=PRECISION, pool=InProcess(), cache=cache, run=first
    )
    two = run_sweep(
        tiny_points, seed=1, precision=PRECISION, pool=InProcess(), cache=cache, run=again
    )
    assert first.calls == one.simulated > 0 and one.cached == 0
    assert again.calls == 0 and two.simulated == 0 and two.cached == one.simulated
    assert tiny_csv(two.results) == tiny_csv(one.results)


def test_an_interrupted_sweep_resumes_where_it_stopped(tmp_path, tiny_points, tiny_results):
    cache = Cache(tmp_path / "cache")
    with pytest.raises(KeyboardInterrupt):
        run_sweep(tiny_points, seed=1, precision=PRECISION, pool=InProcess(), cache=cache,
                  run=Counting(fail_at=4))  # fmt: skip
    assert len(list((tmp_path / "cache").glob("*.json"))) == 3
    resumed = Counting()
    outcome = run_sweep(
        tiny_points, seed=1, precision=PRECISION, pool=InProcess(), cache=cache, run=resumed
    )
    assert outcome.cached == 3 and resumed.calls == outcome.simulated
    assert tiny_csv(outcome.results) == tiny_csv(tiny_results)


def test_another_scenario_or_seed_is_another_cache_entry(tmp_path, tiny_points):
    cache = Cache(tmp_path / "cache")
    run_sweep(tiny_points[:1], seed=1, precision=PRECISION, pool=InProcess(), cache=cache)
    longer = [evolve(tiny_points[0], scenario=evolve(
        tiny_points[0].scenario,
        workload=evolve(tiny_points[0].scenario.workload, duration_s=7 * 3600.0),
    ))]  # fmt: skip
    counted = Counting()
    run_sweep(longer, seed=1, precision=PRECISION, pool=InProcess(), cache=cache, run=counted)
    assert counted.calls >= 2
    counted = Counting()
    run_sweep(tiny_points[:1], seed=2, precision=PRECISION, pool=InProcess(), cache=cache,
              run=counted)  # fmt: skip
    assert counted.calls >= 2


def test_writers_of_one_key_at_once_leave_one_whole_entry_and_readers_never_see_a_torn_one(
    tmp_path,
):
    """Two sweeps sharing a cache (or one sweep's callbacks) may keep the same replication at
    once: each entry is written beside and renamed over, so a reader finds none or a whole one."""
    warnings: list[str] = []
    cache = Cache(tmp_path / "cache", warn=warnings.append)
    key, seed = "k" * 64, 7
    kept = [summary(float(v), seed=seed) for v in range(1, 5)]
    start = threading.Barrier(len(kept) + 1)
    seen: list[RunSummary | None] = []

    def write(one: RunSummary) -> None:
        start.wait()
        for _ in range(25):
            cache.put(key, one)

    def read() -> None:
        start.wait()
        while any(w.is_alive() for w in writers):
            seen.append(cache.get(key, seed))

    writers = [threading.Thread(target=write, args=(one,)) for one in kept]
    reader = threading.Thread(target=read)
    for thread in (*writers, reader):
        thread.start()
    for thread in (*writers, reader):
        thread.join()
    assert warnings == []
    assert seen and all(s is None or s in kept for s in seen)
    assert cache.get(key, seed) in kept
    assert [p.name for p in (tmp_path / "cache").iterdir()] == [f"{key}.json"]


# --- executors ---------------------------------------------------------------------------


@pytest.mark.pool
def test_serial_processes_and_a_dask_cluster_give_the_same_results(tiny_points, tiny_results):
    from distributed import LocalCluster

    serial = tiny_csv(tiny_results)
    with executor(workers=2) as pool:
        assert tiny_csv(sweep(tiny_points, pool=pool)) == serial
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster,
        executor(dask_address=cluster.scheduler_address) as pool,
    ):
        assert tiny_csv(sweep(tiny_points, pool=pool)) == serial


# --- what a sweep reports ----------------------------------------------------------------


def result_at(x: float, saturated: bool, series: str = "rait") -> PointResult:
    point = Point(series, x, load_scenario(AMPEX))
    runs = (summary(5.0, saturated=saturated, seed=1), summary(6.0, seed=2))
    return PointResult(point, runs, (1, 2))


def test_the_maximum_sustainable_rate_is_the_highest_rate_not_saturated():
    assert max_sustainable_rate([result_at(100, False), result_at(200, False),
                                 result_at(300, True)]) == 200  # fmt: skip
    assert max_sustainable_rate([result_at(100, True), result_at(200, True)]) is None
    assert max_sustainable_rate([result_at(100, False), result_at(200, False)]) == 200


def test_summary_json_gives_each_series_its_maximum_sustainable_rate():
    results = [
        result_at(100, False, "rait"),
        result_at(200, True, "rait"),
        result_at(100, False, "vertical"),
        result_at(200, False, "vertical"),
    ]
    document = summary_document(TINY, results, {"seed": 1}, PRECISION)
    series = document["series"]
    assert series["rait"]["max_sustainable_rate_per_h"] == 100
    assert series["rait"]["lowest_saturated_rate_per_h"] == 200
    assert series["vertical"]["max_sustainable_rate_per_h"] == 200
    assert series["vertical"]["lowest_saturated_rate_per_h"] is None
    assert document["settings"]["precision"]["max_replications"] == 3
    json.dumps(document, allow_nan=False)


def test_results_csv_has_a_row_per_point_series_and_metric(tiny_points, tiny_results):
    rows = list(csv.DictReader(io.StringIO(tiny_csv(tiny_results))))
    assert tuple(rows[0]) == COLUMNS
    assert len(rows) == len(tiny_points) * len(METRICS)
    assert {(r["series"], float(r["x"]), r["metric"]) for r in rows} == {
        (p.series, p.x, m) for p in tiny_points for m in METRICS
    }
    assert {r["experiment"] for r in rows} == {"tiny"} and {r["x_name"] for r in rows} == {
        "rate_per_h"
    }
    for r in rows:
        saturated = r["saturated"] == "true"
        assert saturated == (float(r["x"]) == 2000.0)
        assert int(r["replications"]) >= 2
        if r["metric"].startswith("mean_"):
            assert (r["mean"] == "") == saturated
        if not saturated:
            assert float(r["half_width"]) >= 0


def test_the_figure_is_a_png(tiny_results):
    data = render(study_figure(TINY, result_rows(TINY, tiny_results)), "png")
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 10_000


# --- the paper's experiments -------------------------------------------------------------


def test_every_experiment_runs_under_the_papers_scheduler():
    scenario = load_scenario(SCENARIO_FILE)
    assert SCHEDULER == "bw-main"
    for study in (EXPERIMENTS[n].study for n in EXPERIMENTS if n.startswith("bw-")):
        assert unavailable(study) is None
        swept = points(study, scenario, quick=True)
        assert len(swept) == len(study.series) * len(study.quick_x_values)
        assert set(study.quick_x_values) <= set(study.x_values)
        assert {p.scenario.run.scheduler for p in swept} == {"bw-main"}


def test_the_load_balancer_period_reaches_bw_main():
    scenario = load_scenario(SCENARIO_FILE)
    study = BW_FIG10.study
    swept = points(study, scenario, quick=True)
    periods = sorted({p.scenario.run.bw_main.min_lb_interval_s for p in swept})
    assert periods == [x * 86400.0 for x in sorted(study.quick_x_values)]
    assert {p.x for p in swept} == set(study.quick_x_values)


def test_the_load_balancer_period_is_refused_under_another_scheduler():
    scenario = load_scenario(SCENARIO_FILE)
    study = BW_FIG10.study
    why = unavailable(study, "fifo")
    assert why is not None and "'fifo' has no MINLBINTERVAL" in why and "\n" not in why
    with pytest.raises(Unavailable):
        points(study, scenario, quick=True, scheduler="fifo")
    assert unavailable(BW_FIG6.study, "fifo") is None
    assert {p.scenario.run.scheduler for p in points(BW_FIG6.study, scenario, True, "fifo")} == {
        "fifo"
    }


def test_the_shipped_scenario_is_the_default_base():
    assert Path(SCENARIO_FILE).is_file()
