"""Swept studies as data (:class:`Study`): a base scenario, the setting x changes, the series.

The Blue Waters paper's experiments (Section 6, Figures 5-11,
:mod:`tapesched.studies.blue_waters.figures`) and Golubchik et al.'s
(:mod:`tapesched.studies.golubchik.figures`) are studies, each run as an
experiment by :class:`tapesched.studies.sweeps.swept_study.SweptStudy`.

A study is a scenario (the shipped ``blue-waters.json``
by default, read through :func:`simulator.scenario.document.load_scenario`) with a
size range, a fixed rate and block size, and an *axis*: the one setting
its x changes (the arrival rate, the block size ``B``, the EC compression
ratio ``C_P`` or the load balancer's period MINLBINTERVAL). Each *series*
is one archival policy. :func:`points` turns an experiment into the
scenarios of its sweep (:mod:`tapesched.studies.sweeps.sweep` runs them), each
through :func:`simulator.results.replications.override` and the axis' setter; nothing
else of the scenario is changed, so a change of the shipped scenario (its
archive, its platform) reaches every experiment.

The Blue Waters paper gives figures but not its horizons or its points; chosen
there:

- x values: the paper's ranges, spaced to show where each policy saturates
  (``--quick``: about half of them, over the same range); for small and
  medium files (Figures 6 and 7) the rates go past the paper's, up to
  where this platform saturates: its 500 drives and 20 arms, with the
  drive and arm times of ``blue-waters.json``, sustain several times the
  paper's rates (docs/studies/blue-waters.md);
- horizons: long enough for a few thousand requests at the lowest rate
  that matters and for the saturation rule (:func:`simulator.results.records.is_saturated`)
  to see a queue grow; ``--quick`` a fraction of that;
- the paper's ``B`` per figure for RAIT, given to PARALLEL and HETERO too.

The paper's own scheduler runs every experiment (:data:`SCHEDULER`,
``bw-main``: MAIN-SCHEDULER and LOAD-BALANCER, :mod:`simulator.schedulers.bw_main`);
``tapesched experiment --scheduler`` runs them under another one, to set an
online heuristic beside the paper's. ``bw-fig10`` varies the load
balancer's period ``MINLBINTERVAL``, a parameter of ``bw-main`` only: under
another scheduler it is unavailable and :func:`unavailable` says why in
one line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType

from attrs import evolve, frozen

from tapesched.instances import shipped
from tapesched.simulator.results.replications import override
from tapesched.simulator.scenario.spec import Scenario
from tapesched.simulator.schedulers.registry import BW_MAIN
from tapesched.simulator.workload.workload import SIZE_CLASSES_MB, with_class_sizes
from tapesched.solvers.plugins import SchedulerSpec
from tapesched.studies.sweeps.sweep import PRIMARY_METRIC, Point

SCHEDULER: SchedulerSpec = BW_MAIN
"""The scheduler of every experiment unless another is given: the paper's MAIN-SCHEDULER."""

MIN_LB_INTERVAL = "min_lb_interval_s"
"""The keyword by which a scheduler's factory takes MINLBINTERVAL, in seconds (``bw-fig10``)."""

SCENARIO_FILE = shipped("scenarios", "blue-waters.json")
"""The scenario every experiment starts from unless another is given."""

METRICS = (PRIMARY_METRIC, "mean_stretch", "throughput_mb_s_over_window")
"""The metrics of :data:`simulator.results.records.METRICS` an experiment reports, in table
order."""

HOUR_S = 3600.0
DAY_S = 86400.0
WEEK_S = 7 * DAY_S


class Unavailable(ValueError):
    """An experiment that cannot run with the scheduler given; the message is one line."""


def _name(scheduler: SchedulerSpec) -> str:
    if isinstance(scheduler, str):
        return scheduler
    return str(getattr(scheduler, "__name__", repr(scheduler)))


def _refusal(scheduler: SchedulerSpec) -> str | None:
    """Why ``scheduler`` has no MINLBINTERVAL (one line), or ``None`` for ``bw-main``."""
    if scheduler == BW_MAIN:
        return None
    return (
        f"scheduler {_name(scheduler)!r} has no MINLBINTERVAL (the paper's load-balancer "
        f"period); this experiment needs {BW_MAIN!r}"
    )


def _rate(scenario: Scenario, per_s: float) -> Scenario:
    return override(scenario, rate_per_s=per_s)


def _block(scenario: Scenario, block_mb: float) -> Scenario:
    return evolve(scenario, policy_params={**scenario.policy_params, "block_mb": block_mb})


def _ec_ratio(scenario: Scenario, ratio: float) -> Scenario:
    return evolve(scenario, workload=evolve(scenario.workload, ec_ratio=ratio))


def _min_lb_interval(scenario: Scenario, seconds: float) -> Scenario:
    refusal = _refusal(scenario.run.scheduler)
    if refusal is not None:
        raise Unavailable(refusal)
    return override(scenario, bw_main=evolve(scenario.run.bw_main, min_lb_interval_s=seconds))


SETTERS: Mapping[str, Callable[[Scenario, float], Scenario]] = MappingProxyType(
    {
        "rate_per_s": _rate,
        "block_mb": _block,
        "ec_ratio": _ec_ratio,
        MIN_LB_INTERVAL: _min_lb_interval,
    }
)
"""What an axis may change, by name: each takes a scenario and the value in the setting's unit."""


@frozen
class Axis:
    """The x of an experiment.

    Attributes
    ----------
    name
        ``x_name`` in ``results.csv``, with its unit (``rate_per_h``).
    label
        The figure's axis label, with its unit.
    setting
        The name in :data:`SETTERS` of what x changes.
    scale
        The setting's value per unit of x (``1 / 3600`` for a rate per hour
        set per second).
    log
        Whether the figure draws x on a log scale (as the paper does).
    """

    name: str
    label: str
    setting: str
    scale: float = 1.0
    log: bool = False

    @property
    def is_rate(self) -> bool:
        """Whether x is the arrival rate (a maximum sustainable rate is then reported)."""
        return self.setting == "rate_per_s"


RATE = Axis("rate_per_h", "arrival rate (requests/h)", "rate_per_s", 1 / HOUR_S)
LOG_RATE = evolve(RATE, log=True)


@frozen
class Study:
    """One experiment of the paper.

    Attributes
    ----------
    name, title, figure
        Its name on the command line, what it shows, the paper's figure.
    sizes
        The size class of :data:`simulator.workload.workload.SIZE_CLASSES_MB`.
    rate_per_h
        The arrival rate, when x is not the rate.
    block_mb
        ``B`` of RAIT, PARALLEL and HETERO (the paper's for the figure).
    axis, x_values, quick_x_values
        What x changes and its values (all of them, and ``--quick``'s).
    series
        The archival policies compared, one series each.
    duration_s, quick_duration_s
        Simulated time of a replication (full, and ``--quick``).
    log_y
        Whether the figure's y axis is logarithmic.
    data_ratio
        A fixed data compression ratio range, when the paper fixes it.
    """

    name: str
    title: str
    figure: str
    sizes: str
    axis: Axis
    x_values: tuple[float, ...]
    quick_x_values: tuple[float, ...]
    series: tuple[str, ...]
    duration_s: float
    quick_duration_s: float
    block_mb: float = 192.0
    rate_per_h: float | None = None
    log_y: bool = True
    data_ratio: tuple[float, float] | None = None
    scenario_file: Path = SCENARIO_FILE
    scheduler: str = BW_MAIN
    class_sizes_mb: tuple[float, ...] = ()
    scales: tuple[float, ...] = (1.0,)
    quick_scales: tuple[float, ...] = (1.0,)
    quick_series: tuple[str, ...] = ()
    metrics: tuple[str, ...] = METRICS
    y_label: str = "average weighted response time (s/GB)"
    kind: str = "lines"

    def xs(self, quick: bool) -> tuple[float, ...]:
        """The x values run, ``--quick``'s or all."""
        return self.quick_x_values if quick else self.x_values

    @property
    def striped(self) -> bool:
        """Whether the series are striping vectors of request classes (Golubchik's studies)."""
        return bool(self.class_sizes_mb)

    def vectors(self, quick: bool) -> tuple[str, ...]:
        """The series run: ``--quick``'s (when it has its own) or all."""
        return self.quick_series if quick and self.quick_series else self.series

    def sizes_scales(self, quick: bool) -> tuple[float, ...]:
        """The factors the class sizes are multiplied by (a map's second axis)."""
        return self.quick_scales if quick else self.scales

    def horizon_s(self, quick: bool) -> float:
        """The simulated time of one replication."""
        return self.quick_duration_s if quick else self.duration_s


def unavailable(study: Study, scheduler: SchedulerSpec = SCHEDULER) -> str | None:
    """Why ``study`` cannot run under ``scheduler`` (one line), or ``None`` when it can."""
    if study.axis.setting != MIN_LB_INTERVAL:
        return None
    return _refusal(scheduler)


def base_of(
    study: Study, scenario: Scenario, quick: bool, scheduler: SchedulerSpec = SCHEDULER
) -> Scenario:
    """The scenario every point of ``study`` starts from: sizes, rate, ``B``, horizon, scheduler."""
    if study.striped:
        return override(
            scenario,
            scheduler=scheduler,
            duration_s=study.horizon_s(quick),
            seed=0,
            replications=1,
        )
    low, high = SIZE_CLASSES_MB[study.sizes]
    workload = evolve(scenario.workload, min_size_mb=low, max_size_mb=high)
    if study.data_ratio is not None:
        workload = evolve(workload, data_ratio=study.data_ratio)
    base = evolve(
        scenario,
        workload=workload,
        policy_params={**scenario.policy_params, "block_mb": float(study.block_mb)},
    )
    rate = None if study.rate_per_h is None else study.rate_per_h / HOUR_S
    return override(
        base,
        scheduler=scheduler,
        rate_per_s=rate,
        duration_s=study.horizon_s(quick),
        seed=0,
        replications=1,
    )


def points(
    study: Study, scenario: Scenario, quick: bool, scheduler: SchedulerSpec | None = None
) -> list[Point]:
    """The points of ``study`` from ``scenario``: for each series, each x (in that order).

    ``scheduler`` is the study's own (:attr:`Study.scheduler`, ``bw-main``
    for the Blue Waters studies) unless given. A striping study
    (:attr:`Study.striped`) runs, for each size factor, each vector and each x.

    Raises
    ------
    Unavailable
        For an experiment the scheduler cannot run (:func:`unavailable`), or a
        striping study on a scenario without its number of request classes.
    """
    base = base_of(study, scenario, quick, study.scheduler if scheduler is None else scheduler)
    setter = SETTERS[study.axis.setting]
    if study.striped:
        return _striped_points(study, base, quick)
    return [
        Point(policy, float(x), setter(override(base, policy=policy), x * study.axis.scale))
        for policy in study.series
        for x in study.xs(quick)
    ]


def series_name(vector: str, scale: float, scales: Sequence[float]) -> str:
    """A series of a striping study: the vector (``"122"``), with its size factor on a map
    (``"122 x2"``)."""
    return vector if len(scales) == 1 else f"{vector} x{scale:g}"


def _striped_points(study: Study, base: Scenario, quick: bool) -> list[Point]:
    """The points of a striping study: for each size factor, vector and x."""
    classes = base.workload.classes
    if len(classes) != len(study.class_sizes_mb):
        raise Unavailable(
            f"the scenario has {len(classes)} request classes (workload.request_classes); "
            f"{study.name} needs {len(study.class_sizes_mb)}"
        )
    setter = SETTERS[study.axis.setting]
    scales = study.sizes_scales(quick)
    out: list[Point] = []
    for scale in scales:
        sizes = [size * scale for size in study.class_sizes_mb]
        scaled = evolve(base, workload=with_class_sizes(base.workload, sizes))
        for vector in study.vectors(quick):
            striped = override(scaled, striping=[int(w) for w in vector])
            name = series_name(vector, scale, scales)
            for x in study.xs(quick):
                out.append(Point(name, float(x), setter(striped, x * study.axis.scale)))
    return out


def sequence(values: Sequence[float]) -> str:
    """x values as the listing shows them: ``1, 16, 192``."""
    return ", ".join(f"{v:g}" for v in values)
