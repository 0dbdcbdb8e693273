"""``tapesched solvers``: what the registry holds, and the schedulers packages plug in."""

from __future__ import annotations

import json

import click


@click.command("solvers", short_help="List the solvers, then the plug-in schedulers installed.")
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
    from tapesched.solvers.registry import ENTRY_POINT_GROUP, SCHEDULERS, SOLVERS, names

    plugins = SCHEDULERS.plugins()
    if as_json:
        document = {
            "solvers": [
                {
                    "name": n,
                    "description": SOLVERS.describe(n),
                    "online": bool(SOLVERS.entry(n).metadata.get("online")),
                }
                for n in names()
            ],
            "plugins": [
                {
                    "name": p.name,
                    "value": p.value,
                    "distribution": p.distribution,
                    "hidden": p.hidden,
                }
                for p in plugins
            ],
        }
        click.echo(json.dumps(document, indent=1))
        return
    for name in names():
        click.echo(f"{name}: {SOLVERS.describe(name)}")
    if not plugins:
        click.echo(f"no plug-in schedulers (entry points of the group {ENTRY_POINT_GROUP})")
        return
    click.echo(f"plug-in schedulers (entry points of the group {ENTRY_POINT_GROUP}):")
    for plugin in plugins:
        line = f"{plugin.name}: plug-in scheduler {plugin.value}"
        if plugin.distribution is not None:
            line += f" from {plugin.distribution}"
        if plugin.hidden is not None:
            line += f" (hidden: {plugin.hidden})"
        click.echo(line)
