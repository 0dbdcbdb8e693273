"""A swept study as an experiment: its options, its checks, the sweep, and what it reports.

``tapesched experiment bw-fig6`` and every other :class:`~tapesched.studies.sweeps.study.Study`
(:mod:`tapesched.studies.blue_waters.figures`, :mod:`tapesched.studies.golubchik.figures`) run
here: the points of the study (:func:`~tapesched.studies.sweeps.study.points`) on local worker
processes, in this process (``--workers 1``) or on a Dask cluster (``--dask ADDRESS``),
each replicated to a precision, every replication kept in a cache beside ``--out``
(:mod:`tapesched.studies.sweeps.sweep`); the results are a row per point, series and metric, a
summary with each series' maximum sustainable rate
(:mod:`tapesched.studies.sweeps.report`) and the figure
(:mod:`tapesched.studies.sweeps.figure`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from attrs import asdict, frozen

from tapesched.simulator.scenario.consent import ALLOW_PLUGINS_HELP
from tapesched.studies.experiment import (
    OUT_FILES,
    ExperimentError,
    ExperimentRun,
    Parameter,
    Results,
)
from tapesched.studies.sweeps.study import Study, sequence
from tapesched.studies.sweeps.sweep import PointResult, Precision
from tapesched.toolkit.runtime.limits import MAX_WORKERS
from tapesched.toolkit.units import MAX_COUNT, MAX_REPLICATIONS

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from tapesched.simulator.scenario.spec import Scenario
    from tapesched.studies.sweeps.sweep import Cache, Point

QUICK_MAX_REPLICATIONS = 3
"""The replication cap of a ``--quick`` run (``--max-replications`` left out)."""

FULL_MAX_REPLICATIONS = 10
"""The replication cap of a full run (``--max-replications`` left out)."""

BW_MAIN_PARAMETERS = {
    "max_light_load": Parameter(
        "max_light_load",
        "integer",
        "bw-main's MAXLIGHTLOAD: most requests on a process that still takes one more.",
        low=0,
        high=MAX_COUNT,
    ),
    "min_lb_interval_s": Parameter(
        "min_lb_interval",
        "duration",
        "bw-main's MINLBINTERVAL: the load balancer's period, e.g. 6d.",
    ),
    "max_waiting_time_s": Parameter(
        "max_waiting_time",
        "duration",
        "bw-main's MAXWAITINGTIME: the balancer runs once a request waited longer, e.g. 1h.",
    ),
    "max_req_count": Parameter(
        "max_req_count",
        "integer",
        "bw-main's MAXREQCOUNT: the balancer runs once more requests wait.",
        low=0,
        high=MAX_COUNT,
    ),
    "max_imbalance": Parameter(
        "max_imbalance",
        "number",
        "bw-main's MAXIMBALANCE: the balancer runs once the types' loads differ more.",
        low=0,
    ),
}
"""The five parameters of ``bw-main`` the paper names (MAXLIGHTLOAD ... MAXIMBALANCE), by the
field of :class:`simulator.schedulers.bw_main.BwMainParams` each sets (``simulate`` takes the
same options)."""

PARAMETERS = (
    Parameter(
        "workers",
        "integer",
        "Local worker processes (default: one per core; 1 runs in this process).",
        low=1,
        high=MAX_WORKERS,
    ),
    Parameter(
        "dask",
        "text",
        "Run on the Dask distributed scheduler at ADDRESS (e.g. tcp://host:8786).",
        metavar="ADDRESS",
    ),
    Parameter(
        "scheduler",
        "text",
        "Run every point under this scheduler instead of the experiment's own (bw-main, the "
        "Blue Waters paper's MAIN-SCHEDULER; golubchik for the gol- experiments): an online "
        "heuristic of `tapesched solvers` or module.path:Attr.",
        metavar="NAME",
    ),
    Parameter("seed", "integer", "The experiment's seed.", quick=1, full=1),
    Parameter(
        "precision",
        "number",
        "Replicate each point until its 95 % interval is within this share of the mean.",
        quick=0.05,
        full=0.05,
        low=0,
        high=1,
        low_open=True,
    ),
    Parameter(
        "max_replications",
        "integer",
        f"Replication cap per point (default {FULL_MAX_REPLICATIONS}, "
        f"--quick {QUICK_MAX_REPLICATIONS}).",
        quick=QUICK_MAX_REPLICATIONS,
        full=FULL_MAX_REPLICATIONS,
        low=2,
        high=MAX_REPLICATIONS,
    ),
    Parameter(
        "cache",
        "path",
        "Where replications are kept for a rerun to resume from (default: DIR.cache).",
    ),
    Parameter(
        "scenario",
        "path",
        "The scenario the experiment starts from (default: instances/scenarios/blue-waters.json; "
        "for the gol- experiments instances/scenarios/golubchik/ampex.json).",
    ),
    *BW_MAIN_PARAMETERS.values(),
    Parameter("allow_plugins", "flag", ALLOW_PLUGINS_HELP),
)
"""The options of every swept study."""

HELP = """Run the experiment and draw its figure.

Writes to --out: results.csv (experiment, series, x_name, x, metric, mean,
half_width, replications, saturated: a row per point, series and
metric), summary.json (the settings, every point's estimates and, over
arrival rates, each policy's maximum sustainable rate) and figure.png.
Each replication is kept in the cache (DIR.cache by default), so that a
run interrupted and started again resumes where it stopped.
"""


def local_workers() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


@frozen
class SweptStudy:
    """A :class:`~tapesched.studies.sweeps.study.Study` as an experiment (see the module)."""

    study: Study

    parameters = PARAMETERS
    help = HELP
    quick_help = "Fewer points, shorter horizons: minutes on 2 cores."
    outputs = ()
    redraws_from_rows = True

    @property
    def name(self) -> str:
        """The study's name (``bw-fig6``)."""
        return self.study.name

    @property
    def description(self) -> str:
        """The paper's figure and what it shows."""
        return f"{self.study.figure}, {self.study.title}"

    def details(self) -> list[str]:
        """Its x values and series (and ``--quick``'s); a map's size factors."""
        study = self.study
        series = ", ".join(study.series)
        if study.quick_series:
            series += f" (--quick: {', '.join(study.quick_series)})"
        lines = [
            f"x = {study.axis.name}: {sequence(study.x_values)} "
            f"(--quick: {sequence(study.quick_x_values)}); series: {series}"
        ]
        if study.kind == "map":
            lines.append(
                f"size factors: {sequence(study.scales)} "
                f"(--quick: {sequence(study.quick_scales)}); the best series at each point"
            )
        return lines

    def running(self, run: ExperimentRun) -> str:
        """The scheduler that runs the points: ``--scheduler``, else the study's own."""
        return str(run["scheduler"] or self.study.scheduler)

    def points(self, run: ExperimentRun) -> list[Point]:
        """The study's points from its scenario, every option checked first."""
        from tapesched.simulator.scenario.consent import named_code_problems, scheduler_problem
        from tapesched.simulator.scenario.document import load_scenario
        from tapesched.simulator.scenario.spec import check_runnable
        from tapesched.studies.sweeps.study import Unavailable, points, unavailable

        study = self.study
        if run["scheduler"] is not None:
            problem = scheduler_problem(run["scheduler"])
            if problem is not None:
                raise ExperimentError([f"--scheduler: {problem}"])
        running = self.running(run)
        why = unavailable(study, running)
        if why is not None:
            raise ExperimentError([f"{study.name}: {why}"])
        if run["dask"] is not None and run["workers"] is not None:
            why = "not with --dask (the cluster's workers run the points)"
            raise ExperimentError([f"--workers: {why}"])
        cache = self.cache(run)
        given = self.scenario_file(run)
        scenario = load_scenario(given)
        allowed = bool(run["allow_plugins"])
        problems = named_code_problems(scenario, given, allowed, scheduler=running)
        if problems:
            raise ExperimentError(problems)
        scenario = self._with_bw_main(run, scenario, running)
        try:
            swept = points(study, scenario, run.quick, running)
        except Unavailable as exc:
            raise ExperimentError([f"{study.name}: {exc}"]) from None
        wrong = {str(p) for point in swept for p in check_runnable(point.scenario)}
        if wrong:
            raise ExperimentError([f"{given}: {p} (in {study.name})" for p in sorted(wrong)])
        where = (
            f"the Dask cluster at {run['dask']}"
            if run["dask"]
            else f"{run['workers'] or local_workers()} worker(s)"
        )
        kept = "none" if cache is None else str(cache.directory)
        run.show.line(f"{study.name}: {len(swept)} points on {where}; cache {kept}")
        return swept

    def scenario_file(self, run: ExperimentRun) -> str:
        """The scenario the points start from: ``--scenario``, else the study's."""
        return str(run["scenario"] or self.study.scenario_file)

    def _with_bw_main(self, run: ExperimentRun, scenario: Scenario, running: str) -> Scenario:
        """``scenario`` with the bw-main parameters given; refused for another scheduler, and
        for the one the study's x varies."""
        from tapesched.simulator.results.replications import override
        from tapesched.simulator.schedulers.bw_main import with_params
        from tapesched.simulator.schedulers.registry import BW_MAIN

        given = {field: run[p.name] for field, p in BW_MAIN_PARAMETERS.items()}
        varied = self.study.axis.setting
        if given.get(varied) is not None:
            option = BW_MAIN_PARAMETERS[varied].option
            raise ExperimentError([f"{option}: {self.study.name} varies it (its x axis)"])
        if all(v is None for v in given.values()):
            return scenario
        if running != BW_MAIN:
            raise ExperimentError(
                [
                    f"{BW_MAIN_PARAMETERS[k].option}: only the {BW_MAIN} scheduler takes it; "
                    f"the scheduler is {running!r}"
                    for k, v in given.items()
                    if v is not None
                ]
            )
        return override(scenario, bw_main=with_params(scenario.run.bw_main, **given))

    def cache(self, run: ExperimentRun) -> Cache | None:
        """The cache of replications in :func:`cache_directory` (none when there is none)."""
        from tapesched.studies.sweeps.sweep import Cache

        directory = cache_directory(run)
        return None if directory is None else Cache(directory, warn=run.show.warn)

    def precision(self, run: ExperimentRun) -> Precision:
        """When a point has replications enough: ``--precision``, ``--max-replications``."""
        cap = run["max_replications"]
        return Precision(
            share=run["precision"],
            min_replications=min(2, cap),
            max_replications=cap,
            metric=self.study.metrics[0],
        )

    def run_point(self, point: Point, run: ExperimentRun) -> PointResult:
        """One point's replications, to the precision, in this process."""
        from tapesched.studies.sweeps.sweep import InProcess, run_sweep

        outcome = run_sweep(
            [point],
            seed=run["seed"],
            precision=self.precision(run),
            pool=InProcess(),
            cache=self.cache(run),
        )
        return outcome.results[0]

    def run_points(self, points: Sequence[Point], run: ExperimentRun) -> tuple[PointResult, ...]:
        """Every point at once, each replication a task of the executor (:func:`run_point`'s
        results, in parallel)."""
        from tapesched.studies.sweeps.sweep import ClusterUnreachable, executor, run_sweep

        count = run["workers"] or local_workers()
        try:
            with (
                executor(count, run["dask"]) as pool,
                run.show.progress(self.name, len(points)) as tick,
            ):
                outcome = run_sweep(
                    points,
                    seed=run["seed"],
                    precision=self.precision(run),
                    pool=pool,
                    cache=self.cache(run),
                    progress=lambda done, total: tick(done, f"{done} of {total} points"),
                )
        except ClusterUnreachable as exc:
            raise ExperimentError([f"--dask: {exc}"]) from None
        return outcome.results

    def results(
        self, run: ExperimentRun, outcomes: Sequence[PointResult], elapsed_s: float
    ) -> Results:
        """The rows, the summary with its settings, the table, and the replications run."""
        from tapesched.simulator.schedulers.registry import BW_MAIN
        from tapesched.studies.sweeps.report import report, result_rows, summary_document

        study = self.study
        quick = run.quick
        running = self.running(run)
        settings: dict[str, object] = {
            "scenario_file": self.scenario_file(run),
            "scheduler": running,
            "seed": run["seed"],
            "quick": quick,
            "sizes": study.sizes,
            "rate_per_h": study.rate_per_h,
            "block_mb": study.block_mb,
            "duration_s": study.horizon_s(quick),
            "x_values": list(study.xs(quick)),
            **({"size_factors": list(study.sizes_scales(quick))} if study.kind == "map" else {}),
        }
        if running == BW_MAIN and outcomes:
            # The balancer's parameters of the first point (bw-fig10 varies MINLBINTERVAL in x).
            settings["bw_main"] = asdict(outcomes[0].point.scenario.run.bw_main)
        cached = sum(r.cached for r in outcomes)
        simulated = sum(len(r.runs) for r in outcomes) - cached
        return Results(
            study.name,
            tuple(result_rows(study, outcomes)),
            summary_document(study, outcomes, settings, self.precision(run)),
            tuple(outcomes),
            report=(
                *report(study, outcomes),
                f"{simulated} replications run, {cached} from the cache, in {elapsed_s:.1f} s",
            ),
            ending=_wrote_figure,
        )

    def figure(self, results: Results) -> Figure:
        """The study's figure (:func:`tapesched.studies.sweeps.figure.study_figure`), drawn
        from the rows alone (:attr:`redraws_from_rows`)."""
        from tapesched.studies.sweeps.figure import study_figure

        return study_figure(self.study, results.rows)


def cache_directory(run: ExperimentRun) -> str | None:
    """Where a sweep keeps what it ran: ``--cache``, else ``DIR.cache`` beside the directory
    written (``None`` when there is neither), checked
    (:func:`toolkit.files.outputs.kept_directory`; one line, exit 2, naming ``--cache`` or
    the cache of ``--out``)."""
    from tapesched.toolkit.errors import InputError
    from tapesched.toolkit.files.outputs import kept_directory

    given = run["cache"]
    if given is None and run.out is None:
        return None
    directory = given or str(Path(run.out or "").with_name(Path(run.out or "").name + ".cache"))
    try:
        kept_directory(directory, "--cache" if given is not None else None)
    except InputError as exc:
        hint = "" if given is not None else " (the cache of --out; give another with --cache)"
        raise ExperimentError([line + hint for line in exc.lines()]) from None
    return str(directory)


def _wrote_figure(out: str) -> str:
    return f"wrote {out}; figure: {Path(out) / OUT_FILES[2]}"
