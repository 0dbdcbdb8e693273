"""Metrics of runs: Student's t, estimates over replications, records and the saturation rule."""

from __future__ import annotations

import json
import math
import statistics
from types import SimpleNamespace

import attrs
import pytest

from tapesched.simulator.results.records import (
    METRICS,
    SATURATION_FLOOR,
    SATURATION_GROWTH,
    SATURATION_SHARE,
    Estimate,
    RequestRecord,
    RunSummary,
    combine,
    estimate,
    summarise,
    t95,
)
from tapesched.simulator.results.replications import run_once, run_scenario
from tapesched.simulator.scenario.document import scenario_from_dict
from tapesched.simulator.scenario.spec import Scenario
from tests.conftest import INSTANCES

# --- Student's t ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("degrees", "quantile"),
    [(1, 12.706), (2, 4.303), (4, 2.776), (9, 2.262), (10, 2.228), (29, 2.045), (30, 2.042)],
)
def test_t95_is_the_tables_quantile(degrees, quantile):
    # The published three-decimal table is scipy's exact quantile, rounded.
    assert t95(degrees) == pytest.approx(quantile, abs=5e-4)


@pytest.mark.parametrize(("degrees", "quantile"), [(31, 2.040), (100, 1.984), (10**6, 1.960)])
def test_t95_tends_to_the_normal_quantile_above_thirty_degrees(degrees, quantile):
    assert t95(degrees) == pytest.approx(quantile, abs=5e-4)
    assert t95(degrees) > 1.959963


def test_t95_decreases_with_the_degrees_of_freedom():
    values = [t95(k) for k in range(1, 32)]
    assert values == sorted(values, reverse=True)
    assert len(set(values)) == len(values)


@pytest.mark.parametrize("degrees", [0, -1, -30])
def test_t95_rejects_fewer_than_one_degree(degrees):
    with pytest.raises(ValueError, match=f"degrees of freedom must be >= 1, got {degrees}"):
        t95(degrees)


# --- estimates ------------------------------------------------------------------------


def test_estimate_of_three_values_by_hand():
    # mean 4, sample deviation sqrt(((2-4)^2 + 0 + (6-4)^2) / 2) = 2, t(2) = 4.303
    e = estimate([2.0, 4.0, 6.0])
    assert e.mean == 4.0
    assert e.half_width == pytest.approx(4.303 * 2 / math.sqrt(3), rel=1e-4)
    assert e.replications == 3
    # The half-width (4.97) exceeds the mean: flagged, with the t's degrees of freedom.
    assert e.wide
    assert e.degrees_of_freedom == 2
    assert str(e) == "4 ± 5 (t, 2 df: wider than the mean)"


def test_estimate_narrower_than_its_mean_is_not_flagged():
    e = estimate([9.0, 10.0, 11.0])
    assert not e.wide
    assert str(e) == "10 ± 2.5"
    assert e.to_dict() == {
        "mean": 10.0,
        "half_width_95": pytest.approx(2.4841, abs=1e-4),
        "n": 3,
        "degrees_of_freedom": 2,
        "wider_than_mean": False,
        "missing": None,
    }


def test_estimate_of_equal_values_has_zero_half_width():
    assert estimate([3.5, 3.5, 3.5, 3.5]) == Estimate(3.5, 0.0, 4)


def test_estimate_of_two_values_uses_twelve_point_seven():
    # stdev of two values is |a - b| / sqrt(2): half-width 12.706 * |a - b| / 2
    e = estimate([10.0, 11.0])
    assert e.mean == 10.5
    assert e.half_width == pytest.approx(12.706 * 0.5, rel=1e-4)


@pytest.mark.parametrize(
    "values", [[1.0, None, 3.0], [None], [None, None], [2.0, 2.0, None]], ids=str
)
def test_estimate_with_any_none_is_saturated(values):
    e = estimate(values)
    assert e == Estimate(None, None, len(values))
    assert str(e) == "saturated"


def test_estimate_of_nothing_is_empty():
    assert estimate([]) == Estimate(None, None, 0)


def test_estimate_of_one_value_has_no_half_width():
    e = estimate([7.25])
    assert e == Estimate(7.25, None, 1)
    assert str(e) == "7.25"


def test_estimate_takes_integers():
    assert estimate([1, 2, 3]).mean == 2.0


# --- combining replications -----------------------------------------------------------


def _summary(seed: int, saturated: bool, response: float | None, utilisation: float) -> RunSummary:
    return RunSummary(
        seed=seed,
        duration_s=1000.0,
        warmup_s=100.0,
        arrived=100,
        completed=50 if saturated else 100,
        measured=40,
        backlog=50 if saturated else 0,
        saturated=saturated,
        mean_weighted_response_s_per_gb=response,
        mean_response_s=response,
        mean_stretch=None if response is None else response / 10,
        throughput_mb_s_over_window=2.0 * seed,
        drive_busy_share_over_horizon=utilisation,
        drive_streaming_share_over_horizon=utilisation / 4,
        arm_busy_share_over_horizon=utilisation / 2,
        mounts=10,
        mounts_per_tape=1.0 + seed,
        makespan_s=990.0,
        drive_streaming_share_over_makespan=utilisation / 4,
        arm_busy_share_over_makespan=utilisation / 2,
    )


def test_combine_estimates_every_metric_over_unsaturated_runs():
    runs = [_summary(1, False, 10.0, 0.5), _summary(2, False, 20.0, 0.7)]
    out = combine(runs)
    assert list(out) == list(METRICS)
    assert out["mean_response_s"] == estimate([10.0, 20.0])
    assert out["mean_response_s"].mean == 15.0
    assert out["mean_stretch"] == estimate([1.0, 2.0])
    assert out["throughput_mb_s_over_window"] == estimate([2.0, 4.0])
    assert out["drive_busy_share_over_horizon"].mean == pytest.approx(0.6)
    assert out["arm_busy_share_over_horizon"].mean == pytest.approx(0.3)
    assert out["mounts_per_tape"] == estimate([2.0, 3.0])
    assert all(e.replications == 2 and e.half_width is not None for e in out.values())
    assert not any(e.saturated for e in out.values())


def test_one_saturated_replication_saturates_the_means_not_the_utilisations():
    # The saturated run still carries a number (as if the caller had one): combine drops it.
    runs = [_summary(1, False, 10.0, 0.5), _summary(2, True, 99.0, 0.9)]
    out = combine(runs)
    for name in ("mean_weighted_response_s_per_gb", "mean_response_s", "mean_stretch"):
        assert out[name].mean is None and out[name].half_width is None
        assert str(out[name]) == "saturated"
    busy = out["drive_busy_share_over_horizon"]
    assert busy == attrs.evolve(estimate([0.5, 0.9]), saturated=True)
    assert out["drive_busy_share_over_horizon"].mean == pytest.approx(0.7)
    assert out["arm_busy_share_over_horizon"].mean == pytest.approx(0.35)
    assert out["throughput_mb_s_over_window"] == attrs.evolve(estimate([2.0, 4.0]), saturated=True)
    assert all(e.saturated for e in out.values())
    assert out["mounts_per_tape"].replications == 2


def test_a_replication_that_measured_nothing_says_so_instead_of_saturated():
    runs = [_summary(1, False, 10.0, 0.5), _summary(2, False, None, 0.1)]
    out = combine(runs)
    for name in ("mean_weighted_response_s_per_gb", "mean_response_s", "mean_stretch"):
        assert out[name].mean is None
        assert str(out[name]) == "no request measured"
        assert out[name].to_dict()["missing"] == "no request measured"
    assert out["drive_busy_share_over_horizon"].mean == pytest.approx(0.3)


def test_a_saturated_metric_still_counts_every_replication():
    runs = [_summary(1, False, 10.0, 0.5), _summary(2, True, None, 0.9), _summary(3, True, None, 1)]
    assert combine(runs)["mean_response_s"].replications == 3


# --- request records ------------------------------------------------------------------


def _record(**changes: object) -> RequestRecord:
    base = RequestRecord(
        id="r0",
        kind="read",
        file="f0",
        size_mb=500.0,
        arrival_s=10.0,
        start_s=25.0,
        end_s=70.0,
        free_s=90.0,
        drives=("d0",),
        tapes=("T0",),
        host_mb=500.0,
        mounts=1,
        alone_s=30.0,
    )
    return attrs.evolve(base, **changes)


def test_record_properties_by_hand():
    r = _record()
    assert r.response_s == 60.0  # arrival 10 to end of data 70 (not free_s 90)
    assert r.weighted_response_s_per_gb == 120.0  # 60 s over 0.5 GB
    assert r.stretch == 2.0  # 60 s over 30 s alone


def test_record_of_a_large_file():
    r = _record(size_mb=4000.0, arrival_s=0.0, end_s=1000.0, alone_s=800.0)
    assert r.weighted_response_s_per_gb == 250.0
    assert r.stretch == 1.25


def test_record_with_nothing_to_do_alone_has_stretch_one():
    assert _record(alone_s=0.0).stretch == 1.0


# --- the saturation rule, at its edges ------------------------------------------------


def _finished_simulation(
    arrived: int, now_s: float = 1000.0, midway_backlog: int | None = None
) -> SimpleNamespace:
    """What summarise reads of a simulation, with round numbers."""
    platform = SimpleNamespace(
        tapes_mounted={"T0", "T1"},
        mounts=4,
        drive_busy_share_over_horizon=lambda: 0.5,
        drive_streaming_share_over_horizon=lambda: 0.25,
        arm_busy_share_over_horizon=lambda: 0.5,
        makespan_s=now_s - 10.0,
        drive_streaming_share_over_makespan=lambda: 0.25,
        arm_busy_share_over_makespan=lambda: 0.5,
        handling_failures=0,
        mounts_given_up=0,
        stuck=0,
        drive_failures=0,
        mover_failures=0,
    )
    return SimpleNamespace(
        engine=SimpleNamespace(now_s=now_s),
        arrived=arrived,
        failed=[],
        fault_processes=SimpleNamespace(lost=[]),
        platform=platform,
        midway_backlog=midway_backlog,
    )


def _records(n: int) -> list[RequestRecord]:
    return [_record(id=f"r{i}", arrival_s=200.0 + i, end_s=260.0 + i) for i in range(n)]


@pytest.mark.parametrize(
    ("arrived", "backlog", "midway", "saturated"),
    [
        (100, SATURATION_FLOOR, None, False),  # the floor: 20 left of 100 is not saturated
        (100, SATURATION_FLOOR + 1, None, True),
        (30, SATURATION_FLOOR, None, False),  # a share of 2/3 but only 20 left
        (10_000, 100, None, False),  # the share: a hundredth of 10,000 left is not saturated
        (10_000, 101, None, True),
        (1000, 0, None, False),
        (1000, 60, 40, True),  # grown by half since half-way
        (1000, 59, 40, False),  # grown by less: a queue that may be stable
        (1000, 60, 0, True),
    ],
)
def test_saturation_is_a_growing_backlog_above_the_floor_and_the_share(
    arrived, backlog, midway, saturated
):
    records = _records(arrived - backlog)
    s = summarise(_finished_simulation(arrived, midway_backlog=midway), records, 3, 100.0)
    assert s.backlog == backlog
    assert s.saturated is saturated
    assert max(SATURATION_FLOOR, SATURATION_SHARE * arrived) == max(20, arrived / 100)
    assert SATURATION_GROWTH == 1.5
    assert (s.mean_response_s is None) is saturated
    assert s.drive_busy_share_over_horizon == 0.5  # utilisations reported either way


def test_summarise_by_hand():
    records = [
        _record(id="a", arrival_s=50.0, end_s=80.0, size_mb=1000.0, alone_s=15.0),  # warm-up
        _record(id="b", arrival_s=100.0, end_s=160.0, size_mb=2000.0, alone_s=30.0),
        _record(id="c", arrival_s=300.0, end_s=320.0, size_mb=500.0, alone_s=20.0),
    ]
    s = summarise(_finished_simulation(arrived=4), records, seed=9, warmup_s=100.0)
    assert (s.seed, s.duration_s, s.warmup_s) == (9, 1000.0, 100.0)
    assert (s.arrived, s.completed, s.measured, s.backlog) == (4, 3, 2, 1)
    assert s.saturated is False
    assert s.mean_response_s == 40.0  # (60 + 20) / 2: a arrived in the warm-up
    assert s.mean_weighted_response_s_per_gb == 35.0  # (30 + 40) / 2
    assert s.mean_stretch == 1.5  # (2 + 1) / 2
    assert s.throughput_mb_s_over_window == pytest.approx(
        2500.0 / 900.0
    )  # b and c ended after 100 s
    assert (s.drive_busy_share_over_horizon, s.arm_busy_share_over_horizon) == (0.5, 0.5)
    assert (s.mounts, s.mounts_per_tape) == (4, 2.0)


def test_summarise_with_nothing_measured_has_no_means():
    records = [_record(arrival_s=10.0, end_s=20.0)]
    s = summarise(_finished_simulation(arrived=1), records, seed=1, warmup_s=100.0)
    assert (s.measured, s.saturated) == (0, False)
    assert s.mean_response_s is None and s.mean_stretch is None
    assert s.throughput_mb_s_over_window == 0.0  # it ended before the measured window


# --- through real runs ----------------------------------------------------------------


def _ampex(rate: str, duration: str, **run: object) -> Scenario:
    """The Ampex platform, 1 GB unstriped reads (about 147 s each on one of 4 drives)."""
    doc = json.loads((INSTANCES / "scenarios" / "ampex.json").read_text())
    doc["workload"].update(rate=rate, duration=duration)
    doc["run"].update(run)
    return scenario_from_dict(doc)


def test_an_overloaded_run_is_saturated_and_has_no_mean_response():
    # 200/h against 4 drives serving at most about 4 / 147 s = 98/h.
    rep = run_once(_ampex("200/h", "6h"), seed=1)
    s = rep.summary
    assert s.saturated is True
    assert s.backlog > max(SATURATION_FLOOR, SATURATION_SHARE * s.arrived)
    assert s.backlog == s.arrived - s.completed == s.arrived - len(rep.records)
    assert s.mean_weighted_response_s_per_gb is None
    assert s.mean_response_s is None and s.mean_stretch is None
    assert s.drive_busy_share_over_horizon > 0.95  # the drives never rest
    assert 0 < s.throughput_mb_s_over_window <= 4 * 12.5
    assert s.completed < 4 * s.duration_s / 140  # no drive does better than 140 s a request


def test_an_underloaded_run_keeps_up_and_its_means_are_those_of_its_records():
    scenario = _ampex("5/h", "1d")
    rep = run_once(scenario, seed=1)
    s = rep.summary
    assert s.saturated is False
    assert s.backlog <= 2
    warmup_s = scenario.run.warmup * scenario.workload.duration_s
    assert s.warmup_s == warmup_s == 8640.0
    measured = [r for r in rep.records if r.arrival_s >= warmup_s]
    assert s.measured == len(measured) > 50
    assert s.mean_response_s == statistics.fmean(r.response_s for r in measured)
    # 1 GB files: the weighted response (s per GB) is the response.
    assert s.mean_weighted_response_s_per_gb == pytest.approx(s.mean_response_s)
    assert s.mean_stretch == statistics.fmean(r.stretch for r in measured)
    assert 1.0 <= s.mean_stretch < 1.5
    # Alone: mount 10 + load 5 + locate + 80 s of transfer.
    assert 95.0 < s.mean_response_s < 200.0
    assert 0 < s.drive_busy_share_over_horizon < 0.2


def test_replications_use_consecutive_seeds_and_combine():
    scenario = _ampex("20/h", "3h", seed=4, replications=3)
    runs, estimates = run_scenario(scenario)
    assert [r.summary.seed for r in runs] == [4, 5, 6]
    # The first replication keeps its records (requests.csv); the others only their tally.
    assert len(runs[0].records) == runs[0].summary.completed > 0
    assert all(r.records == () and r.summary.completed > 0 for r in runs[1:])
    assert estimates == combine([r.summary for r in runs])
    responses = [r.summary.mean_response_s for r in runs]
    assert estimates["mean_response_s"] == estimate(responses)
    assert estimates["mean_response_s"].replications == 3
    again = run_once(scenario, seed=5)
    assert again.summary == runs[1].summary
