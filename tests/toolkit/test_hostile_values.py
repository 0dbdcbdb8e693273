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
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import click
import pytest

from tests.conftest import INSTANCES
from tests.hostile import bounded
from tests.simulator.test_cli_simulate import run
from toolkit.cli import main
from toolkit.cli.common import NumberType, SpanType
from toolkit.errors import MAX_LINE

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


def _commands() -> Iterator[tuple[str, click.Command]]:
    """Every command of ``tapesched``, the routed ones (``experiment online-vs-offline``)
    included, with its command line."""

    def walk(command: click.Command, path: str) -> Iterator[tuple[str, click.Command]]:
        yield path, command
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                yield from walk(sub, f"{path} {name}")

    yield from walk(main, "tapesched")
    for (command, first), target in main.routes.items():
        yield f"tapesched {command} {first}", target


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
    for path, command in _commands()
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
    names = {(path, p.name) for path, command in _commands() for p in command.params}
    for wanted in [
        ("tapesched experiment", "precision"),
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
        *("online-vs-offline", "bnl-coverage", "ecmwf-defer-dismount", "cnaf-bulk-recall"),
        "durability",
    ]
    # Each name listed runs: the routed ones are commands of their own.
    for name in listed:
        code, stdout, _ = run("experiment", name, "--help")
        assert code == 0 and stdout.startswith("Usage: "), name
