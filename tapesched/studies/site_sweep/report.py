"""``tapesched experiment site-sweep`` (``tapesched sweep``): what-if sweeps of a site's own
replay.

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
from tapesched.studies.sweeps.swept_study import PARAMETERS as SWEPT_PARAMETERS
from tapesched.studies.sweeps.swept_study import cache_directory, local_workers

if TYPE_CHECKING:
    from matplotlib.figure import Figure

EXPERIMENT = "site-sweep"
"""The experiment's name under ``tapesched experiment``."""

TITLE = "a site's replay of its own log at every point of the axes varied"
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
    "complex.pass_through_s, pools[0].fill, placement.seed); values are JSON scalars. A "
    "scenario's key (simulate) is no axis: scenario sweeps are the swept studies'."
)

HELP = f"""Replay a site's request log on the site at every point of the axes varied.

The points are the cartesian product of the axes (--vary), in the order
given. drives is the site's drives: the count of a site whose drives are
one counted group (it may grow), else the first N of its drives. Each
changed site is read as a site file is, before any replay. Metrics
(--metric, comma-separated): {", ".join(METRICS)}. Writes to --out
results.csv (x: the first axis of numbers, series: the other axes'
values), summary.json (every point's replay summary and homes) and
figure.png (a panel per metric). Each point is kept in the cache
(DIR.cache by default): a second run reads it from there.
"""


def _metrics(text: str) -> tuple[str, ...]:
    """The metrics of ``--metric`` (comma-separated), each known and named once."""
    names = [n.strip() for n in text.split(",")]
    problems = [
        f"--metric: unknown metric {n!r} (known: {', '.join(METRICS)})"
        for n in names
        if n not in METRICS
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
    points: Sequence[SitePoint],
    outcomes: Sequence[PointOutcome],
    metrics: Sequence[str],
) -> Wide:
    """A row per point: the axes' values, then the metrics."""
    table = Table(title=f"{EXPERIMENT}: {len(points)} points")
    for axis in axes:
        table.add_column(axis.name)
    for metric in metrics:
        table.add_column(metric, justify="right")
    for point, outcome in zip(points, outcomes, strict=True):
        table.add_row(
            *(shown_value(v) for _, v in point.values),
            *(_cell(outcome.value(m), m) for m in metrics),
        )
    return Wide(table, 40 + 22 * (len(axes) + len(metrics)))


@frozen
class SweepPlan:
    """A run's points, checked: the axes, the metrics, the log's digest and the cache."""

    axes: tuple[SweepAxis, ...]
    metrics: tuple[str, ...]
    points: tuple[SitePoint, ...]
    log_digest: str
    cache: PointCache | None


class SiteSweep(Experiment):
    """The experiment ``site-sweep`` (see the module)."""

    name = EXPERIMENT
    description = TITLE
    redraws_from_rows = True
    help = HELP
    quick_help = f"Replay the first {QUICK_LIMIT:,d} requests of the log (--limit wins)."
    parameters = (
        Parameter("site", "path", "The site file (tapesched.site/1).", required=True),
        Parameter("trace", "path", "The site's request log (CSV).", required=True),
        Parameter("vary", "text", VARY_HELP, required=True, metavar="AXES"),
        Parameter(
            "metric",
            "text",
            f"Metrics reported, comma-separated (of {', '.join(METRICS)}).",
            quick=DEFAULT_METRICS,
            full=DEFAULT_METRICS,
            metavar="NAMES",
            show_default=True,
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
        _SHARED["workers"],
        _SHARED["dask"],
        _SHARED["cache"],
    )

    def details(self) -> list[str]:
        """How to run it."""
        return [
            f"tapesched experiment {EXPERIMENT} --site SITE --trace LOG --vary AXES --out DIR "
            "(or tapesched sweep; see --help)"
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
        metrics = _metrics(run["metric"])
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

    def points(self, run: ExperimentRun) -> list[SitePoint]:
        """The points of the axes, each checked, and the log read once (its rows checked on
        the site as given) before any replay."""
        from tapesched.simulator.site.runs import read_site_log

        plan = self.plan(run)
        first = plan.points[0]
        site_log = read_site_log(
            first.site_file, first.log_file, columns=first.columns, limit=first.limit
        )
        where = (
            f"the Dask cluster at {run['dask']}"
            if run["dask"]
            else f"{self._workers(run)} worker(s)"
        )
        kept = "none" if plan.cache is None else str(plan.cache.directory)
        run.show.line(
            f"{EXPERIMENT}: {len(plan.points)} points of {len(site_log.reads):,d} requests on "
            f"{where}; cache {kept}"
        )
        return list(plan.points)

    def _workers(self, run: ExperimentRun) -> int:
        return int(run["workers"] or local_workers())

    def run_point(self, point: SitePoint, run: ExperimentRun) -> PointOutcome:
        """One point, from the cache or replayed (and kept) in this process."""
        return self.run_points([point], run)[0]

    def run_points(self, points: Sequence[SitePoint], run: ExperimentRun) -> list[PointOutcome]:
        """Every point: those in the cache read from it, the others replayed on the executor
        (:func:`tapesched.studies.sweeps.sweep.executor`) and kept as each is done."""
        from tapesched.studies.sweeps.sweep import ClusterUnreachable, executor
        from tapesched.toolkit.errors import SettingsError

        plan = self.plan(run)
        cache = plan.cache
        keys = [point_key(p, plan.log_digest) for p in points]
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

    def results(
        self, run: ExperimentRun, outcomes: Sequence[PointOutcome], elapsed_s: float
    ) -> Results:
        """The rows, the summary (settings, axes, every point), the table."""
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
        return Results(
            EXPERIMENT,
            tuple(result_rows(plan.axes, points, outcomes, plan.metrics)),
            summary,
            tuple(outcomes),
            report=(
                _table(plan.axes, points, outcomes, plan.metrics),
                f"{cached} of {len(points)} points from the cache; ran in {elapsed_s:.1f} s",
            ),
        )

    def figure(self, results: Results) -> Figure:
        """A panel per metric against x, a line per series, from the rows alone."""
        from tapesched.studies.lines_figure import metrics_figure

        x_name = results.rows[0].x_name if results.rows else "x"
        return metrics_figure(
            results.rows, title=f"{EXPERIMENT}: the site's replay against {x_name}"
        )
