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

Each may be bzip2-compressed (a name ending in ``.bz2``). A bad line or value
raises :class:`~toolkit.errors.InputError` naming the file, the line (or the
JSON path) and what is wrong.

The layout snapshot itself maps no cartridge to a slot: every slot entry of
the shipped file is an empty object. :func:`place_cartridges` takes the
homes of the map, and gives any cartridge the map does not name (every
cartridge, when there is no map) a home level by :func:`home_levels`:
deterministically and in proportion to the free slots of each level.
"""

from __future__ import annotations

import bz2
import hashlib
import math
import re
from bisect import bisect_right
from collections.abc import Iterable, Mapping
from datetime import datetime
from itertools import accumulate
from pathlib import Path
from typing import Any

import orjson
from attrs import field, frozen

from toolkit.errors import InputError, Problem

MAX_PROBLEMS = 20
"""Bad lines reported one by one before the rest are summed up in a last line."""

_TIMESTAMP = re.compile(r"\d{8}T\d{6}")
_TIMESTAMP_FORMAT = "%Y%m%dT%H%M%S"


@frozen
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

    cartridge: str
    arrival_s: float
    seconds_in_drive: float

    def __attrs_post_init__(self) -> None:
        if not self.cartridge or any(c.isspace() for c in self.cartridge):
            raise ValueError(f"a cartridge id is a non-empty word, got {self.cartridge!r}")
        if not 0 <= self.arrival_s < math.inf:
            raise ValueError(f"arrival_s must be finite and >= 0, got {self.arrival_s!r}")
        if not 0 <= self.seconds_in_drive < math.inf:
            raise ValueError(
                f"seconds_in_drive must be finite and >= 0, got {self.seconds_in_drive!r}"
            )


def _nonnegative_int(_: object, attribute: Any, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{attribute.name} must be an integer >= 0, got {value!r}")


def _sorted_ids(ids: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(ids))


@frozen
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

    id: int = field(validator=_nonnegative_int)
    slots: int = field(validator=_nonnegative_int)
    drives: tuple[str, ...] = field(converter=_sorted_ids)
    robots: int = field(validator=_nonnegative_int)

    def __attrs_post_init__(self) -> None:
        if self.robots < 1:
            raise ValueError(f"level {self.id}: robots must be >= 1, got {self.robots}")
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


def _read_text(path: str | Path) -> str:
    """The text of ``path``, decompressed when its name ends in ``.bz2``."""
    source = str(path)
    try:
        if source.endswith(".bz2"):
            with bz2.open(path, "rb") as stream:
                raw = stream.read()
        else:
            raw = Path(path).read_bytes()
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise InputError(source, [Problem("", f"cannot read file: {reason}")]) from None
    except EOFError:
        raise InputError(source, [Problem("", "cannot read file: truncated bzip2 data")]) from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise InputError(source, [Problem(f"line {line}", "not UTF-8 text")]) from None


def _capped(problems: list[Problem]) -> list[Problem]:
    if len(problems) <= MAX_PROBLEMS:
        return problems
    rest = len(problems) - MAX_PROBLEMS
    return [*problems[:MAX_PROBLEMS], Problem("", f"{rest} more problems not shown")]


def _parse_line(text: str) -> tuple[str, datetime, float]:
    """Cartridge, time and seconds of one trace line; ``ValueError`` saying what is wrong."""
    fields = text.split(";")
    if len(fields) != 3:
        raise ValueError(
            f"expected CARTRIDGE;YYYYMMDDTHHMMSS;SECONDS (3 fields), "
            f"got {len(fields)} field{'s' if len(fields) != 1 else ''}: {text[:60]!r}"
        )
    cartridge, stamp, seconds_text = (f.strip() for f in fields)
    if not cartridge or any(c.isspace() for c in cartridge):
        raise ValueError(f"bad cartridge id {cartridge!r}")
    if not _TIMESTAMP.fullmatch(stamp):
        raise ValueError(f"bad timestamp {stamp!r}: expected YYYYMMDDTHHMMSS")
    try:
        when = datetime.strptime(stamp, _TIMESTAMP_FORMAT)
    except ValueError:
        raise ValueError(f"bad timestamp {stamp!r}: no such date or time") from None
    try:
        seconds = float(seconds_text)
    except ValueError:
        raise ValueError(f"bad seconds {seconds_text!r}: not a number") from None
    if not 0 <= seconds < math.inf:
        raise ValueError(f"bad seconds {seconds_text!r}: must be finite and >= 0")
    return cartridge, when, seconds


def read_requests(path: str | Path) -> tuple[TraceRequest, ...]:
    """The requests of a trace file (``.csv`` or ``.csv.bz2``), in file order.

    Blank lines are skipped. Times must not go backwards: a replay needs the
    arrival order, and a trace out of order is a damaged trace.

    Raises
    ------
    InputError
        For an unreadable file, and for every bad line (up to
        :data:`MAX_PROBLEMS`, then a count): wrong number of fields, bad
        cartridge id, bad timestamp, seconds that are not a finite number
        >= 0, a time earlier than the line before; or a file with no request.
    """
    source = str(path)
    text = _read_text(path)
    problems: list[Problem] = []
    parsed: list[tuple[str, datetime, float]] = []
    previous: datetime | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            cartridge, when, seconds = _parse_line(line)
        except ValueError as exc:
            problems.append(Problem(f"line {number}", str(exc)))
            continue
        if previous is not None and when < previous:
            problems.append(
                Problem(
                    f"line {number}",
                    f"time {when:%Y%m%dT%H%M%S} is earlier than the line before "
                    f"({previous:%Y%m%dT%H%M%S}): the trace must be in order of arrival",
                )
            )
            continue
        previous = when
        parsed.append((cartridge, when, seconds))
    if problems:
        raise InputError(source, _capped(problems))
    if not parsed:
        raise InputError(source, [Problem("", "no request in the file")])
    first = parsed[0][1]
    return tuple(
        TraceRequest(cartridge, (when - first).total_seconds(), seconds)
        for cartridge, when, seconds in parsed
    )


def _json_repr(value: Any) -> str:
    text = orjson.dumps(value).decode()
    return text if len(text) <= 40 else text[:37] + "..."


def _object(value: Any, path: str, problems: list[Problem]) -> dict[str, Any] | None:
    if type(value) is not dict:
        problems.append(Problem(path, f"expected an object, got {_json_repr(value)}"))
        return None
    return value


def _keys(
    obj: dict[str, Any], path: str, expected: tuple[str, ...], problems: list[Problem]
) -> bool:
    missing = [k for k in expected if k not in obj]
    unknown = [k for k in obj if k not in expected]
    problems.extend(Problem(path, f"missing key {k!r}") for k in missing)
    problems.extend(Problem(f"{path}.{k}" if path else k, f"unknown key {k!r}") for k in unknown)
    return not missing


def _level(level_id: int, body: Any, path: str, problems: list[Problem]) -> Level | None:
    obj = _object(body, path, problems)
    if obj is None or not _keys(obj, path, ("libraries", "drives", "robots"), problems):
        return None
    before = len(problems)
    slots = _object(obj["libraries"], f"{path}.libraries", problems)
    drives = _object(obj["drives"], f"{path}.drives", problems)
    if slots is not None:
        for slot, entry in slots.items():
            _object(entry, f"{path}.libraries.{slot}", problems)
    if drives is not None:
        for drive, entry in drives.items():
            if not drive or any(c.isspace() for c in drive):
                problems.append(Problem(f"{path}.drives", f"bad drive id {drive!r}"))
            _object(entry, f"{path}.drives.{drive}", problems)
    robots = obj["robots"]
    if type(robots) is not int or robots < 1:
        problems.append(
            Problem(f"{path}.robots", f"expected an integer >= 1, got {_json_repr(robots)}")
        )
    if len(problems) > before or slots is None or drives is None:
        return None
    return Level(level_id, len(slots), tuple(drives), robots)


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
    problems: list[Problem] = []
    top = _object(data, "", problems)
    if top is None or not _keys(top, "", ("level",), problems):
        raise InputError(source, problems)
    levels_obj = _object(top["level"], "level", problems)
    if levels_obj is None:
        raise InputError(source, problems)
    if not levels_obj:
        problems.append(Problem("level", "no level in the layout"))
        raise InputError(source, problems)
    levels: list[Level] = []
    seen_drives: dict[str, str] = {}
    for key, body in levels_obj.items():
        path = f"level.{key}"
        if not key.isascii() or not key.isdigit():
            problems.append(Problem(path, f"a level number is an integer >= 0, got {key!r}"))
            continue
        level = _level(int(key), body, path, problems)
        if level is None:
            continue
        for drive in level.drives:
            if drive in seen_drives:
                problems.append(
                    Problem(f"{path}.drives.{drive}", f"drive also on {seen_drives[drive]}")
                )
            seen_drives.setdefault(drive, path)
        levels.append(level)
    ids = [lv.id for lv in levels]
    for level_id in sorted({i for i in ids if ids.count(i) > 1}):
        problems.append(Problem("level", f"level number {level_id} appears twice"))
    if problems:
        raise InputError(source, _capped(problems))
    return LibraryLayout(tuple(levels))


def _read_json(path: str | Path) -> Any:
    """The parsed JSON of ``path`` (``.bz2`` too); :class:`InputError` when it cannot be."""
    text = _read_text(path)
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise InputError(str(path), [Problem("", f"bad JSON: {exc}")]) from None


def read_layout(path: str | Path) -> LibraryLayout:
    """The layout of a snapshot file (``.json`` or ``.json.bz2``).

    Raises
    ------
    InputError
        For an unreadable file, bad JSON, and every bad value (see
        :func:`layout_from_dict`).
    """
    return layout_from_dict(_read_json(path), str(path))


def _cartridge_of_key(key: str) -> str:
    """The cartridge id of a map key (``RB06/82`` -> ``RB0682``); ``ValueError`` if it is none."""
    if not key or any(c.isspace() for c in key):
        raise ValueError(f"a cartridge id is a non-empty word, got {key!r}")
    head, slash, tail = key.partition("/")
    if slash and (not head or not tail or "/" in tail):
        raise ValueError(f"expected a cartridge id with at most one '/' inside, got {key!r}")
    return head + tail


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
    problems: list[Problem] = []
    top = _object(data, "", problems)
    if top is None:
        raise InputError(source, problems)
    levels = {lv.id: lv for lv in layout.levels}
    ids = list(levels)
    contiguous = ids == list(range(ids[0], ids[-1] + 1))
    known = f"levels {ids[0]}-{ids[-1]}" if contiguous else "levels " + ", ".join(map(str, ids))
    homes: dict[str, int] = {}
    keys: dict[str, str] = {}
    for key, value in top.items():
        path = key or '""'
        try:
            cartridge = _cartridge_of_key(key)
        except ValueError as exc:
            problems.append(Problem(path, str(exc)))
            continue
        if cartridge in keys:
            problems.append(Problem(path, f"cartridge {cartridge!r} also at {keys[cartridge]!r}"))
            continue
        keys[cartridge] = key
        if type(value) is not int or value < 0:
            problems.append(Problem(path, f"expected a level number >= 0, got {_json_repr(value)}"))
        elif value not in levels:
            problems.append(Problem(path, f"level {value} is not in the layout ({known})"))
        else:
            homes[cartridge] = value
    counts: dict[int, int] = {}
    for level in homes.values():
        counts[level] = counts.get(level, 0) + 1
    for level, count in sorted(counts.items()):
        if count > levels[level].slots:
            problems.append(
                Problem("", f"level {level}: {count} cartridges but {levels[level].slots} slots")
            )
    if problems:
        raise InputError(source, _capped(problems))
    return homes


def read_homes(path: str | Path, layout: LibraryLayout) -> dict[str, int]:
    """The home levels of a cartridge map file (``.json`` or ``.json.bz2``) on ``layout``.

    Raises
    ------
    InputError
        For an unreadable file, bad JSON, and every bad entry (see
        :func:`homes_from_dict`).
    """
    return homes_from_dict(_read_json(path), layout, str(path))


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
