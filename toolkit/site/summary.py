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
    cartridges, pools (and their formats), slots, whether it is a complex, its movers (and
    the drives each serves) and its disk cache's classes and disk."""
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
        "movers": site.mover_count,
        "drives_per_mover": None if site.movers is None else site.movers.drives_per_mover,
        "cache_classes": [c.name for c in site.disk_cache],
        "cache_mb": sum(c.cache_mb for c in site.disk_cache),
    }


def describe_site(site: Site) -> str:
    """One line saying what a site holds: ``site 'x': 1 library (2 arms), 16 drives (LTO-9
    16), 3,000 cartridges in 1 pool (LTO-9), 3,750 slots``, and when the site has them
    ``, 4 movers (4 drives each), a disk cache of 2 classes (25,000,000 MB)``."""
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
        f"{_plural(site.slots, 'slot', 'slots')}" + _servers(site)
    )


def _servers(site: Site) -> str:
    """The movers and disk cache of :func:`describe_site`'s line (nothing when none)."""
    out = ""
    if site.movers is not None:
        each = _plural(site.movers.drives_per_mover, "drive", "drives")
        out += f", {_plural(site.mover_count, 'mover', 'movers')} ({each} each)"
    if site.disk_cache:
        cache_mb = sum(c.cache_mb for c in site.disk_cache)
        classes = _plural(len(site.disk_cache), "class", "classes")
        out += f", a disk cache of {classes} ({cache_mb:,.0f} MB)"
    return out
