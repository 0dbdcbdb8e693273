"""The one table of tape drive and library technologies, each figure with its source.

Everything that needs the figures of a named technology reads them here: the
Golubchik generator (:func:`toolkit.golubchik_instances.golubchik_instance`), the
simulator's drive models (:data:`simulator.platform.technology.DRIVE_MODELS`, hence a
scenario's drive ``model`` names) and the SL8500 timings of the trace replay
(:class:`simulator.replay.sl8500.SL8500Timings`).

- :data:`DRIVES`: a drive and its tape (native rate and capacity, load,
  unload, locate), keyed by the name a scenario gives as a drive ``model``.
- :data:`LIBRARIES`: a robot library and its default drive (arm times, its
  standard arms where the vendor says, for the two libraries of Golubchik et
  al. their whole layout, for the SL8500 its elevators and pass-through
  ports). A modern library holds several drive types: its ``drive`` is the
  one a study takes when it names the library alone (the TS4500's LTO-9), not
  the only one it may hold.

Every figure names its source in ``sources``: a vendor's documentation, a
paper, or ``estimate`` where no published figure was found or the figure
could not be checked (then read it as the right order of magnitude, to be
overridden in a scenario where a site knows better). The numbers the tests
and the shipped instances were built on are kept as they were; where a
published figure differs, the source says so.

Locate speeds follow one convention: a drive locates over half its tape in
``half_tape_locate_s`` (the paper's half-tape search, or a vendor's average
locate or access from the beginning of the tape), so ``locate_mb_s`` is
``capacity_mb / 2 / half_tape_locate_s``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

from attrs import field, frozen

F = TypeVar("F", int, float)

MB_PER_GB = 1000.0
"""Megabytes in a gigabyte (powers of ten, as the core problem's units)."""

DRIVE_FIGURES = ("rate_mb_s", "capacity_mb", "load_s", "unload_s", "half_tape_locate_s")
"""The figures of a :class:`DriveTechnology`, each of which needs a source."""

LIBRARY_FIGURES = (
    "mount_s",
    "dismount_s",
    "drives",
    "arms",
    "tapes",
    "elevator_s",
    "pass_through_s",
    "rails_per_library",
)
"""The figures a :class:`LibraryTechnology` may give, each of which needs a source."""


def _sourced(figures: Mapping[str, object], sources: Mapping[str, str], what: str) -> None:
    """Raise unless every figure given has a non-empty source and every source a figure."""
    given = {name for name, value in figures.items() if value is not None}
    missing = sorted(name for name in given if not sources.get(name, "").strip())
    extra = sorted(set(sources) - given)
    if missing or extra:
        raise ValueError(
            f"{what}: figures without a source {missing}, sources of no figure {extra}"
        )


@frozen
class DriveTechnology:
    """A tape drive and its tape: the figures a schedule or a simulation needs.

    Attributes
    ----------
    name
        Key in :data:`DRIVES` (a scenario's drive ``model``).
    label
        The product it describes.
    rate_mb_s
        Native (uncompressed) streaming rate, MB per second.
    capacity_mb
        Native capacity of its tapes.
    load_s
        Thread the tape and reach the beginning of tape once an arm has
        delivered the cartridge.
    unload_s
        Rewind and eject before an arm can take the cartridge.
    half_tape_locate_s
        Locate over half the tape (see :attr:`locate_mb_s`).
    sources
        Figure name (one of :data:`DRIVE_FIGURES`) to where it comes from.
    """

    name: str
    label: str
    rate_mb_s: float
    capacity_mb: float
    load_s: float
    unload_s: float
    half_tape_locate_s: float
    sources: Mapping[str, str] = field(repr=False)

    def __attrs_post_init__(self) -> None:
        figures = {name: getattr(self, name) for name in DRIVE_FIGURES}
        _sourced(figures, self.sources, f"drive {self.name!r}")

    @property
    def locate_mb_s(self) -> float:
        """Locate speed: half the tape in :attr:`half_tape_locate_s`."""
        return self.capacity_mb / 2 / self.half_tape_locate_s

    def switch_s(self, mount_s: float, dismount_s: float) -> float:
        """Seconds of a tape switch (exchange) on this drive, by an arm that mounts in
        ``mount_s`` and dismounts in ``dismount_s``: unload, dismount, mount, load,
        added in that order, as :meth:`toolkit.model.Drive.switch_s` adds them."""
        return self.unload_s + dismount_s + mount_s + self.load_s

    @property
    def source(self) -> str:
        """Every figure's source, as one text (``figure: source; ...``)."""
        return "; ".join(f"{name}: {self.sources[name]}" for name in DRIVE_FIGURES)


@frozen
class LibraryTechnology:
    """A robot library and its default drive.

    Attributes
    ----------
    name
        Key in :data:`LIBRARIES`.
    label
        The system it describes.
    drive
        Its default drive technology: the one it held where a paper fixes
        it (Golubchik's, the ECMWF SL8500's), else the current drive a site
        would most likely put in it; a library may hold others.
    mount_s, dismount_s
        Arm (robot, accessor, handbot) time to carry a cartridge from its
        slot into a drive, and back.
    drives, arms, tapes
        The library's layout, where a paper fixes it, or for ``arms`` the
        vendor's standard count (``None``: a site's own, as in a layout file).
    elevator_s
        One elevator ride between two rails of a library (SL8500).
    pass_through_s
        One pass-through port between adjacent libraries of a complex.
    rails_per_library
        Rails (levels) of one library, each with its own arm.
    sources
        Figure name (one of :data:`LIBRARY_FIGURES` given) to where it comes from.
    """

    name: str
    label: str
    drive: DriveTechnology
    mount_s: float
    dismount_s: float
    sources: Mapping[str, str] = field(repr=False)
    drives: int | None = None
    arms: int | None = None
    tapes: int | None = None
    elevator_s: float | None = None
    pass_through_s: float | None = None
    rails_per_library: int | None = None

    def __attrs_post_init__(self) -> None:
        figures = {name: getattr(self, name) for name in LIBRARY_FIGURES}
        _sourced(figures, self.sources, f"library {self.name!r}")

    @property
    def source(self) -> str:
        """Every figure's source, its drive's included, as one text."""
        own = "; ".join(f"{name}: {text}" for name, text in self.sources.items())
        return f"{own}; drive {self.drive.name}: {self.drive.source}"


def required(value: F | None, what: str) -> F:
    """``value``, a figure the table must give (for a default read from it)."""
    if value is None:
        raise ValueError(f"the technology table gives no {what}")
    return value


def is_estimate(source: str) -> bool:
    """Whether a figure's source says it is an estimate (it starts with ``estimate``)."""
    return source.startswith("estimate")


# Sources cited by several figures.
_GOLUBCHIK = (
    "Golubchik, Muntz & Watson 1994, 'Analysis of striping techniques in robotic "
    "storage libraries', Section 3 tables"
)
_GOLUBCHIK_SIM = "Golubchik, Muntz & Watson 1994, Section 5 simulation table"
_IBM_LTO = (
    "IBM TS4500 documentation, 'Performance specifications for LTO tape drives' (full-height drive)"
)
_ORACLE_T10000 = "Oracle StorageTek T10000 tape drive guide, chapter 1"
_T10000_SHEET = (
    "estimate: the figure quoted from Oracle's T10000C/D data sheet, not checked against "
    "it (IBM gives 12-17 s load, 17-30 s unload for LTO-5 to LTO-9)"
)

_LTO_7 = DriveTechnology(
    name="LTO-7",
    label="LTO-7 full-height drive, LTO-7 media",
    rate_mb_s=300.0,
    capacity_mb=6_000_000.0,
    load_s=15.0,
    unload_s=20.0,
    half_tape_locate_s=60.0,
    sources={
        "rate_mb_s": _IBM_LTO,
        "capacity_mb": _IBM_LTO,
        "load_s": _IBM_LTO,
        "unload_s": _IBM_LTO,
        "half_tape_locate_s": (
            "estimate: 60 s, near the IBM TS2290 half-height drive's average locate (56 s)"
        ),
    },
)
_IBM_LTO_DOCS = "IBM documentation 2.12.3, 'Performance specifications for LTO tape drives'"
_LTO_8 = DriveTechnology(
    name="LTO-8",
    label="LTO-8 full-height drive, LTO-8 media",
    rate_mb_s=360.0,
    capacity_mb=12_000_000.0,
    load_s=15.0,
    unload_s=24.0,
    half_tape_locate_s=59.0,
    sources={
        "rate_mb_s": _IBM_LTO,
        "capacity_mb": _IBM_LTO,
        "load_s": _IBM_LTO,
        "unload_s": _IBM_LTO,
        "half_tape_locate_s": (
            "estimate: the IBM TS2290 half-height drive's average locate (59 s); no "
            "full-height figure found"
        ),
    },
)
_LTO_9 = DriveTechnology(
    name="LTO-9",
    label="LTO-9 full-height drive, LTO-9 media",
    rate_mb_s=400.0,
    capacity_mb=18_000_000.0,
    load_s=17.0,
    unload_s=30.0,
    half_tape_locate_s=45.0,
    sources={
        "rate_mb_s": _IBM_LTO,
        "capacity_mb": _IBM_LTO,
        "load_s": (
            f"{_IBM_LTO}: 17 s for an initialized tape (a new cartridge's first load, its "
            "media optimization, takes 40-120 min)"
        ),
        "unload_s": _IBM_LTO,
        "half_tape_locate_s": f"{_IBM_LTO_DOCS}: average space record time from load point",
    },
)
_LTO_10 = DriveTechnology(
    name="LTO-10",
    label="LTO-10 full-height drive, LTO-10 (LA) media",
    rate_mb_s=400.0,
    capacity_mb=30_000_000.0,
    load_s=12.0,
    unload_s=27.0,
    half_tape_locate_s=65.0,
    sources={
        "rate_mb_s": f"{_IBM_LTO_DOCS}: 400 MB/s native (LA and PA media)",
        "capacity_mb": (
            "IBM's LTO-10 announcement (2025), as reported by Blocks & Files (30 May 2025) and "
            "Spectra Logic: 30 TB native on LA media (the LTO roadmap's 36 TB was not kept; "
            "40 TB premium PA media came later)"
        ),
        "load_s": f"{_IBM_LTO_DOCS}: nominal load-to-ready 12 s (LA, PA)",
        "unload_s": f"{_IBM_LTO_DOCS}: nominal unload 27 s (LA, PA)",
        "half_tape_locate_s": (
            f"{_IBM_LTO_DOCS}: average space record time from load point, 65 s on LA media"
        ),
    },
)
_T10000D = DriveTechnology(
    name="T10000D",
    label="Oracle StorageTek T10000D",
    rate_mb_s=252.0,
    capacity_mb=8_500_000.0,
    load_s=13.0,
    unload_s=23.0,
    half_tape_locate_s=50.0,
    sources={
        "rate_mb_s": (
            f"252 MB/s as quoted from Oracle's T10000D data sheet (2013); {_ORACLE_T10000}: "
            "about 250 MB/s"
        ),
        "capacity_mb": _ORACLE_T10000,
        "load_s": _T10000_SHEET,
        "unload_s": _T10000_SHEET,
        "half_tape_locate_s": "estimate: average access over half a tape, rounded",
    },
)
_TS1160 = DriveTechnology(
    name="TS1160",
    label="IBM TS1160, JE media",
    rate_mb_s=400.0,
    capacity_mb=20_000_000.0,
    load_s=13.0,
    unload_s=23.0,
    half_tape_locate_s=60.0,
    sources={
        "rate_mb_s": "IBM TS4500 documentation, 'Supported tape drives'",
        "capacity_mb": "IBM TS4500 documentation, 'Supported tape drives' (JE media)",
        "load_s": "estimate: no published figure found (the T10000's)",
        "unload_s": "estimate: no published figure found (the T10000's)",
        "half_tape_locate_s": "estimate: no published figure found",
    },
)
_TS1170 = DriveTechnology(
    name="TS1170",
    label="IBM TS1170, JF media",
    rate_mb_s=400.0,
    capacity_mb=50_000_000.0,
    load_s=13.0,
    unload_s=23.0,
    half_tape_locate_s=60.0,
    sources={
        "rate_mb_s": "IBM's TS1170 announcement as reported by the press (heise, August 2023)",
        "capacity_mb": (
            "IBM's TS1170 announcement as reported by the press (heise, August 2023): 50 TB "
            "native on JF media"
        ),
        "load_s": "estimate: no published figure found (the TS1160's, itself the T10000's)",
        "unload_s": "estimate: no published figure found (the TS1160's, itself the T10000's)",
        "half_tape_locate_s": "estimate: no published figure found (the TS1160's)",
    },
)
_AMPEX = DriveTechnology(
    name="ampex",
    label="Ampex DST800 drive, D2 tapes",
    rate_mb_s=0.75 * MB_PER_GB / 60,
    capacity_mb=25 * MB_PER_GB,
    load_s=5.0,
    unload_s=13.0 + 4.0,
    half_tape_locate_s=25.0,
    sources={
        "rate_mb_s": (
            f"{_GOLUBCHIK_SIM}: 0.75 GB/min, so T = 80 s for 1 GB (the device table's "
            "14.5 MB/s is not used)"
        ),
        "capacity_mb": f"{_GOLUBCHIK}: 25 GB",
        "load_s": f"{_GOLUBCHIK}: drive load 5 s",
        "unload_s": (
            f"{_GOLUBCHIK}: rewind of half a tape 12-13 s (13 taken) and eject 4 s, the paper "
            "rewinding half a tape per request; the simulation table's means (1/1.82 min "
            "for load and search, 1/4.29 min for rewind and eject) differ slightly"
        ),
        "half_tape_locate_s": f"{_GOLUBCHIK}: search of half a tape 20-30 s (25 taken)",
    },
)
_EXABYTE = DriveTechnology(
    name="exabyte",
    label="Exabyte 8 mm drive",
    rate_mb_s=0.47,
    capacity_mb=5 * MB_PER_GB,
    load_s=35.4,
    unload_s=75.0 + 16.5,
    half_tape_locate_s=84.0,
    sources={
        "rate_mb_s": f"{_GOLUBCHIK} (after their reference [9]): 0.47 MB/s",
        "capacity_mb": f"{_GOLUBCHIK}: 5 GB",
        "load_s": f"{_GOLUBCHIK}: drive load 35.4 s",
        "unload_s": f"{_GOLUBCHIK}: rewind of half a tape 75 s and eject 16.5 s",
        "half_tape_locate_s": f"{_GOLUBCHIK}: search of half a tape 84 s",
    },
)

_IBM_3590 = DriveTechnology(
    name="3590",
    label="IBM 3590 Magstar (B models), 10 GB cartridge",
    rate_mb_s=9.0,
    capacity_mb=10 * MB_PER_GB,
    load_s=20.0,
    unload_s=20.0,
    half_tape_locate_s=30.0,
    sources={
        "rate_mb_s": "IBM 3590 Magstar announcement (1995): 9 MB/s native, not checked here",
        "capacity_mb": (
            "Moore et al. 1998, SDSC HPSS tuning: '10-gigabyte tapes' (the paper names no "
            "drive; the 3590's B-model cartridge held 10 GB)"
        ),
        "load_s": "estimate: no published figure checked (a 1990s half-inch cartridge drive)",
        "unload_s": "estimate: no published figure checked (rewind and eject, rounded)",
        "half_tape_locate_s": "estimate: no published figure checked",
    },
)

DRIVES: dict[str, DriveTechnology] = {
    d.name: d
    for d in (
        _LTO_7,
        _LTO_8,
        _LTO_9,
        _LTO_10,
        _T10000D,
        _TS1160,
        _TS1170,
        _AMPEX,
        _EXABYTE,
        _IBM_3590,
    )
}
"""The drive technologies, keyed by name: the names a scenario's drive ``model`` takes."""


def _golubchik_library(
    drive: DriveTechnology, label: str, *, robot_s: float, robot_source: str, tapes: int
) -> LibraryTechnology:
    """A library of the paper's Section 3 table: 4 drives, 1 arm, its robot time each way."""
    return LibraryTechnology(
        name=drive.name,
        label=label,
        drive=drive,
        mount_s=robot_s,
        dismount_s=robot_s,
        drives=4,
        arms=1,
        tapes=tapes,
        sources={
            "mount_s": f"{_GOLUBCHIK}: robot load or unload {robot_source}",
            "dismount_s": "as mount_s: the robot's time is the same each way",
            "drives": f"{_GOLUBCHIK}: 4 drives (K = 4 in Section 5's simulation)",
            "arms": f"{_GOLUBCHIK}: 1 arm",
            "tapes": f"{_GOLUBCHIK}: {tapes} tapes",
        },
    )


def _vendor_library(
    name: str,
    label: str,
    drive: DriveTechnology,
    *,
    move_s: float,
    move_source: str,
    arms_source: str,
) -> LibraryTechnology:
    """A current library of one arm as standard, whose arm mounts and dismounts a cartridge
    in one move time each way; ``drive`` is its default drive (it may hold others)."""
    again = "as mount_s: one move of a cartridge each way"
    return LibraryTechnology(
        name=name,
        label=label,
        drive=drive,
        mount_s=move_s,
        dismount_s=move_s,
        arms=1,
        sources={
            "mount_s": move_source,
            "dismount_s": f"estimate: {again}" if is_estimate(move_source) else again,
            "arms": arms_source,
        },
    )


LIBRARIES: dict[str, LibraryTechnology] = {
    "ampex": _golubchik_library(
        _AMPEX,
        "Ampex DST800 library (D2 tapes)",
        robot_s=10.0,
        robot_source=(
            "under 10 s (10 taken, so that L = 20 s as in Section 3's example "
            "C + L + T = 47 + 20 + 80 = 147 s, with C = 25 + 13 + 4 + 5)"
        ),
        tapes=256,
    ),
    "exabyte": _golubchik_library(
        _EXABYTE,
        "Exabyte120 library (8 mm tapes)",
        robot_s=22.0,
        robot_source="22 s",
        tapes=116,
    ),
    "SL8500": LibraryTechnology(
        name="SL8500",
        label="Oracle StorageTek SL8500 complex with T10000C/D drives (ECMWF)",
        drive=_T10000D,
        mount_s=11.0,
        dismount_s=11.0,
        elevator_s=20.0,
        pass_through_s=30.0,
        rails_per_library=4,
        sources={
            "mount_s": (
                "Oracle's SL8500 handbot average below 11 s a move for its centerline drive "
                "bays, as quoted by the TapeSim simulator's documentation (J. Luettgau, "
                "2015); the ACSLS Administrator's Guide, appendix L 'Library Performance', "
                "gives about 10-15 s in a library of about 3,000 cells"
            ),
            "dismount_s": "as mount_s: one handbot move of a cartridge",
            "elevator_s": (
                "estimate: no published figure found; the elevator travels at most four "
                "rails' height, about a handbot's travel along a rail"
            ),
            "pass_through_s": (
                "estimate: no published figure found; the port's own move and the extra "
                "hand-off it needs"
            ),
            "rails_per_library": (
                "SL8500 user's guide: four rails a library; ACSLS numbers each rail as an "
                "LSM, four a library"
            ),
        },
    ),
    "TS4500": _vendor_library(
        "TS4500",
        "IBM TS4500 tape library",
        _LTO_9,
        move_s=3.0,
        move_source="IBM TS4500 Redbook: 'typical cartridge move times of less than 3 s' (3 taken)",
        arms_source="IBM TS4500 Redbook: one accessor, a second (dual accessors) optional",
    ),
    "TS4300": _vendor_library(
        "TS4300",
        "IBM TS4300 tape library (stacked 3U modules)",
        _LTO_9,
        move_s=6.0,
        move_source=(
            "estimate: no published figure found; a short travel in a stack of 3U modules, "
            "between the TS4500's 3 s and the SL8500's 11 s"
        ),
        arms_source=(
            "estimate: one robot serving the whole stack, not checked against IBM's documentation"
        ),
    ),
    "SL3000": _vendor_library(
        "SL3000",
        "Oracle StorageTek SL3000 modular library",
        _T10000D,
        move_s=11.0,
        move_source=(
            "estimate: no published figure found; the SL8500 handbot's 11 s, a library of "
            "similar reach"
        ),
        arms_source=(
            "Oracle SL3000 systems assurance guide: one robot, a second with the redundant "
            "robotics feature (two parking expansion modules)"
        ),
    ),
    "TFinity": _vendor_library(
        "TFinity",
        "Spectra Logic TFinity (ExaScale) library",
        _LTO_9,
        move_s=15.0,
        move_source=(
            "estimate: no published figure found; the robot carries a TeraPack magazine to "
            "the drive before it picks the cartridge, longer than a plain move"
        ),
        arms_source=(
            "estimate: one robot, a second optional (redundant robotics), not checked against "
            "Spectra Logic's documentation"
        ),
    ),
    "Scalar-i6000": _vendor_library(
        "Scalar-i6000",
        "Quantum Scalar i6000 library",
        _LTO_9,
        move_s=8.0,
        move_source=(
            "estimate: no published figure found; a single-aisle library of some metres, "
            "below the SL8500's 11 s"
        ),
        arms_source=(
            "estimate: one robot, a redundant one optional, not checked against Quantum's "
            "documentation"
        ),
    ),
}
"""The library technologies, keyed by name, each with its default drive: the ECMWF SL8500's
T10000D, Golubchik's drives, and for the current libraries the drive a site would most
likely put in them (a library may hold several drive types)."""

GOLUBCHIK_LIBRARIES: tuple[str, ...] = ("ampex", "exabyte")
"""The libraries of Golubchik et al. (1994), whose whole layout the paper fixes."""


TAPE_FORMAT_FIGURES = (
    "wraps",
    "min_lpos",
    "max_lpos",
    "block_bytes",
    "capacity_mb",
    "rate_mb_s",
    "average_locate_s",
)
"""The figures of a :class:`TapeFormat`, each of which needs a source."""

BANDS = 4
"""Data bands of a serpentine (LTO or 3592) tape: its wraps are split evenly among them."""


@frozen
class TapeFormat:
    """A serpentine tape as written by one drive generation: the figures of its geometry.

    A serpentine tape is written in ``wraps``: wrap 0 runs from the
    beginning of the tape (longitudinal position ``min_lpos``) to its end
    (``max_lpos``), wrap 1 back, and so on; the wraps are split evenly
    among :data:`BANDS` data bands, and moving the head to another band
    costs more than to another wrap of the same band. The geometry built on
    these figures (block id to wrap and position, locate times) is
    :mod:`toolkit.hardware.tape_geometry`.

    Attributes
    ----------
    name
        Key in :data:`TAPE_FORMATS` (the ``technology`` of a recall file).
    label
        The drive and media it describes.
    wraps
        Wraps of a tape (tracks divided by the tracks the head reads at once).
    min_lpos, max_lpos
        First and last longitudinal position (LPOS) of a wrap, in the
        drive's LPOS units.
    block_bytes
        Size of one tape block, the unit of block ids.
    capacity_mb
        Native capacity of a tape.
    rate_mb_s
        Native streaming rate.
    average_locate_s
        Average locate from the beginning of the tape (the vendor's average
        locate or access time).
    sources
        Figure name (one of :data:`TAPE_FORMAT_FIGURES`) to where it comes from.
    """

    name: str
    label: str
    wraps: int
    min_lpos: int
    max_lpos: int
    block_bytes: int
    capacity_mb: float
    rate_mb_s: float
    average_locate_s: float
    sources: Mapping[str, str] = field(repr=False)

    def __attrs_post_init__(self) -> None:
        figures = {name: getattr(self, name) for name in TAPE_FORMAT_FIGURES}
        _sourced(figures, self.sources, f"tape format {self.name!r}")
        if self.wraps < BANDS or self.wraps % BANDS:
            raise ValueError(f"tape format {self.name!r}: {self.wraps} wraps, not {BANDS} bands")
        if not 0 <= self.min_lpos < self.max_lpos:
            raise ValueError(f"tape format {self.name!r}: min_lpos must be below max_lpos")


_CTA_RAO = "CERN CTA, taped/rao/RAOTest.cpp (media type LTO7M)"
_CTA_BLOCK = (
    "CERN CTA, taped/rao/InterpolationFilePositionEstimator.hpp: 256 KiB blocks (c_blockSize)"
)
_LTO_LPOS_ESTIMATE = (
    "estimate: no published figure found; LTO-7's LPOS range (CTA's LTO7M media type), "
    "the tape being as long (960 m)"
)
_LTO_LOCATE = "IBM TS2290 half-height drive table, average locate"

TAPE_FORMATS: dict[str, TapeFormat] = {
    f.name: f
    for f in (
        TapeFormat(
            name="LTO-7",
            label="LTO-7 drive, LTO-7 media",
            wraps=112,
            min_lpos=2696,
            max_lpos=171097,
            block_bytes=262144,
            capacity_mb=_LTO_7.capacity_mb,
            rate_mb_s=_LTO_7.rate_mb_s,
            average_locate_s=56.0,
            sources={
                "wraps": _CTA_RAO,
                "min_lpos": _CTA_RAO,
                "max_lpos": _CTA_RAO,
                "block_bytes": _CTA_BLOCK,
                "capacity_mb": _IBM_LTO,
                "rate_mb_s": _IBM_LTO,
                "average_locate_s": _LTO_LOCATE,
            },
        ),
        TapeFormat(
            name="LTO-8",
            label="LTO-8 drive, LTO-8 media",
            wraps=208,
            min_lpos=2696,
            max_lpos=171097,
            block_bytes=262144,
            capacity_mb=_LTO_8.capacity_mb,
            rate_mb_s=_LTO_8.rate_mb_s,
            average_locate_s=59.0,
            sources={
                "wraps": "LTO-8's 6,656 data tracks read 32 at a time",
                "min_lpos": _LTO_LPOS_ESTIMATE,
                "max_lpos": _LTO_LPOS_ESTIMATE,
                "block_bytes": _CTA_BLOCK,
                "capacity_mb": _IBM_LTO,
                "rate_mb_s": _IBM_LTO,
                "average_locate_s": _LTO_LOCATE,
            },
        ),
        TapeFormat(
            name="LTO-9",
            label="LTO-9 drive, LTO-9 media",
            wraps=280,
            min_lpos=2696,
            max_lpos=184253,
            block_bytes=262144,
            capacity_mb=_LTO_9.capacity_mb,
            rate_mb_s=_LTO_9.rate_mb_s,
            average_locate_s=_LTO_9.half_tape_locate_s,
            sources={
                "wraps": "LTO-9's 8,960 data tracks read 32 at a time",
                "min_lpos": _LTO_LPOS_ESTIMATE,
                "max_lpos": (
                    "estimate: no published figure found; LTO-7's LPOS range stretched by "
                    "the longer tape (1,035 m against 960 m)"
                ),
                "block_bytes": _CTA_BLOCK,
                "capacity_mb": _IBM_LTO,
                "rate_mb_s": _IBM_LTO,
                "average_locate_s": "IBM documentation 2.12.3, full-height LTO-9 drive",
            },
        ),
        TapeFormat(
            name="TS1150",
            label="IBM TS1150 (3592-E08) drive, JD media (an enterprise tape)",
            wraps=160,
            min_lpos=2696,
            max_lpos=171097,
            block_bytes=262144,
            capacity_mb=10_000_000.0,
            rate_mb_s=360.0,
            average_locate_s=60.0,
            sources={
                "wraps": (
                    "estimate: 5,120 data tracks on JD media as quoted for the TS1150 (not "
                    "checked against IBM's documentation), read 32 at a time as from the "
                    "TS1140 on (IBM TS3500 introduction and planning guide)"
                ),
                "min_lpos": "estimate: no published figure found; LTO-7's LPOS range",
                "max_lpos": "estimate: no published figure found; LTO-7's LPOS range",
                "block_bytes": "estimate: the 256 KiB blocks of CTA's LTO figures",
                "capacity_mb": (
                    "IBM Tape Library Guide for Open Systems (Redbook), chapter 3: 10 TB "
                    "native on JD media"
                ),
                "rate_mb_s": (
                    "IBM Tape Library Guide for Open Systems (Redbook), chapter 3: 360 MB/s native"
                ),
                "average_locate_s": (
                    "estimate: no published figure found; the LTO drives' 45-59 s"
                ),
            },
        ),
    )
}
"""The serpentine tape formats, keyed by name (a recall file's ``technology``)."""
