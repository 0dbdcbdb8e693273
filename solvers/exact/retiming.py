"""Earliest times of events tied by "at least ``offset`` after" precedences.

Both exact backends read a solution the same way: they keep what it decided
(each drive's sequence, the tape stays, the order of the arm operations) and
recompute every time as the earliest that those decisions allow, so that
neither a MILP solver's tolerances nor the CP-SAT model's rounding reaches
the schedule. Each decision is then a precedence "event ``b`` at least
``offset`` after event ``a``", each release a lower bound, and the earliest
times are the longest paths from the lower bounds: :class:`EventGraph`, one
code for :func:`solvers.milp.solution.retime` and
:func:`solvers.cpsat.decisions.earliest`.

The graph is unit-free: lower bounds, offsets and times are all in the one
unit its caller uses (seconds in the MILP reader; seconds, or the model's
ticks for a hint, in the CP-SAT one).

Decisions read from a solution give acyclic precedences. A cycle whose
offsets add up to 0 or less binds nothing more and is allowed, as both
readers allowed it before they shared this code (with their offsets, all
durations, it ties its events to one time); a cycle of positive length
means contradictory decisions, which only a solver's numerical failure can
cause, and is reported as :class:`PositiveCycle`.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Generic, TypeVar

import networkx as nx

Key = TypeVar("Key", bound=Hashable)
"""How the caller names its events (a request's start, a stay's mount, ...)."""


class PositiveCycle(ValueError):
    """Precedences that no times satisfy: a cycle whose offsets add up to more than 0."""


class EventGraph(Generic[Key]):
    """Events with lower bounds, and "at least ``offset`` after" precedences.

    Events are named by any hashable key of the caller's and numbered in
    the order they are named; lower bounds and incoming offsets are kept by
    number in plain lists while the caller adds them (the readers add
    thousands, one at a time, and a tuple key costs more to hash than an
    integer). :meth:`earliest` puts the numbers in a
    :class:`networkx.DiGraph` for its orders and components.

    Examples
    --------
    >>> events = EventGraph[str]()
    >>> events.event("release", 5.0)
    'release'
    >>> events.after("release", "start", 2.0)
    >>> events.after("mount", "start", 10.0)
    >>> times = events.earliest()
    >>> times["release"], times["mount"], times["start"]
    (5.0, 0.0, 10.0)
    """

    def __init__(self) -> None:
        self._number: dict[Key, int] = {}
        self._lower: list[float] = []
        self._incoming: list[dict[int, float]] = []
        """Per event, the offset after each of its predecessors, by number."""

    def event(self, key: Key, lower: float = 0.0) -> Key:
        """Name an event no earlier than ``lower``, and return its key.

        Naming an event again raises its lower bound to ``lower`` when that
        is larger (the bounds of one event all hold at once); a new event's
        bound is ``lower``.
        """
        self._raise(key, lower)
        return key

    def after(self, earlier: Key, later: Key, offset: float) -> None:
        """Require ``later`` to be at least ``offset`` after ``earlier``.

        An event not named yet is named with lower bound 0. A second
        precedence between the same two events keeps the larger offset, the
        only one that binds.
        """
        u = self._raise(earlier, 0.0)
        incoming = self._incoming[self._raise(later, 0.0)]
        known = incoming.get(u)
        if known is None or offset > known:
            incoming[u] = offset

    def _raise(self, key: Key, lower: float) -> int:
        """The number of event ``key`` (numbered if new), its lower bound raised to ``lower``."""
        v = self._number.get(key)
        if v is None:
            v = self._number[key] = len(self._lower)
            self._lower.append(lower)
            self._incoming.append({})
        elif lower > self._lower[v]:
            self._lower[v] = lower
        return v

    def earliest(self) -> dict[Key, float]:
        """The least times meeting every lower bound and every precedence.

        Each event's time is its lower bound or, when later, the latest of
        ``t(earlier) + offset`` over its precedences: the longest path to it
        from the lower bounds. Acyclic precedences (the usual case) take one
        pass in NetworkX's topological order, O(V + E). Otherwise the
        strongly connected components are taken in topological order of the
        condensation, and each cyclic one is relaxed (Bellman-Ford within
        the component) at most as many passes as it has events: a
        component still moving after them holds a cycle of positive length.

        Returns
        -------
        dict
            The time of every event, by key, in the caller's unit.

        Raises
        ------
        PositiveCycle
            When the precedences form a cycle of positive length.
        """
        # Events without precedences stay at their lower bounds: only the others need ordering.
        graph = nx.DiGraph()
        graph.add_edges_from((u, v) for v, incoming in enumerate(self._incoming) for u in incoming)
        try:
            groups = [[v] for v in nx.topological_sort(graph)]
        except nx.NetworkXUnfeasible:
            condensed = nx.condensation(graph)
            groups = [sorted(condensed.nodes[c]["members"]) for c in nx.topological_sort(condensed)]
        times = list(self._lower)
        for group in groups:
            for v in group:
                time = times[v]
                for u, offset in self._incoming[v].items():
                    if times[u] + offset > time:
                        time = times[u] + offset
                times[v] = time
            if len(group) > 1 or group[0] in self._incoming[group[0]]:
                self._relax(group, times)
        return {key: times[v] for key, v in self._number.items()}

    def _relax(self, group: list[int], times: list[float]) -> None:
        """Raise ``times`` within one strongly connected component until every edge is met.

        ``times`` already holds the final time of every event before the
        component, and a first value, no later than its final one, for each
        of its own. Without a cycle of positive length, the longest paths
        inside it have fewer edges than it has events, so that many passes
        leave the last one with nothing to move.

        Raises
        ------
        PositiveCycle
            When the last pass still moves a time.
        """
        members = set(group)
        inside = [
            (u, v, offset) for v in group for u, offset in self._incoming[v].items() if u in members
        ]
        for _ in range(len(group)):
            moved = False
            for u, v, offset in inside:
                if times[u] + offset > times[v]:
                    times[v] = times[u] + offset
                    moved = True
            if not moved:
                return
        keys = list(self._number)
        named = ", ".join(repr(keys[v]) for v in group[:3]) + (", ..." if len(group) > 3 else "")
        raise PositiveCycle(f"the precedences form a cycle of positive length among {named}")
