"""The project's registries: solvers, online schedulers and policies, each name declared once.

The command line takes its choices and help from them, the listing of
``tapesched solvers`` is what it was before the registries, nothing is
imported to list them, and an installed package's policy is a policy like
the others, from the scenario file to ``--policy``.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from tapesched.cli import main
from tapesched.simulator.storage.policies.policy_registry import ENTRY_POINT_GROUP as POLICY_GROUP
from tapesched.simulator.storage.policies.policy_registry import POLICIES, make_policy
from tapesched.simulator.storage.policies.vertical import Vertical
from tapesched.solvers import online
from tapesched.solvers.registry import SCHEDULERS, SOLVERS
from tests.conftest import INSTANCES, dist_info

AMPEX = str(INSTANCES / "scenarios" / "ampex.json")

LISTING = "".join(
    line + "\n"
    for line in (
        "backfill: online dispatcher: fifo, smaller requests pass a waiting gang without"
        " delaying it",
        "cpsat: exact CP-SAT model (OR-Tools): drive circuits, arm and tape intervals,"
        " best-heuristic hint",
        "fifo: online dispatcher: oldest request first, onto idle drives",
        "fifo-dismount-at-once: online dispatcher: fifo, unneeded tapes dismounted at once",
        "greedy: online list scheduler: requests in release order, each piece to the"
        " drive completing it first",
        "lns: large-neighbourhood search from the best heuristic: neighbourhoods"
        " re-optimised by CP-SAT",
        "local-search: offline local search from the best online heuristic: request order"
        " and drives, list-decoded",
        "milp-cbc: exact MILP (disjunctive, big-M) solved by CBC, warm-started from the"
        " best heuristic",
        "milp-highs: exact MILP (disjunctive, big-M) solved by HiGHS, warm-started from"
        " the best heuristic",
        "sltf: online dispatcher: loaded tapes' requests first, shortest locate first",
        "stretch: online dispatcher: largest current stretch first (highest response ratio)",
        "tape-batching: online dispatcher: loaded tapes' requests first, in offset order",
        "wspt: online dispatcher: largest weight over expected service first",
        "no plug-in schedulers (entry points of the group tapesched.schedulers)",
    )
)
"""``tapesched solvers`` as it printed before the registries were one class."""


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def test_the_solvers_listing_is_unchanged():
    code, stdout, _ = run("solvers")
    assert (code, stdout) == (0, LISTING)
    code, stdout, _ = run("solvers", "--json")
    document = json.loads(stdout)
    assert [f"{s['name']}: {s['description']}" for s in document["solvers"]] == (
        LISTING.splitlines()[:-1]
    )
    assert {s["name"] for s in document["solvers"] if s["online"]} == set(SCHEDULERS)


def test_an_online_heuristic_is_declared_once_as_a_solver_and_a_scheduler():
    online_solvers = [n for n in SOLVERS if SOLVERS.entry(n).metadata.get("online")]
    assert online_solvers == list(SCHEDULERS)
    for name in SCHEDULERS:
        assert SCHEDULERS.describe(name) == SOLVERS.describe(name)
    assert online.SCHEDULERS is SCHEDULERS
    assert list(SCHEDULERS)[-1] == "greedy"  # ties in the warm start go to the others first


def test_each_policy_class_records_the_name_it_is_registered_under():
    for name in POLICIES:
        assert POLICIES[name].name == name


def test_listing_the_registries_imports_none_of_their_modules():
    code = (
        "import sys\n"
        "from tapesched.solvers.registry import ORDERERS, SCHEDULERS, SOLVERS\n"
        "from tapesched.simulator.storage.policies.policy_registry import POLICIES\n"
        "for registry in (SOLVERS, SCHEDULERS, ORDERERS, POLICIES):\n"
        "    for name in registry.known():\n"
        "        registry.describe(name)\n"
        "ours = ('tapesched.solvers.', 'tapesched.simulator.')\n"
        "modules = [m for m, v in sys.modules.items() if not hasattr(v, '__path__')]\n"
        "print(sorted(m for m in modules if m.startswith(ours)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    loaded = ast.literal_eval(out)
    assert loaded == [
        "tapesched.simulator.storage.policies.policy_registry",
        "tapesched.solvers.registry",
        "tapesched.solvers.result",
    ]


def test_the_policy_choices_and_the_help_come_from_the_registries():
    code, stdout, _ = run("simulate", "--help")
    assert code == 0
    assert f"[{'|'.join(POLICIES)}]" in stdout
    flat = " ".join(stdout.split())
    for name in SCHEDULERS:
        assert name in flat.replace("- ", "-")
    code, stdout, err = run("simulate", AMPEX, "--policy", "striped")
    assert (code, stdout) == (2, "")
    choices = ", ".join(repr(n) for n in POLICIES)
    assert err == f"--policy: 'striped' is not one of {choices}.\n"


def test_an_unknown_policy_in_a_scenario_lists_the_registrys_names(tmp_path):
    document = json.loads(Path(AMPEX).read_text())
    document["policy"] = {"name": "zz", "block_mb": 1000}
    scenario = tmp_path / "zz.json"
    scenario.write_text(json.dumps(document))
    code, stdout, err = run("simulate", str(scenario))
    assert (code, stdout) == (2, "")
    assert err == f"{scenario}: policy.name: unknown policy 'zz'; known: {', '.join(POLICIES)}\n"


def test_an_installed_packages_policy_is_a_policy_everywhere(tmp_path, monkeypatch):
    dist_info(
        tmp_path,
        "more-policies",
        POLICY_GROUP,
        {"one-drive": "tapesched.simulator.storage.policies.vertical:Vertical"},
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert isinstance(make_policy("one-drive", block_mb=10.0), Vertical)
    assert POLICIES.known() == (*POLICIES, "one-drive")

    code, stdout, _ = run("simulate", "--help")
    assert f"[{'|'.join(POLICIES)}|one-drive]" in stdout
    args = ["--duration", "3h", "--replications", "1", "--json"]
    code, stdout, err = run("simulate", AMPEX, "--policy", "one-drive", *args)
    assert code == 0, err
    plugged = json.loads(stdout)
    code, stdout, _ = run("simulate", AMPEX, "--policy", "vertical", *args)
    assert code == 0
    built_in = json.loads(stdout)
    assert plugged["policy"] == "one-drive"
    assert plugged["replications"] == built_in["replications"]

    document = json.loads(Path(AMPEX).read_text())
    document["policy"] = {"name": "one-drive"}
    document["workload"]["duration"] = "3h"
    scenario = tmp_path / "one-drive.json"
    scenario.write_text(json.dumps(document))
    code, stdout, err = run("simulate", str(scenario), "--json")
    assert code == 0, err
    assert json.loads(stdout)["replications"][0] == built_in["replications"][0]


def test_a_broken_installed_policy_is_one_line_of_bad_input(tmp_path, monkeypatch):
    dist_info(tmp_path, "bad-policies", POLICY_GROUP, {"gone": "tapesched_no_such_module:P"})
    monkeypatch.syspath_prepend(str(tmp_path))
    why = (
        "gone: cannot load the entry point tapesched_no_such_module:P of bad-policies 1.0: "
        "ModuleNotFoundError: No module named 'tapesched_no_such_module'"
    )
    code, stdout, err = run("simulate", AMPEX, "--policy", "gone", "--out", str(tmp_path / "out"))
    assert (code, stdout, err) == (2, "", f"--policy: {why}\n")
    document = json.loads(Path(AMPEX).read_text())
    document["policy"] = {"name": "gone"}
    scenario = tmp_path / "gone.json"
    scenario.write_text(json.dumps(document))
    code, stdout, err = run("simulate", str(scenario), "--out", str(tmp_path / "out"))
    assert (code, stdout, err) == (2, "", f"{scenario}: policy.name: {why}\n")
    assert not (tmp_path / "out").exists()
