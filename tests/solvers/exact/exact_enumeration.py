"""Exact optima of tiny instances, by a search over lists of events in start order.

:func:`exact_optimum` returns the least objective over all feasible schedules
of an instance, and a schedule reaching it. Unlike :func:`brute_force` of
``brute_force.py``, which decodes request orders and places all the arm
operations of a request at its turn, it is exact where arms bind: it
enumerates the arm operations one by one, so it interleaves those of several
requests in any way (``interleaved_arms``: 7, where list scheduling gives 9).

What is enumerated
------------------
A schedule is seen as a list of *events*, each with a start time:

- ``dismount(d)``: the drive unloads the tape it holds (drive time, from its
  last action on), then an arm dismounts it; the event's time is the arm
  operation's start. The tape is back in its slot, and the drive empty, at
  the operation's end;
- ``mount(d, T)``: an arm mounts tape ``T`` (in no drive) into the empty drive
  ``d``, then the drive loads it; the head is at offset 0;
- ``start(j)``: request ``j`` starts its transfer, on the drives that hold its
  pieces' tapes (a tape is in one drive at most, so those drives are known
  and distinct), after each drive has located from its head to its piece
  (:meth:`toolkit.model.Drive.locate_s`, linear or serpentine: the proof
  below asks nothing of the locate times but that they are the validator's;
  the bounds that prune count a serpentine locate as 0 s, its only floor
  from a distance).

The search builds lists in which times never decrease, and gives each new
event the earliest time, no earlier than the previous event's, that the
events before it allow: the drive's last action plus the unload, the end of
the dismount that emptied the drive or freed the tape, the release, the
locate from the head, and an arm. With the events listed in start order, an
arm operation of nonzero length fits at time ``x`` when fewer than ``arms``
operations listed before it are still running at ``x``, which is exactly the
library's capacity (intervals are half-open, an operation of zero length
takes no arm); the state keeps the ``arms`` latest ends of each library.

Why the least objective found is the optimum
--------------------------------------------
Take an optimal schedule ``S`` with the fewest arm operations. In it every
mounted tape serves some request before it is dismounted (else dropping the
mount and its dismount keeps ``S`` feasible with fewer operations), and
every dismount is followed by a mount into the same drive or of the same
tape (else dropping the dismount, the tape staying to the end, does). List
its events by start time, ties in an order that the rules allow: a mount
before the requests of its stay, a request before the next one on any of its
drives and before the dismount of its tapes, a dismount before the next
mount into its drive or of its tape. Such an order exists: the validator
sees the requests of a stay in order of start, then end, then id (one order
for all drives), and a drive's stays in time order. A request tied with a
later event of its drive takes no time. Where it is the last of a stay and
the drive's next stay begins at once (no unload nor dismount time), the
validator reads it in the later stay when it could run there, in the earlier
one otherwise, as listed here. The two orders could only disagree where such
a switch takes no time at all, requests of both of its stays tie at its
instant, and gangs tie drives together there; one more such switch, free,
then lists them apart. Replay the list, each event at its earliest time as
above. By induction every event is placed no later than in ``S``: its lower
bounds in ``S`` come from the same predecessors, each placed no later; the
previous event is placed no later than its own time in ``S``, which is at
most this one's; and each earlier arm operation ends no later, so the arms
free at its time in ``S`` are free in the replay. The drives see the same
requests in the same order with the same head positions, so every request
ends no later, and the three objectives are nondecreasing in every end: the
replay is optimal too, and it is one of the lists enumerated (mounts of a
tape some request not yet placed needs; dismounts of a tape there at time 0
or of one that has served a request since its mount).

Pruning keeps that list or one no worse. A node is cut when

- *dominated*: an earlier node has the same requests placed and the same
  drive contents (tape, head, whether it may be dismounted) and no later
  times (last event, each drive's last action or the end of the dismount
  that emptied it, when each drive may start a dismount, each needed tape's
  return to its slot, arm ends, and the objective so far). Every
  continuation of the cut node, replayed from the earlier one, places every
  event no later (the argument above). Times below the last event's, which
  only ever enter a maximum with a later event's time, count as 0; tapes no
  request left needs count as one "spare" tape, and identical drives of a
  library are compared in a canonical order;
- *bounded*: the objective of the requests placed, combined with a lower
  bound on the rest (:meth:`~.enumeration_bound.LibraryBound.bound`), is no better than the
  best schedule found, starting from the greedy schedule's objective.

By induction on the number of events of a continuation, for every node
recorded and every continuation of it, some schedule found is no worse: the
continuation's next node is expanded, or cut by the bound, or dominated by
a recorded node from which the rest of the continuation replays no worse.
Hence the least objective found is the optimum. The search never gives up
silently: past ``max_states`` states it raises
:class:`~.enumeration_tables.StateLimitError`.

Libraries share nothing, so each one is searched alone and the parts are
put together (the weighted flow sums over libraries, the two maxima take
the maximum).

Modules
-------
This module runs the search library by library and puts the parts
together; the search itself is :class:`~.enumeration_search.LibrarySearch`,
its lower bound :class:`~.enumeration_bound.LibraryBound`, and the tables
and states both work on :mod:`.enumeration_tables`.

Tolerances
----------
The search works in exact arithmetic up to floating point. The validator
accepts every constraint to within 1e-6 s, which could admit schedules up to
about 1e-6 s better per constraint; they are not sought.
"""

from __future__ import annotations

import math
import time

import attrs

from tapesched.solvers.greedy import greedy
from tapesched.toolkit.model import (
    ArmOperation,
    Instance,
    Library,
    ObjectiveValue,
    Schedule,
    ScheduledRequest,
)
from tapesched.toolkit.validator import validate

from .enumeration_search import LibrarySearch
from .enumeration_tables import Event


@attrs.frozen
class Statistics:
    """What :func:`exact_optimum` spent: states expanded and generated, and seconds."""

    expanded: int
    generated: int
    seconds: float


def _part(instance: Instance, library: Library) -> Instance:
    """The instance restricted to one library, its drives, tapes, initial tapes and requests."""
    drives = instance.drives_of_library[library.id]
    ids = {d.id for d in drives}
    return Instance(
        name=instance.name,
        libraries=(library,),
        drives=drives,
        tapes=tuple(t for t in instance.tapes if t.library == library.id),
        requests=tuple(
            r for r in instance.requests if instance.library_of_request(r).id == library.id
        ),
        initial=tuple(x for x in instance.initial if x.drive in ids),
        objective=instance.objective,
    )


def _events_to_parts(
    search: LibrarySearch, events: list[Event]
) -> tuple[list[ScheduledRequest], list[ArmOperation]]:
    """The requests and arm operations of a list of events, ends computed as the validator does."""
    requests = []
    operations = []
    library = search.library
    for kind, index, drives, at in events:
        if kind == "start":
            request = search.requests[index]
            end = at
            for piece, d in zip(request.pieces, drives, strict=True):
                finish = at + piece.size_mb / search.drives[d].rate_mb_s
                if finish > end:
                    end = finish
            names = tuple(search.drives[d].id for d in drives)
            requests.append(ScheduledRequest(request.id, names, at, end))
        else:
            length = library.mount_s if kind == "mount" else library.dismount_s
            operations.append(
                ArmOperation(
                    kind,
                    search.tape_ids[index],
                    search.drives[drives[0]].id,
                    at,
                    at + length,
                    library.id,
                )
            )
    return requests, operations


def solve(
    instance: Instance, *, max_states: int = 2_000_000, prune: bool = True
) -> tuple[Schedule | None, Statistics]:
    """An optimal schedule of ``instance`` (``None`` if it has none) and what finding it cost.

    Each library is searched alone, from the objective of the greedy
    schedule of its requests, which is kept when nothing better exists (a
    greedy schedule that the validator rejects is ignored).

    Parameters
    ----------
    instance
        A tiny well-formed instance.
    max_states
        Most states expanded over all libraries.
    prune
        See :class:`LibrarySearch`; without it, the greedy schedule is not
        used either.

    Raises
    ------
    StateLimitError
        When the search expands more than ``max_states`` states.
    AssertionError
        When the schedule found fails the validator (a bug of this module).
    """
    began = time.perf_counter()
    requests: list[ScheduledRequest] = []
    operations: list[ArmOperation] = []
    expanded = generated = 0
    for library in instance.libraries:
        part = _part(instance, library)
        if not part.requests:
            continue
        known = greedy(part, time_limit_s=None, seed=0).schedule if prune else None
        incumbent = math.inf
        if known is not None:
            report = validate(part, known)
            if report.feasible and report.objective is not None:
                incumbent = report.objective
            else:
                known = None
        search = LibrarySearch(
            instance, library, part.requests, incumbent, max_states - expanded, prune
        )
        events = search.run()
        expanded += search.expanded
        generated += search.generated
        if events is not None:
            found_requests, found_operations = _events_to_parts(search, events)
            requests.extend(found_requests)
            operations.extend(found_operations)
        elif known is not None:
            requests.extend(known.requests)
            operations.extend(known.operations)
        else:
            return None, Statistics(expanded, generated, time.perf_counter() - began)
    order = {r.id: i for i, r in enumerate(instance.requests)}
    requests.sort(key=lambda r: order[r.id])
    operations.sort(key=lambda op: (op.start_s, op.op == "mount", op.drive, op.tape))
    schedule = Schedule(tuple(requests), tuple(operations), instance.name)
    report = validate(instance, schedule)
    assert report.feasible and report.objective is not None, [str(v) for v in report.violations]
    value = ObjectiveValue(instance.objective, report.objective)
    schedule = Schedule(schedule.requests, schedule.operations, instance.name, value)
    return schedule, Statistics(expanded, generated, time.perf_counter() - began)


def exact_optimum(
    instance: Instance, *, max_states: int = 2_000_000
) -> tuple[float, Schedule | None]:
    """Least objective over all feasible schedules, and one schedule reaching it.

    The objective is the one :func:`toolkit.validator.validate` recomputes
    for the schedule returned. Every well-formed instance has a schedule, so
    the schedule is ``None`` (and the objective ``math.inf``) only for an
    instance none exists for, which this module never meets.

    Parameters
    ----------
    instance
        A tiny well-formed instance (a handful of requests and drives).
    max_states
        Most states expanded; see :func:`solve`.
    """
    schedule, _ = solve(instance, max_states=max_states)
    if schedule is None:
        return math.inf, None
    assert schedule.objective is not None
    return schedule.objective.value, schedule
