"""The constraints of the CP-SAT model, one function per family of ``solvers/exact/formulation.md``.

Every function takes the model, the data (:class:`~solvers.cpsat.data.CpsatData`)
and the variables (:class:`~solvers.cpsat.variables.CpsatVariables`) and adds one
family: assignment and gang distinctness, per-drive circuits with continue
and switch arcs, switch timing, the arms of each library, tape residency,
releases and ends, no prefetch (when asked), the symmetry of identical
empty drives, a dominance rule (no final dismount that nothing needs) and
redundant constraints.
:func:`add_all` adds them all.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict

from ortools.sat.python import cp_model
from ortools.sat.python.cp_model_helper import Literal

from tapesched.solvers.cpsat.data import DEPOT, CpsatData
from tapesched.solvers.cpsat.variables import CpsatVariables


def add_assignment(model: cp_model.CpModel, data: CpsatData, v: CpsatVariables) -> None:
    """Every piece on exactly one drive of its library; a gang's pieces on distinct drives."""
    for node in data.nodes[: data.n_pieces]:
        model.add_exactly_one(v.on[node.index, d] for d in data.drives_of_node[node.index])
    for nodes in data.request_nodes:
        if len(nodes) < 2:
            continue
        for d in sorted({d for n in nodes for d in data.drives_of_node[n]}):
            model.add_at_most_one(v.on[n, d] for n in nodes if (n, d) in v.on)


def add_circuits(model: cp_model.CpModel, data: CpsatData, v: CpsatVariables) -> None:
    """Each drive's sequence as a circuit through its depot, and what each arc implies.

    A node absent from a drive takes its self-loop; a drive empty at time 0
    may take the depot's self-loop (it does nothing); a drive holding a tape
    at time 0 starts with its initial node. On an arc between two nodes of
    one tape, exactly one of ``cont`` and ``switch`` holds; between tapes it
    is a switch. A node is mounted when it is first on an empty drive or
    entered by a switch; a switch leaving a node dismounts it, a continue
    never does, and the last node may or may not be dismounted (``kept``
    when not).
    """
    entering: dict[int, list[Literal]] = defaultdict(list)
    leaving_cont: dict[int, list[Literal]] = defaultdict(list)
    last: dict[int, list[Literal]] = defaultdict(list)
    circuits: dict[int, list[tuple[int, int, Literal]]] = defaultdict(list)
    for (d, a, b), literal in v.arc.items():
        data.deadline.check()
        circuits[d].append((_circuit_index(a), _circuit_index(b), literal))
        if a == DEPOT and b != DEPOT and not data.nodes[b].is_initial:
            entering[b].append(literal)
        elif b == DEPOT and a != DEPOT:
            last[a].append(literal)
    for arcs in circuits.values():
        model.add_circuit(arcs)
    for (d, a, b), literal in v.switch.items():
        data.deadline.check()
        if (d, a, b) in v.cont:
            model.add(v.cont[d, a, b] + literal == v.arc[d, a, b])
            leaving_cont[a].append(v.cont[d, a, b])
        entering[b].append(literal)
        model.add_implication(literal, v.dismounted[a])
    for node in data.nodes:
        n = node.index
        if not node.is_initial:
            model.add(v.mounted[n] == sum(entering[n]))
        model.add(v.continued[n] == sum(leaving_cont[n]))
        model.add_exactly_one(v.continued[n], v.dismounted[n], v.kept[n])
        model.add(v.kept[n] <= sum(last[n]))


def _chosen(data: CpsatData, v: CpsatVariables, n: int, values: list[int]) -> cp_model.LinearExpr:
    """Of ``values``, one per drive of ``data.drives_of_node[n]``, that of the drive ``n`` is on."""
    drives = data.drives_of_node[n]
    return cp_model.LinearExpr.weighted_sum([v.on[n, d] for d in drives], values)


def _circuit_index(node: int) -> int:
    """Circuit node of a model node: 0 is the depot, node ``n`` is ``n + 1``."""
    return 0 if node == DEPOT else node + 1


def add_switch_timing(model: cp_model.CpModel, data: CpsatData, v: CpsatVariables) -> None:
    """Locates on continue arcs; unload, dismount, mount, load and locate on switches.

    Continue ``a -> b`` on ``d``: ``S(b) >= C(a) + locate``. A dismounted node
    ``a``: ``D(a) >= C(a) + unload``. Switch ``a -> b``: ``M(b) >= D(a) +
    dismount_s`` (reading 2: strictly sequential). A mounted node ``b``:
    ``S(b) >= M(b) + mount_s + load + offset / locate``, the drive's terms
    chosen by ``on``.
    """
    for (d, a, b), literal in v.cont.items():
        data.deadline.check()
        model.add(
            v.start_of(data, b) >= v.end_of(data, a) + data.locate_t(a, b, d)
        ).only_enforce_if(literal)
    for node in data.nodes:
        n = node.index
        if node.is_initial:
            unload: cp_model.LinearExpr | int = data.unload_t(data.drives_of_node[n][0])
        else:
            drives = data.drives_of_node[n]
            unload = _chosen(data, v, n, [data.unload_t(d) for d in drives])
            ready = _chosen(data, v, n, [data.ready_t(n, d) for d in drives])
            model.add(v.start_of(data, n) >= v.mount[n] + ready).only_enforce_if(v.mounted[n])
            free = [data.ticks(data.available_s(d)) for d in drives]
            if any(free):
                busy = _chosen(data, v, n, free)
                model.add(v.mount[n] >= busy).only_enforce_if(v.mounted[n])
        model.add(v.dismount[n] >= v.end_of(data, n) + unload).only_enforce_if(v.dismounted[n])
    for (d, a, b), literal in v.switch.items():
        data.deadline.check()
        lib = data.drive_library[d]
        model.add(v.mount[b] >= v.dismount[a] + data.dismount_t(lib)).only_enforce_if(literal)


def add_arm_capacity(model: cp_model.CpModel, data: CpsatData, v: CpsatVariables) -> None:
    """At most ``arms`` mounts and dismounts at once in each library.

    A cumulative over the optional arm intervals of the library; with one arm
    a no-overlap, which says the same and propagates more strongly.
    Zero-length operations take no arm (reading 6) and are left out. An arm
    busy at the start (``arms_available_s``) is a fixed interval from 0.
    """
    for lib, library in enumerate(data.libraries):
        intervals = [
            model.new_fixed_size_interval_var(0, data.ticks(free_s), f"arm_busy[{lib},{k}]")
            for k, free_s in enumerate(data.arm_free_s(lib))
            if free_s > 0
        ]
        for node in data.nodes:
            if data.node_library[node.index] != lib:
                continue
            if node.index in v.mount_interval and data.mount_t(lib) > 0:
                intervals.append(v.mount_interval[node.index])
            if data.dismount_t(lib) > 0:
                intervals.append(v.dismount_interval[node.index])
        if len(intervals) <= library.arms:
            continue
        if library.arms == 1:
            model.add_no_overlap(intervals)
        else:
            model.add_cumulative(intervals, [1] * len(intervals), library.arms)


def add_tape_residency(model: cp_model.CpModel, data: CpsatData, v: CpsatVariables) -> None:
    """A tape is in at most one drive at a time: its nodes' holds do not overlap.

    A node's hold starts at its mount, at 0 for an initial node, or at the
    transfer end of the node before it when a continue arc enters it; it ends
    at the end of its dismount, at its own transfer end when a continue arc
    leaves it, or at the horizon when its drive keeps the tape (reading 3).
    Only tapes of two nodes or more have holds (a continue joins two nodes
    of one tape, so both have them).
    """
    for (_, a, b), literal in v.cont.items():
        data.deadline.check()
        model.add(v.hold_start[b] == v.end_of(data, a)).only_enforce_if(literal)
    for node in data.nodes:
        n = node.index
        if n not in v.hold:
            continue
        if not node.is_initial:
            model.add(v.hold_start[n] == v.mount[n]).only_enforce_if(v.mounted[n])
        dismount_t = data.dismount_t(data.node_library[n])
        model.add(v.hold_end[n] == v.dismount[n] + dismount_t).only_enforce_if(v.dismounted[n])
        model.add(v.hold_end[n] == v.end_of(data, n)).only_enforce_if(v.continued[n])
        model.add(v.hold_end[n] == data.horizon).only_enforce_if(v.kept[n])
    for nodes in data.nodes_of_tape.values():
        if len(nodes) > 1:
            model.add_no_overlap(v.hold[n] for n in nodes)


def add_releases_and_ends(model: cp_model.CpModel, data: CpsatData, v: CpsatVariables) -> None:
    """``S_j >= r_j`` (in the domain of ``S_j``) and ``C_j = S_j + max_p transfer``.

    The transfer of a piece is that of the drive it runs on; a gang ends
    with its longest piece.
    """
    for j, nodes in enumerate(data.request_nodes):
        lengths: list[cp_model.LinearExpr | int] = []
        for n in nodes:
            options = {data.transfer_t(n, d) for d in data.drives_of_node[n]}
            if len(options) == 1:
                lengths.append(options.pop())
            else:
                lengths.append(
                    _chosen(data, v, n, [data.transfer_t(n, d) for d in data.drives_of_node[n]])
                )
        if len(lengths) == 1:
            model.add(v.span[j] == lengths[0])
        else:
            model.add_max_equality(v.span[j], lengths)
        model.add(v.end[j] == v.start[j] + v.span[j])


def add_no_prefetch(model: cp_model.CpModel, data: CpsatData, v: CpsatVariables) -> None:
    """Without prefetch, nothing is done for a request before its release.

    Only when ``data.prefetch`` is ``False``: a mount before piece ``n``
    starts at its request's release or later (the load and the locate after
    it follow it), and on a continue arc ``a -> b`` the locate to ``b``
    starts at the release of ``b``'s request or later: ``S(b) >= r(b) +
    locate``. Releases and locates are rounded up to ticks, so the model's
    solutions keep the rule with exact lengths.
    """
    if data.prefetch:
        return
    for node in data.nodes[: data.n_pieces]:
        n = node.index
        release = data.release_t(node.request)
        model.add(v.mount[n] >= release).only_enforce_if(v.mounted[n])
    for (d, a, b), literal in v.cont.items():
        data.deadline.check()
        release = data.release_t(data.nodes[b].request)
        model.add(v.start_of(data, b) >= release + data.locate_t(a, b, d)).only_enforce_if(literal)


def add_symmetry_breaking(model: cp_model.CpModel, data: CpsatData, v: CpsatVariables) -> None:
    """Identical empty drives take their first pieces in increasing node order.

    Within a group of :attr:`~solvers.exact.formulation.Formulation.drive_twins`,
    the rank of a drive is the index of its first node plus one, or one more
    than any node when it does nothing; ranks increase along the group. Two drives of a group never
    share a first node, so this keeps exactly one of their permutations.
    """
    idle = len(data.nodes) + 1
    for group in data.drive_twins:
        ranks = []
        for d in group:
            firsts = [(b, v.arc[d, DEPOT, b]) for b in data.candidates[d]]
            ranks.append(
                cp_model.LinearExpr.weighted_sum(
                    [v.arc[d, DEPOT, DEPOT], *(literal for _, literal in firsts)],
                    [idle, *(b + 1 for b, _ in firsts)],
                )
            )
        for lower, higher in itertools.pairwise(ranks):
            model.add(lower <= higher)


def add_dominance(model: cp_model.CpModel, data: CpsatData, v: CpsatVariables) -> None:
    """A drive's last tape is dismounted only if another drive may need that tape later.

    For a node ``n`` last on drive ``d`` (arc ``n -> depot``): ``n`` is not
    dismounted unless some other piece node of its tape is mounted.

    Why it loses no optimum: take a solution where ``n`` is last on ``d``,
    dismounted, and no other node of its tape is mounted. Every other node
    of the tape is then an initial node or entered by a continue arc, so the
    tape has at most two stays: the one ``n`` ends (which begins with the
    mount of ``n`` itself, or is a drive's initial stay) and a drive's initial
    stay, which holds the tape from time 0, hence before ``n``'s. Dropping
    the dismount of ``n`` (the tape stays in ``d`` to the end, ``kept``)
    frees an arm operation, moves no transfer and overlaps no other hold of
    the tape: the solution stays feasible with the same objective. Without
    the rule, each final dismount that no later use needs is a free choice
    that the search branches over for nothing.
    :func:`~solvers.cpsat.hint.canonical` drops such dismounts from a hint.
    """
    for n, node in enumerate(data.nodes):
        others = [v.mounted[m] for m in data.nodes_of_tape[node.tape] if m != n and m in v.mounted]
        for d in data.drives_of_node[n]:
            last = v.arc.get((d, n, DEPOT))
            if last is not None:
                model.add_bool_or([~last, ~v.dismounted[n], *others])


def setup_floor(data: CpsatData, n: int, d: int) -> int:
    """Least ticks drive ``d`` spends getting piece ``n`` ready, whatever precedes it.

    A continue locates from a node of the same tape; a switch unloads and
    dismounts the tape before, then mounts, loads and locates; only on a
    drive empty at time 0 can ``n`` come first, after its mount, load and
    locate alone. The drive can do nothing else meanwhile.
    """
    ready = data.ready_t(n, d)
    if d in data.initial_node:
        ready += data.unload_t(d) + data.dismount_t(data.drive_library[d])
    return min([ready, *(data.locate_t(a, n, d) for a in data.continues_into.get((d, n), ()))])


def earliest_start(data: CpsatData, n: int) -> int:
    """A lower bound, in ticks, on the transfer start of piece ``n`` from time 0.

    The head must travel from offset 0 (or the initial ``head_mb``) to the
    piece, locating or reading other pieces of the tape on the way (at the
    faster of the two speeds on a linear drive; on a serpentine one, whose
    locates need not keep the triangle inequality, no faster than the last
    locate into the piece can be,
    :meth:`~solvers.exact.formulation.Formulation.into_locate_s`), once the tape
    is loaded in the drive
    (:meth:`~solvers.exact.formulation.Formulation.loaded_s`: at once on a drive
    holding it at time 0; otherwise after the drive and the tape are freed
    of what holds them at time 0, a mount and a load). The bound is computed
    in seconds and rounded down, less a tick, so that it stays below the sum
    of any chain of the model's lengths rounded separately.
    """
    node = data.nodes[n]
    best = math.inf
    holder = data.tape_holder.get(node.tape)
    for d in data.drives_of_node[n]:
        drive = data.drives[d]
        head = data.nodes[data.initial_node[d]].offset_mb if d == holder else 0.0
        if drive.linear:
            travel = abs(node.offset_mb - head) / max(drive.locate_mb_s, drive.rate_mb_s)
        else:
            travel = data.into_locate_s(n, d)
        best = min(best, data.loaded_s(n, d) + travel)
    if math.isinf(best):
        return 0
    return max(0, math.floor(best / data.tick * (1 - 1e-9)) - 1)


def add_redundant(model: cp_model.CpModel, data: CpsatData, v: CpsatVariables) -> None:
    """Constraints implied by the others that strengthen propagation and bounds.

    - Every transfer starts no earlier than :func:`earliest_start` of its pieces.
    - An arc ``a -> b`` of drive ``d`` puts ``S(b)`` after ``C(a)`` by the
      locate or by the whole switch (unload, dismount, mount, load, locate),
      whichever is shorter: a precedence between the nodes themselves, which
      CP-SAT's circuit reasoning uses, where the switch timing goes through
      the dismount and mount times.
    - A tape that no drive holds at time 0 is mounted before one of its pieces.
    - Each drive is busy over ``[S - setup_floor, C)`` for each node it runs
      (a no-overlap per drive), and each library's drives over those of its
      requests (a cumulative of capacity its drives, a gang taking one per
      piece): a set-up of known least length is then work, not idle time.
    - The transfers ``[S_j, C_j)`` of the requests reading one tape do not
      overlap: the tape is in one drive at a time and that drive runs one
      request at a time (the pieces of one request are on distinct tapes).
      Without it, the holds alone say little when mounts take no time.
    """
    initial_tapes = {data.nodes[i].tape for i in data.initial_node.values()}
    for j, nodes in enumerate(data.request_nodes):
        model.add(v.start[j] >= max(earliest_start(data, n) for n in nodes))
    for (d, a, b), literal in v.switch.items():
        data.deadline.check()
        lib = data.drive_library[d]
        gap = data.unload_t(d) + data.dismount_t(lib) + data.ready_t(b, d)
        on_arc: Literal = literal
        if (d, a, b) in v.cont:
            gap = min(gap, data.locate_t(a, b, d))
            on_arc = v.arc[d, a, b]
        model.add(v.start_of(data, b) >= v.end_of(data, a) + gap).only_enforce_if(on_arc)
    for tape, nodes in data.nodes_of_tape.items():
        if tape not in initial_tapes:
            model.add_bool_or(v.mounted[n] for n in nodes)

    busy: dict[int, list[cp_model.IntervalVar]] = defaultdict(list)
    by_library: dict[int, list[tuple[cp_model.IntervalVar, int]]] = defaultdict(list)
    for j, nodes in enumerate(data.request_nodes):
        floors = {}
        for n in nodes:
            for d in data.drives_of_node[n]:
                floors[n, d] = setup_floor(data, n, d)
                busy[d].append(
                    model.new_optional_interval_var(
                        v.start[j] - floors[n, d],
                        v.span[j] + floors[n, d],
                        v.end[j],
                        v.on[n, d],
                        f"busy[{n},{d}]",
                    )
                )
        least = min(floors.values())
        interval = model.new_interval_var(
            v.start[j] - least, v.span[j] + least, v.end[j], f"busy[{j}]"
        )
        by_library[data.node_library[nodes[0]]].append((interval, len(nodes)))
    for intervals in busy.values():
        if len(intervals) > 1:
            model.add_no_overlap(intervals)
    for lib, entries in by_library.items():
        capacity = sum(1 for d in data.drive_library if d == lib)
        if sum(k for _, k in entries) > capacity:
            model.add_cumulative([i for i, _ in entries], [k for _, k in entries], capacity)

    transfer = {
        j: model.new_interval_var(v.start[j], v.span[j], v.end[j], f"transfer[{j}]")
        for j in range(len(data.request_nodes))
    }
    readers: dict[str, list[int]] = defaultdict(list)
    for j, nodes in enumerate(data.request_nodes):
        for n in nodes:
            readers[data.nodes[n].tape].append(j)
    for requests in readers.values():
        if len(requests) > 1:
            model.add_no_overlap(transfer[j] for j in requests)


def add_twin_order(model: cp_model.CpModel, data: CpsatData, v: CpsatVariables) -> None:
    """Identical requests start in the order of their indices (one of their permutations)."""
    for group in data.request_twins:
        for a, b in itertools.pairwise(group):
            model.add(v.start[a] <= v.start[b])


def add_tape_sequences(model: cp_model.CpModel, data: CpsatData, v: CpsatVariables) -> None:
    """The uses of each tape in time order, with the least set-up between two (redundant).

    A tape is in one drive at a time, so the nodes of a tape form a sequence
    in time, whatever drives run them: a circuit per tape through a depot,
    the tape's initial node first, and on each arc ``a -> b`` at least
    :meth:`~solvers.exact.formulation.Formulation.gap_to_next_use` between ``C(a)``
    and ``S(b)``, each length rounded to ticks. The drive circuits imply
    it; stated per tape, it bounds the locates and switches that a tape
    read many times needs, which the per-drive circuits only see once the
    drives are chosen.
    """
    for nodes in data.nodes_of_tape.values():
        if len(nodes) < 2:
            continue
        arcs: list[tuple[int, int, Literal]] = []
        for a in nodes:
            index = _circuit_index(a)
            initial = data.nodes[a].is_initial
            arcs.append((0, index, model.new_constant(1) if initial else model.new_bool_var("")))
            arcs.append((index, 0, model.new_bool_var("")))
            for b in nodes:
                data.deadline.check()
                if a == b or data.nodes[b].is_initial:
                    continue
                literal = model.new_bool_var(f"z[{a},{b}]")
                arcs.append((index, _circuit_index(b), literal))
                model.add(
                    v.start_of(data, b)
                    >= v.end_of(data, a) + data.gap_to_next_use(a, b, data.ticks)
                ).only_enforce_if(literal)
        model.add_circuit(arcs)


def add_all(model: cp_model.CpModel, data: CpsatData, v: CpsatVariables) -> None:
    """Every constraint family of the formulation, plus symmetry breaking and redundant ones.

    Raises :class:`~solvers.exact.deadline.OutOfTime` when ``data.deadline``
    passes on the way.
    """
    for family in (
        add_assignment,
        add_circuits,
        add_switch_timing,
        add_arm_capacity,
        add_tape_residency,
        add_releases_and_ends,
        add_no_prefetch,
        add_symmetry_breaking,
        add_twin_order,
        add_dominance,
        add_redundant,
        add_tape_sequences,
    ):
        data.deadline.check_now()
        family(model, data, v)
