"""HETERO: VERTICAL for small files, PARALLEL for the others (paper Section 6.3).

A file smaller than ``threshold_mb`` (1 GB in the paper) is written with
VERTICAL, one at or above it with PARALLEL. The two keep separate groups:
a group records the policy that writes it (``"vertical"`` or
``"parallel"``), and :meth:`Hetero.stream_of` tells the platform which
type a write belongs to, so it keeps one open group of each and never hands
a VERTICAL group to a PARALLEL write. Files are recorded in the catalogue
under the policy that wrote them, so a read (or a rewrite of a different
size) goes to the right one.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from typing import ClassVar

from attrs import field, frozen

from tapesched.simulator.storage.archive_layout import ArchiveSide
from tapesched.simulator.storage.catalogue import Catalogue
from tapesched.simulator.storage.files import FileSpec, JobSpec
from tapesched.simulator.storage.policies.parallel import Parallel
from tapesched.simulator.storage.policies.policy import Group, Policy, check_block_mb
from tapesched.simulator.storage.policies.vertical import Vertical


@frozen
class Hetero:
    """VERTICAL below ``threshold_mb``, PARALLEL with ``block_mb`` blocks at or above it."""

    block_mb: float = field(validator=check_block_mb)
    threshold_mb: float = field(default=1000.0, validator=check_block_mb)
    name: ClassVar[str] = "hetero"

    @property
    def vertical(self) -> Vertical:
        """The policy for small files."""
        return Vertical()

    @property
    def parallel(self) -> Parallel:
        """The policy for the others."""
        return Parallel(self.block_mb)

    def chosen(self, file: FileSpec) -> Policy:
        """The policy that writes ``file``."""
        return self.parallel if file.size_mb >= self.threshold_mb else self.vertical

    def _writer(self, name: str) -> Policy:
        if name == Vertical.name:
            return self.vertical
        if name == Parallel.name:
            return self.parallel
        raise ValueError(f"hetero writes with vertical or parallel, not {name}")

    def write_width(self, file: FileSpec) -> int:
        """1 below the threshold, ``X + Y`` at or above."""
        return self.chosen(file).write_width(file)

    def read_width(self, catalogue: Catalogue, file_id: str) -> int:
        """That of the policy that wrote the file."""
        return self._writer(catalogue.writer(file_id)).read_width(catalogue, file_id)

    def stream_of(self, file: FileSpec) -> str:
        """``"vertical"`` below the threshold, ``"parallel"`` at or above."""
        return self.chosen(file).name

    def write_memory_mb(self, file: FileSpec) -> float:
        """That of the policy chosen."""
        return self.chosen(file).write_memory_mb(file)

    def stream_disk_mb(self, file: FileSpec, tape_capacity_mb: float) -> float:
        """That of the policy chosen."""
        return self.chosen(file).stream_disk_mb(file, tape_capacity_mb)

    def plan_read(
        self, catalogue: Catalogue, file_id: str, unavailable: Collection[str] = frozenset()
    ) -> JobSpec:
        """The read plan of the policy that wrote the file, degraded as that policy degrades it."""
        writer = self._writer(catalogue.writer(file_id))
        return writer.plan_read(catalogue, file_id, unavailable)

    def plan_write(
        self, catalogue: Catalogue, file: FileSpec, group: Group | None, library: str
    ) -> tuple[JobSpec, Group]:
        """Write with the policy chosen by size, on a group of its own type."""
        return self.chosen(file).plan_write(catalogue, file, group, library)

    def close(self, catalogue: Catalogue, group: Group) -> JobSpec | None:
        """Close with the policy that wrote the group."""
        return self._writer(group.policy).close(catalogue, group)

    def archive_sides(self, lo_mb: float, hi_mb: float) -> tuple[ArchiveSide, ...]:
        """VERTICAL for the archive's sizes below the threshold (its largest just below it),
        PARALLEL for the others (:mod:`simulator.storage.archive_layout`)."""
        threshold = self.threshold_mb
        sides: list[ArchiveSide] = []
        if lo_mb < threshold:
            top = hi_mb if hi_mb < threshold else math.nextafter(threshold, 0.0)
            sides.append(ArchiveSide(self.vertical, lo_mb, min(hi_mb, threshold), top))
        if hi_mb >= threshold:
            sides.append(ArchiveSide(self.parallel, max(lo_mb, threshold), hi_mb, hi_mb))
        return tuple(sides)
