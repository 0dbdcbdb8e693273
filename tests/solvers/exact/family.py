"""The small instances on which every exact solver must prove the same optimum.

:func:`whole` rounds an instance so that every length is a whole number of
milliseconds (whole seconds, whole MB, rates dividing 1000, weights in
hundredths): CP-SAT's 1 ms ticks are then exact, its bound a true bound of
the instance, and the three backends and the enumerator solve one problem.
:func:`family` draws the issue's family: up to 6 requests, up to 3 drives, one
arm or more than the drives need (both arm regimes), gangs of up to 3 pieces,
drives holding tapes at time 0, releases spread over 100 s, against mounts
and loads of up to 20 s each, so that prefetching a tape before a release
pays. All three objectives.
"""

from __future__ import annotations

import math

import attrs
from hypothesis import strategies as st

from tapesched.toolkit.model import LOCATE_MODEL_NAMES, Instance, Locate
from tapesched.toolkit.strategies import instances

RATES = (1, 2, 4, 5, 8, 10, 20, 25, 40, 50, 100, 125, 200, 250, 500, 1000)
"""Rates whose every whole-MB transfer or locate is a whole number of milliseconds."""

FAMILY = {
    "n_requests": (1, 6),
    "n_libraries": (1, 1),
    "drives_per_library": (1, 3),
    "arms": (1, 3),
    "max_gang": (1, 3),
    "tapes_per_library": (1, 4),
}
"""Bounds of :func:`family` (``toolkit.strategies.instances`` keywords)."""


def _rate(value: float) -> int:
    return min(RATES, key=lambda r: abs(math.log(r) - math.log(value)))


def whole(instance: Instance) -> Instance:
    """``instance`` with whole seconds, MB and MB/s dividing 1000, weights in hundredths."""
    return attrs.evolve(
        instance,
        libraries=tuple(
            attrs.evolve(lib, mount_s=round(lib.mount_s), dismount_s=round(lib.dismount_s))
            for lib in instance.libraries
        ),
        drives=tuple(
            attrs.evolve(
                d,
                rate_mb_s=_rate(d.rate_mb_s),
                load_s=round(d.load_s),
                unload_s=round(d.unload_s),
                locate_mb_s=_rate(d.locate_mb_s),
            )
            for d in instance.drives
        ),
        tapes=tuple(attrs.evolve(t, capacity_mb=math.ceil(t.capacity_mb)) for t in instance.tapes),
        requests=tuple(
            attrs.evolve(
                r,
                release_s=round(r.release_s),
                weight=max(0.01, round(r.weight, 2)),
                pieces=tuple(
                    attrs.evolve(p, offset_mb=math.floor(p.offset_mb), size_mb=round(p.size_mb))
                    for p in r.pieces
                ),
            )
            for r in instance.requests
        ),
    )


def family(**bounds: tuple[int, int]) -> st.SearchStrategy[Instance]:
    """Instances of :data:`FAMILY` (``bounds`` override it), rounded by :func:`whole`."""
    return instances(**{**FAMILY, **bounds}).map(whole)


@st.composite
def serpentine_family(draw: st.DrawFn, **bounds: tuple[int, int]) -> Instance:
    """Instances of :func:`family` whose drives each locate by a drawn serpentine model.

    Half of them stretch the tapes and the offsets (not the sizes) 1,500
    times, to the terabytes of a real cartridge: there a linear floor of
    the head's travel (``|dx| / locate_mb_s``) exceeds what a locate across
    wraps takes, which no floor of a solver or a bound may assume. Locate
    times are then no whole number of milliseconds.
    """
    base = draw(family(**bounds))
    models = st.builds(
        Locate, st.sampled_from(LOCATE_MODEL_NAMES), st.sampled_from(["LTO-7", "TS1150"])
    )
    drives = tuple(attrs.evolve(d, locate=draw(models)) for d in base.drives)
    stretch = draw(st.sampled_from([1, 1500]))
    return attrs.evolve(
        base,
        drives=drives,
        tapes=tuple(attrs.evolve(t, capacity_mb=t.capacity_mb * stretch) for t in base.tapes),
        requests=tuple(
            attrs.evolve(
                r,
                pieces=tuple(attrs.evolve(p, offset_mb=p.offset_mb * stretch) for p in r.pieces),
            )
            for r in base.requests
        ),
    )
