"""Pausing Python's cyclic garbage collector while bulk data is built or checked.

Loading or validating a file of 100,000 requests creates about a million small
objects, none of them in reference cycles. The cyclic collector, triggered by
allocation counts, would scan the growing heap again and again for cycles
that are not there, which costs a third of the time. Reference counting still
frees everything as usual while the collector is paused.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic collector inside the block; restore its state after."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
