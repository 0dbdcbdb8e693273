"""The rules of each scheduled request: ids, gangs, libraries, release and end.

:func:`check_requests` reads the schedule's requests once, checking
``unknown-id`` (a request or drive the instance lacks), ``duplicate-request``,
``missing-request``, ``gang-size``, ``gang-distinct``, ``wrong-library`` (a
drive of another library than the request's tapes), ``release`` and ``end``;
it returns each drive's pieces (:data:`PieceUse`) for the drive rules of
:mod:`.drive_rules`, and each timed request's end for the objective.
"""

from __future__ import annotations

from collections import defaultdict

from tapesched.toolkit.model import Instance, Request, Schedule, ScheduledRequest
from tapesched.toolkit.validator.violation import EPS, Violation

PieceUse = tuple[float, float, str, str, float, float]
"""A piece of a scheduled request on one drive, as a plain tuple for speed:
(start, end, request id, tape, offset_mb, offset_mb + size_mb)."""


def check_requests(
    instance: Instance, schedule: Schedule, out: list[Violation]
) -> tuple[dict[str, list[PieceUse]], dict[str, float]]:
    """Per-request rules; returns each drive's uses and each timed request's end."""
    by_id = instance.request_by_id
    drive_by_id = instance.drive_by_id
    tape_by_id = instance.tape_by_id
    tape_library = {t.id: t.library for t in instance.tapes}
    uses: dict[str, list[PieceUse]] = defaultdict(list)
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
