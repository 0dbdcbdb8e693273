"""Safe outputs through the command line: umask modes, ``-``, refusals, no partial output.

Modes need a real umask and interrupts a real signal, so those tests run the
``tapesched`` console script as a subprocess; the rest use click's runner.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import attrs
import pytest
from click.testing import CliRunner

from tapesched.cli import main
from tapesched.simulator.results import run_directory  # simulate --out writes through it
from tapesched.toolkit.files.instance_file import loads_instance
from tapesched.toolkit.files.schedule_file import loads_schedule

from ..conftest import INSTANCES
from ..hostile import start_as_from_a_shell
from ..simulator.replay.test_replay import write_small_files

SPEC = str(INSTANCES / "spec-example.json")
AMPEX = str(INSTANCES / "scenarios" / "ampex.json")
BLUE_WATERS = str(INSTANCES / "scenarios" / "blue-waters.json")
SCRIPT = str(Path(sys.executable).parent / "tapesched")
SHORT_SIM = ("--duration", "1h", "--replications", "1")
GENERATE = ("generate", "random", "--seed", "3", "--requests", "5")


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def tapesched(
    *args: str, umask: int = 0o022, cwd: Path | None = None
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [SCRIPT, *args], capture_output=True, text=True, umask=umask, cwd=cwd, check=False
    )


def listing(directory: Path) -> list[str]:
    """Every entry below ``directory``, hidden ones included, relative, sorted."""
    return sorted(str(p.relative_to(directory)) for p in directory.rglob("*"))


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# --- modes follow the umask -----------------------------------------------------------


@pytest.mark.parametrize(("umask", "expected"), [(0o022, 0o644), (0o027, 0o640)])
def test_a_new_file_gets_the_umask_mode(tmp_path, umask, expected):
    solved, generated = tmp_path / "s.json", tmp_path / "g.json"
    assert tapesched("solve", SPEC, "--out", str(solved), umask=umask).returncode == 0
    assert tapesched(*GENERATE, "--out", str(generated), umask=umask).returncode == 0
    assert (mode(solved), mode(generated)) == (expected, expected)
    assert listing(tmp_path) == ["g.json", "s.json"]  # no temporary file left


@pytest.mark.parametrize(
    ("umask", "dir_mode", "file_mode"), [(0o022, 0o755, 0o644), (0o027, 0o750, 0o640)]
)
def test_a_new_simulate_directory_and_its_files_get_the_umask_modes(
    tmp_path, umask, dir_mode, file_mode
):
    out = tmp_path / "sim"
    done = tapesched("simulate", SPEC, "--out", str(out), "--log", umask=umask)
    assert done.returncode == 0, done.stderr
    assert mode(out) == dir_mode
    assert {p.name: mode(p) for p in out.iterdir()} == {
        "schedule.json": file_mode,
        "events.jsonl": file_mode,
    }
    assert listing(tmp_path) == ["sim", "sim/events.jsonl", "sim/schedule.json"]


def test_a_replaced_file_keeps_its_mode_as_with_a_shell_redirection(tmp_path):
    path = tmp_path / "s.json"
    path.write_text("old")
    path.chmod(0o664)
    assert tapesched("solve", SPEC, "--out", str(path), umask=0o022).returncode == 0
    assert mode(path) == 0o664
    assert loads_schedule(path.read_text()).instance == "two-drives-three-reads"


# --- "-" is standard output -----------------------------------------------------------


def test_solve_to_stdout_prints_only_the_schedule_and_the_rest_on_stderr(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run("solve", SPEC, "--solver", "greedy", "--out", "-")
    assert code == 0
    schedule = loads_schedule(out)
    assert len(schedule.requests) == 3
    lines = err.splitlines()
    assert lines[0].startswith("solver greedy: status feasible")
    assert lines[-1] == "objective weighted-flow: 39.000000"
    assert listing(tmp_path) == []


def test_solve_to_stdout_pipes_into_verify(tmp_path):
    pipeline = f"'{SCRIPT}' solve '{SPEC}' --out - | '{SCRIPT}' verify '{SPEC}' /dev/stdin"
    done = subprocess.run(
        ["sh", "-c", pipeline], capture_output=True, text=True, cwd=tmp_path, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "feasible: 3 requests, 1 arm operations",
        "objective weighted-flow: 39.000000",
    ]
    assert done.stderr.splitlines()[0].startswith("solver greedy: status feasible")


@pytest.mark.parametrize("out", [["--out", "-"], []], ids=["dash", "left out"])
def test_generate_to_stdout_prints_only_the_instance(out):
    code, stdout, err = run(*GENERATE, *out)
    assert code == 0 and err == ""
    assert len(loads_instance(stdout).requests) == 5


def test_replay_to_stdout_prints_only_the_json_and_the_table_on_stderr(tmp_path):
    trace_file, layout_file = write_small_files(tmp_path)
    code, out, err = run("replay", str(trace_file), str(layout_file), "--drives", "1", "--out", "-")
    assert code == 0
    assert json.loads(out)["requests"] == 3
    assert "mean mount latency (s)" in err
    assert err.rstrip().endswith("wrote -")


def test_simulate_refuses_stdout_with_one_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run("simulate", SPEC, "--out", "-")
    assert code == 2
    assert (out, err) == ("", "--out: -: simulate writes a directory, not standard output\n")
    assert listing(tmp_path) == []


# --- what a file output refuses -------------------------------------------------------


def _directory(tmp_path: Path) -> tuple[str, str]:
    path = tmp_path / "adir"
    path.mkdir()
    (path / "keep.txt").write_text("mine")
    return str(path), "is a directory"


def _fifo(tmp_path: Path) -> tuple[str, str]:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return str(path), "is a FIFO"


def _device(tmp_path: Path) -> tuple[str, str]:
    """A ``/dev/null`` of our own where allowed (root), so a regression cannot replace the real one.

    Elsewhere ``/dev/zero`` (``/dev/null`` itself is taken as "discard": see
    :func:`tests.cli.test_cli.test_dev_null_takes_the_schedule_and_keeps_nothing`).
    """
    path = tmp_path / "null"
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        return "/dev/zero", "is a character device"
    return str(path), "is a character device"


def _regular_file(tmp_path: Path) -> tuple[str, str]:
    path = tmp_path / "afile"
    path.write_text("mine")
    return str(path), "is a regular file"


Target = Callable[[Path], tuple[str, str]]


def _link_to(make: Target) -> Target:
    """A symbolic link to what ``make`` makes, and what the refusal says of it."""

    def build(tmp_path: Path) -> tuple[str, str]:
        target, what = make(tmp_path)
        link = tmp_path / "link"
        link.symlink_to(target)
        return str(link), f"is a symbolic link to {what.removeprefix('is ')} ({target})"

    build.__name__ = f"link_to{make.__name__}"
    return build


REFUSED = [_directory, _fifo, _device, _link_to(_directory), _link_to(_fifo)]


def _state(tmp_path: Path) -> dict[str, tuple[int, str | None]]:
    """Each entry's type and mode, and a regular file's content: what must stay untouched."""
    state = {}
    for p in tmp_path.rglob("*"):
        st = p.lstat()
        state[str(p)] = (st.st_mode, p.read_text() if stat.S_ISREG(st.st_mode) else None)
    return state


@pytest.mark.parametrize("command", [("solve", SPEC), GENERATE], ids=["solve", "generate"])
@pytest.mark.parametrize("make", REFUSED, ids=[m.__name__.strip("_") for m in REFUSED])
def test_a_file_output_refuses_what_is_not_a_regular_file(tmp_path, command, make):
    target, what = make(tmp_path)
    before = _state(tmp_path)
    code, out, err = run(*command, "--out", target)
    assert code == 2
    assert err == f"--out: {target}: {what}\n"
    assert out == ""
    assert _state(tmp_path) == before


def test_replay_refuses_a_directory_before_reading_the_trace(tmp_path):
    target, _ = _directory(tmp_path)
    code, _, err = run("replay", "no-trace.csv", "no-layout.json", "--drives", "1", "--out", target)
    assert code == 2
    assert err == f"--out: {target}: is a directory\n"


def test_a_symlink_to_a_file_is_kept_and_the_file_replaced(tmp_path):
    target = tmp_path / "real.json"
    target.write_text("old")
    target.chmod(0o640)
    link = tmp_path / "link.json"
    link.symlink_to(target)
    code, out, _ = run("solve", SPEC, "--out", str(link))
    assert code == 0
    assert f"wrote {link}" in out.splitlines()
    assert link.is_symlink() and link.resolve() == target
    assert loads_schedule(target.read_text()).instance == "two-drives-three-reads"
    assert mode(target) == 0o640
    assert listing(tmp_path) == ["link.json", "real.json"]


def test_a_dangling_symlink_makes_the_file_it_names(tmp_path):
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "new.json")
    assert run("solve", SPEC, "--out", str(link))[0] == 0
    assert link.is_symlink()
    assert loads_schedule((tmp_path / "new.json").read_text()).requests


def test_missing_parent_directories_are_made(tmp_path):
    path = tmp_path / "a" / "b" / "s.json"
    assert run("solve", SPEC, "--out", str(path))[0] == 0
    assert loads_schedule(path.read_text()).requests


def test_a_parent_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "a").write_text("")
    code, _, err = run("solve", SPEC, "--out", str(tmp_path / "a" / "s.json"))
    assert code == 2
    assert err == f"--out: {tmp_path / 'a' / 's.json'}: Not a directory\n"


# --- what a directory output refuses, and what it replaces ----------------------------


def _a_users_directory(tmp_path: Path) -> tuple[str, str]:
    path, _ = _directory(tmp_path)
    (Path(path) / "summary.json").write_text("{}")
    return path, (
        "holds 'keep.txt', which this command does not write; "
        "give a new directory, an empty one or one it wrote before"
    )


DIR_REFUSED = [
    _regular_file,
    _fifo,
    _device,
    _link_to(_regular_file),
    _link_to(_fifo),
    _a_users_directory,
]


@pytest.mark.parametrize("make", DIR_REFUSED, ids=[m.__name__.strip("_") for m in DIR_REFUSED])
def test_simulate_refuses_a_bad_out_before_the_run(tmp_path, make):
    target, what = make(tmp_path)
    before = _state(tmp_path)
    code, out, err = run("simulate", AMPEX, *SHORT_SIM, "--out", target)
    assert code == 2
    assert err == f"--out: {target}: {what}\n"
    assert out == ""  # the run never started: no table
    assert _state(tmp_path) == before


def test_simulate_replaces_its_own_earlier_directory_whole(tmp_path):
    out = tmp_path / "sim"
    assert run("simulate", SPEC, "--out", str(out), "--log")[0] == 0
    assert sorted(p.name for p in out.iterdir()) == ["events.jsonl", "schedule.json"]
    out.chmod(0o700)
    assert run("simulate", SPEC, "--out", str(out))[0] == 0
    assert sorted(p.name for p in out.iterdir()) == ["schedule.json"]  # no stale log
    assert mode(out) == 0o700
    assert listing(tmp_path) == ["sim", "sim/schedule.json"]


def test_simulate_fills_an_empty_directory_and_follows_a_link_to_it(tmp_path):
    target = tmp_path / "target"
    target.mkdir()
    link = tmp_path / "link"
    link.symlink_to(target)
    assert run("simulate", SPEC, "--out", str(link))[0] == 0
    assert link.is_symlink()
    assert sorted(p.name for p in target.iterdir()) == ["schedule.json"]
    assert listing(tmp_path) == ["link", "target", "target/schedule.json"]


def test_simulate_refuses_the_current_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run("simulate", SPEC, "--out", ".")
    assert code == 2
    assert err == "--out: .: is the current directory or above; give a directory to create\n"


# --- a failure half-way leaves nothing ------------------------------------------------


def test_a_write_failing_half_way_leaves_no_file_no_temporary_and_no_new_parent(
    tmp_path, monkeypatch
):
    def full_disk(src: object, dst: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "replace", full_disk)
    path = tmp_path / "new" / "deeper" / "s.json"
    code, out, err = run("solve", SPEC, "--out", str(path))
    assert code == 2
    assert err == f"--out: {path}: cannot write: No space left on device\n"
    assert "wrote" not in out
    assert listing(tmp_path) == []


def test_a_simulate_failing_half_way_leaves_the_earlier_directory_as_it_was(tmp_path, monkeypatch):
    out = tmp_path / "sim"
    assert run("simulate", AMPEX, *SHORT_SIM, "--out", str(out))[0] == 0
    before = _state(tmp_path)

    def failing(*args: object) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(run_directory, "save_schedule", failing)  # after two files
    code, stdout, err = run("simulate", AMPEX, *SHORT_SIM, "--seed", "9", "--out", str(out))
    assert code == 2
    assert err == f"--out: {out}: cannot write: Input/output error\n"
    assert "wrote" not in stdout
    assert _state(tmp_path) == before


def test_an_interrupt_while_writing_exits_130_and_leaves_nothing(tmp_path, monkeypatch):
    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(run_directory, "save_schedule", interrupted)
    out = tmp_path / "sim"
    code, _, err = run("simulate", AMPEX, *SHORT_SIM, "--out", str(out))
    assert code == 130
    assert err == "tapesched: interrupted\n"
    assert listing(tmp_path) == []


def test_an_export_the_validator_rejects_writes_nothing(tmp_path, monkeypatch):
    real_export = run_directory.export

    def broken(*args: object, **kwargs: object):
        instance, schedule = real_export(*args, **kwargs)
        return instance, attrs.evolve(schedule, operations=())

    monkeypatch.setattr(run_directory, "export", broken)
    out = tmp_path / "sim"
    code, stdout, err = run("simulate", AMPEX, *SHORT_SIM, "--out", str(out))
    assert code == 1
    assert "infeasible:" in stdout
    assert err == f"the exported schedule is infeasible; nothing written to {out}\n"
    assert listing(tmp_path) == []


# --- a real Ctrl-C or SIGTERM ---------------------------------------------------------


def _cpu_s(pid: int) -> float:
    """CPU seconds a process has used (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _signal_while_busy(args: list[str], cwd: Path, signum: int) -> subprocess.CompletedProcess:
    """Run ``tapesched args``, send ``signum`` once it has computed for a CPU second."""
    process = subprocess.Popen(
        [SCRIPT, *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=start_as_from_a_shell,
    )
    try:
        give_up = time.monotonic() + 120
        while _cpu_s(process.pid) < 1.0:
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < give_up
            time.sleep(0.05)
        process.send_signal(signum)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return subprocess.CompletedProcess(args, process.returncode, out, err)


needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")


@needs_proc
@pytest.mark.parametrize(
    ("signum", "code", "line"),
    [
        (signal.SIGINT, 130, "tapesched: interrupted"),
        (signal.SIGTERM, 143, "tapesched: terminated"),
    ],
    ids=["SIGINT", "SIGTERM"],
)
def test_a_signalled_simulate_exits_with_one_line_and_leaves_nothing(tmp_path, signum, code, line):
    args = ["simulate", BLUE_WATERS, "--duration", "30d", "--log", "--out", "bw"]
    done = _signal_while_busy(args, tmp_path, signum)
    assert done.returncode == code
    assert done.stderr == line + "\n"
    assert done.stdout == ""
    assert listing(tmp_path) == []


@needs_proc
def test_an_interrupted_simulate_leaves_the_earlier_directory_as_it_was(tmp_path):
    out = tmp_path / "bw"
    assert tapesched("simulate", BLUE_WATERS, "--duration", "1h", "--out", str(out)).returncode == 0
    before = _state(tmp_path)
    args = ["simulate", BLUE_WATERS, "--duration", "30d", "--out", str(out)]
    done = _signal_while_busy(args, tmp_path, signal.SIGINT)
    assert (done.returncode, done.stderr) == (130, "tapesched: interrupted\n")
    assert _state(tmp_path) == before


@needs_proc
def test_an_interrupted_solve_writes_nothing(tmp_path):
    args = ["solve", str(INSTANCES / "random-300.json"), "--solver", "local-search"]
    done = _signal_while_busy(
        [*args, "--time-limit", "60", "--out", "s.json"], tmp_path, signal.SIGINT
    )
    assert (done.returncode, done.stderr, done.stdout) == (130, "tapesched: interrupted\n", "")
    assert listing(tmp_path) == []
