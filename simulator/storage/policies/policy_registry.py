"""The archival policies by name, for scenario files and the command line.

:data:`POLICIES` (a :class:`toolkit.registry.Registry`) declares each
policy once, by name, and imports its module only when it is first built;
installed packages add theirs through entry points of the group
:data:`ENTRY_POINT_GROUP`. Its names are checked in one place: a scenario's
``policy.name``, ``tapesched simulate --policy`` (whose choices are these
names) and :func:`make_policy` all ask it.

Kept apart from :mod:`simulator.storage.policies.policy`, which every policy module imports,
so that the modules import one another in one direction only.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from tapesched.toolkit.registry import Registry, UnknownNameError, qualified_name
from tapesched.toolkit.runtime.plugin_calls import Plugin, call_plugin, guarded

if TYPE_CHECKING:
    from tapesched.simulator.storage.policies.policy import Policy

ENTRY_POINT_GROUP = "tapesched.policies"
"""Entry-point group in which packages declare their policies (``name = module:Class``)."""

POLICIES: Registry[Callable[..., Policy]] = Registry("policy", group=ENTRY_POINT_GROUP)
"""Policy classes by name (each class's ``name``); built with the scenario's parameters
(``block_mb`` for RAIT, PARALLEL and HETERO, optional for SINGLE, ``threshold_mb`` for
HETERO)."""

POLICIES.declare(
    "single",
    "tapesched.simulator.storage.policies.single:Single",
    "SINGLE: each file whole on one tape, one copy, no parity",
)
POLICIES.declare(
    "rait",
    "tapesched.simulator.storage.policies.rait:Rait",
    "RAIT: rows of X data and Y parity blocks on X+Y tapes at once, rotating from row to row",
)
POLICIES.declare(
    "parallel",
    "tapesched.simulator.storage.policies.parallel:Parallel",
    "PARALLEL: contiguous runs of blocks on X data tapes, parity on Y tapes of its own",
)
POLICIES.declare(
    "vertical",
    "tapesched.simulator.storage.policies.vertical:Vertical",
    "VERTICAL: one drive fills X data tapes in turn, then writes their parity from disk",
)
POLICIES.declare(
    "hetero",
    "tapesched.simulator.storage.policies.hetero:Hetero",
    "HETERO: VERTICAL for files below threshold_mb, PARALLEL for the others",
)


def make_policy(name: str, **params: float) -> Policy:
    """The policy registered as ``name``, built with those of ``params`` it takes.

    A scenario names ``block_mb`` and ``threshold_mb`` once for every
    policy; VERTICAL takes neither, RAIT, PARALLEL and SINGLE only the block
    size (SINGLE has a default).

    Raises
    ------
    toolkit.registry.UnknownNameError
        (a ``ValueError``) for an unknown policy name, listing the known ones.
    toolkit.runtime.plugin_calls.PluginError
        When an installed package's policy fails to be made.
    """
    factory = POLICIES.load(name)
    accepted = inspect.signature(factory).parameters
    given = {k: v for k, v in params.items() if k in accepted}
    if POLICIES.entry(name).plugin is None:
        return factory(**given)
    return call_plugin(name, "make", lambda: factory(**given))


def policy_plugins(policy: object) -> tuple[Plugin, ...]:
    """``policy`` as a plug-in named ``module:Class`` when an installed package's, else ``()``."""
    own = Plugin.of(qualified_name(policy), type(policy).__module__, decides=False)
    return () if own is None else (own,)


def policy_guard(policy: object) -> AbstractContextManager[None]:
    """Wraps the calls of ``policy``: when it is an installed package's and fails, the failure
    is one :class:`~toolkit.runtime.plugin_calls.PluginError` naming it (the project's pass as they
    are)."""
    return guarded(policy_plugins(policy))


def required_params(name: str) -> tuple[str, ...]:
    """The parameters the policy ``name`` cannot be built without (``block_mb`` for RAIT,
    PARALLEL and HETERO; none for VERTICAL and SINGLE); ``()`` for an unknown name."""
    try:
        factory = POLICIES.load(name)
    except UnknownNameError:
        return ()
    return tuple(
        p.name
        for p in inspect.signature(factory).parameters.values()
        if p.default is inspect.Parameter.empty
    )
