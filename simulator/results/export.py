"""The realised run as a core-problem instance and schedule, for the validator.

Each streamed phase of a job becomes a core request: its pieces are the
phase's extents (tape, offset, and the tape the head streamed over: the
data and, on a drive with a per-block cost, ``blocks * block_s * rate``
more), its drives those the phase ran on, its start and end as run, its
release the file request's arrival and its weight ``1000 / size_mb``. A
request of one phase keeps the file request's id; a longer one becomes
``id#k`` for its ``k``-th phase (``id#flush-k`` for a parity flush). The arm
operations are those the platform did. Drives carry their technology's
rates and mean times, and its serpentine ``locate`` model if it has one (the
instance is then of version 2); tapes their library, and the larger of the
platform's capacity and the furthest offset reached.

A serpentine locate depends on the tape's capacity, over which the offsets
are spread: the platform times it on ``tape_capacity_mb``, so a run with a
serpentine drive in which a tape was streamed past that capacity (by a
per-block cost) cannot be exported either.

Only a run whose times are all fixed, and in which no tape went through a
pass-through port, can be exported: the core problem has one duration per
operation and drive, which draws at random do not keep, and keeps every tape
in its library.
"""

from __future__ import annotations

from tapesched.simulator.platform.platform import Platform
from tapesched.simulator.platform.state import Transfer
from tapesched.simulator.run.simulation import Simulation
from tapesched.toolkit.model import (
    ArmOperation,
    Drive,
    Instance,
    Library,
    Piece,
    Request,
    Schedule,
    ScheduledRequest,
    Tape,
)


class ExportError(ValueError):
    """A run that the core problem cannot express."""


def _request_id(transfer: Transfer, phases: int, flushes: int, data_phases: int) -> str:
    if phases + flushes == 1:
        return transfer.key
    if transfer.flush:
        return f"{transfer.key}#flush-{transfer.phase - data_phases}"
    return f"{transfer.key}#{transfer.phase}"


RANDOM_TIMES = (
    "cannot export a run with exponential times as a core-problem schedule: "
    "make every time fixed in the scenario"
)
"""Why a run of a platform drawing times at random has no export."""


def export(simulation: Simulation, name: str = "simulated") -> tuple[Instance, Schedule]:
    """The instance and schedule of what ``simulation`` did so far.

    Raises
    ------
    ExportError
        When the platform draws times at random, gives drives one at a time,
        moves tapes through a pass-through, or faults struck.
    """
    spec = simulation.spec
    if spec.random:
        raise ExportError(RANDOM_TIMES)
    if simulation.one_at_a_time:
        raise ExportError(
            "cannot export a run whose requests took their drives one at a time: in the core "
            "problem a gang's drives start together and are freed together"
        )
    platform: Platform = simulation.platform
    struck = (
        platform.handling_failures + platform.drive_failures + len(simulation.fault_processes.lost)
    )
    if struck:
        raise ExportError(
            "cannot export a run in which faults struck: the core problem has no failed "
            "mount, no drive out and no lost tape"
        )
    if platform.pass_throughs:
        raise ExportError(
            "cannot export a run in which tapes went through a pass-through port: "
            "the core problem keeps every tape in its library"
        )
    libraries = tuple(
        Library(
            id=lib.id,
            arms=lib.arms,
            mount_s=lib.mount_s.mean_s,
            dismount_s=lib.dismount_s.mean_s,
        )
        for lib in spec.libraries
    )
    drives = tuple(
        Drive(
            id=d.id,
            library=d.library,
            rate_mb_s=d.model.rate_mb_s,
            load_s=d.model.load_s.mean_s,
            unload_s=d.model.unload_s.mean_s,
            locate_mb_s=d.model.locate_mb_s,
            locate=d.model.locate,
        )
        for d in spec.drives
    )
    files = {fr.id: fr for fr in simulation.workload.requests}
    counts: dict[str, list[int]] = {}
    for t in platform.transfers:
        c = counts.setdefault(t.key, [0, 0, 0])
        c[1 if t.flush else 0] += 1
        if not t.flush:
            c[2] = max(c[2], t.phase + 1)
    reach: dict[str, float] = {}
    requests: list[Request] = []
    scheduled: list[ScheduledRequest] = []
    for t in platform.transfers:
        fr = files[t.key]
        phases, flushes, data_phases = counts[t.key]
        rid = _request_id(t, phases, flushes, data_phases)
        pieces = []
        for extent, size in zip(t.extents, t.streamed_mb, strict=True):
            pieces.append(Piece(extent.tape, extent.offset_mb, size))
            end = extent.offset_mb + size
            reach[extent.tape] = max(reach.get(extent.tape, 0.0), end)
        requests.append(
            Request(
                id=rid,
                release_s=fr.arrival_s,
                weight=1000.0 / fr.file.size_mb,
                kind=fr.kind,
                pieces=tuple(pieces),
            )
        )
        scheduled.append(
            ScheduledRequest(id=rid, drives=t.drives, start_s=t.start_s, end_s=t.end_s)
        )
    for op in platform.arm_log:
        reach.setdefault(op[1], 0.0)
    if any(d.locate is not None for d in drives):
        past = sorted(tape for tape, end in reach.items() if end > spec.tape_capacity_mb)
        if past:
            raise ExportError(
                f"cannot export a run in which tape {past[0]!r} was streamed past the "
                f"platform's tape capacity ({spec.tape_capacity_mb:g} MB): serpentine "
                "locates were timed on that capacity"
            )
    catalogue = simulation.catalogue
    tapes = [
        Tape(
            id=tape,
            library=catalogue.tape(tape).library,
            capacity_mb=max(spec.tape_capacity_mb, reach[tape]),
        )
        for tape in sorted(reach)
    ]
    operations = tuple(
        ArmOperation(op=op, tape=tape, drive=drive, start_s=start, end_s=end, library=lib)
        for op, tape, drive, start, end, lib in platform.arm_log
    )
    instance = Instance(
        name=name,
        libraries=libraries,
        drives=drives,
        tapes=tuple(tapes),
        requests=tuple(requests),
    )
    return instance, Schedule(requests=tuple(scheduled), operations=operations, instance=name)
