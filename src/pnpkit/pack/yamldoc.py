"""A YAML file as plain data and a side table of where each value stands: PyYAML's node tree
walked once (YAML 1.2 booleans, duplicate keys refused), each value's Location by its path."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import yaml

from pnpkit.errors import Location, Problem
from pnpkit.typeset import unibidi

_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_Base):  # type: ignore[misc, valid-type]
    """SafeLoader with YAML 1.2 booleans (true/false only)."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in _Base.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool",
    __import__("re").compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
    list("tTfF"),
)

Path_ = tuple[Any, ...]  # a data path: keys and list indexes (a YAML key may be any scalar)


@dataclass
class Document:
    """One YAML file: its data, and where each value and key stands."""

    file: str
    data: object = None
    values: dict[Path_, Location] = field(default_factory=dict)
    keys: dict[Path_, Location] = field(default_factory=dict)

    def at(self, path: Path_, key: bool = False) -> Location:
        """The place of path's value (or key), else of its nearest ancestor."""
        table = self.keys if key else self.values
        while path:
            if path in table:
                return table[path]
            if path in self.values:
                return self.values[path]
            path = path[:-1]
        return self.values.get((), Location(self.file, 1, 1))


def _loc(doc: Document, node: yaml.Node) -> Location:
    return Location(doc.file, node.start_mark.line + 1, node.start_mark.column + 1)


def _index(doc: Document, node: yaml.Node, path: Path_) -> list[Problem]:
    """Record the place of every value and key below node; report duplicate keys."""
    doc.values[path] = _loc(doc, node)
    problems: list[Problem] = []
    if isinstance(node, yaml.MappingNode):
        seen: dict[object, Location] = {}
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else repr(key_node)
            where = _loc(doc, key_node)
            if key in seen:
                first = seen[key]
                problems.append(
                    Problem(where, f"duplicate key '{key}' (first at line {first.line})", "yaml")
                )
                continue
            seen[key] = where
            doc.keys[path + (key,)] = where
            problems += _index(doc, value_node, path + (key,))
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            problems += _index(doc, item, path + (i,))
    return problems


class _TooDeep(Exception):
    def __init__(self, node: yaml.Node) -> None:
        self.node = node


def _tree(
    doc: Document,
    root: yaml.Node,
    seqs: list[tuple[Path_, int, yaml.SequenceNode]] | None = None,
    path: Path_ = (),
    depth: int = 0,
) -> tuple[list[Problem], list[Problem]]:
    """_index() and bounds() in one walk, for a file without aliases: its node tree is a tree of
    no more values than _too_many_events() counted, so only the depth and the numbers are left
    to check. Returns bounds()'s problems and _index()'s, each in the order they would give.
    `seqs` gathers the block lists met (path, depth, node); root stands at path and depth."""
    numbers: list[Problem] = []
    duplicates: list[Problem] = []
    try:
        _walk(doc, root, path, depth, numbers, duplicates, seqs)
    except _TooDeep as deep:
        message = f"values are nested more than {MAX_DEPTH} deep here"
        return [Problem(_loc(doc, deep.node), message, "limits")], []
    return numbers, duplicates


def _walk(
    doc: Document,
    node: yaml.Node,
    path: Path_ | None,
    depth: int,
    numbers: list[Problem],
    duplicates: list[Problem],
    seqs: list[tuple[Path_, int, yaml.SequenceNode]] | None = None,
) -> None:
    """Check node and what is below it (keys too) in bounds()'s order; with a path (None: a key,
    or the value of a duplicate key), record their places as _index() does, and gather the block
    lists in seqs."""
    if depth > MAX_DEPTH:
        raise _TooDeep(node)
    if path is not None:
        doc.values[path] = _loc(doc, node)
    if isinstance(node, yaml.MappingNode):
        seen: dict[object, Location] = {}
        for key_node, value_node in node.value:
            _walk(doc, key_node, None, depth + 1, numbers, duplicates)
            value_path = None
            if path is not None:
                key = key_node.value if isinstance(key_node, yaml.ScalarNode) else repr(key_node)
                where = _loc(doc, key_node)
                if key in seen:
                    first = seen[key]
                    duplicates.append(
                        Problem(
                            where, f"duplicate key '{key}' (first at line {first.line})", "yaml"
                        )
                    )
                else:
                    seen[key] = where
                    doc.keys[path + (key,)] = where
                    value_path = path + (key,)
            _walk(doc, value_node, value_path, depth + 1, numbers, duplicates, seqs)
    elif isinstance(node, yaml.SequenceNode):
        if seqs is not None and path is not None and not node.flow_style:
            seqs.append((path, depth, node))
        for i, item in enumerate(node.value):
            item_path = None if path is None else path + (i,)
            _walk(doc, item, item_path, depth + 1, numbers, duplicates, seqs)
    else:
        numbers += _scalar_problems(doc, node)


MAX_DEPTH = 100  # mappings and lists nested in each other
MAX_DIGITS = 30  # of an integer; Python refuses to read one of 4,300 digits with a traceback
_SCALARS = yaml.constructor.SafeConstructor()  # reads a float node as the loader will


def _scalar_problems(doc: Document, node: yaml.Node) -> list[Problem]:
    """.nan and .inf (and floats too large to hold) are never a length, a count or a price; a
    text's directional controls are matched (unibidi.unmatched)."""
    if not isinstance(node, yaml.ScalarNode):
        return []
    if node.tag == "tag:yaml.org,2002:str" and unibidi.CONTROLS.search(node.value):
        unmatched = unibidi.unmatched(node.value)
        if unmatched:
            return [Problem(_loc(doc, node), unmatched, "text")]
    if node.tag == "tag:yaml.org,2002:float":
        try:
            finite = math.isfinite(_SCALARS.construct_yaml_float(node))
        except ValueError:
            finite = False
        if not finite:
            return [Problem(_loc(doc, node), f"'{node.value}' is not a finite number", "numbers")]
    if node.tag == "tag:yaml.org,2002:int" and len(node.value) > MAX_DIGITS:
        return [
            Problem(
                _loc(doc, node),
                f"a number of {len(node.value)} digits; numbers have at most {MAX_DIGITS}",
                "limits",
            )
        ]
    return []
