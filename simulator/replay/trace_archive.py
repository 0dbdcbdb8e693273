"""A trace as the archive the simulator reads: a file per request, on its cartridge.

:class:`TraceArchive` is the archive at time 0 (request ``k`` reads file ``f{k}``, written
unstriped at the start of its cartridge), :class:`TraceReads` the archival policy that reads
it, and :func:`trace_workload` the trace's requests as reads of those files, by arrival.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence

from attrs import field, frozen

from tapesched.simulator.replay.sl8500 import TRACE_RATE_MB_S, level_id
from tapesched.simulator.replay.trace import (
    LazySequence,
    RepeatedTrace,
    TraceRequest,
    arrival_order,
)
from tapesched.simulator.storage.catalogue import Catalogue
from tapesched.simulator.storage.catalogue_records import Chunk, FileLayout, Member, Row
from tapesched.simulator.storage.files import Extent, FileRequest, FileSpec, JobSpec, Scheme
from tapesched.simulator.storage.lazy_archive import NumberedFiles
from tapesched.simulator.storage.policies.parallel import Parallel
from tapesched.simulator.storage.policies.policy import without_parity
from tapesched.simulator.workload.workload import Workload

LEAST_USE_S = 1e-6
"""The use of a request the trace gives 0 s (a file holds some bytes): one microsecond."""

POLICY = "parallel"
"""The archival policy the trace's files are read by: one data member on one cartridge (1+0)."""


class TraceArchive(NumberedFiles):
    """A trace as the archive at time 0 (:class:`simulator.storage.lazy_archive.LazyArchive`).

    Request ``k`` reads file ``f{k}``, of the request's seconds in drive
    (MB at :data:`TRACE_RATE_MB_S`), written unstriped (1+0) by
    :data:`POLICY` at the start of its cartridge; a cartridge is a tape of
    the library (level) that is its home at the start.
    """

    def __init__(self, requests: Sequence[TraceRequest], homes: Mapping[str, int]) -> None:
        self.requests = requests
        self.homes = homes
        self._count = len(requests)
        self._copy: Sequence[TraceRequest] = (
            requests.copy if isinstance(requests, RepeatedTrace) else requests
        )
        """The requests a file's cartridge and seconds are read from: a repeated trace's copy
        (file ``k`` is then the copy's ``k % len(copy)``, made no request for it)."""
        self._period = len(self._copy)

    def __len__(self) -> int:
        """One file per request."""
        return self._count

    def read(self, k: int) -> TraceRequest:
        """The request whose cartridge and seconds file ``k`` holds (its arrival aside)."""
        return self._copy[k % self._period]

    def file(self, k: int) -> FileSpec:
        """The file request ``k`` reads."""
        size_mb = max(self.read(k).seconds_in_drive, LEAST_USE_S) * TRACE_RATE_MB_S
        return FileSpec(f"f{k}", size_mb, UNSTRIPED)

    def layout(self, k: int) -> tuple[FileLayout, int]:
        """One data member: the file at the start of its cartridge."""
        file = self.file(k)
        chunk = Chunk(
            self.read(k).cartridge, 0.0, data_host_mb=file.size_mb, data_tape_mb=file.size_mb
        )
        row = Row((Member("data", (chunk,)),), (0,))
        return FileLayout(file, POLICY, (row,)), 1

    def writer(self, k: int) -> str:
        """The policy that wrote every file of the trace."""
        return POLICY

    def tape_library(self, tape_id: str) -> str | None:
        """The library (level) id of a cartridge's home at the start."""
        level = self.homes.get(tape_id)
        return None if level is None else level_id(level)


UNSTRIPED = Scheme(1, 0)


@frozen
class TraceReads(Parallel):
    """:data:`POLICY` reading a trace's files, their plans made straight from the requests.

    The plan of file ``f{k}`` is the one
    :class:`~simulator.storage.policies.parallel.Parallel` makes of its
    :class:`TraceArchive` layout (one extent: the request's seconds at the start of
    its cartridge; a test holds the two equal), built without the layout's objects: a
    long trace reads each of its files once, and the layout would be made for that one
    read. Files not of the archive are read as PARALLEL reads them.
    """

    archive: TraceArchive | None = field(default=None, eq=False)

    keep_read_plans = False
    """A trace's plan is made from its request in a few steps, and its file is read once:
    admission keeps no plan of it (:class:`~simulator.run.admission.Admission`)."""

    def plan_read(
        self, catalogue: Catalogue, file_id: str, unavailable: Collection[str] = frozenset()
    ) -> JobSpec:
        """One phase, one extent: the file's bytes at the start of its cartridge.

        A trace's file has no parity (1+0): when its cartridge is
        unavailable the read raises :class:`~simulator.storage.policies.policy.Unrecoverable`.
        """
        archive = self.archive
        k = None if archive is None else archive.file_number(file_id)
        if archive is None or k is None:
            return super().plan_read(catalogue, file_id, unavailable)
        request = archive.read(k)
        size_mb = max(request.seconds_in_drive, LEAST_USE_S) * TRACE_RATE_MB_S
        extent = Extent(request.cartridge, 0.0, size_mb, size_mb)
        if unavailable:
            without_parity(file_id, (extent,), unavailable)
        return JobSpec(((extent,),), memory_mb=self.block_mb)


class TraceFileRequests(LazySequence[FileRequest]):
    """A trace's requests as reads of the :class:`TraceArchive`'s files, by arrival, each
    made as it is read (a run reads them once, in order: a long trace keeps none)."""

    def __init__(self, archive: TraceArchive, order: Sequence[int] | None) -> None:
        self.archive = archive
        self.order = order

    def __len__(self) -> int:
        return len(self.archive)

    def item(self, i: int) -> FileRequest:
        """The ``i``-th request to arrive."""
        k = i if self.order is None else self.order[i]
        archive = self.archive
        return FileRequest(f"r{k}", archive.requests[k].arrival_s, "read", archive.file(k))

    def __iter__(self) -> Iterator[FileRequest]:
        archive, order = self.archive, self.order
        requests, file = archive.requests, archive.file
        if order is None and isinstance(requests, RepeatedTrace):
            # Copy after copy, each request's arrival shifted as RepeatedTrace.item shifts it,
            # without making the shifted request.
            copy, span_s, k = requests.copy, requests.span_s, 0
            for c in range(requests.copies):
                for r in copy:
                    yield FileRequest(f"r{k}", r.arrival_s + c * span_s, "read", file(k))
                    k += 1
            return
        for k in range(len(archive)) if order is None else order:
            yield FileRequest(f"r{k}", requests[k].arrival_s, "read", file(k))


def trace_workload(requests: Sequence[TraceRequest], homes: Mapping[str, int]) -> Workload:
    """The trace's requests as reads of the :class:`TraceArchive`'s files, by arrival
    (:class:`TraceFileRequests`: made as the run reads them)."""
    archive = TraceArchive(requests, homes)
    reads = TraceFileRequests(archive, arrival_order(requests))
    return Workload(initial=(), requests=reads, archive=archive)  # type: ignore[arg-type]
