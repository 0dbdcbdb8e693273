"""Durations and rates in the spellings people type, and the limits they are held to."""

from __future__ import annotations

import pytest

from tapesched.toolkit.units import MAX_SIMULATED_S, MAX_TIME_S, UNITS_S, parse_duration, parse_rate

SPELLINGS = {
    1.0: ("s", "sec", "secs", "second", "seconds"),
    60.0: ("min", "mins", "minute", "minutes"),
    3600.0: ("h", "hr", "hrs", "hour", "hours"),
    86400.0: ("d", "day", "days"),
    604800.0: ("w", "wk", "wks", "week", "weeks"),
}


def test_the_table_of_units_is_the_documented_one():
    assert UNITS_S == {unit: s for s, units in SPELLINGS.items() for unit in units}


@pytest.mark.parametrize(
    ("text", "seconds"),
    [(f"{n}{gap}{unit}", n * s) for s, units in SPELLINGS.items() for unit in units
     for n, gap in ((2, ""), (3, " "))]
    + [("1.5h", 5400.0), ("30d", 2_592_000.0), ("4w", 2_419_200.0), ("2 Days", 172_800.0),
       (".5 min", 30.0)],
)  # fmt: skip
def test_every_spelling_of_every_unit(text, seconds):
    assert parse_duration(text) == pytest.approx(seconds)
    assert parse_duration(text, unit_required=True, most_s=MAX_SIMULATED_S) == pytest.approx(
        seconds
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("90", "'90' is ambiguous: give a unit, such as 90s, 2min or 30d"),
        ("5m", "'5m': unknown unit 'm'; use s, min, h, d or w"),
        ("2 months", "unknown unit 'months'"),
        ("1y", "unknown unit 'y'"),
        ("nan", "is not a duration such as 45s"),
        ("inf s", "is not a duration"),
        ("1e300s", "must be a positive finite duration|is longer than the limit"),
        ("11 years", "unknown unit 'years'"),
        ("3651d", "'3651d' is longer than the limit 315360000 s \\(10 years\\)"),
    ],
)
def test_a_simulated_span_needs_a_unit_and_a_bound(text, message):
    with pytest.raises(ValueError, match=message):
        parse_duration(text, unit_required=True, most_s=MAX_SIMULATED_S)


def test_a_bare_number_is_seconds_where_allowed_and_times_stop_at_the_limit():
    assert parse_duration("90") == 90.0
    assert parse_duration(f"{MAX_TIME_S:.0f}") == MAX_TIME_S
    with pytest.raises(ValueError, match="is longer than the limit 1000000000 s"):
        parse_duration("1e12")


@pytest.mark.parametrize(
    ("text", "per_s"),
    [("65/h", 65 / 3600), ("65/hour", 65 / 3600), ("65 / hours", 65 / 3600),
     ("65/hr", 65 / 3600), ("65 per hour", 65 / 3600), ("0.3/min", 0.005),
     ("0.3 per minute", 0.005), ("2/day", 2 / 86400), ("2/d", 2 / 86400), ("3/sec", 3.0),
     ("0.005", 0.005)],
)  # fmt: skip
def test_rates_in_their_spellings(text, per_s):
    assert parse_rate(text) == pytest.approx(per_s)


@pytest.mark.parametrize("text", ["65/year", "3/week", "65 per", "per hour", "nan/h", "65/m"])
def test_rates_refused(text):
    with pytest.raises(ValueError, match=r"is not a rate such as 0\.005, 0\.3/min or 65/h"):
        parse_rate(text)
