"""Scenario files: a platform, a policy, a workload and how to run them, in one versioned JSON.

Format ``tapesched-scenario/1`` (every key but ``format`` and ``platform``
optional; times are a number of seconds, fixed, or ``{"mean_s": m, "dist":
"exponential"}``)::

    {
      "format": "tapesched-scenario/1",
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

A drive group's ``model`` is a name of :data:`simulator.technology.DRIVE_MODELS`
or an object ``{"base": NAME, ...}`` overriding any of its fields
(``rate_mb_s``, ``load_s``, ``unload_s``, ``locate_mb_s``, ``capacity_mb``,
``block_s``). Drives are named ``<library>-d<k>`` and, with ``per_mover``,
served ``per_mover`` at a time by movers ``<library>-m<k>`` with the
``movers`` limits. ``pass_through_s`` (optional) joins the libraries by
pass-through ports: any drive may then take any tape, the arm taking that
much longer each way for a tape of another library. ``sizes`` is a size class of
:data:`simulator.workload.SIZE_CLASSES_MB` or ``[min_mb, max_mb]``. ``run.scheduler``
is a registered heuristic, a scheduler of one's own as ``module.path:Attr``
(imported when the file is read) or an entry point's name (see
:mod:`solvers.plugins`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import orjson
from attrs import evolve, frozen

from simulator.layout import Scheme
from simulator.platform import DriveSpec, LibrarySpec, MoverSpec, PlatformSpec
from simulator.policy_registry import POLICIES
from simulator.technology import DRIVE_MODELS, DriveModel, Duration
from simulator.workload import SIZE_CLASSES_MB, WorkloadParams, parse_duration, parse_rate
from solvers.plugins import SchedulerSpec, SchedulerSpecError, resolve_scheduler
from toolkit.errors import InputError, Problem

FORMAT = "tapesched-scenario/1"

T = TypeVar("T")


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
                self.fail(where, "missing")
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
    return number


def _positive(value: Any) -> float:
    number = _number(value)
    if not number > 0:
        raise ValueError(f"must be > 0, got {value!r}")
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
    if isinstance(value, str):
        return parse_duration(value)
    return _number(value)


def _rate_text(value: Any) -> float:
    if isinstance(value, str):
        return parse_rate(value)
    return _number(value)


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
        elif key in ("rate_mb_s", "locate_mb_s", "capacity_mb", "block_s"):
            changes[key] = _number(raw)
        else:
            raise ValueError(f"unknown drive model field {key!r}")
    return evolve(base, name=f"{base.name}*", **changes) if changes else base


def _platform(r: _Reader, data: Any) -> PlatformSpec | None:
    p = r.obj(
        data,
        "platform",
        {"libraries", "drives", "movers", "tape_capacity_mb", "dismount", "pass_through_s"},
    )
    libraries: list[LibrarySpec] = []
    for i, raw in enumerate(p.get("libraries") or []):
        path = f"platform.libraries[{i}]"
        lib = r.obj(raw, path, {"id", "arms", "mount_s", "dismount_s"})
        try:
            libraries.append(
                LibrarySpec(
                    id=_or(r.get(lib, path, "id", _text, required=True), f"L{i}"),
                    arms=_or(r.get(lib, path, "arms", _count, 1), 1),
                    mount_s=_or(
                        r.get(lib, path, "mount_s", Duration.from_json, Duration(0.0)),
                        Duration(0.0),
                    ),
                    dismount_s=_or(
                        r.get(lib, path, "dismount_s", Duration.from_json, Duration(0.0)),
                        Duration(0.0),
                    ),
                )
            )
        except ValueError as exc:
            r.fail(path, str(exc))
    if not p.get("libraries"):
        r.fail("platform.libraries", "at least one library is needed")
    movers_raw = r.obj(
        p.get("movers", {}), "platform.movers", {"memory_mb", "disk_mb", "bandwidth_mb_s"}
    )
    memory = r.get(movers_raw, "platform.movers", "memory_mb", _positive, float("inf"))
    disk = r.get(movers_raw, "platform.movers", "disk_mb", _positive, float("inf"))
    bandwidth = r.get(movers_raw, "platform.movers", "bandwidth_mb_s", _optional_number, None)
    drives: list[DriveSpec] = []
    movers: list[MoverSpec] = []
    groups = p.get("drives") or []
    if not groups:
        r.fail("platform.drives", "at least one drive group is needed")
    with_movers = any(isinstance(g, Mapping) and "per_mover" in g for g in groups)
    for i, raw in enumerate(groups):
        path = f"platform.drives[{i}]"
        g = r.obj(raw, path, {"library", "count", "model", "per_mover"})
        library = r.get(g, path, "library", _text, required=True)
        count = _or(r.get(g, path, "count", _count, 1), 1)
        model = r.get(g, path, "model", _model, required=True)
        per_mover = r.get(g, path, "per_mover", _integer, None)
        if per_mover is not None and per_mover < 1:
            r.fail(f"{path}.per_mover", "must be >= 1")
            per_mover = None
        if with_movers and per_mover is None:
            r.fail(f"{path}.per_mover", "every drive group has per_mover, or none does")
        if library is None or model is None or count < 1:
            if count < 1:
                r.fail(f"{path}.count", "must be >= 1")
            continue
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
    capacity = r.get(p, "platform", "tape_capacity_mb", _positive, 1_000_000.0)
    dismount = r.get(p, "platform", "dismount", _text, "on-demand")
    through = r.get(p, "platform", "pass_through_s", Duration.from_json, None)
    if r.problems:
        return None
    try:
        return PlatformSpec(
            libraries=tuple(libraries),
            drives=tuple(drives),
            movers=tuple(movers),
            tape_capacity_mb=_or(capacity, 1_000_000.0),
            dismount=dismount,  # type: ignore[arg-type]
            pass_through_s=through,
        )
    except ValueError as exc:
        r.fail("platform", str(exc))
        return None


def _schemes(value: Any) -> dict[Scheme, float]:
    if not isinstance(value, Mapping) or not value:
        raise ValueError('expected an object such as {"4+2": 0.5, "8+2": 0.5}')
    return {Scheme.parse(k): _number(v) for k, v in value.items()}


def _sizes(value: Any) -> tuple[float, float]:
    if isinstance(value, str):
        if value not in SIZE_CLASSES_MB:
            raise ValueError(f"unknown size class {value!r} (known: {', '.join(SIZE_CLASSES_MB)})")
        return SIZE_CLASSES_MB[value]
    if isinstance(value, list) and len(value) == 2:
        return (_number(value[0]), _number(value[1]))
    raise ValueError("expected a size class name or [min_mb, max_mb]")


def _pair(value: Any) -> tuple[float, float]:
    if isinstance(value, list) and len(value) == 2:
        return (_number(value[0]), _number(value[1]))
    raise ValueError("expected [low, high]")


TOP_KEYS = {"format", "name", "description", "sources", "platform", "policy", "workload", "run"}

WORKLOAD_KEYS = {
    "sizes", "rate", "duration", "read_share", "new_file_share", "initial_files",
    "schemes", "data_ratio", "ec_ratio",
}  # fmt: skip


def _workload(r: _Reader, data: Any) -> WorkloadParams | None:
    w = r.obj(data, "workload", WORKLOAD_KEYS)
    sizes = r.get(w, "workload", "sizes", _sizes, SIZE_CLASSES_MB["small"])
    kwargs: dict[str, Any] = {
        "rate_per_s": r.get(w, "workload", "rate", _rate_text, 800 / 3600),
        "duration_s": r.get(w, "workload", "duration", _duration_text, 7 * 86400.0),
    }
    for key, convert in (
        ("read_share", _number),
        ("new_file_share", _number),
        ("initial_files", _integer),
        ("schemes", _schemes),
        ("data_ratio", _pair),
        ("ec_ratio", _optional_number),
    ):
        value = r.get(w, "workload", key, convert)  # type: ignore[arg-type]
        if value is not None or (key == "ec_ratio" and key in w):
            kwargs[key] = value
    if r.problems or sizes is None:
        return None
    try:
        return WorkloadParams(min_size_mb=sizes[0], max_size_mb=sizes[1], **kwargs)
    except (TypeError, ValueError) as exc:
        r.fail("workload", str(exc))
        return None


def scenario_from_dict(data: Any, source: str = "<scenario>") -> Scenario:
    """A scenario from its JSON document.

    Raises
    ------
    InputError
        Naming every bad value by its path.
    """
    if not isinstance(data, Mapping):
        raise InputError(source, [Problem("", f"expected an object, got {data!r:.60}")])
    r = _Reader(source)
    top = r.obj(data, "", TOP_KEYS)
    if top.get("format") != FORMAT:
        r.fail("format", f"expected {FORMAT!r}, got {top.get('format')!r}")
    platform = _platform(r, top.get("platform", {})) if "platform" in top else None
    if "platform" not in top:
        r.fail("platform", "missing")
    policy_raw = r.obj(top.get("policy", {}), "policy", {"name", "block_mb", "threshold_mb"})
    policy = _or(r.get(policy_raw, "policy", "name", _text, "parallel"), "parallel")
    if policy not in POLICIES:
        r.fail("policy.name", f"unknown policy {policy!r} (known: {', '.join(POLICIES)})")
    params = {
        k: v
        for k in ("block_mb", "threshold_mb")
        if (v := r.get(policy_raw, "policy", k, _number)) is not None
    }
    workload = _workload(r, top.get("workload", {}))
    run_raw = r.obj(top.get("run", {}), "run", {"scheduler", "seed", "replications", "warmup"})
    run = RunSettings(
        scheduler=_or(r.get(run_raw, "run", "scheduler", _text, "fifo"), "fifo"),
        seed=_or(r.get(run_raw, "run", "seed", _integer, 1), 1),
        replications=_or(r.get(run_raw, "run", "replications", _integer, 1), 1),
        warmup=_or(r.get(run_raw, "run", "warmup", _number, 0.1), 0.1),
    )
    try:
        resolve_scheduler(run.scheduler)
    except SchedulerSpecError as exc:
        r.fail("run.scheduler", str(exc))
    if not 0 <= run.warmup < 1:
        r.fail("run.warmup", f"must be within [0, 1), got {run.warmup!r}")
    if run.replications < 1:
        r.fail("run.replications", "must be >= 1")
    if r.problems or platform is None or workload is None:
        raise InputError(source, r.problems)
    return Scenario(
        name=str(top.get("name", "scenario")),
        description=str(top.get("description", "")),
        platform=platform,
        policy=policy,
        policy_params=params,
        workload=workload,
        run=run,
    )


def load_scenario(path: str | os.PathLike[str]) -> Scenario:
    """A scenario file.

    Raises
    ------
    InputError
        When the file cannot be read, is not JSON, or holds bad values.
    """
    source = str(path)
    try:
        with open(path, "rb") as handle:
            text = handle.read()
    except OSError as exc:
        raise InputError(source, [Problem("", f"cannot read file: {exc.strerror}")]) from None
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise InputError(source, [Problem("", f"bad JSON: {exc}")]) from None
    return scenario_from_dict(data, source)
