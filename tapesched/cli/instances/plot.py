"""``tapesched plot``: pictures of a schedule (a Gantt chart) and of an experiment's results.

``plot gantt INSTANCE SCHEDULE --out FILE`` judges the schedule with the
validator first and draws only a feasible one (:mod:`toolkit.plots.gantt`), from
the validator's own timing of every drive operation. ``plot results
RESULTS.csv --out FILE`` redraws the figure of an experiment
(``tapesched experiment``) from its ``results.csv``
(:mod:`tapesched.studies.sweeps.redraw`): the one the run drew, a panel per metric of the
file, or one metric of it. The format is the suffix of ``--out``, ``.png`` or
``.svg`` (:mod:`toolkit.plots.figures`), checked before any file is read; the
picture is written whole or not at all (:mod:`toolkit.files.outputs`), and the
same input gives the same bytes. ``plot trajectory RESULT.json --out FILE``
draws a solver's incumbent and bound against time from the result that
``tapesched solve --json`` prints (:mod:`toolkit.plots.trajectory`). matplotlib
is imported only when a picture is drawn, so that the other commands start
as fast as before.
"""

from __future__ import annotations

from pathlib import Path

import click

from tapesched.cli.common import echo_warnings, fail, load_and_validate, reports_bad_input
from tapesched.cli.out_options import file_out_option
from tapesched.toolkit.files.outputs import FileOutput, write_file

OUT_HELP = "The picture to write: FILE.png or FILE.svg (the suffix gives the format)."


@click.group(
    invoke_without_command=True,
    short_help="Draw a Gantt chart, an experiment's figure or a trajectory.",
)
@click.pass_context
def plot(ctx: click.Context) -> None:
    """Draw a schedule's Gantt chart, an experiment's figure or a solver's trajectory."""
    if ctx.invoked_subcommand is None:
        fail(
            [
                "tapesched plot: say what to draw: gantt, results or trajectory "
                "(see tapesched plot --help)"
            ]
        )


@plot.command(short_help="Draw a schedule's Gantt chart.")
@click.argument("instance_file", type=click.Path())
@click.argument("schedule_file", type=click.Path())
@file_out_option(OUT_HELP, required=True)
@reports_bad_input
def gantt(instance_file: str, schedule_file: str, out: FileOutput) -> None:
    """Draw the Gantt chart of a feasible schedule: a lane per drive and per arm.

    A drive's lane shows its transfers (labelled by request), loads, locates
    and unloads, timed as the validator reads them (a drive operation the
    schedule does not record at the earliest time the rules allow); an
    arm's lane its mounts and dismounts; the top lane marks each release.
    A schedule does not say which arm did an operation, so the operations
    are put on arms greedily, and the chart says so. An infeasible schedule
    is not drawn: one line naming it and its first violation, exit 2
    (tapesched verify lists every violation).
    """
    from tapesched.toolkit.plots.figures import format_of, render
    from tapesched.toolkit.plots.gantt import ARMS_NOTE, gantt_figure

    fmt = format_of(out.given)
    instance, schedule, report = load_and_validate(instance_file, schedule_file, timeline=True)
    if not report.feasible:
        first, more = report.violations[0], len(report.violations) - 1
        also = f" (and {more} more; tapesched verify lists them)" if more else ""
        fail([f"{schedule_file}: infeasible schedule, not drawn: {first}{also}"])
    echo_warnings(report)
    figure = gantt_figure(instance, schedule, report, Path(schedule_file).name)
    write_file(out.given, render(figure, fmt), out.option)
    arms = sum(library.arms for library in instance.libraries)
    click.echo(
        f"wrote {out.given}: {len(instance.drives)} drive lanes, {arms} arm lanes, "
        f"{len(schedule.requests)} requests, {len(schedule.operations)} arm operations"
    )
    click.echo(f"note: {ARMS_NOTE}")


@plot.command(short_help="Redraw an experiment's figure from its results.csv.")
@click.argument("results_file", type=click.Path())
@file_out_option(OUT_HELP, required=True)
@click.option(
    "--layout",
    type=click.Choice(("experiment", "metrics")),
    default=None,
    help="experiment (the default): the figure the experiment's run drew, when this version "
    "knows the experiment and draws its figure from results.csv alone, else a panel per "
    "metric; metrics: a panel per metric of the file.",
)
@click.option(
    "--metric",
    default=None,
    metavar="NAME",
    help="Draw this metric alone, a value of the file's metric column, on one panel "
    "(not with --layout).",
)
@reports_bad_input
def results(results_file: str, out: FileOutput, layout: str | None, metric: str | None) -> None:
    """Redraw an experiment's figure from its results.csv (tapesched experiment).

    RESULTS_FILE has the columns experiment, series, x_name, x, metric, mean,
    half_width, replications and saturated. By default the figure is the
    experiment's own, the one its run wrote as figure.png, for every
    experiment of this version; for one it does not know (or one of your own
    whose figure needs more than the file), a panel per metric, and a note
    says so. A panel
    draws a line per series with its 95 % intervals, a cross at the top for
    a saturated point, a dashed line for a point at x = inf. A bad file is
    one line per problem at line N.column, exit 2.
    """
    from tapesched.studies.results_file import load_results_csv
    from tapesched.studies.sweeps.redraw import redraw_results
    from tapesched.toolkit.plots.figures import format_of, render

    if metric is not None and layout is not None:
        fail([f"--metric: draws one metric on one panel, not with --layout {layout}"])
    fmt = format_of(out.given)
    rows = load_results_csv(results_file)
    try:
        drawn = redraw_results(rows, "metric" if metric else layout or "experiment", metric)
    except ValueError as exc:
        fail([f"{'--metric' if metric else results_file}: {exc}"])
    write_file(out.given, render(drawn.figure, fmt), out.option)
    counts = f"{drawn.series} series, {drawn.points} points"
    if drawn.layout == "metric":
        what = f"{metric} of {drawn.experiment}, {counts}"
    elif drawn.layout == "experiment":
        what = f"{drawn.experiment}'s own figure, from {counts} of {len(drawn.metrics)} metrics"
    else:
        what = f"a panel per metric of {drawn.experiment}, {len(drawn.metrics)} metrics, {counts}"
    click.echo(f"wrote {out.given}: {what}")
    if drawn.note:
        click.echo(f"note: {drawn.note}")


@plot.command(short_help="Draw a solver's incumbent and bound against time.")
@click.argument("result_file", type=click.Path())
@file_out_option(OUT_HELP, required=True)
@reports_bad_input
def trajectory(result_file: str, out: FileOutput) -> None:
    """Draw a solver's incumbent and bound against time from its result (solve --json).

    RESULT_FILE is what ``tapesched solve --json`` prints: its
    ``trajectory`` (each point's time_s, objective and bound) is drawn as
    steps, the incumbent solid and the bound dashed, ending at the run's
    runtime_s. A bad file is one line per problem at its JSON path, exit 2.
    """
    from tapesched.toolkit.plots.figures import format_of, render
    from tapesched.toolkit.plots.trajectory import load_trajectory, trajectory_figure

    fmt = format_of(out.given)
    run = load_trajectory(result_file)
    write_file(out.given, render(trajectory_figure(run), fmt), out.option)
    last = run.points[-1]
    click.echo(
        f"wrote {out.given}: {run.solver}, {len(run.points)} points, "
        f"last objective {last.objective:.6f} at {last.time_s:.2f} s"
    )
