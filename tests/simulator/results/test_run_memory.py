"""A scenario's replications take the memory of one run, whatever their horizon and number.

Measured with :mod:`tracemalloc` (the peak of the Python heap while the replications run),
never timed. Before issue 28 each replication kept every request it finished, the first its
records as objects, and every replication its whole simulation to the end: the peak grew
with the horizon and with the number of replications.
"""

from __future__ import annotations

import pickle
import tracemalloc

from tapesched.simulator.results import replications as replications_module
from tapesched.simulator.results.records import RecordSpool, RequestRecord
from tapesched.simulator.results.replications import override, run_scenario
from tapesched.simulator.run import admission
from tapesched.simulator.scenario.document import load_scenario
from tapesched.simulator.scenario.spec import Scenario
from tapesched.simulator.storage import catalogue
from tests.conftest import INSTANCES

BOUND = 1.3
"""Most the peak of 3 replications of 3 times the horizon may be, over 1 replication's."""

DAY_S = 86_400.0


def _record(k: int) -> RequestRecord:
    times = (k * 0.1, k + 0.5, k + 1e-9, k + 2.0)
    return RequestRecord(f"r{k}", "read", f"f{k}", 1e3 / 3, *times, ("d0", "d1"), ("T1",),
                         1.0, k, 0.25, k % 2, k % 3 == 0)  # fmt: skip


def test_records_spooled_to_disk_come_back_equal_and_in_order() -> None:
    records = [_record(k) for k in range(500)]
    spool = RecordSpool()
    assert list(spool) == [] and len(spool) == 0
    for record in records:
        spool.append(record)
    assert list(spool) == records and list(spool) == records  # read again, the same
    assert len(spool) == 500 and spool[17] == records[17] and spool[-1] == records[-1]
    assert spool == tuple(records) and spool[2:5] == tuple(records[2:5])
    assert pickle.loads(pickle.dumps(spool)) == spool
    both = zip(iter(spool), iter(spool), strict=True)  # two readings at once
    assert all(a == b for a, b in both)


def _scenario() -> Scenario:
    return load_scenario(str(INSTANCES / "scenarios" / "golubchik" / "ampex.json"))


def _peak_mb(replications: int, days: float) -> float:
    scenario = override(_scenario(), duration_s=days * DAY_S, replications=replications)
    tracemalloc.start()
    try:
        runs, _ = run_scenario(scenario)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # Times drawn at random: no run is exported, and none keeps its simulation.
    assert len(runs) == replications and all(r.simulation is None for r in runs)
    assert len(runs[0].records) == runs[0].summary.completed > 300 * days
    return peak / 1e6


def test_many_replications_of_a_long_horizon_take_the_memory_of_one(monkeypatch) -> None:
    # What a run keeps up to a bound is bounded far below the shorter run here, so that
    # both reach each bound, as any long one does: read plans and tape libraries kept,
    # stripes and layouts in memory.
    monkeypatch.setattr(admission, "READ_PLANS_KEPT", 10)
    monkeypatch.setattr(admission, "LIBRARIES_KEPT", 10)
    monkeypatch.setattr(catalogue, "HOT_STRIPES", 10)
    monkeypatch.setattr(catalogue, "HOT_FILES", 10)
    # A replication dropped is collected at once however short (long ones are, in a run).
    monkeypatch.setattr(replications_module, "COLLECT_AFTER", 0)
    # The modules a run and its intervals import, imported first (untraced: it is slow).
    run_scenario(override(_scenario(), duration_s=3600.0, replications=2))
    one = _peak_mb(1, 0.5)
    many = _peak_mb(3, 1.5)
    assert many <= BOUND * one, (one, many)
