"""No garbage collection while pnpkit makes many objects and (next to) no cycles.

The collector wakes every few hundred allocations and walks the young objects, then,
every tenth time, the older ones too; reading a cache file (a million tuples) or a YAML
file (a node per key and value, then the data) allocates nothing but a tree, so those
walks find no garbage and only cost time: a third of reading a 1,000-item file. Checking
a deck is alike (faces, drawings, pages: freed by their reference counts, or kept for the
build): three rich 1,000-card builds in one process with the collector off left 5 MB of
cycles. The collector is on again afterwards, and collects anything made meanwhile as
usual.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """The collector off inside the block (and left off if it was off before)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
