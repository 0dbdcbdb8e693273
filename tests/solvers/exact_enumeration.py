"""Exact optima of tiny instances, by a search over lists of events in start order.

:func:`exact_optimum` returns the least objective over all feasible schedules
of an instance, and a schedule reaching it. Unlike :func:`brute_force` of
``brute_force.py``, which decodes request orders and places all the arm
operations of a request at its turn, it is exact where arms bind: it
enumerates the arm operations one by one, so it interleaves those of several
requests in any way (``interleaved_arms``: 7, where list scheduling gives 9).

What is enumerated
------------------
A schedule is seen as a list of *events*, each with a start time:

- ``dismount(d)``: the drive unloads the tape it holds (drive time, from its
  last action on), then an arm dismounts it; the event's time is the arm
  operation's start. The tape is back in its slot, and the drive empty, at
  the operation's end;
- ``mount(d, T)``: an arm mounts tape ``T`` (in no drive) into the empty drive
  ``d``, then the drive loads it; the head is at offset 0;
- ``start(j)``: request ``j`` starts its transfer, on the drives that hold its
  pieces' tapes (a tape is in one drive at most, so those drives are known
  and distinct), after each drive has located from its head to its piece
  (:meth:`toolkit.model.Drive.locate_s`, linear or serpentine: the proof
  below asks nothing of the locate times but that they are the validator's;
  the bounds that prune count a serpentine locate as 0 s, its only floor
  from a distance).

The search builds lists in which times never decrease, and gives each new
event the earliest time, no earlier than the previous event's, that the
events before it allow: the drive's last action plus the unload, the end of
the dismount that emptied the drive or freed the tape, the release, the
locate from the head, and an arm. With the events listed in start order, an
arm operation of nonzero length fits at time ``x`` when fewer than ``arms``
operations listed before it are still running at ``x``, which is exactly the
library's capacity (intervals are half-open, an operation of zero length
takes no arm); the state keeps the ``arms`` latest ends of each library.

Why the least objective found is the optimum
--------------------------------------------
Take an optimal schedule ``S`` with the fewest arm operations. In it every
mounted tape serves some request before it is dismounted (else dropping the
mount and its dismount keeps ``S`` feasible with fewer operations), and
every dismount is followed by a mount into the same drive or of the same
tape (else dropping the dismount, the tape staying to the end, does). List
its events by start time, ties in an order that the rules allow: a mount
before the requests of its stay, a request before the next one on any of its
drives and before the dismount of its tapes, a dismount before the next
mount into its drive or of its tape. Such an order exists: the validator
sees the requests of a stay in order of start, then end, then id (one order
for all drives), and a drive's stays in time order. A request tied with a
later event of its drive takes no time. Where it is the last of a stay and
the drive's next stay begins at once (no unload nor dismount time), the
validator reads it in the later stay when it could run there, in the earlier
one otherwise, as listed here. The two orders could only disagree where such
a switch takes no time at all, requests of both of its stays tie at its
instant, and gangs tie drives together there; one more such switch, free,
then lists them apart. Replay the list, each event at its earliest time as
above. By induction every event is placed no later than in ``S``: its lower
bounds in ``S`` come from the same predecessors, each placed no later; the
previous event is placed no later than its own time in ``S``, which is at
most this one's; and each earlier arm operation ends no later, so the arms
free at its time in ``S`` are free in the replay. The drives see the same
requests in the same order with the same head positions, so every request
ends no later, and the three objectives are nondecreasing in every end: the
replay is optimal too, and it is one of the lists enumerated (mounts of a
tape some request not yet placed needs; dismounts of a tape there at time 0
or of one that has served a request since its mount).

Pruning keeps that list or one no worse. A node is cut when

- *dominated*: an earlier node has the same requests placed and the same
  drive contents (tape, head, whether it may be dismounted) and no later
  times (last event, each drive's last action or the end of the dismount
  that emptied it, when each drive may start a dismount, each needed tape's
  return to its slot, arm ends, and the objective so far). Every
  continuation of the cut node, replayed from the earlier one, places every
  event no later (the argument above). Times below the last event's, which
  only ever enter a maximum with a later event's time, count as 0; tapes no
  request left needs count as one "spare" tape, and identical drives of a
  library are compared in a canonical order;
- *bounded*: the objective of the requests placed, combined with a lower
  bound on the rest (:meth:`LibrarySearch.bound`), is no better than the
  best schedule found, starting from the greedy schedule's objective.

By induction on the number of events of a continuation, for every node
recorded and every continuation of it, some schedule found is no worse: the
continuation's next node is expanded, or cut by the bound, or dominated by
a recorded node from which the rest of the continuation replays no worse.
Hence the least objective found is the optimum. The search never gives up
silently: past ``max_states`` states it raises :class:`StateLimitError`.

Libraries share nothing, so each one is searched alone and the parts are
put together (the weighted flow sums over libraries, the two maxima take
the maximum).

Tolerances
----------
The search works in exact arithmetic up to floating point. The validator
accepts every constraint to within 1e-6 s, which could admit schedules up to
about 1e-6 s better per constraint; they are not sought.
"""

from __future__ import annotations

import itertools
import math
import operator
import time
from collections.abc import Iterator

import attrs

from tapesched.solvers.greedy import greedy
from tapesched.toolkit.model import (
    ArmOperation,
    Instance,
    Library,
    ObjectiveValue,
    Request,
    Schedule,
    ScheduledRequest,
)
from tapesched.toolkit.validator import validate

MAX_CLIQUE_REQUESTS = 12
"""Most requests of a library for which every set of them is tried as a clique."""

EMPTY = -1
"""Tape index of an empty drive in a state."""

SPARE = -2
"""Tape index, in a dominance key, of a tape that no request left needs."""

Event = tuple[str, int, tuple[int, ...], float]
"""``(kind, index, drives, time)``: ``("start", request, drives per piece, S_j)``,
``("mount", tape, (drive,), start)`` or ``("dismount", tape, (drive,), start)``."""


@attrs.frozen
class State:
    """A node of the search: what the events listed so far leave behind.

    Attributes
    ----------
    done
        Bit ``j`` set when request ``j`` is placed.
    t
        Time of the last event; every later event is at ``t`` or after.
    value
        Objective of the requests placed (a sum or a maximum).
    holds
        Per drive, the tape it holds, or :data:`EMPTY`.
    heads
        Per drive, its head's offset (0 when empty).
    frees
        Per drive holding a tape, when its last action ends (the end of its
        last request, or of the load); per empty drive, when the dismount
        that emptied it ended.
    unloads
        Per drive holding a tape, when an arm may start dismounting it at the
        earliest: the last action plus ``unload_s``.
    dismountable
        Per drive, whether its tape may be dismounted: a tape there at time
        0, or one that has served a request since its mount.
    slots
        Per tape, when it was last back in its slot.
    arms
        The ``arms`` latest ends of arm operations, in increasing order.

    Every time below ``t`` other than a drive's last action is stored as 0,
    since it can only enter a maximum with a time of ``t`` or later.
    """

    done: int
    t: float
    value: float
    holds: tuple[int, ...]
    heads: tuple[float, ...]
    frees: tuple[float, ...]
    unloads: tuple[float, ...]
    dismountable: tuple[bool, ...]
    slots: tuple[float, ...]
    arms: tuple[float, ...]


class StateLimitError(RuntimeError):
    """The search expanded more states than it was allowed to."""


def _bits(mask: int) -> Iterator[int]:
    """The set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _last_end(jobs: list[tuple[float, float, int]]) -> float:
    """Least end of the last of one machine's jobs ``(release, length, _)``.

    Earliest release first is optimal for the makespan of one machine.
    """
    end = -math.inf
    for release, length, _ in sorted(jobs):
        end = max(end, release) + length
    return end


def _pooled_end(ready: list[float], work: float) -> float:
    """Least ``x`` at which machines free from ``ready`` (sorted) have done ``work`` between them.

    The smallest ``x`` with ``sum(max(0, x - r) for r in ready) >= work``.
    """
    done = 0.0
    for k, at in enumerate(ready):
        following = ready[k + 1] if k + 1 < len(ready) else math.inf
        if done + (k + 1) * (following - at) >= work:
            return at + (work - done) / (k + 1)
        done += (k + 1) * (following - at)
    return math.inf


def _mean_busy_bound(jobs: list[tuple[float, float, float]]) -> float:
    """A lower bound on the sum of ``w_j C_j`` of one machine's jobs ``(release, length, weight)``.

    Goemans (1997), "Improved approximation algorithms for scheduling with
    release dates": in the preemptive schedule that always runs the released
    job of largest ``w_j / p_j``, the weighted sum of the mean busy times
    ``M_j`` is least over all preemptive schedules, and ``C_j >= M_j + p_j / 2``
    in every non-preemptive one.
    """
    order = sorted(range(len(jobs)), key=lambda j: jobs[j][0])
    left = [p for _, p, _ in jobs]
    ready: list[int] = []
    total = sum(w * p / 2 for _, p, w in jobs)
    now = -math.inf
    i = 0
    while i < len(order) or ready:
        if not ready:
            now = max(now, jobs[order[i]][0])
        while i < len(order) and jobs[order[i]][0] <= now:
            ready.append(order[i])
            i += 1
        k = max(ready, key=lambda j: math.inf if jobs[j][1] == 0 else jobs[j][2] / jobs[j][1])
        if jobs[k][1] == 0:
            total += jobs[k][2] * now
            ready.remove(k)
            continue
        until = jobs[order[i]][0] if i < len(order) else math.inf
        run = min(left[k], until - now)
        total += jobs[k][2] * run / jobs[k][1] * (now + run / 2)
        now += run
        left[k] -= run
        if left[k] <= 0:
            ready.remove(k)
    return total


class LibrarySearch:
    """The depth-first search over event lists of one library's requests.

    Parameters
    ----------
    instance
        The whole instance (for its objective and initial tapes).
    library
        The library searched.
    requests
        That library's requests.
    incumbent
        Objective of a known schedule of these requests: only better ones are
        sought.
    max_states
        Most states expanded before :class:`StateLimitError`.
    prune
        Cut by bound and dominance; without, every list is enumerated (to
        check that the cuts change nothing, on the tiniest instances).
    """

    def __init__(
        self,
        instance: Instance,
        library: Library,
        requests: tuple[Request, ...],
        incumbent: float,
        max_states: int,
        prune: bool = True,
    ) -> None:
        self.prune = prune
        self.objective = instance.objective
        self.library = library
        self.drives = instance.drives_of_library[library.id]
        self.requests = requests
        drive_index = {d.id: i for i, d in enumerate(self.drives)}
        tape_ids: list[str] = []
        for request in requests:
            tape_ids.extend(p.tape for p in request.pieces)
        initial = {drive_index[x.drive]: x.tape for x in instance.initial if x.drive in drive_index}
        tape_ids.extend(initial.values())
        self.tape_ids = list(dict.fromkeys(tape_ids))
        tape_index = {t: i for i, t in enumerate(self.tape_ids)}
        self.rate = [float(d.rate_mb_s) for d in self.drives]
        self.load = [float(d.load_s) for d in self.drives]
        self.unload = [float(d.unload_s) for d in self.drives]
        self.locate = [float(d.floor_speed_mb_s) for d in self.drives]
        """A speed no locate beats: ``locate_mb_s``; infinite on a serpentine drive."""
        capacity = {t.id: float(t.capacity_mb) for t in instance.tapes}
        self.capacity = [capacity[t] for t in self.tape_ids]
        self.mount_s = float(library.mount_s)
        self.dismount_s = float(library.dismount_s)
        self.release = [float(r.release_s) for r in requests]
        self.weight = [float(r.weight) for r in requests]
        self.pieces = [
            tuple(
                (
                    tape_index[p.tape],
                    float(p.offset_mb),
                    float(p.size_mb),
                    float(p.offset_mb + p.size_mb),
                )
                for p in r.pieces
            )
            for r in requests
        ]
        self.head_speed = [max(r, x) for r, x in zip(self.rate, self.locate, strict=True)]
        """Fastest a head moves forward: locating, or streaming other requests' pieces."""
        self.tails = [
            [
                [ld + p.offset_mb / v for ld, v in zip(self.load, self.head_speed, strict=True)]
                for p in r.pieces
            ]
            for r in requests
        ]
        self.transfer = [
            [[p.size_mb / rate for rate in self.rate] for p in r.pieces] for r in requests
        ]
        self.assignments = [
            list(itertools.permutations(range(len(self.drives)), len(r.pieces))) for r in requests
        ]
        self.longest = [
            min(max(x[p][d] for p, d in enumerate(a)) for a in assignments)
            for x, assignments in zip(self.transfer, self.assignments, strict=True)
        ]
        self.work = [len(r.pieces) * x for r, x in zip(requests, self.longest, strict=True)]
        self.group_cache: dict[int, list[int]] = {}
        self.need = [0] * len(self.tape_ids)
        for j, pieces in enumerate(self.pieces):
            for piece in pieces:
                self.need[piece[0]] |= 1 << j
        self.setup = self._setups()
        self.cliques = self._cliques()
        self.all = (1 << len(requests)) - 1
        classes: dict[tuple[object, ...], list[int]] = {}
        for i in range(len(self.drives)):
            drive = self.drives[i]
            spec = (self.rate[i], self.load[i], self.unload[i], drive.locate_mb_s, drive.locate)
            classes.setdefault(spec, []).append(i)
        self.classes = list(classes.values())
        n_drives = len(self.drives)
        holds = tuple(tape_index[initial[i]] if i in initial else EMPTY for i in range(n_drives))
        self.root = State(
            done=0,
            t=0.0,
            value=0.0,
            holds=holds,
            heads=(0.0,) * n_drives,
            frees=(0.0,) * n_drives,
            unloads=tuple(self.unload),
            dismountable=tuple(h != EMPTY for h in holds),
            slots=(0.0,) * len(self.tape_ids),
            arms=(0.0,) * library.arms,
        )
        self.best = incumbent
        self.best_path: list[Event] | None = None
        self.max_states = max_states
        self.expanded = 0
        self.generated = 0
        self.memo: dict[tuple[object, ...], list[tuple[float, ...]]] = {}
        self.path: list[Event] = []

    def run(self) -> list[Event] | None:
        """Search; the events of the best schedule found below the incumbent, or ``None``."""
        if self.requests:
            self._expand(self.root)
        return self.best_path

    def _add(self, value: float, j: int, end: float) -> float:
        """The objective so far once request ``j`` ends at ``end``."""
        if self.objective == "weighted-flow":
            return value + self.weight[j] * (end - self.release[j])
        if self.objective == "makespan":
            return max(value, end)
        return max(value, self.weight[j] * (end - self.release[j]))

    def _arm(self, arms: tuple[float, ...], earliest: float, length: float) -> tuple[float, float]:
        """Start of an arm operation of ``length`` at ``earliest`` or after, and its end."""
        if length <= 0.0:
            return earliest, earliest
        start = max(earliest, arms[0])
        return start, start + length

    def _with_arm(self, arms: tuple[float, ...], end: float, length: float) -> tuple[float, ...]:
        """The ``arms`` latest ends once an operation of ``length`` ending at ``end`` is added.

        The operation starts at ``arms[0]`` or later, so the earliest of the
        latest ends no longer matters.
        """
        if length <= 0.0:
            return arms
        return tuple(sorted((*arms[1:], end)))

    def _child(
        self,
        t: float,
        done: int,
        value: float,
        holds: tuple[int, ...],
        heads: list[float],
        frees: list[float],
        unloads: tuple[float, ...],
        dismountable: tuple[bool, ...],
        slots: list[float],
        arms: tuple[float, ...],
    ) -> State:
        """A state at time ``t``, every time below ``t`` that only enters maxima set to 0."""
        for i, tape in enumerate(holds):
            if tape == EMPTY and frees[i] <= t:
                frees[i] = 0.0
        for i, x in enumerate(slots):
            if x <= t:
                slots[i] = 0.0
        if arms[-1] <= t:
            arms = (0.0,) * len(arms)
        elif arms[0] <= t:
            arms = tuple(0.0 if x <= t else x for x in arms)
        return State(
            done,
            t,
            value,
            holds,
            tuple(heads),
            tuple(frees),
            unloads,
            dismountable,
            tuple(slots),
            arms,
        )

    def _switched(
        self,
        s: State,
        d: int,
        hold: int,
        start: float,
        free: float,
        unloads: tuple[float, ...],
        slots: list[float],
        arm_end: float,
        arm_s: float,
    ) -> State:
        """The state an arm operation on drive ``d`` from ``start`` leaves (a mount or a dismount).

        The drive then holds ``hold`` (``EMPTY``: nothing), its head at 0,
        busy until ``free``, and no dismount may follow before a transfer; the
        arms are busy until ``arm_end`` with an operation of ``arm_s``.
        ``unloads`` and ``slots`` are the state's, as the operation changes them.
        """
        holds = list(s.holds)
        holds[d] = hold
        heads = list(s.heads)
        heads[d] = 0.0
        frees = list(s.frees)
        frees[d] = free
        dismountable = list(s.dismountable)
        dismountable[d] = False
        return self._child(
            start,
            s.done,
            s.value,
            tuple(holds),
            heads,
            frees,
            unloads,
            tuple(dismountable),
            slots,
            self._with_arm(s.arms, arm_end, arm_s),
        )

    def _children(self, s: State) -> list[tuple[float, int, Event, State]]:
        """Every event that may come next, at its earliest time, and the state it leaves."""
        t = s.t
        holds = s.holds
        holder = {tape: i for i, tape in enumerate(holds) if tape != EMPTY}
        remaining = self.all & ~s.done
        out: list[tuple[float, int, Event, State]] = []
        for j in _bits(remaining):
            start = max(t, self.release[j])
            drives = []
            for tape, offset, _, _ in self.pieces[j]:
                d = holder.get(tape)
                if d is None:
                    break
                drives.append(d)
                located = self.drives[d].locate_s(s.heads[d], offset, self.capacity[tape])
                ready = s.frees[d] + located
                if ready > start:
                    start = ready
            else:
                end = start
                for (_, _, size, _), d in zip(self.pieces[j], drives, strict=True):
                    finish = start + size / self.rate[d]
                    if finish > end:
                        end = finish
                heads = list(s.heads)
                frees = list(s.frees)
                unloads = list(s.unloads)
                dismountable = list(s.dismountable)
                for (_, _, _, end_mb), d in zip(self.pieces[j], drives, strict=True):
                    heads[d] = end_mb
                    frees[d] = end
                    unloads[d] = end + self.unload[d]
                    dismountable[d] = True
                child = self._child(
                    start,
                    s.done | (1 << j),
                    self._add(s.value, j, end),
                    holds,
                    heads,
                    frees,
                    tuple(unloads),
                    tuple(dismountable),
                    list(s.slots),
                    s.arms,
                )
                out.append((start, 0, ("start", j, tuple(drives), start), child))
        needed = [tape for tape, mask in enumerate(self.need) if mask & remaining]
        for d, tape in enumerate(holds):
            if tape == EMPTY:
                for new in needed:
                    if new in holder:
                        continue
                    start, end = self._arm(s.arms, max(t, s.frees[d], s.slots[new]), self.mount_s)
                    free = end + self.load[d]
                    unloads = list(s.unloads)
                    unloads[d] = free + self.unload[d]
                    child = self._switched(
                        s, d, new, start, free, tuple(unloads), list(s.slots), end, self.mount_s
                    )
                    out.append((start, 2, ("mount", new, (d,), start), child))
            elif s.dismountable[d]:
                start, end = self._arm(s.arms, max(t, s.unloads[d]), self.dismount_s)
                slots = list(s.slots)
                slots[tape] = end
                child = self._switched(
                    s, d, EMPTY, start, end, s.unloads, slots, end, self.dismount_s
                )
                out.append((start, 1, ("dismount", tape, (d,), start), child))
        out.sort(key=operator.itemgetter(0, 1))
        return out

    def bound(self, s: State) -> float:
        """A lower bound on the objective of every schedule that continues ``s``.

        Every event to come is at ``s.t`` or later. Three arguments, each
        valid alone:

        *Each request alone.* Its transfer starts no earlier than its release,
        and than each piece can be ready on its drive: the drive holding the
        piece's tape after locating from its head, or any drive after a
        mount, which waits for the tape to be out of its drive, for the
        drive to be emptied and for an arm, then the load and the locate
        from 0; a head gets to a piece no faster than by locating or by
        streaming other requests' pieces on the way, whichever is faster (an
        optimal schedule may read a long piece to pass over a short one). The
        pieces take distinct drives, so the least over every
        assignment of pieces to drives of the start, and of the start plus
        the longest transfer on those drives, bound ``S_j`` and ``C_j``.

        *Requests that cannot overlap* (:meth:`_cliques`) form a one-machine
        problem (:meth:`_chain`): each job runs from ``S_j`` less its least
        setup after another of them (:meth:`_setups`) to ``C_j``, for at
        least that setup plus ``p_j``, the least longest transfer over every
        assignment. Makespan: its least end (earliest start first). Max
        weighted flow: the request that ends last ends no earlier than that.
        Weighted flow: the requests are split into such sets, each bounded by
        the mean busy time bound (:func:`_mean_busy_bound`) or by its
        requests alone, whichever is more.

        *All drives* (makespan, :meth:`_pooled`): the drive time still needed
        fits in the drives' time from when each is free.
        """
        remaining = self.all & ~s.done
        if not remaining:
            return s.value
        t = s.t
        holds, frees = s.holds, s.frees
        arm_free = s.arms[0]
        mount_free = max(t, arm_free) if self.mount_s > 0 else t
        dismount_free = max(t, arm_free) if self.dismount_s > 0 else t
        clear = [
            max(t, frees[d])
            if tape == EMPTY
            else max(dismount_free, s.unloads[d]) + self.dismount_s
            for d, tape in enumerate(holds)
        ]
        holder = {tape: i for i, tape in enumerate(holds) if tape != EMPTY}
        heads, slots, speed, mount_s = s.heads, s.slots, self.head_speed, self.mount_s
        mounted = [max(c, mount_free) + mount_s for c in clear]
        starts = {}
        ends = {}
        for j in _bits(remaining):
            rows = []
            for (tape, offset, _, _), tails in zip(self.pieces[j], self.tails[j], strict=True):
                at = holder.get(tape)
                here = mounted[at] if at is not None else max(t, slots[tape], mount_free) + mount_s
                row = [
                    (m if m > here else here) + tail for m, tail in zip(mounted, tails, strict=True)
                ]
                if at is not None:
                    located = frees[at] + abs(offset - heads[at]) / speed[at]
                    if located < row[at]:
                        row[at] = located
                rows.append(row)
            first = max(t, self.release[j])
            transfer = self.transfer[j]
            if len(rows) == 1:
                row = rows[0]
                start = max(first, min(row))
                end = min(
                    (r if r > first else first) + x for r, x in zip(row, transfer[0], strict=True)
                )
            else:
                start = end = math.inf
                for assignment in self.assignments[j]:
                    begin = first
                    length = 0.0
                    for p, d in enumerate(assignment):
                        if rows[p][d] > begin:
                            begin = rows[p][d]
                        if transfer[p][d] > length:
                            length = transfer[p][d]
                    if begin < start:
                        start = begin
                    if begin + length < end:
                        end = begin + length
            starts[j] = start
            ends[j] = end
        weight, release = self.weight, self.release
        if self.objective == "weighted-flow":
            total = s.value
            for group in self._groups(remaining):
                alone = sum(weight[j] * (ends[j] - release[j]) for j in _bits(group))
                if group & (group - 1):
                    jobs = [(at, length, weight[j]) for at, length, j in self._chain(group, starts)]
                    shared = _mean_busy_bound(jobs) - sum(
                        weight[j] * release[j] for j in _bits(group)
                    )
                    alone = max(alone, shared)
                total += alone
            return total
        if self.objective == "makespan":
            value = max(s.value, *ends.values())
            for clique in self.cliques:
                chain = clique & remaining
                if chain & (chain - 1):
                    value = max(value, _last_end(self._chain(chain, starts)))
            return max(value, self._pooled(s, remaining, clear, mount_free))
        value = max(s.value, *(weight[j] * (ends[j] - release[j]) for j in ends))
        for clique in self.cliques:
            chain = clique & remaining
            if chain & (chain - 1):
                last = _last_end(self._chain(chain, starts))
                value = max(value, min(weight[j] * (last - release[j]) for j in _bits(chain)))
        return value

    def _pooled(self, s: State, remaining: int, clear: list[float], mount_free: float) -> float:
        """Least end of the drive work left, the library's drives pooled (makespan bound).

        Every request ``j`` keeps ``k_j`` drives busy for ``p_j``. Either each
        drive that holds no tape a request left needs is counted from when a
        mount and load into it could end at the earliest; or every drive
        from ``s.t`` or its last action, with the work of one mount and load
        per tape needed and in no drive, and one unload and dismount per such
        mount beyond the empty drives.

        In the second count, an unload is the one piece of that work that
        may run before ``s.t``: a drive unloads from its last action on, and
        only the dismount that follows is an event. So the first unload of
        each drive holding a tape is counted only past the part of it that
        fits between its last action and ``s.t`` (at most one such part per
        drive, and no more of them than unloads counted, the largest first).
        """
        t = s.t
        work = sum(self.work[j] for j in _bits(remaining))
        useful = sorted(
            max(t, s.frees[d])
            if tape != EMPTY and self.need[tape] & remaining
            else max(clear[d], mount_free) + self.mount_s + self.load[d]
            for d, tape in enumerate(s.holds)
        )
        held = {tape for tape in s.holds if tape != EMPTY}
        mounts = sum(
            1 for tape, mask in enumerate(self.need) if mask & remaining and tape not in held
        )
        empty = sum(1 for tape in s.holds if tape == EMPTY)
        unloads = max(0, mounts - empty)
        unload_s = min(self.unload)
        early = sorted(
            (
                min(unload_s, t - s.frees[d])
                for d, tape in enumerate(s.holds)
                if tape != EMPTY and s.frees[d] < t
            ),
            reverse=True,
        )
        setups = (
            mounts * (self.mount_s + min(self.load))
            + unloads * (unload_s + self.dismount_s)
            - sum(early[:unloads])
        )
        every = sorted(max(t, x) for x in s.frees)
        return max(_pooled_end(useful, work), _pooled_end(every, work + setups))

    def _setups(self) -> list[list[float]]:
        """``setup[i][j]``: least time from the end of ``i`` to the start of a later ``j``.

        At ``i``'s end its drives hold its tapes. If ``j`` needs more tapes
        that ``i`` did not use than there are other drives, the excess of
        ``i``'s drives must switch: each unloads, is dismounted and mounted
        (the arms doing all those operations in between), loads, and locates
        from 0.
        A tape both use moves its head from ``i``'s piece to ``j``'s, at most
        at the fastest head speed (locate or stream), or is remounted (a
        switch, then from 0).
        """
        n_drives = len(self.drives)
        switch = min(self.unload) + self.dismount_s + self.mount_s + min(self.load)
        per_arm = (self.dismount_s + self.mount_s) / self.library.arms
        speed = max(max(r, x) for r, x in zip(self.rate, self.locate, strict=True))
        out = []
        for first in self.pieces:
            row = []
            ends = {tape: end for tape, _, _, end in first}
            for then in self.pieces:
                gap = 0.0
                new = [offset for tape, offset, _, _ in then if tape not in ends]
                switches = len(new) - (n_drives - len(first))
                if switches > 0:
                    arms = min(self.unload) + switches * per_arm + min(self.load)
                    gap = max(switch, arms) + min(new) / speed
                for tape, offset, _, _ in then:
                    if tape in ends:
                        moved = min(abs(offset - ends[tape]) / speed, switch + offset / speed)
                        gap = max(gap, moved)
                row.append(gap)
            out.append(row)
        return out

    def _cliques(self) -> list[int]:
        """Maximal sets of requests that pairwise cannot overlap in time, as bit masks.

        Two requests cannot overlap when they share a tape (a tape is in one
        drive, busy until each request's end) or need more drives together
        than the library has.
        """
        n = len(self.requests)
        n_drives = len(self.drives)
        tapes = [{p[0] for p in pieces} for pieces in self.pieces]
        apart = [
            sum(
                1 << j
                for j in range(n)
                if j != i and (tapes[i] & tapes[j] or len(tapes[i]) + len(tapes[j]) > n_drives)
            )
            for i in range(n)
        ]
        if n > MAX_CLIQUE_REQUESTS:
            return [mask for mask in self.need if mask & (mask - 1)]
        cliques = [
            mask
            for mask in range(1, 1 << n)
            if mask & (mask - 1) and all(mask & ~(1 << i) & ~apart[i] == 0 for i in _bits(mask))
        ]
        return [c for c in cliques if not any(c != d and c & d == c for d in cliques)]

    def _groups(self, remaining: int) -> list[int]:
        """The requests left, split into sets that cannot overlap (largest first), as bit masks."""
        groups = self.group_cache.get(remaining)
        if groups is None:
            groups = []
            left = remaining
            while left:
                best = max((c & left for c in self.cliques), default=0, key=int.bit_count)
                if best & (best - 1) == 0:
                    best = left & -left
                groups.append(best)
                left &= ~best
            self.group_cache[remaining] = groups
        return groups

    def _chain(self, chain: int, starts: dict[int, float]) -> list[tuple[float, float, int]]:
        """The requests of ``chain`` as one machine's jobs ``(release, length, j)``.

        Each request occupies the machine from its start less ``in_j``, the
        least setup from another request of the chain, to its end: those
        intervals cannot overlap, whichever request comes first.
        """
        jobs = []
        members = list(_bits(chain))
        for j in members:
            lead = min(self.setup[i][j] for i in members if i != j)
            jobs.append((starts[j] - lead, self.longest[j] + lead, j))
        return jobs

    def _canonical(self, s: State) -> tuple[tuple[object, ...], tuple[float, ...]]:
        """The discrete part of ``s`` (a dictionary key) and its times (compared componentwise)."""
        remaining = self.all & ~s.done
        entries = []
        held_needed = set()
        for d, tape in enumerate(s.holds):
            if tape == EMPTY:
                entries.append(((EMPTY, 0.0, False), s.frees[d], 0.0))
            elif not self.need[tape] & remaining:
                entries.append(((SPARE, 0.0, s.dismountable[d]), 0.0, s.unloads[d]))
            else:
                held_needed.add(tape)
                entries.append(((tape, s.heads[d], s.dismountable[d]), s.frees[d], s.unloads[d]))
        discrete: list[object] = [s.done]
        times = [s.t, s.value]
        for members in self.classes:
            for key, free, unload in sorted(entries[i] for i in members):
                discrete.append(key)
                times.append(free)
                times.append(unload)
        for tape, mask in enumerate(self.need):
            if mask & remaining and tape not in held_needed:
                times.append(s.slots[tape])
        times.extend(s.arms)
        return tuple(discrete), tuple(times)

    def _dominated(self, s: State) -> bool:
        """Whether a state expanded before is no worse than ``s``; if not, record ``s``."""
        key, times = self._canonical(s)
        front = self.memo.get(key)
        if front is None:
            self.memo[key] = [times]
            return False
        le = operator.le
        for old in front:
            if all(map(le, old, times)):
                return True
        front[:] = [old for old in front if not all(map(le, times, old))]
        front.append(times)
        return False

    def _expand(self, s: State) -> None:
        """Search below ``s``, children in order of time (so that dominance cuts delayed copies)."""
        self.expanded += 1
        if self.expanded > self.max_states:
            raise StateLimitError(f"more than {self.max_states} states expanded")
        for _, _, event, child in self._children(s):
            self.generated += 1
            if child.done == self.all:
                if child.value < self.best:
                    self.best = child.value
                    self.best_path = [*self.path, event]
                continue
            if self.prune and (self._dominated(child) or self.bound(child) >= self.best):
                continue
            self.path.append(event)
            self._expand(child)
            self.path.pop()


@attrs.frozen
class Statistics:
    """What :func:`exact_optimum` spent: states expanded and generated, and seconds."""

    expanded: int
    generated: int
    seconds: float


def _part(instance: Instance, library: Library) -> Instance:
    """The instance restricted to one library, its drives, tapes, initial tapes and requests."""
    drives = instance.drives_of_library[library.id]
    ids = {d.id for d in drives}
    return Instance(
        name=instance.name,
        libraries=(library,),
        drives=drives,
        tapes=tuple(t for t in instance.tapes if t.library == library.id),
        requests=tuple(
            r for r in instance.requests if instance.library_of_request(r).id == library.id
        ),
        initial=tuple(x for x in instance.initial if x.drive in ids),
        objective=instance.objective,
    )


def _events_to_parts(
    search: LibrarySearch, events: list[Event]
) -> tuple[list[ScheduledRequest], list[ArmOperation]]:
    """The requests and arm operations of a list of events, ends computed as the validator does."""
    requests = []
    operations = []
    library = search.library
    for kind, index, drives, at in events:
        if kind == "start":
            request = search.requests[index]
            end = at
            for piece, d in zip(request.pieces, drives, strict=True):
                finish = at + piece.size_mb / search.drives[d].rate_mb_s
                if finish > end:
                    end = finish
            names = tuple(search.drives[d].id for d in drives)
            requests.append(ScheduledRequest(request.id, names, at, end))
        else:
            length = library.mount_s if kind == "mount" else library.dismount_s
            operations.append(
                ArmOperation(
                    kind,
                    search.tape_ids[index],
                    search.drives[drives[0]].id,
                    at,
                    at + length,
                    library.id,
                )
            )
    return requests, operations


def solve(
    instance: Instance, *, max_states: int = 2_000_000, prune: bool = True
) -> tuple[Schedule | None, Statistics]:
    """An optimal schedule of ``instance`` (``None`` if it has none) and what finding it cost.

    Each library is searched alone, from the objective of the greedy
    schedule of its requests, which is kept when nothing better exists (a
    greedy schedule that the validator rejects is ignored).

    Parameters
    ----------
    instance
        A tiny well-formed instance.
    max_states
        Most states expanded over all libraries.
    prune
        See :class:`LibrarySearch`; without it, the greedy schedule is not
        used either.

    Raises
    ------
    StateLimitError
        When the search expands more than ``max_states`` states.
    AssertionError
        When the schedule found fails the validator (a bug of this module).
    """
    began = time.perf_counter()
    requests: list[ScheduledRequest] = []
    operations: list[ArmOperation] = []
    expanded = generated = 0
    for library in instance.libraries:
        part = _part(instance, library)
        if not part.requests:
            continue
        known = greedy(part, time_limit_s=None, seed=0).schedule if prune else None
        incumbent = math.inf
        if known is not None:
            report = validate(part, known)
            if report.feasible and report.objective is not None:
                incumbent = report.objective
            else:
                known = None
        search = LibrarySearch(
            instance, library, part.requests, incumbent, max_states - expanded, prune
        )
        events = search.run()
        expanded += search.expanded
        generated += search.generated
        if events is not None:
            found_requests, found_operations = _events_to_parts(search, events)
            requests.extend(found_requests)
            operations.extend(found_operations)
        elif known is not None:
            requests.extend(known.requests)
            operations.extend(known.operations)
        else:
            return None, Statistics(expanded, generated, time.perf_counter() - began)
    order = {r.id: i for i, r in enumerate(instance.requests)}
    requests.sort(key=lambda r: order[r.id])
    operations.sort(key=lambda op: (op.start_s, op.op == "mount", op.drive, op.tape))
    schedule = Schedule(tuple(requests), tuple(operations), instance.name)
    report = validate(instance, schedule)
    assert report.feasible and report.objective is not None, [str(v) for v in report.violations]
    value = ObjectiveValue(instance.objective, report.objective)
    schedule = Schedule(schedule.requests, schedule.operations, instance.name, value)
    return schedule, Statistics(expanded, generated, time.perf_counter() - began)


def exact_optimum(
    instance: Instance, *, max_states: int = 2_000_000
) -> tuple[float, Schedule | None]:
    """Least objective over all feasible schedules, and one schedule reaching it.

    The objective is the one :func:`toolkit.validator.validate` recomputes
    for the schedule returned. Every well-formed instance has a schedule, so
    the schedule is ``None`` (and the objective ``math.inf``) only for an
    instance none exists for, which this module never meets.

    Parameters
    ----------
    instance
        A tiny well-formed instance (a handful of requests and drives).
    max_states
        Most states expanded; see :func:`solve`.
    """
    schedule, _ = solve(instance, max_states=max_states)
    if schedule is None:
        return math.inf, None
    assert schedule.objective is not None
    return schedule.objective.value, schedule
