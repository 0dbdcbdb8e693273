"""Progress off a terminal: a line at most every 10 s, saying how far, how long so far and
about how long is left."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from tapesched.cli import main, progress
from tapesched.cli.progress import ProgressLines, duration
from tests.cli import every_command
from tests.conftest import INSTANCES


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(
    ("seconds", "text"), [(0.4, "0 s"), (12, "12 s"), (210, "3 min 30 s"), (3900, "1 h 05 min")]
)
def test_a_duration_reads_as_a_person_says_it(seconds, text):
    assert duration(seconds) == text


def test_a_line_at_most_every_10_s():
    clock, lines = Clock(), []
    bar = ProgressLines(lines.append, clock=clock)
    with bar:
        task = bar.add_task("bw-fig5", total=4, current="")
        for at, done in [(3, 1), (11, 1), (12, 2), (25, 3), (26, 4)]:
            clock.now = 100.0 + at
            bar.update(task, completed=done, current=f"rate {done}")
    assert lines == [
        "bw-fig5: 1 of 4 done (25 %), 11 s elapsed, about 33 s left; rate 1",
        "bw-fig5: 3 of 4 done (75 %), 25 s elapsed, about 8 s left; rate 3",
    ]


def test_simulated_seconds_are_a_share_and_steps_may_advance():
    clock, lines = Clock(), []
    bar = ProgressLines(lines.append, every_s=0, clock=clock)
    task = bar.add_task("simulating", total=172800.0, current="")
    clock.now += 30
    bar.update(task, completed=43200.5, current="replication 1, day 0.5")
    other = bar.add_task("solving", total=3, current="")
    bar.update(other, advance=1, current="wspt on a.json")
    assert lines == [
        "simulating: 25 % done, 30 s elapsed, about 1 min 30 s left; replication 1, day 0.5",
        "solving: 1 of 3 done (33 %), 0 s elapsed, about 0 s left; wspt on a.json",
    ]


def test_compare_off_a_terminal_writes_a_line_as_each_run_finishes():
    spec = str(INSTANCES / "spec-example.json")
    result = CliRunner().invoke(main, ["compare", spec, "--solvers", "greedy,wspt"])
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 2 and lines[-1].startswith("solving: 2 of 2 done (100 %)")
    assert "greedy on " in lines[0] and "wspt on " in lines[-1]
    quiet = CliRunner().invoke(main, ["compare", spec, "--solvers", "greedy,wspt", "--quiet"])
    assert quiet.exit_code == 0 and quiet.stderr == ""
    assert len(quiet.stdout.splitlines()) == len(result.stdout.splitlines())


def test_quiet_silences_the_progress_of_a_simulation(monkeypatch):
    monkeypatch.setattr(progress, "EVERY_S", 0.0)
    monkeypatch.setattr(
        ProgressLines.__init__, "__defaults__", (None, None, progress.time.monotonic)
    )
    ampex = str(INSTANCES / "scenarios" / "ampex.json")
    args = ["simulate", ampex, "--duration", "1h", "--replications", "1", "--json"]
    loud = CliRunner().invoke(main, args)
    assert loud.exit_code == 0 and loud.stderr.startswith("simulating: ")
    quiet = CliRunner().invoke(main, [*args, "--quiet"])
    assert quiet.exit_code == 0 and quiet.stderr == ""


def test_every_command_that_shows_progress_takes_quiet():
    showing = {"compare", "simulate"} | {
        path for path, _ in every_command() if path.startswith("tapesched experiment ")
    }
    checked = [
        path
        for path, command in every_command()
        if path.removeprefix("tapesched ") in showing or path in showing
        if any("--quiet" in p.opts for p in command.params)
    ]
    assert len(checked) == len(showing) > 10
