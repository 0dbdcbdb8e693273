"""The ``run`` section of a scenario file, and the run settings it builds.

The scheduler (a name, ``module.path:Attr`` kept unimported, an entry point's
name, ``bw-main`` and its parameters, or a scheduler and its mount policy), the
seed, the replications and the warm-up are read at their paths into a
:class:`RunSection`, and :func:`run_settings` builds the
:class:`~simulator.scenario.spec.RunSettings`. The format:
``docs/scenario-format.md``.
"""

from __future__ import annotations

from typing import Any

from attrs import frozen

from tapesched.simulator.scenario.spec import KEYS, RunSettings
from tapesched.simulator.scenario.workload_section import span
from tapesched.simulator.schedulers.bw_main import BwMainParams
from tapesched.simulator.schedulers.registry import BW_MAIN, is_simulator_scheduler
from tapesched.solvers.online.mount_policy import MountPolicyError, is_plugged, parse_mount_policy
from tapesched.solvers.plugins import SchedulerSpecError, scheduler_entry
from tapesched.toolkit.errors import ValueProblems
from tapesched.toolkit.fields import (
    as_float,
    at_least_one,
    at_most,
    check,
    checked,
    integer,
    natural,
    nonempty_text,
    nonnegative_finite,
    number,
    one_of,
    parsed,
    require,
)
from tapesched.toolkit.files.structurer import JSON
from tapesched.toolkit.registry import named_in_file
from tapesched.toolkit.units import MAX_COUNT, MAX_REPLICATIONS


def _scheduler(value: Any) -> str | tuple[str, BwMainParams] | MountedScheduler:
    """A scheduler's name (:mod:`solvers.plugins`, or the simulator's own:
    :mod:`simulator.schedulers.registry`), found without importing anything, or its
    ``module.path:Attr``, kept unimported (:func:`named_in_file`); or ``bw-main`` and its
    parameters, given as an object; or an object of a scheduler's name and its mount policy."""
    if type(value) is dict and "mount_policy" in value and set(value) <= {"name", "mount_policy"}:
        mounted, problems = JSON.structure(value, MountedSection, keys=KEYS)
        if mounted is None:
            raise ValueProblems(problems)
        return MountedScheduler(mounted.name, mounted.mount_policy)
    if type(value) is dict:
        section, problems = JSON.structure(value, BwMainSection, keys=KEYS)
        if section is None:
            raise ValueProblems(problems)
        return (BW_MAIN, section.params())
    require(nonempty_text, value)
    if is_simulator_scheduler(value):  # bw-main, golubchik, or an installed package's
        return value  # type: ignore[no-any-return]
    if ":" in value:
        return named_in_file(value)
    try:
        scheduler_entry(value)
    except SchedulerSpecError as exc:
        raise ValueError(str(exc)) from None
    return value  # type: ignore[no-any-return]


def _mount_policy(value: Any) -> str:
    """A mount policy spec, checked (``belady``, offline, is refused: the simulator is online);
    one's own, ``module.path:Attr``, is kept unimported (:func:`named_in_file`)."""
    require(nonempty_text, value)
    if is_plugged(value):
        return named_in_file(value.strip())
    try:
        parse_mount_policy(value, capacity_mb=lambda tape: 1.0)
    except MountPolicyError as exc:
        raise ValueError(str(exc)) from None
    return value  # type: ignore[no-any-return]


_DEFAULT_RUN = RunSettings()

_BW = _DEFAULT_RUN.bw_main


@frozen
class MountedScheduler:
    """``run.scheduler`` given as ``{"name": ..., "mount_policy": ...}``."""

    name: str
    mount_policy: str


def _scheduler_name(value: Any) -> str:
    """A scheduler's name as ``run.scheduler`` takes it (not an object)."""
    name = _scheduler(value)
    assert isinstance(name, str)
    return name


@checked(kw_only=True)
class MountedSection:
    """``run.scheduler`` given as an object with a mount policy."""

    name: str = parsed(_scheduler_name)
    mount_policy: str = parsed(_mount_policy)


@checked(kw_only=True)
class BwMainSection:
    """``run.scheduler`` given as an object: ``bw-main`` and its parameters."""

    name: str = check(one_of((BW_MAIN,)))
    max_light_load: int = check(at_most(natural, MAX_COUNT), default=_BW.max_light_load)
    min_lb_interval: float = parsed(span, default=_BW.min_lb_interval_s)
    max_waiting_time: float = parsed(span, default=_BW.max_waiting_time_s)
    max_req_count: int = check(at_most(natural, MAX_COUNT), default=_BW.max_req_count)
    max_imbalance: float = check(nonnegative_finite, default=_BW.max_imbalance, converter=as_float)

    def params(self) -> BwMainParams:
        """The parameters as :class:`~simulator.schedulers.bw_main.BwMain` takes them."""
        return BwMainParams(
            self.max_light_load,
            self.min_lb_interval,
            self.max_waiting_time,
            self.max_req_count,
            self.max_imbalance,
        )


@checked(kw_only=True)
class RunSection:
    """The ``run`` of a scenario file."""

    scheduler: str | tuple[str, BwMainParams] | MountedScheduler = parsed(
        _scheduler, default=_DEFAULT_RUN.scheduler
    )
    seed: int = check(integer, default=_DEFAULT_RUN.seed)
    replications: int = check(
        at_most(at_least_one, MAX_REPLICATIONS), default=_DEFAULT_RUN.replications
    )
    warmup: float = check(
        number.then("0 <= {v} < 1", "must be within [0, 1), got {v!r}"),
        default=_DEFAULT_RUN.warmup,
        converter=as_float,
    )


def run_settings(run: RunSection) -> RunSettings:
    """The run settings of the ``run`` section: its scheduler, with ``bw-main``'s parameters
    or its mount policy when given as an object."""
    given = run.scheduler
    bw_main, mount_policy = _DEFAULT_RUN.bw_main, None
    if isinstance(given, MountedScheduler):
        scheduler, mount_policy = given.name, given.mount_policy
    elif isinstance(given, tuple):
        scheduler, bw_main = given
    else:
        scheduler = given
    return RunSettings(scheduler, run.seed, run.replications, run.warmup, bw_main, mount_policy)
