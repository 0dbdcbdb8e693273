"""MkDocs hooks for the API reference: the package as it installs, and Sphinx roles dropped.

setup.cfg maps folders of the repository to subpackages of ``tapesched`` (``toolkit/`` is
``tapesched.toolkit``, ...). mkdocstrings reads source files by their import path and cannot
follow that mapping, so before the build this hook makes ``build/api-src/tapesched``: a tree
of links to the very folders setup.cfg names, which the ``paths`` of mkdocstrings in
mkdocs.yml point at. Nothing is copied and nothing is imported.

The docstrings cross-reference in Sphinx's way (``:func:`solve```), which mkdocstrings
leaves as text before the code; the page keeps the code and drops the role.
"""

from __future__ import annotations

import configparser
import re
import shutil
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
TREE = ROOT / "build" / "api-src"


def on_startup(**_: Any) -> None:
    setup = configparser.ConfigParser()
    setup.read(ROOT / "setup.cfg", encoding="utf-8")
    mapping = dict(
        line.split("=") for line in setup["options"]["package_dir"].split("\n") if "=" in line
    )
    shutil.rmtree(TREE, ignore_errors=True)
    package = TREE / "tapesched"
    package.mkdir(parents=True)
    for name, folder in sorted((k.strip(), v.strip()) for k, v in mapping.items()):
        if name == "tapesched":
            for entry in (ROOT / folder).iterdir():
                if entry.name != "__pycache__":
                    (package / entry.name).symlink_to(entry)
        else:
            (package / name.removeprefix("tapesched.")).symlink_to(ROOT / folder)


ROLE = re.compile(r":(?:func|meth|class|mod|data|attr|exc|obj):(?=<code>)")


def on_page_content(html: str, **_: Any) -> str:
    return ROLE.sub("", html)
