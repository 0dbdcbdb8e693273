"""A GEMSS-like HSM on the one simulation: group queues, a thread per cartridge, an allocator.

The run takes a :class:`~simulator.sharing.groups.HsmPlatform`, the tape batches of
every group (:class:`~simulator.sharing.groups.TapeBatch`) and an
:class:`~simulator.sharing.allocator.Allocator`, and plays them out as a run of
:class:`simulator.run.simulation.Simulation` like any other:

- the platform is :meth:`~simulator.sharing.groups.HsmPlatform.platform_spec`: a
  library per drive set, its arms, its drives (mount, load, locate,
  stream, unload, dismount: the platform's one timing);
- every batch's files are the archive at time 0 (:class:`~.hsm_archive.HsmArchive`), at
  their cartridges and offsets; each file of a batch is a read
  (:class:`~simulator.storage.files.FileRequest`) arriving with its batch;
  migrations are reads too, of files laid end to end from the start of a
  cartridge of their own (the drive time of writing them; see *Migrations*);
- which request starts is an online scheduler's choice (``tape-batching``
  by default) under a mount policy (``at-once`` by default: a cartridge is
  put away when its thread is done, as ISP-HSM does), composed as ``simulate``
  composes them, inside :class:`~.hsm_admission.HsmAdmission`, the HSM's own rules.

:class:`~.hsm_admission.HsmAdmission` is a scheduler wrapping another
(:class:`~solvers.online.mount_policied.MountPolicied`'s pattern). It holds
back every request and shows the inner scheduler only what GEMSS would
let run:

- a batch (a cartridge of a group's list) is admitted as a *thread* when
  its queue ``(group, set, kind)`` is under its cap (recalls: the
  allocator's; migrations: the platform's fixed ``migration_caps``), a
  drive of its set is free (beyond the set's reserve, for a recall) and
  its group's HSM server keeps within its Fibre Channel link at the set's
  native rate; among the queues that may start, the oldest pending batch
  goes first;
- of a thread, the inner scheduler sees the next file only, in position
  order (ISP-HSM hands a thread its cartridge's list ordered by offset),
  and only while the cartridge is not in a busy drive: it chooses among
  threads, not among a cartridge's files;
- a thread counts against its queue, its server and its set from its
  admission until its drive is free again (its last file read and its
  cartridge put away);
- the allocator is asked at the first decision time (once all its
  arrivals are in) and then every
  ``period_s`` (the wrapper's ``wake_s``, which the simulation honours)
  while batches wait or arrivals are to come; its caps, reserve and
  reclamations hold until the next period;
- a space reclamation process is a request of its own on two drives of
  its set (a 2-wide read of the pool's cartridge and of the cartridge it
  copies to, streaming for the process's duration), admitted when the
  allocator says and the set's drives beyond the reserve allow; the
  cartridges it reclaims are counted as before, from the pool's shares.

Migrations
    The simulator's writes go where the archival policy's streams are,
    and streams are shared by type (policy and scheme), not by group: a
    CMS migration would append to a cartridge an ATLAS one left mounted,
    and no thread would own a cartridge. A migration is therefore played
    as reads of the files it writes, end to end from the start of a
    cartridge of its own: the same mount, load, stream, unload and
    dismount on one drive, in the group's migration queue.

What a run measures (:class:`HsmResult`): each batch's thread (its first
file's start, its last file's end, when each file's data was done), each
reclamation, each allocation, each admission, and the batches never
started.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import cast

from attrs import frozen

from tapesched.simulator.run.simulation import Simulation
from tapesched.simulator.schedulers.registry import simulator_scheduler
from tapesched.simulator.sharing.allocator import Allocator
from tapesched.simulator.sharing.groups import HsmPlatform, TapeBatch
from tapesched.simulator.sharing.hsm_admission import (
    AdmissionRecord,
    AllocationRecord,
    HsmAdmission,
)
from tapesched.simulator.sharing.hsm_archive import HsmArchive, HsmReads, hsm_workload
from tapesched.solvers.online.mount_policy import parse_mount_policy, with_mount_policy
from tapesched.solvers.online.protocol import Scheduler
from tapesched.solvers.plugins import SchedulerSpec, resolve_scheduler, with_plugins


@frozen
class ThreadRecord:
    """A batch's thread in the run: its queue, when it began and ended, and its files' ends.

    ``start_s`` is its first file's start (the mount's), ``end_s`` its last
    file's end (before its cartridge is put away), ``work_s`` the platform's
    time for the batch alone (:meth:`~simulator.sharing.groups.DriveSet.thread_s`),
    ``file_done_s`` when each file's data was done, in the batch's order.
    """

    batch: str
    group: str
    drive_set: str
    kind: str
    start_s: float
    end_s: float
    size_mb: float
    arrival_s: float
    work_s: float
    file_done_s: tuple[float, ...]


@frozen
class ReclamationRecord:
    """A reclamation process run: its set, drives, span and cartridges reclaimed."""

    drive_set: str
    drives: int
    start_s: float
    end_s: float
    tapes: int


@frozen
class HsmResult:
    """What a run did: every thread, reclamation, allocation and admission; what it left."""

    threads: tuple[ThreadRecord, ...]
    reclamations: tuple[ReclamationRecord, ...]
    allocations: tuple[AllocationRecord, ...]
    admissions: tuple[AdmissionRecord, ...]
    end_s: float
    """The last file's (or reclamation's) end."""
    stranded: tuple[str, ...] = ()
    """Batches not done: pending when nothing ran, no batch was to come and an
    allocation admitted nothing (a cap of 0, say)."""


def run_hsm(
    platform: HsmPlatform,
    batches: Sequence[TapeBatch],
    allocator: Allocator,
    *,
    scheduler: SchedulerSpec = "tape-batching",
    mount_policy: str | None = "at-once",
) -> HsmResult:
    """Run ``batches`` on ``platform`` under ``allocator`` (see the module).

    Parameters
    ----------
    platform, batches, allocator
        What is run.
    scheduler
        The inner scheduler (a name of the registry, ``module.path:Attr``...).
    mount_policy
        Its mount policy spec (:mod:`solvers.online.mount_policy`);
        ``at-once`` puts a cartridge away when its thread is done.
    """
    platform.check_batches(batches)
    workload, queue_of, reclaim_of = hsm_workload(platform, batches)
    archive = cast(HsmArchive, workload.archive)
    arrivals = [r.arrival_s for r in workload.requests]
    plugged = resolve_scheduler(simulator_scheduler(scheduler))
    admissions: list[HsmAdmission] = []

    def make() -> Scheduler:
        policy = None if mount_policy is None else parse_mount_policy(mount_policy)
        inner = with_mount_policy(plugged.make(), policy)
        admission = HsmAdmission(inner, platform, allocator, queue_of, reclaim_of, arrivals)
        admissions.append(admission)
        return admission

    simulation = Simulation(
        platform.platform_spec(),
        HsmReads(block_mb=1.0, archive=archive),
        with_plugins(plugged, make, mount_policy),
        workload,
        record=False,
        keep_finished=True,  # every batch's spans are read back: a run of bounded batches
    )
    simulation.run(may_strand=True)  # a cap may strand a group's batches
    admission = admissions[-1]
    return _result(simulation, platform, batches, archive, admission)


def _result(
    simulation: Simulation,
    platform: HsmPlatform,
    batches: Sequence[TapeBatch],
    archive: HsmArchive,
    admission: HsmAdmission,
) -> HsmResult:
    sets = {s.id: s for s in platform.drive_sets}
    spans: dict[int, list[tuple[int, float, float, float]]] = defaultdict(list)
    reclamations = []
    for entry in simulation.finished:
        rid = entry.file_request.id
        k = int(rid[1:])
        assert entry.start_s is not None and entry.done_s is not None
        assert entry.data_done_s is not None
        b = archive.batch_of[k]
        if b < 0:
            dset = archive.reclaim_set[k]
            drives = platform.reclamation[dset].drives
            reclamations.append(
                ReclamationRecord(dset, drives, entry.start_s, entry.done_s,
                                  admission.reclaimed.get(rid, 0))
            )  # fmt: skip
        else:
            spans[b].append((k, entry.start_s, entry.done_s, entry.data_done_s))
    threads = []
    stranded = []
    for b, batch in enumerate(batches):
        got = sorted(spans.get(b, []))
        if len(got) < len(batch.files):
            stranded.append(batch.id)
            continue
        threads.append(
            ThreadRecord(
                batch.id, batch.group, batch.drive_set, batch.kind,
                min(s for _, s, _, _ in got), max(e for _, _, e, _ in got), batch.size_mb,
                batch.arrival_s, sets[batch.drive_set].thread_s(batch),
                tuple(d for _, _, _, d in got),
            )
        )  # fmt: skip
    threads.sort(key=lambda t: (t.start_s, t.batch))
    reclamations.sort(key=lambda r: r.start_s)
    return HsmResult(
        tuple(threads),
        tuple(reclamations),
        tuple(admission.allocations),
        tuple(admission.admissions),
        max((e.done_s or 0.0 for e in simulation.finished), default=0.0),
        tuple(stranded),
    )
