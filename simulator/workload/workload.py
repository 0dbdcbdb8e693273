"""The Blue Waters workload: Poisson requests for log-uniform files under Table 1's schemes.

Section 6.1 of "Tape archival policies for Blue Waters" (the paper the
archival policies come from) defines the workload its experiments run:

- requests arrive as a Poisson process of rate ``lambda``;
- file sizes are log-uniform between two bounds (an approximation of the
  lognormal sizes observed in file systems, for files large enough to be
  archived);
- a request is a read or a write with equal probability;
- a write creates a new file in 90 % of the cases and rewrites an existing
  file otherwise;
- each file has a resiliency scheme ``X + Y`` drawn from Table 1;
- each file's data compresses by ``C_D`` drawn in ``[1, 3]`` and its
  erasure-code blocks by ``C_P`` drawn in ``[1, C_D]``.

Sections 6.2-6.3 use five size ranges (:data:`SIZE_CLASSES_MB`). What the
paper leaves open is settled here and said in :class:`WorkloadParams`: the
archive a run starts from (``initial_files``), which file a read or a
rewrite targets (any existing file, uniformly), and that both draws are
uniform in their ranges.

Request classes (Golubchik, Muntz and Watson 1994, Sections 4-5)
    Instead of log-uniform sizes and Table 1's schemes, a workload may be
    made of *classes* (:class:`RequestClass`): a class ``j`` is a fixed
    size ``s_j``, a stripe width ``w_j`` and a probability ``p_j``. Its
    files are striped over ``w_j`` tapes without parity (scheme ``w_j+0``),
    so that a read of one is a gang of ``w_j`` drives transmitting together.
    Each file, initial or new, draws its class; a read or a rewrite draws
    a class, then a file of that class, uniformly. The widths draw nothing,
    so that workloads that differ only in their widths (the striping
    vectors of Golubchik's figures, :func:`with_striping`) ask for the same
    files at the same times. Each initial file of a class workload lies on
    tapes of its own (``Workload.own_tapes``): Golubchik's library holds far
    more tapes than drives, and no request finds another's tape.

Everything random comes from one :class:`random.Random` seeded by the caller:
the same parameters and seed give the same workload, draw for draw.
"""

from __future__ import annotations

import math
import random
from array import array
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import accumulate, islice
from types import MappingProxyType
from typing import Any, Literal, overload

from attrs import evolve, field, frozen

from tapesched.simulator.storage.archive import Archive, ArchiveParams
from tapesched.simulator.storage.files import FileRequest, FileSpec, Scheme
from tapesched.toolkit.errors import shown
from tapesched.toolkit.units import parse_duration, parse_rate

TABLE_1: Mapping[Scheme, float] = MappingProxyType(
    {
        Scheme(1, 0): 0.025,
        Scheme(2, 1): 0.025,
        Scheme(3, 1): 0.05,
        Scheme(3, 2): 0.1,
        Scheme(4, 1): 0.1,
        Scheme(4, 2): 0.3,
        Scheme(6, 2): 0.2,
        Scheme(8, 2): 0.2,
    }
)
"""The resiliency schemes of the experiments and their probabilities (Table 1)."""

SIZE_CLASSES_MB: Mapping[str, tuple[float, float]] = MappingProxyType(
    {
        "small": (10.0, 1_000.0),
        "medium": (1_000.0, 100_000.0),
        "large": (1_000_000.0, 100_000_000.0),
        "mixed": (10.0, 10_000_000.0),
        "gb-tb": (1_000.0, 1_000_000.0),
    }
)
"""File size ranges of the experiments, in MB (10^6 bytes), by name.

``small`` (10 MB-1 GB), ``medium`` (1-100 GB) and ``large`` (1-100 TB) are
the three classes of Section 6.2's arrival-rate experiments (Figures 6-8);
``mixed`` (10 MB-10 TB) is Section 6.3's range for the HETERO policy
(Figure 11); ``gb-tb`` (1 GB-1 TB) is the range of the block size,
compression and load-balancing experiments (Figures 5, 9 and 10).
"""

DEFAULT_INITIAL_FILES = 1000
"""Files archived before a run starts, which reads and rewrites may target.

The paper does not say what its archive holds at time 0. A thousand files
spread reads over many tapes from the first request on, and stays small
beside the files a run writes itself (at 65 requests an hour, a 30-day run
writes about 21,000 new ones).
"""

_MAX_SHARE_ERROR = 1e-9


def _positive_finite(_: object, attribute: Any, value: float) -> None:
    if not 0 < value < math.inf:
        raise ValueError(f"{attribute.name} must be finite and > 0, got {shown(value)}")


def _share(_: object, attribute: Any, value: float) -> None:
    if not 0 <= value <= 1:
        raise ValueError(f"{attribute.name} must be within [0, 1], got {shown(value)}")


def _scheme_table(
    schemes: Mapping[Scheme, float] | Iterable[tuple[Scheme, float]],
) -> tuple[tuple[Scheme, float], ...]:
    pairs = schemes.items() if isinstance(schemes, Mapping) else schemes
    return tuple((scheme, float(p)) for scheme, p in pairs)


def _ratio_range(value: Iterable[float]) -> tuple[float, float]:
    lo, hi = value
    return float(lo), float(hi)


@frozen
class RequestClass:
    """A class of requests: a file size, the stripe width of its files, a probability.

    Attributes
    ----------
    size_mb
        The size of every file of the class.
    width
        The tapes its files are striped over (``width+0``), hence the drives
        a read of one takes at once.
    share
        The probability that a request (and a file) is of this class.
    """

    size_mb: float = field(validator=_positive_finite)
    width: int
    share: float = field(validator=_share)

    def __attrs_post_init__(self) -> None:
        if isinstance(self.width, bool) or not isinstance(self.width, int) or self.width < 1:
            raise ValueError(f"width must be an integer >= 1, got {shown(self.width)}")

    @property
    def scheme(self) -> Scheme:
        """The scheme of its files: striped over ``width`` tapes, no parity."""
        return Scheme(self.width, 0)


def _classes(value: Iterable[RequestClass]) -> tuple[RequestClass, ...]:
    return tuple(value)


def striping_label(classes: Iterable[RequestClass]) -> str:
    """The striping vector as Golubchik et al. name it: the widths in class order, ``"122"``.

    Widths of 10 or more are joined by dashes (``"1-12"``), so a label reads one way.
    """
    widths = [c.width for c in classes]
    if all(w < 10 for w in widths):
        return "".join(str(w) for w in widths)
    return "-".join(str(w) for w in widths)


@frozen(kw_only=True)
class WorkloadParams:
    """What a Blue Waters workload is drawn from.

    Parameters
    ----------
    rate_per_s
        Poisson arrival rate ``lambda`` of requests (the paper's rates are
        per hour: 65/h is ``65 / 3600``; :func:`parse_rate` reads ``"65/h"``).
    duration_s
        Requests arrive in ``[0, duration_s)``.
    min_size_mb, max_size_mb
        Bounds of the log-uniform file sizes (:data:`SIZE_CLASSES_MB` holds
        the paper's ranges; :meth:`for_size_class` takes one by name).
    read_share
        Probability that a request is a read (0.5: "chosen uniformly
        between read and write").
    new_file_share
        Probability that a write creates a new file (0.9); otherwise it
        rewrites an existing one, which keeps its size, scheme and ratios.
    schemes
        Resiliency scheme probabilities, a mapping ``Scheme -> p`` (or its
        pairs) summing to 1; Table 1 by default. Kept as a tuple of
        ``(scheme, p)`` pairs, in the order given, so the parameters stay
        hashable and the draws do not depend on a dict's order.
    data_ratio
        Range ``(lo, hi)`` of the data compression ratio ``C_D``, drawn
        uniformly; ``[1, 3]`` by default. ``(3, 3)`` fixes it, as in the
        compression experiment (Figure 9).
    ec_ratio
        ``None`` (the default): each file's erasure-code ratio ``C_P`` is
        drawn uniformly in ``[1, C_D]``. A number fixes ``C_P`` for every
        file (Figure 9 varies it from 1 to 3); it must not exceed the
        smallest ``C_D``.
    initial_files
        Files archived at time 0, drawn like new files, which reads and
        rewrites may target from the first request on
        (:data:`DEFAULT_INITIAL_FILES`). At least one, or an ``archive``, is
        needed when there may be reads or rewrites.
    archive
        The archive at the paper's scale (:mod:`simulator.storage.archive`): its
        tapes and popularity; its files are laid out lazily from the seed
        (``None``: no archive beside the initial files).

    Notes
    -----
    A read or a rewrite targets a file chosen uniformly among all the files
    that exist when it arrives: the archive's, the initial ones and those
    created by earlier writes of the run (created by the request, not
    necessarily finished: the generator knows nothing of service); among
    the archive's, by its popularity.
    """

    rate_per_s: float = field(validator=_positive_finite)
    duration_s: float = field(validator=_positive_finite)
    min_size_mb: float = field(validator=_positive_finite)
    max_size_mb: float = field(validator=_positive_finite)
    read_share: float = field(default=0.5, validator=_share)
    new_file_share: float = field(default=0.9, validator=_share)
    schemes: tuple[tuple[Scheme, float], ...] = field(default=TABLE_1, converter=_scheme_table)
    data_ratio: tuple[float, float] = field(default=(1.0, 3.0), converter=_ratio_range)
    ec_ratio: float | None = None
    initial_files: int = DEFAULT_INITIAL_FILES
    archive: ArchiveParams | None = None
    classes: tuple[RequestClass, ...] = field(default=(), converter=_classes)

    def __attrs_post_init__(self) -> None:
        if self.min_size_mb > self.max_size_mb:
            raise ValueError(
                f"min_size_mb ({self.min_size_mb!r}) exceeds max_size_mb ({self.max_size_mb!r})"
            )
        if not self.schemes:
            raise ValueError("schemes must hold at least one scheme")
        for scheme, p in self.schemes:
            if not 0 <= p <= 1:
                raise ValueError(f"scheme {scheme}: probability must be within [0, 1], got {p!r}")
        if len({s for s, _ in self.schemes}) != len(self.schemes):
            raise ValueError("schemes names a scheme twice")
        total = sum(p for _, p in self.schemes)
        if abs(total - 1) > _MAX_SHARE_ERROR:
            raise ValueError(f"scheme probabilities must sum to 1, got {total!r}")
        lo, hi = self.data_ratio
        if not 1 <= lo <= hi < math.inf:
            raise ValueError(f"data_ratio must be a range 1 <= lo <= hi, got {self.data_ratio!r}")
        if self.ec_ratio is not None and not 1 <= self.ec_ratio <= lo:
            raise ValueError(
                f"ec_ratio must be within [1, lowest data ratio {lo!r}], got {self.ec_ratio!r}"
            )
        if isinstance(self.initial_files, bool) or not isinstance(self.initial_files, int):
            raise ValueError(f"initial_files must be an integer, got {shown(self.initial_files)}")
        if self.initial_files < 0:
            raise ValueError(f"initial_files must be >= 0, got {shown(self.initial_files)}")
        if self.classes:
            self._check_classes()
        targets_existing = self.read_share > 0 or self.new_file_share < 1
        if targets_existing and self.initial_files == 0 and self.archive is None:
            raise ValueError(
                "initial_files must be >= 1 when requests may read or rewrite "
                "(read_share > 0 or new_file_share < 1) and there is no archive: "
                "the first one needs a file"
            )

    def _check_classes(self) -> None:
        """Classes sum to 1 and agree with the sizes and schemes (see :meth:`of_classes`)."""
        total = sum(c.share for c in self.classes)
        if abs(total - 1) > _MAX_SHARE_ERROR:
            raise ValueError(f"class shares must sum to 1, got {total!r}")
        if self.archive is not None:
            raise ValueError("classes come with their own files: no initial archive beside them")
        sizes = [c.size_mb for c in self.classes]
        if (self.min_size_mb, self.max_size_mb) != (min(sizes), max(sizes)):
            raise ValueError("with classes, the sizes are the classes' smallest and largest")
        if dict(self.schemes) != _class_schemes(self.classes):
            raise ValueError("with classes, the schemes are the classes' widths")

    @classmethod
    def of_classes(
        cls, classes: Iterable[RequestClass], *, rate_per_s: float, duration_s: float, **rest: Any
    ) -> WorkloadParams:
        """Parameters of a class workload: its sizes and schemes are its classes'."""
        classes = tuple(classes)
        if not classes:
            raise ValueError("classes must hold at least one class")
        sizes = [c.size_mb for c in classes]
        return cls(
            rate_per_s=rate_per_s,
            duration_s=duration_s,
            min_size_mb=min(sizes),
            max_size_mb=max(sizes),
            schemes=_class_schemes(classes),
            classes=classes,
            **rest,
        )

    @classmethod
    def for_size_class(
        cls, name: str, *, rate_per_s: float, duration_s: float, **overrides: Any
    ) -> WorkloadParams:
        """Parameters with the sizes of :data:`SIZE_CLASSES_MB` ``[name]``.

        Raises
        ------
        ValueError
            For a name not in :data:`SIZE_CLASSES_MB`.
        """
        if name not in SIZE_CLASSES_MB:
            known = ", ".join(SIZE_CLASSES_MB)
            raise ValueError(f"unknown size class {shown(name)}; known: {known}")
        lo, hi = SIZE_CLASSES_MB[name]
        return cls(
            rate_per_s=rate_per_s,
            duration_s=duration_s,
            min_size_mb=lo,
            max_size_mb=hi,
            **overrides,
        )


def _class_schemes(classes: Iterable[RequestClass]) -> dict[Scheme, float]:
    """The scheme probabilities of classes: each width's share (in order of first use)."""
    schemes: dict[Scheme, float] = {}
    for c in classes:
        schemes[c.scheme] = schemes.get(c.scheme, 0.0) + c.share
    return schemes


def with_striping(params: WorkloadParams, widths: Iterable[int]) -> WorkloadParams:
    """A class workload with each class's stripe width replaced, in class order.

    Raises
    ------
    ValueError
        When the workload has no classes, or ``widths`` is not one width per class.
    """
    widths = tuple(widths)
    if not params.classes:
        raise ValueError("the workload has no request classes to stripe")
    if len(widths) != len(params.classes):
        raise ValueError(f"expected {len(params.classes)} widths, one per class, got {len(widths)}")
    classes = tuple(evolve(c, width=w) for c, w in zip(params.classes, widths, strict=True))
    return evolve(params, classes=classes, schemes=_class_schemes(classes))


def with_class_sizes(params: WorkloadParams, sizes_mb: Iterable[float]) -> WorkloadParams:
    """A class workload with each class's size replaced, in class order.

    Raises
    ------
    ValueError
        When the workload has no classes, or ``sizes_mb`` is not one size per class.
    """
    sizes = tuple(float(s) for s in sizes_mb)
    if not params.classes:
        raise ValueError("the workload has no request classes to resize")
    if len(sizes) != len(params.classes):
        raise ValueError(f"expected {len(params.classes)} sizes, one per class, got {len(sizes)}")
    classes = tuple(evolve(c, size_mb=s) for c, s in zip(params.classes, sizes, strict=True))
    return evolve(params, classes=classes, min_size_mb=min(sizes), max_size_mb=max(sizes))


def parse_striping(text: str) -> tuple[int, ...]:
    """A striping vector as typed: widths joined by commas, ``"1,2,2"``.

    Raises
    ------
    ValueError
        For anything but integers >= 1 joined by commas.
    """
    widths = []
    for part in text.split(","):
        part = part.strip()
        if not part.isdigit() or int(part) < 1:
            raise ValueError(
                f"{shown(text)} is not a striping vector: widths >= 1 joined by commas, "
                "such as 1,2,2"
            )
        widths.append(int(part))
    return tuple(widths)


@frozen
class Workload:
    """A generated workload: the files at time 0 and the requests, in order of arrival.

    ``archive`` is the lazily laid-out archive the requests also target
    (``None``: the files at time 0 are ``initial`` alone). With
    ``own_tapes`` each initial file is laid out on tapes of its own.
    """

    initial: tuple[FileSpec, ...]
    requests: Sequence[FileRequest]
    """In order of arrival: a tuple, or a sequence that makes each request as it is read (a
    long trace's, :func:`simulator.replay.trace_archive.trace_workload`)."""
    archive: Archive | None = None
    own_tapes: bool = False


class _Draw:
    """The draws of one workload, in a fixed order from one seeded generator."""

    def __init__(self, params: WorkloadParams, seed: int) -> None:
        self.params = params
        self.rng = random.Random(seed)
        self.log_min = math.log(params.min_size_mb)
        self.log_max = math.log(params.max_size_mb)
        self.schemes = [s for s, _ in params.schemes]
        self.cumulative = list(accumulate(p for _, p in params.schemes))

        self.class_cumulative = list(accumulate(c.share for c in params.classes))

    def klass(self) -> int:
        """A class number, by the classes' shares."""
        return bisect_right(self.class_cumulative, self.rng.random() * self.class_cumulative[-1])

    def new_file(self, file_id: str, klass: int | None = None) -> FileSpec:
        rng, params = self.rng, self.params
        if klass is not None:
            size_mb, scheme = params.classes[klass].size_mb, params.classes[klass].scheme
        else:
            size_mb = min(
                params.max_size_mb,
                max(params.min_size_mb, math.exp(rng.uniform(self.log_min, self.log_max))),
            )
            scheme = rng.choices(self.schemes, cum_weights=self.cumulative)[0]
        lo, hi = params.data_ratio
        data_ratio = min(hi, rng.uniform(lo, hi))
        if params.ec_ratio is None:
            ec_ratio = min(data_ratio, rng.uniform(1.0, data_ratio))
        else:
            ec_ratio = params.ec_ratio
        return FileSpec(file_id, size_mb, scheme, data_ratio, ec_ratio)


def _arrivals(rng: random.Random, params: WorkloadParams) -> Iterator[float]:
    """The Poisson arrival times of ``[0, duration_s)``, each drawn only when asked for (the
    caller's draws for a request come between its arrival's and the next one's)."""
    arrival_s = 0.0
    while True:
        arrival_s += rng.expovariate(params.rate_per_s)
        if arrival_s >= params.duration_s:
            return
        yield arrival_s


class _Files:
    """The files a workload drew, by number: ``f0, f1, ...`` kept as a few numbers each.

    A long workload creates a file for most of its writes; a :class:`FileSpec` a file
    would keep some 200 bytes each for the whole run, where its size, ratios and scheme
    take 25 in arrays. A file is made again, equal, each time a request targets it.
    """

    def __init__(self, schemes: Sequence[Scheme]) -> None:
        self._schemes = list(schemes)
        self._scheme_index = {scheme: i for i, scheme in enumerate(self._schemes)}
        self._size_mb = array("d")
        self._data_ratio = array("d")
        self._ec_ratio = array("d")
        self._scheme = array("H")
        self._odd: dict[int, FileSpec] = {}

    def __len__(self) -> int:
        return len(self._size_mb)

    def append(self, file: FileSpec) -> None:
        """Keep ``file``, the next by number."""
        if not (type(file.size_mb) is type(file.data_ratio) is type(file.ec_ratio) is float):
            # A number given as an int (from Python) is kept as it is, in the file itself.
            self._odd[len(self._size_mb)] = file
        scheme = self._scheme_index.get(file.scheme)
        if scheme is None:
            scheme = self._scheme_index[file.scheme] = len(self._schemes)
            self._schemes.append(file.scheme)
        self._size_mb.append(file.size_mb)
        self._data_ratio.append(file.data_ratio)
        self._ec_ratio.append(file.ec_ratio)
        self._scheme.append(scheme)

    def __getitem__(self, k: int) -> FileSpec:
        odd = self._odd.get(k) if self._odd else None
        if odd is not None:
            return odd
        return FileSpec(
            f"f{k}",
            self._size_mb[k],
            self._schemes[self._scheme[k]],
            self._data_ratio[k],
            self._ec_ratio[k],
        )


class DrawnRequests(Sequence[FileRequest]):
    """A workload's requests, drawn as they are read: a long horizon keeps none of them.

    Each reading draws them again from the seed, in the order :func:`generate` says,
    so that every reading gives the same requests; the files created so far are kept
    (:class:`_Files`), as a read or rewrite may target any of them. The length is counted
    by a reading, once.
    """

    def __init__(self, params: WorkloadParams, seed: int, archive: Archive | None) -> None:
        self._params = params
        self._seed = seed
        self._archive = archive
        self._count: int | None = None

    def __iter__(self) -> Iterator[FileRequest]:
        if self._params.classes:
            return _draw_classes(self._params, self._seed)[1]
        return _draw(self._params, self._seed, self._archive)[1]

    def __len__(self) -> int:
        if self._count is None:
            self._count = sum(1 for _ in self)
        return self._count

    @overload
    def __getitem__(self, index: int) -> FileRequest: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[FileRequest, ...]: ...

    def __getitem__(self, index: int | slice) -> FileRequest | tuple[FileRequest, ...]:
        if isinstance(index, slice):
            return tuple(self)[index]
        n = len(self)
        if not -n <= index < n:
            raise IndexError(f"request {index} of {n}")
        return next(islice(self, index % n, None))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, DrawnRequests | tuple | list):
            return tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"DrawnRequests(seed={self._seed}, {len(self)} requests)"


def generate(params: WorkloadParams, seed: int, archive: Archive | None = None) -> Workload:
    """Draw a workload: ``params.initial_files`` files, then the requests of ``duration_s``.

    Files are named ``f0, f1, ...`` (initial files first, then new files in
    order of creation) and requests ``r0, r1, ...`` in order of arrival.
    Each request draws, in this order: its interarrival time, read or
    write, then for a read or a rewrite the file it targets, for a new
    write the new file's size, scheme, ``C_D`` and ``C_P``. The requests are
    drawn as a run reads them (:class:`DrawnRequests`), the initial files now.

    With an ``archive``, a read or a rewrite draws one number among the
    archive's files and the others; one that falls among the archive's
    names it (``uniform``) or draws its file by popularity (``zipf``).

    Parameters
    ----------
    params
        What to draw from.
    seed
        Seed of every random choice: the same seed gives the same workload.
    archive
        The archive (:class:`~simulator.storage.archive.Archive`) built for
        ``params.archive``, the policy and the platform with the same seed.
    """
    if (archive is None) != (params.archive is None):
        raise ValueError("an archive is given exactly when params.archive is")
    requests = DrawnRequests(params, seed, archive)
    if params.classes:
        return Workload(_draw_classes(params, seed)[0], requests, None, own_tapes=True)
    return Workload(_draw(params, seed, archive)[0], requests, archive)


def _draw(
    params: WorkloadParams, seed: int, archive: Archive | None
) -> tuple[tuple[FileSpec, ...], Iterator[FileRequest]]:
    """The initial files, drawn now, and the requests, drawn as they are read."""
    draw = _Draw(params, seed)
    initial = tuple(draw.new_file(f"f{i}") for i in range(params.initial_files))
    return initial, _requests(draw, initial, archive)


def _requests(
    draw: _Draw, initial: tuple[FileSpec, ...], archive: Archive | None
) -> Iterator[FileRequest]:
    params, rng = draw.params, draw.rng
    files = _Files(draw.schemes)
    for file in initial:
        files.append(file)
    archived = 0 if archive is None else archive.count
    uniform = archive is None or archive.params.popularity == "uniform"

    def existing() -> FileSpec:
        u = rng.randrange(archived + len(files))
        if u >= archived:
            k = u - archived
            return initial[k] if k < len(initial) else files[k]
        assert archive is not None
        return archive.file(u if uniform else archive.pick(rng))

    count = 0
    for arrival_s in _arrivals(rng, params):
        request_id = f"r{count}"
        count += 1
        if rng.random() < params.read_share:
            yield FileRequest(request_id, arrival_s, "read", existing())
        elif rng.random() < params.new_file_share:
            target = draw.new_file(f"f{len(files)}")
            files.append(target)
            yield FileRequest(request_id, arrival_s, "write", target)
        else:
            yield FileRequest(request_id, arrival_s, "write", existing())


def _draw_classes(
    params: WorkloadParams, seed: int
) -> tuple[tuple[FileSpec, ...], Iterator[FileRequest]]:
    """A class workload (see *Request classes*): each file and each request draws its class.

    Each request draws, in this order: its interarrival time, read or
    write, its class, then for a read or a rewrite a file of the class, for
    a new write the new file's ``C_D`` and ``C_P``.
    """
    draw = _Draw(params, seed)
    initial: list[FileSpec] = []
    of_class: list[array[int]] = [array("q") for _ in params.classes]
    for k, c in enumerate(params.classes):
        count = max(1, round(c.share * params.initial_files)) if c.share > 0 else 0
        for _ in range(count):
            of_class[k].append(len(initial))
            initial.append(draw.new_file(f"f{len(initial)}", k))
    return tuple(initial), _class_requests(draw, tuple(initial), of_class)


def _class_requests(
    draw: _Draw, initial: tuple[FileSpec, ...], of_class: list[array[int]]
) -> Iterator[FileRequest]:
    params, rng = draw.params, draw.rng
    files = _Files(draw.schemes)
    for file in initial:
        files.append(file)
    count = 0
    for arrival_s in _arrivals(rng, params):
        request_id = f"r{count}"
        count += 1
        read = rng.random() < params.read_share
        new = not read and rng.random() < params.new_file_share
        k = draw.klass()
        if new:
            target = draw.new_file(f"f{len(files)}", k)
            of_class[k].append(len(files))
            files.append(target)
            kind: Literal["read", "write"] = "write"
        else:
            number = of_class[k][rng.randrange(len(of_class[k]))]
            target = initial[number] if number < len(initial) else files[number]
            kind = "read" if read else "write"
        yield FileRequest(request_id, arrival_s, kind, target)


__all__ = [
    "DEFAULT_INITIAL_FILES",
    "SIZE_CLASSES_MB",
    "TABLE_1",
    "DrawnRequests",
    "RequestClass",
    "Workload",
    "WorkloadParams",
    "generate",
    "parse_duration",
    "parse_rate",
    "parse_striping",
    "striping_label",
    "with_striping",
]
