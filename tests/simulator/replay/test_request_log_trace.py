"""The ECMWF sample as a site's request log: the shipped CSV is the sample, request by request
(the site's replay of it is in tests/simulator/site/)."""

from __future__ import annotations

from pathlib import Path

from tapesched.simulator.replay.trace import TraceRequest, read_requests
from tapesched.toolkit.files.request_log import read_request_log

ECMWF = Path(__file__).resolve().parents[3] / "instances" / "traces" / "ecmwf"


def test_the_shipped_csv_log_is_the_ecmwf_sample_request_by_request():
    original = read_requests(ECMWF / "io_events_sample_10k.csv.bz2")
    log = read_request_log(ECMWF / "requests_10k.csv.bz2")
    assert len(original) == len(log.requests) == 10_000
    as_trace = tuple(TraceRequest(r.cartridge, r.time_s, r.duration_s) for r in log.requests)  # type: ignore[arg-type]
    assert as_trace == original
    assert log.columns == ("time", "cartridge", "duration_s")
    assert str(log.start) == "2011-08-19 00:15:58"
