"""The rules of arm operations, and each drive's tape stays read from them.

:func:`check_operations` checks each operation (``unknown-id``,
``wrong-library``, ``negative-time``, ``op-duration``), then walks each
drive's mounts and dismounts in time order into :class:`TapeStay` intervals,
checking ``dismount-wrong-tape``, ``mount-occupied``, ``drive-busy`` (a
mount before the drive's ``available_s``) and ``switch-order``. The stays are
what the drive rules (:mod:`.drive_rules`) place transfers in and the library
rules (:mod:`.library_rules`) find tape conflicts among.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import NamedTuple

from tapesched.toolkit.model import ArmOperation, Drive, Instance, Schedule
from tapesched.toolkit.validator.violation import EPS, Violation


class TapeStay(NamedTuple):
    """A tape's stay in a drive, from mount start (or 0) to dismount end (or forever).

    ``ready`` is when the tape is loaded (mount end + ``load_s``, or the
    drive's ``available_s`` for an initial tape); ``mount`` and ``dismount``
    are operation indices or -1; ``head`` is where the head is at ``ready``
    (the initial ``head_mb``, or 0 after a load).
    """

    begin: float
    ready: float
    end: float
    tape: str
    drive: str
    mount: int
    dismount: int
    head: float = 0.0


def op_text(index: int, op: ArmOperation) -> str:
    """How a message names operation ``index``: ``operations[3] (mount 'T1' into 'd0')``."""
    direction = "into" if op.op == "mount" else "from"
    return f"operations[{index}] ({op.op} {op.tape!r} {direction} {op.drive!r})"


def _op_violation(
    rule: str,
    index: int,
    op: ArmOperation,
    what: str,
    *,
    drives: tuple[str, ...] | None = None,
    tapes: tuple[str, ...] | None = None,
) -> Violation:
    """Operation ``index`` breaks ``rule``: its text then ``what``; its drive and tape
    involved, unless ``drives`` or ``tapes`` name others (or none)."""
    return Violation(
        rule,
        op_text(index, op) + what,
        drives=(op.drive,) if drives is None else drives,
        tapes=(op.tape,) if tapes is None else tapes,
        operations=(index,),
    )


def check_operations(
    instance: Instance, schedule: Schedule, out: list[Violation]
) -> dict[str, list[TapeStay]]:
    """Per-operation rules and each drive's sequence of tape stays."""
    library_by_id = instance.library_by_id
    arm_times = {
        d.id: (d.library, library_by_id[d.library].mount_s, library_by_id[d.library].dismount_s)
        for d in instance.drives
    }
    tape_library = {t.id: t.library for t in instance.tapes}
    per_drive: dict[str, list[tuple[float, bool, int]]] = defaultdict(list)
    for i, op in enumerate(schedule.operations):
        times = arm_times.get(op.drive)
        tape_lib = tape_library.get(op.tape)
        op_library = op.library
        if (
            times is None
            or tape_lib is None
            or (op_library is not None and op_library not in library_by_id)
        ):
            _unknown_in_operation(i, op, times is None, tape_lib is None, out)
            continue
        library_id, mount_s, dismount_s = times
        bad = tape_lib != library_id or (op_library is not None and op_library != library_id)
        if bad:
            where = f", operation in {op_library!r}" if op_library else ""
            out.append(
                _op_violation(
                    "wrong-library",
                    i,
                    op,
                    f": drive in library {library_id!r}, tape in {tape_lib!r}{where}",
                )
            )
        start = op.start_s
        if start < -EPS:
            out.append(_op_violation("negative-time", i, op, f" starts at {start:.6f} s, before 0"))
        is_mount = op.op == "mount"
        expected = mount_s if is_mount else dismount_s
        if abs(op.end_s - start - expected) > EPS:
            lasts = f" lasts {op.end_s - start:.6f} s, not {expected:g} s"
            out.append(_op_violation("op-duration", i, op, lasts))
        if not bad:
            per_drive[op.drive].append((start, is_mount, i))
    return {
        drive.id: _stays(instance, schedule, drive, per_drive.get(drive.id, []), out)
        for drive in instance.drives
    }


def _unknown_in_operation(
    i: int, op: ArmOperation, no_drive: bool, no_tape: bool, out: list[Violation]
) -> None:
    if no_drive:
        out.append(_op_violation("unknown-id", i, op, ": unknown drive", tapes=()))
    if no_tape:
        out.append(_op_violation("unknown-id", i, op, ": unknown tape", drives=()))
    if not no_drive and not no_tape:
        what = f": unknown library {op.library!r}"
        out.append(_op_violation("unknown-id", i, op, what, drives=(), tapes=()))


def _stays(
    instance: Instance,
    schedule: Schedule,
    drive: Drive,
    keyed: list[tuple[float, bool, int]],
    out: list[Violation],
) -> list[TapeStay]:
    """Walk one drive's mounts and dismounts in time order into tape stays.

    At equal start times a dismount comes before a mount, then file order.
    """
    ops = schedule.operations
    keyed.sort()
    stays: list[TapeStay] = []
    did = drive.id
    current = instance.initial_tape.get(did)
    begin, ready, mount_index = 0.0, drive.available_s, -1
    head = instance.initial_head_mb.get(did, 0.0)
    last_dismount_end = -math.inf
    for _, is_mount, i in keyed:
        op = ops[i]
        if not is_mount:
            if current is None:
                out.append(_op_violation("dismount-wrong-tape", i, op, ": the drive is empty"))
                continue
            if op.tape != current:
                holds = f": the drive holds {current!r}"
                out.append(
                    _op_violation("dismount-wrong-tape", i, op, holds, tapes=(op.tape, current))
                )
            stays.append(TapeStay(begin, ready, op.end_s, current, did, mount_index, i, head))
            current = None
            last_dismount_end = op.end_s
            continue
        if current is not None:
            holds = f": the drive still holds {current!r}"
            out.append(_op_violation("mount-occupied", i, op, holds, tapes=(op.tape, current)))
            stays.append(TapeStay(begin, ready, op.start_s, current, did, mount_index, -1, head))
        elif op.start_s < drive.available_s - EPS:
            busy = (
                f" starts at {op.start_s:.6f} s, "
                f"before the drive is free at {drive.available_s:g} s"
            )
            out.append(_op_violation("drive-busy", i, op, busy))
        elif op.start_s < last_dismount_end - EPS:
            early = (
                f" starts at {op.start_s:.6f} s, before the dismount "
                f"from the drive ends at {last_dismount_end:.6f} s"
            )
            out.append(_op_violation("switch-order", i, op, early))
        current, begin, ready, mount_index = op.tape, op.start_s, op.end_s + drive.load_s, i
        head = 0.0
    if current is not None:
        stays.append(TapeStay(begin, ready, math.inf, current, did, mount_index, -1, head))
    return stays
