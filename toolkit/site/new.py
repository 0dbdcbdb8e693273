"""A site built from a few figures (``tapesched site new``): one library, its drives, its
tapes, every other figure from the technology table."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from tapesched.toolkit.errors import SettingProblem, SettingsError, shown
from tapesched.toolkit.hardware.technology import DRIVES, LIBRARIES
from tapesched.toolkit.model import SITE_FORMAT
from tapesched.toolkit.site.model import PATTERN_MARK, Site
from tapesched.toolkit.site.reader import default_arms, site_from_dict

SPARE_SLOTS = 0.25
"""Slots beyond the tapes a new site has when it is not told how many: 25 % more."""

PATTERN_DIGITS = 4
"""Fewest digits of a new pool's pattern (``L9####``: six characters, as a volser)."""

LIBRARY_ID = "lib0"
"""The id of a new site's library."""


def id_prefix(tape_format: str) -> str:
    """The start of the ids of a new pool of ``tape_format``: ``L9`` for ``LTO-9`` (the LTO
    media's own mark), else the format's letters and digits (``T10000D``)."""
    if tape_format.upper().startswith("LTO-"):
        return "L" + tape_format[4:]
    return "".join(c for c in tape_format if c.isalnum()).upper()


def default_slots(tapes: int) -> int:
    """Slots of a new site that holds ``tapes`` tapes: :data:`SPARE_SLOTS` more, rounded up."""
    return math.ceil(tapes * (1 + SPARE_SLOTS))


def _unknown(setting: str, value: str, table: dict[str, Any], what: str) -> SettingProblem:
    return SettingProblem((setting,), f"unknown {what} {shown(value)} (known: {', '.join(table)})")


def new_site(
    library: str,
    drives: Sequence[tuple[str, int]],
    tapes: Sequence[tuple[str, int]],
    *,
    arms: int | None = None,
    slots: int | None = None,
    name: str = "site",
) -> Site:
    """A site of one library ``library`` (a model of the technology table, id ``lib0``).

    Parameters
    ----------
    library
        A library of :data:`toolkit.hardware.technology.LIBRARIES`: its arms (one if it
        gives none) and arm times.
    drives
        ``(model, count)`` groups of drives, models of
        :data:`toolkit.hardware.technology.DRIVES`, ids ``lib0-d00``, ``lib0-d01``, ...
    tapes
        ``(format, count)``: a pool per format, named after it, its ids a pattern made from
        the format (``LTO-9``: ``L9####``, as many digits as the count needs, at least
        :data:`PATTERN_DIGITS`), each tape's home placed by the seeded hash.
    arms, slots
        ``None``: the library model's arms; :func:`default_slots` of the tapes.
    name
        The site's name.

    Raises
    ------
    toolkit.errors.SettingsError
        For an unknown model or format, a format given twice, a count below one, or fewer
        slots than tapes.
    """
    problems = []
    if library not in LIBRARIES:
        problems.append(_unknown("library", library, LIBRARIES, "library"))
    for setting, groups in (("drives", drives), ("tapes", tapes)):
        for model, count in groups:
            if model not in DRIVES:
                what = "drive" if setting == "drives" else "tape format (a drive)"
                problems.append(_unknown(setting, model, DRIVES, what))
            if count < 1:
                problems.append(SettingProblem((setting,), f"{model}: a count >= 1, got {count}"))
    formats = [f for f, _ in tapes]
    for twice in sorted({f for f in formats if formats.count(f) > 1}):
        problems.append(SettingProblem(("tapes",), f"format {shown(twice)} given twice"))
    total = sum(count for _, count in tapes)
    if slots is not None and slots < total:
        problems.append(SettingProblem(("slots",), f"{slots:,} slots for {total:,} tapes"))
    if problems:
        raise SettingsError(problems)
    pools = []
    for tape_format, count in tapes:
        digits = max(PATTERN_DIGITS, len(str(count - 1)))
        pattern = id_prefix(tape_format) + PATTERN_MARK * digits
        pools.append({"name": tape_format, "format": tape_format, "ids": pattern, "count": count})
    lib: dict[str, Any] = {"id": LIBRARY_ID, "model": library}
    if arms is not None and arms != default_arms(library):
        lib["arms"] = arms
    lib["slots"] = default_slots(total) if slots is None else slots
    lib["drives"] = [{"model": model, "count": count} for model, count in drives]
    document: dict[str, Any] = {
        "format": SITE_FORMAT,
        "name": name,
        "libraries": [lib],
        "pools": pools,
    }
    if not pools and drives:
        document["placement"] = {"unlisted_format": drives[0][0]}
    return site_from_dict(document, "<site new>")
