"""The ``--out`` options of the commands that write, checked before any work starts.

A command's ``--out`` value becomes a checked target of :mod:`toolkit.files.outputs`
while the command line is parsed, so a target that may not be written (a
directory, a device, a FIFO, a symbolic link to one, a user's directory that a
run would replace) fails at once with one line and exit 2, before minutes of
solving or simulating. For a file, ``-`` is standard output: the document goes
there alone, and every other line the command prints goes to standard error,
so that ``tapesched solve inst.json --out - | jq .`` reads just the schedule.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection
from contextlib import redirect_stdout
from typing import Any

import click

from tapesched.cli.common import fail
from tapesched.toolkit.errors import InputError
from tapesched.toolkit.files.outputs import (
    STDOUT,
    DirectoryOutput,
    FileOutput,
    directory_output,
    file_output,
)

OPTION = "--out"


def file_out_option(
    help: str, *, required: bool = False, stdout_when_left_out: bool = False
) -> Callable[[Any], Any]:
    """``--out FILE`` as a :class:`~toolkit.files.outputs.FileOutput` (``-``: standard output).

    Parameters
    ----------
    help
        The option's help text.
    required
        Whether the option must be given.
    stdout_when_left_out
        Whether leaving the option out means standard output (else None).
    """

    def check(ctx: click.Context, param: click.Parameter, value: str | None) -> FileOutput | None:
        if value is None and required:
            raise click.MissingParameter(ctx=ctx, param=param)
        if value is None and not stdout_when_left_out:
            return None
        try:
            out = file_output(STDOUT if value is None else value, OPTION)
        except InputError as exc:
            fail(exc.lines())
        if out.to_stdout:
            ctx.with_resource(redirect_stdout(sys.stderr))
        return out

    return click.option(
        OPTION, "out", metavar="FILE", default=None, required=required, callback=check, help=help
    )


def _directory_check(
    names: Collection[str],
) -> Callable[[click.Context, click.Parameter, str | None], DirectoryOutput | None]:
    """The callback making ``--out DIR`` a checked directory of the files ``names``."""

    def check(ctx: click.Context, _: click.Parameter, value: str | None) -> DirectoryOutput | None:
        if value is None:
            return None
        if value == STDOUT:
            fail([f"{OPTION}: {STDOUT}: {ctx.info_name} writes a directory, not standard output"])
        try:
            return directory_output(value, names, OPTION)
        except InputError as exc:
            fail(exc.lines())

    return check


def dir_out_option(names: Collection[str], help: str) -> Callable[[Any], Any]:
    """``--out DIR`` as a :class:`~toolkit.files.outputs.DirectoryOutput` for the files ``names``.

    ``-`` is refused: standard output cannot hold a directory of files.
    """
    check = _directory_check(names)
    return click.option(OPTION, "out", metavar="DIR", default=None, callback=check, help=help)


def dir_out_param(names: Collection[str], help: str) -> click.Option:
    """The option of :func:`dir_out_option`, for a command made at run time."""
    check = _directory_check(names)
    return click.Option([OPTION, "out"], metavar="DIR", default=None, callback=check, help=help)
