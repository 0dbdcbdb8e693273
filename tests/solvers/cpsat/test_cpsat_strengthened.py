"""The strengthened CP-SAT model keeps the optimum where its extra rules bite.

Symmetry breaking (identical empty drives trade sequences, identical
requests trade places) and the dominance rule on final dismounts
(:func:`solvers.cpsat.constraints.add_dominance`) remove solutions; each is
valid only if some optimum survives. They bite on instances with identical
drives, few tapes read by several requests, and drives holding tapes at
time 0: every drive here gets the timings of the first (so that empty
drives are twins) and the requests share one or two tapes. On each, CP-SAT
must prove the optimum of the exact enumerator of
:mod:`.exact_enumeration`, under all three objectives.
"""

from __future__ import annotations

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tapesched import solvers
from tapesched.solvers.cpsat.data import CpsatData
from tapesched.toolkit.model import Instance
from tapesched.toolkit.validator import validate

from ..exact.exact_enumeration import exact_optimum
from ..exact.family import family


def identical_drives(instance: Instance) -> Instance:
    """``instance`` with every drive timed as the first of its library."""
    first = {}
    for drive in instance.drives:
        first.setdefault(drive.library, drive)
    return attrs.evolve(
        instance,
        drives=tuple(
            attrs.evolve(
                d,
                rate_mb_s=first[d.library].rate_mb_s,
                load_s=first[d.library].load_s,
                unload_s=first[d.library].unload_s,
                locate_mb_s=first[d.library].locate_mb_s,
            )
            for d in instance.drives
        ),
    )


@st.composite
def shared_tapes(draw: st.DrawFn) -> Instance:
    """Up to 5 requests on one or two tapes, 2 or 3 drives, gangs of up to 2.

    The drives are identical or, in one draw of three, as drawn: a tape
    then moves to a faster drive at the end, which is where a dismount of a
    drive's last tape is needed.
    """
    instance = draw(
        family(
            n_requests=(2, 5), drives_per_library=(2, 3), tapes_per_library=(1, 2), max_gang=(1, 2)
        )
    )
    return instance if draw(st.integers(0, 2)) == 0 else identical_drives(instance)


@settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(shared_tapes())
def test_identical_drives_and_shared_tapes_keep_the_enumerators_optimum(instance):
    optimum, _ = exact_optimum(instance)
    result = solvers.solve(instance, solver="cpsat", time_limit_s=20.0, seed=0)
    assert result.status is solvers.Status.OPTIMAL
    assert result.schedule is not None and result.objective is not None
    report = validate(instance, result.schedule)
    assert report.feasible, [str(v) for v in report.violations]
    tolerance = 1e-6 * max(1.0, abs(optimum))
    assert result.objective == pytest.approx(optimum, abs=tolerance)
    assert result.bound is not None and result.bound <= optimum + tolerance


def test_the_family_has_twin_drives_and_tapes_read_twice():
    """The strategy draws what the rules act on (else the test above tests nothing new)."""
    seen_twins = seen_shared = False

    @settings(max_examples=20, derandomize=True, deadline=None)
    @given(shared_tapes())
    def look(instance):
        nonlocal seen_twins, seen_shared
        data = CpsatData(instance, 0.001)
        seen_twins |= bool(data.drive_twins)
        seen_shared |= any(len(nodes) > 1 for nodes in data.nodes_of_tape.values())

    look()
    assert seen_twins and seen_shared
