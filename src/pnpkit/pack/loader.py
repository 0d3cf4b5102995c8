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
from pathlib import Path

import yaml

from pnpkit.errors import Location, Problem
from pnpkit.pack.paths import Outside, confined, regular_file
from pnpkit.pack.paths import display_path as display_path  # re-exported for the readers
from pnpkit.pack.reparse import _LAST, _remember, _reused
from pnpkit.pack.yamlbounds import MAX_VALUES, _too_large, _too_many_events, bounds
from pnpkit.pack.yamldoc import Document, Path_, _Base, _index, _Loader, _loc, _tree


def load_yaml(
    path: Path, roots: tuple[Path, ...] | None = None, max_values: int | None = None
) -> tuple[Document, list[Problem]]:
    """Parse one YAML file; syntax errors and duplicate keys become problems.

    With roots, the file (its links followed) must lie inside one of them, or it is not read.
    A file of more than max_values keys and values (default MAX_VALUES) is refused: a pack
    shares that budget across its files."""
    doc = Document(display_path(path))
    start = Location(doc.file, 1, 1)
    try:
        if roots is not None:
            confined(path, roots)
        if path.exists() and not regular_file(path):  # a FIFO or a device would hang or never end
            return doc, [Problem(start, "cannot read file: not a regular file")]
        too_large = _too_large(path, doc)
        if too_large:
            return doc, too_large
        text = path.read_text(encoding="utf-8")
    except Outside as exc:
        return doc, [
            Problem(start, f"{exc} (a pack's YAML files must lie inside its folder)", "paths")
        ]
    except UnicodeDecodeError as exc:  # its text would quote the file's bytes
        return doc, [Problem(start, f"cannot read file: it is not UTF-8 text (byte {exc.start})")]
    except OSError as exc:
        return doc, [Problem(start, f"cannot read file: {exc.strerror or exc}")]
    limit = MAX_VALUES if max_values is None else max_values
    return _parse(doc, text, limit, os.path.abspath(path))


def _parse(
    doc: Document, text: str, max_values: int, key: str = ""
) -> tuple[Document, list[Problem]]:
    """load_yaml() once the file's text is read; `key` names the file for the reuse of its last
    parse (see _Last), "" for none."""
    if key and _reused(key, doc, text, max_values):
        return doc, []
    _LAST.here().pop(key, None)
    too_many, aliases, count = _too_many_events(doc, text, max_values)
    if too_many:
        return doc, too_many
    loader = None
    seqs: list[tuple[Path_, int, yaml.SequenceNode]] = []
    try:
        loader = _Loader(text)
        root = loader.get_single_node()
        if root is None:
            doc.data = None
            return doc, []
        if aliases:
            unbounded = bounds(doc, root, max_values)
            if any(p.rule == "limits" for p in unbounded):
                return doc, unbounded
            problems = unbounded + _index(doc, root, ())
        else:
            numbers, problems = _tree(doc, root, seqs)
            if any(p.rule == "limits" for p in numbers):
                doc.values.clear()  # as if bounds() had refused it before _index() ran
                doc.keys.clear()
                return doc, numbers
            problems = numbers + problems
        try:
            doc.data = loader.construct_document(root)
        except (ValueError, TypeError, AttributeError, OverflowError):
            doc.data = None  # PyYAML's tag constructors failed: `!!int x`
            return doc, [_unreadable(doc, root)]
        if key and not aliases and not problems:
            _remember(key, doc, text, count, seqs)
        return doc, problems
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = (
            Location(doc.file, mark.line + 1, mark.column + 1) if mark else Location(doc.file, 1, 1)
        )
        what = exc.problem or "invalid YAML"
        return doc, [Problem(where, f"YAML syntax error: {what}", "yaml")]
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow (NUL, other controls)
        char = f" (U+{exc.character:04X})" if isinstance(exc.character, int) else ""
        return doc, [
            Problem(
                _reader_where(doc, text, exc.position),
                f"YAML syntax error: {exc.reason}{char}",
                "yaml",
            )
        ]
    finally:
        if loader is not None:
            loader.dispose()


def parse_as(path: Path, text: str) -> tuple[Document, list[Problem]]:
    """text read as load_yaml would read it from the file at path (the file's last parse reused
    where the lines kept: see below): an editor checks what it is about to write (yamledit.py)."""
    return _parse(Document(display_path(path)), text, MAX_VALUES, os.path.abspath(path))


def compose(text: str) -> yaml.Node | None:
    """The node tree of a YAML text as load_yaml reads it (YAML 1.2 booleans), with the marks
    where each value starts and ends: what an edit in place needs (yamledit.py). Raises
    yaml.YAMLError as the parser does."""
    loader = _Loader(text)
    try:
        node: yaml.Node | None = loader.get_single_node()
        return node
    finally:
        loader.dispose()


def construct(node: yaml.Node | None) -> object:
    """The data of a node tree from compose(), as load_yaml reads it."""
    if node is None:
        return None
    loader = _Loader("")
    try:
        return loader.construct_document(node)
    finally:
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
                return Problem(
                    _loc(doc, node),
                    f"YAML syntax error: cannot read {node.value!r} as {tag}",
                    "yaml",
                )
        else:
            stack[:0] = [
                n for pair in node.value for n in (pair if isinstance(pair, tuple) else (pair,))
            ]
    return Problem(
        Location(doc.file, 1, 1),
        "YAML syntax error: a value cannot be read as its tag says",
        "yaml",
    )
