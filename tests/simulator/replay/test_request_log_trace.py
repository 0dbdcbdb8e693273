"""A site's request log as a replay's trace (trace_requests), and the ECMWF sample as such a log."""

from __future__ import annotations

from pathlib import Path

import pytest

from tapesched.simulator.replay.trace import TraceRequest, read_requests, trace_requests
from tapesched.toolkit.errors import InputError
from tapesched.toolkit.files.request_log import read_request_log

ECMWF = Path(__file__).resolve().parents[3] / "instances" / "traces" / "ecmwf"


def test_the_shipped_csv_log_is_the_ecmwf_sample_request_by_request():
    original = read_requests(ECMWF / "io_events_sample_10k.csv.bz2")
    log = read_request_log(ECMWF / "requests_10k.csv.bz2")
    assert len(original) == len(log.requests) == 10_000
    assert trace_requests(log) == original
    assert log.columns == ("time", "cartridge", "duration_s")
    assert str(log.start) == "2011-08-19 00:15:58"


def test_a_log_becomes_the_replays_requests_in_its_order(tmp_path):
    path = tmp_path / "req.csv"
    path.write_text("time,cartridge,duration_s,kind\n5,CB1,30,read\n2,CB2,0,write\n")
    assert trace_requests(read_request_log(path)) == (
        TraceRequest("CB1", 5.0, 30.0),
        TraceRequest("CB2", 2.0, 0.0),
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "time,cartridge\n5,CB1\n",
            "no duration_s column: a replay needs how long each cartridge was in use in a drive",
        ),
        (
            "time,cartridge,duration_s\n5,CB1,3\n6,CB2,\n",
            "line 3: no duration_s: a replay needs how long each cartridge was in use in a drive",
        ),
    ],
)
def test_a_request_without_its_time_in_a_drive_is_an_error(tmp_path, text, expected):
    path = tmp_path / "req.csv"
    path.write_text(text)
    log = read_request_log(path)
    with pytest.raises(InputError) as caught:
        trace_requests(log)
    assert caught.value.lines() == [f"{path}: {expected}"]
