"""The Blue Waters paper's rankings (its Section 6), on ``--quick`` points with a fixed seed.

Each test runs some points of one experiment as ``tapesched experiment NAME
--quick`` defines them (:func:`tapesched.studies.sweeps.study.points` on the shipped
scenario, the paper-scale archive, ``bw-main``), two replications each (one
for a test of saturation alone), and checks an ordering the paper reports.
The points are those of the quick sweep where the ordering shows, and only
those a test reads: no point is run by two tests, so each test runs its own.
They run in this process (``--workers 1``: the replications' seeds, hence
the results, do not depend on the pool, and the pool has tests of its own in
tests/studies/sweeps/test_sweep.py), so that no xdist worker starts processes of
its own. The whole quick figures, and where this platform's numbers differ
from the paper's, are in the README ("The Blue Waters study").
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from tapesched.simulator.scenario.document import load_scenario
from tapesched.studies.registry import EXPERIMENTS
from tapesched.studies.sweeps.study import SCENARIO_FILE, points
from tapesched.studies.sweeps.sweep import (
    InProcess,
    Point,
    PointResult,
    Precision,
    replication_seed,
    run_replication,
    run_sweep,
)

pytestmark = pytest.mark.paper
"""Every test here reproduces the paper on quick points: ``make test-papers``."""

SEED = 1
TWO = Precision(share=0.05, min_replications=2, max_replications=2)


def chosen_points(name: str, xs: Iterable[float], series: Iterable[str] | None) -> list[Point]:
    """The quick points of experiment ``name`` at ``xs`` (and ``series``)."""
    study = EXPERIMENTS[name].study
    wanted_x = set(xs)
    wanted_series = set(series or study.series)
    assert wanted_x <= set(study.quick_x_values)
    chosen = [
        p
        for p in points(study, load_scenario(SCENARIO_FILE), quick=True)
        if p.x in wanted_x and p.series in wanted_series
    ]
    return chosen


def run_points(
    name: str, xs: Iterable[float], series: Iterable[str] | None = None
) -> dict[tuple[str, float], PointResult]:
    """The quick points of experiment ``name`` at ``xs`` (and ``series``), two replications
    each, by (series, x)."""
    outcome = run_sweep(chosen_points(name, xs, series), seed=SEED, precision=TWO, pool=InProcess())
    return {(r.point.series, r.point.x): r for r in outcome.results}


def saturated(name: str, xs: Iterable[float], series: Iterable[str] | None = None) -> dict:
    """Whether the first replication of each point (the sweep's, with its seed) is saturated,
    by (series, x): saturation is a property of one run, its backlog growing or not (and a
    point is saturated when one of its runs is)."""
    return {
        (p.series, p.x): run_replication(p.scenario, replication_seed(SEED, p.x, 0)).saturated
        for p in chosen_points(name, xs, series)
    }


def mean(result: PointResult) -> float:
    """The point's mean weighted response time (s/GB); the point must not be saturated."""
    assert not result.saturated, result.point
    value = result.estimates["mean_weighted_response_s_per_gb"].mean
    assert value is not None
    return value


def test_small_files_vertical_sustains_the_highest_rate_then_parallel_then_rait():
    """One replication a point (:func:`saturated`): no mean is read. RAIT at 2000/h is not
    read (it saturates at 1200/h already): not run."""
    got = saturated("bw-fig6", (1200,)) | saturated("bw-fig6", (2000,), ("parallel", "vertical"))
    assert got["rait", 1200]
    assert not got["parallel", 1200] and got["parallel", 2000]
    assert not got["vertical", 1200] and not got["vertical", 2000]


def test_small_files_rait_beats_neither_parallel_nor_vertical():
    got = run_points("bw-fig6", (400, 800))
    for x in (400, 800):
        assert mean(got["rait", x]) > max(mean(got["parallel", x]), mean(got["vertical", x]))


def test_medium_files_parallel_answers_fastest_at_low_load():
    got = run_points("bw-fig7", (100,))
    assert mean(got["parallel", 100]) < min(mean(got["rait", 100]), mean(got["vertical", 100]))


def test_rait_with_1_mb_blocks_is_far_slower_than_with_192_mb():
    got = run_points("bw-fig5", (1, 192), ("rait",))
    small, large = got["rait", 1], got["rait", 192]
    assert small.saturated or mean(small) > 10 * mean(large)
    assert mean(large) < 2 * mean(run_points("bw-fig5", (192,), ("parallel",))["parallel", 192])


def test_mixed_sizes_hetero_beats_every_single_policy():
    got = run_points("bw-fig11", (1, 3))
    for x in (1, 3):
        others = [mean(got[policy, x]) for policy in ("rait", "parallel", "vertical")]
        assert mean(got["hetero", x]) < min(others)


def test_large_files_vertical_answers_slowest():
    got = run_points("bw-fig8", (0.1, 0.5))
    for x in (0.1, 0.5):
        fastest = max(mean(got["parallel", x]), mean(got["rait", x]))
        assert mean(got["vertical", x]) > 3 * fastest
