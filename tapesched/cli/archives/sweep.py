"""``tapesched sweep``: what-if sweeps of a site's own replay (the ``site-sweep`` experiment).

Parses the options, or a sweep file (``tapesched.sweep/1``, whose settings the options
given on the command line replace), calls :func:`tapesched.studies.runner.run_experiment`
on ``site-sweep`` and prints what the run reports, as ``tapesched experiment`` does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from tapesched.cli.archives.experiment import terminal
from tapesched.cli.common import NumberType, fail, reports_bad_input
from tapesched.cli.out_options import dir_out_option
from tapesched.cli.progress import quiet_option
from tapesched.studies.experiment import OUT_FILES
from tapesched.toolkit.runtime.limits import MAX_WORKERS
from tapesched.toolkit.units import MAX_REPLICATIONS

if TYPE_CHECKING:
    from tapesched.toolkit.files.outputs import DirectoryOutput


@click.command(short_help="What-if sweeps of a site: its log replayed or a scenario simulated.")
@click.argument("sweep_file", metavar="[SWEEP.json]", required=False, type=click.Path())
@click.option("--site", metavar="SITE", type=click.Path(), help="The site file (tapesched.site/1).")
@click.option("--trace", metavar="LOG", type=click.Path(), help="The site's request log (CSV).")
@click.option(
    "--scenario",
    metavar="SCENARIO",
    type=click.Path(),
    help="A scenario simulated on the site at each point, in place of --trace.",
)
@click.option(
    "--vary",
    metavar="AXIS=V1,V2,...",
    multiple=True,
    help="An axis and its values (repeat for more; ';' joins several in one): a run option "
    "(drives, scheduler, mount-policy, dismount-at-once, seed), a key of the site by its "
    "path (libraries[0].arms, pools[0].fill, ...) or, with --scenario, of the scenario "
    "(workload.rate, policy.name, ...).",
)
@click.option(
    "--metric",
    metavar="NAME",
    multiple=True,
    help="A metric to report (repeat for more). A replay's (default mean_latency_s and "
    "mounts): mounts, hits, cross_level_mounts, mean_latency_s, median_latency_s, "
    "p95_latency_s, max_latency_s, mean_mount_latency_s, drive_busy_share_over_horizon, "
    "arm_busy_share_over_horizon, backlog_end. A scenario's (default mean_response_s and "
    "mounts_per_tape): those of tapesched simulate.",
)
@click.option(
    "--columns",
    metavar="NAME=COLUMN,...",
    default=None,
    help="The log's own names of its columns, e.g. time=ts,cartridge=vid.",
)
@click.option(
    "--limit", type=click.IntRange(min=1), default=None, help="Replay the first N requests."
)
@click.option("--seed", type=int, default=None, help="A scenario sweep's seed (default 1).")
@click.option(
    "--precision",
    type=NumberType(min=0, max=1, min_open=True),
    default=None,
    help="A scenario sweep replicates each point until its 95 % interval is within this "
    "share of the mean (default 0.05).",
)
@click.option(
    "--max-replications",
    type=click.IntRange(2, MAX_REPLICATIONS),
    default=None,
    help="A scenario sweep's replications a point at most.",
)
@dir_out_option(OUT_FILES, "Directory to write (results.csv, summary.json, figure.png).")
@click.option("--quick", is_flag=True, help="Replay the first 2,000 requests (--limit wins).")
@click.option(
    "--workers",
    type=click.IntRange(1, MAX_WORKERS),
    default=None,
    help="Local worker processes (default: one per core; 1 runs in this process).",
)
@click.option("--dask", metavar="ADDRESS", default=None, help="Run on the Dask scheduler there.")
@click.option(
    "--cache",
    type=click.Path(),
    default=None,
    help="Where points are kept for a rerun (default: DIR.cache).",
)
@quiet_option
@reports_bad_input
def sweep(
    sweep_file: str | None,
    out: DirectoryOutput | None,
    quick: bool,
    vary: tuple[str, ...],
    metric: tuple[str, ...],
    **given: Any,
) -> None:
    """Replay a site's request log, or simulate a scenario on the site, at every point of the
    axes varied (site-sweep).

    tapesched sweep --site S --trace T --vary drives=8,12 --vary
    mount-policy=lru,at-once --out DIR, or tapesched sweep SWEEP.json
    --out DIR: a sweep file {"format": "tapesched.sweep/1", "site",
    "trace", "vary": {"drives": [8, 12], ...}, "metrics", "columns",
    "limit"} (paths relative to it; options given here win). The points
    are the axes' cartesian product; writes results.csv, summary.json and
    figure.png (see tapesched experiment site-sweep --help), each point kept
    in the cache for a rerun. With --scenario SCENARIO (or "scenario" in
    the file) in place of --trace, each point simulates the scenario on the
    site, replicated to --precision; the scenario's keys (workload.rate,
    policy.name, ...) may be axes too.
    """
    from tapesched.studies.experiment import ExperimentError
    from tapesched.studies.runner import run_experiment
    from tapesched.studies.site_sweep.sweep_file import sweep_settings

    if out is None:
        fail(["--out: required, and missing"])
    values: dict[str, Any] = sweep_settings(sweep_file) if sweep_file is not None else {}
    for run, other in (("trace", "scenario"), ("scenario", "trace")):
        if given.get(run) is not None:
            values.pop(other, None)
    values.update({k: v for k, v in given.items() if v is not None})
    if vary:
        values["vary"] = ";".join(vary)
    if metric:
        values["metric"] = ",".join(metric)
    try:
        run_experiment("site-sweep", out, quick=quick, show=terminal(), **values)
    except ExperimentError as exc:
        fail(exc.lines)
