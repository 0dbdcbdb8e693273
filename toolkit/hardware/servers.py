"""The servers in front of the tapes as files give them: mover limits and disk-cache classes.

A scenario file (``platform.movers``, ``disk_cache``) and a site file (``movers``,
``disk_cache``) describe them alike; these are their objects, each value judged at its path
by the rules of :mod:`toolkit.fields`, and :func:`class_bound_problems` the rule across the
classes of a cache (and of a load file's service classes). The simulator runs them
(:class:`simulator.platform.spec.MoverSpec`, :mod:`simulator.storage.disk_cache`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from tapesched.toolkit.errors import Problem
from tapesched.toolkit.fields import (
    as_float,
    bandwidth,
    check,
    checked,
    nonempty_text,
    not_empty,
    optional,
    positive_size,
)


@checked(kw_only=True)
class MoverLimits:
    """The limits of every mover (a scenario's ``platform.movers``); ``None`` is no limit."""

    memory_mb: float | None = check(optional(positive_size), default=None, converter=as_float)
    disk_mb: float | None = check(optional(positive_size), default=None, converter=as_float)
    bandwidth_mb_s: float | None = check(optional(bandwidth), default=None, converter=as_float)


@checked(kw_only=True)
class CacheClassEntry:
    """A class of ``disk_cache.classes``: its name, its largest file, its disk."""

    name: str = check(nonempty_text)
    max_file_mb: float | None = check(optional(positive_size), default=None, converter=as_float)
    cache_mb: float = check(positive_size, converter=as_float)


@checked(kw_only=True)
class DiskCacheSection:
    """A file's ``disk_cache``: service classes by file size, a disk each."""

    classes: tuple[CacheClassEntry, ...] = check(not_empty)


class Bounded(Protocol):
    """A class as a file gives it: a name and the largest file it takes (``None``: any)."""

    @property
    def name(self) -> str: ...

    @property
    def max_file_mb(self) -> float | None: ...


def class_bound_problems(classes: Sequence[Bounded], prefix: str) -> list[Problem]:
    """What is wrong across the classes of a file, each at ``{prefix}[i]``'s path.

    Names are distinct; every class but the last has a ``max_file_mb``,
    rising from class to class; the last has none (it takes every larger
    file). Read by a scenario's and a site's ``disk_cache`` and by load files
    (:mod:`simulator.planning.sizing`), which list service classes alike.
    """
    problems = []
    seen: set[str] = set()
    previous: float | None = None
    last = len(classes) - 1
    for i, c in enumerate(classes):
        path = f"{prefix}[{i}]"
        if c.name in seen:
            problems.append(Problem(f"{path}.name", f"class {c.name!r} is given twice"))
        seen.add(c.name)
        if i == last and c.max_file_mb is not None:
            why = "the last class takes every larger file: leave max_file_mb out"
            problems.append(Problem(f"{path}.max_file_mb", why))
        elif i < last and c.max_file_mb is None:
            why = "missing key (every class but the last has one)"
            problems.append(Problem(f"{path}.max_file_mb", why))
        elif c.max_file_mb is not None and previous is not None and c.max_file_mb <= previous:
            why = f"must be above the previous class's {previous:g}, got {c.max_file_mb:g}"
            problems.append(Problem(f"{path}.max_file_mb", why))
        if c.max_file_mb is not None:
            previous = c.max_file_mb
    return problems
