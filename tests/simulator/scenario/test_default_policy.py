"""A scenario that names no policy is a plain recall site's: SINGLE, one copy, scheme 1+0."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from attrs import evolve
from click.testing import CliRunner

from tapesched.cli import main
from tapesched.simulator.results.replications import run_once
from tapesched.simulator.scenario.document import scenario_from_dict
from tapesched.simulator.storage.files import Scheme

RECALL_SITE: dict[str, Any] = {
    "format": "tapesched.scenario/1",
    "name": "recall-site",
    "platform": {
        "libraries": [{"id": "L0", "arms": 1, "mount_s": 10, "dismount_s": 10}],
        "drives": [{"library": "L0", "count": 3, "model": "LTO-7"}],
        "tape_capacity_mb": 5_000,
    },
    "workload": {
        "sizes": [100, 2000],
        "rate": "30/h",
        "duration": "3h",
        "initial_files": 40,
        "data_ratio": [1, 1],
    },
    "run": {"seed": 3},
}
"""Neither ``policy`` nor ``workload.schemes``: 3 LTO-7 drives, 5 GB tapes, 3 hours at 30/h."""


def _simulate(tmp_path: Path, document: dict[str, Any], *options: str) -> tuple[int, str, str]:
    path = tmp_path / "site.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    result = CliRunner().invoke(main, ["simulate", str(path), *options])
    return result.exit_code, result.stdout, result.stderr


def test_a_scenario_without_policy_or_schemes_runs_under_single(tmp_path):
    code, out, err = _simulate(tmp_path, RECALL_SITE, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert (doc["scenario"], doc["policy"]) == ("recall-site", "single")
    (run,) = doc["replications"]
    assert run["completed"] > 50 and not run["saturated"]
    assert doc["estimates"]["mean_response_s"]["mean"] > 0


def test_simulate_policy_single_refuses_a_striped_scheme_in_one_line(tmp_path):
    document = copy.deepcopy(RECALL_SITE)
    document["policy"] = {"name": "parallel", "block_mb": 100}
    document["workload"]["schemes"] = {"2+1": 1.0}
    code, out, err = _simulate(tmp_path, document, "--policy", "single")
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [
        f"{tmp_path / 'site.json'}: workload.schemes.2+1: "
        "the single policy keeps one copy (scheme 1+0), not 2+1 (with --policy single)"
    ]


def test_single_gives_the_same_runs_as_parallel_one_plus_zero_of_the_same_block():
    """The layouts are the same (SINGLE is PARALLEL with one data tape and no parity), so are
    the runs: the plans differ only in the mover memory they hold (none; PARALLEL's a block),
    and this platform has no movers to run short of it."""
    single = scenario_from_dict(copy.deepcopy(RECALL_SITE))
    assert (single.policy, single.policy_params) == ("single", {})
    assert single.workload.schemes == ((Scheme(1, 0), 1.0),)
    parallel = evolve(single, policy="parallel", policy_params={"block_mb": 1.0})
    ours, theirs = run_once(single, 3), run_once(parallel, 3)
    assert ours.summary.completed > 50
    assert ours.summary.mean_response_s == theirs.summary.mean_response_s
    assert ours.summary == theirs.summary
    # Cut at other blocks when a tape fills, the files lie elsewhere: other runs.
    coarse = evolve(parallel, policy_params={"block_mb": 1000.0})
    assert run_once(coarse, 3).summary.mean_response_s != theirs.summary.mean_response_s
