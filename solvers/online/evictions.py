"""Eviction rules: which idle drive's tape a mount takes out, by the tapes' use.

Each rule is an :class:`~solvers.online.mount_protocol.Eviction`: asked,
when a start would evict an idle tape, to choose the drive among the
candidates, it reads each tape's
:class:`~solvers.online.mount_protocol.TapeUse` (when it was mounted and
last used, how often since its mount) and the platform.
:class:`Lru` evicts the tape used least recently, :class:`FifoEviction` the
one mounted first, :class:`Lfu` the one used least often since its mount
(ties: least recently used), :class:`Belady` the one needed again furthest in
the future (Belady's MIN, the optimal paging rule when requests are served
one at a time). Belady is offline: it reads the instance's future releases,
so it runs in the dispatcher over an instance and is refused by the
simulator.

The rules are found by name in
:data:`solvers.online.mount_policy.EVICTIONS` (``lru``, ``fifo``, ``lfu``,
``belady``), where installed packages add theirs.
"""

from __future__ import annotations

import bisect
import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from operator import attrgetter
from typing import Any, ClassVar

from attrs import frozen

from tapesched.solvers.online.mount_protocol import NO_USE, TapeUse
from tapesched.solvers.online.protocol import PlatformState
from tapesched.toolkit.model import Instance


def _tape(platform: PlatformState, drive: str) -> str:
    tape = platform.tape_in(drive)
    assert tape is not None, f"drive {drive!r} holds no tape"
    return tape


class _ByUse(ABC):
    """Evict the candidate whose tape's use ranks lowest by :meth:`rank` (ties: the first)."""

    ranked_by: ClassVar[tuple[str, ...]] = ()
    """The fields of :class:`TapeUse` whose values, in order, are :meth:`rank`'s key (empty:
    :meth:`rank` alone says): the rules here rank by them without a call a candidate."""

    @abstractmethod
    def rank(self, use: TapeUse) -> tuple[float, ...]:
        """The key of a tape's use: the lowest is evicted."""

    def choose(
        self,
        now: float,
        candidates: Sequence[str],
        uses: Mapping[str, TapeUse],
        platform: PlatformState,
    ) -> str:
        """The candidate whose tape's use ranks lowest."""
        # A key of one field is compared as its value: the same order as the 1-tuple's.
        fields = self.ranked_by
        rank: Callable[[TapeUse], Any] = attrgetter(*fields) if fields else self.rank
        tape_in, used = platform.tape_in, uses.get
        chosen, lowest = None, None
        for drive in candidates:
            tape = tape_in(drive)
            assert tape is not None, f"drive {drive!r} holds no tape"
            key = rank(used(tape, NO_USE))
            if lowest is None or key < lowest:
                chosen, lowest = drive, key
        if chosen is None:
            raise ValueError("no candidate to evict")
        return chosen


@frozen
class Lru(_ByUse):
    """Evict the tape used least recently (ties: the first candidate)."""

    ranked_by = ("last_used_s",)

    def rank(self, use: TapeUse) -> tuple[float, ...]:
        """Its last use."""
        return (use.last_used_s,)


@frozen
class FifoEviction(_ByUse):
    """Evict the tape mounted first (ties: least recently used)."""

    ranked_by = ("mounted_s", "last_used_s")

    def rank(self, use: TapeUse) -> tuple[float, ...]:
        """Its mount, then its last use."""
        return (use.mounted_s, use.last_used_s)


@frozen
class Lfu(_ByUse):
    """Evict the tape used least often since its mount (ties: least recently used)."""

    ranked_by = ("uses", "last_used_s")

    def rank(self, use: TapeUse) -> tuple[float, ...]:
        """Requests it served since its mount, then its last use."""
        return (use.uses, use.last_used_s)


class Belady:
    """Evict the tape needed again furthest in the future (offline: Belady's MIN).

    A tape some waiting request reads is needed now; otherwise its next use
    is the next release after now of a request with a piece on it, read
    from the instance (which an online policy may not do: this rule is a
    yardstick). A tape never needed again goes first; ties go to the least
    recently used.

    Parameters
    ----------
    instance
        The instance dispatched.
    future
        Arrival times of the requests for each tape, when the run is not an
        instance's (a trace replayed in the simulator knows its future).
    """

    def __init__(
        self,
        instance: Instance | None = None,
        *,
        future: Mapping[str, Sequence[float]] | None = None,
    ) -> None:
        releases: dict[str, list[float]] = {}
        if instance is not None:
            for request in instance.requests:
                for piece in request.pieces:
                    releases.setdefault(piece.tape, []).append(request.release_s)
        for tape, times in (future or {}).items():
            releases.setdefault(tape, []).extend(times)
        for times in releases.values():
            times.sort()
        self._releases = releases

    def next_use_s(self, tape: str, now: float, platform: PlatformState) -> float:
        """When ``tape`` is next needed: now if a request waits for it, else its next release."""
        if platform.waiting_on(tape):
            return now
        times = self._releases.get(tape, [])
        k = bisect.bisect_right(times, now)
        return times[k] if k < len(times) else math.inf

    def choose(
        self,
        now: float,
        candidates: Sequence[str],
        uses: Mapping[str, TapeUse],
        platform: PlatformState,
    ) -> str:
        """The candidate whose tape's next use is latest."""

        def key(d: str) -> tuple[float, float]:
            tape = _tape(platform, d)
            return (-self.next_use_s(tape, now, platform), uses.get(tape, NO_USE).last_used_s)

        return min(candidates, key=key)
