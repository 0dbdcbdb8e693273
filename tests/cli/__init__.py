"""Tests of the command line, mirroring ``tapesched/cli``; :func:`every_command` walks it."""

from __future__ import annotations

from collections.abc import Iterator

import click

from tapesched.cli import main


def every_command() -> Iterator[tuple[str, click.Command]]:
    """Every command of ``tapesched`` with its command line (``tapesched plot gantt``), the
    groups' subcommands and each experiment's (``tapesched experiment bw-fig5``) included."""

    def walk(command: click.Command, path: str) -> Iterator[tuple[str, click.Command]]:
        yield path, command
        if isinstance(command, click.Group):
            context = click.Context(command)
            for name in command.list_commands(context):
                sub = command.get_command(context, name)
                assert sub is not None
                yield from walk(sub, f"{path} {name}")

    yield from walk(main, "tapesched")
