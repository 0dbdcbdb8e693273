"""A site sweep of a scenario (``--scenario``): the site simulated under a workload at every
point of the axes, replicated to a precision.

With a scenario instead of a request log, each point is the scenario run on the point's
site (:func:`simulator.scenario.document.scenario_from_dict` given the site): its platform
the site's libraries, drives, movers and complex (of the scenario's ``platform``, only
``dismount`` is read), its disk cache the site's unless the scenario has its own. The axes
are those of a replay sweep (:mod:`tapesched.studies.site_sweep.axes`) and the scenario's
keys, named by their path in the scenario file (:data:`SCENARIO_SECTIONS`:
``workload.rate``, ``run.scheduler``, ``policy.name``, ``faults.handling_failure``):

- ``drives`` is the count of a site whose drives are one counted group (a simulated
  platform is the site as it is: no first N of several groups);
- ``scheduler`` and ``mount-policy`` replace the scenario's, checked as ``tapesched
  simulate``'s options are (:func:`simulator.results.replications.with_overrides`);
- ``dismount-at-once`` puts every tape away as soon as its request is done;
- ``seed`` is no axis: each replication's seed comes from the experiment's ``--seed`` and
  the point's x (:func:`tapesched.studies.sweeps.sweep.replication_seed`), so that every
  series at one x serves the same requests.

Every point is read and checked before any run. The points run on the swept studies'
machinery (:func:`tapesched.studies.sweeps.sweep.run_sweep`): replications until the 95 %
interval of the first metric is within ``--precision`` of its mean, each kept in the
cache, on local processes or a Dask cluster.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from attrs import evolve, frozen

from tapesched.simulator.results.records import METRICS as RUN_METRICS
from tapesched.studies.experiment import ExperimentError
from tapesched.studies.site_sweep.axes import (
    RUN_AXES,
    SCENARIO_SECTIONS,
    Scalar,
    SweepAxis,
    attempt,
    counted_group,
    key_path,
    parent_problem,
    set_key,
    shown_value,
)
from tapesched.studies.sweeps.sweep import Point

if TYPE_CHECKING:
    from tapesched.simulator.scenario.spec import Scenario

SCENARIO_METRICS = RUN_METRICS
"""What a point of a scenario sweep may report: the metrics ``tapesched simulate``
estimates over replications."""

DEFAULT_SCENARIO_METRICS = "mean_response_s,mounts_per_tape"
"""The metrics of a scenario sweep when none is named."""


def is_scenario_key(name: str) -> bool:
    """Whether the axis ``name`` is a key of the scenario (:data:`SCENARIO_SECTIONS`)."""
    steps = key_path(name)
    return steps is not None and steps[0] in SCENARIO_SECTIONS


@frozen
class ScenarioPoint:
    """One point of a scenario sweep: its axes' values and the scenario it runs (as a
    :class:`~tapesched.studies.sweeps.sweep.Point`, its series and x)."""

    values: tuple[tuple[str, Scalar], ...]
    point: Point


@frozen
class ScenarioSources:
    """What a scenario sweep starts from: the site's and the scenario's documents and files."""

    site_document: Mapping[str, Any]
    site_file: str
    scenario_document: Mapping[str, Any]
    scenario_file: str


def _run_problem(name: str, value: Scalar, counted: bool) -> str | None:
    """Why a run option's axis cannot take ``value`` in a scenario sweep (``None``: it can;
    a scheduler or mount policy is judged with the point, by ``with_overrides``)."""
    if name == "seed":
        return (
            "no axis of a scenario sweep: each replication's seed comes from --seed and "
            "the point's x"
        )
    if name == "drives":
        if not counted:
            return (
                "a scenario sweep varies the count of a site whose drives are one counted "
                "group; vary libraries[i].drives[j].count instead"
            )
        return None if type(value) is int else f"expected an integer, got {value!r}"
    if name == "dismount-at-once":
        return None if type(value) is bool else f"expected true or false, got {value!r}"
    return None if type(value) is str else f"expected a name, got {value!r}"


def _changed(
    sources: ScenarioSources, values: Sequence[tuple[str, Scalar]]
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The site and scenario documents with ``values`` set, and the run options left."""
    site = copy.deepcopy(dict(sources.site_document))
    scenario = copy.deepcopy(dict(sources.scenario_document))
    options: dict[str, Any] = {}
    counted = counted_group(site)
    for name, value in values:
        if name == "drives" and counted is not None:
            set_key(site, counted, value)
        elif name in RUN_AXES:
            options[name] = value
        elif is_scenario_key(name):
            set_key(scenario, key_path(name) or [], value)
        else:
            set_key(site, key_path(name) or [], value)
    return site, scenario, options


def point_scenario(sources: ScenarioSources, values: Sequence[tuple[str, Scalar]]) -> Scenario:
    """The scenario of the point ``values``: the changed scenario read on the changed site,
    then the run options in place of its own.

    Raises
    ------
    InputError
        For a value the site or the scenario cannot take (naming its file and path).
    SettingsError
        For a scheduler or mount policy that cannot run the scenario.
    """
    from tapesched.simulator.results.replications import RunOverrides, with_overrides
    from tapesched.simulator.scenario.document import scenario_from_dict
    from tapesched.toolkit.site.reader import site_from_dict

    site_document, scenario_document, options = _changed(sources, values)
    site = site_from_dict(site_document, sources.site_file)
    scenario = scenario_from_dict(scenario_document, sources.scenario_file, site)
    overrides = RunOverrides(
        scheduler=options.get("scheduler"), mount_policy=options.get("mount-policy")
    )
    scenario = with_overrides(scenario, sources.scenario_file, overrides)
    if options.get("dismount-at-once"):
        scenario = evolve(scenario, platform=evolve(scenario.platform, dismount="at-once"))
    return scenario


def check_scenario_axes(axes: Sequence[SweepAxis], sources: ScenarioSources) -> None:
    """Check each axis and each value alone, the other keys as the files give them.

    Raises
    ------
    ExperimentError
        One line per bad axis or value, naming it.
    """
    counted = counted_group(sources.site_document) is not None
    problems: list[str] = []
    for axis in axes:
        if axis.name not in RUN_AXES:
            steps = key_path(axis.name)
            if steps is None:
                problems.append(
                    f"--vary {axis.name}: unknown axis (run options: {', '.join(RUN_AXES)}; a "
                    "key of the scenario by its path, such as workload.rate or run.scheduler; "
                    "or a key of the site, such as libraries[0].arms)"
                )
                continue
            scenario = steps[0] in SCENARIO_SECTIONS
            document = sources.scenario_document if scenario else sources.site_document
            why = (
                parent_problem(document, steps, "scenario", made=True)
                if scenario
                else parent_problem(document, steps)
            )
            if why is not None:
                problems.append(f"--vary {axis.name}: {why}")
                continue
        for value in axis.values:
            why = None
            if axis.name in RUN_AXES:
                why = _run_problem(axis.name, value, counted)
            if why is None:
                _, why = attempt(partial(point_scenario, sources, [(axis.name, value)]))
            if why is not None:
                problems.append(f"--vary {axis.name}={shown_value(value)}: {why}")
                if axis.name == "seed":
                    break
    if problems:
        raise ExperimentError(problems)


def scenario_sweep_points(
    axes: Sequence[SweepAxis], sources: ScenarioSources, x_index: int
) -> list[ScenarioPoint]:
    """The points of ``axes`` (checked first, :func:`check_scenario_axes`), their cartesian
    product in the order given, each scenario read and checked; x is axis ``x_index``'s
    value (its position when its values are not all numbers), the series the others'.

    Raises
    ------
    ExperimentError
        One line per bad axis or value, or per point whose values do not go together.
    """
    check_scenario_axes(axes, sources)
    axis = axes[x_index]
    points: list[ScenarioPoint] = []
    problems: list[str] = []
    for combination in itertools.product(*(a.values for a in axes)):
        values = tuple((a.name, v) for a, v in zip(axes, combination, strict=True))
        said = ", ".join(f"{n}={shown_value(v)}" for n, v in values)
        scenario, why = attempt(partial(point_scenario, sources, values))
        if scenario is None:
            problems.append(f"--vary {said}: {why}")
            continue
        value = values[x_index][1]
        x = float(value) if axis.numeric else float(axis.values.index(value))
        others = [f"{n}={shown_value(v)}" for i, (n, v) in enumerate(values) if i != x_index]
        points.append(ScenarioPoint(values, Point(", ".join(others) or "all", x, scenario)))
    if problems:
        raise ExperimentError(problems)
    return points
