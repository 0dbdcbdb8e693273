"""The rules of each drive's timeline: every transfer in a stay of its tape, in time.

:func:`check_drive_timelines` places each piece a drive transfers in the
tape stay (:class:`~toolkit.validator.operation_rules.TapeStay`) that holds
it (:func:`stay_of_transfer`, shared with the solvers that read schedules
back) and checks, stay by stay, ``tape-not-mounted``, ``drive-overlap``,
``load``, ``locate``, ``drive-busy`` (a first locate before the drive's
``available_s``) and ``unload``; under the non-anticipative reading, also
``prefetch``. Asked for, it times the drive's loads, locates, transfers and
unloads as it goes (:class:`~toolkit.validator.violation.DriveActivity`).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

from tapesched.toolkit.model import Drive, Instance, Schedule
from tapesched.toolkit.validator.operation_rules import TapeStay, op_text
from tapesched.toolkit.validator.request_rules import PieceUse
from tapesched.toolkit.validator.violation import EPS, DriveActivity, Violation


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


def check_drive_timelines(
    instance: Instance,
    schedule: Schedule,
    uses: dict[str, list[PieceUse]],
    stays_of: dict[str, list[TapeStay]],
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
        assigned: list[list[PieceUse]] = [[] for _ in stays]
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
                        f"{op_text(stay.dismount, dismount)} starts at "
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
    stay: TapeStay,
    group: list[PieceUse],
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
    previous: PieceUse | None = None
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
    stay: TapeStay,
    group: list[PieceUse],
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


def _overlap(
    drive: Drive, stay: TapeStay, first: PieceUse, second: PieceUse, out: list[Violation]
) -> None:
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
    stay: TapeStay,
    previous: PieceUse | None,
    use: PieceUse,
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
