"""A site's request log (toolkit/files/request_log.py): tiny hand-made CSV files."""

from __future__ import annotations

import bz2
import gzip
from datetime import UTC, datetime
from pathlib import Path

import pytest
import zstandard

from tapesched.toolkit.errors import MAX_SHOWN, InputError, SettingsError
from tapesched.toolkit.files.reading import read_lines
from tapesched.toolkit.files.request_log import (
    LoggedRequest,
    parse_columns,
    read_request_log,
)

LOG = (
    "time,cartridge,block,size_bytes,duration_s,weight,kind\n"
    "2011-09-01T00:00:05,CB1172,1200,52428800,304,2,write\n"
    "\n"
    "2011-09-01T00:00:02,WB2950,,,188,,\n"
)


def _log(tmp_path: Path, text: str, name: str = "req.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _error(path: Path, **kwargs: object) -> list[str]:
    with pytest.raises(InputError) as caught:
        read_request_log(path, **kwargs)  # type: ignore[arg-type]
    return caught.value.lines()


def test_a_log_of_timestamps_counts_seconds_from_the_earliest_and_keeps_file_order(tmp_path):
    log = read_request_log(_log(tmp_path, LOG))
    assert log.requests == (
        LoggedRequest(3.0, "CB1172", None, 1200, 52.4288, 304.0, 2.0, "write"),
        LoggedRequest(0.0, "WB2950", None, None, None, 188.0, 1.0, "read"),
    )
    assert log.start == datetime(2011, 9, 1, 0, 0, 2)
    assert log.lines == (2, 4)
    assert log.columns == (
        "time",
        "cartridge",
        "block",
        "size_bytes",
        "duration_s",
        "weight",
        "kind",
    )
    assert log.ignored_columns == ()


def test_seconds_and_timestamps_with_an_offset_give_the_same_times(tmp_path):
    seconds = _log(tmp_path, "time,cartridge,offset_mb\n7.5,A1,10\n2.5,B2,0\n", "s.csv")
    zoned = _log(
        tmp_path,
        "time,cartridge,offset_mb\n2011-09-01T02:00:07.5+02:00,A1,10\n2011-09-01T00:00:02.5Z,B2,0\n",
        "z.csv",
    )
    by_seconds, by_stamps = read_request_log(seconds), read_request_log(zoned)
    assert by_seconds.start is None
    assert [(r.time_s, r.cartridge, r.offset_mb) for r in by_seconds.requests] == [
        (7.5, "A1", 10.0),
        (2.5, "B2", 0.0),
    ]
    assert by_stamps.start == datetime(2011, 9, 1, 0, 0, 2, 500000, tzinfo=UTC)
    assert [r.time_s for r in by_stamps.requests] == [5.0, 0.0]


def test_columns_named_otherwise_are_mapped_and_the_others_reported(tmp_path):
    path = _log(tmp_path, "ts,vid,note,size_mb\n3,CB1,first,1.5\n1,CB2,,2\n")
    log = read_request_log(path, columns=parse_columns(" time = ts , cartridge=vid"))
    assert [(r.time_s, r.cartridge, r.size_mb) for r in log.requests] == [
        (3.0, "CB1", 1.5),
        (1.0, "CB2", 2.0),
    ]
    assert log.columns == ("time", "cartridge", "size_mb")
    assert log.ignored_columns == ("note",)
    assert _error(
        _log(tmp_path, "ts,vid\nx,CB1\n"), columns={"time": "ts", "cartridge": "vid"}
    ) == [
        f"{tmp_path / 'req.csv'}: line 2.ts: expected seconds (a number >= 0) or an ISO-8601 "
        "timestamp such as 2011-09-01T00:00:05, got 'x'"
    ]
    with pytest.raises(SettingsError, match="unknown column name 'stamp'"):
        read_request_log(path, columns={"stamp": "ts"})


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("time=ts,cartridge", "'cartridge' has no '=': expected NAME=COLUMN such as time=ts"),
        ("when=ts", "unknown column name 'when' (known: time, cartridge, offset_mb, block, "),
        ("time=ts,time=t2", "'time' is mapped twice ('ts' and 't2')"),
        ("time=c,cartridge=c", "column 'c' would be both time and cartridge"),
        ("time=cartridge", "column 'cartridge' would be both time and cartridge"),
        ("time=", "time is mapped to no column name ('')"),
        (" ", "expected NAME=COLUMN[,NAME=COLUMN...] such as time=ts, got ''"),
    ],
)
def test_a_bad_column_map_is_one_line(text, why):
    with pytest.raises(ValueError) as caught:
        parse_columns(text)
    assert str(caught.value).startswith(why) and "\n" not in str(caught.value)


HEAD = "time,cartridge,size_mb,duration_s,weight,kind"


@pytest.mark.parametrize(
    ("body", "line"),
    [
        ("", "line 1: missing column 'time'"),  # the header is replaced below
        (f"{HEAD}\n1,CB1,2,3\n", "line 2: expected 6 values, got 4"),
        (f"{HEAD}\n-1,CB1,2,3,1,read\n", "line 2.time: must be >= 0, got '-1'"),
        (f"{HEAD}\nnan,CB1,2,3,1,read\n", "line 2.time: expected a number, got 'nan'"),
        (f"{HEAD}\n2011-09-01,CB1,2,3,1,read\n", "line 2.time: expected seconds (a number"),
        (f"{HEAD}\n2011-02-30T00:00:00,CB1,2,3,1,read\n", "line 2.time: expected seconds"),
        (f"{HEAD}\n1,CB 1,2,3,1,read\n", "line 2.cartridge: a cartridge id is a non-empty word"),
        (f"{HEAD}\n1,,2,3,1,read\n", "line 2.cartridge: a cartridge id is a non-empty word"),
        (f"{HEAD}\n1,CB1,0,3,1,read\n", "line 2.size_mb: must be > 0, got '0'"),
        (f"{HEAD}\n1,CB1,inf,3,1,read\n", "line 2.size_mb: must be <= 1e+09 MB, got 'inf'"),
        (f"{HEAD}\n1,CB1,2,x,1,read\n", "line 2.duration_s: expected a number, got 'x'"),
        (f"{HEAD}\n1,CB1,2,3,0,read\n", "line 2.weight: must be > 0, got '0'"),
        (f"{HEAD}\n1,CB1,2,3,1,erase\n", "line 2.kind: must be one of 'read', 'write', got"),
        ("time,cartridge,block\n1,CB1,1.5\n", "line 2.block: expected an integer, got '1.5'"),
        ("time,cartridge,size_bytes\n1,CB1,0\n", "line 2.size_bytes: must be >= 1, got '0'"),
        ("time,cartridge,offset_mb\n1,CB1,-2\n", "line 2.offset_mb: must be >= 0, got '-2'"),
        (
            "time,cartridge\n1,CB1\n2011-09-01T00:00:00,CB2\n",
            "line 3.time: given as a timestamp without offset, but line 2 gives seconds",
        ),
        (
            "time,cartridge\n2011-09-01T00:00:00Z,CB1\n2011-09-01T00:00:00,CB2\n",
            "line 3.time: given as a timestamp without offset, but line 2 gives a timestamp "
            "with an offset or Z",
        ),
        (
            "time,cartridge\n2031-09-01T00:00:00,CB1\n2011-09-01T00:00:00,CB2\n",
            "line 2.time: 631152000 s after the earliest time, longer than the limit",
        ),
        ("time,cartridge,cartridge\n1,CB1,CB2\n", "line 1: column 'cartridge' is named twice"),
        ("time,cartridge,block,offset_mb\n", "line 1: columns 'offset_mb' and 'block' both given"),
        ("time,cartridge,size_bytes,size_mb\n", "line 1: columns 'size_mb' and 'size_bytes' both"),
        ("time,cartridge\n", "no request under the header"),
        ("", "empty file: expected a header row naming the columns (time, cartridge, "),
        ("\n\n", "empty file: expected a header row"),
    ],
)
def test_a_bad_log_is_one_line_naming_the_file_the_line_and_the_column(tmp_path, body, line):
    if body == "":
        body = "stamp,cartridge\n1,CB1\n" if line.startswith("line 1") else ""
    path = _log(tmp_path, body)
    (only,) = _error(path)
    assert only.startswith(f"{path}: {line}")


def test_the_problems_of_a_long_log_are_capped(tmp_path):
    path = _log(tmp_path, "time,cartridge\n" + "-1,CB1\n" * (MAX_SHOWN + 5))
    lines = _error(path)
    assert len(lines) == MAX_SHOWN + 1
    assert lines[0] == f"{path}: line 2.time: must be >= 0, got '-1'"
    assert lines[-1] == f"{path}: 5 more problems not shown"


@pytest.mark.parametrize(
    ("suffix", "compress"),
    [
        (".gz", gzip.compress),
        (".bz2", bz2.compress),
        (".zst", zstandard.ZstdCompressor().compress),
    ],
)
def test_a_compressed_log_reads_as_the_plain_one(tmp_path, suffix, compress):
    path = tmp_path / f"req.csv{suffix}"
    path.write_bytes(compress(LOG.encode()))
    plain = read_request_log(_log(tmp_path, LOG))
    assert read_request_log(path).requests == plain.requests
    path.write_bytes(compress(LOG.encode())[:-6])
    assert _error(path) == [f"{path}: cannot read file: truncated {suffix[1:]} data"]


def test_a_zst_log_of_several_frames_reads_whole_and_lines_come_as_they_are_read(tmp_path):
    zstd = zstandard.ZstdCompressor()
    path = tmp_path / "req.csv.zst"
    path.write_bytes(zstd.compress(LOG[:50].encode()) + zstd.compress(LOG[50:].encode()))
    assert [r.cartridge for r in read_request_log(path).requests] == ["CB1172", "WB2950"]
    long = "time,cartridge\n" + "1,CB1\n" * 200_000  # more than a chunk (1 MiB) of lines
    path.write_bytes(zstd.compress(long.encode()) + b"not zstd at all")
    lines = read_lines(path)
    assert next(lines) == "time,cartridge\n"  # before the bad tail is read
    with pytest.raises(InputError, match="not zst data"):
        list(lines)


def test_size_bytes_become_mb_and_blocks_stay_blocks(tmp_path):
    path = _log(tmp_path, "time,cartridge,size_bytes,block\n0,A,1,0\n1,B,1000000000000000,7\n")
    log = read_request_log(path)
    assert [(r.size_mb, r.block, r.offset_mb) for r in log.requests] == [
        (1e-6, 0, None),
        (1e9, 7, None),
    ]
