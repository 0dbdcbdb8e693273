"""The README and the documentation's pages, read as the tests need them: their fenced
blocks, and the blocks marked ``<!-- example: NAME -->`` that a test runs by name."""

from __future__ import annotations

import re
from collections.abc import Iterator

from attrs import frozen

from tests.conftest import ROOT

README = ROOT / "README.md"
DOCS = ROOT / "docs"
DOCUMENTS = (README, *sorted(DOCS.rglob("*.md")))
"""The README and the documentation's pages, where examples are marked."""

MARKER = re.compile(r"<!-- example: (.+?) -->")
SAVE = re.compile(r"<!-- save: (\S+\.py) -->")
NOT_RUN = re.compile(r"<!-- not run: (.+?) -->")
FENCE = re.compile(r"^( *)(```+)([\w-]*)[^\n]*$")


@frozen
class Block:
    """One fenced block of a page: its language (``""`` when none), its text with the
    fence's indentation removed, the line it opens on, the example marker on the
    line just above it, if any, the file name the page asks to save it as
    (``<!-- save: NAME.py -->``), if any, and why it is not run (``<!-- not run: why
    -->``), if it is not."""

    language: str
    text: str
    line: int
    marker: str | None
    save_as: str | None = None
    not_run: str | None = None


def blocks(text: str) -> Iterator[Block]:
    """The fenced blocks of a Markdown text, in order."""
    lines = text.splitlines()
    at = 0
    while at < len(lines):
        opening = FENCE.match(lines[at])
        if not opening:
            at += 1
            continue
        indent, fence, language = opening.groups()
        above = [line for line in lines[max(0, at - 3) : at] if line.strip()]
        marked = MARKER.search(above[-1]) if above else None
        saved = SAVE.search(above[-1]) if above else None
        left = NOT_RUN.search(above[-1]) if above else None
        end = at + 1
        while end < len(lines) and lines[end].strip() != fence:
            end += 1
        body = [
            line[len(indent) :] if line.startswith(indent) else line for line in lines[at + 1 : end]
        ]
        yield Block(
            language,
            "\n".join(body) + "\n",
            at + 1,
            marked.group(1) if marked else None,
            saved.group(1) if saved else None,
            left.group(1) if left else None,
        )
        at = end + 1


def doc_block(marker: str) -> str:
    """The fenced code block that follows ``<!-- example: marker -->`` in the README or a page
    of the documentation (exactly one of them has it)."""
    (found,) = (
        block.text
        for page in DOCUMENTS
        for block in blocks(page.read_text(encoding="utf-8"))
        if block.marker == marker
    )
    return found
