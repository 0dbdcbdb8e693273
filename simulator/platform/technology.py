"""Drive technologies and the random times of a platform.

Every time of the platform (a drive's load and unload, an arm's mount and
dismount, the per-block cost) is a :class:`Duration`: a mean and a
distribution, ``fixed`` or ``exponential``, chosen per parameter in the
scenario file. Rates (streaming, locate) are fixed: the time to move ``x``
MB is ``x / rate``, as in the core problem, unless a drive model's
``transfer`` is ``exponential``, when a transfer takes an exponential time
of mean ``x / rate``. A drive model may have a serpentine ``locate`` model
(:class:`toolkit.model.Locate`), as a drive of an instance may: its locates
then take what that model says (:meth:`DriveModel.locate_s`, the core
problem's one locate time).

The named drive models (:data:`DRIVE_MODELS`) are the rows of the one
table of technologies, :data:`toolkit.hardware.technology.DRIVES`, where each figure
names its source; a scenario file may override any of them.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Literal

from attrs import frozen

from tapesched.toolkit.errors import shown
from tapesched.toolkit.hardware.technology import DRIVES, DriveTechnology
from tapesched.toolkit.model import Locate, locate_time_s
from tapesched.toolkit.units import MAX_TIME_S

DISTRIBUTIONS = ("fixed", "exponential")

DURATION_KEYS = ("mean_s", "dist")
"""The keys of a time given as an object, ``{"mean_s": 10, "dist": "exponential"}``
(:meth:`Duration.from_json`): ``mean_s`` required, ``dist`` ``fixed`` by default."""


@frozen
class Duration:
    """A time in seconds: ``mean_s``, drawn ``fixed`` (always the mean) or ``exponential``."""

    mean_s: float
    kind: Literal["fixed", "exponential"] = "fixed"

    def __attrs_post_init__(self) -> None:
        if not self.mean_s >= 0:
            raise ValueError(f"a duration must be >= 0 s, got {shown(self.mean_s)}")
        if self.kind not in DISTRIBUTIONS:
            raise ValueError(f"a duration is fixed or exponential, got {shown(self.kind)}")

    def draw(self, rng: random.Random) -> float:
        """One duration, from ``rng`` when exponential (no draw when fixed or zero)."""
        if self.kind == "fixed" or self.mean_s == 0:
            return self.mean_s
        return rng.expovariate(1.0 / self.mean_s)

    @property
    def random(self) -> bool:
        """Whether draws vary."""
        return self.kind == "exponential" and self.mean_s > 0

    def to_json(self) -> float | dict[str, object]:
        """A number when fixed, else ``{"mean_s": ..., "dist": "exponential"}``."""
        if self.kind == "fixed":
            return self.mean_s
        return {"mean_s": self.mean_s, "dist": self.kind}

    @classmethod
    def from_json(cls, value: object) -> Duration:
        """From a number (fixed) or a ``{"mean_s", "dist"}`` object, of at most
        :data:`~toolkit.units.MAX_TIME_S`.

        Raises
        ------
        ValueError
            For any other shape.
        """
        if isinstance(value, bool):
            raise ValueError(f"a duration is a number or {{mean_s, dist}}, got {shown(value)}")
        if isinstance(value, int | float):
            return cls(_bounded(value))
        if isinstance(value, Mapping) and set(value) <= set(DURATION_KEYS) and "mean_s" in value:
            mean = value["mean_s"]
            if isinstance(mean, bool) or not isinstance(mean, int | float):
                raise ValueError(f"mean_s must be a number, got {shown(mean)}")
            return cls(_bounded(mean), value.get("dist", "fixed"))
        raise ValueError(f"a duration is a number or {{mean_s, dist}}, got {shown(value)}")


def _bounded(seconds: float) -> float:
    """A time read from a file: at most :data:`~toolkit.units.MAX_TIME_S`."""
    if seconds > MAX_TIME_S:
        raise ValueError(f"a duration must be <= {MAX_TIME_S:g} s, got {shown(seconds)}")
    return float(seconds)


@frozen
class DriveModel:
    """A drive technology: rates, times and the tape it uses.

    Attributes
    ----------
    name
        Key in :data:`DRIVE_MODELS` (or the scenario's own name).
    rate_mb_s
        Native streaming rate (tape MB per second; compression makes the
        host rate higher).
    load_s
        Thread and reach the beginning of tape after the arm delivered it.
    unload_s
        Rewind and eject before an arm can take the cartridge.
    locate_mb_s
        High-speed locate rate: moving the head ``x`` MB takes ``x / locate_mb_s``
        (unless ``locate`` is given).
    capacity_mb
        Native capacity of its tapes.
    block_s
        Cost of each block of a fragmented extent (RAIT's rows), in seconds of
        streaming time; see :mod:`simulator.storage.policies.rait`.
    transfer
        How a transfer's time is drawn: ``fixed`` (``x / rate_mb_s``) or
        ``exponential`` with that mean (Golubchik et al.'s Section 5), one
        draw per phase for the drives streaming it in lockstep.
    source
        Where the figures come from.
    locate
        A serpentine locate model (``{"model": "cta-lto", "format": "LTO-7"}``
        in a scenario file), timing every locate on the platform's tapes
        (:meth:`locate_s`); ``None``, the default: linear at ``locate_mb_s``.
    """

    name: str
    rate_mb_s: float
    load_s: Duration
    unload_s: Duration
    locate_mb_s: float
    capacity_mb: float
    block_s: float = 0.0
    source: str = ""
    transfer: Literal["fixed", "exponential"] = "fixed"
    locate: Locate | None = None

    def locate_s(self, from_mb: float, to_mb: float, capacity_mb: float) -> float:
        """Seconds to move the head from offset ``from_mb`` to ``to_mb`` on a tape of
        ``capacity_mb``: :func:`toolkit.model.locate_time_s`, the time
        :meth:`toolkit.model.Drive.locate_s` gives a drive of an instance."""
        return locate_time_s(self.locate_mb_s, self.locate, from_mb, to_mb, capacity_mb)

    def __attrs_post_init__(self) -> None:
        for name in ("rate_mb_s", "locate_mb_s", "capacity_mb"):
            if not getattr(self, name) > 0:
                raise ValueError(f"drive model {self.name!r}: {name} must be > 0")
        if not self.block_s >= 0:
            raise ValueError(f"drive model {self.name!r}: block_s must be >= 0")
        if self.transfer not in DISTRIBUTIONS:
            raise ValueError(
                f"drive model {self.name!r}: transfer is fixed or exponential, "
                f"got {self.transfer!r}"
            )


def drive_model(tech: DriveTechnology) -> DriveModel:
    """The drive model of a row of the technology table, its times fixed."""
    return DriveModel(
        name=tech.name,
        rate_mb_s=tech.rate_mb_s,
        load_s=Duration(tech.load_s),
        unload_s=Duration(tech.unload_s),
        locate_mb_s=tech.locate_mb_s,
        capacity_mb=tech.capacity_mb,
        source=tech.source,
    )


DRIVE_MODELS: dict[str, DriveModel] = {name: drive_model(t) for name, t in DRIVES.items()}
"""The named drive models: every drive of :data:`toolkit.hardware.technology.DRIVES`, times
fixed."""
