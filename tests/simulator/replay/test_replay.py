"""Replay of a cartridge trace on an SL8500 layout: hand-computed cases, the real trace, the CLI."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from tapesched.cli.archives.replay import replay as replay_command
from tapesched.simulator.replay.replay import replay, select_drives
from tapesched.simulator.replay.sl8500 import SL8500Timings
from tapesched.simulator.replay.trace import (
    Level,
    LibraryLayout,
    TraceRequest,
    place_cartridges,
    read_homes,
    read_layout,
    read_requests,
)
from tapesched.solvers.online.heuristics import TapeBatching

ECMWF = Path(__file__).resolve().parents[3] / "instances" / "traces" / "ecmwf"
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
    return replay(
        requests, layout, drives, keep, timings=TIMES, homes=homes, per_request=True, **kwargs
    )


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
    assert result.drive_busy_share_over_horizon == 1.0
    assert result.drive_in_use_share_over_horizon == pytest.approx(180 / 227)
    assert result.arm_busy_share_over_horizon == pytest.approx(30 / (3 * 227))
    assert result.mean_latency_s == pytest.approx(304 / 3)
    assert result.median_latency_s == 113.0
    assert result.p95_latency_s == pytest.approx(113 + 0.9 * 63)
    assert result.max_latency_s == 176.0


def test_one_drive_three_requests_dismount_at_once_by_hand():
    result = run(trace(("A", 0, 100), ("B", 1, 50), ("A", 2, 30)), keep=False)
    assert result.latencies_s == (15.0, 176.0, 113.0)
    assert result.span_s == 244.0
    assert result.arm_busy_share_over_horizon == pytest.approx(40 / (3 * 244))


def test_a_kept_cartridge_is_a_hit_with_no_wait():
    requests = trace(("A", 0, 10), ("A", 100, 5))
    kept = run(requests)
    assert kept.latencies_s == (15.0, 0.0)
    assert kept.mounted == (True, False)
    assert kept.span_s == 105.0
    assert kept.drive_busy_share_over_horizon == pytest.approx(30 / 105)
    dismounted = run(requests, keep=False)
    assert dismounted.latencies_s == (15.0, 15.0)
    assert dismounted.mounted == (True, True)
    assert dismounted.span_s == 137.0
    assert dismounted.drive_busy_share_over_horizon == pytest.approx((42 + 37) / 137)


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
        trace(("C", 0, 10), ("C", 200, 10)),
        layout,
        1,
        False,
        timings=TIMES,
        homes=homes,
        per_request=True,
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
    homes = {"X": 0, "Y": 0, "Z": 0}
    result = replay(requests, ONE_LEVEL, 3, False, timings=TIMES, homes=homes, per_request=True)
    assert result.latencies_s == (15.0, 15.0, 23.0)
    assert result.span_s == 162.0
    assert result.arm_busy_share_over_horizon == pytest.approx(60 / 162)


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


def test_latency_over_mounts_leaves_out_the_hits_that_all_requests_count():
    # The hand-worked case above: latencies 15, 176 (mounts) and 113 (a hit).
    result = run(trace(("A", 0, 100), ("B", 1, 50), ("A", 2, 30)))
    assert result.mount_latencies_s == (15.0, 176.0)
    mounts = result.latency_stats("mounts")
    assert mounts == {"count": 2, "mean": 95.5, "median": 95.5, "p95": 176 - 0.05 * 161, "max": 176}
    everyone = result.latency_stats("requests")
    assert everyone["count"] == 3
    assert everyone["mean"] == pytest.approx(304 / 3) == result.mean_latency_s
    assert everyone["median"] == 113.0
    summary = result.summary()
    assert summary["latency_over_mounts_s"] == mounts
    assert summary["latency_over_requests_s"] == everyone


WIDE = LibraryLayout((Level(0, 200, ("A0",), 1),))
"""One drive and room for 200 cartridges."""


def test_a_backlog_that_grows_is_saturated_and_the_summary_gives_no_latency():
    # One drive, a new cartridge every second for 100 s, each read for 50 s:
    # half-way (49.5 s) 50 have arrived and none is done (the first ends at
    # 15 + 50 = 65 s); at the last arrival (99 s) 100 have, 1 is done.
    flood = run(trace(*[(f"C{i}", float(i), 50.0) for i in range(100)]), layout=WIDE)
    assert (flood.trace_end_s, flood.backlog_midway, flood.backlog_end) == (99.0, 50, 99)
    assert flood.saturated
    summary = flood.summary()
    assert summary["saturated"] is True
    assert summary["latency_over_mounts_s"] is None
    assert summary["latency_over_requests_s"] is None
    # Every 100 s a 10 s read, dismounted at once: each mount is 15 s, nothing
    # waits for the drive, the backlog never grows.
    calm = run(trace(*[(f"C{i}", 100.0 * i, 10.0) for i in range(100)]), WIDE, keep=False)
    assert (calm.backlog_midway, calm.backlog_end) == (0, 1)
    assert not calm.saturated
    assert calm.summary()["latency_over_mounts_s"]["mean"] == 15.0


@pytest.mark.parametrize(("burst", "saturated"), [(20, False), (21, True)])
def test_a_backlog_grown_from_nothing_is_saturated_only_above_20(burst, saturated):
    # A is done at 16 s, before half-way (20 s); the burst of 40 s waits.
    requests = trace(("A", 0.0, 1.0), *[(f"C{i}", 40.0, 50.0) for i in range(burst)])
    result = run(requests, layout=WIDE)
    assert (result.backlog_midway, result.backlog_end) == (0, burst)
    assert result.saturated is saturated


@pytest.fixture(scope="module")
def ecmwf():
    return read_requests(TRACE), read_layout(LAYOUT)


@pytest.fixture(scope="module")
def on_20_drives(ecmwf):
    """The real trace replayed on 20 drives, keeping cartridges mounted and not: run once
    for the tests that read it."""
    requests, layout = ecmwf
    return {
        keep: replay(requests, layout, 20, keep_mounted=keep, per_request=True)
        for keep in (True, False)
    }


@pytest.mark.parametrize("keep", [True, False])
def test_the_real_trace_on_20_drives_is_served_sanely(ecmwf, on_20_drives, keep):
    requests, _ = ecmwf
    result = on_20_drives[keep]
    assert result.requests == 10_000
    assert all(math.isfinite(x) and x >= 0 for x in result.latencies_s)
    assert result.mounts + result.hits == 10_000
    assert 0 < result.drive_in_use_share_over_horizon <= result.drive_busy_share_over_horizon <= 1
    assert 0 < result.arm_busy_share_over_horizon <= 1
    least_s = SL8500Timings().exchange_s + SL8500Timings().load_s
    mounted = [x for x, m in zip(result.latencies_s, result.mounted, strict=True) if m]
    assert min(mounted) >= least_s
    assert result.span_s >= requests[-1].arrival_s


@pytest.mark.parametrize("keep", [True, False])
def test_a_replay_of_the_real_trace_is_the_same_every_time(ecmwf, keep):
    """Determinism does not depend on the trace's length: its first 2,000 requests twice
    (requests wait for tapes in use there: see the test of the index below)."""
    requests, layout = ecmwf
    first = replay(requests[:2_000], layout, 20, keep_mounted=keep)
    assert first.requests == 2_000
    assert replay(requests[:2_000], layout, 20, keep_mounted=keep) == first


@pytest.mark.paper  # 10 s of replays of the real trace on 20 to 120 drives
@pytest.mark.parametrize("keep", [True, False])
def test_more_drives_lower_the_mean_latency_of_the_real_trace(ecmwf, on_20_drives, keep):
    requests, layout = ecmwf
    more = [replay(requests, layout, n, keep).mean_latency_s for n in (40, 120)]
    assert on_20_drives[keep].mean_latency_s > more[0] > more[1]


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
    assert "tape-batching" in result.output and "lru" in result.output
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
    assert "at-once" in result.output
    invoke(trace_file, layout_file, "--drives", 1, "--limit", 2, "--out", out)
    assert json.loads(out.read_text())["requests"] == 2


def test_cli_bad_line_is_one_error_line_with_exit_2_and_no_output(tmp_path):
    trace_file, layout_file = write_small_files(tmp_path, bad_line="CB3;20110819T000001;-1")
    out = tmp_path / "result.json"
    result = invoke(trace_file, layout_file, "--drives", 1, "--out", out)
    assert result.exit_code == 2
    assert result.stderr == f"{trace_file}: line 2.seconds: must be >= 0, got '-1'\n"
    assert not out.exists()


def test_cli_too_many_drives_is_one_error_line_with_exit_2(tmp_path):
    trace_file, layout_file = write_small_files(tmp_path)
    result = invoke(trace_file, layout_file, "--drives", 2)
    assert result.exit_code == 2
    assert result.stderr == f"--drives: {layout_file} has 1 drives, asked for 2\n"


def write_two_level_files(tmp_path: Path, homes: dict[str, object] | None) -> tuple[Path, Path]:
    """The small trace on one drive of level 0, with level 4 (library 1) holding no drive."""
    trace_file, _ = write_small_files(tmp_path)
    layout_file = tmp_path / "layout.json"
    slots = {"L1": {}, "L2": {}, "L3": {}}
    level0 = {"libraries": slots, "drives": {"D1": {}}, "robots": 1}
    level4 = {"libraries": slots, "drives": {}, "robots": 1}
    layout_file.write_text(json.dumps({"level": {"0": level0, "4": level4}}))
    if homes is not None:
        (tmp_path / "crtmapping.json").write_text(json.dumps(homes))
    return trace_file, layout_file


def replay_json(*args: object) -> dict:
    result = invoke(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_cli_takes_homes_from_the_map_beside_the_trace_or_from_homes_file(tmp_path):
    # CB1 at home on level 0 is mounted in 11 + 13 = 24 s; on level 4 it first
    # crosses a pass-through: 11 + 30 + 11 + 13 = 65 s.
    trace_file, layout_file = write_two_level_files(tmp_path, {"CB/1": 0, "CB/2": 0})
    beside = replay_json(trace_file, layout_file, "--drives", 1)
    assert beside["homes"] == {"file": str(tmp_path / "crtmapping.json"), "mapped": 2, "hashed": 0}
    assert (beside["latencies_s"][0], beside["cross_level_mounts"]) == (24.0, 0)
    other = tmp_path / "elsewhere.json"
    other.write_text(json.dumps({"CB/1": 4, "CB/2": 0}))
    named = replay_json(trace_file, layout_file, "--drives", 1, "--homes", other)
    assert named["homes"] == {"file": str(other), "mapped": 2, "hashed": 0}
    assert (named["latencies_s"][0], named["cross_level_mounts"]) == (65.0, 1)


def test_cli_hashes_the_cartridges_no_map_names_and_counts_them(tmp_path):
    trace_file, layout_file = write_two_level_files(tmp_path, {"CB/1": 4, "XB/9": 0})
    result = invoke(trace_file, layout_file, "--drives", 1, "--seed", 3)
    assert result.exit_code == 0, result.output
    assert re.search(r"homes from the map \(crtmapping\.json\) +│ +1 │", result.output)
    assert re.search(r"homes by seeded hash \(seed 3\) +│ +1 │", result.output)
    (tmp_path / "crtmapping.json").unlink()
    data = replay_json(trace_file, layout_file, "--drives", 1, "--seed", 3)
    assert data["homes"] == {"file": None, "mapped": 0, "hashed": 2}


@pytest.mark.parametrize(
    ("homes", "expected"),
    [
        ({"CB/1": 7}, "CB/1: level 7 is not in the layout (levels 0, 4)"),
        ({"CB/1": "0"}, "CB/1: expected an integer, got '0'"),
        (["CB/1"], "expected an object, got ['CB/1']"),
    ],
)
def test_cli_bad_map_is_one_error_line_with_exit_2_and_no_output(tmp_path, homes, expected):
    trace_file, layout_file = write_two_level_files(tmp_path, homes)
    out = tmp_path / "result.json"
    result = invoke(trace_file, layout_file, "--drives", 1, "--out", out)
    assert result.exit_code == 2
    assert result.stderr == f"{tmp_path / 'crtmapping.json'}: {expected}\n"
    assert result.stdout == ""
    assert not out.exists()


def test_cli_missing_homes_file_is_one_error_line_with_exit_2(tmp_path):
    trace_file, layout_file = write_two_level_files(tmp_path, None)
    result = invoke(trace_file, layout_file, "--drives", 1, "--homes", tmp_path / "gone.json")
    assert result.exit_code == 2
    assert result.stderr.startswith(f"{tmp_path / 'gone.json'}: cannot read file: No such file")
    assert result.stderr.count("\n") == 1


def test_cli_reports_latency_over_mounts_and_over_all_requests_apart(tmp_path):
    # Both cartridges on level 0, kept mounted: CB1 ready at 24 (read 24-124),
    # CB1's hit at 2 reads 124-154 (waited 122); CB2, arrived at 1, waits for
    # the unload (154-177) and dismount (177-188), is mounted 188-199 and
    # loaded by 212 (waited 211). Over mounts: 24 and 211; over all: 24, 211, 122.
    trace_file, layout_file = write_two_level_files(tmp_path, {"CB/1": 0, "CB/2": 0})
    data = replay_json(trace_file, layout_file, "--drives", 1)
    assert data["latencies_s"] == [24.0, 211.0, 122.0]
    assert data["mounted"] == [True, True, False]
    over_mounts = {"count": 2, "mean": 117.5, "median": 117.5, "p95": 201.65, "max": 211.0}
    assert data["latency_over_mounts_s"] == pytest.approx(over_mounts)
    assert data["latency_over_requests_s"] == pytest.approx(
        {"count": 3, "mean": 119.0, "median": 122.0, "p95": 202.1, "max": 211.0}
    )
    assert (data["saturated"], data["backlog_midway"], data["backlog_end"]) == (False, 2, 3)
    table = invoke(trace_file, layout_file, "--drives", 1).output
    assert re.search(r"mean mount latency \(s\) +│ +117\.5 │", table)
    assert re.search(r"mean latency, all requests \(s\) +│ +119\.0 │", table)
    assert "mount latency is over the 2 requests that needed a mount" in table


def test_cli_json_prints_the_document_alone_and_out_writes_the_same(tmp_path):
    trace_file, layout_file = write_two_level_files(tmp_path, {"CB/1": 0, "CB/2": 0})
    out = tmp_path / "result.json"
    result = invoke(trace_file, layout_file, "--drives", 1, "--json", "--out", out)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert json.loads(out.read_text()) == data
    assert set(data) == {
        *("trace", "layout", "seed", "homes", "drives", "keep_mounted", "requests"),
        *("scheduler", "mount_policy"),
        *("mounts", "hits", "cross_level_mounts", "latency_over_mounts_s"),
        *("latency_over_requests_s", "drive_busy_share_over_horizon"),
        *("drive_in_use_share_over_horizon", "arm_busy_share_over_horizon", "span_s"),
        *("trace_end_s", "backlog_midway", "backlog_end"),
        *("saturated", "drive_ids", "latencies_s", "mounted"),
    }


def test_cli_replays_the_shipped_sample_with_its_map_by_default():
    data = replay_json(TRACE, LAYOUT, "--drives", 170)
    assert data["homes"] == {"file": str(ECMWF / "crtmapping.json"), "mapped": 1407, "hashed": 0}
    assert data["saturated"] is False
    assert data["requests"] == data["latency_over_requests_s"]["count"] == 10_000
    assert data["mounts"] == data["latency_over_mounts_s"]["count"]
    # Every home is on a level with drives: with all 170 in use few mounts cross levels.
    assert data["cross_level_mounts"] < 0.05 * data["mounts"]


def test_cli_flags_a_replay_of_the_sample_that_cannot_keep_up(tmp_path):
    # One replay gives both: the table on stdout, and with --out the document --json prints
    # (test_cli_json_prints_the_document_alone_and_out_writes_the_same).
    out = tmp_path / "result.json"
    result = invoke(TRACE, LAYOUT, "--drives", 60, "--out", out)
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["saturated"] is True
    assert data["backlog_end"] > max(100, 1.5 * data["backlog_midway"])
    assert data["latency_over_mounts_s"] is None
    assert data["latency_over_requests_s"] is None
    table = result.output
    assert (
        f"the replay could not keep up: {data['backlog_end']:,d} requests arrived and not done "
        f"at the trace's last arrival (51070 s), against {data['backlog_midway']:,d} half-way"
    ) in table.replace("\n", " ")
    assert "mean mount latency" not in table


@pytest.fixture(scope="module")
def ecmwf_homes(ecmwf):
    requests, layout = ecmwf
    mapped = read_homes(ECMWF / "crtmapping.json", layout)
    return place_cartridges((r.cartridge for r in requests), layout, mapped).levels


@pytest.mark.paper  # 4 s: the whole sample on 170 and 120 drives with the real map
@pytest.mark.parametrize(("drives", "queueing_model_mounts"), [(170, 4_382), (120, 6_261)])
def test_the_sample_on_the_simulator_mounts_within_5_percent_of_the_queueing_model(
    ecmwf, ecmwf_homes, drives, queueing_model_mounts
):
    # The mounts the replay's own queueing model gave (README, 2026-11-24) before the replay
    # became a run of the one simulator: keep mounted, one handbot a rail, the real map.
    requests, layout = ecmwf
    result = replay(requests, layout, drives, homes=ecmwf_homes)
    assert result.mounts == pytest.approx(queueing_model_mounts, rel=0.05)
    assert not result.saturated
    assert (result.scheduler, result.mount_policy) == ("tape-batching", "lru")


def test_belady_reads_the_trace_s_future_and_mounts_least(ecmwf, ecmwf_homes):
    requests, layout = ecmwf
    mounts = {
        policy: replay(requests[:5000], layout, 170, homes=ecmwf_homes, mount_policy=policy).mounts
        for policy in ("belady", "lru", "fifo", "at-once")
    }
    assert mounts["belady"] < min(mounts["lru"], mounts["fifo"]) < mounts["at-once"]


def test_the_scheduler_decides_whether_a_kept_cartridge_serves_its_queue_first():
    # tape-batching (the default): A's second request is a hit before B is mounted; fifo
    # starts B first (it came before A's second request), which evicts A.
    requests = trace(("A", 0, 100), ("B", 1, 50), ("A", 2, 30))
    assert run(requests).latencies_s == (15.0, 176.0, 113.0)
    fifo = run(requests, scheduler="fifo")
    assert fifo.latencies_s == (15.0, 146.0, 227.0)
    assert fifo.mounted == (True, True, True)


def test_defer_dismount_puts_an_idle_cartridge_away_after_its_delay():
    # A is read 15-115, then idle; with defer:60 it is unloaded at 175 (7 s) and taken out
    # (10 s): B at 300 finds an empty drive and mounts at once.
    requests = trace(("A", 0, 100), ("B", 300, 10))
    kept = run(requests)
    deferred = run(requests, mount_policy="lru+defer:60")
    assert kept.latencies_s == (15.0, 32.0)
    assert deferred.latencies_s == (15.0, 15.0)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--mount-policy", "sometimes"), "--mount-policy: unknown mount policy 'sometimes'"),
        (("--scheduler", "no-such"), "--scheduler: "),
    ],
)
def test_cli_bad_scheduler_or_mount_policy_is_one_line_with_exit_2(tmp_path, args, message):
    trace_file, layout_file = write_small_files(tmp_path)
    result = invoke(trace_file, layout_file, "--drives", 1, *args)
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(message), result.output


def test_cli_takes_a_scheduler_and_a_mount_policy(tmp_path):
    trace_file, layout_file = write_small_files(tmp_path)
    data = replay_json(trace_file, layout_file, "--drives", 1, "--scheduler", "fifo")
    assert (data["scheduler"], data["mount_policy"]) == ("fifo", "lru")
    data = replay_json(trace_file, layout_file, "--drives", 1, "--mount-policy", "belady")
    assert (data["scheduler"], data["mount_policy"]) == ("tape-batching", "belady")


def test_trace_reads_plan_a_file_as_parallel_plans_its_archive_layout():
    from tapesched.simulator.replay.trace_archive import TraceArchive, TraceReads
    from tapesched.simulator.storage.catalogue import Catalogue
    from tapesched.simulator.storage.policies.parallel import Parallel

    requests = trace(("A", 0, 100), ("B", 5, 0))
    archive = TraceArchive(requests, {"A": 0, "B": 1})
    catalogue = Catalogue(1e12, ["level0", "level1"], archive)
    fast = TraceReads(block_mb=1.0, archive=archive)
    for k in range(2):
        file_id = TraceArchive.file_id(k)
        assert fast.plan_read(catalogue, file_id) == Parallel(1.0).plan_read(catalogue, file_id)
    assert catalogue.tape("B").library == "level1"


class _CheckedBatching(TapeBatching):
    """``tape-batching`` checking, at each call, the simulator's index of the waiting requests
    not waiting for a tape against testing each of them."""

    def __init__(self, blocked: list[int]) -> None:
        super().__init__()
        self.blocked = blocked

    def decide(self, now, waiting, platform):
        fast = platform.not_waiting_for_tape(waiting)
        assert list(fast) == [r for r in waiting if not platform.waits_for_tape(r)]
        assert platform.not_waiting_for_tape(list(waiting)) is None  # not its own list
        self.blocked.append(len(waiting) - len(fast))
        return super().decide(now, waiting, platform)


@pytest.mark.parametrize("keep", [True, False])
def test_the_index_of_requests_not_waiting_for_a_tape_is_what_each_test_says(ecmwf, keep):
    """On the trace's first 500 requests: some 1,300 decisions with requests waiting for a
    tape in use, up to 34 at once (each decision tests every waiting request: quadratic)."""
    requests, layout = ecmwf
    blocked: list[int] = []
    checked = replay(requests[:500], layout, 20, keep, scheduler=lambda: _CheckedBatching(blocked))
    plain = replay(requests[:500], layout, 20, keep)
    assert max(blocked) > 10  # requests did wait for tapes in use
    assert (checked.latencies_s, checked.mounted) == (plain.latencies_s, plain.mounted)
