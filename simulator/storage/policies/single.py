"""SINGLE: each file whole on one tape, one copy, no parity (a plain recall site's archive).

What most HPSS, CTA and dCache sites run: a file is written once, on one
drive, contiguously after the previous file of its stream, and read back on
one drive. The layout is PARALLEL's (:mod:`.parallel`) with one data tape and
no parity, scheme ``1+0``, which is the only scheme SINGLE takes: a write of
another is refused (:meth:`Single.scheme_problem`, which a scenario's
:func:`~simulator.scenario.spec.check_runnable` asks at the scheme's path).

Tape switch: when the stream's tape is full the next file goes to a new tape.
A file that does not fit what is left of the tape is cut as PARALLEL cuts a
run: its whole blocks of ``block_mb`` host MB that fit end the tape, which is
closed as full, and the rest goes on a new tape (the file then spans two
tapes, an extent on each, written and read in two phases). ``block_mb`` is
optional (default :data:`DEFAULT_BLOCK_MB`, a tape drive's block): it is only
the granularity of that cut, since nothing is erasure-coded.

Mover memory: 0, for writes and reads alike (a file is streamed, no row of
blocks is held for a code). Mover disk: 0. Degraded reads: with no parity, a
file with a piece on an unavailable tape is :class:`~.policy.Unrecoverable`.
The archive at time 0 is PARALLEL's, one track of slots per set.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import ClassVar

from attrs import evolve, field, frozen

from tapesched.simulator.storage.catalogue import Catalogue
from tapesched.simulator.storage.files import FileSpec, JobSpec, Scheme
from tapesched.simulator.storage.policies.parallel import Parallel
from tapesched.simulator.storage.policies.policy import Group, check_block_mb

DEFAULT_BLOCK_MB = 1.0
"""Host MB at which a file that does not fit what is left of a tape is cut."""

ONE_COPY = Scheme(1, 0)
"""The only scheme SINGLE writes: one data member, no parity."""


@frozen
class Single(Parallel):
    """SINGLE: PARALLEL with one data tape and no parity, holding no mover memory."""

    block_mb: float = field(default=DEFAULT_BLOCK_MB, validator=check_block_mb)
    name: ClassVar[str] = "single"

    def scheme_problem(self, scheme: Scheme) -> str | None:
        """Why SINGLE cannot write ``scheme`` (any scheme but ``1+0``); ``None`` for ``1+0``."""
        if scheme == ONE_COPY:
            return None
        return f"the single policy keeps one copy (scheme {ONE_COPY}), not {scheme}"

    def write_memory_mb(self, file: FileSpec) -> float:
        """0: a file is streamed to its tape, nothing is coded in memory."""
        return 0.0

    def plan_read(
        self, catalogue: Catalogue, file_id: str, unavailable: Collection[str] = frozenset()
    ) -> JobSpec:
        """PARALLEL's read of one data tape, a phase per tape the file lies on; no memory."""
        return evolve(super().plan_read(catalogue, file_id, unavailable), memory_mb=0.0)

    def plan_write(
        self, catalogue: Catalogue, file: FileSpec, group: Group | None, library: str
    ) -> tuple[JobSpec, Group]:
        """The file appended to the stream's tape, the rest on a new one when it fills.

        Raises
        ------
        ValueError
            For a scheme other than ``1+0`` (nothing is written), and as
            :meth:`Parallel.plan_write`.
        """
        problem = self.scheme_problem(file.scheme)
        if problem is not None:
            raise ValueError(problem)
        plan, group = super().plan_write(catalogue, file, group, library)
        return evolve(plan, memory_mb=0.0), group
