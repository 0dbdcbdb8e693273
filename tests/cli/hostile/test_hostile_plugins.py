"""Files never run code, and plug-ins that misbehave are reported in one line (issue 24).

Group 2: a scenario file naming ``os:abort``, ``code:interact`` or a module
with a side effect on import is read, checked and replaced on the command
line without importing anything (a marker file the module writes on import
tells); a run that would import what a file names is refused unless
``--allow-plugins`` is given. Group 7: a plug-in scheduler that raises,
exits, returns a wrong type, makes a decision that cannot be carried out or
never decides ends the command in one line naming it, exit 2, nothing
written; ``--debug`` adds the traceback. Group 8: ``replay --scheduler
golubchik`` is refused. Each case runs ``tapesched`` in a bounded child
(:func:`tests.hostile.bounded`) with the plug-in modules of ``tmp_path`` on
``PYTHONPATH``.
"""

from __future__ import annotations

import copy
import json
import pickle
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tapesched.simulator.scenario.document import load_scenario
from tapesched.simulator.storage.policies.policy_registry import ENTRY_POINT_GROUP as POLICY_GROUP
from tapesched.solvers.online.state import LeftWaiting
from tapesched.toolkit.errors import InputError
from tapesched.toolkit.runtime.plugin_calls import Plugin, PluginError, guarded
from tests.cli.hostile.test_hostile_inputs import SCENARIO, TRACE
from tests.conftest import INSTANCES, dist_info
from tests.hostile import Ended, bounded

SPEC = str(INSTANCES / "spec-example.json")

PLUGS = textwrap.dedent(
    """
    import sys

    from tapesched.solvers.online.protocol import Dismount


    class Raises:
        def decide(self, now, waiting, platform):
            if waiting:
                raise RuntimeError("boom in decide")
            return None


    class WrongType:
        def decide(self, now, waiting, platform):
            return "start everything" if waiting else None


    class Never:
        def decide(self, now, waiting, platform):
            return None


    class Sleepless:
        def decide(self, now, waiting, platform):
            return None

        def wake_s(self, now):
            return now + 1.0


    class Exits:
        def decide(self, now, waiting, platform):
            if waiting:
                sys.exit(0)
            return None


    class EmptyDrive:
        def decide(self, now, waiting, platform):
            idle = platform.idle_drives()
            return Dismount(idle[0]) if idle else None
    """
)
"""Schedulers that misbehave, each its own way (module ``hostile_plugs``)."""

MARKED = textwrap.dedent(
    """
    import os
    from pathlib import Path

    Path(os.environ["TAPESCHED_TEST_MARKER"]).write_text("imported")

    from tapesched.solvers.online.mount_policy import parse_mount_policy
    from tapesched.solvers.online.heuristics import Fifo as Sched


    def Policy():
        return parse_mount_policy("lru")
    """
)
"""A module whose import writes a marker file (module ``marked_plug``)."""


@pytest.fixture
def plugs(tmp_path: Path) -> Path:
    """``tmp_path`` holding the plug-in modules; the marker file path is ``marker``."""
    (tmp_path / "hostile_plugs.py").write_text(PLUGS)
    (tmp_path / "marked_plug.py").write_text(MARKED)
    (tmp_path / "exits_on_import.py").write_text("import sys\nsys.exit(0)\n")
    return tmp_path


def _run(tmp: Path, args: list[str]) -> Ended:
    env = {"PYTHONPATH": str(tmp), "TAPESCHED_TEST_MARKER": str(tmp / "marker")}
    return bounded(args, cwd=tmp, env=env)


def _scenario(tmp: Path, scheduler: Any, name: str = "scenario.json") -> str:
    document = copy.deepcopy(SCENARIO)
    document["run"] = {"scheduler": scheduler}
    path = tmp / name
    path.write_text(json.dumps(document))
    return str(path)


# --- group 2: a file is data ---------------------------------------------------------------

STDLIB = ["os:abort", "code:interact", "builtins:exit"]


@pytest.mark.parametrize("spec", STDLIB)
@pytest.mark.parametrize("extra", [[], ["--scheduler", "fifo"]], ids=["check", "replaced"])
def test_a_file_naming_the_standard_library_is_refused_as_it_is_read(plugs, spec, extra):
    command = ["check"] if not extra else ["simulate"]
    ended = _run(plugs, [*command, _scenario(plugs, spec), *extra])
    ended.assert_refused()
    assert ended.lines()[0].startswith(f"{plugs / 'scenario.json'}: run.scheduler: {spec}: ")
    assert "standard library" in ended.stderr and ended.stdout == ""


@pytest.mark.parametrize(
    "scheduler",
    ["marked_plug:Sched", {"name": "fifo", "mount_policy": "marked_plug:Policy"}],
    ids=["scheduler", "mount policy"],
)
@pytest.mark.parametrize(
    "extra",
    [["check"], ["simulate", "--scheduler", "fifo", "--mount-policy", "lru"]],
    ids=["check", "replaced"],
)
def test_reading_checking_or_replacing_what_a_file_names_imports_nothing(plugs, scheduler, extra):
    command, *options = extra
    ended = _run(plugs, [command, _scenario(plugs, scheduler), *options])
    assert (ended.code, ended.lines()) == (0, []), ended.stderr[-2000:]
    assert not (plugs / "marker").exists()
    if command == "check":  # says what a run will need
        (note,) = [line for line in ended.stdout.splitlines() if line.startswith("note:")]
        assert "names code ('marked_plug:" in note and "only with --allow-plugins" in note


@pytest.mark.parametrize(
    ("scheduler", "path"),
    [
        ("marked_plug:Sched", "run.scheduler"),
        ({"name": "fifo", "mount_policy": "marked_plug:Policy"}, "run.scheduler.mount_policy"),
    ],
    ids=["scheduler", "mount policy"],
)
def test_a_run_imports_what_a_file_names_only_with_allow_plugins(plugs, scheduler, path):
    scenario = _scenario(plugs, scheduler)
    out = plugs / "out"
    refused = _run(plugs, ["simulate", scenario, "--out", str(out)])
    refused.assert_refused()
    spec = scheduler if isinstance(scheduler, str) else scheduler["mount_policy"]
    assert refused.lines() == [
        f"{scenario}: {path}: {spec}: the file names code to import; "
        "run it with --allow-plugins if you trust it"
    ]
    assert not (plugs / "marker").exists() and not out.exists() and refused.stdout == ""
    allowed = _run(plugs, ["simulate", scenario, "--allow-plugins", "--out", str(out)])
    assert allowed.code == 0, allowed.stderr[-2000:]
    assert (plugs / "marker").read_text() == "imported" and (out / "summary.json").exists()


@pytest.mark.parametrize(
    "command",
    [
        ["simulate", "{file}"],
        [
            "experiment",
            "gol-stripe-search",
            "--scenario",
            "{file}",
            "--rates",
            "0.1",
            "--out",
            "{out}",
        ],
        ["experiment", "bw-fig9", "--quick", "--scenario", "{file}", "--out", "{out}"],
        ["experiment", "online-vs-offline", "{file}", "--window", "5", "--out", "{out}"],
    ],
    ids=["simulate", "gol-stripe-search", "experiment", "online-vs-offline"],
)
def test_every_command_running_a_scenario_refuses_its_code_without_allow_plugins(plugs, command):
    scenario = _scenario(plugs, {"name": "fifo", "mount_policy": "marked_plug:Policy"})
    out = plugs / "out"
    ended = _run(plugs, [a.format(file=scenario, out=out) for a in command])
    ended.assert_refused()
    assert ended.lines()[0].startswith(f"{scenario}: run.scheduler.mount_policy: marked_plug:")
    assert not (plugs / "marker").exists() and not out.exists()


def test_loading_a_scenario_leaves_its_plugin_unimported(plugs, monkeypatch):
    monkeypatch.syspath_prepend(str(plugs))
    monkeypatch.setenv("TAPESCHED_TEST_MARKER", str(plugs / "marker"))
    scenario = load_scenario(_scenario(plugs, "marked_plug:Sched"))
    assert scenario.run.scheduler == "marked_plug:Sched"
    assert "marked_plug" not in sys.modules and not (plugs / "marker").exists()
    with pytest.raises(InputError, match=r"run\.scheduler: os:abort: 'os' is a module of"):
        load_scenario(_scenario(plugs, "os:abort"))


# --- group 7: plug-ins that misbehave ------------------------------------------------------

MISBEHAVING = [
    ("Raises", "Raises.decide raised RuntimeError: boom in decide"),
    ("WrongType", "decide returned 'start everything': not a Start, a Dismount or None"),
    ("Exits", "Exits.decide raised SystemExit: 0"),
    ("EmptyDrive", "decide returned Dismount(drive="),
    ("Never", "decide left "),
]


def _solve(tmp: Path, spec: str) -> list[str]:
    return ["solve", SPEC, "--solver", spec, "--out", str(tmp / "out.json")]


def _simulate_instance(tmp: Path, spec: str) -> list[str]:
    return ["simulate", SPEC, "--scheduler", spec, "--out", str(tmp / "out")]


def _simulate_trace(tmp: Path, spec: str) -> list[str]:
    (tmp / "trace.csv").write_text(TRACE)
    scenario = _scenario(tmp, "fifo")
    return ["simulate", scenario, "--scheduler", spec, "--workload", str(tmp / "trace.csv"),
            "--out", str(tmp / "out")]  # fmt: skip


def _compare(tmp: Path, spec: str) -> list[str]:
    # --quiet: fifo's progress line would precede the one line of the refusal
    return ["compare", SPEC, "--solvers", f"fifo,{spec}", "--quiet"]


COMMANDS = {
    "solve": _solve,
    "simulate an instance": _simulate_instance,
    "simulate a trace": _simulate_trace,
    "compare": _compare,
}


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize(("plug", "says"), MISBEHAVING, ids=[m[0] for m in MISBEHAVING])
def test_a_plugin_that_misbehaves_is_one_line_naming_it_exit_2(plugs, command, plug, says):
    spec = f"hostile_plugs:{plug}"
    ended = _run(plugs, COMMANDS[command](plugs, spec))
    ended.assert_refused()
    assert ended.lines()[0].startswith(f"plug-in {spec}: {says}"), ended.lines()
    assert ended.stdout == ""
    assert not (plugs / "out.json").exists() and not (plugs / "out").exists()


def test_a_scheduler_that_only_asks_to_be_woken_again_ends(plugs):
    ended = _run(plugs, _simulate_trace(plugs, "hostile_plugs:Sleepless"))
    ended.assert_refused()
    assert ended.lines()[0].startswith("plug-in hostile_plugs:Sleepless: decide left 1 requests")
    ended = _run(plugs, _solve(plugs, "hostile_plugs:Sleepless"))
    ended.assert_refused()
    assert "with nothing left to wait for" in ended.lines()[0]


def test_a_plugin_that_exits_on_import_is_one_line_not_exit_0(plugs):
    ended = _run(plugs, _solve(plugs, "exits_on_import:X"))
    ended.assert_refused()
    assert ended.lines() == [
        "--solver: exits_on_import:X: cannot import module 'exits_on_import': SystemExit: 0"
    ]
    assert not (plugs / "out.json").exists()


def test_debug_prints_the_plugins_traceback_then_the_line(plugs):
    ended = _run(plugs, ["--debug", *_solve(plugs, "hostile_plugs:Raises")])
    assert ended.code == 2
    assert "Traceback" in ended.stderr and 'raise RuntimeError("boom in decide")' in ended.stderr
    line = "plug-in hostile_plugs:Raises: Raises.decide raised RuntimeError: boom in decide"
    assert ended.lines()[-1] == line


POLICIES = textwrap.dedent(
    """
    from tapesched.simulator.storage.policies.parallel import Parallel


    class Planless(Parallel):
        def plan_write(self, *args, **kwargs):
            raise RuntimeError("no plan today")


    def unmade(block_mb):
        raise ValueError("cannot build")
    """
)
"""Archival policies of an installed package that fail (module ``broken_policies``)."""


@pytest.mark.parametrize(
    ("name", "line"),
    [
        ("planless", "plug-in broken_policies:Planless: Planless.plan_write raised RuntimeError: "
         "no plan today"),
        ("unmade", "plug-in unmade: make raised ValueError: cannot build"),
    ],
)  # fmt: skip
def test_an_installed_policy_that_fails_is_one_line(plugs, name, line):
    (plugs / "broken_policies.py").write_text(POLICIES)
    entries = {"planless": "broken_policies:Planless", "unmade": "broken_policies:unmade"}
    dist_info(plugs, "broken-policies", POLICY_GROUP, entries)
    scenario = _scenario(plugs, "fifo")
    ended = _run(plugs, ["simulate", scenario, "--policy", name, "--out", str(plugs / "out")])
    ended.assert_refused()
    assert ended.lines() == [line] and not (plugs / "out").exists()


def test_a_broken_protocol_is_blamed_on_a_plugin_that_decides_only():
    policy, scheduler = Plugin("p:P", "p", decides=False), Plugin("s:S", "s")
    with pytest.raises(LeftWaiting), guarded((policy,)):
        raise LeftWaiting(1, 0.0)
    with pytest.raises(PluginError, match=r"^plug-in s:S: decide left 1 requests"):
        with guarded((policy, scheduler)):
            raise LeftWaiting(1, 0.0)


class _Unpicklable(Exception):
    def __init__(self, message: str, handle: object) -> None:
        super().__init__(message)
        self.handle = handle


def test_a_plugin_error_crosses_processes_as_the_line_it_says():
    for error in (_Unpicklable("boom", lambda: None), LeftWaiting(2, 5.0)):
        sent = PluginError("m:X", "X.decide", error)
        assert str(pickle.loads(pickle.dumps(sent))) == str(sent)


# --- group 8 ----------------------------------------------------------------------------------


def test_replay_refuses_golubchik_naming_the_option(plugs):
    args = ["replay", "trace.csv", "layout.json", "--drives", "2", "--scheduler", "golubchik"]
    ended = _run(plugs, args)
    ended.assert_refused()
    assert ended.lines()[0].startswith("--scheduler: golubchik runs scenarios only")
