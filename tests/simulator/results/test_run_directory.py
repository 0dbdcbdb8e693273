"""A scenario's run directory written from Python: the files of ``tapesched simulate --out``."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tapesched.cli import main
from tapesched.simulator.results.replications import override
from tapesched.simulator.results.run_directory import RECORD_COLUMNS, RUN_FILES, scenario_run
from tapesched.simulator.scenario.document import load_scenario, scenario_from_dict
from tapesched.toolkit.errors import InputError
from tests.conftest import INSTANCES

AMPEX = INSTANCES / "scenarios" / "ampex.json"


def short_ampex(**changes: object):
    """Ampex for 6 h, 2 replications, from the file as ``tapesched simulate`` reads it."""
    return override(load_scenario(str(AMPEX)), duration_s=6 * 3600.0, replications=2, **changes)


def test_the_library_writes_the_files_the_command_line_writes(tmp_path: Path):
    run = scenario_run(short_ampex(), log=True)
    run.write(tmp_path / "lib")
    args = ["--duration", "6h", "--replications", "2", "--log", "--out", str(tmp_path / "cli")]
    result = CliRunner().invoke(main, ["simulate", str(AMPEX), *args])
    assert result.exit_code == 0, result.stderr
    written = sorted(p.name for p in (tmp_path / "lib").iterdir())
    assert written == sorted(RUN_FILES)
    for name in RUN_FILES:
        assert (tmp_path / "lib" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes()

    summary = json.loads((tmp_path / "lib" / "summary.json").read_text())
    assert summary == json.loads(json.dumps(run.summary()))
    assert (summary["scenario"], summary["scheduler"], len(summary["replications"])) == (
        "ampex",
        "fifo",
        2,
    )
    rows = list(csv.reader(io.StringIO((tmp_path / "lib" / "requests.csv").read_text())))
    assert tuple(rows[0]) == RECORD_COLUMNS
    assert [row[0] for row in rows[1:]] == [r.id for r in run.replications[0].records]
    events = (tmp_path / "lib" / "events.jsonl").read_bytes()
    assert events == run.events
    first = json.loads(events.splitlines()[0])
    assert set(first) >= {"t", "event"} and first["event"] == "arrive"
    instance = json.loads((tmp_path / "lib" / "instance.json").read_text())
    assert run.exported is not None and run.exported.report.feasible
    assert len(instance["requests"]) == len(run.exported.instance.requests)


def test_a_run_that_cannot_be_exported_writes_its_summary_and_records_only(tmp_path: Path):
    document = json.loads(AMPEX.read_text())
    document["platform"]["libraries"][0]["mount_s"] = {"mean_s": 10, "dist": "exponential"}
    scenario = override(
        scenario_from_dict(document, "exponential.json"), duration_s=3 * 3600.0, replications=1
    )
    run = scenario_run(scenario)
    assert run.exported is None and run.events is None
    assert run.not_exported is not None
    assert run.not_exported.startswith("cannot export a run with exponential times")
    run.write(tmp_path / "out")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["requests.csv", "summary.json"]


def test_a_directory_holding_other_files_is_never_replaced(tmp_path: Path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    run = scenario_run(override(short_ampex(), replications=1, duration_s=3600.0))
    with pytest.raises(InputError):
        run.write(mine)
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]
    run.write(tmp_path / "out")
    run.write(tmp_path / "out")  # a run directory written before is replaced whole
    assert "events.jsonl" not in {p.name for p in (tmp_path / "out").iterdir()}
