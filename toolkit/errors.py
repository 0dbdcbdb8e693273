"""Errors for bad input: every problem with the JSON path of the value at fault."""

from __future__ import annotations

import reprlib
from typing import Any

from attrs import frozen

MOST_SHOWN = 40
"""About the most characters of a bad value a message quotes (:func:`shown`)."""

MAX_LINE = 400
"""The most characters of one line of a bad-input report (:func:`one_line`): the last
defence against a message that quotes a value whole."""

_CUT = reprlib.Repr()
_CUT.maxlevel, _CUT.maxdict, _CUT.maxlist, _CUT.maxtuple = 2, 3, 4, 4
_CUT.maxset = _CUT.maxfrozenset = _CUT.maxdeque = _CUT.maxarray = 4
_CUT.maxstring = _CUT.maxlong = _CUT.maxother = MOST_SHOWN


def shown(value: Any, most: int = MOST_SHOWN) -> str:
    """``value`` as a message quotes it: its ``repr``, or about ``most`` characters of it.

    A longer string keeps its start and end around ``...`` and gives its
    length (``'xxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxxxxxx' (52,428,800 characters)``); a
    longer list or object shows its first items and is cut at the end. The
    value is never written out whole, so a file holding megabytes where a
    number belongs gives a message of one short line, at the cost of the
    few characters kept.
    """
    if isinstance(value, str):
        text = repr(value[: most + 1])
        if len(text) <= most:
            return text
        head = (most - 3) // 2
        tail = most - 3 - head
        text = repr(value[:head] + value[len(value) - tail :])
        return f"{text[:head]}...{text[len(text) - tail :]} ({len(value):,} characters)"
    text = _CUT.repr(value)
    return text if len(text) <= most else f"{text[: most - 3]}..."


def one_line(text: str, most: int = MAX_LINE) -> str:
    """``text`` if it has at most ``most`` characters, else cut in the middle to about ``most``.

    The start (the file and the path) and the end (what is wrong) are kept
    around how long the line was.
    """
    if len(text) <= most:
        return text
    cut = f"...({len(text):,} characters)..."
    head = (most - len(cut)) * 2 // 3
    tail = most - len(cut) - head
    return f"{text[:head]}{cut}{text[len(text) - tail :]}"


@frozen
class Problem:
    """One thing wrong with an input file.

    ``path`` is the JSON path of the bad value in the dotted form of the spec
    (``requests[2].pieces[0].tape``); an empty path means the whole document.
    """

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class InputError(Exception):
    """An input file that cannot be used, with every problem found in it.

    Parameters
    ----------
    source
        Where the input came from (a file name, or ``<string>``).
    problems
        What is wrong, in document order.
    """

    def __init__(self, source: str, problems: list[Problem]) -> None:
        self.source = source
        self.problems = list(problems)
        super().__init__("\n".join(self.lines()))

    def lines(self) -> list[str]:
        """One line per problem, each naming the source, the path and what is wrong, each
        at most :data:`MAX_LINE` characters."""
        return [one_line(f"{self.source}: {p}") for p in self.problems]


class ValueProblems(ValueError):
    """Several problems of one value, each at a path inside it (``""`` for the value itself).

    Raised by a function that reads a value of several parts (an object
    whose keys are data, such as a scenario's schemes), so that the reader
    reports each part at its own path below the value's.
    """

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(str(p) for p in self.problems))


MAX_SHOWN = 20
"""Problems of a long file (a trace of a million lines) reported one by one; the rest are
counted in a last line."""


def capped(problems: list[Problem], most: int = MAX_SHOWN) -> list[Problem]:
    """The first ``most`` problems, and a last one counting those left out."""
    if len(problems) <= most:
        return problems
    rest = len(problems) - most
    return [*problems[:most], Problem("", f"{rest} more problems not shown")]


def join_path(path: str, key: str) -> str:
    """The path of ``key`` inside the object at ``path`` (``""`` shown as ``'""'``, a key longer
    than a message quotes as :func:`shown` quotes it)."""
    key = shown(key) if len(key) > MOST_SHOWN else key or '""'
    return f"{path}.{key}" if path else key


@frozen
class SettingProblem:
    """One thing wrong with the settings a run was given (a library call's arguments).

    ``settings`` names the arguments at fault, by their parameter names (none: the run as a
    whole); ``source``, when the settings are fine alone but the file ``source`` cannot run
    with them, is that file, and ``message`` what in it cannot.
    """

    settings: tuple[str, ...]
    message: str
    source: str | None = None

    def __str__(self) -> str:
        where = self.source if self.source is not None else " and ".join(self.settings)
        return f"{where}: {self.message}" if where else self.message


class SettingsError(ValueError):
    """Settings a run cannot use, with every problem found in them (:class:`SettingProblem`).

    The command line words each problem with its own options' names; a Python caller reads
    the parameter names of :attr:`problems`.
    """

    def __init__(self, problems: list[SettingProblem]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(str(p) for p in self.problems))
