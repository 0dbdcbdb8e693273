"""What the exact enumeration (:mod:`.exact_enumeration`) of one library works on.

A node of the search (:class:`State`), the events it lists (:data:`Event`),
and :class:`LibraryTables`: one library's drives, tapes and requests as
plain lists of floats indexed by drive, tape and request, read once from the
instance, which the lower bound (:mod:`.enumeration_bound`) and the search
(:mod:`.enumeration_search`) both read.
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from tapesched.toolkit.model import Instance, Library, Request

EMPTY = -1
"""Tape index of an empty drive in a state."""

SPARE = -2
"""Tape index, in a dominance key, of a tape that no request left needs."""

Event = tuple[str, int, tuple[int, ...], float]
"""``(kind, index, drives, time)``: ``("start", request, drives per piece, S_j)``,
``("mount", tape, (drive,), start)`` or ``("dismount", tape, (drive,), start)``."""


@attrs.frozen
class State:
    """A node of the search: what the events listed so far leave behind.

    Attributes
    ----------
    done
        Bit ``j`` set when request ``j`` is placed.
    t
        Time of the last event; every later event is at ``t`` or after.
    value
        Objective of the requests placed (a sum or a maximum).
    holds
        Per drive, the tape it holds, or :data:`EMPTY`.
    heads
        Per drive, its head's offset (0 when empty).
    frees
        Per drive holding a tape, when its last action ends (the end of its
        last request, or of the load); per empty drive, when the dismount
        that emptied it ended.
    unloads
        Per drive holding a tape, when an arm may start dismounting it at the
        earliest: the last action plus ``unload_s``.
    dismountable
        Per drive, whether its tape may be dismounted: a tape there at time
        0, or one that has served a request since its mount.
    slots
        Per tape, when it was last back in its slot.
    arms
        The ``arms`` latest ends of arm operations, in increasing order.

    Every time below ``t`` other than a drive's last action is stored as 0,
    since it can only enter a maximum with a time of ``t`` or later.
    """

    done: int
    t: float
    value: float
    holds: tuple[int, ...]
    heads: tuple[float, ...]
    frees: tuple[float, ...]
    unloads: tuple[float, ...]
    dismountable: tuple[bool, ...]
    slots: tuple[float, ...]
    arms: tuple[float, ...]


class StateLimitError(RuntimeError):
    """The search expanded more states than it was allowed to."""


def bits(mask: int) -> Iterator[int]:
    """The set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


class LibraryTables:
    """One library's requests, drives and tapes, as lists indexed by request, drive and tape.

    Parameters
    ----------
    instance
        The whole instance (for its objective and initial tapes).
    library
        The library searched.
    requests
        That library's requests.
    """

    def __init__(self, instance: Instance, library: Library, requests: tuple[Request, ...]) -> None:
        self.objective = instance.objective
        self.library = library
        self.drives = instance.drives_of_library[library.id]
        self.requests = requests
        drive_index = {d.id: i for i, d in enumerate(self.drives)}
        tape_ids: list[str] = []
        for request in requests:
            tape_ids.extend(p.tape for p in request.pieces)
        initial = {drive_index[x.drive]: x.tape for x in instance.initial if x.drive in drive_index}
        tape_ids.extend(initial.values())
        self.tape_ids = list(dict.fromkeys(tape_ids))
        tape_index = {t: i for i, t in enumerate(self.tape_ids)}
        self.rate = [float(d.rate_mb_s) for d in self.drives]
        self.load = [float(d.load_s) for d in self.drives]
        self.unload = [float(d.unload_s) for d in self.drives]
        self.locate = [float(d.floor_speed_mb_s) for d in self.drives]
        """A speed no locate beats: ``locate_mb_s``; infinite on a serpentine drive."""
        capacity = {t.id: float(t.capacity_mb) for t in instance.tapes}
        self.capacity = [capacity[t] for t in self.tape_ids]
        self.mount_s = float(library.mount_s)
        self.dismount_s = float(library.dismount_s)
        self.release = [float(r.release_s) for r in requests]
        self.weight = [float(r.weight) for r in requests]
        self.pieces = [
            tuple(
                (
                    tape_index[p.tape],
                    float(p.offset_mb),
                    float(p.size_mb),
                    float(p.offset_mb + p.size_mb),
                )
                for p in r.pieces
            )
            for r in requests
        ]
        self.need = [0] * len(self.tape_ids)
        for j, pieces in enumerate(self.pieces):
            for piece in pieces:
                self.need[piece[0]] |= 1 << j
        self.all = (1 << len(requests)) - 1
        self.initial_holds = tuple(
            tape_index[initial[i]] if i in initial else EMPTY for i in range(len(self.drives))
        )
        """Per drive, the tape it holds at time 0, or :data:`EMPTY`."""
