"""The pack's data as templates see it: read-only.

Every face of a build shares the pack's data, and the cache keys describe it, so a template
that changed it (`item.tags.append(...)`) would change the faces drawn after it. Templates get
it as FrozenDict and FrozenList, which read, print and compare as the dict and list they hold
(their repr is the same, so the faces' cache keys do not change) but refuse to be changed.
What a template makes itself ([], {}, `item.tags | list`) is a plain list or dict it may change.
"""

from __future__ import annotations

from typing import Any, NoReturn


def _refuse(self: object, *args: object, **kwargs: object) -> NoReturn:
    raise TypeError(f"the pack's data is read-only (a {type(self).__name__})")


class FrozenDict(dict[Any, Any]):
    """A dict of the pack's data: every method that would change it raises TypeError."""

    __slots__ = ()
    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __reduce__(self) -> tuple[type, tuple[dict[Any, Any]]]:
        return FrozenDict, (dict(self),)  # pickle's way would set its items one by one


class FrozenList(list[Any]):
    """A list of the pack's data: every method that would change it raises TypeError."""

    __slots__ = ()
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse

    def __reduce__(self) -> tuple[type, tuple[list[Any]]]:
        return FrozenList, (list(self),)


FROZEN = frozenset({FrozenDict, FrozenList})


def freeze(value: Any) -> Any:
    """value with every dict and list in it, however deep, made read-only (tuples stay tuples,
    their contents frozen); other values, and those already frozen, as they are. Only plain
    dicts and lists: another kind (an OrderedDict) would no longer print as it did."""
    kind = type(value)
    if kind is dict:
        return FrozenDict({k: freeze(v) for k, v in value.items()})
    if kind is list:
        return FrozenList([freeze(v) for v in value])
    if kind is tuple:
        return tuple(freeze(v) for v in value)
    return value
