"""Ctrl-C is always honoured (issue 24, group 3): exit 130, one line, nothing left, at once.

Each case runs ``tapesched`` in a bounded child (:func:`tests.hostile.bounded`)
and sends it SIGINT part-way, in one of the phases where an interrupt used
to be lost or fatal: while the commands load, inside OR-Tools (``experiment
bnl-coverage --quick`` orders its request lists with CP-SAT and the routing
solver; ``order --algorithm exact``), inside a pool of worker processes
(``experiment bw-fig5 --quick --workers 2``), and twice 0.2 s apart, the
second while the first unwinds; and while the MILP solvers search (``solve
--solver milp-highs``, and ``milp-cbc``, whose CBC is a process of its own).
Every case must end with ``tapesched: interrupted`` alone on standard error,
exit 130, no traceback, within :data:`PROMPT_S` of the signal, with no output
and no process left. Each is a test of its own, so that the slow ones run
side by side under xdist.
"""

from __future__ import annotations

import json
import os
import random
import signal
import time
from pathlib import Path

import pytest

from tapesched.toolkit.files.instance_file import save_instance
from tapesched.toolkit.generators import RandomParams, random_instance
from tests.hostile import bounded

PROMPT_S = 2.5
"""Most seconds from the signal to the exit: the search stopped, the unwind and the
interpreter's own exit (a fraction of a second alone), with a margin for a loaded machine."""


def _running_in(cwd: Path) -> list[str]:
    """The command lines of the processes running in ``cwd`` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if Path(os.readlink(entry / "cwd")) == cwd:
                    found.append((entry / "cmdline").read_bytes().replace(b"\0", b" ").decode())
            except OSError:
                pass
    return found


def _left_running(cwd: Path, grace_s: float = 2.0) -> list[str]:
    """Processes the command left in ``cwd`` (workers it did not stop), ``grace_s`` after it.

    multiprocessing's resource tracker leaves on its own when it reads the end of its pipe,
    a moment after the command has ended.
    """
    give_up = time.monotonic() + grace_s
    while (left := _running_in(cwd)) and time.monotonic() < give_up:
        time.sleep(0.05)
    return left


def _busy_recall_file(tmp: Path) -> str:
    """A full LTO-7 tape's 200 files of 1 GB at random: 30 s of work for ``order`` exact."""
    rng = random.Random(1)
    files = [
        {"id": f"f{k}", "offset": slot * 10**9, "size_bytes": 10**9}
        for k, slot in enumerate(rng.sample(range(5000), 200))
    ]
    path = tmp / "busy.json"
    path.write_text(json.dumps({"technology": "LTO-7", "files": files}))
    return path.name


def _hard_instance(tmp: Path) -> str:
    """16 random requests: the MILP solvers start on them 2-3 s in, and search for 30 s."""
    path = tmp / "hard.json"
    save_instance(random_instance(RandomParams(n_requests=16), 1), path)
    return path.name


INPUTS = {"BUSY": _busy_recall_file, "HARD": _hard_instance}
"""Input files a case names in its arguments, made in its directory."""

BNL = ["experiment", "bnl-coverage", "--quick", "--out", "out"]
"""About 25 s on 2 cores: its request lists ordered by CP-SAT and the routing solver."""

BW_POOL = ["experiment", "bw-fig5", "--quick", "--workers", "2", "--out", "out", "--cache", "c"]
"""Minutes on 2 cores: the replications run in 2 worker processes."""

CASES = {
    # phase: (arguments, seconds from the start at which SIGINT is sent)
    "while-the-commands-load": (BNL, [0.3]),
    "bnl-coverage-at-2s": (BNL, [2.0]),
    "bnl-coverage-at-5s": (BNL, [5.0]),
    # its 2-s exact orders, CP-SAT's and the routing solver's, alternate through the run (a
    # signal at 15 s met the same mix as at 10 s)
    "bnl-coverage-at-10s": (BNL, [10.0]),
    # its routing solver searches for 9 s once the file is read (then CP-SAT for 21 s)
    "order-exact-routing": (["order", "BUSY", "--algorithm", "exact", "--time-limit", "30"], [3.0]),
    "worker-pool-twice": (BW_POOL, [4.0, 4.2]),
    # HiGHS holds the main thread for its whole run (main answered at its time limit)
    "milp-highs-run": (
        ["solve", "HARD", "--solver", "milp-highs", "--time-limit", "30", "--out", "s.json"],
        [4.0],
    ),
    # CBC runs as a process of its own: it must not search on, an orphan
    "milp-cbc-process": (
        ["solve", "HARD", "--solver", "milp-cbc", "--time-limit", "30", "--out", "s.json"],
        [4.0],
    ),
}


MARKS = {"worker-pool-twice": [pytest.mark.pool], "bnl-coverage-at-10s": [pytest.mark.paper]}
"""The pool's case starts worker processes (make test runs it outside xdist); the signal at
10 s meets the mix of the one at 5 s again, and waits 10 s of make test for it (make
test-papers sends it)."""


@pytest.mark.skipif(not Path("/proc/self/cwd").exists(), reason="reads /proc")
@pytest.mark.parametrize(
    ("args", "at_s"),
    [  # MARKS: which cases run outside make test's xdist workers, or in make test-papers
        pytest.param(*case, id=name, marks=MARKS.get(name, [])) for name, case in CASES.items()
    ],
)
def test_ctrl_c_ends_the_command_at_once_with_one_line_and_leaves_nothing(tmp_path, args, at_s):
    args = [INPUTS[a](tmp_path) if a in INPUTS else a for a in args]
    inputs = {p.name for p in tmp_path.iterdir()}
    signals = [(t, signal.SIGINT) for t in at_s]
    ended = bounded(args, cwd=tmp_path, deadline_s=at_s[-1] + 20, signals=signals)

    ended.assert_refused(code=130)
    assert ended.lines() == ["tapesched: interrupted"]
    assert ended.wall_s - at_s[-1] < PROMPT_S, f"ended {ended.wall_s - at_s[-1]:.1f} s after"
    assert {p.name for p in tmp_path.iterdir()} - inputs <= {"c"}  # a sweep keeps its cache
    assert _left_running(tmp_path) == []
    if args == BW_POOL:
        assert "points on 2 worker(s)" in ended.stdout  # the signals came while the pool ran
    if args[0] in ("order", "solve"):
        assert ended.stdout == ""
