"""``tapesched instance``: a site and its request log as a core-problem instance
(:mod:`simulator.site.runs`)."""

from __future__ import annotations

import click

from tapesched.cli.common import columns_option, describe, fail, reports_bad_input, setting_lines
from tapesched.cli.out_options import file_out_option
from tapesched.toolkit.errors import SettingsError
from tapesched.toolkit.files.instance_file import instance_to_dict
from tapesched.toolkit.files.json_documents import dumps
from tapesched.toolkit.files.outputs import FileOutput
from tapesched.toolkit.model import OBJECTIVES


@click.command(short_help="Make an instance of a site's request log.")
@click.argument("site_file", type=click.Path())
@click.argument("log_file", type=click.Path())
@columns_option
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=None,
    help="Only the first K requests of the log.",
)
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Seed of the offsets of requests that give none.",
)
@click.option(
    "--objective",
    type=click.Choice(OBJECTIVES),
    default="weighted-flow",
    show_default=True,
    help="The instance's objective.",
)
@file_out_option(
    "Instance file to write (standard output when left out or -).", stdout_when_left_out=True
)
@reports_bad_input
def instance(
    site_file: str,
    log_file: str,
    columns: dict[str, str],
    limit: int | None,
    seed: int,
    objective: str,
    out: FileOutput,
) -> None:
    """Make a core-problem instance of a site (JSON) and its request log (CSV, .gz, .bz2,
    .zst too): the site's libraries and drives, the tapes the log reads, a request per row.

    \b
    A tape lives in its pool's home library, else where the site's seeded hash puts it;
    a cartridge no pool lists has the site's placement.unlisted_format and a hashed
    home too. A row's offset is its offset_mb, else its block times the format's block
    size, else drawn (--seed) within the written share of the tape (the pool's fill);
    its size is its size_mb or size_bytes, else what the drive streams in its
    duration_s. The core problem has no pass-through: a tape whose library has no
    drive is refused. Solve, verify and measure the instance as any other.
    """
    from tapesched.simulator.site.runs import read_site_log, site_log_instance

    try:
        site_log = read_site_log(site_file, log_file, columns=columns, limit=limit, seed=seed)
        built = site_log_instance(site_log, objective=objective)
    except SettingsError as exc:
        fail(setting_lines(exc, {}, "instance"))
    out.write(dumps(instance_to_dict(built)))
    if not out.to_stdout:
        homes = site_log.homes_document()
        click.echo(f"wrote {out.given}: {describe(built)}")
        click.echo(
            f"homes: {homes['homed']:,d} from the site's pools, {homes['hashed']:,d} by seeded "
            f"hash (seed {homes['seed']}), of which {homes['unlisted']:,d} in no pool"
        )
