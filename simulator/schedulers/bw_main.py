"""``bw-main``: the Blue Waters paper's MAIN-SCHEDULER and LOAD-BALANCER (its Section 5).

A scheduler of the simulator only: its I/O processes own drives of one
mover node and its balancer ejects their tapes, which a core-problem
instance (no movers, no policies, no types) does not have, so ``tapesched
simulate SCENARIO --scheduler bw-main`` offers it and ``tapesched solve``
and ``compare`` do not. It speaks the protocol of
:mod:`solvers.online.protocol` unchanged (:class:`Start` on the drives of a
process, :class:`Dismount` to eject a tape) and reads, beyond
:class:`~solvers.online.protocol.PlatformState`, the few questions
:class:`~simulator.run.simulation_state.SimulationState` answers for the
simulator's own schedulers (:class:`~simulator.schedulers.registry.SimulatorState`:
a request's type, the movers' drives, what a mover can host, the requests
done); the simulation asks it
again every ``MINLBINTERVAL`` through its ``wake_s``. Its parameters
(:class:`BwMainParams`) come from a scenario's ``run.scheduler`` given as
``{"name": "bw-main", ...}`` (:mod:`simulator.scenario.document`) and from the
options of ``tapesched simulate`` (``--min-lb-interval 6d``, ...).

The model, as the paper has it
    A request's *type* is its archival policy (the one laying its file
    out: for HETERO, VERTICAL or PARALLEL by size) and its scheme ``X+Y``.
    An *I/O process* serves requests of one type; it is created on a mover
    node having enough idle drives and bound to them, and keeps them until
    LOAD-BALANCER terminates it. A drive is *idle* when no process holds it
    and no request of a terminated process still runs on it; for
    MAIN-SCHEDULER, the drives of a process with nothing mapped are idle
    too (see below).

    MAIN-SCHEDULER takes each request as it reaches the scheduler (the
    simulator holds a request back while an earlier one for its file is
    pending, which is the paper's first reason to wait). A read whose tapes
    are in use goes to the *waiting list*. Otherwise the request is mapped
    to a process of its type on which no more than ``MAXLIGHTLOAD``
    requests are already scheduled (the least loaded such, the oldest on a
    tie); failing that, a new process is created for it; failing that, it
    is mapped to the least loaded process of its type whatever its load;
    failing that, it goes to the waiting list. Only LOAD-BALANCER takes
    requests off the waiting list.

    LOAD-BALANCER wakes every ``MINLBINTERVAL`` (at ``k * MINLBINTERVAL``,
    ``k >= 1``) and runs when one of these holds: the request longest in
    the waiting list has been there more than ``MAXWAITINGTIME`` and its
    file is not in use; the waiting list holds more than ``MAXREQCOUNT``
    requests; the *imbalance* exceeds ``MAXIMBALANCE``. It then resets
    every request not started (the waiting list and those mapped to
    processes), terminates every process (a request running finishes; its
    drives are freed when it is done), ejects the tapes of the processes'
    drives (at once for the drives not running, once done for the others),
    creates one process for each type the reset requests need, then, while
    a process can be created, one for the most loaded type, and maps each
    reset request to the least loaded process of its type, unless its file
    is in use (a read whose tapes are in use), in which case it goes to the
    new waiting list, as does a request no process of its type can take.

What the paper leaves open, and what is chosen here
    - A process runs one request at a time, on its own drives, in the
      order requests were mapped to it (first mapped, first served); its
      *load* is the number of requests mapped to it and not done, the
      running one included.
    - A process binds the drives a write of its type needs: ``X + Y`` for
      RAIT and PARALLEL, one for VERTICAL (which the paper says writes on
      one drive whatever the scheme). A read of the type runs on as many of
      the process's drives as its layout has columns (RAIT ``X + Y``,
      PARALLEL ``X``, VERTICAL one), those already holding its tapes first.
    - A file is *in use* for a read whose tapes a running job uses (the
      simulator's rule); a write's file never is once it reaches the
      scheduler.
    - A new process goes to the mover that fits it most tightly (fewest
      idle drives that are enough, then the lowest number), which keeps
      whole movers for wide types; it takes the drives doing nothing first.
    - MAIN-SCHEDULER counts as idle the drives of a process with nothing
      mapped (no request running or queued): when no mover has enough
      drives held by no process, it takes the mover needing the fewest
      such processes ended (then the tightest fit), ends them (their tapes
      ejected, as the balancer does) and creates the new process there.
      The paper does not say whether a drive bound to a process with no
      work is idle; taken literally (it is not), a balance that found one
      type in its reset set gives every drive to that type, and the
      requests of every other type then wait in the waiting list until the
      next balance, up to ``MINLBINTERVAL`` later (measured: ``bw-fig10
      --quick`` saturated at 6 and 24 days for RAIT and PARALLEL). The
      balancer itself ends no process it has just created.
      The mover must also have the memory, disk and bandwidth a request of
      the type needs at that moment (the paper speaks of drives only).
    - The load of a type is the number of requests mapped to its processes
      over their number; the imbalance is taken over the types having
      processes (0 with fewer than two). The balancer creates the first
      processes in the order of each type's oldest reset request, and
      afterwards picks the most loaded type among those a process can
      still be created for (the load counting the type's reset requests),
      stopping when none can.
    - A request's time in the waiting list counts from when it was first
      put there.
    - Defaults (:class:`BwMainParams`): ``MAXLIGHTLOAD`` 1,
      ``MINLBINTERVAL`` 6 days (the paper's best for RAIT and PARALLEL,
      its Figure 10), ``MAXWAITINGTIME`` 1 hour, ``MAXREQCOUNT`` 100,
      ``MAXIMBALANCE`` 10; the paper gives no values.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from typing import Any

from attrs import evolve, frozen

from tapesched.simulator.schedulers.registry import BW_MAIN, SimulatorState
from tapesched.simulator.storage.policies.policy import GroupType
from tapesched.solvers.online.protocol import Decision, Dismount, PlatformState, Start
from tapesched.toolkit.model import Request


@frozen
class BwMainParams:
    """The five parameters of MAIN-SCHEDULER and LOAD-BALANCER (the paper's names).

    Attributes
    ----------
    max_light_load
        ``MAXLIGHTLOAD``: a request goes to a running process of its type on
        which no more than this many requests are scheduled, rather than to
        a new process.
    min_lb_interval_s
        ``MINLBINTERVAL``: LOAD-BALANCER wakes at every multiple of it.
    max_waiting_time_s
        ``MAXWAITINGTIME``: the balancer runs when the request longest in
        the waiting list has been there longer (and its file is not in use).
    max_req_count
        ``MAXREQCOUNT``: the balancer runs when the waiting list holds more.
    max_imbalance
        ``MAXIMBALANCE``: the balancer runs when the imbalance exceeds it.
    """

    max_light_load: int = 1
    min_lb_interval_s: float = 6 * 86400.0
    max_waiting_time_s: float = 3600.0
    max_req_count: int = 100
    max_imbalance: float = 10.0

    def __attrs_post_init__(self) -> None:
        if self.max_light_load < 0 or self.max_req_count < 0:
            raise ValueError("max_light_load and max_req_count must be >= 0")
        if not self.min_lb_interval_s > 0 or not self.max_waiting_time_s > 0:
            raise ValueError("min_lb_interval_s and max_waiting_time_s must be > 0")
        if not self.max_imbalance >= 0:
            raise ValueError("max_imbalance must be >= 0")


class IoProcess:
    """An I/O process: a type, the drives of one mover it holds, the requests mapped to it."""

    __slots__ = ("drives", "kind", "mover", "number", "queue", "running", "running_on")

    def __init__(self, number: int, kind: GroupType, mover: int, drives: tuple[str, ...]):
        self.number = number
        self.kind = kind
        self.mover = mover
        self.drives = drives
        self.queue: deque[Request] = deque()
        """Requests mapped to it and not started, in the order they were mapped."""
        self.running: Request | None = None
        """The request it runs, until it is done."""
        self.running_on: tuple[str, ...] = ()
        """The drives of the request it runs."""

    @property
    def load(self) -> int:
        """Requests mapped to it and not done, the running one included."""
        return len(self.queue) + (self.running is not None)


class BwMain:
    """MAIN-SCHEDULER and LOAD-BALANCER as one scheduler of the simulator (see the module).

    Parameters
    ----------
    params
        The five parameters (the paper gives no values: see
        :class:`BwMainParams` for the defaults).
    """

    def __init__(self, params: BwMainParams | None = None) -> None:
        self.params = params or BwMainParams()
        self.processes: dict[GroupType, list[IoProcess]] = {}
        """The live processes of each type, in the order they were created."""
        self.waiting_list: dict[str, tuple[Request, float]] = {}
        """Requests waiting for LOAD-BALANCER, by id: each with when it was first put there."""
        self.balancer_runs: list[float] = []
        """When LOAD-BALANCER ran (it woke and a condition held)."""
        self._since: dict[str, float] = {}
        self._made = 0
        self._last_rank = -1
        self._done_seen = 0
        self._next_lb_s = self.params.min_lb_interval_s
        self._movers: list[tuple[str, ...]] | None = None
        self._free: list[set[str]] = []
        self._mover_of: dict[str, int] = {}
        self._running: dict[str, IoProcess | tuple[str, ...]] = {}
        """Each started request not done: its process, or its drives once the process is gone."""
        self._startable: dict[int, IoProcess] = {}
        self._eject: dict[str, None] = {}
        """Drives whose tape is to be ejected once they are idle (in the order given)."""

    # The protocol.

    def decide(
        self, now: float, waiting: Sequence[Request], platform: PlatformState
    ) -> Decision | None:
        """The next ejection or start; requests arriving are scheduled, the balancer run."""
        state = self._simulator(platform)
        self._collect_done(state)
        for request in self._arrivals(waiting, state):
            self._main_scheduler(request, now, state)
        if now >= self._next_lb_s:
            intervals = math.floor(now / self.params.min_lb_interval_s) + 1
            self._next_lb_s = intervals * self.params.min_lb_interval_s
            if self.triggered(now, state):
                self._balance(now, state)
        return self._next(state)

    def wake_s(self, now: float) -> float | None:
        """When LOAD-BALANCER next wakes, while it may have something to do: while requests
        wait or run (with none, no condition can hold)."""
        return self._next_lb_s if self.waiting_list or self._running else None

    # What the scheduler reads.

    def _simulator(self, platform: PlatformState) -> SimulatorState:
        if self._movers is None:
            if not callable(getattr(platform, "mover_drives", None)):
                raise TypeError(
                    f"{BW_MAIN} runs in the simulator only (it needs movers and request types)"
                )
            state: SimulatorState = platform  # type: ignore[assignment]
            self._movers = state.mover_drives()
            self._free = [set(drives) for drives in self._movers]
            self._mover_of = {d: m for m, drives in enumerate(self._movers) for d in drives}
        return platform  # type: ignore[return-value]

    def _arrivals(self, waiting: Sequence[Request], state: SimulatorState) -> list[Request]:
        """The requests that became waiting since the last call, in arrival order."""
        arrived = []
        for request in reversed(waiting):
            if state.arrival(request) <= self._last_rank:
                break
            arrived.append(request)
        if arrived:
            self._last_rank = state.arrival(arrived[0])
        arrived.reverse()
        return arrived

    def _collect_done(self, state: SimulatorState) -> None:
        """Free the processes whose request is done; eject the drives of terminated ones."""
        done = state.finished(self._done_seen)
        self._done_seen += len(done)
        for request_id in done:
            owner = self._running.pop(request_id, None)
            if isinstance(owner, IoProcess):
                owner.running = None
                owner.running_on = ()
                if owner.queue:
                    self._startable[owner.number] = owner
            elif owner is not None:
                self._eject.update(dict.fromkeys(owner))
                for drive in owner:
                    self._free[self._mover_of[drive]].add(drive)

    # MAIN-SCHEDULER.

    def _main_scheduler(self, request: Request, now: float, state: SimulatorState) -> None:
        if state.waits_for_tape(request):
            self._delay(request, now)
            return
        kind = state.request_type(request)
        processes = self._usable(kind, request, state)
        light = [p for p in processes if p.load <= self.params.max_light_load]
        process = _least_loaded(light) or self._create(kind, request, state, reclaim=True)
        process = process or _least_loaded(processes)
        if process is None:
            self._delay(request, now)
        else:
            self._map(request, process)

    def _usable(self, kind: GroupType, request: Request, state: SimulatorState) -> list[IoProcess]:
        """The processes of ``kind`` that can run ``request`` (on a mover it may run on)."""
        processes = self.processes.get(kind, [])
        if len(self._free) == 1:
            return processes
        movers = set(state.movers_for(request))
        return [p for p in processes if p.mover in movers]

    def _delay(self, request: Request, now: float) -> None:
        self.waiting_list[request.id] = (request, self._since.setdefault(request.id, now))

    def _map(self, request: Request, process: IoProcess) -> None:
        process.queue.append(request)
        if process.running is None:
            self._startable[process.number] = process
        self._since.pop(request.id, None)

    def _create(
        self, kind: GroupType, request: Request, state: SimulatorState, reclaim: bool = False
    ) -> IoProcess | None:
        """A new process of ``kind`` for requests like ``request``, on the mover fitting it most
        tightly; ``None`` when no mover has enough idle drives (and room).

        With ``reclaim`` (MAIN-SCHEDULER), the drives of a process with nothing mapped count as
        idle too: the mover needing the fewest such processes ended is taken, and they are
        ended (their tapes ejected) to free its drives.
        """
        width = state.process_width(request)
        idle: dict[int, list[IoProcess]] = {}
        if reclaim:
            for processes in self.processes.values():
                for process in processes:
                    if process.load == 0:
                        idle.setdefault(process.mover, []).append(process)
        best: tuple[int, int, int, list[IoProcess]] | None = None
        for m in state.movers_for(request):
            free = len(self._free[m])
            ended: list[IoProcess] = []
            for process in sorted(idle.get(m, ()), key=lambda p: (-len(p.drives), p.number)):
                if free >= width:
                    break
                ended.append(process)
                free += len(process.drives)
            key = (len(ended), free, m)
            if free >= width and (best is None or key < best[:3]) and state.can_host(request, m):
                best = (*key, ended)
        if best is None:
            return None
        m = best[2]
        for process in best[3]:
            self._terminate(process, state)
            self.processes[process.kind].remove(process)
        order = {d: i for i, d in enumerate(self._movers[m] if self._movers else ())}
        drives = sorted(self._free[m], key=lambda d: (not state.is_idle(d), order[d]))[:width]
        self._free[m].difference_update(drives)
        process = IoProcess(self._made, kind, m, tuple(drives))
        self._made += 1
        self.processes.setdefault(kind, []).append(process)
        return process

    # LOAD-BALANCER.

    def imbalance(self) -> float:
        """Most minus least loaded type (load: requests mapped over processes), 0 for < 2."""
        loads = [
            sum(p.load for p in processes) / len(processes)
            for processes in self.processes.values()
            if processes
        ]
        return max(loads) - min(loads) if len(loads) > 1 else 0.0

    def triggered(self, now: float, state: SimulatorState) -> bool:
        """Whether one of the three conditions for LOAD-BALANCER to run holds at ``now``."""
        p = self.params
        if self.waiting_list:
            request, since = min(self.waiting_list.values(), key=lambda item: item[1])
            if now - since > p.max_waiting_time_s and not state.waits_for_tape(request):
                return True
        return len(self.waiting_list) > p.max_req_count or self.imbalance() > p.max_imbalance

    def _balance(self, now: float, state: SimulatorState) -> None:
        self.balancer_runs.append(now)
        reset = [r for r, _ in self.waiting_list.values()]
        for processes in self.processes.values():
            for process in processes:
                reset.extend(process.queue)
                self._terminate(process, state)
        reset.sort(key=state.arrival)
        self.processes = {}
        self.waiting_list = {}
        self._startable = {}
        wanted: dict[GroupType, list[Request]] = {}
        for request in reset:
            wanted.setdefault(state.request_type(request), []).append(request)
        for kind, requests in wanted.items():
            self._create(kind, requests[0], state)
        full: set[GroupType] = set()
        while len(full) < len(wanted):
            kind = max(
                (k for k in wanted if k not in full),
                key=lambda k: len(wanted[k]) / max(len(self.processes.get(k, ())), 1e-9),
            )
            if self._create(kind, wanted[kind][0], state) is None:
                full.add(kind)
        for request in reset:
            processes = self._usable(state.request_type(request), request, state)
            if state.waits_for_tape(request) or not processes:
                self._delay(request, now)
            else:
                least = _least_loaded(processes)
                assert least is not None
                self._map(request, least)

    def _terminate(self, process: IoProcess, state: SimulatorState) -> None:
        """End ``process``: its running request finishes; its other drives are ejected now."""
        running = set(process.running_on)
        if process.running is not None:
            self._running[process.running.id] = process.running_on
        for drive in process.drives:
            if drive in running:
                continue
            if state.tape_in(drive) is not None:
                self._eject[drive] = None
            self._free[process.mover].add(drive)
        process.queue.clear()

    # The decisions.

    def _next(self, state: SimulatorState) -> Decision | None:
        """An ejection due, else the next request of a process that runs nothing."""
        for drive in list(self._eject):
            if not state.is_idle(drive):
                continue
            del self._eject[drive]
            if state.tape_in(drive) is not None:
                return Dismount(drive)
        while self._startable:
            _, process = self._startable.popitem()
            if process.running is not None or not process.queue:
                continue
            request = process.queue.popleft()
            process.running = request
            process.running_on = self._drives_for(request, process, state)
            self._running[request.id] = process
            for drive in process.running_on:
                self._eject.pop(drive, None)
            return Start(request, drives=process.running_on)
        return None

    @staticmethod
    def _drives_for(request: Request, process: IoProcess, state: SimulatorState) -> tuple[str, ...]:
        """The process's drives ``request`` runs on: those holding its tapes first."""
        width = state.width(request)
        if width > len(process.drives):
            raise ValueError(
                f"{BW_MAIN}: request {request.id!r} needs {width} drives, "
                f"its process holds {len(process.drives)}"
            )
        if width == len(process.drives):
            return process.drives
        holding = [state.holder(p.tape) for p in request.pieces]
        first = [d for d in process.drives if d in holding]
        return tuple((first + [d for d in process.drives if d not in first])[:width])


def _least_loaded(processes: Sequence[IoProcess]) -> IoProcess | None:
    """The least loaded of ``processes`` (the oldest on a tie), ``None`` for none."""
    return min(processes, key=lambda p: (p.load, p.number), default=None)


def with_params(params: BwMainParams, **given: Any) -> BwMainParams:
    """``params`` with the values given (``None``: kept)."""
    return evolve(params, **{k: v for k, v in given.items() if v is not None})
