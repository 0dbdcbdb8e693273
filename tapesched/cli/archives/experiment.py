"""``tapesched experiment``: run an experiment of the registry, or a user's, and list them.

Every experiment is one plug-in (:mod:`tapesched.studies.experiment`) of one
registry (:mod:`tapesched.studies.registry`): the project's studies by name, an
installed package's through the entry points of ``tapesched.experiments``, a
user's own as ``module.path:Class`` (what the user names on the command line is
the user's to run, as ``solve --solver module.path:Attr``). ``tapesched
experiment NAME`` is a command made from the experiment's declared parameters
(an option each, with ``--out DIR`` and ``--quick``); it parses them, calls
:func:`tapesched.studies.runner.run_experiment` and prints what the run reports.
``--list`` lists the experiments, ``--list --json`` every one with its parameters.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console

from tapesched.cli.common import (
    DurationType,
    NumberType,
    TimeLimitType,
    fail,
    reports_bad_input,
)
from tapesched.cli.out_options import dir_out_param
from tapesched.cli.progress import QUIET_OPTION, progress_bar
from tapesched.toolkit.registry import LoadError

if TYPE_CHECKING:
    from tapesched.studies.experiment import Experiment, Parameter, Show, Wide
    from tapesched.toolkit.files.outputs import DirectoryOutput


def _type(parameter: Parameter) -> click.ParamType | None:
    """The option's type for a parameter's kind (``None``: text)."""
    kind = parameter.kind
    if kind == "integer":
        low, high = parameter.low, parameter.high
        if low is None and high is None:
            return click.INT
        return click.IntRange(
            min=None if low is None else int(low), max=None if high is None else int(high)
        )
    if kind == "number":
        return NumberType(min=parameter.low, max=parameter.high, min_open=parameter.low_open)
    if kind == "duration":
        return DurationType()
    if kind == "time-limit":
        return TimeLimitType()
    if kind == "path":
        return click.Path()
    if kind == "choice":
        return click.Choice(parameter.choices)
    return None


def _param(parameter: Parameter) -> click.Parameter:
    """A declared parameter as an option (or an argument); the value it takes when left out
    is the experiment's to choose (``--quick`` or not), but for one value that is both."""
    if parameter.positional:
        return click.Argument(
            [parameter.name],
            metavar=parameter.option,
            type=_type(parameter),
            required=parameter.required,
        )
    if parameter.kind == "flag":
        return click.Option([parameter.option, parameter.name], is_flag=True, help=parameter.help)
    same = parameter.quick == parameter.full
    return click.Option(
        [parameter.option, parameter.name],
        type=_type(parameter),
        default=parameter.full if same else None,
        required=parameter.required,
        metavar=parameter.metavar,
        show_default=parameter.show_default,
        help=parameter.help,
    )


def _render(wide: Wide) -> None:
    Console(width=wide.width).print(wide.renderable)


@contextmanager
def _progress(name: str, total: int) -> Iterator[Callable[[int, str], None]]:
    with progress_bar() as bar:
        task = bar.add_task(name, total=total, current="")
        yield lambda done, current: bar.update(task, completed=done, current=current)


def terminal() -> Show:
    """Where a run reports on the command line: lines and tables on standard output,
    warnings on standard error, a progress bar on a terminal."""
    from tapesched.studies.experiment import Show

    return Show(
        line=click.echo,
        warn=lambda line: click.echo(line, err=True),
        render=_render,
        progress=_progress,
    )


def experiment_command(experiment: Experiment, name: str) -> click.Command:
    """The command running ``experiment``: ``--out``, ``--quick``, and an option per parameter."""
    from tapesched.studies.experiment import ExperimentError
    from tapesched.studies.runner import out_files, run_experiment

    files = out_files(experiment)

    @reports_bad_input
    def run(out: DirectoryOutput | None, quick: bool, **values: Any) -> None:
        if out is None:
            fail(["--out: required, and missing"])
        try:
            run_experiment(experiment, out, quick=quick, show=terminal(), **values)
        except ExperimentError as exc:
            fail(exc.lines)

    positional = [_param(p) for p in experiment.parameters if p.positional]
    options = [_param(p) for p in experiment.parameters if not p.positional]
    return click.Command(
        name,
        params=[
            *positional,
            dir_out_param(files, f"Directory to write ({', '.join(files)}), whole or not at all."),
            click.Option(["--quick"], is_flag=True, help=experiment.quick_help),
            *options,
            click.Option(["--quiet"], **QUIET_OPTION),
        ],
        callback=run,
        help=experiment.help or experiment.description,
        short_help=experiment.description,
    )


class ExperimentCommands(click.Group):
    """The experiments as commands, each made from its experiment when it is named."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every name the registry knows (installed packages' included)."""
        from tapesched.studies.registry import EXPERIMENTS

        return list(EXPERIMENTS.known())

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command:
        """The command of the experiment ``cmd_name`` (a name or ``module.path:Class``);
        one that names none ends the command in one line, exit 2."""
        from tapesched.studies.registry import find_experiment

        try:
            experiment = find_experiment(cmd_name)
        except LoadError as exc:
            fail([str(exc)])
        return experiment_command(experiment, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Each name and its description, from the registry (nothing imported)."""
        from tapesched.studies.registry import EXPERIMENTS

        rows = [(name, EXPERIMENTS.describe(name)) for name in EXPERIMENTS.known()]
        with formatter.section("Experiments"):
            formatter.write_dl(rows)


@click.group(
    cls=ExperimentCommands,
    invoke_without_command=True,
    subcommand_metavar="NAME [OPTIONS]",
)
@click.option("--list", "listing", is_flag=True, help="List the experiments and exit.")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="With --list: every experiment as JSON, with its parameters and their --quick and "
    "full values.",
)
@click.pass_context
def experiment(ctx: click.Context, listing: bool, as_json: bool) -> None:
    """Run the experiment NAME (see --list) and draw its figure.

    NAME is an experiment of the registry, one an installed package declares
    (entry points of tapesched.experiments), or a user's own as
    module.path:Class. Its options are its own (tapesched experiment NAME
    --help); every experiment writes to --out DIR results.csv (experiment,
    series, x_name, x, metric, mean, half_width, replications, saturated: a
    row per point, series and metric), summary.json and figure.png, the
    directory whole or not at all.
    """
    from tapesched.studies.registry import listing as listed
    from tapesched.studies.registry import listing_document

    if listing:
        try:
            lines = [json.dumps(listing_document(), indent=1)] if as_json else listed()
        except LoadError as exc:
            fail([str(exc)])
        for line in lines:
            click.echo(line)
        ctx.exit()
    if as_json:
        fail(["--json: only with --list"])
    if ctx.invoked_subcommand is None:
        fail(["NAME: required, and missing (see tapesched experiment --list)"])
