"""`redraw_results`: a results.csv drawn again, in the experiment's own layout or a panel per
metric, on tiny hand-made files of each experiment's shape (read back through the reader)."""

from __future__ import annotations

import math

import pytest

from tapesched.simulator.results.records import Estimate
from tapesched.studies.lines_figure import MOST_IN_LEGEND
from tapesched.studies.registry import EXPERIMENTS
from tapesched.studies.results_file import ResultRow, read_results_csv, results_csv
from tapesched.studies.sweeps.redraw import redraw_results
from tapesched.toolkit.errors import InputError


def read_back(rows: list[ResultRow]) -> tuple[ResultRow, ...]:
    """``rows`` as the writer writes them and the reader reads them back."""
    return read_results_csv(results_csv(rows), "results.csv")


def defer_rows() -> list[ResultRow]:
    """ecmwf-defer-dismount's shape: x = inf for kept mounted, one replication, no interval,
    fifo kept mounted saturated (no latency)."""
    rows = []
    for series in ("lru", "fifo"):
        for x in (0.0, 60.0, math.inf):
            saturated = series == "fifo" and math.isinf(x)
            for metric in ("mounts", "mean_mount_latency_s", "mean_latency_s"):
                mean = None if saturated and metric != "mounts" else 5.0 + min(x, 120.0) / 60
                estimate = Estimate(mean, None, 1, saturated)
                rows.append(
                    ResultRow("ecmwf-defer-dismount", series, "defer_s", x, metric, estimate)
                )
    return rows


def bnl_rows() -> list[ResultRow]:
    """bnl-coverage's shape: a series per tape, spacing and ordering (8 here), two metrics; the
    exact order not run at 100 % (no mean)."""
    rows = []
    for case in ("LTO-7 10GB", "TS1150 1GB"):
        for spacing in ("even", "random"):
            for ordering in ("offset", "exact"):
                for x in (10.0, 100.0):
                    for metric in ("throughput_mb_s", "gain_over_offset_pct"):
                        mean = None if ordering == "exact" and x == 100.0 else x / 3
                        series = f"{case} {spacing} {ordering}"
                        estimate = Estimate(mean, 0.5 if mean else None, 3)
                        head = ("bnl-coverage", series, "coverage_pct", x)
                        rows.append(ResultRow(*head, metric, estimate))
    return rows


def mine_rows(experiment: str = "mine") -> list[ResultRow]:
    """Any experiment's shape: three metrics, a saturated point, an empty half-width."""
    rows = []
    for metric in ("m1", "m2", "m3"):
        rows.append(ResultRow(experiment, "a", "load", 1.0, metric, Estimate(1.5, 0.1, 2)))
        rows.append(ResultRow(experiment, "a", "load", 2.0, metric, Estimate(2.5, None, 1)))
        rows.append(ResultRow(experiment, "b", "load", 3.0, metric, Estimate(None, None, 2, True)))
    return rows


def test_the_reader_takes_an_infinite_x_and_refuses_nan():
    rows = read_back(defer_rows())
    assert sum(math.isinf(r.x) for r in rows) == 6
    text = results_csv(mine_rows()).replace(",1.0,m1,", ",nan,m1,", 1)
    with pytest.raises(InputError, match=r"line 2\.x: expected a number, got 'nan'"):
        read_results_csv(text, "results.csv")


def test_ecmwf_defer_dismount_is_drawn_in_its_own_three_panels_kept_mounted_dashed():
    drawn = redraw_results(read_back(defer_rows()))
    assert (drawn.layout, drawn.note, drawn.series, drawn.points) == ("experiment", "", 2, 18)
    axes = drawn.figure.axes
    assert [a.get_ylabel() for a in axes] == [
        "mounts", "mean mount latency (s)", "mean latency, all requests (s)",
    ]  # fmt: skip
    # a line per rule and, where kept mounted has a value, its dashed line
    assert [len(a.get_lines()) for a in axes] == [4, 3, 3]
    labels = axes[0].get_legend_handles_labels()[1]
    assert labels == ["lru+defer:T", "lru, kept", "fifo+defer:T", "fifo, kept"]


def test_an_infinite_x_on_a_panel_per_metric_is_a_dashed_line_at_its_mean():
    drawn = redraw_results(read_back(defer_rows()), "metrics")
    assert drawn.layout == "metrics"
    assert [a.get_title() for a in drawn.figure.axes] == [
        "mounts", "mean_mount_latency_s", "mean_latency_s",
    ]  # fmt: skip
    first = drawn.figure.axes[0]
    dashed = [line for line in first.get_lines() if line.get_linestyle() == "--"]
    # fifo kept mounted is saturated: no mean, and no place for its cross at x = inf
    assert [line.get_label() for line in dashed] == ["lru, x = inf"]
    drawn.figure.canvas.draw()
    assert all(math.isfinite(v) for v in first.get_xlim())


def test_bnl_coverage_is_drawn_a_column_per_tape_not_its_series_on_one_panel():
    drawn = redraw_results(read_back(bnl_rows()))
    assert (drawn.layout, drawn.series, drawn.metrics) == (
        "experiment", 8, ("throughput_mb_s", "gain_over_offset_pct"),
    )  # fmt: skip
    axes = drawn.figure.axes
    assert [a.get_title() for a in axes] == ["LTO-7 10GB", "TS1150 1GB", "", ""]
    assert axes[0].get_ylabel() == "throughput (MB/s)"
    assert axes[2].get_ylabel() == "gain over offset (%)"
    # a line per spacing and ordering on each panel (the exact order has a point at 10 %)
    assert len(axes[0].get_legend_handles_labels()[1]) == 4


def test_an_unknown_experiment_is_drawn_a_panel_per_metric_and_says_why():
    drawn = redraw_results(read_back(mine_rows()))
    assert (drawn.layout, drawn.metrics) == ("metrics", ("m1", "m2", "m3"))
    assert "'mine' is no experiment of this version" in drawn.note
    axes = drawn.figure.axes
    assert [a.get_title() for a in axes] == ["m1", "m2", "m3"]
    assert {a.get_xlabel() for a in axes} == {"load"}
    assert "saturated (no mean)" in axes[0].get_legend_handles_labels()[1]


class NeedsMore:
    """An experiment whose figure needs more than its rows: it does not say it redraws
    from them (no ``redraws_from_rows``)."""

    name = "needs-more"
    description = "an experiment whose figure is drawn from its outcomes"
    parameters = ()

    def points(self, run):
        return [1]

    def run_point(self, point, run):
        return point


def test_an_experiment_whose_figure_needs_more_than_its_rows_is_drawn_a_panel_per_metric(
    monkeypatch,
):
    monkeypatch.setattr(EXPERIMENTS, "_slots", dict(EXPERIMENTS._slots))
    EXPERIMENTS.add("needs-more", NeedsMore(), NeedsMore.description)
    drawn = redraw_results(read_back(mine_rows("needs-more")))
    assert drawn.layout == "metrics" and len(drawn.figure.axes) == 3
    assert drawn.note.startswith("needs-more's own figure needs more than its results.csv")


def test_one_metric_on_one_panel_and_an_unknown_one_refused():
    drawn = redraw_results(read_back(mine_rows()), "metric", "m2")
    assert (drawn.layout, drawn.metrics, drawn.points) == ("metric", ("m2",), 3)
    assert len(drawn.figure.axes) == 1
    with pytest.raises(
        ValueError, match=r"'nope' is not a metric of the file \(it holds m1, m2, m3\)"
    ):
        redraw_results(read_back(mine_rows()), "metric", "nope")


def test_a_panel_of_more_series_than_a_legend_holds_names_none_and_says_how_many():
    rows = [
        ResultRow("mine", f"vector {i}", "load", x, "m1", Estimate(x + i, None, 1))
        for i in range(MOST_IN_LEGEND + 1)
        for x in (1.0, 2.0)
    ]
    (axes,) = redraw_results(read_back(rows)).figure.axes
    assert axes.get_legend() is None
    assert axes.get_title(loc="right") == f"{MOST_IN_LEGEND + 1} series, unnamed"
    (few,) = redraw_results(read_back(rows[:4])).figure.axes
    assert few.get_legend() is not None and few.get_title(loc="right") == ""


def test_every_experiment_of_this_version_redraws_its_own_figure_from_its_rows():
    """What makes `plot results` draw an experiment's own figure; each experiment's test
    checks the redrawn figure byte for byte on its run (tests/studies)."""
    names = EXPERIMENTS.names()
    assert len(names) >= 17
    assert [n for n in names if not getattr(EXPERIMENTS.get(n), "redraws_from_rows", False)] == []
