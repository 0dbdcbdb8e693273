"""The README is the front door: short, its quick start runs as written, its links lead somewhere.

The quick start's commands are read from the README (the block after ``<!-- example: quick
start -->``) and run in turn, in this process, from a directory that sees the repository's
``instances/`` as a user's checkout does; each must end with exit 0 and write what it says.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from tapesched.cli import main
from tests.conftest import ROOT
from tests.docs.documents import doc_block

README = ROOT / "README.md"

MOST_LINES = 250
"""The README's length at most: what, for whom, set-up, quick start, questions, map, links."""


def test_the_readme_is_a_front_door_of_at_most_250_lines():
    text = README.read_text(encoding="utf-8")
    assert text.count("\n") <= MOST_LINES
    sections = re.findall(r"^## (.+)$", text, re.MULTILINE)
    assert sections[:3] == ["Set-up", "Quick start", "Which command answers which question"]


def test_every_relative_link_of_the_readme_leads_to_a_file():
    """The pages' links are checked by the strict site build (tests/docs/test_docs.py); the README
    is not part of the site."""
    text = README.read_text(encoding="utf-8")
    broken = [
        target
        for target in re.findall(r"\]\(([^)\s]+)\)", text)
        if not re.match(r"^[a-z]+://", target) and not (ROOT / target.partition("#")[0]).exists()
    ]
    assert broken == []


@pytest.mark.paper  # 22 s of make test's 6 minutes: its commands end in a quick experiment
def test_the_quick_start_runs_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    (tmp_path / "instances").symlink_to(ROOT / "instances")
    monkeypatch.chdir(tmp_path)
    commands = [shlex.split(line) for line in doc_block("quick start").splitlines() if line]
    assert len(commands) == 10 and all(c[0] == "tapesched" for c in commands)
    for command in commands:
        result = CliRunner().invoke(main, command[1:])
        assert result.exit_code == 0, (command, result.output[-2000:])
    written = {p.name for p in (tmp_path / "out").iterdir()}
    assert {"spec.cpsat.json", "spec.png", "sim-ampex", "defer"} <= written
    assert (tmp_path / "out" / "defer" / "results.csv").read_text().startswith("experiment,")
