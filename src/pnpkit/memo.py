"""Bounded memos, and the registry of what this process keeps from one build for the next.

A memo here is a plain dict read inline by its module (`memo.get(key)`: the hot loops of the
compiler and the text checks were measured with exactly that) and written through remember(),
which empties it when full: a build's distinct keys are far fewer than any bound, so only a
long `watch` session ever starts afresh, and a bound by count costs one len() per miss.

Every module-level cache that outlives a build is registered with kept() beside its definition,
so that forget() (build.forget_kept) can make the next build do all its work again, as a build
in a new process does, without knowing the modules' private names.
"""

from __future__ import annotations

from typing import Protocol, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Clearable(Protocol):
    def clear(self) -> None: ...

    def __len__(self) -> int: ...


_KEPT: list[Clearable] = []  # what forget() empties, in the order registered


def remember(memo: dict[K, V], key: K, value: V, cap: int) -> V:
    """memo[key] = value, memo emptied first when it holds cap entries; value."""
    if len(memo) >= cap:
        memo.clear()
    memo[key] = value
    return value


def kept(*caches: Clearable) -> None:
    """Register caches this process keeps between builds (a module calls it once, at import,
    next to their definitions)."""
    _KEPT.extend(cache for cache in caches if not any(cache is k for k in _KEPT))


def registered() -> tuple[Clearable, ...]:
    """Every cache kept() registered."""
    return tuple(_KEPT)


def forget() -> None:
    """Empty every registered cache."""
    for cache in _KEPT:
        cache.clear()
