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
``prefetch``         under ``prefetch=False`` only: a mount, load or locate serving a
                     request that starts before the request's release
``drive-busy``       a mount into a drive, or a locate or transfer on it, that starts
                     before the drive's ``available_s`` (version 2 of the instance)
``arm-busy``         an arm operation that needs an arm still busy at the start, by the
                     library's ``arms_available_s`` (version 2 of the instance)
==================== ==========================================================

The contract lets an offline schedule prefetch (mount, load and locate a tape
before the release); ``validate(..., prefetch=False)`` judges a schedule
under the *non-anticipative* reading of ``tapesched solve --no-prefetch``
instead: the mount that brings a request's tape into its drive (when the
request is the first its stay runs), and the locate to the request's offset,
start no earlier than the request's release. Unloads and dismounts, which
put the previous tape away and serve no request, may still come earlier.

Times compare with a tolerance of :data:`EPS` (1e-6 s), as the spec asks.

The drive operations a schedule implies (load, locate, transfer, unload) are
timed once, here, as the rules are checked: ``validate(..., timeline=True)``
also returns them as :class:`DriveActivity` intervals (what the Gantt chart
of :mod:`toolkit.plots.gantt` draws), each at the earliest time the rules allow:
a load as its mount ends, a locate as soon as the drive is free (its tape
loaded, or its last transfer done), an unload after the drive's last action.
The schedule does not record them, so a solver may have done them later
(an online one locates only once a request is released); only the transfers
and the arm operations are the schedule's own times.
"""

from __future__ import annotations

import heapq
import math
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Sequence
from typing import Any, NamedTuple

from attrs import field, frozen

from tapesched.toolkit.model import (
    ArmOperation,
    Drive,
    Instance,
    Request,
    Schedule,
    ScheduledRequest,
)
from tapesched.toolkit.objectives import objective_value
from tapesched.toolkit.runtime.gc_pause import paused_gc

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
    "prefetch",
    "drive-busy",
    "arm-busy",
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


DRIVE_ACTIVITIES: tuple[str, ...] = ("load", "locate", "transfer", "unload")
"""The kinds of :class:`DriveActivity`, in the order a tape's stay in a drive runs them."""


@frozen
class DriveActivity:
    """One interval of a drive's work, as the validator reads it from a schedule.

    ``kind`` is one of :data:`DRIVE_ACTIVITIES`; ``request`` names the
    request a transfer serves, or the one a locate positions the head for
    (``None`` for a load or an unload). A gang's transfer holds each of its
    drives until the gang's end, so its interval is the same on all of them.
    """

    kind: str
    drive: str
    tape: str
    start_s: float
    end_s: float
    request: str | None = None


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
    activities: tuple[DriveActivity, ...] = field(default=(), eq=False, repr=False)
    """The drive operations in time order per drive, when asked for (``timeline=True``)."""

    @property
    def feasible(self) -> bool:
        """True when no rule is broken."""
        return not self.violations

    @property
    def rules(self) -> set[str]:
        """The set of rules broken."""
        return {v.rule for v in self.violations}


class _Stay(NamedTuple):
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


# A piece of a scheduled request on one drive, as a plain tuple for speed:
# (start, end, request id, tape, offset_mb, offset_mb + size_mb).
_Use = tuple[float, float, str, str, float, float]


def validate(
    instance: Instance, schedule: Schedule, *, timeline: bool = False, prefetch: bool = True
) -> Report:
    """Check ``schedule`` against every rule of ``instance``.

    Parameters
    ----------
    instance
        A well-formed instance (as built by :mod:`toolkit.files.io`).
    schedule
        A well-formed schedule; ids inside it need not exist.
    timeline
        Also return the drive operations the rules were checked on
        (:attr:`Report.activities`), timed as the module documentation says.
    prefetch
        ``False`` checks the non-anticipative reading as well (rule
        ``prefetch``): no mount, load or locate serving a request starts
        before its release.

    Returns
    -------
    Report
        Every violation found, the recomputed objective and any warnings.
    """
    with paused_gc():
        return _validate(instance, schedule, [] if timeline else None, prefetch)


def _validate(
    instance: Instance,
    schedule: Schedule,
    activities: list[DriveActivity] | None,
    prefetch: bool = True,
) -> Report:
    out: list[Violation] = []
    uses, ends = _check_requests(instance, schedule, out)
    stays = _check_operations(instance, schedule, out)
    releases = None if prefetch else {r.id: r.release_s for r in instance.requests}
    _check_drive_timelines(instance, schedule, uses, stays, out, activities, releases)
    _check_tape_conflicts(stays, out)
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
    return Report(
        tuple(out), instance.objective, objective, tuple(warnings), ends, tuple(activities or ())
    )


def _check_requests(
    instance: Instance, schedule: Schedule, out: list[Violation]
) -> tuple[dict[str, list[_Use]], dict[str, float]]:
    """Per-request rules; returns each drive's uses and each timed request's end."""
    by_id = instance.request_by_id
    drive_by_id = instance.drive_by_id
    tape_by_id = instance.tape_by_id
    tape_library = {t.id: t.library for t in instance.tapes}
    uses: dict[str, list[_Use]] = defaultdict(list)
    ends: dict[str, float] = {}
    seen: set[str] = set()
    for entry in schedule.requests:
        rid = entry.id
        request = by_id.get(rid)
        if request is None:
            out.append(Violation("unknown-id", f"unknown request {rid!r}", (rid,)))
            continue
        if rid in seen:
            out.append(
                Violation("duplicate-request", f"request {rid!r} is scheduled twice", (rid,))
            )
            continue
        seen.add(rid)
        pieces, drives, start = request.pieces, entry.drives, entry.start_s
        if len(pieces) == 1 and len(drives) == 1:
            piece, drive_id = pieces[0], drives[0]
            drive = drive_by_id.get(drive_id)
            if drive is not None and drive.library == tape_library[piece.tape]:
                offset = piece.offset_mb
                uses[drive_id].append(
                    (start, entry.end_s, rid, piece.tape, offset, offset + piece.size_mb)
                )
                end = ends[rid] = start + piece.size_mb / drive.rate_mb_s
                if start < request.release_s - EPS or abs(entry.end_s - end) > EPS:
                    _check_timing(request, entry, end, out)
                continue
        timed = len(drives) == len(pieces)
        if not timed:
            out.append(
                Violation(
                    "gang-size",
                    f"request {rid!r} has {len(pieces)} pieces but {len(drives)} drives",
                    (rid,),
                    drives,
                )
            )
        library = tape_by_id[pieces[0].tape].library
        end = start
        used: set[str] = set()
        for piece, drive_id in zip(pieces, drives, strict=False):
            drive = drive_by_id.get(drive_id)
            if drive is None:
                out.append(
                    Violation(
                        "unknown-id",
                        f"request {rid!r}: unknown drive {drive_id!r}",
                        (rid,),
                        (drive_id,),
                    )
                )
                timed = False
                continue
            finish = start + piece.size_mb / drive.rate_mb_s
            if finish > end:
                end = finish
            if drive_id in used:
                out.append(
                    Violation(
                        "gang-distinct",
                        f"request {rid!r} uses drive {drive_id!r} for two pieces",
                        (rid,),
                        (drive_id,),
                    )
                )
                continue
            used.add(drive_id)
            if drive.library != library:
                out.append(
                    Violation(
                        "wrong-library",
                        f"request {rid!r}: drive {drive_id!r} is in library "
                        f"{drive.library!r}, its tapes in {library!r}",
                        (rid,),
                        (drive_id,),
                    )
                )
                continue
            offset = piece.offset_mb
            uses[drive_id].append(
                (start, entry.end_s, rid, piece.tape, offset, offset + piece.size_mb)
            )
        if timed:
            ends[rid] = end
        _check_timing(request, entry, end if timed else None, out)
    if len(seen) < len(instance.requests):
        for request in instance.requests:
            if request.id not in seen:
                out.append(
                    Violation(
                        "missing-request", f"request {request.id!r} is not scheduled", (request.id,)
                    )
                )
    return uses, ends


def _check_timing(
    request: Request, entry: ScheduledRequest, end: float | None, out: list[Violation]
) -> None:
    """The release rule, and the end rule when the end could be computed."""
    rid, start = entry.id, entry.start_s
    if start < request.release_s - EPS:
        out.append(
            Violation(
                "release",
                f"request {rid!r} starts at {start:.6f} s, "
                f"before its release {request.release_s:.6f} s",
                (rid,),
            )
        )
    if end is not None and abs(entry.end_s - end) > EPS:
        out.append(
            Violation(
                "end",
                f"request {rid!r} ends at {end:.6f} s, recorded {entry.end_s:.6f} s",
                (rid,),
                entry.drives,
            )
        )


def _op_text(index: int, op: ArmOperation) -> str:
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
        _op_text(index, op) + what,
        drives=(op.drive,) if drives is None else drives,
        tapes=(op.tape,) if tapes is None else tapes,
        operations=(index,),
    )


def _check_operations(
    instance: Instance, schedule: Schedule, out: list[Violation]
) -> dict[str, list[_Stay]]:
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
) -> list[_Stay]:
    """Walk one drive's mounts and dismounts in time order into tape stays.

    At equal start times a dismount comes before a mount, then file order.
    """
    ops = schedule.operations
    keyed.sort()
    stays: list[_Stay] = []
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
            stays.append(_Stay(begin, ready, op.end_s, current, did, mount_index, i, head))
            current = None
            last_dismount_end = op.end_s
            continue
        if current is not None:
            holds = f": the drive still holds {current!r}"
            out.append(_op_violation("mount-occupied", i, op, holds, tapes=(op.tape, current)))
            stays.append(_Stay(begin, ready, op.start_s, current, did, mount_index, -1, head))
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
        stays.append(_Stay(begin, ready, math.inf, current, did, mount_index, -1, head))
    return stays


def stay_of_transfer(
    begins: Sequence[float],
    ends: Sequence[float],
    tapes: Sequence[str],
    start: float,
    tape: str,
    *,
    end: float | None = None,
    readies: Sequence[float] | None = None,
    lead_s: float = 0.0,
) -> tuple[int, int]:
    """Which stay of a drive a transfer of ``tape`` from ``start`` to ``end`` belongs to.

    The stays are given by their begins (sorted), ends and tapes, and
    ``readies``: when each has its tape loaded (mount end + load, 0 for a
    tape there at time 0). A stay holds the transfer when it begins no later
    than ``start`` and ends no earlier (both to ``EPS``). Where stays meet,
    at a switch whose unload, dismount, mount and load all take no time, two
    stays hold ``start``: the one of the transfer's tape is taken. When both
    are (the drive gave its tape back and took it again at that instant),
    the later one, where the transfer comes first, as long as it can: its
    stay ready and the head located from 0 (``lead_s``) by ``start``;
    otherwise the earlier one, if the transfer ends by its end (a transfer
    of no length, the stay's last before the instant remount). Without
    ``readies``, always the later one.

    Returns that stay's index, or -1, and the index of the stay strictly
    around ``start`` whatever its tape (for messages), or -1 when the drive
    is empty then. Shared with the solvers that read schedules back
    (:func:`solvers.exact.plan.read_stays`), so that they place transfers as this
    validator does.
    """
    finish = start if end is None else end
    around = -1
    latest = -1
    k = bisect_right(begins, start + EPS) - 1
    while k >= 0 and ends[k] >= start - EPS:
        if tapes[k] == tape:
            if latest < 0:
                latest = k
            first = begins[k] >= start - EPS
            if finish <= ends[k] + EPS and (
                readies is None or not first or readies[k] + lead_s <= start + EPS
            ):
                return k, k
        elif around < 0 and start < ends[k] - EPS and begins[k] < ends[k]:
            around = k
        k -= 1
    return (latest, latest) if latest >= 0 else (-1, around)


def _check_drive_timelines(
    instance: Instance,
    schedule: Schedule,
    uses: dict[str, list[_Use]],
    stays_of: dict[str, list[_Stay]],
    out: list[Violation],
    activities: list[DriveActivity] | None = None,
    releases: dict[str, float] | None = None,
) -> None:
    """Place each piece in the stay that holds it and check load, locate and unload.

    With ``activities``, each drive's loads, locates, transfers and unloads
    are appended to it as they are checked, in time order. With ``releases``
    (the non-anticipative reading), also that no mount or locate serving a
    request starts before its release.
    """
    ops = schedule.operations
    capacity = {t.id: t.capacity_mb for t in instance.tapes}
    for drive in instance.drives:
        did = drive.id
        stays = stays_of[did]
        drive_uses = uses.get(did, [])
        drive_uses.sort()
        begins = [s.begin for s in stays]
        ends = [s.end for s in stays]
        tapes = [s.tape for s in stays]
        readies = [s.ready for s in stays]
        assigned: list[list[_Use]] = [[] for _ in stays]
        for use in drive_uses:
            start = use[0]
            k, around = stay_of_transfer(
                begins,
                ends,
                tapes,
                start,
                use[3],
                end=use[1],
                readies=readies,
                lead_s=drive.locate_s(0.0, use[4], capacity[use[3]]),
            )
            if k < 0:
                held = f"holds {tapes[around]!r}" if around >= 0 else "is empty"
                out.append(
                    Violation(
                        "tape-not-mounted",
                        f"request {use[2]!r} reads tape {use[3]!r} on drive {did!r} at "
                        f"{start:.6f} s, when the drive {held}",
                        (use[2],),
                        (did,),
                        (use[3],),
                    )
                )
                continue
            assigned[k].append(use)
        for stay, group in zip(stays, assigned, strict=True):
            if activities is not None and stay.mount >= 0:
                mounted = ops[stay.mount].end_s
                _record(activities, "load", did, stay.tape, mounted, stay.ready)
            cap = capacity[stay.tape]
            last_action = (
                _check_stay(drive, stay, group, cap, out, activities) if group else stay.ready
            )
            if releases is not None and group:
                _check_no_prefetch(drive, stay, group, cap, releases, out)
            if stay.dismount < 0:
                continue
            if activities is not None:
                unloaded = last_action + drive.unload_s
                _record(activities, "unload", did, stay.tape, last_action, unloaded)
            dismount = ops[stay.dismount]
            if dismount.start_s < last_action + drive.unload_s - EPS:
                out.append(
                    Violation(
                        "unload",
                        f"{_op_text(stay.dismount, dismount)} starts at "
                        f"{dismount.start_s:.6f} s, before the drive's last action at "
                        f"{last_action:.6f} s + unload {drive.unload_s:g} s",
                        tuple(u[2] for u in group[-1:]),
                        (did,),
                        (stay.tape,),
                        (stay.dismount,),
                    )
                )


def _record(
    activities: list[DriveActivity],
    kind: str,
    drive: str,
    tape: str,
    start: float,
    end: float,
    request: str | None = None,
) -> None:
    """Append an activity that takes time (one of no length is nothing to show)."""
    if end > start:
        activities.append(DriveActivity(kind, drive, tape, start, end, request))


def _check_stay(
    drive: Drive,
    stay: _Stay,
    group: list[_Use],
    capacity_mb: float,
    out: list[Violation],
    activities: list[DriveActivity] | None = None,
) -> float:
    """Check the pieces of one stay in start order; return the drive's last action.

    With ``activities``, each locate (from when the drive is free) and each
    transfer is appended to it. Each locate takes what the drive's locate
    model says (:meth:`toolkit.model.Drive.locate_s` on a tape of
    ``capacity_mb``): linear, or serpentine.
    """
    free, head = stay.ready, stay.head
    previous: _Use | None = None
    for use in group:
        start, end, rid, tape, offset, end_mb = use
        if previous is not None and start < previous[1] - EPS:
            _overlap(drive, stay, previous, use, out)
        elif start < free + drive.locate_s(head, offset, capacity_mb) - EPS:
            _too_early(drive, stay, previous, use, free, head, capacity_mb, out)
        if activities is not None:
            located = free + drive.locate_s(head, offset, capacity_mb)
            _record(activities, "locate", drive.id, tape, free, located, rid)
            _record(activities, "transfer", drive.id, tape, start, end, rid)
        if end > free:
            free = end
        head = end_mb
        previous = use
    return free


def _check_no_prefetch(
    drive: Drive,
    stay: _Stay,
    group: list[_Use],
    capacity_mb: float,
    releases: dict[str, float],
    out: list[Violation],
) -> None:
    """Rule ``prefetch``: a stay's mount and each locate start at their request's release or later.

    The stay's mount serves its first request; each request's locate is
    taken as late as it can be, ending at the transfer's start.
    """
    head = stay.head
    for k, (start, _, rid, tape, offset, end_mb) in enumerate(group):
        release = releases[rid]
        if k == 0 and stay.mount >= 0 and stay.begin < release - EPS:
            out.append(
                Violation(
                    "prefetch",
                    f"tape {tape!r} is mounted into drive {drive.id!r} for request {rid!r} "
                    f"at {stay.begin:.6f} s, before its release {release:.6f} s",
                    (rid,),
                    (drive.id,),
                    (tape,),
                    (stay.mount,),
                )
            )
        locate = drive.locate_s(head, offset, capacity_mb)
        if start - locate < release - EPS:
            out.append(
                Violation(
                    "prefetch",
                    f"request {rid!r} starts on drive {drive.id!r} at {start:.6f} s, so its "
                    f"locate of {locate:.6f} s (head {head:g} MB to {offset:g} MB) starts "
                    f"before its release {release:.6f} s",
                    (rid,),
                    (drive.id,),
                    (tape,),
                )
            )
        head = end_mb


def _overlap(drive: Drive, stay: _Stay, first: _Use, second: _Use, out: list[Violation]) -> None:
    out.append(
        Violation(
            "drive-overlap",
            f"requests {first[2]!r} and {second[2]!r} overlap on drive {drive.id!r} "
            f"({first[0]:.6f}-{first[1]:.6f} s and {second[0]:.6f}-{second[1]:.6f} s)",
            (first[2], second[2]),
            (drive.id,),
            (stay.tape,),
        )
    )


def _too_early(
    drive: Drive,
    stay: _Stay,
    previous: _Use | None,
    use: _Use,
    free: float,
    head: float,
    capacity_mb: float,
    out: list[Violation],
) -> None:
    """Report a transfer that starts before its tape is loaded (``load``) or located."""
    start, offset = use[0], use[4]
    locate = drive.locate_s(head, offset, capacity_mb)
    after_mount = previous is None and stay.mount >= 0
    busy = previous is None and stay.mount < 0 and drive.available_s > 0
    rule = (
        "load" if after_mount and start < stay.ready - EPS else "drive-busy" if busy else "locate"
    )
    since = (
        f"mount end + load {drive.load_s:g} s = {free:.6f} s"
        if after_mount
        else f"the drive is free at {free:.6f} s"
        if busy
        else f"{free:.6f} s"
    )
    out.append(
        Violation(
            rule,
            f"request {use[2]!r} starts on drive {drive.id!r} at {start:.6f} s, before "
            f"{since} + locate {locate:.6f} s (head {head:g} MB to {offset:g} MB)",
            (use[2],) if previous is None else (previous[2], use[2]),
            (drive.id,),
            (stay.tape,),
            (stay.mount,) if after_mount else (),
        )
    )


def _check_tape_conflicts(stays_of: dict[str, list[_Stay]], out: list[Violation]) -> None:
    by_tape: dict[str, list[_Stay]] = defaultdict(list)
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


def _check_arm_capacity(instance: Instance, schedule: Schedule, out: list[Violation]) -> None:
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
                text = ", ".join(_op_text(j, ops[j]) for j in involved)
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
