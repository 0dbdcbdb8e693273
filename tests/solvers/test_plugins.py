"""Scheduler specs: names, ``module:Attr``, entry points and objects, resolved in one place."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tapesched import solvers
from tapesched.solvers.bounds.bounds import lower_bound
from tapesched.solvers.online.dispatcher import dispatch
from tapesched.solvers.online.heuristics import SCHEDULERS, Fifo, Wspt
from tapesched.solvers.plugins import (
    ENTRY_POINT_GROUP,
    PluginEntry,
    SchedulerSpecError,
    UnknownSchedulerError,
    find_solver,
    make_scheduler,
    plugin_entries,
    resolve_scheduler,
)
from tapesched.solvers.registry import UnknownSolverError
from tapesched.toolkit.files.instance_file import load_instance
from tapesched.toolkit.validator import validate
from tests.conftest import INSTANCES, dist_info

MODULE = "tapesched_test_plugs"

PLUGS = '''
import threading

from tapesched.solvers.online import Fifo, Start


class Oldest:
    """fifo in other words: the oldest request that can start."""

    def decide(self, now, waiting, platform):
        for request in waiting:
            if platform.can_start(request):
                return Start(request)
        return None


class Counting(Oldest):
    """Counts its decisions (state that a run must not leave behind)."""

    def __init__(self):
        self.calls = 0

    def decide(self, now, waiting, platform):
        self.calls += 1
        return super().decide(now, waiting, platform)


def make_fifo():
    return Fifo()


counting = Counting()


class Outer:
    class Inner(Oldest):
        pass


class NoDecide:
    pass


class WrongDecide:
    def decide(self, now):
        return None


class NeedsArguments(Oldest):
    def __init__(self, depth):
        self.depth = depth


def makes_nothing():
    return 42


class Locked(Oldest):
    def __init__(self):
        self.lock = threading.Lock()


locked = Locked()


class Talkative:
    def decide(self, now, waiting, platform):
        return "start everything"


constant = 3.5
'''


@pytest.fixture
def plugs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A module of schedulers, good and bad, importable as :data:`MODULE`."""
    (tmp_path / f"{MODULE}.py").write_text(PLUGS)
    (tmp_path / "tapesched_test_broken.py").write_text("raise RuntimeError('no\\nway')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in (MODULE, "tapesched_test_broken"):
        sys.modules.pop(name, None)
    yield tmp_path
    for name in (MODULE, "tapesched_test_broken"):
        sys.modules.pop(name, None)


def _dist_info(root: Path, package: str, entries: dict[str, str]) -> None:
    """An installed package's metadata under ``root``, declaring ``entries`` as schedulers."""
    dist_info(root, package, ENTRY_POINT_GROUP, entries)


@pytest.fixture
def spec():
    return load_instance(INSTANCES / "spec-example.json")


def test_a_registered_name_gives_a_fresh_scheduler_per_run():
    for name, make in SCHEDULERS.items():
        plugged = resolve_scheduler(name)
        assert (plugged.name, plugged.origin) == (name, "registry")
        first, second = plugged.make(), plugged.make()
        assert type(first) is type(make()) and first is not second
    assert isinstance(make_scheduler("wspt"), Wspt)


def test_an_unknown_name_is_a_value_error_and_a_key_error_listing_the_known_ones():
    with pytest.raises(UnknownSchedulerError) as caught:
        resolve_scheduler("nope")
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, KeyError)
    assert str(caught.value) == (
        f"unknown scheduler 'nope'; known: {', '.join(SCHEDULERS)}; or give module.path:Attr"
    )
    with pytest.raises(UnknownSchedulerError, match="'cpsat' is an offline solver"):
        resolve_scheduler("cpsat")


@pytest.mark.usefixtures("plugs")
@pytest.mark.parametrize(
    ("attribute", "kind"),
    [
        ("Oldest", "Oldest"),
        ("make_fifo", "Fifo"),
        ("Outer.Inner", "Inner"),
        ("counting", "Counting"),
    ],
)
def test_module_attr_may_be_a_class_a_factory_a_nested_class_or_an_object(spec, attribute, kind):
    plugged = resolve_scheduler(f"{MODULE}:{attribute}")
    assert (plugged.name, plugged.origin) == (f"{MODULE}:{attribute}", "module")
    made = plugged.make()
    assert type(made).__name__ == kind
    # Each of them is fifo written otherwise: the same schedule.
    assert dispatch(spec, made) == dispatch(spec, Fifo())


@pytest.mark.usefixtures("plugs")
def test_an_object_is_copied_for_each_run_and_left_as_it_was(spec):
    module = __import__(MODULE)
    given = module.counting
    first = make_scheduler(given)
    dispatch(spec, first)
    assert first.calls > 0 and given.calls == 0
    second = make_scheduler(f"{MODULE}:counting")
    assert second is not first and second.calls == 0
    assert resolve_scheduler(given).name == f"{MODULE}:Counting"
    assert resolve_scheduler(module.make_fifo).name == f"{MODULE}:make_fifo"


@pytest.mark.usefixtures("plugs")
@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nowhere_at_all:X",
         "nowhere_at_all:X: cannot import module 'nowhere_at_all': "
         "ModuleNotFoundError: No module named 'nowhere_at_all'"),
        ("tapesched_test_broken:X",
         "tapesched_test_broken:X: cannot import module 'tapesched_test_broken': "
         "RuntimeError: no way"),
        (f"{MODULE}:Missing", f"{MODULE}:Missing: module '{MODULE}' has no attribute 'Missing'"),
        (f"{MODULE}:", f"{MODULE}:: not of the form module.path:Attr"),
        ("a b:C", "a b:C: not of the form module.path:Attr"),
        (f"{MODULE}:NoDecide",
         f"{MODULE}:NoDecide: a NoDecide is not a scheduler: "
         "it has no method decide(now, waiting, platform)"),
        (f"{MODULE}:WrongDecide",
         f"{MODULE}:WrongDecide: its decide cannot be called as decide(now, waiting, platform): "
         "too many positional arguments"),
        (f"{MODULE}:NeedsArguments",
         f"{MODULE}:NeedsArguments: cannot make a scheduler: TypeError: "),
        (f"{MODULE}:makes_nothing",
         f"{MODULE}:makes_nothing: a int is not a scheduler: "
         "it has no method decide(now, waiting, platform)"),
        (f"{MODULE}:constant",
         f"{MODULE}:constant: a float is neither a scheduler (no method decide) "
         "nor a class or factory of schedulers"),
        (f"{MODULE}:locked",
         f"{MODULE}:locked: cannot copy the scheduler for a run (TypeError: "),
    ],
)  # fmt: skip
def test_a_spec_that_gives_no_scheduler_is_one_line(spec, message):
    with pytest.raises(SchedulerSpecError) as caught:
        resolve_scheduler(spec)
    text = str(caught.value)
    assert isinstance(caught.value, ValueError)
    assert text.startswith(message)
    assert "\n" not in text


@pytest.mark.usefixtures("plugs")
def test_a_decision_that_is_neither_start_nor_dismount_is_a_type_error(spec):
    with pytest.raises(TypeError, match="'start everything': not a Start, a Dismount or None"):
        dispatch(spec, make_scheduler(f"{MODULE}:Talkative"))


@pytest.mark.usefixtures("plugs")
def test_a_plugged_scheduler_is_a_solver_with_the_lower_bound(spec):
    name, run = find_solver(f"{MODULE}:Oldest")
    assert name == f"{MODULE}:Oldest"
    result = run(spec, time_limit_s=None, seed=0)
    assert result.solver == name and result.status == "feasible"
    assert result.bound == lower_bound(spec)
    assert validate(spec, result.schedule).feasible
    assert result.schedule == solvers.solve(spec, solver="fifo").schedule
    via_solve = solvers.solve(spec, solver=__import__(MODULE).Oldest())
    assert (via_solve.solver, via_solve.schedule) == (name, result.schedule)
    assert find_solver("greedy") == ("greedy", solvers.registry.get("greedy"))
    assert not solvers.takes_workers(f"{MODULE}:Oldest")
    with pytest.raises(ValueError, match="takes no workers"):
        solvers.solve(spec, solver=f"{MODULE}:Oldest", workers=2)


def test_an_unknown_solver_name_lists_solvers_and_says_how_to_plug_one_in():
    with pytest.raises(UnknownSolverError) as caught:
        find_solver("magic")
    assert str(caught.value) == (
        f"unknown solver 'magic'; known: {', '.join(solvers.names())}; "
        "or a scheduler module.path:Attr"
    )


@pytest.mark.usefixtures("plugs")
def test_entry_points_are_found_on_sys_path_listed_and_loaded_only_when_asked_for(
    tmp_path, monkeypatch, spec
):
    site = tmp_path / "site"
    _dist_info(site, "plugs-one", {"oldest": f"{MODULE}:Oldest", "fifo": f"{MODULE}:Oldest"})
    _dist_info(site, "plugs-two", {"broken": "tapesched_test_broken:X", "cpsat": "x:Y"})
    monkeypatch.syspath_prepend(str(site))
    assert plugin_entries() == (
        PluginEntry("broken", "tapesched_test_broken:X", "plugs-two 1.0"),
        PluginEntry("cpsat", "x:Y", "plugs-two 1.0"),
        PluginEntry("fifo", f"{MODULE}:Oldest", "plugs-one 1.0"),
        PluginEntry("oldest", f"{MODULE}:Oldest", "plugs-one 1.0"),
    )
    assert MODULE not in sys.modules
    assert isinstance(make_scheduler("fifo"), Fifo)  # the registry's name wins
    assert MODULE not in sys.modules
    plugged = resolve_scheduler("oldest")
    assert MODULE in sys.modules
    assert plugged.name == "oldest"
    assert plugged.origin == f"entry point {MODULE}:Oldest of plugs-one 1.0"
    assert dispatch(spec, plugged.make()) == dispatch(spec, Fifo())
    assert find_solver("oldest")[0] == "oldest"
    assert solvers.solve(spec, solver="oldest").schedule == dispatch(spec, Fifo())
    with pytest.raises(SchedulerSpecError) as caught:
        resolve_scheduler("broken")
    assert str(caught.value) == (
        "broken: cannot load the entry point tapesched_test_broken:X of plugs-two 1.0: "
        "RuntimeError: no way"
    )
    with pytest.raises(UnknownSchedulerError, match="offline solver") as unknown:
        resolve_scheduler("cpsat")
    assert str(unknown.value).endswith(", greedy, broken, oldest")


def test_the_first_package_on_sys_path_wins_a_name_both_declare(tmp_path, monkeypatch, plugs):
    (plugs / "tapesched_test_second.py").write_text(
        textwrap.dedent(
            """
            from tapesched.solvers.online import Wspt as Second
            """
        )
    )
    first, second = tmp_path / "first", tmp_path / "second"
    _dist_info(first, "plugs-first", {"twice": f"{MODULE}:Oldest"})
    _dist_info(second, "plugs-second", {"twice": "tapesched_test_second:Second"})
    monkeypatch.syspath_prepend(str(second))
    monkeypatch.syspath_prepend(str(first))
    assert [e.distribution for e in plugin_entries()] == ["plugs-first 1.0", "plugs-second 1.0"]
    assert type(make_scheduler("twice")).__name__ == "Oldest"
    sys.modules.pop("tapesched_test_second", None)
