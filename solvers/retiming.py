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

Decisions read from a solution give acyclic precedences, except that a
cycle whose offsets are all 0 (events tied to one time) is harmless and
allowed; a cycle of positive length means contradictory decisions, which
only a solver's numerical failure can cause, and is reported as
:class:`PositiveCycle`.
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

    A :class:`networkx.DiGraph` holds them: node attribute ``lower`` (the
    event's lower bound), edge attribute ``offset``. Events are named by any
    hashable key of the caller's.

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
        self._graph = nx.DiGraph()

    def event(self, key: Key, lower: float = 0.0) -> Key:
        """Name an event no earlier than ``lower``, and return its key.

        Naming an event again raises its lower bound to ``lower`` when that
        is larger (the bounds of one event all hold at once); a new event's
        bound is ``lower``.
        """
        node = self._graph.nodes.get(key)
        if node is None:
            self._graph.add_node(key, lower=lower)
        elif lower > node["lower"]:
            node["lower"] = lower
        return key

    def after(self, earlier: Key, later: Key, offset: float) -> None:
        """Require ``later`` to be at least ``offset`` after ``earlier``.

        An event not named yet is named with lower bound 0. A second
        precedence between the same two events keeps the larger offset, the
        only one that binds.
        """
        self.event(earlier)
        self.event(later)
        edge = self._graph.get_edge_data(earlier, later)
        if edge is None:
            self._graph.add_edge(earlier, later, offset=offset)
        elif offset > edge["offset"]:
            edge["offset"] = offset

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
        graph = self._graph
        try:
            groups = [[v] for v in nx.topological_sort(graph)]
        except nx.NetworkXUnfeasible:
            condensed = nx.condensation(graph)
            groups = [list(condensed.nodes[c]["members"]) for c in nx.topological_sort(condensed)]
        times: dict[Key, float] = {}
        for group in groups:
            for v in group:
                time = graph.nodes[v]["lower"]
                for u, edge in graph.pred[v].items():
                    if u in times and times[u] + edge["offset"] > time:
                        time = times[u] + edge["offset"]
                times[v] = time
            if len(group) > 1 or graph.has_edge(group[0], group[0]):
                _relax(graph, group, times)
        return times


def _relax(graph: nx.DiGraph, group: list[Key], times: dict[Key, float]) -> None:
    """Raise ``times`` within one strongly connected component until every edge is met.

    ``times`` already holds every event before the component, and a first
    value for each of its own. Without a cycle of positive length, the
    longest paths inside it have fewer edges than it has events, so that
    many passes leave the last one with nothing to move.

    Raises
    ------
    PositiveCycle
        When the last pass still moves a time.
    """
    members = set(group)
    inside = [
        (u, v, edge["offset"]) for v in group for u, edge in graph.pred[v].items() if u in members
    ]
    for _ in range(len(group)):
        moved = False
        for u, v, offset in inside:
            if times[u] + offset > times[v]:
                times[v] = times[u] + offset
                moved = True
        if not moved:
            return
    named = ", ".join(repr(v) for v in group[:3]) + (", ..." if len(group) > 3 else "")
    raise PositiveCycle(f"the precedences form a cycle of positive length through {named}")
