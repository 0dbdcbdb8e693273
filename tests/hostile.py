"""Running ``tapesched`` as a hostile user would: in a child process bounded in time and memory.

The hostile-input tables of :mod:`tests.toolkit` run each case through
:func:`bounded`: a fresh interpreter whose address space is capped (so a run
that grows without bound dies instead of taking the machine), killed at a
deadline, optionally sent a signal part-way, and measured: the child's own
peak resident memory is read from ``wait4``, not from the test process.
A case passes when the command ends in time, under the memory bound, with
the exit code and the one line it should, no traceback and no output left.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from attrs import frozen

ROOT = Path(__file__).resolve().parent.parent

ADDRESS_SPACE_BYTES = 3 * 2**30
"""The child's address-space cap: above what the imports reserve (about 0.5 GB of virtual
memory with OR-Tools, NumPy, SciPy, matplotlib and Dask loaded), below the machine."""

PEAK_RSS_MB = 1024
"""The peak resident memory every hostile case must stay under."""

DEADLINE_S = 10.0
"""The wall time every hostile case must end within."""


@frozen
class Ended:
    """How a bounded run ended."""

    code: int
    """Exit code; a signal's death is ``-signum`` (as :mod:`subprocess` gives it)."""
    stdout: str
    stderr: str
    wall_s: float
    peak_rss_mb: float
    killed_at_deadline: bool

    def lines(self) -> list[str]:
        """Standard error's non-blank lines."""
        return [line for line in self.stderr.splitlines() if line.strip()]

    def assert_refused(self, code: int = 2, *, memory_mb: float = PEAK_RSS_MB) -> None:
        """One line on stderr, exit ``code``, within the deadline and the memory bound,
        no traceback."""
        assert not self.killed_at_deadline, f"still running at the deadline: {self.stderr[-500:]}"
        assert self.code == code, (self.code, self.stdout[-500:], self.stderr[-2000:])
        assert "Traceback" not in self.stderr, self.stderr[-2000:]
        assert len(self.lines()) == 1, self.lines()[:5]
        assert len(self.stderr) < 1000, f"{len(self.stderr)} characters on stderr"
        assert self.peak_rss_mb < memory_mb, f"peak {self.peak_rss_mb:.0f} MB"


def _limit_memory() -> None:  # pragma: no cover - runs in the child
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE_BYTES, ADDRESS_SPACE_BYTES))
    os.setsid()
    start_as_from_a_shell()


def start_as_from_a_shell() -> None:  # pragma: no cover - runs in the child
    """A child's SIGINT and SIGTERM at their defaults and unblocked, as a shell starts a
    command, whatever the test process had (an xdist worker may ignore or block them)."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT, signal.SIGTERM])


def bounded(
    args: Sequence[str],
    *,
    cwd: str | os.PathLike[str] | None = None,
    deadline_s: float = DEADLINE_S,
    signals: Sequence[tuple[float, int]] = (),
    env: dict[str, str] | None = None,
    stdin: str | None = None,
) -> Ended:
    """Run ``tapesched args`` in a capped child and wait for it, at most ``deadline_s``.

    ``signals`` are ``(seconds after the start, signal number)`` pairs sent
    to the child in turn. The child runs in its own session, so that a kill
    at the deadline takes whatever it started too.
    """
    command = [sys.executable, "-c", "from tapesched.cli import main; main()", *args]
    child_env = {**os.environ, **(env or {})}
    child_env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT), child_env.get("PYTHONPATH", "")) if p
    )
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        process = subprocess.Popen(
            command,
            cwd=cwd,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            env=child_env,
            preexec_fn=_limit_memory,
        )
        if stdin is not None:
            assert process.stdin is not None
            process.stdin.write(stdin.encode())
            process.stdin.close()
        killed = threading.Event()

        def kill_at_deadline() -> None:
            killed.set()
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

        def send(signum: int) -> None:
            try:
                os.kill(process.pid, signum)
            except ProcessLookupError:
                pass

        timers = [threading.Timer(deadline_s, kill_at_deadline)]
        timers += [threading.Timer(at_s, send, (signum,)) for at_s, signum in signals]
        for timer in timers:
            timer.daemon = True
            timer.start()
        try:
            _, status, usage = os.wait4(process.pid, 0)
        finally:
            for timer in timers:
                timer.cancel()
            process.returncode = os.waitstatus_to_exitcode(status)
        wall_s = time.monotonic() - start
        out.seek(0)
        err.seek(0)
        return Ended(
            code=process.returncode,
            stdout=out.read().decode("utf-8", "replace"),
            stderr=err.read().decode("utf-8", "replace"),
            wall_s=wall_s,
            peak_rss_mb=usage.ru_maxrss / 1024,
            killed_at_deadline=killed.is_set(),
        )
