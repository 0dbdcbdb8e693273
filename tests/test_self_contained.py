"""The repository stands alone: nothing in it points at files outside it."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

OUTSIDE = re.compile(r"\.\./shared\b|\bshared[/](?:spec|traces|seeds|reference)\b")
"""A path into the reading material that lay beside the repository when it was started."""

CHECKED = (
    "tapesched",
    "toolkit",
    "solvers",
    "simulator",
    "tests",
    "benchmarks",
    "instances",
    "docs",
    ".ci",
)
SUFFIXES = {".py", ".md", ".json", ".cfg", ".toml", ".txt", ""}


def project_files() -> list[Path]:
    files = [ROOT / "README.md", ROOT / "Makefile", ROOT / "setup.cfg", ROOT / "pyproject.toml"]
    for folder in CHECKED:
        files.extend(p for p in (ROOT / folder).rglob("*") if p.is_file() and p.suffix in SUFFIXES)
    return [p for p in files if "__pycache__" not in p.parts]


def test_no_file_points_outside_the_repository():
    hits = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in project_files()
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), start=1)
        if OUTSIDE.search(line) and path != Path(__file__).resolve()
    ]
    assert hits == []


def test_the_contract_and_the_ecmwf_data_are_in_the_repository():
    contract = (ROOT / "docs" / "core-problem.md").read_text()
    assert "# The core problem: scheduling tape requests onto drives" in contract
    ecmwf = ROOT / "instances" / "traces" / "ecmwf"
    names = {p.name for p in ecmwf.iterdir()}
    assert {
        "README.md",
        "crtmapping.json",
        "io_events_sample_10k.csv.bz2",
        "requests_10k.csv.bz2",
        "sl8500_from_snap20111001.json.bz2",
    } <= names
    # 270 kB of the SC16 simulator's files, and the sample again as a request log (52 kB)
    assert sum((ecmwf / n).stat().st_size for n in names) < 350_000
