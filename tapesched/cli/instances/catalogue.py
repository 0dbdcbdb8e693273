"""``tapesched catalogue``: the drives, libraries and tape formats of the technology table.

:func:`toolkit.hardware.catalogue.catalogue_document` builds the document; this command
prints it as two tables (drives, libraries), each figure whose source is an estimate
marked ``*``, or with ``--json`` whole, sources and tape formats included.
"""

from __future__ import annotations

import json
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from tapesched.toolkit.hardware.catalogue import catalogue_document

DRIVE_COLUMNS = (
    ("rate MB/s", "rate_mb_s", 1.0),
    ("capacity TB", "capacity_mb", 1e-6),
    ("load s", "load_s", 1.0),
    ("unload s", "unload_s", 1.0),
    ("half-tape locate s", "half_tape_locate_s", 1.0),
)
"""Each drive column: its heading, the row's figure and the factor it is shown at."""

LIBRARY_COLUMNS = (
    ("arms", "arms", 1.0),
    ("mount s", "mount_s", 1.0),
    ("dismount s", "dismount_s", 1.0),
    ("pass-through s", "pass_through_s", 1.0),
)
"""Each library column, as :data:`DRIVE_COLUMNS`."""


def _cell(row: dict[str, Any], figure: str, factor: float) -> str:
    """A figure as shown: ``-`` where the table gives none, ``*`` after an estimate."""
    value = row[figure]
    if value is None:
        return "-"
    return f"{value * factor:g}" + ("*" if figure in row["estimates"] else "")


def _table(title: str, rows: list[dict[str, Any]], columns: tuple, last: str | None) -> Table:
    table = Table(title=title)
    table.add_column("name")
    table.add_column("label")
    for heading, _, _ in columns:
        table.add_column(heading, justify="right")
    if last is not None:
        table.add_column(last.replace("_", " "))
    for row in rows:
        cells = [_cell(row, figure, factor) for _, figure, factor in columns]
        table.add_row(row["name"], row["label"], *cells, *([row[last]] if last else []))
    return table


@click.command(short_help="List the drives and libraries of the technology table.")
@click.option("--json", "as_json", is_flag=True, help="Print the catalogue as JSON.")
def catalogue(as_json: bool) -> None:
    """List the tape drives and robot libraries a plan or a scenario may name.

    A table of drives (native rate, capacity, load, unload, locate over half
    the tape) and one of libraries (standard arms, mount and dismount move
    times, pass-through, default drive); a figure marked * is an estimate,
    not a published figure.

    ``--json`` prints ``{"drives": [...], "libraries": [...], "tape_formats":
    [...]}``: each row as ``name``, ``label``, its figures, ``sources``
    (figure to where it comes from) and ``estimates`` (the figures whose
    source is an estimate); a library also ``default_drive``, and ``null``
    for a figure the table does not give.
    """
    document = catalogue_document()
    if as_json:
        click.echo(json.dumps(document, indent=1))
        return
    console = Console(width=160)
    console.print(_table("Drives", document["drives"], DRIVE_COLUMNS, None))
    libraries = document["libraries"]
    console.print(_table("Libraries", libraries, LIBRARY_COLUMNS, "default_drive"))
    click.echo("* an estimate; tapesched catalogue --json gives every figure's source.")
