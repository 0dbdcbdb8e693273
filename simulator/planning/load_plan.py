"""A load file planned: what ``tapesched plan`` computes, and with ``check`` simulates.

:func:`plan_file` reads a load description (:func:`simulator.planning.sizing.load_load`),
scales it (:func:`~simulator.planning.sizing.what_if`), sizes it
(:func:`~simulator.planning.sizing.plan`) and, when asked, simulates a generated span of it
on the planned drives (:func:`simulator.planning.sizing_check.simulate_load`). The
:class:`LoadPlan` it gives holds all of it; :meth:`LoadPlan.to_dict` is the document
``tapesched plan --json`` prints.
"""

from __future__ import annotations

from attrs import frozen

from tapesched.simulator.planning.sizing import Load, Sizing, load_load, plan, what_if
from tapesched.simulator.planning.sizing_check import CheckResult, expected_draws, simulate_load
from tapesched.toolkit.errors import SettingProblem, SettingsError
from tapesched.toolkit.units import MAX_ARRIVALS

DAY_S = 86400.0
"""Seconds in a day: ``days`` of a check are days of simulated time."""


@frozen
class LoadPlan:
    """A load as scaled, its computed plan and, when one ran, the check of it.

    Attributes
    ----------
    load
        The load after the scales.
    computed
        The closed-form sizing of :attr:`load`.
    bytes_scale, file_scale, cache_scale
        The factors applied to every class (1: none).
    checked
        The simulated check (``None``: none ran).
    seed, days
        The seed and the simulated days of the check.
    """

    load: Load
    computed: Sizing
    bytes_scale: float = 1.0
    file_scale: float = 1.0
    cache_scale: float = 1.0
    checked: CheckResult | None = None
    seed: int = 1
    days: float = 1.0

    @property
    def scaled(self) -> bool:
        """Whether any scale is other than 1."""
        return (self.bytes_scale, self.file_scale, self.cache_scale) != (1.0, 1.0, 1.0)

    def to_dict(self) -> dict[str, object]:
        """The computed plan (:meth:`~simulator.planning.sizing.Sizing.to_dict`), ``scales``,
        and with a check ``check`` (:meth:`~simulator.planning.sizing_check.CheckResult.to_dict`
        with its ``seed`` and ``days``)."""
        document = self.computed.to_dict()
        document["scales"] = {
            "bytes": self.bytes_scale,
            "file": self.file_scale,
            "cache": self.cache_scale,
        }
        if self.checked is not None:
            document["check"] = self.checked.to_dict() | {"seed": self.seed, "days": self.days}
        return document


def plan_file(
    load_file: str,
    *,
    bytes_scale: float = 1.0,
    file_scale: float = 1.0,
    cache_scale: float = 1.0,
    check: bool = False,
    drives: int | None = None,
    seed: int = 1,
    days: float = 1.0,
) -> LoadPlan:
    """Size the load of ``load_file`` at the scales given, and with ``check`` simulate it.

    Parameters
    ----------
    load_file
        A load description (format ``tapesched.load/1``).
    bytes_scale, file_scale, cache_scale
        Factors on every class's daily bytes, file size and disk
        (:func:`~simulator.planning.sizing.what_if`).
    check
        Also simulate ``days`` of a generated load on ``drives`` drives (default: the
        plan's peak-day count) with the seed ``seed``.

    Raises
    ------
    toolkit.errors.InputError
        For a load file that cannot be read or breaks its format.
    toolkit.errors.SettingsError
        (setting ``check``) When the check would draw more requests and files than
        :data:`~toolkit.units.MAX_ARRIVALS`.
    """
    load = what_if(
        load_load(load_file),
        bytes_scale=bytes_scale,
        file_scale=file_scale,
        cache_scale=cache_scale,
    )
    computed = plan(load)
    checked = None
    if check:
        draws = expected_draws(load, days * DAY_S)
        if draws > MAX_ARRIVALS:
            span = f"{days:g} day{'s' if days != 1 else ''}"
            message = (
                f"{load_file} at these scales expects {draws:,.0f} requests and files in "
                f"{span}, more than the {MAX_ARRIVALS:,} a simulated run may draw"
            )
            raise SettingsError([SettingProblem(("check",), message)])
        checked = simulate_load(load, drives=drives, seed=seed, duration_s=days * DAY_S)
    return LoadPlan(load, computed, bytes_scale, file_scale, cache_scale, checked, seed, days)
