"""`tapesched simulate --site`, and a scenario naming its site: a few simulated hours each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.archives.test_cli_simulate import AMPEX, problem_lines, run
from tests.simulator.site.test_platform import tiny_site


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    """A short Ampex scenario (3 h, 200 files, 1 replication) and the tiny site."""
    doc = json.loads(Path(AMPEX).read_text())
    doc["workload"].update(duration="3h", initial_files=200)
    doc["run"]["replications"] = 1
    (tmp_path / "s.json").write_text(json.dumps(doc))
    (tmp_path / "site.json").write_text(json.dumps(tiny_site()))
    return str(tmp_path / "s.json"), str(tmp_path / "site.json")


def test_simulate_on_a_site_runs_with_the_site_s_disk_cache(files: tuple[str, str]) -> None:
    scenario, site = files
    code, out, err = run("simulate", scenario, "--site", site)
    assert code == 0, err
    assert "ampex: parallel, fifo, 60/h, 0.125 d, 1 replication(s)" in out
    assert "saturated runs" in out
    assert "disk cache large: hit rate" in out  # the site's cache served the reads


def test_a_scenario_naming_its_site_runs(files: tuple[str, str]) -> None:
    scenario, _ = files
    doc = json.loads(Path(scenario).read_text())
    doc["platform"] = {"site": "site.json", "dismount": "at-once"}
    Path(scenario).write_text(json.dumps(doc))
    code, out, err = run("simulate", scenario)
    assert code == 0, err
    assert "ampex: parallel" in out and "disk cache small: hit rate" in out


def test_a_write_that_fits_no_mover_of_the_site_is_refused(files: tuple[str, str]) -> None:
    scenario, site = files
    doc = json.loads(Path(scenario).read_text())
    doc["workload"]["schemes"] = {"3+0": 1.0}
    Path(scenario).write_text(json.dumps(doc))
    code, _, err = run("simulate", scenario, "--site", site)
    assert code == 2
    assert problem_lines(err) == [
        f"{scenario}: workload.schemes.3+0: on the site tiny: a write of 1000 MB under "
        "parallel (3+0) needs 3 drives of one mover; the most one has is 2"
    ]
    code, _, err = run("simulate", scenario, "--site", str(Path(site).parent / "none.json"))
    assert code == 2 and problem_lines(err)[0].endswith(
        "none.json: cannot read file: No such file or directory"
    )
