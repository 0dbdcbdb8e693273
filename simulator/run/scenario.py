"""Scenario files: a platform, a policy, a workload and how to run them, in one versioned JSON.

Format ``tapesched.scenario/1`` (the earlier name ``tapesched-scenario/1`` is
still read; files are written and shipped with the new one). Times are a
number of seconds, fixed, or ``{"mean_s": m, "dist": "exponential"}``::

    {
      "format": "tapesched.scenario/1",
      "name": "blue-waters",
      "description": "...",
      "sources": ["..."],
      "platform": {
        "libraries": [{"id": "L0", "arms": 20, "mount_s": 10, "dismount_s": 10}],
        "drives": [{"library": "L0", "count": 500, "model": "T10000D", "per_mover": 10}],
        "movers": {"memory_mb": 96000, "disk_mb": 10000000, "bandwidth_mb_s": null},
        "tape_capacity_mb": 1000000,
        "dismount": "on-demand",
        "pass_through_s": 30
      },
      "policy": {"name": "parallel", "block_mb": 192, "threshold_mb": 1000},
      "workload": {
        "sizes": "small", "rate": "800/h", "duration": "4w",
        "read_share": 0.5, "new_file_share": 0.9, "initial_files": 1000,
        "schemes": {"4+2": 1.0}, "data_ratio": [1, 3], "ec_ratio": null,
        "initial_archive": {"tapes": 500000, "popularity": "zipf", "zipf_exponent": 1.1}
      },
      "run": {"scheduler": "fifo", "seed": 1, "replications": 1, "warmup": 0.1}
    }

A file is structured through cattrs into a :class:`ScenarioDocument`, each
value judged at its path by the rules every reader shares
(:mod:`toolkit.fields`); the platform, workload and run are built from it.

Required keys, each reported as ``path: missing key`` when left out: what
makes the platform, the policy and the workload what they are, so that no
silent default changes a run (a missing rate once ran 800 requests an hour
in place of 60):

- ``format``, ``platform``, ``policy``, ``workload``;
- ``platform.libraries`` (at least one), each with ``id``, ``arms``,
  ``mount_s``, ``dismount_s``; ``platform.drives`` (at least one group), each
  with ``library``, ``count``, ``model``; ``platform.tape_capacity_mb``;
- ``policy.name`` (a name of :data:`simulator.storage.policy_registry.POLICIES`, an
  installed package's policies included), and ``policy.block_mb`` for the
  policies that cut files into blocks (``rait``, ``parallel``, ``hetero``;
  :func:`required_params`);
- ``workload.rate``, ``workload.duration``, and either ``workload.sizes``
  and ``workload.schemes`` or ``workload.request_classes`` (not both: the classes
  give the sizes and the schemes, and ``sizes`` or ``schemes`` beside
  them is refused at its path).

Request classes (Golubchik, Muntz and Watson 1994;
:class:`~simulator.workload.workload.RequestClass`):
``workload.request_classes`` is a list of ``{"size_mb": 1000, "width":
1, "share": 0.333}``, every key required: ``size_mb`` a size, ``width`` an
integer >= 1 (the tapes its files are striped over, without parity, and
the drives a read takes at once; at most the drives of one library, else
``workload.request_classes[i].width`` says so), ``share`` within [0, 1], the shares
summing to 1 (else ``workload.request_classes``); an empty list is no classes. No
``initial_archive`` beside them. ``tapesched simulate --striping 1,2,2``
replaces the widths, one per class; the striping vector is named by its
widths, ``"122"``.

Optional keys and their defaults, documented choices rather than figures of
a platform:

- ``name`` (``"scenario"``), ``description`` (``""``), ``sources``;
- ``platform.movers`` and each of its limits (no limit), a drive group's
  ``per_mover`` (no movers), ``platform.dismount`` (``on-demand``: tapes stay
  mounted until a drive is wanted), ``platform.pass_through_s`` (libraries
  not joined);
- ``policy.threshold_mb`` (HETERO's 1 GB, the paper's);
- ``workload.read_share`` (0.5), ``workload.new_file_share`` (0.9),
  ``workload.initial_files`` (1000, or 0 beside an ``initial_archive``),
  ``workload.data_ratio`` (``[1, 3]``), ``workload.ec_ratio`` (drawn in
  ``[1, C_D]``): the paper's Section 6.1;
- ``workload.initial_archive`` (none): the archive at the paper's scale, laid out
  lazily from the run's seed by the policy in force (:mod:`simulator.storage.archive`):
  ``tapes`` (required in it; the paper's 500,000, at most 1,000,000), full at
  time 0 and spread over the libraries; ``popularity``, how reads and
  rewrites pick its files, ``"uniform"`` (the default) or ``"zipf"``; and
  ``zipf_exponent`` (1.0; within (0, 10]). Its files are drawn like the
  workload's new files (sizes, schemes, ratios); the tapes must hold at
  least one set of them;
- ``disk_cache`` (none): service classes by file size, each with a disk
  cache in front of the tapes (:mod:`simulator.storage.disk_cache`, the SDSC
  archive's): ``{"classes": [{"name": "small", "max_file_mb": 10,
  "cache_mb": 200000}, ..., {"name": "large", "cache_mb": 900000}]}``,
  every class but the last with ``max_file_mb`` (increasing from class to
  class), the last without (it takes every larger file); names differ;
- ``faults`` (none: nothing fails): what fails and how often
  (:mod:`simulator.platform.faults`), each key optional: ``handling_failure`` (the
  paper's 0.01: a mount or dismount failing), ``retry_delay_s`` (60),
  ``attempts`` (3), ``drive_failures_per_year`` (0, per drive),
  ``drive_repair_s`` (28800), ``mover_failures_per_year`` (0, per mover),
  ``mover_repair_s`` (14400), ``tape_losses_per_year`` (0, per tape-year)
  and ``tape_losses``, scripted: ``[{"at_s": 3600, "tape": "T000002"},
  {"at_s": 7200, "tape": "A000010", "from_mb": 0, "to_mb": 5000}]`` (a
  region ``[from_mb, to_mb)``, or the whole tape); not with the
  ``golubchik`` scheduler;
- the whole ``run`` section: ``scheduler`` (``fifo``), ``seed`` (1),
  ``replications`` (1), ``warmup`` (0.1); a scheduler's mount policy
  (none: tapes stay mounted, the platform choosing the drive), given with
  the scheduler as an object, ``{"name": "fifo", "mount_policy":
  "lru+defer:300"}``, the spec one of :mod:`solvers.online.mount_policy`
  (``lru``, ``defer:300``, ``cta:files=10,age=1h``,
  ``dcache:share=0.5,tapes=4``, ...; ``belady`` is offline and refused,
  and ``bw-main`` and ``golubchik`` take none).

A drive group's ``model`` is a name of the technology table
(:data:`toolkit.hardware.technology.DRIVES`: ``LTO-7``, ``T10000D``, ``TS1160``,
``ampex``, ``exabyte``; :data:`simulator.platform.technology.DRIVE_MODELS` are its
rows as drive models) or an object ``{"base": NAME, ...}`` overriding any
of its fields (``rate_mb_s``, ``load_s``, ``unload_s``, ``locate_mb_s``, ``capacity_mb``,
``block_s``, and ``transfer``: ``fixed``, the default, or ``exponential``,
a phase's transfer drawn with the mean ``x / rate_mb_s``) or giving it a
serpentine ``locate`` model, ``{"model": "cta-lto", "format": "LTO-7"}``, both
keys required, read as an instance's ``drives[i].locate`` (docs/core-problem.md,
"The locate model"; ``model`` ``cta-lto`` or ``physical``, ``format`` a key of
:data:`toolkit.hardware.technology.TAPE_FORMATS`): every locate of those drives then
takes what the model says on a tape of ``platform.tape_capacity_mb``, and
``locate_mb_s`` plays no part in them. Drives are named
``<library>-d<k>`` and, with ``per_mover``, served ``per_mover`` at a time
by movers ``<library>-m<k>`` with the ``movers`` limits. ``pass_through_s``
(optional) joins the libraries by pass-through ports: any drive may then
take any tape, the arm taking that much longer each way for a tape of
another library. ``sizes`` is a size class of
:data:`simulator.workload.workload.SIZE_CLASSES_MB` or ``[min_mb, max_mb]``. ``run.scheduler``
is a registered heuristic, a scheduler of one's own as ``module.path:Attr``
(never imported when the file is read: a run imports it only when the user
allows it, ``--allow-plugins``, and a module of Python's standard library is
refused, :func:`~toolkit.registry.named_in_file`) or an entry point's name
(checked against the installed entry points, not imported; see
:mod:`solvers.plugins`), or ``bw-main``, the simulator's own scheduler
(:mod:`simulator.schedulers.bw_main`), which takes parameters, or ``golubchik``, the
discipline of Golubchik et al.'s striping study (:mod:`simulator.schedulers.golubchik`): given as
an object,
``{"name": "bw-main", "max_light_load": 1, "min_lb_interval": "6d",
"max_waiting_time": "1h", "max_req_count": 100, "max_imbalance": 10}``,
each parameter optional (these are the defaults,
:class:`~simulator.schedulers.bw_main.BwMainParams`): ``max_light_load``
(``MAXLIGHTLOAD``) and ``max_req_count`` (``MAXREQCOUNT``) integers >= 0,
``min_lb_interval`` (``MINLBINTERVAL``) and ``max_waiting_time``
(``MAXWAITINGTIME``) durations written as ``duration`` is, ``max_imbalance``
(``MAXIMBALANCE``) a number >= 0; ``--scheduler`` on the command line
replaces the name and keeps the parameters, so that one scenario runs under
``bw-main`` and, for comparison, under another scheduler.
``rate`` is a number (per second) or a rate such as ``"65/h"`` or
``"65/hour"``; ``duration`` a number (seconds) or a duration with its unit
such as ``"30d"`` or ``"2 weeks"`` (a string without a unit is refused as
ambiguous, as ``--duration`` refuses it); see :mod:`toolkit.units`.

Bounds: every magnitude is within the limits of :mod:`toolkit.units` (times,
sizes, rates, counts, a run's expected arrivals and replications); a scheme
``X+Y`` has ``0 <= Y <= X``; and every write the workload may ask for must
fit one mover (or library, without movers) under the policy: its drives,
memory, disk and bandwidth (:func:`check_runnable`), as a job that fits
nowhere would wait for ever.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from typing import Annotated, Any

import attrs
from attrs import evolve, frozen

from tapesched.simulator.platform.faults import PAPER_HANDLING_FAILURE, FaultSpec, TapeLoss
from tapesched.simulator.platform.platform import DriveSpec, LibrarySpec, MoverSpec, PlatformSpec
from tapesched.simulator.platform.technology import (
    DISTRIBUTIONS,
    DRIVE_MODELS,
    DriveModel,
    Duration,
)
from tapesched.simulator.schedulers.bw_main import BwMainParams
from tapesched.simulator.schedulers.registry import BW_MAIN, GOLUBCHIK
from tapesched.simulator.storage.archive import (
    MAX_ZIPF_EXPONENT,
    POPULARITIES,
    Archive,
    ArchiveParams,
)
from tapesched.simulator.storage.disk_cache import CacheSpec, ServiceClass, class_bound_problems
from tapesched.simulator.storage.files import FileSpec, Scheme
from tapesched.simulator.storage.policy import Policy
from tapesched.simulator.storage.policy_registry import (
    POLICIES,
    make_policy,
    policy_guard,
    required_params,
)
from tapesched.simulator.workload.workload import (
    DEFAULT_INITIAL_FILES,
    SIZE_CLASSES_MB,
    RequestClass,
    Workload,
    WorkloadParams,
)
from tapesched.solvers.online.mount_policy import MountPolicyError, is_plugged, parse_mount_policy
from tapesched.solvers.plugins import SchedulerSpec, SchedulerSpecError, scheduler_entry
from tapesched.toolkit.errors import InputError, Problem, ValueProblems, join_path, shown
from tapesched.toolkit.fields import (
    Rule,
    as_float,
    at_least_one,
    at_most,
    bandwidth,
    bounded_count,
    bounded_rate,
    bounded_size,
    bounded_time,
    check,
    checked,
    integer,
    natural,
    nonempty_text,
    nonnegative_finite,
    not_empty,
    number,
    one_of,
    optional,
    parsed,
    positive,
    positive_size,
    rate_per_year,
    require,
    simulated_time,
    text,
)
from tapesched.toolkit.files.json_documents import read_json
from tapesched.toolkit.files.structurer import JSON, KeyStyle
from tapesched.toolkit.model import OLD_SCENARIO_FORMATS, SCENARIO_FORMAT, Locate
from tapesched.toolkit.registry import LoadError, named_in_file
from tapesched.toolkit.units import (
    MAX_ARRIVALS,
    MAX_COUNT,
    MAX_REPLICATIONS,
    MAX_SIMULATED_S,
    bounded_duration,
    parse_duration,
    parse_rate,
)

FORMAT = SCENARIO_FORMAT
"""The format name scenario files are written with (``tapesched.scenario/1``)."""

READ_FORMATS = (SCENARIO_FORMAT, *OLD_SCENARIO_FORMATS)
"""Every format name read as a scenario: the current one and the earlier ones."""

_FORMAT = Rule(
    ("{v} in {formats}", "expected {current!r}, got {v!r}"), formats=READ_FORMATS, current=FORMAT
)

_MISSING = "missing key"

SCHEME_SHAPE = re.compile(r"\s*[0-9]+\s*\+\s*[0-9]+\s*")
"""How a scheme is written: ``X+Y``."""

_KEYS = KeyStyle(missing_at_key=True, unknown_at_key=True, list_known=True)
"""A scenario names a missing key at its own path (``policy.name: missing key``) and an
unknown one with the keys its object may hold."""


@frozen
class RunSettings:
    """How to run a scenario: scheduler, seed, replications, warm-up share.

    ``scheduler`` is a scheduler spec (:mod:`solvers.plugins`): in a file, a
    registered name, ``module.path:Attr`` or an entry point's name; from
    Python, a scheduler or a class or factory of schedulers too.
    """

    scheduler: SchedulerSpec = "fifo"
    seed: int = 1
    replications: int = 1
    warmup: float = 0.1
    bw_main: BwMainParams = attrs.field(factory=BwMainParams)
    mount_policy: str | None = None
    """A mount policy spec (:mod:`solvers.online.mount_policy`) the scheduler runs under;
    ``None`` keeps tapes mounted with the platform's own choice of drive, as before."""


@frozen
class Scenario:
    """A parsed scenario file."""

    name: str
    description: str
    platform: PlatformSpec
    policy: str
    policy_params: Mapping[str, float]
    workload: WorkloadParams
    run: RunSettings
    disk_cache: CacheSpec | None = None
    """Service classes with a disk cache each in front of the tapes (``None``: none)."""
    faults: FaultSpec | None = None
    """What fails and how often (:mod:`simulator.platform.faults`; ``None``: nothing)."""


# --- values of several shapes ------------------------------------------------------------


def _known(value: Any, table: Mapping[str, Any], what: str) -> Any:
    if value not in table:
        raise ValueError(f"unknown {what} {shown(value)} (known: {', '.join(table)})")
    return table[value]


def _override(key: str, rule: Rule) -> Callable[[Any], float]:
    """A field of a drive model object, checked by ``rule``, reported as ``key must be ...``."""

    def read(value: Any) -> float:
        reason = rule(as_float(value))
        if reason is not None:
            raise ValueError(f"{key} {reason}")
        return float(value)

    return read


def _transfer(value: Any) -> str:
    """How a drive model's transfer time is drawn: ``fixed`` or ``exponential``."""
    if value not in DISTRIBUTIONS:
        raise ValueError(f"transfer is fixed or exponential, got {shown(value)}")
    return value  # type: ignore[no-any-return]


def _locate(value: Any) -> Locate:
    """A serpentine locate model, ``{"model": ..., "format": ...}``, read as an instance's
    ``drives[i].locate`` is (:class:`toolkit.model.Locate`), each fault at its key."""
    locate, problems = JSON.structure(value, Locate)
    if locate is None:
        raise ValueProblems(problems)
    return locate


_MODEL_FIELDS: dict[str, Callable[[Any], Any]] = {
    "load_s": Duration.from_json,
    "unload_s": Duration.from_json,
    "rate_mb_s": _override("rate_mb_s", bounded_rate),
    "locate_mb_s": _override("locate_mb_s", bounded_rate),
    "capacity_mb": _override("capacity_mb", positive_size),
    "block_s": _override("block_s", bounded_time),
    "transfer": _transfer,
    "locate": _locate,
}
"""How each field of :class:`~simulator.platform.technology.DriveModel` a scenario may override is
read."""


def _model(value: Any) -> DriveModel:
    """A drive model: a name of :data:`~simulator.platform.technology.DRIVE_MODELS`, or an object
    ``{"base": NAME, ...}`` overriding some of its fields."""
    if type(value) is str:
        return _known(value, DRIVE_MODELS, "drive model")  # type: ignore[no-any-return]
    if type(value) is not dict or "base" not in value:
        raise ValueError("a drive model is a name or an object with a base name")
    base = _model(value["base"])
    changes: dict[str, Any] = {}
    problems = []
    for key, raw in value.items():
        try:
            if key != "base" and key not in _MODEL_FIELDS:
                raise ValueError(f"unknown drive model field {shown(key)}")
            if key != "base":
                changes[key] = _MODEL_FIELDS[key](raw)
        except ValueProblems as exc:
            problems += [
                Problem(join_path(key, p.path) if p.path else key, p.message) for p in exc.problems
            ]
        except ValueError as exc:
            problems.append(Problem("", str(exc)))
    if problems:
        raise ValueProblems(problems)
    return evolve(base, name=f"{base.name}*", **changes) if changes else base


def _sizes(value: Any) -> tuple[float, float]:
    """A size class of :data:`~simulator.workload.workload.SIZE_CLASSES_MB`, or ``[min_mb,
    max_mb]``."""
    if type(value) is str:
        return _known(value, SIZE_CLASSES_MB, "size class")  # type: ignore[no-any-return]
    if type(value) is list and len(value) == 2:
        low, high = (require(positive_size, as_float(x)) for x in value)
        return (low, high)
    raise ValueError("expected a size class name or [min_mb, max_mb]")


def _pair(value: Any) -> tuple[float, float]:
    if type(value) is list and len(value) == 2:
        low, high = (require(number, as_float(x)) for x in value)
        return (low, high)
    raise ValueError("expected [low, high]")


def _rate(value: Any) -> float:
    """An arrival rate: a number per second, or a rate with its unit (``"65/h"``)."""
    if type(value) is str:
        return parse_rate(value)
    return require(positive, as_float(value))  # type: ignore[no-any-return]


def _span(value: Any) -> float:
    """A simulated span: a number of seconds, or a duration with its unit (``"4w"``)."""
    if type(value) is str:
        return parse_duration(value, unit_required=True, most_s=MAX_SIMULATED_S)
    return bounded_duration(require(positive, as_float(value)), MAX_SIMULATED_S, value)


def _schemes(value: Any) -> dict[Scheme, float]:
    """The scheme probabilities, each bad scheme or share reported at ``workload.schemes.X+Y``
    (a key that is no ``X+Y`` at all is a fault of the object, named in the message)."""
    if type(value) is not dict or not value:
        raise ValueError('expected an object such as {"4+2": 0.5, "8+2": 0.5}')
    schemes: dict[Scheme, float] = {}
    problems = []
    for key, share in value.items():
        where = key if SCHEME_SHAPE.fullmatch(key) else ""
        try:
            scheme = Scheme.parse(key)
            if scheme in schemes:
                raise ValueError(f"scheme {scheme} is given twice")
            schemes[scheme] = require(number, as_float(share))
        except ValueError as exc:
            problems.append(Problem(where, str(exc)))
    if problems:
        raise ValueProblems(problems)
    return schemes


def _policy_name(value: Any) -> str:
    require(nonempty_text, value)
    try:
        POLICIES.load(value)
    except LoadError as exc:
        raise ValueError(str(exc)) from None
    return value  # type: ignore[no-any-return]


def _scheduler(value: Any) -> str | tuple[str, BwMainParams] | MountedScheduler:
    """A scheduler's name (:mod:`solvers.plugins`), found without importing anything, or its
    ``module.path:Attr``, kept unimported (:func:`named_in_file`); or ``bw-main`` and its
    parameters, given as an object; or an object of a scheduler's name and its mount policy."""
    if type(value) is dict and "mount_policy" in value and set(value) <= {"name", "mount_policy"}:
        mounted, problems = JSON.structure(value, MountedSection, keys=_KEYS)
        if mounted is None:
            raise ValueProblems(problems)
        return MountedScheduler(mounted.name, mounted.mount_policy)
    if type(value) is dict:
        section, problems = JSON.structure(value, BwMainSection, keys=_KEYS)
        if section is None:
            raise ValueProblems(problems)
        return (BW_MAIN, section.params())
    require(nonempty_text, value)
    if value in (BW_MAIN, GOLUBCHIK):
        return value  # type: ignore[no-any-return]
    if ":" in value:
        return named_in_file(value)
    try:
        scheduler_entry(value)
    except SchedulerSpecError as exc:
        raise ValueError(str(exc)) from None
    return value  # type: ignore[no-any-return]


def _mount_policy(value: Any) -> str:
    """A mount policy spec, checked (``belady``, offline, is refused: the simulator is online);
    one's own, ``module.path:Attr``, is kept unimported (:func:`named_in_file`)."""
    require(nonempty_text, value)
    if is_plugged(value):
        return named_in_file(value.strip())
    try:
        parse_mount_policy(value, capacity_mb=lambda tape: 1.0)
    except MountPolicyError as exc:
        raise ValueError(str(exc)) from None
    return value  # type: ignore[no-any-return]


def named_code(scenario: Scenario) -> list[tuple[str, str]]:
    """What of the scenario's run names code to import, ``module.path:Attr``: ``(path, spec)``.

    The scheduler (``run.scheduler``, or ``run.scheduler.name`` beside a
    mount policy) and the mount policy (``run.scheduler.mount_policy``) as
    they are now, a command line's replacements included. A command refuses
    to run those it did not replace itself unless the user allows them
    (``--allow-plugins``).
    """
    run = scenario.run
    named = []
    if isinstance(run.scheduler, str) and ":" in run.scheduler:
        path = "run.scheduler" if run.mount_policy is None else "run.scheduler.name"
        named.append((path, run.scheduler))
    if run.mount_policy is not None and is_plugged(run.mount_policy):
        named.append(("run.scheduler.mount_policy", run.mount_policy))
    return named


# --- the document -------------------------------------------------------------------------


@checked(kw_only=True)
class LibraryEntry:
    """A library of ``platform.libraries``."""

    id: str = check(nonempty_text)
    arms: int = check(bounded_count)
    mount_s: Duration = parsed(Duration.from_json)
    dismount_s: Duration = parsed(Duration.from_json)


@checked(kw_only=True)
class DriveGroup:
    """A group of ``count`` drives of one model in a library (``platform.drives``)."""

    library: str = check(nonempty_text)
    count: int = check(bounded_count)
    model: DriveModel = parsed(_model)
    per_mover: int | None = check(optional(bounded_count), default=None)


@checked(kw_only=True)
class MoverLimits:
    """The limits of every mover (``platform.movers``); ``None`` is no limit."""

    memory_mb: float | None = check(optional(positive_size), default=None, converter=as_float)
    disk_mb: float | None = check(optional(positive_size), default=None, converter=as_float)
    bandwidth_mb_s: float | None = check(optional(bandwidth), default=None, converter=as_float)


@checked(kw_only=True)
class PlatformSection:
    """The ``platform`` of a scenario file."""

    libraries: tuple[LibraryEntry, ...] = check(not_empty)
    movers: MoverLimits = MoverLimits()
    drives: tuple[DriveGroup, ...] = check(not_empty)
    tape_capacity_mb: float = check(positive_size, converter=as_float)
    dismount: str = check(one_of(("on-demand", "at-once")), default="on-demand")
    pass_through_s: Duration | None = parsed(Duration.from_json, default=None)


@checked(kw_only=True)
class PolicySection:
    """The ``policy`` of a scenario file: its name and parameters."""

    name: str = parsed(_policy_name)
    block_mb: float | None = check(optional(positive_size), default=None, converter=as_float)
    threshold_mb: float | None = check(optional(positive_size), default=None, converter=as_float)


_WORKLOAD_DEFAULTS = {a.name: a.default for a in attrs.fields(WorkloadParams)}
"""The defaults of what a scenario's ``workload`` may leave out: the paper's (WorkloadParams)."""


@checked(kw_only=True)
class ArchiveSection:
    """The ``workload.initial_archive`` of a scenario file: the archive at the paper's scale."""

    tapes: int = check(bounded_count)
    popularity: str = check(one_of(POPULARITIES), default="uniform")
    zipf_exponent: float = check(
        number.then(
            "0 < {v} <= {most}", "must be within (0, {most:g}], got {v!r}", most=MAX_ZIPF_EXPONENT
        ),
        default=1.0,
        converter=as_float,
    )


@checked(kw_only=True)
class ClassEntry:
    """A class of ``workload.request_classes``: a file size, a stripe width, a probability."""

    size_mb: float = check(positive_size, converter=as_float)
    width: int = check(bounded_count)
    share: float = check(
        number.then("0 <= {v} <= 1", "must be within [0, 1], got {v!r}"), converter=as_float
    )


@checked(kw_only=True)
class WorkloadSection:
    """The ``workload`` of a scenario file."""

    sizes: tuple[float, float] | None = parsed(_sizes, default=None)
    request_classes: tuple[ClassEntry, ...] = ()
    rate: float = parsed(_rate)
    duration: float = parsed(_span)
    read_share: float = check(number, default=_WORKLOAD_DEFAULTS["read_share"], converter=as_float)
    new_file_share: float = check(
        number, default=_WORKLOAD_DEFAULTS["new_file_share"], converter=as_float
    )
    initial_files: int | None = check(optional(at_most(integer, MAX_COUNT)), default=None)
    schemes: dict[Scheme, float] | None = parsed(_schemes, default=None)
    data_ratio: tuple[float, float] = parsed(_pair, default=_WORKLOAD_DEFAULTS["data_ratio"])
    ec_ratio: float | None = check(optional(number), default=None, converter=as_float)
    initial_archive: ArchiveSection | None = None


_SAME_AS_WORKLOAD_PARAMS = (
    "schemes", "read_share", "new_file_share", "data_ratio", "ec_ratio",
)  # fmt: skip
"""The keys of a scenario's ``workload`` that are fields of :class:`WorkloadParams` too."""

_DEFAULT_RUN = RunSettings()

_BW = _DEFAULT_RUN.bw_main


@frozen
class MountedScheduler:
    """``run.scheduler`` given as ``{"name": ..., "mount_policy": ...}``."""

    name: str
    mount_policy: str


def _scheduler_name(value: Any) -> str:
    """A scheduler's name as ``run.scheduler`` takes it (not an object)."""
    name = _scheduler(value)
    assert isinstance(name, str)
    return name


@checked(kw_only=True)
class MountedSection:
    """``run.scheduler`` given as an object with a mount policy."""

    name: str = parsed(_scheduler_name)
    mount_policy: str = parsed(_mount_policy)


@checked(kw_only=True)
class BwMainSection:
    """``run.scheduler`` given as an object: ``bw-main`` and its parameters."""

    name: str = check(one_of((BW_MAIN,)))
    max_light_load: int = check(at_most(natural, MAX_COUNT), default=_BW.max_light_load)
    min_lb_interval: float = parsed(_span, default=_BW.min_lb_interval_s)
    max_waiting_time: float = parsed(_span, default=_BW.max_waiting_time_s)
    max_req_count: int = check(at_most(natural, MAX_COUNT), default=_BW.max_req_count)
    max_imbalance: float = check(nonnegative_finite, default=_BW.max_imbalance, converter=as_float)

    def params(self) -> BwMainParams:
        """The parameters as :class:`~simulator.schedulers.bw_main.BwMain` takes them."""
        return BwMainParams(
            self.max_light_load,
            self.min_lb_interval,
            self.max_waiting_time,
            self.max_req_count,
            self.max_imbalance,
        )


@checked(kw_only=True)
class RunSection:
    """The ``run`` of a scenario file."""

    scheduler: str | tuple[str, BwMainParams] | MountedScheduler = parsed(
        _scheduler, default=_DEFAULT_RUN.scheduler
    )
    seed: int = check(integer, default=_DEFAULT_RUN.seed)
    replications: int = check(
        at_most(at_least_one, MAX_REPLICATIONS), default=_DEFAULT_RUN.replications
    )
    warmup: float = check(
        number.then("0 <= {v} < 1", "must be within [0, 1), got {v!r}"),
        default=_DEFAULT_RUN.warmup,
        converter=as_float,
    )


@checked(kw_only=True)
class CacheClassEntry:
    """A class of ``disk_cache.classes``: its name, its largest file, its disk."""

    name: str = check(nonempty_text)
    max_file_mb: float | None = check(optional(positive_size), default=None, converter=as_float)
    cache_mb: float = check(positive_size, converter=as_float)


@checked(kw_only=True)
class DiskCacheSection:
    """The ``disk_cache`` of a scenario file: service classes by file size, a disk each."""

    classes: tuple[CacheClassEntry, ...] = check(not_empty)


_PROBABILITY = number.then("0 <= {v} < 1", "must be within [0, 1), got {v!r}")
_DEFAULT_FAULTS = FaultSpec()


@checked(kw_only=True)
class TapeLossEntry:
    """A scripted loss of ``faults.tape_losses``: when, which tape, and which region of it."""

    at_s: float = check(simulated_time, converter=as_float)
    tape: str = check(nonempty_text)
    from_mb: float | None = check(optional(bounded_size), default=None, converter=as_float)
    to_mb: float | None = check(optional(bounded_size), default=None, converter=as_float)


@checked(kw_only=True)
class FaultsSection:
    """The ``faults`` of a scenario file (:class:`simulator.platform.faults.FaultSpec`, its
    defaults)."""

    handling_failure: float = check(
        _PROBABILITY, default=PAPER_HANDLING_FAILURE, converter=as_float
    )
    retry_delay_s: float = check(
        bounded_time, default=_DEFAULT_FAULTS.retry_delay_s, converter=as_float
    )
    attempts: int = check(bounded_count, default=_DEFAULT_FAULTS.attempts)
    drive_failures_per_year: float = check(
        rate_per_year, default=_DEFAULT_FAULTS.drive_failures_per_year, converter=as_float
    )
    drive_repair_s: float = check(
        bounded_time, default=_DEFAULT_FAULTS.drive_repair_s, converter=as_float
    )
    mover_failures_per_year: float = check(
        rate_per_year, default=_DEFAULT_FAULTS.mover_failures_per_year, converter=as_float
    )
    mover_repair_s: float = check(
        bounded_time, default=_DEFAULT_FAULTS.mover_repair_s, converter=as_float
    )
    tape_losses_per_year: float = check(
        rate_per_year, default=_DEFAULT_FAULTS.tape_losses_per_year, converter=as_float
    )
    tape_losses: tuple[TapeLossEntry, ...] = ()


@checked(kw_only=True)
class ScenarioDocument:
    """A scenario file as it is written, each value checked; :func:`scenario_from_dict`
    builds the :class:`Scenario` it describes."""

    format: str | None = check(_FORMAT, default=None)
    name: str = check(text, default="scenario")
    description: str = check(text, default="")
    sources: tuple[Annotated[str, text], ...] = ()
    platform: PlatformSection
    policy: PolicySection
    workload: WorkloadSection
    run: RunSection = RunSection()
    disk_cache: DiskCacheSection | None = None
    faults: FaultsSection | None = None


# --- from the document to the scenario ------------------------------------------------------


def _platform(p: PlatformSection, problems: list[Problem]) -> PlatformSpec | None:
    """The platform of the document's drive groups: drives ``<library>-d<k>``, dealt
    ``per_mover`` at a time to movers ``<library>-m<k>``."""
    with_movers = any(g.per_mover is not None for g in p.drives)
    limits = p.movers
    memory_mb = float("inf") if limits.memory_mb is None else limits.memory_mb
    disk_mb = float("inf") if limits.disk_mb is None else limits.disk_mb
    drives: list[DriveSpec] = []
    movers: list[MoverSpec] = []
    drives_of: dict[str, int] = {}
    movers_of: dict[str, int] = {}
    known = {lib.id for lib in p.libraries}
    total = 0
    for i, group in enumerate(p.drives):
        path = f"platform.drives[{i}]"
        if with_movers and group.per_mover is None:
            problems.append(
                Problem(f"{path}.per_mover", "every drive group has per_mover, or none does")
            )
        total += group.count
        if total > MAX_COUNT:
            problems.append(Problem(f"{path}.count", f"more than {MAX_COUNT:,} drives in all"))
            break
        library = group.library
        if library not in known:
            problems.append(Problem(f"{path}.library", f"unknown library {shown(library)}"))
            continue
        first = drives_of.get(library, 0)
        for k in range(group.count):
            mover = None
            if group.per_mover:
                if k % group.per_mover == 0:
                    m = movers_of.get(library, 0)
                    movers_of[library] = m + 1
                    movers.append(
                        MoverSpec(
                            f"{library}-m{m:02d}", memory_mb, disk_mb, p.movers.bandwidth_mb_s
                        )
                    )
                mover = movers[-1].id
            drives.append(DriveSpec(f"{library}-d{first + k:03d}", library, group.model, mover))
        drives_of[library] = first + group.count
    if problems:
        return None
    try:
        return PlatformSpec(
            libraries=tuple(
                LibrarySpec(lib.id, lib.arms, lib.mount_s, lib.dismount_s) for lib in p.libraries
            ),
            drives=tuple(drives),
            movers=tuple(movers),
            tape_capacity_mb=p.tape_capacity_mb,
            dismount=p.dismount,  # type: ignore[arg-type]
            pass_through_s=p.pass_through_s,
        )
    except ValueError as exc:
        problems.append(Problem("platform", str(exc)))
        return None


def _workload(w: WorkloadSection, problems: list[Problem]) -> WorkloadParams | None:
    if w.rate * w.duration > MAX_ARRIVALS:
        problems.append(Problem("workload", arrivals_message(w.rate, w.duration)))
        return None
    same = {key: getattr(w, key) for key in _SAME_AS_WORKLOAD_PARAMS}
    del same["schemes"]
    if w.request_classes:
        given = [k for k in ("sizes", "schemes") if getattr(w, k) is not None]
        for key in given:
            why = "not with workload.request_classes (the classes give it)"
            problems.append(Problem(f"workload.{key}", why))
        if w.initial_archive is not None:
            why = "not with workload.request_classes"
            problems.append(Problem("workload.initial_archive", why))
        if given or w.initial_archive is not None:
            return None
        return _class_workload(w, same, problems)
    missing = [k for k in ("sizes", "schemes") if getattr(w, k) is None]
    for key in missing:
        why = f"{_MISSING} (or give workload.request_classes)"
        problems.append(Problem(f"workload.{key}", why))
    if missing:
        return None
    assert w.sizes is not None and w.schemes is not None
    archive = None
    section = w.initial_archive
    if section is not None:
        archive = ArchiveParams(section.tapes, section.popularity, section.zipf_exponent)  # type: ignore[arg-type]
    initial_files = w.initial_files
    if initial_files is None:
        initial_files = 0 if archive is not None else DEFAULT_INITIAL_FILES
    try:
        return WorkloadParams(
            min_size_mb=w.sizes[0],
            max_size_mb=w.sizes[1],
            rate_per_s=w.rate,
            duration_s=w.duration,
            initial_files=initial_files,
            archive=archive,
            schemes=w.schemes,
            **same,
        )
    except (TypeError, ValueError) as exc:
        problems.append(Problem("workload", str(exc)))
        return None


def _class_workload(
    w: WorkloadSection, same: dict[str, Any], problems: list[Problem]
) -> WorkloadParams | None:
    """The parameters of a workload of request classes (``workload.request_classes``)."""
    total = sum(c.share for c in w.request_classes)
    if abs(total - 1) > 1e-9:
        problems.append(Problem("workload.request_classes", f"shares must sum to 1, got {total!r}"))
        return None
    classes = [RequestClass(c.size_mb, c.width, c.share) for c in w.request_classes]
    initial_files = DEFAULT_INITIAL_FILES if w.initial_files is None else w.initial_files
    try:
        return WorkloadParams.of_classes(
            classes,
            rate_per_s=w.rate,
            duration_s=w.duration,
            initial_files=initial_files,
            **same,
        )
    except (TypeError, ValueError) as exc:
        problems.append(Problem("workload", str(exc)))
        return None


def _disk_cache(section: DiskCacheSection, problems: list[Problem]) -> CacheSpec | None:
    """The service classes of ``disk_cache``, each fault named at its class's path."""
    faults = class_bound_problems(section.classes, "disk_cache.classes")
    if faults:
        problems.extend(faults)
        return None
    return CacheSpec(
        tuple(ServiceClass(c.name, c.max_file_mb, c.cache_mb) for c in section.classes)
    )


def _faults(section: FaultsSection, problems: list[Problem]) -> FaultSpec | None:
    """The fault model of ``faults``, a bad scripted loss named at its path."""
    losses = []
    for i, entry in enumerate(section.tape_losses):
        try:
            losses.append(TapeLoss(entry.at_s, entry.tape, entry.from_mb, entry.to_mb))
        except ValueError as exc:
            problems.append(Problem(f"faults.tape_losses[{i}]", str(exc)))
    if problems:
        return None
    return FaultSpec(
        handling_failure=section.handling_failure,
        retry_delay_s=section.retry_delay_s,
        attempts=section.attempts,
        drive_failures_per_year=section.drive_failures_per_year,
        drive_repair_s=section.drive_repair_s,
        mover_failures_per_year=section.mover_failures_per_year,
        mover_repair_s=section.mover_repair_s,
        tape_losses_per_year=section.tape_losses_per_year,
        tape_losses=tuple(losses),
    )


def arrivals_message(rate_per_s: float, duration_s: float) -> str:
    """Why a run of this rate and duration is refused: it would draw too many requests."""
    return (
        f"rate x duration expects {rate_per_s * duration_s:,.0f} requests, more than the "
        f"{MAX_ARRIVALS:,} one replication may draw; lower the rate or the duration"
    )


def scenario_from_dict(data: Any, source: str = "<scenario>") -> Scenario:
    """A scenario from its JSON document.

    The document is structured into a :class:`ScenarioDocument` (each value
    checked at its path by the rules of :mod:`toolkit.fields`), from which
    the platform, the workload and the run are built.

    Raises
    ------
    InputError
        Naming every bad value by its path (a missing required key as
        ``path: missing key``), and every write that fits no mover.
    """
    document, problems = JSON.structure(data, ScenarioDocument, keys=_KEYS)
    if document is None:
        raise InputError(source, problems)
    platform = _platform(document.platform, problems)
    workload = _workload(document.workload, problems)
    section = document.disk_cache
    disk_cache = None if section is None else _disk_cache(section, problems)
    faults = None if document.faults is None else _faults(document.faults, problems)
    if problems or platform is None or workload is None:
        raise InputError(source, problems)
    run = document.run
    given = run.scheduler
    bw_main, mount_policy = _DEFAULT_RUN.bw_main, None
    if isinstance(given, MountedScheduler):
        scheduler, mount_policy = given.name, given.mount_policy
    elif isinstance(given, tuple):
        scheduler, bw_main = given
    else:
        scheduler = given
    scenario = Scenario(
        name=document.name,
        description=document.description,
        platform=platform,
        policy=document.policy.name,
        policy_params={
            key: value
            for key in ("block_mb", "threshold_mb")
            if (value := getattr(document.policy, key)) is not None
        },
        workload=workload,
        run=RunSettings(scheduler, run.seed, run.replications, run.warmup, bw_main, mount_policy),
        disk_cache=disk_cache,
        faults=faults,
    )
    problems = check_runnable(scenario)
    if problems:
        raise InputError(source, problems)
    return scenario


def check_runnable(scenario: Scenario) -> list[Problem]:
    """What keeps the scenario's policy from running its workload on its platform.

    Run again once command-line options have replaced the policy or the
    workload. Problems: a parameter the policy needs that the scenario lacks
    (``policy.block_mb``), a platform the ``golubchik`` scheduler cannot run
    (tapes not put away at once, movers), a request class wider than a
    library's drives, and a scheme some write of which fits no mover
    (a file of the smallest and of the largest size of the workload are
    tried, which covers HETERO's two sides of its threshold).
    """
    missing = [k for k in required_params(scenario.policy) if k not in scenario.policy_params]
    if missing:
        return [
            Problem(f"policy.{k}", f"{_MISSING} (the {scenario.policy} policy needs it)")
            for k in missing
        ]
    policy = make_policy(scenario.policy, **scenario.policy_params)
    with policy_guard(policy):
        return _unrunnable(scenario, policy)


def _unrunnable(scenario: Scenario, policy: Policy) -> list[Problem]:
    """What :func:`check_runnable` finds once the policy is made."""
    w = scenario.workload
    problems = []
    if scenario.run.mount_policy is not None and scenario.run.scheduler in (BW_MAIN, GOLUBCHIK):
        problems.append(
            Problem(
                "run.scheduler.mount_policy",
                f"the {scenario.run.scheduler} scheduler manages its drives itself "
                "and takes no mount policy",
            )
        )
    if scenario.run.scheduler == GOLUBCHIK and scenario.faults is not None:
        problems.append(
            Problem("faults", f"the {GOLUBCHIK} scheduler's drives one at a time have no faults")
        )
    if scenario.run.scheduler == GOLUBCHIK:
        if scenario.platform.dismount != "at-once":
            problems.append(
                Problem(
                    "platform.dismount",
                    f"the {GOLUBCHIK} scheduler needs at-once (each drive puts its tape away "
                    "as soon as its transfer ends)",
                )
            )
        if scenario.platform.movers:
            problems.append(
                Problem("platform.drives", f"the {GOLUBCHIK} scheduler needs drives without movers")
            )
    if w.archive is not None:
        try:
            make_archive(scenario, scenario.run.seed, policy)
        except ValueError as exc:
            problems.append(Problem("workload.initial_archive.tapes", str(exc)))
    for i, c in enumerate(w.classes):
        if c.share == 0:
            continue
        why = why_no_mover_fits(scenario.platform, policy, FileSpec("probe", c.size_mb, c.scheme))
        if why is not None:
            problems.append(Problem(f"workload.request_classes[{i}].width", why))
    for scheme, share in () if w.classes else w.schemes:
        if share == 0:
            continue
        for size_mb in dict.fromkeys((w.min_size_mb, w.max_size_mb)):
            why = why_no_mover_fits(scenario.platform, policy, FileSpec("probe", size_mb, scheme))
            if why is not None:
                problems.append(Problem(f"workload.schemes.{scheme}", why))
                break
    return problems


def make_archive(scenario: Scenario, seed: int, policy: Policy | None = None) -> Archive | None:
    """The archive of ``scenario``'s workload for a run with ``seed`` (``None``: it has none).

    Laid out by ``policy`` (by default the scenario's) on the scenario's
    platform, its files drawn like the workload's new files.

    Raises
    ------
    ValueError
        When the policy is one the archive cannot lay out, or its tapes
        hold no set of files.
    """
    w = scenario.workload
    if w.archive is None:
        return None
    if policy is None:
        policy = make_policy(scenario.policy, **scenario.policy_params)
    return Archive(
        w.archive,
        policy,
        sizes_mb=(w.min_size_mb, w.max_size_mb),
        schemes=w.schemes,
        data_ratio=w.data_ratio,
        ec_ratio=w.ec_ratio,
        capacity_mb=scenario.platform.tape_capacity_mb,
        libraries=[lib.id for lib in scenario.platform.libraries],
        seed=seed,
    )


def check_trace(scenario: Scenario, workload: Workload) -> list[Problem]:
    """The writes of a trace (:mod:`simulator.workload.requests_csv`) that fit no mover under the
    scenario's policy, each named by the line of the file's first request (``line N``)."""
    policy = make_policy(scenario.policy, **scenario.policy_params)
    problems = []
    seen: set[str] = set()
    for request in workload.requests:
        file = request.file
        if file.id in seen:
            continue
        seen.add(file.id)
        why = why_no_mover_fits(scenario.platform, policy, file)
        if why is not None:
            problems.append(Problem(f"line {request.id.removeprefix('r')}", why))
    return problems


def why_no_mover_fits(platform: PlatformSpec, policy: Policy, file: FileSpec) -> str | None:
    """Why a write of ``file`` under ``policy`` could never start; ``None`` when it can.

    A job runs on drives of one mover (of one library, without movers), and
    needs the mover's memory (``(X + Y) B`` for RAIT and PARALLEL), disk
    (``Y`` tapes of parity for VERTICAL) and bandwidth. Reads need no more
    than writes of the same file.
    """
    width = policy.write_width(file)
    memory = policy.write_memory_mb(file)
    disk = policy.stream_disk_mb(file, platform.tape_capacity_mb)
    specs = {m.id: m for m in platform.movers}
    members: dict[str, list[DriveSpec]] = {}
    for d in platform.drives:
        members.setdefault(d.mover or d.library, []).append(d)
    wide = [(specs.get(key, MoverSpec(key)), drives) for key, drives in members.items()]
    wide = [(m, drives) for m, drives in wide if len(drives) >= width]
    what = f"a write of {file.size_mb:g} MB under {policy.name} ({file.scheme})"
    if not wide:
        most = max(len(drives) for drives in members.values())
        unit = "mover" if platform.movers else "library"
        return f"{what} needs {width} drives of one {unit}; the most one has is {most}"
    roomy = [(m, drives) for m, drives in wide if m.memory_mb >= memory]
    if not roomy:
        most_mb = max(m.memory_mb for m, _ in wide)
        return f"{what} needs {memory:g} MB of mover memory; the most a mover has is {most_mb:g}"
    roomy = [(m, drives) for m, drives in roomy if m.disk_mb >= disk]
    if not roomy:
        return f"{what} needs {disk:g} MB of mover disk for its parity; movers have less"
    fast = [
        m
        for m, drives in roomy
        if m.bandwidth_mb_s is None or width * drives[0].model.rate_mb_s <= m.bandwidth_mb_s
    ]
    if not fast:
        return f"{what} streams {width} drives at once, past every mover's bandwidth_mb_s"
    return None


def load_scenario(path: str | os.PathLike[str]) -> Scenario:
    """A scenario file.

    Raises
    ------
    InputError
        When the file cannot be read, is not JSON, or holds bad values.
    """
    return scenario_from_dict(read_json(path), str(path))
