"""What a YAML file may hold before it is read into data: its size, its values, its depth and
its numbers, counted on PyYAML's events, so an alias bomb or a deep nest is a located problem."""

from __future__ import annotations

from pathlib import Path

import yaml

from pnpkit.errors import Location, Problem
from pnpkit.pack.yamldoc import MAX_DEPTH, Document, _Loader, _loc, _scalar_problems

# ---------------------------------------------------------------- bounds
# A stranger's pack must not exhaust the machine: a YAML file is read only when it is
# small, and its node tree is measured (aliases expanded, without expanding them)
# before anything walks it. The shipped kits are far inside these limits: their largest
# file is 11 kB and 1,021 values, their largest pack 2,150 values in all.

MAX_FILE_BYTES = 5_000_000  # bytes of one YAML file
MAX_VALUES = (
    100_000  # keys and values of a pack's files, every use of an alias counted: about 2 s to read
)


def _too_large(path: Path, doc: Document) -> list[Problem]:
    """A file too large to read, refused before reading it."""
    try:
        size = path.stat().st_size
    except OSError:
        return []  # reading it reports the problem
    if size <= MAX_FILE_BYTES:
        return []
    return [
        Problem(
            Location(doc.file, 1, 1),
            f"the file has {size} bytes; pnpkit reads YAML files of at most "
            f"{MAX_FILE_BYTES} bytes (split it into several component files)",
            "limits",
        )
    ]


def _too_many_events(doc: Document, text: str, max_values: int) -> tuple[list[Problem], bool, int]:
    """Count the values as the parser streams them, before a node tree is built: a 5 MB file of
    `[1,1,1,…]` is 2.4 million nodes, a gigabyte and a minute and a half to compose. Also says
    whether the file uses an alias (without one its tree holds exactly the values counted), and
    how many it counted."""
    loader, n, aliases = None, 0, False
    counted = (yaml.ScalarEvent, yaml.AliasEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent)
    try:
        loader = _Loader(text)
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, counted):
                aliases = aliases or isinstance(event, yaml.AliasEvent)
                n += 1
                if n > max_values:
                    mark = event.start_mark
                    assert mark is not None  # the parser marks every event it emits
                    where = Location(doc.file, mark.line + 1, mark.column + 1)
                    return (
                        [
                            Problem(
                                where,
                                "the file holds more keys and values than this; "
                                + _budget(max_values),
                                "limits",
                            )
                        ],
                        aliases,
                        n,
                    )
    except yaml.YAMLError:
        return [], True, n  # reading it properly reports the problem (bounds() measures it first)
    finally:
        if loader is not None:
            loader.dispose()
    return [], aliases, n


def _budget(max_values: int) -> str:
    left = f", and {max_values} are left for this one" if max_values < MAX_VALUES else ""
    return f"a pack's YAML files may hold at most {MAX_VALUES} in all{left}"


def bounds(doc: Document, root: yaml.Node, max_values: int = MAX_VALUES) -> list[Problem]:
    """Refuse a node tree of more than max_values once its aliases are expanded, nested too deep,
    or holding numbers that are not finite; the tree is visited once, aliases or not."""
    sizes: dict[int, int] = {}  # id(node) -> values below it, itself included, aliases expanded
    open_: set[int] = set()  # nodes being measured: meeting one again is an alias loop
    problems: list[Problem] = []
    stack: list[tuple[yaml.Node, int, list[yaml.Node] | None]] = [(root, 0, None)]
    while stack:
        node, depth, kids = stack.pop()
        key = id(node)
        if kids is not None:  # its children are measured
            open_.discard(key)
            sizes[key] = 1 + sum(sizes[id(kid)] for kid in kids)
            continue
        if key in sizes:
            continue
        if key in open_:
            return [
                Problem(
                    _loc(doc, node),
                    "a YAML alias here refers to a value that contains it (a loop)",
                    "limits",
                )
            ]
        if depth > MAX_DEPTH:
            return [
                Problem(
                    _loc(doc, node), f"values are nested more than {MAX_DEPTH} deep here", "limits"
                )
            ]
        open_.add(key)
        kids = _children(node)
        stack.append((node, depth, kids))
        stack += [(kid, depth + 1, None) for kid in reversed(kids) if id(kid) not in sizes]
        if not kids:
            problems += _scalar_problems(doc, node)
    if sizes[id(root)] > max_values:
        node = _explosion(root, sizes, max_values)
        return [
            Problem(
                _loc(doc, node),
                f"this value expands to {sizes[id(node)]} keys and values (YAML aliases "
                f"counted at every use); {_budget(max_values)}",
                "limits",
            )
        ]
    return problems


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _explosion(node: yaml.Node, sizes: dict[int, int], limit: int) -> yaml.Node:
    """The innermost value that is too large although each of its parts is not: where an alias
    bomb goes off."""
    while True:
        larger = [kid for kid in _children(node) if sizes[id(kid)] > limit]
        if not larger:
            return node
        node = larger[0]
