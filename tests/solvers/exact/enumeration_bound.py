"""The lower bound that prunes the exact enumeration (:mod:`.exact_enumeration`).

:meth:`LibraryBound.bound` bounds the objective of every schedule that
continues a node of the search, by three arguments each valid alone: each
request alone, requests that cannot overlap in time as one machine, and (for
the makespan) all the library's drives pooled. The one-machine arguments use
the classical bounds below (:func:`_last_end`, :func:`_mean_busy_bound`).
"""

from __future__ import annotations

import itertools
import math

from tapesched.toolkit.model import Instance, Library, Request

from .enumeration_tables import EMPTY, LibraryTables, State, bits

MAX_CLIQUE_REQUESTS = 12
"""Most requests of a library for which every set of them is tried as a clique."""


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


class LibraryBound(LibraryTables):
    """A library's tables (:class:`~.enumeration_tables.LibraryTables`) and the lower bound
    they give on the schedules that continue a node; parameters as there."""

    def __init__(self, instance: Instance, library: Library, requests: tuple[Request, ...]) -> None:
        super().__init__(instance, library, requests)
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
        self.setup = self._setups()
        self.cliques = self._cliques()

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
        for j in bits(remaining):
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
                alone = sum(weight[j] * (ends[j] - release[j]) for j in bits(group))
                if group & (group - 1):
                    jobs = [(at, length, weight[j]) for at, length, j in self._chain(group, starts)]
                    shared = _mean_busy_bound(jobs) - sum(
                        weight[j] * release[j] for j in bits(group)
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
                value = max(value, min(weight[j] * (last - release[j]) for j in bits(chain)))
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
        work = sum(self.work[j] for j in bits(remaining))
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
            if mask & (mask - 1) and all(mask & ~(1 << i) & ~apart[i] == 0 for i in bits(mask))
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
        members = list(bits(chain))
        for j in members:
            lead = min(self.setup[i][j] for i in members if i != j)
            jobs.append((starts[j] - lead, self.longest[j] + lead, j))
        return jobs
