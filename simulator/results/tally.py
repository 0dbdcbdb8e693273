"""Statistics taken as a run goes, so that a finished request need not be kept.

A long run (a simulated year, a trace of millions of requests) cannot keep a
record of every request it finished: its memory would grow with its horizon.
The accumulators here take each value once, as the request ends, and give
at the end what the whole list would have given, to the last bit:

- :class:`ExactSum`: the sum of floats, correctly rounded whatever their order
  (values buffered, and folded now and then into a few floats whose sum is
  exactly theirs, by :func:`math.fsum`): its :meth:`~ExactSum.mean` equals
  :func:`statistics.fmean` of the same values;
- :class:`OrderStatistics`: count, sum, maximum and any order statistic
  (median, 95th percentile). Values are kept in memory, 8 bytes each, up to
  :data:`SPILL_AFTER` of them; past that they go to a temporary file, and an
  order statistic is found exactly by narrowing histograms over the file in
  chunks (:meth:`~OrderStatistics.value_at`), so memory stays bounded
  whatever the count.
"""

from __future__ import annotations

import math
import tempfile
from array import array
from collections.abc import Iterable, Iterator
from typing import Any

SPILL_AFTER = 1 << 18
"""Values an :class:`OrderStatistics` keeps in memory (2 MB) before it writes them to disk."""

CHUNK = 1 << 18
"""Values read from disk at once when an order statistic is sought (2 MB)."""

BINS = 4096
"""Bins of each histogram that narrows the search for an order statistic."""


COMPACT_AFTER = 4096
"""Values an :class:`ExactSum` buffers before it folds them into its partial sums."""


def _exact_partials(values: list[float]) -> list[float]:
    """Floats whose sum is exactly that of ``values``, each rounding what the ones before
    it left out (fewer than ``values``: a few, whatever their count).

    :func:`math.fsum` rounds the exact sum of its floats correctly; the exact sum less
    that rounding is again the sum of floats (those, and the rounding negated), so the
    rounding of what is left is found the same way, until nothing is: an exact sum of
    floats that is not 0 is at least the least subnormal, which does not round to 0.
    """
    partials: list[float] = []
    rest = list(values)
    while True:
        rounded = math.fsum(rest)
        if rounded == 0.0:
            return partials
        partials.append(rounded)
        rest.append(-rounded)


class ExactSum:
    """The sum of the floats added, exact until it is read (then correctly rounded).

    Values are buffered, and every :data:`COMPACT_AFTER` of them folded, with the partial
    sums kept, into a few floats whose sum is exactly theirs (:func:`_exact_partials`),
    so that adding a value is an append and the memory a few floats.
    """

    __slots__ = ("_buffer", "_partials", "count")

    def __init__(self, values: Iterable[float] = ()) -> None:
        self._partials: list[float] = []
        self._buffer = array("d")
        self.count = 0
        for value in values:
            self.add(value)

    def add(self, x: float) -> None:
        """Add ``x`` (finite)."""
        buffer = self._buffer
        buffer.append(x)
        self.count += 1
        if len(buffer) >= COMPACT_AFTER:
            self.add_all(())

    def add_all(self, values: Iterable[float]) -> None:
        """Add every value of ``values`` at once (and fold the buffer in)."""
        before = len(self._buffer)
        self._buffer.extend(values)
        self.count += len(self._buffer) - before
        self._partials = _exact_partials([*self._partials, *self._buffer])
        del self._buffer[:]

    @property
    def value(self) -> float:
        """The sum, correctly rounded (as :func:`math.fsum` of every value added)."""
        return math.fsum([*self._partials, *self._buffer])

    def mean(self) -> float:
        """The mean, as :func:`statistics.fmean` of every value added.

        Raises
        ------
        ZeroDivisionError
            When nothing was added.
        """
        return self.value / self.count


class OrderStatistics:
    """Count, exact sum, maximum and order statistics of the values added (see the module).

    Use it as a context manager, or call :meth:`close`, to remove the
    temporary file of a long run as soon as it is read.
    """

    def __init__(self, spill_after: int | None = None) -> None:
        self._spilled = ExactSum()
        """The sum of the values on disk."""
        self.max = -math.inf
        self._values = array("d")
        self._spill_after = SPILL_AFTER if spill_after is None else spill_after
        self._file: tempfile._TemporaryFileWrapper[bytes] | None = None
        self._on_disk = 0

    def __enter__(self) -> OrderStatistics:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Remove the temporary file (the values kept so far are then lost)."""
        if self._file is not None:
            self._file.close()
            self._file = None
            self._on_disk = 0

    @property
    def count(self) -> int:
        """Values added."""
        return self._spilled.count + len(self._values)

    def add(self, x: float) -> None:
        """Add ``x`` (finite)."""
        if x > self.max:
            self.max = x
        values = self._values
        values.append(x)
        if len(values) >= self._spill_after:
            if self._file is None:
                self._file = tempfile.NamedTemporaryFile(prefix="tapesched-", suffix=".f64")
            self._spilled.add_all(values)
            values.tofile(self._file)
            self._on_disk += len(values)
            del values[:]

    @property
    def sum(self) -> ExactSum:
        """The exact sum of the values added (those spilled, and those in memory)."""
        total = ExactSum()
        total.add_all([*self._spilled._partials, *self._values])
        total.count = self.count
        return total

    def mean(self) -> float:
        """The mean (as :func:`statistics.fmean`)."""
        return self.sum.mean()

    def quantile(self, q: float) -> float:
        """The ``q``-quantile, interpolated linearly between ranks (as numpy's default and the
        replay's statistics always were): exact.

        Raises
        ------
        ValueError
            When no value was added, or ``q`` is outside [0, 1].
        """
        if not 0.0 <= q <= 1.0:
            raise ValueError(f"q is within [0, 1], got {q!r}")
        n = self.count
        if n == 0:
            raise ValueError("no value to take a quantile of")
        position = q * (n - 1)
        low = math.floor(position)
        high = min(low + 1, n - 1)
        if self._file is None:
            import numpy as np

            ordered = np.sort(np.frombuffer(self._values, dtype=np.float64))
            a, b = float(ordered[low]), float(ordered[high])
        else:
            a = self.value_at(low)
            b = a if high == low else self.value_at(high)
        return a + (b - a) * (position - low)

    def value_at(self, rank: int) -> float:
        """The ``rank``-th smallest value (from 0), found without holding every value."""
        import numpy as np

        if not 0 <= rank < self.count:
            raise ValueError(f"rank {rank} of {self.count} values")
        lo, hi, below = -math.inf, math.inf, 0  # the value is in [lo, hi), ``below`` are < lo
        while True:
            inside = 0
            for chunk in self._chunks():
                inside += int(np.count_nonzero((chunk >= lo) & (chunk < hi)))
            if inside <= CHUNK:
                found = np.concatenate(
                    [c[(c >= lo) & (c < hi)] for c in self._chunks()] or [np.empty(0)]
                )
                found.sort()
                return float(found[rank - below])
            first, last = math.inf, -math.inf
            for chunk in self._chunks():
                part = chunk[(chunk >= lo) & (chunk < hi)]
                if part.size:
                    first, last = min(first, float(part.min())), max(last, float(part.max()))
            if first == last:
                return first
            edges = np.linspace(first, last, BINS + 1)
            edges[-1] = np.nextafter(last, math.inf)
            counts = np.zeros(BINS, dtype=np.int64)
            for chunk in self._chunks():
                part = chunk[(chunk >= lo) & (chunk < hi)]
                counts += np.histogram(part, bins=edges)[0]
            cumulative = below + np.cumsum(counts)
            k = int(np.searchsorted(cumulative, rank, side="right"))
            below = below if k == 0 else int(cumulative[k - 1])
            lo, hi = float(edges[k]), float(edges[k + 1])

    def _chunks(self) -> Iterator[Any]:
        """The values added, a chunk (numpy array) at a time: those on disk, then in memory."""
        import numpy as np

        if self._file is not None:
            self._file.flush()
            mapped = np.memmap(self._file.name, dtype=np.float64, mode="r", shape=(self._on_disk,))
            for start in range(0, self._on_disk, CHUNK):
                yield np.array(mapped[start : start + CHUNK])
            del mapped
        if self._values:
            yield np.frombuffer(self._values, dtype=np.float64)
