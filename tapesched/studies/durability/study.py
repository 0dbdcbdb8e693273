"""The durability study: what each policy loses when tapes are lost, and what failed tape
handling costs it (``tapesched experiment durability``,
:mod:`tapesched.studies.durability.report`).

The study is a list of *panels*, each a sweep over its own x axis drawn as a
row of the figure (:class:`Panel`). The tape-loss panel
(:func:`tape_loss_panel`): for each policy (RAIT, PARALLEL, VERTICAL) and
scheme (4+1, 4+2, 8+2, the paper's Section 1 candidates), an archive is
written at time zero (:func:`simulator.planning.durability.lay_out`), and each of its
tapes is lost independently with probability ``q``, ``q`` swept on a log
scale; the shares of files lost, of files needing a rebuild, of host bytes
lost and of groups lost are estimated over independent draws
(:func:`simulator.planning.durability.simulate_losses`), beside the closed form of
a group's loss (:func:`simulator.planning.durability.group_loss_probability`).

The handling panel (:func:`handling_panel`, :data:`FULL_HANDLING`,
:data:`QUICK_HANDLING`): each policy runs the Blue Waters workload at 65
requests an hour (as ``bw-fig10`` does) on the simulator with mounts and
dismounts failing with probability ``p`` (:mod:`simulator.platform.faults`), tried
three times a minute apart; its response times, mounts per request and
requests failed against ``p``.

The archive (:data:`FULL`, :data:`QUICK`): files of the paper's *small*
sizes (10 MB to 1 GB, log-uniform), the same files for every policy of a
scheme; tapes of 10 GB, a hundredth of the paper's 1 TB, so that a few
thousand files fill tens of groups; blocks of 16 MB (the Blue Waters
scenario's ``block_mb``); written uncompressed (``C_D = C_P = 1``), so that
every member of a group is one tape and the closed form is the groups'
exact law (compression would spread PARALLEL's parity members over more
tapes than its data members). The x axis is ``q``, the probability that a
tape is lost within the horizon, with no repair; the figure's top axis
gives the rate ``lambda = -ln(1 - q) / years`` per tape-year over
:attr:`DurabilityConfig.horizon_years`.

Intervals: groups lie on disjoint tapes, so every group of every draw is an
independent trial and the groups' share gets the exact (Clopper-Pearson)
binomial interval, valid when none is lost; files of one group are lost
together, so the files' and bytes' shares get Student's t interval over the
draws (:func:`simulator.results.records.estimate`). ``results.csv`` gives each
interval's half-width (for the groups, the larger side of the exact
interval) and the groups' ends; so does ``summary.json``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from random import Random

import numpy as np
from attrs import evolve, field, frozen
from numpy.typing import ArrayLike, NDArray

from tapesched.simulator.planning.durability import (
    LaidOut,
    LossEstimate,
    Proportion,
    group_loss_probability,
    lay_out,
    proportion,
    simulate_losses,
    tape_loss_rate,
)
from tapesched.simulator.platform.faults import FaultSpec, handling_given_up
from tapesched.simulator.results.records import Estimate, estimate
from tapesched.simulator.results.replications import override, run_summary
from tapesched.simulator.scenario.document import load_scenario
from tapesched.simulator.scenario.spec import Scenario
from tapesched.simulator.storage.catalogue import Catalogue
from tapesched.simulator.storage.files import FileSpec, Scheme
from tapesched.simulator.storage.policies.policy_registry import make_policy
from tapesched.studies.blue_waters.figures import BW_FIG10
from tapesched.studies.sweeps.study import SCENARIO_FILE, base_of

EXPERIMENT = "durability"
"""The experiment's name under ``tapesched experiment``."""

TITLE = "files and groups lost against independent tape losses, per policy and scheme"
"""The experiment's one-line title."""

POLICIES = ("rait", "parallel", "vertical")
"""The policies compared (HETERO is VERTICAL or PARALLEL by size)."""

SCHEMES = (Scheme(4, 1), Scheme(4, 2), Scheme(8, 2))
"""The schemes the paper names (Section 1: "4 + 1, 4 + 2 or 8 + 2")."""

TAPE_LOSS_X = "tape_loss_probability"
"""The tape-loss panel's x: ``q``, the probability that a tape is lost within the horizon."""

CLOSED_FORM = "closed form"
"""Series prefix of the closed forms' rows in ``results.csv`` (``closed form 4+2``: a group)."""

LIBRARY = "L0"


@frozen
class DurabilityConfig:
    """The tape-loss panel's settings (see the module for what they stand for).

    Attributes
    ----------
    q_values
        Tape-loss probabilities swept.
    files
        Files written per policy and scheme.
    replications
        Independent draws of every tape at each ``q``.
    sizes_mb
        File sizes, log-uniform between the two.
    tape_capacity_mb
        Tape capacity.
    block_mb
        RAIT's and PARALLEL's block.
    horizon_years
        Horizon over which ``q`` is a tape's loss, for the rate axis.
    policies, schemes
        What is compared.
    """

    q_values: tuple[float, ...]
    files: int
    replications: int
    sizes_mb: tuple[float, float] = (10.0, 1000.0)
    tape_capacity_mb: float = 10_000.0
    block_mb: float = 16.0
    horizon_years: float = 5.0
    policies: tuple[str, ...] = POLICIES
    schemes: tuple[Scheme, ...] = SCHEMES


def log_sweep(low: float, high: float, count: int) -> tuple[float, ...]:
    """``count`` values from ``low`` to ``high``, evenly spaced in log, rounded to 3 digits."""
    step = math.log(high / low) / (count - 1)
    return tuple(float(f"{low * math.exp(k * step):.3g}") for k in range(count))


FULL = DurabilityConfig(q_values=log_sweep(1e-3, 0.2, 12), files=8_000, replications=1_000)
QUICK = DurabilityConfig(q_values=log_sweep(1e-3, 0.2, 6), files=2_000, replications=100)


EXACT_INTERVALS = {"groups_lost_share": "groups_lost_interval_95"}
"""The metrics whose interval is not the mean plus or minus its half-width: the key of a
point's details holding the interval's ends."""


@frozen
class PanelPoint:
    """A series at an x of a panel: each metric's estimate, and what ``summary.json`` adds.

    An estimate's half-width is the larger side of its interval; the ends are
    :meth:`interval`'s.
    """

    series: str
    x: float
    replications: int
    values: Mapping[str, Estimate]
    detail: Mapping[str, object] = field(factory=dict)

    def interval(self, metric: str) -> tuple[float | None, float | None]:
        """The ends of ``metric``'s 95 % interval: the exact binomial one of the groups lost
        (:data:`EXACT_INTERVALS`), else the mean plus or minus the half-width (the mean at
        both ends without one); ``None`` at both when nothing was measured."""
        ends = self.detail.get(EXACT_INTERVALS.get(metric, ""))
        if isinstance(ends, list):
            low, high = ends
            return low, high
        e = self.values[metric]
        if e.mean is None:
            return None, None
        if e.half_width is None:
            return e.mean, e.mean
        return e.mean - e.half_width, e.mean + e.half_width


@frozen
class Curve:
    """A closed form drawn beside a panel's points on one metric's axes.

    Attributes
    ----------
    label
        Its series name in the legend and in ``results.csv``.
    metric
        The metric's axes it is drawn on.
    value
        Its value at an x.
    colour
        Its line's colour.
    tabulated
        Whether ``results.csv`` gives its value at each x of the panel (a
        row with no interval and ``replications`` 0), or it is only drawn
        as a reference.
    """

    label: str
    metric: str
    value: Callable[[float], float]
    colour: str = "black"
    tabulated: bool = True


@frozen
class SecondAxis:
    """A second scale on top of a panel's x axis: ``forward`` and its ``inverse``, on arrays."""

    label: str
    forward: Callable[[ArrayLike], NDArray[np.float64]]
    inverse: Callable[[ArrayLike], NDArray[np.float64]]


@frozen
class Panel:
    """One sweep of the study: its x axis, its points and closed forms, a row of the figure.

    Attributes
    ----------
    name
        Short name (the table's title, ``summary.json``'s key).
    x_name, x_label
        The x column's name in ``results.csv`` and the axis label.
    metrics
        The metrics, a column of the figure each, in order.
    labels
        Each metric's axis label.
    points
        The measured points.
    curves
        Closed forms to draw beside them.
    colours
        A colour per series (by default one of matplotlib's cycle each).
    second_x
        A second scale on top of the x axis (``None``: none).
    log_y
        Whether the metrics are drawn on a log scale.
    log_x
        Whether x is drawn on a log scale.
    settings
        This sweep's settings, for ``summary.json``.
    """

    name: str
    x_name: str
    x_label: str
    metrics: tuple[str, ...]
    labels: Mapping[str, str]
    points: tuple[PanelPoint, ...]
    curves: tuple[Curve, ...] = ()
    colours: Mapping[str, str] = field(factory=dict)
    second_x: SecondAxis | None = None
    log_y: bool = True
    settings: Mapping[str, object] = field(factory=dict)
    log_x: bool = True

    @property
    def series(self) -> tuple[str, ...]:
        """The series, in order of their first point."""
        return tuple(dict.fromkeys(p.series for p in self.points))


TAPE_LOSS_METRICS = ("files_lost_share", "groups_lost_share", "files_rebuilt_share")
"""Drawn, a column of the tape-loss panel each (``bytes_lost_share`` is in the files only)."""

TAPE_LOSS_LABELS = {
    "files_lost_share": "share of files lost",
    "groups_lost_share": "share of groups lost",
    "files_rebuilt_share": "share of files read by a rebuild",
    "bytes_lost_share": "share of host bytes lost",
}


def series_name(policy: str, scheme: Scheme) -> str:
    """``"rait 4+1"``."""
    return f"{policy} {scheme}"


def archive_files(config: DurabilityConfig, scheme: Scheme, rng: Random) -> list[FileSpec]:
    """The files every policy writes for ``scheme``: log-uniform sizes, uncompressed."""
    lo, hi = config.sizes_mb
    return [
        FileSpec(f"f{k}", lo * (hi / lo) ** rng.random(), scheme, 1.0, 1.0)
        for k in range(config.files)
    ]


def lay_out_all(
    config: DurabilityConfig, seed: int, advance: Callable[[str], None] | None = None
) -> dict[tuple[str, Scheme], LaidOut]:
    """Each policy's archive for each scheme (the same files within a scheme)."""
    archives: dict[tuple[str, Scheme], LaidOut] = {}
    for scheme in config.schemes:
        files = archive_files(config, scheme, Random(f"{seed}:files:{scheme}"))
        for name in config.policies:
            catalogue = Catalogue(config.tape_capacity_mb, [LIBRARY])
            policy = make_policy(name, block_mb=config.block_mb)
            archives[(name, scheme)] = lay_out(catalogue, policy, files, LIBRARY)
            if advance is not None:
                advance(f"laid out {series_name(name, scheme)}")
    return archives


def _point(laid_out: LaidOut, result: LossEstimate) -> PanelPoint:
    groups = result.groups
    values = {
        "files_lost_share": result.files_lost_share,
        "groups_lost_share": Estimate(groups.share, groups.half_width, result.replications),
        "files_rebuilt_share": result.files_rebuilt_share,
        "bytes_lost_share": result.bytes_lost_share,
    }
    detail: dict[str, object] = {
        "groups_lost": groups.successes,
        "group_trials": groups.trials,
        "groups_lost_interval_95": [groups.low, groups.high],
        "closed_form": group_loss_probability(laid_out.scheme, result.q),
        "mean_account": result.mean_account,
    }
    return PanelPoint(
        series_name(laid_out.policy, laid_out.scheme), result.q, result.replications, values, detail
    )


def tape_loss_panel(
    config: DurabilityConfig, seed: int, advance: Callable[[str], None] | None = None
) -> Panel:
    """The tape-loss sweep (see the module): every policy and scheme at every ``q``."""
    archives = lay_out_all(config, seed, advance)
    points = []
    for (name, scheme), laid_out in archives.items():
        for q in config.q_values:
            rng = Random(f"{seed}:losses:{name}:{scheme}:{q!r}")
            points.append(_point(laid_out, simulate_losses(laid_out, q, config.replications, rng)))
        if advance is not None:
            advance(f"drew {series_name(name, scheme)}")
    years = config.horizon_years
    layouts = {
        series_name(name, scheme): {
            "tapes": len(laid_out.tapes),
            "files": laid_out.files,
            "host_mb": laid_out.total_mb,
            "groups": len(laid_out.groups),
            "complete_groups": len(laid_out.complete_groups),
        }
        for (name, scheme), laid_out in archives.items()
    }
    settings = {
        "x_name": TAPE_LOSS_X,
        "q_values": list(config.q_values),
        "rate_per_tape_year": [tape_loss_rate(q, years) for q in config.q_values],
        "horizon_years": years,
        "files": config.files,
        "replications": config.replications,
        "sizes_mb": list(config.sizes_mb),
        "tape_capacity_mb": config.tape_capacity_mb,
        "block_mb": config.block_mb,
        "data_ratio": 1.0,
        "ec_ratio": 1.0,
        "policies": list(config.policies),
        "schemes": [str(s) for s in config.schemes],
        "layouts": layouts,
        "intervals": "groups: exact binomial (Clopper-Pearson) over every group of every "
        "draw; files and bytes: Student's t over the draws",
    }
    return tape_loss_frame(points, config.policies, config.schemes, years, settings)


def tape_loss_frame(
    points: Sequence[PanelPoint],
    policies: Sequence[str],
    schemes: Sequence[Scheme],
    years: float,
    settings: Mapping[str, object] | None = None,
) -> Panel:
    """The tape-loss panel of ``points``: a colour per scheme, the closed forms of its
    schemes (drawn on the files' axes too, for reference), the rate axis over ``years``.

    :func:`tape_loss_panel` builds it from its draws; the figure again from the rows of
    ``results.csv`` (:func:`tapesched.studies.durability.report.panels_of`)."""
    colours = {s: f"C{k}" for k, s in enumerate(schemes)}
    curves = tuple(
        Curve(
            f"{CLOSED_FORM} {scheme}",
            metric,
            partial(group_loss_probability, scheme),
            colours[scheme],
            tabulated=metric == "groups_lost_share",
        )
        for scheme in schemes
        for metric in ("files_lost_share", "groups_lost_share")
    )
    return Panel(
        name="tape loss",
        x_name=TAPE_LOSS_X,
        x_label="q, probability that a tape is lost within the horizon",
        metrics=TAPE_LOSS_METRICS,
        labels=TAPE_LOSS_LABELS,
        points=tuple(points),
        curves=curves,
        colours={series_name(n, s): colours[s] for s in schemes for n in policies},
        second_x=SecondAxis(
            f"tape-loss rate per tape-year over {years:g} years",
            partial(_rate_of, years=years),
            partial(_probability_of, years=years),
        ),
        settings=settings or {},
    )


HANDLING_X = "handling_failure"
"""The handling panel's x: the probability that a mount or a dismount fails."""

HANDLING_METRICS = ("mean_response_s", "mean_weighted_response_s_per_gb", "mounts_per_request")
"""Drawn, a column of the handling panel each (``failed_share`` is in the files only)."""

HANDLING_LABELS = {
    "mean_response_s": "mean response time (s)",
    "mean_weighted_response_s_per_gb": "mean weighted response time (s/GB)",
    "mounts_per_request": "mounts per request (tries included)",
    "failed_share": "share of requests failed",
}


@frozen
class HandlingConfig:
    """The handling panel's settings: the Blue Waters workload at 65 requests an hour.

    Attributes
    ----------
    p_values
        Probabilities that a mount or dismount fails, swept (0: no fault).
    days
        Simulated days of one run.
    replications
        Runs per point, seeds ``seed, seed + 1, ...``.
    attempts, retry_delay_s
        Tries of a handling, and the wait between them
        (:class:`~simulator.platform.faults.FaultSpec`).
    policies
        What is compared.
    """

    p_values: tuple[float, ...]
    days: float
    replications: int
    attempts: int = 3
    retry_delay_s: float = 60.0
    policies: tuple[str, ...] = POLICIES


FULL_HANDLING = HandlingConfig(p_values=(0.0, 0.005, 0.01, 0.02, 0.05, 0.1), days=8, replications=3)
QUICK_HANDLING = HandlingConfig(p_values=(0.0, 0.05, 0.1), days=1, replications=2)


def blue_waters_at_65(days: float) -> Scenario:
    """The Blue Waters scenario as ``bw-fig10`` runs it (files of 1 GB to 1 TB at 65 an hour,
    ``B`` = 192 MB, the paper's MAIN-SCHEDULER and LOAD-BALANCER), for ``days``."""
    base = base_of(BW_FIG10.study, load_scenario(SCENARIO_FILE), quick=True)
    return override(base, duration_s=days * 86_400.0)


def handling_panel(
    config: HandlingConfig, seed: int, advance: Callable[[str], None] | None = None
) -> Panel:
    """Each policy's response time and mounts against the handling-failure probability.

    Every point runs the simulator (:func:`simulator.results.replications.run_summary`)
    on :func:`blue_waters_at_65` with handling failures of probability
    ``p`` tried ``attempts`` times (:mod:`simulator.platform.faults`), the same
    seeds for every ``p`` and policy; the means get Student's t over the
    replications.
    """
    base = blue_waters_at_65(config.days)
    points = []
    for name in config.policies:
        for p in config.p_values:
            faults = FaultSpec(
                handling_failure=p, attempts=config.attempts, retry_delay_s=config.retry_delay_s
            )
            scenario = override(base, policy=name, faults=faults)
            runs = [run_summary(scenario, seed + k) for k in range(config.replications)]
            saturated = any(r.saturated for r in runs)
            measured: dict[str, list[float | None]] = {
                "mean_response_s": [r.mean_response_s for r in runs],
                "mean_weighted_response_s_per_gb": [
                    r.mean_weighted_response_s_per_gb for r in runs
                ],
                "mounts_per_request": [r.mounts / max(r.arrived, 1) for r in runs],
                "failed_share": [r.failed / max(r.arrived, 1) for r in runs],
            }
            values = {
                metric: evolve(estimate(numbers), saturated=saturated)
                for metric, numbers in measured.items()
            }
            detail: dict[str, object] = {
                "saturated": saturated,
                "mount_given_up_probability": handling_given_up(p, config.attempts),
                "arrived": [r.arrived for r in runs],
                "failed": [r.failed for r in runs],
                "handling_failures": [r.handling_failures for r in runs],
                "mounts_given_up": [r.mounts_given_up for r in runs],
                "restarts": [r.restarts for r in runs],
                "rebuilt_reads": [r.rebuilt_reads for r in runs],
            }
            points.append(PanelPoint(name, p, config.replications, values, detail))
            if advance is not None:
                advance(f"ran {name} at p = {p:g}")
    settings = {
        "x_name": HANDLING_X,
        "p_values": list(config.p_values),
        "attempts": config.attempts,
        "retry_delay_s": config.retry_delay_s,
        "days": config.days,
        "replications": config.replications,
        "rate_per_h": 65,
        "scenario": "blue-waters.json as bw-fig10 runs it: 1 GB-1 TB, B = 192 MB, bw-main",
        "policies": list(config.policies),
        "intervals": "Student's t over the replications",
    }
    return handling_frame(points, settings)


def handling_frame(
    points: Sequence[PanelPoint], settings: Mapping[str, object] | None = None
) -> Panel:
    """The handling panel of ``points`` (:func:`handling_panel`; the figure again from the
    rows, :func:`tapesched.studies.durability.report.panels_of`)."""
    return Panel(
        name="handling failures",
        x_name=HANDLING_X,
        x_label="p, probability that a mount or dismount fails",
        metrics=HANDLING_METRICS,
        labels=HANDLING_LABELS,
        points=tuple(points),
        log_y=False,
        log_x=False,
        settings=settings or {},
    )


def _rate_of(q: ArrayLike, years: float) -> NDArray[np.float64]:
    """:func:`~simulator.planning.durability.tape_loss_rate` over an array (the figure's top
    axis)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.log1p(-np.asarray(q, dtype=float)) / years


def _probability_of(rate: ArrayLike, years: float) -> NDArray[np.float64]:
    """:func:`~simulator.planning.durability.tape_loss_probability` over an array."""
    return -np.expm1(-np.asarray(rate, dtype=float) * years)


def pooled_groups(points: Sequence[PanelPoint]) -> Proportion:
    """The groups lost at tape-loss points of one ``q`` and scheme (several policies), pooled.

    Every group of every draw is an independent trial, whatever archive it
    is in: the counts add up, and the exact interval narrows.
    """
    lost = trials = 0
    for p in points:
        counted, drawn = p.detail.get("groups_lost"), p.detail.get("group_trials")
        if not isinstance(counted, int) or not isinstance(drawn, int):
            raise ValueError(f"{p.series} at {p.x!r} is not a tape-loss point")
        lost, trials = lost + counted, trials + drawn
    return proportion(lost, trials)
