"""The depth-first search of the exact enumeration (:mod:`.exact_enumeration`) of one library.

:class:`LibrarySearch` lists events (dismount, mount, start of a request)
in start order, each at its earliest time, and cuts a node that an earlier
node dominates or whose lower bound (:mod:`.enumeration_bound`) is no better
than the best schedule found; :mod:`.exact_enumeration` says why what is
left holds an optimum.
"""

from __future__ import annotations

import operator

from tapesched.toolkit.model import Instance, Library, Request

from .enumeration_bound import LibraryBound
from .enumeration_tables import EMPTY, SPARE, Event, State, StateLimitError, bits


class LibrarySearch(LibraryBound):
    """The depth-first search over event lists of one library's requests.

    Parameters
    ----------
    instance, library, requests
        As for :class:`~.enumeration_tables.LibraryTables`.
    incumbent
        Objective of a known schedule of these requests: only better ones are
        sought.
    max_states
        Most states expanded before :class:`~.enumeration_tables.StateLimitError`.
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
        super().__init__(instance, library, requests)
        self.prune = prune
        classes: dict[tuple[object, ...], list[int]] = {}
        for i in range(len(self.drives)):
            drive = self.drives[i]
            spec = (self.rate[i], self.load[i], self.unload[i], drive.locate_mb_s, drive.locate)
            classes.setdefault(spec, []).append(i)
        self.classes = list(classes.values())
        n_drives = len(self.drives)
        holds = self.initial_holds
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
        for j in bits(remaining):
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
