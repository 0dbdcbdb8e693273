"""``results.csv``, the one table every experiment writes: its columns, rows, reader.

A row per point, series and metric (:data:`COLUMNS`, :class:`ResultRow`): the
experiment, the series, the x axis' name and the point's x, the metric, and its
estimate (:class:`~simulator.results.records.Estimate`): the mean and 95 %
half-width over the point's replications (empty when there is none: a
saturated point has no mean, a single replication no interval), the
replications and whether the point is saturated. An ``x`` may be infinite
(``inf``: ``ecmwf-defer-dismount``'s tapes kept mounted, no delay at all);
no other value may. Numbers are written by
``repr``, exactly (:func:`csv_number`), so that the same run gives the same
file byte for byte wherever it ran. :func:`read_results_csv` reads one back,
every value checked (``tapesched plot results`` draws it).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path

from attrs import frozen

from tapesched.simulator.results.records import Estimate
from tapesched.toolkit.errors import InputError, Problem, capped
from tapesched.toolkit.fields import (
    check,
    checked,
    finite,
    natural,
    nonempty_text,
    one_of,
    optional,
)
from tapesched.toolkit.fields import number as a_number
from tapesched.toolkit.files.reading import read_text
from tapesched.toolkit.files.structurer import TEXT

COLUMNS = (
    "experiment", "series", "x_name", "x", "metric",
    "mean", "half_width", "replications", "saturated",
)  # fmt: skip
"""The columns of ``results.csv``."""


def csv_number(value: float | None) -> str:
    """A number as every experiment's ``results.csv`` writes it: exactly (``repr``), or
    empty for ``None``."""
    return "" if value is None else repr(float(value))


@frozen
class ResultRow:
    """A row of ``results.csv``: a metric of a series at a point, estimated over its
    replications (:class:`~simulator.results.records.Estimate`: the mean, ``None`` when there
    is none; the half-width, ``None`` without an interval; the replications; whether the
    point is saturated). ``extra`` holds the values of an experiment's own columns after
    :data:`COLUMNS` (:attr:`~tapesched.studies.experiment.Results.columns`).
    """

    experiment: str
    series: str
    x_name: str
    x: float
    metric: str
    estimate: Estimate
    extra: tuple[str, ...] = ()

    def cells(self) -> tuple[object, ...]:
        """The row as ``results.csv`` writes it: numbers exactly, flags as ``true``/``false``."""
        e = self.estimate
        return (
            self.experiment, self.series, self.x_name, csv_number(self.x), self.metric,
            csv_number(e.mean), csv_number(e.half_width), e.replications,
            "true" if e.saturated else "false", *self.extra,
        )  # fmt: skip


def results_csv(rows: Sequence[ResultRow], columns: Sequence[str] = ()) -> str:
    """The text of ``results.csv``: the header (:data:`COLUMNS`, then ``columns``), a line
    per row."""
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow((*COLUMNS, *columns))
    for row in rows:
        writer.writerow(row.cells())
    return text.getvalue()


@checked(kw_only=True)
class _Line:
    """A line of ``results.csv`` by its columns (:data:`COLUMNS`, in their order), as read;
    problems at ``line N.column``."""

    experiment: str = check(nonempty_text)
    series: str = check(nonempty_text)
    x_name: str = check(nonempty_text)
    x: float = check(a_number)
    metric: str = check(nonempty_text)
    mean: float | None = check(optional(finite), default=None)
    half_width: float | None = check(optional(finite), default=None)
    replications: int = check(natural)
    saturated: str = check(one_of(("true", "false")))


def read_results_csv(text: str, source: str = "<results>") -> tuple[ResultRow, ...]:
    """The rows of a ``results.csv``, every value checked.

    Columns may come in any order, and others are ignored; an empty ``mean``
    or ``half_width`` is none; ``x`` is a number, ``inf`` included (not
    ``nan``). One file holds one experiment, each metric over one x (a study
    of several sweeps, ``durability``'s panels, has a metric per sweep).

    Raises
    ------
    InputError
        A missing column (at ``line 1``), a line of the wrong length, a bad
        value (``line N.x: expected a finite number, got 'abc'``), a second
        experiment in one file, a metric over a second x, or no rows at all.
    """
    lines = csv.reader(io.StringIO(text))
    columns = next(lines, [])
    missing = [c for c in COLUMNS if c not in columns]
    if missing:
        raise InputError(source, [Problem("line 1", f"missing column {c!r}") for c in missing])
    read_row = TEXT.reader(_Line, path="line {}")
    problems: list[Problem] = []
    rows: list[ResultRow] = []
    x_of: dict[str, str] = {}
    for number, values in enumerate(lines, 2):
        if not values:
            continue
        if len(values) != len(columns):
            problems.append(Problem(f"line {number}", f"expected {len(columns)} values"))
            continue
        cells = {c: v for c, v in zip(columns, values, strict=True) if c in COLUMNS}
        cells = {c: v for c, v in cells.items() if v or c not in ("mean", "half_width")}
        line, bad = read_row(cells, number)
        if line is None:
            problems.extend(bad)
            continue
        estimate = Estimate(line.mean, line.half_width, line.replications, line.saturated == "true")
        row = ResultRow(line.experiment, line.series, line.x_name, line.x, line.metric, estimate)
        if rows and row.experiment != rows[0].experiment:
            first = f"{rows[0].experiment!r} over {rows[0].x_name!r}"
            problems.append(
                Problem(
                    f"line {number}",
                    f"experiment {row.experiment!r} over {row.x_name!r}, the file's first row "
                    f"{first}: one experiment a file",
                )
            )
            continue
        x_name = x_of.setdefault(row.metric, row.x_name)
        if row.x_name != x_name:
            problems.append(
                Problem(
                    f"line {number}",
                    f"metric {row.metric!r} over {row.x_name!r}, its first row over "
                    f"{x_name!r}: one x a metric",
                )
            )
            continue
        rows.append(row)
    if problems:
        raise InputError(source, capped(problems))
    if not rows:
        raise InputError(source, [Problem("", "no rows below the header")])
    return tuple(rows)


def load_results_csv(path: str | Path) -> tuple[ResultRow, ...]:
    """The rows of the ``results.csv`` file at ``path`` (:func:`read_results_csv`).

    Raises
    ------
    InputError
        When the file cannot be read, is not UTF-8 text or holds bad rows.
    """
    return read_results_csv(read_text(path), str(path))
