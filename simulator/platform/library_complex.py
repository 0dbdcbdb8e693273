"""A complex of libraries joined by elevators and pass-through ports (the SL8500's).

An Oracle StorageTek SL8500 has four rails (levels), each with its own
storage slots, drives and handbots; an elevator carries cartridges between
the rails of one library, and pass-through ports between the same rail of
adjacent libraries of a complex. The platform (:mod:`simulator.platform.platform`)
reads each level as one of its libraries (its handbots are that library's
arms) and this object as the way between them: how long a cartridge takes
to cross from one level to another, how many slots each level has and how
many cartridges sit in them at the start, and whether a dismounted
cartridge *floats* (ACSLS's float option: it is put in a free slot of the
level of the drive that dismounts it, which becomes its home, instead of
travelling back).

Figures (the SL8500 row of :data:`toolkit.hardware.technology.LIBRARIES`, each with
its source): an elevator ride between two rails, a pass-through between
adjacent libraries. Crossing ``k`` libraries takes ``k`` pass-throughs, and
an elevator ride when the rails differ.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from attrs import field, frozen


def crossing_s(
    a: int, b: int, *, rails_per_library: int, elevator_s: float, pass_through_s: float
) -> float:
    """Time to carry a cartridge from level number ``a`` to level number ``b``.

    Levels ``k * rails_per_library .. (k + 1) * rails_per_library - 1`` are
    the rails of library ``k``: an elevator ride when the rails differ, plus
    a pass-through per library crossed (ports join the same rail of
    adjacent libraries). Handbot moves are not included.
    """
    if a == b:
        return 0.0
    libraries = abs(a // rails_per_library - b // rails_per_library)
    elevator = elevator_s if a % rails_per_library != b % rails_per_library else 0.0
    return libraries * pass_through_s + elevator


def _time(_: object, attribute: Any, value: float) -> None:
    if not 0 <= value < math.inf:
        raise ValueError(f"{attribute.name} must be finite and >= 0, got {value!r}")


def _ints(values: Sequence[int]) -> tuple[int, ...]:
    return tuple(values)


@frozen(kw_only=True)
class LibraryComplex:
    """How the levels of a complex are joined, and their slots.

    Level ``i`` is the platform's ``i``-th library; ``numbers[i]`` its
    number in the complex (ACSLS numbers four rails per library, so level
    number ``n`` is rail ``n % rails_per_library`` of library
    ``n // rails_per_library``).

    Attributes
    ----------
    numbers
        Level number of each platform library, in the platform's order.
    slots
        Storage slots of each level.
    shelved
        Cartridges in the slots of each level at the start (a cartridge
        floats into a level only while it has a free slot).
    elevator_s
        One elevator ride between two rails of a library, the handbots'
        hand-offs at either end excluded.
    pass_through_s
        One pass-through between the same rail of two adjacent libraries.
    rails_per_library
        Rails of one library (4 in an SL8500).
    float_on_dismount
        Put a dismounted cartridge in a free slot of its drive's level
        (ACSLS float) rather than carry it back to its home level.
    """

    numbers: tuple[int, ...] = field(converter=_ints)
    slots: tuple[int, ...] = field(converter=_ints)
    shelved: tuple[int, ...] = field(converter=_ints)
    elevator_s: float = field(validator=_time)
    pass_through_s: float = field(validator=_time)
    rails_per_library: int = 4
    float_on_dismount: bool = True

    def __attrs_post_init__(self) -> None:
        n = len(self.numbers)
        if not n or len(set(self.numbers)) != n or min(self.numbers) < 0:
            raise ValueError("level numbers must be at least one, distinct and >= 0")
        if len(self.slots) != n or len(self.shelved) != n:
            raise ValueError(f"slots and shelved need one count per level ({n})")
        for level, (slots, shelved) in enumerate(zip(self.slots, self.shelved, strict=True)):
            if not 0 <= shelved <= slots:
                raise ValueError(
                    f"level {self.numbers[level]}: {shelved} cartridges but {slots} slots"
                )
        if isinstance(self.rails_per_library, bool) or self.rails_per_library < 1:
            raise ValueError(f"rails_per_library must be >= 1, got {self.rails_per_library!r}")

    def transfer_s(self, from_level: int, to_level: int) -> float:
        """Time to carry a cartridge between two levels (platform indices), handbots excluded.

        An elevator ride when the rails differ, plus a pass-through per
        library crossed.
        """
        if from_level == to_level:
            return 0.0
        return crossing_s(
            self.numbers[from_level],
            self.numbers[to_level],
            rails_per_library=self.rails_per_library,
            elevator_s=self.elevator_s,
            pass_through_s=self.pass_through_s,
        )

    def by_distance(self, from_level: int, levels: Sequence[int]) -> list[int]:
        """``levels`` nearest first from ``from_level`` (by :meth:`transfer_s`, then number)."""
        numbers = self.numbers
        return sorted(levels, key=lambda lv: (self.transfer_s(from_level, lv), numbers[lv]))
