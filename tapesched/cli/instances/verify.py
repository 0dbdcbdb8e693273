"""``tapesched verify``: judge a schedule with the independent validator."""

from __future__ import annotations

import click

from tapesched.cli.common import (
    EXIT_INFEASIBLE,
    NO_PREFETCH_HELP,
    echo_verdict,
    instance_and_schedule,
    load_and_validate,
    reports_bad_input,
)
from tapesched.toolkit.files.json_documents import dumps
from tapesched.toolkit.validator import summary


@click.command(short_help="Judge a schedule with the independent validator.")
@instance_and_schedule
@click.option("--no-prefetch", "no_prefetch", is_flag=True, help=NO_PREFETCH_HELP)
@reports_bad_input
def verify(instance_file: str, schedule_file: str, as_json: bool, no_prefetch: bool) -> None:
    """Verify a schedule: exit 0 if feasible (objective on the last line), 1 if not.

    With --no-prefetch, also that nothing is done for a request before its
    release (rule ``prefetch``), as ``solve --no-prefetch`` promises.
    """
    _, schedule, report = load_and_validate(instance_file, schedule_file, prefetch=not no_prefetch)
    if as_json:
        click.echo(dumps(summary(report)), nl=False)
    else:
        echo_verdict(schedule, report)
    if not report.feasible:
        raise SystemExit(EXIT_INFEASIBLE)
