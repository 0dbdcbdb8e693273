"""What goes wrong on a tape platform, how often, and the seeded draws of it.

The Blue Waters paper starts from reliability: "1 out of 100 tape handling
events leads to a job failure", and tapes "face unrecoverable data errors
leading to permanent data loss" (Section 1). A :class:`FaultSpec` says how
often each fault strikes a run; the platform (:mod:`simulator.platform.platform`)
and the run (:mod:`simulator.run.simulation`) carry the faults out, and the
archival policies' degraded reads (:func:`simulator.storage.policies.policy.Policy.plan_read`
with tapes unavailable) recover from them as their layouts allow.

The faults
    *Handling*: a mount or a dismount fails with probability
    ``handling_failure`` (the arm's time is spent), and is tried again
    after ``retry_delay_s``, at most ``attempts`` times in all. A mount
    given up leaves its tape in its slot: the job reading it stops, and
    the run plans the read again without that tape (a rebuild from the
    surviving members of its groups), or reports the request failed when
    the file's scheme cannot spare the tape. A write's mounts, and the
    mounts of a stream's parity flush, are tried until they succeed (the
    writer's data is already on the mover). A dismount given up is a
    stuck cartridge: the drive is out for ``drive_repair_s``, then the
    tape comes out.

    *Drives*: each drive fails at exponential times of rate
    ``drive_failures_per_year`` while the run has work (arrivals to come or
    requests not done) and is repaired in ``drive_repair_s``. An idle drive
    goes out at once, keeping its tape until it is repaired; a working one
    is noticed at the end of the step it is in (the phase streaming, or the
    tape it is putting away): the job on it stops, its phase's data lost,
    and the run starts the request again.

    *Movers*: each mover node fails at exponential times of rate
    ``mover_failures_per_year`` while the run has work, and is out for
    ``mover_repair_s``: every drive it serves fails with it (as above, each
    out until the mover is back). Its memory and disk survive (a node
    failure, not a disk loss): parity held there is not lost.

    *Tapes*: a tape, or a region ``[from_mb, to_mb)`` of it, becomes
    unreadable for good, at times scripted (:class:`TapeLoss`) or at
    ``tape_losses_per_year`` per tape-year (each loss striking a tape drawn
    uniformly among those holding data, the whole tape). A read reaching
    it stops and is planned again around it; the files with bytes on it
    are accounted readable, rebuilt or lost (:mod:`simulator.planning.durability`).

Seeds
    Every fault is drawn from a stream of its own, seeded from the run's
    seed: the same seed gives the same faults and the same results, and a
    run whose fault rates are all zero draws nothing and is the run without
    faults, event for event.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping, Sequence

from attrs import evolve, field, frozen

from tapesched.simulator.storage.catalogue_records import FileLayout

PAPER_HANDLING_FAILURE = 0.01
"""The Blue Waters paper's "1 out of 100 tape handling events leads to a job failure"
(Section 1, citing its reference [6]): the default of :attr:`FaultSpec.handling_failure`."""

YEAR_S = 365.25 * 86_400.0
"""Seconds in a (Julian) year, for rates per year."""


def _probability(_: object, attribute: object, value: float) -> None:
    if not (isinstance(value, (int, float)) and 0 <= value < 1):
        raise ValueError(
            f"{getattr(attribute, 'name', 'value')} must be within [0, 1), got {value!r}"
        )


def _nonnegative(_: object, attribute: object, value: float) -> None:
    if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
        raise ValueError(f"{getattr(attribute, 'name', 'value')} must be >= 0, got {value!r}")


def _at_least_one(_: object, attribute: object, value: int) -> None:
    if not (isinstance(value, int) and value >= 1):
        raise ValueError(f"{getattr(attribute, 'name', 'value')} must be >= 1, got {value!r}")


@frozen
class TapeLoss:
    """A tape, or a region of it, unreadable from ``at_s`` on.

    Attributes
    ----------
    at_s
        When it becomes unreadable.
    tape
        Tape id.
    from_mb, to_mb
        The region ``[from_mb, to_mb)`` of tape positions lost; both
        ``None``: the whole tape.
    """

    at_s: float = field(validator=_nonnegative)
    tape: str = field()
    from_mb: float | None = None
    to_mb: float | None = None

    @tape.validator
    def _check_tape(self, _: object, value: str) -> None:
        if not (isinstance(value, str) and value):
            raise ValueError(f"tape must be a tape id, got {value!r}")

    def __attrs_post_init__(self) -> None:
        if (self.from_mb is None) != (self.to_mb is None):
            raise ValueError("a lost region needs from_mb and to_mb, or neither (the whole tape)")
        if self.from_mb is not None and self.to_mb is not None:
            if not (0 <= self.from_mb < self.to_mb):
                raise ValueError(
                    f"a lost region needs 0 <= from_mb < to_mb, got [{self.from_mb}, {self.to_mb})"
                )

    @property
    def whole(self) -> bool:
        """Whether the whole tape is lost."""
        return self.from_mb is None

    def covers(self, offset_mb: float, end_mb: float) -> bool:
        """Whether tape positions ``[offset_mb, end_mb)`` meet what is lost."""
        if self.from_mb is None or self.to_mb is None:
            return True
        return offset_mb < self.to_mb and self.from_mb < end_mb


def _losses(losses: Iterable[TapeLoss]) -> tuple[TapeLoss, ...]:
    return tuple(losses)


@frozen
class FaultSpec:
    """How often each fault strikes a run (see the module docstring).

    Attributes
    ----------
    handling_failure
        Probability that a mount or a dismount fails (the paper's 1 in 100).
    retry_delay_s
        Wait before a failed mount or dismount is tried again.
    attempts
        Tries of one mount or dismount in all before it is given up.
    drive_failures_per_year
        Failures of each drive per year while the run has work (0: none).
    drive_repair_s
        Time a failed drive (or one with a stuck cartridge) is out.
    mover_failures_per_year
        Failures of each mover node per year while the run has work (0: none).
    mover_repair_s
        Time a failed mover, and every drive it serves, is out.
    tape_losses_per_year
        Tapes lost per tape-year, among the tapes holding data (0: none).
    tape_losses
        Losses at scripted times.
    """

    handling_failure: float = field(default=PAPER_HANDLING_FAILURE, validator=_probability)
    retry_delay_s: float = field(default=60.0, validator=_nonnegative)
    attempts: int = field(default=3, validator=_at_least_one)
    drive_failures_per_year: float = field(default=0.0, validator=_nonnegative)
    drive_repair_s: float = field(default=8 * 3600.0, validator=_nonnegative)
    mover_failures_per_year: float = field(default=0.0, validator=_nonnegative)
    mover_repair_s: float = field(default=4 * 3600.0, validator=_nonnegative)
    tape_losses_per_year: float = field(default=0.0, validator=_nonnegative)
    tape_losses: tuple[TapeLoss, ...] = field(default=(), converter=_losses)

    @property
    def none(self) -> bool:
        """Whether no fault can strike (every rate zero, nothing scripted)."""
        return (
            self.handling_failure == 0
            and self.drive_failures_per_year == 0
            and self.mover_failures_per_year == 0
            and self.tape_losses_per_year == 0
            and not self.tape_losses
        )


NO_FAULTS = FaultSpec(handling_failure=0.0)
"""A fault model under which nothing fails."""


def with_rates(
    faults: FaultSpec | None,
    *,
    handling_failure: float | None = None,
    drive_failures_per_year: float | None = None,
    tape_losses_per_year: float | None = None,
    mover_failures_per_year: float | None = None,
) -> FaultSpec | None:
    """``faults`` with the rates given replaced (``None``: kept).

    A rate given to a run without faults turns them on, every other
    setting at its default (the paper's handling failure among them).
    """
    base = faults if faults is not None else FaultSpec()
    given = (
        handling_failure,
        drive_failures_per_year,
        tape_losses_per_year,
        mover_failures_per_year,
    )
    if all(v is None for v in given):
        return faults
    return evolve(
        base,
        handling_failure=_given(handling_failure, base.handling_failure),
        drive_failures_per_year=_given(drive_failures_per_year, base.drive_failures_per_year),
        tape_losses_per_year=_given(tape_losses_per_year, base.tape_losses_per_year),
        mover_failures_per_year=_given(mover_failures_per_year, base.mover_failures_per_year),
    )


def _given(value: float | None, kept: float) -> float:
    return kept if value is None else value


def tapes_meeting(layout: FileLayout, losses: Mapping[str, Sequence[TapeLoss]]) -> set[str]:
    """The tapes where a piece of ``layout`` (its own, its group's) meets one of ``losses``."""
    tapes = set()
    for row in layout.rows:
        for member in row.members:
            for piece in member.pieces:
                lost = losses.get(piece.tape)
                if lost and any(x.covers(piece.offset_mb, piece.end_mb) for x in lost):
                    tapes.add(piece.tape)
    return tapes


def fault_rng(seed: int, what: str) -> random.Random:
    """The seeded stream of one kind of fault (``"handling"``, ``"drives"``, ``"tapes"``).

    Streams apart: changing one rate leaves the draws of the others as they were.
    """
    return random.Random(f"tapesched-faults:{what}:{seed}")


def handling_given_up(probability: float, attempts: int) -> float:
    """Probability that a mount fails ``attempts`` times in a row (is given up)."""
    return probability**attempts
