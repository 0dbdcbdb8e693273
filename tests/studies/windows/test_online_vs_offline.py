"""``tapesched experiment online-vs-offline``: windows of a simulated run, solved both ways.

One quick run of the shipped Ampex-like scenario (three windows of six
requests) through the command line; its files are then held to what the
experiment promises: every window instance validates, the non-anticipative
optimum lies between the clairvoyant optimum and the best online schedule on
every window, and the saved windows re-solve to the values reported.
"""

from __future__ import annotations

import csv
import json
import statistics
from pathlib import Path

import pytest
from click.testing import CliRunner

from tapesched import solvers
from tapesched.cli import main
from tapesched.simulator.results.records import Estimate
from tapesched.simulator.scenario.document import load_scenario
from tapesched.studies.results_file import ResultRow, read_results_csv, results_csv
from tapesched.studies.windows.report import draw_figure
from tapesched.studies.windows.study import (
    cut_windows,
    scenario_windows,
    start_state_at,
    tapes_in_drives_at,
)
from tapesched.toolkit.files.instance_file import load_instance, save_instance
from tapesched.toolkit.files.schedule_file import load_schedule
from tapesched.toolkit.model import ArmOperation, InitialTape, Schedule, ScheduledRequest
from tapesched.toolkit.validator import validate
from tests.conftest import INSTANCES
from tests.studies import assert_redraws_its_own_figure

SCENARIO = INSTANCES / "scenarios" / "ampex-window.json"
SIZE = 6
ONLINE = ("fifo", "wspt", "tape-batching", "fifo-dismount-at-once", "greedy")


def _invoke(*args: str):
    return CliRunner().invoke(main, ["experiment", "online-vs-offline", *args])


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ovo") / "out"
    result = _invoke(
        str(SCENARIO),
        "--window",
        str(SIZE),
        "--solvers",
        ",".join([*ONLINE, "cpsat"]),
        "--quick",
        "--out",
        str(out),
    )
    assert result.exit_code == 0, result.output
    assert "non-anticipative optimum" in result.output
    return out


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open() as f:
        return list(csv.DictReader(f))


def _by_window(run: Path) -> dict[int, dict[tuple[str, str], dict[str, str]]]:
    out: dict[int, dict[tuple[str, str], dict[str, str]]] = {}
    for row in _rows(run / "windows.csv"):
        out.setdefault(int(row["window"]), {})[row["series"], row["yardstick"]] = row
    return out


def test_every_exported_window_instance_validates(run):
    files = sorted((run / "windows").glob("w[0-9][0-9][0-9].json"))
    assert [f.name for f in files] == ["w000.json", "w001.json", "w002.json"]
    for f in files:
        checked = CliRunner().invoke(main, ["check", str(f)])
        assert checked.exit_code == 0, checked.output
        instance = load_instance(f)
        assert len(instance.requests) == SIZE
        assert min(r.release_s for r in instance.requests) == 0.0
        for yardstick, flags in (("clairvoyant", []), ("non-anticipative", ["--no-prefetch"])):
            schedule = f.with_name(f"{f.stem}.{yardstick}.json")
            verified = CliRunner().invoke(main, ["verify", *flags, str(f), str(schedule)])
            assert verified.exit_code == 0, verified.output


def test_the_non_anticipative_optimum_lies_between_the_optimum_and_the_best_online(run):
    windows = _by_window(run)
    assert sorted(windows) == [0, 1, 2]
    for rows in windows.values():
        clairvoyant = rows["fifo", "clairvoyant"]
        held = rows["fifo", "non-anticipative"]
        assert clairvoyant["yardstick_proven"] == held["yardstick_proven"] == "true"
        best_online = min(float(rows[name, "clairvoyant"]["objective"]) for name in ONLINE)
        low, middle = float(clairvoyant["yardstick_value"]), float(held["yardstick_value"])
        assert low <= middle + 1e-6 <= best_online + 2e-6
        for name in ONLINE:
            ratio = float(rows[name, "non-anticipative"]["ratio"])
            assert ratio == pytest.approx(float(rows[name, "clairvoyant"]["objective"]) / middle)
            assert ratio >= 1 - 1e-9
    # Knowing the future is worth something on this busy platform: prefetching pays somewhere.
    assert any(
        float(rows["fifo", "clairvoyant"]["yardstick_value"])
        < float(rows["fifo", "non-anticipative"]["yardstick_value"]) - 1
        for rows in windows.values()
    )


def test_saved_windows_re_solve_to_the_reported_values(run, tmp_path):
    for index, rows in _by_window(run).items():
        path = run / "windows" / f"w{index:03d}.json"
        instance = load_instance(path)
        for yardstick, prefetch in (("clairvoyant", True), ("non-anticipative", False)):
            reported = float(rows["fifo", yardstick]["yardstick_value"])
            result = solvers.solve(
                instance, solver="cpsat", time_limit_s=20, seed=3, prefetch=prefetch
            )
            assert result.status is solvers.Status.OPTIMAL
            assert result.objective == pytest.approx(reported, rel=1e-6)
        for name in ONLINE:
            again = solvers.solve(instance, solver=name)
            assert again.objective == pytest.approx(float(rows[name, "clairvoyant"]["objective"]))
    # Through the command line too: `tapesched solve --no-prefetch` on a saved window.
    path = run / "windows" / "w001.json"
    solved = CliRunner().invoke(
        main,
        [
            "solve",
            str(path),
            "--solver",
            "cpsat",
            "--no-prefetch",
            "--json",
            "--out",
            str(tmp_path / "s.json"),
        ],
    )
    assert solved.exit_code == 0, solved.output
    reported = float(_by_window(run)[1]["fifo", "non-anticipative"]["yardstick_value"])
    assert json.loads(solved.output)["objective"] == pytest.approx(reported, rel=1e-6)


def test_windows_of_a_deterministic_scenario_are_the_same_every_run(run, tmp_path):
    scenario = load_scenario(SCENARIO)
    first = scenario_windows(scenario, SIZE)
    second = scenario_windows(scenario, SIZE)
    assert first == second
    for window in first[:3]:
        save_instance(window.instance, tmp_path / "w.json")
        saved = run / "windows" / f"w{window.index:03d}.json"
        assert (tmp_path / "w.json").read_bytes() == saved.read_bytes()


def test_summary_and_results_report_each_series_mean_and_worst(run):
    summary = json.loads((run / "summary.json").read_text())
    windows = _by_window(run)
    results = {(r["series"], r["metric"]): r for r in _rows(run / "results.csv")}
    assert list(_rows(run / "results.csv")[0]) == [
        "experiment", "series", "x_name", "x", "metric",
        "mean", "half_width", "replications", "saturated", "upper_bound",
    ]  # fmt: skip
    for name in ONLINE:
        for yardstick, metric in (
            ("clairvoyant", "ratio_to_clairvoyant"),
            ("non-anticipative", "ratio_to_non_anticipative"),
        ):
            ratios = [float(rows[name, yardstick]["ratio"]) for rows in windows.values()]
            entry = summary["series"][name][yardstick]
            assert entry["mean"] == pytest.approx(statistics.fmean(ratios))
            assert entry["worst"] == pytest.approx(max(ratios))
            assert entry["windows"] == 3 and entry["upper_bound"] is False
            assert float(results[name, metric]["mean"]) == pytest.approx(entry["mean"])
            assert float(results[name, "worst_" + metric]["mean"]) == pytest.approx(max(ratios))
            assert results[name, metric]["replications"] == "3"
    assert summary["settings"]["window_requests"] == SIZE
    assert summary["series"]["non-anticipative optimum"]["clairvoyant"]["best"] >= 1 - 1e-9
    assert (run / "figure.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_drive_holds_a_tape_from_its_mount_until_its_dismount_begins():
    ops = (
        ArmOperation("mount", "T1", "d0", 0.0, 10.0),
        ArmOperation("dismount", "T1", "d0", 50.0, 60.0),
        ArmOperation("mount", "T2", "d1", 20.0, 30.0),
    )
    schedule = Schedule((), ops)
    assert tapes_in_drives_at(schedule, 5.0) == {"d0": "T1"}
    assert tapes_in_drives_at(schedule, 25.0) == {"d0": "T1", "d1": "T2"}
    assert tapes_in_drives_at(schedule, 55.0) == {"d1": "T2"}


def test_a_window_starts_from_the_tapes_in_the_drives_of_the_run():
    instance = load_instance(INSTANCES / "spec-example.json")
    ops = (ArmOperation("mount", "T1", "d1", 0.0, 10.0, "L0"),)
    windows = cut_windows(instance, Schedule((), ops), 2, "spec")
    assert len(windows) == 1  # three requests: the remainder of one is left out
    window = windows[0]
    assert [r.id for r in window.instance.requests] == ["r1", "r2"]
    assert [r.release_s for r in window.instance.requests] == [0.0, 5.0]
    assert {(i.drive, i.tape) for i in window.instance.initial} == {("d0", "T2"), ("d1", "T1")}
    assert validate(window.instance, solvers.solve(window.instance).schedule).feasible


def test_rerunning_into_its_own_directory_replaces_it(run, tmp_path):
    out = tmp_path / "again"
    args = [str(SCENARIO), "--window", "4", "--solvers", "fifo,cpsat", "--quick", "--out", str(out)]
    assert _invoke(*args).exit_code == 0
    first = load_schedule(out / "windows" / "w000.clairvoyant.json")
    again = _invoke(*args)
    assert again.exit_code == 0, again.output
    assert validate(load_instance(out / "windows" / "w000.json"), first).feasible
    (out / "windows" / "mine").mkdir()
    refused = _invoke(*args)
    assert refused.exit_code == 2
    assert "holds 'windows', which this command does not write" in refused.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--solvers", "fifo,wspt"], "--solvers: names no exact solver"),
        (["--solvers", "cpsat,local-search"], "--solvers: names no online scheduler"),
        (["--solvers", "fifo,nope"], "--solvers: unknown solver 'nope'"),
        (["--window", "100000"], "--window"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, args, message):
    out = tmp_path / "out"
    base = {"--window": "6", "--solvers": "fifo,cpsat"}
    for k in range(0, len(args), 2):
        base[args[k]] = args[k + 1]
    flat = [x for k, v in base.items() for x in (k, v)]
    result = _invoke(str(SCENARIO), *flat, "--quick", "--out", str(out))
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(message), lines
    assert not out.exists()


def test_a_scenario_with_random_times_cannot_be_cut(tmp_path):
    scenario = json.loads(SCENARIO.read_text())
    scenario["platform"]["libraries"][0]["mount_s"] = {"mean_s": 10, "dist": "exponential"}
    path = tmp_path / "random.json"
    path.write_text(json.dumps(scenario))
    result = _invoke(
        str(path), "--window", "6", "--solvers", "fifo,cpsat", "--out", str(tmp_path / "o")
    )
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        f"{path}: cannot export a run with exponential times as a core-problem schedule: "
        "make every time fixed in the scenario"
    ]


def test_the_experiment_is_listed():
    result = CliRunner().invoke(main, ["experiment", "--list"])
    assert result.exit_code == 0
    assert "online-vs-offline" in result.output


def test_a_window_starts_from_the_heads_and_the_busy_drives_and_arms_of_the_run(tmp_path):
    # spec-example's run: T1 mounted into d1 at 0-10, r1 (T1 at 0, 10000 MB,
    # 33.333 s at 300 MB/s) on d1 from 25, T2's dismount from d0 at 25-35.
    # At r3's release (30 s): d1 holds T1, head at 10000 MB, busy until
    # 58.333 s; d0 is empty and busy until its dismount ends at 35 s, and so
    # is the one arm.
    instance = load_instance(INSTANCES / "spec-example.json")
    ops = (
        ArmOperation("mount", "T1", "d1", 0.0, 10.0, "L0"),
        ArmOperation("dismount", "T2", "d0", 25.0, 35.0, "L0"),
    )
    run = Schedule((ScheduledRequest("r1", ("d1",), 25.0, 25.0 + 10000 / 300),), ops)
    state = start_state_at(instance, run, 30.0)
    assert state.initial == (InitialTape("d1", "T1", 10000.0),)
    assert state.available_s == pytest.approx({"d0": 5.0, "d1": 10000 / 300 - 5.0})
    assert state.arms_available_s == {"L0": (5.0,)}
    last = cut_windows(instance, run, 1, "spec")[-1]
    assert [r.id for r in last.instance.requests] == ["r3"]
    assert last.instance.start_state_paths == (
        "initial[0].head_mb",
        "drives[0].available_s",
        "drives[1].available_s",
        "libraries[0].arms_available_s",
    )
    save_instance(last.instance, tmp_path / "w.json")
    assert json.loads((tmp_path / "w.json").read_text())["format"] == "tapesched.instance/2"
    assert load_instance(tmp_path / "w.json") == last.instance
    for solver in ("cpsat", "fifo"):
        schedule = solvers.solve(last.instance, solver=solver, time_limit_s=10).schedule
        report = validate(last.instance, schedule)
        assert report.feasible, [str(v) for v in report.violations]
    # r3 needs T1 (on d1, free at 28.333 s, head 10000 MB) and T2 (in its slot
    # by 5 s): it cannot start before 28.333 + 40000 / 10000 MB/s.
    assert dict((r.id, r.start_s) for r in schedule.requests)["r3"] >= 10000 / 300 - 5 + 4 - 1e-6


@pytest.mark.paper  # 9 s: the windows solved by CP-SAT's limit and by LNS
def test_windows_too_large_to_prove_are_also_solved_by_lns_and_the_report_names_the_solver(
    tmp_path, run
):
    # Windows of 6 requests, lns from 5 up: every yardstick tries lns beside cpsat.
    out = tmp_path / "lns"
    result = _invoke(
        str(SCENARIO),
        "--window",
        str(SIZE),
        "--solvers",
        "fifo,cpsat",
        "--quick",
        "--time-limit",
        "2",
        "--lns-above",
        str(SIZE - 1),
        "--out",
        str(out),
    )
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["settings"]["lns_above"] == SIZE - 1
    rows = _rows(out / "windows.csv")
    for window in summary["windows"]:
        for name, yardstick in window["yardsticks"].items():
            tried = {a["solver"]: a for a in yardstick["attempts"]}
            assert set(tried) == {"cpsat", "lns"}
            source = yardstick["solver"]
            if source == "non-anticipative schedule":
                assert name == "clairvoyant"
                assert yardstick["value"] == pytest.approx(
                    window["yardsticks"]["non-anticipative"]["value"]
                )
            else:
                assert tried[source]["objective"] == pytest.approx(yardstick["value"])
            named = {
                r["yardstick_solver"]
                for r in rows
                if int(r["window"]) == window["index"] and r["yardstick"] == name
            }
            assert named == {source}
    # At the default threshold (16), windows of 6 are left to the exact solver.
    default = json.loads((run / "summary.json").read_text())
    assert default["settings"]["lns_above"] == 16
    for window in default["windows"]:
        for yardstick in window["yardsticks"].values():
            assert "lns" not in {a["solver"] for a in yardstick["attempts"]}
            assert yardstick["solver"] in ("cpsat", "non-anticipative schedule")


def test_results_csv_holds_each_windows_ratio_as_windows_csv_does(run):
    rows = [r for r in _rows(run / "results.csv") if r["x_name"] == "window"]
    expected = [
        (r["window"], r["series"], "window_" + _METRICS[r["yardstick"]], r["ratio"])
        for r in _rows(run / "windows.csv")
    ]
    assert [(r["x"], r["series"], r["metric"], r["mean"]) for r in rows] == [
        (f"{float(w)!r}", s, m, ratio) for w, s, m, ratio in expected
    ]
    assert {(r["replications"], r["upper_bound"]) for r in rows} == {("1", "false")}


_METRICS = {
    "clairvoyant": "ratio_to_clairvoyant",
    "non-anticipative": "ratio_to_non_anticipative",
}


def test_a_ratio_to_a_bound_is_its_own_metric_and_drawn_a_triangle():
    # No quick window is short of its proof: the rows of one that is, read back from the file.
    def row(window: float, metric: str, ratio: float | None, flag: str) -> ResultRow:
        estimate = Estimate(ratio, None, 1)
        return ResultRow("online-vs-offline", "fifo", "window", window, metric, estimate, (flag,))

    rows = [
        row(0.0, "window_ratio_to_clairvoyant", 1.25, "false"),
        row(1.0, "window_ratio_to_clairvoyant_bound", 1.5, "true"),
        row(0.0, "window_ratio_to_non_anticipative", None, "false"),
        row(1.0, "window_ratio_to_non_anticipative", 1.0, "false"),
    ]
    back = read_results_csv(results_csv(rows, ("upper_bound",)))
    clairvoyant, held = draw_figure(back).axes
    assert [t.get_text() for t in clairvoyant.get_xticklabels()] == ["fifo"]
    assert clairvoyant.get_legend_handles_labels()[1] == [
        "to the optimum", "to a bound (upper bound)",
    ]  # fmt: skip
    triangles = clairvoyant.collections[-1]
    assert triangles.get_offsets().tolist() == [[1.0, 1.5]]
    # the window without a ratio is left out of the other panel, counted in the title
    assert held.collections[-1].get_offsets().tolist() == [[1.0, 1.0]]
    assert held.figure.texts[0].get_text() == "online-vs-offline: windows (2 windows)"


@pytest.mark.paper
def test_plot_results_redraws_its_own_figure_from_the_quick_results(run, tmp_path):
    assert_redraws_its_own_figure(run, tmp_path)
