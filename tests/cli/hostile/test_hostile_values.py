"""Hostile values (issue 24, round three): NaN in float options, megabytes quoted back in
messages, a replication cache trusted as written, and command-line papercuts.

Each refusal is one line on standard error naming the option or the file, exit
code 2, no traceback and nothing on standard output. The cheap cases run in
this process (click's runner); those where memory or a hang is at stake (a
value of 50 MB, a cache entry linked to ``/dev/zero``) run in a capped child
(:func:`tests.hostile.bounded`).
"""

from __future__ import annotations

import json
import math
import os
import shutil
from collections.abc import Callable
from functools import partial
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import click
import pytest

from tapesched.cli.common import NumberType, SpanType
from tapesched.studies.registry import ENTRY_POINT_GROUP
from tapesched.studies.sweeps.sweep import entry_digest
from tapesched.toolkit.errors import MAX_LINE
from tests.cli import every_command
from tests.cli.archives.test_cli_simulate import run
from tests.conftest import INSTANCES, dist_info
from tests.hostile import bounded

AMPEX = str(INSTANCES / "scenarios" / "ampex.json")
LOAD = str(INSTANCES / "plan" / "sdsc-1998.json")
RECALL = str(INSTANCES / "recall" / "lto7-files.json")


def refused(*args: str) -> str:
    """The one line of a refusal of ``tapesched args`` (exit 2, nothing on stdout)."""
    code, stdout, err = run(*args)
    assert (code, stdout) == (2, ""), (code, stdout, err)
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, lines
    return lines[0]


# --- Group 4: one float option type, refusing NaN and the infinities -------------------------


def _reads_a_float(kind: click.ParamType, param: click.Parameter) -> bool:
    try:
        value = kind.convert("1", param, None)
    except click.BadParameter:
        return False
    return isinstance(value, float) or (
        isinstance(value, tuple) and any(isinstance(v, float) for v in value)
    )


PARAMETERS = [
    pytest.param(command, param, id=f"{path} {param.name}")
    for path, command in every_command()
    for param in command.params
]


@pytest.mark.parametrize(("command", "param"), PARAMETERS)
def test_every_float_option_is_the_one_number_type(command, param):
    kinds = [param.type, *([param.type.kind] if isinstance(param.type, SpanType) else [])]
    for kind in kinds:
        if isinstance(kind, click.types.FloatParamType):
            assert isinstance(kind, NumberType), f"{param.name}: {kind!r} lets NaN through"
    if _reads_a_float(param.type, param):
        for bad in ("nan", "inf", "-inf", "NaN", "1:nan"):
            with pytest.raises(click.BadParameter):
                param.type.convert(bad, param, None)


def test_the_walk_sees_the_float_options_of_the_issue():
    names = {(path, p.name) for path, command in every_command() for p in command.params}
    for wanted in [
        ("tapesched experiment gol-fig8", "precision"),
        ("tapesched experiment cnaf-bulk-recall", "scale"),
        ("tapesched experiment durability", "horizon_years"),
        ("tapesched plan", "days"),
        ("tapesched simulate", "handling_failure"),
        ("tapesched order", "time_limit"),
    ]:
        assert wanted in names


NAN_CASES = [
    (["experiment", "gol-fig8", "--precision", "nan"], "--precision: 'nan' is not a finite number"),
    (["experiment", "cnaf-bulk-recall", "--scale", "nan"], "--scale: 'nan' is not a finite number"),
    (["experiment", "durability", "--horizon-years", "nan"],
     "--horizon-years: 'nan' is not a finite number"),
    (["experiment", "durability", "--horizon-years", "inf"],
     "--horizon-years: 'inf' is not a finite number"),
    (["plan", LOAD, "--check", "--days", "nan"], "--days: 'nan' is not a finite number"),
    (["plan", LOAD, "--check", "--bytes-scale", "nan"],
     "--bytes-scale: 'nan' is not a finite number"),
    (["plan", LOAD, "--check", "--cache-scale", "nan"],
     "--cache-scale: 'nan' is not a finite number"),
    (["plan", LOAD, "--check", "--file-scale", "-inf"],
     "--file-scale: '-inf' is not a finite number"),
    (["simulate", AMPEX, "--handling-failure", "nan"],
     "--handling-failure: 'nan' is not a finite number"),
    (["simulate", AMPEX, "--drive-failures-per-year", "nan"],
     "--drive-failures-per-year: 'nan' is not a finite number"),
    (["simulate", AMPEX, "--mover-failures-per-year", "nan"],
     "--mover-failures-per-year: 'nan' is not a finite number"),
    (["simulate", AMPEX, "--tape-losses-per-year", "nan"],
     "--tape-losses-per-year: 'nan' is not a finite number"),
    (["simulate", AMPEX, "--scheduler", "bw-main", "--max-imbalance", "inf"],
     "--max-imbalance: 'inf' is not a finite number"),
    (["order", RECALL, "--time-limit", "nan"], "--time-limit: 'nan' is not a finite number"),
    (["order", RECALL, "--time-limit", "0"], "--time-limit: 0.0 is not in the range"),
    (["generate", "random", "--seed", "1", "--size-mb", "1:nan"],
     "--size-mb: 'nan' is not a finite number"),
    (["generate", "random", "--seed", "1", "--horizon", "inf"],
     "--horizon: 'inf' is not a finite number"),
]  # fmt: skip


@pytest.mark.parametrize(("args", "line"), NAN_CASES, ids=[" ".join(c[0]) for c in NAN_CASES])
def test_nan_and_infinities_in_float_options_are_refused_in_one_line(args, line):
    assert refused(*args).startswith(line)


# --- Group 6: messages quote a few dozen characters of a bad value, never megabytes ---------

BIG = "x" * (50 * 2**20)
"""A 50 MB string, where a number (or a name) belongs."""

QUOTED = "'xxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxxxxxx' (52,428,800 characters)"
"""How :func:`toolkit.errors.shown` quotes :data:`BIG`."""


def _with(path: Path, setting: Callable[[Any], None]) -> Callable[[Path], str]:
    """A builder of the JSON file ``path`` with ``setting`` applied to its document."""

    def build(tmp: Path) -> str:
        document = json.loads(path.read_text())
        setting(document)
        out = tmp / f"big-{path.name}"
        out.write_text(json.dumps(document))
        return str(out)

    return build


def _homes(homes_map: dict[str, Any], tmp: Path) -> list[str]:
    trace = tmp / "trace.csv"
    trace.write_text("CB1;20110819T000000;100\n")
    layout = tmp / "layout.json"
    level = {"libraries": {"L1": {}}, "drives": {"D1": {}}, "robots": 1}
    layout.write_text(json.dumps({"level": {"0": level}}))
    homes = tmp / "homes.json"
    homes.write_text(json.dumps(homes_map))
    return ["replay", str(trace), str(layout), "--drives", "1", "--homes", str(homes)]


def _set(*path: str | int) -> Callable[[Any], None]:
    def setting(document: Any) -> None:
        for key in path[:-1]:
            document = document[key]
        document[path[-1]] = BIG

    return setting


def _unknown_key(document: Any) -> None:
    document[BIG] = 1


SPEC = INSTANCES / "spec-example.json"

BIG_CASES: list[tuple[str, Callable[[Path], list[str]], str]] = [
    ("check", lambda t: ["check", _with(SPEC, _set("requests", 0, "release_s"))(t)],
     f"requests[0].release_s: expected a number, got {QUOTED}"),
    ("verify", lambda t: ["verify", _with(SPEC, _set("requests", 0, "release_s"))(t),
                          str(INSTANCES / "spec-example.optimum.json")],
     f"requests[0].release_s: expected a number, got {QUOTED}"),
    ("simulate",
     lambda t: ["simulate", _with(Path(AMPEX), _set("platform", "tape_capacity_mb"))(t)],
     f"platform.tape_capacity_mb: expected a number, got {QUOTED}"),
    ("plan", lambda t: ["plan", _with(Path(LOAD), _set("mount_s"))(t)],
     f"mount_s: expected a number, got {QUOTED}"),
    ("order", lambda t: ["order", _with(Path(RECALL), _set("files", 0, "block"))(t)],
     f"files[0].block: must be an integer, got {QUOTED}"),
    ("replay --homes", partial(_homes, {"CB1": BIG}), f"CB1: expected an integer, got {QUOTED}"),
    ("a 50 MB unknown key", lambda t: ["check", _with(SPEC, _unknown_key)(t)],
     f"unknown key {QUOTED}"),
    ("a 50 MB unknown key of a scenario",
     lambda t: ["check", _with(Path(AMPEX), lambda d: _unknown_key(d["workload"]))(t)],
     f"workload.{QUOTED}: unknown key (known: data_ratio, "),
    # No message quotes the cartridge id: the last defence cuts the line in the middle.
    ("a 50 MB cartridge id in --homes", partial(_homes, {BIG: 1}),
     "xxxx: level 1 is not in the layout (levels 0-0)"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("build", "problem"), [c[1:] for c in BIG_CASES], ids=[c[0] for c in BIG_CASES]
)
def test_a_value_of_50_mb_is_quoted_in_a_short_line(tmp_path, build, problem):
    args = build(tmp_path)
    ended = bounded(args, cwd=tmp_path)
    ended.assert_refused()
    assert ended.stdout == ""
    line = ended.lines()[0]
    assert len(line) <= MAX_LINE
    assert line.startswith(str(tmp_path)) and problem in line, line


def test_check_prints_a_50_mb_name_back_in_a_few_dozen_characters(tmp_path):
    instance = _with(SPEC, _set("name"))(tmp_path)
    ended = bounded(["check", instance], cwd=tmp_path)
    assert (ended.code, ended.stderr) == (0, ""), ended.stderr[-500:]
    assert ended.stdout.startswith("ok: instance 'xxxxxxxxxx")
    assert "(52,428,800 characters): 1 libraries (1 arms), 2 drives" in ended.stdout
    assert len(ended.stdout) < 400


# --- Group 8: papercuts of the command line -----------------------------------------------


def test_a_load_file_without_format_is_refused_like_every_other_file(tmp_path):
    document = json.loads(Path(LOAD).read_text())
    del document["format"]
    path = tmp_path / "load.json"
    path.write_text(json.dumps(document))
    assert refused("plan", str(path)) == f"{path}: format: missing key"


@pytest.mark.parametrize(
    "command",
    [
        ["plot", "gantt", str(SPEC), str(INSTANCES / "spec-example.optimum.json")],
        ["solve", str(SPEC)],
        ["generate", "random", "--seed", "1"],
    ],
    ids=["plot gantt", "solve", "generate"],
)
def test_a_read_only_output_file_is_refused_and_kept(tmp_path, command):
    out = tmp_path / "out.png"
    out.write_text("kept")
    out.chmod(0o444)
    assert refused(*command, "--out", str(out)) == f"--out: {out}: cannot write: permission denied"
    assert out.read_text() == "kept"


def test_an_empty_solver_list_is_refused_not_taken_for_the_defaults(tmp_path):
    window = str(INSTANCES / "scenarios" / "ampex-window.json")
    line = "--solvers: names no solver (give one or more, separated by commas)"
    out = tmp_path / "out"
    args = [window, "--window", "6", "--out", str(out)]
    assert refused("experiment", "online-vs-offline", *args, "--solvers", "") == line
    assert refused("experiment", "online-vs-offline", *args, "--solvers", " , ") == line
    assert refused("compare", str(SPEC), "--solvers", "") == line
    assert not out.exists()


def test_an_unknown_experiment_lists_every_experiment():
    line = refused("experiment", "bw-fig99", "--out", "x")
    listed = line.removeprefix("unknown experiment 'bw-fig99'; known: ").split(", ")
    assert listed == [
        *(f"bw-fig{n}" for n in (5, 6, 7, 8, 9, 10, 11)),
        *(f"gol-fig{n}" for n in (8, 10, 12, 14)),
        "gol-stripe-search",
        *("online-vs-offline", "bnl-coverage", "ecmwf-defer-dismount", "cnaf-bulk-recall"),
        "durability",
        "site-sweep",
    ]
    # Each name listed is a command of its own.
    for name in listed:
        code, stdout, _ = run("experiment", name, "--help")
        assert code == 0 and stdout.startswith("Usage: "), name


# --- Group 5: the replication cache, read as any input -------------------------------------


@pytest.fixture
def one(monkeypatch, tmp_path):
    """The command line of the one-point experiment of the sweep tests
    (:data:`tests.studies.sweeps.test_sweep.ONE`) writing ``tmp_path/one``, installed as ``one``
    in this process and in children started with ``env=one.env``."""
    site = tmp_path / "site"
    target = "tests.studies.sweeps.test_sweep:ONE_EXPERIMENT"
    dist_info(site, "one-experiment", ENTRY_POINT_GROUP, {"one": target})
    monkeypatch.syspath_prepend(str(site))
    args = ["experiment", "one", "--scenario", AMPEX, "--quick", "--workers", "1",
            "--max-replications", "2", "--out", str(tmp_path / "one")]  # fmt: skip
    return SimpleNamespace(args=args, env={"PYTHONPATH": str(site)}, out=tmp_path / "one")


def _entries(cache: Path) -> list[Path]:
    return sorted(cache.glob("*.json"))


def _first_run(one: SimpleNamespace) -> tuple[str, list[Path]]:
    """Run :data:`ONE` once: its results.csv and its cache entries."""
    code, stdout, err = run(*one.args)
    assert (code, err) == (0, ""), err
    assert "2 replications run, 0 from the cache" in stdout
    return (one.out / "results.csv").read_text(), _entries(Path(f"{one.out}.cache"))


def _edit(
    change: Callable[[dict[str, Any]], None], *, seal: bool = False
) -> Callable[[Path], None]:
    """A corruption of an entry: ``change`` applied to its document (its digest recomputed
    with ``seal``, as one who knows the format would)."""

    def corrupt(entry: Path) -> None:
        document = json.loads(entry.read_text())
        change(document)
        if seal:
            document["digest"] = entry_digest(document["key"], document["summary"])
        entry.write_text(json.dumps(document))

    return corrupt


def _bare(document: dict[str, Any]) -> None:
    """The entry as it was written before entries had a format: the summary alone."""
    summary = document.pop("summary")
    document.clear()
    document.update(summary)


def _summary(**values: Any) -> Callable[[dict[str, Any]], None]:
    return lambda document: document["summary"].update(values)


def _replace(text: str) -> Callable[[Path], None]:
    return lambda entry: entry.write_text(text)


def _link(target: str) -> Callable[[Path], None]:
    def corrupt(entry: Path) -> None:
        entry.unlink()
        entry.symlink_to(target)

    return corrupt


def _link_to_a_copy(entry: Path) -> None:
    copy = entry.with_suffix(".copy")
    entry.rename(copy)
    entry.symlink_to(copy)


def _fifo(entry: Path) -> None:
    entry.unlink()
    os.mkfifo(entry)


def _other_key(entry: Path) -> None:
    others = [e for e in _entries(entry.parent) if e != entry]
    shutil.copyfile(others[0], entry)


BAD_ENTRIES: list[tuple[str, Callable[[Path], None], str]] = [
    ("a string for a count", _edit(_summary(arrived="12"), seal=True),
     "summary.arrived: expected an integer, got '12'"),
    ("a string for a measure", _edit(_summary(makespan_s="long"), seal=True),
     "summary.makespan_s: expected a number, got 'long'"),
    ("NaN for a mean", _edit(_summary(mean_response_s=math.nan), seal=True),
     "summary.mean_response_s: expected a number, got nan"),
    ("infinity for a share", _edit(_summary(drive_busy_share_over_horizon=math.inf), seal=True),
     "summary.drive_busy_share_over_horizon: expected a finite number, got inf"),
    ("a list for the summary", _edit(lambda d: d.update(summary=[1, 2])),
     "summary: expected an object, got [1, 2]"),
    ("saturated: true, edited", _edit(_summary(saturated=True)),
     "digest: does not match the key and summary (changed since kept)"),
    ("saturated: true, resealed", _edit(_summary(saturated=True), seal=True),
     "summary.saturated: true with a backlog of "),
    ("a response of a saturated run", _edit(_summary(measured=0), seal=True),
     "summary.mean_weighted_response_s_per_gb: given for a run with 0 measured, saturated false"),
    ("the counts not adding up", _edit(_summary(completed=10**6), seal=True),
     "summary.arrived: "),
    ("another seed", _edit(_summary(seed=7), seal=True),
     "summary.seed: 7 is not the replication's seed "),
    ("another replication's entry", _other_key, "key: expected '"),
    ("a missing key", _edit(lambda d: d["summary"].pop("mounts"), seal=True),
     "summary.mounts: missing key"),
    ("the old format, a bare summary", _edit(_bare),
     "digest: missing key"),
    ("truncated JSON", _replace('{"format": "tapesched.replication/1", "key'), "not JSON: "),
    ("not UTF-8", lambda entry: entry.write_bytes(b"\xff\xfe{}"),
     "not JSON: 'utf-8' codec can't decode byte 0xff in position 0"),
    ("an entry of 100 KB", _replace(" " * 100_000),
     "cannot read file: 100,000 bytes, more than the limit of 65,536 bytes"),
    ("a link to /dev/zero", _link("/dev/zero"), "cannot read file: a symbolic link, not followed"),
    ("a link to a good entry", _link_to_a_copy, "cannot read file: a symbolic link, not followed"),
    ("a FIFO", _fifo, "cannot read file: not a regular file (a FIFO)"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("corrupt", "problem"), [c[1:] for c in BAD_ENTRIES], ids=[c[0] for c in BAD_ENTRIES]
)
def test_a_bad_cache_entry_is_recomputed_with_a_one_line_warning(one, corrupt, problem):
    results, entries = _first_run(one)
    bad = entries[0]
    corrupt(bad)
    code, stdout, err = run(*one.args)
    assert code == 0, err
    assert err.splitlines() == [err.rstrip("\n")], err
    assert err.startswith(f"warning: {bad}: {problem}"), err
    assert err.rstrip().endswith("; the replication is run again"), err
    assert "1 replications run, 1 from the cache" in stdout
    assert (one.out / "results.csv").read_text() == results
    # The entry was replaced by a good one: the next run takes both from the cache.
    assert bad.is_file() and not bad.is_symlink()
    code, stdout, err = run(*one.args)
    assert (code, err) == (0, "") and "0 replications run, 2 from the cache" in stdout


def test_a_cache_entry_linked_to_dev_zero_is_not_read_in_a_bounded_child(one):
    results, entries = _first_run(one)
    entries[0].unlink()
    entries[0].symlink_to("/dev/zero")
    ended = bounded(one.args, env=one.env, deadline_s=60)
    assert ended.code == 0 and not ended.killed_at_deadline, ended.stderr[-2000:]
    assert ended.peak_rss_mb < 1024
    assert ended.lines() == [
        f"warning: {entries[0]}: cannot read file: a symbolic link, not followed; "
        "the replication is run again"
    ]
    assert "1 replications run, 1 from the cache" in ended.stdout
    assert (one.out / "results.csv").read_text() == results


def _regular_file(tmp: Path) -> str:
    path = tmp / "file"
    path.write_text("a file")
    return str(path)


def _dangling(tmp: Path) -> str:
    path = tmp / "dangling"
    path.symlink_to(tmp / "nowhere")
    return str(path)


def _file_beside_out(tmp: Path) -> list[str]:
    """No option: a file where the cache beside ``--out`` goes."""
    (tmp / "one.cache").write_text("a file")
    return []


BAD_CACHES: list[tuple[str, Callable[[Path], list[str]], str]] = [
    ("--cache /dev/null", lambda t: ["--cache", "/dev/null"],
     "--cache: /dev/null: is a character device"),
    ("--cache a file", lambda t: ["--cache", _regular_file(t)],
     "--cache: {tmp}/file: is a regular file"),
    ("--cache below a file", lambda t: ["--cache", f"{_regular_file(t)}/cache"],
     "--cache: {tmp}/file/cache: Not a directory"),
    ("--cache a dangling link", lambda t: ["--cache", _dangling(t)],
     "--cache: {tmp}/dangling: is a dangling symbolic link (to {tmp}/nowhere)"),
    ("DIR.cache a file", _file_beside_out,
     "{tmp}/one.cache: is a regular file (the cache of --out; give another with --cache)"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("options", "line"), [c[1:] for c in BAD_CACHES], ids=[c[0] for c in BAD_CACHES]
)
def test_a_cache_that_cannot_be_one_is_refused_before_any_work(one, tmp_path, options, line):
    assert refused(*one.args, *options(tmp_path)) == line.format(tmp=tmp_path)
    assert not one.out.exists()
