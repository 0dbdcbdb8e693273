"""`tapesched solve --log`, the trajectory in `solve --json`, and `tapesched plot trajectory`."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from tapesched.cli import main
from tests.conftest import INSTANCES

SPEC = str(INSTANCES / "spec-example.json")
OFFSET = str(INSTANCES / "offset-order.json")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
LOG_LINE = re.compile(
    r"^\[ *(\d+\.\d\d) s\] incumbent (\d+\.\d+)  bound (\d+\.\d+|none)  gap (\d+\.\d\d %|none)$"
)


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def log_points(stderr: str) -> list[tuple[float, float, str, str]]:
    """Every --log line of ``stderr`` as (time, incumbent, bound, gap); other lines fail."""
    points = []
    for line in stderr.splitlines():
        match = LOG_LINE.match(line)
        assert match, line
        points.append((float(match[1]), float(match[2]), match[3], match[4]))
    return points


def test_log_prints_each_improvement_of_local_search_as_it_comes(tmp_path):
    out = tmp_path / "s.json"
    code, stdout, stderr = run(
        "solve", SPEC, "--solver", "local-search", "--log", "--out", str(out), "--seed", "1"
    )
    assert code == 0, stderr
    points = log_points(stderr)
    assert points
    incumbents = [p[1] for p in points]
    assert incumbents == sorted(incumbents, reverse=True)
    assert [p[0] for p in points] == sorted(p[0] for p in points)
    final = float(re.search(r"objective weighted-flow: (\d+\.\d+)", stdout)[1])
    assert incumbents[-1] == final
    bound = float(re.search(r"bound: (\d+\.\d+)", stdout)[1])
    assert all(float(p[2]) == bound for p in points)
    gap = 100 * (incumbents[-1] - bound) / incumbents[-1]
    assert points[-1][3] == f"{gap:.2f} %"


def test_log_of_a_solver_without_progress_prints_its_result_once(tmp_path):
    code, stdout, stderr = run(
        "solve", SPEC, "--solver", "wspt", "--log", "--out", str(tmp_path / "s.json")
    )
    assert code == 0, stderr
    points = log_points(stderr)
    assert len(points) == 1
    assert f"bound: {points[0][2]}" in stdout.splitlines()
    assert f"objective weighted-flow: {points[0][1]:.6f}" in stdout.splitlines()


def test_lns_result_json_carries_its_trajectory_and_plot_draws_it(tmp_path):
    schedule = tmp_path / "s.json"
    code, stdout, stderr = run(
        "solve", OFFSET, "--solver", "lns", "--iterations", "2", "--json", "--log",
        "--out", str(schedule),
    )  # fmt: skip
    assert code == 0, stderr
    document = json.loads(stdout)
    assert document["status"] == "optimal"
    trajectory = document["trajectory"]
    assert trajectory
    assert set(trajectory[0]) == {"time_s", "objective", "bound"}
    assert trajectory[-1]["objective"] == document["objective"]
    assert len(log_points(stderr)) == len(trajectory)
    result = tmp_path / "result.json"
    result.write_text(stdout)
    png = tmp_path / "t.png"
    code, stdout, stderr = run("plot", "trajectory", str(result), "--out", str(png))
    assert code == 0, stderr
    assert png.read_bytes().startswith(PNG_SIGNATURE)
    assert f"lns, {len(trajectory)} points" in stdout
    svg = tmp_path / "t.svg"
    assert run("plot", "trajectory", str(result), "--out", str(svg))[0] == 0
    first = svg.read_bytes()
    assert b"incumbent" in first and b"bound" in first
    assert run("plot", "trajectory", str(result), "--out", str(svg))[0] == 0
    assert svg.read_bytes() == first  # same input, same bytes


def test_a_bad_result_file_is_one_line_per_problem(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps(
            {
                "solver": "lns",
                "trajectory": [
                    {"time_s": 1.0, "objective": 5.0, "bound": None},
                    {"time_s": -1, "objective": "x", "bound": 1.0},
                    {"time_s": 0.5, "objective": 4.0, "bound": 1.0},
                    7,
                ],
            }
        )
    )
    out = tmp_path / "t.png"
    code, _, stderr = run("plot", "trajectory", str(bad), "--out", str(out))
    assert code == 2
    assert stderr.splitlines() == [
        f"{bad}: trajectory[1].time_s: must be a number of seconds >= 0",
        f"{bad}: trajectory[1].objective: must be a finite number",
        f"{bad}: trajectory[2].time_s: goes back in time",
        f"{bad}: trajectory[3]: must be an object",
    ]
    assert not out.exists()
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({"trajectory": []}))
    code, _, stderr = run("plot", "trajectory", str(empty), "--out", str(out))
    assert code == 2
    assert stderr == f"{empty}: trajectory: is empty: nothing to draw\n"


def test_iterations_is_refused_for_a_solver_without_a_budget(tmp_path):
    out = tmp_path / "s.json"
    code, _, stderr = run(
        "solve", SPEC, "--solver", "greedy", "--iterations", "3", "--out", str(out)
    )
    assert code == 2
    assert stderr == "--iterations: solver 'greedy' takes no iteration budget\n"
    assert not Path(out).exists()
