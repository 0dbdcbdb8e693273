"""``tapesched site``: site files (``tapesched.site/1``, :mod:`toolkit.site`).

``site new`` writes the site of one library from a few figures
(:func:`toolkit.site.new.new_site`); ``tapesched check SITE`` reads one back and says what
it holds.
"""

from __future__ import annotations

from typing import Any

import click

from tapesched.cli.common import fail, reports_bad_input, setting_lines
from tapesched.cli.out_options import file_out_option
from tapesched.toolkit.errors import SettingsError, shown
from tapesched.toolkit.files.json_documents import dumps
from tapesched.toolkit.files.outputs import FileOutput
from tapesched.toolkit.site.new import SPARE_SLOTS, new_site
from tapesched.toolkit.site.reader import site_to_dict
from tapesched.toolkit.site.summary import describe_site

_OPTIONS = {
    "library": "--library",
    "drives": "--drives",
    "tapes": "--tapes",
    "arms": "--arms",
    "slots": "--slots",
}
"""The option behind each setting of :func:`toolkit.site.new.new_site`."""


class ModelCount(click.ParamType):
    """``MODEL:COUNT``, a name and an integer >= 1 (the name is judged by the library call)."""

    name = "MODEL:COUNT"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, tuple):
            return value
        model, sep, count = str(value).rpartition(":")
        if not sep or not model or not count.isascii() or not count.isdigit() or int(count) < 1:
            self.fail(f"{shown(value)} is not MODEL:COUNT with a count >= 1", param, ctx)
        return model, int(count)


@click.group(short_help="Write a site file (libraries, drives, cartridges).")
def site() -> None:
    """Site files (tapesched.site/1): a site's libraries, drives and cartridges, described
    once. `site new` writes one; `tapesched check SITE` says what one holds."""


@site.command(short_help="Write the site of one library.")
@click.option(
    "--library",
    required=True,
    metavar="MODEL",
    help="Library model of the technology table (its arms and arm times).",
)
@click.option(
    "--drives",
    type=ModelCount(),
    multiple=True,
    required=True,
    help="Drives MODEL:COUNT of the technology table, e.g. LTO-9:16 (repeatable).",
)
@click.option(
    "--tapes",
    type=ModelCount(),
    multiple=True,
    required=True,
    help="Tapes FORMAT:COUNT, a pool per format, ids by a pattern from the format "
    "(LTO-9:3000 gives L90000 to L92999; repeatable).",
)
@click.option(
    "--arms",
    type=click.IntRange(min=1),
    default=None,
    help="Arms of the library (default: the model's, one when the table gives none).",
)
@click.option(
    "--slots",
    type=click.IntRange(min=0),
    default=None,
    help=f"Storage slots (default: {SPARE_SLOTS:.0%} more than the tapes, rounded up).",
)
@click.option("--name", default="site", show_default=True, help="The site's name.")
@file_out_option(
    "Site file to write (standard output when left out or -).", stdout_when_left_out=True
)
@reports_bad_input
def new(
    library: str,
    drives: tuple[tuple[str, int], ...],
    tapes: tuple[tuple[str, int], ...],
    arms: int | None,
    slots: int | None,
    name: str,
    out: FileOutput,
) -> None:
    """Write the site file of one library (id lib0): its drives (ids lib0-d00, ...), a
    pool of tapes per format, each tape's home placed by a seeded hash; every figure not
    given is the technology table's. Then say what it holds, as `tapesched check` does."""
    try:
        built = new_site(library, drives, tapes, arms=arms, slots=slots, name=name)
    except SettingsError as exc:
        fail(setting_lines(exc, _OPTIONS, "tapesched site new"))
    out.write(dumps(site_to_dict(built)))
    if not out.to_stdout:
        click.echo(f"wrote {out.given}: {describe_site(built)}")
