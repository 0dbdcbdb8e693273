"""A replay from its files: a trace, a library layout and a cartridge map, read, checked,
replayed, and the result document (what ``tapesched replay`` prints with ``--json``).

:func:`replay_files` does all of it in one call and gives a :class:`TraceReplay`, whose
:meth:`TraceReplay.to_dict` is the result document: the files replayed, the seed and the
homes used, then :meth:`simulator.replay.replay.ReplayResult.as_dict`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from attrs import frozen

from tapesched.simulator.replay.replay import ReplayResult, replay, unreplayable
from tapesched.simulator.replay.trace import (
    Homes,
    LibraryLayout,
    TraceRequest,
    place_cartridges,
    read_homes,
    read_layout,
    read_requests,
)
from tapesched.toolkit.errors import SettingProblem, SettingsError

HOMES_BESIDE = "crtmapping.json"
"""A cartridge map of this name beside the trace gives the default home levels."""


@frozen
class TraceReplay:
    """A replay of a trace file on a layout file, with what placed its cartridges.

    Attributes
    ----------
    trace_file, layout_file
        The two files replayed, as given.
    seed
        Seed of the hashed home levels.
    homes_file
        The cartridge map used (``None``: none).
    homes
        The home levels, and how many cartridges the map and the hash placed.
    result
        What the replay measured.
    """

    trace_file: str
    layout_file: str
    seed: int
    homes_file: str | None
    homes: Homes
    result: ReplayResult

    def to_dict(self) -> dict[str, Any]:
        """The result document (its keys: ``tapesched replay --help``)."""
        homes = self.homes
        return {
            "trace": self.trace_file,
            "layout": self.layout_file,
            "seed": self.seed,
            "homes": {"file": self.homes_file, "mapped": homes.mapped, "hashed": homes.hashed},
            **self.result.as_dict(),
        }


def trace_homes(
    trace_file: str,
    homes_file: str | None,
    requests: Sequence[TraceRequest],
    seed: int,
    layout: LibraryLayout,
) -> tuple[str | None, Homes]:
    """The map used (``homes_file``, else :data:`HOMES_BESIDE` beside the trace, else none)
    and the homes it gives the trace's cartridges (the others by a hash of ``seed``)."""
    if homes_file is None:
        beside = Path(trace_file).with_name(HOMES_BESIDE)
        homes_file = str(beside) if beside.is_file() else None
    mapped = read_homes(homes_file, layout) if homes_file is not None else None
    return homes_file, place_cartridges((r.cartridge for r in requests), layout, mapped, seed)


def replay_files(
    trace_file: str,
    layout_file: str,
    drives: int,
    *,
    keep_mounted: bool = True,
    scheduler: str = "tape-batching",
    mount_policy: str | None = None,
    limit: int | None = None,
    homes_file: str | None = None,
    seed: int = 0,
    per_request: bool = False,
) -> TraceReplay:
    """Replay the trace of ``trace_file`` on the layout of ``layout_file`` with ``drives`` drives.

    Parameters
    ----------
    trace_file, layout_file
        A cartridge trace (CSV, ``.bz2`` too) and a library layout (JSON, ``.bz2`` too).
    drives
        Drives used, spread over the levels that have drives.
    keep_mounted, scheduler, mount_policy
        As :func:`simulator.replay.replay.replay` takes them.
    limit
        Replay only the first ``limit`` requests of the trace (``None``: all).
    homes_file
        A cartridge map giving home levels (``None``: :data:`HOMES_BESIDE` beside
        the trace, if there is one).
    seed
        Seed of the home levels of cartridges no map places.
    per_request
        Keep each request's latency and mount flag (the result document's
        ``latencies_s`` and ``mounted``).

    Raises
    ------
    toolkit.errors.InputError
        For a file that cannot be read, or breaks its format.
    toolkit.errors.SettingsError
        For a scheduler that cannot replay a trace or gives none, more drives than the
        layout has, a bad mount policy, or a trace the layout cannot hold (the problem
        then names no setting).
    """
    why = unreplayable(scheduler)
    if why is not None:
        raise SettingsError([SettingProblem(("scheduler",), why)])
    try:
        requests = read_requests(trace_file)
        layout = read_layout(layout_file)
        if limit is not None:
            requests = requests[:limit]
        used_map, homes = trace_homes(trace_file, homes_file, requests, seed, layout)
    except ValueError as exc:
        raise SettingsError([SettingProblem((), str(exc))]) from exc
    if drives > layout.drives:
        message = f"{layout_file} has {layout.drives} drives, asked for {drives}"
        raise SettingsError([SettingProblem(("drives",), message)])
    check_scheduler(scheduler, mount_policy)
    try:
        result = replay(
            requests,
            layout,
            drives,
            keep_mounted=keep_mounted,
            homes=homes.levels,
            seed=seed,
            scheduler=scheduler,
            mount_policy=mount_policy,
            per_request=per_request,
        )
    except ValueError as exc:
        raise SettingsError([SettingProblem((), str(exc))]) from exc
    return TraceReplay(trace_file, layout_file, seed, used_map, homes, result)


def check_scheduler(scheduler: str, mount_policy: str | None) -> None:
    """Raise :class:`~toolkit.errors.SettingsError` unless ``scheduler`` gives a scheduler
    and ``mount_policy`` a mount policy."""
    from tapesched.simulator.scenario.consent import scheduler_problem
    from tapesched.solvers.online.mount_policy import MountPolicyError, parse_mount_policy

    problem = scheduler_problem(scheduler)
    if problem is not None:
        raise SettingsError([SettingProblem(("scheduler",), problem)])
    if mount_policy is not None:
        try:
            parse_mount_policy(mount_policy, future={})
        except MountPolicyError as exc:
            raise SettingsError([SettingProblem(("mount_policy",), str(exc))]) from exc
