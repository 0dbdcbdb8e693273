"""The SL8500 complex as a platform of the simulator: its mechanical times, its levels as
libraries, the drives that stream a trace's seconds.

:class:`SL8500Timings` holds the complex's times (defaults from the technology table);
:func:`trace_platform` makes the platform a replay runs on (:mod:`simulator.replay.replay`),
each level (rail) a library whose arms are its handbots, the levels joined by
:class:`simulator.platform.library_complex.LibraryComplex`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from attrs import field, frozen

from tapesched.simulator.platform.library_complex import LibraryComplex, crossing_s
from tapesched.simulator.platform.spec import DriveSpec, LibrarySpec, PlatformSpec
from tapesched.simulator.platform.technology import DriveModel, Duration
from tapesched.simulator.replay.trace import LibraryLayout
from tapesched.toolkit.errors import shown
from tapesched.toolkit.hardware.technology import LIBRARIES, required

TRACE_RATE_MB_S = 1.0
"""Rate of the replay's drives: a trace request is a file of ``seconds_in_drive`` MB, so that
its transfer takes the trace's seconds (positioning included, which is why the replay's drives
locate in no time)."""


def _time(_: object, attribute: Any, value: float) -> None:
    if not 0 <= value < math.inf:
        raise ValueError(f"{attribute.name} must be finite and >= 0, got {shown(value)}")


def _positive_int(_: object, attribute: Any, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{attribute.name} must be an integer >= 1, got {shown(value)}")


_SL8500 = LIBRARIES["SL8500"]
"""The table's SL8500 complex (its drive: the T10000D row), whose figures are the defaults."""


@frozen(kw_only=True)
class SL8500Timings:
    """Mechanical times of an SL8500 complex with T10000C/D drives, in seconds.

    The defaults are the SL8500 row of the technology table
    (:data:`toolkit.hardware.technology.LIBRARIES`) and its drive's (the T10000D
    row of :data:`toolkit.hardware.technology.DRIVES`), where each figure names its
    source: the handbot's move from Oracle's figures, the T10000 load and
    unload as quoted from its data sheet (unchecked), the elevator and the
    pass-through estimates.

    Attributes
    ----------
    exchange_s
        One handbot move of a cartridge: pick it (at a slot, a drive or a
        port), travel, put it (the table's ``mount_s``, equal to its
        ``dismount_s``).
    load_s
        Drive load and thread to ready (ECMWF's drives were T10000s).
    unload_s
        Rewind and eject, before a handbot can take the cartridge.
    elevator_s
        One elevator ride between two rails of a library, the handbots'
        hand-offs at either end excluded.
    pass_through_s
        One pass-through port between the same rail of two adjacent
        libraries.
    rails_per_library
        Rails (levels) of one library: 4 in an SL8500, so levels ``4k ..
        4k+3`` form library ``k`` (ACSLS numbers each rail as an LSM, four
        per library, top-down, libraries right to left).
    """

    exchange_s: float = field(default=_SL8500.mount_s, validator=_time)
    load_s: float = field(default=_SL8500.drive.load_s, validator=_time)
    unload_s: float = field(default=_SL8500.drive.unload_s, validator=_time)
    elevator_s: float = field(
        default=required(_SL8500.elevator_s, "SL8500 elevator_s"), validator=_time
    )
    pass_through_s: float = field(
        default=required(_SL8500.pass_through_s, "SL8500 pass_through_s"), validator=_time
    )
    rails_per_library: int = field(
        default=required(_SL8500.rails_per_library, "SL8500 rails_per_library"),
        validator=_positive_int,
    )

    def transfer_s(self, from_level: int, to_level: int) -> float:
        """Time to carry a cartridge between level numbers, handbot moves excluded
        (:func:`simulator.platform.library_complex.crossing_s`)."""
        return crossing_s(
            from_level,
            to_level,
            rails_per_library=self.rails_per_library,
            elevator_s=self.elevator_s,
            pass_through_s=self.pass_through_s,
        )

    def fastest_mount_s(self, from_level: int, to_level: int) -> float:
        """Latency of a mount that never waits: the least a request that needs one can see."""
        if from_level == to_level:
            return self.exchange_s + self.load_s
        return 2 * self.exchange_s + self.transfer_s(from_level, to_level) + self.load_s


def level_id(level: int) -> str:
    """The platform's library id of a level of the complex."""
    return f"level{level}"


def trace_platform(
    layout: LibraryLayout,
    drive_ids: Sequence[str],
    timings: SL8500Timings,
    homes: Mapping[str, int],
    *,
    float_on_dismount: bool = True,
    arm_s: Mapping[int, tuple[float, float]] | None = None,
    drive_s: Mapping[str, tuple[float, float]] | None = None,
) -> PlatformSpec:
    """The SL8500 complex of ``layout`` as a platform, with the drives ``drive_ids``.

    Each level is a library whose arms are its handbots (an exchange each
    way); the drives are T10000s of :attr:`SL8500Timings.load_s` and
    ``unload_s`` that stream the trace's seconds and locate in no time; the
    complex (:class:`~simulator.platform.library_complex.LibraryComplex`) joins the
    levels, ``homes`` filling their slots at the start. A site of several generations
    gives its own times: ``arm_s`` a level's mount and dismount, ``drive_s`` a drive's
    load and unload (a level or drive it does not name takes ``timings``').
    """
    exchange = (timings.exchange_s, timings.exchange_s)
    libraries = []
    for lv in layout.levels:
        mount_s, dismount_s = (arm_s or {}).get(lv.id, exchange)
        libraries.append(
            LibrarySpec(level_id(lv.id), lv.robots, Duration(mount_s), Duration(dismount_s))
        )
    models: dict[tuple[float, float], DriveModel] = {}
    level_of = {d: lv.id for lv in layout.levels for d in lv.drives}
    drives = []
    for d in drive_ids:
        times = (drive_s or {}).get(d, (timings.load_s, timings.unload_s))
        if times not in models:
            models[times] = _trace_drive(*times, named=not models)
        drives.append(DriveSpec(d, level_id(level_of[d]), models[times]))
    shelved = dict.fromkeys((lv.id for lv in layout.levels), 0)
    for level in homes.values():
        shelved[level] += 1
    complex_ = LibraryComplex(
        numbers=[lv.id for lv in layout.levels],
        slots=[lv.slots for lv in layout.levels],
        shelved=[shelved[lv.id] for lv in layout.levels],
        elevator_s=timings.elevator_s,
        pass_through_s=timings.pass_through_s,
        rails_per_library=timings.rails_per_library,
        float_on_dismount=float_on_dismount,
    )
    return PlatformSpec(libraries, drives, tape_capacity_mb=1e12, complex=complex_)


def _trace_drive(load_s: float, unload_s: float, *, named: bool) -> DriveModel:
    """A drive of a replay: it streams the trace's seconds, locates in no time, and loads
    and unloads in the times given (the first model of a replay keeps the SL8500 name)."""
    return DriveModel(
        name="T10000-trace" if named else f"trace-{load_s:g}-{unload_s:g}",
        rate_mb_s=TRACE_RATE_MB_S,
        load_s=Duration(load_s),
        unload_s=Duration(unload_s),
        locate_mb_s=math.inf,
        capacity_mb=math.inf,
        source="the trace's seconds in drive; load and unload: SL8500Timings or the site's",
    )
