"""Every experiment by name: one registry, the one place a study is declared.

:data:`EXPERIMENTS` (a :class:`toolkit.registry.Registry`) declares each of
the project's studies once, by name, and imports its module only when it is
first run or listed in full; installed packages add theirs through entry
points of the group :data:`ENTRY_POINT_GROUP`, and a user's own is reached as
``module.path:Class`` (:func:`find_experiment`). What one is and how it runs
is :mod:`tapesched.studies.experiment`.

Example
-------
A package declares its experiments in its ``pyproject.toml``::

    [project.entry-points."tapesched.experiments"]
    coin = "my_package.coin:Coin"

after which ``tapesched experiment coin --out DIR`` runs it, as
``tapesched experiment my_package.coin:Coin --out DIR`` does without any
installation.
"""

from __future__ import annotations

import inspect
from typing import Any, cast

from tapesched.studies.experiment import Experiment
from tapesched.toolkit.registry import LoadError, Registry, qualified_name
from tapesched.toolkit.runtime.plugin_calls import Plugin, call_plugin

ENTRY_POINT_GROUP = "tapesched.experiments"
"""Entry-point group in which packages declare their experiments (``name = module:Class``)."""

EXPERIMENTS: Registry[Any] = Registry("experiment", group=ENTRY_POINT_GROUP)
"""Every experiment by name: an :class:`~tapesched.studies.experiment.Experiment`, or a class
making one from no arguments."""

for _name, _target, _description in (
    ("bw-fig5", "tapesched.studies.blue_waters.figures:BW_FIG5",
     "Figure 5, RAIT block size B against weighted response time, 1 GB-1 TB files at 180/h"),
    ("bw-fig6", "tapesched.studies.blue_waters.figures:BW_FIG6",
     "Figure 6, Weighted response time against arrival rate, small files (10 MB-1 GB)"),
    ("bw-fig7", "tapesched.studies.blue_waters.figures:BW_FIG7",
     "Figure 7, Weighted response time against arrival rate, medium files (1-100 GB)"),
    ("bw-fig8", "tapesched.studies.blue_waters.figures:BW_FIG8",
     "Figure 8, Weighted response time against arrival rate, large files (1-100 TB)"),
    ("bw-fig9", "tapesched.studies.blue_waters.figures:BW_FIG9",
     "Figure 9, EC compression ratio C_P against weighted response time, C_D = 3, at 65/h"),
    ("bw-fig10", "tapesched.studies.blue_waters.figures:BW_FIG10",
     "Figure 10, Load balancer period MINLBINTERVAL against weighted response time, at 65/h"),
    ("bw-fig11", "tapesched.studies.blue_waters.figures:BW_FIG11",
     "Figure 11, HETERO against each single policy, 10 MB-10 TB files, by arrival rate"),
    ("gol-fig8", "tapesched.studies.golubchik.figures:GOL_FIG8",
     "Figures 8-9, Response time against arrival rate per striping vector, 1/2/3 GB classes"),
    ("gol-fig10", "tapesched.studies.golubchik.figures:GOL_FIG10",
     "Figures 10-11, Response time against arrival rate per striping vector, 2/4/6 GB classes"),
    ("gol-fig12", "tapesched.studies.golubchik.figures:GOL_FIG12",
     "Figures 12-13, Response time against arrival rate per striping vector, 4/8/12 GB "
     "classes"),
    ("gol-fig14", "tapesched.studies.golubchik.figures:GOL_FIG14",
     "Figure 14, The best striping vector over arrival rate and request size (x 1/2/3 GB)"),
    ("gol-stripe-search", "tapesched.studies.golubchik.stripe_report:GolStripeSearch",
     "the best stripe width per request class at each arrival rate: the full search and "
     "equi-striping on the simulator, beside the closed forms"),
    ("online-vs-offline", "tapesched.studies.windows.report:OnlineVsOffline",
     "a simulated run cut into windows, each online scheduler against the clairvoyant and the "
     "non-anticipative optimum"),
    ("bnl-coverage", "tapesched.studies.recall.report:BnlCoverage",
     "10, 50 and 100 % of a full tape read under each recall order (BNL's study)"),
    ("ecmwf-defer-dismount", "tapesched.studies.dismount_delay.report:EcmwfDeferDismount",
     "the ECMWF sample's mounts and mount latency against the dismount delay, under lru, fifo "
     "and belady"),
    ("cnaf-bulk-recall", "tapesched.studies.drive_allocation.report:CnafBulkRecall",
     "a CMS bulk recall on 16 shared T10000D drives under static caps, CNAF's Orchestrator and "
     "the offline optimum (Cavalli et al., Table 1)"),
    ("durability", "tapesched.studies.durability.report:Durability",
     "files and groups lost against the tape-loss probability, per policy and scheme, beside "
     "the binomial closed form"),
    ("site-sweep", "tapesched.studies.site_sweep.report:SiteSweep",
     "a site's replay of its own log at every point of the axes varied"),
):  # fmt: skip
    EXPERIMENTS.declare(_name, _target, _description)

REQUIRED = ("name", "description", "parameters", "points", "run_point")
"""What an object must have, of its own, to be taken for an experiment (the rest has defaults
when its class subclasses :class:`~tapesched.studies.experiment.Experiment`)."""


def _missing(value: object) -> list[str]:
    """The members of :data:`REQUIRED` that ``value`` lacks, or takes from the protocol
    itself (which only says what they are)."""
    return [
        member
        for member in REQUIRED
        if not hasattr(value, member)
        or getattr(type(value), member, None) is getattr(Experiment, member)
    ]


def find_experiment(spec: str) -> Experiment:
    """The experiment ``spec`` names: a name of :data:`EXPERIMENTS` (declared or an entry
    point's), or ``module.path:Class`` (a class made with no arguments, or an experiment).

    What the user names on the command line is theirs to run (as ``solve --solver
    module.path:Attr``): it is imported here, and a failure is one line.

    Raises
    ------
    toolkit.registry.UnknownNameError
        For a name the registry does not know; the message lists those it does.
    toolkit.registry.LoadError
        When the module cannot be imported, the class cannot be made, or what it gives
        is no experiment.
    """
    found = EXPERIMENTS.resolve(spec)
    value = found.value
    if inspect.isclass(value):
        value = call_plugin(spec, "make", value)
    missing = _missing(value)
    if missing:
        raise LoadError(
            f"{spec}: a {type(value).__name__} is not an experiment: it has no "
            f"{' nor '.join(missing)}"
        )
    return cast(Experiment, value)


def experiment_plugins(experiment: Experiment) -> tuple[Plugin, ...]:
    """``experiment`` as a plug-in when its code is a user's (none for the project's)."""
    own = Plugin.of(qualified_name(experiment), type(experiment).__module__)
    return () if own is None else (own,)


def listing() -> list[str]:
    """``tapesched experiment --list``: each experiment's name and description, then the lines
    of its details; an installed package's, its entry point (not imported)."""
    lines = []
    for name in EXPERIMENTS.known():
        if name not in EXPERIMENTS:
            lines.append(f"{name}: {EXPERIMENTS.describe(name)}")
            continue
        experiment = find_experiment(name)
        lines.append(f"{name}: {experiment.description}")
        lines.extend(f"  {line}" for line in experiment.details())
    return lines


def listing_document() -> dict[str, object]:
    """``tapesched experiment --list --json``: every experiment of the registry, installed
    packages' included, with its description, where it comes from and its parameters."""
    experiments = []
    for name in EXPERIMENTS.known():
        experiment = find_experiment(name)
        experiments.append(
            {
                "name": name,
                "description": experiment.description,
                "origin": EXPERIMENTS.entry(name).origin,
                "parameters": [p.to_dict() for p in experiment.parameters],
            }
        )
    return {"experiments": experiments}
