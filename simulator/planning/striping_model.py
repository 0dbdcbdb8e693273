"""Golubchik, Muntz and Watson's simple model of a striped library: its Section 3 closed forms.

A request reads a file of ``T`` seconds of transfer on one drive, striped
over ``S`` tapes. The library has ``K`` drives and its arms; each tape a
request reads costs ``C`` seconds of drive time that are not transfer
(device load, search, rewind, eject) and ``L`` seconds of arm time (robot
load and unload). The paper models the unstriped library as ``K`` servers of
rate ``1 / (C + L + T)`` and the striped one as ``K / S`` *super servers* of
rate ``1 / (C + L S + T / S)`` (the ``S`` tapes of a request are loaded one
after the other by one arm, and each of the ``S`` drives transfers ``T /
S``). Two extremes follow:

- no load (no request waits): the response time is one service, ``C + L S
  + T / S``, smallest at the width minimising ``L S + T / S``
  (:func:`no_load_best_width`): striping pays when the transfer saved
  outweighs the extra loads;
- heavy load (always someone waiting): the library is stable below ``k
  mu``, ``K / (C + L + T)`` unstriped against ``(K / S) / (C + L S + T /
  S)`` striped (:func:`stability_limit_per_s`), which striping always
  lowers: under heavy load, do not stripe.

For several request classes (class ``j`` of probability ``p_j``, transfer
``T_j``, width ``w_j``) the same reading gives, for a width vector, a mean
no-load response ``sum_j p_j (C + L w_j + T_j / w_j)`` and a stability limit
from the drive time a request occupies on average, ``sum_j p_j w_j (C + L
w_j + T_j / w_j)`` drive-seconds over ``K`` drives, and from the arm time,
``sum_j p_j w_j L`` over the arms (:func:`vector_stability_limit_per_s`).
These are the paper's approximations, the fast first answer of
:mod:`tapesched.studies.golubchik.stripe_search`; the simulator, with exponential times, a
gang allocated a drive at a time and one arm serving loads before unloads,
is the judge (the test compares them at the two extremes).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from attrs import frozen


@frozen
class LibraryTimes:
    """The times of the paper's simple model, in seconds, and the library's drives and arms.

    Attributes
    ----------
    load_s
        Drive time per tape before its transfer: device load (a drive whose
        load includes the search, as the paper's Ampex table has it, counts
        the search here).
    search_s
        The mean search to a file, when the drive's load does not include it
        (half a tape at the locate speed); 0 when it does.
    rewind_eject_s
        Drive time per tape after its transfer: rewind and eject.
    mount_s, dismount_s
        Arm time per tape: robot load, robot unload.
    rate_mb_s
        One drive's transfer rate: a file of ``size_mb`` is ``T = size_mb /
        rate_mb_s`` on one drive.
    drives
        ``K``.
    arms
        Robot arms (the paper's libraries have one).
    """

    load_s: float
    rewind_eject_s: float
    mount_s: float
    dismount_s: float
    rate_mb_s: float
    drives: int
    arms: int = 1
    search_s: float = 0.0

    def __attrs_post_init__(self) -> None:
        times = (self.load_s, self.search_s, self.rewind_eject_s, self.mount_s, self.dismount_s)
        if not all(t >= 0 for t in times):
            raise ValueError(f"times must be >= 0, got {times!r}")
        if not self.rate_mb_s > 0:
            raise ValueError(f"rate_mb_s must be > 0, got {self.rate_mb_s!r}")
        if self.drives < 1 or self.arms < 1:
            raise ValueError("a library has at least one drive and one arm")

    @property
    def drive_s(self) -> float:
        """``C``: drive time per tape that is not transfer (load, search, rewind, eject)."""
        return self.load_s + self.search_s + self.rewind_eject_s

    @property
    def arm_s(self) -> float:
        """``L``: arm time per tape (robot load and unload)."""
        return self.mount_s + self.dismount_s

    def transfer_s(self, size_mb: float) -> float:
        """``T``: the transfer of ``size_mb`` on one drive."""
        return size_mb / self.rate_mb_s

    def widths(self) -> range:
        """The stripe widths the library allows, ``1 .. K``."""
        return range(1, self.drives + 1)


def _check_width(times: LibraryTimes, width: int) -> None:
    if not 1 <= width <= times.drives:
        raise ValueError(f"a stripe width is 1 .. {times.drives}, got {width!r}")


def service_s(times: LibraryTimes, size_mb: float, width: int) -> float:
    """``C + L S + T / S``: one request's service, which is its response under no load."""
    _check_width(times, width)
    return times.drive_s + times.arm_s * width + times.transfer_s(size_mb) / width


def no_load_best_width(times: LibraryTimes, size_mb: float) -> int:
    """The width minimising ``L S + T / S`` (the narrowest of equals)."""
    return min(times.widths(), key=lambda s: (service_s(times, size_mb, s), s))


def stability_limit_per_s(times: LibraryTimes, size_mb: float, width: int) -> float:
    """``(K / S) / (C + L S + T / S)``: the arrival rate a library of one class keeps up with.

    ``K / (C + L + T)`` unstriped. As the paper, ``K / S`` super servers
    (``K`` need not be a multiple of ``S``; the drive time a request holds,
    ``S (C + L S + T / S)``, is what counts).
    """
    return (times.drives / width) / service_s(times, size_mb, width)


def vector_no_load_response_s(
    times: LibraryTimes, sizes_mb: Sequence[float], shares: Sequence[float], widths: Sequence[int]
) -> float:
    """Mean no-load response under a width vector: ``sum_j p_j (C + L w_j + T_j / w_j)``."""
    _check_mix(sizes_mb, shares, widths)
    return sum(p * service_s(times, s, w) for s, p, w in zip(sizes_mb, shares, widths, strict=True))


def vector_stability_limit_per_s(
    times: LibraryTimes, sizes_mb: Sequence[float], shares: Sequence[float], widths: Sequence[int]
) -> float:
    """The rate a class mix keeps up with under a width vector: the drives' and the arms' limits.

    Drives: ``K`` over the mean drive time of a request, ``sum_j p_j w_j (C
    + L w_j + T_j / w_j)``; arms: their number over the mean arm time,
    ``sum_j p_j w_j L``. With one class this is :func:`stability_limit_per_s`
    whenever the drives bind.
    """
    _check_mix(sizes_mb, shares, widths)
    drive_time = sum(
        p * w * service_s(times, s, w) for s, p, w in zip(sizes_mb, shares, widths, strict=True)
    )
    arm_time = sum(p * w * times.arm_s for p, w in zip(shares, widths, strict=True))
    drive_limit = times.drives / drive_time if drive_time > 0 else math.inf
    arm_limit = times.arms / arm_time if arm_time > 0 else math.inf
    return min(drive_limit, arm_limit)


def _check_mix(sizes_mb: Sequence[float], shares: Sequence[float], widths: Sequence[int]) -> None:
    if not len(sizes_mb) == len(shares) == len(widths) >= 1:
        raise ValueError("sizes, shares and widths: one of each per class")
    if any(p < 0 for p in shares) or not math.isclose(sum(shares), 1.0, abs_tol=1e-9):
        raise ValueError(f"class shares are >= 0 and sum to 1, got {list(shares)!r}")
