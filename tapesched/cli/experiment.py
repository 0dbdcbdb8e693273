"""``tapesched experiment``: one of the Blue Waters paper's or Golubchik et al.'s experiments,
swept and drawn.

The experiments are data (:mod:`tapesched.studies.studies`,
:mod:`tapesched.studies.golubchik_studies`);
the sweep runs their
points on local worker processes, in this process (``--workers 1``) or on a
Dask cluster (``--dask ADDRESS``), replicates each to a precision and keeps
every replication in a cache beside ``--out`` (:mod:`tapesched.studies.sweep`), and
the results are written as ``results.csv``, ``summary.json`` and
``figure.png`` (:mod:`tapesched.studies.study_report`), the directory whole or not
at all.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click
from attrs import asdict
from rich.console import Console
from rich.table import Table

from tapesched.cli.bw_main_options import BW_MAIN_OPTIONS, bw_main_options, given_bw_main
from tapesched.cli.common import (
    NumberType,
    allow_plugins_option,
    check_named_code,
    check_scenario_scheduler,
    fail,
    progress_bar,
    reports_bad_input,
)
from tapesched.cli.out_options import dir_out_option
from tapesched.simulator.schedulers.registry import BW_MAIN
from tapesched.toolkit.errors import InputError
from tapesched.toolkit.files.outputs import DirectoryOutput, kept_directory
from tapesched.toolkit.runtime.limits import MAX_WORKERS
from tapesched.toolkit.units import MAX_REPLICATIONS

if TYPE_CHECKING:
    from tapesched.solvers.plugins import SchedulerSpec
    from tapesched.studies.studies import Study
    from tapesched.studies.sweep import Cache, Point, PointResult

OUT_FILES = ("results.csv", "summary.json", "figure.png")
"""What ``experiment`` writes to ``--out``: an existing directory holding only these is replaced."""

QUICK_MAX_REPLICATIONS = 3
"""The replication cap of a ``--quick`` run (``--max-replications`` left out)."""

FULL_MAX_REPLICATIONS = 10
"""The replication cap of a full run (``--max-replications`` left out)."""


def _local_workers() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def all_studies() -> dict[str, Study]:
    """Every experiment by name: the Blue Waters paper's, then Golubchik et al.'s."""
    from tapesched.studies.golubchik_studies import GOLUBCHIK_STUDIES
    from tapesched.studies.studies import STUDIES

    return {**STUDIES, **GOLUBCHIK_STUDIES}


def experiment_names(ctx: click.Context) -> list[str]:
    """Every experiment's name: the swept ones (:func:`all_studies`), then those that are
    commands of their own (routed by ``tapesched``'s group, such as ``online-vs-offline``)."""
    routes = getattr(ctx.find_root().command, "routes", {})
    routed = [first for command, first in routes if command == ctx.info_name]
    return [*all_studies(), *routed]


def _listing() -> None:
    """One line per experiment: name, figure, title; then its x values and series."""
    from tapesched.studies.studies import sequence

    for study in all_studies().values():
        click.echo(f"{study.name}: {study.figure}, {study.title}")
        series = ", ".join(study.series)
        if study.quick_series:
            series += f" (--quick: {', '.join(study.quick_series)})"
        click.echo(
            f"  x = {study.axis.name}: {sequence(study.x_values)} "
            f"(--quick: {sequence(study.quick_x_values)}); series: {series}"
        )
        if study.kind == "map":
            click.echo(
                f"  size factors: {sequence(study.scales)} "
                f"(--quick: {sequence(study.quick_scales)}); the best series at each point"
            )
    click.echo(
        "online-vs-offline: a simulated run cut into windows, each online scheduler against "
        "the clairvoyant and the non-anticipative optimum"
    )
    click.echo(
        "  tapesched experiment online-vs-offline SCENARIO --window N --out DIR (see --help)"
    )
    click.echo(
        "bnl-coverage: 10, 50 and 100 % of a full tape read under each recall order (BNL's study)"
    )
    click.echo("  tapesched experiment bnl-coverage --out DIR [--quick] (see --help)")
    click.echo(
        "ecmwf-defer-dismount: the ECMWF sample's mounts and mount latency against the "
        "dismount delay, under lru, fifo and belady"
    )
    click.echo("  tapesched experiment ecmwf-defer-dismount --out DIR [--quick] (see --help)")
    click.echo(
        "cnaf-bulk-recall: a CMS bulk recall on 16 shared T10000D drives under static caps, "
        "CNAF's Orchestrator and the offline optimum (Cavalli et al., Table 1)"
    )
    click.echo("  tapesched experiment cnaf-bulk-recall --out DIR [--quick] (see --help)")
    click.echo(
        "durability: files and groups lost against the tape-loss probability, per policy and "
        "scheme, beside the binomial closed form"
    )
    click.echo("  tapesched experiment durability --out DIR [--quick] (see --help)")


HEADINGS = {
    "mean_weighted_response_s_per_gb": "weighted response (s/GB)",
    "mean_response_s": "response (s)",
    "drive_busy_share_over_horizon": "drive utilisation",
    "arm_busy_share_over_horizon": "arm utilisation",
    "mean_stretch": "stretch",
    "throughput_mb_s_over_window": "throughput (MB/s)",
}
"""The table's heading of each metric a study reports
(:attr:`tapesched.studies.studies.Study.metrics`)."""


def _cell(result: PointResult, metric: str) -> str:
    """A metric's mean ± 95 % half-width, or why there is none."""
    if result.saturated:
        return "saturated"
    e = result.estimates[metric]
    if e.mean is None:
        return e.reason
    return f"{e.mean:.4g}" if e.half_width is None else f"{e.mean:.4g} ± {e.half_width:.2g}"


def _print_table(study: Study, results: Sequence[PointResult]) -> None:
    """The results as a table: a row per point, then each series' maximum sustainable rate."""
    from tapesched.studies.study_report import by_series, max_sustainable_rate

    metrics = study.metrics

    table = Table(title=f"{study.name} ({study.figure}): {study.title}; mean ± 95 % half-width")
    table.add_column("series")
    table.add_column(study.axis.name, justify="right")
    for metric in metrics:
        table.add_column(HEADINGS.get(metric, metric), justify="right")
    table.add_column("replications", justify="right")
    for r in results:
        table.add_row(
            r.point.series,
            f"{r.point.x:g}",
            *(_cell(r, m) for m in metrics),
            str(len(r.runs)),
        )
    Console(width=120).print(table)
    if study.axis.is_rate:
        for name, group in by_series(results).items():
            rate = max_sustainable_rate(group)
            unit = study.axis.name.removeprefix("rate_per_")
            said = "none (every rate saturated)" if rate is None else f"{rate:g} requests/{unit}"
            click.echo(f"{name}: maximum sustainable rate {said}")
    if study.kind == "map":
        from tapesched.studies.study_report import best_map

        for (scale, x), vector in sorted(best_map(results, metrics[0]).items()):
            click.echo(f"sizes x{scale:g}, {study.axis.name} {x:g}: best {vector}")


@click.command()
@click.argument("name", required=False)
@click.option("--list", "listing", is_flag=True, help="List the experiments and exit.")
@dir_out_option(
    OUT_FILES,
    "Directory to write (results.csv, summary.json, figure.png), whole or not at all.",
)
@click.option("--quick", is_flag=True, help="Fewer points, shorter horizons: minutes on 2 cores.")
@click.option(
    "--workers",
    type=click.IntRange(min=1, max=MAX_WORKERS),
    default=None,
    help="Local worker processes (default: one per core; 1 runs in this process).",
)
@click.option(
    "--dask",
    "dask_address",
    default=None,
    metavar="ADDRESS",
    help="Run on the Dask distributed scheduler at ADDRESS (e.g. tcp://host:8786).",
)
@click.option(
    "--scheduler",
    default=None,
    metavar="NAME",
    help="Run every point under this scheduler instead of the experiment's own (bw-main, the "
    "Blue Waters paper's MAIN-SCHEDULER; golubchik for the gol- experiments): an online "
    "heuristic of `tapesched solvers` or module.path:Attr.",
)
@click.option("--seed", type=int, default=1, help="The experiment's seed.")
@click.option(
    "--precision",
    type=NumberType(min=0, max=1, min_open=True),
    default=0.05,
    help="Replicate each point until its 95 %% interval is within this share of the mean.",
)
@click.option(
    "--max-replications",
    type=click.IntRange(min=2, max=MAX_REPLICATIONS),
    default=None,
    help=f"Replication cap per point (default {FULL_MAX_REPLICATIONS}, "
    f"--quick {QUICK_MAX_REPLICATIONS}).",
)
@click.option(
    "--cache",
    "cache_dir",
    type=click.Path(),
    default=None,
    help="Where replications are kept for a rerun to resume from (default: DIR.cache).",
)
@click.option(
    "--scenario",
    "scenario_file",
    type=click.Path(),
    default=None,
    help="The scenario the experiment starts from (default: instances/scenarios/blue-waters.json; "
    "for the gol- experiments instances/scenarios/golubchik/ampex.json).",
)
@bw_main_options
@allow_plugins_option
@reports_bad_input
def experiment(
    name: str | None,
    listing: bool,
    out: DirectoryOutput | None,
    quick: bool,
    workers: int | None,
    dask_address: str | None,
    scheduler: str | None,
    seed: int,
    precision: float,
    max_replications: int | None,
    cache_dir: str | None,
    scenario_file: str | None,
    max_light_load: int | None,
    min_lb_interval: float | None,
    max_waiting_time: float | None,
    max_req_count: int | None,
    max_imbalance: float | None,
    allow_plugins: bool,
) -> None:
    """Run the experiment NAME (see --list) and draw its figure.

    Writes to --out: results.csv (experiment, series, x_name, x, metric, mean,
    half_width, replications, saturated: a row per point, series and
    metric), summary.json (the settings, every point's estimates and, over
    arrival rates, each policy's maximum sustainable rate) and figure.png.
    Each replication is kept in the cache (DIR.cache by default), so that a
    run interrupted and started again resumes where it stopped.
    """
    if listing:
        _listing()
        return
    from tapesched.simulator.run.experiment import override
    from tapesched.simulator.scenario.document import load_scenario
    from tapesched.simulator.scenario.spec import check_runnable
    from tapesched.studies.studies import Unavailable, points, unavailable
    from tapesched.toolkit.registry import unknown_message

    if name is None:
        fail(["NAME: required, and missing (see tapesched experiment --list)"])
    studies = all_studies()
    study = studies.get(name)
    if study is None:
        fail([unknown_message("experiment", name, experiment_names(click.get_current_context()))])
    if scheduler is not None:
        check_scenario_scheduler(scheduler)
    running = scheduler or study.scheduler
    why = unavailable(study, running)
    if why is not None:
        fail([f"{name}: {why}"])
    if out is None:
        fail(["--out: required, and missing"])
    if dask_address is not None and workers is not None:
        fail(["--workers: not with --dask (the cluster's workers run the points)"])
    cache = _cache(cache_dir, out)
    given = scenario_file or str(study.scenario_file)
    scenario = load_scenario(given)
    check_named_code(scenario, given, allow_plugins, scheduler=running)
    if study.axis.setting == "min_lb_interval_s" and min_lb_interval is not None:
        fail([f"{BW_MAIN_OPTIONS['min_lb_interval_s']}: {name} varies it (its x axis)"])
    params = given_bw_main(
        scenario.run.bw_main,
        str(running),
        max_light_load=max_light_load,
        min_lb_interval=min_lb_interval,
        max_waiting_time=max_waiting_time,
        max_req_count=max_req_count,
        max_imbalance=max_imbalance,
    )
    if params is not None:
        scenario = override(scenario, bw_main=params)
    try:
        swept = points(study, scenario, quick, running)
    except Unavailable as exc:
        fail([f"{name}: {exc}"])
    problems = {str(p) for point in swept for p in check_runnable(point.scenario)}
    if problems:
        fail([f"{given}: {p} (in {name})" for p in sorted(problems)])
    _run(study, swept, out, quick, workers, dask_address, seed, precision, max_replications,
         cache, given, running)  # fmt: skip


def _cache(cache_dir: str | None, out: DirectoryOutput) -> Cache:
    """The cache of replications: ``--cache``, else ``DIR.cache`` beside ``--out``, checked
    before any work (:func:`toolkit.files.outputs.kept_directory`); its warnings go to stderr."""
    from tapesched.studies.sweep import Cache

    directory = cache_dir or str(Path(out.given).with_name(Path(out.given).name + ".cache"))
    try:
        kept_directory(directory, "--cache" if cache_dir is not None else None)
    except InputError as exc:
        hint = "" if cache_dir is not None else " (the cache of --out; give another with --cache)"
        fail([line + hint for line in exc.lines()])
    return Cache(directory, warn=lambda line: click.echo(line, err=True))


def _run(
    study: Study,
    swept: Sequence[Point],
    out: DirectoryOutput,
    quick: bool,
    workers: int | None,
    dask_address: str | None,
    seed: int,
    share: float,
    max_replications: int | None,
    cache: Cache,
    scenario_file: str,
    scheduler: SchedulerSpec,
) -> None:
    """Sweep the points, print the table, write the directory."""
    from tapesched.studies.study_report import draw_figure, results_csv, summary_document
    from tapesched.studies.sweep import ClusterUnreachable, Precision, executor, run_sweep
    from tapesched.toolkit.files.json_documents import dumps, write_atomic

    cap = max_replications or (QUICK_MAX_REPLICATIONS if quick else FULL_MAX_REPLICATIONS)
    precision = Precision(
        share=share, min_replications=min(2, cap), max_replications=cap, metric=study.metrics[0]
    )
    count = workers or _local_workers()
    where = f"the Dask cluster at {dask_address}" if dask_address else f"{count} worker(s)"
    click.echo(f"{study.name}: {len(swept)} points on {where}; cache {cache.directory}")
    began = time.perf_counter()
    try:
        with executor(count, dask_address) as pool, progress_bar() as progress:
            task = progress.add_task(study.name, total=len(swept), current="")

            def advance(done: int, total: int) -> None:
                progress.update(task, completed=done, current=f"{done} of {total} points")

            outcome = run_sweep(
                swept,
                seed=seed,
                precision=precision,
                pool=pool,
                cache=cache,
                progress=advance,
            )
    except ClusterUnreachable as exc:
        fail([f"--dask: {exc}"])
    elapsed = time.perf_counter() - began
    _print_table(study, outcome.results)
    click.echo(
        f"{outcome.simulated} replications run, {outcome.cached} from the cache, in {elapsed:.1f} s"
    )
    settings: dict[str, object] = {
        "scenario_file": scenario_file,
        "scheduler": scheduler if isinstance(scheduler, str) else repr(scheduler),
        "seed": seed,
        "quick": quick,
        "sizes": study.sizes,
        "rate_per_h": study.rate_per_h,
        "block_mb": study.block_mb,
        "duration_s": study.horizon_s(quick),
        "x_values": list(study.xs(quick)),
        **({"size_factors": list(study.sizes_scales(quick))} if study.kind == "map" else {}),
    }
    if scheduler == BW_MAIN and swept:
        # The balancer's parameters of the first point (bw-fig10 varies MINLBINTERVAL in x).
        settings["bw_main"] = asdict(swept[0].scenario.run.bw_main)
    document = summary_document(study, outcome.results, settings, precision)
    with out.building() as staging:
        write_atomic(staging / "results.csv", results_csv(study, outcome.results))
        write_atomic(staging / "summary.json", dumps(document))
        draw_figure(study, outcome.results, staging / "figure.png")
    click.echo(f"wrote {out.given}; figure: {Path(out.given) / 'figure.png'}")
