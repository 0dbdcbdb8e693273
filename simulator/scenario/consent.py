"""What a run may import: the code a scenario file names runs only with the user's consent.

A file is data: its ``module.path:Attr`` values
(:func:`simulator.scenario.spec.named_code`) are imported only when the user
allows it (``--allow-plugins``), as the run starts, and each is checked to
give what it must (a scheduler, a mount policy). What the user gives besides
the file (a scheduler, a mount policy) replaces the file's and is the user's
own choice: the file's is then neither imported nor refused. The command
line (``simulate``) and the experiments ask here.

Its imports are made when a check runs, so that the command line may read
:data:`ALLOW_PLUGINS_HELP` as it starts without loading the simulator.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tapesched.toolkit.errors import Problem

if TYPE_CHECKING:
    from tapesched.simulator.scenario.spec import Scenario

ALLOW_PLUGINS_HELP = (
    "Run the plug-ins the scenario file names as module.path:Attr (run.scheduler, "
    "run.scheduler.mount_policy), importing them when the run starts; without it such a "
    "file is refused. Reading or checking a file never imports what it names."
)
"""The help of ``--allow-plugins``, one wording for every command that runs a scenario."""


def scheduler_problem(spec: str) -> str | None:
    """Why ``spec`` gives no scheduler of scenarios (one line), or ``None`` when it gives one.

    Those are the solvers' online schedulers, plug-ins, ``module.path:Attr``
    and the simulator's own (``bw-main``, ``golubchik`` and installed packages':
    :mod:`simulator.schedulers.registry`).
    """
    from tapesched.simulator.schedulers.registry import is_simulator_scheduler
    from tapesched.solvers.plugins import SchedulerSpecError, resolve_scheduler

    if is_simulator_scheduler(spec):
        return None
    try:
        resolve_scheduler(spec)
    except SchedulerSpecError as exc:
        return str(exc)
    return None


def named_code_problems(
    scenario: Scenario,
    source: str,
    allowed: bool,
    *,
    scheduler: object = None,
    mount_policy: object = None,
) -> list[str]:
    """One line for each piece of code ``scenario`` names that its run may not import:
    ``source: path: what``, each problem of :func:`named_code_refusals`."""
    refusals = named_code_refusals(
        scenario, allowed, scheduler=scheduler, mount_policy=mount_policy
    )
    return [f"{source}: {p}" for p in refusals]


def named_code_refusals(
    scenario: Scenario,
    allowed: bool,
    *,
    scheduler: object = None,
    mount_policy: object = None,
) -> list[Problem]:
    """Each piece of code ``scenario`` names that its run may not import, at its path.

    Parameters
    ----------
    scenario
        The scenario.
    allowed
        Whether the user allows the file's code (``--allow-plugins``); each spec
        named is then imported and checked.
    scheduler, mount_policy
        What the user gives instead of the file's (``None``: nothing given).
    """
    from tapesched.simulator.scenario.spec import named_code
    from tapesched.solvers.online.mount_policy import parse_mount_policy
    from tapesched.solvers.plugins import resolve_scheduler
    from tapesched.toolkit.registry import LoadError

    replaced = {
        "run.scheduler": scheduler is not None,
        "run.scheduler.name": scheduler is not None,
        "run.scheduler.mount_policy": mount_policy is not None,
    }
    named = [(path, spec) for path, spec in named_code(scenario) if not replaced[path]]
    if named and not allowed:
        why = "the file names code to import; run it with --allow-plugins if you trust it"
        return [Problem(path, f"{spec}: {why}") for path, spec in named]
    problems = []
    for path, spec in named:
        try:
            if path.endswith("mount_policy"):
                parse_mount_policy(spec, capacity_mb=lambda tape: 1.0)
            else:
                resolve_scheduler(spec)
        except LoadError as exc:
            problems.append(Problem(path, str(exc)))
    return problems
