"""A site and its request log as an instance of the core problem (``tapesched instance``).

The instance (docs/core-problem.md) holds the site's libraries (arms, mount and
dismount times) and drives (rate, load, unload, locate speed), the tapes the log asks
for and no other, each in its home library (:func:`simulator.site.layout.site_homes`:
its pool's home, else the site's seeded hash, the cartridges no pool lists included),
and a request per row of the log, in the log's order (``r0``, ``r1``, ...): released at
the row's time, one piece where :func:`simulator.site.reads.site_reads` puts it, with the
row's weight and kind.

The core problem has no pass-through: a tape is read by the drives of its own library.
A tape whose home library has no drive therefore cannot be read, and is refused with
the library named. Any drive of a library reads any of its tapes (the core problem
knows no media generations).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tapesched.simulator.site.reads import SiteRead
from tapesched.toolkit.model import Drive, Instance, Library, Piece, Request, Tape
from tapesched.toolkit.site.model import Site


def site_instance(
    site: Site,
    reads: Sequence[SiteRead],
    homes: Mapping[str, int],
    *,
    name: str,
    objective: str = "weighted-flow",
) -> Instance:
    """The core-problem instance of ``reads`` on ``site`` (see the module docstring).

    ``homes`` gives each cartridge's home level (:attr:`simulator.site.layout.SiteHomes.levels`).

    Raises
    ------
    ValueError
        When a tape's home library has no drive, or there is no read.
    """
    if not reads:
        raise ValueError("no request to make an instance of")
    library_of = {lib.level: lib for lib in site.libraries}
    capacity: dict[str, float] = {}
    for read in reads:
        capacity.setdefault(read.cartridge, read.capacity_mb)
    tapes = []
    for cartridge in capacity:
        library = library_of[homes[cartridge]]
        if not library.drives:
            raise ValueError(
                f"cartridge {cartridge} lives in library {library.id}, which has no drive, "
                "and the core problem reads a tape in its own library only (no pass-through)"
            )
        tapes.append(Tape(cartridge, library.id, capacity[cartridge]))
    return Instance(
        name=name,
        libraries=tuple(
            Library(lib.id, lib.arms, lib.mount_s, lib.dismount_s)
            for lib in site.libraries
            if lib.drives
        ),
        drives=tuple(
            Drive(d.id, d.library, d.rate_mb_s, d.load_s, d.unload_s, d.locate_mb_s)
            for d in site.drives
        ),
        tapes=tuple(tapes),
        requests=tuple(
            Request(
                f"r{k}",
                read.time_s,
                read.weight,
                read.kind,
                (Piece(read.cartridge, read.offset_mb, read.size_mb),),
            )
            for k, read in enumerate(reads)
        ),
        objective=objective,
    )
