"""The set-up commands: ``make`` checks the Python version before anything else."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _make(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "--no-print-directory", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("goal", ["run", "test", "bench", "venv"])
def test_an_old_python_is_refused_in_one_line_before_anything_runs(tmp_path, goal):
    old = tmp_path / "python3.9"
    old.write_text('#!/bin/sh\n[ "$1" = --version ] && echo "Python 3.9.18" && exit 0\nexit 1\n')
    old.chmod(0o755)
    done = _make(goal, f"PYTHON={old}")
    assert done.returncode != 0
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "tapesched needs Python >= 3.11" in lines[0]
    assert "Python 3.9.18" in lines[0]


def test_a_missing_python_is_named(tmp_path):
    done = _make("venv", f"PYTHON={tmp_path / 'nowhere' / 'python3'}")
    assert done.returncode != 0
    assert "is not found" in done.stderr.strip()


def test_clean_needs_no_python(tmp_path):
    done = _make("-n", "clean", f"PYTHON={tmp_path / 'nowhere' / 'python3'}")
    assert done.returncode == 0
    assert "rm -rf .venv" in done.stdout
