"""The ECMWF tape library trace: cartridge read requests and the SL8500 layout they ran on.

ECMWF published logs of its data handling system (StorageTek SL8500
libraries under HPSS, August-September 2011), analysed in "Analysis of the
ECMWF Storage Landscape" (FAST 2015) and "Simulation and performance
analysis of the ECMWF tape library system" (SC 2016). Three files of that
data set are read here (a sample of each is in ``instances/traces/ecmwf/``,
whose README says more):

- the requests, one a line, ``CARTRIDGE;YYYYMMDDTHHMMSS;SECONDS``: the
  cartridge asked for, when, and how long it was then in use in a drive
  (:func:`read_requests`);
- the layout snapshot, ``{"level": {"0": {"libraries": {...}, "drives":
  {...}, "robots": 1}, ...}}``: per level (rail) its storage slots, its
  drives and its robots (:func:`read_layout`);
- the cartridge map of the same snapshot, ``{"RB06/82": 2, ...}``: the home
  level of each cartridge, the key being the cartridge id with a ``/``
  inside (``RB06/82`` is ``RB0682`` of the trace) and the value a level of
  the layout (:func:`read_homes`).

Each may be bzip2-compressed (a name ending in ``.bz2``). Each is structured
through cattrs (:mod:`toolkit.files.structurer`), its values judged by the rules every
reader shares (:mod:`toolkit.fields`); a bad line or value raises
:class:`~toolkit.errors.InputError` naming the file, the line and column
(``line 7.seconds``) or the JSON path, and what is wrong.

The layout snapshot itself maps no cartridge to a slot: every slot entry of
the shipped file is an empty object. :func:`place_cartridges` takes the
homes of the map, and gives any cartridge the map does not name (every
cartridge, when there is no map) a home level by :func:`home_levels`:
deterministically and in proportion to the free slots of each level.
"""

from __future__ import annotations

import hashlib
import math
import re
from abc import abstractmethod
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from itertools import accumulate
from pathlib import Path
from typing import Annotated, Any, TypeVar, overload

from attrs import field, frozen

from tapesched.toolkit.errors import MAX_SHOWN, InputError, Problem, ValueProblems, capped, shown
from tapesched.toolkit.fields import (
    CARTRIDGE_ID,
    Rule,
    at_least_one,
    bounded_time,
    check,
    checked,
    natural,
    nonnegative_finite,
    not_empty,
    parsed,
    word,
)
from tapesched.toolkit.files.json_documents import read_json
from tapesched.toolkit.files.reading import read_text
from tapesched.toolkit.files.structurer import JSON, TEXT, KeyStyle
from tapesched.toolkit.units import MAX_COUNT, MAX_SIMULATED_S, describe_seconds

T = TypeVar("T")

MAX_PROBLEMS = MAX_SHOWN
"""Bad lines reported one by one before the rest are summed up in a last line."""

_TIMESTAMP = re.compile(r"[0-9]{8}T[0-9]{6}")

LEVEL_NUMBER = Rule(
    ("{v}.isascii() and {v}.isdigit()", "a level number is an integer >= 0, got {v!r}"),
    (
        "len({v}) <= len(str(most)) and int({v}) <= most",
        "a level number is at most {most:,}, got {v!r}",
    ),
    most=MAX_COUNT,
)
"""A level of a layout file, as its key is written (``"3"``): a count's bound
(:data:`~toolkit.units.MAX_COUNT`), as every number of things."""

DRIVE_ID = word("a drive id")
"""A drive id of a layout file (``D_01_00``)."""

MAP_KEY = CARTRIDGE_ID.then(
    "'/' not in {v} or ({v}.count('/') == 1 and {v}[0] != '/' and {v}[-1] != '/')",
    "expected a cartridge id with at most one '/' inside, got {v!r}",
)
"""A key of a cartridge map: a cartridge id, with at most one ``/`` inside (``RB06/82``)."""


@checked
class TraceRequest:
    """One read of a cartridge: when it was asked for and how long it then stayed in use.

    Attributes
    ----------
    cartridge
        Cartridge (volume) id, e.g. ``"CB1172"``.
    arrival_s
        When the request arrived, in seconds after the trace's first request.
    seconds_in_drive
        How long the cartridge was in use in a drive to serve it (reading,
        positioning included): the replay's service time.
    """

    cartridge: str = check(CARTRIDGE_ID)
    arrival_s: float = check(nonnegative_finite)
    seconds_in_drive: float = check(nonnegative_finite)


def _sorted_ids(ids: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(ids))


@checked
class Level:
    """One level (rail) of an SL8500 complex.

    Attributes
    ----------
    id
        Level number; an SL8500 has four rails, so levels ``4k .. 4k+3``
        are the rails of the ``k``-th library of the complex.
    slots
        Storage slots (cells) on the level.
    drives
        Ids of its drives, sorted.
    robots
        Handbots serving the level (at least one: nothing moves without).
    """

    id: int = check(natural)
    slots: int = check(natural)
    drives: tuple[str, ...] = field(converter=_sorted_ids)
    robots: int = check(at_least_one)

    def __attrs_post_init__(self) -> None:
        if len(set(self.drives)) != len(self.drives):
            raise ValueError(f"level {self.id}: duplicate drive ids")


def _by_id(levels: Iterable[Level]) -> tuple[Level, ...]:
    return tuple(sorted(levels, key=lambda lv: lv.id))


@frozen
class LibraryLayout:
    """The levels of a library complex, in order of their number."""

    levels: tuple[Level, ...] = field(converter=_by_id)

    def __attrs_post_init__(self) -> None:
        if not self.levels:
            raise ValueError("a layout has at least one level")
        ids = [lv.id for lv in self.levels]
        if len(set(ids)) != len(ids):
            raise ValueError("duplicate level ids")
        drives = [d for lv in self.levels for d in lv.drives]
        if len(set(drives)) != len(drives):
            raise ValueError("a drive id is on two levels")

    @property
    def slots(self) -> int:
        """Storage slots of all levels."""
        return sum(lv.slots for lv in self.levels)

    @property
    def drives(self) -> int:
        """Drives of all levels."""
        return sum(len(lv.drives) for lv in self.levels)

    def level(self, level_id: int) -> Level:
        """The level numbered ``level_id`` (``KeyError`` if there is none)."""
        for lv in self.levels:
            if lv.id == level_id:
                return lv
        raise KeyError(level_id)


# --- the requests ----------------------------------------------------------------------------


def _timestamp(text: str) -> datetime:
    """A time ``YYYYMMDDTHHMMSS`` of a trace line."""
    stamp = text.strip()
    if not _TIMESTAMP.fullmatch(stamp):
        raise ValueError(f"expected YYYYMMDDTHHMMSS, got {shown(stamp)}")
    try:
        return datetime(
            int(stamp[:4]), int(stamp[4:6]), int(stamp[6:8]),
            int(stamp[9:11]), int(stamp[11:13]), int(stamp[13:]),
        )  # fmt: skip
    except ValueError:
        raise ValueError(f"no such date or time: {shown(stamp)}") from None


@checked
class TraceLine:
    """A line of a trace file, ``CARTRIDGE;YYYYMMDDTHHMMSS;SECONDS``, by its columns:
    ``cartridge``, ``time`` and ``seconds`` (problems are at ``line N.column``)."""

    cartridge: str = check(CARTRIDGE_ID)
    time: datetime = parsed(_timestamp)
    seconds: float = check(bounded_time)


def read_requests(path: str | Path) -> tuple[TraceRequest, ...]:
    """The requests of a trace file (``.csv`` or ``.csv.bz2``), in file order.

    Blank lines are skipped. Times must not go backwards: a replay needs the
    arrival order, and a trace out of order is a damaged trace.

    Raises
    ------
    InputError
        For an unreadable file, and for every bad line (up to
        :data:`MAX_PROBLEMS`, then a count), at ``line N`` or
        ``line N.column``: wrong number of fields, bad cartridge id, bad
        timestamp, seconds that are not a number from 0 to
        :data:`~toolkit.units.MAX_TIME_S`, a time earlier than the line before
        or later than :data:`~toolkit.units.MAX_SIMULATED_S` after the first;
        or a file with no request.
    """
    source = str(path)
    text = read_text(path)
    read_line = TEXT.reader(TraceLine, path="line {}")
    problems: list[Problem] = []
    lines: list[TraceLine] = []
    previous: datetime | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        cells = line.split(";")
        if len(cells) != 3:
            problems.append(
                Problem(
                    f"line {number}",
                    f"expected CARTRIDGE;YYYYMMDDTHHMMSS;SECONDS (3 fields), "
                    f"got {len(cells)} field{'s' if len(cells) != 1 else ''}: {line[:60]!r}",
                )
            )
            continue
        cartridge, stamp, seconds = cells
        entry, bad = read_line({"cartridge": cartridge, "time": stamp, "seconds": seconds}, number)
        if entry is None:
            problems.extend(bad)
        elif previous is not None and entry.time < previous:
            problems.append(
                Problem(
                    f"line {number}.time",
                    f"time {entry.time:%Y%m%dT%H%M%S} is earlier than the line before "
                    f"({previous:%Y%m%dT%H%M%S}): the trace must be in order of arrival",
                )
            )
        elif lines and (entry.time - lines[0].time).total_seconds() > MAX_SIMULATED_S:
            span = (entry.time - lines[0].time).total_seconds()
            problems.append(
                Problem(
                    f"line {number}.time",
                    f"{span:.0f} s after the first line, longer than the limit "
                    f"{describe_seconds(MAX_SIMULATED_S)} of a simulated span",
                )
            )
        else:
            previous = entry.time
            lines.append(entry)
    if problems:
        raise InputError(source, capped(problems))
    if not lines:
        raise InputError(source, [Problem("", "no request in the file")])
    first = lines[0].time
    return tuple(
        TraceRequest(e.cartridge, (e.time - first).total_seconds(), e.seconds) for e in lines
    )


MADE_KEPT = 8
"""Requests a :class:`RepeatedTrace` keeps of those it made last."""


class LazySequence(Sequence[T]):
    """A sequence whose items are made as they are read (:meth:`item`), none of them kept."""

    @abstractmethod
    def __len__(self) -> int: ...

    @abstractmethod
    def item(self, k: int) -> T:
        """Item ``k``, within ``[0, len)``."""

    @overload
    def __getitem__(self, k: int) -> T: ...

    @overload
    def __getitem__(self, k: slice) -> tuple[T, ...]: ...

    def __getitem__(self, k: int | slice) -> T | tuple[T, ...]:
        n = len(self)
        if isinstance(k, slice):
            return tuple(self.item(i) for i in range(*k.indices(n)))
        if not -n <= k < n:
            raise IndexError(f"item {k} of {n}")
        return self.item(k % n)


class RepeatedTrace(LazySequence[TraceRequest]):
    """``copies`` copies of a trace end to end, each shifted by the trace's span, each request
    made as it is read: a trace of millions of requests in the memory of one copy.

    The span is the last arrival (the first is at 0): copy ``k`` arrives
    ``k`` spans later, asking for the same cartridges. A long trace of the
    sample's character, for measuring how a replay scales. What a replay
    reads of the whole trace is known from the copy alone: its cartridges
    (:func:`trace_cartridges`), its last arrival (:func:`last_arrival_s`) and
    whether it is in arrival order (:func:`arrival_order`).

    Raises
    ------
    ValueError
        For fewer than one copy or no request.
    """

    def __init__(self, requests: Sequence[TraceRequest], copies: int) -> None:
        if copies < 1 or not requests:
            raise ValueError(f"need at least one copy of at least one request, got {copies} copies")
        self.copy = tuple(requests)
        self.copies = copies
        self.span_s = max(r.arrival_s for r in self.copy)
        self.cartridges = frozenset(r.cartridge for r in self.copy)
        self.in_arrival_order = _in_arrival_order(self.copy)
        self._made: dict[int, TraceRequest] = {}

    def __len__(self) -> int:
        return len(self.copy) * self.copies

    def item(self, k: int) -> TraceRequest:
        """Request ``k``: its copy's request, shifted by the copy's spans.

        The last few made are kept: a replay reads a request a few times as it
        arrives and is planned. A shifted request is made without its fields'
        checks again: its copy's passed them, and a shift by whole spans keeps
        its arrival finite and nonnegative.
        """
        made = self._made.get(k)
        if made is not None:
            return made
        copy, i = divmod(k, len(self.copy))
        r = self.copy[i]
        made = object.__new__(TraceRequest)
        object.__setattr__(made, "cartridge", r.cartridge)
        object.__setattr__(made, "arrival_s", r.arrival_s + copy * self.span_s)
        object.__setattr__(made, "seconds_in_drive", r.seconds_in_drive)
        if len(self._made) >= MADE_KEPT:
            self._made.clear()
        self._made[k] = made
        return made

    @property
    def last_arrival_s(self) -> float:
        """The last copy's last arrival."""
        return max(r.arrival_s + (self.copies - 1) * self.span_s for r in self.copy)


def repeat_trace(requests: Sequence[TraceRequest], copies: int) -> RepeatedTrace:
    """``copies`` copies of a trace end to end (:class:`RepeatedTrace`).

    Raises
    ------
    ValueError
        For fewer than one copy or no request.
    """
    return RepeatedTrace(requests, copies)


def _in_arrival_order(requests: Iterable[TraceRequest]) -> bool:
    last = -math.inf
    for r in requests:
        if r.arrival_s < last:
            return False
        last = r.arrival_s
    return True


def trace_cartridges(requests: Sequence[TraceRequest]) -> frozenset[str]:
    """The cartridges a trace reads."""
    if isinstance(requests, RepeatedTrace):
        return requests.cartridges
    return frozenset(r.cartridge for r in requests)


def last_arrival_s(requests: Sequence[TraceRequest]) -> float:
    """A trace's last arrival (its end)."""
    if isinstance(requests, RepeatedTrace):
        return requests.last_arrival_s
    return max(r.arrival_s for r in requests)


def arrival_order(requests: Sequence[TraceRequest]) -> Sequence[int] | None:
    """The indices of a trace's requests by arrival, ties in the order given (``None``: the
    trace is in that order already, and no index is made)."""
    if isinstance(requests, RepeatedTrace):
        if requests.in_arrival_order:
            return None
    elif _in_arrival_order(requests):
        return None
    return sorted(range(len(requests)), key=lambda k: requests[k].arrival_s)


# --- the layout ------------------------------------------------------------------------------


@checked
class LevelEntry:
    """A level of a layout file: its slots (``libraries``) and drives, each an object
    keyed by its id, and its robots."""

    libraries: dict[str, dict[str, Any]]
    drives: dict[str, dict[str, Any]]
    robots: int = check(at_least_one)

    def __attrs_post_init__(self) -> None:
        bad = [Problem("drives", why) for d in self.drives if (why := DRIVE_ID(d)) is not None]
        if bad:
            raise ValueProblems(bad)


@checked
class LayoutDocument:
    """A layout snapshot file: ``{"level": {"0": {...}, ...}}``."""

    level: dict[Annotated[str, LEVEL_NUMBER], LevelEntry] = check(not_empty)


_LAYOUT_KEYS = KeyStyle(unknown_at_key=True)
"""A layout names a missing key at its object (``level.0: missing key 'robots'``) and an
unknown one at its own path (``level.0.arms: unknown key 'arms'``)."""


def layout_from_dict(data: Any, source: str = "<layout>") -> LibraryLayout:
    """A :class:`LibraryLayout` from the parsed JSON of a layout snapshot.

    Raises
    ------
    InputError
        With one problem per bad value and its JSON path (``level.3.robots``):
        a missing or unknown key, a level number that is not an integer >= 0,
        slots or drives that are not objects, a robot count that is not an
        integer >= 1, a drive id on two levels, no level at all.
    """
    document, problems = JSON.structure(data, LayoutDocument, keys=_LAYOUT_KEYS)
    if document is None:
        raise InputError(source, capped(problems))
    levels: list[Level] = []
    seen_drives: dict[str, str] = {}
    for key, entry in document.level.items():
        path = f"level.{key}"
        for drive in entry.drives:
            if drive in seen_drives:
                problems.append(
                    Problem(f"{path}.drives.{drive}", f"drive also on {seen_drives[drive]}")
                )
            seen_drives.setdefault(drive, path)
        levels.append(Level(int(key), len(entry.libraries), tuple(entry.drives), entry.robots))
    ids = [lv.id for lv in levels]
    for level_id in sorted({i for i in ids if ids.count(i) > 1}):
        problems.append(Problem("level", f"level number {level_id} appears twice"))
    if problems:
        raise InputError(source, capped(problems))
    return LibraryLayout(tuple(levels))


def read_layout(path: str | Path) -> LibraryLayout:
    """The layout of a snapshot file (``.json`` or ``.json.bz2``).

    Raises
    ------
    InputError
        For an unreadable file, bad JSON, and every bad value (see
        :func:`layout_from_dict`).
    """
    return layout_from_dict(read_json(path), str(path))


# --- the cartridge map -----------------------------------------------------------------------

HomesDocument = dict[Annotated[str, MAP_KEY], Annotated[int, natural]]
"""A cartridge map file: ``{"RB06/82": 2, ...}``, a level number by cartridge."""


def homes_from_dict(data: Any, layout: LibraryLayout, source: str = "<homes>") -> dict[str, int]:
    """The home level of each cartridge of a map (``{"RB06/82": 2, ...}``), by cartridge id.

    A key is a cartridge id, with or without one ``/`` inside (the ECMWF
    map writes ``RB06/82`` for cartridge ``RB0682``); a value is the number
    of a level of ``layout``, as the layout file numbers them.

    Raises
    ------
    InputError
        With one problem per bad entry, its key as the path: not an object,
        a key that is no cartridge id, two keys for one cartridge, a value
        that is not an integer >= 0 or not a level of ``layout``; and one
        per level given more cartridges than it has slots.
    """
    document, problems = JSON.structure(data, HomesDocument)  # type: ignore[arg-type]
    if document is None:
        raise InputError(source, capped(problems))
    levels = {lv.id: lv for lv in layout.levels}
    ids = list(levels)
    contiguous = ids == list(range(ids[0], ids[-1] + 1))
    known = f"levels {ids[0]}-{ids[-1]}" if contiguous else "levels " + ", ".join(map(str, ids))
    homes: dict[str, int] = {}
    keys: dict[str, str] = {}
    for key, level in document.items():
        cartridge = key.replace("/", "")
        if cartridge in keys:
            also = f"cartridge {shown(cartridge)} also at {shown(keys[cartridge])}"
            problems.append(Problem(key, also))
            continue
        keys[cartridge] = key
        if level not in levels:
            problems.append(Problem(key, f"level {level} is not in the layout ({known})"))
        else:
            homes[cartridge] = level
    counts: dict[int, int] = {}
    for level in homes.values():
        counts[level] = counts.get(level, 0) + 1
    for level, count in sorted(counts.items()):
        if count > levels[level].slots:
            problems.append(
                Problem("", f"level {level}: {count} cartridges but {levels[level].slots} slots")
            )
    if problems:
        raise InputError(source, capped(problems))
    return homes


def read_homes(path: str | Path, layout: LibraryLayout) -> dict[str, int]:
    """The home levels of a cartridge map file (``.json`` or ``.json.bz2``) on ``layout``.

    Raises
    ------
    InputError
        For an unreadable file, bad JSON, and every bad entry (see
        :func:`homes_from_dict`).
    """
    return homes_from_dict(read_json(path), layout, str(path))


@frozen
class Homes:
    """Where the cartridges of a replay live, and how each came to live there.

    Attributes
    ----------
    levels
        Home level by cartridge id: every cartridge of the map (each takes a
        slot whether the trace asks for it or not) and every cartridge of
        the trace.
    mapped
        Cartridges of the trace whose home the map gives.
    hashed
        Cartridges of the trace the map does not name (all of them without
        a map), placed by :func:`home_levels`.
    """

    levels: Mapping[str, int]
    mapped: int
    hashed: int


def place_cartridges(
    cartridges: Iterable[str],
    layout: LibraryLayout,
    mapped: Mapping[str, int] | None = None,
    seed: int = 0,
) -> Homes:
    """Home levels for the ``cartridges`` of a trace: the map's, else a seeded hash.

    Every cartridge of ``mapped`` (:func:`read_homes`) keeps its level and
    takes a slot there; each of ``cartridges`` the map does not name gets a
    level by :func:`home_levels` with ``seed`` among the slots left free.

    Raises
    ------
    ValueError
        When the unmapped cartridges do not fit in the free slots.
    """
    names = set(cartridges)
    known = dict(mapped or {})
    taken: dict[int, int] = {}
    for level in known.values():
        taken[level] = taken.get(level, 0) + 1
    missing = names - known.keys()
    placed = home_levels(missing, layout, seed, taken=taken)
    return Homes({**known, **placed}, len(names) - len(missing), len(missing))


def home_levels(
    cartridges: Iterable[str],
    layout: LibraryLayout,
    seed: int = 0,
    *,
    taken: Mapping[int, int] | None = None,
) -> dict[str, int]:
    """A home level for each cartridge: seeded, stable, in proportion to each level's slots.

    The snapshot does not say where cartridges live, so each is placed by a
    hash of ``seed`` and its id (BLAKE2b, not Python's salted ``hash``): the
    hash picks one slot among all the slots of the complex, uniformly, and
    the cartridge lives on that slot's level. A cartridge's level thus
    depends on its id and the seed only, not on the trace it appears in nor
    on the order of requests, and each level receives cartridges in
    proportion to its slots. Should a level be full, the cartridge goes to
    the next level (in level order, wrapping round) with a free slot;
    cartridges are placed in sorted order so that this too is deterministic.
    ``taken`` counts, by level, slots that other cartridges already hold
    (those of a cartridge map): they are not free.

    Raises
    ------
    ValueError
        When there are more cartridges than free slots.
    """
    names = sorted(set(cartridges))
    taken = taken or {}
    levels = layout.levels
    ends = list(accumulate(lv.slots for lv in levels))
    free = [max(lv.slots - taken.get(lv.id, 0), 0) for lv in levels]
    if len(names) > sum(free):
        left = " left free" if any(taken.values()) else ""
        raise ValueError(
            f"{len(names)} cartridges do not fit in the layout's {sum(free)} slots{left}"
        )
    total = layout.slots
    homes: dict[str, int] = {}
    for name in names:
        digest = hashlib.blake2b(f"{seed}\0{name}".encode(), digest_size=8).digest()
        slot = (int.from_bytes(digest, "big") * total) >> 64
        index = bisect_right(ends, slot)
        while free[index] == 0:
            index = (index + 1) % len(levels)
        free[index] -= 1
        homes[name] = levels[index].id
    return homes
