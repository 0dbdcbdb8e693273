"""``tapesched metrics``: the metrics of a feasible schedule, as a table or JSON."""

from __future__ import annotations

import csv
import io
import json

import click
from rich.console import Console
from rich.table import Table

from tapesched.cli.common import (
    EXIT_INFEASIBLE,
    fail,
    instance_and_schedule,
    load_and_validate,
    print_violations,
    reports_bad_input,
)
from tapesched.toolkit.metrics import compute_metrics

_METRIC_LABELS = {
    "requests": ("requests", "{:d}"),
    "weighted_flow": ("weighted flow (sum w(C-r))", "{:.6f}"),
    "makespan_s": ("makespan (s)", "{:.3f}"),
    "max_weighted_flow": ("max weighted flow", "{:.6f}"),
    "mean_response_s": ("mean response time (s)", "{:.3f}"),
    "max_response_s": ("max response time (s)", "{:.3f}"),
    "mean_weighted_response": ("mean weighted response", "{:.6f}"),
    "mean_stretch": ("mean stretch", "{:.4f}"),
    "max_stretch": ("max stretch", "{:.4f}"),
    "drive_streaming_share_over_makespan": ("drive_streaming_share_over_makespan", "{:.2%}"),
    "mounts": ("mounts (tape switches)", "{:d}"),
    "dismounts": ("dismounts", "{:d}"),
    "arm_busy_share_over_makespan": ("arm_busy_share_over_makespan", "{:.2%}"),
    "total_mb": ("data transferred (MB)", "{:.1f}"),
    "throughput_mb_s_over_makespan": ("throughput_mb_s_over_makespan", "{:.3f}"),
}


@click.command(short_help="Print the metrics of a feasible schedule.")
@instance_and_schedule
@click.option(
    "--csv",
    "as_csv",
    is_flag=True,
    help="Print a CSV header and one row: instance, schedule, then each metric.",
)
@reports_bad_input
def metrics(instance_file: str, schedule_file: str, as_json: bool, as_csv: bool) -> None:
    """Print the metrics of a feasible schedule (exit 1 if it is infeasible).

    ``--json`` prints one object, metric name to value; ``--csv`` a header
    and one row (``instance``, ``schedule``, then the same metrics), so that
    the rows of many runs concatenate into one table. Shares and throughputs
    are over the makespan, named so (``drive_streaming_share_over_makespan``,
    ``arm_busy_share_over_makespan``, ``throughput_mb_s_over_makespan``): the
    names simulate and replay give the same quantities (toolkit.metrics.DEFINITIONS).
    """
    if as_json and as_csv:
        fail(["--json and --csv: choose one"])
    instance, schedule, report = load_and_validate(instance_file, schedule_file)
    if not report.feasible:
        print_violations(report)
        raise SystemExit(EXIT_INFEASIBLE)
    values = compute_metrics(instance, schedule, report).as_dict()
    if as_json:
        click.echo(json.dumps(values, indent=1))
        return
    if as_csv:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["instance", "schedule", *values])
        writer.writerow([instance.name, schedule_file, *values.values()])
        click.echo(out.getvalue(), nl=False)
        return
    table = Table(title=f"{instance.name} / {schedule_file}")
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key, (label, fmt) in _METRIC_LABELS.items():
        table.add_row(label, fmt.format(values[key]))
    Console(width=100).print(table)
