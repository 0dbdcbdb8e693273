"""Drives shared by groups: HSM servers, groups with their queues, drive sets, tape batches.

CNAF's tape service (Cavalli et al., "Experience in dynamic tape drive
allocation to manage scientific data", INFN CNAF) shares its drives between
experiments. Its terms, as modelled here:

- a *group* (:class:`HsmGroup`) is an experiment, or the file system it
  owns: every request belongs to one, and each group has a recall queue and
  a migration queue per drive set (GEMSS after 2021);
- a *drive set* (:class:`DriveSet`) is the drives of one technology in one
  library (16 T10000D in the SL8500, 19 TS1160 in the TS4500): a queue of a
  group is a queue of one set, and a reserve of free drives is kept per set;
- an *HSM server* (:class:`HsmServer`) moves a group's data between tape
  and disk over a Fibre Channel link of ``fc_mb_s``: the drives serving its
  groups, at their native rates, may stream no more than that together;
- a *tape batch* (:class:`TapeBatch`) is the work of one recall or
  migration *thread*: GEMSS hands ISP-HSM a group's file list, which groups
  it by cartridge and orders each cartridge's files by position, and one
  thread with one drive reads one cartridge (:func:`recall_batches`).

Where they live on the platform
    A drive set is a library of the one platform
    (:meth:`HsmPlatform.platform_spec`): T10000D drives with the technology
    table's load, unload, locate and rate, the library's arms. The HSM
    servers' links are not the platform's mover nodes
    (:class:`simulator.platform.spec.MoverSpec` has a ``bandwidth_mb_s`` cap on
    the native rates of its busy drives, the same arithmetic, but a mover
    owns a fixed set of drives): CNAF's drives are on a SAN, any drive may
    serve any server and which one changes with every thread, so the link is
    an admission rule of the run (:mod:`simulator.sharing.hsm_run`).

A batch's work (:meth:`DriveSet.thread_s`) is the platform's time for it
alone: an arm mount and a load, for each file a locate from the head and
its transfer at the native rate plus a fixed per-file overhead (the drive
model's per-block cost), then an unload and an arm dismount. The offline
allocation (:mod:`simulator.sharing.offline_allocation`) sees that work.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Literal

from attrs import field, frozen

from tapesched.simulator.platform.platform import Platform
from tapesched.simulator.platform.spec import DriveSpec, LibrarySpec, PlatformSpec
from tapesched.simulator.platform.technology import DriveModel, Duration
from tapesched.simulator.storage.files import Extent
from tapesched.toolkit.hardware.technology import DRIVES, LIBRARIES

Kind = Literal["recall", "migration"]
"""The two queues of a group: reads from tape to disk, writes from disk to tape."""


def _files(items: Iterable[tuple[float, float]]) -> tuple[tuple[float, float], ...]:
    return tuple((float(offset), float(size)) for offset, size in items)


def _floats(items: Iterable[float]) -> tuple[float, ...]:
    return tuple(float(x) for x in items)


def _servers(items: Iterable[HsmServer]) -> tuple[HsmServer, ...]:
    return tuple(items)


def _groups(items: Iterable[HsmGroup]) -> tuple[HsmGroup, ...]:
    return tuple(items)


def _sets(items: Iterable[DriveSet]) -> tuple[DriveSet, ...]:
    return tuple(items)


def _positive(_: object, attribute: object, value: float) -> None:
    if not value > 0:
        raise ValueError(f"{getattr(attribute, 'name', attribute)} must be > 0, got {value!r}")


def _at_least_one(_: object, attribute: object, value: int) -> None:
    if value < 1:
        raise ValueError(f"{getattr(attribute, 'name', attribute)} must be >= 1, got {value!r}")


def _not_negative(_: object, attribute: object, value: float) -> None:
    if not value >= 0:
        raise ValueError(f"{getattr(attribute, 'name', attribute)} must be >= 0, got {value!r}")


@frozen
class HsmServer:
    """An HSM server and its Fibre Channel link.

    Attributes
    ----------
    id
        Server id.
    fc_mb_s
        Most MB/s the drives serving its groups may stream together, at
        their native rates (the link's nominal speed).
    """

    id: str
    fc_mb_s: float = field(validator=_positive)


@frozen
class HsmGroup:
    """A group: an experiment (its file system), served by one HSM server.

    Attributes
    ----------
    id
        Group id (``cms``, ``atlas``...).
    server
        Id of the :class:`HsmServer` moving its data.
    """

    id: str
    server: str


@frozen
class DriveSet:
    """A drive set: the drives of one technology in one library, and that library's arms.

    It is a library of the platform the run plays on (:meth:`HsmPlatform.platform_spec`):
    its drives are :class:`~simulator.platform.spec.DriveSpec` of the model :meth:`model`, its
    arms a :class:`~simulator.platform.spec.LibrarySpec`. The per-file overhead is the drive
    model's per-block cost, one block a file (the platform charges it as streaming time).

    Attributes
    ----------
    id
        Set id (the library's id).
    drives
        Number of drives.
    rate_mb_s
        Native rate of each drive (what the FC arithmetic counts).
    load_s, unload_s
        Drive load (thread to ready) and unload (rewind and eject).
    locate_mb_s
        Locate speed along the tape.
    capacity_mb
        Native capacity of its cartridges.
    arm_s
        One arm trip, mount or dismount.
    arms
        Arms of the library.
    file_overhead_s
        Fixed time per file besides its locate and transfer (the HSM's
        per-file work and the drive's stop and start).
    """

    id: str
    drives: int = field(validator=_at_least_one)
    rate_mb_s: float = field(validator=_positive)
    load_s: float = field(validator=_not_negative)
    unload_s: float = field(validator=_not_negative)
    locate_mb_s: float = field(validator=_positive)
    capacity_mb: float = field(default=8_500_000.0, validator=_positive)
    arm_s: float = field(default=0.0, validator=_not_negative)
    arms: int = field(default=1, validator=_at_least_one)
    file_overhead_s: float = field(default=0.0, validator=_not_negative)

    @classmethod
    def of_technology(
        cls,
        id: str,
        technology: str,
        drives: int,
        *,
        library: str,
        arms: int,
        file_overhead_s: float = 0.0,
    ) -> DriveSet:
        """``drives`` drives of ``technology`` (:data:`toolkit.hardware.technology.DRIVES`) in a
        ``library`` of :data:`toolkit.hardware.technology.LIBRARIES` with ``arms`` arms.

        The drive's load, unload, rate, locate speed and capacity are the
        technology table's, the arm's trip the library's ``mount_s``.
        """
        tech = DRIVES[technology]
        return cls(
            id=id,
            drives=drives,
            rate_mb_s=tech.rate_mb_s,
            load_s=tech.load_s,
            unload_s=tech.unload_s,
            locate_mb_s=tech.locate_mb_s,
            capacity_mb=tech.capacity_mb,
            arm_s=LIBRARIES[library].mount_s,
            arms=arms,
            file_overhead_s=file_overhead_s,
        )

    def model(self) -> DriveModel:
        """The platform's drive model of the set (the per-file overhead as its ``block_s``)."""
        return DriveModel(
            name=f"{self.id}-drive",
            rate_mb_s=self.rate_mb_s,
            load_s=Duration(self.load_s),
            unload_s=Duration(self.unload_s),
            locate_mb_s=self.locate_mb_s,
            capacity_mb=self.capacity_mb,
            block_s=self.file_overhead_s,
            source="tapesched.simulator.sharing.groups.DriveSet",
        )

    def library(self) -> LibrarySpec:
        """The platform's library of the set: its arms, a trip each way."""
        return LibrarySpec(self.id, self.arms, Duration(self.arm_s), Duration(self.arm_s))

    def drive_ids(self) -> list[str]:
        """Ids of the set's drives on the platform."""
        return [f"{self.id}-{k:02d}" for k in range(self.drives)]

    def file_extent(self, tape: str, offset_mb: float, size_mb: float) -> Extent:
        """A file as the platform reads it: one extent of one block (the per-file overhead)."""
        return Extent(tape, offset_mb, size_mb, size_mb, blocks=1)

    def thread_s(self, batch: TapeBatch) -> float:
        """The platform's time for ``batch`` alone on an idle empty drive, no arm waited for.

        Arm mount and load, then for each file in the batch's order the
        drive model's locate from the head and the platform's stream of the
        file's extent (its block's overhead included), then unload and arm
        dismount: :class:`~simulator.platform.platform.Platform`'s timing rules over
        :meth:`model` and :meth:`library`, so that the offline allocation
        sees the work the run does.
        """
        model = self.model()
        t = self.arm_s + self.load_s
        head = 0.0
        for offset_mb, size_mb in batch.files:
            t += model.locate_s(head, offset_mb, self.capacity_mb)
            stream = Platform.stream_mb(model, self.file_extent(batch.tape, offset_mb, size_mb),
                                        True)  # fmt: skip
            t += stream / self.rate_mb_s
            head = offset_mb + stream
        return t + self.unload_s + self.arm_s


@frozen
class TapeBatch:
    """The files one thread moves: one cartridge of a group's queue, in reading order.

    Attributes
    ----------
    id
        Batch id (unique in a run).
    group
        Its :class:`HsmGroup`'s id.
    drive_set
        Its :class:`DriveSet`'s id (where the cartridge is, or is written).
    kind
        ``recall`` or ``migration``.
    tape
        The cartridge.
    arrival_s
        When the batch joins its queue.
    files
        ``(offset_mb, size_mb)`` of each file, in reading order.
    """

    id: str
    group: str
    drive_set: str
    kind: Kind
    tape: str
    arrival_s: float = field(validator=_not_negative)
    files: tuple[tuple[float, float], ...] = field(converter=_files)

    @property
    def size_mb(self) -> float:
        """Bytes moved, MB."""
        return sum(size for _, size in self.files)

    @property
    def queue(self) -> tuple[str, str, Kind]:
        """The queue it joins: ``(group, drive set, kind)``."""
        return (self.group, self.drive_set, self.kind)


@frozen
class FileRecall:
    """One file to recall: its group, set, cartridge, position, size and arrival."""

    group: str
    drive_set: str
    tape: str
    offset_mb: float
    size_mb: float
    arrival_s: float = 0.0


def recall_batches(files: Iterable[FileRecall], prefix: str = "r") -> list[TapeBatch]:
    """Group files by group, set, cartridge and arrival; order each cartridge by offset.

    As ISP-HSM does with the list GEMSS gives it: one batch (one thread)
    per cartridge of a group's list, its files in position order (the
    ``offset`` orderer of :mod:`solvers.recall_order`, block order, with the
    head left at the end of each file). Files of one cartridge arriving at
    different times are different lists, hence different batches.
    """
    lists: dict[tuple[str, str, str, float], list[FileRecall]] = defaultdict(list)
    for f in files:
        lists[(f.group, f.drive_set, f.tape, f.arrival_s)].append(f)
    batches = []
    for k, ((group, dset, tape, arrival), kept) in enumerate(
        sorted(lists.items(), key=lambda item: (item[0][3], item[0]))
    ):
        kept.sort(key=lambda f: f.offset_mb)
        batches.append(
            TapeBatch(
                id=f"{prefix}{k}",
                group=group,
                drive_set=dset,
                kind="recall",
                tape=tape,
                arrival_s=arrival,
                files=tuple((f.offset_mb, f.size_mb) for f in kept),
            )
        )
    return batches


@frozen
class Reclamation:
    """Space reclamation of a set's storage pool, started on drives left free.

    Attributes
    ----------
    duration_s
        How long one reclamation process runs (the administrator's setting).
    threshold_pct
        Reclaimable share a cartridge must have at least to be reclaimed.
    tape_mb
        Capacity of the pool's cartridges: a cartridge reclaimed has its
        valid share copied at the set's native rate.
    drives
        Drives a process holds (it reads one cartridge and writes another).
    reclaimable_pct
        Reclaimable share of each cartridge of the pool at the start.
    """

    duration_s: float = field(validator=_positive)
    threshold_pct: float = field(validator=_not_negative)
    tape_mb: float = field(validator=_positive)
    drives: int = field(default=2, validator=_at_least_one)
    reclaimable_pct: tuple[float, ...] = field(converter=_floats, default=())

    def eligible(self) -> int:
        """Cartridges of the pool at or above the threshold."""
        return sum(1 for share in self.reclaimable_pct if share >= self.threshold_pct)


@frozen
class HsmPlatform:
    """Servers, groups, drive sets and the fixed migration maxima: what the run is given.

    Attributes
    ----------
    servers, groups, drive_sets
        By id order of declaration; every group's server must be declared.
    migration_caps
        ``(group, set)`` to the most migration threads it may run (GEMSS's
        parameter, which no allocator here changes); absent means 0.
    reclamation
        Set id to its pool's :class:`Reclamation`, for allocators that start it.
    """

    servers: tuple[HsmServer, ...] = field(converter=_servers)
    groups: tuple[HsmGroup, ...] = field(converter=_groups)
    drive_sets: tuple[DriveSet, ...] = field(converter=_sets)
    migration_caps: Mapping[tuple[str, str], int] = field(factory=dict)
    reclamation: Mapping[str, Reclamation] = field(factory=dict)

    def __attrs_post_init__(self) -> None:
        servers = {s.id for s in self.servers}
        for name, items in (
            ("servers", self.servers),
            ("groups", self.groups),
            ("drive sets", self.drive_sets),
        ):
            ids = [x.id for x in items]
            if len(set(ids)) != len(ids) or not ids:
                raise ValueError(f"{name} must be at least one, with distinct ids")
        for g in self.groups:
            if g.server not in servers:
                raise ValueError(f"group {g.id!r}: unknown server {g.server!r}")
        for (group, dset), cap in self.migration_caps.items():
            self._check(group, dset)
            if cap < 0:
                raise ValueError(f"migration cap of {group}/{dset} must be >= 0")
        for dset in self.reclamation:
            self.drive_set(dset)

    def _check(self, group: str, dset: str) -> None:
        self.group(group)
        self.drive_set(dset)

    def group(self, id: str) -> HsmGroup:
        """The group ``id``."""
        for g in self.groups:
            if g.id == id:
                return g
        raise ValueError(f"unknown group {id!r}")

    def drive_set(self, id: str) -> DriveSet:
        """The drive set ``id``."""
        for s in self.drive_sets:
            if s.id == id:
                return s
        raise ValueError(f"unknown drive set {id!r}")

    def server_of(self, group: str) -> HsmServer:
        """The server of ``group``."""
        server = self.group(group).server
        return next(s for s in self.servers if s.id == server)

    def platform_spec(self) -> PlatformSpec:
        """The platform the run plays on: a library per drive set, its arms and drives.

        No mover nodes: any drive of a set may serve any group (CNAF's SAN),
        and the HSM servers' links are kept by the run's admission
        (:mod:`simulator.sharing.hsm_run`). Tapes are of the largest set's capacity.
        """
        return PlatformSpec(
            libraries=[s.library() for s in self.drive_sets],
            drives=[DriveSpec(d, s.id, s.model()) for s in self.drive_sets for d in s.drive_ids()],
            tape_capacity_mb=max(s.capacity_mb for s in self.drive_sets),
        )

    def check_batches(self, batches: Sequence[TapeBatch]) -> None:
        """Raise ``ValueError`` when a batch names an unknown group or set, or moves nothing."""
        seen: set[str] = set()
        for b in batches:
            self._check(b.group, b.drive_set)
            if not b.files:
                raise ValueError(f"batch {b.id!r} has no file")
            if b.id in seen:
                raise ValueError(f"batch id {b.id!r} is given twice")
            seen.add(b.id)
