"""Evictions and mount policies of one's own: from ``module.path:Attr`` and from an entry point.

A plug-in eviction rule re-implements LRU, so that a run under it must be
the run under ``lru`` (which differs from ``keep`` on ``random-300``); a
plug-in mount policy is LRU with dismounts at once, so that it must be
``lru+at-once``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from tapesched import solvers
from tapesched.cli import main
from tapesched.solvers.online.evictions import Belady
from tapesched.solvers.online.mount_policy import (
    EVICTION_GROUP,
    EVICTIONS,
    MOUNT_POLICIES,
    MOUNT_POLICY_GROUP,
    MountPolicyError,
    mount_policy_plugins,
    parse_mount_policy,
)
from tapesched.solvers.online.mount_protocol import Rules
from tapesched.solvers.result import Result
from tapesched.toolkit.files.instance_file import load_instance
from tapesched.toolkit.model import Instance
from tapesched.toolkit.runtime.plugin_calls import Plugin
from tests.conftest import INSTANCES, dist_info

MODULE = "tapesched_test_mounts"

PLUGS = '''
from tapesched.solvers.online.mount_protocol import NO_USE, Rules


class Recent:
    """LRU written again: the candidate whose tape was used least recently (ties: the first)."""

    def choose(self, now, candidates, uses, platform):
        def last(drive):
            return uses.get(platform.tape_in(drive), NO_USE).last_used_s

        return min(candidates, key=last)


class Seer:
    """Records what it was made with."""

    made_with = None

    def __init__(self, instance=None, *, future=None):
        Seer.made_with = (instance, future)

    def choose(self, now, candidates, uses, platform):
        return candidates[0]


class LruAtOnce:
    """A whole mount policy: LRU evictions, idle tapes put away at once, no criteria."""

    def __init__(self):
        self.rules = Rules(Recent(), 0.0)

    def evict(self, now, candidates, uses, platform):
        return self.rules.evict(now, candidates, uses, platform)

    def dismount_s(self, tape, idle_since_s):
        return self.rules.dismount_s(tape, idle_since_s)

    def admit(self, now, queues, active, platform):
        return None

    def recheck_s(self, now, queues):
        return None
'''

RANDOM_300 = INSTANCES / "random-300.json"


@pytest.fixture(scope="module")
def instance() -> Instance:
    return load_instance(RANDOM_300)


@pytest.fixture
def plugs(plug_module: Callable[[str, str], Path]) -> Path:
    """The module :data:`MODULE`, importable, and a package declaring its rules as entry points."""
    site = plug_module(MODULE, PLUGS)
    dist_info(site, "more-evictions", EVICTION_GROUP, {"recent": f"{MODULE}:Recent"})
    dist_info(site, "more-mounts", MOUNT_POLICY_GROUP, {"lru-at-once": f"{MODULE}:LruAtOnce"})
    return site


def _fifo(instance: Instance, mount_policy: str) -> Result:
    return solvers.solve(instance, solver="fifo", mount_policy=mount_policy)


def test_an_eviction_from_module_path_is_that_rule(instance, plugs):
    policy = parse_mount_policy(f"{MODULE}:Recent")
    assert isinstance(policy, Rules) and type(policy.eviction).__name__ == "Recent"
    lru = _fifo(instance, "lru")
    assert lru.schedule != _fifo(instance, "keep").schedule
    assert _fifo(instance, f"{MODULE}:Recent").schedule == lru.schedule


def test_an_installed_eviction_is_a_name_of_a_spec(instance, plugs):
    assert EVICTIONS.known() == ("lru", "fifo", "lfu", "belady", "recent")
    assert _fifo(instance, "recent+defer:300").schedule == _fifo(instance, "lru+defer:300").schedule
    assert mount_policy_plugins("recent+defer:300") == (Plugin("recent", MODULE),)
    assert mount_policy_plugins("lru+defer:300") == ()
    with pytest.raises(MountPolicyError) as caught:
        parse_mount_policy("nope")
    assert str(caught.value) == (
        "unknown mount policy 'nope': expected keep, lru, fifo, lfu, belady, recent, at-once, "
        "defer:T, cta:..., dcache:... (joined by +), lru-at-once or module.path:Attr"
    )


def test_an_eviction_is_made_with_the_future_it_asks_for(instance, plugs, monkeypatch):
    dist_info(plugs, "seers", EVICTION_GROUP, {"seer": f"{MODULE}:Seer"})
    future = {"t": [1.0]}
    parse_mount_policy("seer", future=future)
    assert sys.modules[MODULE].Seer.made_with == (None, future)
    parse_mount_policy(f"{MODULE}:Seer", instance=instance)
    assert sys.modules[MODULE].Seer.made_with == (instance, None)
    dist_info(plugs, "yardsticks", EVICTION_GROUP, {"yardstick": f"{Belady.__module__}:Belady"})
    assert _fifo(instance, "yardstick").schedule == _fifo(instance, "belady").schedule


def test_a_whole_mount_policy_from_module_path_or_an_entry_point(instance, plugs):
    expected = _fifo(instance, "lru+at-once").schedule
    assert _fifo(instance, f"{MODULE}:LruAtOnce").schedule == expected
    assert MOUNT_POLICIES.plugin_names() == ("lru-at-once",)
    assert _fifo(instance, "lru-at-once").schedule == expected
    assert mount_policy_plugins("lru-at-once") == (Plugin("lru-at-once", MODULE),)
    with pytest.raises(MountPolicyError, match="a whole mount policy, not a rule to join"):
        parse_mount_policy("lru-at-once+defer:3")


def test_an_installed_eviction_runs_from_the_command_line(plugs):
    written = {}
    for spec in ("recent+at-once", "lru+at-once"):
        out = plugs / f"{spec}.json"
        args = ["solve", str(RANDOM_300), "--solver", "fifo", "--out", str(out)]
        result = CliRunner().invoke(main, [*args, "--mount-policy", spec])
        assert result.exit_code == 0, result.output
        written[spec] = out.read_text()
    assert written["recent+at-once"] == written["lru+at-once"]


def test_a_broken_installed_eviction_is_one_line(plugs):
    dist_info(plugs, "broken", EVICTION_GROUP, {"gone": "tapesched_no_such_module:X"})
    with pytest.raises(MountPolicyError) as caught:
        parse_mount_policy("gone+defer:3")
    assert str(caught.value) == (
        "gone: cannot load the entry point tapesched_no_such_module:X of broken 1.0: "
        "ModuleNotFoundError: No module named 'tapesched_no_such_module'"
    )
