"""What holds across the objects of a site file, each problem at its path.

Ids unique (libraries, drives across the site, pools, cartridges across pools), level
numbers unique, a ``complex`` for several libraries, patterns of one run of ``#`` wide
enough for their count, homes that are libraries, no library homing more tapes than its
slots, nor the pools more than all slots; the classes of a ``disk_cache`` named once each,
bounded in rising order but the last (:func:`toolkit.hardware.servers.class_bound_problems`).
Pools of patterns are compared by their patterns, not listed: a pool of a million tapes
costs a few comparisons.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tapesched.toolkit.errors import Problem, shown
from tapesched.toolkit.hardware.servers import class_bound_problems
from tapesched.toolkit.site.document import ID, SiteDocument, drive_ids, pool_of
from tapesched.toolkit.site.model import Pattern, SitePool


def _twice(values: list[tuple[str, Any]], what: str) -> Iterator[Problem]:
    """A problem at the path of each value given before (``(path, value)`` pairs)."""
    seen: dict[Any, str] = {}
    for path, value in values:
        if value in seen:
            yield Problem(path, f"{what} {shown(value)} also at {seen[value]}")
        else:
            seen[value] = path


def _library_problems(doc: SiteDocument) -> list[Problem]:
    problems = list(
        _twice(
            [(f"libraries[{i}].id", lib.id) for i, lib in enumerate(doc.libraries)], "library id"
        )
    )
    levels = [
        (f"libraries[{i}].level", i if lib.level is None else lib.level)
        for i, lib in enumerate(doc.libraries)
    ]
    problems += _twice(levels, "level")
    paths: list[tuple[str, str]] = []
    for i, lib in enumerate(doc.libraries):
        for g, (group, ids) in enumerate(
            zip(lib.drives, drive_ids(lib.id, lib.drives), strict=True)
        ):
            where = f"libraries[{i}].drives[{g}]"
            if group.ids is not None:
                paths += [(f"{where}.ids[{k}]", d) for k, d in enumerate(ids)]
            else:
                paths += [(f"{where}.count", d) for d in ids]
    problems += _twice(paths, "drive id")
    if len(doc.libraries) > 1 and doc.complex is None:
        problems.append(Problem("", "missing key 'complex' (required with several libraries)"))
    return problems


def _pool_problems(doc: SiteDocument) -> list[Problem]:
    names = [(f"pools[{i}].name", p.name) for i, p in enumerate(doc.pools)]
    problems = list(_twice(names, "pool name"))
    libraries = {lib.id: lib for lib in doc.libraries}
    homed = dict.fromkeys(libraries, 0)
    good: list[tuple[int, SitePool]] = []
    for i, entry in enumerate(doc.pools):
        where = f"pools[{i}]"
        if type(entry.ids) is str:
            try:
                pattern = Pattern.parse(entry.ids)
            except ValueError as exc:
                problems.append(Problem(f"{where}.ids", str(exc)))
                continue
            first, count = entry.first or 0, entry.count or 0
            if first + count > 10**pattern.width:
                problems.append(Problem(f"{where}.count", (
                    f"{count:,} cartridges from {first:,} do not fit the {pattern.width} "
                    f"digits of {shown(entry.ids)} (the last would be {first + count - 1:,})"
                )))  # fmt: skip
                continue
        else:
            bad = [(k, why) for k, c in enumerate(entry.ids) if (why := ID(c)) is not None]
            problems += [Problem(f"{where}.ids[{k}]", why) for k, why in bad]
            if bad:
                continue
        pool = pool_of(entry)
        good.append((i, pool))
        if pool.home is None:
            continue
        if pool.home in libraries:
            homed[pool.home] += pool.size
        else:
            known = ", ".join(libraries)
            problems.append(
                Problem(f"{where}.home", f"no library {shown(pool.home)} (libraries: {known})")
            )
    problems += _clashes(good)
    for index, lib in enumerate(doc.libraries):
        if homed[lib.id] > lib.slots:
            problems.append(Problem(f"libraries[{index}].slots", (
                f"{lib.slots:,} slots, but the pools home {homed[lib.id]:,} cartridges here"
            )))  # fmt: skip
    total, slots = sum(p.size for _, p in good), sum(lib.slots for lib in doc.libraries)
    if not problems and total > slots:
        why = f"{total:,} cartridges, more than the {slots:,} slots of all libraries"
        problems.append(Problem("pools", why))
    if not doc.pools and doc.placement.unlisted_format is None:
        why = "missing key 'unlisted_format' (required when no pool lists cartridges)"
        problems.append(Problem("placement", why))
    return problems


def _shared(a: SitePool, b: SitePool) -> list[str]:
    """Some of the cartridges two pools of patterns share (the first, and a count of all),
    found without listing either when their patterns are of one shape."""
    pa, pb = a.pattern, b.pattern
    assert pa is not None and pb is not None
    if len(str(pa)) != len(str(pb)):
        return []
    if (pa.prefix, pa.width, pa.suffix) == (pb.prefix, pb.width, pb.suffix):
        low, high = max(a.first, b.first), min(a.first + a.count, b.first + b.count)
        return [pa.id(n) for n in range(low, min(high, low + 2))] + [""] * max(high - low - 2, 0)
    small, large = (a, b) if a.size <= b.size else (b, a)
    return [c for c in small.cartridge_ids() if large.holds(c)]


def _clashes(pools: list[tuple[int, SitePool]]) -> list[Problem]:
    """A problem per pool listing cartridges an earlier pool (or itself) lists: a pool of
    ids is looked up in a table, two pools of patterns compared by their patterns."""
    shared: dict[tuple[int, int], list[str]] = {}
    owners: dict[str, int] = {}
    listed = [(i, p) for i, p in pools if p.ids is not None]
    patterns = [(i, p) for i, p in pools if p.ids is None]
    for i, pool in listed:
        for cartridge in pool.ids or ():
            owner = owners.get(cartridge)
            if owner is None:
                owners[cartridge] = i
            else:
                shared.setdefault((owner, i), []).append(cartridge)
            for j, other in patterns:
                if other.holds(cartridge):
                    shared.setdefault((min(i, j), max(i, j)), []).append(cartridge)
    for n, (i, a) in enumerate(patterns):
        for j, b in patterns[n + 1 :]:
            if found := _shared(a, b):
                shared.setdefault((i, j), []).extend(found)
    problems = []
    for (owner, i), cartridges in sorted(shared.items(), key=lambda kv: kv[0][::-1]):
        more = f" (and {len(cartridges) - 1:,} more)" if len(cartridges) > 1 else ""
        where = "this pool" if owner == i else f"pools[{owner}]"
        why = f"cartridge {shown(cartridges[0])} also in {where}{more}"
        problems.append(Problem(f"pools[{i}].ids", why))
    return problems


def site_problems(doc: SiteDocument) -> list[Problem]:
    """Every problem across the objects of a site document, each at its path."""
    problems = _library_problems(doc) + _pool_problems(doc)
    if doc.disk_cache is not None:
        problems += class_bound_problems(doc.disk_cache.classes, "disk_cache.classes")
    return problems
