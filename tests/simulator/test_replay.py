"""Replay of a cartridge trace on an SL8500 layout: hand-computed cases, the real trace, the CLI."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner

from simulator.replay import SL8500Timings, replay, select_drives
from simulator.trace import Level, LibraryLayout, TraceRequest, read_layout, read_requests
from toolkit.cli.replay import replay as replay_command

ECMWF = Path(__file__).resolve().parents[2] / "instances" / "traces" / "ecmwf"
TRACE = ECMWF / "io_events_sample_10k.csv.bz2"
LAYOUT = ECMWF / "sl8500_from_snap20111001.json.bz2"

TIMES = SL8500Timings(exchange_s=10, load_s=5, unload_s=7, elevator_s=20, pass_through_s=40)
"""Round times for hand computation: a same-level mount is 10 + 5 = 15 s."""

THREE_LEVELS = LibraryLayout(
    (
        Level(0, 10, ("A0", "A1"), 1),
        Level(1, 10, ("B0",), 1),
        Level(4, 10, (), 1),
    )
)
"""Library 0 has rails 0 (two drives) and 1 (one drive); library 1's rail 0 (level 4) none."""

ONE_LEVEL = LibraryLayout((Level(0, 10, ("A0", "A1", "A2"), 1),))


def trace(*rows: tuple[str, float, float]) -> list[TraceRequest]:
    return [TraceRequest(*row) for row in rows]


def run(requests, layout=THREE_LEVELS, drives=1, keep=True, homes=None, **kwargs):
    homes = homes or {r.cartridge: 0 for r in requests}
    return replay(requests, layout, drives, keep, timings=TIMES, homes=homes, **kwargs)


def test_select_drives_round_robin_over_the_levels_with_drives():
    assert select_drives(THREE_LEVELS, 3) == ("A0", "B0", "A1")
    assert select_drives(THREE_LEVELS, 2) == ("A0", "B0")
    for bad in (0, 4):
        with pytest.raises(ValueError, match=r"drives must be within \[1, 3\]"):
            select_drives(THREE_LEVELS, bad)


@pytest.mark.parametrize(
    ("a", "b", "seconds"),
    [(0, 0, 0), (0, 1, 20), (0, 4, 40), (1, 4, 60), (12, 0, 120), (13, 0, 140), (3, 2, 20)],
)
def test_transfer_is_an_elevator_between_rails_plus_a_pass_through_per_library(a, b, seconds):
    assert TIMES.transfer_s(a, b) == seconds
    assert TIMES.transfer_s(b, a) == seconds


def test_timings_refuse_negative_times():
    with pytest.raises(ValueError, match="unload_s must be finite and >= 0"):
        SL8500Timings(unload_s=-1)
    with pytest.raises(ValueError, match="rails_per_library must be an integer >= 1"):
        SL8500Timings(rails_per_library=0)


def test_one_drive_three_requests_keep_mounted_by_hand():
    # A mounted 0-15, read 15-115; B waits for the drive; A again at 2 is a hit
    # read 115-145; A is unloaded 145-152 and taken out 152-162, B is mounted
    # 162-172 and loaded 172-177, read 177-227; B then stays in the drive.
    result = run(trace(("A", 0, 100), ("B", 1, 50), ("A", 2, 30)))
    assert result.latencies_s == (15.0, 176.0, 113.0)
    assert result.mounted == (True, True, False)
    assert (result.mounts, result.hits, result.cross_level_mounts) == (2, 1, 0)
    assert result.span_s == 227.0
    assert result.drive_utilisation == 1.0
    assert result.read_utilisation == pytest.approx(180 / 227)
    assert result.robot_utilisation == pytest.approx(30 / (3 * 227))
    assert result.mean_latency_s == pytest.approx(304 / 3)
    assert result.median_latency_s == 113.0
    assert result.p95_latency_s == pytest.approx(113 + 0.9 * 63)
    assert result.max_latency_s == 176.0


def test_one_drive_three_requests_dismount_at_once_by_hand():
    result = run(trace(("A", 0, 100), ("B", 1, 50), ("A", 2, 30)), keep=False)
    assert result.latencies_s == (15.0, 176.0, 113.0)
    assert result.span_s == 244.0
    assert result.robot_utilisation == pytest.approx(40 / (3 * 244))


def test_a_kept_cartridge_is_a_hit_with_no_wait():
    requests = trace(("A", 0, 10), ("A", 100, 5))
    kept = run(requests)
    assert kept.latencies_s == (15.0, 0.0)
    assert kept.mounted == (True, False)
    assert kept.span_s == 105.0
    assert kept.drive_utilisation == pytest.approx(30 / 105)
    dismounted = run(requests, keep=False)
    assert dismounted.latencies_s == (15.0, 15.0)
    assert dismounted.mounted == (True, True)
    assert dismounted.span_s == 137.0
    assert dismounted.drive_utilisation == pytest.approx((42 + 37) / 137)


def test_a_request_for_a_cartridge_on_its_way_waits_for_it_as_a_hit():
    result = run(trace(("A", 0, 10), ("A", 5, 10)))
    assert result.latencies_s == (15.0, 20.0)
    assert result.mounted == (True, False)


def test_cross_level_mount_and_float_on_dismount():
    # C lives on level 4 (library 1): its handbot takes it to the pass-through
    # (0-10), which carries it to level 0 (10-50), whose handbot mounts it
    # (50-60); loaded at 65. Dismounted at 92, it floats to a slot of level 0.
    requests = trace(("C", 0, 10), ("C", 200, 10))
    floated = run(requests, keep=False, homes={"C": 4})
    assert floated.latencies_s == (65.0, 15.0)
    assert floated.latencies_s[0] == TIMES.fastest_mount_s(4, 0)
    assert floated.cross_level_mounts == 1
    back_home = run(requests, keep=False, homes={"C": 4}, float_on_dismount=False)
    assert back_home.latencies_s == (65.0, 65.0)
    assert back_home.cross_level_mounts == 2


def test_a_cartridge_on_its_way_home_is_mounted_once_it_is_back():
    # Without float C crosses back 92-132 and is put home 132-142; the request
    # of time 100 then needs the whole cross-level mount again: 142 + 65.
    requests = trace(("C", 0, 10), ("C", 100, 10))
    result = run(requests, keep=False, homes={"C": 4}, float_on_dismount=False)
    assert result.latencies_s == (65.0, 107.0)


def test_a_full_level_takes_no_floating_cartridge():
    layout = LibraryLayout((Level(0, 1, ("A0",), 1), Level(4, 10, (), 1)))
    homes = {"C": 4, "D": 0}
    result = replay(
        trace(("C", 0, 10), ("C", 200, 10)), layout, 1, False, timings=TIMES, homes=homes
    )
    assert result.latencies_s == (65.0, 65.0)


def test_a_cartridge_takes_an_empty_drive_on_the_nearest_level():
    # D lives on level 1 and takes B0 (15 s) though A0 comes first; E lives on
    # level 4 and takes A0: level 0 is 40 s away, level 1 60 s.
    result = run(trace(("E", 0, 10), ("D", 0, 10)), drives=3, homes={"D": 1, "E": 4})
    assert result.latencies_s == (65.0, 15.0)
    assert result.cross_level_mounts == 1


def test_eviction_takes_the_longest_idle_cartridge_of_the_nearest_level():
    # Three kept cartridges: X in A0 (idle since 25), Y in B0 (since 25), W in
    # A1 (since 35). Z of level 0 evicts X, not Y (level 1) nor W (idle less
    # long): unload 100-107, take out 107-117, mount 117-127, load 127-132.
    # X, back at 200, evicts W (idle since 35; Z since 133) the same way.
    requests = trace(("X", 0, 10), ("Y", 0, 10), ("W", 10, 10), ("Z", 100, 1), ("X", 200, 1))
    homes = {"X": 0, "Y": 1, "W": 0, "Z": 0}
    result = run(requests, drives=3, homes=homes)
    assert result.latencies_s == (15.0, 15.0, 15.0, 32.0, 32.0)
    assert result.mounted == (True, True, True, True, True)


def test_the_handbot_serves_loads_before_unloads():
    # X is unloaded at 25 and waits for the handbot, busy mounting Y (20-30);
    # Z's mount, asked at 22, goes first (30-40), X's dismount after (40-50).
    requests = trace(("X", 0, 3), ("Y", 20, 100), ("Z", 22, 100))
    result = replay(requests, ONE_LEVEL, 3, False, timings=TIMES, homes={"X": 0, "Y": 0, "Z": 0})
    assert result.latencies_s == (15.0, 15.0, 23.0)
    assert result.span_s == 162.0
    assert result.robot_utilisation == pytest.approx(60 / 162)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"requests": []}, "no request to replay"),
        ({"drives": 9}, r"drives must be within \[1, 3\]"),
        ({"homes": {"B": 0}}, "1 cartridges have no home level, e.g. 'A'"),
        ({"homes": {"A": 2}}, "cartridge 'A': home level 2 is not in the layout"),
    ],
)
def test_replay_refuses_what_it_cannot_replay(kwargs, message):
    arguments = {"requests": trace(("A", 0, 1)), "drives": 1, "homes": {"A": 0}, **kwargs}
    with pytest.raises(ValueError, match=message):
        replay(layout=THREE_LEVELS, **arguments)


def test_replay_refuses_more_cartridges_on_a_level_than_slots():
    layout = LibraryLayout((Level(0, 1, ("A0",), 1),))
    with pytest.raises(ValueError, match="level 0: 2 cartridges but 1 slots"):
        replay(trace(("A", 0, 1), ("B", 0, 1)), layout, 1, homes={"A": 0, "B": 0})


@pytest.fixture(scope="module")
def ecmwf():
    return read_requests(TRACE), read_layout(LAYOUT)


@pytest.mark.parametrize("keep", [True, False])
def test_the_real_trace_on_20_drives_is_served_sanely(ecmwf, keep):
    requests, layout = ecmwf
    result = replay(requests, layout, 20, keep_mounted=keep)
    assert result.requests == 10_000
    assert all(math.isfinite(x) and x >= 0 for x in result.latencies_s)
    assert result.mounts + result.hits == 10_000
    assert 0 < result.read_utilisation <= result.drive_utilisation <= 1
    assert 0 < result.robot_utilisation <= 1
    least_s = SL8500Timings().exchange_s + SL8500Timings().load_s
    mounted = [x for x, m in zip(result.latencies_s, result.mounted, strict=True) if m]
    assert min(mounted) >= least_s
    assert result.span_s >= requests[-1].arrival_s
    assert replay(requests, layout, 20, keep_mounted=keep) == result


@pytest.mark.parametrize("keep", [True, False])
def test_more_drives_lower_the_mean_latency_of_the_real_trace(ecmwf, keep):
    requests, layout = ecmwf
    means = [replay(requests, layout, n, keep).mean_latency_s for n in (20, 40, 120)]
    assert means[0] > means[1] > means[2]


def write_small_files(tmp_path: Path, bad_line: str | None = None) -> tuple[Path, Path]:
    lines = ["CB1;20110819T000000;100", "CB2;20110819T000001;50", "CB1;20110819T000002;30"]
    if bad_line is not None:
        lines.insert(1, bad_line)
    trace_file = tmp_path / "trace.csv"
    trace_file.write_text("\n".join(lines) + "\n")
    layout_file = tmp_path / "layout.json"
    level = {"libraries": {"L1": {}, "L2": {}, "L3": {}}, "drives": {"D1": {}}, "robots": 1}
    layout_file.write_text(json.dumps({"level": {"0": level}}))
    return trace_file, layout_file


def invoke(*args: object):
    return CliRunner().invoke(replay_command, [str(a) for a in args])


def test_cli_prints_a_table_and_writes_json(tmp_path):
    trace_file, layout_file = write_small_files(tmp_path)
    out = tmp_path / "result.json"
    result = invoke(trace_file, layout_file, "--drives", 1, "--out", out)
    assert result.exit_code == 0, result.output
    assert "mean mount latency (s)" in result.output
    assert "keep mounted" in result.output
    assert result.output.rstrip().endswith(f"wrote {out}")
    data = json.loads(out.read_text())
    assert data["requests"] == 3
    assert data["mounts"] + data["hits"] == 3
    assert len(data["latencies_s"]) == len(data["mounted"]) == 3
    assert data["drive_ids"] == ["D1"]
    assert (data["trace"], data["seed"]) == (str(trace_file), 0)


def test_cli_limit_and_dismount_at_once(tmp_path):
    trace_file, layout_file = write_small_files(tmp_path)
    out = tmp_path / "result.json"
    result = invoke(trace_file, layout_file, "--drives", 1, "--limit", 2, "--dismount-at-once")
    assert result.exit_code == 0, result.output
    assert "dismount at once" in result.output
    invoke(trace_file, layout_file, "--drives", 1, "--limit", 2, "--out", out)
    assert json.loads(out.read_text())["requests"] == 2


def test_cli_bad_line_is_one_error_line_with_exit_2_and_no_output(tmp_path):
    trace_file, layout_file = write_small_files(tmp_path, bad_line="CB3;20110819T000001;-1")
    out = tmp_path / "result.json"
    result = invoke(trace_file, layout_file, "--drives", 1, "--out", out)
    assert result.exit_code == 2
    assert result.stderr == f"{trace_file}: line 2: bad seconds '-1': must be finite and >= 0\n"
    assert not out.exists()


def test_cli_too_many_drives_is_one_error_line_with_exit_2(tmp_path):
    trace_file, layout_file = write_small_files(tmp_path)
    result = invoke(trace_file, layout_file, "--drives", 2)
    assert result.exit_code == 2
    assert result.stderr == f"--drives: {layout_file} has 1 drives, asked for 2\n"
