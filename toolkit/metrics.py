"""Metrics of a feasible schedule: what a tape site reads off a run.

Definitions (all pure functions of the instance and the schedule):

- response time of a request: ``C_j - r_j`` (its flow time);
- weighted response time: ``w_j (C_j - r_j)``; with ``w_j = 1 / size in GB`` its
  mean is the *average weighted response time* of the Blue Waters study
  (Cappello et al., "Comparing archival policies for Blue Waters", INRIA
  research report RR-7583, 2011, Section 3);
- stretch: response time over the request's time alone on an idle, empty
  platform (:func:`alone_s`), the slow-down of that study's Section 3;
- drive utilisation: share of drive time in ``[0, makespan]`` spent serving
  requests (a drive of a gang is busy until the gang's end);
- tape switches: mounts (each brings a tape into a drive);
- arm utilisation: share of arm time in ``[0, makespan]`` spent in mounts and
  dismounts, over all libraries' arms;
- throughput: MB of all requests over the makespan.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from attrs import asdict, frozen

from toolkit.model import Drive, Instance, Request, Schedule
from toolkit.objectives import objective_value
from toolkit.validator import Report, validate


class InfeasibleScheduleError(ValueError):
    """Metrics were asked of a schedule that breaks rules of its instance."""


@frozen
class Metrics:
    """The metrics of one feasible schedule (units in the names)."""

    requests: int
    weighted_flow: float
    makespan_s: float
    max_weighted_flow: float
    mean_response_s: float
    max_response_s: float
    mean_weighted_response: float
    mean_stretch: float
    max_stretch: float
    drive_utilisation: float
    tape_switches: int
    dismounts: int
    arm_utilisation: float
    total_mb: float
    throughput_mb_s: float

    def as_dict(self) -> dict[str, Any]:
        """The metrics as a flat JSON-friendly dict."""
        return asdict(self)


def fastest_first(instance: Instance, library_id: str) -> list[Drive]:
    """The drives of a library, fastest first (ties by id): the order :func:`alone_s` uses."""
    return sorted(instance.drives_of_library[library_id], key=lambda d: (-d.rate_mb_s, d.id))


def alone_s(instance: Instance, request: Request, drives: Sequence[Drive] | None = None) -> float:
    """Time ``request`` takes alone on an idle platform whose drives are all empty.

    Each piece needs a mount, a load, a locate from offset 0 and its transfer;
    the library's arms mount at most ``arms`` tapes at a time. Pieces go to the
    library's fastest drives, largest piece first, and the pieces with the
    longest remaining work are mounted first, which is optimal for identical
    drives. Initial tapes are ignored, so a request served from a tape that was
    loaded at time 0 may have a stretch below 1. ``drives`` may pass the
    library's :func:`fastest_first` order, computed once by a caller that asks
    for many requests.
    """
    library = instance.library_of_request(request)
    if drives is None:
        drives = fastest_first(instance, library.id)
    pieces = sorted(request.pieces, key=lambda p: -p.size_mb)
    tails = sorted(
        (
            (d.load_s + p.offset_mb / d.locate_mb_s, p.size_mb / d.rate_mb_s)
            for p, d in zip(pieces, drives, strict=False)
        ),
        key=lambda t: -(t[0] + t[1]),
    )
    ready = 0.0
    for k, (position_s, _) in enumerate(tails):
        mounted = (k // library.arms + 1) * library.mount_s
        ready = max(ready, mounted + position_s)
    return ready + max(transfer for _, transfer in tails)


def compute_metrics(
    instance: Instance, schedule: Schedule, report: Report | None = None
) -> Metrics:
    """The metrics of a feasible schedule.

    Parameters
    ----------
    instance, schedule
        The instance and a schedule of it.
    report
        The validator's report on them, when already at hand.

    Raises
    ------
    InfeasibleScheduleError
        When the schedule breaks a rule: metrics of an infeasible schedule
        would mislead.
    """
    report = report if report is not None else validate(instance, schedule)
    if not report.feasible:
        first = report.violations[0]
        raise InfeasibleScheduleError(
            f"schedule is infeasible ({len(report.violations)} violations, first: {first})"
        )
    ends = report.ends
    n = len(instance.requests)
    makespan = max(ends.values(), default=0.0)
    responses = [ends[r.id] - r.release_s for r in instance.requests]
    weighted = [r.weight * f for r, f in zip(instance.requests, responses, strict=True)]
    stretches = []
    for r, f in zip(instance.requests, responses, strict=True):
        alone = alone_s(instance, r)
        stretches.append(f / alone if alone > 0 else 1.0)

    drive_busy = sum((s.end_s - s.start_s) * len(s.drives) for s in schedule.requests)
    arms = sum(lib.arms for lib in instance.libraries)
    arm_busy = sum(op.end_s - op.start_s for op in schedule.operations)
    total_mb = sum(r.size_mb for r in instance.requests)

    def share(busy: float, units: int) -> float:
        return busy / (units * makespan) if units and makespan > 0 else 0.0

    return Metrics(
        requests=n,
        weighted_flow=objective_value(instance, ends, "weighted-flow"),
        makespan_s=makespan,
        max_weighted_flow=objective_value(instance, ends, "max-weighted-flow"),
        mean_response_s=sum(responses) / n if n else 0.0,
        max_response_s=max(responses, default=0.0),
        mean_weighted_response=sum(weighted) / n if n else 0.0,
        mean_stretch=sum(stretches) / n if n else 0.0,
        max_stretch=max(stretches, default=0.0),
        drive_utilisation=share(drive_busy, len(instance.drives)),
        tape_switches=sum(1 for op in schedule.operations if op.op == "mount"),
        dismounts=sum(1 for op in schedule.operations if op.op == "dismount"),
        arm_utilisation=share(arm_busy, arms),
        total_mb=total_mb,
        throughput_mb_s=total_mb / makespan if makespan > 0 else 0.0,
    )
