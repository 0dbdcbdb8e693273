"""File-request traces in CSV: parsing, the archive at time 0, bad lines, and a run to the end."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from tapesched.cli import main
from tapesched.simulator.storage.files import FileSpec, Scheme
from tapesched.simulator.workload.requests_csv import load_workload, workload_from_csv
from tapesched.toolkit.errors import InputError
from tests.conftest import INSTANCES

TRACE = """arrival_s,kind,file,size_mb,scheme,data_ratio,ec_ratio
30,read,old,800,1+0,1,1
0,write,f1,1000,1+0,2,1.5
12.5,read,f1,1000,1+0,2,1.5
"""


def test_a_trace_becomes_requests_in_arrival_order_over_an_archive_of_what_is_read_first():
    workload = workload_from_csv(TRACE)
    assert [(r.arrival_s, r.kind, r.file.id) for r in workload.requests] == [
        (0.0, "write", "f1"),
        (12.5, "read", "f1"),
        (30.0, "read", "old"),
    ]
    assert workload.initial == (FileSpec("old", 800.0, Scheme(1, 0)),)
    assert workload.requests[0].file == FileSpec("f1", 1000.0, Scheme(1, 0), 2.0, 1.5)


def test_optional_columns_default_to_an_unprotected_incompressible_file():
    workload = workload_from_csv("file,kind,arrival_s,size_mb\nx,read,0,5\n")
    assert workload.requests[0].file == FileSpec("x", 5.0, Scheme(1, 0))


@pytest.mark.parametrize(
    "text, line",
    [
        ("arrival_s,kind,file\n0,read,x\n", "<t>: line 1: missing column 'size_mb'"),
        ("arrival_s,kind,file,size_mb,colour\n", "<t>: line 1: unknown column 'colour'"),
        ("arrival_s,kind,file,size_mb\nsoon,read,x,5\n", "<t>: line 2.arrival_s: expected"),
        ("arrival_s,kind,file,size_mb\n0,erase,x,5\n", "<t>: line 2.kind: must be one of"),
        ("arrival_s,kind,file,size_mb\n0,read,x,-5\n", "<t>: line 2.size_mb: must be > 0"),
        ("arrival_s,kind,file,size_mb,scheme\n0,read,x,5,4-2\n", "<t>: line 2.scheme: a resil"),
        ("arrival_s,kind,file,size_mb\n-1,read,x,5\n", "<t>: line 2.arrival_s: must be >= 0"),
        ("arrival_s,kind,file,size_mb\n0,read,x\n", "<t>: line 2: expected 4 values"),
        ("arrival_s,kind,file,size_mb\n", "<t>: no requests"),
    ],
)
def test_bad_traces_name_the_line_and_what_is_wrong(text, line):
    with pytest.raises(InputError) as caught:
        workload_from_csv(text, "<t>")
    assert len(caught.value.lines()) == 1
    assert caught.value.lines()[0].startswith(line)


def test_a_missing_file_is_one_line(tmp_path):
    with pytest.raises(InputError, match="cannot read file"):
        load_workload(tmp_path / "none.csv")


def test_simulate_runs_a_trace_to_its_end(tmp_path):
    trace = tmp_path / "trace.csv"
    trace.write_text(
        "arrival_s,kind,file,size_mb\n"
        + "".join(f"{60 * i},read,f{i % 7},1000\n" for i in range(40))
        + "".join(f"{60 * i + 30},write,n{i},500\n" for i in range(10))
    )
    out = tmp_path / "out"
    result = CliRunner().invoke(
        main,
        [
            "simulate", str(INSTANCES / "scenarios" / "ampex.json"),
            "--workload", str(trace), "--replications", "2", "--out", str(out),
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert [r["completed"] for r in summary["replications"]] == [50, 50]
    assert not any(r["saturated"] for r in summary["replications"])
    rows = (out / "requests.csv").read_text().splitlines()
    assert len(rows) == 51
    verify = CliRunner().invoke(
        main, ["verify", str(out / "instance.json"), str(out / "schedule.json")]
    )
    assert verify.exit_code == 0, verify.output


def test_simulate_refuses_a_bad_trace_in_one_line(tmp_path):
    trace = tmp_path / "trace.csv"
    trace.write_text("arrival_s,kind,file,size_mb\n0,erase,x,5\n")
    out = tmp_path / "out"
    result = CliRunner().invoke(
        main,
        ["simulate", str(INSTANCES / "scenarios" / "ampex.json"), "--workload", str(trace),
         "--out", str(out)],
    )  # fmt: skip
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        f"{trace}: line 2.kind: must be one of 'read', 'write', got 'erase'"
    ]
    assert not out.exists()
