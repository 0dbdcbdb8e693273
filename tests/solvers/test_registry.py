"""Solvers are found by name, listed, and imported only when used."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tapesched import solvers
from tapesched.solvers import Result, Status, registry
from tapesched.solvers.greedy import greedy
from tapesched.toolkit.model import Instance

from ..conftest import two_empty_drives


@pytest.fixture
def scratch_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let a test add entries without leaving them behind."""
    monkeypatch.setattr(registry.SOLVERS, "_slots", dict(registry.SOLVERS._slots))


def test_greedy_is_known_by_name():
    assert "greedy" in solvers.names()
    assert registry.get("greedy") is greedy
    assert "online" in registry.describe("greedy")


def test_unknown_name_lists_the_known_ones():
    with pytest.raises(KeyError) as caught:
        registry.get("simplex-of-doom")
    message = str(caught.value)
    assert "unknown solver 'simplex-of-doom'" in message
    assert "'greedy'" in message
    with pytest.raises(KeyError, match="unknown solver"):
        registry.describe("simplex-of-doom")


def test_solve_runs_the_named_solver():
    result = solvers.solve(two_empty_drives(1))
    assert isinstance(result, Result)
    assert (result.solver, result.status) == ("greedy", Status.FEASIBLE)
    assert result.status == "feasible"
    with pytest.raises(KeyError):
        solvers.solve(two_empty_drives(1), solver="nope")


def test_importing_the_package_imports_no_solver_module():
    code = (
        "import sys; from tapesched import solvers; "
        "print(sorted(m for m in sys.modules if m.startswith('tapesched.solvers')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert "tapesched.solvers.greedy" not in out
    assert "tapesched.solvers.registry" in out


@pytest.mark.usefixtures("scratch_registry")
def test_declared_solver_is_imported_only_by_get():
    registry.declare("heavy", "no_such_backend_module", "solve", "needs a missing library")
    assert "heavy" in registry.names()
    assert registry.describe("heavy") == "needs a missing library"
    with pytest.raises(ModuleNotFoundError):
        registry.get("heavy")


@pytest.mark.usefixtures("scratch_registry")
def test_register_enters_a_solver_and_refuses_a_second_one():
    def trivial(instance: Instance, *, time_limit_s: float | None, seed: int) -> Result:
        return Result("trivial", Status.TIMEOUT, None, None, None, 0.0)

    registry.register("trivial", "gives up at once")(trivial)
    assert registry.get("trivial") is trivial
    assert solvers.solve(two_empty_drives(1), solver="trivial").status is Status.TIMEOUT

    def other(instance: Instance, *, time_limit_s: float | None, seed: int) -> Result:
        return Result("other", Status.TIMEOUT, None, None, None, 0.0)

    with pytest.raises(ValueError, match="already registered"):
        registry.register("trivial", "another")(other)
    with pytest.raises(ValueError, match="already registered"):
        registry.register("greedy", "an impostor")(other)
    with pytest.raises(ValueError, match="already declared"):
        registry.declare("greedy", "elsewhere", "greedy", "an impostor")
    registry.declare("lazy", "some.module", "lazy_solver", "declared, never imported")

    def lazy_solver(instance: Instance, *, time_limit_s: float | None, seed: int) -> Result:
        return Result("lazy", Status.TIMEOUT, None, None, None, 0.0)

    with pytest.raises(ValueError, match=r"declared as some\.module\.lazy_solver"):
        registry.register("lazy", "an impostor")(lazy_solver)
