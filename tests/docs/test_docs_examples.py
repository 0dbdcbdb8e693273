"""Every command and Python example of the documentation runs as the page shows it.

A page's blocks run in order, in one fresh directory where ``instances/`` is the
repository's, so that a later block may read what an earlier one wrote:

- a ``sh`` block is commands, one per line (a line ending in ``\\`` goes on), each
  ``tapesched ...``, run through the command line in this process: each must exit 0;
- a ``console`` block is a transcript: its ``$ tapesched ...`` lines run the same way
  (``> FILE`` at the end of one writes its standard output there), the rest is what they
  printed;
- a ``python`` block runs as a script there; one marked ``<!-- save: NAME.py -->`` is
  saved as ``NAME.py`` first, as the page asks the reader to, for the blocks after;
- a block marked ``<!-- example: NAME -->`` is left to its own test, which asserts on more
  than an exit code (a test below asks that there be one); one marked ``NAME.py`` is a
  module the page asks the reader to save, and is saved as ``NAME.py`` for the blocks after;
- any other block (``text``, ``json``, ``toml`` ...) is shown, not run; a command is shown
  in one only with the reason why it is not run (``<!-- not run: why -->``: the lines a bad
  input prints, whose own tests are in ``tests/cli/hostile``).

The pages' runs are ``paper`` tests (``make test-papers``, which CI runs beside ``make
test``): the guides simulate and solve on the shipped instances, a minute or so in all,
and the study pages run their experiments' quick runs (``pool`` tests too, as the
experiments start worker processes). ``make test`` keeps the checks below the runs, which
read the pages only.
"""

from __future__ import annotations

import re
import runpy
import shlex
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tapesched.cli import main
from tapesched.studies.registry import EXPERIMENTS
from tests.conftest import ROOT
from tests.docs.documents import DOCS, DOCUMENTS, Block, blocks

RUN = {"sh", "console", "python"}
STUDIES = DOCS / "studies"


def commands(block: Block) -> list[list[str]]:
    """The command lines of a ``sh`` or ``console`` block, split as a shell would."""
    text = block.text.replace("\\\n", " ")
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if block.language == "console":
        lines = [line[2:] for line in lines if line.startswith("$ ")]
    return [shlex.split(line, comments=True) for line in lines]


def pages_with_examples() -> list:
    pages = []
    for page in sorted(DOCS.rglob("*.md")):
        if not any(b.language in RUN for b in blocks(page.read_text(encoding="utf-8"))):
            continue
        name = str(page.relative_to(DOCS))
        slow = [pytest.mark.paper, pytest.mark.pool] if page.is_relative_to(STUDIES) else []
        pages.append(pytest.param(page, id=name, marks=slow))
    return pages


@pytest.mark.paper
@pytest.mark.parametrize("page", pages_with_examples())
def test_the_page_s_examples_run_as_shown(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "instances").symlink_to(ROOT / "instances")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    before = set(sys.modules)
    try:
        for block in blocks(page.read_text(encoding="utf-8")):
            where = f"{page.relative_to(ROOT)}:{block.line}"
            if block.marker:
                if block.marker.endswith(".py"):
                    (tmp_path / block.marker).write_text(block.text)
            elif block.language == "python":
                script = tmp_path / (block.save_as or f"block_{block.line}.py")
                script.write_text(block.text)
                runpy.run_path(str(script), run_name="__main__")
            elif block.language in ("sh", "console"):
                lines = commands(block)
                assert lines, f"{where}: a {block.language} block without a command"
                for line in lines:
                    assert line[0] == "tapesched", f"{where}: {shlex.join(line)}"
                    line, into = (line[:-2], line[-1]) if line[-2:-1] == [">"] else (line, None)
                    result = CliRunner().invoke(main, line[1:], catch_exceptions=False)
                    assert result.exit_code == 0, (where, line, result.output[-2000:])
                    if into:
                        Path(into).write_text(result.stdout)
    finally:
        for name in set(sys.modules) - before:
            module = sys.modules[name]
            if str(getattr(module, "__file__", "") or "").startswith(str(tmp_path)):
                del sys.modules[name]


def test_no_command_hides_in_a_block_that_does_not_run():
    """A block that shows a ``tapesched`` command is ``sh`` or ``console``, so it runs, or
    says why not; and no command hides in an indented block, which has no language."""
    hidden = [
        f"{page.relative_to(ROOT)}:{block.line}"
        for page in DOCUMENTS
        for block in blocks(page.read_text(encoding="utf-8"))
        if block.language not in RUN
        and not block.not_run
        and re.search(r"^(\$ )?tapesched ", block.text, re.MULTILINE)
    ]
    assert hidden == []
    indented = [
        f"{page.relative_to(ROOT)}: {found.group(0).strip()}"
        for page in DOCUMENTS
        for found in re.finditer(
            r"^ {4,}(\$ )?tapesched .*$",
            re.sub(r"^( *)```.*?^\1```", "", page.read_text(encoding="utf-8"), flags=re.M | re.S),
            re.MULTILINE,
        )
    ]
    assert indented == []


def test_every_marked_example_is_run_by_a_test():
    """A marked block is left to its own test: some test must ask for it by name."""
    tests = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").rglob("*.py"))
    marked = {
        block.marker
        for page in DOCUMENTS
        for block in blocks(page.read_text(encoding="utf-8"))
        if block.marker
    }
    assert marked and {m for m in marked if f'doc_block("{m}")' not in tests} == set()


def test_a_sh_block_is_read_as_its_commands():
    block = Block("sh", "tapesched a 'b c' \\\n  --d e\n\ntapesched f\n", 1, None)
    assert commands(block) == [["tapesched", "a", "b c", "--d", "e"], ["tapesched", "f"]]
    transcript = Block("console", "$ tapesched plan x\nplan: 3 drives\n", 1, None)
    assert commands(transcript) == [["tapesched", "plan", "x"]]


def test_every_experiment_s_quick_run_is_drawn_again_on_its_study_page():
    """The study pages' runs (make test-papers) are the check that ``plot results`` redraws
    the quick ``results.csv`` of every experiment, exit 0: each experiment's quick run is on
    a page, followed by ``plot results`` of what it wrote."""
    lines = [
        line
        for page in sorted(STUDIES.glob("*.md"))
        for block in blocks(page.read_text(encoding="utf-8"))
        if block.language in ("sh", "console")
        for line in commands(block)
    ]
    redrawn = {line[3] for line in lines if line[1:3] == ["plot", "results"]}
    quick_out = {
        line[2]: line[line.index("--out") + 1]
        for line in lines
        if line[1] == "experiment" and "--quick" in line and "--out" in line
    }
    assert set(EXPERIMENTS.names()) <= set(quick_out)
    assert {name for name, out in quick_out.items() if f"{out}/results.csv" not in redrawn} == set()
