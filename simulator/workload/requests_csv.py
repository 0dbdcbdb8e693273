"""File-request workloads from a CSV trace, for ``tapesched simulate --workload``.

One request a line, with a header naming the columns (any order)::

    arrival_s,kind,file,size_mb,scheme,data_ratio,ec_ratio
    0,write,f1,1500,4+2,2.0,1.2
    12.5,read,f1,1500,4+2,2.0,1.2
    30,read,old7,800,8+2,1.5,1.0

``arrival_s``, ``kind`` (``read`` or ``write``), ``file`` and ``size_mb`` are
required; ``scheme`` (``X+Y``, default ``1+0``), ``data_ratio`` and
``ec_ratio`` (compression, default 1) may be left out. Lines need not be in
order of arrival. A file keeps the size, scheme and compression of its first
line. A file read before any write of it belongs to the archive at time 0:
it is laid out by the policy before the run starts, as the generator's
initial files are. Bad input raises :class:`~toolkit.errors.InputError`, one
problem per bad value, at ``line N.column``: every value is checked, those of
a file's later lines too, by the rules of :mod:`toolkit.fields`. Values are
bounded as everywhere (:mod:`toolkit.units`): arrivals within 10 years
(:data:`~toolkit.units.MAX_SIMULATED_S`), sizes within a petabyte, finite
compression ratios, schemes ``X+Y`` with ``Y <= X``. The request of line
``N`` is named ``rN``.
"""

from __future__ import annotations

import csv
import io
from functools import lru_cache
from pathlib import Path

from tapesched.simulator.storage.files import FileRequest, FileSpec, Scheme
from tapesched.simulator.workload.workload import Workload
from tapesched.toolkit.errors import InputError, Problem, capped
from tapesched.toolkit.fields import (
    check,
    checked,
    finite,
    nonempty_text,
    one_of,
    parsed,
    positive_size,
    simulated_time,
)
from tapesched.toolkit.files.reading import read_text
from tapesched.toolkit.files.structurer import TEXT

REQUIRED = ("arrival_s", "kind", "file", "size_mb")
OPTIONAL = ("scheme", "data_ratio", "ec_ratio")


@lru_cache(maxsize=256)
def _scheme(text: str) -> Scheme:
    """The scheme of a cell, read once for each spelling (a trace repeats a few)."""
    return Scheme.parse(text.strip())


@checked
class RequestRow:
    """A line of a CSV workload, by its columns (problems are at ``line N.column``).

    An empty cell of an optional column takes the column's default.
    """

    arrival_s: float = check(simulated_time)
    kind: str = check(one_of(("read", "write")))
    file: str = check(nonempty_text)
    size_mb: float = check(positive_size)
    scheme: Scheme = parsed(_scheme, default=Scheme(1, 0))
    data_ratio: float = check(finite, default=1.0)
    ec_ratio: float = check(finite, default=1.0)


def workload_from_csv(text: str, source: str = "<workload>") -> Workload:
    """The workload of a CSV trace (see the module documentation).

    Raises
    ------
    InputError
        For a missing or unknown column (at ``line 1``) and every bad value
        (at ``line N.column``), up to :data:`~toolkit.errors.MAX_SHOWN`, then
        a count.
    """
    lines = csv.reader(io.StringIO(text))
    columns = next(lines, [])
    problems: list[Problem] = []
    missing = [c for c in REQUIRED if c not in columns]
    unknown = [c for c in columns if c not in REQUIRED + OPTIONAL]
    if missing or unknown:
        for c in missing:
            problems.append(Problem("line 1", f"missing column {c!r}"))
        for c in unknown:
            known = ", ".join(REQUIRED + OPTIONAL)
            problems.append(Problem("line 1", f"unknown column {c!r} (known: {known})"))
        raise InputError(source, problems)
    read_row = TEXT.reader(RequestRow, path="line {}")
    files: dict[str, FileSpec] = {}
    rows: list[tuple[float, int, str, FileSpec]] = []
    number = 1
    for values in lines:
        if not values:
            continue  # a blank line, not counted in the requests' numbers
        number += 1
        if len(values) != len(columns):
            problems.append(Problem(f"line {number}", f"expected {len(columns)} values"))
            continue
        cells = dict(zip(columns, values, strict=True))
        if "" in values:
            cells = {k: v for k, v in cells.items() if v or k in REQUIRED}
        row, bad = read_row(cells, number)
        if row is None:
            problems.extend(bad)
            continue
        file = files.get(row.file)
        if file is None:
            try:
                file = FileSpec(row.file, row.size_mb, row.scheme, row.data_ratio, row.ec_ratio)
            except ValueError as exc:
                problems.append(Problem(f"line {number}", str(exc)))
                continue
            files[row.file] = file
        rows.append((row.arrival_s, number, row.kind, file))
    if problems:
        raise InputError(source, capped(problems))
    if not rows:
        raise InputError(source, [Problem("", "no requests")])
    rows.sort(key=lambda r: (r[0], r[1]))
    written: set[str] = set()
    initial: list[FileSpec] = []
    requests = []
    for arrival, number, kind, file in rows:
        if kind == "read" and file.id not in written:
            initial.append(file)
        written.add(file.id)
        requests.append(FileRequest(f"r{number}", arrival, kind, file))  # type: ignore[arg-type]
    return Workload(initial=tuple(initial), requests=tuple(requests))


def load_workload(path: str | Path) -> Workload:
    """The workload of a CSV file.

    Raises
    ------
    InputError
        When the file cannot be read or holds bad values.
    """
    return workload_from_csv(read_text(path), str(path))
