"""The technology table as one document: what ``tapesched catalogue`` prints.

:func:`catalogue_document` gathers every drive, library and tape format of
:mod:`toolkit.hardware.technology` with its figures and their sources, and
names, per row, the figures whose source is an estimate (a source starting
with ``estimate``), so that a reader can tell a vendor's figure from ours.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tapesched.toolkit.hardware.technology import (
    DRIVE_FIGURES,
    DRIVES,
    LIBRARIES,
    LIBRARY_FIGURES,
    TAPE_FORMAT_FIGURES,
    TAPE_FORMATS,
    is_estimate,
)


def _row(name: str, label: str, figures: Mapping[str, Any], sources: Mapping[str, str]) -> dict:
    """One row: its figures, their sources, and the figures that are estimates."""
    return {
        "name": name,
        "label": label,
        **figures,
        "sources": dict(sources),
        "estimates": [f for f in figures if f in sources and is_estimate(sources[f])],
    }


def catalogue_document() -> dict[str, Any]:
    """Every drive, library and tape format of the technology table, each figure with its
    source: ``{"drives": [...], "libraries": [...], "tape_formats": [...]}``.

    A drive row holds ``name``, ``label``, the figures of
    :data:`~toolkit.hardware.technology.DRIVE_FIGURES`, ``sources`` (figure
    to source) and ``estimates`` (the figures whose source is an estimate); a
    library row the same with every figure of
    :data:`~toolkit.hardware.technology.LIBRARY_FIGURES` (``null`` where the
    table gives none, and then no source) and ``default_drive``, the name of
    its default drive; a tape format row its
    :data:`~toolkit.hardware.technology.TAPE_FORMAT_FIGURES`.
    """
    drives = [
        _row(d.name, d.label, {f: getattr(d, f) for f in DRIVE_FIGURES}, d.sources)
        for d in DRIVES.values()
    ]
    libraries = [
        {
            **_row(lib.name, lib.label, {f: getattr(lib, f) for f in LIBRARY_FIGURES}, lib.sources),
            "default_drive": lib.drive.name,
        }
        for lib in LIBRARIES.values()
    ]
    formats = [
        _row(t.name, t.label, {f: getattr(t, f) for f in TAPE_FORMAT_FIGURES}, t.sources)
        for t in TAPE_FORMATS.values()
    ]
    return {
        "drives": drives,
        "libraries": libraries,
        "tape_formats": formats,
    }
