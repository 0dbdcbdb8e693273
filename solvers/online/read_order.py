"""Which request a serpentine drive reads first: a recall orderer asked at a decision.

On a drive with a serpentine locate model, the cheapest next read among
the waiting requests on its tape is not the nearest block: two requests
far apart in block order may lie side by side on neighbouring wraps.
:class:`ReadOrder` asks a recall orderer (:data:`solvers.registry.ORDERERS`:
``offset``, ``sltf``, ``exact``, or any
:class:`~solvers.recall_order.Orderer`) for the order of a drive's loaded
requests, keeps it as the drive's plan while the drive follows it, and
gives the heuristics ``tape-batching`` and ``sltf``
(:mod:`solvers.online.heuristics`) the request each drive reads first.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

from tapesched import solvers
from tapesched.solvers.online.protocol import PlatformState
from tapesched.toolkit.model import Request

if TYPE_CHECKING:  # the orderers need numpy, OR-Tools and SciPy: imported when used
    from tapesched.solvers.recall_order import Orderer
    from tapesched.toolkit.hardware.tape_geometry import LocateModel, SerpentineTape


ORDER_TIME_LIMIT_S = 1.0
"""Time limit of one call of an orderer that takes one (``exact``) at a decision of
:class:`~solvers.online.heuristics.Sltf` or :class:`~solvers.online.heuristics.TapeBatching`;
``sltf`` and ``offset`` do not read it."""


class ReadOrder:
    """In which order a serpentine drive reads the waiting requests on its tape: an orderer's.

    At a decision, the loaded requests of one piece (its tape held by an
    idle drive) are grouped by the drive holding their tape. On a drive
    with a serpentine locate model
    (:meth:`~solvers.online.protocol.PlatformState.locate_geometry`) holding
    two or more, ``orderer`` (a :class:`solvers.recall_order.Orderer`)
    orders their pieces from the drive's head under that model, on the
    tape the drive's locates are timed on, and the first of its order
    alone stands for the drive's tape; the heuristic's own key then chooses
    among the drives' firsts. A linear drive's requests are left as they
    are, so that runs on linear drives are what they were, and so is a
    request of several pieces (a gang, read on several drives at once,
    whose order no one tape decides): it competes by the heuristic's key.

    Parameters
    ----------
    orderer
        The orderer; ``None``: ``default`` of :data:`solvers.registry.ORDERERS`.
    default
        The name of the orderer taken when ``orderer`` is ``None`` (imported
        only when a serpentine drive is met: the orderers need numpy, OR-Tools
        and SciPy).
    ahead_first
        Give the orderer only the requests at or past the head when there are
        any (the forward sweep of
        :class:`~solvers.online.heuristics.TapeBatching`), else all.
    time_limit_s
        Passed to the orderer at each call.
    """

    def __init__(
        self,
        orderer: Orderer | None,
        default: str,
        *,
        ahead_first: bool = False,
        time_limit_s: float = ORDER_TIME_LIMIT_S,
    ) -> None:
        self._orderer = orderer
        self._plans: dict[str, _Plan] = {}
        self.default = default
        self.ahead_first = ahead_first
        self.time_limit_s = time_limit_s

    @property
    def orderer(self) -> Orderer:
        """The orderer in force (the default one imported on first use)."""
        if self._orderer is None:
            self._orderer = solvers.registry.ORDERERS[self.default]
        return self._orderer

    def firsts(self, loaded: Iterable[Request], platform: PlatformState) -> list[Request]:
        """``loaded`` with each serpentine drive's requests replaced by the one read first."""
        by_drive: dict[str, list[Request]] = {}
        out: list[Request] = []
        for request in loaded:
            if len(request.pieces) > 1:
                out.append(request)
                continue
            holder = platform.holder(request.pieces[0].tape)
            assert holder is not None
            by_drive.setdefault(holder, []).append(request)
        for drive, requests in by_drive.items():
            geometry = platform.locate_geometry(drive) if len(requests) > 1 else None
            if geometry is None:
                out += requests
            else:
                out.append(self.first(drive, requests, geometry, platform))
        return out

    def first(
        self,
        drive: str,
        requests: list[Request],
        geometry: tuple[SerpentineTape, LocateModel],
        platform: PlatformState,
    ) -> Request:
        """The request of ``requests`` (on ``drive``'s tape) that the orderer reads first.

        Files are given oldest first (the orderers break ties to the file
        given first); a piece is the bytes from its offset to its end, kept
        on the tape's written bytes. The order is kept as the drive's plan:
        while the drive reads it (the same requests less the ones read, the
        head at the end of the last one read) its next request is the plan's
        next, without asking again (what ``none``, ``offset`` and ``sltf``
        would answer, and the rest of ``exact``'s path); a request joining,
        or the head elsewhere, asks the orderer again.
        """
        from tapesched.toolkit.hardware.tape_geometry import TapeFile

        tape, model = geometry
        head_mb = platform.head_mb(drive)
        head_block = round(head_mb * 1_000_000)
        requests = sorted(requests, key=platform.arrival)
        if self.ahead_first:
            ahead = [r for r in requests if r.pieces[0].offset_mb >= head_mb]
            requests = ahead or requests
        by_id = {r.id: r for r in requests}
        plan = self._plans.get(drive)
        if plan is not None:
            if plan.head_block == head_block and set(plan.ids) == by_id.keys():
                return by_id[plan.ids[0]]
            if plan.ends[0] == head_block and set(plan.ids[1:]) == by_id.keys():
                self._plans[drive] = _Plan(head_block, plan.ids[1:], plan.ends[1:])
                return by_id[plan.ids[1]]
        files = []
        for request in requests:
            piece = request.pieces[0]
            block = min(round(piece.offset_mb * 1_000_000), tape.last_block)
            end = min(round(piece.end_mb * 1_000_000), tape.last_block + 1)
            files.append(TapeFile(request.id, block, max(end - block, 0)))
        order = self.orderer(tape, model, head_block, files, time_limit_s=self.time_limit_s).order
        self._plans[drive] = _Plan(
            head_block,
            tuple(files[k].id for k in order),
            tuple(files[k].end_block(tape) for k in order),
        )
        return requests[order[0]]


class _Plan(NamedTuple):
    """A drive's planned reads: from ``head_block``, request ``ids`` in order, each ending
    where the head then is (``ends``, blocks)."""

    head_block: int
    ids: tuple[str, ...]
    ends: tuple[int, ...]
