"""``tapesched bound``: every lower bound of an instance's optimum, side by side.

A heuristic's gap is only as meaningful as the bound it is measured
against; this command shows each family of :mod:`solvers.bounds.bounds` and, with
``--windows N``, the bound of :mod:`solvers.bounds.window_bound` (CP-SAT on runs of
``N`` requests, each alone), so a user can see which one binds and how
much a few seconds of CP-SAT add.
"""

from __future__ import annotations

import json

import click

from tapesched.cli.common import TimeLimitType, reports_bad_input
from tapesched.toolkit.files.instance_file import load_instance


@click.command(short_help="Print the lower bounds of an instance's optimum.")
@click.argument("instance_file", type=click.Path())
@click.option(
    "--windows",
    "window",
    type=click.IntRange(min=1),
    default=None,
    help="Also bound by CP-SAT on windows of this many requests (release order), each alone.",
)
@click.option(
    "--time-limit",
    "time_limit_s",
    type=TimeLimitType(),
    default=60.0,
    show_default=True,
    help="Seconds for all the windows (with --windows).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="CP-SAT's seed.")
@click.option("--json", "as_json", is_flag=True, help="Print the bounds as one JSON object.")
@reports_bad_input
def bound(
    instance_file: str, window: int | None, time_limit_s: float, seed: int, as_json: bool
) -> None:
    """Print the lower bounds of an instance's optimum under its objective.

    Lines (or, with ``--json``, keys): ``request`` (each request alone),
    ``drive-time`` (a library's drives pooled), ``arm`` (first mounts),
    ``tape`` (a tape's reads one at a time), ``switch`` (drive time with
    forced mounts), ``best`` (the largest, what the solvers report) and,
    with ``--windows N``, ``windows`` (CP-SAT's bound on each window of N
    requests alone, added up; how many windows there were, were solved in
    the time and were proved optimal).
    """
    from tapesched.solvers.bounds.bounds import (
        arm_bound,
        drive_time_bound,
        lower_bound,
        request_bound,
        switch_bound,
        tape_bound,
    )

    instance = load_instance(instance_file)
    values: dict[str, object] = {
        "instance": instance_file,
        "objective": instance.objective,
        "request": request_bound(instance),
        "drive-time": drive_time_bound(instance),
        "arm": arm_bound(instance),
        "tape": tape_bound(instance),
        "switch": switch_bound(instance),
        "best": lower_bound(instance),
    }
    if window is not None:
        from tapesched.solvers.bounds.window_bound import window_bound

        found = window_bound(instance, window=window, time_limit_s=time_limit_s, seed=seed)
        values["windows"] = found.bound
        values["window"] = window
        values["window_count"] = found.windows
        values["windows_solved"] = found.solved
        values["windows_proved"] = found.proved
        values["windows_runtime_s"] = round(found.runtime_s, 3)
        values["best"] = max(float(values["best"]), found.bound)  # type: ignore[arg-type]
    if as_json:
        click.echo(json.dumps(values, indent=2))
        return
    click.echo(f"{instance_file}: lower bounds of the {instance.objective} optimum")
    for key in ("request", "drive-time", "arm", "tape", "switch"):
        click.echo(f"  {key:<11} {values[key]:,.4f}")
    if window is not None:
        click.echo(
            f"  {'windows':<11} {values['windows']:,.4f}  ({values['window_count']} window(s) "
            f"of {window}, {values['windows_solved']} solved, {values['windows_proved']} "
            f"proved, {values['windows_runtime_s']} s)"
        )
    click.echo(f"  {'best':<11} {values['best']:,.4f}")
