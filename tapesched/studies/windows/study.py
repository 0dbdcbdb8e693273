"""Online against offline inside the simulator: a run cut into windows, each solved both ways.

A scenario's run (its times fixed) is exported as a core-problem instance
and its realised schedule (:mod:`simulator.results.export`). Its requests, in order
of release, are cut into consecutive windows of ``N`` (a remainder shorter
than ``N`` is left out, so that every window weighs the same). Each window
becomes an instance of its own (:func:`cut_windows`):

- its requests, released ``t0`` earlier, where ``t0`` is the release of the
  window's first request (which is then released at 0);
- the platform (libraries, drives) of the run, and the tapes its requests
  read or its drives hold;
- the **platform's state at its start** (:func:`start_state_at`, version 2
  of the instance format when it is not version 1's): each drive holds,
  loaded, the tape that the realised run had in it at ``t0`` (mounted by
  then, its dismount not begun; a tape on its way out counts as gone), its
  head where the run's last transfer on that tape left it (0 after the
  mount), the drive busy until the transfer, mount and load, or dismount
  it was doing at ``t0`` ends, and each arm busy until the operation it was
  doing at ``t0`` ends.

What the window still drops: the requests of earlier windows that were
still waiting or running at ``t0`` (their work shows only as the drives
and arms busy at the start), an unload that the run would begin after
``t0`` for an earlier request (the tape is taken as kept), and a locate
in progress at ``t0`` (the head is where the last transfer left it). The
ratio stays meaningful because it is the same instance for every schedule
compared: the online schedulers are not taken from the run but re-run on
the window's instance (:func:`solve_window`, ``solvers.solve``, the same
dispatcher the simulator drives), so online and offline both start from
the same state. Solvers that do not model the starting state (the MILP
backends) are left out of a window that has one.

Two yardsticks per window, from the offline solvers named (at least one
exact: ``cpsat``, ``milp-cbc``, ``milp-highs``):

- ``clairvoyant``: the contract's optimum, tapes prefetched before a
  release where that pays;
- ``non-anticipative``: the optimum under ``prefetch=False``, no mount,
  load or locate for a request before its release (``docs/core-problem.md``,
  *The non-anticipative reading*). Every online scheduler keeps that rule,
  so it lies between the clairvoyant optimum and the best online schedule:
  the first gap is what knowing the future is worth, the second what the
  scheduling rule costs.

A yardstick is *proven* when one of its solvers proved its optimum; the
ratio of an online schedule to it is then exact. Otherwise the ratio is to
the yardstick's best lower bound, an upper bound of the true ratio, and is
marked so. The clairvoyant yardstick also counts the non-anticipative
schedule (which keeps the contract) among its candidates, so that a time
limit never puts it above the non-anticipative one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from attrs import frozen

from tapesched import solvers
from tapesched.simulator.results.export import export
from tapesched.simulator.results.records import Estimate, estimate
from tapesched.simulator.results.replications import run_once
from tapesched.simulator.scenario.spec import Scenario
from tapesched.solvers.compare import PROVABLE_UP_TO
from tapesched.solvers.exact.formulation import UnmodelledState
from tapesched.solvers.plugins import find_solver
from tapesched.solvers.registry import SOLVERS
from tapesched.toolkit.model import Drive, InitialTape, Instance, Library, Request, Schedule
from tapesched.toolkit.validator import validate

CLAIRVOYANT = "clairvoyant"
NON_ANTICIPATIVE = "non-anticipative"
YARDSTICKS = (CLAIRVOYANT, NON_ANTICIPATIVE)
"""The two yardsticks, in report order."""

NA_OPTIMUM_SERIES = "non-anticipative optimum"
"""The series that compares the non-anticipative optimum with the clairvoyant one."""

LNS_ABOVE = PROVABLE_UP_TO
"""Windows of more requests than this also get ``lns`` (:data:`solvers.compare.PROVABLE_UP_TO`)."""

KNOWN = "non-anticipative schedule"
"""The :attr:`Yardstick.solver` of a clairvoyant yardstick whose best schedule is the
non-anticipative one (every schedule that keeps the rule keeps the contract)."""

TOLERANCE = 1e-6
"""Relative tolerance on objectives (the validator's, scaled)."""


@frozen
class Window:
    """One window of a run: its position, where it starts in the run, its instance.

    ``start_s`` is ``t0``, the run's time at which the window's first
    request was released; the instance's releases are relative to it.
    """

    index: int
    start_s: float
    instance: Instance


def tapes_in_drives_at(
    schedule: Schedule, t_s: float, initial: Sequence[InitialTape] = ()
) -> dict[str, str]:
    """The tape each drive holds at ``t_s`` in ``schedule``: mounted by then, not being dismounted.

    A mount that started at or before ``t_s`` puts its tape in the drive; a
    dismount that started at or before ``t_s`` takes it out (the arm has it
    or is taking it). ``initial`` gives the tapes in drives at time 0.
    """
    held = {i.drive: i.tape for i in initial}
    ordered = sorted(
        (op for op in schedule.operations if op.start_s <= t_s),
        key=lambda op: (op.start_s, op.op == "mount"),
    )
    for op in ordered:
        if op.op == "mount":
            held[op.drive] = op.tape
        elif held.get(op.drive) == op.tape:
            del held[op.drive]
    return held


@frozen
class StartState:
    """The platform's state at a time of a run, as a window's instance says it.

    ``initial`` gives each drive's tape and head; ``available_s`` (by drive
    id) and ``arms_available_s`` (by library id, one time per arm, busiest
    first) are relative to that time; drives and arms not named are free.
    """

    initial: tuple[InitialTape, ...]
    available_s: dict[str, float]
    arms_available_s: dict[str, tuple[float, ...]]


def start_state_at(instance: Instance, schedule: Schedule, t_s: float) -> StartState:
    """The state at ``t_s`` of the run ``instance`` realised as ``schedule``.

    The tapes in drives are :func:`tapes_in_drives_at`'s. Work begun
    strictly before ``t_s`` and not over by then keeps its drive or arm
    busy: a transfer until its end, a mount until its end plus the drive's
    ``load_s``, a dismount until its end (the drive is then empty, and no
    mount into it may start earlier), an arm operation on its arm until its
    end. The head of a drive holding a tape is where the last transfer
    begun before ``t_s`` on that tape, since the tape's mount, left it
    (the end of its piece), 0 when none.
    """
    held = tapes_in_drives_at(schedule, t_s, instance.initial)
    head = {i.drive: i.head_mb for i in instance.initial}
    busy = {d.id: 0.0 for d in instance.drives}
    drive_by_id = instance.drive_by_id
    arms: dict[str, list[float]] = {lib.id: [] for lib in instance.libraries}
    events = []
    for op in schedule.operations:
        if op.start_s < t_s:
            events.append((op.start_s, 0, op.drive, op.tape, 0.0))
            drive = drive_by_id[op.drive]
            end = op.end_s + (drive.load_s if op.op == "mount" else 0.0)
            busy[op.drive] = max(busy[op.drive], end - t_s)
            if op.end_s > t_s and op.end_s > op.start_s:
                arms[drive.library].append(op.end_s - t_s)
    request_by_id = instance.request_by_id
    for scheduled in schedule.requests:
        if scheduled.start_s < t_s:
            pieces = request_by_id[scheduled.id].pieces
            for drive_id, piece in zip(scheduled.drives, pieces, strict=True):
                events.append((scheduled.start_s, 1, drive_id, piece.tape, piece.end_mb))
                busy[drive_id] = max(busy[drive_id], scheduled.end_s - t_s)
    for _, is_transfer, drive_id, tape, end_mb in sorted(events):
        if held.get(drive_id) == tape:
            head[drive_id] = end_mb if is_transfer else 0.0
    initial = tuple(
        InitialTape(d.id, held[d.id], head.get(d.id, 0.0)) for d in instance.drives if d.id in held
    )
    libraries = instance.library_by_id
    arms_free = {
        lib_id: tuple(sorted(times, reverse=True)[: libraries[lib_id].arms])
        + (0.0,) * max(0, libraries[lib_id].arms - len(times))
        for lib_id, times in arms.items()
    }
    return StartState(
        initial,
        {d: t for d, t in busy.items() if t > 0},
        {lib: t for lib, t in arms_free.items() if any(t)},
    )


def with_start_state(instance: Instance, state: StartState) -> Instance:
    """``instance`` starting from ``state`` (its drives, libraries and initial tapes)."""
    drives = tuple(
        Drive(
            d.id,
            d.library,
            d.rate_mb_s,
            d.load_s,
            d.unload_s,
            d.locate_mb_s,
            state.available_s.get(d.id, 0.0),
        )
        for d in instance.drives
    )
    libraries = tuple(
        Library(
            lib.id,
            lib.arms,
            lib.mount_s,
            lib.dismount_s,
            state.arms_available_s.get(lib.id, 0.0),
        )
        for lib in instance.libraries
    )
    return Instance(
        name=instance.name,
        libraries=libraries,
        drives=drives,
        tapes=instance.tapes,
        requests=instance.requests,
        initial=state.initial,
        objective=instance.objective,
    )


def cut_windows(instance: Instance, schedule: Schedule, size: int, name: str) -> list[Window]:
    """The run ``instance`` (realised as ``schedule``) cut into windows of ``size`` requests.

    Requests go in order of release (ties in the instance's order); a
    remainder of fewer than ``size`` is left out. See the module's notes
    for each window's state at its start.
    """
    if size < 1:
        raise ValueError(f"a window holds at least one request, got {size}")
    order = sorted(range(len(instance.requests)), key=lambda j: (instance.requests[j].release_s, j))
    windows = []
    for k in range(len(order) // size):
        chosen = [instance.requests[j] for j in order[k * size : (k + 1) * size]]
        t0 = float(chosen[0].release_s)
        requests = tuple(
            Request(r.id, float(r.release_s) - t0, r.weight, r.kind, r.pieces) for r in chosen
        )
        state = start_state_at(instance, schedule, t0)
        wanted = {p.tape for r in requests for p in r.pieces} | {i.tape for i in state.initial}
        window = Instance(
            name=f"{name}-window-{k:03d}",
            libraries=instance.libraries,
            drives=instance.drives,
            tapes=tuple(t for t in instance.tapes if t.id in wanted),
            requests=requests,
            objective=instance.objective,
        )
        windows.append(Window(k, t0, with_start_state(window, state)))
    return windows


def scenario_windows(scenario: Scenario, size: int, seed: int | None = None) -> list[Window]:
    """Run ``scenario`` once (its first seed, or ``seed``) to its end and cut it into windows.

    The run goes on until every request that arrived within the workload's
    duration is done, so that each is in the export.

    Raises
    ------
    simulator.results.export.ExportError
        (a ``ValueError``) when the scenario draws times at random or moves
        tapes between libraries: the core problem cannot express the run.
    """
    replication = run_once(scenario, scenario.run.seed if seed is None else seed, to_end=True)
    assert replication.simulation is not None  # run_once keeps it
    instance, schedule = export(replication.simulation, name=scenario.name)
    return cut_windows(instance, schedule, size, scenario.name)


@frozen
class Attempt:
    """One offline solver's run for a yardstick: its name, status, objective, bound, runtime."""

    solver: str
    status: str
    objective: float | None
    bound: float | None
    runtime_s: float


@frozen
class Yardstick:
    """The best a window can do under one reading, as far as its solvers proved.

    ``value`` is the best objective found (the optimum when ``proven``),
    ``bound`` the best lower bound (equal to ``value`` when proven),
    ``schedule`` the schedule of ``value``, ``attempts`` each solver's run,
    ``solver`` the solver whose schedule gave ``value`` (:data:`KNOWN` when
    it is the candidate passed in, the non-anticipative yardstick's).
    """

    name: str
    value: float
    bound: float
    proven: bool
    schedule: Schedule
    attempts: tuple[Attempt, ...]
    solver: str = ""


@frozen
class Ratio:
    """An online schedule's objective over a yardstick, or over its bound (``upper_bound``)."""

    objective: float
    ratio: float | None
    upper_bound: bool


@frozen
class WindowOutcome:
    """A window solved: each online scheduler's objective and both yardsticks."""

    window: Window
    online: dict[str, float]
    yardsticks: dict[str, Yardstick]

    def ratio(self, objective: float, yardstick: str) -> Ratio:
        """``objective`` over the yardstick; over its bound (an upper bound) when not proven."""
        y = self.yardsticks[yardstick]
        if y.proven:
            return Ratio(objective, _divide(objective, y.value), False)
        return Ratio(objective, _divide(objective, y.bound), True)

    def ratios(self) -> dict[str, dict[str, Ratio]]:
        """Per series (each online scheduler, then the non-anticipative optimum), per yardstick."""
        out = {
            name: {y: self.ratio(value, y) for y in YARDSTICKS}
            for name, value in self.online.items()
        }
        na = self.yardsticks[NON_ANTICIPATIVE]
        clairvoyant = self.ratio(na.value, CLAIRVOYANT)
        out[NA_OPTIMUM_SERIES] = {CLAIRVOYANT: _upper_if(clairvoyant, not na.proven)}
        return out


def _upper_if(ratio: Ratio, unproven_numerator: bool) -> Ratio:
    """The ratio, an upper bound too when its numerator is not proven least (only found)."""
    return Ratio(ratio.objective, ratio.ratio, ratio.upper_bound or unproven_numerator)


def _divide(a: float, b: float) -> float | None:
    """``a / b``; 1 when both are 0, ``None`` (no ratio) when only ``b`` is."""
    if b > 0:
        return a / b
    return 1.0 if a <= 0 else None


def is_online(name: str) -> bool:
    """Whether the solver ``name`` is an online scheduler (a registered heuristic or a plug-in)."""
    found, _ = find_solver(name)
    return found not in SOLVERS or bool(SOLVERS.entry(found).metadata.get("online"))


def is_exact(name: str) -> bool:
    """Whether the solver ``name`` models the non-anticipative problem (an exact solver)."""
    return not is_online(name) and solvers.takes_prefetch(name)


def _validated(instance: Instance, schedule: Schedule | None, prefetch: bool) -> float | None:
    """The validator's objective of ``schedule`` under the reading, ``None`` if infeasible."""
    if schedule is None:
        return None
    report = validate(instance, schedule, prefetch=prefetch)
    return report.objective if report.feasible else None


def offline_for(
    instance: Instance, offline: Sequence[str], lns_above: int = LNS_ABOVE
) -> tuple[str, ...]:
    """The offline solvers of a window: ``offline``, and ``lns`` when it has more than
    ``lns_above`` requests (too many to prove) and is not named already."""
    names = tuple(offline)
    if len(instance.requests) > lns_above and "lns" not in names:
        names += ("lns",)
    return names


def solve_yardstick(
    instance: Instance,
    name: str,
    offline: Sequence[str],
    *,
    prefetch: bool,
    time_limit_s: float | None,
    seed: int,
    known: Schedule | None = None,
) -> Yardstick:
    """The yardstick ``name`` of ``instance`` from the solvers ``offline`` under the reading.

    ``known`` is one more candidate schedule (the non-anticipative one for
    the clairvoyant yardstick). Solvers that may prefetch are skipped when
    ``prefetch`` is false, and so are those that do not model the window's
    starting state (:class:`~solvers.exact.formulation.UnmodelledState`).

    Raises
    ------
    RuntimeError
        When no solver returns a feasible schedule.
    """
    attempts = []
    best: tuple[float, Schedule, str] | None = None
    proven_values: list[float] = []
    bounds: list[float] = []
    for solver in offline:
        if not prefetch and not solvers.takes_prefetch(solver):
            continue
        try:
            result = solvers.solve(
                instance, solver=solver, time_limit_s=time_limit_s, seed=seed, prefetch=prefetch
            )
        except UnmodelledState:  # a MILP backend on a window that starts busy
            continue
        value = _validated(instance, result.schedule, prefetch)
        attempts.append(Attempt(solver, result.status.value, value, result.bound, result.runtime_s))
        if value is None or result.schedule is None:
            continue
        if best is None or value < best[0]:
            best = value, result.schedule, solver
        if result.status is solvers.Status.OPTIMAL:
            proven_values.append(value)
        if result.bound is not None:
            bounds.append(result.bound)
    if known is not None:
        value = _validated(instance, known, prefetch)
        if value is not None and (best is None or value < best[0]):
            best = value, known, KNOWN
    if best is None:
        raise RuntimeError(f"{instance.name}: no offline solver found a {name} schedule")
    value, schedule, source = best
    proven = any(v <= value + TOLERANCE * max(1.0, abs(value)) for v in proven_values)
    bound = value if proven else min(value, max(bounds, default=0.0))
    return Yardstick(name, value, bound, proven, schedule, tuple(attempts), source)


def solve_window(
    window: Window,
    online: Sequence[str],
    offline: Sequence[str],
    *,
    time_limit_s: float | None,
    seed: int,
    lns_above: int = LNS_ABOVE,
) -> WindowOutcome:
    """Run every online scheduler on the window's instance and solve both yardsticks.

    The non-anticipative yardstick is solved first; its schedule is then a
    candidate of the clairvoyant one (it keeps the contract). The offline
    solvers are ``offline``, and ``lns`` on a window of more than
    ``lns_above`` requests (:func:`offline_for`).

    Raises
    ------
    RuntimeError
        When an online scheduler's schedule breaks the contract or the
        non-anticipative rule (a scheduler that prefetches is not online),
        or no offline solver finds a schedule.
    """
    instance = window.instance
    values: dict[str, float] = {}
    for name in online:
        result = solvers.solve(instance, solver=name, seed=seed)
        value = _validated(instance, result.schedule, prefetch=False)
        if value is None:
            raise RuntimeError(
                f"{instance.name}: {name}'s schedule is infeasible or acts before a release"
            )
        values[name] = value
    offline = offline_for(instance, offline, lns_above)
    na = solve_yardstick(
        instance,
        NON_ANTICIPATIVE,
        offline,
        prefetch=False,
        time_limit_s=time_limit_s,
        seed=seed,
    )
    clairvoyant = solve_yardstick(
        instance,
        CLAIRVOYANT,
        offline,
        prefetch=True,
        time_limit_s=time_limit_s,
        seed=seed,
        known=na.schedule,
    )
    return WindowOutcome(window, values, {CLAIRVOYANT: clairvoyant, NON_ANTICIPATIVE: na})


@frozen
class Distribution:
    """One series' ratios to one yardstick over the windows.

    ``estimate``: their mean and 95 % half-width (Student's t over the
    windows, ``None`` with one window), the windows that gave a ratio as its
    replications; ``worst`` (the largest) and ``best``, the quartiles, and
    whether any of them is an upper bound.
    """

    estimate: Estimate
    worst: float
    best: float
    quartiles: tuple[float, float, float]
    upper_bound: bool

    def to_dict(self) -> dict[str, object]:
        """As a JSON-ready mapping (``summary.json``)."""
        return {
            "mean": self.estimate.mean,
            "half_width_95": self.estimate.half_width,
            "worst": self.worst,
            "best": self.best,
            "quartiles": list(self.quartiles),
            "windows": self.estimate.replications,
            "upper_bound": self.upper_bound,
        }


def _quantile(ordered: Sequence[float], q: float) -> float:
    """The ``q`` quantile of sorted values, interpolated linearly."""
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def distribution(ratios: Sequence[Ratio]) -> Distribution | None:
    """The distribution of the ratios that exist; ``None`` when none does."""
    values = sorted(r.ratio for r in ratios if r.ratio is not None)
    if not values:
        return None
    return Distribution(
        estimate=estimate(values),
        worst=values[-1],
        best=values[0],
        quartiles=(_quantile(values, 0.25), _quantile(values, 0.5), _quantile(values, 0.75)),
        upper_bound=any(r.upper_bound for r in ratios if r.ratio is not None),
    )


def distributions(
    outcomes: Sequence[WindowOutcome],
) -> dict[str, dict[str, Distribution | None]]:
    """Per series and yardstick, the distribution of its ratios over ``outcomes``."""
    collected: dict[str, dict[str, list[Ratio]]] = {}
    for outcome in outcomes:
        for series, by_yardstick in outcome.ratios().items():
            for yardstick, ratio in by_yardstick.items():
                collected.setdefault(series, {}).setdefault(yardstick, []).append(ratio)
    return {
        series: {y: distribution(r) for y, r in by_yardstick.items()}
        for series, by_yardstick in collected.items()
    }
