"""The ECMWF sample's complex as a site file (``instances/sites/ecmwf.json``).

:func:`site_of_layout` turns a layout snapshot (:func:`~simulator.replay.trace.read_layout`)
and its cartridge map (:func:`~simulator.replay.trace.read_homes`) into a site: a library
per level (``level0``, ``level1``, ...: model SL8500, its level number, slots, its robots as
arms, its drives by id as T10000Ds), the complex of the technology table's SL8500 row, and a
pool per level listing the cartridges the map homes there. The shipped file is made by

    python -m tapesched.simulator.replay.ecmwf_site

which reads ``instances/traces/ecmwf/`` and writes ``instances/sites/ecmwf.json``;
``tests/simulator/site/test_layout.py`` holds the file to the snapshot and the map.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tapesched.simulator.replay.trace import LibraryLayout, read_homes, read_layout
from tapesched.toolkit.hardware.technology import LIBRARIES, required
from tapesched.toolkit.model import SITE_FORMAT
from tapesched.toolkit.site.model import Site
from tapesched.toolkit.site.reader import site_from_dict, write_site

LIBRARY_MODEL = "SL8500"
DRIVE_MODEL = "T10000D"
"""ECMWF's libraries and drives (T10000C/D; the table's T10000D row)."""

SNAPSHOT = "sl8500_from_snap20111001.json.bz2"
HOMES = "crtmapping.json"


def level_name(level: int) -> str:
    """The library id of a level: ``level0``, ``level1``, ..."""
    return f"level{level}"


def site_of_layout(layout: LibraryLayout, homes: Mapping[str, int], name: str) -> Site:
    """The site of a layout snapshot and its cartridge map (see the module's docstring)."""
    sl8500 = LIBRARIES[LIBRARY_MODEL]
    by_level: dict[int, list[str]] = {}
    for cartridge, level in homes.items():
        by_level.setdefault(level, []).append(cartridge)
    libraries = [
        {
            "id": level_name(lv.id),
            "model": LIBRARY_MODEL,
            "arms": lv.robots,
            "slots": lv.slots,
            "level": lv.id,
            "drives": [{"model": DRIVE_MODEL, "ids": list(lv.drives)}] if lv.drives else [],
        }
        for lv in layout.levels
    ]
    pools = [
        {
            "name": level_name(lv.id),
            "format": DRIVE_MODEL,
            "ids": sorted(by_level[lv.id]),
            "home": level_name(lv.id),
        }
        for lv in layout.levels
        if lv.id in by_level
    ]
    document: dict[str, Any] = {
        "format": SITE_FORMAT,
        "name": name,
        "libraries": libraries,
        "complex": {
            "rails_per_library": required(sl8500.rails_per_library, "SL8500 rails"),
            "elevator_s": required(sl8500.elevator_s, "SL8500 elevator_s"),
            "pass_through_s": required(sl8500.pass_through_s, "SL8500 pass_through_s"),
            "float_on_dismount": True,
        },
        "pools": pools,
    }
    return site_from_dict(document, "<ecmwf site>")


def ecmwf_site(traces: Path) -> Site:
    """The site of the snapshot and map in the folder ``traces`` (the ECMWF sample's)."""
    layout = read_layout(traces / SNAPSHOT)
    return site_of_layout(layout, read_homes(traces / HOMES, layout), "ecmwf-2011-10-01")


def main(argv: list[str]) -> None:
    """Write the ECMWF site: ``[TRACES_DIR [OUT]]``, by default the shipped folder and
    ``instances/sites/ecmwf.json`` beside it."""
    from tapesched.instances import shipped

    traces = Path(argv[0]) if argv else shipped("traces", "ecmwf")
    out = Path(argv[1]) if len(argv) > 1 else shipped("sites", "ecmwf.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    write_site(ecmwf_site(traces), out)
    print(f"wrote {out}")


if __name__ == "__main__":
    main(sys.argv[1:])
