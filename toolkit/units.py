"""Reading rates and durations written as people write them: ``65/h``, ``30d``.

Shared by the command line (``--rate``, ``--duration``) and the scenario
files, so that a value reads the same everywhere.
"""

from __future__ import annotations

import math
import re

_RATE_UNITS_S = {"s": 1.0, "min": 60.0, "h": 3600.0, "d": 86400.0}
_DURATION_UNITS_S = {"s": 1.0, "min": 60.0, "h": 3600.0, "d": 86400.0, "w": 604800.0}
_DURATION = re.compile(r"\s*([+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?)\s*([a-z]*)\s*")


def parse_duration(text: str) -> float:
    """Seconds in a duration such as ``"90"`` (seconds), ``"45s"``, ``"30min"``, ``"12h"``,
    ``"30d"`` or ``"2w"``.

    Raises
    ------
    ValueError
        When ``text`` is not a number followed by one of ``s, min, h, d, w``
        (or by nothing), or is not a positive finite duration.
    """
    match = _DURATION.fullmatch(text)
    if match is None:
        raise ValueError(f"{text!r} is not a duration such as 90, 45s, 30min, 12h, 30d or 2w")
    number, unit = match.groups()
    if unit and unit not in _DURATION_UNITS_S:
        raise ValueError(f"{text!r}: unknown unit {unit!r}; use s, min, h, d or w")
    try:
        seconds = float(number) * _DURATION_UNITS_S[unit or "s"]
    except ValueError:
        raise ValueError(
            f"{text!r} is not a duration such as 90, 45s, 30min, 12h, 30d or 2w"
        ) from None
    if not 0 < seconds < math.inf:
        raise ValueError(f"{text!r} must be a positive finite duration")
    return seconds


def parse_rate(text: str) -> float:
    """Requests per second in a rate such as ``"0.005"`` (per second), ``"0.3/min"``,
    ``"65/h"`` or ``"2/d"``.

    Raises
    ------
    ValueError
        When ``text`` is not a number optionally followed by ``/s``,
        ``/min``, ``/h`` or ``/d``, or is not a positive finite rate.
    """
    count, _, unit = text.partition("/")
    try:
        rate = float(count) / _RATE_UNITS_S[unit.strip() or "s"]
    except (ValueError, KeyError):
        raise ValueError(f"{text!r} is not a rate such as 0.005, 0.3/min or 65/h") from None
    if not 0 < rate < math.inf:
        raise ValueError(f"{text!r} must be a positive finite rate")
    return rate
