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
        "schemes": {"4+2": 1.0}, "data_ratio": [1, 3], "ec_ratio": null
      },
      "run": {"scheduler": "fifo", "seed": 1, "replications": 1, "warmup": 0.1}
    }

Required keys, each reported as ``path: missing key`` when left out: what
makes the platform, the policy and the workload what they are, so that no
silent default changes a run (a missing rate once ran 800 requests an hour
in place of 60):

- ``format``, ``platform``, ``policy``, ``workload``;
- ``platform.libraries`` (at least one), each with ``id``, ``arms``,
  ``mount_s``, ``dismount_s``; ``platform.drives`` (at least one group), each
  with ``library``, ``count``, ``model``; ``platform.tape_capacity_mb``;
- ``policy.name`` (a name of :data:`simulator.policy_registry.POLICIES`, an
  installed package's policies included), and ``policy.block_mb`` for the
  policies that cut files into blocks (``rait``, ``parallel``, ``hetero``;
  :func:`required_params`);
- ``workload.rate``, ``workload.duration``, ``workload.sizes``,
  ``workload.schemes``.

Optional keys and their defaults, documented choices rather than figures of
a platform:

- ``name`` (``"scenario"``), ``description`` (``""``), ``sources``;
- ``platform.movers`` and each of its limits (no limit), a drive group's
  ``per_mover`` (no movers), ``platform.dismount`` (``on-demand``: tapes stay
  mounted until a drive is wanted), ``platform.pass_through_s`` (libraries
  not joined);
- ``policy.threshold_mb`` (HETERO's 1 GB, the paper's);
- ``workload.read_share`` (0.5), ``workload.new_file_share`` (0.9),
  ``workload.initial_files`` (1000), ``workload.data_ratio`` (``[1, 3]``),
  ``workload.ec_ratio`` (drawn in ``[1, C_D]``): the paper's Section 6.1;
- the whole ``run`` section: ``scheduler`` (``fifo``), ``seed`` (1),
  ``replications`` (1), ``warmup`` (0.1).

A drive group's ``model`` is a name of the technology table
(:data:`toolkit.technology.DRIVES`: ``LTO-7``, ``T10000D``, ``TS1160``,
``ampex``, ``exabyte``; :data:`simulator.technology.DRIVE_MODELS` are its
rows as drive models) or an object ``{"base": NAME, ...}`` overriding any
of its fields (``rate_mb_s``, ``load_s``, ``unload_s``, ``locate_mb_s``, ``capacity_mb``,
``block_s``). Drives are named ``<library>-d<k>`` and, with ``per_mover``,
served ``per_mover`` at a time by movers ``<library>-m<k>`` with the
``movers`` limits. ``pass_through_s`` (optional) joins the libraries by
pass-through ports: any drive may then take any tape, the arm taking that
much longer each way for a tape of another library. ``sizes`` is a size class of
:data:`simulator.workload.SIZE_CLASSES_MB` or ``[min_mb, max_mb]``. ``run.scheduler``
is a registered heuristic, a scheduler of one's own as ``module.path:Attr``
(imported when the file is read) or an entry point's name (see
:mod:`solvers.plugins`).
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
from typing import Any, TypeVar

from attrs import evolve, frozen

from simulator.files import FileSpec, Scheme
from simulator.platform import DriveSpec, LibrarySpec, MoverSpec, PlatformSpec
from simulator.policy import Policy
from simulator.policy_registry import POLICIES, make_policy, required_params
from simulator.technology import DRIVE_MODELS, DriveModel, Duration
from simulator.workload import SIZE_CLASSES_MB, Workload, WorkloadParams
from solvers.plugins import SchedulerSpec, SchedulerSpecError, resolve_scheduler
from toolkit.errors import InputError, Problem
from toolkit.io import read_json
from toolkit.model import OLD_SCENARIO_FORMATS, SCENARIO_FORMAT
from toolkit.registry import LoadError
from toolkit.units import (
    MAX_ARRIVALS,
    MAX_COUNT,
    MAX_RATE_MB_S,
    MAX_REPLICATIONS,
    MAX_SIMULATED_S,
    MAX_SIZE_MB,
    MAX_TIME_S,
    MIN_RATE_MB_S,
    bounded_duration,
    parse_duration,
    parse_rate,
)

FORMAT = SCENARIO_FORMAT
"""The format name scenario files are written with (``tapesched.scenario/1``)."""

READ_FORMATS = (SCENARIO_FORMAT, *OLD_SCENARIO_FORMATS)
"""Every format name read as a scenario: the current one and the earlier ones."""

T = TypeVar("T")

_MISSING = "missing key"

SCHEME_SHAPE = re.compile(r"\s*[0-9]+\s*\+\s*[0-9]+\s*")
"""How a scheme is written: ``X+Y``."""


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


class _Reader:
    """Reads a JSON document, collecting every problem with its path."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.problems: list[Problem] = []

    def fail(self, path: str, message: str) -> None:
        self.problems.append(Problem(path, message))

    def obj(self, data: Any, path: str, keys: set[str]) -> Mapping[str, Any]:
        if not isinstance(data, Mapping):
            self.fail(path, f"expected an object, got {data!r:.60}")
            return {}
        for key in data:
            if key not in keys:
                self.fail(
                    f"{path}.{key}".lstrip("."), f"unknown key (known: {', '.join(sorted(keys))})"
                )
        return data

    def section(
        self, data: Mapping[str, Any], key: str, keys: set[str]
    ) -> Mapping[str, Any] | None:
        """The object under the required top-level ``key``; ``None``, reported, when it is
        missing or not an object (its own keys are then not looked for)."""
        if key not in data:
            self.fail(key, _MISSING)
            return None
        if not isinstance(data[key], Mapping):
            self.obj(data[key], key, keys)
            return None
        return self.obj(data[key], key, keys)

    def get(
        self,
        data: Mapping[str, Any],
        path: str,
        key: str,
        convert: Callable[[Any], T],
        default: T | None = None,
        required: bool = False,
    ) -> T | None:
        where = f"{path}.{key}".lstrip(".")
        if key not in data:
            if required:
                self.fail(where, _MISSING)
            return default
        try:
            return convert(data[key])
        except (TypeError, ValueError) as exc:
            self.fail(where, str(exc))
            return default


def _or(value: T | None, default: T) -> T:
    """``value``, or ``default`` when it is missing (``None``), a zero kept as it is."""
    return default if value is None else value


def _count(value: Any) -> int:
    number = _integer(value)
    if number < 1:
        raise ValueError(f"must be >= 1, got {value!r}")
    if number > MAX_COUNT:
        raise ValueError(f"must be <= {MAX_COUNT:,}, got {value!r}")
    return number


def _positive(value: Any) -> float:
    number = _number(value)
    if not number > 0:
        raise ValueError(f"must be > 0, got {value!r}")
    return number


def _size(value: Any) -> float:
    """A size in MB: > 0 and at most :data:`~toolkit.units.MAX_SIZE_MB`."""
    number = _positive(value)
    if number > MAX_SIZE_MB:
        raise ValueError(f"must be <= {MAX_SIZE_MB:g} MB, got {value!r}")
    return number


def _bandwidth(value: Any) -> float | None:
    if value is None:
        return None
    number = _positive(value)
    if number > MAX_RATE_MB_S:
        raise ValueError(f"must be <= {MAX_RATE_MB_S:g} MB/s, got {value!r}")
    return number


def _seconds(value: Any) -> float:
    number = _number(value)
    if not 0 <= number <= MAX_TIME_S:
        raise ValueError(f"must be within [0, {MAX_TIME_S:g}] s, got {value!r}")
    return number


def _drive_rate(value: Any, key: str) -> float:
    number = _number(value)
    if not MIN_RATE_MB_S <= number <= MAX_RATE_MB_S:
        raise ValueError(
            f"{key} must be within [{MIN_RATE_MB_S:g}, {MAX_RATE_MB_S:g}] MB/s, got {value!r}"
        )
    return number


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"expected a number, got {value!r}")
    return float(value)


def _optional_number(value: Any) -> float | None:
    return None if value is None else _number(value)


def _integer(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"expected an integer, got {value!r}")
    return value


def _text(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError(f"expected a non-empty string, got {value!r}")
    return value


def _duration_text(value: Any) -> float:
    """A simulated span: a number of seconds, or a duration with its unit (``"4w"``)."""
    if isinstance(value, str):
        return parse_duration(value, unit_required=True, most_s=MAX_SIMULATED_S)
    seconds = _positive(value)
    return bounded_duration(seconds, MAX_SIMULATED_S, value)


def _rate_text(value: Any) -> float:
    """An arrival rate: a number per second, or a rate with its unit (``"65/h"``)."""
    if isinstance(value, str):
        return parse_rate(value)
    return _positive(value)


def _replications(value: Any) -> int:
    number = _integer(value)
    if number < 1:
        raise ValueError("must be >= 1")
    if number > MAX_REPLICATIONS:
        raise ValueError(f"must be <= {MAX_REPLICATIONS:,}, got {value!r}")
    return number


def _model(value: Any) -> DriveModel:
    if isinstance(value, str):
        if value not in DRIVE_MODELS:
            raise ValueError(f"unknown drive model {value!r} (known: {', '.join(DRIVE_MODELS)})")
        return DRIVE_MODELS[value]
    if not isinstance(value, Mapping) or "base" not in value:
        raise ValueError("a drive model is a name or an object with a base name")
    base = _model(value["base"])
    changes: dict[str, Any] = {}
    for key, raw in value.items():
        if key == "base":
            continue
        if key in ("load_s", "unload_s"):
            changes[key] = Duration.from_json(raw)
        elif key in ("rate_mb_s", "locate_mb_s"):
            changes[key] = _drive_rate(raw, key)
        elif key == "capacity_mb":
            changes[key] = _size(raw)
        elif key == "block_s":
            changes[key] = _seconds(raw)
        else:
            raise ValueError(f"unknown drive model field {key!r}")
    return evolve(base, name=f"{base.name}*", **changes) if changes else base


def _platform(r: _Reader, p: Mapping[str, Any]) -> PlatformSpec | None:
    libraries: list[LibrarySpec] = []
    listed = p.get("libraries")
    if "libraries" not in p:
        r.fail("platform.libraries", _MISSING)
    elif not isinstance(listed, list) or not listed:
        r.fail("platform.libraries", "at least one library is needed")
    for i, raw in enumerate(listed if isinstance(listed, list) else []):
        path = f"platform.libraries[{i}]"
        lib = r.obj(raw, path, {"id", "arms", "mount_s", "dismount_s"})
        ident = r.get(lib, path, "id", _text, required=True)
        arms = r.get(lib, path, "arms", _count, required=True)
        mount_s = r.get(lib, path, "mount_s", Duration.from_json, required=True)
        dismount_s = r.get(lib, path, "dismount_s", Duration.from_json, required=True)
        if ident is None or arms is None or mount_s is None or dismount_s is None:
            continue
        try:
            libraries.append(LibrarySpec(ident, arms, mount_s, dismount_s))
        except ValueError as exc:
            r.fail(path, str(exc))
    movers_raw = r.obj(
        p.get("movers", {}), "platform.movers", {"memory_mb", "disk_mb", "bandwidth_mb_s"}
    )
    memory = r.get(movers_raw, "platform.movers", "memory_mb", _size, float("inf"))
    disk = r.get(movers_raw, "platform.movers", "disk_mb", _size, float("inf"))
    bandwidth = r.get(movers_raw, "platform.movers", "bandwidth_mb_s", _bandwidth, None)
    drives: list[DriveSpec] = []
    movers: list[MoverSpec] = []
    groups = p.get("drives")
    if "drives" not in p:
        r.fail("platform.drives", _MISSING)
    elif not isinstance(groups, list) or not groups:
        r.fail("platform.drives", "at least one drive group is needed")
    groups = groups if isinstance(groups, list) else []
    with_movers = any(isinstance(g, Mapping) and "per_mover" in g for g in groups)
    total = 0
    for i, raw in enumerate(groups):
        path = f"platform.drives[{i}]"
        g = r.obj(raw, path, {"library", "count", "model", "per_mover"})
        library = r.get(g, path, "library", _text, required=True)
        count = r.get(g, path, "count", _count, required=True)
        model = r.get(g, path, "model", _model, required=True)
        per_mover = r.get(g, path, "per_mover", _count, None)
        if with_movers and per_mover is None and "per_mover" not in g:
            r.fail(f"{path}.per_mover", "every drive group has per_mover, or none does")
        if library is None or model is None or count is None:
            continue
        total += count
        if total > MAX_COUNT:
            r.fail(path + ".count", f"more than {MAX_COUNT:,} drives in all")
            break
        first = sum(1 for d in drives if d.library == library)
        for k in range(count):
            mover = None
            if per_mover:
                m = sum(1 for x in movers if x.id.startswith(f"{library}-m"))
                if k % per_mover == 0:
                    movers.append(
                        MoverSpec(
                            f"{library}-m{m:02d}",
                            _or(memory, float("inf")),
                            _or(disk, float("inf")),
                            bandwidth,
                        )
                    )
                mover = movers[-1].id
            drives.append(DriveSpec(f"{library}-d{first + k:03d}", library, model, mover))
    capacity = r.get(p, "platform", "tape_capacity_mb", _size, required=True)
    dismount = r.get(p, "platform", "dismount", _text, "on-demand")
    through = r.get(p, "platform", "pass_through_s", Duration.from_json, None)
    if r.problems or capacity is None:
        return None
    try:
        return PlatformSpec(
            libraries=tuple(libraries),
            drives=tuple(drives),
            movers=tuple(movers),
            tape_capacity_mb=capacity,
            dismount=dismount,  # type: ignore[arg-type]
            pass_through_s=through,
        )
    except ValueError as exc:
        r.fail("platform", str(exc))
        return None


def _schemes(r: _Reader, w: Mapping[str, Any]) -> dict[Scheme, float] | None:
    """The scheme probabilities, each bad scheme or share reported at ``workload.schemes.X+Y``."""
    if "schemes" not in w:
        r.fail("workload.schemes", _MISSING)
        return None
    value = w["schemes"]
    if not isinstance(value, Mapping) or not value:
        r.fail("workload.schemes", 'expected an object such as {"4+2": 0.5, "8+2": 0.5}')
        return None
    schemes: dict[Scheme, float] = {}
    for key, share in value.items():
        # A key that is no X+Y at all is a fault of the object (the message names it);
        # a scheme out of range or a bad share is at its own path.
        where = f"workload.schemes.{key}" if SCHEME_SHAPE.fullmatch(key) else "workload.schemes"
        try:
            schemes[Scheme.parse(key)] = _number(share)
        except ValueError as exc:
            r.fail(where, str(exc))
    return schemes if len(schemes) == len(value) else None


def _sizes(value: Any) -> tuple[float, float]:
    if isinstance(value, str):
        if value not in SIZE_CLASSES_MB:
            raise ValueError(f"unknown size class {value!r} (known: {', '.join(SIZE_CLASSES_MB)})")
        return SIZE_CLASSES_MB[value]
    if isinstance(value, list) and len(value) == 2:
        return (_size(value[0]), _size(value[1]))
    raise ValueError("expected a size class name or [min_mb, max_mb]")


def _pair(value: Any) -> tuple[float, float]:
    if isinstance(value, list) and len(value) == 2:
        return (_number(value[0]), _number(value[1]))
    raise ValueError("expected [low, high]")


def _initial_files(value: Any) -> int:
    number = _integer(value)
    if number > MAX_COUNT:
        raise ValueError(f"must be <= {MAX_COUNT:,}, got {value!r}")
    return number


TOP_KEYS = {"format", "name", "description", "sources", "platform", "policy", "workload", "run"}

PLATFORM_KEYS = {"libraries", "drives", "movers", "tape_capacity_mb", "dismount", "pass_through_s"}

WORKLOAD_KEYS = {
    "sizes", "rate", "duration", "read_share", "new_file_share", "initial_files",
    "schemes", "data_ratio", "ec_ratio",
}  # fmt: skip


def _workload(r: _Reader, w: Mapping[str, Any]) -> WorkloadParams | None:
    sizes = r.get(w, "workload", "sizes", _sizes, required=True)
    rate = r.get(w, "workload", "rate", _rate_text, required=True)
    duration = r.get(w, "workload", "duration", _duration_text, required=True)
    schemes = _schemes(r, w)
    kwargs: dict[str, Any] = {}
    for key, convert in (
        ("read_share", _number),
        ("new_file_share", _number),
        ("initial_files", _initial_files),
        ("data_ratio", _pair),
        ("ec_ratio", _optional_number),
    ):
        value = r.get(w, "workload", key, convert)  # type: ignore[arg-type]
        if value is not None or (key == "ec_ratio" and key in w):
            kwargs[key] = value
    if r.problems or sizes is None or rate is None or duration is None or schemes is None:
        return None
    if rate * duration > MAX_ARRIVALS:
        r.fail("workload", arrivals_message(rate, duration))
        return None
    try:
        return WorkloadParams(
            min_size_mb=sizes[0],
            max_size_mb=sizes[1],
            rate_per_s=rate,
            duration_s=duration,
            schemes=schemes,
            **kwargs,
        )
    except (TypeError, ValueError) as exc:
        r.fail("workload", str(exc))
        return None


def arrivals_message(rate_per_s: float, duration_s: float) -> str:
    """Why a run of this rate and duration is refused: it would draw too many requests."""
    return (
        f"rate x duration expects {rate_per_s * duration_s:,.0f} requests, more than the "
        f"{MAX_ARRIVALS:,} one replication may draw; lower the rate or the duration"
    )


def _policy(r: _Reader, top: Mapping[str, Any]) -> tuple[str | None, dict[str, float]]:
    raw = r.section(top, "policy", {"name", "block_mb", "threshold_mb"})
    if raw is None:
        return None, {}
    name = r.get(raw, "policy", "name", _text, required=True)
    if name is not None:
        try:
            POLICIES.load(name)
        except LoadError as exc:
            r.fail("policy.name", str(exc))
    params = {
        k: v
        for k in ("block_mb", "threshold_mb")
        if (v := r.get(raw, "policy", k, _size)) is not None
    }
    return name, params


def scenario_from_dict(data: Any, source: str = "<scenario>") -> Scenario:
    """A scenario from its JSON document.

    Raises
    ------
    InputError
        Naming every bad value by its path (a missing required key as
        ``path: missing key``), and every write that fits no mover.
    """
    if not isinstance(data, Mapping):
        raise InputError(source, [Problem("", f"expected an object, got {data!r:.60}")])
    r = _Reader(source)
    top = r.obj(data, "", TOP_KEYS)
    if top.get("format") not in READ_FORMATS:
        r.fail("format", f"expected {FORMAT!r}, got {top.get('format')!r}")
    platform_raw = r.section(top, "platform", PLATFORM_KEYS)
    platform = None if platform_raw is None else _platform(r, platform_raw)
    policy, params = _policy(r, top)
    workload_raw = r.section(top, "workload", WORKLOAD_KEYS)
    workload = None if workload_raw is None else _workload(r, workload_raw)
    run_raw = r.obj(top.get("run", {}), "run", {"scheduler", "seed", "replications", "warmup"})
    run = RunSettings(
        scheduler=_or(r.get(run_raw, "run", "scheduler", _text, "fifo"), "fifo"),
        seed=_or(r.get(run_raw, "run", "seed", _integer, 1), 1),
        replications=_or(r.get(run_raw, "run", "replications", _replications, 1), 1),
        warmup=_or(r.get(run_raw, "run", "warmup", _number, 0.1), 0.1),
    )
    try:
        resolve_scheduler(run.scheduler)
    except SchedulerSpecError as exc:
        r.fail("run.scheduler", str(exc))
    if not 0 <= run.warmup < 1:
        r.fail("run.warmup", f"must be within [0, 1), got {run.warmup!r}")
    if r.problems or platform is None or workload is None or policy is None:
        raise InputError(source, r.problems)
    scenario = Scenario(
        name=str(top.get("name", "scenario")),
        description=str(top.get("description", "")),
        platform=platform,
        policy=policy,
        policy_params=params,
        workload=workload,
        run=run,
    )
    problems = check_runnable(scenario)
    if problems:
        raise InputError(source, problems)
    return scenario


def check_runnable(scenario: Scenario) -> list[Problem]:
    """What keeps the scenario's policy from running its workload on its platform.

    Run again once command-line options have replaced the policy or the
    workload. Problems: a parameter the policy needs that the scenario lacks
    (``policy.block_mb``), and a scheme some write of which fits no mover
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
    w = scenario.workload
    problems = []
    for scheme, share in w.schemes:
        if share == 0:
            continue
        for size_mb in dict.fromkeys((w.min_size_mb, w.max_size_mb)):
            why = why_no_mover_fits(scenario.platform, policy, FileSpec("probe", size_mb, scheme))
            if why is not None:
                problems.append(Problem(f"workload.schemes.{scheme}", why))
                break
    return problems


def check_trace(scenario: Scenario, workload: Workload) -> list[Problem]:
    """The writes of a trace (:mod:`simulator.requests_csv`) that fit no mover under the
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
