"""The instance as the CP-SAT model sees it: nodes, candidate drives, durations, horizon.

The formulation (``solvers/formulation.md``) sequences *nodes* on drives: a
piece node for every piece of every request, and an initial node for every
drive holding a tape at time 0. :class:`ModelData` numbers them, lists the
nodes each drive may run, and gives every time the model uses twice: exactly
in seconds (to re-time a solution, see :mod:`solvers.cpsat.decisions`) and in
integer *ticks* of ``resolution_s`` (for CP-SAT, which needs integers).

Each length the model uses is rounded up to ticks as a whole (``mount_s +
load_s + offset / locate`` is one length, rounded once), so that a chain of
``k`` lengths gains less than ``k`` ticks: :mod:`solvers.cpsat.objective`
uses that to turn the rounded model's bound into one of the instance.
"""

from __future__ import annotations

import math
from collections import defaultdict
from functools import cached_property

from attrs import frozen

from solvers.deadline import Deadline
from toolkit.model import Drive, Instance, Library

DEPOT = -1
"""The depot of every drive's circuit: the sequence starts and ends there."""

TOLERANCE = 1e-12
"""Relative slack under which a length counts as a whole number of ticks.

``0.007 / 0.001`` is ``7.000000000000001`` in floating point; without it,
exact data would be rounded up a tick and the model would not be exact.
Floating-point error is some 1e-16 relative, far below.
"""


def to_ticks(seconds: float, tick: float) -> int:
    """``seconds`` rounded up to whole ticks; a positive length is at least one tick.

    Rounding up keeps every model solution feasible with the exact lengths; a
    positive length never becomes zero, so that the model never drops an arm
    operation that takes an arm (reading 6 of the spec frees only zero-length
    ones).
    """
    if seconds <= 0:
        return 0
    value = seconds / tick
    return max(1, math.ceil(value - TOLERANCE * max(1.0, value)))


def is_multiple(seconds: float, tick: float) -> bool:
    """Whether ``seconds`` is a whole number of ticks (to a relative :data:`TOLERANCE`)."""
    value = seconds / tick
    return abs(value - round(value)) <= TOLERANCE * max(1.0, abs(value))


@frozen
class Node:
    """A piece node (``request >= 0``) or the initial node of a drive (``drive >= 0``).

    ``end_mb`` is where the head rests after the node: ``offset + size`` of a
    piece, 0 for an initial tape.
    """

    index: int
    request: int
    piece: int
    tape: str
    offset_mb: float
    size_mb: float
    library: int
    drive: int

    @property
    def end_mb(self) -> float:
        """Offset of the head once the node is done."""
        return self.offset_mb + self.size_mb

    @property
    def is_initial(self) -> bool:
        """Whether this is a drive's tape at time 0."""
        return self.request < 0


class ModelData:
    """Nodes, candidate drives and every length of the model, in seconds and ticks.

    Parameters
    ----------
    instance
        A well-formed instance.
    resolution_s
        Length of one tick in seconds (> 0).
    deadline
        When building the model must stop (:class:`~solvers.deadline.Deadline`);
        the builders check it in their loops.

    Attributes
    ----------
    cap
        ``None``, or a latest transfer end (ticks) of every solution at least
        as good as a known one (:func:`solvers.cpsat.objective.objective_cap`),
        set before the variables are built. Every event of such a solution,
        once left-justified and rid of dismounts that no mount follows, is no
        later (a dismount comes before a mount, a mount before a transfer), so
        the horizon may shrink to it.
    """

    def __init__(
        self, instance: Instance, resolution_s: float, deadline: Deadline | None = None
    ) -> None:
        if not resolution_s > 0:
            raise ValueError(f"resolution_s must be > 0, got {resolution_s!r}")
        self.instance = instance
        self.deadline = Deadline(None) if deadline is None else deadline
        self.tick = float(resolution_s)
        self.cap: int | None = None
        self.libraries: tuple[Library, ...] = instance.libraries
        self.drives: tuple[Drive, ...] = instance.drives
        library_index = {lib.id: i for i, lib in enumerate(instance.libraries)}
        drive_index = {d.id: i for i, d in enumerate(instance.drives)}
        tape_library = {t.id: library_index[t.library] for t in instance.tapes}
        self.drive_library = [library_index[d.library] for d in instance.drives]

        nodes: list[Node] = []
        self.request_nodes: list[tuple[int, ...]] = []
        for j, request in enumerate(instance.requests):
            first = len(nodes)
            for k, piece in enumerate(request.pieces):
                nodes.append(
                    Node(
                        len(nodes),
                        j,
                        k,
                        piece.tape,
                        float(piece.offset_mb),
                        float(piece.size_mb),
                        tape_library[piece.tape],
                        -1,
                    )
                )
            self.request_nodes.append(tuple(range(first, len(nodes))))
        self.n_pieces = len(nodes)
        self.initial_node: dict[int, int] = {}
        for init in instance.initial:
            d = drive_index[init.drive]
            self.initial_node[d] = len(nodes)
            nodes.append(Node(len(nodes), -1, -1, init.tape, 0.0, 0.0, self.drive_library[d], d))
        self.nodes: tuple[Node, ...] = tuple(nodes)

        self.candidates: list[tuple[int, ...]] = []
        for d, lib in enumerate(self.drive_library):
            own = [n.index for n in nodes[: self.n_pieces] if n.library == lib]
            if d in self.initial_node:
                own.insert(0, self.initial_node[d])
            self.candidates.append(tuple(own))
        self.drives_of_node: list[tuple[int, ...]] = [
            tuple(d for d, lib in enumerate(self.drive_library) if lib == n.library)
            if not n.is_initial
            else (n.drive,)
            for n in nodes
        ]
        self.nodes_of_tape: dict[str, tuple[int, ...]] = {}
        for n in nodes:
            self.nodes_of_tape[n.tape] = (*self.nodes_of_tape.get(n.tape, ()), n.index)

    # Lengths in seconds ------------------------------------------------------

    def release_s(self, j: int) -> float:
        """Release of request ``j``."""
        return float(self.instance.requests[j].release_s)

    def transfer_s(self, n: int, d: int) -> float:
        """Transfer of node ``n`` on drive ``d`` (0 for an initial node)."""
        return self.nodes[n].size_mb / self.drives[d].rate_mb_s

    def ready_s(self, n: int, d: int) -> float:
        """From the start of the mount of ``n`` into ``d`` to its transfer: mount, load, locate."""
        drive = self.drives[d]
        lib = self.libraries[self.drive_library[d]]
        return lib.mount_s + drive.load_s + self.nodes[n].offset_mb / drive.locate_mb_s

    def locate_s(self, a: int, b: int, d: int) -> float:
        """Locate on ``d`` from where node ``a`` leaves the head to node ``b``'s offset."""
        return abs(self.nodes[b].offset_mb - self.nodes[a].end_mb) / self.drives[d].locate_mb_s

    def unload_s(self, d: int) -> float:
        """Unload of drive ``d``."""
        return float(self.drives[d].unload_s)

    def mount_s(self, lib: int) -> float:
        """Arm time of a mount in library ``lib``."""
        return float(self.libraries[lib].mount_s)

    def dismount_s(self, lib: int) -> float:
        """Arm time of a dismount in library ``lib``."""
        return float(self.libraries[lib].dismount_s)

    # The same lengths in ticks -----------------------------------------------

    def ticks(self, seconds: float) -> int:
        """``seconds`` rounded up to ticks (see :func:`to_ticks`)."""
        return to_ticks(seconds, self.tick)

    def release_t(self, j: int) -> int:
        """Release of request ``j`` in ticks, rounded up."""
        return self.ticks(self.release_s(j))

    def transfer_t(self, n: int, d: int) -> int:
        """Transfer of node ``n`` on drive ``d`` in ticks."""
        return self.ticks(self.transfer_s(n, d))

    def ready_t(self, n: int, d: int) -> int:
        """Mount, load and locate of node ``n`` into drive ``d`` in ticks (rounded once)."""
        return self.ticks(self.ready_s(n, d))

    def locate_t(self, a: int, b: int, d: int) -> int:
        """Locate from node ``a`` to node ``b`` on drive ``d`` in ticks."""
        return self.ticks(self.locate_s(a, b, d))

    def unload_t(self, d: int) -> int:
        """Unload of drive ``d`` in ticks."""
        return self.ticks(self.unload_s(d))

    def mount_t(self, lib: int) -> int:
        """Mount of library ``lib`` in ticks."""
        return self.ticks(self.mount_s(lib))

    def dismount_t(self, lib: int) -> int:
        """Dismount of library ``lib`` in ticks."""
        return self.ticks(self.dismount_s(lib))

    # Derived facts -------------------------------------------------------------

    def can_follow(self, a: int, b: int) -> bool:
        """Whether node ``b`` may come right after node ``a`` on one drive.

        Initial nodes come first, and two pieces of one request run on
        distinct drives, so neither pair is ever consecutive.
        """
        na, nb = self.nodes[a], self.nodes[b]
        return a != b and not nb.is_initial and (na.is_initial or na.request != nb.request)

    @cached_property
    def same_tape_arcs(self) -> tuple[tuple[int, int, int], ...]:
        """Every ``(drive, a, b)`` where ``b`` may follow ``a`` on the same tape (a continue)."""
        out = []
        for d, cands in enumerate(self.candidates):
            for a in cands:
                for b in self.nodes_of_tape[self.nodes[a].tape]:
                    if b in cands and self.can_follow(a, b):
                        out.append((d, a, b))
        return tuple(out)

    @cached_property
    def continues_into(self) -> dict[tuple[int, int], tuple[int, ...]]:
        """``(drive, b)``: the nodes ``a`` of :attr:`same_tape_arcs` that may precede ``b``."""
        out: dict[tuple[int, int], list[int]] = defaultdict(list)
        for d, a, b in self.same_tape_arcs:
            out[d, b].append(a)
        return {key: tuple(nodes) for key, nodes in out.items()}

    @cached_property
    def exact(self) -> bool:
        """Whether every length and release is a whole number of ticks.

        The rounded model is then the instance itself: its optimum and bound
        are those of the instance.
        """
        tick = self.tick
        values = [self.release_s(j) for j in range(len(self.request_nodes))]
        for d, drive in enumerate(self.drives):
            lib = self.drive_library[d]
            values += [drive.unload_s, self.mount_s(lib), self.dismount_s(lib)]
            for n in self.candidates[d]:
                if not self.nodes[n].is_initial:
                    values += [self.transfer_s(n, d), self.ready_s(n, d)]
        values += [self.locate_s(a, b, d) for d, a, b in self.same_tape_arcs]
        return all(is_multiple(v, tick) for v in values)

    @cached_property
    def n_events(self) -> int:
        """Events of a schedule: a start and an end per request, a mount and a dismount per node.

        A chain of precedences visits each at most once, which bounds the
        rounding a chain can gather (see :mod:`solvers.cpsat.objective`).
        """
        return 2 * len(self.request_nodes) + 2 * len(self.nodes)

    @property
    def horizon(self) -> int:
        """The model's horizon in ticks: :attr:`chain_horizon`, or :attr:`cap` when lower."""
        if self.cap is None:
            return self.chain_horizon
        return max(1, min(self.chain_horizon, self.cap))

    @cached_property
    def chain_horizon(self) -> int:
        """An upper bound, in ticks, on every time of a left-justified schedule.

        In a schedule where every event is as early as the decisions (drive
        sequences, arm order, tape order) allow, each event's time is the
        length of a chain of precedences that starts at a release (or 0) and
        enters each event at most once. The horizon is the latest release
        plus the longest way into every event: into a transfer start, a
        mount-load-locate or a locate over the tape; into a transfer end, the
        transfer; into a dismount, the unload or the arm's previous
        operation; into a mount, a dismount or the arm's previous operation.
        A dismount and a mount more leave room for the end of the last
        dismount. Lengths are those of the rounded model.
        """
        arm = [max(self.mount_t(lib), self.dismount_t(lib)) for lib in range(len(self.libraries))]
        locate_in: dict[int, int] = {}
        for d, a, b in self.same_tape_arcs:
            locate_in[b] = max(locate_in.get(b, 0), self.locate_t(a, b, d))
        total = max((self.release_t(j) for j in range(len(self.request_nodes))), default=0)
        for nodes in self.request_nodes:
            into_start = 0
            into_end = 0
            for n in nodes:
                into_start = max(into_start, locate_in.get(n, 0))
                for d in self.drives_of_node[n]:
                    into_start = max(into_start, self.ready_t(n, d))
                    into_end = max(into_end, self.transfer_t(n, d))
            total += into_start + into_end
        for n, node in enumerate(self.nodes):
            unload = max((self.unload_t(d) for d in self.drives_of_node[n]), default=0)
            total += max(unload, arm[node.library]) + arm[node.library]
        total += 2 * max(arm, default=0)
        return max(total, 1)
