"""The `tapesched` command through its public interface: output, exit codes, no tracebacks."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import attrs
import pytest
from click.testing import CliRunner

from tapesched.cli import main
from tapesched.toolkit.files.instance_file import load_instance
from tapesched.toolkit.files.schedule_file import save_schedule, schedule_to_dict

from ..conftest import INSTANCES, ROOT
from ..toolkit.files.test_instance_and_schedule_files import BAD_INSTANCES, _add_third_tape, _spec
from . import every_command

SPEC = str(INSTANCES / "spec-example.json")


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def test_check_accepts_the_spec_example_with_a_summary():
    code, out, _ = run("check", SPEC)
    assert code == 0
    assert out.startswith("ok: instance 'two-drives-three-reads': 1 libraries (1 arms), 2 drives")
    assert "3 requests (1 gangs, widest 2)" in out


@pytest.mark.parametrize(
    ("name", "mutate", "expected"), BAD_INSTANCES, ids=[b[0] for b in BAD_INSTANCES]
)
def test_check_rejects_each_kind_of_bad_instance_with_exit_2(tmp_path, name, mutate, expected):
    doc = _spec()
    if name == "gang wider than the library":
        _add_third_tape(doc)
    mutate(doc)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    code, out, err = run("check", str(path))
    assert code == 2
    assert out == ""
    lines = err.splitlines()
    assert lines and all(line.startswith(f"{path}: ") for line in lines)
    assert any(expected.lstrip(": ") in line for line in lines), lines
    assert "Traceback" not in err


def test_check_of_a_missing_file_is_one_line_and_exit_2(tmp_path):
    code, _, err = run("check", str(tmp_path / "nope.json"))
    assert code == 2
    assert err.strip() == f"{tmp_path / 'nope.json'}: cannot read file: No such file or directory"


def test_verify_feasible_prints_the_objective_last(tmp_path, spec_optimum):
    path = tmp_path / "opt.json"
    save_schedule(spec_optimum, path)
    code, out, _ = run("verify", SPEC, str(path))
    assert code == 0
    assert out.splitlines()[-1] == "objective weighted-flow: 19.176667"


def test_verify_infeasible_lists_each_violation_with_exit_1(tmp_path, spec_optimum):
    late = attrs.evolve(spec_optimum, operations=())
    path = tmp_path / "late.json"
    save_schedule(late, path)
    code, out, _ = run("verify", SPEC, str(path))
    assert code == 1
    assert out.splitlines()[0] == "infeasible: 2 violations"
    assert all(line.startswith("[tape-not-mounted] ") for line in out.splitlines()[1:])


def test_verify_json_report(tmp_path, spec_optimum):
    path = tmp_path / "opt.json"
    save_schedule(spec_optimum, path)
    code, out, _ = run("verify", SPEC, str(path), "--json")
    assert code == 0
    report = json.loads(out)
    assert report["feasible"] is True
    assert report["objective"]["value"] == pytest.approx(19.17667, abs=5e-6)


def test_verify_malformed_schedule_is_exit_2(tmp_path, spec_optimum):
    doc = schedule_to_dict(spec_optimum)
    doc["operations"][0]["op"] = "teleport"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    code, _, err = run("verify", SPEC, str(path))
    assert code == 2
    assert err.startswith(f"{path}: operations[0].op: must be one of 'mount', 'dismount'")


def test_verify_unknown_ids_are_infeasible_not_malformed(tmp_path, spec_optimum):
    doc = schedule_to_dict(spec_optimum)
    doc["requests"][0]["drives"] = ["d42"]
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(doc))
    code, out, _ = run("verify", SPEC, str(path))
    assert code == 1
    assert "[unknown-id] request 'r1': unknown drive 'd42'" in out


def test_metrics_table_and_json(tmp_path, spec_optimum):
    path = tmp_path / "opt.json"
    save_schedule(spec_optimum, path)
    code, out, _ = run("metrics", SPEC, str(path))
    assert code == 0
    assert "weighted flow" in out and "19.176667" in out
    code, out, _ = run("metrics", SPEC, str(path), "--json")
    values = json.loads(out)
    assert values["weighted_flow"] == pytest.approx(19.17667, abs=5e-6)
    assert values["mounts"] == 1
    assert values["makespan_s"] == pytest.approx(30 + 1000 / 300 + 5.1 + 10000 / 300)


def test_metrics_csv_is_a_header_and_one_row_matching_the_json(tmp_path, spec_optimum):
    path = tmp_path / "opt.json"
    save_schedule(spec_optimum, path)
    _, out, _ = run("metrics", SPEC, str(path), "--json")
    values = json.loads(out)
    code, out, _ = run("metrics", SPEC, str(path), "--csv")
    assert code == 0
    rows = list(csv.reader(io.StringIO(out)))
    assert len(rows) == 2
    assert rows[0] == ["instance", "schedule", *values]
    assert rows[1][:2] == ["two-drives-three-reads", str(path)]
    assert [float(v) for v in rows[1][2:]] == pytest.approx(list(values.values()))
    code, _, err = run("metrics", SPEC, str(path), "--csv", "--json")
    assert code == 2
    assert err.strip() == "--json and --csv: choose one"


def test_console_script_reports_bad_input_without_traceback(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text("{not json")
    script = Path(sys.executable).parent / "tapesched"
    done = subprocess.run(
        [str(script), "check", str(path)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith(f"{path}: bad JSON: ")


@pytest.mark.parametrize(
    "args",
    [
        ["random", "--seed", "5", "--requests", "30", "--max-gang", "3", "--drives", "3:5"],
        ["golubchik", "--seed", "5", "--requests", "30", "--classes", "1:1,2:2,3:4"],
        ["golubchik", "--seed", "5", "--technology", "exabyte", "--rate", "2/h"],
    ],
)
def test_generate_is_seeded_and_writes_a_valid_instance(tmp_path, args):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert run("generate", *args, "--out", str(first))[0] == 0
    assert run("generate", *args, "--out", str(second))[0] == 0
    assert first.read_text() == second.read_text()
    code, out, _ = run("check", str(first))
    assert code == 0 and out.startswith("ok: ")
    other = tmp_path / "c.json"
    seed_at = args.index("--seed") + 1
    assert run("generate", *args[:seed_at], "6", *args[seed_at + 1 :], "--out", str(other))[0] == 0
    assert other.read_text() != first.read_text()


def test_generate_golubchik_lays_out_the_paper_library(tmp_path):
    path = tmp_path / "g.json"
    run(
        "generate",
        "golubchik",
        "--seed",
        "1",
        "--requests",
        "50",
        "--drives",
        "4",
        "--arms",
        "2",
        "--out",
        str(path),
    )
    instance = load_instance(path)
    (library,) = instance.libraries
    assert library.arms == 2 and library.mount_s == 10
    assert len(instance.drives) == 4 and len(instance.tapes) == 256
    assert {d.rate_mb_s for d in instance.drives} == {12.5}
    assert len(instance.requests) == 50


def test_generate_random_takes_a_drive_and_a_library_of_the_catalogue(tmp_path):
    path = tmp_path / "r.json"
    args = ["--drive", "LTO-9", "--library", "TS4500", "--libraries", "2", "--out", str(path)]
    assert run("generate", "random", "--seed", "3", *args)[0] == 0
    instance = load_instance(path)
    drives = {(d.rate_mb_s, d.load_s, d.unload_s, d.locate_mb_s) for d in instance.drives}
    assert drives == {(400.0, 17.0, 30.0, 18_000_000.0 / 2 / 45.0)}
    assert {t.capacity_mb for t in instance.tapes} == {18_000_000.0}
    assert {(lib.mount_s, lib.dismount_s) for lib in instance.libraries} == {(3.0, 3.0)}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["golubchik", "--seed", "1", "--classes", "1:9"], "--classes[0]: must be in 1..4, got 9"),
        (["random", "--seed", "1", "--drives", "5:2"], "--drives: upper bound 2 is below lower"),
        (["golubchik", "--seed", "1", "--classes", "big"], "is not SIZE_GB:WIDTH"),
        (["random", "--seed", "1", "--rate", "3/week"], "is not a rate"),
        (["random", "--seed", "1", "--drive", "LTO-11"], "--drive: unknown drive 'LTO-11'"),
        (["random", "--seed", "1", "--library", "X"], "--library: unknown library 'X'"),
    ],
)
def test_generate_rejects_bad_parameters_with_exit_2_and_no_file(tmp_path, args, message):
    path = tmp_path / "never.json"
    code, _, err = run("generate", *args, "--out", str(path))
    assert code == 2
    assert message in err
    assert "Traceback" not in err
    assert not path.exists()


def test_solve_writes_a_schedule_that_verifies(tmp_path):
    out_file = tmp_path / "greedy.json"
    code, out, _ = run("solve", SPEC, "--solver", "greedy", "--out", str(out_file))
    assert code == 0
    assert out.splitlines()[0].startswith("solver greedy: status feasible")
    objective = out.splitlines()[-1]
    code, out, _ = run("verify", SPEC, str(out_file))
    assert code == 0
    assert out.splitlines()[-1] == objective


def test_solve_with_an_unknown_solver_is_exit_2_and_writes_nothing(tmp_path):
    out_file = tmp_path / "x.json"
    code, _, err = run("solve", SPEC, "--solver", "magic", "--out", str(out_file))
    assert code == 2
    assert err.startswith("--solver: unknown solver 'magic'; known: ")
    assert not out_file.exists()


def test_solve_of_a_bad_instance_is_exit_2_and_writes_nothing(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "tapesched.instance/1"}')
    out_file = tmp_path / "x.json"
    code, _, err = run("solve", str(bad), "--out", str(out_file))
    assert code == 2
    assert f"{bad}: missing key 'name'" in err.splitlines()
    assert not out_file.exists()


def test_solve_with_cpsat_and_workers_proves_the_spec_optimum(tmp_path):
    out_file = tmp_path / "cpsat.json"
    code, out, _ = run(
        "solve", SPEC, "--solver", "cpsat", "--workers", "1", "--time-limit", "20",
        "--seed", "3", "--out", str(out_file),
    )  # fmt: skip
    assert code == 0
    assert out.splitlines()[0].startswith("solver cpsat: status optimal")
    assert out.splitlines()[-1] == "objective weighted-flow: 19.176667"
    code, out, _ = run("verify", SPEC, str(out_file))
    assert code == 0


def test_workers_for_a_single_threaded_solver_is_exit_2_and_writes_nothing(tmp_path):
    out_file = tmp_path / "x.json"
    code, _, err = run("solve", SPEC, "--solver", "wspt", "--workers", "2", "--out", str(out_file))
    assert code == 2
    assert err.strip() == "--workers: solver 'wspt' runs on one thread and takes no workers"
    assert not out_file.exists()


def test_solvers_lists_greedy():
    code, out, _ = run("solvers")
    assert code == 0
    assert any(line.startswith("greedy: ") for line in out.splitlines())


def test_compare_sets_each_result_against_the_best_bound():
    prefetch = str(INSTANCES / "prefetch.json")
    code, out, _ = run("compare", prefetch, SPEC, "--solvers", "greedy", "--json")
    assert code == 0
    rows = json.loads(out)
    assert [(r["instance"], r["solver"]) for r in rows] == [(prefetch, "greedy"), (SPEC, "greedy")]
    first = rows[0]
    assert first["feasible"] is True
    assert first["objective"] == pytest.approx(25.0)
    assert first["yardstick"] == "bound"
    assert first["reference"] <= 10.0 + 1e-9
    assert first["ratio"] == pytest.approx(first["objective"] / first["reference"])


def test_compare_table_marks_ratios_to_bounds_and_csv_has_a_header():
    code, out, _ = run("compare", SPEC, "--solvers", "greedy")
    assert code == 0
    assert "<= " in out and "greedy" in out
    code, out, _ = run("compare", SPEC, "--solvers", "greedy", "--csv")
    assert out.splitlines()[0].startswith("instance,solver,status,feasible,objective,bound")


def test_compare_adds_lns_to_an_exact_solver_on_an_instance_too_large_to_prove():
    args = ("compare", SPEC, "--time-limit", "5", "--seed", "1", "--json")
    code, out, _ = run(*args, "--solvers", "greedy,cpsat", "--lns-above", "2")
    assert code == 0
    rows = json.loads(out)
    assert [r["solver"] for r in rows] == ["greedy", "cpsat", "lns"]
    lns = rows[2]
    assert lns["feasible"] and lns["objective"] <= rows[0]["objective"] + 1e-9
    # Within the threshold, or with no exact solver asked for, only the solvers named run.
    code, out, _ = run(*args, "--solvers", "greedy,cpsat")
    assert [r["solver"] for r in json.loads(out)] == ["greedy", "cpsat"]
    code, out, _ = run(*args, "--solvers", "greedy,wspt", "--lns-above", "0")
    assert [r["solver"] for r in json.loads(out)] == ["greedy", "wspt"]


def test_compare_rejects_unknown_solvers_with_exit_2():
    code, _, err = run("compare", SPEC, "--solvers", "greedy,magic")
    assert code == 2
    assert err.startswith("--solvers: unknown solver 'magic'")


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["generate", "random"], "--seed: required, and missing"),
        (["replay"], "TRACE_FILE: required, and missing"),
        (["generate", "random", "--seed", "x"], "--seed: 'x' is not a valid integer."),
        (
            ["solve", SPEC, "--out", "x.json", "--bogus"],
            "tapesched solve: No such option '--bogus'. (Did you mean one of: '--log', '--out'?) "
            "(see tapesched solve --help)",
        ),
        (["frobnicate"], "tapesched: No such command 'frobnicate'. (see tapesched --help)"),
    ],
    ids=["missing option", "missing argument", "bad value", "unknown option", "unknown command"],
)
def test_usage_errors_are_one_line_and_exit_2(args, line):
    result = subprocess.run(
        [str(Path(sys.executable).parent / "tapesched"), *args],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.splitlines() == [line]


def test_every_command_is_summed_up_in_one_whole_sentence():
    """`tapesched --help` and each group's list a command in one sentence, never cut short
    (the experiments' list gives each description whole)."""
    for path, command in every_command():
        if path == "tapesched" or path.startswith("tapesched experiment "):
            continue  # the root is listed by no one
        summary = command.get_short_help_str(limit=60)
        assert summary.endswith(".") and not summary.endswith("..."), (path, summary)
        assert summary.count(". ") == 0, (path, summary)


def test_solve_without_out_checks_and_sums_up_the_schedule_and_writes_nothing(
    tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    code, out, _ = run("solve", str(Path(SPEC).resolve()), "--solver", "wspt")
    assert code == 0
    assert "nothing written (no --out)" in out and "objective weighted-flow:" in out
    assert list(tmp_path.iterdir()) == []


def test_dev_null_takes_the_schedule_and_keeps_nothing():
    code, out, _ = run("solve", SPEC, "--solver", "wspt", "--out", os.devnull, "--json")
    assert code == 0
    document = json.loads(out)
    assert document["feasible"] is True and document["out"] is None
    assert os.path.exists(os.devnull) and not os.path.isfile(os.devnull)


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_documented_shell_completion_gives_a_script_and_completes(shell, monkeypatch):
    page = (ROOT / "docs" / "guide" / "commands.md").read_text()
    assert f"_TAPESCHED_COMPLETE={shell}_source tapesched" in page
    monkeypatch.setenv("_TAPESCHED_COMPLETE", f"{shell}_source")
    script = CliRunner().invoke(main, [], prog_name="tapesched")
    assert script.exit_code == 0 and "_TAPESCHED_COMPLETE" in script.output
    monkeypatch.setenv("_TAPESCHED_COMPLETE", "bash_complete")
    monkeypatch.setenv("COMP_WORDS", "tapesched experiment bw-fig1")
    monkeypatch.setenv("COMP_CWORD", "2")
    completed = CliRunner().invoke(main, [], prog_name="tapesched")
    assert completed.output.split() == ["plain,bw-fig10", "plain,bw-fig11"]
