"""Shared fixtures (the spec's example and its hand-checked optimum); Hypothesis profiles.

Profiles: ``ci``, the default, draws the same examples on every run
(``derandomize``), so that ``make test`` judges a change and not the luck of
the draw; ``explore`` draws new random examples on every run (a thousand
where a test does not fix its count), to hunt for what the fixed ones miss
(``HYPOTHESIS_PROFILE=explore make test``); each case it finds is then pinned
as an explicit example.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from tapesched.toolkit.files.instance_file import load_instance
from tapesched.toolkit.model import (
    ArmOperation,
    Drive,
    Instance,
    Library,
    Piece,
    Request,
    Schedule,
    ScheduledRequest,
    Tape,
)

# The shared helpers' assertions show the values compared, as a test's do.
pytest.register_assert_rewrite("tests.builders")

settings.register_profile("ci", derandomize=True)
settings.register_profile("explore", derandomize=False, max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

ROOT = Path(__file__).resolve().parent.parent
INSTANCES = ROOT / "instances"

VERSION_1 = frozenset(
    p.name.removesuffix(".json")
    for p in INSTANCES.glob("*.json")
    if p.read_text().lstrip().startswith('{\n "format": "tapesched.instance/1"')
)
"""Shipped instances of format version 1, with no starting state: the MILP backends and
the tests' own enumerator do not model the state of version 2 (the instances that have
one are tested in tests/solvers/test_start_state.py)."""

# Hand-worked optima of the shipped instances under the two other objectives
# (instances/README.md has the schedules): one-drive-two-tapes ends at 56
# whichever tape goes first; offset-order reads near then far, ending at 21
# with flows 10 and 21; prefetch ends at 110 with flow 10; the gangs end at
# 30 (one arm) and 20 (two arms), their only request released at 0.
OTHER_OBJECTIVES: dict[tuple[str, str], float] = {
    ("one-drive-two-tapes", "makespan"): 56.0,
    ("one-drive-two-tapes", "max-weighted-flow"): 56.0,
    ("offset-order", "makespan"): 21.0,
    ("offset-order", "max-weighted-flow"): 21.0,
    ("prefetch", "makespan"): 110.0,
    ("prefetch", "max-weighted-flow"): 10.0,
    ("gang-one-arm", "weighted-flow"): 30.0,
    ("gang-one-arm", "max-weighted-flow"): 30.0,
    ("gang-two-arms", "weighted-flow"): 20.0,
    ("gang-two-arms", "max-weighted-flow"): 20.0,
}


@pytest.fixture
def spec_instance() -> Instance:
    """The example of docs/core-problem.md, as shipped in instances/."""
    return load_instance(INSTANCES / "spec-example.json")


@pytest.fixture
def spec_optimum() -> Schedule:
    """The optimum the spec describes: 19.17667 under weighted flow.

    r2 on d0 at 12 s (locate 120000 MB at 10000 MB/s); T1 mounted into d1 at
    0-10 s and loaded by 25 s, located to 50000 MB by 30 s; r3 on d1 and d0 at
    30 s (d0 located back from 121000 MB to 0 by 27.43 s); r1 on d1 after
    locating back from 51000 MB to 0 (5.1 s).
    """
    r3_end = 30 + 1000 / 300
    r1_start = r3_end + 51000 / 10000
    return Schedule(
        requests=(
            ScheduledRequest("r1", ("d1",), r1_start, r1_start + 10000 / 300),
            ScheduledRequest("r2", ("d0",), 12.0, 12 + 1000 / 300),
            ScheduledRequest("r3", ("d1", "d0"), 30.0, r3_end),
        ),
        operations=(ArmOperation("mount", "T1", "d1", 0.0, 10.0, "L0"),),
        instance="two-drives-three-reads",
    )


def two_empty_drives(arms: int = 1) -> Instance:
    """Two empty drives, two tapes, one read per tape; round numbers for hand checks.

    Drives stream 100 MB/s, load 5 s, unload 7 s, locate 1000 MB/s; arms take
    10 s to mount and 8 s to dismount.
    """
    return Instance(
        name=f"two-empty-drives-{arms}-arms",
        libraries=(Library("L0", arms, 10, 8),),
        drives=tuple(Drive(f"d{i}", "L0", 100, 5, 7, 1000) for i in range(2)),
        tapes=(Tape("T1", "L0", 100000), Tape("T2", "L0", 100000)),
        requests=(
            Request("a", 0, 1.0, "read", (Piece("T1", 0, 1000),)),
            Request("b", 0, 1.0, "read", (Piece("T2", 2000, 500),)),
        ),
    )


@pytest.fixture
def empty_pair() -> Instance:
    """:func:`two_empty_drives` with one arm."""
    return two_empty_drives(1)


def dist_info(root: Path, package: str, group: str, entries: dict[str, str]) -> Path:
    """An installed package's metadata under ``root``, declaring ``entries`` in ``group``.

    With ``root`` on ``sys.path``, :mod:`importlib.metadata` finds the package
    (version 1.0) and its entry points, as it finds an installed one.
    """
    info = root / f"{package.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: 1.0\n")
    lines = [f"[{group}]", *(f"{name} = {value}" for name, value in entries.items())]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    return info


@pytest.fixture
def plug_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[[str, str], Path]]:
    """Writes a module of plug-ins, ``(name, source)``, importable by that name until the test
    ends (then forgotten by :data:`sys.modules`); returns the folder, where :func:`dist_info`
    may declare its entry points."""
    written: list[str] = []

    def write(name: str, source: str) -> Path:
        (tmp_path / f"{name}.py").write_text(source)
        written.append(name)
        sys.modules.pop(name, None)
        return tmp_path

    monkeypatch.syspath_prepend(str(tmp_path))
    yield write
    for name in written:
        sys.modules.pop(name, None)


class _NoPoolHere:
    """A process pool where ``make test`` forbids one: in an xdist worker (2 on 2 cores)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        raise RuntimeError(
            "a process pool inside an xdist worker: mark the test `pool` "
            "(make test runs those after the others, in one process)"
        )


@pytest.fixture(scope="session", autouse=True)
def no_process_pool_in_an_xdist_worker() -> Iterator[None]:
    """In an xdist worker, a sweep that would start worker processes fails its test instead:
    a pool there would run 4 processes on 2 cores. Tests marked ``pool`` run outside xdist."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        yield
        return
    from tapesched.studies.sweeps import sweep

    kept = sweep.ProcessPoolExecutor
    sweep.ProcessPoolExecutor = _NoPoolHere  # type: ignore[misc, assignment]
    try:
        yield
    finally:
        sweep.ProcessPoolExecutor = kept  # type: ignore[misc]


def redraws(results: Path, out: Path) -> str:
    """``tapesched plot results RESULTS --out OUT`` exits 0 and writes a PNG; its stdout.

    The acceptance of the redraw (every experiment's quick ``results.csv`` draws again),
    asserted where a test already has an experiment's directory."""
    from click.testing import CliRunner

    from tapesched.cli import main

    result = CliRunner().invoke(main, ["plot", "results", str(results), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_bytes().startswith(b"\x89PNG")
    return result.stdout
