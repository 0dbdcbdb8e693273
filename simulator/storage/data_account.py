"""Every file readable, readable after a rebuild, or lost: counted and weighed.

A file is *readable* when no byte of its own lies where a tape is lost,
*rebuilt* when some do but every row of its layout keeps ``X`` members
(its lost members rebuilt from the survivors, by a read or a repack),
and *lost* otherwise (:meth:`simulator.storage.catalogue.Catalogue.file_state`,
the row rule of the degraded reads). :func:`account` counts files under a
set of lost tapes (the durability study's draws); :func:`data_account`
counts the files of a run after its faults (:mod:`simulator.platform.faults`):
losses of regions, and the repacks that gave lost tapes back, included.
"""

from __future__ import annotations

from collections.abc import Iterable

from attrs import fields, frozen

from tapesched.simulator.platform.faults import tapes_meeting
from tapesched.simulator.run.simulation import Simulation
from tapesched.simulator.storage.archive import FILE_PREFIX, Archive
from tapesched.simulator.storage.catalogue import Catalogue, FileState


@frozen
class DataAccount:
    """Files and host MB readable, readable after a rebuild, and lost.

    Attributes
    ----------
    files_readable, files_rebuilt, files_lost
        Files in each state.
    readable_mb, rebuilt_mb, lost_mb
        Their host MB (sizes before compression).
    """

    files_readable: int = 0
    files_rebuilt: int = 0
    files_lost: int = 0
    readable_mb: float = 0.0
    rebuilt_mb: float = 0.0
    lost_mb: float = 0.0

    @property
    def files(self) -> int:
        """Files accounted for."""
        return self.files_readable + self.files_rebuilt + self.files_lost

    @property
    def total_mb(self) -> float:
        """Host MB accounted for."""
        return self.readable_mb + self.rebuilt_mb + self.lost_mb


ACCOUNT_FIELDS = tuple(a.name for a in fields(DataAccount))
"""The counts and sizes of a :class:`DataAccount`, in order."""


def account(
    catalogue: Catalogue, file_ids: Iterable[str], lost_tapes: Iterable[str]
) -> DataAccount:
    """The state of each of ``file_ids`` when ``lost_tapes`` are lost, counted and weighed.

    Examples
    --------
    >>> from tapesched.simulator.storage.catalogue import RowSpan
    >>> cat = Catalogue(100.0, ["L0"])
    >>> a, b = cat.new_tape("L0"), cat.new_tape("L0")
    >>> s = cat.open_stripe(Scheme(1, 1))
    >>> _ = cat.append(s, 0, a, data_host_mb=20.0, data_tape_mb=20.0)
    >>> _ = cat.append(s, 1, b, ec_host_mb=20.0, ec_tape_mb=20.0)
    >>> cat.record(FileSpec("f", 20.0, Scheme(1, 1), 1.0, 1.0), "demo", [RowSpan(s, (0, 1))])
    >>> account(cat, ["f"], {a}).rebuilt_mb
    20.0
    """
    lost = frozenset(lost_tapes)
    return tally((catalogue.file_state(f, lost), catalogue.file(f).size_mb) for f in file_ids)


def tally(states: Iterable[tuple[FileState, float]]) -> DataAccount:
    """Files and host MB of each state, from ``(state, size_mb)`` pairs."""
    counts = {"readable": 0, "rebuilt": 0, "lost": 0}
    sizes = {"readable": 0.0, "rebuilt": 0.0, "lost": 0.0}
    for state, size_mb in states:
        counts[state] += 1
        sizes[state] += size_mb
    return DataAccount(
        counts["readable"], counts["rebuilt"], counts["lost"],
        sizes["readable"], sizes["rebuilt"], sizes["lost"],
    )  # fmt: skip


def lost_tapes_of(simulation: Simulation, file_id: str) -> tuple[frozenset[str], frozenset[str]]:
    """The tapes where the file's layout met a loss, and of those the ones still lost: not
    repacked, or repacked without this file's bytes (it could not be rebuilt then)."""
    hit = tapes_meeting(simulation.catalogue.layout(file_id), simulation.platform.unreadable)
    restored = simulation.repacking.restored
    still = {t for t in hit if t not in restored or file_id not in restored[t]}
    return frozenset(hit), frozenset(still)


def accounted_files(simulation: Simulation) -> list[str]:
    """The files a run's :func:`data_account` covers: every file of its catalogue (written
    at time 0 or in the run), then each archive file of a set with a tape lost."""
    files = list(simulation.catalogue.files())
    archive = simulation.workload.archive
    if isinstance(archive, Archive):
        for tape in simulation.platform.unreadable:
            files += [f"{FILE_PREFIX}{k}" for k in archive.files_on(tape)]
    return list(dict.fromkeys(files))


def file_state_in_run(simulation: Simulation, file_id: str) -> FileState:
    """What the run's faults left of the file: ``"readable"`` (no byte of it on a loss),
    ``"rebuilt"`` (some, and every row can be rebuilt, or was by a repack) or ``"lost"``."""
    hit, still = lost_tapes_of(simulation, file_id)
    if not hit:
        return "readable"
    state = simulation.catalogue.file_state(file_id, still)
    return "rebuilt" if state == "readable" else state


def data_account(simulation: Simulation) -> DataAccount:
    """Every file of the run readable, rebuilt or lost, with the host MB of each.

    The files are :func:`accounted_files`; an archive at the paper's scale
    (:mod:`simulator.storage.archive`) has its other files (``archive.count`` in
    all) on no lost tape: readable, not listed one by one. A file touched
    by a loss is rebuilt when each row of it keeps ``X`` members (a repack
    gives back the members it rebuilt), else lost.
    """
    catalogue = simulation.catalogue
    return tally(
        (file_state_in_run(simulation, f), catalogue.file(f).size_mb)
        for f in accounted_files(simulation)
    )
