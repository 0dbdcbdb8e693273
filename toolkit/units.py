"""Reading rates and durations written as people write them, and the limits of every magnitude.

Shared by the command line (``--rate``, ``--duration``, ``--time-limit``),
the scenario files and the instance files, so that a value reads the same
everywhere and the same bounds hold everywhere.

Spellings
---------
A duration is a number and a unit, with or without a space between them
(``90s``, ``2min``, ``1.5h``, ``30d``, ``4w``, ``"2 days"``, ``"3 hours"``).
The units, by their accepted spellings:

==========  ============================================
unit        spellings
==========  ============================================
second      ``s``, ``sec``, ``secs``, ``second``, ``seconds``
minute      ``min``, ``mins``, ``minute``, ``minutes``
hour        ``h``, ``hr``, ``hrs``, ``hour``, ``hours``
day         ``d``, ``day``, ``days``
week        ``w``, ``wk``, ``wks``, ``week``, ``weeks``
==========  ============================================

``m`` is refused (minutes or months?), and so are months and years, whose
length varies. A bare number is seconds where a reader allows it
(:func:`parse_duration`'s ``unit_required``): ``--time-limit 90`` does,
``--duration 90`` does not (a simulated span of 90 seconds is rarely what was
meant), nor does a scenario's ``"duration": "90"`` (a JSON number there,
``"duration": 90``, is seconds, as every time of the file).

A rate is a count per second, minute, hour or day, in the spellings above:
``65/h``, ``65/hour``, ``65 / hour``, ``0.3/min``, ``2/day``, or with ``per``
for ``/`` (``"65 per hour"``); a bare number is per second (``0.005``).
Weeks are not a unit of rates.

Limits
------
Every magnitude the toolkit reads is bounded, so that every time it derives
stays finite (no ``inf`` bound beside a finite objective) and every run
finishes: :data:`MAX_TIME_S`, :data:`MAX_SIMULATED_S`, :data:`MAX_SIZE_MB`,
:data:`MIN_RATE_MB_S` and :data:`MAX_RATE_MB_S`, :data:`MAX_WEIGHT`,
:data:`MAX_COUNT`, :data:`MAX_ARRIVALS`, :data:`MAX_REPLICATIONS` and
:data:`MAX_RATE_PER_YEAR`. The limits on the work and memory of a run (the
bytes of an input, the draws of an experiment) are :mod:`toolkit.runtime.limits`'.
"""

from __future__ import annotations

import math
import re

from tapesched.toolkit.errors import shown

MAX_TIME_S = 1e9
"""Longest time a file or an option may give, in seconds (about 31.7 years).

Bounds release times, arm and drive times (mount, dismount, load, unload,
pass-through, per-block cost) and ``--time-limit``.
"""

MAX_SIMULATED_S = 10 * 365 * 86400.0
"""Longest simulated span (``--duration``, a scenario's ``workload.duration``,
a trace's arrival times): 10 years of 365 days, 315,360,000 s."""

MAX_SIZE_MB = 1e9
"""Largest size, in MB (10^6 bytes): 10^15 bytes, a petabyte.

Bounds tape capacities, offsets, request and file sizes, block sizes and a
mover's memory and disk.
"""

MIN_RATE_MB_S = 1e-3
"""Slowest drive streaming or locate rate, in MB/s (1 kB/s): with sizes within
:data:`MAX_SIZE_MB`, no transfer or locate lasts more than 10^12 s."""

MAX_RATE_MB_S = 1e9
"""Fastest drive streaming or locate rate and mover bandwidth, in MB/s."""

MAX_WEIGHT = 1e9
"""Largest request weight: with the times above, every weighted flow stays finite."""

MAX_COUNT = 1_000_000
"""Largest count of things to build: requests, tapes, drives, arms, files."""

MAX_ARRIVALS = 2_000_000
"""Most requests a simulated replication may expect (rate x duration).

Two million requests take the Blue Waters scenario some minutes; the
workload is drawn in full before a run, so this also bounds its memory.
"""

MAX_REPLICATIONS = 1_000
"""Most replications of one simulation."""

MAX_RATE_PER_YEAR = 1e6
"""Largest fault rate per year (of a drive's or mover's failures, of tape losses), in the
options and the scenario files alike: one a minute is far past any platform."""

_SECOND, _MINUTE, _HOUR, _DAY, _WEEK = 1.0, 60.0, 3600.0, 86400.0, 604800.0

UNITS_S: dict[str, float] = {
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), _SECOND),
    **dict.fromkeys(("min", "mins", "minute", "minutes"), _MINUTE),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), _HOUR),
    **dict.fromkeys(("d", "day", "days"), _DAY),
    **dict.fromkeys(("w", "wk", "wks", "week", "weeks"), _WEEK),
}
"""Seconds in each accepted spelling of a unit of time."""

_UNIT_HINT = "use s, min, h, d or w (or sec, minutes, hours, days, weeks)"
_NUMBER = r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_DURATION = re.compile(rf"\s*({_NUMBER})\s*([A-Za-z]*)\s*")
_RATE = re.compile(rf"\s*({_NUMBER})\s*(?:(?:/|\bper\b)\s*([A-Za-z]+))?\s*")


RATE_UNITS_S: dict[str, float] = {k: v for k, v in UNITS_S.items() if v < _WEEK}
"""Seconds in each unit a rate may be given per: a week is not one (a rate per week is
rare enough that ``3/week`` is more likely a slip than a rate)."""


def _seconds_in(unit: str, units: dict[str, float] = UNITS_S) -> float | None:
    return units.get(unit.lower())


def parse_duration(text: str, *, unit_required: bool = False, most_s: float = MAX_TIME_S) -> float:
    """Seconds in a duration such as ``"45s"``, ``"30min"``, ``"1.5h"``, ``"2 days"`` or ``"4w"``.

    Parameters
    ----------
    text
        A number and a unit (see the module documentation for the spellings).
    unit_required
        Refuse a bare number (ambiguous); otherwise it is seconds.
    most_s
        Longest duration accepted (:data:`MAX_TIME_S` by default).

    Raises
    ------
    ValueError
        When ``text`` is not a number and a unit, the unit is unknown, or
        the duration is not positive, finite and at most ``most_s``.
    """
    example = "45s, 30min, 12h, 30d or 2w" if unit_required else "90, 45s, 30min, 12h, 30d or 2w"
    match = _DURATION.fullmatch(text)
    if match is None:
        raise ValueError(f"{shown(text)} is not a duration such as {example}")
    number, unit = match.groups()
    if not unit and unit_required:
        raise ValueError(f"{shown(text)} is ambiguous: give a unit, such as 90s, 2min or 30d")
    per_unit = _seconds_in(unit or "s")
    if per_unit is None:
        raise ValueError(f"{shown(text)}: unknown unit {shown(unit)}; {_UNIT_HINT}")
    seconds = float(number) * per_unit
    if not 0 < seconds < math.inf:
        raise ValueError(f"{shown(text)} must be a positive finite duration")
    return bounded_duration(seconds, most_s, text)


def bounded_duration(seconds: float, most_s: float, shown: object = None) -> float:
    """``seconds``, when within ``most_s``.

    Raises
    ------
    ValueError
        Naming ``shown`` (the value as given) and the limit.
    """
    if seconds > most_s:
        given = repr(shown) if shown is not None else f"{seconds:g} s"
        raise ValueError(f"{given} is longer than the limit {describe_seconds(most_s)}")
    return seconds


def describe_seconds(seconds: float) -> str:
    """``seconds`` for a message: ``315360000 s (10 years)``."""
    years = seconds / (365 * _DAY)
    return f"{seconds:.0f} s ({years:.3g} years)" if years >= 1 else f"{seconds:g} s"


def parse_rate(text: str) -> float:
    """Requests per second in a rate such as ``"0.005"`` (per second), ``"0.3/min"``,
    ``"65/h"``, ``"65/hour"``, ``"2/day"`` or ``"65 per hour"``.

    Raises
    ------
    ValueError
        When ``text`` is not a number optionally followed by ``/`` (or
        ``per``) and a unit of time, or is not a positive finite rate.
    """
    match = _RATE.fullmatch(text)
    per_unit = None if match is None else _seconds_in(match.group(2) or "s", RATE_UNITS_S)
    if match is None or per_unit is None:
        raise ValueError(
            f"{shown(text)} is not a rate such as 0.005, 0.3/min or 65/h "
            "(65/hour, 2/day, 65 per hour)"
        )
    rate = float(match.group(1)) / per_unit
    if not 0 < rate < math.inf:
        raise ValueError(f"{shown(text)} must be a positive finite rate")
    return rate
