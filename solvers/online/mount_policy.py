"""Mount policies by spec: the rules a spec joins, the registries of plug-ins, and the scheduler.

A mount policy (the plug point :class:`~solvers.online.mount_protocol.MountPolicy`:
which idle tape a mount evicts, when an idle tape goes, which queue may
mount) is named by a spec, read by :func:`parse_mount_policy`, and put
around a scheduler by :func:`with_mount_policy`
(:class:`~solvers.online.mount_policied.MountPolicied`).

Specs
    ``keep``, ``lru``, ``fifo``, ``lfu``, ``belady``, ``at-once``,
    ``defer:T`` (a duration: ``300``, ``5min``),
    ``cta:bytes=B,files=N,age=T[,drives=D]`` (``bytes`` with an optional
    unit, ``2GB``; ``age`` required: CTA's mount policies always carry a
    minimum request age, and without one a short queue would wait for
    ever), ``dcache:share=S,min-wait=T,max-age=T,tapes=N`` (dCache's
    defaults: 0.8, 2min, 1h, 1), joined by ``+`` (``lru+defer:300``,
    ``cta:...+lfu``; one of each kind); or ``module.path:Attr``, a
    mount policy of one's own (a class or factory called with no arguments,
    or an object), as schedulers are plugged in (:mod:`solvers.plugins`).
    The eviction rules are those of :mod:`solvers.online.evictions`, the
    criteria those of :mod:`solvers.online.mount_criteria`.

Plug-ins
    Two registries (:class:`toolkit.registry.Registry`) take what installed
    packages add. :data:`EVICTIONS` names the eviction rules (an
    :class:`~solvers.online.mount_protocol.Eviction`, a class or factory
    made with those of ``instance`` and ``future`` it takes, as
    :class:`~solvers.online.evictions.Belady` is): ``lru``, ``fifo``,
    ``lfu``, ``belady``, and the entry points of :data:`EVICTION_GROUP`,
    each name one eviction of a spec (``my-rule+defer:300``).
    :data:`MOUNT_POLICIES` takes whole mount policies of one's own: the
    entry points of :data:`MOUNT_POLICY_GROUP`, each name a spec by itself,
    made as a ``module.path:Attr`` is, which it also resolves; a
    ``module.path:Attr`` that gives an eviction rule (a method ``choose``)
    is that rule, the placement's dismounts and no criteria. A spec's own
    words (``keep``, ``at-once``, ``defer``, ``cta``, ``dcache``) and the
    declared evictions come before any plug-in of that name.
"""

from __future__ import annotations

import copy
import inspect
import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import cast

from tapesched.solvers.online.mount_criteria import CtaCriteria, DCacheSelection
from tapesched.solvers.online.mount_policied import MountPolicied
from tapesched.solvers.online.mount_protocol import KEEP, Criteria, Eviction, MountPolicy, Rules
from tapesched.solvers.online.protocol import Scheduler
from tapesched.toolkit.model import Instance
from tapesched.toolkit.registry import LoadError, Registry, taken_params
from tapesched.toolkit.runtime.plugin_calls import Plugin, PluginError, call_plugin, exception_line
from tapesched.toolkit.units import parse_duration


class MountPolicyError(LoadError):
    """A mount policy spec that gives no mount policy (one line)."""


EVICTION_GROUP = "tapesched.evictions"
"""Entry-point group in which packages declare eviction rules (``name = module:Class``)."""

MOUNT_POLICY_GROUP = "tapesched.mount_policies"
"""Entry-point group in which packages declare whole mount policies (``name = module:Class``)."""

EVICTIONS: Registry[Callable[..., Eviction]] = Registry(
    "eviction", group=EVICTION_GROUP, failure=MountPolicyError
)
"""The eviction rules by name (``keep`` is none: the placement's own choice); an offline
rule, which reads future requests, has the metadata ``offline=True``."""

EVICTIONS.declare(
    "lru", "tapesched.solvers.online.evictions:Lru", "evict the tape used least recently"
)
EVICTIONS.declare(
    "fifo", "tapesched.solvers.online.evictions:FifoEviction", "evict the tape mounted first"
)
EVICTIONS.declare(
    "lfu",
    "tapesched.solvers.online.evictions:Lfu",
    "evict the tape used least often since its mount (ties: least recently used)",
)
EVICTIONS.declare(
    "belady",
    "tapesched.solvers.online.evictions:Belady",
    "evict the tape needed again furthest ahead (offline: Belady's MIN)",
    offline=True,
)

MOUNT_POLICIES: Registry[Callable[[], MountPolicy]] = Registry(
    "mount policy",
    group=MOUNT_POLICY_GROUP,
    failure=MountPolicyError,
    reserved=EVICTIONS,
    hint="; or give module.path:Attr",
)
"""Whole mount policies of installed packages, by the names of their entry points (the
project's own are written as rules: see the module); an entry point named as an eviction is
never used."""

_WITH_OPTIONS = ("defer", "cta", "dcache")
"""The rules written ``name:options``; any other ``a:b`` is a mount policy of one's own."""

_WORDS = ("keep", "at-once", *_WITH_OPTIONS)
"""The spec's own words, which no plug-in's name overrides."""

_SIZE = re.compile(r"\s*([0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?)\s*([kKmMgGtTpP]?)B?\s*")
_SIZE_MB = {"": 1e-6, "k": 1e-3, "m": 1.0, "g": 1e3, "t": 1e6, "p": 1e9}


def _bytes_mb(text: str) -> float:
    """Megabytes in ``text``, bytes with an optional decimal unit: ``2e9``, ``500MB``, ``2GB``."""
    match = _SIZE.fullmatch(text)
    if match is None:
        raise MountPolicyError(f"bytes: expected a size such as 2e9, 500MB or 2GB, got {text!r}")
    return float(match.group(1)) * _SIZE_MB[match.group(2).lower()]


def _options(kind: str, text: str, known: Sequence[str]) -> dict[str, str]:
    options: dict[str, str] = {}
    for item in filter(None, text.split(",")):
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or key not in known:
            raise MountPolicyError(
                f"{kind}: expected {', '.join(k + '=' for k in known)}, got {item!r}"
            )
        if key in options:
            raise MountPolicyError(f"{kind}: {key} given twice")
        options[key] = value.strip()
    return options


def _seconds(kind: str, key: str, text: str) -> float:
    """A duration (:func:`toolkit.units.parse_duration`), or 0 written as a number."""
    try:
        if float(text) == 0:
            return 0.0
    except ValueError:
        pass
    try:
        return parse_duration(text)
    except ValueError as exc:
        raise MountPolicyError(f"{kind}: {key}: {exc}") from None


def _count(kind: str, key: str, text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise MountPolicyError(f"{kind}: {key} must be an integer, got {text!r}") from None
    if value < least:
        raise MountPolicyError(f"{kind}: {key} must be at least {least}, got {value}")
    return value


def _cta(text: str) -> CtaCriteria:
    options = _options("cta", text, ("bytes", "files", "age", "drives"))
    if "age" not in options:
        raise MountPolicyError("cta: age=SECONDS is required (CTA's minimum request age)")
    return CtaCriteria(
        min_age_s=_seconds("cta", "age", options["age"]),
        min_mb=_bytes_mb(options["bytes"]) if "bytes" in options else math.inf,
        min_files=_count("cta", "files", options["files"], 1) if "files" in options else math.inf,
        max_drives=_count("cta", "drives", options["drives"], 1) if "drives" in options else None,
    )


def _dcache(text: str, capacity_mb: Callable[[str], float] | None) -> DCacheSelection:
    options = _options("dcache", text, ("share", "min-wait", "max-age", "tapes"))
    if capacity_mb is None:
        raise MountPolicyError("dcache: needs the tapes' capacities, which this run does not give")
    share = 0.8
    if "share" in options:
        try:
            share = float(options["share"])
        except ValueError:
            share = math.nan
        if not 0 <= share <= 1:
            raise MountPolicyError(f"dcache: share must be within [0, 1], got {options['share']!r}")
    return DCacheSelection(
        capacity_mb=capacity_mb,
        min_share=share,
        min_wait_s=_seconds("dcache", "min-wait", options.get("min-wait", "120")),
        max_age_s=_seconds("dcache", "max-age", options.get("max-age", "3600")),
        max_tapes=_count("dcache", "tapes", options.get("tapes", "1"), 1),
    )


def is_plugged(spec: str) -> bool:
    """Whether ``spec`` names a mount policy of one's own, ``module.path:Attr``."""
    spec = spec.strip()
    return ":" in spec and "+" not in spec and spec.partition(":")[0] not in _WITH_OPTIONS


def _is_eviction(obj: object) -> bool:
    """Whether ``obj`` (a class or an object) is an eviction rule rather than a mount policy."""
    return callable(getattr(obj, "choose", None)) and not callable(getattr(obj, "evict", None))


def _made(spec: str, obj: object, params: Mapping[str, object]) -> object:
    """What the plug-in ``obj`` that ``spec`` names makes, through
    :func:`~toolkit.runtime.plugin_calls.call_plugin`: a class or factory called (an eviction
    rule's class with those of ``params`` it takes), an object copied; whatever its factory
    raises (``sys.exit`` too) is one line."""
    factory = inspect.isclass(obj) or (callable(obj) and not isinstance(obj, MountPolicy))
    if factory:
        given = taken_params(cast(Callable[..., object], obj), params) if _is_eviction(obj) else {}
        made_by = cast(Callable[..., object], obj)

        def make() -> object:
            return made_by(**given)

    else:

        def make() -> object:
            return copy.deepcopy(obj)

    try:
        return call_plugin(spec, "make", make)
    except PluginError as exc:
        why = exception_line(exc.error)
        raise MountPolicyError(f"{spec}: cannot make a mount policy: {why}") from exc


def _plugged(spec: str, params: Mapping[str, object]) -> MountPolicy:
    """The mount policy of one's own that ``spec`` names (``module.path:Attr`` or an entry
    point of :data:`MOUNT_POLICIES`), imported and made here; an eviction rule is that rule
    with the placement's dismounts and no criteria."""
    made = _made(spec, MOUNT_POLICIES.resolve(spec).value, params)
    if not isinstance(made, MountPolicy) and _is_eviction(made):
        return Rules(cast(Eviction, made))
    if not isinstance(made, MountPolicy):
        raise MountPolicyError(f"{spec}: not a mount policy (evict, dismount_s, admit, recheck_s)")
    return made


def _eviction(name: str, params: Mapping[str, object | None]) -> Eviction:
    """The eviction rule ``name`` (declared or an installed package's), made with those of
    ``params`` (``instance``, ``future``) it takes; an offline rule needs one of them."""
    if EVICTIONS.entry(name).metadata.get("offline") and all(v is None for v in params.values()):
        raise MountPolicyError(
            f"{name} is offline (it reads future requests): "
            "use it with `tapesched solve` or `tapesched replay`, not in `simulate`"
        )
    factory = EVICTIONS.load(name)
    if EVICTIONS.entry(name).plugin is None:
        return factory(**taken_params(factory, params))
    made = _made(name, factory, params)
    if not _is_eviction(made):
        raise MountPolicyError(f"{name}: not an eviction rule (choose)")
    return cast(Eviction, made)


def _unknown(part: str) -> MountPolicyError:
    """The error for a part of a spec that no rule or plug-in has, listing what one may give."""
    evictions = ", ".join(EVICTIONS.known())
    plugged = "".join(f", {name}" for name in MOUNT_POLICIES.plugin_names())
    return MountPolicyError(
        f"unknown mount policy {part.strip()!r}: expected keep, {evictions}, "
        f"at-once, defer:T, cta:..., dcache:... (joined by +){plugged} or module.path:Attr"
    )


def parse_mount_policy(
    spec: str,
    *,
    instance: Instance | None = None,
    capacity_mb: Callable[[str], float] | None = None,
    future: Mapping[str, Sequence[float]] | None = None,
) -> MountPolicy:
    """The mount policy ``spec`` names (see *Specs* in the module's text).

    Parameters
    ----------
    spec
        The spec.
    instance
        The instance dispatched, for ``belady`` (offline) and the tapes'
        capacities; ``None`` in the simulator, which refuses ``belady``.
    capacity_mb
        Capacity of each tape by id, for ``dcache`` (from ``instance`` when
        not given).
    future
        Arrival times of the requests for each tape, for ``belady`` in a run
        that knows its future without an instance (a trace replayed).

    Raises
    ------
    MountPolicyError
        With a one-line message, for a spec that gives no mount policy.
    """
    spec = spec.strip()
    params = {"instance": instance, "future": future}
    if is_plugged(spec):
        return _plugged(spec, params)
    if capacity_mb is None and instance is not None:
        capacities = {tape.id: tape.capacity_mb for tape in instance.tapes}
        capacity_mb = capacities.__getitem__
    eviction: Eviction | None = None
    idle_s: float | None = None
    criteria: Criteria | None = None
    kinds: set[str] = set()

    def once(kind: str, part: str) -> None:
        if kind in kinds:
            raise MountPolicyError(f"{spec!r}: two {kind} rules ({part!r} is the second)")
        kinds.add(kind)

    parts = spec.split("+")
    for part in parts:
        name, _, rest = part.strip().partition(":")
        if name == "keep" and not rest:
            once("eviction", part)
        elif name == "at-once" and not rest:
            once("dismount", part)
            idle_s = 0.0
        elif name == "defer":
            once("dismount", part)
            idle_s = _seconds("defer", "T", rest) if rest else None
            if idle_s is None:
                raise MountPolicyError(
                    "defer: expected defer:T, T the idle seconds, e.g. defer:300"
                )
        elif name == "cta":
            once("criteria", part)
            criteria = _cta(rest)
        elif name == "dcache":
            once("criteria", part)
            criteria = _dcache(rest, capacity_mb)
        elif not rest and (name in EVICTIONS or name in EVICTIONS.plugin_names()):
            once("eviction", part)
            eviction = _eviction(name, params)
        elif not rest and name in MOUNT_POLICIES.plugin_names():
            if len(parts) > 1:
                raise MountPolicyError(
                    f"{spec!r}: {name} is a whole mount policy, not a rule to join with +"
                )
            return _plugged(name, params)
        else:
            raise _unknown(part)
    return Rules(eviction, idle_s, criteria)


def mount_policy_plugins(spec: str | None) -> tuple[Plugin, ...]:
    """The plug-ins whose code a run under ``spec`` calls: a ``module.path:Attr``, and the
    installed packages' evictions and mount policies it names; none for the project's rules.

    Reads the names only (nothing is imported), so that a run's failure in a plug-in's code
    is blamed on it (:func:`solvers.plugins.with_plugins`).
    """
    if spec is None:
        return ()
    spec = spec.strip()
    if is_plugged(spec):
        found = Plugin.of(spec, spec.partition(":")[0])
        return () if found is None else (found,)
    plugins = []
    for part in spec.split("+"):
        name, _, rest = part.strip().partition(":")
        if rest or name in _WORDS or name in EVICTIONS:
            continue
        for registry in (EVICTIONS, MOUNT_POLICIES):
            if name in registry.plugin_names():
                found = Plugin.of(name, registry.entry(name).target.partition(":")[0])
                plugins += [] if found is None else [found]
                break
    return tuple(plugins)


def with_mount_policy(scheduler: Scheduler, policy: MountPolicy | None) -> Scheduler:
    """``scheduler`` under ``policy`` (:class:`~solvers.online.mount_policied.MountPolicied`);
    as it is under :data:`~solvers.online.mount_protocol.KEEP`."""
    if policy is None or policy == KEEP:
        return scheduler
    return MountPolicied(scheduler, policy)
