"""``tapesched solvers``: what the registry holds."""

from __future__ import annotations

import click


@click.command("solvers")
def list_solvers() -> None:
    """List the solvers of the registry."""
    from solvers import registry

    for name in registry.names():
        click.echo(f"{name}: {registry.describe(name)}")
