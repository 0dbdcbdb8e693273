"""The guides by question and the study pages keep their shape, and their code blocks the
convention that lets them run.

The guides (``docs/guides/``) each answer one question of a storage engineer: the commands,
what to read in their output, a worked example, the pitfalls, links on. Each study page
(``docs/studies/``) opens with a box: the paper's claim beside our figure and the commands
that redraw it. A fenced ``sh`` block holds commands a reader pastes as they are, one
``tapesched ...`` a line, no prompt, comment, pipe or redirection; the guides' run in
seconds (no experiment but a plug-in's), and no page runs an experiment's full run. The
pages' blocks are run by another test; these checks read text only.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT

DOCS = ROOT / "docs"
GUIDES = sorted((DOCS / "guides").glob("*.md"))
STUDIES = sorted((DOCS / "studies").glob("*.md"))
PAGES = sorted(DOCS.rglob("*.md"))
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


def sh_lines(page: Path) -> list[str]:
    """The command lines of the page's ``sh`` blocks, in order."""
    text = page.read_text(encoding="utf-8")
    return [
        line
        for language, body in FENCE.findall(text)
        if language == "sh"
        for line in body.splitlines()
        if line.strip()
    ]


def name(page: Path) -> str:
    return str(page.relative_to(DOCS))


def test_the_navigation_puts_the_guides_by_question_first():
    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["nav"]
    (title, pages), *_ = (next(iter(item.items())) for item in nav[1:2])
    assert title == "Guides by question"
    listed = {next(iter(p.values())) for p in pages}
    assert listed == {f"guides/{g.name}" for g in GUIDES}
    assert len(GUIDES) == 9
    assert all(next(iter(p)).endswith("?") for p in pages[:-1])  # each a question


@pytest.mark.parametrize("page", GUIDES, ids=name)
def test_a_guide_asks_its_question_and_answers_it_with_commands(page):
    text = page.read_text(encoding="utf-8")
    title = text.splitlines()[0]
    assert title.startswith("# ") and title.endswith("?"), title
    sections = re.findall(r"^## (.+)$", text, re.MULTILINE)
    assert {"Pitfalls", "Read more"} <= set(sections), sections
    assert any(language in ("sh", "python") for language, _ in FENCE.findall(text))
    read_more = text[text.index("## Read more") :]
    assert re.search(r"\]\(\.\./(guide|studies)/", read_more), "no link to a detailed page"


@pytest.mark.parametrize("page", PAGES, ids=name)
def test_sh_blocks_hold_only_commands_to_paste(page):
    for line in sh_lines(page):
        assert line.startswith("tapesched "), line
        assert not re.search(r"[|<>;#&`$]", line), line
        words = shlex.split(line)
        if words[1] == "experiment" and not {"--list", "--help"} & set(words):
            assert "--quick" in words, f"{name(page)}: a full run in an sh block: {line}"


@pytest.mark.parametrize("page", [*GUIDES, *sorted((DOCS / "guide").glob("*.md"))], ids=name)
def test_a_guide_runs_no_experiment_of_the_project(page):
    for line in sh_lines(page):
        words = shlex.split(line)
        if words[1] == "experiment":
            assert ":" in words[2], f"{name(page)}: {line}"  # a plug-in's, as module:Class


@pytest.mark.parametrize("page", STUDIES, ids=name)
def test_a_study_page_opens_with_the_paper_beside_our_figure(page):
    text = page.read_text(encoding="utf-8")
    title, blank, box = text.splitlines()[:3]
    assert title.startswith("# ") and blank == ""
    assert box.startswith('!!! abstract "At a glance')
    boxed = text[text.index(box) : text.index("\n```sh\n")]
    assert "**The paper" in boxed and "**Redraw**" in boxed
    assert re.search(r"^    \|.*\|$", boxed, re.MULTILINE), "no table of the paper's numbers"
    for image in re.findall(r"\]\((\.\./figures/[^)]+\.png)\)", boxed):
        assert (page.parent / image).resolve().is_file(), image
    if page.name != "sizing.md":  # plan prints a table; neither the paper nor we draw one
        assert "](../figures/" in boxed
    assert sh_lines(page), "no command that redraws it"
