"""Mount policies: which idle tape a mount evicts, when an idle tape goes, which queue may mount.

A scheduler (:class:`~solvers.online.protocol.Scheduler`) says which
waiting request starts; a *mount policy* (:class:`MountPolicy`, the plug
point of this module) says three things about the tapes around it, and
:class:`MountPolicied` composes any scheduler with any mount policy into a
scheduler again, so that it runs unchanged in the solvers' dispatcher and
in the simulator:

Eviction (:meth:`MountPolicy.evict`)
    When the scheduler starts a request whose tape is not mounted and the
    placement would take an idle drive holding another tape, the policy
    chooses that drive among the idle drives holding a tape that may stand
    in for it (:meth:`~solvers.online.protocol.PlatformState.peers`: its
    library's, the simulator's mover's: on drives of unequal timings the
    rule then chooses the drive's speed too, as a tape system evicting by
    tape does); an empty idle drive, when the placement takes one, is never
    second-guessed. ``keep`` (``None``) leaves
    the placement's own choice: the timeline's over an instance (the drive
    available first, which is the least recently used one of its class), the
    lowest numbered in the simulator; it is the default, and every result
    without a mount policy is the one of before. :class:`Lru` evicts the
    tape used least recently, :class:`FifoEviction` the one mounted first,
    :class:`Lfu` the one used least often since its mount (ties: least
    recently used), :class:`Belady` the one needed again furthest in the
    future (Belady's MIN, the optimal paging rule when requests are served
    one at a time). Belady is offline: it reads the instance's future
    releases, so it runs in the dispatcher over an instance and is refused
    by the simulator.

Dismount (:meth:`MountPolicy.dismount_s`)
    When an idle drive's tape, which no waiting request reads, is put away:
    never (``None``, keep mounted until a mount needs the drive or the
    tape), at once (``at-once``, as ``fifo-dismount-at-once``), or ``T``
    seconds after its last use (``defer:T``, the ECMWF and CTA practice of a
    dismount delay). The drive's last use is when it became idle, as
    :class:`MountPolicied` sees it at the decision time of that event; the
    deferred dismount is due at that time plus ``T``, which
    :meth:`MountPolicied.wake_s` asks both loops to be woken at.

Mount criteria (:meth:`MountPolicy.admit`)
    Which waiting reads may make a tape be mounted (the criteria are those
    of recalls: a write, whose tapes the simulator chooses when it starts,
    is never held back). A read whose tapes are all held by a drive (idle
    or busy) needs no mount and is shown to the scheduler at once. The
    others are held back, queued by their first tape in no drive, until
    the policy admits that tape (or a start mounts it):
    :class:`CtaCriteria` (CERN CTA's rule for a retrieve mount,
    ``scheduler/Scheduler.cpp``,
    ``Scheduler::sortAndGetTapesForMountInfo``: the queue's bytes reach
    ``minBytesToWarrantAMount``, or its files ``minFilesToWarrantAMount``,
    or its oldest request is older than the mount policy's
    ``retrieveMinRequestAge``; at most ``readMaxDrives`` mounts) and
    :class:`DCacheSelection` (dCache's ``TapeRecallSchedulingStrategy`` and
    ``TapeRecallSchedulingRequirementsChecker``: at most ``maxActiveTapes``
    tapes active; a tape whose oldest request passed the maximum waiting
    time first, oldest first; else, among tapes without a new request for
    the minimum waiting time, the one with the largest recall volume, if it
    is at least the minimum share of the tape's capacity). Once admitted, a
    request stays shown until it starts (it does not hide again if its tape
    is evicted meanwhile). The scheduler sees the shown requests in the
    order they were shown, which is their order of arrival as it reads it
    (:meth:`~solvers.online.protocol.PlatformState.arrival`), so that the
    schedulers that keep rankings across calls (``wspt``, ``stretch``) work
    unchanged.

Specs (:func:`parse_mount_policy`)
    ``keep``, ``lru``, ``fifo``, ``lfu``, ``belady``, ``at-once``,
    ``defer:T`` (a duration: ``300``, ``5min``),
    ``cta:bytes=B,files=N,age=T[,drives=D]`` (``bytes`` with an optional
    unit, ``2GB``; ``age`` required: CTA's mount policies always carry a
    minimum request age, and without one a short queue would wait for
    ever), ``dcache:share=S,min-wait=T,max-age=T,tapes=N`` (dCache's
    defaults: 0.8, 2min, 1h, 1), joined by ``+`` (``lru+defer:300``,
    ``cta:...+lfu``; one of each kind); or ``module.path:Attr``, a
    mount policy of one's own (a class or factory called with no arguments,
    or an object), as schedulers are plugged in (:mod:`solvers.plugins`).
"""

from __future__ import annotations

import bisect
import copy
import inspect
import math
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol, cast, runtime_checkable

from attrs import frozen

from tapesched.solvers.online.filtered import FilteredPlatform
from tapesched.solvers.online.protocol import (
    Decision,
    Dismount,
    PlatformState,
    Scheduler,
    Start,
)
from tapesched.solvers.online.state import WaitingRequests
from tapesched.toolkit.model import Instance, Request
from tapesched.toolkit.registry import LoadError, load_spec
from tapesched.toolkit.runtime.plugin_calls import PluginError, call_plugin, exception_line
from tapesched.toolkit.units import parse_duration

if TYPE_CHECKING:  # numpy is imported only when a serpentine locate is ordered
    pass


@frozen
class TapeUse:
    """What :class:`MountPolicied` knows of a tape's use: for the eviction rules.

    Attributes
    ----------
    mounted_s
        When the tape was last mounted by a decision (``-inf``: before the
        run, an initial tape).
    last_used_s
        When a request last started on it.
    uses
        Requests started on it since that mount.
    """

    mounted_s: float = -math.inf
    last_used_s: float = -math.inf
    uses: int = 0


NO_USE = TapeUse()
"""The use of a tape no decision has touched."""


@runtime_checkable
class MountPolicy(Protocol):
    """The plug point: what :class:`MountPolicied` asks a mount policy (see the module's text).

    Any object with these four methods is a mount policy; :class:`Rules`
    combines the project's rules, one of each kind.
    """

    def evict(
        self,
        now: float,
        candidates: Sequence[str],
        uses: Mapping[str, TapeUse],
        platform: PlatformState,
    ) -> str | None:
        """The drive (one of ``candidates``, idle drives holding a tape) whose tape a mount evicts.

        ``uses`` maps tapes to their :class:`TapeUse` (absent: :data:`NO_USE`);
        ``None`` leaves the placement's own choice.
        """
        ...

    def dismount_s(self, tape: str, idle_since_s: float) -> float | None:
        """When the idle ``tape``, idle since ``idle_since_s`` and read by no waiting request,
        is put away (``None``: never, it stays until a mount needs it)."""
        ...

    def admit(
        self,
        now: float,
        queues: Mapping[str, Sequence[Request]],
        active: int,
        platform: PlatformState,
    ) -> Sequence[str] | None:
        """Tapes whose held-back requests (``queues``, by tape, in arrival order; read-only)
        may now be shown.

        ``active`` is the number of tapes admitted and still at work (with
        shown requests waiting, or in a busy drive). ``None`` means no
        criteria: every request is shown at once.
        """
        ...

    def recheck_s(self, now: float, queues: Mapping[str, Sequence[Request]]) -> float | None:
        """The next time :meth:`admit` may change its answer with nothing else happening
        (an age passing), or ``None``."""
        ...


# Eviction rules.


class Eviction(Protocol):
    """One eviction rule: the drive whose tape goes, among ``candidates``."""

    def choose(
        self,
        now: float,
        candidates: Sequence[str],
        uses: Mapping[str, TapeUse],
        platform: PlatformState,
    ) -> str: ...


def _tape(platform: PlatformState, drive: str) -> str:
    tape = platform.tape_in(drive)
    assert tape is not None, f"drive {drive!r} holds no tape"
    return tape


class _ByUse(ABC):
    """Evict the candidate whose tape's use ranks lowest by :meth:`rank` (ties: the first)."""

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
        rank, tape_in = self.rank, platform.tape_in
        chosen, lowest = None, None
        for drive in candidates:
            tape = tape_in(drive)
            assert tape is not None, f"drive {drive!r} holds no tape"
            key = rank(uses.get(tape, NO_USE))
            if lowest is None or key < lowest:
                chosen, lowest = drive, key
        if chosen is None:
            raise ValueError("no candidate to evict")
        return chosen


@frozen
class Lru(_ByUse):
    """Evict the tape used least recently (ties: the first candidate)."""

    def rank(self, use: TapeUse) -> tuple[float, ...]:
        """Its last use."""
        return (use.last_used_s,)


@frozen
class FifoEviction(_ByUse):
    """Evict the tape mounted first (ties: least recently used)."""

    def rank(self, use: TapeUse) -> tuple[float, ...]:
        """Its mount, then its last use."""
        return (use.mounted_s, use.last_used_s)


@frozen
class Lfu(_ByUse):
    """Evict the tape used least often since its mount (ties: least recently used)."""

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


# Mount criteria.


class Criteria(Protocol):
    """One rule of which held-back tape queues may mount (:meth:`MountPolicy.admit`)."""

    def admit(
        self,
        now: float,
        queues: Mapping[str, Sequence[Request]],
        active: int,
        platform: PlatformState,
    ) -> Sequence[str]: ...

    def recheck_s(self, now: float, queues: Mapping[str, Sequence[Request]]) -> float | None: ...


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


# The project's mount policy: one rule of each kind.


@frozen
class Rules:
    """A :class:`MountPolicy` made of one eviction rule, one dismount delay and one criterion.

    Attributes
    ----------
    eviction
        ``None``: the placement's own choice (keep-mounted as before).
    idle_s
        Seconds an unneeded tape stays in its idle drive (0: at once);
        ``None``: it stays until a mount needs the drive or the tape.
    criteria
        ``None``: every waiting request may trigger a mount.
    """

    eviction: Eviction | None = None
    idle_s: float | None = None
    criteria: Criteria | None = None

    def evict(
        self,
        now: float,
        candidates: Sequence[str],
        uses: Mapping[str, TapeUse],
        platform: PlatformState,
    ) -> str | None:
        """The eviction rule's choice, or ``None`` without one."""
        if self.eviction is None:
            return None
        return self.eviction.choose(now, candidates, uses, platform)

    def dismount_s(self, tape: str, idle_since_s: float) -> float | None:
        """``idle_since_s + idle_s``, or ``None`` to keep the tape."""
        return None if self.idle_s is None else idle_since_s + self.idle_s

    def admit(
        self,
        now: float,
        queues: Mapping[str, Sequence[Request]],
        active: int,
        platform: PlatformState,
    ) -> Sequence[str] | None:
        """The criterion's tapes, or ``None`` without one."""
        if self.criteria is None:
            return None
        return self.criteria.admit(now, queues, active, platform)

    def recheck_s(self, now: float, queues: Mapping[str, Sequence[Request]]) -> float | None:
        """The criterion's next recheck."""
        return None if self.criteria is None else self.criteria.recheck_s(now, queues)


KEEP = Rules()
"""Keep mounted, the placement's eviction, no criteria: the behaviour without a mount policy."""


# The composition with a scheduler.


class _Shown(FilteredPlatform):
    """The platform as the inner scheduler sees it under mount criteria: shown requests only.

    Every method is the platform's, except that a request held back is not
    waiting, and the rank of arrival is the rank in which requests were
    shown.
    """

    def __init__(self, platform: PlatformState, shown: dict[str, int], by_rank: dict[int, Request]):
        super().__init__(platform)
        self._shown = shown
        self._by_rank = by_rank

    def arrival(self, request: Request) -> int:
        """Rank in which ``request`` was shown."""
        return self._shown[request.id]

    def is_waiting(self, request: Request) -> bool:
        """Whether ``request`` is shown and not started."""
        return request.id in self._shown and self._p.is_waiting(request)

    def waiting_on(self, tape: str) -> Sequence[Request]:
        """Shown waiting requests on ``tape``, in the order shown."""
        shown = self._shown
        on = [r for r in self._p.waiting_on(tape) if r.id in shown]
        on.sort(key=lambda r: shown[r.id])
        return on


class MountPolicied:
    """A scheduler run under a mount policy: a :class:`~solvers.online.protocol.Scheduler` again.

    At each call: the drives that became idle holding a tape are noted
    (their last use), held-back requests are shown as the policy admits
    them (when it has criteria), the inner scheduler decides among the
    shown requests, a start that would evict an idle tape evicts the one
    the policy chooses (:meth:`MountPolicy.evict`, the start then names its
    drives), and when the inner scheduler waits, each idle drive whose tape
    no waiting request reads and whose dismount is due is put away, drives
    in platform order. :meth:`wake_s` asks to be woken when the next
    dismount or criterion falls due.

    Parameters
    ----------
    inner
        The scheduler choosing which request starts.
    policy
        The mount policy.
    """

    def __init__(self, inner: Scheduler, policy: MountPolicy) -> None:
        self.inner = inner
        self.policy = policy
        self.uses: dict[str, TapeUse] = {}
        """What is known of each tape's use (see :class:`TapeUse`)."""
        self._idle_since: dict[str, tuple[str, float]] = {}
        """Tape and idle-since time of each idle drive holding a tape, in platform order."""
        self._noted: tuple[float, int] | None = None
        """Decision time and idle holding count when the idle drives were last noted."""
        self._shown_at: tuple[float, int] | None = None
        """Decision time and idle drives when held-back requests were last weighed."""
        self._fresh = False
        """Whether requests were held back since they were last weighed."""
        self._criteria: bool | None = None
        """Whether the policy has criteria (asked once, at the first call)."""
        self._dismounts = not (isinstance(policy, Rules) and policy.idle_s is None)
        """Whether idle tapes may be put away (all but the project's keep-mounted rules)."""
        self._seen = -1
        self._held: dict[str, list[Request]] = {}
        """Held-back reads by their first tape in no drive, in arrival order."""
        self._shown: dict[str, int] = {}
        self._shown_by_rank: dict[int, Request] = {}
        self._shown_waiting = WaitingRequests(self._shown_by_rank)
        self._active: set[str] = set()
        self._next_rank = 0

    # The protocol.

    def decide(
        self, now: float, waiting: Sequence[Request], platform: PlatformState
    ) -> Decision | None:
        """The inner scheduler's decision under the mount policy (see the class)."""
        if self._criteria is None:
            self._criteria = self.policy.admit(now, {}, 0, platform) is not None
        if self._dismounts:
            self._note_idle(now, platform)
        if self._criteria:
            self._hold_back(waiting, platform)
            self._show(now, platform)
            shown = _Shown(platform, self._shown, self._shown_by_rank)
            decision = self.inner.decide(now, self._shown_waiting, shown)
        else:
            decision = self.inner.decide(now, waiting, platform)
        if isinstance(decision, Start):
            decision = self._evicting(now, decision, platform)
            self._record(now, decision.request, platform)
            return decision
        if decision is not None or not self._dismounts:
            return decision
        return self._due_dismount(now, platform)

    def wake_s(self, now: float) -> float | None:
        """The next time a dismount or a criterion falls due, after ``now`` (or ``None``)."""
        if not self._idle_since and not self._held:
            return None
        times: list[float] = []
        for tape, since in self._idle_since.values():
            due = self.policy.dismount_s(tape, since)
            if due is not None and due > now:
                times.append(due)
        if self._held:
            recheck = self.policy.recheck_s(now, self._queues())
            if recheck is not None and recheck > now:
                times.append(recheck)
        return min(times) if times else None

    # Idle tapes and dismounts.

    def _note_idle(self, now: float, platform: PlatformState) -> None:
        """Note, for each idle drive holding a tape, since when it is idle with that tape.

        Done at the first call of a decision time, and again when the number
        of idle drives holding a tape changed: within a decision time it
        only falls as decisions take drives, so that a drive found idle is
        idle since the time it was first found so.
        """
        noted = (now, platform.idle_holding_count())
        if noted == self._noted:
            return
        self._noted = noted
        since = self._idle_since
        current = {}
        for drive in platform.idle_drives(holding=True):
            tape = platform.tape_in(drive)
            if tape is None:
                continue
            known = since.get(drive)
            current[drive] = known if known is not None and known[0] == tape else (tape, now)
        self._idle_since = current

    def _due_dismount(self, now: float, platform: PlatformState) -> Dismount | None:
        """The first idle drive (in platform order) whose tape is unneeded and due to go."""
        for drive, (tape, since) in self._idle_since.items():
            due = self.policy.dismount_s(tape, since)
            if due is None or due > now or platform.waiting_on(tape):
                continue
            if platform.is_idle(drive) and platform.tape_in(drive) == tape:
                return Dismount(drive)
        return None

    # Eviction.

    def _evicting(self, now: float, decision: Start, platform: PlatformState) -> Start:
        """``decision`` with the evicting drives the policy chooses (as it is without a choice)."""
        if decision.drives is not None or decision.queue:
            return decision
        request = decision.request
        tapes = {piece.tape for piece in request.pieces}
        holder = platform.holder
        for tape in tapes:
            if holder(tape) is None:
                break
        else:
            return decision
        preview = platform.plan(request)
        drives = list(preview.drives)
        taken = set(drives)
        changed = False
        idle_peers = getattr(platform, "idle_peers", None)
        for k, drive in enumerate(preview.drives):
            held = platform.tape_in(drive)
            if held is None or held in tapes:
                continue
            # A platform may list its idle peers and their tapes itself (optional: the
            # simulator's state does, one call for the whole mover).
            peers: Iterable[tuple[str, str | None]] = (
                idle_peers(drive)
                if idle_peers is not None
                else (
                    (d, platform.tape_in(d)) for d in platform.peers(drive) if platform.is_idle(d)
                )
            )
            candidates = [
                d
                for d, t in peers
                if (d == drive or d not in taken) and t is not None and t not in tapes
            ]
            chosen = self.policy.evict(now, candidates, self.uses, platform)
            if chosen is None or chosen == drive:
                continue
            if chosen not in candidates:
                raise ValueError(f"the mount policy evicted {chosen!r}, not a candidate")
            drives[k] = chosen
            taken.add(chosen)
            taken.discard(drive)
            changed = True
        return Start(request, drives=tuple(drives)) if changed else decision

    def _record(self, now: float, request: Request, platform: PlatformState) -> None:
        """Note ``request``'s start (before it is carried out): a use of each of its tapes, a
        mount of those no drive holds; it is no longer shown."""
        uses = self.uses
        pieces = request.pieces
        for tape in (pieces[0].tape,) if len(pieces) == 1 else {piece.tape for piece in pieces}:
            use = uses.get(tape, NO_USE)
            if platform.holder(tape) is None:
                use = TapeUse(now, now, 1)
            else:
                use = TapeUse(use.mounted_s, now, use.uses + 1)
            uses[tape] = use
        if self._criteria:
            rank = self._shown.pop(request.id, None)
            if rank is not None:
                self._shown_by_rank.pop(rank, None)
            for piece in request.pieces:  # mounted now: what waits on it needs no mount
                queue = self._held.pop(piece.tape, None)
                for held in () if queue is None else queue:
                    self._reveal(held)

    # Mount criteria.

    def _hold_back(self, waiting: Sequence[Request], platform: PlatformState) -> None:
        """Take the new arrivals: shown at once when they need no mount (or are writes), else
        held back."""
        fresh: list[Request] = []
        for request in reversed(waiting):
            if platform.arrival(request) <= self._seen:
                break
            fresh.append(request)
        for request in reversed(fresh):
            self._seen = max(self._seen, platform.arrival(request))
            unheld = [p.tape for p in request.pieces if platform.holder(p.tape) is None]
            if request.kind != "read" or not unheld:
                self._reveal(request)
            else:
                self._held.setdefault(unheld[0], []).append(request)
                self._fresh = True

    def _reveal(self, request: Request) -> None:
        rank = self._next_rank
        self._next_rank += 1
        self._shown[request.id] = rank
        self._shown_by_rank[rank] = request
        self._active.add(request.pieces[0].tape)

    def _queues(self) -> Mapping[str, Sequence[Request]]:
        return self._held

    def _show(self, now: float, platform: PlatformState) -> None:
        """Show the held-back requests that the policy admits.

        Weighed again when the decision time, the number of idle drives (a
        drive freed may free a tape's slot) or the held-back queues changed
        since last. The tape a read is held back by is in no drive: it was in
        none when the read arrived, and a start that mounts it shows the
        read at once (:meth:`_record`).
        """
        at = (now, sum(platform.idle_counts()))
        if at == self._shown_at and not self._fresh:
            return
        self._shown_at, self._fresh = at, False
        if not self._held:
            return
        self._active = {t for t in self._active if self._at_work(t, platform)}
        admitted = self.policy.admit(now, self._queues(), len(self._active), platform)
        for tape in admitted or ():
            queue = self._held.pop(tape, None)
            for request in () if queue is None else queue:
                self._reveal(request)

    def _at_work(self, tape: str, platform: PlatformState) -> bool:
        """Whether an admitted ``tape`` still has shown requests waiting or is in a busy drive."""
        holder = platform.holder(tape)
        if holder is not None and not platform.is_idle(holder):
            return True
        shown = self._shown
        return any(r.id in shown for r in platform.waiting_on(tape))


# Specs.


class MountPolicyError(LoadError):
    """A mount policy spec that gives no mount policy (one line)."""


EVICTIONS: Mapping[str, Callable[[], Eviction]] = {
    "lru": Lru,
    "fifo": FifoEviction,
    "lfu": Lfu,
}
"""The online eviction rules by name (``belady`` needs the instance, and ``keep`` is none)."""

_WITH_OPTIONS = ("defer", "cta", "dcache")
"""The rules written ``name:options``; any other ``a:b`` is a mount policy of one's own."""

_SIZE = re.compile(r"\s*([0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?)\s*([kKmMgGtTpP]?)B?\s*")
_SIZE_MB = {"": 1e-6, "k": 1e-3, "m": 1.0, "g": 1e3, "t": 1e6, "p": 1e9}


def _bytes_mb(text: str) -> float:
    """Megabytes in ``text``, bytes with an optional decimal unit: ``2e9``, ``500MB``, ``2GB``."""
    match = _SIZE.fullmatch(text)
    if match is None:
        raise MountPolicyError(f"bytes: expected a size such as 2e9, 500MB or 2GB, got {text!r}")
    return float(match.group(1)) * _SIZE_MB[match.group(2).lower()]


def _options(kind: str, text: str, known: Sequence[str]) -> dict[str, str]:
    options: dict[str, str] = {}
    for item in filter(None, text.split(",")):
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or key not in known:
            raise MountPolicyError(
                f"{kind}: expected {', '.join(k + '=' for k in known)}, got {item!r}"
            )
        if key in options:
            raise MountPolicyError(f"{kind}: {key} given twice")
        options[key] = value.strip()
    return options


def _seconds(kind: str, key: str, text: str) -> float:
    """A duration (:func:`toolkit.units.parse_duration`), or 0 written as a number."""
    try:
        if float(text) == 0:
            return 0.0
    except ValueError:
        pass
    try:
        return parse_duration(text)
    except ValueError as exc:
        raise MountPolicyError(f"{kind}: {key}: {exc}") from None


def _count(kind: str, key: str, text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise MountPolicyError(f"{kind}: {key} must be an integer, got {text!r}") from None
    if value < least:
        raise MountPolicyError(f"{kind}: {key} must be at least {least}, got {value}")
    return value


def _cta(text: str) -> CtaCriteria:
    options = _options("cta", text, ("bytes", "files", "age", "drives"))
    if "age" not in options:
        raise MountPolicyError("cta: age=SECONDS is required (CTA's minimum request age)")
    return CtaCriteria(
        min_age_s=_seconds("cta", "age", options["age"]),
        min_mb=_bytes_mb(options["bytes"]) if "bytes" in options else math.inf,
        min_files=_count("cta", "files", options["files"], 1) if "files" in options else math.inf,
        max_drives=_count("cta", "drives", options["drives"], 1) if "drives" in options else None,
    )


def _dcache(text: str, capacity_mb: Callable[[str], float] | None) -> DCacheSelection:
    options = _options("dcache", text, ("share", "min-wait", "max-age", "tapes"))
    if capacity_mb is None:
        raise MountPolicyError("dcache: needs the tapes' capacities, which this run does not give")
    share = 0.8
    if "share" in options:
        try:
            share = float(options["share"])
        except ValueError:
            share = math.nan
        if not 0 <= share <= 1:
            raise MountPolicyError(f"dcache: share must be within [0, 1], got {options['share']!r}")
    return DCacheSelection(
        capacity_mb=capacity_mb,
        min_share=share,
        min_wait_s=_seconds("dcache", "min-wait", options.get("min-wait", "120")),
        max_age_s=_seconds("dcache", "max-age", options.get("max-age", "3600")),
        max_tapes=_count("dcache", "tapes", options.get("tapes", "1"), 1),
    )


def is_plugged(spec: str) -> bool:
    """Whether ``spec`` names a mount policy of one's own, ``module.path:Attr``."""
    spec = spec.strip()
    return ":" in spec and "+" not in spec and spec.partition(":")[0] not in _WITH_OPTIONS


def _plugged(spec: str) -> MountPolicy:
    """The mount policy of one's own ``spec`` names, imported and made here, through
    :func:`~toolkit.registry.load_spec` and :func:`~toolkit.runtime.plugin_calls.call_plugin`:
    whatever
    its module or its factory raises (``sys.exit`` too) is one line."""
    obj = load_spec(spec, MountPolicyError)
    factory = inspect.isclass(obj) or (callable(obj) and not isinstance(obj, MountPolicy))
    make = cast(Callable[[], object], obj) if factory else (lambda: copy.deepcopy(obj))
    try:
        made = call_plugin(spec, "make", make)
    except PluginError as exc:
        why = exception_line(exc.error)
        raise MountPolicyError(f"{spec}: cannot make a mount policy: {why}") from exc
    if not isinstance(made, MountPolicy):
        raise MountPolicyError(f"{spec}: not a mount policy (evict, dismount_s, admit, recheck_s)")
    return made


def parse_mount_policy(
    spec: str,
    *,
    instance: Instance | None = None,
    capacity_mb: Callable[[str], float] | None = None,
    future: Mapping[str, Sequence[float]] | None = None,
) -> MountPolicy:
    """The mount policy ``spec`` names (see *Specs* in the module's text).

    Parameters
    ----------
    spec
        The spec.
    instance
        The instance dispatched, for ``belady`` (offline) and the tapes'
        capacities; ``None`` in the simulator, which refuses ``belady``.
    capacity_mb
        Capacity of each tape by id, for ``dcache`` (from ``instance`` when
        not given).
    future
        Arrival times of the requests for each tape, for ``belady`` in a run
        that knows its future without an instance (a trace replayed).

    Raises
    ------
    MountPolicyError
        With a one-line message, for a spec that gives no mount policy.
    """
    spec = spec.strip()
    if is_plugged(spec):
        return _plugged(spec)
    if capacity_mb is None and instance is not None:
        capacities = {tape.id: tape.capacity_mb for tape in instance.tapes}
        capacity_mb = capacities.__getitem__
    eviction: Eviction | None = None
    idle_s: float | None = None
    criteria: Criteria | None = None
    kinds: set[str] = set()

    def once(kind: str, part: str) -> None:
        if kind in kinds:
            raise MountPolicyError(f"{spec!r}: two {kind} rules ({part!r} is the second)")
        kinds.add(kind)

    for part in spec.split("+"):
        name, _, rest = part.strip().partition(":")
        if name == "keep" and not rest:
            once("eviction", part)
        elif name in EVICTIONS and not rest:
            once("eviction", part)
            eviction = EVICTIONS[name]()
        elif name == "belady" and not rest:
            once("eviction", part)
            if instance is None and future is None:
                raise MountPolicyError(
                    "belady is offline (it reads future requests): "
                    "use it with `tapesched solve` or `tapesched replay`, not in `simulate`"
                )
            eviction = Belady(instance, future=future)
        elif name == "at-once" and not rest:
            once("dismount", part)
            idle_s = 0.0
        elif name == "defer":
            once("dismount", part)
            idle_s = _seconds("defer", "T", rest) if rest else None
            if idle_s is None:
                raise MountPolicyError(
                    "defer: expected defer:T, T the idle seconds, e.g. defer:300"
                )
        elif name == "cta":
            once("criteria", part)
            criteria = _cta(rest)
        elif name == "dcache":
            once("criteria", part)
            criteria = _dcache(rest, capacity_mb)
        else:
            raise MountPolicyError(
                f"unknown mount policy {part.strip()!r}: expected keep, lru, fifo, lfu, belady, "
                "at-once, defer:T, cta:..., dcache:... (joined by +) or module.path:Attr"
            )
    return Rules(eviction, idle_s, criteria)


def with_mount_policy(scheduler: Scheduler, policy: MountPolicy | None) -> Scheduler:
    """``scheduler`` under ``policy`` (:class:`MountPolicied`); as it is under :data:`KEEP`."""
    if policy is None or policy == KEEP:
        return scheduler
    return MountPolicied(scheduler, policy)
