"""Figures drawn with matplotlib, rendered the same way, byte for byte, from the same input.

Every figure of the project (the Gantt chart of :mod:`toolkit.plots.gantt`, an
experiment's figure of :mod:`tapesched.studies.sweeps.report`) is a
:class:`matplotlib.figure.Figure` on the Agg canvas, made by
:func:`new_figure` without pyplot, so no global figure state and no GUI
backend is involved whatever ``MPLBACKEND`` says. :func:`render` turns it
into the bytes of a PNG or an SVG file; the format comes from the output's
suffix (:func:`format_of`).

Same input, same bytes: a PNG from Agg depends only on the figure; an SVG
carries no date (``metadata={"Date": None}``), and its element ids are
drawn from a fixed salt (``svg.hashsalt``) instead of a random one. Text in
an SVG is kept as text (``svg.fonttype = "none"``), so that labels can be
searched and read by a program, and the file stays small.

matplotlib is imported when the first figure is made, not with this module: a command
that may draw (every experiment) starts without it, and one that draws nothing never
loads it.
"""

from __future__ import annotations

import io
from pathlib import PurePath
from typing import TYPE_CHECKING

from tapesched.toolkit.errors import InputError, Problem

if TYPE_CHECKING:
    from matplotlib.figure import Figure

FORMATS: tuple[str, ...] = ("png", "svg")
"""The picture formats written, named by the output file's suffix."""

DPI = 110
"""Dots per inch of a PNG (an experiment's figure has always been drawn at 110)."""

SVG_HASH_SALT = "tapesched"
"""The fixed salt of an SVG's element ids, in place of matplotlib's random one."""


def format_of(path: str, option: str = "--out") -> str:
    """The format of the picture file ``path``, from its suffix (``.png`` or ``.svg``).

    Raises
    ------
    InputError
        One problem, ``OPTION: PATH: ...``, when the suffix names no format of
        :data:`FORMATS`; checked before any work starts.
    """
    suffix = PurePath(path).suffix.lower().lstrip(".")
    if suffix in FORMATS:
        return suffix
    given = f"suffix '.{suffix}'" if suffix else "no suffix"
    wanted = " or ".join(f".{f}" for f in FORMATS)
    raise InputError(option, [Problem(path, f"{given}: the picture's format is {wanted}")])


def new_figure(width_in: float, height_in: float) -> Figure:
    """An empty figure of that size (inches) on the Agg canvas, laid out by matplotlib."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width_in, height_in), layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def render(figure: Figure, fmt: str) -> bytes:
    """The bytes of ``figure`` as a ``png`` or ``svg`` file, the same for the same figure."""
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, got {fmt!r}")
    from matplotlib import rc_context

    buffer = io.BytesIO()
    metadata = {"Date": None} if fmt == "svg" else None
    with rc_context({"svg.hashsalt": SVG_HASH_SALT, "svg.fonttype": "none"}):
        figure.savefig(buffer, format=fmt, dpi=DPI, metadata=metadata)
    return buffer.getvalue()
