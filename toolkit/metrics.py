"""Metrics of a feasible schedule: what a tape site reads off a run.

Definitions (all pure functions of the instance and the schedule):

- response time of a request: ``C_j - r_j`` (its flow time);
- weighted response time: ``w_j (C_j - r_j)``; with ``w_j = 1 / size in GB`` its
  mean is the *average weighted response time* of the Blue Waters study
  (Cappello et al., "Comparing archival policies for Blue Waters", INRIA
  research report RR-7583, 2011, Section 3);
- stretch: response time over the request's time alone on an idle, empty
  platform (:func:`alone_s`), the slow-down of that study's Section 3;
- mounts: arm operations that bring a tape into a drive (the tape switches);
- the shares of drive and arm time and the throughputs of :data:`DEFINITIONS`.

Names of time shares and rates say what they count and over which span, so
that ``tapesched metrics``, ``simulate`` and ``replay`` give one quantity one
name and two quantities two names (:data:`DEFINITIONS` is the glossary, and
:func:`share` the one formula of every ``*_share_over_*``). The spans:

- *makespan*: from time 0 to the end of the last request (a schedule's; for
  a simulated run, its last transfer's end);
- *horizon*: from time 0 to the end of a simulated run (``simulate``: the
  simulated duration, or the last event of a trace run to its end;
  ``replay``: the last event);
- *window*: ``simulate``'s measured window, from the end of the warm-up to
  the horizon.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from attrs import asdict, frozen

from tapesched.toolkit.model import Drive, Instance, Request, Schedule
from tapesched.toolkit.objectives import objective_value
from tapesched.toolkit.validator import Report, validate

DEFINITIONS: dict[str, str] = {
    "mean_response_s": (
        "mean over the requests measured of the end of a request's data less its release: "
        "metrics measures every request of the schedule, simulate the file requests that "
        "arrived after the warm-up (an exported file request of several phases is one "
        "request per phase)"
    ),
    "mean_stretch": (
        "mean over the requests measured of the response time over the time alone on an "
        "idle platform with empty drives"
    ),
    "makespan_s": (
        "end of the last request's data: a schedule's last request end, a simulated run's "
        "last transfer end (which may pass the horizon)"
    ),
    "mounts": "tapes an arm brought into a drive: the tape switches",
    "drive_busy_share_over_horizon": (
        "drive time busy, from a drive's claim to its release: tape switches (unload, "
        "dismount, mount, load) and the waits for an arm among them, locates, transfers, "
        "and tapes put away at once; over drives x horizon"
    ),
    "drive_in_use_share_over_horizon": (
        "drive time in use by requests, positioning and reading (a trace's seconds in the "
        "drive), switches excluded; over drives x horizon"
    ),
    "drive_streaming_share_over_horizon": (
        "drive time streaming: each request (each streamed phase) holds its drives from the "
        "start of its transfer to its end, a gang's drives until its widest piece ends; "
        "over drives x horizon, a transfer in flight counted up to the horizon"
    ),
    "drive_streaming_share_over_makespan": (
        "drive time streaming, as drive_streaming_share_over_horizon, every transfer "
        "whole; over drives x makespan"
    ),
    "arm_busy_share_over_horizon": (
        "arm time carrying cartridges (mounts, dismounts, and in an SL8500 every handbot "
        "move) over all libraries' arms x horizon"
    ),
    "arm_busy_share_over_makespan": (
        "arm-operation time, every operation whole, over all libraries' arms x makespan"
    ),
    "throughput_mb_s_over_makespan": "MB of all requests over the makespan",
    "throughput_mb_s_over_window": (
        "MB of the file requests whose data ended in the window, over the window"
    ),
}
"""The quantities that ``metrics``, ``simulate`` and ``replay`` share, and every share of
drive or arm time and every throughput they report: one definition each."""


def share(busy_s: float, units: int, span_s: float) -> float:
    """``busy_s`` unit-seconds over ``units x span_s``: the formula of every ``*_share_over_*``.

    0 when there is no unit or no time to share.
    """
    return busy_s / (units * span_s) if units and span_s > 0 else 0.0


class TimedSpan(Protocol):
    """Anything held from ``start_s`` to ``end_s`` on ``drives``: a scheduled request."""

    @property
    def start_s(self) -> float: ...
    @property
    def end_s(self) -> float: ...
    @property
    def drives(self) -> Sequence[str]: ...


def streaming_drive_s(spans: Iterable[TimedSpan]) -> float:
    """Drive-seconds streaming: each span holds each of its drives from its start to its end."""
    return sum((s.end_s - s.start_s) * len(s.drives) for s in spans)


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
    drive_streaming_share_over_makespan: float
    mounts: int
    dismounts: int
    arm_busy_share_over_makespan: float
    total_mb: float
    throughput_mb_s_over_makespan: float

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
            (
                d.load_s + d.locate_s(0.0, p.offset_mb, instance.tape_by_id[p.tape].capacity_mb),
                p.size_mb / d.rate_mb_s,
            )
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

    arms = sum(lib.arms for lib in instance.libraries)
    arm_busy_s = sum(op.end_s - op.start_s for op in schedule.operations)
    total_mb = sum(r.size_mb for r in instance.requests)
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
        drive_streaming_share_over_makespan=share(
            streaming_drive_s(schedule.requests), len(instance.drives), makespan
        ),
        mounts=sum(1 for op in schedule.operations if op.op == "mount"),
        dismounts=sum(1 for op in schedule.operations if op.op == "dismount"),
        arm_busy_share_over_makespan=share(arm_busy_s, arms, makespan),
        total_mb=total_mb,
        throughput_mb_s_over_makespan=total_mb / makespan if makespan > 0 else 0.0,
    )
