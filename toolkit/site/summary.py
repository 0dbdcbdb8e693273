"""What a site holds, in one line and as a document (``tapesched check`` prints them)."""

from __future__ import annotations

from tapesched.toolkit.errors import shown
from tapesched.toolkit.site.model import Site

NAME_SHOWN = 80
"""Most characters of a site's name a summary quotes."""


def _counted(models: list[str]) -> dict[str, int]:
    """How many of each model, in order of first appearance."""
    out: dict[str, int] = {}
    for model in models:
        out[model] = out.get(model, 0) + 1
    return out


def _plural(count: int, one: str, many: str) -> str:
    return f"{count:,} {one if count == 1 else many}"


def site_summary(site: Site) -> dict[str, object]:
    """What a site holds: its name, counts of libraries, arms, drives (and by model),
    cartridges, pools (and their formats), slots, and whether it is a complex."""
    return {
        "name": site.name,
        "libraries": len(site.libraries),
        "arms": site.arms,
        "drives": len(site.drives),
        "drive_models": _counted([d.model for d in site.drives]),
        "cartridges": site.cartridge_count,
        "pools": len(site.pools),
        "formats": list(_counted([p.format for p in site.pools])),
        "slots": site.slots,
        "complex": site.complex is not None,
        "unlisted_format": site.placement.unlisted_format,
        "seed": site.placement.seed,
    }


def describe_site(site: Site) -> str:
    """One line saying what a site holds: ``site 'x': 1 library (2 arms), 16 drives (LTO-9
    16), 3,000 cartridges in 1 pool (LTO-9), 3,750 slots``."""
    models = ", ".join(f"{m} {n:,}" for m, n in _counted([d.model for d in site.drives]).items())
    formats = ", ".join(_counted([p.format for p in site.pools]))
    return (
        f"site {shown(site.name, NAME_SHOWN)}: "
        f"{_plural(len(site.libraries), 'library', 'libraries')} "
        f"({_plural(site.arms, 'arm', 'arms')}), "
        f"{_plural(len(site.drives), 'drive', 'drives')}"
        + (f" ({models})" if models else "")
        + ", "
        f"{_plural(site.cartridge_count, 'cartridge', 'cartridges')} in "
        f"{_plural(len(site.pools), 'pool', 'pools')}" + (f" ({formats})" if formats else "") + ", "
        f"{_plural(site.slots, 'slot', 'slots')}"
    )
