"""The documentation site builds strictly, and its command-line reference is the commands'.

The site is built once for the module (MkDocs, ``--strict``, into a temporary directory):
the build fails on a broken link, a missing anchor or a page left out of the navigation.
The reference page is generated from the click commands, so it must name every command,
every experiment and every option that ``tapesched`` takes.
"""

from __future__ import annotations

import html
import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest

import tapesched
from tests.cli import every_command
from tests.conftest import ROOT


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def test_the_site_has_a_page_for_every_page_of_the_navigation(site):
    for page in ("guide/commands", "studies/blue-waters", "reference/cli", "reference/formulation"):
        assert (site / page / "index.html").is_file(), page


def test_the_command_line_reference_names_every_command_and_option(site):
    page = html.unescape(re.sub(r"<[^>]+>", "", (site / "reference/cli/index.html").read_text()))
    walked = list(every_command())
    assert len(walked) > 30  # the commands, plot's and generate's, and every experiment
    for path, command in walked:
        assert path in page, path
        for param in command.params:
            if isinstance(param, click.Option):
                assert any(o in page for o in param.opts), (path, param.opts)


def page_text(site: Path, page: str) -> str:
    """The words of a built page, tags stripped, whitespace collapsed."""
    text = re.sub(r"<script.*?</script>", "", (site / page / "index.html").read_text(), flags=re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", text)).split())


def test_the_api_reference_shows_every_public_name_with_its_docstring(site):
    """Every name of ``tapesched.__all__`` is on the page, generated from the docstring of
    the object that ``import tapesched`` gives (so a renamed or moved name fails here)."""
    page = page_text(site, "reference/api")
    public = [name for name in tapesched.__all__ if name != "__version__"]
    assert len(public) > 20
    for name in public:
        obj = getattr(tapesched, name)
        first = inspect.getdoc(obj).split("\n\n")[0]
        summary = re.sub(r"``?|:\w+:|\s", "", first)
        assert summary in re.sub(r"\s", "", page), (name, first)
