"""The data of the exact formulation (``solvers/exact/formulation.md``), shared by both backends.

CP-SAT (:mod:`solvers.cpsat`) and the MILP (:mod:`solvers.milp`) model one
formulation, so they model it over one set of data, computed here once:

- the *nodes* (:class:`Node`): a piece node for every piece of every request,
  in request and piece order, then an initial node for every drive holding a
  tape at time 0, in the instance's order of ``initial``; the drives each
  node may run on, the nodes each drive may run, the nodes of each tape, and
  which node may directly follow which on one drive;
- the lengths of the formulation in seconds (transfers, mount-load-locate,
  locates, unloads, arm operations), and the earliest time a tape can be in
  a drive, loaded, from the state at time 0;
- the *twin groups*: drives that nothing tells apart (one library, equal
  timings, empty at time 0) and identical requests (same release, weight
  and pieces), whose permutations symmetry breaking removes;
- the *tape gaps*: the least time between the end of one use of a tape and
  the start of its next use, or of any later one.

Each backend's data module adds only what is its own: CP-SAT's integer ticks,
its rounding and its horizon (:class:`solvers.cpsat.data.CpsatData`); the
MILP's arcs pruned by bounds, its time bounds and big-Ms, its arm operations
and lanes (:class:`solvers.milp.data.MilpData`).

Positions and ids: a :class:`Node` names its tape, library and drives by id,
as the instance's own records do; the data also number the drives and
libraries by their position in the instance (``drives_of_node``,
``drive_library``, ``node_library``), as the models do.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from functools import cached_property
from typing import TypeVar

from attrs import frozen

from tapesched.solvers.exact.plan import ReadStay, Transfer, read_stays
from tapesched.toolkit.model import Drive, Instance, Library, Schedule

Length = TypeVar("Length", int, float)
"""A length in a backend's unit: seconds (``float``) or CP-SAT's ticks (``int``)."""


@frozen
class Node:
    """A piece node (``request >= 0``) or the initial node of a drive (``request == -1``).

    Attributes
    ----------
    index
        Position in :attr:`Formulation.nodes`.
    request, piece
        The request's position in the instance and the piece's in the
        request; ``-1`` for an initial node.
    tape
        The tape read (or held at time 0).
    offset_mb, size_mb
        Where the piece starts on its tape, and its size; 0 and 0 for an
        initial node, whose head rests at the start of the tape.
    library
        The tape's library.
    drives
        Ids of the drives the node may run on: its library's, in the
        instance's order; the one drive holding the tape for an initial node.
    """

    index: int
    request: int
    piece: int
    tape: str
    offset_mb: float
    size_mb: float
    library: str
    drives: tuple[str, ...]

    @property
    def end_mb(self) -> float:
        """Where the head rests once the node is done: ``offset + size``, 0 for an initial tape."""
        return self.offset_mb + self.size_mb

    @property
    def is_initial(self) -> bool:
        """Whether this is a drive's tape at time 0."""
        return self.request < 0


class Formulation:
    """Nodes, candidate drives, twin groups, lengths in seconds and tape gaps of an instance.

    Parameters
    ----------
    instance
        A well-formed instance.
    prefetch
        ``False`` for the non-anticipative problem of ``solve(...,
        prefetch=False)``: no mount, load or locate serving a request
        starts before its release (each backend adds the constraints; the
        data are the same).

    Attributes
    ----------
    instance, libraries, drives
        The instance, its libraries and drives (positions are indices into these).
    prefetch
        Whether a tape may be mounted, loaded and located before the release.
    library_index, drive_index
        Position of each library and drive by id.
    drive_library
        Position of each drive's library, by drive position.
    nodes
        Piece nodes in request and piece order, then the initial nodes.
    n_pieces
        Number of piece nodes (they come first in :attr:`nodes`).
    request_nodes
        The nodes of each request's pieces, in piece order.
    node_library
        Position of each node's library, by node.
    initial_node
        The initial node of each drive (by position) holding a tape at time 0.
    drives_of_node
        Positions of the drives each node may run on (:attr:`Node.drives`).
    candidates
        The nodes each drive (by position) may run: its initial node first,
        then the piece nodes of its library.
    nodes_of_tape
        The nodes of each tape, in node order.
    """

    def __init__(self, instance: Instance, prefetch: bool = True) -> None:
        self.instance = instance
        self.prefetch = prefetch
        self.libraries: tuple[Library, ...] = instance.libraries
        self.drives: tuple[Drive, ...] = instance.drives
        self.library_index = {lib.id: i for i, lib in enumerate(instance.libraries)}
        self.drive_index = {d.id: i for i, d in enumerate(instance.drives)}
        self.drive_library = [self.library_index[d.library] for d in instance.drives]
        tape_library = {t.id: t.library for t in instance.tapes}
        library_drives = {
            lib: tuple(d.id for d in ds) for lib, ds in instance.drives_of_library.items()
        }

        nodes: list[Node] = []
        self.request_nodes: list[tuple[int, ...]] = []
        for j, request in enumerate(instance.requests):
            first = len(nodes)
            for k, piece in enumerate(request.pieces):
                library = tape_library[piece.tape]
                nodes.append(
                    Node(
                        len(nodes),
                        j,
                        k,
                        piece.tape,
                        float(piece.offset_mb),
                        float(piece.size_mb),
                        library,
                        library_drives.get(library, ()),
                    )
                )
            self.request_nodes.append(tuple(range(first, len(nodes))))
        self.n_pieces = len(nodes)
        self.initial_node: dict[int, int] = {}
        for init in instance.initial:
            self.initial_node[self.drive_index[init.drive]] = len(nodes)
            nodes.append(
                Node(
                    len(nodes),
                    -1,
                    -1,
                    init.tape,
                    float(init.head_mb),
                    0.0,
                    tape_library[init.tape],
                    (init.drive,),
                )
            )
        self.nodes: tuple[Node, ...] = tuple(nodes)
        self.node_library = [self.library_index[n.library] for n in nodes]
        self.drives_of_node: list[tuple[int, ...]] = [
            tuple(self.drive_index[d] for d in n.drives) for n in nodes
        ]

        self.candidates: list[tuple[int, ...]] = []
        for d, lib in enumerate(self.drive_library):
            own = [n for n in range(self.n_pieces) if self.node_library[n] == lib]
            if d in self.initial_node:
                own.insert(0, self.initial_node[d])
            self.candidates.append(tuple(own))
        self.nodes_of_tape: dict[str, tuple[int, ...]] = {}
        for n in nodes:
            self.nodes_of_tape[n.tape] = (*self.nodes_of_tape.get(n.tape, ()), n.index)

    # Lengths in seconds --------------------------------------------------------

    def release_s(self, j: int) -> float:
        """Release of request ``j``."""
        return float(self.instance.requests[j].release_s)

    def transfer_s(self, n: int, d: int) -> float:
        """Transfer of node ``n`` on drive ``d`` (0 for an initial node)."""
        return self.nodes[n].size_mb / self.drives[d].rate_mb_s

    def ready_s(self, n: int, d: int) -> float:
        """From the start of the mount of ``n`` into ``d`` to its transfer: mount, load, locate."""
        drive = self.drives[d]
        lib = self.libraries[self.drive_library[d]]
        return lib.mount_s + drive.load_s + self.load_locate_s(n, d)

    @cached_property
    def capacity_mb(self) -> dict[str, float]:
        """The capacity of each tape, which a serpentine drive's locates depend on."""
        return {t.id: float(t.capacity_mb) for t in self.instance.tapes}

    def head_locate_s(self, d: int, tape: str, from_mb: float, to_mb: float) -> float:
        """Locate on ``d`` from ``from_mb`` to ``to_mb`` on ``tape``: the drive's own timing
        (:meth:`toolkit.model.Drive.locate_s`, linear or serpentine), the only one the
        formulation uses."""
        return self.drives[d].locate_s(from_mb, to_mb, self.capacity_mb[tape])

    def load_locate_s(self, n: int, d: int) -> float:
        """Locate on ``d`` from the load point (offset 0, where a load leaves the head) to
        node ``n``'s offset."""
        node = self.nodes[n]
        return self.head_locate_s(d, node.tape, 0.0, node.offset_mb)

    def locate_s(self, a: int, b: int, d: int) -> float:
        """Locate on ``d`` from where node ``a`` leaves the head to node ``b``'s offset.

        Sequence-dependent, and on a serpentine drive neither symmetric nor
        bound by the triangle inequality: each ordered pair is timed alone.
        """
        return self.head_locate_s(
            d, self.nodes[b].tape, self.nodes[a].end_mb, self.nodes[b].offset_mb
        )

    def into_locate_s(self, n: int, d: int) -> float:
        """The least locate on ``d`` into piece node ``n``, whatever comes before it.

        The head reaches ``n`` by one locate from where the node before it
        on ``d`` left it (the same tape, :meth:`can_follow`, or the drive's
        initial tape), or from the load point after a mount. The least of
        those times is a floor of the last locate before ``n`` under any
        locate model: it asks nothing of the triangle inequality, unlike a
        floor from the distance and a speed.
        """
        return self._into_locate[n, d]

    @cached_property
    def _into_locate(self) -> dict[tuple[int, int], float]:
        out: dict[tuple[int, int], float] = {}
        for n in range(self.n_pieces):
            tape = self.nodes_of_tape[self.nodes[n].tape]
            for d in self.drives_of_node[n]:
                out[n, d] = min(
                    [self.load_locate_s(n, d)]
                    + [
                        self.locate_s(a, n, d)
                        for a in tape
                        if d in self.drives_of_node[a] and self.can_follow(a, n)
                    ]
                )
        return out

    def worst_into_locate_s(self, n: int, d: int) -> float:
        """The longest locate on ``d`` into piece node ``n``, whatever comes before it (the
        ceiling of :meth:`into_locate_s`'s choices), for horizons."""
        tape = self.nodes_of_tape[self.nodes[n].tape]
        return max(
            [self.load_locate_s(n, d)]
            + [
                self.locate_s(a, n, d)
                for a in tape
                if d in self.drives_of_node[a] and self.can_follow(a, n)
            ]
        )

    def unload_s(self, d: int) -> float:
        """Unload of drive ``d``."""
        return float(self.drives[d].unload_s)

    def mount_s(self, lib: int) -> float:
        """Arm time of a mount in library ``lib``."""
        return float(self.libraries[lib].mount_s)

    def dismount_s(self, lib: int) -> float:
        """Arm time of a dismount in library ``lib``."""
        return float(self.libraries[lib].dismount_s)

    def available_s(self, d: int) -> float:
        """When drive ``d`` is free at the start (version 2; 0 by default): the end of
        its initial node, and the earliest start of a mount into it."""
        return float(self.drives[d].available_s)

    def arm_free_s(self, lib: int) -> tuple[float, ...]:
        """When each arm of library ``lib`` is free at the start (version 2; 0 by default)."""
        return self.libraries[lib].arm_free_s()

    @cached_property
    def tape_holder(self) -> dict[str, int]:
        """The drive (by position) holding each tape at time 0."""
        return {self.nodes[n].tape: d for d, n in self.initial_node.items()}

    def loaded_s(self, n: int, d: int) -> float:
        """Earliest time node ``n``'s tape can be in drive ``d`` and loaded, from time 0.

        When ``d`` is free (:meth:`available_s`) if ``d`` holds the tape at
        time 0. Otherwise an arm mounts it once ``d`` is free and has given up
        its own tape at time 0, if any (unload, dismount), and the drive
        holding the tape at time 0, if any, has given it up; then ``d`` loads
        it. The head has still to locate to the piece.
        """
        holder = self.tape_holder.get(self.nodes[n].tape)
        if d == holder:
            return self.available_s(d)
        lib = self.node_library[n]
        dismount = self.dismount_s(lib)
        emptied = self.available_s(d)
        if d in self.initial_node:
            emptied += self.unload_s(d) + dismount
        freed = (
            0.0 if holder is None else self.available_s(holder) + self.unload_s(holder) + dismount
        )
        return max(emptied, freed) + self.mount_s(lib) + self.drives[d].load_s

    def stays_of(self, schedule: Schedule) -> dict[str, list[ReadStay]] | None:
        """The stays of every drive in ``schedule`` with their nodes, as the validator reads them.

        :func:`solvers.exact.plan.read_stays` on the transfers of every piece node,
        a drive's initial node opening its first stay. ``None`` when the
        schedule is not one of these nodes: a request missing, a request on
        as many drives as it has pieces but not on drives they may run on,
        or stays that :func:`~solvers.exact.plan.read_stays` refuses (operations
        that contradict each other, a transfer in no stay of its tape, a stay
        without a transfer).
        """
        by_id = {entry.id: entry for entry in schedule.requests}
        transfers: list[Transfer] = []
        for j, request in enumerate(self.instance.requests):
            entry = by_id.get(request.id)
            if entry is None or len(entry.drives) != len(request.pieces):
                return None
            for n, drive in zip(self.request_nodes[j], entry.drives, strict=True):
                node = self.nodes[n]
                if drive not in node.drives:
                    return None
                transfers.append((drive, entry.start_s, entry.end_s, node.tape, node.offset_mb, n))
        initial = {self.drives[d].id: (self.nodes[n].tape, n) for d, n in self.initial_node.items()}
        return read_stays(self.instance, schedule, initial, transfers)

    # Sequences on one drive -------------------------------------------------------

    def can_follow(self, a: int, b: int) -> bool:
        """Whether node ``b`` may come right after node ``a`` on one drive.

        Initial nodes come first, and two pieces of one request run on
        distinct drives, so neither pair is ever consecutive.
        """
        na, nb = self.nodes[a], self.nodes[b]
        return a != b and not nb.is_initial and (na.is_initial or na.request != nb.request)

    @cached_property
    def same_tape_arcs(self) -> tuple[tuple[int, int, int], ...]:
        """Every ``(drive, a, b)`` where ``b`` may follow ``a`` on the same tape (a continue)."""
        out = []
        for d, cands in enumerate(self.candidates):
            for a in cands:
                for b in self.nodes_of_tape[self.nodes[a].tape]:
                    if b in cands and self.can_follow(a, b):
                        out.append((d, a, b))
        return tuple(out)

    @cached_property
    def continues_into(self) -> dict[tuple[int, int], tuple[int, ...]]:
        """``(drive, b)``: the nodes ``a`` of :attr:`same_tape_arcs` that may precede ``b``."""
        out: dict[tuple[int, int], list[int]] = defaultdict(list)
        for d, a, b in self.same_tape_arcs:
            out[d, b].append(a)
        return {key: tuple(nodes) for key, nodes in out.items()}

    # Twin groups --------------------------------------------------------------------

    @cached_property
    def drive_twins(self) -> tuple[tuple[int, ...], ...]:
        """Groups of two or more interchangeable drives: one library, equal timings, empty at 0.

        Drives by position, each group in the instance's order, the groups in
        the order of their first drive. Any schedule stays feasible, with the
        same request ends, when such drives trade their whole sequences.
        """
        groups: dict[tuple[object, ...], list[int]] = defaultdict(list)
        for d, drive in enumerate(self.drives):
            if d in self.initial_node:
                continue
            key = (
                drive.library,
                drive.rate_mb_s,
                drive.load_s,
                drive.unload_s,
                drive.locate_mb_s,
                drive.locate,
                drive.available_s,
            )
            groups[key].append(d)
        return tuple(tuple(group) for group in groups.values() if len(group) > 1)

    @cached_property
    def request_twins(self) -> tuple[tuple[int, ...], ...]:
        """Groups of two or more identical requests: same release, weight and pieces.

        Requests by position, in the instance's order. Two such requests
        trade their places in any schedule without changing its feasibility
        or its objective.
        """
        groups: dict[tuple[object, ...], list[int]] = defaultdict(list)
        for j, request in enumerate(self.instance.requests):
            groups[request.release_s, request.weight, request.pieces].append(j)
        return tuple(tuple(group) for group in groups.values() if len(group) > 1)

    # Tape gaps -----------------------------------------------------------------------

    def gap_to_next_use(self, a: int, b: int, length: Callable[[float], Length]) -> Length:
        """Least time from the end of node ``a`` to the start of ``b``, its tape's next use.

        Either the tape stays in its drive and the head locates from ``a`` to
        ``b``, or it leaves: unload, dismount, then a mount, load and locate
        into some drive (:meth:`ready_s`). Nothing is read on the tape in
        between, so the head locates from ``a``'s end to ``b``'s offset in
        one locate (:meth:`locate_s`, under any locate model).

        Parameters
        ----------
        a, b
            Two nodes of one tape, ``b`` a piece node.
        length
            Each length in seconds in the caller's unit (CP-SAT: rounded up
            to ticks, each length as the model rounds it).
        """
        best = None
        for d in self.drives_of_node[a]:
            away = length(self.unload_s(d)) + length(self.dismount_s(self.drive_library[d]))
            gap = min(
                [away + min(length(self.ready_s(b, e)) for e in self.drives_of_node[b])]
                + ([length(self.locate_s(a, b, d))] if d in self.drives_of_node[b] else [])
            )
            best = gap if best is None else min(best, gap)
        return 0 if best is None else best

    def gap_to_later_use_s(self, u: int, w: int) -> float:
        """Least seconds from the end of piece node ``u`` to the start of ``w``, a later use.

        Other uses of the tape may come in between, so whatever happens to
        the tape, the head travels from where ``u`` leaves it to ``w``'s
        offset no faster than the faster of a drive's locate and read
        speeds; or the tape leaves its drive on the way (unload, dismount,
        mount, load) and the head starts again from 0.

        That floor needs locates that grow with the distance and keep the
        triangle inequality. When a drive of the library locates by a
        serpentine model, which need not, the gap is instead the larger of
        the least :meth:`gap_to_next_use` out of ``u`` and the least into
        ``w`` (:meth:`_serpentine_gap_s`).
        """
        instance = self.instance
        library = instance.library_by_id[self.nodes[u].library]
        drives = [instance.drive_by_id[d] for d in self.nodes[u].drives]
        if not all(d.linear for d in drives):
            return self._serpentine_gap_s(u, w)
        speed = max(max(d.locate_mb_s, d.rate_mb_s) for d in drives)
        offset = self.nodes[w].offset_mb
        travel = abs(offset - self.nodes[u].end_mb) / speed
        remount = (
            min(d.unload_s for d in drives)
            + library.dismount_s
            + library.mount_s
            + min(d.load_s for d in drives)
            + offset / speed
        )
        return min(travel, remount)

    def _serpentine_gap_s(self, u: int, w: int) -> float:
        """A floor of the gap from the end of ``u`` to the start of ``w``, a later use of
        their tape, under any locate model.

        The use of the tape right after ``u`` is some node ``q``, and the one
        right before ``w`` some node ``p`` (``q`` may be ``w`` and ``p`` may be
        ``u``): ``S(w) >= S(q) >= C(u) + gap_to_next_use(u, q)`` and ``S(w) >=
        C(p) + gap_to_next_use(p, w) >= C(u) + gap_to_next_use(p, w)``, each
        a gap between two consecutive uses, timed pair by pair.
        """
        return max(self._least_gap_out[u], self._least_gap_in[w])

    @cached_property
    def _least_gap_out(self) -> dict[int, float]:
        """Per node: the least :meth:`gap_to_next_use` to any other piece node of its tape."""
        return {
            a: min(
                (
                    self.gap_to_next_use(a, b, float)
                    for b in self.nodes_of_tape[node.tape]
                    if b != a and not self.nodes[b].is_initial
                ),
                default=0.0,
            )
            for a, node in enumerate(self.nodes)
        }

    @cached_property
    def _least_gap_in(self) -> dict[int, float]:
        """Per piece node: the least :meth:`gap_to_next_use` from any other node of its tape."""
        return {
            b: min(
                (
                    self.gap_to_next_use(a, b, float)
                    for a in self.nodes_of_tape[node.tape]
                    if a != b
                ),
                default=0.0,
            )
            for b, node in enumerate(self.nodes[: self.n_pieces])
        }


class UnmodelledState(ValueError):
    """An instance whose starting state (version 2) a solver does not model.

    ``path`` is the JSON path of the first key of that state in the instance
    (``drives[1].available_s``), so that a command can name it.
    """

    def __init__(self, solver: str, path: str) -> None:
        self.solver = solver
        self.path = path
        super().__init__(f"{path}: solver {solver!r} does not model the starting state")


class UnmodelledLocate(UnmodelledState):
    """An instance with a drive's serpentine ``locate`` model (version 2) that a solver
    does not say it models: every built-in solver times such locates (this formulation
    by :meth:`toolkit.model.Drive.locate_s`, pair by pair), but a solver registered at
    run time (:func:`solvers.registry.register`) does not say so, and
    :func:`solvers.solve` refuses the instance for it rather than risk a schedule the
    validator rejects. ``path`` is the first such drive's (``drives[0].locate``)."""

    def __init__(self, solver: str, path: str) -> None:
        ValueError.__init__(
            self, f"{path}: solver {solver!r} does not model a serpentine locate (linear only)"
        )
        self.solver = solver
        self.path = path


def refuse_serpentine_locate(instance: Instance, solver: str) -> None:
    """Raise :class:`UnmodelledLocate` when a drive of ``instance`` has a serpentine
    ``locate`` model, which ``solver`` does not model."""
    paths = instance.locate_paths
    if paths:
        raise UnmodelledLocate(solver, paths[0])


def refuse_start_state(instance: Instance, solver: str) -> None:
    """Raise :class:`UnmodelledState` when ``instance`` starts from a state other than
    version 1's (a head off 0, a drive or an arm busy) and ``solver`` does not model it,
    rather than solve another instance than the one given."""
    paths = instance.start_state_paths
    if paths:
        raise UnmodelledState(solver, paths[0])
