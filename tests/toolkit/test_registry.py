"""The registry of a plug point: declared once, imported when asked, names checked, entry points."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tapesched.toolkit.registry import (
    DuplicateNameError,
    Entry,
    LoadError,
    PluginEntry,
    Registry,
    Resolved,
    UnknownNameError,
    import_target,
    load_spec,
)
from tests.conftest import dist_info

LAZY = "tapesched_test_registry_lazy"
PLUG = "tapesched_test_registry_plug"
GROUP = "tapesched.test_things"

MODULES = {
    LAZY: "def double(x):\n    return 2 * x\n\n\ndef triple(x):\n    return 3 * x\n",
    PLUG: "def square(x):\n    return x * x\n\n\nclass Box:\n    class Inner:\n        pass\n",
    "tapesched_test_registry_broken": "raise RuntimeError('broken\\non purpose')\n",
}


@pytest.fixture
def modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Modules that no test has imported yet, importable from ``tmp_path``."""
    for name, text in MODULES.items():
        (tmp_path / f"{name}.py").write_text(text)
        sys.modules.pop(name, None)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in MODULES:
        sys.modules.pop(name, None)


def raised(error: type[Exception], call: Callable[..., object], *args: object) -> str:
    """The message of the ``error`` that ``call(*args)`` raises."""
    with pytest.raises(error) as caught:
        call(*args)
    return str(caught.value)


def things() -> Registry[Callable[[int], int]]:
    """A registry with two declared entries, ``double`` and ``triple``."""
    registry: Registry[Callable[[int], int]] = Registry("thing", group=GROUP)
    registry.declare("double", f"{LAZY}:double", "twice the number", exact=True)
    registry.declare("triple", f"{LAZY}:triple", "three times the number")
    return registry


@pytest.mark.usefixtures("modules")
def test_a_declared_entry_is_listed_without_import_and_imported_on_first_use():
    registry = things()
    assert registry.names() == ("double", "triple")
    assert registry.known() == ("double", "triple")
    assert registry.describe("triple") == "three times the number"
    assert registry.entry("double") == Entry(
        "double", "twice the number", f"{LAZY}:double", {"exact": True}
    )
    assert registry.entry("triple").metadata == {}
    assert registry.entry("double").origin == "registry"
    assert "double" in registry and "square" not in registry
    assert (list(registry), len(registry)) == (["double", "triple"], 2)
    assert LAZY not in sys.modules  # listed, described, looked up: never imported
    double = registry.load("double")
    assert LAZY in sys.modules
    assert double(21) == 42
    assert registry["double"] is double is registry.load("double")
    assert registry.get("triple")(2) == 6
    assert registry.get("square") is None


def test_metadata_is_read_only():
    registry = things()
    with pytest.raises(TypeError):
        registry.entry("double").metadata["exact"] = False  # type: ignore[index]


@pytest.mark.usefixtures("modules")
def test_an_unknown_name_is_one_error_that_lists_the_known_names():
    registry = things()
    with pytest.raises(UnknownNameError) as caught:
        registry.load("quadruple")
    assert isinstance(caught.value, KeyError) and isinstance(caught.value, ValueError)
    assert isinstance(caught.value, LoadError)
    assert str(caught.value) == "unknown thing 'quadruple'; known: double, triple"
    for look_up in (registry.entry, registry.describe, registry.__getitem__, registry.resolve):
        with pytest.raises(UnknownNameError, match="unknown thing 'quadruple'; known: double"):
            look_up("quadruple")


def test_an_unknown_name_is_reported_in_the_registrys_own_words():
    class UnknownThingError(UnknownNameError):
        pass

    registry: Registry[Any] = Registry(
        "thing", unknown=UnknownThingError, hint="; or write one", quoted=True
    )
    registry.declare("one", f"{LAZY}:double", "the first")
    assert raised(UnknownThingError, registry.load, "two") == (
        "unknown thing 'two'; known: 'one'; or write one"
    )
    with pytest.raises(UnknownThingError, match="known: none"):
        Registry("thing", unknown=UnknownThingError).load("two")


def test_a_name_is_declared_once():
    registry = things()
    assert issubclass(DuplicateNameError, ValueError)
    assert raised(DuplicateNameError, registry.declare, "double", f"{LAZY}:double", "again") == (
        f"thing 'double' is already declared; the registry has it declared as {LAZY}.double"
    )
    with pytest.raises(DuplicateNameError, match=f"already registered; .* declared as {LAZY}"):
        registry.add("triple", abs, "another")
    assert registry.describe("double") == "twice the number"
    assert registry.add("abs", abs, "the absolute value") is abs
    assert registry["abs"] is abs
    with pytest.raises(DuplicateNameError, match=r"registered as builtins\.abs"):
        registry.declare("abs", f"{LAZY}:double", "another")


@pytest.mark.parametrize("name", ["", "two words", "mod:attr", "a,b", " padded"])
def test_a_name_that_could_not_be_given_back_is_refused(name):
    with pytest.raises(ValueError, match="a name is one word"):
        things().declare(name, f"{LAZY}:double", "bad")


@pytest.mark.parametrize("target", ["no_colon", "a.b:", ":attr", "a b:c", "a:b c"])
def test_a_malformed_target_is_refused_when_declared(target):
    with pytest.raises(ValueError, match=r"not of the form module\.path:Attr"):
        things().declare("fine", target, "bad target")


@pytest.mark.usefixtures("modules")
def test_a_declared_target_that_cannot_be_imported_says_so_as_the_import_does():
    registry = things()
    registry.declare("missing", "tapesched_no_such_module:f", "needs a missing library")
    registry.declare("absent", f"{LAZY}:absent", "no such attribute")
    with pytest.raises(ModuleNotFoundError, match="tapesched_no_such_module"):
        registry.load("missing")
    with pytest.raises(AttributeError, match="absent"):
        registry.load("absent")
    assert import_target(f"{PLUG}:Box.Inner").__name__ == "Inner"


@pytest.mark.usefixtures("modules")
def test_a_users_spec_that_cannot_be_loaded_is_one_line_of_the_registrys_error():
    class ThingError(LoadError):
        pass

    registry: Registry[Any] = Registry("thing", failure=ThingError)
    assert raised(ThingError, registry.resolve, "tapesched_test_registry_broken:X") == (
        "tapesched_test_registry_broken:X: cannot import module "
        "'tapesched_test_registry_broken': RuntimeError: broken on purpose"
    )
    assert raised(ThingError, registry.resolve, f"{PLUG}:Box.Missing") == (
        f"{PLUG}:Box.Missing: module '{PLUG}' has no attribute 'Box.Missing'"
    )
    assert raised(LoadError, load_spec, f"{PLUG}:") == f"{PLUG}:: not of the form module.path:Attr"


@pytest.mark.usefixtures("modules")
def test_resolve_takes_a_name_a_module_spec_or_the_object():
    registry = things()
    assert registry.resolve("triple") == Resolved("triple", "registry", registry["triple"])
    found = registry.resolve(f"{PLUG}:Box.Inner")
    assert (found.name, found.origin, found.value.__qualname__) == (
        f"{PLUG}:Box.Inner",
        "module",
        "Box.Inner",
    )
    assert registry.resolve(abs) == Resolved("builtins:abs", "object", abs)
    assert registry.resolve(3).name == "builtins:int"


def test_entry_points_extend_the_registry_imported_only_when_asked_for(
    modules, tmp_path, monkeypatch
):
    site_one, site_two = tmp_path / "one", tmp_path / "two"
    dist_info(site_one, "things-one", GROUP, {"square": f"{PLUG}:square", "double": "x:y"})
    dist_info(site_one, "things-other", "another.group", {"cube": f"{PLUG}:square"})
    dist_info(
        site_two,
        "things-two",
        GROUP,
        {"square": "x:z", "broken": "tapesched_test_registry_broken:X", "taken": "x:w"},
    )
    monkeypatch.syspath_prepend(str(site_two))
    monkeypatch.syspath_prepend(str(site_one))
    reserved: Registry[Any] = Registry("gadget")
    reserved.declare("taken", f"{LAZY}:double", "a gadget's name")
    registry: Registry[Callable[[int], int]] = Registry("thing", group=GROUP, reserved=reserved)
    registry.declare("double", f"{LAZY}:double", "twice the number")

    assert registry.plugins() == (
        PluginEntry("broken", "tapesched_test_registry_broken:X", "things-two 1.0"),
        PluginEntry("double", "x:y", "things-one 1.0"),
        PluginEntry("square", f"{PLUG}:square", "things-one 1.0"),
        PluginEntry("square", "x:z", "things-two 1.0"),
        PluginEntry("taken", "x:w", "things-two 1.0"),
    )
    assert [p.hidden for p in registry.plugins()] == [
        None,
        "the registry has a thing of that name",
        None,
        "an earlier plug-in has that name",
        "the registry has a gadget of that name",
    ]
    assert registry.plugin_names() == ("broken", "square")
    assert registry.known() == ("double", "broken", "square")
    assert list(registry) == ["double"]  # the mapping holds the declared entries
    entry = registry.entry("square")
    assert entry.description == f"plug-in thing {PLUG}:square from things-one 1.0"
    assert entry.origin == f"entry point {PLUG}:square of things-one 1.0"
    assert PLUG not in sys.modules  # listed and described, not imported

    assert registry.load("square")(7) == 49
    assert PLUG in sys.modules
    assert registry.load("double")(7) == 14  # the declared name wins
    assert registry.resolve("square").origin == f"entry point {PLUG}:square of things-one 1.0"
    assert raised(LoadError, registry.load, "broken") == (
        "broken: cannot load the entry point tapesched_test_registry_broken:X of things-two 1.0: "
        "RuntimeError: broken on purpose"
    )
    assert raised(UnknownNameError, registry.load, "taken") == (
        "unknown thing 'taken'; known: double, broken, square"
    )
    assert "cube" not in registry.known()  # another group's entry point


def test_a_registry_without_a_group_takes_no_entry_points(tmp_path, monkeypatch):
    dist_info(tmp_path, "things-one", GROUP, {"square": f"{PLUG}:square"})
    monkeypatch.syspath_prepend(str(tmp_path))
    registry: Registry[Any] = Registry("thing")
    assert (registry.plugins(), registry.known()) == ((), ())
    with pytest.raises(UnknownNameError, match="known: none"):
        registry.load("square")
