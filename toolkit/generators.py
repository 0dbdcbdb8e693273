"""Seeded random instances of the core problem.

:func:`random_instance` draws libraries, drives, tapes, tapes loaded at time 0
and a workload of plain and striped (gang) requests from the ranges of a
:class:`RandomParams`. (The library of Golubchik, Muntz & Watson, 1994, is the
other family: :mod:`tapesched.toolkit.golubchik_instances`.)

Every random choice goes through a :class:`Chooser`. The generators use
:class:`RandomChooser` over one ``random.Random(seed)``, so the same seed gives
the same instance; :mod:`toolkit.strategies` runs the very same building code
over Hypothesis' ``draw``, so that property tests explore, and shrink, the
instances that the generators produce.

Ids are ``L0, L1, ...`` for libraries, ``d0, ...`` for drives, ``T0, ...`` for
tapes and ``r0, ...`` for requests, numbered across libraries; requests come
in order of release. Every instance built here satisfies the rules of the
"Instance file" section of ``docs/core-problem.md``: every piece lies
within its tape, the pieces of a request are on distinct tapes of one library,
a gang is no wider than its library's drives, and an initial tape is in its
drive's library and in one drive only.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence
from typing import NamedTuple, Protocol, TypeVar

from attrs import frozen

from tapesched.toolkit.hardware.technology import (
    DRIVES,
    LIBRARIES,
    MB_PER_GB,
)
from tapesched.toolkit.model import (
    OBJECTIVES,
    Drive,
    InitialTape,
    Instance,
    Library,
    Piece,
    Request,
    Tape,
)
from tapesched.toolkit.units import MAX_COUNT, MAX_SIZE_MB, MAX_TIME_S

T = TypeVar("T")

WEIGHT_RULES: tuple[str, ...] = ("inverse-size-gb", "unit", "random")
"""How a request's weight is chosen.

``inverse-size-gb`` is ``1 / size in GB``, the weight of the Blue Waters
metric, under which the weighted flow is the average weighted response time
times the number of requests; ``unit`` is 1; ``random`` is log-uniform in
:attr:`RandomParams.weight_range`.
"""


class Chooser(Protocol):
    """The random choices that building an instance needs.

    Bounds are inclusive. Building code asks only these questions, so that one
    implementation can answer them from a seeded generator and another from
    Hypothesis, which then knows the structure of every choice and can shrink
    it.
    """

    def integer(self, lo: int, hi: int) -> int:
        """An integer in ``[lo, hi]``."""
        ...

    def real(self, lo: float, hi: float) -> float:
        """A number in ``[lo, hi]``, uniform."""
        ...

    def log_uniform(self, lo: float, hi: float) -> float:
        """A number in ``[lo, hi]`` (``lo > 0``) whose logarithm is uniform."""
        ...

    def choice(self, seq: Sequence[T]) -> T:
        """One element of a non-empty ``seq``."""
        ...

    def sample(self, seq: Sequence[T], k: int) -> list[T]:
        """``k`` distinct elements of ``seq``, in the order they were chosen."""
        ...

    def exponential(self, rate: float) -> float:
        """An exponential variate of mean ``1 / rate``."""
        ...

    def boolean(self, p: float) -> bool:
        """``True`` with probability ``p`` (always at 1, never at 0)."""
        ...


def _clamp(x: float, lo: float, hi: float) -> float:
    return min(max(x, lo), hi)


class RandomChooser:
    """A :class:`Chooser` over one ``random.Random``: same seed, same answers.

    Parameters
    ----------
    seed
        Seed of the private generator; the module-level generator is never used.
    """

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def integer(self, lo: int, hi: int) -> int:
        """An integer in ``[lo, hi]``, uniform."""
        return self._rng.randint(lo, hi)

    def real(self, lo: float, hi: float) -> float:
        """A number in ``[lo, hi]``, uniform."""
        return lo if lo == hi else _clamp(self._rng.uniform(lo, hi), lo, hi)

    def log_uniform(self, lo: float, hi: float) -> float:
        """A number in ``[lo, hi]`` whose logarithm is uniform."""
        if lo == hi:
            return lo
        return _clamp(math.exp(self._rng.uniform(math.log(lo), math.log(hi))), lo, hi)

    def choice(self, seq: Sequence[T]) -> T:
        """One element of ``seq``, uniform."""
        return self._rng.choice(seq)

    def sample(self, seq: Sequence[T], k: int) -> list[T]:
        """``k`` distinct elements of ``seq``, uniform."""
        return self._rng.sample(list(seq), k)

    def exponential(self, rate: float) -> float:
        """An exponential variate of mean ``1 / rate``."""
        return self._rng.expovariate(rate)

    def boolean(self, p: float) -> bool:
        """``True`` with probability ``p``."""
        return self._rng.random() < p


def arrival_problems(n_requests: int, rate_per_s: float | None) -> list[str]:
    """The Poisson releases of ``n_requests`` at ``rate_per_s`` expected past
    :data:`~toolkit.units.MAX_TIME_S` (none for no rate, or one out of its domain)."""
    if rate_per_s is None or not 0 < rate_per_s < math.inf or type(n_requests) is not int:
        return []
    span_s = n_requests / rate_per_s
    if span_s <= MAX_TIME_S:
        return []
    return [
        f"arrival_rate_per_s: {n_requests:,} requests at this rate arrive over about "
        f"{span_s:.3g} s, past the latest release time {MAX_TIME_S:g} s"
    ]


def _range_problems(
    name: str, value: tuple[float, float], lowest: float, strict: bool
) -> list[str]:
    lo, hi = value
    low_ok = lo > lowest if strict else lo >= lowest
    if not low_ok:
        return [f"{name}: lower bound must be {'>' if strict else '>='} {lowest}, got {lo!r}"]
    if hi < lo:
        return [f"{name}: upper bound {hi!r} is below lower bound {lo!r}"]
    if math.isinf(hi):
        return [f"{name}: bounds must be finite"]
    return []


@frozen
class RandomParams:
    """Ranges from which :func:`random_instance` draws an instance.

    A pair ``(lo, hi)`` is an inclusive range; a value is drawn uniformly from
    it unless said otherwise. Durations, rates and sizes are drawn once per
    library (arms), per drive (drive timings, or once per library with
    ``homogeneous_drives``) or per request. The defaults give a small
    LTO-class library: the ranges bracket the drive and library of the spec's
    example instance (6 TB tapes, 300 MB/s, 15 s load, 20 s unload,
    10000 MB/s locate, 10 s arm moves), and a request's size spans three
    orders of magnitude, 100 MB to 100 GB, a choice that keeps transfers
    between a fraction of a second and about ten minutes.

    Attributes
    ----------
    n_requests
        Number of requests.
    n_libraries
        Number of libraries; each request picks one uniformly.
    drives_per_library
        Range of the number of drives of each library.
    arms
        Range of the number of robot arms of each library.
    max_gang
        Most pieces (tapes, hence drives) of one request; a request's width is
        uniform in ``1 .. min(max_gang, drives, tapes of its library)``.
    tapes_per_library
        Number of tapes of each library.
    capacity_mb
        Capacity of every tape.
    size_mb
        Range of a request's total size, drawn log-uniformly (file sizes of
        archives spread over orders of magnitude); at most ``capacity_mb``.
    equal_pieces
        Split a gang's size evenly over its pieces (striping, as RAIT does);
        otherwise at random cut points, which may leave a piece empty.
    initial_fraction
        Share of drives holding a tape at time 0: each drive holds one with
        this probability, as long as its library has tapes left.
    release_horizon_s
        Releases are uniform over ``[0, release_horizon_s]`` when
        ``arrival_rate_per_s`` is ``None``; 0 makes every request available at
        time 0 (the offline problem).
    arrival_rate_per_s
        When set, releases are a Poisson process of this rate from time 0.
    weight
        Weight rule, one of :data:`WEIGHT_RULES`.
    weight_range
        Range of the ``random`` weight rule, drawn log-uniformly.
    write_fraction
        Probability that a request is a write (the kind is informational).
    mount_s, dismount_s
        Ranges of a library's arm times into and out of a drive.
    load_s, unload_s
        Ranges of a drive's thread and rewind-plus-eject times.
    rate_mb_s
        Range of a drive's streaming rate.
    locate_mb_s
        Range of a drive's locate speed.
    homogeneous_drives
        All drives of a library share one draw of their timings and rates.
    objective
        Objective named in the instance, one of ``toolkit.model.OBJECTIVES``.
    """

    n_requests: int = 20
    n_libraries: int = 1
    drives_per_library: tuple[int, int] = (2, 4)
    arms: tuple[int, int] = (1, 2)
    max_gang: int = 2
    tapes_per_library: int = 12
    capacity_mb: float = 6_000_000.0
    size_mb: tuple[float, float] = (100.0, 100_000.0)
    equal_pieces: bool = True
    initial_fraction: float = 0.5
    release_horizon_s: float = 3600.0
    arrival_rate_per_s: float | None = None
    weight: str = "inverse-size-gb"
    weight_range: tuple[float, float] = (0.1, 10.0)
    write_fraction: float = 0.0
    mount_s: tuple[float, float] = (5.0, 15.0)
    dismount_s: tuple[float, float] = (5.0, 15.0)
    load_s: tuple[float, float] = (10.0, 20.0)
    unload_s: tuple[float, float] = (15.0, 30.0)
    rate_mb_s: tuple[float, float] = (150.0, 400.0)
    locate_mb_s: tuple[float, float] = (5_000.0, 20_000.0)
    homogeneous_drives: bool = False
    objective: str = "weighted-flow"

    def __attrs_post_init__(self) -> None:
        problems = self.limit_problems() or self.problems()
        if problems:
            raise ValueError("invalid RandomParams: " + "; ".join(problems))

    def limit_problems(self) -> list[str]:
        """What would pass a limit of :mod:`toolkit.units`: too many things in all, sizes past
        a petabyte, Poisson releases expected past the latest time. Checked before
        :meth:`problems`, and alone when any is found (a set this large is refused whole)."""
        out: list[str] = []
        if type(self.n_libraries) is int and type(self.tapes_per_library) is int:
            for name, value in (
                ("drives_per_library", self.drives_per_library),
                ("arms", self.arms),
                ("tapes_per_library", (self.tapes_per_library,)),
            ):
                if value and all(type(x) is int for x in value):
                    total = self.n_libraries * max(value)
                    if total > MAX_COUNT:
                        out.append(
                            f"n_libraries x {name}: {total:,} in all, more than {MAX_COUNT:,}"
                        )
        if (
            all(isinstance(x, int | float) for x in self.size_mb)
            and max(self.size_mb) > MAX_SIZE_MB
        ):
            out.append(f"size_mb: must be <= {MAX_SIZE_MB:g} MB, got {max(self.size_mb):g}")
        return out + arrival_problems(self.n_requests, self.arrival_rate_per_s)

    def problems(self) -> list[str]:
        """Every field outside its domain, so that a bad set is reported whole."""
        out: list[str] = []
        for name, value, least in (
            ("n_requests", self.n_requests, 0),
            ("n_libraries", self.n_libraries, 1),
            ("max_gang", self.max_gang, 1),
            ("tapes_per_library", self.tapes_per_library, 1),
        ):
            if type(value) is not int or value < least:
                out.append(f"{name}: must be an integer >= {least}, got {value!r}")
        for name, pair in (("drives_per_library", self.drives_per_library), ("arms", self.arms)):
            if len(pair) != 2 or any(type(x) is not int for x in pair):
                out.append(f"{name}: must be a pair of integers, got {pair!r}")
            else:
                out += _range_problems(name, pair, 1, strict=False)
        if not 0 < self.capacity_mb < math.inf:
            out.append(f"capacity_mb: must be > 0 and finite, got {self.capacity_mb!r}")
        out += _range_problems("size_mb", self.size_mb, 0, strict=True)
        if self.size_mb[1] > self.capacity_mb:
            out.append(f"size_mb: upper bound {self.size_mb[1]!r} exceeds capacity_mb")
        for name, p in (
            ("initial_fraction", self.initial_fraction),
            ("write_fraction", self.write_fraction),
        ):
            if not 0 <= p <= 1:
                out.append(f"{name}: must be in [0, 1], got {p!r}")
        if not 0 <= self.release_horizon_s < math.inf:
            out.append(
                f"release_horizon_s: must be >= 0 and finite, got {self.release_horizon_s!r}"
            )
        rate = self.arrival_rate_per_s
        if rate is not None and not 0 < rate < math.inf:
            out.append(f"arrival_rate_per_s: must be > 0 and finite, got {rate!r}")
        if self.weight not in WEIGHT_RULES:
            out.append(f"weight: must be one of {', '.join(WEIGHT_RULES)}, got {self.weight!r}")
        out += _range_problems("weight_range", self.weight_range, 0, strict=True)
        for name, span in (
            ("mount_s", self.mount_s),
            ("dismount_s", self.dismount_s),
            ("load_s", self.load_s),
            ("unload_s", self.unload_s),
        ):
            out += _range_problems(name, span, 0, strict=False)
        out += _range_problems("rate_mb_s", self.rate_mb_s, 0, strict=True)
        out += _range_problems("locate_mb_s", self.locate_mb_s, 0, strict=True)
        if self.objective not in OBJECTIVES:
            out.append(f"objective: must be one of {', '.join(OBJECTIVES)}, got {self.objective!r}")
        return out


class _DriveSpec(NamedTuple):
    rate_mb_s: float
    load_s: float
    unload_s: float
    locate_mb_s: float


class GeneratedPlatform(NamedTuple):
    """Libraries, drives, tapes and the tapes loaded at time 0 of an instance."""

    libraries: tuple[Library, ...]
    drives: tuple[Drive, ...]
    tapes: tuple[Tape, ...]
    initial: tuple[InitialTape, ...]


def _draw_drive_spec(params: RandomParams, choose: Chooser) -> _DriveSpec:
    return _DriveSpec(
        rate_mb_s=choose.real(*params.rate_mb_s),
        load_s=choose.real(*params.load_s),
        unload_s=choose.real(*params.unload_s),
        locate_mb_s=choose.real(*params.locate_mb_s),
    )


def build_platform(params: RandomParams, choose: Chooser) -> GeneratedPlatform:
    """Draw the libraries, drives, tapes and initial tapes of ``params``.

    Parameters
    ----------
    params
        Ranges to draw from.
    choose
        Source of every random choice.
    """
    libraries: list[Library] = []
    drives: list[Drive] = []
    tapes: list[Tape] = []
    initial: list[InitialTape] = []
    for li in range(params.n_libraries):
        lib_id = f"L{li}"
        libraries.append(
            Library(
                id=lib_id,
                arms=choose.integer(*params.arms),
                mount_s=choose.real(*params.mount_s),
                dismount_s=choose.real(*params.dismount_s),
            )
        )
        n_drives = choose.integer(*params.drives_per_library)
        shared = _draw_drive_spec(params, choose) if params.homogeneous_drives else None
        lib_drives: list[Drive] = []
        for _ in range(n_drives):
            spec = shared if shared is not None else _draw_drive_spec(params, choose)
            lib_drives.append(
                Drive(
                    id=f"d{len(drives) + len(lib_drives)}",
                    library=lib_id,
                    rate_mb_s=spec.rate_mb_s,
                    load_s=spec.load_s,
                    unload_s=spec.unload_s,
                    locate_mb_s=spec.locate_mb_s,
                )
            )
        lib_tapes = [
            Tape(id=f"T{len(tapes) + k}", library=lib_id, capacity_mb=params.capacity_mb)
            for k in range(params.tapes_per_library)
        ]
        holding = [d for d in lib_drives if choose.boolean(params.initial_fraction)]
        holding = holding[: len(lib_tapes)]
        loaded = choose.sample(lib_tapes, len(holding))
        initial += [
            InitialTape(drive=d.id, tape=t.id) for d, t in zip(holding, loaded, strict=True)
        ]
        drives += lib_drives
        tapes += lib_tapes
    return GeneratedPlatform(tuple(libraries), tuple(drives), tuple(tapes), tuple(initial))


def draw_releases(
    choose: Chooser, n: int, horizon_s: float, rate_per_s: float | None
) -> list[float]:
    """Release times of ``n`` requests, in increasing order.

    A Poisson process of rate ``rate_per_s`` from time 0 when it is given,
    otherwise ``n`` uniform times in ``[0, horizon_s]``.
    """
    if rate_per_s is None:
        return sorted(choose.real(0.0, horizon_s) for _ in range(n))
    out: list[float] = []
    t = 0.0
    for _ in range(n):
        t += choose.exponential(rate_per_s)
        out.append(t)
    return out


def place_piece(choose: Chooser, tape: Tape, size_mb: float) -> Piece:
    """A piece of ``size_mb`` on ``tape`` at a uniform offset where it fits.

    The offset is nudged down when rounding would push the piece's end past
    the tape's capacity, so the spec's "within capacity" rule holds exactly.
    """
    offset = choose.real(0.0, max(tape.capacity_mb - size_mb, 0.0))
    while offset > 0 and offset + size_mb > tape.capacity_mb:
        offset = math.nextafter(offset, 0.0)
    return Piece(tape=tape.id, offset_mb=offset, size_mb=size_mb)


def _split(choose: Chooser, total_mb: float, parts: int, equal: bool) -> list[float]:
    if equal or parts == 1:
        return [total_mb / parts] * parts
    cuts = [0.0, *sorted(choose.real(0.0, total_mb) for _ in range(parts - 1)), total_mb]
    return [max(b - a, 0.0) for a, b in itertools.pairwise(cuts)]


def _weight(params: RandomParams, choose: Chooser, size_mb: float) -> float:
    if params.weight == "unit":
        return 1.0
    if params.weight == "random":
        return choose.log_uniform(*params.weight_range)
    return MB_PER_GB / size_mb


def build_requests(
    params: RandomParams, choose: Chooser, platform: GeneratedPlatform
) -> tuple[Request, ...]:
    """Draw the workload of ``params`` over the libraries and tapes of ``platform``.

    Each request picks a library uniformly, a width within ``max_gang`` and
    that library's drives and tapes, distinct tapes for its pieces, a total
    size and a weight. Only libraries with at least one drive receive requests.

    Parameters
    ----------
    params
        Ranges to draw from; its platform fields are not used.
    choose
        Source of every random choice.
    platform
        Libraries, drives and tapes the requests refer to.
    """
    tapes_of: dict[str, list[Tape]] = {}
    for tape in platform.tapes:
        tapes_of.setdefault(tape.library, []).append(tape)
    drives_of: dict[str, int] = {}
    for drive in platform.drives:
        drives_of[drive.library] = drives_of.get(drive.library, 0) + 1
    usable = [
        lib.id for lib in platform.libraries if drives_of.get(lib.id) and tapes_of.get(lib.id)
    ]
    if params.n_requests and not usable:
        raise ValueError("no library has both a drive and a tape to serve requests")
    releases = draw_releases(
        choose, params.n_requests, params.release_horizon_s, params.arrival_rate_per_s
    )
    requests: list[Request] = []
    for i, release in enumerate(releases):
        lib_id = choose.choice(usable)
        lib_tapes = tapes_of[lib_id]
        width = choose.integer(1, min(params.max_gang, drives_of[lib_id], len(lib_tapes)))
        chosen = choose.sample(lib_tapes, width)
        total = choose.log_uniform(*params.size_mb)
        sizes = _split(choose, total, width, params.equal_pieces)
        pieces = tuple(place_piece(choose, t, s) for t, s in zip(chosen, sizes, strict=True))
        requests.append(
            Request(
                id=f"r{i}",
                release_s=release,
                weight=_weight(params, choose, total),
                kind="write" if choose.boolean(params.write_fraction) else "read",
                pieces=pieces,
            )
        )
    return tuple(requests)


def build_instance(params: RandomParams, choose: Chooser, name: str) -> Instance:
    """Draw a whole instance of ``params``: platform, then workload."""
    platform = build_platform(params, choose)
    return Instance(
        name=name,
        libraries=platform.libraries,
        drives=platform.drives,
        tapes=platform.tapes,
        initial=platform.initial,
        requests=build_requests(params, choose, platform),
        objective=params.objective,
    )


def technology_ranges(drive: str | None = None, library: str | None = None) -> dict[str, object]:
    """The :class:`RandomParams` fields that a catalogue drive and library fix: with
    ``drive``, its rate, load, unload and locate speed (each range one value) and its
    tapes' capacity; with ``library``, its arms' mount and dismount times.

    Raises
    ------
    ValueError
        For a name the catalogue (:mod:`toolkit.hardware.technology`) does not know.
    """
    fixed: dict[str, object] = {}
    if drive is not None:
        if drive not in DRIVES:
            raise ValueError(f"unknown drive {drive!r} (known: {', '.join(DRIVES)})")
        d = DRIVES[drive]
        fixed.update(
            capacity_mb=d.capacity_mb,
            rate_mb_s=(d.rate_mb_s, d.rate_mb_s),
            load_s=(d.load_s, d.load_s),
            unload_s=(d.unload_s, d.unload_s),
            locate_mb_s=(d.locate_mb_s, d.locate_mb_s),
        )
    if library is not None:
        if library not in LIBRARIES:
            raise ValueError(f"unknown library {library!r} (known: {', '.join(LIBRARIES)})")
        lib = LIBRARIES[library]
        fixed.update(
            mount_s=(lib.mount_s, lib.mount_s), dismount_s=(lib.dismount_s, lib.dismount_s)
        )
    return fixed


def random_instance(params: RandomParams, seed: int, name: str | None = None) -> Instance:
    """A random instance drawn from ``params``; the same seed gives the same instance.

    Parameters
    ----------
    params
        Ranges to draw from.
    seed
        Seed of the private generator.
    name
        Name of the instance, ``random-<seed>`` when not given.
    """
    return build_instance(params, RandomChooser(seed), name or f"random-{seed}")


__all__ = [
    "WEIGHT_RULES",
    "Chooser",
    "GeneratedPlatform",
    "RandomChooser",
    "RandomParams",
    "arrival_problems",
    "build_instance",
    "build_platform",
    "build_requests",
    "draw_releases",
    "place_piece",
    "random_instance",
]
