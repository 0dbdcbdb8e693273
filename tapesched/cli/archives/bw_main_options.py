"""The five parameters of ``bw-main`` as options of ``simulate``.

The Blue Waters paper names them (MAXLIGHTLOAD, MINLBINTERVAL,
MAXWAITINGTIME, MAXREQCOUNT, MAXIMBALANCE) and gives no values;
:class:`simulator.schedulers.bw_main.BwMainParams` holds the defaults chosen. They
are refused, one line per option, when the scheduler that runs is not
``bw-main`` (:func:`simulator.results.replications.with_overrides`); the swept
experiments declare the same options
(:data:`tapesched.studies.sweeps.swept_study.BW_MAIN_PARAMETERS`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from tapesched.cli.common import DurationType, NumberType
from tapesched.toolkit.units import MAX_COUNT

BW_MAIN_OPTIONS = {
    "max_light_load": "--max-light-load",
    "min_lb_interval_s": "--min-lb-interval",
    "max_waiting_time_s": "--max-waiting-time",
    "max_req_count": "--max-req-count",
    "max_imbalance": "--max-imbalance",
}
"""bw-main's parameters (simulator.schedulers.bw_main.BwMainParams fields, settings of
simulator.results.replications.RunOverrides) and their options."""

F = TypeVar("F", bound=Callable[..., Any])


def bw_main_options(command: F) -> F:
    """Add the five options to ``command``; they reach it as ``max_light_load`` etc."""
    options = (
        click.option(
            "--max-light-load",
            type=click.IntRange(min=0, max=MAX_COUNT),
            default=None,
            help="bw-main's MAXLIGHTLOAD: most requests on a process that still takes one more.",
        ),
        click.option(
            "--min-lb-interval",
            type=DurationType(),
            default=None,
            help="bw-main's MINLBINTERVAL: the load balancer's period, e.g. 6d.",
        ),
        click.option(
            "--max-waiting-time",
            type=DurationType(),
            default=None,
            help="bw-main's MAXWAITINGTIME: the balancer runs once a request waited longer, "
            "e.g. 1h.",
        ),
        click.option(
            "--max-req-count",
            type=click.IntRange(min=0, max=MAX_COUNT),
            default=None,
            help="bw-main's MAXREQCOUNT: the balancer runs once more requests wait.",
        ),
        click.option(
            "--max-imbalance",
            type=NumberType(min=0),
            default=None,
            help="bw-main's MAXIMBALANCE: the balancer runs once the types' loads differ more.",
        ),
    )
    for option in reversed(options):
        command = option(command)
    return command
