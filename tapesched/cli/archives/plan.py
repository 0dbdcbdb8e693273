"""``tapesched plan``: size an archive's disk caches and tape drives from its load (SDSC, 1998).

:func:`simulator.planning.load_plan.plan_file` does the work; the arithmetic is
:mod:`simulator.planning.sizing` (cache lifetime, drives busy and
needed, streaming share, per service class); ``--check`` simulates a
generated day of the load on the planned drives with each class's cache
(:mod:`simulator.planning.sizing_check`) and prints the simulated figures beside the
computed ones. ``--bytes-scale``, ``--file-scale`` and ``--cache-scale``
ask the paper's what-if questions (40 times the data, 40 times larger
files, half the cache).
"""

from __future__ import annotations

import json
from collections.abc import Callable

import click

from tapesched.cli.common import EXIT_INFEASIBLE, F, NumberType, fail, reports_bad_input
from tapesched.simulator.planning.load_plan import plan_file
from tapesched.simulator.planning.sizing_check import CheckResult
from tapesched.toolkit.errors import SettingsError


def _days(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} d"


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def scale_option(name: str, text: str) -> Callable[[F], F]:
    """A factor on every class's figures: above 0, at most a million, 1 by default."""
    kind = NumberType(min=0, min_open=True, max=1e6)
    return click.option(name, type=kind, default=1.0, show_default=True, help=text)


@click.command(short_help="Size the disk caches and drives of a load.")
@click.argument("load_file", type=click.Path())
@click.option(
    "--check",
    is_flag=True,
    help="Also simulate a generated day and print its figures; exit 1 with a warning when it "
    "leaves a queue of tape requests (more left at its end than its drives and 1 % of them) "
    "or its drives busy are more than 10 % from the plan's.",
)
@click.option(
    "--drives",
    type=click.IntRange(min=1, max=10_000),
    default=None,
    help="Drives of the simulated day (default: the plan's peak-day count).",
)
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the simulated day.")
@click.option(
    "--days",
    type=NumberType(min=0.01, max=30),
    default=1.0,
    show_default=True,
    help="Days simulated by --check (more for a load of few, large files).",
)
@scale_option(
    "--bytes-scale", "Multiply every class's daily bytes (the paper's 40 times the load)."
)
@scale_option(
    "--file-scale", "Multiply every class's file size (the paper's 40 times larger data sets)."
)
@scale_option(
    "--cache-scale",
    "Multiply every class's disk; the miss rate follows the disk per byte of load.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@reports_bad_input
def plan(
    load_file: str,
    check: bool,
    drives: int | None,
    seed: int,
    days: float,
    bytes_scale: float,
    file_scale: float,
    cache_scale: float,
    as_json: bool,
) -> None:
    """Print each service class's cache lifetime, drives needed and streaming share.

    LOAD_FILE is a load description (format tapesched.load/1: daily GB read
    and written per class, hit rate, disk, mean file size, the drive
    technology and robot times; instances/plan/sdsc-1998.json is the SDSC
    archive's). Per class: MB a day read from and written to tape, the
    cache lifetime on an average and on the peak day, the drives busy on an
    average day, the drives needed on average and at peak (the load's
    peak_factor), and the share of a busy drive's time spent streaming.
    """
    try:
        planned = plan_file(
            load_file,
            bytes_scale=bytes_scale,
            file_scale=file_scale,
            cache_scale=cache_scale,
            check=check,
            drives=drives,
            seed=seed,
            days=days,
        )
    except SettingsError as exc:
        hint = "lower --days or --bytes-scale, or raise --file-scale"
        fail([f"--check: {p.message}; {hint}" for p in exc.problems])
    if as_json:
        click.echo(json.dumps(planned.to_dict(), indent=2))
        _warn(planned.checked)
        return
    load, computed, checked = planned.load, planned.computed, planned.checked
    d = load.drive
    click.echo(
        f"{load.name}: {d.label} ({d.rate_mb_s:g} MB/s; a tape exchange {load.exchange_s:g} s, "
        f"a locate {load.locate_s:g} s), peak day {load.peak_factor:.2f} x the average"
    )
    if planned.scaled:
        click.echo(
            f"  scaled: bytes x{bytes_scale:g}, files x{file_scale:g}, cache x{cache_scale:g}"
        )
    header = (
        f"  {'class':<10} {'hit':>6} {'tape MB/d':>11} {'lifetime':>9} {'at peak':>8} "
        f"{'busy':>6} {'drives':>6} {'peak':>5} {'stream':>7}"
    )
    click.echo(header)
    for c, p in zip(load.classes, computed.classes, strict=True):
        click.echo(
            f"  {c.name:<10} {c.hit_rate:>6.1%} {p.tape_read_mb + p.tape_write_mb:>11,.0f} "
            f"{_days(p.lifetime_days):>9} {_days(p.min_lifetime_days):>8} "
            f"{p.drives_busy:>6.2f} {p.drives_average:>6} {p.drives_peak:>5} "
            f"{_share(p.streaming_share):>7}"
        )
    click.echo(
        f"  {'all':<10} {'':>6} {'':>11} {'':>9} {'':>8} {computed.drives_busy:>6.2f} "
        f"{computed.drives_average:>6} {computed.drives_peak:>5} "
        f"{_share(computed.streaming_share):>7}"
    )
    eff = computed.effective_mb_s
    click.echo(
        f"  a busy drive moves {eff or 0:.2f} MB/s of its {d.rate_mb_s:g}; every class at its "
        f"peak at once, with drives of its own: {computed.drives_every_class_at_peak} drives"
    )
    for c, p in zip(load.classes, computed.classes, strict=True):
        need = p.cache_for_target_mb
        if need is not None and p.target_days is not None:
            have = "no disk given" if c.cache_mb is None else f"{c.cache_mb / 1000:,.0f} GB given"
            click.echo(
                f"  {c.name}: a lifetime of {p.target_days:g} d needs {need / 1000:,.0f} GB "
                f"of disk ({have})"
            )
    if checked is None:
        return
    click.echo(
        f"check: {days:g} simulated day{'s' if days != 1 else ''} on {checked.drives} "
        f"drive{'s' if checked.drives != 1 else ''} (seed {seed}): "
        f"{checked.tape_requests:,} tape requests ({checked.done:,} done), "
        f"{checked.served_from_disk:,} reads from disk, {checked.mounts:,} mounts"
    )
    click.echo(
        f"  drives busy  computed {computed.drives_busy:.2f}  simulated "
        f"{checked.drives_busy:.2f}  ({checked.relative_gap:+.1%})"
    )
    click.echo(
        f"  streaming    computed {_share(computed.streaming_share)}  simulated "
        f"{_share(checked.streaming_share)}"
    )
    for c, p, r in zip(load.classes, computed.classes, checked.classes, strict=True):
        residency = (
            "none evicted"
            if r.mean_residency_s is None
            else f"{r.mean_residency_s / 86400:.1f} d ({r.evictions} evicted)"
        )
        fill = None if r.fill_lifetime_s is None else r.fill_lifetime_s / 86400
        rate = _share(r.hit_rate)
        click.echo(
            f"  {c.name:<10} hit rate computed {c.hit_rate:.1%} simulated {rate}; lifetime "
            f"computed {_days(p.lifetime_days)}, "
            f"simulated fill {_days(fill)}, residency {residency}"
        )
    _warn(checked)


def _warn(checked: CheckResult | None) -> None:
    """A warning line on standard error for each reason the check disagrees, then exit 1."""
    if checked is None or not checked.warnings:
        return
    for warning in checked.warnings:
        click.echo(f"warning: {warning}", err=True)
    raise SystemExit(EXIT_INFEASIBLE)
