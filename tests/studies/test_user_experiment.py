"""The guide's "Your own experiment" (docs/guide/plug-ins.md): a user's experiment from a
temporary module runs as the project's do, through ``module:Class``, through an installed
package's entry point and from Python, and writes the same three files; one that fails ends
in one line.

The example's code is read from that page (the block after ``<!-- example: coin.py -->``)
and saved as ``coin.py`` in a temporary directory put on ``sys.path``.
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

import tapesched
from tapesched.cli import main
from tapesched.studies.registry import ENTRY_POINT_GROUP, EXPERIMENTS
from tapesched.studies.results_file import COLUMNS
from tests.conftest import dist_info
from tests.docs.documents import doc_block

FILES = ["figure.png", "results.csv", "summary.json"]

BROKEN = """from coin import Coin

from tapesched.studies.experiment import Experiment


class Broken(Coin):
    name = "broken"

    def run_point(self, tosses, run):
        raise RuntimeError("no coin")


class Pointless(Experiment):
    name = "pointless"
    description = "says what it is, not what it runs"
    parameters = ()
"""
"""A user's experiment that fails while it runs, and one that is no experiment."""


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def coin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The guide's example as ``coin.py`` on ``sys.path``; the directory holding it."""
    (tmp_path / "coin.py").write_text(doc_block("coin.py"))
    (tmp_path / "broken.py").write_text(BROKEN)
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("coin", "broken"):
        sys.modules.pop(name, None)
    yield tmp_path
    for name in ("coin", "broken"):
        sys.modules.pop(name, None)


def rows(out: Path) -> list[dict[str, str]]:
    with (out / "results.csv").open() as handle:
        read = list(csv.DictReader(handle))
    assert read and tuple(read[0]) == COLUMNS
    return read


def test_a_users_experiment_runs_as_module_colon_class(coin):
    out = coin / "out"
    code, stdout, err = run("experiment", "coin:Coin", "--quick", "--out", str(out))
    assert (code, err) == (0, "")
    assert stdout.splitlines()[-1] == f"wrote {out}"
    assert sorted(p.name for p in out.iterdir()) == FILES
    assert [(r["experiment"], r["series"], r["x"], r["metric"]) for r in rows(out)] == [
        ("coin", "fair", "10.0", "heads"),
        ("coin", "fair", "100.0", "heads"),
    ]
    assert all(0 <= float(r["mean"]) <= 1 and r["saturated"] == "false" for r in rows(out))
    summary = json.loads((out / "summary.json").read_text())
    assert summary["experiment"] == "coin"
    assert summary["settings"]["quick"] is True and summary["settings"]["seed"] == 1
    assert (out / "figure.png").read_bytes().startswith(b"\x89PNG")
    code, stdout, _ = run("experiment", "coin:Coin", "--help")
    assert code == 0 and "--seed" in stdout and "--quick" in stdout and "--out DIR" in stdout


def test_a_users_experiment_runs_from_an_installed_packages_entry_point(coin):
    dist_info(coin / "site", "coin-study", ENTRY_POINT_GROUP, {"coin": "coin:Coin"})
    sys.path.insert(0, str(coin / "site"))
    try:
        assert EXPERIMENTS.known()[-1] == "coin"
        code, stdout, _ = run("experiment", "--list")
        assert code == 0 and "coin: plug-in experiment coin:Coin from coin-study 1.0" in stdout
        code, stdout, _ = run("experiment", "--list", "--json")
        listed = {e["name"]: e for e in json.loads(stdout)["experiments"]}
        assert listed["coin"]["origin"] == "entry point coin:Coin of coin-study 1.0"
        assert [(p["option"], p["quick"], p["full"]) for p in listed["coin"]["parameters"]] == [
            ("--seed", 1, 1)
        ]
        out = coin / "out"
        code, _, err = run("experiment", "coin", "--out", str(out), "--seed", "3")
        assert (code, err) == (0, "")
        assert sorted(p.name for p in out.iterdir()) == FILES
        assert [r["x"] for r in rows(out)] == ["10.0", "100.0", "1000.0", "10000.0"]
    finally:
        sys.path.remove(str(coin / "site"))


def test_a_users_experiment_runs_from_python_as_the_readme_says(coin, monkeypatch):
    monkeypatch.chdir(coin)
    exec(doc_block("run coin"), {})
    again = tapesched.run_experiment("coin:Coin", quick=True, seed=2)
    assert [r["mean"] for r in rows(coin / "out" / "coin")] == [
        repr(row.estimate.mean) for row in again.rows
    ]


def test_a_users_experiment_that_fails_is_one_line_and_writes_nothing(coin):
    out = coin / "out"
    code, stdout, err = run("experiment", "broken:Broken", "--out", str(out))
    assert (code, stdout) == (2, "") and not out.exists()
    assert err.splitlines() == [
        "plug-in broken:Broken: Broken.run_point raised RuntimeError: no coin"
    ]
    code, _, err = run("experiment", "coin:Nothing", "--out", str(out))
    assert code == 2
    assert err.splitlines() == ["coin:Nothing: module 'coin' has no attribute 'Nothing'"]
    code, _, err = run("experiment", "broken:Pointless", "--out", str(out))
    assert code == 2 and not out.exists()
    assert err.splitlines() == [
        "broken:Pointless: a Pointless is not an experiment: it has no points nor run_point"
    ]
