"""``tapesched check``: read an instance file and say what it holds, or every problem."""

from __future__ import annotations

import click

from toolkit.cli.common import describe, reports_bad_input
from toolkit.io import load_instance


@click.command()
@click.argument("instance_file", type=click.Path(dir_okay=False))
@reports_bad_input
def check(instance_file: str) -> None:
    """Check an instance file: exit 0 with a summary, or 2 with every problem."""
    instance = load_instance(instance_file)
    click.echo(f"ok: {describe(instance)}")
