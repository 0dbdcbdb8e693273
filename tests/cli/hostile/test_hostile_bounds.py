"""Hostile inputs that would run without bound or fill memory: each is refused in one line.

Every case runs ``tapesched`` in a child capped in memory and killed at a
deadline (:func:`tests.hostile.bounded`) on files built in ``tmp_path``, and
must end with exit code 2, one line on standard error naming the file (or the
option) and what is wrong, within the deadline and under 1 GB of peak
memory, no traceback, and nothing written: the limits of
:mod:`toolkit.runtime.limits` and :mod:`toolkit.units` are checked before a run
starts, and every file is read by :mod:`toolkit.files.reading`, which refuses what
is not a regular file and stops reading at its caps.
"""

from __future__ import annotations

import bz2
import copy
import gzip
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from attrs import field, frozen

from tapesched.toolkit.runtime.limits import (
    MAX_DENSE_FILES,
    MAX_INPUT_BYTES,
    MAX_LINE_BYTES,
    MAX_RECALL_FILES,
)
from tests.cli.hostile.test_hostile_inputs import SCENARIO
from tests.conftest import INSTANCES
from tests.hostile import bounded

SPEC = INSTANCES / "spec-example.json"
LOAD = INSTANCES / "plan" / "sdsc-1998.json"
RECALL = INSTANCES / "recall" / "lto7-files.json"
ECMWF = INSTANCES / "traces" / "ecmwf"
TRACE = ECMWF / "io_events_sample_10k.csv.bz2"
LAYOUT = ECMWF / "sl8500_from_snap20111001.json.bz2"
REPLAY = ("replay", "--drives", "120")


@frozen
class Case:
    """A hostile command line: the arguments (``{x}`` names a file built by ``files["x"]``),
    and what its one line of standard error must hold (``{x}`` again names a file)."""

    args: tuple[str, ...]
    expected: str
    files: dict[str, Callable[[Path], Path | str]] = field(factory=dict)


# --- builders of hostile files ----------------------------------------------------------------


def _json(document: Any, name: str = "input.json") -> Callable[[Path], Path]:
    def build(tmp: Path) -> Path:
        path = tmp / name
        path.write_text(document if isinstance(document, str) else json.dumps(document))
        return path

    return build


def _fifo(tmp: Path) -> Path:
    path = tmp / "pipe.json"
    os.mkfifo(path)
    return path


def _zero(_: Path) -> str:
    return "/dev/zero"


def _bomb(name: str, fill: bytes = b"\0") -> Callable[[Path], Path]:
    """A bzip2 file of a few kB: concatenated streams of ``fill`` bytes (short lines for a
    newline) that decompress past the input cap."""

    def build(tmp: Path) -> Path:
        stream = bz2.compress(fill * (8 * 2**20), 9)
        path = tmp / name
        path.write_bytes(stream * (MAX_INPUT_BYTES // (8 * 2**20) + 1))
        return path

    return build


def _gzip_bomb(tmp: Path) -> Path:
    """A gzip file of members of NULs that decompress past the input cap (about 1 MB)."""
    member = gzip.compress(b"\0" * (8 * 2**20), 9)
    path = tmp / "bomb.json.gz"
    path.write_bytes(member * (MAX_INPUT_BYTES // (8 * 2**20) + 1))
    return path


def _sparse(name: str) -> Callable[[Path], Path]:
    """A plain file larger than the input cap, holding no disk (sparse)."""

    def build(tmp: Path) -> Path:
        path = tmp / name
        with path.open("wb") as handle:
            handle.truncate(MAX_INPUT_BYTES + 1)
        return path

    return build


def _long_line(name: str, header: str) -> Callable[[Path], Path]:
    def build(tmp: Path) -> Path:
        path = tmp / name
        path.write_bytes(header.encode() + b"1" * (MAX_LINE_BYTES + 10) + b"\n")
        return path

    return build


def _with(document: dict[str, Any], **values: Any) -> dict[str, Any]:
    """``document`` with ``values`` set at dotted paths spelt with ``__``."""
    out = copy.deepcopy(document)
    for dotted, value in values.items():
        *parents, last = dotted.split("__")
        node = out
        for key in parents:
            node = node[key]
        node[last] = value
    return out


def _text_with_duplicate(document: dict[str, Any], key: str, value: Any) -> str:
    """``document``'s JSON text with ``key`` given a second time at its top level."""
    text = json.dumps(document)
    return text[:-1] + f", {json.dumps(key)}: {json.dumps(value)}}}"


def _recall(n: int) -> dict[str, Any]:
    """A recall file of ``n`` files on an LTO-7 tape."""
    size = 10_000_000
    return {
        "technology": "LTO-7",
        "files": [{"id": f"f{k}", "offset": k * size, "size_bytes": size} for k in range(n)],
    }


def _load_of_classes(n: int) -> dict[str, Any]:
    """The SDSC load with ``n`` service classes of its small one."""
    load = json.loads(LOAD.read_text())
    small = load["classes"][0]
    load["classes"] = [dict(small, name=f"c{k}", max_file_mb=10 + k) for k in range(n)]
    del load["classes"][-1]["max_file_mb"]
    return load


def _trajectory(instance: str) -> dict[str, Any]:
    point = {"time_s": 0.0, "objective": 5.0, "bound": 1.0}
    return {"solver": "lns", "instance": instance, "trajectory": [point]}


def _trace(*lines: str) -> Callable[[Path], Path]:
    def build(tmp: Path) -> Path:
        path = tmp / "trace.csv"
        path.write_text("".join(f"{line}\n" for line in lines))
        return path

    return build


SPEC_DOC = json.loads(SPEC.read_text())
RECALL_DOC = json.loads(RECALL.read_text())
LAYOUT_DOC = json.loads(bz2.decompress(LAYOUT.read_bytes()))
A_LEVEL = next(iter(LAYOUT_DOC["level"]))
HUGE_LEVEL = "1" * 30
RATE_BOUNDS = "must be within [0.001, 1e+09] MB/s"

CASES: dict[str, Case] = {
    # readers given what is not a regular file, refused before reading
    "check FIFO": Case(("check", "{f}"), "{f}: cannot read file: not a regular file (a FIFO)",
                       {"f": _fifo}),
    "check /dev/zero": Case(("check", "/dev/zero"),
                            "/dev/zero: cannot read file: not a regular file (a character device)"),
    "order /dev/zero": Case(("order", "/dev/zero"), "/dev/zero: cannot read file: not a regular"),
    "plan /dev/zero": Case(("plan", "/dev/zero"), "/dev/zero: cannot read file: not a regular"),
    "plot results /dev/zero": Case(("plot", "results", "/dev/zero", "--out", "{o}/x.png"),
                                   "/dev/zero: cannot read file: not a regular"),
    "plot trajectory /dev/zero": Case(("plot", "trajectory", "/dev/zero", "--out", "{o}/x.png"),
                                      "/dev/zero: cannot read file: not a regular"),
    "simulate --workload /dev/zero": Case(
        ("simulate", "{s}", "--workload", "/dev/zero"),
        "/dev/zero: cannot read file: not a regular", {"s": _json(SCENARIO, "s.json")}),
    "replay trace /dev/zero": Case((*REPLAY, "/dev/zero", str(LAYOUT)),
                                   "/dev/zero: cannot read file: not a regular"),
    "replay layout /dev/zero": Case((*REPLAY, str(TRACE), "/dev/zero"),
                                    "/dev/zero: cannot read file: not a regular"),
    "replay --homes /dev/zero": Case((*REPLAY, str(TRACE), str(LAYOUT), "--homes", "/dev/zero"),
                                     "/dev/zero: cannot read file: not a regular"),
    # streams read in chunks and stopped at the cap
    "replay trace bzip2 bomb": Case(
        (*REPLAY, "{t}", str(LAYOUT), "--limit", "50"),
        "{t}: cannot read file: decompresses to more than the limit of 256 MiB",
        {"t": _bomb("trace.csv.bz2", b"\n")}),
    "replay layout bzip2 bomb": Case(
        (*REPLAY, str(TRACE), "{l}"),
        "{l}: cannot read file: decompresses to more than the limit of 256 MiB",
        {"l": _bomb("layout.json.bz2")}),
    "check gzip bomb": Case(
        ("check", "{f}"), "{f}: cannot read file: decompresses to more than the limit of 256 MiB",
        {"f": _gzip_bomb}),
    "check of a file past the size cap": Case(
        ("check", "{f}"),
        f"{{f}}: cannot read file: {MAX_INPUT_BYTES + 1:,} bytes, more than the limit of 256 MiB",
        {"f": _sparse("big.json")}),
    "simulate --workload line past the cap": Case(
        ("simulate", "{s}", "--workload", "{w}"),
        "{w}: cannot read file: line 2 is longer than 1 MiB",
        {"s": _json(SCENARIO, "s.json"),
         "w": _long_line("w.csv", "arrival_s,kind,file,size_mb,scheme\n")}),
    # duplicate keys
    "instance with a duplicate key": Case(
        ("check", "{f}"), "{f}: duplicate key 'name'",
        {"f": _json(_text_with_duplicate(SPEC_DOC, "name", "again"))}),
    "scenario with a duplicate key": Case(
        ("simulate", "{f}"), "{f}: workload: duplicate key 'rate'",
        {"f": _json(json.dumps(SCENARIO).replace('"rate": "60/h"',
                                                 '"rate": "60/h", "rate": "1e9/h"'))}),
    # runs bounded before they start
    "plan --check --bytes-scale": Case(
        ("plan", str(LOAD), "--check", "--bytes-scale", "1000000", "--days", "30"),
        "--check: " + str(LOAD) + " at these scales expects 388,127,005,559 requests and files "
        "in 30 days, more than the 2,000,000 a simulated run may draw"),
    "plan --check --file-scale": Case(
        ("plan", str(LOAD), "--check", "--file-scale", "0.000001"),
        "--check: " + str(LOAD) + " at these scales expects 18,304,233,525 requests and files "
        "in 1 day, more than the 2,000,000"),
    "plan --check of 10,000 classes": Case(
        ("plan", "{f}", "--check"), "--check: {f} at these scales expects 143,140,000",
        {"f": _json(_load_of_classes(10_000))}),
    "gol-stripe-search rate x duration past the arrivals": Case(
        ("experiment", "gol-stripe-search", "--rates", "0.5/min", "--duration", "520w",
         "--out", "{o}/X"),
        "--rates: rate x duration expects 2,620,800 requests, more than the 2,000,000"),
    "solve --workers 100000": Case(
        ("solve", str(SPEC), "--solver", "cpsat", "--workers", "100000", "--out", "{o}/s.json"),
        "--workers: 100000 is not in the range 1<=x<=1024"),
    "experiment durability of 10^12 draws": Case(
        ("experiment", "durability", "--panel", "tape-loss", "--files", "1000000",
         "--replications", "1000000", "--out", "{o}/X"),
        "--files and --replications: 1,000,000 files drawn 1,000,000 times is "
        "1,000,000,000,000 file draws at each q, more than the 100,000,000"),
    "order exact past the dense matrix": Case(
        ("order", "{f}", "--algorithm", "exact", "--time-limit", "1"),
        f"{{f}}: files: {MAX_DENSE_FILES + 1:,} files, more than the {MAX_DENSE_FILES:,} "
        "--algorithm exact orders", {"f": _json(_recall(MAX_DENSE_FILES + 1))}),
    "order of more files than a recall lists": Case(
        ("order", "{f}"),
        f"{{f}}: files: {MAX_RECALL_FILES + 1:,} files, more than the {MAX_RECALL_FILES:,}",
        {"f": _json(_recall(MAX_RECALL_FILES + 1))}),
    "plot trajectory of a 50 MB instance name": Case(
        ("plot", "trajectory", "{f}", "--out", "{o}/t.png"),
        "{f}: instance: 50,000,000 characters, longer than the 1,000 of a name",
        {"f": _json(_trajectory("x" * 50_000_000))}),
    # magnitudes past the documented bounds
    "layout level of 30 digits": Case(
        (*REPLAY, str(TRACE), "{f}"),
        f"{{f}}: level.{HUGE_LEVEL}: a level number is at most 1,000,000",
        {"f": _json({"level": {HUGE_LEVEL: LAYOUT_DOC["level"][A_LEVEL]}})}),
    "gol-stripe-search --sizes 1e30": Case(
        ("experiment", "gol-stripe-search", "--rates", "0.1/min", "--sizes", "1e30,1,1",
         "--out", "{o}/X"),
        "--sizes: sizes are positive GB up to 1e+06, got '1e30'"),
    "order rate 1e30": Case(("order", "{f}"), f"{{f}}: rate_mb_s: {RATE_BOUNDS}, got 1e+30",
                            {"f": _json(dict(RECALL_DOC, rate_mb_s=1e30))}),
    "order rate 1e-300": Case(("order", "{f}"), f"{{f}}: rate_mb_s: {RATE_BOUNDS}, got 1e-300",
                              {"f": _json(dict(RECALL_DOC, rate_mb_s=1e-300))}),
    "order wraps 1e9": Case(("order", "{f}"), "{f}: wraps: must be <= 1,000,000",
                            {"f": _json(dict(RECALL_DOC, wraps=10**9))}),
    "scenario drive failures 1e7 a year": Case(
        ("simulate", "{f}"), "{f}: faults.drive_failures_per_year: must be <= 1e+06 a year",
        {"f": _json(_with(SCENARIO, faults={"drive_failures_per_year": 1e7}))}),
    "trace of 11.4 years": Case(
        (*REPLAY, "{t}", str(LAYOUT)),
        "{t}: line 2.time: 358732800 s after the first line, longer than the limit 315360000 s",
        {"t": _trace("CB1172;20110819T001558;304", "CB1173;20221231T001558;10")}),
    "trace seconds out of bounds": Case(
        (*REPLAY, "{t}", str(LAYOUT)), "{t}: line 2.seconds: must be <= 1e+09 s, got '1e300'",
        {"t": _trace("CB1172;20110819T001558;304", "CB1173;20110819T001559;1e300")}),
}  # fmt: skip


def _built(case: Case, tmp_path: Path) -> tuple[list[str], str]:
    """The case's arguments and expected line, its files built in ``tmp_path`` (and an empty
    directory ``out`` for an output)."""
    (tmp_path / "out").mkdir()
    names = {name: str(build(tmp_path)) for name, build in case.files.items()}
    names["o"] = str(tmp_path / "out")
    return [a.format(**names) for a in case.args], case.expected.format(**names)


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_refused_in_one_line_within_the_bounds(case: Case, tmp_path: Path) -> None:
    args, expected = _built(case, tmp_path)
    before = sorted(tmp_path.rglob("*"))
    ended = bounded(args, cwd=tmp_path)
    ended.assert_refused()
    assert expected in ended.lines()[0], ended.lines()
    assert ended.stdout == ""
    assert sorted(tmp_path.rglob("*")) == before, "output left behind"


def test_a_compressed_instance_is_read_as_the_plain_one(tmp_path: Path) -> None:
    for name, compress in (("i.json.bz2", bz2.compress), ("i.json.gz", gzip.compress)):
        path = tmp_path / name
        path.write_bytes(compress(SPEC.read_bytes()))
        ended = bounded(["check", str(path)], cwd=tmp_path)
        assert ended.code == 0, ended.stderr
        assert ended.stdout.startswith(f"ok: instance {SPEC_DOC['name']!r}: "), ended.stdout
