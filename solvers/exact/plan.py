"""What an exact solver decides, and its conversion to a schedule file.

CP-SAT and MILP models differ in their variables, but both decide the same
things: when each request's transfer starts and on which drives, and which
tape stays in which drive from when to when (a *stay*: from the start of its
mount, or time 0 for a tape loaded at the start, to the start of its
dismount, or the end). :func:`plan_to_schedule` turns those decisions into a
:class:`~toolkit.model.Schedule` with exact durations (``end = start +
mount_s`` and so on), so that the backends share one conversion and whatever
rounding a model used internally never reaches the schedule file: the
validator judges the result and recomputes the objective.
:func:`read_stays` goes the other way, for the backends that start from a
heuristic's schedule: it reads a schedule's stays, and the transfers each
runs, exactly as the validator reads them.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping

from attrs import frozen

from tapesched.toolkit.model import (
    ArmOperation,
    Instance,
    ObjectiveValue,
    Schedule,
    ScheduledRequest,
)
from tapesched.toolkit.objectives import objective_value
from tapesched.toolkit.validator.drive_rules import stay_of_transfer


@frozen
class Stay:
    """A tape in a drive: mounted at ``mount_start_s`` (``None``: there at time 0).

    ``dismount_start_s`` is when an arm starts taking it out (``None``: the
    drive keeps it to the end).
    """

    drive: str
    tape: str
    mount_start_s: float | None
    dismount_start_s: float | None


@frozen
class Plan:
    """The decisions of a solution: transfer starts, drives per piece, tape stays."""

    starts: Mapping[str, float]
    drives: Mapping[str, tuple[str, ...]]
    stays: tuple[Stay, ...]


def plan_to_schedule(instance: Instance, plan: Plan) -> Schedule:
    """The schedule of ``plan``, every duration exact, operations in time order.

    Requests are listed in instance order; each ends at its start plus its
    longest piece's transfer on its drive. Mounts and dismounts take exactly
    their library's times. The recorded objective is the instance's,
    computed from these ends.
    """
    drive_by_id = instance.drive_by_id
    library_by_id = instance.library_by_id
    requests = []
    ends: dict[str, float] = {}
    for request in instance.requests:
        start = plan.starts[request.id]
        drives = tuple(plan.drives[request.id])
        end = start + max(
            p.size_mb / drive_by_id[d].rate_mb_s
            for p, d in zip(request.pieces, drives, strict=True)
        )
        ends[request.id] = end
        requests.append(ScheduledRequest(request.id, drives, start, end))
    operations = []
    for stay in plan.stays:
        library = library_by_id[drive_by_id[stay.drive].library]
        if stay.mount_start_s is not None:
            start = stay.mount_start_s
            operations.append(
                ArmOperation(
                    "mount", stay.tape, stay.drive, start, start + library.mount_s, library.id
                )
            )
        if stay.dismount_start_s is not None:
            start = stay.dismount_start_s
            operations.append(
                ArmOperation(
                    "dismount", stay.tape, stay.drive, start, start + library.dismount_s, library.id
                )
            )
    operations.sort(key=lambda op: (op.start_s, op.op == "mount", op.drive, op.tape))
    value = objective_value(instance, ends)
    return Schedule(
        tuple(requests),
        tuple(operations),
        instance.name,
        ObjectiveValue(instance.objective, value),
    )


@frozen
class ReadStay:
    """A stay of a schedule, as :func:`read_stays` reads it, with the nodes it runs.

    ``mount`` and ``dismount`` are indices into the schedule's operations
    (``None``: a tape loaded at time 0; a tape the drive keeps to the end).
    ``begin_s`` is the mount's start (0 for a tape loaded at time 0) and
    ``end_s`` the dismount's end (infinite when kept): the tape is in the
    drive over ``[begin_s, end_s]`` (reading 3). ``nodes`` are the initial
    node, if any, then the transfers' nodes in the validator's order.
    """

    tape: str
    mount: int | None
    dismount: int | None
    begin_s: float
    end_s: float
    nodes: tuple[int, ...]


Transfer = tuple[str, float, float, str, float, int]
"""A piece's transfer for :func:`read_stays`: ``(drive, start_s, end_s, tape, offset_mb, node)``."""


def read_stays(
    instance: Instance,
    schedule: Schedule,
    initial: Mapping[str, tuple[str, int]],
    transfers: Iterable[Transfer],
) -> dict[str, list[ReadStay]] | None:
    """The stays of every drive of ``instance`` in ``schedule``, each with its nodes in order.

    Read as :func:`toolkit.validator.validate` reads them, so that any
    schedule it accepts is read: a drive's mounts and dismounts in order of
    start, a dismount before a mount at equal starts, then in file order,
    make its stays (several may meet at one instant when arm, unload and
    load times are zero); each transfer belongs to the stay that
    :func:`toolkit.validator.drive_rules.stay_of_transfer` gives it (the one of its tape
    where stays meet; of two of its tape, the earlier for a transfer of no
    length that cannot start the later); a stay runs its transfers in order
    of start, then of end (a transfer of no length before a longer one that
    starts with it), then of node.

    Parameters
    ----------
    instance
        The instance of ``schedule``.
    schedule
        The schedule to read.
    initial
        Per drive holding a tape at time 0: that tape and the model's node
        for it, which opens the drive's first stay.
    transfers
        Every piece's transfer.

    Returns
    -------
    dict or None
        The stays of each drive in time order. ``None`` when the operations
        contradict each other (a mount into a full drive, a dismount from an
        empty one or of another tape), a transfer is in no stay of its tape,
        or a stay runs no node: no exact model has a node for a tape mounted
        and dismounted unused, which no optimal schedule needs.
    """
    ops_of: dict[str, list[tuple[float, bool, int]]] = defaultdict(list)
    for i, op in enumerate(schedule.operations):
        ops_of[op.drive].append((op.start_s, op.op == "mount", i))
    runs_of: dict[str, list[tuple[float, float, int, str, float]]] = defaultdict(list)
    for drive_id, start_s, end_s, tape, offset_mb, node in transfers:
        runs_of[drive_id].append((start_s, end_s, node, tape, offset_mb))
    out: dict[str, list[ReadStay]] = {}
    capacity = {t.id: float(t.capacity_mb) for t in instance.tapes}
    for drive in instance.drives:
        stays = _drive_stays(schedule, initial.get(drive.id), sorted(ops_of[drive.id]))
        if stays is None:
            return None
        begins = [s.begin_s for s in stays]
        ends = [s.end_s for s in stays]
        tapes = [s.tape for s in stays]
        readies = [
            0.0 if s.mount is None else schedule.operations[s.mount].end_s + drive.load_s
            for s in stays
        ]
        members: list[list[int]] = [list(s.nodes) for s in stays]
        for start_s, end_s, node, tape, offset_mb in sorted(runs_of[drive.id]):
            k, _ = stay_of_transfer(
                begins,
                ends,
                tapes,
                start_s,
                tape,
                end=end_s,
                readies=readies,
                lead_s=drive.locate_s(0.0, offset_mb, capacity[tape]),
            )
            if k < 0:
                return None
            members[k].append(node)
        if not all(members):
            return None
        out[drive.id] = [
            ReadStay(s.tape, s.mount, s.dismount, s.begin_s, s.end_s, tuple(nodes))
            for s, nodes in zip(stays, members, strict=True)
        ]
    return out


def _drive_stays(
    schedule: Schedule, initial: tuple[str, int] | None, ops: list[tuple[float, bool, int]]
) -> list[ReadStay] | None:
    """One drive's stays from its operations (sorted), without their transfers yet."""
    stays: list[ReadStay] = []
    current = (
        None if initial is None else ReadStay(initial[0], None, None, 0.0, math.inf, (initial[1],))
    )
    for start_s, is_mount, i in ops:
        op = schedule.operations[i]
        if is_mount:
            if current is not None:
                return None
            current = ReadStay(op.tape, i, None, start_s, math.inf, ())
        else:
            if current is None or current.tape != op.tape:
                return None
            stays.append(
                ReadStay(current.tape, current.mount, i, current.begin_s, op.end_s, current.nodes)
            )
            current = None
    if current is not None:
        stays.append(current)
    return stays
