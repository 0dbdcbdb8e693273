"""`tapesched simulate`: scenario runs, their files, overrides, bad input and instance mode."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tapesched.cli import main
from tapesched.simulator.results.run_directory import RECORD_COLUMNS
from tests.conftest import INSTANCES

AMPEX = str(INSTANCES / "scenarios" / "ampex.json")
BLUE_WATERS = str(INSTANCES / "scenarios" / "blue-waters.json")
SPEC = str(INSTANCES / "spec-example.json")
SPEC_LTO7 = str(INSTANCES / "spec-example-lto7.json")
SHORT = ("--duration", "6h", "--replications", "2")


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def problem_lines(err: str) -> list[str]:
    """stderr without click's usage preamble (``Usage:``, ``Try ...``, blank lines)."""
    return [
        line
        for line in err.splitlines()
        if line.strip() and not line.startswith(("Usage: ", "Try '"))
    ]


@pytest.fixture(scope="module")
def ampex_run(tmp_path_factory) -> tuple[Path, str]:
    """The Ampex scenario for 6 h, 2 replications, with the event log."""
    out = tmp_path_factory.mktemp("ampex") / "out"
    code, stdout, err = run("simulate", AMPEX, *SHORT, "--out", str(out), "--log")
    assert code == 0, err
    return out, stdout


# --- a scenario run and its files -----------------------------------------------------


def test_simulate_prints_the_table_and_writes_every_file(ampex_run):
    out, stdout = ampex_run
    assert sorted(p.name for p in out.iterdir()) == [
        "events.jsonl",
        "instance.json",
        "requests.csv",
        "schedule.json",
        "summary.json",
    ]
    assert "ampex: parallel, fifo, 60/h, 0.25 d, 2 replication(s)" in stdout
    assert "saturated runs" in stdout and "0 of 2" in stdout
    assert stdout.splitlines()[-1] == f"wrote {out}"


def test_summary_holds_two_replications_and_estimates_with_half_widths(ampex_run):
    out, _ = ampex_run
    doc = json.loads((out / "summary.json").read_text())
    assert (doc["scenario"], doc["policy"], doc["scheduler"]) == ("ampex", "parallel", "fifo")
    assert (doc["rate_per_h"], doc["duration_s"]) == (60.0, 6 * 3600.0)
    reps = doc["replications"]
    assert [r["seed"] for r in reps] == [1, 2]
    for r in reps:
        assert r["duration_s"] == 21600.0 and r["warmup_s"] == 2160.0
        assert r["saturated"] is False
        assert r["backlog"] == r["arrived"] - r["completed"]
        assert r["arrived"] > 200  # about 60 an hour
    estimates = doc["estimates"]
    assert list(estimates) == [
        "mean_weighted_response_s_per_gb",
        "mean_response_s",
        "mean_stretch",
        "throughput_mb_s_over_window",
        "drive_busy_share_over_horizon",
        "drive_streaming_share_over_horizon",
        "arm_busy_share_over_horizon",
        "mounts_per_tape",
    ]
    for name, e in estimates.items():
        a, b = (r[name] for r in reps)
        # Two values: mean (a + b) / 2, half-width t(1) * |a - b| / 2.
        assert e["n"] == 2
        assert e["mean"] == pytest.approx((a + b) / 2)
        assert e["half_width_95"] == pytest.approx(12.706 * abs(a - b) / 2, rel=1e-4)
        assert e["half_width_95"] > 0


def test_requests_csv_has_a_row_per_completed_request_of_replication_1(ampex_run):
    out, _ = ampex_run
    with open(out / "requests.csv", newline="") as handle:
        rows = list(csv.reader(handle))
    assert tuple(rows[0]) == RECORD_COLUMNS
    first = json.loads((out / "summary.json").read_text())["replications"][0]
    body = [dict(zip(RECORD_COLUMNS, row, strict=True)) for row in rows[1:]]
    assert len(body) == first["completed"]
    assert len({r["id"] for r in body}) == len(body)
    for r in body:
        assert r["kind"] == "read" and float(r["size_mb"]) == 1000.0
        arrival, start, end, free = (
            float(r[k]) for k in ("arrival_s", "start_s", "end_s", "free_s")
        )
        assert arrival <= start < end <= free <= 21600.0 + 1000
        assert r["drives"].startswith("L0-d") and len(r["tapes"].split()) == 1


def test_exported_instance_and_schedule_verify(ampex_run):
    out, _ = ampex_run
    code, stdout, _ = run("verify", str(out / "instance.json"), str(out / "schedule.json"))
    assert code == 0
    assert stdout.startswith("feasible: ")


def test_event_log_is_json_lines_in_time_order(ampex_run):
    out, _ = ampex_run
    lines = (out / "events.jsonl").read_text().splitlines()
    events = [json.loads(line) for line in lines]
    assert len(events) > 100
    times = [e["t"] for e in events]
    assert times == sorted(times)
    assert times[-1] <= 6 * 3600 + 1000
    assert {"arrive", "start"} <= {e["event"] for e in events}
    first = json.loads((out / "summary.json").read_text())["replications"][0]
    # The log is the first replication's: one arrival per request it saw.
    assert sum(e["event"] == "arrive" for e in events) == first["arrived"]


def test_same_seed_gives_byte_identical_files(ampex_run, tmp_path):
    first, _ = ampex_run
    again = tmp_path / "again"
    code, _, _ = run("simulate", AMPEX, *SHORT, "--out", str(again), "--log")
    assert code == 0
    for name in ("summary.json", "requests.csv", "schedule.json", "instance.json", "events.jsonl"):
        assert (again / name).read_bytes() == (first / name).read_bytes(), name


def test_another_seed_gives_another_run(ampex_run, tmp_path):
    first, _ = ampex_run
    other = tmp_path / "other"
    code, _, _ = run("simulate", AMPEX, *SHORT, "--seed", "7", "--out", str(other))
    assert code == 0
    doc = json.loads((other / "summary.json").read_text())
    assert [r["seed"] for r in doc["replications"]] == [7, 8]
    assert (other / "requests.csv").read_bytes() != (first / "requests.csv").read_bytes()


def test_json_prints_the_summary_document_and_no_table(ampex_run):
    out, _ = ampex_run
    code, stdout, _ = run("simulate", AMPEX, *SHORT, "--json")
    assert code == 0
    assert json.loads(stdout) == json.loads((out / "summary.json").read_text())


def test_an_interval_wider_than_its_mean_is_flagged_with_its_degrees_of_freedom(ampex_run):
    out, stdout = ampex_run
    estimates = json.loads((out / "summary.json").read_text())["estimates"]
    assert all(e["degrees_of_freedom"] == 1 for e in estimates.values())
    assert "Student's t, 1 df" in stdout
    wide = [name for name, e in estimates.items() if e["half_width_95"] > abs(e["mean"])]
    assert all(e["wider_than_mean"] == (name in wide) for name, e in estimates.items())
    flagged = [line for line in stdout.splitlines() if "wider than the mean" in line]
    assert len(flagged) == len(wide)


def test_a_run_in_which_nothing_completes_says_so_instead_of_a_table(tmp_path):
    # A 1 GB read holds an Ampex drive 147 s: nothing is done after a minute.
    code, stdout, _ = run("simulate", AMPEX, "--duration", "60s", "--out", str(tmp_path / "o"))
    assert code == 0
    assert "no request completed in 60 s of simulated time" in stdout
    assert "nothing to measure" in stdout
    assert "saturated runs" not in stdout
    doc = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert doc["replications"][0]["completed"] == 0
    assert doc["estimates"]["mean_response_s"]["missing"] == "no request measured"


def test_options_override_the_scenario(tmp_path):
    out = tmp_path / "out"
    code, stdout, _ = run(
        "simulate", AMPEX, "--policy", "rait", "--scheduler", "wspt", "--rate", "30/h",
        "--duration", "3h", "--seed", "5", "--replications", "1", "--out", str(out),
    )  # fmt: skip
    assert code == 0
    assert "ampex: rait, wspt, 30/h, 0.125 d, 1 replication(s)" in stdout
    doc = json.loads((out / "summary.json").read_text())
    assert (doc["policy"], doc["scheduler"]) == ("rait", "wspt")
    assert (doc["rate_per_h"], doc["duration_s"]) == (30.0, 3 * 3600.0)
    assert [r["seed"] for r in doc["replications"]] == [5]
    assert all(e["n"] == 1 and e["half_width_95"] is None for e in doc["estimates"].values())
    assert not (out / "events.jsonl").exists()  # no --log


def test_without_out_nothing_is_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, stdout, _ = run("simulate", AMPEX, "--duration", "1h", "--replications", "1")
    assert code == 0
    assert "mean_response_s" in stdout
    assert list(tmp_path.iterdir()) == []


def test_blue_waters_for_an_hour(tmp_path):
    out = tmp_path / "bw"
    code, stdout, _ = run("simulate", BLUE_WATERS, "--duration", "1h", "--out", str(out))
    assert code == 0
    assert "blue-waters: vertical, fifo, 800/h" in stdout
    doc = json.loads((out / "summary.json").read_text())
    (rep,) = doc["replications"]
    assert rep["duration_s"] == 3600.0 and rep["saturated"] is False
    assert rep["arrived"] > 600 and rep["completed"] > 0
    code, _, _ = run("verify", str(out / "instance.json"), str(out / "schedule.json"))
    assert code == 0


# --- bad input ------------------------------------------------------------------------


def _scenario_file(tmp_path: Path, change: dict[str, dict[str, object]]) -> str:
    doc = json.loads(Path(AMPEX).read_text())
    for section, values in change.items():
        doc[section].update(values)
    path = tmp_path / "bad-scenario.json"
    path.write_text(json.dumps(doc))
    return str(path)


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _serpentine_group(model: str = "cta-lto") -> dict[str, object]:
    """Ampex's four drives with a serpentine locate model of LTO-7's geometry."""
    locate = {"model": model, "format": "LTO-7"}
    return {"library": "L0", "count": 4, "model": {"base": "ampex", "locate": locate}}


def test_a_scenario_of_serpentine_drives_exports_a_schedule_that_verifies(tmp_path):
    path = _scenario_file(tmp_path, {"platform": {"drives": [_serpentine_group()]}})
    out = tmp_path / "out"
    code, _, err = run("simulate", path, "--duration", "6h", "--replications", "1",
                       "--out", str(out))  # fmt: skip
    assert code == 0, err
    instance = json.loads((out / "instance.json").read_text())
    assert instance["format"] == "tapesched.instance/2"
    assert {json.dumps(d["locate"]) for d in instance["drives"]} == {
        json.dumps({"model": "cta-lto", "format": "LTO-7"})
    }
    code, stdout, _ = run("verify", str(out / "instance.json"), str(out / "schedule.json"))
    assert (code, stdout.startswith("feasible: ")) == (0, True)


BAD_INPUT = [
    # (id, builder of (scenario file, extra args) from tmp_path, what the line must say)
    ("unknown scheduler", lambda t: (AMPEX, ["--scheduler", "nope"]),
     "--scheduler: unknown scheduler 'nope'; known: fifo,"),
    ("bad rate", lambda t: (AMPEX, ["--rate", "fast"]),
     "--rate: 'fast' is not a rate"),
    ("bad duration", lambda t: (AMPEX, ["--duration", "3 fortnights"]),
     "--duration: '3 fortnights': unknown unit 'fortnights'"),
    ("zero replications", lambda t: (AMPEX, ["--replications", "0"]),
     "--replications:"),
    ("unknown policy option", lambda t: (AMPEX, ["--policy", "striped"]),
     "--policy:"),
    ("bad scenario value", lambda t: (_scenario_file(t, {"run": {"warmup": 1.5}}), []),
     "{file}: run.warmup: must be within [0, 1), got 1.5"),
    ("unknown policy in the file", lambda t: (_scenario_file(t, {"policy": {"name": "zz"}}), []),
     "{file}: policy.name: unknown policy 'zz'"),
    ("unknown scheduler in the file",
     lambda t: (_scenario_file(t, {"run": {"scheduler": "zz"}}), []),
     "{file}: run.scheduler: unknown scheduler 'zz'"),
    ("bad locate model in the file",
     lambda t: (_scenario_file(t, {"platform": {"drives": [_serpentine_group("lto")]}}), []),
     "{file}: platform.drives[0].model.locate.model: must be one of 'cta-lto', 'physical', "
     "got 'lto'"),
    ("bad JSON", lambda t: (_write(t, "bad.json", "{"), []), "{file}: bad JSON: "),
    ("missing file", lambda t: (str(t / "nope.json"), []),
     "{file}: cannot read file: No such file or directory"),
    ("neither scenario nor instance", lambda t: (_write(t, "x.json", '{"format": "other/1"}'), []),
     "{file}: format: expected 'tapesched.scenario/1' or 'tapesched.instance/1'"),
    ("instance with unknown scheduler", lambda t: (SPEC, ["--scheduler", "nope"]),
     "--scheduler: unknown scheduler 'nope'"),
    ("bad archive popularity",
     lambda t: (_scenario_file(t, {"workload": {"initial_archive": {"tapes": 9,
                                                                    "popularity": "hot"}}}), []),
     "{file}: workload.initial_archive.popularity: must be one of 'uniform', 'zipf', got 'hot'"),
    ("archive too small for a set",
     lambda t: (_scenario_file(t, {"workload": {"schemes": {"2+1": 1},
                                                "initial_archive": {"tapes": 2}}}), []),
     "{file}: workload.initial_archive.tapes: 2 tapes hold no set of the archive"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("build", "expected"),
    [case[1:] for case in BAD_INPUT],
    ids=[case[0] for case in BAD_INPUT],
)
def test_bad_input_exits_2_with_one_line_and_writes_nothing(tmp_path, build, expected):
    scenario_file, extra = build(tmp_path)
    out = tmp_path / "out"
    code, stdout, err = run("simulate", scenario_file, *extra, "--out", str(out))
    assert code == 2
    assert "Traceback" not in err
    lines = problem_lines(err)
    assert len(lines) == 1, err
    assert lines[0].startswith(expected.format(file=scenario_file)), lines
    assert not out.exists()
    assert "wrote" not in stdout


def test_a_json_array_is_one_problem(tmp_path):
    path = _write(tmp_path, "list.json", "[1, 2]")
    code, _, err = run("simulate", path, "--out", str(tmp_path / "out"))
    assert code == 2
    assert problem_lines(err) == [f"{path}: expected an object, got [1, 2]"]


# --- instance mode --------------------------------------------------------------------


def test_an_instance_runs_as_the_solver_schedules_it(tmp_path):
    out = tmp_path / "sim"
    code, stdout, _ = run("simulate", SPEC, "--scheduler", "fifo", "--out", str(out))
    assert code == 0
    assert stdout.startswith("two-drives-three-reads: 3 requests under fifo")
    assert sorted(p.name for p in out.iterdir()) == ["schedule.json"]
    solved = tmp_path / "solved.json"
    code, _, _ = run("solve", SPEC, "--solver", "fifo", "--out", str(solved))
    assert code == 0
    assert json.loads((out / "schedule.json").read_text()) == json.loads(solved.read_text())
    code, _, _ = run("verify", SPEC, str(out / "schedule.json"))
    assert code == 0


def test_json_on_an_instance_prints_the_verdict_alone_on_standard_output(tmp_path):
    out = tmp_path / "sim"
    code, stdout, stderr = run("simulate", SPEC, "--scheduler", "fifo", "--json", "--out", str(out))
    assert code == 0
    document = json.loads(stdout)
    assert document["instance"] == "two-drives-three-reads" and document["scheduler"] == "fifo"
    assert document["requests"] == 3 and document["feasible"] is True
    assert document["objective"]["name"] == "weighted-flow" and document["violations"] == []
    assert f"wrote {out}/schedule.json" in stderr


@pytest.mark.parametrize("scheduler", ["fifo", "sltf", "tape-batching"])
def test_an_instance_of_serpentine_drives_runs_as_the_solver_schedules_it(tmp_path, scheduler):
    out, solved = tmp_path / "sim", tmp_path / "solved.json"
    assert run("simulate", SPEC_LTO7, "--scheduler", scheduler, "--out", str(out))[0] == 0
    assert run("solve", SPEC_LTO7, "--solver", scheduler, "--out", str(solved))[0] == 0
    assert json.loads((out / "schedule.json").read_text()) == json.loads(solved.read_text())
    assert run("verify", SPEC_LTO7, str(out / "schedule.json"))[0] == 0


def test_an_instance_with_another_scheduler_and_its_log(tmp_path):
    out = tmp_path / "sim"
    code, _, _ = run("simulate", SPEC, "--scheduler", "wspt", "--out", str(out), "--log")
    assert code == 0
    solved = tmp_path / "solved.json"
    assert run("solve", SPEC, "--solver", "wspt", "--out", str(solved))[0] == 0
    assert json.loads((out / "schedule.json").read_text()) == json.loads(solved.read_text())
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    assert events and all(e["event"] == "decide" for e in events)
    times = [e["t"] for e in events]
    assert times == sorted(times)


def test_a_run_with_exponential_times_writes_no_schedule_and_says_why(tmp_path):
    scenario = json.loads(Path(AMPEX).read_text())
    scenario["platform"]["libraries"][0]["mount_s"] = {"mean_s": 10, "dist": "exponential"}
    path = tmp_path / "ampex-exponential.json"
    path.write_text(json.dumps(scenario))
    out = tmp_path / "out"
    code, stdout, _ = run("simulate", str(path), "--duration", "3h", "--out", str(out))
    assert code == 0
    assert "no schedule exported: cannot export a run with exponential times" in stdout
    assert sorted(p.name for p in out.iterdir()) == ["requests.csv", "summary.json"]
