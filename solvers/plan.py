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
"""

from __future__ import annotations

from collections.abc import Mapping

from attrs import frozen

from toolkit.model import ArmOperation, Instance, ObjectiveValue, Schedule, ScheduledRequest
from toolkit.objectives import objective_value


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
