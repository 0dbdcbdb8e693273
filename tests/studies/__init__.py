"""Helpers shared by the studies' tests."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from tapesched.cli import main


def assert_redraws_its_own_figure(out: Path, scratch: Path) -> None:
    """``plot results`` draws the experiment's own figure of ``out`` again from its
    ``results.csv``, byte for byte."""
    again = scratch / "again.png"
    redrawn = CliRunner().invoke(
        main, ["plot", "results", str(out / "results.csv"), "--out", str(again)]
    )
    assert redrawn.exit_code == 0, redrawn.output
    assert "own figure" in redrawn.stdout
    assert again.read_bytes() == (out / "figure.png").read_bytes()
