"""The HSM's files as one archive, and the archival policy that reads them.

Every batch's files sit at time 0 on their cartridges, at their offsets
(:class:`HsmArchive`); a space reclamation process is a 2-wide file of its own;
:class:`HsmReads` plans each read as one phase of its extents; :func:`hsm_workload`
makes every file a read arriving with its batch. The run is
:mod:`tapesched.simulator.sharing.hsm_run`.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence

from attrs import field, frozen

from tapesched.simulator.sharing.allocator import Queue
from tapesched.simulator.sharing.groups import HsmPlatform, TapeBatch
from tapesched.simulator.storage.catalogue import Catalogue
from tapesched.simulator.storage.catalogue_records import Chunk, FileLayout, Member, Row
from tapesched.simulator.storage.files import Extent, FileRequest, FileSpec, JobSpec, Scheme
from tapesched.simulator.storage.lazy_archive import NumberedFiles
from tapesched.simulator.storage.policies.parallel import Parallel
from tapesched.simulator.storage.policies.policy import without_parity
from tapesched.simulator.workload.workload import Workload

POLICY = "parallel"
"""The archival policy the files are read by: unstriped files, 2-wide reclamations."""

UNSTRIPED = Scheme(1, 0)
RECLAIM = Scheme(2, 0)
"""A reclamation process: two drives, the pool's cartridge read and another written."""


class HsmArchive(NumberedFiles):
    """Every batch's files and the reclamation processes, as the archive at time 0.

    File ``f{k}`` is the ``k``-th file of the batches in the order given
    (each batch's files in its order), on the batch's cartridge at its
    offset, a tape of the batch's drive set (library); then, per set with a
    reclamation pool, the processes it may need, each a 2-wide file on two
    cartridges of their own streaming ``duration_s`` at the set's rate.
    (:class:`simulator.storage.lazy_archive.LazyArchive`.)
    """

    def __init__(self, platform: HsmPlatform, batches: Sequence[TapeBatch]) -> None:
        self.files: list[tuple[str, float, float]] = []
        """``(tape, offset_mb, size_mb)`` of each file."""
        self.batch_of: list[int] = []
        """Index in ``batches`` of each file's batch (-1: a reclamation)."""
        self.reclaim_set: dict[int, str] = {}
        """The set of each reclamation file."""
        self.tape_set: dict[str, str] = {}
        for i, batch in enumerate(batches):
            self.tape_set[batch.tape] = batch.drive_set
            for offset_mb, size_mb in batch.files:
                self.files.append((batch.tape, offset_mb, size_mb))
                self.batch_of.append(i)
        for dset_id, pool in platform.reclamation.items():
            dset = platform.drive_set(dset_id)
            size = pool.duration_s * dset.rate_mb_s
            for j in range(processes_needed(platform, dset_id)):
                tape = f"reclaim-{dset_id}-{j}"
                self.tape_set[tape] = self.tape_set[f"{tape}-to"] = dset_id
                self.reclaim_set[len(self.files)] = dset_id
                self.files.append((tape, 0.0, size))
                self.batch_of.append(-1)

    def __len__(self) -> int:
        """The batches' files and the reclamation processes."""
        return len(self.files)

    def file(self, k: int) -> FileSpec:
        """File ``k``'s spec."""
        _, _, size_mb = self.files[k]
        scheme = RECLAIM if k in self.reclaim_set else UNSTRIPED
        return FileSpec(self.file_id(k), size_mb * scheme.data, scheme)

    def extents(self, k: int) -> tuple[Extent, ...]:
        """What file ``k``'s read streams: one extent of one block (a reclamation: two)."""
        tape, offset_mb, size_mb = self.files[k]
        if k in self.reclaim_set:
            to = f"{tape}-to"
            return (Extent(tape, 0.0, size_mb, size_mb), Extent(to, 0.0, size_mb, size_mb))
        return (Extent(tape, offset_mb, size_mb, size_mb, blocks=1),)

    def layout(self, k: int) -> tuple[FileLayout, int]:
        """A data member per extent, in one row."""
        members = tuple(
            Member("data", (Chunk(e.tape, e.offset_mb, data_host_mb=e.host_mb,
                                  data_tape_mb=e.tape_mb),))
            for e in self.extents(k)
        )  # fmt: skip
        row = Row(members, tuple(range(len(members))))
        return FileLayout(self.file(k), POLICY, (row,)), len(members)

    def writer(self, k: int) -> str:
        """The policy that wrote every file."""
        return POLICY

    def tape_library(self, tape_id: str) -> str | None:
        """The set (library) of a cartridge."""
        return self.tape_set.get(tape_id)


def processes_needed(platform: HsmPlatform, dset: str) -> int:
    """Reclamation processes that reclaim every eligible cartridge of ``dset``'s pool."""
    pool = platform.reclamation.get(dset)
    if pool is None:
        return 0
    rate = platform.drive_set(dset).rate_mb_s
    need = sum(
        (100.0 - share) / 100.0 * pool.tape_mb / rate
        for share in pool.reclaimable_pct
        if share >= pool.threshold_pct
    )
    return math.ceil(need / pool.duration_s) + 1 if need else 0


@frozen
class HsmReads(Parallel):
    """:data:`POLICY` reading the :class:`HsmArchive`'s files, their plans made straight.

    A file's plan is one phase of its extents (:meth:`HsmArchive.extents`),
    with the per-block cost on (its one block is the per-file overhead).
    """

    archive: HsmArchive | None = field(default=None, eq=False)

    def plan_read(
        self, catalogue: Catalogue, file_id: str, unavailable: Collection[str] = frozenset()
    ) -> JobSpec:
        """One phase: the file's extent (a reclamation's two).

        The files have no parity (1+0, a reclamation 2+0): when a tape of
        one is unavailable the read raises
        :class:`~simulator.storage.policies.policy.Unrecoverable`.
        """
        archive = self.archive
        k = None if archive is None else archive.file_number(file_id)
        if archive is None or k is None:
            return super().plan_read(catalogue, file_id, unavailable)
        extents = archive.extents(k)
        without_parity(file_id, extents, unavailable)
        return JobSpec((extents,), memory_mb=self.block_mb * len(extents), per_block=True)


def hsm_workload(
    platform: HsmPlatform, batches: Sequence[TapeBatch]
) -> tuple[Workload, dict[str, Queue], dict[str, str]]:
    """The batches' files as reads of the :class:`HsmArchive`, by arrival; queues; reclamations.

    Request ``r{k}`` reads file ``f{k}``; the reclamation requests arrive at
    time 0 and wait until the allocator starts them.
    """
    archive = HsmArchive(platform, batches)
    queue_of: dict[str, Queue] = {}
    reclaim_of: dict[str, str] = {}
    arrivals = []
    for k, b in enumerate(archive.batch_of):
        rid = f"r{k}"
        if b < 0:
            reclaim_of[rid] = archive.reclaim_set[k]
            arrivals.append((0.0, 1, k))
        else:
            queue_of[rid] = batches[b].queue
            arrivals.append((batches[b].arrival_s, 0, k))
    arrivals.sort()
    requests = tuple(FileRequest(f"r{k}", t, "read", archive.file(k)) for t, _, k in arrivals)
    workload = Workload(initial=(), requests=requests, archive=archive)  # type: ignore[arg-type]
    return workload, queue_of, reclaim_of
