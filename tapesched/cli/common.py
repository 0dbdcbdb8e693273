"""What every ``tapesched`` command shares: exit codes, bad-input reports, option types.

Exit codes are part of the interface: 0 success, 1 an infeasible schedule,
2 bad input (a file that cannot be read or parsed, or breaks the format, or a
bad option). Bad input is reported one line per problem, naming the file, the
JSON path of the value and what is wrong, never with a traceback, and no output
file is written.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import wraps
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from tapesched.simulator.scenario.consent import ALLOW_PLUGINS_HELP
from tapesched.toolkit.errors import InputError, SettingsError, one_line, shown
from tapesched.toolkit.files.instance_file import load_instance
from tapesched.toolkit.files.schedule_file import load_schedule
from tapesched.toolkit.model import Instance, Schedule
from tapesched.toolkit.registry import LoadError, Registry
from tapesched.toolkit.units import MAX_SIMULATED_S, parse_duration, parse_rate
from tapesched.toolkit.validator import Report, validate

if TYPE_CHECKING:
    pass

F = TypeVar("F", bound=Callable[..., Any])

EXIT_INFEASIBLE = 1
EXIT_BAD_INPUT = 2


def fail(lines: list[str]) -> NoReturn:
    """Print each line of a bad-input report on standard error and exit with code 2.

    A line longer than :data:`~toolkit.errors.MAX_LINE` is cut: a value quoted
    whole never floods the terminal.
    """
    for line in lines:
        click.echo(one_line(line), err=True)
    raise SystemExit(EXIT_BAD_INPUT)


def setting_lines(
    error: SettingsError,
    options: dict[str, str],
    command: str,
    values: dict[str, object] | None = None,
) -> list[str]:
    """The bad-input lines of ``error``, each problem named by the options of its settings.

    ``options`` gives the option of each setting (a parameter name of the library call),
    ``command`` names a problem of no setting; a problem of a file under the settings is
    ``FILE: what (with --option VALUE)``, its values read in ``values``.
    """
    lines = []
    for p in error.problems:
        if p.source is not None:
            given = " and ".join(f"{options[s]} {(values or {})[s]}" for s in p.settings)
            lines.append(f"{p.source}: {p.message} (with {given})")
        else:
            named = " and ".join(options[s] for s in p.settings) or command
            lines.append(f"{named}: {p.message}")
    return lines


def reports_bad_input(func: F) -> F:
    """Turn :class:`InputError` into one stderr line per problem and exit code 2."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except InputError as exc:
            fail(exc.lines())

    return wrapper  # type: ignore[return-value]


def instance_summary(instance: Instance) -> dict[str, object]:
    """What an instance holds, as counts (``check --json`` prints it; :func:`describe` words it)."""
    return {
        "name": instance.name,
        "libraries": len(instance.libraries),
        "arms": sum(lib.arms for lib in instance.libraries),
        "drives": len(instance.drives),
        "tapes": len(instance.tapes),
        "initial": len(instance.initial),
        "requests": len(instance.requests),
        "gangs": sum(1 for r in instance.requests if len(r.pieces) > 1),
        "widest": max((len(r.pieces) for r in instance.requests), default=0),
        "objective": instance.objective,
    }


NAME_SHOWN = 80
"""The most characters of a file's name (its ``name`` key) that :func:`describe` and
``check`` print back (:func:`~toolkit.errors.shown`)."""


def describe(instance: Instance) -> str:
    """One line saying what an instance holds (``check`` and ``generate`` print it)."""
    n = instance_summary(instance)
    return (
        f"instance {shown(n['name'], NAME_SHOWN)}: {n['libraries']} libraries ({n['arms']} arms), "
        f"{n['drives']} drives, {n['tapes']} tapes "
        f"({n['initial']} mounted at time 0), {n['requests']} requests "
        f"({n['gangs']} gangs, widest {n['widest']}), objective {n['objective']}"
    )


def print_violations(report: Report) -> None:
    """The verdict of an infeasible schedule: a count, then one ``[rule] message`` per line."""
    click.echo(f"infeasible: {len(report.violations)} violations")
    for v in report.violations:
        click.echo(str(v))


def echo_warnings(report: Report) -> None:
    """The validator's warnings, one ``warning: ...`` line each."""
    for warning in report.warnings:
        click.echo(f"warning: {warning}")


def echo_verdict(schedule: Schedule, report: Report) -> None:
    """Warnings, then feasible with the objective, or the violations."""
    echo_warnings(report)
    if report.feasible:
        click.echo(
            f"feasible: {len(schedule.requests)} requests, "
            f"{len(schedule.operations)} arm operations"
        )
        click.echo(f"objective {report.objective_name}: {report.objective:.6f}")
    else:
        print_violations(report)


def instance_and_schedule(command: F) -> F:
    """The two file arguments and the ``--json`` flag of commands that judge a schedule."""
    for decorate in (
        click.option("--json", "as_json", is_flag=True, help="Print JSON for machines."),
        click.argument("schedule_file", type=click.Path()),
        click.argument("instance_file", type=click.Path()),
    ):
        command = decorate(command)
    return command


def load_and_validate(
    instance_file: str, schedule_file: str, *, timeline: bool = False, prefetch: bool = True
) -> tuple[Instance, Schedule, Report]:
    """Read an instance and a schedule and judge the schedule (``timeline``, ``prefetch``: as
    :func:`~toolkit.validator.validate` takes them)."""
    instance = load_instance(instance_file)
    schedule = load_schedule(schedule_file)
    return instance, schedule, validate(instance, schedule, timeline=timeline, prefetch=prefetch)


NO_PREFETCH_HELP = (
    "The non-anticipative reading: no mount, load or locate serving a request "
    "starts before its release."
)
"""The help of ``--no-prefetch``, one wording for ``solve`` and ``verify``."""


def checked_solvers(text: str, option: str = "--solvers") -> list[str]:
    """The comma-separated solver names of ``option``, each checked; exits 2 naming the bad ones,
    or when it names none (``--solvers ''``; :func:`solvers.plugins.solver_list`)."""
    from tapesched.solvers.plugins import solver_list

    names, problems = solver_list(text, option)
    if problems:
        fail(problems)
    return names


class ParsedType(click.ParamType):
    """A value read by ``parse`` (a :mod:`toolkit.units` reader); its error is the message."""

    def __init__(self, name: str, parse: Callable[[str], float]) -> None:
        self.name = name
        self.parse = parse

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        if isinstance(value, float):
            return value
        try:
            return self.parse(str(value))
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


def RateType() -> ParsedType:
    """An arrival rate: ``0.005`` (per second) or ``0.3/min``, ``65/h``, ``2/d``."""
    return ParsedType("RATE", parse_rate)


def DurationType() -> ParsedType:
    """A simulated span with its unit: ``30d``, ``4w``, ``12h``, ``90min``, ``"2 days"``.

    A bare number is refused as ambiguous, and a span beyond
    :data:`~toolkit.units.MAX_SIMULATED_S` as too long.
    """
    return ParsedType(
        "DURATION",
        lambda text: parse_duration(text, unit_required=True, most_s=MAX_SIMULATED_S),
    )


def TimeLimitType() -> ParsedType:
    """A solver's time limit: ``90`` (seconds), ``90s``, ``2min``, ``1h``; positive and finite."""
    return ParsedType("DURATION", parse_duration)


class NumberType(click.FloatRange):
    """A finite number, within bounds given as :class:`click.FloatRange` takes them.

    The one type of every option that takes a plain number: ``float`` and
    :class:`click.FloatRange` take ``nan``, which every comparison with a
    bound lets through, and ``inf`` where no maximum is given; neither means
    anything as an option's value, so both are refused here, before any bound
    is checked.
    """

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        try:
            number = float(value)
        except (TypeError, ValueError):
            self.fail(f"{shown(value)} is not a number", param, ctx)
        if not math.isfinite(number):
            self.fail(f"{shown(value)} is not a finite number", param, ctx)
        return super().convert(number, param, ctx)  # type: ignore[no-any-return]


class SpanType(click.ParamType):
    """A range ``LO:HI`` or a single value ``V`` (meaning ``V:V``), each read by ``kind``."""

    name = "LO:HI"

    def __init__(self, kind: click.ParamType) -> None:
        self.kind = kind

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, tuple):
            return value
        lo, _, hi = str(value).partition(":")
        return (self.kind.convert(lo, param, ctx), self.kind.convert(hi or lo, param, ctx))


class RegistryChoice(click.Choice[str]):
    """One of the names a registry knows (:meth:`toolkit.registry.Registry.known`), loaded.

    The names are read when the option is parsed or its help shown, not when
    the command is defined, so that the choices are the registry's own and
    those of the packages installed at that moment. The name chosen is
    loaded at once, so that an installed plug-in that cannot be imported is
    a bad option (one line, exit 2) before any work starts.

    With ``specs``, a ``module.path:Attr`` is taken too, imported at once
    (:meth:`~toolkit.registry.Registry.resolve`). With ``lazy``, a declared
    name is not imported when parsed (the command imports it once its input
    is known good); a plug-in's still is.
    """

    def __init__(self, registry: Registry[Any], *, specs: bool = False, lazy: bool = False) -> None:
        self.registry = registry
        self.case_sensitive = True
        self.specs = specs
        self.lazy = lazy

    @property
    def choices(self) -> tuple[str, ...]:  # type: ignore[override]
        """Every name the registry knows: declared ones, then installed plug-ins."""
        return self.registry.known()

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        if self.specs and isinstance(value, str) and ":" in value:
            try:
                self.registry.resolve(value)
            except LoadError as exc:
                self.fail(str(exc), param, ctx)
            return value
        name: str = super().convert(value, param, ctx)
        if self.lazy and name in self.registry:
            return name
        try:
            self.registry.load(name)
        except LoadError as exc:
            self.fail(str(exc), param, ctx)
        return name


def check_scenario_scheduler(spec: str) -> None:
    """Exit with the one-line bad-input report unless ``spec`` gives a scheduler of scenarios
    (:func:`simulator.scenario.consent.scheduler_problem`)."""
    from tapesched.simulator.scenario.consent import scheduler_problem

    problem = scheduler_problem(spec)
    if problem is not None:
        fail([f"--scheduler: {problem}"])


def allow_plugins_option(command: F) -> F:
    """The ``--allow-plugins`` flag of the commands that run a scenario file."""
    option = click.option("--allow-plugins", is_flag=True, help=ALLOW_PLUGINS_HELP)
    return option(command)


def gap_option(who: str) -> Callable[[F], F]:
    """The ``--gap`` option of ``solve`` and ``compare``; ``who`` names what stops at it."""
    return click.option(
        "--gap",
        type=NumberType(min=0, max=1),
        default=None,
        help=f"Relative optimality gap, (objective - bound) / objective, at which {who} "
        "(exact, local-search, lns) stops (0.01: within 1 % of the bound); such a run is "
        "feasible, with its bound.",
    )


def _columns(ctx: click.Context, param: click.Parameter, value: str | None) -> dict[str, str]:
    from tapesched.toolkit.files.request_log import parse_columns

    if value is None:
        return {}
    try:
        return parse_columns(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc), ctx=ctx, param=param) from exc


def columns_option(command: F) -> F:
    """The ``--columns`` option of the commands that read a site's request log."""
    option = click.option(
        "--columns",
        metavar="NAME=COLUMN,...",
        default=None,
        callback=_columns,
        help="The log's own names of its columns, e.g. time=ts,cartridge=vid,size_bytes=bytes "
        "(names: time, cartridge, offset_mb, block, size_mb, size_bytes, duration_s, weight, "
        "kind).",
    )
    return option(command)
