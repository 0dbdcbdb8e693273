"""The streams of a run's writes: which idle stream a write appends to, and which are retired.

A *stream* is a :class:`~simulator.storage.policies.policy.Group`: the tapes an
archival policy appends the files of one type (policy and scheme) to. A
write starts on an idle stream of its type whose tapes no job uses (the one
with most tapes in idle drives of its mover, then the one idle longest), or
opens a new one; once done, its stream is idle again. A stream keeping its
parity on a mover's disk (VERTICAL) is tied to that mover: only writes
running there append to it, and opening it reserves the disk. A stream
appending to a tape a read has found lost is *retired*: no write goes to it
again, and the next write of its type opens new tapes.
"""

from __future__ import annotations

from collections.abc import Collection

from tapesched.simulator.platform.platform import Platform
from tapesched.simulator.storage.files import FileSpec
from tapesched.simulator.storage.policies.policy import Group, GroupType, Policy, group_type


class Streams:
    """The idle streams of a run by type, the mover each tied one is on, the retired tapes.

    Parameters
    ----------
    policy
        The archival policy laying files out.
    platform
        The platform the streams' tapes are mounted on.
    in_use
        The run's count of jobs using each tape (read, never changed here).
    capacity_mb
        The tapes' capacity (a stream's disk need depends on it).
    """

    def __init__(
        self, policy: Policy, platform: Platform, in_use: dict[str, int], capacity_mb: float
    ) -> None:
        self._policy = policy
        self._platform = platform
        self._in_use = in_use
        self._capacity_mb = capacity_mb
        self.idle_groups: dict[GroupType, list[Group]] = {}
        """The idle streams of each type, the one idle longest first."""
        self.version = 0
        """Counts the changes of :attr:`idle_groups` (placements are kept until it changes)."""
        self._mover: dict[int, int] = {}
        """Mover of each stream tied to one (by ``id`` of the group): its parity is on its disk."""
        self.retired_tapes: set[str] = set()
        """Every tape a read has found lost, repacked since or not: no stream appends to it."""

    def disk_mb(self, file: FileSpec) -> float:
        """Disk a new stream of ``file``'s type holds on its mover (0: not tied to one)."""
        return self._policy.stream_disk_mb(file, self._capacity_mb)

    def mover_of(self, group: Group) -> int:
        """The mover a stream tied to one is on."""
        return self._mover[id(group)]

    def free(self, file: FileSpec) -> list[Group]:
        """Idle streams of ``file``'s type whose tapes no job uses or is putting away."""
        groups = self.idle_groups.get(group_type(self._policy, file))
        if not groups:
            return []
        in_use, where, drives = self._in_use, self._platform.where, self._platform.drives
        return [
            g
            for g in groups
            if not any(t in in_use or (t in where and drives[where[t]].busy) for t in g.tapes)
        ]

    def best(self, file: FileSpec, near: Collection[int] | None = None) -> Group | None:
        """The free stream of ``file``'s type with most tapes in idle drives (of ``near``).

        Ties go to the stream idle the longest.
        """
        return self._pick(self.free(file), near)

    def _pick(self, groups: list[Group], near: Collection[int] | None) -> Group | None:
        if not groups:
            return None
        where, platform = self._platform.where, self._platform

        def held(group: Group) -> int:
            return sum(
                t in where and platform.is_idle(where[t]) and (near is None or where[t] in near)
                for t in group.tapes
            )

        return max(groups, key=held)

    def take(self, file: FileSpec, drives: list[int]) -> Group | None:
        """The free stream the write goes to on ``drives`` (``None``: a new one).

        A stream keeping parity on a mover's disk is tied to that mover: only
        those of the drives' mover are taken, and opening one there reserves
        its disk.
        """
        near = set(drives)
        mover = self._platform.drives[drives[0]].mover
        tied = self.disk_mb(file) > 0
        if tied:
            candidates = [g for g in self.free(file) if self._mover[id(g)] == mover]
            group = self._pick(candidates, near)
        else:
            group = self.best(file, near)
        if group is not None:
            self.idle_groups[group_type(self._policy, file)].remove(group)
            self.version += 1
        elif tied:
            self._platform.movers[mover].disk_mb += self.disk_mb(file)
        return group

    def opened(self, group: Group, file: FileSpec, drive: int) -> None:
        """A write of ``file`` on ``drive`` opened ``group``: tied to the drive's mover when it
        keeps parity on disk."""
        if self.disk_mb(file) > 0:
            self._mover[id(group)] = self._platform.drives[drive].mover

    def idle(self, group: Group) -> None:
        """A write on ``group`` is done: the stream is idle again, unless it is retired."""
        if self.retired_tapes and any(t in self.retired_tapes for t in group.tapes):
            return
        self.idle_groups.setdefault(group.type, []).append(group)
        self.version += 1

    def retire(self, tape: str) -> None:
        """``tape`` is found lost: retire the streams appending to it (the idle ones now, the
        others when their write is done)."""
        self.retired_tapes.add(tape)
        for groups in self.idle_groups.values():
            kept = [g for g in groups if tape not in g.tapes]
            if len(kept) < len(groups):
                groups[:] = kept
                self.version += 1
