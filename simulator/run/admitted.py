"""An admitted request: what a run keeps of a file request from its admission to its end."""

from __future__ import annotations

from tapesched.simulator.platform.platform import Job
from tapesched.simulator.storage.files import FileRequest, JobSpec
from tapesched.simulator.storage.policies.policy import Group
from tapesched.toolkit.model import Request

NOTHING_UNAVAILABLE: frozenset[str] = frozenset()
"""One empty set shared by every request (an empty frozenset is an object of 216 bytes)."""


class AdmittedRequest:
    """What the run keeps of an admitted request.

    Its ``seq`` is its rank of arrival among the waiting requests, given by
    the run's :class:`~solvers.online.state.DispatchState` when the request
    becomes waiting. Every field but the file request starts at its class's
    value, so that making one (once a request) sets one attribute.
    """

    seq = -1
    request: Request
    plan: JobSpec | None = None
    group: Group | None = None
    job: Job | None = None
    library = 0
    width = 1
    tapes: tuple[str, ...] = ()
    service_s = 0.0
    start_s: float | None = None
    data_done_s: float | None = None
    done_s: float | None = None
    drives: tuple[int, ...] = ()
    reserved: tuple[int, ...] = ()
    mounts_before = 0
    ready_s: float | None = None
    """When its first phase began to stream (its tapes ready in their drives, located)."""
    mounted = False
    """Whether a drive it started on did not hold the tape it first reads (a read)."""
    failure: str | None = None
    """Why it failed (faults; ``None``: it did not)."""
    unavailable: frozenset[str] = NOTHING_UNAVAILABLE
    """Tapes its read is planned around: lost, or their mount given up (faults)."""
    restarts = 0
    """Times it was stopped by a fault and started again."""
    repack: str | None = None
    """The lost tape it rebuilds onto a new one (a repack the run made; faults)."""

    def __init__(self, file_request: FileRequest) -> None:
        self.file_request = file_request
