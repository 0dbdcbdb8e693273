"""What a platform is, as given before a run: libraries and their arms, drives, movers, tapes.

A :class:`PlatformSpec` is read from a scenario file (:mod:`simulator.scenario.platform_section`),
built by the studies and the replay, and run by
:class:`~simulator.platform.platform.Platform`; it holds no state of a run. Each
class checks itself when built (distinct ids, known libraries and movers), so that
a platform that exists is one a run can start on.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from attrs import field, frozen

from tapesched.simulator.platform.library_complex import LibraryComplex
from tapesched.simulator.platform.technology import DriveModel, Duration
from tapesched.toolkit.errors import shown


def _tuple(items: Iterable[Any]) -> tuple[Any, ...]:
    return tuple(items)


@frozen
class LibrarySpec:
    """A library: its arms and their times.

    Attributes
    ----------
    id
        Library id.
    arms
        Number of robot arms (>= 1).
    mount_s, dismount_s
        Arm time to carry a tape into a drive, and back to its slot.
    """

    id: str
    arms: int
    mount_s: Duration
    dismount_s: Duration

    def __attrs_post_init__(self) -> None:
        if self.arms < 1:
            raise ValueError(f"library {shown(self.id)}: arms must be >= 1, got {shown(self.arms)}")


@frozen
class DriveSpec:
    """A drive: its library, mover and technology."""

    id: str
    library: str
    model: DriveModel
    mover: str | None = None


@frozen
class MoverSpec:
    """A mover node: the drives it serves and its limits.

    Attributes
    ----------
    id
        Mover id.
    memory_mb
        Memory for erasure coding (RAIT and PARALLEL hold ``(X + Y) B``).
    disk_mb
        Local disk (VERTICAL accumulates parity there).
    bandwidth_mb_s
        Most native MB/s its busy drives may stream at once (``None``: no cap).
    """

    id: str
    memory_mb: float = float("inf")
    disk_mb: float = float("inf")
    bandwidth_mb_s: float | None = None


@frozen
class PlatformSpec:
    """A whole platform: libraries, drives, movers, tapes, and when tapes are put away.

    With ``pass_through_s``, the libraries are joined by pass-through ports:
    a drive may take a tape of another library, and the arm moving it
    through the port takes ``pass_through_s`` more, each way.

    With ``complex`` (:class:`~simulator.platform.library_complex.LibraryComplex`),
    the libraries are the levels of an SL8500 complex, each with its own
    handbots (its arms): a cartridge from another level is taken out of its
    slot by a handbot of its own level (one ``mount_s`` of that level), is
    carried across (:meth:`~simulator.platform.library_complex.LibraryComplex.transfer_s`:
    elevator and pass-throughs, no handbot held), and a handbot of the
    drive's level puts it in the drive (``mount_s``). A dismounted
    cartridge is taken out by a handbot of the drive's level
    (``dismount_s``: the drive is then free) and floats into a free slot
    of that level when the complex says so and one is free (that level
    becomes its home), or else is carried back and shelved by a handbot of
    its home level (``dismount_s``); meanwhile no drive can mount it.
    ``pass_through_s`` is then not given: the complex has its own.
    """

    libraries: tuple[LibrarySpec, ...] = field(converter=_tuple)
    drives: tuple[DriveSpec, ...] = field(converter=_tuple)
    movers: tuple[MoverSpec, ...] = field(converter=_tuple, default=())
    tape_capacity_mb: float = 1_000_000.0
    dismount: Literal["on-demand", "at-once"] = "on-demand"
    pass_through_s: Duration | None = None
    complex: LibraryComplex | None = None

    def __attrs_post_init__(self) -> None:
        libraries = {lib.id for lib in self.libraries}
        if self.complex is not None:
            if self.pass_through_s is not None:
                raise ValueError("a complex carries its own pass-through: give one or the other")
            if len(self.complex.numbers) != len(self.libraries):
                raise ValueError(
                    f"the complex has {len(self.complex.numbers)} levels, "
                    f"the platform {len(self.libraries)} libraries"
                )
        if len(libraries) != len(self.libraries) or not libraries:
            raise ValueError("libraries must be at least one, with distinct ids")
        movers = {m.id for m in self.movers}
        if len(movers) != len(self.movers):
            raise ValueError("mover ids must be distinct")
        if len({d.id for d in self.drives}) != len(self.drives) or not self.drives:
            raise ValueError("drives must be at least one, with distinct ids")
        for d in self.drives:
            if d.library not in libraries:
                raise ValueError(f"drive {shown(d.id)}: unknown library {shown(d.library)}")
            if d.mover is not None and d.mover not in movers:
                raise ValueError(f"drive {shown(d.id)}: unknown mover {shown(d.mover)}")
            if (d.mover is None) != (not self.movers):
                raise ValueError(f"drive {d.id!r}: every drive has a mover, or none does")
        if self.dismount not in ("on-demand", "at-once"):
            raise ValueError(f"dismount is on-demand or at-once, got {shown(self.dismount)}")
        if not self.tape_capacity_mb > 0:
            raise ValueError("tape_capacity_mb must be > 0")

    @property
    def random(self) -> bool:
        """Whether some time is drawn at random."""
        times = [t for lib in self.libraries for t in (lib.mount_s, lib.dismount_s)]
        times += [t for d in self.drives for t in (d.model.load_s, d.model.unload_s)]
        if self.pass_through_s is not None:
            times.append(self.pass_through_s)
        exponential = any(d.model.transfer == "exponential" for d in self.drives)
        return exponential or any(t.random for t in times)
