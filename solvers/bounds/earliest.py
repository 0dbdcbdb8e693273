"""What each request can do alone: the earliest start and end of each, and each piece's floor.

The first family of lower bounds (:mod:`solvers.bounds.bounds`) and the
ground of the others. A request's transfer cannot start before its
release, nor before each of its pieces can be ready on some drive of its
library, nor before the arms have mounted those of its tapes that no drive
holds at time 0; it then lasts at least its longest piece at the fastest
rate (:func:`earliest_times`). Other requests can only delay it. Prefetching
is allowed offline, so only the transfer is certainly after the release:
mounts, loads and locates are bounded from time 0. Without prefetch (the
non-anticipative reading of ``docs/core-problem.md``, a :class:`Context`
made with ``prefetch=False``) a mount starts no earlier than the first
release among its tape's requests, and each locate no earlier than its own
request's release (:func:`request_times`). A piece's drive also
spends at least its *floor* on it before the transfer: the locate from
where the head can rest, and, counted for bound (e), the mount and load a
piece may need (:func:`locate_floors`).

:class:`Context` holds what these need of an instance, computed once: each
library's timings and its drives' distinct profiles (:class:`LibraryLimits`)
and what each tape held at time 0 offers (:class:`Held`). Everything here
costs O(n log n) for n requests.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from typing import NamedTuple

from tapesched.toolkit.model import Drive, Instance, Library, Request

MAX_PROFILES = 16
"""Most distinct drive profiles of a library examined one by one per piece.

A library whose drives have more profiles (timings, and whether the drive
holds a tape at time 0) is summarised by one optimistic profile that takes
the best of each timing over its drives, which keeps the cost per piece
constant and the bound valid, only weaker.
"""

_INF = float("inf")


class EarliestTimes(NamedTuple):
    """Lower bounds on each request's start ``S_j`` and end ``C_j``, by request id.

    ``starts[j]`` is at least the release; ``ends[j]`` is at least
    ``starts[j]`` plus the request's shortest possible transfer.
    """

    starts: dict[str, float]
    ends: dict[str, float]


class _Profile(NamedTuple):
    """Timings of a drive that matter for when a mounted piece can be ready.

    ``clear`` is when the drive can receive a mount at the earliest: 0 if it
    is empty at time 0, else its ``unload_s`` plus the library's
    ``dismount_s``. ``speed`` is the fastest the head moves: ``locate_mb_s``,
    or ``rate_mb_s`` while transferring, whichever is larger (infinite on a
    serpentine drive, see :func:`_speed`).
    """

    clear: float
    load: float
    speed: float
    rate: float


class LibraryLimits:
    """What the bounds need of one library and its drives, computed once."""

    __slots__ = (
        "arms",
        "dismount",
        "max_rate",
        "max_speed",
        "min_load",
        "mount",
        "n_drives",
        "profiles",
        "total_rate",
    )

    def __init__(self, library: Library, drives: tuple[Drive, ...], holding: set[str]) -> None:
        self.arms = library.arms
        self.mount = float(library.mount_s)
        self.dismount = float(library.dismount_s)
        self.n_drives = len(drives)
        self.total_rate = float(sum(d.rate_mb_s for d in drives))
        self.max_rate = float(max((d.rate_mb_s for d in drives), default=1.0))
        self.max_speed = float(max((_speed(d) for d in drives), default=1.0))
        self.min_load = float(min((d.load_s for d in drives), default=0.0))
        profiles = sorted(
            {
                _Profile(
                    float(d.unload_s) + self.dismount if d.id in holding else 0.0,
                    float(d.load_s),
                    _speed(d),
                    float(d.rate_mb_s),
                )
                for d in drives
            }
        )
        if len(profiles) > MAX_PROFILES:
            profiles = [
                _Profile(
                    min(p.clear for p in profiles),
                    self.min_load,
                    self.max_speed,
                    self.max_rate,
                )
            ]
        self.profiles = profiles


def _speed(drive: Drive) -> float:
    """Fastest the head of ``drive`` moves along a tape, in MB/s.

    A drive with a serpentine ``locate`` model has no such speed (a locate
    between neighbouring wraps crosses many MB in seconds): its floor speed
    is infinite, so a bound counts its locates as 0 s, the only floor valid
    for every model (:attr:`toolkit.model.Drive.floor_speed_mb_s`).
    """
    return float(max(drive.rate_mb_s, drive.floor_speed_mb_s))


class Held(NamedTuple):
    """A tape some drive holds at time 0, seen from a piece on it.

    ``speed`` and ``rate`` are its holder's; ``clear`` is when the tape can be
    out of its holder at the earliest (``unload_s`` plus ``dismount_s``);
    ``head`` is where its head is at time 0 (``head_mb``, 0 in version 1).
    Drives and arms busy at the start (version 2) are left out: they only
    delay schedules, so the bounds without them stay valid.
    """

    speed: float
    rate: float
    clear: float
    head: float = 0.0


class Context:
    """Per-library timings and what each initial tape's holder offers, for one instance.

    ``strong``: the floors count the mount and load a piece may need and the
    pooled jobs carry their spans (bound (e), :func:`~solvers.bounds.bounds.switch_bound`); off,
    bounds (b) to (d) as first published here.

    ``prefetch`` false: the bounds of the non-anticipative problem, in which no
    mount, load or locate serving a request starts before its release;
    ``first_release`` then holds each tape's earliest release among the
    requests reading it, and ``locates`` each piece's least locate (the
    floors of a plain context), which :func:`request_times` adds to the
    releases. Every bound built on the starts and ends of
    :func:`request_times` stays valid, as only those move (later).
    """

    def __init__(self, instance: Instance, strong: bool = False, prefetch: bool = True) -> None:
        self.instance = instance
        self.strong = strong
        self.prefetch = prefetch
        holding = set(instance.initial_tape)
        self.libraries = {
            lib.id: LibraryLimits(lib, instance.drives_of_library.get(lib.id, ()), holding)
            for lib in instance.libraries
        }
        self.tape_library = {t.id: t.library for t in instance.tapes}
        self.held: dict[str, Held] = {}
        for drive_id, tape in instance.initial_tape.items():
            drive = instance.drive_by_id[drive_id]
            dismount = self.libraries[drive.library].dismount
            self.held[tape] = Held(
                _speed(drive),
                float(drive.rate_mb_s),
                float(drive.unload_s) + dismount,
                float(instance.initial_head_mb[drive_id]),
            )

        self.first_release: dict[str, float] = {}
        self.locates: dict[tuple[str, int], float] = {}
        if not prefetch:
            for request in instance.requests:
                release = float(request.release_s)
                for piece in request.pieces:
                    known = self.first_release.get(piece.tape, _INF)
                    self.first_release[piece.tape] = min(known, release)
            self.locates = context_floors(Context(instance))

    def library_of(self, request: Request) -> str:
        """Id of the library of ``request``."""
        return self.tape_library[request.pieces[0].tape]


def _piece_times(
    lib: LibraryLimits,
    offset: float,
    size: float,
    release: float,
    held: Held | None,
    mount_from: float = 0.0,
) -> tuple[float, float]:
    """Earliest time a piece can be ready on some drive, and earliest end of its transfer.

    On the drive holding the piece's tape at time 0 the head starts at
    ``head_mb`` (offset 0 in version 1) and moves no faster than that drive's
    speed, so the piece is ready no earlier than ``|offset - head_mb| /
    speed`` (whatever else that drive reads first,
    and a remount would only restart the head at 0 later). On any drive, a
    mount of the tape starts once the drive has unloaded and dismounted its
    own initial tape (rule 2) and once the tape's holder has unloaded and
    dismounted it (rule 3), then lasts ``mount_s``, the drive loads it and the
    head moves from 0. The transfer starts at the release at the earliest and
    streams at the drive's rate. The two minima over drives may come from
    different drives: each is a lower bound on its own. No mount starts
    before ``mount_from`` (without prefetch: the first release of the tape's
    requests, as a mount serves the first request of its stay).
    """
    ready = _INF
    end = _INF
    tape_clear = mount_from
    if held is not None:
        ready = abs(offset - held.head) / held.speed
        end = max(release, ready) + size / held.rate
        tape_clear = max(held.clear, mount_from)
    mount = lib.mount
    for clear, load, speed, rate in lib.profiles:
        at = (clear if clear > tape_clear else tape_clear) + mount + load + offset / speed
        if at < ready:
            ready = at
        finish = (release if release > at else at) + size / rate
        if finish < end:
            end = finish
    return ready, end


def request_times(ctx: Context, request: Request) -> tuple[float, float, float, float]:
    """Lower bounds on the start and end of ``request`` alone; its longest piece and size.

    Start: the release, the latest of its pieces' earliest ready times, and
    the arm bound. The arm bound: the ``k`` pieces whose tape no drive holds
    at time 0 need ``k`` distinct mounts of ``mount_s`` each, never more than
    ``arms`` at once; intervals of equal length overlapping at most ``arms``
    deep split into ``arms`` lanes (interval graphs are perfect), so the last
    mount ends no earlier than ``ceil(k / arms) * mount_s``, and its piece
    then still needs a load and a locate from 0 before the gang can start.

    End: the start plus the longest piece at the library's fastest rate, and
    for each piece the earliest end of its own transfer.

    Without prefetch (``ctx.prefetch`` false) a piece's mount starts at the
    first release of its tape's requests or later (its stay's first request
    is one of them), and so do the arm bound's mounts (at the least of those
    releases); each piece's locate starts at the request's release or later
    and lasts at least its floor, so the start is also at least the release
    plus the longest of the pieces' least locates.
    """
    lib = ctx.libraries[ctx.tape_library[request.pieces[0].tape]]
    held_tapes = ctx.held
    release = float(request.release_s)
    start = release
    end = release
    longest = 0.0
    volume = 0.0
    mounted = 0
    nearest_mounted = _INF
    mounts_from = _INF
    first_release = ctx.first_release
    for k, piece in enumerate(request.pieces):
        held = held_tapes.get(piece.tape)
        offset = float(piece.offset_mb)
        size = float(piece.size_mb)
        mount_from = first_release.get(piece.tape, 0.0)
        ready, piece_end = _piece_times(lib, offset, size, release, held, mount_from)
        if not ctx.prefetch:
            ready = max(ready, release + ctx.locates[request.id, k])
        start = max(start, ready)
        end = max(end, piece_end)
        longest = max(longest, size)
        volume += size
        if held is None:
            mounted += 1
            nearest_mounted = min(nearest_mounted, offset)
            mounts_from = min(mounts_from, mount_from)
    if mounted and lib.mount > 0:
        last_mount = mounts_from + math.ceil(mounted / lib.arms) * lib.mount
        start = max(start, last_mount + lib.min_load + nearest_mounted / lib.max_speed)
    end = max(end, start + longest / lib.max_rate)
    return start, end, longest, volume


def earliest_times(instance: Instance, prefetch: bool = True) -> EarliestTimes:
    """Lower bounds on the start and end of every request, each taken alone.

    The bounds hold in every feasible schedule, offline ones included: other
    requests only add constraints, and every operation before a transfer is
    bounded from time 0, not from the release. With ``prefetch`` false they
    hold in every schedule of the non-anticipative problem (see
    :class:`Context`), and are never earlier.

    Parameters
    ----------
    instance
        A well-formed instance.

    Returns
    -------
    EarliestTimes
        ``starts`` and ``ends`` by request id.
    """
    ctx = Context(instance, prefetch=prefetch)
    starts: dict[str, float] = {}
    ends: dict[str, float] = {}
    for request in instance.requests:
        starts[request.id], ends[request.id], _, _ = request_times(ctx, request)
    return EarliestTimes(starts, ends)


def locate_floors(instance: Instance, switches: bool = False) -> dict[tuple[str, int], float]:
    """Least drive time spent on each piece before its transfer, by ``(request id, piece index)``.

    The head reaches a piece's offset from where it rests: the end of
    another piece of the same tape read before it on the same stay, offset
    0 after a mount, or ``head_mb`` at time 0 for a tape held at time 0. It
    travels at most at the fastest speed of its library's drives (locate or
    read, whichever is larger; the holder's for a tape held at time 0).
    With ``switches`` (bound (e), :func:`~solvers.bounds.bounds.switch_bound`), a tape that no
    drive holds at time 0 is first on a stay only after a mount into the
    drive and a load: ``mount_s`` plus the least ``load_s``
    of its library before the locate from 0, time in which that drive
    holds the tape (rule 3) and transfers nothing. The least of those
    options is drive time every schedule spends, on the drive that then
    reads the piece, between that drive's previous transfer and the
    piece's, with the tape in it. O(n log n).
    """
    return context_floors(Context(instance, strong=switches))


def context_floors(ctx: Context) -> dict[tuple[str, int], float]:
    """:func:`locate_floors` with the context at hand."""
    instance = ctx.instance
    by_tape: dict[str, list[tuple[float, tuple[str, int]]]] = {}
    for request in instance.requests:
        for k, piece in enumerate(request.pieces):
            end = float(piece.offset_mb) + float(piece.size_mb)
            by_tape.setdefault(piece.tape, []).append((end, (request.id, k)))
    for ends in by_tape.values():
        ends.sort()
    floors: dict[tuple[str, int], float] = {}
    for request in instance.requests:
        lib = ctx.libraries[ctx.library_of(request)]
        for k, piece in enumerate(request.pieces):
            offset = float(piece.offset_mb)
            held = ctx.held.get(piece.tape)
            speed = lib.max_speed if held is None else max(lib.max_speed, held.speed)
            if held is None:
                setup = lib.mount + lib.min_load if ctx.strong else 0.0
                best = offset / speed + setup
            else:
                best = min(offset, abs(offset - held.head)) / speed
            for end, key in _near(by_tape[piece.tape], offset):
                if key != (request.id, k):
                    best = min(best, abs(offset - end) / speed)
            floors[request.id, k] = best
    return floors


def _near(
    ends: list[tuple[float, tuple[str, int]]], offset: float
) -> list[tuple[float, tuple[str, int]]]:
    """The piece ends of one tape (sorted) nearest ``offset``, two on each side.

    Two, so that a piece's own end (at or after its offset) never hides the
    nearest other one.
    """
    i = bisect_left(ends, (offset,))
    return ends[max(0, i - 2) : i + 2]
