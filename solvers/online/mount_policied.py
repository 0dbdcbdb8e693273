"""A scheduler run under a mount policy: :class:`MountPolicied`, a scheduler again.

:class:`MountPolicied` wraps any :class:`~solvers.online.protocol.Scheduler`
with any :class:`~solvers.online.mount_protocol.MountPolicy`, so that the
pair runs unchanged in the solvers' dispatcher and in the simulator. It keeps
what the policy reads and what the protocol does not say: each tape's use
(:class:`~solvers.online.mount_protocol.TapeUse`), since when each idle
drive holds its tape, and, under mount criteria, which waiting reads are
held back and which are shown to the inner scheduler (through
:class:`_Shown`, the platform with the held-back requests filtered out).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from tapesched.solvers.online.filtered import FilteredPlatform
from tapesched.solvers.online.mount_protocol import NO_USE, MountPolicy, Rules, TapeUse
from tapesched.solvers.online.protocol import (
    Decision,
    Dismount,
    PlatformState,
    Scheduler,
    Start,
)
from tapesched.solvers.online.state import WaitingRequests
from tapesched.toolkit.model import Request


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
        pieces = request.pieces
        tapes = (pieces[0].tape,) if len(pieces) == 1 else {piece.tape for piece in pieces}
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
        holder = platform.holder
        for tape in (pieces[0].tape,) if len(pieces) == 1 else {piece.tape for piece in pieces}:
            if holder(tape) is None:
                uses[tape] = TapeUse(now, now, 1)
            else:
                use = uses.get(tape, NO_USE)
                uses[tape] = TapeUse(use.mounted_s, now, use.uses + 1)
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
