"""``tapesched solvers``: what the registry holds, and the schedulers packages plug in."""

from __future__ import annotations

import json

import click


@click.command("solvers")
@click.option("--json", "as_json", is_flag=True, help="Print the listing as JSON.")
def list_solvers(as_json: bool) -> None:
    """List the solvers of the registry, then the plug-in schedulers installed packages declare.

    Plug-ins are the entry points of the group ``tapesched.schedulers``, each
    with where it is and the package declaring it; none is imported here.

    ``--json`` prints ``{"solvers": [...], "plugins": [...]}``: each solver
    as ``name``, ``description`` and ``online`` (an online heuristic, which
    also runs in the simulator as ``--scheduler``); each plug-in as
    ``name``, ``value`` (``module:Attr``), ``distribution`` (the declaring
    package and version, or null) and ``hidden`` (null, or why the name
    reaches another scheduler).
    """
    from solvers import registry
    from solvers.online.policies import SCHEDULERS
    from solvers.plugins import ENTRY_POINT_GROUP, plugin_entries

    plugins = plugin_entries()
    seen: set[str] = set()
    hidden: list[str | None] = []
    for plugin in plugins:
        if plugin.name in registry.names():
            hidden.append("the registry has a solver of that name")
        elif plugin.name in seen:
            hidden.append("an earlier plug-in has that name")
        else:
            hidden.append(None)
        seen.add(plugin.name)
    if as_json:
        document = {
            "solvers": [
                {"name": n, "description": registry.describe(n), "online": n in SCHEDULERS}
                for n in registry.names()
            ],
            "plugins": [
                {
                    "name": p.name,
                    "value": p.value,
                    "distribution": p.distribution,
                    "hidden": why,
                }
                for p, why in zip(plugins, hidden, strict=True)
            ],
        }
        click.echo(json.dumps(document, indent=1))
        return
    for name in registry.names():
        click.echo(f"{name}: {registry.describe(name)}")
    if not plugins:
        click.echo(f"no plug-in schedulers (entry points of the group {ENTRY_POINT_GROUP})")
        return
    click.echo(f"plug-in schedulers (entry points of the group {ENTRY_POINT_GROUP}):")
    for plugin, why in zip(plugins, hidden, strict=True):
        line = f"{plugin.name}: plug-in scheduler {plugin.value}"
        if plugin.distribution is not None:
            line += f" from {plugin.distribution}"
        if why is not None:
            line += f" (hidden: {why})"
        click.echo(line)
