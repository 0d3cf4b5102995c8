"""What a process keeps from one build for the next, owned by one object: the Workspace.

A build (build.build, build.validate) runs inside a workspace: the one its options name (watch
makes one and hands it to every rebuild), else the one current in this thread (a command's,
made on first use). Every memo a stage keeps between builds (parsed YAML, compiled templates,
layouts, drawn PDF pages, the compiler's and the shaper's memos, the face files written) is an
entry of the current workspace, declared by its module as a Slot (a dict: Memo; a function's
results: memoized()) where the module uses it. A Slot is a name, not a value: no module holds
state of its own (tests/test_state.py scans for any), so forgetting everything is one call
(Workspace.forget) and two workspaces never see each other's entries.

The workspace is found through a context variable rather than handed through every call of the
compiler and the shaper: they run deep below the build, thousands of times a face, and the
build's own stages (cache, output, watch) take it explicitly.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator, MutableMapping
from contextvars import ContextVar
from typing import Any, Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")
T = TypeVar("T")


class Workspace:
    """Everything kept between builds: `hand_on` (whether builds keep their per-item work for
    the next one: only a long-lived process has a next build) and the slots' entries."""

    def __init__(self, hand_on: bool = False) -> None:
        self.hand_on = hand_on
        self.entries: dict[str, Any] = {}  # Slot.name -> what it holds in this workspace

    def forget(self) -> None:
        """Drop every entry: the next build does all its work again, as one in a new process."""
        self.entries.clear()

    @contextlib.contextmanager
    def active(self) -> Iterator[Workspace]:
        """Make this the current workspace of this thread for the block."""
        token = _CURRENT.set(self)
        try:
            yield self
        finally:
            _CURRENT.reset(token)


# The current workspace of each thread (a context variable: watch's thread has its own)
_CURRENT: ContextVar[Workspace | None] = ContextVar("pnpkit.workspace", default=None)


def current() -> Workspace:
    """The workspace of this thread's build; one made for the thread when none is active."""
    found = _CURRENT.get()
    if found is None:
        found = Workspace()
        _CURRENT.set(found)
    return found


class Slot(Generic[T]):
    """A named entry of every workspace, made by `make` the first time a workspace is asked."""

    __slots__ = ("name", "make")

    def __init__(self, name: str, make: Callable[[], T]) -> None:
        self.name, self.make = name, make

    def here(self) -> T:
        """This slot's entry in the current workspace."""
        entries = current().entries
        found = entries.get(self.name)
        if found is None:
            found = entries[self.name] = self.make()
        return found


class Memo(MutableMapping[K, V]):
    """A dict kept in the current workspace under `name`, read and written as the dict itself."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def here(self) -> dict[K, V]:
        entries = (_CURRENT.get() or current()).entries
        found = entries.get(self.name)
        if found is None:
            found = entries[self.name] = {}
        return found

    # The compiler and the text checks look up their memos inline, a few hundred thousand times
    # a deck: get(), [] and `in` take one step each, not here()'s and then the dict's
    def __getitem__(self, key: K) -> V:
        found = (_CURRENT.get() or current()).entries.get(self.name)
        if found is None:
            raise KeyError(key)
        return found[key]  # type: ignore[no-any-return]

    def __setitem__(self, key: K, value: V) -> None:
        self.here()[key] = value

    def __delitem__(self, key: K) -> None:
        del self.here()[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self.here())

    def __len__(self) -> int:
        return len(self.here())

    def __contains__(self, key: object) -> bool:
        found = (_CURRENT.get() or current()).entries.get(self.name)
        return found is not None and key in found

    def get(self, key: K, default: V | None = None) -> V | None:  # type: ignore[override]
        found = (_CURRENT.get() or current()).entries.get(self.name)
        return default if found is None else found.get(key, default)

    def clear(self) -> None:
        self.here().clear()


class Memoized(Generic[T]):
    """A function's results by its (hashable) arguments, kept in the current workspace, at most
    `cap` of them, least recently used first out: functools.lru_cache's place for a function
    whose result depends on its arguments alone. Each workspace holds an lru_cache of its own
    (its look-ups stay in C: a text's shaping asks tens of thousands of times a build)."""

    def __init__(self, function: Callable[..., T], cap: int) -> None:
        self.function, self.cap = function, cap
        self.name = f"{function.__module__}.{function.__qualname__}"
        functools.update_wrapper(self, function)

    def __call__(self, *args: Any, **kwargs: Any) -> T:
        entries = (_CURRENT.get() or current()).entries
        made = entries.get(self.name)
        if made is None:
            made = entries[self.name] = functools.lru_cache(maxsize=self.cap)(self.function)
        return made(*args, **kwargs)  # type: ignore[no-any-return]

    def cache_clear(self) -> None:
        current().entries.pop(self.name, None)

    def size(self) -> int:
        """How many results the current workspace keeps."""
        made = current().entries.get(self.name)
        return 0 if made is None else int(made.cache_info().currsize)


def memoized(cap: int) -> Callable[[Callable[..., T]], Memoized[T]]:
    """Decorate a function as Memoized, keeping at most `cap` results."""
    return lambda function: Memoized(function, cap)
