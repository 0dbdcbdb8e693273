"""Drive technologies and the random times of a platform.

Every time of the platform (a drive's load and unload, an arm's mount and
dismount, the per-block cost) is a :class:`Duration`: a mean and a
distribution, ``fixed`` or ``exponential``, chosen per parameter in the
scenario file. Rates (streaming, locate) are fixed: the time to move ``x``
MB is ``x / rate``, as in the core problem.

Defaults of the named technologies (:data:`DRIVE_MODELS`), with their
sources. Native (uncompressed) rates and capacities are the vendors'
published figures; load, unload and locate figures are rounded from the
vendors' data sheets (load to ready, rewind and unload from mid-tape, average
access over half a tape) and should be read as estimates of the right order,
to be overridden in a scenario file where a site knows better.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Literal

from attrs import frozen

from toolkit.generators import TECHNOLOGIES as GOLUBCHIK
from toolkit.units import MAX_TIME_S

DISTRIBUTIONS = ("fixed", "exponential")


@frozen
class Duration:
    """A time in seconds: ``mean_s``, drawn ``fixed`` (always the mean) or ``exponential``."""

    mean_s: float
    kind: Literal["fixed", "exponential"] = "fixed"

    def __attrs_post_init__(self) -> None:
        if not self.mean_s >= 0:
            raise ValueError(f"a duration must be >= 0 s, got {self.mean_s!r}")
        if self.kind not in DISTRIBUTIONS:
            raise ValueError(f"a duration is fixed or exponential, got {self.kind!r}")

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
            raise ValueError(f"a duration is a number or {{mean_s, dist}}, got {value!r}")
        if isinstance(value, int | float):
            return cls(_bounded(value))
        if isinstance(value, Mapping) and set(value) <= {"mean_s", "dist"} and "mean_s" in value:
            mean = value["mean_s"]
            if isinstance(mean, bool) or not isinstance(mean, int | float):
                raise ValueError(f"mean_s must be a number, got {mean!r}")
            return cls(_bounded(mean), value.get("dist", "fixed"))
        raise ValueError(f"a duration is a number or {{mean_s, dist}}, got {value!r}")


def _bounded(seconds: float) -> float:
    """A time read from a file: at most :data:`~toolkit.units.MAX_TIME_S`."""
    if seconds > MAX_TIME_S:
        raise ValueError(f"a duration must be <= {MAX_TIME_S:g} s, got {seconds!r}")
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
        High-speed locate rate: moving the head ``x`` MB takes ``x / locate_mb_s``.
    capacity_mb
        Native capacity of its tapes.
    block_s
        Cost of each block of a fragmented extent (RAIT's rows), in seconds of
        streaming time; see :mod:`simulator.rait`.
    source
        Where the figures come from.
    """

    name: str
    rate_mb_s: float
    load_s: Duration
    unload_s: Duration
    locate_mb_s: float
    capacity_mb: float
    block_s: float = 0.0
    source: str = ""

    def __attrs_post_init__(self) -> None:
        for name in ("rate_mb_s", "locate_mb_s", "capacity_mb"):
            if not getattr(self, name) > 0:
                raise ValueError(f"drive model {self.name!r}: {name} must be > 0")
        if not self.block_s >= 0:
            raise ValueError(f"drive model {self.name!r}: block_s must be >= 0")


def _golubchik(name: str) -> DriveModel:
    tech = GOLUBCHIK[name]
    return DriveModel(
        name=name,
        rate_mb_s=tech.rate_mb_s,
        load_s=Duration(tech.load_s),
        unload_s=Duration(tech.unload_s),
        locate_mb_s=tech.locate_mb_s,
        capacity_mb=tech.capacity_mb,
        source=tech.source,
    )


DRIVE_MODELS: dict[str, DriveModel] = {
    "LTO-7": DriveModel(
        name="LTO-7",
        rate_mb_s=300.0,
        load_s=Duration(15.0),
        unload_s=Duration(20.0),
        locate_mb_s=3_000_000.0 / 60,
        capacity_mb=6_000_000.0,
        source=(
            "LTO Consortium LTO-7 specification (2015): 6 TB native, 300 MB/s native. "
            "Load 15 s, unload 20 s and a locate of half a tape in about a minute are "
            "estimates rounded from IBM and HPE LTO-7 full-height drive data sheets."
        ),
    ),
    "T10000D": DriveModel(
        name="T10000D",
        rate_mb_s=252.0,
        load_s=Duration(13.0),
        unload_s=Duration(23.0),
        locate_mb_s=4_250_000.0 / 50,
        capacity_mb=8_500_000.0,
        source=(
            "Oracle StorageTek T10000D data sheet (2013): 8.5 TB native, 252 MB/s native, "
            "load to ready about 13 s, unload about 23 s, average access (half a tape) "
            "about 50 s (rounded)."
        ),
    ),
    "TS1160": DriveModel(
        name="TS1160",
        rate_mb_s=400.0,
        load_s=Duration(13.0),
        unload_s=Duration(23.0),
        locate_mb_s=10_000_000.0 / 60,
        capacity_mb=20_000_000.0,
        source=(
            "IBM TS1160 announcement (2018): 20 TB native on JE media, 400 MB/s native. "
            "Load, unload and half-tape access (about 60 s) are estimates rounded from "
            "IBM TS1150/TS1160 data sheets."
        ),
    ),
    "ampex": _golubchik("ampex"),
    "exabyte": _golubchik("exabyte"),
}
"""Named drive technologies (the issue's list, and the two of Golubchik et al. 1994)."""
