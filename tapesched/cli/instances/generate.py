"""``tapesched generate``: seeded random instances (same seed, same instance)."""

from __future__ import annotations

from collections.abc import Callable

import click

from tapesched.cli.common import NumberType, RateType, SpanType, describe, fail, reports_bad_input
from tapesched.cli.out_options import file_out_option
from tapesched.toolkit.errors import shown
from tapesched.toolkit.files.instance_file import instance_to_dict
from tapesched.toolkit.files.json_documents import dumps
from tapesched.toolkit.files.outputs import FileOutput
from tapesched.toolkit.generators import (
    WEIGHT_RULES,
    RandomParams,
    random_instance,
    technology_ranges,
)
from tapesched.toolkit.golubchik_instances import TECHNOLOGIES, golubchik_instance
from tapesched.toolkit.model import OBJECTIVES, Instance
from tapesched.toolkit.units import MAX_COUNT, MAX_TIME_S

_COUNT = click.IntRange(min=1, max=MAX_COUNT)
"""A count of things to build: at least one, at most :data:`~toolkit.units.MAX_COUNT`."""


def _save_generated(instance: Instance, out: FileOutput) -> None:
    out.write(dumps(instance_to_dict(instance)))
    if not out.to_stdout:
        click.echo(f"wrote {out.given}: {describe(instance)}")


@click.group()
def generate() -> None:
    """Generate random instances (same seed, same instance)."""


_OPTION_OF = {
    "n_requests": "--requests",
    "n_libraries": "--libraries",
    "drives_per_library": "--drives",
    "arms": "--arms",
    "tapes_per_library": "--tapes",
    "max_gang": "--max-gang",
    "size_mb": "--size-mb",
    "initial_fraction": "--initial-fraction",
    "release_horizon_s": "--horizon",
    "arrival_rate_per_s": "--rate",
    "weight": "--weight",
    "objective": "--objective",
    "drives, arms, tapes": "--drives, --arms, --tapes",
    "sizes_gb": "--classes",
    "widths": "--classes",
    "probabilities": "--classes",
    "technology": "--technology",
    "n_libraries x drives_per_library": "--libraries x --drives",
    "n_libraries x arms": "--libraries x --arms",
    "n_libraries x tapes_per_library": "--libraries x --tapes",
}
"""The option behind each parameter a generator checks (limits of toolkit.units included:
:meth:`toolkit.generators.RandomParams.limit_problems`), to name it in a refusal."""


def _as_option(problem: str) -> str:
    """``"drives_per_library: ..."`` as ``"--drives: ..."``; an index stays (``--classes[0]``)."""
    field, sep, message = problem.partition(": ")
    name, bracket, index = field.partition("[")
    option = _OPTION_OF.get(name)
    if not sep or option is None:
        return f"generate: {problem}"
    return f"{option}{bracket}{index}: {message}"


@reports_bad_input
def _generated(build: Callable[[], Instance], out: FileOutput) -> None:
    try:
        instance = build()
    except ValueError as exc:
        _, _, problems = str(exc).partition("invalid RandomParams: ")
        if not problems:
            _, _, problems = str(exc).partition("invalid Golubchik instance: ")
        fail([_as_option(p) for p in (problems or str(exc)).split("; ")])
    _save_generated(instance, out)


_OUT = file_out_option(
    "Instance file to write (standard output when left out or -).", stdout_when_left_out=True
)
_SEED = click.option("--seed", type=int, required=True, help="Seed of every random choice.")
_OBJECTIVE = click.option(
    "--objective", type=click.Choice(OBJECTIVES), default="weighted-flow", show_default=True
)


@generate.command("random", short_help="A random instance from ranges of every dimension.")
@_SEED
@click.option("--requests", "n_requests", type=_COUNT, default=20, show_default=True)
@click.option("--libraries", "n_libraries", type=_COUNT, default=1, show_default=True)
@click.option(
    "--drives",
    type=SpanType(click.INT),
    default="2:4",
    show_default=True,
    help="Drives per library.",
)
@click.option(
    "--arms", type=SpanType(click.INT), default="1:2", show_default=True, help="Arms per library."
)
@click.option("--tapes", type=_COUNT, default=12, show_default=True, help="Tapes per library.")
@click.option(
    "--max-gang",
    type=_COUNT,
    default=2,
    show_default=True,
    help="Most pieces of one request.",
)
@click.option(
    "--size-mb",
    type=SpanType(NumberType()),
    default="100:100000",
    show_default=True,
    help="Request sizes, drawn log-uniformly.",
)
@click.option(
    "--initial-fraction",
    type=NumberType(0, 1),
    default=0.5,
    show_default=True,
    help="Share of drives holding a tape at time 0.",
)
@click.option(
    "--horizon",
    "horizon_s",
    type=NumberType(min=0, max=MAX_TIME_S),
    default=3600.0,
    show_default=True,
    help="Releases uniform in [0, horizon] seconds.",
)
@click.option(
    "--rate", "rate", type=RateType(), default=None, help="Poisson arrivals instead, e.g. 65/h."
)
@click.option(
    "--weight", type=click.Choice(WEIGHT_RULES), default="inverse-size-gb", show_default=True
)
@click.option(
    "--homogeneous/--heterogeneous",
    default=False,
    show_default=True,
    help="All drives of a library alike.",
)
@click.option(
    "--drive",
    "drive_model",
    metavar="MODEL",
    default=None,
    help="A drive of tapesched catalogue: every drive its rate, load, unload and locate, "
    "every tape its capacity (instead of drawn ranges).",
)
@click.option(
    "--library",
    "library_model",
    metavar="MODEL",
    default=None,
    help="A library of tapesched catalogue: its mount and dismount times.",
)
@_OBJECTIVE
@_OUT
def generate_random(
    seed: int,
    n_requests: int,
    n_libraries: int,
    drives: tuple[int, int],
    arms: tuple[int, int],
    tapes: int,
    max_gang: int,
    size_mb: tuple[float, float],
    initial_fraction: float,
    horizon_s: float,
    rate: float | None,
    weight: str,
    homogeneous: bool,
    drive_model: str | None,
    library_model: str | None,
    objective: str,
    out: FileOutput,
) -> None:
    """Random instance from the ranges of toolkit.generators.RandomParams."""
    try:
        fixed = technology_ranges(drive_model, None)
    except ValueError as exc:
        fail([f"--drive: {exc}"])
    try:
        fixed.update(technology_ranges(None, library_model))
    except ValueError as exc:
        fail([f"--library: {exc}"])
    _generated(
        lambda: random_instance(
            RandomParams(
                n_requests=n_requests,
                n_libraries=n_libraries,
                drives_per_library=drives,
                arms=arms,
                tapes_per_library=tapes,
                max_gang=max_gang,
                size_mb=size_mb,
                initial_fraction=initial_fraction,
                release_horizon_s=horizon_s,
                arrival_rate_per_s=rate,
                weight=weight,
                homogeneous_drives=homogeneous,
                objective=objective,
                **fixed,  # type: ignore[arg-type]
            ),
            seed,
        ),
        out,
    )


def _classes(text: str) -> tuple[list[float], list[int], list[float]]:
    sizes, widths, shares = [], [], []
    for item in text.split(","):
        parts = item.split(":")
        if len(parts) not in (2, 3):
            raise click.BadParameter(
                f"{shown(item)} is not SIZE_GB:WIDTH[:SHARE]", param_hint="--classes"
            )
        try:
            sizes.append(float(parts[0]))
            widths.append(int(parts[1]))
            shares.append(float(parts[2]) if len(parts) == 3 else 1.0)
        except ValueError:
            raise click.BadParameter(
                f"{shown(item)} is not SIZE_GB:WIDTH[:SHARE]", param_hint="--classes"
            ) from None
    return sizes, widths, shares


@generate.command(
    "golubchik", short_help="The robotic library of Golubchik, Muntz & Watson (1994)."
)
@_SEED
@click.option("--requests", "n_requests", type=_COUNT, default=100, show_default=True)
@click.option(
    "--technology",
    type=click.Choice(sorted(TECHNOLOGIES)),
    default="ampex",
    show_default=True,
    help="Drive and robot parameters of the paper's tables.",
)
@click.option("--drives", type=_COUNT, default=4, show_default=True, help="K.")
@click.option("--arms", type=_COUNT, default=1, show_default=True, help="R.")
@click.option(
    "--tapes",
    type=_COUNT,
    default=None,
    help="Tapes in the library (the technology's when left out).",
)
@click.option(
    "--classes",
    default="1:1,2:1,3:1",
    show_default=True,
    help="Request classes SIZE_GB:WIDTH[:SHARE], comma separated (Figure 8's '111').",
)
@click.option(
    "--rate",
    type=RateType(),
    default="0.3/min",
    show_default=True,
    help="Poisson arrival rate lambda.",
)
@_OBJECTIVE
@_OUT
def generate_golubchik(
    seed: int,
    n_requests: int,
    technology: str,
    drives: int,
    arms: int,
    tapes: int | None,
    classes: str,
    rate: float,
    objective: str,
    out: FileOutput,
) -> None:
    """The robotic library of Golubchik, Muntz & Watson (1994) under a Poisson workload."""
    sizes, widths, shares = _classes(classes)
    _generated(
        lambda: golubchik_instance(
            n_requests,
            technology=technology,
            drives=drives,
            arms=arms,
            tapes=tapes,
            sizes_gb=sizes,
            widths=widths,
            probabilities=shares,
            arrival_rate_per_s=rate,
            seed=seed,
            objective=objective,
        ),
        out,
    )
