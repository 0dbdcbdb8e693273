"""The archival policies by name, for scenario files and the command line.

Kept apart from :mod:`simulator.policy`, which every policy module imports,
so that the modules import one another in one direction only.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

from simulator.hetero import Hetero
from simulator.parallel import Parallel
from simulator.policy import Policy
from simulator.rait import Rait
from simulator.vertical import Vertical

POLICIES: dict[str, Callable[..., Policy]] = {
    policy.name: policy for policy in (Rait, Parallel, Vertical, Hetero)
}
"""Policy classes by name (each class's ``name``); built with the scenario's parameters
(``block_mb`` for RAIT, PARALLEL and HETERO, ``threshold_mb`` for HETERO)."""


def make_policy(name: str, **params: float) -> Policy:
    """The policy registered as ``name``, built with those of ``params`` it takes.

    A scenario names ``block_mb`` and ``threshold_mb`` once for every
    policy; VERTICAL takes neither, RAIT and PARALLEL only the block size.

    Raises
    ------
    ValueError
        For an unknown policy name.
    """
    try:
        factory = POLICIES[name]
    except KeyError:
        raise ValueError(f"unknown policy {name!r}; the policies are {sorted(POLICIES)}") from None
    accepted = inspect.signature(factory).parameters
    return factory(**{k: v for k, v in params.items() if k in accepted})


def required_params(name: str) -> tuple[str, ...]:
    """The parameters the policy ``name`` cannot be built without (``block_mb`` for RAIT,
    PARALLEL and HETERO; none for VERTICAL); ``()`` for an unknown name."""
    factory = POLICIES.get(name)
    if factory is None:
        return ()
    return tuple(
        p.name
        for p in inspect.signature(factory).parameters.values()
        if p.default is inspect.Parameter.empty
    )
