"""Placement: the drives of one mover a request starts on, now or once they free up.

Where requests run
    A read runs in the library of its tapes, or, when pass-through ports join
    the libraries (``pass_through_s`` in the platform), on any drive, its own
    library's movers first; the scheduler then sees one pool of drives. In a
    complex (elevators between levels), the levels nearest its tape come
    first. A write runs in the library of the stream it appends to, or for a
    new stream in the library with the most drives (the first of those): the
    Blue Waters runs have one library.

A request can start when some mover it may run on has an idle drive per
column of its plan and the memory, disk and bandwidth for it: the mover
holding most of its tapes in idle drives, then the one with most idle
drives, then the first; on it, the drives holding its tapes, then empty
drives, then the others. A request the scheduler starts though it cannot
start now (``Start(queue=True)``) is queued on the drives of one mover that
free up first.
"""

from __future__ import annotations

from collections.abc import Callable

from tapesched.simulator.kernel.engine import Engine
from tapesched.simulator.platform.platform import DriveState, Platform
from tapesched.simulator.run.admitted import AdmittedRequest
from tapesched.simulator.run.streams import Streams
from tapesched.simulator.storage.files import JobSpec
from tapesched.simulator.storage.policies.policy import Policy

Room = tuple[float, float, list[int]]
"""What a request needs of a mover: memory, disk of a new stream, and the mover of each free
stream of its type (where it needs no new disk)."""


class Placer:
    """Finds the drives of one mover for the requests of a run.

    The answer for a request is kept until the platform or the idle streams
    change (a scheduler asks :meth:`SimulationState.can_start
    <simulator.run.simulation_state.SimulationState.can_start>`, then the
    start asks again).

    Parameters
    ----------
    engine, platform, policy
        The run's engine, platform and archival policy.
    streams
        The run's streams (a write starts where a free stream of its type is).
    reservations
        The run's requests holding drives, by id (a drive's expected free
        time counts their services).
    pooled
        Whether the libraries are one pool of drives (pass-through ports or
        a complex's elevators).
    """

    def __init__(
        self,
        engine: Engine,
        platform: Platform,
        policy: Policy,
        streams: Streams,
        reservations: dict[str, AdmittedRequest],
        pooled: bool,
    ) -> None:
        self._engine = engine
        self._platform = platform
        self._policy = policy
        self._streams = streams
        self._reservations = reservations
        self._pooled = pooled
        self._placed: tuple[tuple[int, int, int], list[int] | None] | None = None
        self._nearest_movers: dict[int, list[int]] = {}
        """The movers of a complex by distance from each level (:meth:`movers_for`)."""

    def start_drives(self, entry: AdmittedRequest) -> list[int] | None:
        """Idle drives of one mover to start ``entry`` on now, or ``None`` when it cannot start.

        The mover holding most of its tapes in idle drives, then the one with
        most idle drives, then the first; the drives holding its tapes, then
        empty drives, then the others.
        """
        key = (entry.seq, self._platform.version, self._streams.version)
        if self._placed is not None and self._placed[0] == key:
            return self._placed[1]
        placed = self._place(entry)
        self._placed = (key, placed)
        return placed

    def room(self, entry: AdmittedRequest) -> Room:
        """What ``entry`` needs of a mover: memory, disk of a new stream, and the mover of
        each free stream of its type (``hosts``, where it needs no new disk)."""
        disk = 0.0
        hosts: list[int] = []
        if entry.file_request.kind == "write":
            file = entry.file_request.file
            streams = self._streams
            disk = streams.disk_mb(file)
            if disk > 0:
                hosts = [streams.mover_of(g) for g in streams.free(file)]
        return self._memory_mb(entry), disk, hosts

    def fits(self, m: int, width: int, room: Room, drives: bool = True) -> bool:
        """Whether mover ``m`` has the ``room`` and, with ``drives``, ``width`` idle drives."""
        memory, disk, hosts = room
        mover = self._platform.movers[m]
        if drives and mover.idle < width:
            return False
        if mover.memory_mb + memory > mover.spec.memory_mb:
            return False
        if disk > 0 and m not in hosts and mover.disk_mb + disk > mover.spec.disk_mb:
            return False
        if mover.bandwidth_mb_s is None:
            return True
        rate = self._platform.drives[mover.drives[0]].model.rate_mb_s
        return mover.streaming_mb_s + width * rate <= mover.bandwidth_mb_s + 1e-9

    def _place(self, entry: AdmittedRequest) -> list[int] | None:
        platform = self._platform
        width = entry.width
        wanted = self._wanted_tapes(entry)
        where, drives, movers = platform.where, platform.drives, platform.movers
        is_idle = platform.dispatch_state.idle
        held: dict[int, int] = {}
        for tape in wanted:
            d = where.get(tape)
            if d is not None and is_idle[d]:
                m = drives[d].mover
                held[m] = held.get(m, 0) + 1
        room = self.room(entry)
        for m in room[2]:
            held[m] = held.get(m, 0) + 1
        fits = self.fits

        chosen = None
        ranked = (
            held if len(held) < 2 else sorted(held, key=lambda m: (-held[m], -movers[m].idle, m))
        )
        for m in ranked:
            if fits(m, width, room):
                chosen = m
                break
        if chosen is None and platform.complex is not None:
            # A complex: the nearest level with an empty idle drive, else the nearest with
            # an idle drive (whose tape the mount then evicts).
            nearest = self.movers_for(entry)
            for m in nearest:
                if movers[m].empty_idle and fits(m, width, room):
                    chosen = m
                    break
            else:
                for m in nearest:
                    if movers[m].idle and fits(m, width, room):
                        chosen = m
                        break
        if chosen is None:
            most = -1
            for m in self.movers_for(entry):
                idle = movers[m].idle
                if idle > most and fits(m, width, room):
                    chosen, most = m, idle
                    if idle == len(movers[m].drives):
                        break
        if chosen is None:
            return None
        # The holders (idle drives of the mover holding its tapes), then the empty idle
        # drives, then the other idle ones, each in platform order, the first ``width``.
        holders: list[int] = []
        for tape in wanted:
            d = where.get(tape)
            if d is not None and is_idle[d] and drives[d].mover == chosen:
                holders.append(d)
        placed = holders[:width]
        for empty in (True, False):
            if len(placed) == width:
                break
            for d in movers[chosen].drives:
                if is_idle[d] and (drives[d].tape is None) == empty and d not in holders:
                    placed.append(d)
                    if len(placed) == width:
                        break
        return placed

    def columns(self, plan: JobSpec, drives: list[int]) -> list[int]:
        """``drives`` in the plan's column order: a column whose first tape a drive holds gets
        it, the others the empty drives first."""
        if len(drives) == 1:
            return drives
        platform = self._platform
        where = platform.where
        free = list(drives)
        columns: list[int | None] = [None] * plan.width
        phases = plan.phases + plan.flush
        for i in range(plan.width):
            # The column's first tape, in the order its phases read it.
            for phase in phases:
                e = phase[i]
                if e is not None:
                    holder = where.get(e.tape)
                    if holder is not None and holder in free:
                        columns[i] = holder
                        free.remove(holder)
                    break
        free.sort(key=lambda d: (platform.drives[d].tape is not None, d))
        it = iter(free)
        return [c if c is not None else next(it) for c in columns]

    def queue_drives(
        self, entry: AdmittedRequest, free_at: Callable[[DriveState], float] | None = None
    ) -> list[int]:
        """Drives of one mover of the library that free up first (for a queued start).

        ``free_at`` gives when a drive is expected free (by default, now for
        an idle drive, else the expected end of its job).
        """
        platform = self._platform
        if free_at is None:
            free_at = self.expected_free_s

        best: tuple[float, int] | None = None
        chosen: list[int] = []
        pooled = self._pooled
        for m, mover in enumerate(platform.movers):
            if (mover.library != entry.library and not pooled) or len(mover.drives) < entry.width:
                continue
            free = list(mover.drives)
            free.sort(key=lambda d: (free_at(platform.drives[d]), d))
            ready = free_at(platform.drives[free[entry.width - 1]])
            if best is None or (ready, m) < best:
                best, chosen = (ready, m), free[: entry.width]
        if not chosen:
            raise ValueError(f"no mover can ever run {entry.request.id!r}")
        return chosen

    def expected_free_s(self, d: DriveState) -> float:
        """When ``d`` is expected free: its job's expected end, then its reservations' services."""
        free_s = d.expected_free_s if d.busy else self._engine.now_s
        if not d.reserved:
            return free_s
        reservations = self._reservations
        return free_s + sum(reservations[key].service_s for key in d.reserved)

    def movers_for(self, entry: AdmittedRequest) -> list[int]:
        """Movers that may run ``entry``: its library's, then, with pass-through, the others."""
        platform = self._platform
        own = platform.movers_of[entry.library]
        if not self._pooled:
            return own
        complex_ = platform.complex
        if complex_ is None:
            return own + [m for lib in platform.movers_of for m in lib if m not in own]
        # A complex: the levels nearest the tape's level now (it may have floated) first.
        pieces = entry.request.pieces
        level = (
            platform.home_level(pieces[0].tape)
            if entry.file_request.kind == "read"
            else entry.library
        )
        nearest = self._nearest_movers.get(level)
        if nearest is None:
            levels = complex_.by_distance(level, range(len(platform.movers_of)))
            nearest = self._nearest_movers[level] = [
                m for lib in levels for m in platform.movers_of[lib]
            ]
        return nearest

    def _wanted_tapes(self, entry: AdmittedRequest) -> list[str]:
        if entry.file_request.kind == "read":
            pieces = entry.request.pieces
            return [pieces[0].tape] if len(pieces) == 1 else [p.tape for p in pieces]
        file = entry.file_request.file
        streams = self._streams
        if streams.disk_mb(file) > 0:
            return [t for g in streams.free(file) for t in g.tapes]
        group = streams.best(file)
        return list(group.tapes) if group is not None else []

    def _memory_mb(self, entry: AdmittedRequest) -> float:
        if entry.plan is not None:
            return entry.plan.memory_mb
        return self._policy.write_memory_mb(entry.file_request.file)
