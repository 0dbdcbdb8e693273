"""Optima of tiny instances by enumeration, to check solvers and bounds against.

:func:`brute_force` decodes, through :func:`solvers.timeline.timeline.decode` (offline),
every request order with every way of placing each request: a tuple of
distinct drives of its library, one per piece, and the order in which its
pieces are placed (which decides whose arm operations come first). It keeps
the least objective that the validator recomputes. Up to 4 single-piece
requests on 3 drives, that is 4! x 3^4 = 1,944 decodes; 3 gangs of 2 pieces
on 3 drives, 3! x 12^3 = 10,368. Beyond :data:`MAX_CANDIDATES` it refuses.

Why the enumeration reaches an optimum
--------------------------------------
Take any feasible schedule ``S``; let ``order`` list its requests by start
and let each request keep its drives. Decoding them places the requests one
by one, each as early as those before it allow, and by induction over
``order`` every request ends no later than in ``S``. Each drive gets its
requests in the same sequence as in ``S`` (a drive's sequence is its
requests by start), so before request ``j`` every drive has the same last
request and head position as in ``S``, each time no later, and holds the
same tape, or one that ``S`` took out earlier without use and that the
decoder takes out as soon as it is in the way, no later than ``S`` did.
Then, for each piece of ``j``:

- on the drive holding the piece's tape, the decoder locates from the head
  or remounts the tape (unload, dismount, mount, load, locate from 0),
  whichever completes the piece earlier; ``S`` did one of the two, from an
  end no earlier;
- on another drive, the unload of what it holds starts at the end of its
  last request, the piece's tape leaves the drive holding it at the end of
  that drive's last request, and the mount, the load and the locate from 0
  follow at the earliest; ``S`` cannot do any of them sooner;
- offline none of this waits for the release, and the transfer starts at
  the release or when every piece is ready, whichever is later.

This is the classical argument that list scheduling over every order reaches
an active schedule no worse than any given one, hence an optimum, since the
three objectives are nondecreasing in every end. The remount matters: a
decoder that only located would miss the optimum of an instance where
locating back takes longer than a remount (``remount_pays`` in
``test_brute_force.py``); :func:`solvers.timeline.timeline.decode` remounts exactly when
that makes the piece complete earlier.

Where the argument stops
------------------------
"At the earliest" above assumes that no arm operation of the decoded
schedule waits for an arm longer than in ``S``. That is so when the arms never
bind, for instance when mounts and dismounts take no time (an operation of
zero length takes no arm), and the tests check that decoding any schedule in
order of start then ends every request no later. When arms bind it may fail,
because the decoder places all the arm operations of a request at its turn:

- the pieces of a gang take the arm in the order they are placed, which is
  why that order is enumerated too (``gang_mounts_its_second_piece_first``);
- an optimum may interleave the arm operations of two requests, say the
  dismount for ``j``, then the dismount and mount for ``i``, then the mount
  for ``j``, which no order reproduces (``interleaved_arms``: optimum 7,
  every decoded candidate 9 or more);
- with several arms, the lanes of :class:`solvers.timeline.arms.ArmTimeline` are
  filled first fit, which may leave unused a gap that another split of the
  operations would expose.

Where arms bind, :func:`brute_force` is thus the best list schedule: the
objective of a feasible schedule, never below the optimum, equal to it on
every hand-made instance of ``instances/`` and (when mounts and dismounts
take no time) on every instance, but possibly above it otherwise. An exact
solver may find less than :func:`brute_force` where arms bind; it may never
find more.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Mapping, Sequence

from tapesched.solvers.timeline.timeline import decode
from tapesched.toolkit.model import Instance, Request, Schedule, ScheduledRequest
from tapesched.toolkit.validator import validate

MAX_CANDIDATES = 100_000
"""Most candidates enumerated (see :func:`candidate_count`)."""

Choice = tuple[tuple[int, ...], tuple[str, ...]]
"""How one request is placed: the order in which its pieces are placed, and their drives.

``(perm, drives)`` places piece ``perm[i]`` on ``drives[i]``, for ``i`` in turn.
"""


def choices(instance: Instance, piece_orders: bool = True) -> list[list[Choice]]:
    """For each request, in file order, every way to place it.

    Every tuple of distinct drives of its library, one per piece, and, when
    ``piece_orders``, every order of placing its pieces (which decides which
    piece's arm operations come first).
    """
    out = []
    for request in instance.requests:
        library = instance.library_of_request(request)
        drive_ids = [d.id for d in instance.drives_of_library[library.id]]
        k = len(request.pieces)
        perms = list(itertools.permutations(range(k))) if piece_orders else [tuple(range(k))]
        out.append(
            [(perm, drives) for perm in perms for drives in itertools.permutations(drive_ids, k)]
        )
    return out


def candidate_count(instance: Instance, piece_orders: bool = True) -> int:
    """Number of decodes :func:`best_schedule` makes: orders times ways to place each request."""
    return math.factorial(len(instance.requests)) * math.prod(
        len(ways) for ways in choices(instance, piece_orders)
    )


def _permuted(instance: Instance, perms: Sequence[tuple[int, ...]]) -> Instance:
    """``instance`` with the pieces of each request listed in the order of ``perms``."""
    requests = tuple(
        Request(
            request.id,
            request.release_s,
            request.weight,
            request.kind,
            tuple(request.pieces[p] for p in perm),
        )
        for request, perm in zip(instance.requests, perms, strict=True)
    )
    return Instance(
        name=instance.name,
        libraries=instance.libraries,
        drives=instance.drives,
        tapes=instance.tapes,
        requests=requests,
        initial=instance.initial,
        objective=instance.objective,
    )


def _restored(schedule: Schedule, perms: Mapping[str, tuple[int, ...]]) -> Schedule:
    """A schedule of a piece-permuted instance, its drives listed in the original piece order."""
    requests = []
    for scheduled in schedule.requests:
        perm = perms[scheduled.id]
        drives = [""] * len(perm)
        for i, p in enumerate(perm):
            drives[p] = scheduled.drives[i]
        requests.append(
            ScheduledRequest(scheduled.id, tuple(drives), scheduled.start_s, scheduled.end_s)
        )
    return Schedule(tuple(requests), schedule.operations, schedule.instance, schedule.objective)


def candidates(instance: Instance, piece_orders: bool = True) -> Iterator[tuple[float, Schedule]]:
    """Every decoded candidate, with the objective the validator recomputes.

    Raises
    ------
    AssertionError
        When the decoder returns a schedule the validator rejects.
    """
    ids = [r.id for r in instance.requests]
    orders = list(itertools.permutations(ids))
    for chosen in itertools.product(*choices(instance, piece_orders)):
        perms = [perm for perm, _ in chosen]
        permuted = _permuted(instance, perms) if piece_orders else instance
        by_id = dict(zip(ids, perms, strict=True))
        drives = {rid: d for rid, (_, d) in zip(ids, chosen, strict=True)}
        for order in orders:
            schedule = decode(permuted, order, drives=drives, online=False)
            if piece_orders:
                schedule = _restored(schedule, by_id)
            report = validate(instance, schedule)
            assert report.feasible, [str(v) for v in report.violations]
            assert report.objective is not None
            yield report.objective, schedule


def best_schedule(instance: Instance, piece_orders: bool = True) -> tuple[float, Schedule]:
    """The least validator objective over every decoded candidate, and its schedule.

    Parameters
    ----------
    instance
        A tiny instance.
    piece_orders
        Also enumerate the order in which each gang's pieces are placed.

    Raises
    ------
    ValueError
        When the instance has more than :data:`MAX_CANDIDATES` candidates.
    """
    count = candidate_count(instance, piece_orders)
    if count > MAX_CANDIDATES:
        raise ValueError(f"{count} candidates to enumerate, more than {MAX_CANDIDATES}")
    best: tuple[float, Schedule] | None = None
    for value, schedule in candidates(instance, piece_orders):
        if best is None or value < best[0]:
            best = (value, schedule)
    if best is None:
        return 0.0, decode(instance, [], online=False)
    return best


def brute_force(instance: Instance, piece_orders: bool = True) -> float:
    """The least objective over every order and placement: the optimum of a tiny instance.

    See the module's docstring for why it is the optimum when arms do not
    bind, and why it may exceed it when they do.
    """
    return best_schedule(instance, piece_orders)[0]
