"""The axes of a site sweep (``--vary``) and its points, checked before any replay.

An axis is a run option of ``tapesched replay --site`` (:data:`RUN_AXES`) or a key of the
site's JSON document, named by its path as the site reader's errors write it
(``libraries[0].arms``, ``complex.pass_through_s``, ``pools[0].fill``); its values are
JSON scalars (:func:`scalar`). The points are the cartesian product of the axes, in the
order given, the first axis varying slowest (:func:`sweep_points`). Each point carries its
changed site document, read by :func:`toolkit.site.reader.site_from_dict` here, so that a
value the site cannot take is one line naming the axis and the value, before any run.

``drives`` is the site's drives: for a site whose drives are one counted group
(``"count": 16``), that group's count becomes the value (so it may grow); otherwise the
first N by the replay's own choice, N at most the site's drives.
"""

from __future__ import annotations

import copy
import itertools
import math
import re
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any, TypeVar

from attrs import field, frozen

from tapesched.studies.experiment import ExperimentError
from tapesched.toolkit.errors import InputError, SettingsError

Scalar = int | float | bool | str
"""A value of an axis."""

T = TypeVar("T")

SCENARIO_SECTIONS = ("workload", "run", "policy", "faults", "platform")
"""The first step of an axis that is a key of a scenario (``--scenario``); any other key's
path is the site's."""

RUN_AXES = ("drives", "scheduler", "mount-policy", "dismount-at-once", "seed")
"""The axes that are run options of ``tapesched replay --site`` (``seed``: the site's
placement seed)."""

DEFAULT_SCHEDULER = "tape-batching"
"""The scheduler of a point that does not vary it (``replay``'s)."""

_INTEGER = re.compile(r"-?\d+")
_STEP = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)((?:\[\d+\])*)")

UNKNOWN_HINT = (
    f"run options: {', '.join(RUN_AXES)}; or a key of the site by its path, such as "
    "libraries[0].arms or pools[0].fill"
)


def scalar(text: str) -> Scalar:
    """A value as JSON reads it: ``12`` an integer, ``2.5`` a number, ``true``/``false``,
    anything else a string."""
    if text in ("true", "false"):
        return text == "true"
    if _INTEGER.fullmatch(text):
        return int(text)
    try:
        value = float(text)
    except ValueError:
        return text
    return value if math.isfinite(value) else text


def attempt(call: Callable[[], T]) -> tuple[T | None, str | None]:
    """What ``call`` gives, or the first problem it raises as one line without its file
    (an :class:`~toolkit.errors.InputError`'s ``path: message``, a
    :class:`~toolkit.errors.SettingsError`'s message)."""
    try:
        return call(), None
    except InputError as exc:
        return None, str(exc.problems[0])
    except SettingsError as exc:
        return None, exc.problems[0].message


def shown_value(value: Scalar) -> str:
    """A value as ``--vary`` writes it (``true``, ``12``, ``lru``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@frozen
class SweepAxis:
    """An axis: its name (a run option or a site key's path) and values, in order."""

    name: str
    values: tuple[Scalar, ...]

    @property
    def numeric(self) -> bool:
        """Whether every value is a number (``true``/``false`` are not)."""
        return all(type(v) in (int, float) for v in self.values)


def parse_vary(text: str) -> list[SweepAxis]:
    """The axes of ``drives=8,12;mount-policy=lru,at-once``.

    Raises
    ------
    ExperimentError
        One line per bad axis: no ``=``, no value (or an empty one), an axis given twice.
    """
    axes: list[SweepAxis] = []
    problems: list[str] = []
    for item in (part.strip() for part in text.split(";")):
        if not item:
            continue
        name, equals, listed = (part.strip() for part in item.partition("="))
        values = [v.strip() for v in listed.split(",")]
        if not equals or not listed or "" in values:
            problems.append(
                f"--vary {item}: no value (expected NAME=V1,V2,... such as drives=8,12)"
            )
        elif name in [a.name for a in axes]:
            problems.append(f"--vary {name}: an axis given twice")
        else:
            axes.append(SweepAxis(name, tuple(scalar(v) for v in values)))
    if not axes and not problems:
        problems.append("--vary: no axis (expected NAME=V1,V2,... such as drives=8,12)")
    if problems:
        raise ExperimentError(problems)
    return axes


def key_path(name: str) -> list[str | int] | None:
    """The steps of a site key's path (``libraries[0].arms``: ``libraries``, 0, ``arms``),
    or ``None`` when ``name`` is no path of at least two steps."""
    steps: list[str | int] = []
    for part in name.split("."):
        match = _STEP.fullmatch(part)
        if match is None:
            return None
        steps.append(match.group(1))
        steps.extend(int(i) for i in re.findall(r"\[(\d+)\]", match.group(2)))
    return steps if len(steps) >= 2 else None


def _where(steps: Sequence[str | int]) -> str:
    out = ""
    for step in steps:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else step)
    return out


def parent_problem(
    document: Any, steps: Sequence[str | int], what: str = "site", *, made: bool = False
) -> str | None:
    """Why the parent of the key ``steps`` is not in ``document``, the ``what`` file's
    (``None``: it is). ``made``: an object left out is made by :func:`set_key` (a scenario
    may leave its ``policy`` or ``faults`` out), unless a list's item is asked of it."""
    node = document
    for k, step in enumerate(steps):
        last = k == len(steps) - 1
        if isinstance(step, int):
            if type(node) is not list:
                return f"{_where(steps[:k]) or 'the document'} is not a list"
            if step >= len(node):
                return f"{_where(steps[: k + 1])}: no such item (the {what} has {len(node)})"
        elif type(node) is not dict:
            return f"{_where(steps[:k])} is not an object"
        elif step not in node and not last:
            if made and all(isinstance(rest, str) for rest in steps[k:]):
                return None
            return f"{_where(steps[: k + 1])}: not in the {what} file"
        if not last:
            node = node[step]
    return None


def set_key(document: Any, steps: Sequence[str | int], value: Scalar) -> None:
    """Set the key ``steps`` of ``document`` to ``value``, making the objects of its parent
    that are not there (see :func:`parent_problem`)."""
    node = document
    for step in steps[:-1]:
        if isinstance(step, str) and step not in node:
            node[step] = {}
        node = node[step]
    node[steps[-1]] = value


def counted_group(document: Mapping[str, Any]) -> list[str | int] | None:
    """The path of the one drive group's ``count`` when the site's drives are one counted
    group, else ``None``."""
    groups = [
        (i, j, group)
        for i, library in enumerate(document.get("libraries") or [])
        if type(library) is dict
        for j, group in enumerate(library.get("drives") or [])
    ]
    if len(groups) != 1 or type(groups[0][2]) is not dict or "count" not in groups[0][2]:
        return None
    i, j, _ = groups[0]
    return ["libraries", i, "drives", j, "count"]


@frozen
class SitePoint:
    """One point of a sweep: its axes' values, the changed site document and how it runs.

    Attributes
    ----------
    values
        Each axis's name and its value at this point, in the axes' order.
    document
        The site's JSON document with the point's changes (read by the point itself).
    site_file, log_file
        The site file (names the site) and the request log (read by the point).
    columns, limit
        How the log is read (``--columns``, the first ``limit`` rows).
    drives
        Drives replayed (``None``: all the site's).
    keep_mounted, scheduler, mount_policy, homes_seed
        The replay's options (:func:`simulator.site.runs.replay_site`) and the placement
        seed (``None``: the site's).
    """

    values: tuple[tuple[str, Scalar], ...]
    document: dict[str, Any] = field(eq=False, repr=False)
    site_file: str
    log_file: str
    columns: Mapping[str, str] | None = None
    limit: int | None = None
    drives: int | None = None
    keep_mounted: bool = True
    scheduler: str = DEFAULT_SCHEDULER
    mount_policy: str | None = None
    homes_seed: int | None = None

    def options(self) -> dict[str, Any]:
        """The run options, as the cache key and ``summary.json`` hold them."""
        return {
            "drives": self.drives,
            "keep_mounted": self.keep_mounted,
            "scheduler": self.scheduler,
            "mount_policy": self.mount_policy,
            "homes_seed": self.homes_seed,
        }


def _run_value_problem(name: str, value: Scalar, drives: int, counted: bool) -> str | None:
    """Why a run option's axis cannot take ``value`` (``None``: it can)."""
    from tapesched.simulator.replay.replay import unreplayable
    from tapesched.simulator.scenario.consent import scheduler_problem
    from tapesched.solvers.online.mount_policy import MountPolicyError, parse_mount_policy

    if name in ("drives", "seed"):
        if type(value) is not int:
            return f"expected an integer, got {value!r}"
        if name == "seed":
            return None if value >= 0 else f"must be >= 0, got {value}"
        if value < 1:
            return f"must be >= 1, got {value}"
        if not counted and value > drives:
            return f"the site has {drives} drives in several groups: at most {drives}"
        return None
    if name == "dismount-at-once":
        return None if type(value) is bool else f"expected true or false, got {value!r}"
    if type(value) is not str:
        return f"expected a name, got {value!r}"
    if name == "scheduler":
        return unreplayable(value) or scheduler_problem(value)
    try:
        parse_mount_policy(value, future={})
    except MountPolicyError as exc:
        return str(exc)
    return None


def _site_problem(document: Any, site_file: str) -> str | None:
    """The first problem of a changed site document (``None``: the reader takes it)."""
    from tapesched.toolkit.site.reader import site_from_dict

    try:
        site_from_dict(document, site_file)
    except InputError as exc:
        return str(exc.problems[0])
    return None


def check_axes(axes: Sequence[SweepAxis], document: Mapping[str, Any], site_file: str) -> None:
    """Check each axis and each value alone against the site's ``document``.

    Raises
    ------
    ExperimentError
        One line per bad axis or value, naming it (``--vary libraries[0].arms=0:
        libraries[0].arms: must be >= 1, got 0``).
    """
    from tapesched.toolkit.site.reader import site_from_dict

    site = site_from_dict(document, site_file)
    counted = counted_group(document)
    problems: list[str] = []
    for axis in axes:
        if axis.name in RUN_AXES:
            for value in axis.values:
                why = _run_value_problem(axis.name, value, len(site.drives), counted is not None)
                if why is None and axis.name == "drives" and counted is not None:
                    changed = copy.deepcopy(dict(document))
                    set_key(changed, counted, value)
                    why = _site_problem(changed, site_file)
                if why is not None:
                    problems.append(f"--vary {axis.name}={shown_value(value)}: {why}")
            continue
        steps = key_path(axis.name)
        if steps is None:
            problems.append(f"--vary {axis.name}: unknown axis ({UNKNOWN_HINT})")
            continue
        if steps[0] in SCENARIO_SECTIONS:
            problems.append(
                f"--vary {axis.name}: a key of a scenario, which a replay has none of "
                "(sweep a scenario on the site with --scenario)"
            )
            continue
        why = parent_problem(document, steps)
        if why is not None:
            problems.append(f"--vary {axis.name}: {why}")
            continue
        for value in axis.values:
            changed = copy.deepcopy(dict(document))
            set_key(changed, steps, value)
            why = _site_problem(changed, site_file)
            if why is not None:
                problems.append(f"--vary {axis.name}={shown_value(value)}: {why}")
    if problems:
        raise ExperimentError(problems)


def sweep_points(
    axes: Sequence[SweepAxis],
    document: Mapping[str, Any],
    site_file: str,
    log_file: str,
    *,
    columns: Mapping[str, str] | None = None,
    limit: int | None = None,
) -> list[SitePoint]:
    """The points of ``axes`` (checked first, :func:`check_axes`): their cartesian product
    in the order given, each site document read and its run options checked together.

    Raises
    ------
    ExperimentError
        One line per bad axis or value, or per point whose values do not go together.
    """
    from tapesched.simulator.replay.trace_replay import check_scheduler
    from tapesched.toolkit.site.reader import site_from_dict

    check_axes(axes, document, site_file)
    counted = counted_group(document)
    points: list[SitePoint] = []
    problems: list[str] = []
    for combination in itertools.product(*(a.values for a in axes)):
        values = tuple((a.name, v) for a, v in zip(axes, combination, strict=True))
        changed = copy.deepcopy(dict(document))
        options: dict[str, Any] = {}
        for name, value in values:
            if name == "drives" and counted is not None:
                set_key(changed, counted, value)
            elif name == "drives":
                options["drives"] = value
            elif name == "scheduler":
                options["scheduler"] = value
            elif name == "mount-policy":
                options["mount_policy"] = value
            elif name == "dismount-at-once":
                options["keep_mounted"] = not value
            elif name == "seed":
                options["homes_seed"] = value
            else:
                set_key(changed, key_path(name) or [], value)
        said = ", ".join(f"{n}={shown_value(v)}" for n, v in values)
        point = SitePoint(values, changed, site_file, log_file, columns, limit, **options)
        site, why = attempt(partial(site_from_dict, changed, site_file))
        if site is not None:
            _, why = attempt(partial(check_scheduler, point.scheduler, point.mount_policy))
        if site is None or why is not None:
            problems.append(f"--vary {said}: {why}")
            continue
        if point.drives is not None and point.drives > len(site.drives):
            problems.append(f"--vary {said}: the site has {len(site.drives)} drives")
            continue
        points.append(point)
    if problems:
        raise ExperimentError(problems)
    return points
