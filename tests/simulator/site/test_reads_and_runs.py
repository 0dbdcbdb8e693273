"""A site's request log read against the site, made an instance and replayed
(:mod:`simulator.site.reads`, :mod:`simulator.site.instance`, :mod:`simulator.site.runs`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tapesched.simulator.replay.trace import read_homes, read_layout, repeat_trace
from tapesched.simulator.replay.trace_replay import replay_files
from tapesched.simulator.site.reads import site_reads
from tapesched.simulator.site.runs import read_site_log, replay_site, site_log_instance
from tapesched.solvers import solve
from tapesched.toolkit.errors import InputError, SettingsError
from tapesched.toolkit.files.request_log import read_request_log
from tapesched.toolkit.hardware.technology import DRIVES, TAPE_FORMATS
from tapesched.toolkit.site.reader import site_from_dict
from tapesched.toolkit.validator import validate

INSTANCES = Path(__file__).parents[3] / "instances"
ECMWF = INSTANCES / "traces" / "ecmwf"
SITE = {
    "format": "tapesched.site/1",
    "name": "tiny",
    "libraries": [
        {
            "id": "a",
            "model": "TS4500",
            "arms": 1,
            "slots": 20,
            "drives": [{"model": "LTO-9", "count": 2}],
        },
    ],
    "pools": [
        {"name": "p", "format": "LTO-9", "ids": "L9##", "count": 10, "home": "a", "fill": 0.5},
    ],
    "placement": {"unlisted_format": "LTO-7"},
}


def _log(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "req.csv"
    path.write_text(text)
    return path


def test_each_row_is_placed_by_the_stated_rules(tmp_path: Path) -> None:
    site = site_from_dict(SITE)
    log = read_request_log(
        _log(
            tmp_path,
            "time,cartridge,offset_mb,size_mb,duration_s\n"
            "0,L903,1000,500,\n"  # as given; seconds: locate to 1000 MB and transfer
            "9,L905,,300,\n"  # no offset: drawn within the pool's written half
            "12,X1,,,40\n",  # unlisted LTO-7, size from its duration, seconds as given
        )
    )
    reads = site_reads(site, log, seed=3)
    lto9, lto7 = DRIVES["LTO-9"], DRIVES["LTO-7"]
    assert reads[0].seconds_in_drive == pytest.approx(1000 / lto9.locate_mb_s + 500 / 400)
    assert 0 <= reads[1].offset_mb <= lto9.capacity_mb / 2 - 300
    assert (reads[2].size_mb, reads[2].seconds_in_drive) == (40 * lto7.rate_mb_s, 40)
    assert [r.listed for r in reads] == [True, True, False]
    assert reads[1].offset_mb == site_reads(site, log, seed=3)[1].offset_mb  # seeded
    blocks = read_request_log(_log(tmp_path, "time,cartridge,block,size_mb\n5,L904,10,200\n"))
    block_bytes = TAPE_FORMATS["LTO-9"].block_bytes
    assert site_reads(site, blocks)[0].offset_mb == 10 * block_bytes / 1e6


@pytest.mark.parametrize(
    ("header", "row", "message"),
    [
        ("offset_mb,size_mb", "0,L901,,", "line 2: no size and no duration_s"),
        ("block,size_mb", "0,X1,7,5", "line 2.block: format T10000D has no known block size"),
        (
            "offset_mb,size_mb",
            "0,L901,17999000,5000",
            "line 2: reads 17,999,000-18,004,000 MB of a LTO-9 tape of 18,000,000 MB",
        ),
    ],
)
def test_a_row_the_site_cannot_place_is_one_line_at_its_line(
    tmp_path: Path, header: str, row: str, message: str
) -> None:
    site = site_from_dict({**SITE, "placement": {"unlisted_format": "T10000D"}})
    path = _log(tmp_path, f"time,cartridge,{header}\n{row}\n")
    with pytest.raises(InputError) as caught:
        site_reads(site, read_request_log(path))
    [line] = caught.value.lines()
    assert line.startswith(f"{path}: {message}")


def test_an_instance_of_a_log_solves_and_validates(tmp_path: Path) -> None:
    site_file = tmp_path / "site.json"
    site_file.write_text(json.dumps(SITE))
    log = _log(tmp_path, "time,cartridge,size_mb\n0,L901,100\n30,L902,200\n40,Q7,50\n")
    instance = site_log_instance(read_site_log(str(site_file), str(log), seed=1))
    assert [t.id for t in instance.tapes] == ["L901", "L902", "Q7"]
    assert {t.library for t in instance.tapes} == {"a"}
    assert [r.release_s for r in instance.requests] == [0, 30, 40]
    result = solve(instance, solver="greedy", time_limit_s=5, seed=0)
    assert validate(instance, result.schedule).feasible


def test_a_tape_in_a_library_without_drives_is_refused_by_the_instance(tmp_path: Path) -> None:
    two = {
        **SITE,
        "libraries": [*SITE["libraries"], {"id": "b", "model": "TS4500", "slots": 5}],
        "complex": {"rails_per_library": 1, "elevator_s": 0, "pass_through_s": 30},
        "pools": [{**SITE["pools"][0], "home": "b", "count": 5}],  # type: ignore[dict-item]
    }
    site_file = tmp_path / "site.json"
    site_file.write_text(json.dumps(two))
    log = _log(tmp_path, "time,cartridge,size_mb\n0,L901,100\n")
    with pytest.raises(SettingsError, match="library b, which has no drive"):
        site_log_instance(read_site_log(str(site_file), str(log)))


def test_the_ecmwf_site_and_its_log_replay_as_the_sample_on_its_layout() -> None:
    site_log = read_site_log(
        str(INSTANCES / "sites" / "ecmwf.json"), str(ECMWF / "requests_10k.csv.bz2"), limit=2000
    )
    by_site = replay_site(site_log, 40, per_request=True).to_dict()
    legacy = replay_files(
        str(ECMWF / "io_events_sample_10k.csv.bz2"),
        str(ECMWF / "sl8500_from_snap20111001.json.bz2"),
        40,
        limit=2000,
        per_request=True,
    ).to_dict()
    for key in ("drive_ids", "mounts", "hits", "cross_level_mounts", "latencies_s", "mounted"):
        assert by_site[key] == legacy[key], key
    assert by_site["homes"]["homed"] == legacy["homes"]["mapped"]


@pytest.mark.paper
def test_the_whole_ecmwf_sample_and_its_250k_copy_replay_the_same_on_the_site() -> None:
    site_log = read_site_log(
        str(INSTANCES / "sites" / "ecmwf.json"), str(ECMWF / "requests_10k.csv.bz2")
    )
    legacy = replay_files(
        str(ECMWF / "io_events_sample_10k.csv.bz2"),
        str(ECMWF / "sl8500_from_snap20111001.json.bz2"),
        120,
        per_request=True,
    )
    by_site = replay_site(site_log, 120, per_request=True).result
    assert (by_site.mounts, by_site.latencies_s) == (
        legacy.result.mounts,
        legacy.result.latencies_s,
    )
    from tapesched.simulator.replay.replay import replay
    from tapesched.simulator.replay.trace import TraceRequest
    from tapesched.simulator.site.layout import site_layout, site_timings

    site = site_log.site
    requests = [TraceRequest(r.cartridge, r.time_s, r.seconds_in_drive) for r in site_log.reads]
    copies = repeat_trace(requests, 25)
    layout = read_layout(ECMWF / "sl8500_from_snap20111001.json.bz2")
    homes = read_homes(ECMWF / "crtmapping.json", layout)
    on_site = replay(
        copies, site_layout(site), 120, timings=site_timings(site), homes=site_log.homes.levels
    )
    on_layout = replay(copies, layout, 120, homes=homes)
    assert on_site.mounts == pytest.approx(on_layout.mounts, rel=0.01)
    assert on_site.mean_latency_s == pytest.approx(on_layout.mean_latency_s, rel=0.01)


def test_a_site_of_two_generations_replays_each_drive_at_its_own_times(tmp_path: Path) -> None:
    mixed = {
        **SITE,
        "libraries": [
            {"id": "a", "model": "TS4500", "arms": 2, "slots": 20,
             "drives": [{"model": "LTO-8", "count": 1}, {"model": "LTO-9", "count": 1}]},
        ],
    }  # fmt: skip
    site_file = tmp_path / "site.json"
    site_file.write_text(json.dumps(mixed))
    log = _log(tmp_path, "time,cartridge,duration_s\n0,L901,100\n0,L902,100\n")
    result = replay_site(read_site_log(str(site_file), str(log)), per_request=True).result
    # An arm's move (3 s), then the LTO-8's load (15 s) or the LTO-9's (17 s).
    assert sorted(result.latencies_s) == [3 + 15, 3 + 17]
