"""The five parameters of ``bw-main`` as options of ``simulate``.

The Blue Waters paper names them (MAXLIGHTLOAD, MINLBINTERVAL,
MAXWAITINGTIME, MAXREQCOUNT, MAXIMBALANCE) and gives no values;
:class:`simulator.schedulers.bw_main.BwMainParams` holds the defaults chosen. They
are refused, one line per option, when the scheduler that runs is not
``bw-main``; the swept experiments declare the same options
(:data:`tapesched.studies.sweeps.swept_study.BW_MAIN_PARAMETERS`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from tapesched.cli.common import DurationType, NumberType, fail
from tapesched.simulator.schedulers.registry import BW_MAIN
from tapesched.toolkit.units import MAX_COUNT

if TYPE_CHECKING:
    from tapesched.simulator.schedulers.bw_main import BwMainParams

BW_MAIN_OPTIONS = {
    "max_light_load": "--max-light-load",
    "min_lb_interval_s": "--min-lb-interval",
    "max_waiting_time_s": "--max-waiting-time",
    "max_req_count": "--max-req-count",
    "max_imbalance": "--max-imbalance",
}
"""bw-main's parameters (simulator.schedulers.bw_main.BwMainParams fields) and their options."""

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


def given_bw_main(
    params: BwMainParams,
    running: str,
    *,
    max_light_load: int | None,
    min_lb_interval: float | None,
    max_waiting_time: float | None,
    max_req_count: int | None,
    max_imbalance: float | None,
) -> BwMainParams | None:
    """``params`` with the options given (``None``: none is); exit 2 unless bw-main runs."""
    given = {
        "max_light_load": max_light_load,
        "min_lb_interval_s": min_lb_interval,
        "max_waiting_time_s": max_waiting_time,
        "max_req_count": max_req_count,
        "max_imbalance": max_imbalance,
    }
    if all(v is None for v in given.values()):
        return None
    if running != BW_MAIN:
        fail(
            [
                f"{BW_MAIN_OPTIONS[k]}: only the {BW_MAIN} scheduler takes it; "
                f"the scheduler is {running!r}"
                for k, v in given.items()
                if v is not None
            ]
        )
    from tapesched.simulator.schedulers.bw_main import with_params

    return with_params(params, **given)
