"""One import name: the wheel installs ``tapesched`` and nothing else at the top.

The folders ``toolkit/``, ``solvers/`` and ``simulator/`` at the top of the
repository install as ``tapesched.toolkit``, ``tapesched.solvers`` and
``tapesched.simulator`` (setup.cfg's ``package_dir``). The editable install of
the virtualenv is what every other test runs on; here the wheel is built and
run from where it unpacks, with the virtualenv's dependencies but without its
editable finder (``python -S``: no ``.pth`` file is read), as a
``pip install .`` into a fresh virtualenv would run it.
"""

from __future__ import annotations

import configparser
import os
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {"tapesched": "tapesched", "toolkit": "tapesched.toolkit"}
FOLDERS |= {"solvers": "tapesched.solvers", "simulator": "tapesched.simulator"}
FOLDERS |= {"instances": "tapesched.instances"}


def _declared() -> set[str]:
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    return set(config["options"]["packages"].split())


def _on_disk() -> set[str]:
    found = set()
    for folder, package in FOLDERS.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            parts = init.parent.relative_to(ROOT / folder).parts
            found.add(".".join([package, *parts]))
    return found


def test_setup_cfg_lists_every_package_and_no_other():
    assert _declared() == _on_disk()


@pytest.fixture(scope="module")
def unpacked(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    source = out / "source"  # a copy: a build writes build/ and *.egg-info beside its sources
    source.mkdir()
    for name in ("setup.cfg", "pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    for folder in FOLDERS:
        shutil.copytree(
            ROOT / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__")
        )
    pip = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check"]
    subprocess.run([*pip, "--quiet", "--wheel-dir", str(out), str(source)], check=True)
    (wheel,) = out.glob("tapesched-*.whl")
    target = out / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(target)
    return target


def _installed(unpacked: Path, *args: str) -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join([str(unpacked), *site.getsitepackages()])
    env = {**os.environ, "PYTHONPATH": path}
    command = [sys.executable, "-S", "-P", *args]
    return subprocess.run(command, env=env, cwd=unpacked, capture_output=True, text=True)


def test_the_wheel_has_one_top_level_name(unpacked):
    tops = {p.name for p in unpacked.iterdir() if not p.name.endswith(".dist-info")}
    assert tops == {"tapesched"}
    assert {p.name for p in (unpacked / "tapesched").iterdir() if p.is_dir()} >= {
        "toolkit",
        "solvers",
        "simulator",
        "cli",
    }


def test_the_installed_package_imports_and_nothing_generic_does(unpacked):
    code = (
        "import importlib.util, tapesched, tapesched.toolkit.model;"
        "print(tapesched.__version__, tapesched.toolkit.model.__file__);"
        "print([n for n in ('toolkit', 'solvers', 'simulator') if importlib.util.find_spec(n)])"
    )
    done = _installed(unpacked, "-c", code)
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()
    version, where = first.split()
    assert version == "0.1.0"
    assert Path(where).is_relative_to(unpacked)
    assert second == "[]"


def test_the_installed_command_line_runs(unpacked):
    done = _installed(unpacked, "-m", "tapesched", "--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Usage: tapesched ")
    assert "experiment" in done.stdout
    done = _installed(
        unpacked, "-m", "tapesched", "check", str(ROOT / "instances" / "spec-example.json")
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ok: instance")


def test_the_wheel_carries_the_data_the_commands_read_by_default(unpacked):
    shipped = unpacked / "tapesched" / "instances"
    for name in (
        "spec-example.json",
        "scenarios/blue-waters.json",
        "scenarios/golubchik/ampex.json",
        "plan/sdsc-1998.json",
        "recall/lto7-files.json",
        "traces/ecmwf/io_events_sample_10k.csv.bz2",
        "traces/ecmwf/sl8500_from_snap20111001.json.bz2",
        "traces/ecmwf/crtmapping.json",
        "traces/ecmwf/README.md",
    ):
        assert (shipped / name).is_file(), name
    code = (
        "from tapesched.studies.sweeps.study import SCENARIO_FILE;"
        "from tapesched.studies.golubchik.figures import SCENARIO_FILE as AMPEX;"
        "from tapesched.studies.dismount_delay.study import TRACE_DIR;"
        "print(SCENARIO_FILE, AMPEX, TRACE_DIR, sep='\\n')"
    )
    done = _installed(unpacked, "-c", code)
    assert done.returncode == 0, done.stderr
    for line in done.stdout.splitlines():
        assert Path(line).exists() and Path(line).is_relative_to(shipped), line


@pytest.mark.paper  # 17 s: a quick experiment from the installed wheel
def test_an_installed_experiment_runs_on_its_shipped_trace_from_anywhere(unpacked, tmp_path):
    """The ECMWF study reads its trace, layout and map from the installed package, run from a
    directory that has no instances/ beside it."""
    out = tmp_path / "defer"
    path = os.pathsep.join([str(unpacked), *site.getsitepackages()])
    experiment = ["experiment", "ecmwf-defer-dismount", "--quick", "--out", str(out)]
    done = subprocess.run(
        [sys.executable, "-S", "-P", "-m", "tapesched", *experiment],
        env={**os.environ, "PYTHONPATH": path},
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert sorted(p.name for p in out.iterdir()) == ["figure.png", "results.csv", "summary.json"]
