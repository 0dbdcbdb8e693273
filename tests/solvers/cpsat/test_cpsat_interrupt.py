"""Ctrl-C stops a CP-SAT search at once with ``KeyboardInterrupt``, and stays Python's.

CP-SAT's own SIGINT handler would end the search as if its time were up (the
caller could not tell) and leave SIGINT at its default action, so that the
next Ctrl-C killed Python with no clean-up. The check needs a real signal,
so it runs in a subprocess.
"""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import os, signal, threading, time
from ortools.sat.python import cp_model
from tapesched import solvers
from tapesched.toolkit.generators import RandomParams, random_instance

instance = random_instance(
    RandomParams(n_requests=16, drives_per_library=(3, 3), arms=(1, 1), max_gang=2), 1
)
real_solve = cp_model.CpSolver.solve
sent = []

def solve_then_interrupt(self, model, *args, **kwargs):
    def interrupt():
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)
    threading.Timer(1.0, interrupt).start()
    return real_solve(self, model, *args, **kwargs)

cp_model.CpSolver.solve = solve_then_interrupt
try:
    solvers.solve(instance, solver="cpsat", time_limit_s=60, workers=1)
    print("finished without an interrupt")
except KeyboardInterrupt:
    print(f"interrupted after {time.monotonic() - sent[0]:.1f} s")
try:
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(1)
    print("the second Ctrl-C was lost")
except KeyboardInterrupt:
    print("the second Ctrl-C raised too")
"""


def test_ctrl_c_stops_the_search_with_keyboard_interrupt_and_python_keeps_sigint():
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()
    assert first.startswith("interrupted after ")
    assert float(first.split()[2]) < 10  # not the 60 s time limit
    assert second == "the second Ctrl-C raised too"
