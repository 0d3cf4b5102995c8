"""Bounded memos, and whether this build hands its per-item work on to the next.

A memo here is a dict (or a workspace.Memo) read inline by its module (`memo.get(key)`: the hot
loops of the compiler and the text checks were measured with exactly that) and written through
remember(), which empties it when full: a build's distinct keys are far fewer than any bound, so
only a long `watch` session ever starts afresh, and a bound by count costs one len() per miss.
What is kept between builds lives in the current workspace (workspace.py), not here.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import TypeVar

from pnpkit import workspace

K = TypeVar("K")
V = TypeVar("V")


def handing_on() -> bool:
    """Whether this build keeps its per-item work (models, face keys, form names, layouts,
    preview figures) for the next: only a long-lived process (watch) has a next build; a
    one-shot `pnpkit build` would pay for keeping them and never use them (Workspace.hand_on,
    which build.validate sets from its cache: watch's is `deferred`)."""
    return workspace.current().hand_on


def remember(memo: MutableMapping[K, V], key: K, value: V, cap: int) -> V:
    """memo[key] = value, memo emptied first when it holds cap entries; value."""
    if len(memo) >= cap:
        memo.clear()
    memo[key] = value
    return value
