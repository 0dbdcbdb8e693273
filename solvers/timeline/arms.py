"""Arm timeline of one library: where the next mount or dismount fits.

At most ``arms`` arm operations may overlap at any instant. The timeline keeps
``arms`` lanes, each a set of non-overlapping busy intervals ``[start, end)``:
intervals that fit in that many lanes never overlap more than ``arms`` at
once, so any placement made through the lanes is feasible. (A set of
intervals overlapping at most ``arms`` deep can always be split into that
many lanes, but lanes filled online may leave unused a gap that a re-split
would expose; the timeline trades that for fast placements.)

A lane is stored as its free gaps, sorted, the last one open-ended. For each
duration announced at construction (a library has two: ``mount_s`` and
``dismount_s``) a lane also keeps the sorted starts of the gaps long enough
to hold it, so that the first fitting gap after a time is one bisection away
however fragmented the lane is: a saturated library, whose lanes are busy far
into the future, costs no more per placement than an idle one.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from collections.abc import Iterable

NO_LANE = -1
"""Lane of an operation that occupies no arm (zero length)."""

_INF = float("inf")


def _fits(start: float, end: float, duration: float) -> bool:
    """Whether the gap ``[start, end)`` holds ``duration`` from its start."""
    return start + duration <= end


class ArmTimeline:
    """Busy intervals of a library's arms, split into lanes.

    Parameters
    ----------
    arms
        Number of arms of the library (>= 1).
    durations
        Durations that :meth:`earliest` will mostly be asked for; each gets an
        index that finds the first gap long enough in logarithmic time. Other
        durations are served by a scan over the gaps.
    """

    __slots__ = ("_ends", "_fits", "_starts")

    def __init__(self, arms: int, durations: Iterable[float] = ()) -> None:
        if arms < 1:
            raise ValueError(f"a library needs at least one arm, got {arms}")
        self._starts: list[list[float]] = [[-_INF] for _ in range(arms)]
        self._ends: list[list[float]] = [[_INF] for _ in range(arms)]
        self._fits: dict[float, list[list[float]]] = {
            d: [[-_INF] for _ in range(arms)] for d in sorted(set(durations)) if d > 0
        }

    def earliest(self, earliest_s: float, duration_s: float) -> tuple[float, int]:
        """Earliest start at or after ``earliest_s`` of an operation of ``duration_s``.

        Returns
        -------
        tuple
            ``(start_s, lane)``: the earliest gap over all lanes that holds the
            operation, and its lane (the first such lane on ties, which packs
            operations into the first lanes and keeps the last ones open); a
            zero-length operation starts at ``earliest_s`` on ``NO_LANE``.
        """
        if duration_s <= 0:
            return earliest_s, NO_LANE
        fits = self._fits.get(duration_s)
        best = _INF
        best_lane = NO_LANE
        for lane, starts in enumerate(self._starts):
            if starts[-1] <= earliest_s:
                return earliest_s, lane
            ends = self._ends[lane]
            i = bisect_right(starts, earliest_s) - 1
            if earliest_s + duration_s <= ends[i]:
                return earliest_s, lane
            if fits is not None:
                fit = fits[lane]
                t = fit[bisect_right(fit, earliest_s)]
            else:
                i += 1
                while not _fits(starts[i], ends[i], duration_s):
                    i += 1
                t = starts[i]
            if t < best:
                best, best_lane = t, lane
        return best, best_lane

    def reserve(self, start_s: float, duration_s: float, lane: int) -> None:
        """Occupy ``[start_s, start_s + duration_s)`` on ``lane``, as :meth:`earliest` found.

        An interval that is empty in floating point (its end rounds to its
        start) takes no arm and is not stored.

        Raises
        ------
        ValueError
            When the interval is not free on that lane.
        """
        end_s = start_s + duration_s
        if lane == NO_LANE or end_s <= start_s:
            return
        starts, ends = self._starts[lane], self._ends[lane]
        i = bisect_right(starts, start_s) - 1
        a, b = starts[i], ends[i]
        if end_s > b:
            raise ValueError(f"[{start_s}, {end_s}) is not free on lane {lane}")
        pieces = [(x, y) for x, y in ((a, start_s), (end_s, b)) if y > x]
        self._replace(lane, i, 1, pieces)

    def release(self, start_s: float, duration_s: float, lane: int) -> None:
        """Free what :meth:`reserve` occupied with the same arguments."""
        end_s = start_s + duration_s
        if lane == NO_LANE or end_s <= start_s:
            return
        starts, ends = self._starts[lane], self._ends[lane]
        i = bisect_right(starts, start_s) - 1
        if ends[i] > start_s or starts[i + 1] < end_s:
            raise ValueError(f"[{start_s}, {end_s}) is not busy on lane {lane}")
        first, count = i + 1, 0
        merged_start, merged_end = start_s, end_s
        if ends[i] == start_s:
            first, count, merged_start = i, 1, starts[i]
        if starts[i + 1] == end_s:
            count, merged_end = count + 1, ends[i + 1]
        self._replace(lane, first, count, [(merged_start, merged_end)])

    def _replace(self, lane: int, first: int, count: int, gaps: list[tuple[float, float]]) -> None:
        """Replace ``count`` gaps of ``lane`` from index ``first`` by ``gaps``."""
        starts, ends = self._starts[lane], self._ends[lane]
        for duration, per_lane in self._fits.items():
            fit = per_lane[lane]
            for k in range(first, first + count):
                if _fits(starts[k], ends[k], duration):
                    del fit[bisect_left(fit, starts[k])]
            for x, y in gaps:
                if _fits(x, y, duration):
                    insort(fit, x)
        starts[first : first + count] = [x for x, _ in gaps]
        ends[first : first + count] = [y for _, y in gaps]

    def busy(self) -> list[tuple[float, float]]:
        """Busy stretches of every lane (abutting operations merged), sorted by start."""
        out: list[tuple[float, float]] = []
        for starts, ends in zip(self._starts, self._ends, strict=True):
            out.extend(zip(ends[:-1], starts[1:], strict=True))
        out.sort()
        return out
