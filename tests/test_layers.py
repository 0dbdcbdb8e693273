"""The package's layers, read from the source: imports point one way and form no cycle.

One import name, ``tapesched``, in layers from the bottom up: the toolkit
(core model, files, validator, metrics, generators, strategies, plots), the
solvers, the simulator, and on top the package's front (``tapesched``'s own
API and the command line, ``tapesched.cli``). A module may import only its
own layer and those below. Every ``import`` statement counts, those inside
functions included (a lazy import is still a dependency), and so does every
``"module.path:Attr"`` string a registry names for a later import. There is
no exception.

One name, one thing: no two public classes (module level, no leading
underscore) of the package share a name, so that a name in a traceback, a
docstring or a review points to one class.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {
    "tapesched": ROOT / "tapesched",
    "tapesched.toolkit": ROOT / "toolkit",
    "tapesched.solvers": ROOT / "solvers",
    "tapesched.simulator": ROOT / "simulator",
    "tapesched.instances": ROOT / "instances",
}
"""Each package of the one import name and the folder it is installed from (setup.cfg)."""

LAYERS = (
    "tapesched.instances",
    "tapesched.toolkit",
    "tapesched.solvers",
    "tapesched.simulator",
    "tapesched.studies",
    "tapesched",
)
"""The layers from the bottom up (the shipped data first: it imports nothing of ours); the
front (``tapesched`` itself, the command line) is the rest."""

TARGET = re.compile(r"^(tapesched(?:\.\w+)+):\w+(?:\.\w+)*$")
"""A registry's lazy target, ``module.path:Attr``."""


def _files() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for package, folder in FOLDERS.items():
        for path in folder.rglob("*.py"):
            parts = path.relative_to(folder).with_suffix("").parts
            parts = parts[:-1] if parts[-1] == "__init__" else parts
            out[".".join([package, *parts])] = path
    return out


FILES = _files()


def layer(module: str) -> int:
    """The rank of ``module``'s layer, 0 for the toolkit."""
    for rank, top in enumerate(LAYERS[:-1]):
        if module == top or module.startswith(top + "."):
            return rank
    return len(LAYERS) - 1


def _imported(path: Path, module: str) -> dict[str, str]:
    """Every module of ours that ``path`` imports (``"import"``) or names as a ``"target"``."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names: set[str] = set()
    targets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            submodules = {f"{source}.{a.name}" for a in node.names} & FILES.keys()
            names.update(submodules or {source})
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            target = TARGET.match(node.value)
            if target:
                targets.add(target.group(1))
    return {**dict.fromkeys(targets, "target"), **dict.fromkeys(names, "import")}


def import_graph() -> nx.DiGraph:
    """Our modules, with an edge from each to every one of ours it imports or names.

    An edge's ``kind`` is ``"import"`` (a statement) or ``"target"`` (a
    registry's ``module.path:Attr``, imported when first used).
    """
    graph = nx.DiGraph()
    graph.add_nodes_from(FILES)
    for module, path in FILES.items():
        for name, kind in _imported(path, module).items():
            if name in FILES and name != module:
                graph.add_edge(module, name, kind=kind)
    return graph


@pytest.fixture(scope="module")
def graph() -> nx.DiGraph:
    """The import graph, read once for the module's tests (not at collection)."""
    return import_graph()


def test_the_graph_sees_the_packages(graph):
    assert {
        "tapesched",
        "tapesched.toolkit.model",
        "tapesched.cli",
        "tapesched.solvers.registry",
        "tapesched.simulator.kernel.engine",
    } <= set(graph)
    assert graph.has_edge("tapesched.cli", "tapesched.cli.archives.simulate")
    # A function-level import is an edge: simulate imports striping_label where it prints.
    assert graph.has_edge(
        "tapesched.cli.archives.simulate", "tapesched.simulator.workload.workload"
    )
    # A registry's string target is an edge: the online schedulers' module is one.
    assert graph.has_edge("tapesched.solvers.registry", "tapesched.solvers.online.heuristics")
    named = ("tapesched.instances", "tapesched.toolkit.files.instance_file", "tapesched.cli")
    assert [layer(m) for m in (*named, "tapesched")] == [0, 1, 5, 5]


STUDY_ROOMS = {
    m
    for m, path in FILES.items()
    if m.startswith("tapesched.studies.") and path.name == "__init__.py"
}
"""The rooms of the studies (``tapesched.studies.sweeps``, ``tapesched.studies.golubchik``, ...)."""


def test_the_studies_shared_machinery_imports_no_study(graph):
    """The modules at the top of ``tapesched.studies`` (the Experiment protocol, the registry,
    the runner, the one writer) are every experiment's, the project's and a user's: they
    import none of the rooms (the registry names the project's experiments, a target each)."""
    assert {"tapesched.studies.sweeps", "tapesched.studies.golubchik"} <= STUDY_ROOMS
    shared = [m for m in FILES if m.startswith("tapesched.studies.") and m.count(".") == 2]
    shared = [m for m in shared if m not in STUDY_ROOMS]
    assert "tapesched.studies.registry" in shared
    assert graph.has_edge("tapesched.studies.registry", "tapesched.studies.golubchik.stripe_report")
    into_rooms = sorted(
        (a, b)
        for a in shared
        for b, kind in graph[a].items()
        if kind["kind"] == "import" and any(b.startswith(room) for room in STUDY_ROOMS)
    )
    assert into_rooms == []


def test_no_module_import_cycle(graph):
    """No cycle of import statements (a registry may name a module that imports it back)."""
    imports = graph.edge_subgraph(
        (a, b) for a, b, kind in graph.edges(data="kind") if kind == "import"
    )
    cycles = list(nx.simple_cycles(imports))
    assert cycles == []


def test_lower_layers_do_not_import_upper_ones(graph):
    crossing = sorted((a, b) for a, b in graph.edges if layer(a) < layer(b))
    assert crossing == []


def test_nothing_imports_a_folder_by_its_own_name():
    """``toolkit``, ``solvers``, ``simulator`` are folders; the package is ``tapesched``."""
    bare = re.compile(r"^\s*(from|import) (toolkit|solvers|simulator)\b", re.MULTILINE)
    sources = [
        *FILES.values(),
        *(ROOT / "tests").rglob("*.py"),
        *(ROOT / "benchmarks").glob("*.py"),
    ]
    offenders = [str(p.relative_to(ROOT)) for p in sources if bare.search(p.read_text())]
    assert offenders == []


@pytest.mark.parametrize("module", ["tapesched.toolkit", "tapesched.solvers"])
def test_a_lower_layer_is_importable_without_the_ones_above(module):
    """Importing a layer loads nothing of the layers above it (the API is lazy)."""
    import subprocess
    import sys

    code = (
        f"import sys, {module}; print(sorted(m for m in sys.modules if m.startswith('tapesched')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = ast.literal_eval(out.stdout)
    assert loaded and all(layer(m) <= layer(module) or m == "tapesched" for m in loaded), loaded


def public_classes() -> dict[str, list[str]]:
    """Every public class defined at a module's top level: its name, and the modules defining it."""
    out: dict[str, list[str]] = defaultdict(list)
    for module, path in sorted(FILES.items()):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                out[node.name].append(module)
    return dict(out)


CLASSES = public_classes()


def test_the_class_reader_sees_the_packages():
    assert CLASSES["Instance"] == ["tapesched.toolkit.model"]
    assert CLASSES["Node"] == ["tapesched.solvers.exact.formulation"]
    assert "tapesched.simulator.kernel.engine" in {
        m for modules in CLASSES.values() for m in modules
    }
    assert "_Hints" not in CLASSES


def test_no_two_public_classes_share_a_name():
    shared = {name: modules for name, modules in CLASSES.items() if len(modules) > 1}
    assert shared == {}
