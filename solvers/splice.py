"""A sub-instance's schedule spliced back into the incumbent (:mod:`tapesched.solvers.cut` made it).

:func:`splice` puts a schedule of the sub-instance back: each drive runs
its prefix, the sub-schedule's requests in its order, then its suffix, in
the incumbent's order; a drive's last tape before its suffix is put away
unless the suffix goes on with it (the *seam*); the arms take the prefix's
operations, the sub-schedule's, the seam's and the suffix's, merged in
three ways (:func:`_lanes`); each tape goes to its drives prefix first,
then window, then suffix. Each result is a set of decisions timed as early
as they allow (prefix events never later, the suffix re-timed behind the
window), judged by the validator; the best is returned, and
:mod:`solvers.lns` keeps it only when its objective is better.
"""

from __future__ import annotations

import math
from collections import defaultdict

from tapesched.solvers.cpsat.data import CpsatData
from tapesched.solvers.cpsat.decisions import (
    EPS,
    CpsatDecisions,
    InvalidDecisions,
    Op,
    Times,
    decisions_from_schedule,
    earliest,
)
from tapesched.solvers.cut import FREED, PREFIX, SUFFIX, Cut, Incumbent, lanes_of, sub_node, timed
from tapesched.toolkit.model import Schedule


def splice(data: CpsatData, inc: Incumbent, made: Cut, schedule: Schedule) -> Incumbent | None:
    """The incumbent with the freed requests run as ``schedule`` (of the sub-instance) runs them.

    ``None`` when the model cannot read ``schedule`` or the spliced
    decisions fail (which the phases' order rules out, but the validator is
    the judge).
    """
    sub = CpsatData(made.instance, data.tick, None, data.prefetch)
    got = decisions_from_schedule(sub, schedule)
    if got is None:
        return None
    from_sub = {v: k for k, v in sub_node(data, sub, made).items()}
    phase = made.phase
    dec = inc.decisions
    tape = [n.tape for n in data.nodes]
    position = {drive.id: d for d, drive in enumerate(sub.drives)}
    sub_dismounted = {from_sub[n] for n in got.dismounted}

    sequences = list(dec.sequences)
    dismounted = {n for n in dec.dismounted if phase[n] != FREED and n not in made.held.values()}
    dismounted |= sub_dismounted
    suffix_users: dict[str, list[tuple[float, int, int]]] = defaultdict(list)
    for d, seq in enumerate(dec.sequences):
        for n in seq:
            if phase[n] == SUFFIX:
                suffix_users[tape[n]].append((inc.times.start[data.nodes[n].request], n, d))
    seam_dismounts: list[tuple[float, int]] = []
    for d, seq in enumerate(dec.sequences):
        if data.drive_library[d] != made.library:
            continue
        own = got.sequences[position[data.drives[d].id]]
        middle = [from_sub[n] for n in own if not sub.nodes[n].is_initial]
        prefix = [n for n in seq if phase[n] == PREFIX]
        suffix = [n for n in seq if phase[n] == SUFFIX]
        sequences[d] = (*prefix, *middle, *suffix)
        run = prefix + middle
        if not run:
            continue
        last = run[-1]
        if last in dismounted:  # by the sub-schedule, or in the prefix
            continue
        if suffix:
            first = suffix[0]
            start = inc.times.start[data.nodes[first].request]
            others = any(e != d and t < start for t, _, e in suffix_users.get(tape[first], ()))
            keep = tape[last] == tape[first] and not others
        else:
            keep = tape[last] not in suffix_users
        if not keep:
            dismounted.add(last)
            if last in made.held.values() and data.nodes[last].is_initial:
                end = data.available_s(d)
            elif phase[last] == FREED:
                end = made.origin_s + _sub_end(made, schedule, data.nodes[last].request)
            else:
                end = inc.times.end[data.nodes[last].request]
            seam_dismounts.append((end + data.unload_s(d), last))
    decisions = CpsatDecisions(tuple(sequences), frozenset(dismounted), (), {})
    mounted = decisions.mounted(data)
    old_mounted = dec.mounted(data)
    seam_mounts = sorted(
        (inc.times.start[data.nodes[n].request], n)
        for n in mounted - old_mounted
        if phase[n] == SUFFIX
    )
    orders = _tape_orders(data, inc, made, got, from_sub, decisions)
    try:
        got_times = earliest(sub, got, exact=True)
    except InvalidDecisions:
        return None
    best: Incumbent | None = None
    for lanes in _lanes(
        data,
        inc,
        made,
        got,
        got_times,
        from_sub,
        decisions,
        mounted,
        seam_dismounts,
        seam_mounts,
        orders,
    ):
        found = timed(
            data,
            CpsatDecisions(decisions.sequences, decisions.dismounted, lanes, orders),
            data.prefetch,
        )
        if found is not None and (best is None or found.value < best.value):
            best = found
    return best


def _sub_end(made: Cut, schedule: Schedule, j_full: int) -> float:
    """End, in the sub-schedule, of the instance's request ``j_full``."""
    rid = made.instance.requests[made.freed.index(j_full)].id
    return next(e.end_s for e in schedule.requests if e.id == rid)


def _lanes(
    data: CpsatData,
    inc: Incumbent,
    made: Cut,
    got: CpsatDecisions,
    got_times: Times,
    from_sub: dict[int, int],
    decisions: CpsatDecisions,
    mounted: set[int],
    seam_dismounts: list[tuple[float, int]],
    seam_mounts: list[tuple[float, int]],
    orders: dict[str, tuple[int, ...]],
) -> list[tuple[tuple[Op, ...], ...]]:
    """Arm lanes of the spliced decisions, each to try (:func:`splice` keeps the best).

    Each lane of the library takes the prefix's and the suffix's operations
    of its arm in the incumbent, the sub-schedule's of its arm, and the
    seam's (spread over the lanes in order of the time they may start). Three
    orders: each phase in its own order, the phases merged by when each
    operation is wanted, the earliest time every other precedence allows
    (:func:`~solvers.cpsat.decisions.earliest` without the library's arms);
    by estimated time (the incumbent's, the sub-schedule's), which gives
    the incumbent back from its own stretch; strictly phase after phase
    (prefix, sub-schedule, seam, suffix), which never contradicts the other
    orders. The first two may (a cycle of precedences: the caller drops
    them). Empty
    when an operation longer than :data:`~solvers.cpsat.decisions.EPS` is
    on no lane, or one that is gone is on one (a defect). Shorter ones are
    on a lane when their schedule shows a length, as
    :func:`~solvers.cpsat.decisions.decisions_from_schedule` reads it.
    """
    lib = made.library
    held = set(made.held.values())
    mine = list(lanes_of(data, lib))
    present: set[Op] = {("mount", n) for n in mounted} | {
        ("dismount", n) for n in decisions.dismounted
    }

    def at(op: Op) -> float:
        return inc.times.mount[op[1]] if op[0] == "mount" else inc.times.dismount[op[1]]

    keyed: list[list[tuple[int, float, int, Op]]] = [[] for _ in mine]
    for k, lane in enumerate(mine):
        for i, op in enumerate(inc.decisions.lanes[lane]):
            stage = made.phase[op[1]]
            if stage == PREFIX and not (op[0] == "dismount" and op[1] in held):
                keyed[k].append((0, at(op), i, op))
            elif stage == SUFFIX and op in present:
                keyed[k].append((3, at(op), i, op))
        for i, (kind, n) in enumerate(got.lanes[k]):
            when = got_times.mount[n] if kind == "mount" else got_times.dismount[n]
            keyed[k].append((1, made.origin_s + when, i, (kind, from_sub[n])))
    mount_s, dismount_s = data.mount_s(lib), data.dismount_s(lib)
    free = [
        max(
            (t + (mount_s if op[0] == "mount" else dismount_s) for r, t, _, op in lane if r < 2),
            default=made.origin_s,
        )
        for lane in keyed
    ]
    seam = [(t, n, "dismount", dismount_s) for t, n in sorted(seam_dismounts)]
    seam += [(t, n, "mount", mount_s) for t, n in seam_mounts]
    for i, (when, n, kind, length) in enumerate(seam):
        if length <= 0:
            continue
        k = min(range(len(mine)), key=lambda x: (free[x], x))
        start = max(free[k], when)
        keyed[k].append((2, start, i, (kind, n)))
        free[k] = start + length
    on_lane = {item[3] for lane in keyed for item in lane}
    needed = {
        op
        for op in present
        if data.node_library[op[1]] == lib and (mount_s if op[0] == "mount" else dismount_s) > EPS
    }
    if not needed <= on_lane <= present:
        return []
    out = []
    relaxed = list(inc.decisions.lanes)
    for lane in mine:
        relaxed[lane] = ()
    try:  # every precedence but the arms': when each operation is wanted
        wanted = earliest(
            data,
            CpsatDecisions(decisions.sequences, decisions.dismounted, tuple(relaxed), orders),
            exact=True,
        )
    except InvalidDecisions:
        wanted = None
    if wanted is not None:
        times = wanted
        lanes = list(inc.decisions.lanes)
        for k, lane in enumerate(mine):
            merged: list[tuple[float, int, int, Op]] = []
            for stage in range(4):  # each phase keeps its order; the phases merge by want
                latest = -math.inf
                for item in sorted((x for x in keyed[k] if x[0] == stage), key=lambda x: x[2]):
                    kind, n = item[3]
                    latest = max(latest, times.mount[n] if kind == "mount" else times.dismount[n])
                    merged.append((latest, stage, item[2], item[3]))
            lanes[lane] = tuple(item[3] for item in sorted(merged))
        out.append(tuple(lanes))
    for order in (lambda x: (x[1], x[0], x[2]), lambda x: (x[0], x[2])):
        lanes = list(inc.decisions.lanes)
        for k, lane in enumerate(mine):
            lanes[lane] = tuple(item[3] for item in sorted(keyed[k], key=order))
        out.append(tuple(lanes))
    return out


def _tape_orders(
    data: CpsatData,
    inc: Incumbent,
    made: Cut,
    got: CpsatDecisions,
    from_sub: dict[int, int],
    decisions: CpsatDecisions,
) -> dict[str, tuple[int, ...]]:
    """Each tape's stays in the order the drives hold them: by phase, then in the phase's order.

    Prefix and suffix stays in the incumbent's order of mounts (a stay that
    is mounted only now, at the seam, by its first start); the freed ones in
    the sub-schedule's order.
    """
    in_sub = {
        from_sub[n]: float(i) for order in got.tape_orders.values() for i, n in enumerate(order)
    }
    orders: dict[str, list[tuple[int, float, int]]] = defaultdict(list)
    for _, nodes in decisions.stays():
        head = nodes[0]
        stage = made.phase[head]
        if data.nodes[head].is_initial:
            key = -math.inf
        elif stage == FREED:
            key = in_sub[head]
        else:
            key = inc.times.mount.get(head, inc.times.start[data.nodes[head].request])
        orders[data.nodes[head].tape].append((stage, key, head))
    return {tape: tuple(n for _, _, n in sorted(held)) for tape, held in orders.items()}
