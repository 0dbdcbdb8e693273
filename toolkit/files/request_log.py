"""A site's request log: the cartridge requests of a tape archive, as the CSV a site has.

One request a line, under a header naming the columns (any order)::

    time,cartridge,block,size_bytes,duration_s
    2011-09-01T00:00:05,CB1172,1200,52428800,304
    2011-09-01T00:00:02Z,WB2950,,,188

- ``time`` (required): seconds as a number >= 0, or an ISO-8601 timestamp
  (``2011-09-01T00:00:05``, or with ``Z`` or an offset); a file gives every time
  the same one of the three ways. Timestamps become seconds after the file's
  earliest (:attr:`RequestLog.start`); a file need not be in order of time;
- ``cartridge`` (required): the cartridge asked for (:data:`~toolkit.fields.CARTRIDGE_ID`);
- ``offset_mb`` or ``block``: where on the tape the request starts, in MB or as a
  block id (kept as a block: its position needs the tape format's block size);
- ``size_mb`` or ``size_bytes``: how much it reads or writes (bytes become MB, 10^6
  bytes, the core problem's unit);
- ``duration_s``: how long the cartridge was then in use in a drive (ECMWF's trace
  gives it);
- ``weight`` (> 0, default 1) and ``kind`` (``read`` or ``write``, default ``read``).

Columns named otherwise in a site's file are mapped by the caller (``columns={"time":
"ts"}``, or :func:`parse_columns` of ``time=ts,cartridge=vid``). A column of the header
that is none of these is ignored, and named in :attr:`RequestLog.ignored_columns` for the
caller to note. An empty cell of an optional column is the column left out. Blank lines
are skipped.

The file is read as a stream (:func:`~toolkit.files.reading.read_lines`: plain, ``.gz``,
``.bz2`` or ``.zst``), a line at a time; each line's values are judged by the rules of
:mod:`toolkit.fields` (:class:`LogRow`). Bad input raises
:class:`~toolkit.errors.InputError`, a line per problem naming the file, the line and the
column as the header names it (``req.csv: line 7.time: ...``), at most
:data:`~toolkit.errors.MAX_SHOWN` of them and a count of the rest.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Mapping
from datetime import datetime

from attrs import frozen

from tapesched.toolkit.errors import (
    MAX_SHOWN,
    InputError,
    Problem,
    SettingProblem,
    SettingsError,
    capped,
    shown,
)
from tapesched.toolkit.fields import (
    CARTRIDGE_ID,
    at_least_one,
    at_most,
    bounded_size,
    bounded_time,
    bounded_weight,
    check,
    checked,
    natural,
    nonnegative_finite,
    one_of,
    optional,
    parsed,
    positive_size,
    simulated_time,
)
from tapesched.toolkit.files.reading import read_lines
from tapesched.toolkit.files.structurer import TEXT
from tapesched.toolkit.units import MAX_SIMULATED_S, MAX_SIZE_MB, describe_seconds

REQUIRED = ("time", "cartridge")
"""The columns every request log has."""

OPTIONAL = ("offset_mb", "block", "size_mb", "size_bytes", "duration_s", "weight", "kind")
"""The columns a request log may have."""

COLUMNS = REQUIRED + OPTIONAL
"""Every column the reader takes, by the names it knows them by."""

EITHER = (("offset_mb", "block"), ("size_mb", "size_bytes"))
"""Columns of which a file gives one at most: two ways of saying one thing."""

BYTES_PER_MB = 1e6
"""Bytes in a MB, the unit of sizes in the core problem."""

MAX_BYTES = int(MAX_SIZE_MB * BYTES_PER_MB)
"""Largest size in bytes and block id: :data:`~toolkit.units.MAX_SIZE_MB` in bytes (a block is
at least a byte)."""

KINDS = ("read", "write")

BLOCK = at_most(natural, MAX_BYTES)
"""A block id: an integer >= 0."""

BYTE_COUNT = at_most(at_least_one, MAX_BYTES, " bytes")
"""A size in bytes: an integer >= 1."""

TIME_WAYS = ("seconds", "a timestamp without offset", "a timestamp with an offset or Z")
"""The three ways a file may give its times (one of them for every line)."""


def _time(cell: str) -> float | datetime:
    """A ``time`` cell: seconds (a number), or an ISO-8601 timestamp (date and time)."""
    text = cell.strip()
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        reason = simulated_time.as_written(seconds, text)
        if reason is not None:
            raise ValueError(reason)
        return seconds
    try:
        if "T" not in text.upper() and " " not in text:
            raise ValueError("a date without a time")
        return datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(
            "expected seconds (a number >= 0) or an ISO-8601 timestamp such as "
            f"2011-09-01T00:00:05, got {shown(text)}"
        ) from None


def _way(time: float | datetime) -> str:
    if not isinstance(time, datetime):
        return TIME_WAYS[0]
    return TIME_WAYS[1] if time.tzinfo is None else TIME_WAYS[2]


@checked
class LogRow:
    """A line of a request log, by its columns (problems are at ``line N.column``).

    An empty cell of an optional column takes the column's default.
    """

    time: float | datetime = parsed(_time)
    cartridge: str = check(CARTRIDGE_ID)
    offset_mb: float | None = check(optional(bounded_size), default=None)
    block: int | None = check(optional(BLOCK), default=None)
    size_mb: float | None = check(optional(positive_size), default=None)
    size_bytes: int | None = check(optional(BYTE_COUNT), default=None)
    duration_s: float | None = check(optional(bounded_time), default=None)
    weight: float = check(bounded_weight, default=1.0)
    kind: str = check(one_of(KINDS), default="read")


@checked
class LoggedRequest:
    """One request of a site's log.

    Attributes
    ----------
    time_s
        When it arrived: the file's seconds, or seconds after its earliest timestamp.
    cartridge
        The cartridge asked for.
    offset_mb
        Where on the tape it starts, in MB, when the file says so.
    block
        Where on the tape it starts, as a block id, when the file says so (a position
        needs the tape format's block size).
    size_mb
        How much it reads or writes, when the file says.
    duration_s
        How long the cartridge was then in use in a drive, when the file says.
    weight
        Its weight (1 unless the file says).
    kind
        ``"read"`` or ``"write"``.
    """

    time_s: float = check(nonnegative_finite)
    cartridge: str = check(CARTRIDGE_ID)
    offset_mb: float | None = check(optional(bounded_size), default=None)
    block: int | None = check(optional(BLOCK), default=None)
    size_mb: float | None = check(optional(positive_size), default=None)
    duration_s: float | None = check(optional(bounded_time), default=None)
    weight: float = check(bounded_weight, default=1.0)
    kind: str = check(one_of(KINDS), default="read")


@frozen
class RequestLog:
    """What a request log holds, and what the reader noticed.

    Attributes
    ----------
    source
        The file read.
    requests
        Its requests, in file order.
    lines
        The line of the file of each request (for the messages of those who use them).
    columns
        The columns the file gives, by the names the reader knows them by, in its order.
    ignored_columns
        The header's other columns, as it names them: not read.
    start
        The earliest timestamp, from which the times are counted; ``None`` for a file
        of seconds.
    """

    source: str
    requests: tuple[LoggedRequest, ...]
    lines: tuple[int, ...]
    columns: tuple[str, ...]
    ignored_columns: tuple[str, ...]
    start: datetime | None


# --- the columns' names ---------------------------------------------------------------------


def _mapping_problems(columns: Mapping[str, str]) -> list[str]:
    """What is wrong with a map of the reader's column names to a file's."""
    out = []
    for name, header in columns.items():
        if name not in COLUMNS:
            out.append(f"unknown column name {shown(name)} (known: {', '.join(COLUMNS)})")
        elif type(header) is not str or not header.strip():
            out.append(f"{name} is mapped to no column name ({shown(header)})")
    if out:
        return out
    served: dict[str, str] = {}
    for name in COLUMNS:
        header = columns.get(name, name).strip()
        if header in served:
            out.append(f"column {header!r} would be both {served[header]} and {name}")
        served[header] = name
    return out


def parse_columns(text: str) -> dict[str, str]:
    """The map of ``time=ts,cartridge=vid`` (the reader's names to a file's), as
    :func:`read_request_log` takes it.

    Raises
    ------
    ValueError
        One line: an item without ``=``, a name the reader does not know, a name
        mapped twice, two names mapped to one column, nothing mapped.
    """
    out: dict[str, str] = {}
    items = [item.strip() for item in text.split(",")]
    if not text.strip():
        raise ValueError("expected NAME=COLUMN[,NAME=COLUMN...] such as time=ts, got ''")
    for item in items:
        name, equals, header = (part.strip() for part in item.partition("="))
        if not equals:
            raise ValueError(f"{shown(item)} has no '=': expected NAME=COLUMN such as time=ts")
        if name in out:
            raise ValueError(f"{name!r} is mapped twice ({out[name]!r} and {header!r})")
        out[name] = header
    problems = _mapping_problems(out)
    if problems:
        raise ValueError(problems[0])
    return out


# --- the reader ------------------------------------------------------------------------------


def _header_problems(header: list[str], names: dict[str, str]) -> list[Problem]:
    """What is wrong with the header row, ``names`` being the file's name of each column."""
    out = []
    for name in sorted({h for h in header if header.count(h) > 1}):
        out.append(Problem("line 1", f"column {name!r} is named twice"))
    for name in REQUIRED:
        if names[name] not in header:
            mapped = "" if names[name] == name else f" (for {name})"
            has = ", ".join(repr(h) for h in header[:8]) + (", ..." if len(header) > 8 else "")
            out.append(
                Problem(
                    "line 1",
                    f"missing column {names[name]!r}{mapped}; the header has {has} "
                    f"(map one with --columns {name}=NAME)",
                )
            )
    for one, other in EITHER:
        if names[one] in header and names[other] in header:
            out.append(
                Problem(
                    "line 1",
                    f"columns {names[one]!r} and {names[other]!r} both given: "
                    "they say one thing two ways, give one",
                )
            )
    return out


class _Problems:
    """The problems of a long file: the first :data:`~toolkit.errors.MAX_SHOWN` kept, the
    rest counted (as :func:`~toolkit.errors.capped` says them)."""

    def __init__(self) -> None:
        self.shown: list[Problem] = []
        self.count = 0

    def add(self, problem: Problem) -> None:
        self.count += 1
        if len(self.shown) < MAX_SHOWN:
            self.shown.append(problem)

    def raise_any(self, source: str) -> None:
        if self.count > len(self.shown):
            more = f"{self.count - len(self.shown)} more problems not shown"
            raise InputError(source, [*self.shown, Problem("", more)])
        if self.shown:
            raise InputError(source, self.shown)


def read_request_log(
    path: str | os.PathLike[str], columns: Mapping[str, str] | None = None
) -> RequestLog:
    """The requests of a request log (see the module documentation), in file order.

    Parameters
    ----------
    path
        The CSV file (``.gz``, ``.bz2`` or ``.zst`` decompressed as it is read).
    columns
        The file's name of each column it names otherwise (``{"time": "ts"}``).

    Raises
    ------
    SettingsError
        For a bad ``columns`` (a name the reader does not know, two names for one column).
    InputError
        For an unreadable file, an empty one or one without a request, a bad header
        (``line 1``: a required column missing, a column named twice, both columns of
        :data:`EITHER`), and every bad value (``line N.column``): a wrong count of
        values, a value its column's rule refuses, a time given another way than the
        file's first, a timestamp more than 10 years after the earliest.
    """
    bad = _mapping_problems(columns or {})
    if bad:
        raise SettingsError([SettingProblem(("columns",), why) for why in bad])
    source = str(path)
    names = {name: (columns or {}).get(name, name).strip() for name in COLUMNS}
    rows = csv.reader(read_lines(path))
    header = next((row for row in rows if any(cell.strip() for cell in row)), None)
    if header is None:
        why = f"empty file: expected a header row naming the columns ({', '.join(COLUMNS)})"
        raise InputError(source, [Problem("", why)])
    header = [h.strip() for h in header]
    problems = _header_problems(header, names)
    if problems:
        raise InputError(source, capped(problems))
    where = {name: header.index(names[name]) for name in COLUMNS if names[name] in header}
    given = tuple(sorted(where, key=where.__getitem__))
    ignored = tuple(h for h in header if h not in {names[n] for n in given})
    read_row = TEXT.reader(LogRow, path="line {}")
    found = _Problems()
    entries: list[tuple[int, LogRow]] = []
    first: tuple[int, str] | None = None
    for values in rows:
        number = rows.line_num
        if not any(v.strip() for v in values):
            continue
        if len(values) != len(header):
            found.add(
                Problem(f"line {number}", f"expected {len(header)} values, got {len(values)}")
            )
            continue
        cells = {n: values[i] for n, i in where.items() if n in REQUIRED or values[i].strip()}
        row, bad_values = read_row(cells, number)
        if row is None:
            for p in bad_values:
                column = p.path.removeprefix(f"line {number}.")
                found.add(Problem(f"line {number}.{names.get(column, column)}", p.message))
            continue
        way = _way(row.time)
        if first is None:
            first = (number, way)
        elif way != first[1]:
            found.add(
                Problem(
                    f"line {number}.{names['time']}",
                    f"given as {way}, but line {first[0]} gives {first[1]}: a file gives "
                    "every time one way",
                )
            )
            continue
        entries.append((number, row))
    found.raise_any(source)
    if not entries:
        raise InputError(source, [Problem("", "no request under the header")])
    start = min((r.time for _, r in entries if isinstance(r.time, datetime)), default=None)
    requests = []
    for number, row in entries:
        time_s = _seconds(row.time, start)
        if time_s > MAX_SIMULATED_S:  # a timestamp's: seconds are bounded by their rule
            found.add(
                Problem(
                    f"line {number}.{names['time']}",
                    f"{time_s:.0f} s after the earliest time, longer than the limit "
                    f"{describe_seconds(MAX_SIMULATED_S)} of a simulated span",
                )
            )
        requests.append(_request(row, time_s))
    found.raise_any(source)
    lines = tuple(number for number, _ in entries)
    return RequestLog(source, tuple(requests), lines, given, ignored, start)


def _seconds(time: float | datetime, start: datetime | None) -> float:
    """A time of the file as seconds: itself, or a timestamp's seconds after ``start``."""
    if isinstance(time, datetime):
        assert start is not None  # the earliest of the file's timestamps
        return (time - start).total_seconds()
    return time


def _request(row: LogRow, time_s: float) -> LoggedRequest:
    size_mb = row.size_mb if row.size_bytes is None else row.size_bytes / BYTES_PER_MB
    return LoggedRequest(
        time_s,
        row.cartridge,
        row.offset_mb,
        row.block,
        size_mb,
        row.duration_s,
        row.weight,
        row.kind,
    )
