"""Errors for bad input: every problem with the JSON path of the value at fault."""

from __future__ import annotations

from attrs import frozen


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
        """One line per problem, each naming the source, the path and what is wrong."""
        return [f"{self.source}: {p}" for p in self.problems]


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
