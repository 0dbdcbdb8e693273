"""`tapesched plot`: Gantt charts and experiments' figures, through the command line."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from tapesched.cli import main
from tapesched.studies.registry import ENTRY_POINT_GROUP
from tapesched.toolkit.plots.gantt import ARMS_NOTE
from tests.conftest import INSTANCES, dist_info

SPEC = str(INSTANCES / "spec-example.json")
OPTIMUM = str(INSTANCES / "spec-example.optimum.json")
AMPEX = str(INSTANCES / "scenarios" / "ampex.json")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
RESULTS = "results.csv"
HEADER = "experiment,series,x_name,x,metric,mean,half_width,replications,saturated\n"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def svg_texts(path: Path) -> list[str]:
    """The text of every <text> element of an SVG file (which must parse as XML)."""
    root = ET.parse(path).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    return ["".join(e.itertext()).strip() for e in root.iter("{http://www.w3.org/2000/svg}text")]


# --- plot gantt ----------------------------------------------------------------------------


def test_gantt_writes_an_svg_with_a_label_per_request_and_per_lane(tmp_path):
    out = tmp_path / "chart.svg"
    code, stdout, stderr = run("plot", "gantt", SPEC, OPTIMUM, "--out", str(out))
    assert (code, stderr) == (0, "")
    assert stdout.splitlines() == [
        f"wrote {out}: 2 drive lanes, 1 arm lanes, 3 requests, 1 arm operations",
        f"note: {ARMS_NOTE}",
    ]
    texts = svg_texts(out)
    for lane in ("releases", "d0", "d1", "arm 1"):
        assert lane in texts
    # r3 is a gang: its transfer is labelled on both its drives, and its release once
    assert (texts.count("r1"), texts.count("r2"), texts.count("r3")) == (2, 2, 3)
    assert "T1→d1" in texts and "time (s)" in texts and ARMS_NOTE in texts
    for kind in ("transfer", "load", "locate", "unload", "mount", "dismount", "release"):
        assert kind in texts
    assert "spec-example.optimum.json on two-drives-three-reads: weighted-flow 19.1767" in texts


def test_gantt_writes_a_png_of_the_greedy_schedule(tmp_path):
    schedule = tmp_path / "greedy.json"
    code, _, _ = run("solve", SPEC, "--solver", "greedy", "--out", str(schedule))
    assert code == 0
    out = tmp_path / "greedy.png"
    code, _, stderr = run("plot", "gantt", SPEC, str(schedule), "--out", str(out))
    assert (code, stderr) == (0, "")
    data = out.read_bytes()
    assert data.startswith(PNG_SIGNATURE) and len(data) > 10_000


@pytest.mark.parametrize("suffix", ["png", "svg"])
def test_the_same_input_gives_the_same_bytes(tmp_path, suffix):
    first, second = tmp_path / f"a.{suffix}", tmp_path / f"b.{suffix}"
    assert run("plot", "gantt", SPEC, OPTIMUM, "--out", str(first))[0] == 0
    assert run("plot", "gantt", SPEC, OPTIMUM, "--out", str(second))[0] == 0
    assert first.read_bytes() == second.read_bytes()


def test_an_infeasible_schedule_is_one_line_exit_2_and_nothing_written(tmp_path):
    document = json.loads(Path(OPTIMUM).read_text())
    document["requests"][1]["start_s"] = 2.0  # r2 before its release at 5 s
    document["requests"][1]["end_s"] = 2.0 + 1000 / 300
    schedule = tmp_path / "early.json"
    schedule.write_text(json.dumps(document))
    out = tmp_path / "chart.png"
    code, stdout, stderr = run("plot", "gantt", SPEC, str(schedule), "--out", str(out))
    assert (code, stdout) == (2, "")
    lines = stderr.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"{schedule}: infeasible schedule, not drawn: [")
    assert "r2" in lines[0] and "tapesched verify lists them" in lines[0]
    assert not out.exists() and list(tmp_path.iterdir()) == [schedule]


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("chart.pdf", "suffix '.pdf'"),
        ("chart", "no suffix"),
        ("-", "no suffix"),
    ],
)
def test_a_picture_neither_png_nor_svg_is_refused_naming_out(tmp_path, monkeypatch, name, said):
    monkeypatch.chdir(tmp_path)
    code, stdout, stderr = run("plot", "gantt", SPEC, OPTIMUM, "--out", name)
    assert (code, stdout) == (2, "")
    assert stderr.splitlines() == [f"--out: {name}: {said}: the picture's format is .png or .svg"]
    assert list(tmp_path.iterdir()) == []


def test_bad_input_files_are_one_line_each(tmp_path):
    code, _, stderr = run("plot", "gantt", SPEC, str(tmp_path / "none.json"), "--out", "x.png")
    assert code == 2
    assert stderr == f"{tmp_path / 'none.json'}: cannot read file: No such file or directory\n"


def test_plot_without_a_command_is_one_line_and_exit_2():
    code, _, stderr = run("plot")
    assert code == 2
    assert stderr == (
        "tapesched plot: say what to draw: gantt, results or trajectory "
        "(see tapesched plot --help)\n"
    )


# --- plot results --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """A folder where the tiny experiment of the sweep tests is installed as ``tiny``."""
    site = tmp_path_factory.mktemp("site")
    target = "tests.studies.sweeps.test_sweep:TINY_EXPERIMENT"
    dist_info(site, "tiny-experiment", ENTRY_POINT_GROUP, {"tiny": target})
    return site


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory, site) -> Path:
    """The directory of a run of the tiny experiment of the sweep tests."""
    out = tmp_path_factory.mktemp("tiny") / "out"
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(site))
        args = ("experiment", "tiny", "--scenario", AMPEX, "--quick", "--workers", "1")
        code, _, stderr = run(*args, "--out", str(out))
    assert code == 0, stderr
    return out


def test_results_redraws_the_experiments_own_figure_byte_for_byte(tiny_run, site, tmp_path):
    out = tmp_path / "again.png"
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(site))
        code, stdout, stderr = run("plot", "results", str(tiny_run / RESULTS), "--out", str(out))
    assert (code, stderr) == (0, "")
    assert stdout == f"wrote {out}: tiny's own figure, from 2 series, 12 points of 3 metrics\n"
    assert out.read_bytes() == (tiny_run / "figure.png").read_bytes()
    # the primary metric alone, on one panel, is the same figure for a swept study
    again = tmp_path / "metric.png"
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(site))
        args = ("--metric", "mean_weighted_response_s_per_gb", "--out", str(again))
        code, stdout, _ = run("plot", "results", str(tiny_run / RESULTS), *args)
    assert stdout == f"wrote {again}: {args[1]} of tiny, 2 series, 4 points\n"
    assert again.read_bytes() == out.read_bytes()


def test_results_draws_another_metric_as_svg(tiny_run, tmp_path):
    out = tmp_path / "stretch.svg"
    code, _, stderr = run(
        "plot", "results", str(tiny_run / RESULTS), "--out", str(out), "--metric", "mean_stretch"
    )
    assert (code, stderr) == (0, "")
    texts = svg_texts(out)
    assert "mean stretch (response time over service time)" in texts
    assert {"parallel", "vertical", "saturated (no mean)"} <= set(texts)
    # tiny is not a shipped experiment here: the file's own names label the figure
    assert "tiny" in texts and "rate_per_h" in texts


def test_a_saturated_point_beyond_every_mean_is_inside_the_figure():
    from tapesched.simulator.results.records import Estimate
    from tapesched.studies.lines_figure import lines_figure
    from tapesched.studies.results_file import ResultRow

    rows = (
        ResultRow("e", "a", "x", 1.0, "m", Estimate(1.5, 0.1, 2)),
        ResultRow("e", "a", "x", 2.0, "m", Estimate(2.5, None, 1)),
        ResultRow("e", "b", "x", 9.0, "m", Estimate(None, None, 2, saturated=True)),
    )
    figure = lines_figure(rows, "m", title="", x_label="x")
    figure.canvas.draw()
    low, high = figure.axes[0].get_xlim()
    assert low < 1.0 and high >= 9.0


def test_an_unknown_metric_is_one_line_naming_those_of_the_file(tiny_run, tmp_path):
    out = tmp_path / "x.png"
    code, _, stderr = run(
        "plot", "results", str(tiny_run / "results.csv"), "--out", str(out), "--metric", "nope"
    )
    assert code == 2
    assert stderr == (
        "--metric: 'nope' is not a metric of the file (it holds mean_weighted_response_s_per_gb, "
        "mean_stretch, throughput_mb_s_over_window)\n"
    )
    assert not out.exists()


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        (
            "experiment,series,x_name,x,metric,mean,replications,saturated\n",
            ["line 1: missing column 'half_width'"],
        ),
        (
            HEADER + "e,a,rate_per_h,abc,m,1.5,,2,false\ne,a,rate_per_h,2,m,nan,,two,maybe\n",
            [
                "line 2.x: expected a number, got 'abc'",
                "line 3.mean: expected a number, got 'nan'",
                "line 3.replications: expected an integer, got 'two'",
                "line 3.saturated: must be one of 'true', 'false', got 'maybe'",
            ],
        ),
        (HEADER + "e,a,rate_per_h,1,m,1.5,,2\n", ["line 2: expected 9 values"]),
        (
            HEADER + "e,a,rate_per_h,1,m,1.5,,2,false\nf,a,rate_per_h,2,m,1,,2,false\n",
            [
                "line 3: experiment 'f' over 'rate_per_h', the file's first row 'e' over "
                "'rate_per_h': one experiment a file"
            ],
        ),
        (
            HEADER
            + "e,a,rate_per_h,1,m,1.5,,2,false\ne,a,q,2,n,1,,2,false\ne,a,q,2,m,1,,2,false\n",
            ["line 4: metric 'm' over 'q', its first row over 'rate_per_h': one x a metric"],
        ),
        (HEADER, ["no rows below the header"]),
    ],
    ids=["missing column", "bad values", "short line", "two experiments", "two xs", "no rows"],
)
def test_a_bad_results_csv_is_one_line_per_problem_and_exit_2(tmp_path, text, lines):
    results = tmp_path / "results.csv"
    results.write_text(text)
    out = tmp_path / "figure.png"
    code, stdout, stderr = run("plot", "results", str(results), "--out", str(out))
    assert (code, stdout) == (2, "")
    assert stderr.splitlines() == [f"{results}: {line}" for line in lines]
    assert not out.exists()


def test_a_hand_made_results_csv_is_drawn_on_its_own_names(tmp_path):
    results = tmp_path / "results.csv"
    results.write_text(
        HEADER
        + "mine,a,load,1,m,1.5,0.1,2,false\nmine,a,load,2,m,2.5,,1,false\n"
        + "mine,b,load,1,m,1,,2,false\nmine,b,load,3,m,,,2,true\n"
    )
    out = tmp_path / "mine.svg"
    code, stdout, _ = run("plot", "results", str(results), "--out", str(out), "--metric", "m")
    assert code == 0
    assert stdout == f"wrote {out}: m of mine, 2 series, 4 points\n"
    assert {"mine", "load", "m", "a", "b"} <= set(svg_texts(out))


def test_a_kept_mounted_x_of_inf_is_drawn_in_the_experiments_own_figure(tmp_path):
    results = tmp_path / "results.csv"
    lines = [
        f"ecmwf-defer-dismount,{rule},defer_s,{x},{metric},{mean},,1,false\n"
        for rule in ("lru", "fifo")
        for x, mean in (("0.0", "9.0"), ("300.0", "6.0"), ("inf", "4.0"))
        for metric in ("mounts", "mean_mount_latency_s", "mean_latency_s")
    ]
    results.write_text(HEADER + "".join(lines))
    out = tmp_path / "defer.svg"
    code, stdout, stderr = run("plot", "results", str(results), "--out", str(out))
    assert (code, stderr) == (0, "")
    assert stdout == (
        f"wrote {out}: ecmwf-defer-dismount's own figure, from 2 series, 18 points of 3 metrics\n"
    )
    assert {"lru, kept", "fifo, kept", "dismount delay T (s)"} <= set(svg_texts(out))


def test_an_unknown_experiment_is_a_panel_per_metric_with_a_note(tmp_path):
    results = tmp_path / "results.csv"
    results.write_text(HEADER + "mine,a,load,1,m,1.5,0.1,2,false\nmine,a,load,1,n,2,,2,false\n")
    out = tmp_path / "mine.png"
    code, stdout, _ = run("plot", "results", str(results), "--out", str(out))
    assert code == 0 and out.exists()
    assert stdout.splitlines() == [
        f"wrote {out}: a panel per metric of mine, 2 metrics, 1 series, 2 points",
        "note: 'mine' is no experiment of this version: a panel per metric",
    ]


def test_metric_and_layout_together_are_refused_before_any_file_is_read(tmp_path):
    out = tmp_path / "x.png"
    args = ("missing.csv", "--metric", "m", "--layout", "metrics", "--out", str(out))
    code, stdout, stderr = run("plot", "results", *args)
    assert (code, stdout) == (2, "")
    assert stderr == "--metric: draws one metric on one panel, not with --layout metrics\n"
    assert not out.exists()
