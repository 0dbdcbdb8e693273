"""A platform seen through a filter: every question passed on, the waiting requests the filter's.

A wrapper that composes a scheduler (a mount policy's criteria,
:class:`solvers.online.mount_policied.MountPolicied`; the HSM's admission,
:class:`simulator.sharing.hsm_admission.HsmAdmission`) shows the inner scheduler fewer
waiting requests than the platform has, and ranks them its own way. Such a
view answers every question of :class:`~solvers.online.protocol.PlatformState`
as the platform does, but for the three that say which requests wait
(:meth:`FilteredPlatform.arrival`, :meth:`FilteredPlatform.is_waiting`,
:meth:`FilteredPlatform.waiting_on`), which each view defines. The optional
fast paths a platform may offer (``not_waiting_for_tape``, ``idle_peers``)
are not passed on: they answer for the platform's own waiting list, so a
policy asking a view falls back to testing each request.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from tapesched.solvers.online.protocol import Decision, PlatformState, Preview
from tapesched.toolkit.model import Request

if TYPE_CHECKING:
    from tapesched.toolkit.hardware.tape_geometry import LocateModel, SerpentineTape


class FilteredPlatform(ABC):
    """``platform`` as a filter shows it (see the module): subclass and define the waiting."""

    def __init__(self, platform: PlatformState) -> None:
        self._p = platform

    @property
    def now(self) -> float:
        return self._p.now

    def service_s(self, request: Request) -> float:
        return self._p.service_s(request)

    def any_idle(self) -> bool:
        return self._p.any_idle()

    def is_idle(self, drive: str) -> bool:
        return self._p.is_idle(drive)

    def idle_count(self, library: str) -> int:
        return self._p.idle_count(library)

    def idle_counts(self) -> Sequence[int]:
        return self._p.idle_counts()

    def library_number(self, request: Request) -> int:
        return self._p.library_number(request)

    def idle_drives(self, *, holding: bool = False) -> list[str]:
        return self._p.idle_drives(holding=holding)

    def idle_holding_count(self) -> int:
        return self._p.idle_holding_count()

    def idle_held_tapes(self) -> Iterator[str]:
        return self._p.idle_held_tapes()

    def peers(self, drive: str) -> Sequence[str]:
        return self._p.peers(drive)

    def tape_in(self, drive: str) -> str | None:
        return self._p.tape_in(drive)

    def head_mb(self, drive: str) -> float:
        return self._p.head_mb(drive)

    def available_s(self, drive: str) -> float:
        return self._p.available_s(drive)

    def holder(self, tape: str) -> str | None:
        return self._p.holder(tape)

    @abstractmethod
    def arrival(self, request: Request) -> int:
        """Rank of ``request`` among the waiting requests the view shows."""
        ...

    @abstractmethod
    def is_waiting(self, request: Request) -> bool:
        """Whether the view shows ``request`` waiting."""
        ...

    @abstractmethod
    def waiting_on(self, tape: str) -> Sequence[Request]:
        """The waiting requests the view shows on ``tape``, in its order."""
        ...

    def waits_for_tape(self, request: Request) -> bool:
        return self._p.waits_for_tape(request)

    def can_start(self, request: Request) -> bool:
        return self._p.can_start(request)

    def loaded(self, request: Request) -> bool:
        return self._p.loaded(request)

    def locate_s(self, request: Request) -> float | None:
        return self._p.locate_s(request)

    def locate_geometry(self, drive: str) -> tuple[SerpentineTape, LocateModel] | None:
        return self._p.locate_geometry(drive)

    def plan(
        self, request: Request, drives: tuple[str, ...] | None = None, queue: bool = False
    ) -> Preview:
        return self._p.plan(request, drives, queue)

    def trial(self, decision: Decision) -> AbstractContextManager[None]:
        return self._p.trial(decision)
