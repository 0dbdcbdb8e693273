"""A neighbourhood cut out of a schedule as an instance of its own, and its solution spliced back.

:mod:`solvers.lns` re-optimises a few requests at a time. Rather than the
whole instance with most decisions fixed, whose CP-SAT model carries every
request, it solves a *sub-instance* of the neighbourhood alone, whose size
depends on the neighbourhood, not on the instance.

The schedule is held as its decisions (:class:`~solvers.cpsat.decisions.CpsatDecisions`:
each drive's sequence, the dismounts, the order on each arm, the order in
which drives hold each tape) timed as early as they allow
(:func:`~solvers.cpsat.decisions.earliest`). A neighbourhood is a *time
window* of one library: the requests of that library whose transfers start
``k``-th to ``k + size``-th. Every drive's sequence then splits into three
runs, because a drive runs its requests in order of start: the *prefix*
(the requests starting before the window, and the tape held at time 0), the
*freed* requests and the *suffix* (those starting after).

:func:`cut` writes the freed requests as a ``tapesched.instance/2``
instance (``docs/core-problem.md``, *The starting state*) that starts at
the *origin*: the end of the library's last arm operation for the prefix,
or the first one for the window when earlier (each arm is then busy until
its own prefix work ends). Each drive of the library holds the tape of its
last prefix request (or its tape at time 0), the head where that request
left it, and is busy until that request ends; a drive whose last tape goes
to another drive within the prefix is empty, busy until its dismount ends.
Every release is counted from the origin (0 when earlier). Whether a held
tape is dismounted is the sub-instance's decision, so the prefix's last
dismount on each drive belongs to the sub-problem. Where the incumbent
interleaves an arm's work for the prefix with work for the window (which
arms free from one time on could not repeat), the window grows back a rank
at a time. The incumbent's own stretch, re-timed in the sub-instance, is
the hint (:attr:`Cut.hint`); :func:`pin` binds each drive and the arms to
be done when the suffix needs them in the incumbent (or when the hint is),
so that a sub-schedule does not buy its gain with the suffix's time.

The sub-instance's weighted flow (or makespan) differs from the instance's
restricted to the freed requests by a constant (releases before the origin
count from it); for ``max-weighted-flow`` it is a proxy. The suffix is
re-timed, not part of the sub-objective; the validator's objective of the
whole schedule judges it.

:mod:`tapesched.solvers.splice` puts a sub-schedule back.
"""

from __future__ import annotations

import math
from collections import defaultdict

from attrs import evolve, frozen

from tapesched.solvers.cpsat import CpsatModel
from tapesched.solvers.cpsat.data import CpsatData
from tapesched.solvers.cpsat.decisions import (
    EPS,
    CpsatDecisions,
    InvalidDecisions,
    Times,
    decisions_from_schedule,
    earliest,
    to_plan,
)
from tapesched.solvers.exact.plan import plan_to_schedule
from tapesched.toolkit.model import Drive, InitialTape, Instance, Library, Request, Schedule
from tapesched.toolkit.validator import validate

PREFIX, FREED, SUFFIX = 0, 1, 2
"""The phase of a node: before the window (or another library's), in it, after it."""


@frozen
class Incumbent:
    """A schedule held as its decisions and their earliest times (seconds), with its objective."""

    decisions: CpsatDecisions
    times: Times
    schedule: Schedule
    value: float


def timed(data: CpsatData, decisions: CpsatDecisions, prefetch: bool) -> Incumbent | None:
    """``decisions`` timed as early as they allow, when the validator accepts the schedule."""
    try:
        times = earliest(data, decisions, exact=True)
    except InvalidDecisions:
        return None
    schedule = plan_to_schedule(data.instance, to_plan(data, decisions, times))
    report = validate(data.instance, schedule, prefetch=prefetch)
    if not report.feasible or report.objective is None:
        return None
    return Incumbent(decisions, times, schedule, report.objective)


def incumbent_of(data: CpsatData, schedule: Schedule, prefetch: bool) -> Incumbent | None:
    """A feasible ``schedule``'s decisions, timed as early as they allow (never later).

    ``None`` when the model cannot express it (a stay without a transfer).
    """
    decisions = decisions_from_schedule(data, schedule)
    return None if decisions is None else timed(data, decisions, prefetch)


@frozen
class Cut:
    """A neighbourhood as an instance of its own (see the module's notes).

    Attributes
    ----------
    instance
        The sub-instance: the library's drives, the freed requests, the
        tapes they read or the drives hold, the state at the origin.
    origin_s
        Time of the instance that is the sub-instance's time 0.
    library
        The library's position.
    freed
        Positions of the freed requests, in the sub-instance's order.
    phase
        Phase of every node of the instance (:data:`PREFIX`, :data:`FREED`,
        :data:`SUFFIX`).
    held
        Per drive of the library (by position), the node whose tape it holds
        at the origin: its last prefix node or its initial node; absent when
        it is empty.
    hint
        The incumbent's stretch as a schedule of the sub-instance, when the
        sub-instance can express it.
    whole
        Whether the sub-instance is the instance itself (every request freed,
        one library, origin 0): its bound is then the instance's.
    ready_s
        Per drive of the sub-instance (by id) that runs a suffix, when (in
        the sub-instance's time) its freed requests must be over for the
        suffix to start as in the incumbent: the first suffix start less a
        whole switch to its piece (unload, dismount, mount, load, locate
        from 0), or the drive's last freed end in the hint when later.
        :func:`pin` makes it a constraint of the sub-model.
    arms_ready_s
        When (in the sub-instance's time) the arms must be done with the
        freed requests: the suffix's first arm operation in the incumbent,
        or the hint's last when later; ``None`` without a suffix operation.
    """

    instance: Instance
    origin_s: float
    library: int
    freed: tuple[int, ...]
    phase: tuple[int, ...]
    held: dict[int, int]
    hint: Schedule | None
    whole: bool
    ready_s: dict[str, float]
    arms_ready_s: float | None = None


def lanes_of(data: CpsatData, lib: int) -> range:
    """Positions, among :attr:`CpsatDecisions.lanes`, of the lanes of library ``lib``."""
    first = sum(data.libraries[i].arms for i in range(lib))
    return range(first, first + data.libraries[lib].arms)


def ranked(data: CpsatData, inc: Incumbent, library: int) -> list[int]:
    """The requests of ``library`` by the start of their transfers (ties: position)."""
    return sorted(
        (j for j, nodes in enumerate(data.request_nodes) if data.node_library[nodes[0]] == library),
        key=lambda j: (inc.times.start[j], j),
    )


@frozen
class _Split:
    """A window's phases and the state the prefix leaves (see :func:`_split`)."""

    phase: list[int]
    held: dict[int, int]
    busy: dict[int, float]
    lane_free: list[float]
    first_freed: float


def _split(
    data: CpsatData,
    inc: Incumbent,
    lib: int,
    order: list[int],
    first: int,
    size: int,
    later: dict[int, tuple[int, ...]],
) -> _Split | None:
    """The phases of the window of ranks ``first`` to ``first + size``, and what the prefix leaves.

    ``held`` and ``busy``: per drive of the library, the node whose tape it
    holds after its prefix and when it is free; ``lane_free``: when each arm
    has done the prefix's operations (the last dismount of each drive's
    prefix excepted: the sub-instance decides it); ``first_freed``: the
    earliest start of a freed transfer or of an operation the sub-instance
    decides. ``later`` holds, per node, the heads of the stays of its tape
    after its own: a drive whose last prefix tape goes to another drive in
    the prefix is empty once it is dismounted. ``None`` when a drive's
    sequence does not run the phases in order.
    """
    freed = order[first : first + size]
    phase = [PREFIX] * len(data.nodes)
    for rank, j in enumerate(order):
        state = PREFIX if rank < first else FREED if rank < first + size else SUFFIX
        for n in data.request_nodes[j]:
            phase[n] = state
    held: dict[int, int] = {}
    busy: dict[int, float] = {}
    for d, dl in enumerate(data.drive_library):
        if dl != lib:
            continue
        seq = inc.decisions.sequences[d]
        phases = [phase[n] for n in seq]
        if phases != sorted(phases):
            return None
        prefix = [n for n in seq if phase[n] == PREFIX]
        busy[d] = data.available_s(d)
        if prefix:
            last = prefix[-1]
            if not data.nodes[last].is_initial:
                busy[d] = inc.times.end[data.nodes[last].request]
            if any(phase[n] == PREFIX for n in later[last]):
                busy[d] = inc.times.dismount[last] + data.dismount_s(lib)
            else:
                held[d] = last
    trailing = {("dismount", n) for n in held.values()}
    lane_free = list(data.libraries[lib].arm_free_s())
    first_freed = min(inc.times.start[j] for j in freed)
    for k, lane in enumerate(lanes_of(data, lib)):
        for op in inc.decisions.lanes[lane]:
            kind, n = op
            length = data.mount_s(lib) if kind == "mount" else data.dismount_s(lib)
            at = inc.times.mount[n] if kind == "mount" else inc.times.dismount[n]
            if phase[n] == FREED or op in trailing:
                first_freed = min(first_freed, at)
            elif phase[n] == PREFIX:
                lane_free[k] = max(lane_free[k], at + length)
    return _Split(phase, held, busy, lane_free, first_freed)


def cut(data: CpsatData, inc: Incumbent, library: int, first: int, size: int) -> Cut | None:
    """The sub-instance of the requests of ``library`` ranked ``first`` to ``first + size``.

    Ranked by start (:func:`ranked`). The window grows back, a rank at a
    time and by at most ``size`` more, while an arm's operation for the
    prefix ends after the first one for the window (the incumbent
    interleaves them, which the sub-instance's arms, free from one time on,
    could not repeat).

    ``None`` when the window is empty, or some drive's sequence does not run
    prefix, freed and suffix nodes in that order (zero-length transfers
    tied in time).
    """
    instance = data.instance
    lib = library
    order = ranked(data, inc, lib)
    if not order[first : first + size]:
        return None
    later: dict[int, tuple[int, ...]] = {}
    for _, nodes in inc.decisions.stays():
        heads = inc.decisions.tape_orders[data.nodes[nodes[0]].tape]
        after = heads[heads.index(nodes[0]) + 1 :]
        later.update(dict.fromkeys(nodes, after))
    split = _split(data, inc, lib, order, first, size, later)
    grown = 0
    while (
        split is not None
        and first > 0
        and grown < size
        and max(split.lane_free) > split.first_freed + EPS
    ):
        first, grown = first - 1, grown + 1
        split = _split(data, inc, lib, order, first, size + grown, later)
    if split is None:
        return None
    freed = tuple(order[first : first + size + grown])
    phase, held, busy, lane_free = split.phase, split.held, split.busy, split.lane_free
    first_freed = split.first_freed
    drives = [d for d, dl in enumerate(data.drive_library) if dl == lib]
    own = data.libraries[lib]
    origin = max(0.0, min(max(lane_free), first_freed))
    arms = tuple(max(0.0, t - origin) for t in lane_free)
    sub_drives = [_busy_until(data.drives[d], max(0.0, busy[d] - origin)) for d in drives]
    initial = [
        InitialTape(data.drives[d].id, data.nodes[n].tape, data.nodes[n].end_mb)
        for d, n in held.items()
    ]
    tapes = {t.tape for t in initial}
    requests = []
    for j in freed:
        request = instance.requests[j]
        tapes.update(p.tape for p in request.pieces)
        requests.append(
            Request(
                request.id,
                max(0.0, request.release_s - origin),
                request.weight,
                request.kind,
                request.pieces,
            )
        )
    sub = Instance(
        name=f"{instance.name}-cut",
        libraries=(Library(own.id, own.arms, own.mount_s, own.dismount_s, arms),),
        drives=tuple(sub_drives),
        tapes=tuple(t for t in instance.tapes if t.id in tapes),
        requests=tuple(requests),
        initial=tuple(initial),
        objective=instance.objective,
    )
    whole = len(freed) == len(data.request_nodes) and len(data.libraries) == 1 and origin == 0
    made = Cut(sub, origin, lib, tuple(freed), tuple(phase), held, None, whole, {})
    hint = _stretch(data, inc, made)
    ready: dict[str, float] = {}
    ends = {e.id: e for e in hint.requests} if hint is not None else {}
    for d in drives:
        suffix = [n for n in inc.decisions.sequences[d] if phase[n] == SUFFIX]
        if not suffix:
            continue
        node = data.nodes[suffix[0]]
        drive = data.drives[d]
        switch = data.unload_s(d) + data.dismount_s(lib) + data.ready_s(suffix[0], d)
        when = inc.times.start[node.request] - origin - switch
        for e in ends.values():
            if drive.id in e.drives:
                when = max(when, e.end_s)
        ready[drive.id] = when
    suffix_ops = [
        inc.times.mount[n] if kind == "mount" else inc.times.dismount[n]
        for lane in lanes_of(data, lib)
        for kind, n in inc.decisions.lanes[lane]
        if phase[n] == SUFFIX
    ]
    arms_ready = None
    if suffix_ops:
        arms_ready = min(suffix_ops) - origin
        if hint is not None:
            arms_ready = max([arms_ready] + [op.end_s for op in hint.operations])
    return evolve(made, hint=hint, ready_s=ready, arms_ready_s=arms_ready)


def pin(built: CpsatModel, made: Cut) -> None:
    """Add to ``built`` (the sub-instance's model) that each drive's freed requests end by
    :attr:`Cut.ready_s` and the arms' work for them by :attr:`Cut.arms_ready_s`, so that a
    sub-schedule does not buy its gain with the suffix's time.

    The limit is widened by a tick per event, the most that the model's
    rounding can put the hint past its exact times.
    """
    data = built.data
    v = built.variables
    slack = data.n_events + 1
    for d, drive in enumerate(data.drives):
        when = made.ready_s.get(drive.id)
        if when is None:
            continue
        limit = max(0, math.floor(when / data.tick)) + slack
        for n in data.candidates[d]:
            j = data.nodes[n].request
            if j >= 0 and (n, d) in v.on:
                built.model.add(v.end[j] <= limit).only_enforce_if(v.on[n, d])
    if made.arms_ready_s is None:
        return
    limit = max(0, math.floor(made.arms_ready_s / data.tick)) + slack
    for n, lib in enumerate(data.node_library):
        if n in v.mount:
            built.model.add(v.mount[n] + data.mount_t(lib) <= limit).only_enforce_if(v.mounted[n])
        built.model.add(v.dismount[n] + data.dismount_t(lib) <= limit).only_enforce_if(
            v.dismounted[n]
        )


def _busy_until(drive: Drive, available_s: float) -> Drive:
    """``drive`` busy until ``available_s`` (every other field, its ``locate`` model too, kept)."""
    return evolve(drive, available_s=available_s)  # type: ignore[misc]  # @checked hides attrs


def sub_node(data: CpsatData, sub: CpsatData, made: Cut) -> dict[int, int]:
    """Each node of the instance that the sub-instance has, to its node there."""
    out: dict[int, int] = {}
    for i, j in enumerate(made.freed):
        out.update(zip(data.request_nodes[j], sub.request_nodes[i], strict=True))
    position = {drive.id: d for d, drive in enumerate(sub.drives)}
    for d, n in made.held.items():
        out[n] = sub.initial_node[position[data.drives[d].id]]
    return out


def _stretch(data: CpsatData, inc: Incumbent, made: Cut) -> Schedule | None:
    """The incumbent's decisions on the freed requests, timed in the sub-instance."""
    sub = CpsatData(made.instance, data.tick, None, data.prefetch)
    to_sub = sub_node(data, sub, made)
    dec = inc.decisions
    position = {drive.id: d for d, drive in enumerate(sub.drives)}
    sequences: list[tuple[int, ...]] = [()] * len(sub.drives)
    for d, seq in enumerate(dec.sequences):
        if data.drive_library[d] == made.library:
            sequences[position[data.drives[d].id]] = tuple(to_sub[n] for n in seq if n in to_sub)
    dismounted = frozenset(to_sub[n] for n in dec.dismounted if n in to_sub)
    lanes = tuple(
        tuple(
            (kind, to_sub[n])
            for kind, n in dec.lanes[lane]
            if n in to_sub and (made.phase[n] == FREED or kind == "dismount")
        )
        for lane in lanes_of(data, made.library)
    )
    held = set(made.held.values())
    begin = {n: -math.inf if n in held else inc.times.mount.get(n, -math.inf) for n in to_sub}
    stays = CpsatDecisions(tuple(sequences), dismounted, lanes, {}).stays()
    from_sub = {v: k for k, v in to_sub.items()}
    orders: dict[str, list[tuple[float, int]]] = defaultdict(list)
    for _, nodes in stays:
        head = nodes[0]
        orders[sub.nodes[head].tape].append((begin[from_sub[head]], head))
    decisions = CpsatDecisions(
        tuple(sequences),
        dismounted,
        lanes,
        {tape: tuple(n for _, n in sorted(held)) for tape, held in orders.items()},
    )
    found = timed(sub, decisions, data.prefetch)
    return None if found is None else found.schedule
