"""The mount policy plug point: what a mount policy is asked, and the project's rules composed.

A scheduler (:class:`~solvers.online.protocol.Scheduler`) says which
waiting request starts; a *mount policy* (:class:`MountPolicy`) says three
things about the tapes around it, and
:class:`~solvers.online.mount_policied.MountPolicied` composes any scheduler
with any mount policy into a scheduler again, so that it runs unchanged in
the solvers' dispatcher and in the simulator:

Eviction (:meth:`MountPolicy.evict`)
    When the scheduler starts a request whose tape is not mounted and the
    placement would take an idle drive holding another tape, the policy
    chooses that drive among the idle drives holding a tape that may stand
    in for it (:meth:`~solvers.online.protocol.PlatformState.peers`: its
    library's, the simulator's mover's: on drives of unequal timings the
    rule then chooses the drive's speed too, as a tape system evicting by
    tape does); an empty idle drive, when the placement takes one, is never
    second-guessed. ``keep`` (``None``) leaves the placement's own choice:
    the timeline's over an instance (the drive available first, which is the
    least recently used one of its class), the lowest numbered in the
    simulator; it is the default, and every result without a mount policy is
    the one of before. The eviction rules (:class:`Eviction`, told each
    tape's :class:`TapeUse`) are in :mod:`solvers.online.evictions`.

Dismount (:meth:`MountPolicy.dismount_s`)
    When an idle drive's tape, which no waiting request reads, is put away:
    never (``None``, keep mounted until a mount needs the drive or the
    tape), at once (``at-once``, as ``fifo-dismount-at-once``), or ``T``
    seconds after its last use (``defer:T``, the ECMWF and CTA practice of a
    dismount delay). The drive's last use is when it became idle, as
    :class:`~solvers.online.mount_policied.MountPolicied` sees it at the
    decision time of that event; the deferred dismount is due at that time
    plus ``T``, which
    :meth:`~solvers.online.mount_policied.MountPolicied.wake_s` asks both
    loops to be woken at.

Mount criteria (:meth:`MountPolicy.admit`)
    Which waiting reads may make a tape be mounted (the criteria are those
    of recalls: a write, whose tapes the simulator chooses when it starts,
    is never held back). A read whose tapes are all held by a drive (idle
    or busy) needs no mount and is shown to the scheduler at once. The
    others are held back, queued by their first tape in no drive, until
    the policy admits that tape (or a start mounts it). Once admitted, a
    request stays shown until it starts (it does not hide again if its tape
    is evicted meanwhile). The scheduler sees the shown requests in the
    order they were shown, which is their order of arrival as it reads it
    (:meth:`~solvers.online.protocol.PlatformState.arrival`), so that the
    schedulers that keep rankings across calls (``wspt``, ``stretch``) work
    unchanged. CERN CTA's and dCache's criteria (:class:`Criteria`) are in
    :mod:`solvers.online.mount_criteria`.

:class:`Rules` is the project's mount policy: one eviction rule, one
dismount delay and one criterion, as a spec names them
(:func:`solvers.online.mount_policy.parse_mount_policy`); :data:`KEEP` is the
behaviour without a mount policy. Any other object with the four methods of
:class:`MountPolicy` is a mount policy too.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Protocol, runtime_checkable

from attrs import frozen

from tapesched.solvers.online.protocol import PlatformState
from tapesched.toolkit.model import Request


@frozen
class TapeUse:
    """What a mount policy is told of a tape's use, for the eviction rules.

    :class:`~solvers.online.mount_policied.MountPolicied` keeps it, tape by tape.

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
    """The plug point: what a mount policy is asked (see the module).

    :class:`~solvers.online.mount_policied.MountPolicied` asks it. Any
    object with these four methods is a mount policy; :class:`Rules`
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


class Eviction(Protocol):
    """One eviction rule: the drive whose tape goes, among ``candidates``."""

    def choose(
        self,
        now: float,
        candidates: Sequence[str],
        uses: Mapping[str, TapeUse],
        platform: PlatformState,
    ) -> str: ...


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
