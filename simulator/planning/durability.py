"""What whole-tape losses leave of an archive: the data account and a Monte Carlo of losses.

An ``X + Y`` erasure code survives the loss of any ``Y`` members of a row
(Blue Waters paper, Section 1: "such a design can recover from the failure
of any ``Y`` tapes"). A *group* is a set of ``X + Y`` tapes written
together as the members of stripes (a RAIT or PARALLEL writing stream's
tapes, a VERTICAL parity group's ``X`` data and ``Y`` parity tapes): when
each tape is lost independently with probability ``q``, a group is lost
when more than ``Y`` of its tapes are, with probability
:func:`group_loss_probability`, the binomial tail.

A file is *readable* when no tape holding its own data is lost, *rebuilt*
when some are but every row keeps ``X`` members, and *lost* otherwise
(:meth:`simulator.storage.catalogue.Catalogue.file_state`); :class:`DataAccount`
counts files and host MB of each. :func:`simulate_losses` draws tape
losses over an archive laid out by a policy (:class:`LaidOut`, from
:func:`lay_out`: files written at time zero with
:func:`simulator.storage.policies.policy.preload`) and estimates the shares lost.

``q`` is a probability over a horizon; a tape-loss *rate* ``lambda`` per
tape-year gives ``q = 1 - exp(-lambda * years)``
(:func:`tape_loss_probability`), with no repair within the horizon.

Pure functions of their arguments; random draws come from the
:class:`random.Random` given, never the global one.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Sequence
from random import Random

from attrs import field, frozen

from tapesched.simulator.results.records import Estimate, estimate
from tapesched.simulator.storage.catalogue import Catalogue, Exposure
from tapesched.simulator.storage.data_account import ACCOUNT_FIELDS, DataAccount, account
from tapesched.simulator.storage.files import FileSpec, Scheme
from tapesched.simulator.storage.policies.policy import Policy, preload


def _probability(_: object, attribute: object, value: float) -> None:
    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise ValueError(f"{getattr(attribute, 'name', 'q')} must be within [0, 1], got {value!r}")


def _check_q(q: float) -> None:
    _probability(None, None, q)


def group_loss_probability(scheme: Scheme, q: float) -> float:
    """Probability that a group of ``X + Y`` tapes, each lost with probability ``q``, is lost.

    More than ``Y`` of its tapes lost: ``sum_{k=Y+1}^{X+Y} C(X+Y, k) q^k (1-q)^(X+Y-k)``,
    the binomial survival function at ``Y``.

    Examples
    --------
    >>> round(group_loss_probability(Scheme(1, 1), 0.1), 12)  # both tapes of a mirror
    0.01
    """
    _check_q(q)
    from scipy.stats import binom  # 1.3 s to import: loaded by the first call, not with the module

    return float(binom.sf(scheme.parity, scheme.width, q))


def tape_loss_probability(rate_per_tape_year: float, years: float) -> float:
    """``q = 1 - exp(-lambda * years)``: a tape lost at rate ``lambda`` within ``years``."""
    if not (math.isfinite(rate_per_tape_year) and rate_per_tape_year >= 0):
        raise ValueError(f"rate_per_tape_year must be >= 0, got {rate_per_tape_year!r}")
    if not (math.isfinite(years) and years > 0):
        raise ValueError(f"years must be > 0, got {years!r}")
    return -math.expm1(-rate_per_tape_year * years)


def tape_loss_rate(q: float, years: float) -> float:
    """The rate per tape-year whose :func:`tape_loss_probability` over ``years`` is ``q``."""
    _check_q(q)
    if not (math.isfinite(years) and years > 0):
        raise ValueError(f"years must be > 0, got {years!r}")
    return math.inf if q == 1.0 else -math.log1p(-q) / years


@frozen
class TapeGroup:
    """Tapes written together as the members of stripes: lost when more than ``parity`` are.

    Attributes
    ----------
    members
        Per member, the tapes it lies on (one each when nothing spilled
        over a tape's end; none for a member nothing was written to).
    parity
        ``Y``.
    """

    members: tuple[tuple[str, ...], ...]
    parity: int

    @property
    def complete(self) -> bool:
        """Whether every member lies on exactly one tape: the closed form's group."""
        return all(len(m) == 1 for m in self.members)

    def lost(self, lost_tapes: frozenset[str]) -> bool:
        """More than ``Y`` members with a lost tape."""
        return sum(1 for m in self.members if not lost_tapes.isdisjoint(m)) > self.parity


def tape_groups(catalogue: Catalogue, parity: int) -> tuple[TapeGroup, ...]:
    """The groups of tapes the catalogue's stripes were written on, in order of first use.

    Stripes sharing a tape are one group (a RAIT or PARALLEL stream writes
    a stripe per file on the same ``X + Y`` tapes); member ``m`` of the
    group is every tape member ``m`` of its stripes lies on.
    """
    parent: dict[str, str] = {}

    def root(t: str) -> str:
        while parent[t] != t:
            parent[t] = parent[parent[t]]
            t = parent[t]
        return t

    stripes = [s for s in catalogue.stripe_tapes() if any(s)]
    for stripe in stripes:
        tapes = [t for member in stripe for t in member]
        for t in tapes:
            parent.setdefault(t, t)
        first = root(tapes[0])
        for t in tapes[1:]:
            parent[root(t)] = first
    members: dict[str, list[dict[str, None]]] = {}
    for stripe in stripes:
        key = root(next(t for member in stripe for t in member))
        slots = members.setdefault(key, [{} for _ in stripe])
        for slot, member in zip(slots, stripe, strict=True):
            slot.update(dict.fromkeys(member))
    return tuple(TapeGroup(tuple(tuple(s) for s in slots), parity) for slots in members.values())


@frozen
class LaidOut:
    """An archive written by one policy, ready for loss draws.

    Files with the same :class:`~simulator.storage.catalogue.Exposure` (the files
    of one RAIT group, of one VERTICAL data tape) are kept once, with
    their number and host MB: a draw asks each distinct exposure once.

    Attributes
    ----------
    policy
        Name of the policy that wrote it.
    scheme
        The files' scheme.
    tapes
        Every tape written, in creation order.
    groups
        :func:`tape_groups`.
    exposures
        Each distinct exposure with its files and their host MB.
    files, total_mb
        Files in the archive, and their host MB.
    """

    policy: str
    scheme: Scheme
    tapes: tuple[str, ...]
    groups: tuple[TapeGroup, ...]
    exposures: tuple[tuple[Exposure, int, float], ...]
    files: int
    total_mb: float
    _by_tape: dict[str, tuple[int, ...]] = field(eq=False, repr=False)
    _groups_by_tape: dict[str, tuple[int, ...]] = field(eq=False, repr=False)

    @property
    def complete_groups(self) -> tuple[TapeGroup, ...]:
        """The groups whose ``X + Y`` members are one tape each (:attr:`TapeGroup.complete`)."""
        return tuple(g for g in self.groups if g.complete)

    def account(self, lost_tapes: frozenset[str]) -> DataAccount:
        """:func:`account` of every file, asking only the exposures a lost tape touches."""
        touched = sorted({i for t in lost_tapes for i in self._by_tape.get(t, ())})
        files = {"rebuilt": 0, "lost": 0}
        sizes = {"rebuilt": 0.0, "lost": 0.0}
        for i in touched:
            exposure, count, mb = self.exposures[i]
            state = exposure.state(lost_tapes)
            if state != "readable":
                files[state] += count
                sizes[state] += mb
        return DataAccount(
            self.files - files["rebuilt"] - files["lost"], files["rebuilt"], files["lost"],
            self.total_mb - sizes["rebuilt"] - sizes["lost"], sizes["rebuilt"], sizes["lost"],
        )  # fmt: skip

    def groups_lost(self, lost_tapes: frozenset[str]) -> int:
        """Complete groups lost (:attr:`complete_groups`)."""
        touched = {i for t in lost_tapes for i in self._groups_by_tape.get(t, ())}
        return sum(1 for i in touched if self.groups[i].lost(lost_tapes))


def lay_out(
    catalogue: Catalogue, policy: Policy, files: Sequence[FileSpec], library: str
) -> LaidOut:
    """Write ``files`` (one scheme) into the empty ``catalogue`` with ``policy``; the result.

    Raises
    ------
    ValueError
        When the files are not all of one scheme, or the catalogue is not empty.
    """
    schemes = {f.scheme for f in files}
    if len(schemes) != 1:
        raise ValueError(f"the files must share one scheme, got {sorted(map(str, schemes))}")
    if catalogue.tapes() or next(catalogue.files(), None) is not None:
        raise ValueError("the catalogue must be empty")
    (scheme,) = schemes
    preload(catalogue, policy, files, library)
    merged: dict[Exposure, list[float]] = {}
    for f in files:
        entry = merged.setdefault(catalogue.exposure(f.id), [0, 0.0])
        entry[0] += 1
        entry[1] += f.size_mb
    exposures = tuple((e, int(n), mb) for e, (n, mb) in merged.items())
    by_tape: dict[str, list[int]] = defaultdict(list)
    for i, (e, _, _) in enumerate(exposures):
        for t in e.tapes:
            by_tape[t].append(i)
    groups = tape_groups(catalogue, scheme.parity)
    complete = [i for i, g in enumerate(groups) if g.complete]
    groups_by_tape: dict[str, list[int]] = defaultdict(list)
    for i in complete:
        for member in groups[i].members:
            for t in member:
                groups_by_tape[t].append(i)
    return LaidOut(
        policy.name,
        scheme,
        tuple(t.id for t in catalogue.tapes()),
        groups,
        exposures,
        len(files),
        sum(f.size_mb for f in files),
        {t: tuple(v) for t, v in by_tape.items()},
        {t: tuple(v) for t, v in groups_by_tape.items()},
    )


def draw_lost_tapes(tapes: Sequence[str], q: float, rng: Random) -> frozenset[str]:
    """Each of ``tapes`` lost independently with probability ``q``: the lost ones.

    Skips from one lost tape to the next by a geometric gap, so a draw
    costs in the number lost, not the number of tapes.
    """
    _check_q(q)
    if q == 0.0:
        return frozenset()
    if q == 1.0:
        return frozenset(tapes)
    log_keep = math.log1p(-q)
    lost: list[str] = []
    i = -1
    while True:
        u = 1.0 - rng.random()  # in (0, 1]
        i += 1 + int(math.log(u) / log_keep)
        if i >= len(tapes):
            return frozenset(lost)
        lost.append(tapes[i])


@frozen
class Proportion:
    """A share of independent trials, with its exact (Clopper-Pearson) 95 % interval.

    Attributes
    ----------
    successes, trials
        What was counted.
    low, high
        The interval's ends.
    """

    successes: int
    trials: int
    low: float
    high: float

    @property
    def share(self) -> float | None:
        """``successes / trials`` (``None``: no trial)."""
        return self.successes / self.trials if self.trials else None

    @property
    def half_width(self) -> float | None:
        """The larger distance from the share to an end of the interval (symmetric cover)."""
        share = self.share
        return None if share is None else max(share - self.low, self.high - share)

    def covers(self, p: float) -> bool:
        """Whether ``p`` lies within the interval."""
        return self.low <= p <= self.high


def proportion(successes: int, trials: int) -> Proportion:
    """The Clopper-Pearson 95 % interval of ``successes`` out of ``trials`` (exact, valid at 0)."""
    if trials < 0 or not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials, got {successes} of {trials}")
    if trials == 0:
        return Proportion(0, 0, 0.0, 1.0)
    from scipy.stats import beta  # loaded by the first call, as in group_loss_probability

    low = 0.0 if successes == 0 else float(beta.ppf(0.025, successes, trials - successes + 1))
    high = 1.0 if successes == trials else float(beta.ppf(0.975, successes + 1, trials - successes))
    return Proportion(successes, trials, low, high)


@frozen
class LossEstimate:
    """What :func:`simulate_losses` measured at one ``q``.

    Attributes
    ----------
    q
        Probability that a tape is lost.
    replications
        Independent draws of every tape of the archive.
    groups
        Complete groups lost out of complete groups drawn, pooled over the
        draws (groups lie on disjoint tapes: independent trials), with the
        exact binomial interval.
    files_lost_share, files_rebuilt_share, bytes_lost_share
        Per draw the share of files lost, of files needing a rebuild and
        of host MB lost; mean and Student's t 95 % interval over the draws
        (:func:`simulator.results.records.estimate`: files of one group are lost
        together, so only the draws are independent).
    mean_account
        The draws' mean :class:`DataAccount` (files as means, not counts).
    """

    q: float
    replications: int
    groups: Proportion
    files_lost_share: Estimate
    files_rebuilt_share: Estimate
    bytes_lost_share: Estimate
    mean_account: dict[str, float]


def simulate_losses(laid_out: LaidOut, q: float, replications: int, rng: Random) -> LossEstimate:
    """Draw every tape lost with probability ``q``, ``replications`` times; the estimates."""
    _check_q(q)
    if replications < 2:
        raise ValueError(f"replications must be >= 2 for an interval, got {replications!r}")
    files, total_mb = laid_out.files, laid_out.total_mb
    lost_groups = 0
    lost_share: list[float | None] = []
    rebuilt_share: list[float | None] = []
    bytes_share: list[float | None] = []
    accounts: list[DataAccount] = []
    for _ in range(replications):
        lost = draw_lost_tapes(laid_out.tapes, q, rng)
        lost_groups += laid_out.groups_lost(lost)
        a = laid_out.account(lost)
        accounts.append(a)
        lost_share.append(a.files_lost / files)
        rebuilt_share.append(a.files_rebuilt / files)
        bytes_share.append(a.lost_mb / total_mb)
    mean = {n: statistics.fmean(getattr(a, n) for a in accounts) for n in ACCOUNT_FIELDS}
    trials = len(laid_out.complete_groups) * replications
    return LossEstimate(
        q,
        replications,
        proportion(lost_groups, trials),
        estimate(lost_share),
        estimate(rebuilt_share),
        estimate(bytes_share),
        mean,
    )


__all__ = [
    "DataAccount",
    "LaidOut",
    "LossEstimate",
    "Proportion",
    "TapeGroup",
    "account",
    "draw_lost_tapes",
    "group_loss_probability",
    "lay_out",
    "proportion",
    "simulate_losses",
    "tape_groups",
    "tape_loss_probability",
    "tape_loss_rate",
]
