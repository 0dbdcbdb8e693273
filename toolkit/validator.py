"""The independent judge of schedules: every rule of the core problem, checked.

:func:`validate` is a pure function of an instance and a schedule, whoever made
the schedule (a solver, the simulator, a user). It returns every violation it
finds, each naming the rule broken and the requests, drives, tapes and arm
operations involved, and the objective recomputed from the instance (never the
value a schedule records). It runs in O(n log n) for n requests and operations:
one sort per drive, per tape and per library, and linear sweeps.

Rules (the ``rule`` of a :class:`Violation`):

==================== ==========================================================
``unknown-id``       a request, drive, tape or library id that the instance lacks
``missing-request``  a request of the instance that the schedule leaves out
``duplicate-request`` a request scheduled more than once
``gang-size``        a request given a number of drives other than its pieces
``gang-distinct``    a request given the same drive twice
``wrong-library``    a drive, tape or operation library that does not match
``release``          a transfer that starts before its request's release
``end``              a recorded end other than ``start + max size / rate``
``negative-time``    an arm operation that starts before time 0
``op-duration``      an arm operation not exactly ``mount_s`` / ``dismount_s`` long
``drive-overlap``    two requests on one drive at the same time
``load``             a transfer that starts before its tape is mounted, loaded and located
``locate``           too little time to move the head between two pieces
``unload``           a dismount too early after the drive's last action + ``unload_s``
``tape-not-mounted`` a transfer on a drive that does not hold the piece's tape
``mount-occupied``   a mount into a drive that holds a tape
``switch-order``     a mount that starts before the dismount from the same drive ends
``dismount-wrong-tape`` a dismount of a tape that the drive does not hold
``tape-conflict``    a tape in two drives at once (mount start to dismount end)
``arm-capacity``     more arm operations at once than the library has arms
==================== ==========================================================

Times compare with a tolerance of :data:`EPS` (1e-6 s), as the spec asks.
"""

from __future__ import annotations

import heapq
import math
from bisect import bisect_right
from collections import defaultdict
from typing import Any

from attrs import field, frozen

from toolkit.model import ArmOperation, Drive, Instance, Piece, Schedule
from toolkit.objectives import objective_value

EPS = 1e-6
RULES: tuple[str, ...] = (
    "unknown-id",
    "missing-request",
    "duplicate-request",
    "gang-size",
    "gang-distinct",
    "wrong-library",
    "release",
    "end",
    "negative-time",
    "op-duration",
    "drive-overlap",
    "load",
    "locate",
    "unload",
    "tape-not-mounted",
    "mount-occupied",
    "switch-order",
    "dismount-wrong-tape",
    "tape-conflict",
    "arm-capacity",
)


@frozen
class Violation:
    """One broken rule and what it involves.

    ``operations`` holds indices into the schedule's ``operations`` list, since
    arm operations have no ids of their own.
    """

    rule: str
    message: str
    requests: tuple[str, ...] = ()
    drives: tuple[str, ...] = ()
    tapes: tuple[str, ...] = ()
    operations: tuple[int, ...] = ()

    def __str__(self) -> str:
        return f"[{self.rule}] {self.message}"


@frozen
class Report:
    """What :func:`validate` found.

    ``objective`` is the instance's objective recomputed from the starts and
    drives of the schedule, or ``None`` when some request cannot be timed
    (missing, or on unknown drives). ``warnings`` are remarks that do not make
    the schedule infeasible, such as a recorded objective that differs.
    """

    violations: tuple[Violation, ...]
    objective_name: str
    objective: float | None
    warnings: tuple[str, ...] = ()
    ends: dict[str, float] = field(factory=dict, eq=False, repr=False)

    @property
    def feasible(self) -> bool:
        """True when no rule is broken."""
        return not self.violations

    @property
    def rules(self) -> set[str]:
        """The set of rules broken."""
        return {v.rule for v in self.violations}


@frozen
class _Residency:
    """A tape's stay in a drive, from mount start (or 0) to dismount end (or forever)."""

    drive: str
    tape: str
    begin: float
    ready: float
    end: float
    mount: int | None
    dismount: int | None


@frozen
class _Use:
    """One piece of one scheduled request on one drive."""

    start: float
    end: float
    request: str
    piece: Piece


def validate(instance: Instance, schedule: Schedule) -> Report:
    """Check ``schedule`` against every rule of ``instance``.

    Parameters
    ----------
    instance
        A well-formed instance (as built by :mod:`toolkit.io`).
    schedule
        A well-formed schedule; ids inside it need not exist.

    Returns
    -------
    Report
        Every violation found, the recomputed objective and any warnings.
    """
    out: list[Violation] = []
    uses, ends = _check_requests(instance, schedule, out)
    residencies = _check_operations(instance, schedule, out)
    _check_drive_timelines(instance, schedule, uses, residencies, out)
    _check_tape_conflicts(residencies, out)
    _check_arm_capacity(instance, schedule, out)

    warnings: list[str] = []
    complete = len(ends) == len(instance.requests)
    objective = objective_value(instance, ends) if complete else None
    if schedule.instance is not None and schedule.instance != instance.name:
        warnings.append(
            f"schedule is for instance {schedule.instance!r}, checked against {instance.name!r}"
        )
    if complete and schedule.objective is not None:
        recomputed = objective_value(instance, ends, schedule.objective.name)
        recorded = schedule.objective.value
        if abs(recorded - recomputed) > 1e-6 * max(1.0, abs(recomputed)):
            warnings.append(
                f"recorded {schedule.objective.name} {recorded:.6f} differs from "
                f"the recomputed {recomputed:.6f}"
            )
    return Report(tuple(out), instance.objective, objective, tuple(warnings), ends)


def _check_requests(
    instance: Instance, schedule: Schedule, out: list[Violation]
) -> tuple[dict[str, list[_Use]], dict[str, float]]:
    """Per-request rules; returns each drive's uses and each timed request's end."""
    by_id = instance.request_by_id
    drive_by_id = instance.drive_by_id
    tape_by_id = instance.tape_by_id
    uses: dict[str, list[_Use]] = defaultdict(list)
    ends: dict[str, float] = {}
    seen: set[str] = set()
    for entry in schedule.requests:
        request = by_id.get(entry.id)
        if request is None:
            out.append(Violation("unknown-id", f"unknown request {entry.id!r}", (entry.id,)))
            continue
        if entry.id in seen:
            out.append(
                Violation(
                    "duplicate-request", f"request {entry.id!r} is scheduled twice", (entry.id,)
                )
            )
            continue
        seen.add(entry.id)
        pieces = request.pieces
        if len(entry.drives) != len(pieces):
            out.append(
                Violation(
                    "gang-size",
                    f"request {entry.id!r} has {len(pieces)} pieces but {len(entry.drives)} drives",
                    (entry.id,),
                    entry.drives,
                )
            )
        library = tape_by_id[pieces[0].tape].library
        drives: list[Drive] = []
        used: set[str] = set()
        for piece, drive_id in zip(pieces, entry.drives, strict=False):
            drive = drive_by_id.get(drive_id)
            if drive is None:
                out.append(
                    Violation(
                        "unknown-id",
                        f"request {entry.id!r}: unknown drive {drive_id!r}",
                        (entry.id,),
                        (drive_id,),
                    )
                )
                continue
            drives.append(drive)
            if drive_id in used:
                out.append(
                    Violation(
                        "gang-distinct",
                        f"request {entry.id!r} uses drive {drive_id!r} for two pieces",
                        (entry.id,),
                        (drive_id,),
                    )
                )
                continue
            used.add(drive_id)
            if drive.library != library:
                out.append(
                    Violation(
                        "wrong-library",
                        f"request {entry.id!r}: drive {drive_id!r} is in library "
                        f"{drive.library!r}, its tapes in {library!r}",
                        (entry.id,),
                        (drive_id,),
                    )
                )
                continue
            uses[drive_id].append(_Use(entry.start_s, entry.end_s, entry.id, piece))
        if entry.start_s < request.release_s - EPS:
            out.append(
                Violation(
                    "release",
                    f"request {entry.id!r} starts at {entry.start_s:.6f} s, "
                    f"before its release {request.release_s:.6f} s",
                    (entry.id,),
                )
            )
        if len(drives) == len(pieces) == len(entry.drives):
            end = entry.start_s + max(
                p.size_mb / d.rate_mb_s for p, d in zip(pieces, drives, strict=True)
            )
            ends[entry.id] = end
            if abs(entry.end_s - end) > EPS:
                out.append(
                    Violation(
                        "end",
                        f"request {entry.id!r} ends at {end:.6f} s, recorded {entry.end_s:.6f} s",
                        (entry.id,),
                        entry.drives,
                    )
                )
    missing = [r.id for r in instance.requests if r.id not in seen]
    for rid in missing:
        out.append(Violation("missing-request", f"request {rid!r} is not scheduled", (rid,)))
    return uses, ends


def _op_text(index: int, op: ArmOperation) -> str:
    direction = "into" if op.op == "mount" else "from"
    return f"operations[{index}] ({op.op} {op.tape!r} {direction} {op.drive!r})"


def _check_operations(
    instance: Instance, schedule: Schedule, out: list[Violation]
) -> dict[str, list[_Residency]]:
    """Per-operation rules and each drive's sequence of tape residencies."""
    drive_by_id = instance.drive_by_id
    tape_by_id = instance.tape_by_id
    library_by_id = instance.library_by_id
    per_drive: dict[str, list[int]] = defaultdict(list)
    for i, op in enumerate(schedule.operations):
        bad = False
        drive = drive_by_id.get(op.drive)
        tape = tape_by_id.get(op.tape)
        if drive is None:
            out.append(
                Violation(
                    "unknown-id",
                    f"{_op_text(i, op)}: unknown drive",
                    drives=(op.drive,),
                    operations=(i,),
                )
            )
            bad = True
        if tape is None:
            out.append(
                Violation(
                    "unknown-id",
                    f"{_op_text(i, op)}: unknown tape",
                    tapes=(op.tape,),
                    operations=(i,),
                )
            )
            bad = True
        if op.library is not None and op.library not in library_by_id:
            out.append(
                Violation(
                    "unknown-id",
                    f"{_op_text(i, op)}: unknown library {op.library!r}",
                    operations=(i,),
                )
            )
            bad = True
        if drive is None or tape is None:
            continue
        library = library_by_id[drive.library]
        if tape.library != drive.library or (
            op.library is not None and op.library != drive.library
        ):
            out.append(
                Violation(
                    "wrong-library",
                    f"{_op_text(i, op)}: drive in library {drive.library!r}, tape in "
                    f"{tape.library!r}" + (f", operation in {op.library!r}" if op.library else ""),
                    drives=(op.drive,),
                    tapes=(op.tape,),
                    operations=(i,),
                )
            )
            bad = True
        if op.start_s < -EPS:
            out.append(
                Violation(
                    "negative-time",
                    f"{_op_text(i, op)} starts at {op.start_s:.6f} s, before 0",
                    drives=(op.drive,),
                    tapes=(op.tape,),
                    operations=(i,),
                )
            )
        expected = library.mount_s if op.op == "mount" else library.dismount_s
        if abs(op.duration_s - expected) > EPS:
            out.append(
                Violation(
                    "op-duration",
                    f"{_op_text(i, op)} lasts {op.duration_s:.6f} s, not {expected:g} s",
                    drives=(op.drive,),
                    tapes=(op.tape,),
                    operations=(i,),
                )
            )
        if not bad:
            per_drive[op.drive].append(i)

    residencies: dict[str, list[_Residency]] = {}
    for drive in instance.drives:
        residencies[drive.id] = _residencies(
            instance, schedule, drive, per_drive.get(drive.id, []), out
        )
    return residencies


def _residencies(
    instance: Instance, schedule: Schedule, drive: Drive, indices: list[int], out: list[Violation]
) -> list[_Residency]:
    """Walk one drive's mounts and dismounts in time order into tape residencies."""
    ops = schedule.operations
    indices = sorted(indices, key=lambda i: (ops[i].start_s, ops[i].op == "mount", i))
    stays: list[_Residency] = []
    current = instance.initial_tape.get(drive.id)
    begin, ready, mount_index = 0.0, 0.0, None
    last_dismount_end = -math.inf
    for i in indices:
        op = ops[i]
        if op.op == "dismount":
            if current is None:
                out.append(
                    Violation(
                        "dismount-wrong-tape",
                        f"{_op_text(i, op)}: the drive is empty",
                        drives=(drive.id,),
                        tapes=(op.tape,),
                        operations=(i,),
                    )
                )
                continue
            if op.tape != current:
                out.append(
                    Violation(
                        "dismount-wrong-tape",
                        f"{_op_text(i, op)}: the drive holds {current!r}",
                        drives=(drive.id,),
                        tapes=(op.tape, current),
                        operations=(i,),
                    )
                )
            stays.append(_Residency(drive.id, current, begin, ready, op.end_s, mount_index, i))
            current = None
            last_dismount_end = op.end_s
        else:
            if current is not None:
                out.append(
                    Violation(
                        "mount-occupied",
                        f"{_op_text(i, op)}: the drive still holds {current!r}",
                        drives=(drive.id,),
                        tapes=(op.tape, current),
                        operations=(i,),
                    )
                )
                stays.append(
                    _Residency(drive.id, current, begin, ready, op.start_s, mount_index, None)
                )
            elif op.start_s < last_dismount_end - EPS:
                out.append(
                    Violation(
                        "switch-order",
                        f"{_op_text(i, op)} starts at {op.start_s:.6f} s, before the dismount "
                        f"from the drive ends at {last_dismount_end:.6f} s",
                        drives=(drive.id,),
                        tapes=(op.tape,),
                        operations=(i,),
                    )
                )
            current, begin, ready, mount_index = op.tape, op.start_s, op.end_s + drive.load_s, i
    if current is not None:
        stays.append(_Residency(drive.id, current, begin, ready, math.inf, mount_index, None))
    return stays


def _check_drive_timelines(
    instance: Instance,
    schedule: Schedule,
    uses: dict[str, list[_Use]],
    residencies: dict[str, list[_Residency]],
    out: list[Violation],
) -> None:
    """Place each piece in the residency that holds it and check load, locate and unload."""
    ops = schedule.operations
    for drive in instance.drives:
        stays = residencies[drive.id]
        begins = [s.begin for s in stays]
        assigned: list[list[_Use]] = [[] for _ in stays]
        for use in sorted(uses.get(drive.id, ()), key=lambda u: (u.start, u.end, u.request)):
            k = bisect_right(begins, use.start + EPS) - 1
            while k >= 0 and stays[k].begin == stays[k].end:
                k -= 1
            stay = stays[k] if k >= 0 and use.start < stays[k].end - EPS else None
            if stay is None or stay.tape != use.piece.tape:
                held = f"holds {stay.tape!r}" if stay is not None else "is empty"
                out.append(
                    Violation(
                        "tape-not-mounted",
                        f"request {use.request!r} reads tape {use.piece.tape!r} on drive "
                        f"{drive.id!r} at {use.start:.6f} s, when the drive {held}",
                        (use.request,),
                        (drive.id,),
                        (use.piece.tape,),
                    )
                )
                continue
            assigned[k].append(use)
        for stay, group in zip(stays, assigned, strict=True):
            last_action = _check_stay(drive, stay, group, out)
            if stay.dismount is not None:
                dismount = ops[stay.dismount]
                if dismount.start_s < last_action + drive.unload_s - EPS:
                    out.append(
                        Violation(
                            "unload",
                            f"{_op_text(stay.dismount, dismount)} starts at "
                            f"{dismount.start_s:.6f} s, before the drive's last action at "
                            f"{last_action:.6f} s + unload {drive.unload_s:g} s",
                            tuple(u.request for u in group[-1:]),
                            (drive.id,),
                            (stay.tape,),
                            (stay.dismount,),
                        )
                    )


def _check_stay(drive: Drive, stay: _Residency, group: list[_Use], out: list[Violation]) -> float:
    """Check the pieces of one residency in start order; return the drive's last action."""
    free, head = stay.ready, 0.0
    previous: _Use | None = None
    for use in group:
        if previous is not None and use.start < previous.end - EPS:
            out.append(
                Violation(
                    "drive-overlap",
                    f"requests {previous.request!r} and {use.request!r} overlap on drive "
                    f"{drive.id!r} ({previous.start:.6f}-{previous.end:.6f} s and "
                    f"{use.start:.6f}-{use.end:.6f} s)",
                    (previous.request, use.request),
                    (drive.id,),
                    (stay.tape,),
                )
            )
        else:
            locate = abs(use.piece.offset_mb - head) / drive.locate_mb_s
            if use.start < free + locate - EPS:
                after_load = previous is None and stay.mount is not None
                rule = "load" if after_load and use.start < stay.ready - EPS else "locate"
                what = (
                    f"mount end + load {drive.load_s:g} s = {free:.6f} s"
                    if after_load
                    else f"{free:.6f} s"
                )
                out.append(
                    Violation(
                        rule,
                        f"request {use.request!r} starts on drive {drive.id!r} at "
                        f"{use.start:.6f} s, before {what} + locate {locate:.6f} s "
                        f"(head {head:g} MB to {use.piece.offset_mb:g} MB)",
                        (use.request,) if previous is None else (previous.request, use.request),
                        (drive.id,),
                        (stay.tape,),
                        (stay.mount,) if after_load and stay.mount is not None else (),
                    )
                )
        free = max(free, use.end)
        head = use.piece.end_mb
        previous = use
    return free


def _check_tape_conflicts(residencies: dict[str, list[_Residency]], out: list[Violation]) -> None:
    by_tape: dict[str, list[_Residency]] = defaultdict(list)
    for stays in residencies.values():
        for stay in stays:
            by_tape[stay.tape].append(stay)
    for tape, stays in by_tape.items():
        if len(stays) < 2:
            continue
        stays.sort(key=lambda s: (s.begin, s.end))
        holder = stays[0]
        for stay in stays[1:]:
            if stay.begin < holder.end - EPS:
                ops = tuple(i for i in (holder.dismount, stay.mount) if i is not None)
                until = "forever" if math.isinf(holder.end) else f"until {holder.end:.6f} s"
                out.append(
                    Violation(
                        "tape-conflict",
                        f"tape {tape!r} is in drive {holder.drive!r} {until} and mounted into "
                        f"drive {stay.drive!r} at {stay.begin:.6f} s",
                        drives=(holder.drive, stay.drive),
                        tapes=(tape,),
                        operations=ops,
                    )
                )
            if stay.end > holder.end:
                holder = stay


def _check_arm_capacity(instance: Instance, schedule: Schedule, out: list[Violation]) -> None:
    drive_by_id = instance.drive_by_id
    per_library: dict[str, list[int]] = defaultdict(list)
    ops = schedule.operations
    for i, op in enumerate(ops):
        drive = drive_by_id.get(op.drive)
        if drive is not None and op.end_s - op.start_s > EPS:
            per_library[drive.library].append(i)
    for library_id, indices in per_library.items():
        arms = instance.library_by_id[library_id].arms
        indices.sort(key=lambda i: (ops[i].start_s, i))
        active: list[tuple[float, int]] = []
        for i in indices:
            op = ops[i]
            while active and active[0][0] <= op.start_s + EPS:
                heapq.heappop(active)
            heapq.heappush(active, (op.end_s, i))
            if len(active) > arms:
                involved = tuple(sorted(j for _, j in active))
                out.append(
                    Violation(
                        "arm-capacity",
                        f"library {library_id!r} has {arms} arm(s) but {len(active)} operations "
                        f"overlap at {op.start_s:.6f} s: "
                        + ", ".join(_op_text(j, ops[j]) for j in involved),
                        drives=tuple(ops[j].drive for j in involved),
                        tapes=tuple(ops[j].tape for j in involved),
                        operations=involved,
                    )
                )


def summary(report: Report) -> dict[str, Any]:
    """A JSON-friendly digest of a report."""
    return {
        "feasible": report.feasible,
        "objective": {"name": report.objective_name, "value": report.objective},
        "violations": [
            {
                "rule": v.rule,
                "message": v.message,
                "requests": list(v.requests),
                "drives": list(v.drives),
                "tapes": list(v.tapes),
                "operations": list(v.operations),
            }
            for v in report.violations
        ],
        "warnings": list(report.warnings),
    }
