"""``tapesched experiment durability``: files lost against tape losses, time lost to handling.

For each policy (RAIT, PARALLEL, VERTICAL) and scheme (4+1, 4+2, 8+2), an
archive written at time zero loses each tape independently with
probability ``q``; the shares of files lost, of groups lost and of files
read by a rebuild are drawn against ``q`` beside the binomial closed form
(:mod:`tapesched.studies.durability_study`, :mod:`simulator.planning.durability`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import click
from attrs import evolve
from rich.console import Console
from rich.table import Table

from tapesched.cli.common import NumberType, progress_bar, reports_bad_input
from tapesched.cli.out_options import dir_out_option
from tapesched.toolkit.files.outputs import DirectoryOutput
from tapesched.toolkit.runtime.limits import MAX_DRAWS

if TYPE_CHECKING:
    from tapesched.studies.durability_study import Panel, Value

NAME = "durability"
"""The experiment's name under ``tapesched experiment``."""

OUT_FILES = ("results.csv", "summary.json", "figure.png")

PANELS = ("tape-loss", "handling")
"""The sweeps ``--panel`` may pick."""
"""What the experiment writes to ``--out``; an existing directory holding only these is replaced."""


def _cell(value: Value) -> str:
    """A share and its half-width; ``0`` alone when every draw gave 0; ``-`` when nothing was
    measured."""
    if value.mean is None:
        return "-"
    if value.half_width is None or value.mean == value.half_width == 0:
        return f"{value.mean:.3g}"
    return f"{value.mean:.3g} ± {value.half_width:.2g}"


def _print_tape_loss_table(panel: Panel, policies: Sequence[str], years: float) -> None:
    """A row per scheme and ``q``: the groups lost beside the closed form, each policy's files.

    The groups of the three policies' archives are pooled (every group of
    every draw is an independent trial at that ``q``); files are per policy.
    """
    from tapesched.simulator.planning.durability import group_loss_probability, tape_loss_rate
    from tapesched.simulator.storage.files import Scheme
    from tapesched.studies.durability_study import Value, pooled_groups, series_name

    table = Table(
        title=f"{NAME}: share of groups lost (pooled over the policies, exact binomial interval) "
        "and of each policy's files lost and rebuilt (t over the draws); mean ± 95 % half-width"
    )
    table.add_column("scheme")
    table.add_column("q", justify="right", no_wrap=True)
    table.add_column(f"λ/tape-yr ({years:g} y)", justify="right", no_wrap=True)
    table.add_column("closed form", justify="right", no_wrap=True)
    table.add_column("groups lost", justify="right", no_wrap=True)
    for policy in policies:
        table.add_column(f"{policy} lost", justify="right", no_wrap=True)
        table.add_column(f"{policy} rebuilt", justify="right", no_wrap=True)
    by_key = {(p.series, p.x): p for p in panel.points}
    schemes = list(dict.fromkeys(p.series.split(" ", 1)[1] for p in panel.points))
    xs = sorted({p.x for p in panel.points})
    for name in schemes:
        scheme = Scheme(*(int(part) for part in name.split("+")))
        for q in xs:
            points = [by_key[(series_name(policy, scheme), q)] for policy in policies]
            pooled = pooled_groups(points)
            cells = [
                name,
                f"{q:g}",
                f"{tape_loss_rate(q, years):.3g}",
                f"{group_loss_probability(scheme, q):.3g}",
                _cell(Value(pooled.share, pooled.half_width)),
            ]
            for point in points:
                cells.append(_cell(point.values["files_lost_share"]))
                cells.append(_cell(point.values["files_rebuilt_share"]))
            table.add_row(*cells)
    Console(width=220).print(table)


def _print_handling_table(panel: Panel) -> None:
    """A row per policy and ``p``: response times, mounts per request, requests failed."""
    table = Table(
        title=f"{NAME}: the Blue Waters workload at 65/h with mounts and dismounts failing "
        "with probability p (3 tries, 60 s apart); mean ± 95 % half-width (t)"
    )
    for column in ("policy", "p", "response s", "weighted s/GB", "mounts/request", "failed"):
        table.add_column(column, justify="left" if column == "policy" else "right", no_wrap=True)
    for p in panel.points:
        table.add_row(
            p.series,
            f"{p.x:g}",
            *(_cell(p.values[m]) for m in (*panel.metrics, "failed_share")),
        )
    Console(width=160).print(table)


@click.command(name=f"experiment {NAME}")
@dir_out_option(OUT_FILES, "Directory to write (results.csv, summary.json, figure.png).")
@click.option(
    "--quick",
    is_flag=True,
    help="6 values of q, 2,000 files per policy and scheme, 100 draws; 3 values of p, "
    "a day, 2 runs each: under a minute.",
)
@click.option(
    "--files",
    type=click.IntRange(min=1, max=1_000_000),
    default=None,
    help="Files written per policy and scheme (default 8,000, --quick 2,000).",
)
@click.option(
    "--replications",
    type=click.IntRange(min=2, max=1_000_000),
    default=None,
    help="Independent draws of every tape at each q (default 1,000, --quick 100).",
)
@click.option(
    "--horizon-years",
    type=NumberType(min=0, min_open=True),
    default=5.0,
    show_default=True,
    help="The horizon over which q is a tape's loss: the figure's top axis gives the rate "
    "-ln(1-q)/years per tape-year.",
)
@click.option("--seed", type=int, default=1, show_default=True, help="The experiment's seed.")
@click.option(
    "--panel",
    "only",
    type=click.Choice(PANELS),
    default=None,
    help="Run one sweep only: the tape losses (seconds) or the handling failures (the "
    "simulator's runs: minutes). Default: both.",
)
@reports_bad_input
def durability(
    out: DirectoryOutput | None,
    quick: bool,
    files: int | None,
    replications: int | None,
    horizon_years: float,
    seed: int,
    only: str | None,
) -> None:
    """Files and groups lost against the tape-loss probability q, per policy and scheme.

    Each of RAIT, PARALLEL and VERTICAL writes the same files (10 MB to 1 GB,
    log-uniform, uncompressed) on 10 GB tapes in 4+1, 4+2 and 8+2; every
    tape is then lost independently with probability q (1e-3 to 0.2, log
    scale), and the shares of files lost, of groups (X+Y tapes) lost and of
    files read by a rebuild are estimated over independent draws, beside
    the closed form (a group is lost when more than Y of its tapes are).
    Writes to --out results.csv (experiment, series, x_name, x, metric,
    mean, half_width, replications, saturated; x is q), summary.json and
    figure.png. A second sweep runs the Blue Waters workload at 65/h on the
    simulator with mounts and dismounts failing with probability p (0 to
    0.1; x is handling_failure): each policy's response time, mounts per
    request and requests failed.
    """
    from tapesched.cli.common import fail
    from tapesched.studies.durability_study import (
        FULL,
        FULL_HANDLING,
        QUICK,
        QUICK_HANDLING,
        TAPE_LOSS_X,
        draw_figure,
        handling_panel,
        results_csv,
        summary_document,
        tape_loss_panel,
    )
    from tapesched.toolkit.files.json_documents import dumps, write_atomic

    if out is None:
        fail(["--out: required, and missing"])
    base = QUICK if quick else FULL
    config = evolve(
        base,
        files=files or base.files,
        replications=replications or base.replications,
        horizon_years=horizon_years,
    )
    draws = config.files * config.replications
    if only != "handling" and draws > MAX_DRAWS:
        fail([f"--files and --replications: {config.files:,d} files drawn {config.replications:,d} "
              f"times is {draws:,d} file draws at each q, more than the {MAX_DRAWS:,d} a tape-loss "
              "sweep may make; lower either"])  # fmt: skip
    click.echo(
        f"{NAME}: {config.files:,d} files per policy and scheme on "
        f"{config.tape_capacity_mb:g} MB tapes; {len(config.q_values)} values of q, "
        f"{config.replications} draws each"
    )
    began = time.perf_counter()
    handling = QUICK_HANDLING if quick else FULL_HANDLING
    wanted = PANELS if only is None else (only,)
    panels: list[Panel] = []
    with progress_bar() as progress:
        steps = 2 * len(config.policies) * len(config.schemes) if "tape-loss" in wanted else 0
        if "handling" in wanted:
            steps += len(handling.policies) * len(handling.p_values)
        task = progress.add_task(NAME, total=steps)

        def advance(what: str) -> None:
            progress.update(task, advance=1, current=what)

        if "tape-loss" in wanted:
            panels.append(tape_loss_panel(config, seed, advance))
        if "handling" in wanted:
            panels.append(handling_panel(handling, seed, advance))
    elapsed = time.perf_counter() - began
    for panel in panels:
        if panel.x_name == TAPE_LOSS_X:
            _print_tape_loss_table(panel, config.policies, config.horizon_years)
        else:
            _print_handling_table(panel)
    settings: dict[str, object] = {
        "quick": quick,
        "seed": seed,
        "elapsed_s": elapsed,
        "panels": list(wanted),
    }
    with out.building() as staging:
        write_atomic(staging / "results.csv", results_csv(panels))
        write_atomic(staging / "summary.json", dumps(summary_document(panels, settings)))
        draw_figure(panels, staging / "figure.png")
    click.echo(f"ran in {elapsed:.1f} s; wrote {out.given}")
