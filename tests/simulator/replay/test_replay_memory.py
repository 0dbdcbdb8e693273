"""A replay's memory does not grow with its trace: what is kept is the platform and the backlog.

Measured with :mod:`tracemalloc` (the peak of the Python heap during the replay alone), never
timed. A calm trace of 250 requests (a read of 20 s every 30 s over 120 cartridges, on 20
drives: the backlog stays small) is repeated 2 and 10 times (500 and 2,500 requests): the
longer replay may take at most :data:`BOUND` times the peak of the shorter. Before issue 28
a replay kept every finished request (about 1.3 KB each) and the whole trace as file
requests, and the longer replay's peak was several times the shorter one's.
"""

from __future__ import annotations

import tracemalloc

import pytest

from tapesched.simulator.replay.replay import replay
from tapesched.simulator.replay.trace import (
    LibraryLayout,
    TraceRequest,
    read_layout,
    read_requests,
    repeat_trace,
)
from tapesched.simulator.results import tally
from tapesched.simulator.run import admission
from tests.conftest import INSTANCES

ECMWF = INSTANCES / "traces" / "ecmwf"

BOUND = 1.3
"""Most the peak of the replay 5 times as long may be, over the shorter one's."""


CALM = tuple(TraceRequest(f"CB{(7 * k) % 120:04d}", 30.0 * k, 20.0) for k in range(250))


def _layout() -> LibraryLayout:
    return read_layout(ECMWF / "sl8500_from_snap20111001.json.bz2")


def _peak_mb(copies: int) -> tuple[float, int]:
    layout = _layout()
    trace = repeat_trace(CALM, copies)
    tracemalloc.start()
    try:
        result = replay(trace, layout, 20)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak / 1e6, result.requests


def test_a_replay_five_times_as_long_takes_no_more_memory(monkeypatch) -> None:
    # What a run keeps up to a bound is bounded far below the shorter trace here, so that
    # both replays reach each bound, as any long one does: read plans kept for files read
    # again (65,536 in a run), latencies kept in memory before they go to disk (262,144)
    # and read back from it at once (262,144) for the median and 95th percentile.
    monkeypatch.setattr(admission, "READ_PLANS_KEPT", 10)
    monkeypatch.setattr(tally, "SPILL_AFTER", 100)
    monkeypatch.setattr(tally, "CHUNK", 64)
    replay(repeat_trace(CALM, 2), _layout(), 20)  # the modules a replay imports, imported
    short_mb, short = _peak_mb(2)
    long_mb, long = _peak_mb(10)
    assert (short, long) == (500, 2_500)
    assert long_mb <= BOUND * short_mb, (short_mb, long_mb)


def test_a_replay_keeps_each_request_only_when_asked() -> None:
    sample = read_requests(ECMWF / "io_events_sample_10k.csv.bz2")[:50]
    layout = read_layout(ECMWF / "sl8500_from_snap20111001.json.bz2")
    lean = replay(sample, layout, 20)
    kept = replay(sample, layout, 20, per_request=True)
    assert lean.latencies_s is None and "latencies_s" not in lean.as_dict()
    assert kept.latencies_s is not None and len(kept.latencies_s) == 50
    assert lean.summary() == kept.summary()
    with pytest.raises(ValueError, match="per-request"):
        _ = lean.mount_latencies_s


def test_a_repeated_trace_is_its_copies_shifted_by_the_span_made_as_read() -> None:
    copy = (TraceRequest("CB0001", 0.0, 5.0), TraceRequest("CB0002", 40.0, 1.0))
    trace = repeat_trace(copy, 3)
    expected = [TraceRequest(r.cartridge, r.arrival_s + k * 40.0, r.seconds_in_drive)
                for k in range(3) for r in copy]  # fmt: skip
    assert len(trace) == 6 and list(trace) == expected
    assert trace[-1] == expected[-1] and trace[1:4] == tuple(expected[1:4])
    assert (trace.last_arrival_s, trace.cartridges) == (120.0, {"CB0001", "CB0002"})
    with pytest.raises(IndexError):
        trace[6]
    with pytest.raises(ValueError, match="at least one copy"):
        repeat_trace(copy, 0)
