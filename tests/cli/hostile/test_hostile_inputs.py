"""A hostile sweep of every command: each bad value is refused before any run, exit 2.

Every case is tiny files in ``tmp_path`` and a command line. A refusal is exit
code 2, nothing on standard output, no traceback, no output file, and on
standard error one line per problem naming the file (or the option) and the
path of the bad value. The refusals come before any solver or simulation
runs, so no case takes more than a moment.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.cli.archives.test_cli_simulate import run
from tests.conftest import INSTANCES

SPEC = INSTANCES / "spec-example.json"
SPEC_OPTIMUM = INSTANCES / "spec-example.optimum.json"

SCENARIO: dict[str, Any] = {
    "format": "tapesched.scenario/1",
    "name": "tiny",
    "platform": {
        "libraries": [{"id": "L0", "arms": 1, "mount_s": 10, "dismount_s": 10}],
        "drives": [{"library": "L0", "count": 4, "model": "ampex"}],
        "tape_capacity_mb": 25000,
    },
    "policy": {"name": "parallel", "block_mb": 100},
    "workload": {
        "sizes": [100, 1000],
        "rate": "60/h",
        "duration": "1h",
        "schemes": {"2+1": 1.0},
    },
}
"""A scenario that runs in a blink: 4 Ampex drives, PARALLEL 2+1, an hour at 60/h."""

TRACE = "arrival_s,kind,file,size_mb,scheme\n0,write,f1,100,2+1\n10,read,f1,100,2+1\n"


# --- builders of the files a case runs on ---------------------------------------------------


def _write(tmp: Path, name: str, document: Any) -> str:
    path = tmp / name
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    return str(path)


def _parent(document: dict[str, Any], path: str) -> tuple[Any, Any]:
    """The object or list holding the value at dotted ``path``, and its key there."""
    *parents, last = path.split(".")
    node: Any = document
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    return node, int(last) if isinstance(node, list) else last


def _drop(document: dict[str, Any], path: str) -> None:
    node, key = _parent(document, path)
    del node[key]


def _set(document: dict[str, Any], path: str, value: Any) -> None:
    node, key = _parent(document, path)
    node[key] = value


def scenario(*, drop: tuple[str, ...] = (), **values: Any) -> Callable[[Path], str]:
    """A builder of the tiny scenario without the keys ``drop`` and with ``values``
    (``workload__rate="9/h"`` sets ``workload.rate``; a ``.`` in a key is spelt ``__``)."""

    def build(tmp: Path) -> str:
        document = copy.deepcopy(SCENARIO)
        for path in drop:
            _drop(document, path)
        for path, value in values.items():
            _set(document, path.replace("__", "."), value)
        return _write(tmp, "scenario.json", document)

    return build


def instance(path: str, value: Any) -> Callable[[Path], str]:
    """A builder of the spec's example with one value replaced."""

    def build(tmp: Path) -> str:
        document = json.loads(SPEC.read_text())
        _set(document, path, value)
        return _write(tmp, "instance.json", document)

    return build


def trace(text: str) -> Callable[[Path], str]:
    def build(tmp: Path) -> str:
        return _write(tmp, "trace.csv", text)

    return build


def directory(tmp: Path) -> str:
    folder = tmp / "folder.json"
    folder.mkdir()
    return str(folder)


# --- the cases --------------------------------------------------------------------------------

Case = tuple[str, list[Any], str]
"""(id, the command line, what a line of stderr must hold).

In the command line a builder stands for a file it writes into ``tmp_path``
(the last one is ``{file}`` in the expected text, else the last file given),
``{out}`` for an output path that must not be written.
"""

CASES: list[Case] = [
    # Point 8 of the issue, in its order.
    ("scenario without policy, of a striped scheme",
     ["simulate", scenario(drop=("policy",)), "--out", "{out}"],
     "{file}: workload.schemes.2+1: the single policy keeps one copy (scheme 1+0), not 2+1"),
    ("scenario without policy.block_mb",
     ["simulate", scenario(drop=("policy.block_mb",)), "--out", "{out}"],
     "{file}: policy.block_mb: missing key (the parallel policy needs it)"),
    ("scheme with more parity than data",
     ["simulate", scenario(workload__schemes={"2+5": 1.0}), "--out", "{out}"],
     "{file}: workload.schemes.2+5: parity must be <= data (Y <= X)"),
    ("scheme without data", ["simulate", scenario(workload__schemes={"0+1": 1.0})],
     "{file}: workload.schemes.0+1: data must be >= 1"),
    ("scheme wider than the drives", ["simulate", scenario(workload__schemes={"3+2": 1.0})],
     "{file}: workload.schemes.3+2: a write of 100 MB under parallel (3+2) needs 5 drives"),
    ("scenario without workload.schemes",
     ["simulate", scenario(drop=("workload.schemes",)), "--out", "{out}"],
     "{file}: workload.schemes: missing key"),
    ("--duration of 1e12 s", ["simulate", scenario(), "--duration", "1e12s", "--out", "{out}"],
     "--duration: '1e12s' is longer than the limit 315360000 s"),
    ("generate a billion requests",
     ["generate", "random", "--seed", "1", "--requests", "1000000000", "--out", "{out}"],
     "--requests: 1000000000 is not in the range 1<=x<=1000000"),
    ("release_s of 1e308", ["solve", instance("requests.0.release_s", 1e308), "--out", "{out}"],
     "{file}: requests[0].release_s: must be <= 1e+09 s, got 1e+308"),
    ("--time-limit nan", ["solve", str(SPEC), "--time-limit", "nan", "--out", "{out}"],
     "--time-limit: 'nan' is not a duration"),
    ("--time-limit inf", ["solve", str(SPEC), "--time-limit", "inf", "--out", "{out}"],
     "--time-limit: 'inf' is not a duration"),
    ("--time-limit 0", ["solve", str(SPEC), "--time-limit", "0", "--out", "{out}"],
     "--time-limit: '0' must be a positive finite duration"),
    ("compare --time-limit -inf", ["compare", str(SPEC), "--time-limit", "-inf"],
     "--time-limit: '-inf' is not a duration"),
    ("scenario without workload.rate", ["simulate", scenario(drop=("workload.rate",))],
     "{file}: workload.rate: missing key"),
    ("scenario without platform.tape_capacity_mb",
     ["simulate", scenario(drop=("platform.tape_capacity_mb",))],
     "{file}: platform.tape_capacity_mb: missing key"),
    ("scenario without policy.name", ["simulate", scenario(drop=("policy.name",))],
     "{file}: policy.name: missing key"),
    ("scenario without workload.duration", ["simulate", scenario(drop=("workload.duration",))],
     "{file}: workload.duration: missing key"),
    ("scenario without workload.sizes", ["simulate", scenario(drop=("workload.sizes",))],
     "{file}: workload.sizes: missing key"),
    ("scenario without a library's arms",
     ["simulate", scenario(drop=("platform.libraries.0.arms",))],
     "{file}: platform.libraries[0].arms: missing key"),
    ("scenario without a library's mount_s",
     ["simulate", scenario(drop=("platform.libraries.0.mount_s",))],
     "{file}: platform.libraries[0].mount_s: missing key"),
    ("scenario without a drive group's count",
     ["simulate", scenario(drop=("platform.drives.0.count",))],
     "{file}: platform.drives[0].count: missing key"),
    ("scenario without drives", ["simulate", scenario(drop=("platform.drives",))],
     "{file}: platform.drives: missing key"),
    ("scenario without workload", ["check", scenario(drop=("workload",))],
     "{file}: workload: missing key"),
    ("scenario without platform", ["check", scenario(drop=("platform",))],
     "{file}: platform: missing key"),
    ("directory to check", ["check", directory], "{file}: cannot read file: Is a directory"),
    ("directory to solve", ["solve", directory, "--out", "{out}"],
     "{file}: cannot read file: Is a directory"),
    ("directory as the instance to verify", ["verify", directory, str(SPEC_OPTIMUM)],
     "{file}: cannot read file: Is a directory"),
    ("directory as the schedule to verify", ["verify", str(SPEC), directory],
     "{file}: cannot read file: Is a directory"),
    ("directory as the schedule of metrics", ["metrics", str(SPEC), directory],
     "{file}: cannot read file: Is a directory"),
    ("directory to compare", ["compare", str(SPEC), directory],
     "{file}: cannot read file: Is a directory"),
    ("directory to simulate", ["simulate", directory, "--out", "{out}"],
     "{file}: cannot read file: Is a directory"),
    ("directory as the --workload trace", ["simulate", scenario(), "--workload", directory],
     "{file}: cannot read file: Is a directory"),
    ("directory as the replay trace", ["replay", directory, str(SPEC), "--drives", "2"],
     "{file}: cannot read file: Is a directory"),
    # Point 5: units and formats.
    ("--duration without a unit", ["simulate", scenario(), "--duration", "90"],
     "--duration: '90' is ambiguous: give a unit"),
    ("--duration in months", ["simulate", scenario(), "--duration", "3 months"],
     "--duration: '3 months': unknown unit 'months'"),
    ("scenario duration without a unit", ["simulate", scenario(workload__duration="90")],
     "{file}: workload.duration: '90' is ambiguous: give a unit"),
    ("scenario duration of 11 years", ["check", scenario(workload__duration=347_000_000)],
     "{file}: workload.duration: 347000000 is longer than the limit 315360000 s"),
    ("scenario rate in years", ["check", scenario(workload__rate="65/year")],
     "{file}: workload.rate: '65/year' is not a rate"),
    ("check of a schedule file", ["check", str(SPEC_OPTIMUM)],
     "{file}: format: this is a schedule file (tapesched.schedule/1); check takes an instance, "
     "a scenario or a site; use tapesched verify INSTANCE SCHEDULE"),
    ("compare of schedule files only", ["compare", str(SPEC_OPTIMUM)],
     "compare: no instance file among the 1 given"),
    # Magnitudes: what the model can represent and what finishes.
    ("a run expecting too many requests", ["check", scenario(workload__rate="1000/s")],
     "{file}: workload: rate x duration expects 3,600,000 requests, more than the 2,000,000"),
    ("--rate expecting too many requests", ["simulate", scenario(), "--rate", "1000/s"],
     "--rate: rate x duration expects 3,600,000 requests, more than the 2,000,000"),
    ("too many replications", ["simulate", scenario(), "--replications", "5000"],
     "--replications: 5000 is not in the range 1<=x<=1000"),
    ("run.replications past the limit", ["check", scenario(run={"replications": 10**6})],
     "{file}: run.replications: must be <= 1,000"),
    ("a billion drives", ["check", scenario(platform__drives__0__count=10**9)],
     "{file}: platform.drives[0].count: must be <= 1,000,000"),
    ("a billion initial files", ["check", scenario(workload__initial_files=10**9)],
     "{file}: workload.initial_files: must be <= 1,000,000"),
    ("tapes of 1e300 MB", ["check", scenario(platform__tape_capacity_mb=1e300)],
     "{file}: platform.tape_capacity_mb: must be <= 1e+09 MB"),
    ("an arm time of 1e300 s", ["check", scenario(platform__libraries__0__mount_s=1e300)],
     "{file}: platform.libraries[0].mount_s: a duration must be <= 1e+09 s"),
    ("blocks of 1e300 MB", ["check", scenario(policy__block_mb=1e300)],
     "{file}: policy.block_mb: must be <= 1e+09 MB"),
    ("a drive streaming 1e-9 MB/s",
     ["check", scenario(platform__drives__0__model={"base": "ampex", "rate_mb_s": 1e-9})],
     "{file}: platform.drives[0].model: rate_mb_s must be within [0.001, 1e+09] MB/s"),
    ("movers without memory for a row of blocks",
     ["check", scenario(platform__drives__0__per_mover=4, platform__movers={"memory_mb": 50})],
     "{file}: workload.schemes.2+1: a write of 100 MB under parallel (2+1) needs 300 MB of "
     "mover memory"),
    ("instance drive rate 1e-9", ["check", instance("drives.0.rate_mb_s", 1e-9)],
     "{file}: drives[0].rate_mb_s: must be within [0.001, 1e+09] MB/s"),
    ("instance weight 1e12", ["check", instance("requests.0.weight", 1e12)],
     "{file}: requests[0].weight: must be <= 1e+09"),
    ("instance arm time 1e300", ["check", instance("libraries.0.mount_s", 1e300)],
     "{file}: libraries[0].mount_s: must be <= 1e+09 s"),
    ("instance with a billion arms", ["check", instance("libraries.0.arms", 10**9)],
     "{file}: libraries[0].arms: must be <= 1,000,000"),
    ("instance tape of 1e300 MB", ["check", instance("tapes.0.capacity_mb", 1e300)],
     "{file}: tapes[0].capacity_mb: must be <= 1e+09 MB"),
    ("trace arrival past 10 years",
     ["simulate", scenario(), "--workload", trace("arrival_s,kind,file,size_mb\n1e300,read,f,1\n")],
     "{file}: line 2.arrival_s: must be <= 3.1536e+08"),
    ("trace size nan",
     ["simulate", scenario(), "--workload", trace("arrival_s,kind,file,size_mb\n0,read,f,nan\n")],
     "{file}: line 2.size_mb: expected a number, got 'nan'"),
    ("trace scheme 2+5",
     ["simulate", scenario(), "--workload", trace(TRACE.replace("2+1", "2+5"))],
     "{file}: line 2.scheme: parity must be <= data (Y <= X)"),
    ("trace scheme wider than the drives",
     ["simulate", scenario(), "--workload", trace(TRACE.replace("2+1", "4+2"))],
     "{file}: line 2: a write of 100 MB under parallel (4+2) needs 6 drives"),
    ("--policy needing a block size the scenario lacks",
     ["simulate", scenario(policy={"name": "vertical"}), "--policy", "rait"],
     "{file}: policy.block_mb: missing key (the rait policy needs it) (with --policy rait)"),
    ("generate --libraries x --tapes past a million",
     ["generate", "random", "--seed", "1", "--libraries", "1000", "--tapes", "10000"],
     "--libraries x --tapes: 10,000,000 in all, more than 1,000,000"),
    ("generate sizes of 1e300 MB", ["generate", "random", "--seed", "1", "--size-mb", "1:1e300"],
     "--size-mb: must be <= 1e+09 MB"),
    ("generate releases past the latest time",
     ["generate", "golubchik", "--seed", "1", "--rate", "1e-9"],
     "--rate: 100 requests at this rate arrive over about 1e+11 s"),
    ("generate --horizon of 1e300 s", ["generate", "random", "--seed", "1", "--horizon", "1e300"],
     "--horizon:"),
]  # fmt: skip


def _command_line(args: list[Any], tmp: Path) -> tuple[list[str], list[str], Path]:
    """The command line with its files written, the files in order, and the unwritten output."""
    out = tmp / "out"
    line, files = [], []
    for arg in args:
        if callable(arg):
            arg = arg(tmp)
            files.append(arg)
        line.append(str(out) if arg == "{out}" else arg)
    return line, files, out


@pytest.mark.parametrize(("args", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_refused_with_exit_2_the_path_and_no_traceback(tmp_path, args, expected):
    line, files, out = _command_line(args, tmp_path)
    code, stdout, err = run(*line)
    assert code == 2, (stdout, err)
    assert stdout == ""
    assert "Traceback" not in err
    lines = err.splitlines()
    paths = files or [arg for arg in line if Path(arg).is_file()]
    wanted = expected.format(file=paths[-1] if paths else "")
    assert any(problem.startswith(wanted) for problem in lines), lines
    # No usage block: every line names the file or the option, then what is wrong.
    named = (*paths, "--", "compare: ")
    assert all(problem.startswith(named) for problem in lines), lines
    assert not out.exists()


def test_the_shipped_scenarios_are_written_in_the_new_format():
    for path in sorted((INSTANCES / "scenarios").glob("*.json")):
        assert json.loads(path.read_text())["format"] == "tapesched.scenario/1", path


def test_the_old_scenario_format_name_is_still_read(tmp_path):
    path = scenario(format="tapesched-scenario/1")(tmp_path)
    code, stdout, err = run("check", path)
    assert (code, err) == (0, "")
    assert stdout.startswith("ok: scenario 'tiny': policy parallel (block_mb 100), scheduler fifo")
    code, stdout, _ = run("simulate", path, "--duration", "2 hours")
    assert code == 0
    assert "tiny: parallel, fifo, 60/h, 0.0833333 d, 1 replication(s)" in stdout


def test_check_of_a_scenario_prints_what_it_holds(tmp_path):
    code, stdout, _ = run("check", str(INSTANCES / "scenarios" / "blue-waters.json"))
    assert code == 0
    assert stdout == (
        "ok: scenario 'blue-waters': policy vertical (block_mb 16, threshold_mb 1000), "
        "scheduler fifo, 1 libraries (20 arms), 500 drives (50 movers), tapes of 1,000,000 MB; "
        "800 requests/h for 7 d, sizes 10-1000 MB, schemes 1+0 0.025, 2+1 0.025, 3+1 0.05, "
        "3+2 0.1, 4+1 0.1, 4+2 0.3, 6+2 0.2, 8+2 0.2; 1 replication(s) from seed 1\n"
    )


def test_compare_skips_schedule_and_other_json_files_with_a_note(tmp_path):
    files = [str(INSTANCES / n) for n in ("spec-example.json", "spec-example.optimum.json")]
    files.append(str(INSTANCES / "optima.json"))
    files.append(str(INSTANCES / "scenarios" / "ampex.json"))
    code, stdout, err = run("compare", *files, "--solvers", "greedy", "--csv")
    assert code == 0
    *notes, progress_line = err.splitlines()
    assert progress_line.startswith("solving: 1 of 1 done")
    assert notes == [
        f"{INSTANCES / 'spec-example.optimum.json'}: skipped: a schedule file "
        "(tapesched.schedule/1)",
        f"{INSTANCES / 'optima.json'}: skipped: not a tapesched file (no format key)",
        f"{INSTANCES / 'scenarios' / 'ampex.json'}: skipped: a scenario file "
        "(tapesched.scenario/1)",
    ]
    rows = stdout.splitlines()
    assert len(rows) == 2 and rows[1].startswith(f"{INSTANCES / 'spec-example.json'},greedy,")


@pytest.mark.parametrize("limit", ["90", "90s", "2min", "1.5 hours"])
def test_time_limit_takes_seconds_and_the_duration_spellings(tmp_path, limit):
    out = tmp_path / "greedy.json"
    code, stdout, err = run("solve", str(SPEC), "--time-limit", limit, "--out", str(out))
    assert (code, err) == (0, "")
    assert stdout.splitlines()[-1] == "objective weighted-flow: 39.000000"
    assert out.exists()


@pytest.mark.parametrize(
    ("duration", "rate", "title"),
    [("2 days", "2/day", "0.0833333/h, 2 d"), ("1week", "2 per hour", "2/h, 7 d")],
)
def test_simulate_reads_durations_and_rates_as_typed(tmp_path, duration, rate, title):
    path = scenario(workload__sizes=[100, 100])(tmp_path)
    code, stdout, err = run("simulate", path, "--duration", duration, "--rate", rate)
    assert code == 0, err
    assert f"tiny: parallel, fifo, {title}, 1 replication(s)" in " ".join(stdout.split())
