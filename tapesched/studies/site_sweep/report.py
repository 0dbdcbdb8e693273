"""``tapesched experiment site-sweep`` (``tapesched sweep``): what-if sweeps of a site's own
replay, or of a scenario simulated on the site.

Replays a site's request log on the site (:func:`simulator.site.runs.replay_site`) at every
point of the axes given (:mod:`tapesched.studies.site_sweep.axes`), on local processes or a
Dask cluster, each point kept in a cache beside ``--out``
(:mod:`tapesched.studies.site_sweep.points`), and writes:

- ``results.csv``: a row per point and metric. ``x`` is the first axis whose values are all
  numbers (with none, the first axis, ``x`` the value's position 0, 1, ...); the series is
  the other axes' values, ``name=value`` joined by ``, `` (``all`` with no other axis). A
  replay is deterministic: ``replications`` 1, ``half_width`` empty; a saturated replay's
  latencies are empty (``saturated`` true).
- ``summary.json``: the settings, the axes, each point's values, run options, replay summary
  (:meth:`simulator.replay.replay.ReplayResult.summary`) and homes counts.
- ``figure.png``: a panel per metric against x, a line per series, drawn from the rows
  alone (:func:`tapesched.studies.lines_figure.metrics_figure`).

With ``--scenario`` instead of ``--trace``, each point simulates the scenario on the
point's site, replicated to ``--precision`` (:mod:`tapesched.studies.site_sweep.scenario_points`):
the axes may then be the scenario's keys too, a row's ``half_width`` and ``replications``
are its replications', and ``summary.json`` holds every point's estimates and seeds.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import as_completed
from typing import TYPE_CHECKING, Any

from attrs import frozen
from rich.table import Table

from tapesched.simulator.results.records import Estimate
from tapesched.studies.experiment import (
    Experiment,
    ExperimentError,
    ExperimentRun,
    Parameter,
    Results,
    Wide,
)
from tapesched.studies.results_file import ResultRow
from tapesched.studies.site_sweep.axes import (
    RUN_AXES,
    SitePoint,
    SweepAxis,
    parse_vary,
    shown_value,
    sweep_points,
)
from tapesched.studies.site_sweep.points import (
    METRICS,
    PointCache,
    PointOutcome,
    file_digest,
    point_key,
    replay_point,
)
from tapesched.studies.site_sweep.scenario_points import (
    DEFAULT_SCENARIO_METRICS,
    SCENARIO_METRICS,
    ScenarioPoint,
    ScenarioSources,
    scenario_sweep_points,
)
from tapesched.studies.sweeps.swept_study import PARAMETERS as SWEPT_PARAMETERS
from tapesched.studies.sweeps.swept_study import cache_directory, local_workers

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from tapesched.studies.sweeps.sweep import Cache, PointResult, Precision

EXPERIMENT = "site-sweep"
"""The experiment's name under ``tapesched experiment``."""

TITLE = "a site's replay of its own log, or a scenario on the site, at every point of the axes"
"""The experiment's one-line title."""

DEFAULT_METRICS = "mean_latency_s,mounts"
"""The metrics reported when none is named."""

QUICK_LIMIT = 2000
"""The requests of the log a ``--quick`` run replays (a full run: all)."""

_SHARED = {p.name: p for p in SWEPT_PARAMETERS}

VARY_HELP = (
    "The axes, joined by ';': NAME=V1,V2,... (drives=8,12;mount-policy=lru,at-once). NAME is "
    f"a run option ({', '.join(RUN_AXES)}: the placement seed) or a key of the site by its "
    "path (libraries[0].arms, libraries[0].mount_s, libraries[0].drives[0].count, "
    "complex.pass_through_s, pools[0].fill, placement.seed); with --scenario, a key of the "
    "scenario by its path too (workload.rate, run.scheduler, policy.name); values are JSON "
    "scalars."
)

HELP = f"""Replay a site's request log (--trace), or simulate a scenario (--scenario), on
the site at every point of the axes varied.

The points are the cartesian product of the axes (--vary), in the order
given. drives is the site's drives: the count of a site whose drives are
one counted group (it may grow), else the first N of its drives. Each
changed site is read as a site file is, before any replay. Metrics
(--metric, comma-separated): {", ".join(METRICS)}. Writes to --out
results.csv (x: the first axis of numbers, series: the other axes'
values), summary.json (every point's replay summary and homes) and
figure.png (a panel per metric). Each point is kept in the cache
(DIR.cache by default): a second run reads it from there.

With --scenario, each point runs the scenario on the point's site (its
libraries, drives, movers and disk cache), replicated until the 95 %
interval of the first metric is within --precision of its mean; the axes
may be the scenario's keys (workload.rate=20/h,40/h, policy.name=single,
rait); metrics: {", ".join(SCENARIO_METRICS)}.
"""


def _metrics(text: str, known: Sequence[str]) -> tuple[str, ...]:
    """The metrics of ``--metric`` (comma-separated), each of ``known`` and named once."""
    names = [n.strip() for n in text.split(",")]
    problems = [
        f"--metric: unknown metric {n!r} (known: {', '.join(known)})"
        for n in names
        if n not in known
    ]
    problems += [
        f"--metric: {n!r} named twice" for n in sorted({n for n in names if names.count(n) > 1})
    ]
    if problems:
        raise ExperimentError(problems)
    return tuple(names)


def x_axis(axes: Sequence[SweepAxis]) -> int:
    """The index of the axis on x: the first whose values are all numbers, else the first."""
    return next((i for i, a in enumerate(axes) if a.numeric), 0)


def result_rows(
    axes: Sequence[SweepAxis],
    points: Sequence[SitePoint],
    outcomes: Sequence[PointOutcome],
    metrics: Sequence[str],
) -> list[ResultRow]:
    """A row per point and metric (see the module)."""
    k = x_axis(axes)
    axis = axes[k]
    rows = []
    for point, outcome in zip(points, outcomes, strict=True):
        value = point.values[k][1]
        x = float(value) if axis.numeric else float(axis.values.index(value))
        others = [f"{n}={shown_value(v)}" for i, (n, v) in enumerate(point.values) if i != k]
        series = ", ".join(others) or "all"
        for metric in metrics:
            estimate = Estimate(outcome.value(metric), None, 1, outcome.saturated)
            rows.append(ResultRow(EXPERIMENT, series, axis.name, x, metric, estimate))
    return rows


def _cell(value: float | None, metric: str) -> str:
    if value is None:
        return "saturated"
    if metric.endswith("_share_over_horizon"):
        return f"{value:.3f}"
    return f"{value:,.0f}" if not metric.endswith("_s") else f"{value:,.1f}"


def _table(
    axes: Sequence[SweepAxis],
    points: Sequence[SitePoint | ScenarioPoint],
    cells: Sequence[Sequence[str]],
    metrics: Sequence[str],
) -> Wide:
    """A row per point: the axes' values, then its metrics' ``cells``."""
    table = Table(title=f"{EXPERIMENT}: {len(points)} points")
    for axis in axes:
        table.add_column(axis.name)
    for metric in metrics:
        table.add_column(metric, justify="right")
    for point, row in zip(points, cells, strict=True):
        table.add_row(*(shown_value(v) for _, v in point.values), *row)
    return Wide(table, 40 + 22 * (len(axes) + len(metrics)))


@frozen
class SweepPlan:
    """A run's points, checked: the axes, the metrics, the log's digest and the cache of a
    replay sweep; a scenario sweep's precision and cache of replications (no log)."""

    axes: tuple[SweepAxis, ...]
    metrics: tuple[str, ...]
    points: tuple[Any, ...]
    """:class:`SitePoint` of a replay sweep, :class:`ScenarioPoint` of a scenario sweep."""
    log_digest: str | None
    cache: PointCache | None
    replications: Cache | None = None
    precision: Precision | None = None

    @property
    def simulates(self) -> bool:
        """Whether the points simulate a scenario (else they replay a log)."""
        return self.precision is not None


def _results(
    plan: SweepPlan,
    rows: Sequence[ResultRow],
    summary: dict[str, Any],
    outcomes: Sequence[Any],
    cells: Sequence[Sequence[str]],
    ending: str,
) -> Results:
    """A run's results: its rows, summary and outcomes, and a table of its points' ``cells``
    above the ``ending`` line."""
    table = _table(plan.axes, plan.points, cells, plan.metrics)
    return Results(EXPERIMENT, tuple(rows), summary, tuple(outcomes), report=(table, ending))


class SiteSweep(Experiment):
    """The experiment ``site-sweep`` (see the module)."""

    name = EXPERIMENT
    description = TITLE
    redraws_from_rows = True
    help = HELP
    quick_help = f"Replay the first {QUICK_LIMIT:,d} requests of the log (--limit wins)."
    parameters = (
        Parameter("site", "path", "The site file (tapesched.site/1).", required=True),
        Parameter("trace", "path", "The site's request log (CSV), replayed at each point."),
        Parameter(
            "scenario",
            "path",
            "A scenario (tapesched.scenario/1) simulated on the site at each point, in place "
            "of --trace.",
        ),
        Parameter("vary", "text", VARY_HELP, required=True, metavar="AXES"),
        Parameter(
            "metric",
            "text",
            f"Metrics reported, comma-separated (a replay's: {', '.join(METRICS)}; default "
            f"{DEFAULT_METRICS}; a scenario's: {', '.join(SCENARIO_METRICS)}; default "
            f"{DEFAULT_SCENARIO_METRICS}).",
            metavar="NAMES",
        ),
        Parameter(
            "columns",
            "text",
            "The log's own names of its columns, e.g. time=ts,cartridge=vid.",
            metavar="NAME=COLUMN,...",
        ),
        Parameter(
            "limit",
            "integer",
            f"Replay the first N requests of the log (--quick: {QUICK_LIMIT:,d}; else all).",
            quick=QUICK_LIMIT,
            low=1,
            metavar="N",
        ),
        _SHARED["seed"],
        _SHARED["precision"],
        _SHARED["max_replications"],
        _SHARED["workers"],
        _SHARED["dask"],
        _SHARED["cache"],
    )

    def details(self) -> list[str]:
        """How to run it."""
        return [
            f"tapesched experiment {EXPERIMENT} --site SITE --trace LOG --vary AXES --out DIR "
            "(or tapesched sweep; see --help)",
            f"tapesched experiment {EXPERIMENT} --site SITE --scenario SCENARIO --vary AXES "
            "--out DIR: the scenario simulated on the site, replicated",
        ]

    def plan(self, run: ExperimentRun) -> SweepPlan:
        """The run's axes, metrics and points, every setting checked (see :meth:`points`);
        made once for a run."""
        last = getattr(self, "_last", None)
        if last is not None and last[0] is run:
            return last[1]
        plan = self._plan(run)
        self._last = (run, plan)
        return plan

    def _plan(self, run: ExperimentRun) -> SweepPlan:
        from tapesched.toolkit.files.json_documents import read_json
        from tapesched.toolkit.files.request_log import parse_columns

        if run["dask"] is not None and run["workers"] is not None:
            raise ExperimentError(
                ["--workers: not with --dask (the cluster's workers run the points)"]
            )
        if (run["trace"] is None) == (run["scenario"] is None):
            raise ExperimentError(
                ["--trace or --scenario: give one (a log to replay or a scenario to simulate)"]
            )
        if run["scenario"] is not None:
            return self._scenario_plan(run)
        metrics = _metrics(run["metric"] or DEFAULT_METRICS, METRICS)
        columns = None
        if run["columns"] is not None:
            try:
                columns = parse_columns(run["columns"])
            except ValueError as exc:
                raise ExperimentError([f"--columns: {exc}"]) from None
        axes = tuple(parse_vary(run["vary"]))
        site_file, log_file = str(run["site"]), str(run["trace"])
        points = sweep_points(
            axes, read_json(site_file), site_file, log_file, columns=columns, limit=run["limit"]
        )
        directory = cache_directory(run)
        cache = None if directory is None else PointCache(directory, run.show.warn)
        return SweepPlan(axes, metrics, tuple(points), file_digest(log_file), cache)

    def _scenario_plan(self, run: ExperimentRun) -> SweepPlan:
        """The plan of a scenario sweep: its points read and checked, its precision."""
        from tapesched.studies.sweeps.sweep import Cache, Precision
        from tapesched.toolkit.files.json_documents import read_json

        metrics = _metrics(run["metric"] or DEFAULT_SCENARIO_METRICS, SCENARIO_METRICS)
        axes = tuple(parse_vary(run["vary"]))
        site_file, scenario_file = str(run["site"]), str(run["scenario"])
        sources = ScenarioSources(
            read_json(site_file), site_file, read_json(scenario_file), scenario_file
        )
        points = scenario_sweep_points(axes, sources, x_axis(axes))
        cap = run["max_replications"]
        precision = Precision(
            share=run["precision"],
            min_replications=min(2, cap),
            max_replications=cap,
            metric=metrics[0],
        )
        directory = cache_directory(run)
        cache = None if directory is None else Cache(directory, warn=run.show.warn)
        return SweepPlan(axes, metrics, tuple(points), None, None, cache, precision)

    def points(self, run: ExperimentRun) -> list[SitePoint]:
        """The points of the axes, each checked, and the log read once (its rows checked on
        the site as given) before any replay."""
        from tapesched.simulator.site.runs import read_site_log

        plan = self.plan(run)
        where = (
            f"the Dask cluster at {run['dask']}"
            if run["dask"]
            else f"{self._workers(run)} worker(s)"
        )
        kept = cache_directory(run) or "none"
        if plan.simulates:
            run.show.line(
                f"{EXPERIMENT}: {len(plan.points)} points of the scenario {run['scenario']} on "
                f"{where}; cache {kept}"
            )
            return list(plan.points)
        first = plan.points[0]
        assert isinstance(first, SitePoint)
        site_log = read_site_log(
            first.site_file, first.log_file, columns=first.columns, limit=first.limit
        )
        run.show.line(
            f"{EXPERIMENT}: {len(plan.points)} points of {len(site_log.reads):,d} requests on "
            f"{where}; cache {kept}"
        )
        return list(plan.points)

    def _workers(self, run: ExperimentRun) -> int:
        return int(run["workers"] or local_workers())

    def run_point(self, point: Any, run: ExperimentRun) -> Any:
        """One point, from the cache or run (and kept) in this process."""
        return self.run_points([point], run)[0]

    def run_points(self, points: Sequence[Any], run: ExperimentRun) -> list[Any]:
        """Every point: a replay sweep's :meth:`replay_points`, a scenario sweep's
        :meth:`simulate_points`."""
        if self.plan(run).simulates:
            return list(self.simulate_points(points, run))
        return self.replay_points(points, run)

    def simulate_points(
        self, points: Sequence[ScenarioPoint], run: ExperimentRun
    ) -> tuple[PointResult, ...]:
        """Every point's replications to the precision, on the executor, each kept in the
        cache (:func:`tapesched.studies.sweeps.sweep.run_sweep`)."""
        from tapesched.studies.sweeps.sweep import ClusterUnreachable, executor, run_sweep

        plan = self.plan(run)
        assert plan.precision is not None
        try:
            with (
                executor(self._workers(run), run["dask"]) as pool,
                run.show.progress(self.name, len(points)) as tick,
            ):
                outcome = run_sweep(
                    [p.point for p in points],
                    seed=run["seed"],
                    precision=plan.precision,
                    pool=pool,
                    cache=plan.replications,
                    progress=lambda done, total: tick(done, f"{done} of {total} points"),
                )
        except ClusterUnreachable as exc:
            raise ExperimentError([f"--dask: {exc}"]) from None
        return outcome.results

    def replay_points(self, points: Sequence[SitePoint], run: ExperimentRun) -> list[PointOutcome]:
        """Every point: those in the cache read from it, the others replayed on the executor
        (:func:`tapesched.studies.sweeps.sweep.executor`) and kept as each is done."""
        from tapesched.studies.sweeps.sweep import ClusterUnreachable, executor
        from tapesched.toolkit.errors import SettingsError

        plan = self.plan(run)
        cache = plan.cache
        keys = [point_key(p, plan.log_digest or "") for p in points]
        outcomes: list[PointOutcome | None] = [
            None if cache is None else cache.get(k) for k in keys
        ]
        todo = [i for i, o in enumerate(outcomes) if o is None]
        done = len(points) - len(todo)
        try:
            with (
                executor(self._workers(run), run["dask"]) as pool,
                run.show.progress(self.name, len(points)) as tick,
            ):
                tick(done, f"{done} of {len(points)} points")
                futures = {pool.submit(replay_point, points[i]): i for i in todo}
                for future in as_completed(futures):
                    i = futures[future]
                    try:
                        outcome = future.result()
                    except SettingsError as exc:
                        said = ", ".join(f"{n}={shown_value(v)}" for n, v in points[i].values)
                        raise ExperimentError(
                            [f"--vary {said}: {p}" for p in exc.problems]
                        ) from None
                    outcomes[i] = outcome
                    if cache is not None:
                        cache.put(keys[i], outcome)
                    done += 1
                    tick(done, f"{done} of {len(points)} points")
        except ClusterUnreachable as exc:
            raise ExperimentError([f"--dask: {exc}"]) from None
        return [o for o in outcomes if o is not None]

    def results(self, run: ExperimentRun, outcomes: Sequence[Any], elapsed_s: float) -> Results:
        """The rows, the summary (settings, axes, every point), the table."""
        if self.plan(run).simulates:
            return self._simulated(run, outcomes, elapsed_s)
        plan = self.plan(run)
        points = plan.points
        cached = sum(o.cached for o in outcomes)
        summary: dict[str, Any] = {
            "experiment": EXPERIMENT,
            "title": TITLE,
            "settings": {**run.settings(), "metrics": list(plan.metrics), "elapsed_s": elapsed_s},
            "axes": [{"name": a.name, "values": list(a.values)} for a in plan.axes],
            "x_name": plan.axes[x_axis(plan.axes)].name,
            "points": [
                {
                    "values": dict(p.values),
                    "options": p.options(),
                    "summary": dict(o.summary),
                    "homes": dict(o.homes),
                }
                for p, o in zip(points, outcomes, strict=True)
            ],
        }
        return _results(
            plan,
            result_rows(plan.axes, points, outcomes, plan.metrics),
            summary,
            outcomes,
            [[_cell(o.value(m), m) for m in plan.metrics] for o in outcomes],
            f"{cached} of {len(points)} points from the cache; ran in {elapsed_s:.1f} s",
        )

    def _simulated(
        self, run: ExperimentRun, outcomes: Sequence[PointResult], elapsed_s: float
    ) -> Results:
        """A scenario sweep's rows (each point's estimates), summary and table."""
        plan = self.plan(run)
        points = plan.points
        x_name = plan.axes[x_axis(plan.axes)].name
        estimates = [r.estimates for r in outcomes]
        rows = tuple(
            ResultRow(EXPERIMENT, r.point.series, x_name, r.point.x, m, e[m])
            for r, e in zip(outcomes, estimates, strict=True)
            for m in plan.metrics
        )
        summary: dict[str, Any] = {
            "experiment": EXPERIMENT,
            "title": TITLE,
            "settings": {**run.settings(), "metrics": list(plan.metrics), "elapsed_s": elapsed_s},
            "axes": [{"name": a.name, "values": list(a.values)} for a in plan.axes],
            "x_name": x_name,
            "points": [
                {
                    "values": dict(p.values),
                    "replications": len(r.runs),
                    "seeds": list(r.seeds),
                    "saturated": r.saturated,
                    "estimates": {m: e[m].to_dict() for m in plan.metrics},
                }
                for p, r, e in zip(points, outcomes, estimates, strict=True)
            ],
        }
        runs = sum(len(r.runs) for r in outcomes)
        cached = sum(r.cached for r in outcomes)
        return _results(
            plan,
            rows,
            summary,
            outcomes,
            [[str(e[m]) for m in plan.metrics] for e in estimates],
            f"{cached} of {runs} replications from the cache; ran in {elapsed_s:.1f} s",
        )

    def figure(self, results: Results) -> Figure:
        """A panel per metric against x, a line per series, from the rows alone (a scenario
        sweep's rows are those of more than one replication)."""
        from tapesched.studies.lines_figure import metrics_figure

        x_name = results.rows[0].x_name if results.rows else "x"
        simulated = any(r.estimate.replications > 1 for r in results.rows)
        what = "a scenario simulated on the site" if simulated else "the site's replay"
        return metrics_figure(results.rows, title=f"{EXPERIMENT}: {what} against {x_name}")
