"""The rules across drives of a library: a tape in one drive at a time, the arms' capacity.

:func:`check_tape_conflicts` finds a tape whose stays in two drives overlap
(``tape-conflict``); :func:`check_arm_capacity` finds more arm operations at
once than a library has arms (``arm-capacity``), or than it has free ones
while some are still busy at the start (``arm-busy``).
"""

from __future__ import annotations

import heapq
import math
from collections import defaultdict

from tapesched.toolkit.model import Instance, Schedule
from tapesched.toolkit.validator.operation_rules import TapeStay, op_text
from tapesched.toolkit.validator.violation import EPS, Violation


def check_tape_conflicts(stays_of: dict[str, list[TapeStay]], out: list[Violation]) -> None:
    """Rule ``tape-conflict``: each tape's stays, in time order, do not overlap."""
    by_tape: dict[str, list[TapeStay]] = defaultdict(list)
    for stays in stays_of.values():
        for stay in stays:
            by_tape[stay.tape].append(stay)
    for tape, stays in by_tape.items():
        if len(stays) < 2:
            continue
        stays.sort()
        holder = stays[0]
        for stay in stays[1:]:
            if stay.begin < holder.end - EPS:
                ops = tuple(i for i in (holder.dismount, stay.mount) if i >= 0)
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


def _peak_overlap(timed: list[tuple[float, int, float]]) -> int:
    """Most operations in progress at once; ``timed`` is sorted by start.

    At each start, the operations in progress are those started so far less
    those ended by then (half-open intervals, to within EPS); a walk over the
    sorted ends counts the latter.
    """
    ends = sorted(end for _, _, end in timed)
    done, peak, count = 0, 0, len(ends)
    for started, (start, _, _) in enumerate(timed, 1):
        limit = start + EPS
        while done < count and ends[done] <= limit:
            done += 1
        if started - done > peak:
            peak = started - done
    return peak


def check_arm_capacity(instance: Instance, schedule: Schedule, out: list[Violation]) -> None:
    """Rules ``arm-capacity`` and ``arm-busy``: at most ``arms`` operations at once.

    An arm busy at the start (``arms_available_s``) counts as an operation
    from 0 to when it is free, with a negative index (-1 for the first arm);
    an excess that involves one is ``arm-busy``.
    """
    drive_by_id = instance.drive_by_id
    per_library: dict[str, list[tuple[float, int, float]]] = defaultdict(list)
    ops = schedule.operations
    for i, op in enumerate(ops):
        drive = drive_by_id.get(op.drive)
        if drive is not None and op.end_s - op.start_s > EPS:
            per_library[drive.library].append((op.start_s, i, op.end_s))
    for library_id, timed in per_library.items():
        library = instance.library_by_id[library_id]
        arms = library.arms
        for k, free_s in enumerate(library.arm_free_s()):
            if free_s > EPS:
                timed.append((0.0, -1 - k, free_s))
        timed.sort()
        if _peak_overlap(timed) <= arms:
            continue
        active: list[tuple[float, int]] = []
        for start, i, end in timed:
            while active and active[0][0] <= start + EPS:
                heapq.heappop(active)
            heapq.heappush(active, (end, i))
            if len(active) > arms:
                involved = tuple(sorted(j for _, j in active if j >= 0))
                busy = sorted(-1 - j for _, j in active if j < 0)
                text = ", ".join(op_text(j, ops[j]) for j in involved)
                if busy:
                    rule = "arm-busy"
                    what = (
                        f"library {library_id!r} has {arms} arm(s), arm(s) "
                        + ", ".join(f"{k} (busy until {library.arm_free_s()[k]:g} s)" for k in busy)
                        + f" still busy at {start:.6f} s: {text}"
                    )
                else:
                    rule = "arm-capacity"
                    what = (
                        f"library {library_id!r} has {arms} arm(s) but {len(active)} "
                        f"operations overlap at {start:.6f} s: {text}"
                    )
                out.append(
                    Violation(
                        rule,
                        what,
                        drives=tuple(ops[j].drive for j in involved),
                        tapes=tuple(ops[j].tape for j in involved),
                        operations=involved,
                    )
                )
