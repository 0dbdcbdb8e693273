"""The instance as the CP-SAT model sees it: the formulation's data, in ticks, and its horizon.

The nodes, candidate drives, twin groups and every length in seconds are the
formulation's (:class:`solvers.exact.formulation.Formulation`, shared with the
MILP); they re-time a solution exactly (see :mod:`solvers.cpsat.decisions`).
:class:`CpsatData` adds what is CP-SAT's own: every length again in integer
*ticks* of ``resolution_s`` (CP-SAT needs integers), whether the rounded
model is exact, and the horizon in ticks.

Each length the model uses is rounded up to ticks as a whole (``mount_s +
load_s + offset / locate`` is one length, rounded once), so that a chain of
``k`` lengths gains less than ``k`` ticks: :mod:`solvers.cpsat.objective`
uses that to turn the rounded model's bound into one of the instance.
"""

from __future__ import annotations

import math
from functools import cached_property

from tapesched.solvers.exact.deadline import Deadline
from tapesched.solvers.exact.formulation import Formulation
from tapesched.toolkit.model import Instance

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


class CpsatData(Formulation):
    """The formulation's data (:class:`~solvers.exact.formulation.Formulation`) and its lengths in
    ticks.

    Parameters
    ----------
    instance
        A well-formed instance.
    resolution_s
        Length of one tick in seconds (> 0).
    deadline
        When building the model must stop (:class:`~solvers.exact.deadline.Deadline`);
        the builders check it in their loops.
    prefetch
        ``False``: the non-anticipative problem (:class:`~solvers.exact.formulation.Formulation`).

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
        self,
        instance: Instance,
        resolution_s: float,
        deadline: Deadline | None = None,
        prefetch: bool = True,
    ) -> None:
        if not resolution_s > 0:
            raise ValueError(f"resolution_s must be > 0, got {resolution_s!r}")
        super().__init__(instance, prefetch)
        self.deadline = Deadline(None) if deadline is None else deadline
        self.tick = float(resolution_s)
        self.cap: int | None = None

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

    # Facts of the rounded model -------------------------------------------------

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
            values += [drive.unload_s, self.mount_s(lib), self.dismount_s(lib), drive.available_s]
            values += list(self.arm_free_s(lib))
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
        busy = [self.available_s(d) for d in range(len(self.drives))]
        busy += [t for lib in range(len(self.libraries)) for t in self.arm_free_s(lib)]
        total += self.ticks(max(busy, default=0.0))
        for nodes in self.request_nodes:
            into_start = 0
            into_end = 0
            for n in nodes:
                into_start = max(into_start, locate_in.get(n, 0))
                for d in self.drives_of_node[n]:
                    into_start = max(into_start, self.ready_t(n, d))
                    into_end = max(into_end, self.transfer_t(n, d))
            total += into_start + into_end
        for n, lib in enumerate(self.node_library):
            unload = max((self.unload_t(d) for d in self.drives_of_node[n]), default=0)
            total += max(unload, arm[lib]) + arm[lib]
        total += 2 * max(arm, default=0)
        return max(total, 1)
