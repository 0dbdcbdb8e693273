"""The independent judge of schedules: every rule of the core problem, checked.

:func:`validate` is a pure function of an instance and a schedule, whoever made
the schedule (a solver, the simulator, a user). It returns every violation it
finds, each naming the rule broken and the requests, drives, tapes and arm
operations involved, and the objective recomputed from the instance (never the
value a schedule records). It runs in O(n log n) for n requests and operations:
one sort per drive, per tape and per library, and linear sweeps.

Rules (the ``rule`` of a :class:`~.violation.Violation`):

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

Times compare with a tolerance of :data:`~.violation.EPS` (1e-6 s), as the spec asks.

The drive operations a schedule implies (load, locate, transfer, unload) are
timed once, here, as the rules are checked: ``validate(..., timeline=True)``
also returns them as :class:`~.violation.DriveActivity` intervals (what the Gantt chart
of :mod:`toolkit.plots.gantt` draws), each at the earliest time the rules allow:
a load as its mount ends, a locate as soon as the drive is free (its tape
loaded, or its last transfer done), an unload after the drive's last action.
The schedule does not record them, so a solver may have done them later
(an online one locates only once a request is released); only the transfers
and the arm operations are the schedule's own times.

The rules come in families, one module each: those of each scheduled
request (:mod:`.request_rules`), of the arm operations and the tape stays
they make (:mod:`.operation_rules`), of each drive's timeline
(:mod:`.drive_rules`) and across the drives of a library
(:mod:`.library_rules`); :mod:`.violation` holds what they report and the
tolerance :data:`~.violation.EPS`.
"""

from __future__ import annotations

from typing import Any

from attrs import field, frozen

from tapesched.toolkit.model import Instance, Schedule
from tapesched.toolkit.objectives import objective_value
from tapesched.toolkit.runtime.gc_pause import paused_gc
from tapesched.toolkit.validator.drive_rules import check_drive_timelines
from tapesched.toolkit.validator.library_rules import check_arm_capacity, check_tape_conflicts
from tapesched.toolkit.validator.operation_rules import check_operations
from tapesched.toolkit.validator.request_rules import check_requests
from tapesched.toolkit.validator.violation import DriveActivity, Violation

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
"""Every rule a :class:`~.violation.Violation` may name (the table above)."""


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


def validate(
    instance: Instance, schedule: Schedule, *, timeline: bool = False, prefetch: bool = True
) -> Report:
    """Check ``schedule`` against every rule of ``instance``.

    Parameters
    ----------
    instance
        A well-formed instance (as built by :mod:`toolkit.files.instance_file`).
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
    uses, ends = check_requests(instance, schedule, out)
    stays = check_operations(instance, schedule, out)
    releases = None if prefetch else {r.id: r.release_s for r in instance.requests}
    check_drive_timelines(instance, schedule, uses, stays, out, activities, releases)
    check_tape_conflicts(stays, out)
    check_arm_capacity(instance, schedule, out)

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
