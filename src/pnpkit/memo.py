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

# Whether this process's builds hand what they worked out per item (models, face keys, form
# names, layouts, preview figures) on to the next build: only a long-lived process (watch) has
# a next build; a one-shot `pnpkit build` would pay for keeping them and never use them.
_HANDING_ON = [False]


def hand_on(on: bool) -> None:
    """Say whether the builds that follow keep their per-item work for the build after them
    (build.validate says so from its cache: watch's is `deferred`)."""
    _HANDING_ON[0] = on


def handing_on() -> bool:
    """Whether this build keeps its per-item work for the next (see hand_on)."""
    return _HANDING_ON[0]


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
