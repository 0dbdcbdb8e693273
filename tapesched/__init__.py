"""tapesched: scheduling robotic tape archives.

The public API, one import away (``import tapesched``)::

    instance = tapesched.load_instance("instances/spec-example.json")
    result = tapesched.solve(instance, solver="cpsat", time_limit_s=10, seed=1)
    violations = tapesched.validate(instance, result.schedule)
    metrics = tapesched.compute_metrics(instance, result.schedule)

The package stands in layers, each importing only those below it:

- :mod:`tapesched.toolkit`: the core model, instance and schedule files, the
  validator, metrics, generators, Hypothesis strategies, plots;
- :mod:`tapesched.solvers`: exact backends, heuristics and online
  schedulers behind :func:`solve`;
- :mod:`tapesched.simulator`: the discrete-event simulator of a whole
  platform, its archival policies and workloads;
- :mod:`tapesched.studies`: the experiments, each a plug-in of one registry,
  run by :func:`run_experiment`;
- :mod:`tapesched.cli`: the ``tapesched`` command line (``python -m tapesched``).

The names below are imported when first used, so ``import tapesched`` stays
light: a command that never solves never loads OR-Tools.
"""

from __future__ import annotations

import importlib
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

try:
    __version__ = version("tapesched")
except PackageNotFoundError:  # run from a checkout that was never installed
    __version__ = "0+unknown"

_WHERE = {
    "load_instance": "tapesched.toolkit.files.instance_file",
    "load_schedule": "tapesched.toolkit.files.schedule_file",
    "save_instance": "tapesched.toolkit.files.instance_file",
    "save_schedule": "tapesched.toolkit.files.schedule_file",
    "validate": "tapesched.toolkit.validator",
    "compute_metrics": "tapesched.toolkit.metrics",
    "Instance": "tapesched.toolkit.model",
    "Schedule": "tapesched.toolkit.model",
    "solve": "tapesched.solvers",
    "Result": "tapesched.solvers.result",
    "Status": "tapesched.solvers.result",
    "Solver": "tapesched.solvers.registry",
    "Scheduler": "tapesched.solvers.online.protocol",
    "PlatformState": "tapesched.solvers.online.protocol",
    "MountPolicy": "tapesched.solvers.online.mount_protocol",
    "Eviction": "tapesched.solvers.online.mount_protocol",
    "Orderer": "tapesched.solvers.recall_order",
    "Policy": "tapesched.simulator.storage.policies.policy",
    "Allocator": "tapesched.simulator.sharing.allocator",
    "load_scenario": "tapesched.simulator.scenario.document",
    "simulate": "tapesched.simulator.results.replications",
    "replay": "tapesched.simulator.replay.replay",
    "read_site": "tapesched.toolkit.site.reader",
    "read_request_log": "tapesched.toolkit.files.request_log",
    "read_site_log": "tapesched.simulator.site.runs",
    "replay_site": "tapesched.simulator.site.runs",
    "site_log_instance": "tapesched.simulator.site.runs",
    "Experiment": "tapesched.studies.experiment",
    "run_experiment": "tapesched.studies.runner",
}
"""Where each public name is defined: the module imported when the name is first used."""

_RENAMED = {"simulate": "run_scenario"}
"""Public names whose definition is spelled otherwise in its module."""

__all__ = [
    "Allocator",
    "Eviction",
    "Experiment",
    "Instance",
    "MountPolicy",
    "Orderer",
    "PlatformState",
    "Policy",
    "Result",
    "Schedule",
    "Scheduler",
    "Solver",
    "Status",
    "__version__",
    "compute_metrics",
    "load_instance",
    "load_scenario",
    "load_schedule",
    "read_request_log",
    "read_site",
    "read_site_log",
    "replay",
    "replay_site",
    "run_experiment",
    "save_instance",
    "save_schedule",
    "simulate",
    "site_log_instance",
    "solve",
    "validate",
]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'tapesched' has no attribute {name!r}")
    value = getattr(importlib.import_module(_WHERE[name]), _RENAMED.get(name, name))
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


if TYPE_CHECKING:
    from tapesched.simulator.replay.replay import replay
    from tapesched.simulator.results.replications import run_scenario as simulate
    from tapesched.simulator.scenario.document import load_scenario
    from tapesched.simulator.sharing.allocator import Allocator
    from tapesched.simulator.site.runs import read_site_log, replay_site, site_log_instance
    from tapesched.simulator.storage.policies.policy import Policy
    from tapesched.solvers import solve
    from tapesched.solvers.online.mount_protocol import Eviction, MountPolicy
    from tapesched.solvers.online.protocol import PlatformState, Scheduler
    from tapesched.solvers.recall_order import Orderer
    from tapesched.solvers.registry import Solver
    from tapesched.solvers.result import Result, Status
    from tapesched.studies.experiment import Experiment
    from tapesched.studies.runner import run_experiment
    from tapesched.toolkit.files.instance_file import load_instance, save_instance
    from tapesched.toolkit.files.request_log import read_request_log
    from tapesched.toolkit.files.schedule_file import load_schedule, save_schedule
    from tapesched.toolkit.metrics import compute_metrics
    from tapesched.toolkit.model import Instance, Schedule
    from tapesched.toolkit.site.reader import read_site
    from tapesched.toolkit.validator import validate
