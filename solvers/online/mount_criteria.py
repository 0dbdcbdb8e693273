"""Mount criteria: which held-back tape queues may trigger a mount, as CTA and dCache decide.

Each is a :class:`~solvers.online.mount_protocol.Criteria`, asked with the
held-back reads queued by tape (in arrival order) and the number of tapes
at work:

- :class:`CtaCriteria`: CERN CTA's rule for a retrieve mount
  (``scheduler/Scheduler.cpp``,
  ``Scheduler::sortAndGetTapesForMountInfo``): the queue's bytes reach
  ``minBytesToWarrantAMount``, or its files ``minFilesToWarrantAMount``, or
  its oldest request is older than the mount policy's
  ``retrieveMinRequestAge``; at most ``readMaxDrives`` mounts.
- :class:`DCacheSelection`: dCache's ``TapeRecallSchedulingStrategy`` and
  ``TapeRecallSchedulingRequirementsChecker``: at most ``maxActiveTapes``
  tapes active; a tape whose oldest request passed the maximum waiting time
  first, oldest first; else, among tapes without a new request for the
  minimum waiting time, the one with the largest recall volume, if it is at
  least the minimum share of the tape's capacity.

Spec syntax (``cta:...``, ``dcache:...``) is read by
:func:`solvers.online.mount_policy.parse_mount_policy`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

from attrs import frozen

from tapesched.solvers.online.protocol import PlatformState
from tapesched.toolkit.model import Request


def _oldest_s(queue: Sequence[Request]) -> float:
    if len(queue) == 1:
        return queue[0].release_s
    return min(request.release_s for request in queue)


@frozen
class CtaCriteria:
    """CERN CTA's retrieve mount criteria, per tape queue.

    A queue may mount when its bytes reach ``min_mb``, or its files
    ``min_files``, or its oldest request has waited ``min_age_s``
    (``scheduler/Scheduler.cpp`` of cern-cta/CTA: ``bytesQueued >=
    minBytesToWarrantAMount``, ``filesQueued >= minFilesToWarrantAMount``,
    ``now - oldestJobStartTime > minRequestAge``; here the age passes at
    equality, so that a wake-up at that time finds it passed). With
    ``max_drives``, at most that many tapes are at work at once (CTA's
    ``readMaxDrives`` of the virtual organisation). Queues are admitted
    oldest request first.
    """

    min_age_s: float
    min_mb: float = math.inf
    min_files: float = math.inf
    max_drives: int | None = None

    def passes(self, now: float, queue: Sequence[Request]) -> bool:
        """Whether ``queue`` warrants a mount at ``now``."""
        if len(queue) >= self.min_files or now >= _oldest_s(queue) + self.min_age_s:
            return True  # the age compared as recheck_s computes it: a wake-up passes
        return self.min_mb < math.inf and sum(r.size_mb for r in queue) >= self.min_mb

    def admit(
        self,
        now: float,
        queues: Mapping[str, Sequence[Request]],
        active: int,
        platform: PlatformState,
    ) -> Sequence[str]:
        """The tapes whose queues pass, oldest request first, within ``max_drives``."""
        passing = sorted(
            (t for t, queue in queues.items() if self.passes(now, queue)),
            key=lambda t: (_oldest_s(queues[t]), t),
        )
        if self.max_drives is not None:
            passing = passing[: max(0, self.max_drives - active)]
        return passing

    def recheck_s(self, now: float, queues: Mapping[str, Sequence[Request]]) -> float | None:
        """When the oldest held-back request next reaches the minimum age."""
        times = [_oldest_s(queue) + self.min_age_s for queue in queues.values()]
        later = [t for t in times if t > now]
        return min(later) if later else None


@frozen
class DCacheSelection:
    """dCache's tape recall selection (``TapeRecallSchedulingStrategy.selectNextTapeToActivate``).

    While fewer than ``max_tapes`` tapes are active, the next tape admitted
    is: the one whose oldest request has waited ``max_age_s`` (the oldest
    such first); else, among the tapes with no new request for
    ``min_wait_s``, the one with the largest recall volume, if that volume
    is at least ``min_share`` of the tape's capacity. dCache's defaults are
    1 tape, 80 %, 2 min and 1 h
    (``TapeRecallSchedulingRequirementsChecker``); its other rules (a tape
    whose used space is 95 % recalled, a minimum request count) are left
    out.

    Parameters
    ----------
    capacity_mb
        Capacity of a tape, by id (the instance's tapes, or the simulated
        platform's one capacity).
    """

    capacity_mb: Callable[[str], float]
    min_share: float = 0.8
    min_wait_s: float = 120.0
    max_age_s: float = 3600.0
    max_tapes: int = 1

    def admit(
        self,
        now: float,
        queues: Mapping[str, Sequence[Request]],
        active: int,
        platform: PlatformState,
    ) -> Sequence[str]:
        """The tapes to activate now, in dCache's order, as many as there are free slots."""
        chosen: list[str] = []
        left = dict(queues)
        while active + len(chosen) < self.max_tapes and left:
            tape = self._next(now, left)
            if tape is None:
                break
            chosen.append(tape)
            del left[tape]
        return chosen

    def _next(self, now: float, queues: Mapping[str, Sequence[Request]]) -> str | None:
        # Times compared as recheck_s computes them, so that a wake-up finds them passed.
        expired = [t for t, q in queues.items() if now >= _oldest_s(q) + self.max_age_s]
        if expired:
            return min(expired, key=lambda t: (_oldest_s(queues[t]), t))
        quiet = [
            t for t, q in queues.items() if now >= max(r.release_s for r in q) + self.min_wait_s
        ]
        volume = {t: sum(r.size_mb for r in queues[t]) for t in quiet}
        enough = [t for t in quiet if volume[t] >= self.min_share * self.capacity_mb(t)]
        if not enough:
            return None
        return max(enough, key=lambda t: (volume[t], t))

    def recheck_s(self, now: float, queues: Mapping[str, Sequence[Request]]) -> float | None:
        """When a held-back queue next expires or falls quiet."""
        times: list[float] = []
        for queue in queues.values():
            times.append(_oldest_s(queue) + self.max_age_s)
            times.append(max(r.release_s for r in queue) + self.min_wait_s)
        later = [t for t in times if t > now]
        return min(later) if later else None
