"""What the validator reports and the tolerance it judges with.

:class:`Violation` is one broken rule (its ``rule`` one of
:data:`toolkit.validator.RULES`), :class:`DriveActivity` one interval of a
drive's work as the validator times it (what the Gantt chart draws), and
:data:`EPS` the tolerance every time is compared with. Every family of rules
(:mod:`.request_rules`, :mod:`.operation_rules`, :mod:`.drive_rules`,
:mod:`.library_rules`) reports in these terms.
"""

from __future__ import annotations

from attrs import frozen

EPS = 1e-6
"""Times compare with this tolerance (1e-6 s), as the spec asks."""


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
