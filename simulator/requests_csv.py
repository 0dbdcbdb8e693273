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
problem per bad value, naming the line and the column. Values are bounded as
everywhere (:mod:`toolkit.units`): arrivals within 10 years
(:data:`~toolkit.units.MAX_SIMULATED_S`), sizes within a petabyte, finite
compression ratios, schemes ``X+Y`` with ``Y <= X``. The request of line
``N`` is named ``rN``.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

from simulator.files import FileRequest, FileSpec, Scheme
from simulator.workload import Workload
from toolkit.errors import InputError, Problem
from toolkit.units import MAX_SIMULATED_S, MAX_SIZE_MB

REQUIRED = ("arrival_s", "kind", "file", "size_mb")
OPTIONAL = ("scheme", "data_ratio", "ec_ratio")
MOST_PROBLEMS = 20
"""Problems reported before the rest are counted only."""


def _number(text: str, column: str, most: float = math.inf) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{column}: expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"{column}: expected a finite number, got {text!r}")
    if value > most:
        raise ValueError(f"{column}: must be <= {most:g}, got {text!r}")
    return value


def workload_from_csv(text: str, source: str = "<workload>") -> Workload:
    """The workload of a CSV trace (see the module documentation).

    Raises
    ------
    InputError
        For a missing or unknown column and every bad value.
    """
    reader = csv.DictReader(io.StringIO(text))
    columns = reader.fieldnames or []
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
    files: dict[str, FileSpec] = {}
    written: set[str] = set()
    initial: list[FileSpec] = []
    rows: list[tuple[float, int, str, FileSpec]] = []
    for number, row in enumerate(reader, start=2):
        try:
            if None in row or any(row[c] is None for c in columns):
                raise ValueError(f"expected {len(columns)} values")
            arrival = _number(row["arrival_s"], "arrival_s", MAX_SIMULATED_S)
            kind = row["kind"].strip()
            if kind not in ("read", "write"):
                raise ValueError(f"kind: expected read or write, got {kind!r}")
            name = row["file"].strip()
            if not name:
                raise ValueError("file: empty")
            file = files.get(name)
            if file is None:
                scheme_text = (row.get("scheme") or "1+0").strip()
                try:
                    scheme = Scheme.parse(scheme_text)
                except ValueError as exc:
                    raise ValueError(f"scheme: {exc}") from None
                file = FileSpec(
                    name,
                    _number(row["size_mb"], "size_mb", MAX_SIZE_MB),
                    scheme,
                    _number(row.get("data_ratio") or "1", "data_ratio"),
                    _number(row.get("ec_ratio") or "1", "ec_ratio"),
                )
                files[name] = file
            rows.append((arrival, number, kind, file))
        except ValueError as exc:
            problems.append(Problem(f"line {number}", str(exc)))
    if problems:
        shown = problems[:MOST_PROBLEMS]
        if len(problems) > MOST_PROBLEMS:
            shown.append(Problem("", f"and {len(problems) - MOST_PROBLEMS} more problems"))
        raise InputError(source, shown)
    if not rows:
        raise InputError(source, [Problem("", "no requests")])
    rows.sort(key=lambda r: (r[0], r[1]))
    requests = []
    for arrival, number, kind, file in rows:
        if kind == "read" and file.id not in written:
            initial.append(file)
        written.add(file.id)
        try:
            requests.append(FileRequest(f"r{number}", arrival, kind, file))  # type: ignore[arg-type]
        except ValueError as exc:
            raise InputError(source, [Problem(f"line {number}", str(exc))]) from None
    return Workload(initial=tuple(initial), requests=tuple(requests))


def load_workload(path: str | Path) -> Workload:
    """The workload of a CSV file.

    Raises
    ------
    InputError
        When the file cannot be read or holds bad values.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise InputError(str(path), [Problem("", f"cannot read file: {reason}")]) from None
    return workload_from_csv(text, str(path))
