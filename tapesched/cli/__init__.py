"""The ``tapesched`` command line, the top layer of the project.

Each command is a module of one of two rooms: :mod:`.instances`, the commands on
instance and schedule files (``check``, ``verify``, ``metrics``, ``plot``, ``order``,
``generate``, ``solve``, ``compare``, ``bound``, ``solvers``), and :mod:`.archives`, the
commands on a whole archive in time (``simulate``, ``replay``, ``plan``,
``experiment``); :data:`main` gathers them into one ``click`` group. ``experiment`` is a
group of its own: a command per experiment of the studies' registry, made from the
experiment's declared parameters. The command line is the top layer: it may import
every package below it (the toolkit, the solvers, the simulator, the studies), none of
which imports it. What every command shares (exit codes, the one-line bad-input
report, option types) is in :mod:`tapesched.cli.common`, their ``--out`` options in
:mod:`tapesched.cli.out_options`, the group's help in :mod:`tapesched.cli.group`;
Ctrl-C and SIGTERM end any of them with one line (:mod:`tapesched.cli.interrupts`),
from the moment this package begins to load them.
"""

from __future__ import annotations

import click

from tapesched.cli.interrupts import ending_on_signals

with ending_on_signals():  # a Ctrl-C while the commands load ends as in a command
    from tapesched.cli.archives.experiment import experiment
    from tapesched.cli.archives.plan import plan
    from tapesched.cli.archives.replay import replay
    from tapesched.cli.archives.simulate import simulate
    from tapesched.cli.group import CommandGroup
    from tapesched.cli.instances.bound import bound
    from tapesched.cli.instances.check import check
    from tapesched.cli.instances.compare import compare
    from tapesched.cli.instances.generate import generate
    from tapesched.cli.instances.list_solvers import list_solvers
    from tapesched.cli.instances.metrics import metrics
    from tapesched.cli.instances.order import order
    from tapesched.cli.instances.plot import plot
    from tapesched.cli.instances.solve import solve
    from tapesched.cli.instances.verify import verify

__all__ = ["main"]


@click.group(cls=CommandGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="tapesched")
@click.option(
    "--debug",
    is_flag=True,
    help="When a plug-in fails, print its traceback before the one line saying so.",
)
def main(debug: bool) -> None:
    """Schedule robotic tape archives: instance and schedule files, solvers, a validator."""


for _command in (check, solve, list_solvers, verify, metrics, compare, generate, simulate, replay):
    main.add_command(_command)
main.add_command(order)
main.add_command(experiment)
main.add_command(plot)
main.add_command(bound)
main.add_command(plan)
