"""No garbage collection while a large acyclic structure is made in one go.

The collector wakes every few hundred allocations and walks the young objects, then,
every tenth time, the older ones too; reading a cache file (a million tuples) or a YAML
file (a node per key and value, then the data) allocates nothing but a tree, so those
walks find no garbage and only cost time: a third of reading a 1,000-item file. The
collector is on again afterwards, and collects anything made meanwhile as usual.
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
