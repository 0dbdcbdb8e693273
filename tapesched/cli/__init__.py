"""The ``tapesched`` command line, the top layer of the project.

Each command is a module of one of two rooms: :mod:`.instances`, the commands on
instance and schedule files (``check``, ``verify``, ``metrics``, ``plot``, ``order``,
``generate``, ``instance``, ``solve``, ``compare``, ``bound``) and the listings of what
they may name (``solvers``, ``catalogue``), and :mod:`.archives`, the commands on a whole archive in
time (``simulate``, ``replay``, ``plan``, ``site``, ``experiment``, ``sweep``); :data:`main` gathers
them into one ``click`` group. ``experiment`` is a
group of its own: a command per experiment of the studies' registry, made from the
experiment's declared parameters. The command line is the top layer: it may import
every package below it (the toolkit, the solvers, the simulator, the studies), none of
which imports it. What every command shares (exit codes, the one-line bad-input
report, option types) is in :mod:`tapesched.cli.common`, their ``--out`` options in
:mod:`tapesched.cli.out_options`, the group's help in :mod:`tapesched.cli.group`;
Ctrl-C and SIGTERM end any of them with one line (:mod:`tapesched.cli.interrupts`),
from the moment this package begins to load them. Each command is imported when it is
named (:data:`COMMANDS`), so that a command starts with what it needs only.
"""

from __future__ import annotations

import importlib

import click

from tapesched.cli.interrupts import ending_on_signals

with ending_on_signals():  # a Ctrl-C while the group loads ends as in a command
    from tapesched.cli.group import CommandGroup

__all__ = ["COMMANDS", "main"]

COMMANDS = {
    "check": "tapesched.cli.instances.check:check",
    "verify": "tapesched.cli.instances.verify:verify",
    "metrics": "tapesched.cli.instances.metrics:metrics",
    "plot": "tapesched.cli.instances.plot:plot",
    "order": "tapesched.cli.instances.order:order",
    "generate": "tapesched.cli.instances.generate:generate",
    "solve": "tapesched.cli.instances.solve:solve",
    "compare": "tapesched.cli.instances.compare:compare",
    "bound": "tapesched.cli.instances.bound:bound",
    "solvers": "tapesched.cli.instances.list_solvers:list_solvers",
    "catalogue": "tapesched.cli.instances.catalogue:catalogue",
    "instance": "tapesched.cli.instances.instance:instance",
    "simulate": "tapesched.cli.archives.simulate:simulate",
    "replay": "tapesched.cli.archives.replay:replay",
    "plan": "tapesched.cli.archives.plan:plan",
    "site": "tapesched.cli.archives.site:site",
    "experiment": "tapesched.cli.archives.experiment:experiment",
    "sweep": "tapesched.cli.archives.sweep:sweep",
}
"""Each command's name and where it is, ``module.path:function``."""


class Commands(CommandGroup):
    """The group of :data:`COMMANDS`, each imported when it is named: ``tapesched check``
    loads the files and the validator, not the simulator nor OR-Tools, and starts sooner."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in COMMANDS and cmd_name not in self.commands:
            module, name = COMMANDS[cmd_name].split(":")
            with ending_on_signals():  # a Ctrl-C while the command loads ends as in it
                command = getattr(importlib.import_module(module), name)
            self.add_command(command, cmd_name)
        return super().get_command(ctx, cmd_name)


@click.group(cls=Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="tapesched")
@click.option(
    "--debug",
    is_flag=True,
    help="When a plug-in fails, print its traceback before the one line saying so.",
)
def main(debug: bool) -> None:
    """Schedule robotic tape archives: instance and schedule files, solvers, a validator."""
