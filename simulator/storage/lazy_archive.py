"""The archive at time 0 as a catalogue asks it: a protocol and a naming of listed files.

A catalogue (:mod:`tapesched.simulator.storage.catalogue`) may stand on an archive laid
out on demand (:class:`LazyArchive`: the generated archive of
:mod:`tapesched.simulator.storage.archive`, a trace's, an HSM's); :class:`NumberedFiles`
names the files of an archive listed as given ``f0``, ``f1``, ...
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Protocol

from tapesched.simulator.storage.catalogue_records import FileLayout
from tapesched.simulator.storage.files import FileSpec


class LazyArchive(Protocol):
    """The archive at time 0 as a catalogue asks it (:class:`simulator.storage.archive.Archive`)."""

    def file_number(self, file_id: str) -> int | None:
        """The archive's number for ``file_id`` (``None``: not one of its files)."""
        ...

    def layout(self, k: int) -> tuple[FileLayout, int]:
        """File ``k``'s layout and the data members sharing its parity."""
        ...

    def file(self, k: int) -> FileSpec:
        """File ``k``'s spec."""
        ...

    def writer(self, k: int) -> str:
        """The policy that wrote file ``k``."""
        ...

    def tape_library(self, tape_id: str) -> str | None:
        """Library of an archive tape (``None``: not one of its tapes)."""
        ...


class NumberedFiles(ABC):
    """Files named ``f0``, ``f1``, ...: the naming of an archive listed as given.

    A :class:`LazyArchive` whose files are the entries of a list (a trace's
    requests, an HSM's batches) names file ``k`` ``f{k}``; a subclass says
    how many there are (:meth:`__len__`).
    """

    @abstractmethod
    def __len__(self) -> int:
        """How many files there are."""

    @staticmethod
    def file_id(k: int) -> str:
        """Id of file ``k``."""
        return f"f{k}"

    def file_number(self, file_id: str) -> int | None:
        """Number of ``f{k}`` (``None``: not one of the files)."""
        if not file_id.startswith("f") or not file_id[1:].isdigit():
            return None
        k = int(file_id[1:])
        return k if k < len(self) else None
