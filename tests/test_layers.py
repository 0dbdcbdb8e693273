"""The packages' layers, read from the source: imports point one way and form no cycle.

The toolkit's core (model, files, validator, metrics, generators, strategies)
stands below the solvers, the solvers below the simulator, and the command
line (``toolkit.cli``) on top of all three. Every ``import`` statement counts,
those inside functions included, since a lazy import is still a dependency.

One name, one thing: no two public classes (module level, no leading
underscore) of the packages share a name, so that a name in a traceback, a
docstring or a review points to one class.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("toolkit", "solvers", "simulator")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(path: Path, module: str) -> set[str]:
    """Every module name ``path`` imports, resolved to absolute names."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            names.add(source)
            names.update(f"{source}.{alias.name}" for alias in node.names)
    return names


def import_graph() -> nx.DiGraph:
    """Our modules, with an edge from each to every one of ours it imports."""
    files = {_module_name(p): p for package in PACKAGES for p in (ROOT / package).rglob("*.py")}
    graph = nx.DiGraph()
    graph.add_nodes_from(files)
    for module, path in files.items():
        for name in _imported(path, module):
            if name in files and name != module:
                graph.add_edge(module, name)
    return graph


GRAPH = import_graph()


def test_the_graph_sees_the_packages():
    assert {"toolkit.model", "toolkit.cli", "solvers.registry", "simulator.engine"} <= set(GRAPH)
    assert GRAPH.has_edge("toolkit.cli", "toolkit.cli.simulate")
    assert GRAPH.has_edge("toolkit.cli.simulate", "simulator.scenario")


def test_no_module_import_cycle():
    cycles = list(nx.simple_cycles(GRAPH))
    assert cycles == []


def _is_cli(module: str) -> bool:
    return module == "toolkit.cli" or module.startswith("toolkit.cli.")


@pytest.mark.parametrize(
    ("lower", "upper"),
    [("toolkit", "solvers"), ("toolkit", "simulator"), ("solvers", "simulator")],
)
def test_lower_layers_do_not_import_upper_ones(lower, upper):
    crossing = [
        (a, b)
        for a, b in GRAPH.edges
        if a.split(".")[0] == lower and not _is_cli(a) and b.split(".")[0] == upper
    ]
    assert crossing == []


def public_classes() -> dict[str, list[str]]:
    """Every public class defined at a module's top level: its name, and the modules defining it."""
    out: dict[str, list[str]] = defaultdict(list)
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.parse(path.read_text(encoding="utf-8")).body:
                if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                    out[node.name].append(_module_name(path))
    return dict(out)


CLASSES = public_classes()


def test_the_class_reader_sees_the_packages():
    assert CLASSES["Instance"] == ["toolkit.model"]
    assert CLASSES["Node"] == ["solvers.formulation"]
    assert "simulator.engine" in {m for modules in CLASSES.values() for m in modules}
    assert "_Hints" not in CLASSES


def test_no_two_public_classes_share_a_name():
    shared = {name: modules for name, modules in CLASSES.items() if len(modules) > 1}
    assert shared == {}
