"""Scenario files: a platform, a policy, a workload and how to run them, in one versioned JSON.

The format, every section and field with its unit, default and meaning, is
documented in ``docs/scenario-format.md``. :func:`load_scenario` reads a file
and :func:`scenario_from_dict` a document already parsed, each value judged at
its path, into a :class:`~simulator.scenario.spec.Scenario`. The sections
are read by :mod:`.platform_section` (``platform``, ``faults``),
:mod:`.workload_section` (``workload``) and :mod:`.run_section` (``run``);
the small ``policy`` section and the document itself here, ``disk_cache`` by the
objects a site file shares (:mod:`toolkit.hardware.servers`).
"""

from __future__ import annotations

import os
from typing import Annotated, Any

from tapesched.simulator.scenario.platform_section import (
    FaultsSection,
    PlatformSection,
    fault_spec,
    platform_site,
    platform_spec,
)
from tapesched.simulator.scenario.run_section import RunSection, run_settings
from tapesched.simulator.scenario.spec import KEYS, Scenario, check_runnable
from tapesched.simulator.scenario.workload_section import WorkloadSection, workload_params
from tapesched.simulator.site.platform import site_cache
from tapesched.simulator.storage.disk_cache import CacheSpec, ServiceClass
from tapesched.simulator.storage.files import Scheme
from tapesched.simulator.storage.policies.policy_registry import POLICIES
from tapesched.simulator.storage.policies.single import ONE_COPY
from tapesched.toolkit.errors import InputError, Problem
from tapesched.toolkit.fields import (
    Rule,
    as_float,
    check,
    checked,
    nonempty_text,
    optional,
    parsed,
    positive_size,
    require,
    text,
)
from tapesched.toolkit.files.json_documents import read_json
from tapesched.toolkit.files.structurer import JSON
from tapesched.toolkit.hardware.servers import DiskCacheSection, class_bound_problems
from tapesched.toolkit.model import OLD_SCENARIO_FORMATS, SCENARIO_FORMAT
from tapesched.toolkit.registry import LoadError
from tapesched.toolkit.site.model import Site

FORMAT = SCENARIO_FORMAT
"""The format name scenario files are written with (``tapesched.scenario/1``)."""

READ_FORMATS = (SCENARIO_FORMAT, *OLD_SCENARIO_FORMATS)
"""Every format name read as a scenario: the current one and the earlier ones."""

_FORMAT = Rule(
    ("{v} in {formats}", "expected {current!r}, got {v!r}"), formats=READ_FORMATS, current=FORMAT
)


def _policy_name(value: Any) -> str:
    require(nonempty_text, value)
    try:
        POLICIES.load(value)
    except LoadError as exc:
        raise ValueError(str(exc)) from None
    return value  # type: ignore[no-any-return]


DEFAULT_POLICY = "single"
"""The policy of a scenario that names none: a plain recall site's, one copy of each file."""


@checked(kw_only=True)
class PolicySection:
    """The ``policy`` of a scenario file: its name and parameters."""

    name: str = parsed(_policy_name)
    block_mb: float | None = check(optional(positive_size), default=None, converter=as_float)
    threshold_mb: float | None = check(optional(positive_size), default=None, converter=as_float)

    def default_schemes(self) -> dict[Scheme, float] | None:
        """What a ``workload.schemes`` left out stands for: ``1+0`` under SINGLE; else none."""
        return {ONE_COPY: 1.0} if self.name == DEFAULT_POLICY else None


@checked(kw_only=True)
class ScenarioDocument:
    """A scenario file as it is written, each value checked; :func:`scenario_from_dict`
    builds the :class:`Scenario` it describes."""

    format: str | None = check(_FORMAT, default=None)
    name: str = check(text, default="scenario")
    description: str = check(text, default="")
    sources: tuple[Annotated[str, text], ...] = ()
    platform: PlatformSection
    policy: PolicySection = PolicySection(name=DEFAULT_POLICY)
    workload: WorkloadSection
    run: RunSection = RunSection()
    disk_cache: DiskCacheSection | None = None
    faults: FaultsSection | None = None


def _disk_cache(section: DiskCacheSection, problems: list[Problem]) -> CacheSpec | None:
    """The service classes of ``disk_cache``, each fault named at its class's path."""
    faults = class_bound_problems(section.classes, "disk_cache.classes")
    if faults:
        problems.extend(faults)
        return None
    return CacheSpec(
        tuple(ServiceClass(c.name, c.max_file_mb, c.cache_mb) for c in section.classes)
    )


def scenario_from_dict(data: Any, source: str = "<scenario>", site: Site | None = None) -> Scenario:
    """A scenario from its JSON document, on ``site`` when one is given.

    The document is structured into a :class:`ScenarioDocument` (each value
    checked at its path by the rules of :mod:`toolkit.fields`), from which
    the platform, the workload and the run are built. A ``site`` is the
    platform in place of the document's own (its ``platform`` may then be
    left out; of it only ``dismount`` is read), and its disk cache where the
    document has none; what keeps it from running on the site is said so
    (``on the site NAME: ...``).

    Raises
    ------
    InputError
        Naming every bad value by its path (a missing required key as
        ``path: missing key``), and every write that fits no mover.
    """
    given = site
    if site is not None and type(data) is dict:
        own = data.get("platform")
        kept = {"dismount": own["dismount"]} if type(own) is dict and "dismount" in own else {}
        data = {**data, "platform": kept}
    document, problems = JSON.structure(data, ScenarioDocument, keys=KEYS)
    if document is None:
        raise InputError(source, problems)
    if site is None:
        site = platform_site(document.platform, source, problems)
    platform = platform_spec(document.platform, problems, site)
    workload = workload_params(document.workload, problems, document.policy.default_schemes())
    section = document.disk_cache
    disk_cache = None if section is None else _disk_cache(section, problems)
    if section is None and site is not None:
        disk_cache = site_cache(site)  # the site's, when the scenario has none of its own
    faults = None if document.faults is None else fault_spec(document.faults, problems)
    if problems or platform is None or workload is None:
        raise InputError(source, problems)
    scenario = Scenario(
        name=document.name,
        description=document.description,
        platform=platform,
        policy=document.policy.name,
        policy_params={
            key: value
            for key in ("block_mb", "threshold_mb")
            if (value := getattr(document.policy, key)) is not None
        },
        workload=workload,
        run=run_settings(document.run),
        disk_cache=disk_cache,
        faults=faults,
    )
    problems = check_runnable(scenario)
    if problems and given is not None:
        on = f"on the site {given.name}: "
        problems = [Problem(p.path, on + p.message) for p in problems]
    if problems:
        raise InputError(source, problems)
    return scenario


def load_scenario(path: str | os.PathLike[str]) -> Scenario:
    """A scenario file.

    Raises
    ------
    InputError
        When the file cannot be read, is not JSON, or holds bad values.
    """
    return scenario_from_dict(read_json(path), str(path))
