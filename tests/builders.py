"""What the heuristics' tests build hand-made instances from, and read and check of the results.

One copy for the tests of :mod:`solvers.greedy` and :mod:`solvers.online`,
which build their cases and judge their schedules alike. Its assertions are
rewritten by pytest as a test module's are (``tests/conftest.py`` registers
it), so that a failure still shows the values compared.
"""

from __future__ import annotations

from collections import Counter

import pytest

from tapesched.solvers.result import Result
from tapesched.toolkit.model import Drive, Instance, Library, Piece, Request, Schedule, Tape
from tapesched.toolkit.validator import validate


def read(
    rid: str, release_s: float, *pieces: tuple[str, float, float], weight: float = 1.0
) -> Request:
    """A read with pieces ``(tape, offset_mb, size_mb)``."""
    return Request(rid, release_s, weight, "read", tuple(Piece(*p) for p in pieces))


def assert_validated(instance: Instance, result: Result) -> None:
    """The validator finds ``result``'s schedule feasible and every request in it once.

    The objective it recomputes is the one the solver reports, and it has no
    warning (such as a recorded objective that differs).
    """
    assert result.schedule is not None
    assert result.objective is not None
    report = validate(instance, result.schedule)
    assert report.feasible, [str(v) for v in report.violations]
    assert report.warnings == ()
    assert report.objective == pytest.approx(result.objective, rel=1e-9, abs=1e-9)
    counts = Counter(r.id for r in result.schedule.requests)
    assert counts == Counter(r.id for r in instance.requests)


def validated_objective(instance: Instance, result: Result) -> float:
    """The validator accepts ``result``'s schedule with the objective it reports; that value.

    Lighter than :func:`assert_validated` (no check of warnings or of every request
    present), for the exact backends' tests that compare objectives across backends.
    """
    assert result.schedule is not None, result.solver
    report = validate(instance, result.schedule)
    assert report.feasible, (result.solver, [str(v) for v in report.violations])
    assert report.objective is not None
    assert result.objective == pytest.approx(report.objective, rel=1e-9, abs=1e-9)
    return report.objective


def tolerance(value: float) -> float:
    """The slack allowed when two backends' objectives of ``value`` are compared."""
    return 1e-6 * max(1.0, abs(value))


def scheduled(result: Result) -> dict[str, tuple[tuple[str, ...], float, float]]:
    """Drives, start and end of every request, by id."""
    assert result.schedule is not None
    return {r.id: (r.drives, r.start_s, r.end_s) for r in result.schedule.requests}


def operations(schedule: Schedule | None) -> list[tuple[str, str, str, float, float]]:
    """Every arm operation as ``(op, tape, drive, start, end)``, in schedule order."""
    assert schedule is not None
    return [(o.op, o.tape, o.drive, o.start_s, o.end_s) for o in schedule.operations]


def too_wide() -> Instance:
    """A gang of two pieces in a library of one drive: no schedule exists."""
    return Instance(
        name="too-wide",
        libraries=(Library("L0", 1, 10, 10),),
        drives=(Drive("d0", "L0", 100, 5, 5, 1000),),
        tapes=(Tape("T1", "L0", 1000), Tape("T2", "L0", 1000)),
        requests=(Request("g", 0, 1.0, "read", (Piece("T1", 0, 10), Piece("T2", 0, 10))),),
    )
