"""``tapesched experiment gol-stripe-search``: a stripe width per request class, searched.

For a scenario with request classes (Golubchik et al.'s Ampex library by default) and one
or more arrival rates, a point per rate runs the search of
:mod:`tapesched.studies.golubchik.stripe_search` on the simulator (equi-striping, then every
other vector a bound does not rule out; ``--equi-only``: equi-striping alone), beside the
paper's fast answers (the no-load width of each class, the vector of highest stability
limit). :class:`GolStripeSearch` writes:

- ``results.csv``: the columns of every experiment's; a row per rate (``x``,
  ``rate_per_min``) and vector run on the simulator (series, the paper's label ``"122"``),
  its mean response time (:data:`~tapesched.studies.golubchik.stripe_search.METRIC`) with
  its 95 % half-width and replications (``mean`` empty and ``saturated`` true when it could
  not keep up); pruned vectors have no row. Then a row per rate for its best vector
  (:func:`best_row`), the one the figure circles;
- ``summary.json`` (:func:`summary_document`): the settings, and per rate the closed forms,
  the best vector, the best equi-striped one, the gap between them and every vector with
  its bounds and measure (:func:`rate_document`);
- ``figure.png`` (:func:`draw_figure`): a panel per rate, each vector run against its mean
  response time, the equi-striped ones and the best marked; drawn from the rows alone, so
  that ``tapesched plot results`` draws it again from ``results.csv``.

Numbers are written by ``repr``, exactly, as in every experiment's files.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from attrs import evolve, frozen
from rich.table import Table

from tapesched.simulator.results.records import Estimate
from tapesched.simulator.scenario.consent import ALLOW_PLUGINS_HELP
from tapesched.studies.experiment import (
    Experiment,
    ExperimentError,
    ExperimentRun,
    Parameter,
    Results,
    Wide,
)
from tapesched.studies.golubchik.figures import RATE_PER_MIN, SCENARIO_FILE
from tapesched.studies.golubchik.stripe_search import METRIC, Candidate, Mix, Selection, label
from tapesched.studies.results_file import ResultRow
from tapesched.toolkit.plots.figures import new_figure
from tapesched.toolkit.runtime.limits import MAX_WORKERS
from tapesched.toolkit.units import MAX_ARRIVALS, MAX_SIZE_MB, parse_rate

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from matplotlib.figure import Figure

    from tapesched.simulator.planning.striping_model import LibraryTimes
    from tapesched.simulator.scenario.spec import Scenario

EXPERIMENT = "gol-stripe-search"
"""The experiment's name."""

TITLE = "the best stripe width per request class at each arrival rate, searched on the simulator"
"""The experiment's one-line title."""

WORKLOADS_GB = {"small": (1.0, 2.0, 3.0), "medium": (2.0, 4.0, 6.0), "large": (4.0, 8.0, 12.0)}
"""The paper's three class mixes (Section 5, Figures 8, 10 and 12), in GB."""

QUICK_DURATION_S = 4 * 86400.0
"""The simulated time of a replication with ``--quick`` (the gol- experiments' quick horizon)."""

RATES = "0.05/min,0.6/min"
"""The rates searched when none are given: the lowest and the highest of the paper's small
classes (Figure 8)."""


def parse_sizes(text: str) -> tuple[float, ...]:
    """Class sizes in GB as typed, ``"1,2,3"`` (``ValueError`` naming the bad one)."""
    sizes = []
    for part in text.split(","):
        try:
            value = float(part)
        except ValueError:
            raise ValueError(f"{part.strip()!r} is not a size in GB") from None
        if not 0 < value * 1000 <= MAX_SIZE_MB:
            raise ValueError(
                f"sizes are positive GB up to {MAX_SIZE_MB / 1000:g}, got {part.strip()!r}"
            )
        sizes.append(value)
    return tuple(sizes)


def parse_rates(text: str) -> tuple[float, ...]:
    """Arrival rates as typed, ``"0.05/min,0.6/min"``, in requests per second."""
    return tuple(parse_rate(part.strip()) for part in text.split(","))


@frozen
class RatePoint:
    """A point of the experiment: the search at one arrival rate.

    Attributes
    ----------
    rate_per_s
        The arrival rate.
    scenario
        The scenario searched (its class sizes and duration as given).
    times, mix
        Its library for the bounds and closed forms, and its request classes.
    """

    rate_per_s: float
    scenario: Scenario
    times: LibraryTimes
    mix: Mix


@frozen
class RateSearch:
    """What the search gave at one rate: the scenario's name, the selection, the
    replications it ran, its time."""

    scenario_name: str
    selection: Selection
    replications: int
    elapsed_s: float


def result_rows(searches: Sequence[RateSearch]) -> list[ResultRow]:
    """The rows of ``results.csv``: a row per rate and vector run (see the module)."""
    rows = []
    for search in searches:
        x = search.selection.rate_per_s * 60
        for c in search.selection.candidates:
            m = c.measured
            if m is None:
                continue
            estimate = Estimate(m.mean_s, m.half_width_s, m.replications, m.mean_s is None)
            rows.append(ResultRow(EXPERIMENT, c.label, RATE_PER_MIN.name, x, METRIC, estimate))
    return rows + [best_row(search.selection) for search in searches]


BEST_METRIC = "best_" + METRIC
"""The metric of a rate's best vector (:func:`best_row`)."""

NO_BEST = "none"
"""The series of :func:`best_row` at a rate where no vector kept up (no label is a word)."""


def best_row(selection: Selection) -> ResultRow:
    """The row of the rate's best vector: its label the series, :data:`BEST_METRIC` its
    measure (series :data:`NO_BEST`, no mean and saturated, when every vector run saturated
    or none was run): the figure circles it, and draws a panel for the rate even then."""
    x = selection.rate_per_s * 60
    best = selection.best
    m = None if best is None else best.measured
    if best is None or m is None:
        return ResultRow(
            EXPERIMENT, NO_BEST, RATE_PER_MIN.name, x, BEST_METRIC, Estimate(None, None, 0, True)
        )
    estimate = Estimate(m.mean_s, m.half_width_s, m.replications, m.mean_s is None)
    return ResultRow(EXPERIMENT, best.label, RATE_PER_MIN.name, x, BEST_METRIC, estimate)


def widths_of(vector: str) -> tuple[int, ...]:
    """The widths of a vector from its label (:func:`label`'s inverse: ``"122"``, ``"4-10"``;
    a one-class vector of 10 or more reads as single digits, the one label two vectors
    share)."""
    return tuple(int(w) for w in (vector.split("-") if "-" in vector else vector))


def _chosen(c: Candidate | None) -> dict[str, object] | None:
    if c is None or c.measured is None:
        return None
    m = c.measured
    return {"vector": c.label, "widths": list(c.widths), "mean_response_s": m.mean_s,
            "half_width_s": m.half_width_s, "replications": m.replications}  # fmt: skip


def rate_document(selection: Selection) -> dict[str, object]:
    """What the search found at one rate, as ``summary.json`` holds it: the closed forms
    (widths in class order), the best vector and the best equi-striped one, the gap, and
    every vector with its bounds, closed forms and measure."""
    gap = selection.gap
    return {
        "rate_per_min": selection.rate_per_s * 60,
        "closed_form_no_load": list(selection.closed_form_no_load),
        "closed_form_heavy_load": list(selection.closed_form_heavy_load),
        "best": _chosen(selection.best),
        "best_equi": _chosen(selection.best_equi),
        "gap": None if gap is None else {"value": gap[0], "half_width": gap[1]},
        "evaluated": selection.evaluated,
        "pruned": selection.pruned,
        "vectors": [
            {
                "vector": c.label,
                "response_bound_s": c.response_bound_s,
                "occupancy_limit_per_min": c.occupancy_limit_per_s * 60,
                "no_load_response_s": c.no_load_response_s,
                "stability_limit_per_min": c.stability_limit_per_s * 60,
                "mean_response_s": None if c.measured is None else c.measured.mean_s,
                "half_width_s": None if c.measured is None else c.measured.half_width_s,
                "pruned": c.pruned,
            }
            for c in selection.candidates
        ],
    }


def summary_document(
    searches: Sequence[RateSearch],
    scenario_file: str,
    seed: int,
    equi_only: bool,
    settings: Mapping[str, object],
) -> dict[str, object]:
    """The ``summary.json`` document: ``experiment``, ``title``, ``settings``, and the
    search's ``scenario_file``, ``seed``, ``equi_only`` and ``rates`` (a
    :func:`rate_document` each)."""
    return {
        "experiment": EXPERIMENT,
        "title": TITLE,
        "settings": dict(settings),
        "scenario_file": scenario_file,
        "seed": seed,
        "equi_only": equi_only,
        "rates": [rate_document(s.selection) for s in searches],
    }


def draw_figure(rows: Sequence[ResultRow]) -> Figure:
    """A panel per rate: each vector run, by increasing mean response, with its interval;
    equi-striped vectors in their own colour, the best circled (saturated ones left out).
    From the rows of ``results.csv`` alone (:func:`result_rows`), so that ``tapesched plot
    results`` draws it again from the file."""
    rates = list(dict.fromkeys(r.x for r in rows if r.metric == BEST_METRIC))
    figure = new_figure(max(4.5, 4.5 * len(rates)), 3.8)
    grid = figure.subplots(1, max(1, len(rates)), squeeze=False)[0]
    for axes, rate in zip(grid, rates, strict=False):
        best = [r.series for r in rows if r.x == rate and r.metric == BEST_METRIC]
        ran = sorted(
            (r for r in rows if r.x == rate and r.metric == METRIC and r.estimate.mean is not None),
            key=lambda r: (r.estimate.mean or 0.0, widths_of(r.series)),
        )
        for k, r in enumerate(ran):
            mean = r.estimate.mean
            assert mean is not None
            widths = widths_of(r.series)
            axes.errorbar(
                k, mean, yerr=r.estimate.half_width or 0.0, fmt="o", markersize=4,
                color="C1" if len(set(widths)) == 1 else "C0", capsize=2,
            )  # fmt: skip
            if r.series in best:
                axes.plot(k, mean, "o", markersize=10, fillstyle="none", color="C3")
        axes.set_xticks(range(len(ran)), [r.series for r in ran], rotation=90, fontsize=6)
        axes.set_xlabel("striping vector (orange: equi-striped; circled: the best)")
        axes.set_ylabel("mean response time (s)")
        axes.set_title(f"{rate:g} requests/min", fontsize=9)
        axes.grid(True, alpha=0.3)
    figure.suptitle(f"{EXPERIMENT}: {TITLE}", fontsize=9)
    return figure


def _cell(c: Candidate | None) -> str:
    if c is None or c.measured is None or c.measured.mean_s is None:
        return "every vector saturated"
    half = c.measured.half_width_s
    return f"{c.label}: {c.measured.mean_s:.1f}" + ("" if half is None else f" ± {half:.1f}")


def _gap(selection: Selection) -> str:
    gap = selection.gap
    if gap is None:
        return "-"
    value, half = gap
    return f"{100 * value:.1f} %" + ("" if half is None else f" ± {100 * half:.1f}")


def _table(searches: Sequence[RateSearch], equi_only: bool) -> Wide:
    """A row per rate: the closed forms, the best vectors, the gap, what was run."""
    name = searches[0].scenario_name if searches else EXPERIMENT
    table = Table(title=f"{name}: stripe widths, mean response time (s)")
    for heading in ("rate (/min)", "closed form no load / heavy", "best", "best equi-striped",
                    "gap", "run / pruned", "replications", "time (s)"):  # fmt: skip
        table.add_column(heading)
    for search in searches:
        selection = search.selection
        table.add_row(
            f"{selection.rate_per_s * 60:g}",
            f"{label(selection.closed_form_no_load)} / {label(selection.closed_form_heavy_load)}",
            "-" if equi_only else _cell(selection.best),
            _cell(selection.best_equi),
            "-" if equi_only else _gap(selection),
            f"{selection.evaluated} / {selection.pruned}",
            str(search.replications),
            f"{search.elapsed_s:.1f}",
        )
    return Wide(table, 160)


class GolStripeSearch(Experiment):
    """The experiment ``gol-stripe-search`` (see the module): a point per arrival rate."""

    name = EXPERIMENT
    description = (
        "the best stripe width per request class at each arrival rate: the full search and "
        "equi-striping on the simulator, beside the closed forms"
    )
    parameters = (
        Parameter(
            "scenario",
            "path",
            "A scenario with request classes (workload.request_classes); default: "
            "instances/scenarios/golubchik/ampex.json, the paper's Ampex library.",
        ),
        Parameter(
            "rates",
            "text",
            "Arrival rates to search at, joined by commas, e.g. 0.05/min,0.6/min.",
            quick=RATES,
            full=RATES,
            metavar="RATE,RATE,...",
            show_default=True,
        ),
        Parameter(
            "workload",
            "choice",
            "The paper's class sizes: small 1/2/3 GB, medium 2/4/6, large 4/8/12.",
            choices=tuple(sorted(WORKLOADS_GB)),
        ),
        Parameter("sizes", "text", "Class sizes in GB, one per class.", metavar="GB,GB,..."),
        Parameter("equi_only", "flag", "Equi-striping alone: K vectors, not K^J."),
        Parameter(
            "duration",
            "duration",
            "Simulated time of a replication (default: the scenario's; --quick 4 days).",
            quick=QUICK_DURATION_S,
        ),
        Parameter(
            "max_replications",
            "integer",
            "Replications a vector at most (default 10; 3 with --quick).",
            quick=3,
            full=10,
            low=2,
            high=1000,
        ),
        Parameter(
            "workers",
            "integer",
            "Local worker processes (1 runs in this process).",
            quick=2,
            full=2,
            low=1,
            high=MAX_WORKERS,
            show_default=True,
        ),
        Parameter("seed", "integer", "The search's seed.", quick=1, full=1, show_default=True),
        Parameter("allow_plugins", "flag", ALLOW_PLUGINS_HELP),
    )
    quick_help = "4-day replications, at most 3 a vector."
    redraws_from_rows = True
    help = """Choose a stripe width per request class at each of --rates.

    The scenario has request classes (workload.request_classes); the default
    is Golubchik et al.'s Ampex library
    (instances/scenarios/golubchik/ampex.json). Reports the closed forms'
    answers, then the best vector and the best equi-striped vector on the
    simulator (mean response time, 95 % interval) and the gap between them.
    Writes to --out results.csv (experiment, series, x_name, x, metric, mean,
    half_width, replications, saturated: a row per rate and vector run, then
    per rate its best vector's),
    summary.json (the closed forms, the best vectors, the gap, every vector)
    and figure.png.
    """

    def details(self) -> list[str]:
        """How to run it."""
        return [
            f"tapesched experiment {EXPERIMENT} --out DIR [--rates RATE,...] "
            "[--workload small|medium|large] [--equi-only] [--quick] (see --help)"
        ]

    def scenario_file(self, run: ExperimentRun) -> str:
        """The scenario searched: ``--scenario``, else the paper's Ampex library."""
        return str(run["scenario"] or SCENARIO_FILE)

    def scenario(self, run: ExperimentRun) -> Scenario:
        """The scenario with the class sizes and duration given, every option checked."""
        from tapesched.simulator.results.replications import override
        from tapesched.simulator.scenario.consent import named_code_problems
        from tapesched.simulator.scenario.document import load_scenario
        from tapesched.simulator.workload.workload import with_class_sizes

        workload, sizes = run["workload"], run["sizes"]
        if workload is not None and sizes is not None:
            raise ExperimentError(["--sizes: not with --workload (both set the class sizes)"])
        given = self.scenario_file(run)
        scenario = load_scenario(given)
        problems = named_code_problems(scenario, given, bool(run["allow_plugins"]))
        if problems:
            raise ExperimentError(problems)
        if not scenario.workload.classes:
            raise ExperimentError(
                [f"{given}: workload.request_classes: missing; the search needs request classes"]
            )
        if workload is not None or sizes is not None:
            try:
                gb = WORKLOADS_GB[workload] if workload is not None else parse_sizes(sizes)
                resized = with_class_sizes(scenario.workload, [g * 1000.0 for g in gb])
            except ValueError as exc:
                option = "--workload" if workload is not None else "--sizes"
                raise ExperimentError([f"{option}: {exc}"]) from None
            scenario = evolve(scenario, workload=resized)
        if run["duration"] is not None:
            scenario = override(scenario, duration_s=run["duration"])
        return scenario

    def points(self, run: ExperimentRun) -> list[RatePoint]:
        """A point per rate, on the scenario (every option checked first)."""
        from tapesched.simulator.scenario.workload_section import arrivals_message
        from tapesched.studies.golubchik.stripe_search import library_times, mix_of

        try:
            rates = parse_rates(run["rates"])
        except ValueError as exc:
            raise ExperimentError([f"--rates: {exc}"]) from None
        scenario = self.scenario(run)
        span_s = scenario.workload.duration_s
        too_many = [rate for rate in rates if rate * span_s > MAX_ARRIVALS]
        if too_many:
            raise ExperimentError([f"--rates: {arrivals_message(max(too_many), span_s)}"])
        try:
            times, mix = library_times(scenario), mix_of(scenario)
        except ValueError as exc:
            raise ExperimentError([f"{self.scenario_file(run)}: platform: {exc}"]) from None
        run.show.line(
            f"{EXPERIMENT}: {scenario.name}, {len(rates)} rate(s) on {run['workers']} worker(s)"
        )
        return [RatePoint(rate, scenario, times, mix) for rate in rates]

    def search(self, point: RatePoint, run: ExperimentRun, pool: Executor) -> RateSearch:
        """The search at ``point``'s rate, its batches run on ``pool``."""
        from tapesched.studies.golubchik.stripe_search import SweepEvaluate, select
        from tapesched.studies.sweeps.sweep import Precision

        precision = Precision(
            share=0.05, min_replications=2, max_replications=run["max_replications"], metric=METRIC
        )
        began = time.perf_counter()
        evaluate = SweepEvaluate(
            point.scenario, point.rate_per_s, pool=pool, precision=precision, seed=run["seed"]
        )
        selection = select(
            point.times,
            point.mix,
            point.rate_per_s,
            evaluate,
            batch=2 * run["workers"],
            equi_only=bool(run["equi_only"]),
        )
        return RateSearch(
            point.scenario.name, selection, evaluate.replications, time.perf_counter() - began
        )

    def run_point(self, point: RatePoint, run: ExperimentRun) -> RateSearch:
        """The search at one rate, on ``--workers`` local workers."""
        return self.run_points([point], run)[0]

    def run_points(self, points: Sequence[RatePoint], run: ExperimentRun) -> list[RateSearch]:
        """The search at each rate in turn, every batch on the same local workers."""
        from tapesched.studies.sweeps.sweep import executor

        searches = []
        with executor(run["workers"]) as pool, run.show.progress(self.name, len(points)) as tick:
            for done, point in enumerate(points, 1):
                searches.append(self.search(point, run, pool))
                tick(done, f"{done} of {len(points)} rates")
        return searches

    def results(
        self, run: ExperimentRun, outcomes: Sequence[RateSearch], elapsed_s: float
    ) -> Results:
        """The rows, the summary with its settings, the table."""
        settings = {**run.settings(), "elapsed_s": elapsed_s}
        equi_only = bool(run["equi_only"])
        return Results(
            EXPERIMENT,
            tuple(result_rows(outcomes)),
            summary_document(outcomes, self.scenario_file(run), run["seed"], equi_only, settings),
            tuple(outcomes),
            report=(_table(outcomes, equi_only),),
            ending=lambda out: f"ran in {elapsed_s:.1f} s; wrote {out}",
        )

    def figure(self, results: Results) -> Figure:
        """A panel per rate (:func:`draw_figure`), from the rows alone."""
        return draw_figure(results.rows)
