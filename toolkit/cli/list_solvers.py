"""``tapesched solvers``: what the registry holds, and the schedulers packages plug in."""

from __future__ import annotations

import click


@click.command("solvers")
def list_solvers() -> None:
    """List the solvers of the registry, then the plug-in schedulers installed packages declare.

    Plug-ins are the entry points of the group ``tapesched.schedulers``, each
    with where it is and the package declaring it; none is imported here.
    """
    from solvers import registry
    from solvers.plugins import ENTRY_POINT_GROUP, plugin_entries

    for name in registry.names():
        click.echo(f"{name}: {registry.describe(name)}")
    plugins = plugin_entries()
    if not plugins:
        click.echo(f"no plug-in schedulers (entry points of the group {ENTRY_POINT_GROUP})")
        return
    click.echo(f"plug-in schedulers (entry points of the group {ENTRY_POINT_GROUP}):")
    seen: set[str] = set()
    for plugin in plugins:
        line = f"{plugin.name}: plug-in scheduler {plugin.value}"
        if plugin.distribution is not None:
            line += f" from {plugin.distribution}"
        if plugin.name in registry.names():
            line += " (hidden: the registry has a solver of that name)"
        elif plugin.name in seen:
            line += " (hidden by the one above)"
        seen.add(plugin.name)
        click.echo(line)
