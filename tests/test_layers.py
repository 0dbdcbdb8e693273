"""The packages' layers, read from the source: imports point one way and form no cycle.

The toolkit's core (model, files, validator, metrics, generators, strategies)
stands below the solvers, the solvers below the simulator, and the command
line (``toolkit.cli``) on top of all three. Every ``import`` statement counts,
those inside functions included, since a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
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
