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
    becomes waiting.
    """

    __slots__ = (
        "data_done_s",
        "done_s",
        "drives",
        "failure",
        "file_request",
        "group",
        "job",
        "library",
        "mounted",
        "mounts_before",
        "plan",
        "ready_s",
        "repack",
        "request",
        "reserved",
        "restarts",
        "seq",
        "service_s",
        "start_s",
        "tapes",
        "unavailable",
        "width",
    )

    def __init__(self, file_request: FileRequest) -> None:
        self.file_request = file_request
        self.seq = -1
        self.request: Request
        self.plan: JobSpec | None = None
        self.group: Group | None = None
        self.job: Job | None = None
        self.library = 0
        self.width = 1
        self.tapes: tuple[str, ...] = ()
        self.service_s = 0.0
        self.start_s: float | None = None
        self.data_done_s: float | None = None
        self.done_s: float | None = None
        self.drives: tuple[int, ...] = ()
        self.reserved: tuple[int, ...] = ()
        self.mounts_before = 0
        self.ready_s: float | None = None
        """When its first phase began to stream (its tapes ready in their drives, located)."""
        self.mounted = False
        """Whether a drive it started on did not hold the tape it first reads (a read)."""
        self.failure: str | None = None
        """Why it failed (faults; ``None``: it did not)."""
        self.unavailable: frozenset[str] = NOTHING_UNAVAILABLE
        """Tapes its read is planned around: lost, or their mount given up (faults)."""
        self.restarts = 0
        """Times it was stopped by a fault and started again."""
        self.repack: str | None = None
        """The lost tape it rebuilds onto a new one (a repack the run made; faults)."""
