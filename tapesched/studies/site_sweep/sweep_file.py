"""The sweep file (``tapesched.sweep/1``): a site sweep's settings, for ``tapesched sweep
SWEEP.json``.

::

    {"format": "tapesched.sweep/1", "site": "site.json", "trace": "req.csv",
     "vary": {"drives": [8, 12], "mount-policy": ["lru", "at-once"]},
     "metrics": ["mean_latency_s", "mounts"], "columns": {"time": "ts"}, "limit": 2000}

or, in place of ``trace``, ``"scenario": "recalls.json"``: a scenario simulated on the site.

Read as every file of the project is (:func:`toolkit.files.json_documents.read_json`, the
keys structured and checked at their paths: one line per problem); ``site`` and ``trace``
are relative to the sweep file. :func:`sweep_settings` gives the settings as the
``site-sweep`` experiment takes them (the axes and metrics joined as its options write
them); what the axes and metrics name is checked by the experiment, as an option's is.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

from tapesched.toolkit.errors import InputError, Problem, ValueProblems, shown
from tapesched.toolkit.fields import (
    Rule,
    at_least_one,
    check,
    checked,
    nonempty_text,
    optional,
    parsed,
)
from tapesched.toolkit.files.json_documents import read_json
from tapesched.toolkit.files.structurer import JSON, KeyStyle

SWEEP_FORMAT = "tapesched.sweep/1"
"""The ``format`` of a sweep file."""

_SEPARATORS = (",", ";", "=")


def _plain(value: Any) -> bool:
    """A string that ``--vary`` and ``--columns`` can write (no separator in it)."""
    return type(value) is str and value.strip() != "" and not any(s in value for s in _SEPARATORS)


def _vary(value: Any) -> tuple[tuple[str, tuple[Any, ...]], ...]:
    """``vary``: an object of axes, each a non-empty list of JSON scalars."""
    if type(value) is not dict or not value:
        raise ValueError(
            f'expected an object of axes such as {{"drives": [8, 12]}}, got {shown(value)}'
        )
    out = []
    for name, values in value.items():
        if not _plain(name):
            raise ValueError(f"{shown(name)} is no axis name")
        if type(values) is not list or not values:
            raise ValueError(f"{name}: expected a non-empty list of values, got {shown(values)}")
        for v in values:
            if type(v) not in (int, float, bool, str) or (type(v) is str and not _plain(v)):
                raise ValueError(f"{name}: expected numbers, true, false or names, got {shown(v)}")
        out.append((name, tuple(values)))
    return tuple(out)


def _columns(value: Any) -> tuple[tuple[str, str], ...] | None:
    """``columns``: an object of the log reader's names to the file's own."""
    if value is None:
        return None
    if type(value) is not dict or not value:
        raise ValueError(f'expected an object such as {{"time": "ts"}}, got {shown(value)}')
    for name, header in value.items():
        if not (_plain(name) and _plain(header)):
            raise ValueError(f"{shown(name)}: {shown(header)} is no column name")
    return tuple(value.items())


METRIC = Rule(("type({v}) is str", "expected a metric's name, got {v!r}"))


@checked(kw_only=True)
class SweepDocument:
    """A sweep file as written."""

    format: str = check(Rule(("{v} == {f}", "expected {f!r}, got {v!r}"), f=SWEEP_FORMAT))
    site: str = check(nonempty_text)
    trace: str | None = check(optional(nonempty_text), default=None)
    scenario: str | None = check(optional(nonempty_text), default=None)
    vary: tuple[tuple[str, tuple[Any, ...]], ...] = parsed(_vary)
    metrics: tuple[Annotated[str, METRIC], ...] = ()
    columns: tuple[tuple[str, str], ...] | None = parsed(_columns, default=None)
    limit: int | None = check(optional(at_least_one), default=None)

    def __attrs_post_init__(self) -> None:
        if (self.trace is None) == (self.scenario is None):
            why = "give one of trace (a log to replay) and scenario (a scenario to simulate)"
            raise ValueProblems([Problem("", why)])


_KEYS = KeyStyle(missing_at_key=True, unknown_at_key=True, list_known=True)


def read_sweep_file(path: str | os.PathLike[str]) -> SweepDocument:
    """The sweep file at ``path``.

    Raises
    ------
    InputError
        For a file that cannot be read, bad JSON, and every bad value at its path.
    """
    document, problems = JSON.structure(read_json(path), SweepDocument, keys=_KEYS)
    if document is None:
        raise InputError(str(path), problems)
    return document


def _written(value: Any) -> str:
    if type(value) is bool:
        return "true" if value else "false"
    return str(value)


def sweep_settings(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The ``site-sweep`` settings of the sweep file at ``path`` (``site`` and ``trace`` or
    ``scenario`` relative to it; ``metric`` and ``columns`` only when the file gives them).

    Raises
    ------
    InputError
        As :func:`read_sweep_file`.
    """
    document = read_sweep_file(path)
    here = Path(path).parent
    settings: dict[str, Any] = {
        "site": str(here / document.site),
        "vary": ";".join(
            f"{name}={','.join(_written(v) for v in values)}" for name, values in document.vary
        ),
        "limit": document.limit,
    }
    for key in ("trace", "scenario"):
        if getattr(document, key) is not None:
            settings[key] = str(here / getattr(document, key))
    if document.metrics:
        settings["metric"] = ",".join(document.metrics)
    if document.columns is not None:
        settings["columns"] = ",".join(f"{k}={v}" for k, v in document.columns)
    return settings
