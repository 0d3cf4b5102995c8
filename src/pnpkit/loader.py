"""Read YAML files into plain data plus a map from data paths to source places.

PyYAML composes a node tree that knows every line and column; we keep those
marks in a side table keyed by path (("groups", 3, "count") -> Location) so
the data itself stays plain dicts and lists. Two YAML traps are closed here:
duplicate keys (PyYAML keeps the last one silently) and YAML 1.1 booleans
(`no`, `on`, `yes` would read as False/True; we read them as strings so a
wrong type is reported instead of passing as 0 or 1).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from pnpkit.errors import Location, Problem

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

Path_ = tuple  # a data path: keys and list indexes


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


def display_path(path: Path) -> str:
    """Path as the user sees it: relative to where the command was run."""
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)


def load_yaml(path: Path) -> tuple[Document, list[Problem]]:
    """Parse one YAML file; syntax errors and duplicate keys become problems."""
    doc = Document(display_path(path))
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return doc, [Problem(Location(doc.file, 1, 1), f"cannot read file: {exc}")]
    loader = None
    try:
        loader = _Loader(text)
        root = loader.get_single_node()
        if root is None:
            doc.data = None
            return doc, []
        problems = _index(doc, root, ())
        try:
            doc.data = loader.construct_document(root)
        except (ValueError, TypeError, AttributeError, OverflowError):  # PyYAML's tag constructors: `!!int x`
            doc.data = None
            return doc, [_unreadable(doc, root)]
        return doc, problems
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = Location(doc.file, mark.line + 1, mark.column + 1) if mark else Location(doc.file, 1, 1)
        what = exc.problem or "invalid YAML"
        return doc, [Problem(where, f"YAML syntax error: {what}", "yaml")]
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow (NUL, other controls)
        char = f" (U+{exc.character:04X})" if isinstance(exc.character, int) else ""
        return doc, [Problem(_reader_where(doc, text, exc.position), f"YAML syntax error: {exc.reason}{char}", "yaml")]
    finally:
        if loader is not None:
            loader.dispose()


def _reader_where(doc: Document, text: str, position: int) -> Location:
    """Where a ReaderError's position is: libyaml counts bytes of UTF-8, PyYAML characters."""
    if _Base is not yaml.SafeLoader:
        position = len(text.encode("utf-8")[:position].decode("utf-8", "ignore"))
    line = text.count("\n", 0, position)
    return Location(doc.file, line + 1, position - (text.rfind("\n", 0, position) + 1) + 1)


def _unreadable(doc: Document, root: yaml.Node) -> Problem:
    """The first scalar whose explicit tag cannot read it (`!!int abc`, `!!timestamp x`): PyYAML's
    constructors raise plain Python errors without a place, so each scalar is tried on its own."""
    stack = [root]
    while stack:
        node = stack.pop(0)
        if isinstance(node, yaml.ScalarNode):
            try:
                _Loader("").construct_object(node)
            except (ValueError, TypeError, AttributeError, OverflowError):
                tag = node.tag.replace("tag:yaml.org,2002:", "!!")
                return Problem(_loc(doc, node), f"YAML syntax error: cannot read {node.value!r} as {tag}", "yaml")
        else:
            stack[:0] = [n for pair in node.value for n in (pair if isinstance(pair, tuple) else (pair,))]
    return Problem(Location(doc.file, 1, 1), "YAML syntax error: a value cannot be read as its tag says", "yaml")


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
                problems.append(Problem(where, f"duplicate key '{key}' (first at line {first.line})", "yaml"))
                continue
            seen[key] = where
            doc.keys[path + (key,)] = where
            problems += _index(doc, value_node, path + (key,))
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            problems += _index(doc, item, path + (i,))
    return problems
