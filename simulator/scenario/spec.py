"""A scenario once read, and whether it can run: :class:`Scenario`, :class:`RunSettings`.

A :class:`Scenario` is a platform, an archival policy, a workload and how to run
them, read from a file by :func:`simulator.scenario.document.load_scenario` (the
format: ``docs/scenario-format.md``) or built in Python. :func:`check_runnable`
says what keeps one from running (a write that fits no mover, a parameter the
policy needs, a scheduler's conditions), at the paths of the file, and is asked
again once command-line options have replaced parts of it; :func:`make_archive`
lays out its archive at time 0 for a seed.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs
from attrs import frozen

from tapesched.simulator.platform.faults import FaultSpec
from tapesched.simulator.platform.spec import DriveSpec, MoverSpec, PlatformSpec
from tapesched.simulator.schedulers.bw_main import BwMainParams
from tapesched.simulator.schedulers.registry import BW_MAIN, GOLUBCHIK
from tapesched.simulator.storage.archive import Archive
from tapesched.simulator.storage.disk_cache import CacheSpec
from tapesched.simulator.storage.files import FileSpec
from tapesched.simulator.storage.policies.policy import Policy, scheme_problem
from tapesched.simulator.storage.policies.policy_registry import (
    make_policy,
    policy_guard,
    required_params,
)
from tapesched.simulator.workload.workload import Workload, WorkloadParams
from tapesched.solvers.online.mount_policy import is_plugged
from tapesched.solvers.plugins import SchedulerSpec
from tapesched.toolkit.errors import Problem
from tapesched.toolkit.files.structurer import KeyStyle

MISSING_KEY = "missing key"
"""What a scenario says of a required key left out, at the key's own path."""

KEYS = KeyStyle(missing_at_key=True, unknown_at_key=True, list_known=True)
"""A scenario names a missing key at its own path (``policy.name: missing key``) and an
unknown one with the keys its object may hold."""


@frozen
class RunSettings:
    """How to run a scenario: scheduler, seed, replications, warm-up share.

    ``scheduler`` is a scheduler spec (:mod:`solvers.plugins`): in a file, a
    registered name, ``module.path:Attr`` or an entry point's name; from
    Python, a scheduler or a class or factory of schedulers too.
    """

    scheduler: SchedulerSpec = "fifo"
    seed: int = 1
    replications: int = 1
    warmup: float = 0.1
    bw_main: BwMainParams = attrs.field(factory=BwMainParams)
    mount_policy: str | None = None
    """A mount policy spec (:mod:`solvers.online.mount_policy`) the scheduler runs under;
    ``None`` keeps tapes mounted with the platform's own choice of drive, as before."""


@frozen
class Scenario:
    """A scenario: a platform, an archival policy, a workload, and how to run them."""

    name: str
    description: str
    platform: PlatformSpec
    policy: str
    policy_params: Mapping[str, float]
    workload: WorkloadParams
    run: RunSettings
    disk_cache: CacheSpec | None = None
    """Service classes with a disk cache each in front of the tapes (``None``: none)."""
    faults: FaultSpec | None = None
    """What fails and how often (:mod:`simulator.platform.faults`; ``None``: nothing)."""


def named_code(scenario: Scenario) -> list[tuple[str, str]]:
    """What of the scenario's run names code to import, ``module.path:Attr``: ``(path, spec)``.

    The scheduler (``run.scheduler``, or ``run.scheduler.name`` beside a
    mount policy) and the mount policy (``run.scheduler.mount_policy``) as
    they are now, a command line's replacements included. A command refuses
    to run those it did not replace itself unless the user allows them
    (``--allow-plugins``).
    """
    run = scenario.run
    named = []
    if isinstance(run.scheduler, str) and ":" in run.scheduler:
        path = "run.scheduler" if run.mount_policy is None else "run.scheduler.name"
        named.append((path, run.scheduler))
    if run.mount_policy is not None and is_plugged(run.mount_policy):
        named.append(("run.scheduler.mount_policy", run.mount_policy))
    return named


def check_runnable(scenario: Scenario) -> list[Problem]:
    """What keeps the scenario's policy from running its workload on its platform.

    Run again once command-line options have replaced the policy or the
    workload. Problems: a parameter the policy needs that the scenario lacks
    (``policy.block_mb``), a platform the ``golubchik`` scheduler cannot run
    (tapes not put away at once, movers), a request class wider than a
    library's drives, a scheme the policy does not write (SINGLE writes
    ``1+0`` only), and a scheme some write of which fits no mover
    (a file of the smallest and of the largest size of the workload are
    tried, which covers HETERO's two sides of its threshold).
    """
    missing = [k for k in required_params(scenario.policy) if k not in scenario.policy_params]
    if missing:
        return [
            Problem(f"policy.{k}", f"{MISSING_KEY} (the {scenario.policy} policy needs it)")
            for k in missing
        ]
    policy = make_policy(scenario.policy, **scenario.policy_params)
    with policy_guard(policy):
        return _unrunnable(scenario, policy)


def _unrunnable(scenario: Scenario, policy: Policy) -> list[Problem]:
    """What :func:`check_runnable` finds once the policy is made."""
    w = scenario.workload
    problems = []
    if scenario.run.mount_policy is not None and scenario.run.scheduler in (BW_MAIN, GOLUBCHIK):
        problems.append(
            Problem(
                "run.scheduler.mount_policy",
                f"the {scenario.run.scheduler} scheduler manages its drives itself "
                "and takes no mount policy",
            )
        )
    if scenario.run.scheduler == GOLUBCHIK and scenario.faults is not None:
        problems.append(
            Problem("faults", f"the {GOLUBCHIK} scheduler's drives one at a time have no faults")
        )
    if scenario.run.scheduler == GOLUBCHIK:
        if scenario.platform.dismount != "at-once":
            problems.append(
                Problem(
                    "platform.dismount",
                    f"the {GOLUBCHIK} scheduler needs at-once (each drive puts its tape away "
                    "as soon as its transfer ends)",
                )
            )
        if scenario.platform.movers:
            problems.append(
                Problem("platform.drives", f"the {GOLUBCHIK} scheduler needs drives without movers")
            )
    if w.archive is not None:
        try:
            make_archive(scenario, scenario.run.seed, policy)
        except ValueError as exc:
            problems.append(Problem("workload.initial_archive.tapes", str(exc)))
    for i, c in enumerate(w.classes):
        if c.share == 0:
            continue
        why = why_no_mover_fits(scenario.platform, policy, FileSpec("probe", c.size_mb, c.scheme))
        if why is not None:
            problems.append(Problem(f"workload.request_classes[{i}].width", why))
    for scheme, share in () if w.classes else w.schemes:
        if share == 0:
            continue
        for size_mb in dict.fromkeys((w.min_size_mb, w.max_size_mb)):
            why = why_no_mover_fits(scenario.platform, policy, FileSpec("probe", size_mb, scheme))
            if why is not None:
                problems.append(Problem(f"workload.schemes.{scheme}", why))
                break
    return problems


def make_archive(scenario: Scenario, seed: int, policy: Policy | None = None) -> Archive | None:
    """The archive of ``scenario``'s workload for a run with ``seed`` (``None``: it has none).

    Laid out by ``policy`` (by default the scenario's) on the scenario's
    platform, its files drawn like the workload's new files.

    Raises
    ------
    ValueError
        When the policy is one the archive cannot lay out, or its tapes
        hold no set of files.
    """
    w = scenario.workload
    if w.archive is None:
        return None
    if policy is None:
        policy = make_policy(scenario.policy, **scenario.policy_params)
    return Archive(
        w.archive,
        policy,
        sizes_mb=(w.min_size_mb, w.max_size_mb),
        schemes=w.schemes,
        data_ratio=w.data_ratio,
        ec_ratio=w.ec_ratio,
        capacity_mb=scenario.platform.tape_capacity_mb,
        libraries=[lib.id for lib in scenario.platform.libraries],
        seed=seed,
    )


def check_trace(scenario: Scenario, workload: Workload) -> list[Problem]:
    """The writes of a trace (:mod:`simulator.workload.requests_csv`) that fit no mover under the
    scenario's policy, each named by the line of the file's first request (``line N``)."""
    policy = make_policy(scenario.policy, **scenario.policy_params)
    problems = []
    seen: set[str] = set()
    for request in workload.requests:
        file = request.file
        if file.id in seen:
            continue
        seen.add(file.id)
        why = why_no_mover_fits(scenario.platform, policy, file)
        if why is not None:
            problems.append(Problem(f"line {request.id.removeprefix('r')}", why))
    return problems


def why_no_mover_fits(platform: PlatformSpec, policy: Policy, file: FileSpec) -> str | None:
    """Why a write of ``file`` under ``policy`` could never start; ``None`` when it can.

    A job runs on drives of one mover (of one library, without movers), and
    needs the mover's memory (``(X + Y) B`` for RAIT and PARALLEL, none for
    SINGLE), disk (``Y`` tapes of parity for VERTICAL) and bandwidth. Reads
    need no more than writes of the same file. A policy that writes some
    schemes only (SINGLE: ``1+0``) says why it refuses the others.
    """
    refused = scheme_problem(policy, file.scheme)
    if refused is not None:
        return refused
    width = policy.write_width(file)
    memory = policy.write_memory_mb(file)
    disk = policy.stream_disk_mb(file, platform.tape_capacity_mb)
    specs = {m.id: m for m in platform.movers}
    members: dict[str, list[DriveSpec]] = {}
    for d in platform.drives:
        members.setdefault(d.mover or d.library, []).append(d)
    wide = [(specs.get(key, MoverSpec(key)), drives) for key, drives in members.items()]
    wide = [(m, drives) for m, drives in wide if len(drives) >= width]
    what = f"a write of {file.size_mb:g} MB under {policy.name} ({file.scheme})"
    if not wide:
        most = max(len(drives) for drives in members.values())
        unit = "mover" if platform.movers else "library"
        return f"{what} needs {width} drives of one {unit}; the most one has is {most}"
    roomy = [(m, drives) for m, drives in wide if m.memory_mb >= memory]
    if not roomy:
        most_mb = max(m.memory_mb for m, _ in wide)
        return f"{what} needs {memory:g} MB of mover memory; the most a mover has is {most_mb:g}"
    roomy = [(m, drives) for m, drives in roomy if m.disk_mb >= disk]
    if not roomy:
        return f"{what} needs {disk:g} MB of mover disk for its parity; movers have less"
    fast = [
        m
        for m, drives in roomy
        if m.bandwidth_mb_s is None or width * drives[0].model.rate_mb_s <= m.bandwidth_mb_s
    ]
    if not fast:
        return f"{what} streams {width} drives at once, past every mover's bandwidth_mb_s"
    return None
