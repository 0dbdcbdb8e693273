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
