"""``import tapesched``: the public API, one import away, loaded only when used."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import tapesched
from tests.docs.documents import doc_block

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "instances" / "spec-example.json"


def test_the_api_solves_validates_and_measures_an_instance():
    instance = tapesched.load_instance(EXAMPLE)
    result = tapesched.solve(instance, solver="cpsat", time_limit_s=20, seed=1)
    assert result.status == tapesched.Status.OPTIMAL
    report = tapesched.validate(instance, result.schedule)
    assert report.feasible
    metrics = tapesched.compute_metrics(instance, result.schedule, report)
    assert report.objective == pytest.approx(result.objective)
    assert metrics.weighted_flow == pytest.approx(result.objective)
    assert metrics.requests == len(instance.requests)
    assert isinstance(result, tapesched.Result)


def test_every_public_name_resolves_and_is_listed():
    names = set(tapesched.__all__)
    assert "__version__" in names
    for name in names - {"__version__"}:
        assert getattr(tapesched, name) is not None, name
    assert names <= set(dir(tapesched))
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = tapesched.nope


def test_the_plug_points_are_protocols():
    for name in ("Scheduler", "PlatformState", "MountPolicy", "Eviction", "Orderer", "Policy"):
        assert getattr(getattr(tapesched, name), "_is_protocol", False), name


def test_importing_tapesched_loads_none_of_its_layers():
    code = (
        "import sys, tapesched; print(sorted(m for m in sys.modules if m.startswith('tapesched')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert ast.literal_eval(done.stdout) == ["tapesched"]


def test_python_dash_m_runs_the_command_line():
    done = subprocess.run(
        [sys.executable, "-m", "tapesched", "check", str(EXAMPLE)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ok: instance 'two-drives-three-reads'")
    done = subprocess.run(
        [sys.executable, "-m", "tapesched", "--version"], capture_output=True, text=True
    )
    assert done.stdout.strip().endswith(tapesched.__version__)


def test_the_readme_example_prints_what_it_says():
    code = doc_block("api")
    said = code.rsplit("# ", 1)[1].strip()
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == said
