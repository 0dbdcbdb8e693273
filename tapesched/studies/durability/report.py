"""``tapesched experiment durability``: files lost against tape losses, time lost to handling.

For each policy (RAIT, PARALLEL, VERTICAL) and scheme (4+1, 4+2, 8+2), an
archive written at time zero loses each tape independently with
probability ``q``; the shares of files lost, of groups lost and of files
read by a rebuild are drawn against ``q`` beside the binomial closed form;
a second sweep runs the Blue Waters workload with mounts and dismounts
failing (:mod:`tapesched.studies.durability.study`,
:mod:`simulator.planning.durability`). The experiment (:class:`Durability`)
runs a point per sweep (a panel of the figure), and writes:

- ``results.csv`` (:func:`result_rows`): a row per panel, point and metric,
  then the closed forms' rows; on the tape-loss panel, what the figure
  needs besides: the ends of the groups' exact interval (:data:`GROUP_ENDS`)
  and the rate per tape-year of each ``q`` (:data:`RATE`);
- ``summary.json`` (:func:`summary_document`): the settings and, per panel,
  every point with its intervals' ends and details;
- ``figure.png`` (:func:`draw_figure`): a row per panel, a column per
  metric, drawn from the rows alone (:func:`panels_of`: ``tapesched plot
  results`` draws it again from ``results.csv``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from attrs import evolve
from rich.table import Table

from tapesched.simulator.planning.durability import tape_loss_rate
from tapesched.simulator.results.records import Estimate
from tapesched.simulator.storage.files import Scheme
from tapesched.studies.durability.study import (
    CLOSED_FORM,
    EXACT_INTERVALS,
    EXPERIMENT,
    FULL,
    FULL_HANDLING,
    HANDLING_X,
    QUICK,
    QUICK_HANDLING,
    TAPE_LOSS_X,
    TITLE,
    DurabilityConfig,
    Panel,
    PanelPoint,
    handling_frame,
    handling_panel,
    log_sweep,
    pooled_groups,
    series_name,
    tape_loss_frame,
    tape_loss_panel,
)
from tapesched.studies.experiment import (
    Experiment,
    ExperimentError,
    ExperimentRun,
    Parameter,
    Results,
    Wide,
)
from tapesched.studies.results_file import ResultRow
from tapesched.toolkit.plots.figures import new_figure
from tapesched.toolkit.runtime.limits import MAX_DRAWS

if TYPE_CHECKING:
    from matplotlib.figure import Figure

PANELS = ("tape-loss", "handling")
"""The sweeps ``--panel`` may pick, a point of the experiment each."""


GROUP_ENDS = ("groups_lost_share_low", "groups_lost_share_high")
"""The metrics of the ends of a tape-loss point's exact interval of the groups lost (a
half-width cannot give them: the interval is not symmetric)."""

RATE = "loss_rate_per_tape_year"
"""The metric of the rate per tape-year of each ``q`` over the horizon (series
:data:`~tapesched.studies.durability.study.CLOSED_FORM`, the figure's top axis)."""


def result_rows(panels: Sequence[Panel]) -> list[ResultRow]:
    """The rows of ``results.csv``: a row per panel, point and metric, then the closed forms,
    then, on the tape-loss panel, the groups' interval ends and the rates.

    A closed form's row (series ``closed form 4+2``, metric ``groups_lost_share``) has no
    interval and ``replications`` 0; so has a rate's (series ``closed form``, metric
    :data:`RATE`). An end's row (:data:`GROUP_ENDS`) has the point's replications.
    """
    rows = []
    for panel in panels:
        for p in panel.points:
            for metric, estimate in p.values.items():
                rows.append(ResultRow(EXPERIMENT, p.series, panel.x_name, p.x, metric, estimate))
        xs = sorted({p.x for p in panel.points})
        for curve in (c for c in panel.curves if c.tabulated):
            for x in xs:
                closed = Estimate(curve.value(x), None, 0)
                label, metric = curve.label, curve.metric
                rows.append(ResultRow(EXPERIMENT, label, panel.x_name, x, metric, closed))
        if panel.x_name == TAPE_LOSS_X:
            rows += _tape_loss_extras(panel, xs)
    return rows


def _tape_loss_extras(panel: Panel, xs: Sequence[float]) -> list[ResultRow]:
    """The groups' interval ends of each point, the rate of each ``q``."""
    rows = []
    for p in panel.points:
        for metric, end in zip(GROUP_ENDS, p.interval("groups_lost_share"), strict=True):
            if end is not None:
                estimate = Estimate(end, None, p.replications)
                rows.append(ResultRow(EXPERIMENT, p.series, TAPE_LOSS_X, p.x, metric, estimate))
    years = panel.settings.get("horizon_years")
    if isinstance(years, int | float):
        for x in xs:
            rate = Estimate(tape_loss_rate(x, years), None, 0)
            rows.append(ResultRow(EXPERIMENT, CLOSED_FORM, TAPE_LOSS_X, x, RATE, rate))
    return rows


def panels_of(rows: Sequence[ResultRow]) -> list[Panel]:
    """The panels :func:`result_rows` wrote, from its rows, as the figure draws them: each
    point with its estimates (the groups' interval from its ends), the tape-loss panel's
    closed forms from its schemes and its rate axis from its rates (the horizon to 12
    digits).

    Raises
    ------
    ValueError
        When the rows hold no panel, or a panel's point lacks a metric drawn, or the
        tape-loss panel a series ``POLICY X+Y`` or its rates.
    """
    by_panel: dict[str, dict[tuple[str, float], dict[str, Estimate]]] = {}
    for r in rows:
        by_panel.setdefault(r.x_name, {}).setdefault((r.series, r.x), {})[r.metric] = r.estimate
    panels = []
    for x_name, cells in by_panel.items():
        if x_name == HANDLING_X:
            panels.append(handling_frame([_panel_point(k, v) for k, v in cells.items()]))
        elif x_name == TAPE_LOSS_X:
            panels.append(_tape_loss_of(cells))
    if not panels:
        raise ValueError(f"no row over {TAPE_LOSS_X} nor {HANDLING_X}: no panel of {EXPERIMENT}")
    for panel in panels:
        for p in panel.points:
            missing = [m for m in panel.metrics if m not in p.values]
            if missing:
                raise ValueError(f"{p.series} at {panel.x_name} {p.x!r} has no {missing[0]}")
    return panels


def _panel_point(key: tuple[str, float], values: Mapping[str, Estimate]) -> PanelPoint:
    """A point from its rows: the ends of its exact intervals (:data:`GROUP_ENDS`) as
    :meth:`PanelPoint.interval` reads them, out of its values."""
    series, x = key
    ends = {m: values[m].mean for m in GROUP_ENDS if m in values}
    kept = {m: e for m, e in values.items() if m not in GROUP_ENDS}
    detail: dict[str, object] = {}
    if len(ends) == len(GROUP_ENDS):
        detail[EXACT_INTERVALS["groups_lost_share"]] = [ends[m] for m in GROUP_ENDS]
    replications = max((e.replications for e in kept.values()), default=0)
    return PanelPoint(series, x, replications, kept, detail)


def _scheme_of(series: str) -> Scheme:
    """The scheme of a tape-loss series, ``rait 4+1``."""
    try:
        _, name = series.split(" ")
        data, parity = name.split("+")
        return Scheme(int(data), int(parity))
    except ValueError:
        raise ValueError(f"series {series!r} of {TAPE_LOSS_X} is not 'POLICY X+Y'") from None


def _tape_loss_of(cells: Mapping[tuple[str, float], Mapping[str, Estimate]]) -> Panel:
    points = [_panel_point(k, v) for k, v in cells.items() if not k[0].startswith(CLOSED_FORM)]
    policies = list(dict.fromkeys(p.series.split(" ")[0] for p in points))
    schemes = list(dict.fromkeys(_scheme_of(p.series) for p in points))
    rates = [(q, v[RATE].mean) for (s, q), v in cells.items() if s == CLOSED_FORM and RATE in v]
    q, rate = max(rates, default=(0.0, None))
    if not rate:
        raise ValueError(f"no {RATE} of a q > 0 over {TAPE_LOSS_X}: the figure's top axis")
    years = float(f"{-math.log1p(-q) / rate:.12g}")
    return tape_loss_frame(points, policies, schemes, years)


def summary_document(panels: Sequence[Panel], settings: Mapping[str, object]) -> dict[str, object]:
    """The ``summary.json`` document: ``experiment``, ``title``, ``settings`` and ``panels``.

    Each panel gives its ``x_name``, ``settings`` and, per series, its
    ``points``: ``x``, ``replications``, each metric's ``mean``,
    ``half_width_95``, ``low`` and ``high``, and the point's details.
    """
    document: dict[str, object] = {}
    for panel in panels:
        series: dict[str, list[dict[str, object]]] = {}
        for p in panel.points:
            series.setdefault(p.series, []).append(
                {
                    "x": p.x,
                    "replications": p.replications,
                    **{
                        metric: {
                            "mean": v.mean,
                            "half_width_95": v.half_width,
                            "low": p.interval(metric)[0],
                            "high": p.interval(metric)[1],
                        }
                        for metric, v in p.values.items()
                    },
                    **p.detail,
                }
            )
        document[panel.name] = {
            "x_name": panel.x_name,
            "settings": dict(panel.settings),
            "series": series,
        }
    return {
        "experiment": EXPERIMENT,
        "title": TITLE,
        "settings": dict(settings),
        "panels": document,
    }


MARKERS = "osD^v<>"


def draw_figure(panels: Sequence[Panel]) -> Figure:
    """A row per panel, a column per metric; points with their intervals, closed forms as lines.

    On log axes a point measured at 0 cannot be drawn: it is left out (its
    interval's top is still in ``results.csv``). Series of one colour are
    told apart by their marker and nudged apart along x.
    """
    columns = max(len(p.metrics) for p in panels)
    figure = new_figure(4.6 * columns, 4.2 * len(panels))
    grid = figure.subplots(len(panels), columns, squeeze=False)
    for row, panel in zip(grid, panels, strict=True):
        markers: dict[str, str] = {}
        for name in panel.series:
            prefix = name.split(" ")[0]
            markers.setdefault(prefix, MARKERS[len(markers) % len(MARKERS)])
        nudges = {m: 1.0 + 0.06 * (k - (len(markers) - 1) / 2) for k, m in enumerate(markers)}
        lo, hi = min(p.x for p in panel.points), max(p.x for p in panel.points)
        if not panel.log_x:
            dense = tuple(lo + (hi - lo) * k / 59 for k in range(60))
        else:
            dense = log_sweep(lo, hi, 60) if 0 < lo < hi else (lo, hi)
        for axes, metric in zip(row, panel.metrics, strict=False):
            for k, name in enumerate(panel.series):
                prefix = name.split(" ")[0]
                colour = panel.colours.get(name, f"C{k}")
                mine = [
                    p
                    for p in panel.points
                    if p.series == name and p.values[metric].mean is not None
                ]
                if panel.log_y:
                    mine = [p for p in mine if (p.values[metric].mean or 0.0) > 0]
                xs = [p.x * (nudges[prefix] if panel.log_x else 1.0) for p in mine]
                ys = [p.values[metric].mean or 0.0 for p in mine]
                ends = [p.interval(metric) for p in mine]
                lows = [y - (low or y) for y, (low, _) in zip(ys, ends, strict=True)]
                highs = [(high or y) - y for y, (_, high) in zip(ys, ends, strict=True)]
                axes.errorbar(
                    xs, ys, yerr=[lows, highs], fmt=markers[prefix], markersize=4, color=colour,
                    mfc="none", elinewidth=0.8, capsize=2, linestyle="none", label=name,
                )  # fmt: skip
            for curve in (c for c in panel.curves if c.metric == metric):
                axes.plot(
                    dense, [curve.value(x) for x in dense], color=curve.colour, linewidth=1,
                    label=curve.label,
                )  # fmt: skip
            if panel.log_x:
                axes.set_xscale("log")
            if panel.log_y:
                axes.set_yscale("log")
            axes.set_xlabel(panel.x_label, fontsize=8)
            axes.set_ylabel(panel.labels.get(metric, metric))
            axes.grid(True, which="both", alpha=0.25)
            if panel.second_x is not None:
                top = axes.secondary_xaxis(
                    "top", functions=(panel.second_x.forward, panel.second_x.inverse)
                )
                top.set_xlabel(panel.second_x.label, fontsize=8)
        for axes in row[len(panel.metrics) :]:
            axes.set_visible(False)
        row[0].legend(fontsize=6, ncols=2)
    figure.suptitle(f"{EXPERIMENT}: {TITLE}", fontsize=9)
    return figure


def _cell(value: Estimate) -> str:
    """A share and its half-width; ``0`` alone when every draw gave 0; ``-`` when nothing was
    measured."""
    if value.mean is None:
        return "-"
    if value.half_width is None or value.mean == value.half_width == 0:
        return f"{value.mean:.3g}"
    return f"{value.mean:.3g} ± {value.half_width:.2g}"


def _tape_loss_table(panel: Panel, policies: Sequence[str], years: float) -> Wide:
    """A row per scheme and ``q``: the groups lost beside the closed form, each policy's files.

    The groups of the three policies' archives are pooled (every group of
    every draw is an independent trial at that ``q``); files are per policy.
    """
    from tapesched.simulator.planning.durability import group_loss_probability, tape_loss_rate
    from tapesched.simulator.storage.files import Scheme

    table = Table(
        title=f"{EXPERIMENT}: share of groups lost (pooled over the policies, exact binomial "
        "interval) and of each policy's files lost and rebuilt (t over the draws); mean ± 95 % "
        "half-width"
    )
    table.add_column("scheme")
    table.add_column("q", justify="right", no_wrap=True)
    table.add_column(f"λ/tape-yr ({years:g} y)", justify="right", no_wrap=True)
    table.add_column("closed form", justify="right", no_wrap=True)
    table.add_column("groups lost", justify="right", no_wrap=True)
    for policy in policies:
        table.add_column(f"{policy} lost", justify="right", no_wrap=True)
        table.add_column(f"{policy} rebuilt", justify="right", no_wrap=True)
    by_key = {(p.series, p.x): p for p in panel.points}
    schemes = list(dict.fromkeys(p.series.split(" ", 1)[1] for p in panel.points))
    xs = sorted({p.x for p in panel.points})
    for name in schemes:
        scheme = Scheme(*(int(part) for part in name.split("+")))
        for q in xs:
            points = [by_key[(series_name(policy, scheme), q)] for policy in policies]
            pooled = pooled_groups(points)
            cells = [
                name,
                f"{q:g}",
                f"{tape_loss_rate(q, years):.3g}",
                f"{group_loss_probability(scheme, q):.3g}",
                _cell(Estimate(pooled.share, pooled.half_width, pooled.trials)),
            ]
            for point in points:
                cells.append(_cell(point.values["files_lost_share"]))
                cells.append(_cell(point.values["files_rebuilt_share"]))
            table.add_row(*cells)
    return Wide(table, 220)


def _handling_table(panel: Panel) -> Wide:
    """A row per policy and ``p``: response times, mounts per request, requests failed."""
    table = Table(
        title=f"{EXPERIMENT}: the Blue Waters workload at 65/h with mounts and dismounts failing "
        "with probability p (3 tries, 60 s apart); mean ± 95 % half-width (t)"
    )
    for column in ("policy", "p", "response s", "weighted s/GB", "mounts/request", "failed"):
        table.add_column(column, justify="left" if column == "policy" else "right", no_wrap=True)
    for p in panel.points:
        table.add_row(
            p.series,
            f"{p.x:g}",
            *(_cell(p.values[m]) for m in (*panel.metrics, "failed_share")),
        )
    return Wide(table, 160)


class Durability(Experiment):
    """The experiment ``durability`` (see the module): a point per sweep."""

    name = EXPERIMENT
    redraws_from_rows = True
    description = (
        "files and groups lost against the tape-loss probability, per policy and scheme, beside "
        "the binomial closed form"
    )
    parameters = (
        Parameter(
            "files",
            "integer",
            f"Files written per policy and scheme (default {FULL.files:,d}, "
            f"--quick {QUICK.files:,d}).",
            quick=QUICK.files,
            full=FULL.files,
            low=1,
            high=1_000_000,
        ),
        Parameter(
            "replications",
            "integer",
            f"Independent draws of every tape at each q (default {FULL.replications:,d}, "
            f"--quick {QUICK.replications:,d}).",
            quick=QUICK.replications,
            full=FULL.replications,
            low=2,
            high=1_000_000,
        ),
        Parameter(
            "horizon_years",
            "number",
            "The horizon over which q is a tape's loss: the figure's top axis gives the rate "
            "-ln(1-q)/years per tape-year.",
            quick=5.0,
            full=5.0,
            low=0,
            low_open=True,
            show_default=True,
        ),
        Parameter("seed", "integer", "The experiment's seed.", quick=1, full=1, show_default=True),
        Parameter(
            "panel",
            "choice",
            "Run one sweep only: the tape losses (seconds) or the handling failures (the "
            "simulator's runs: minutes). Default: both.",
            choices=PANELS,
        ),
    )
    quick_help = (
        "6 values of q, 2,000 files per policy and scheme, 100 draws; 3 values of p, "
        "a day, 2 runs each: under a minute."
    )
    help = """Files and groups lost against the tape-loss probability q, per policy and scheme.

    Each of RAIT, PARALLEL and VERTICAL writes the same files (10 MB to 1 GB,
    log-uniform, uncompressed) on 10 GB tapes in 4+1, 4+2 and 8+2; every
    tape is then lost independently with probability q (1e-3 to 0.2, log
    scale), and the shares of files lost, of groups (X+Y tapes) lost and of
    files read by a rebuild are estimated over independent draws, beside
    the closed form (a group is lost when more than Y of its tapes are).
    Writes to --out results.csv (experiment, series, x_name, x, metric,
    mean, half_width, replications, saturated; x is q), summary.json and
    figure.png. A second sweep runs the Blue Waters workload at 65/h on the
    simulator with mounts and dismounts failing with probability p (0 to
    0.1; x is handling_failure): each policy's response time, mounts per
    request and requests failed.
    """

    def details(self) -> list[str]:
        """How to run it."""
        return [f"tapesched experiment {EXPERIMENT} --out DIR [--quick] (see --help)"]

    def config(self, run: ExperimentRun) -> DurabilityConfig:
        """The tape-loss sweep's settings: ``--quick``'s or the full ones, with the options."""
        return evolve(
            QUICK if run.quick else FULL,
            files=run["files"],
            replications=run["replications"],
            horizon_years=run["horizon_years"],
        )

    def points(self, run: ExperimentRun) -> list[str]:
        """The sweeps: ``--panel``'s, or both; the tape-loss sweep's draws checked first."""
        config = self.config(run)
        wanted = [run["panel"]] if run["panel"] is not None else list(PANELS)
        draws = config.files * config.replications
        if "tape-loss" in wanted and draws > MAX_DRAWS:
            raise ExperimentError(
                [
                    f"--files and --replications: {config.files:,d} files drawn "
                    f"{config.replications:,d} times is {draws:,d} file draws at each q, more "
                    f"than the {MAX_DRAWS:,d} a tape-loss sweep may make; lower either"
                ]
            )
        run.show.line(
            f"{EXPERIMENT}: {config.files:,d} files per policy and scheme on "
            f"{config.tape_capacity_mb:g} MB tapes; {len(config.q_values)} values of q, "
            f"{config.replications} draws each"
        )
        return wanted

    def run_point(self, panel: str, run: ExperimentRun) -> Panel:
        """One sweep: the tape losses, or the handling failures on the simulator."""
        if panel == "tape-loss":
            return tape_loss_panel(self.config(run), run["seed"])
        return handling_panel(QUICK_HANDLING if run.quick else FULL_HANDLING, run["seed"])

    def results(self, run: ExperimentRun, outcomes: Sequence[Panel], elapsed_s: float) -> Results:
        """The rows, the summary with its settings, a table per sweep."""
        config = self.config(run)
        settings: dict[str, object] = {
            "quick": run.quick,
            "seed": run["seed"],
            "elapsed_s": elapsed_s,
            "panels": [run["panel"]] if run["panel"] is not None else list(PANELS),
        }
        tables = [
            _tape_loss_table(panel, config.policies, config.horizon_years)
            if panel.x_name == TAPE_LOSS_X
            else _handling_table(panel)
            for panel in outcomes
        ]
        return Results(
            EXPERIMENT,
            tuple(result_rows(outcomes)),
            summary_document(outcomes, settings),
            tuple(outcomes),
            report=tuple(tables),
            ending=lambda out: f"ran in {elapsed_s:.1f} s; wrote {out}",
        )

    def figure(self, results: Results) -> Figure:
        """A row per sweep, a column per metric, from the rows alone (:func:`panels_of`)."""
        return draw_figure(panels_of(results.rows))
