"""Drive allocators by name, from ``module.path:Attr`` and from an entry point.

The plug-in hands each group one recall thread per set, so that the run
under it must be the run under the static caps of one thread each.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tapesched.simulator.sharing.allocator import (
    ALLOCATORS,
    ENTRY_POINT_GROUP,
    Allocator,
    AllocatorSpecError,
    Orchestrator,
    StaticCaps,
    UnknownAllocatorError,
    make_allocator,
)
from tapesched.simulator.sharing.groups import (
    DriveSet,
    HsmGroup,
    HsmPlatform,
    HsmServer,
    TapeBatch,
)
from tapesched.simulator.sharing.hsm_run import ThreadRecord, run_hsm
from tapesched.studies.drive_allocation.study import QUICK, SET, allocators
from tests.conftest import dist_info

MODULE = "tapesched_test_allocators"

PLUGS = '''
from tapesched.simulator.sharing.allocator import Allocation


class OneEach:
    """One recall thread per group and set, asked every ``period_s``."""

    def __init__(self, period_s=300.0):
        self.period_s = period_s

    def allocate(self, view):
        platform = view.platform
        caps = {(g.id, s.id): 1 for g in platform.groups for s in platform.drive_sets}
        return Allocation(recall_caps=caps)


class NoAllocate:
    period_s = 300.0
'''


@pytest.fixture
def plugs(plug_module: Callable[[str, str], Path]) -> Path:
    """The module :data:`MODULE`, importable, and a package declaring ``one-each``."""
    site = plug_module(MODULE, PLUGS)
    dist_info(site, "more-allocators", ENTRY_POINT_GROUP, {"one-each": f"{MODULE}:OneEach"})
    return site


def _platform() -> HsmPlatform:
    dset = DriveSet("d", 4, rate_mb_s=250.0, load_s=20.0, unload_s=30.0, locate_mb_s=1000.0,
                    arm_s=10.0, arms=2, file_overhead_s=2.0)  # fmt: skip
    return HsmPlatform(
        servers=[HsmServer(g, 1e9) for g in ("a", "b")],
        groups=[HsmGroup(g, g) for g in ("a", "b")],
        drive_sets=[dset],
    )


def _batches() -> list[TapeBatch]:
    files = [(100.0 * j, 500.0) for j in range(3)]
    return [
        TapeBatch(f"{g}{k}", g, "d", "recall", f"{g}t{k}", 10.0 * k, files)
        for g in ("a", "b")
        for k in range(4)
    ]


def test_the_studys_allocators_come_from_the_registry():
    assert ALLOCATORS.names() == ("static", "orchestrator")
    caps = {(g, SET): c for g, c in QUICK.static_caps.items()}
    assert allocators(QUICK) == {"static": StaticCaps(caps), "orchestrator": Orchestrator()}
    assert make_allocator("orchestrator", caps=caps, period_s=60.0) == Orchestrator(period_s=60.0)
    with pytest.raises(UnknownAllocatorError) as caught:
        make_allocator("zz")
    assert str(caught.value) == (
        "unknown allocator 'zz'; known: static, orchestrator; or give module.path:Attr"
    )
    with pytest.raises(AllocatorSpecError, match=r"^static: cannot make an allocator: TypeError"):
        make_allocator("static")


def test_an_allocator_from_module_path_or_an_entry_point_runs(plugs):
    def threads(allocator: Allocator) -> tuple[ThreadRecord, ...]:
        return run_hsm(_platform(), _batches(), allocator).threads

    expected = threads(StaticCaps({("a", "d"): 1, ("b", "d"): 1}))
    assert expected != threads(StaticCaps({("a", "d"): 2, ("b", "d"): 2}))
    by_module = make_allocator(f"{MODULE}:OneEach", caps={}, period_s=60.0)
    assert by_module.period_s == 60.0
    assert threads(by_module) == expected
    assert ALLOCATORS.known() == ("static", "orchestrator", "one-each")
    by_name = make_allocator("one-each")
    assert type(by_name).__name__ == "OneEach"
    assert threads(by_name) == expected
    assert make_allocator(by_name) is by_name
    with pytest.raises(AllocatorSpecError) as caught:
        make_allocator(f"{MODULE}:NoAllocate")
    assert str(caught.value) == f"{MODULE}:NoAllocate: not an allocator (period_s, allocate)"
