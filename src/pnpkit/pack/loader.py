"""Read YAML files into plain data plus a map from data paths to source places.

PyYAML composes a node tree that knows every line and column; we keep those
marks in a side table keyed by path (("groups", 3, "count") -> Location) so
the data itself stays plain dicts and lists. Two YAML traps are closed here:
duplicate keys (PyYAML keeps the last one silently) and YAML 1.1 booleans
(`no`, `on`, `yes` would read as False/True; we read them as strings so a
wrong type is reported instead of passing as 0 or 1).
"""

from __future__ import annotations

import bisect
import math
import os
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from pnpkit import workspace
from pnpkit.errors import Location, Problem
from pnpkit.pack.paths import Outside, confined, regular_file
from pnpkit.pack.paths import display_path as display_path  # re-exported for the readers
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
        except (
            ValueError,
            TypeError,
            AttributeError,
            OverflowError,
        ):  # PyYAML's tag constructors: `!!int x`
            doc.data = None
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


# ---------------------------------------------------------------- bounds
# A stranger's pack must not exhaust the machine: a YAML file is read only when it is
# small, and its node tree is measured (aliases expanded, without expanding them)
# before anything walks it. The shipped kits are far inside these limits: their largest
# file is 11 kB and 1,021 values, their largest pack 2,150 values in all.

MAX_FILE_BYTES = 5_000_000  # bytes of one YAML file
MAX_VALUES = (
    100_000  # keys and values of a pack's files, every use of an alias counted: about 2 s to read
)
MAX_DEPTH = 100  # mappings and lists nested in each other
MAX_DIGITS = 30  # of an integer; Python refuses to read one of 4,300 digits with a traceback
_SCALARS = yaml.constructor.SafeConstructor()  # reads a float node as the loader will


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


# ---------------------------------------------------------------- the last parse, reused
# `watch` reads the pack again after every save, and a deck of 1,000 cards in one file takes
# 0.1-0.15 s to parse whole while a save changes a line or two. So the last parse of each
# file is kept, and when the lines that changed lie inside some items of a block list (items
# that each start on their own line with `- `), only those items are parsed again, on their
# own; every other value keeps its data and its place (moved by the lines added above it, its
# index by the items added before it). This is exact, not a guess: the items are parsed alone
# only when they read alone as they read in the file (a block list at the same column, no
# alias, no block scalar, no tab, directive or document marker), the file and the items
# without any problem; anything else, a change outside a list's items included, parses the
# file whole. Tests compare every reuse with a whole parse.

KEEP_PARSES = 32  # files whose last parse is kept: a pack's files, while watch rebuilds it
_BREAKS = re.compile("[\r\x85\u2028\u2029\ufeff]")  # line breaks YAML counts and split("\n") not
_MARKERS = re.compile(r"^(?:---|\.\.\.|%)", re.M)  # a document's start or end, a directive


@dataclass
class _Seq:
    """A block list of the file whose items each start on their own line: where they start."""

    path: Path_
    depth: int  # of the list's node, as _walk counts it
    column: int  # of its items' `-`
    starts: list[int]  # 0-based line of each item's `-`


@dataclass
class _Last:
    """A file's last parse, without problems and without aliases."""

    file: str
    lines: list[str]  # its text, split at "\n"
    data: object
    values: dict[Path_, Location]
    keys: dict[Path_, Location]
    count: int  # its keys and values, as _too_many_events() counts them
    seqs: list[_Seq]


_LAST = workspace.Slot[OrderedDict[str, _Last]]("loader.last", OrderedDict)


def _remember(
    key: str,
    doc: Document,
    text: str,
    count: int,
    found: list[tuple[Path_, int, yaml.SequenceNode]],
) -> None:
    """Keep a parse for the next one of the same file (its own copies of the places: readers
    add to a document's), with the block lists `found` in it."""
    if _BREAKS.search(text) or _MARKERS.search(text) or "<<" in text:
        return
    lines = text.split("\n")
    seqs = _sequences(lines, found)
    _LAST.here()[key] = _Last(
        doc.file, lines, doc.data, dict(doc.values), dict(doc.keys), count, seqs
    )
    _LAST.here().move_to_end(key)
    while len(_LAST.here()) > KEEP_PARSES:
        _LAST.here().popitem(last=False)


def _sequences(
    lines: list[str], found: list[tuple[Path_, int, yaml.SequenceNode]], least: int = 2
) -> list[_Seq]:
    """The block lists of at least `least` items whose every item starts on the line of its
    `-`, all at the list's column."""
    out = []
    for path, depth, node in found:
        if len(node.value) < least:
            continue
        column, starts = node.start_mark.column, []
        for item in node.value:
            line, col = item.start_mark.line, item.start_mark.column
            head = lines[line][:col] if line < len(lines) else ""
            if col < column + 2 or head != " " * column + "-" + " " * (col - column - 1):
                break
            starts.append(line)
        else:
            out.append(_Seq(path, depth, column, starts))
    return out


def _reused(key: str, doc: Document, text: str, max_values: int) -> bool:
    """Fill doc from the last parse of its file (key), parsing again only the items that
    changed; False when that cannot be done exactly (the file is then parsed whole)."""
    last = _LAST.here().get(key)
    if last is None or last.file != doc.file:
        return False
    lines = text.split("\n")
    now = last if lines == last.lines else _patched(last, lines)
    if now is None or now.count > max_values:
        return False
    doc.data = now.data
    doc.values, doc.keys = dict(now.values), dict(now.keys)
    _LAST.here()[key] = now
    _LAST.here().move_to_end(key)
    return True


def _patched(last: _Last, lines: list[str]) -> _Last | None:
    """The parse of `lines` made from the last one, or None."""
    old, n = last.lines, min(len(last.lines), len(lines))
    a = 0
    while a < n and old[a] == lines[a]:
        a += 1
    same = 0  # lines equal at the end
    while same < n - a and old[-1 - same] == lines[-1 - same]:
        same += 1
    found = _around(last.seqs, a, len(old) - same)
    if found is None:
        return None
    seq, i, k = found
    first, end, delta = seq.starts[i], seq.starts[k], len(lines) - len(old)
    base = seq.path
    fragment = _Fragment.parse(lines[first : end + delta], seq, i, last.file)
    before = _fragment_count("\n".join(old[first:end]) + "\n")
    if fragment is None or before is None:
        return None
    data = _with_items(last.data, base, i, k, fragment.items, len(seq.starts))
    if data is None:
        return None
    moved = _Move(base, i, k, len(fragment.items), end, delta)
    seqs = [
        _Seq(s.path, s.depth, s.column, s.starts[:i] + fragment.starts + moved.lines(s.starts[k:]))
        if s is seq
        else moved.seq(s)
        for s in last.seqs
    ]
    return _Last(
        last.file,
        lines,
        data,
        moved.table(last.values, fragment.doc.values),
        moved.table(last.keys, fragment.doc.keys),
        last.count - before + fragment.count,
        [s for s in seqs if s is not None] + fragment.seqs,
    )


def _around(seqs: list[_Seq], a: int, b: int) -> tuple[_Seq, int, int] | None:
    """The innermost list whose items i..k-1 hold the old lines a..b-1, with an item k after
    them: (list, i, k)."""
    best: tuple[_Seq, int, int] | None = None
    for seq in seqs:
        i = bisect.bisect_right(seq.starts, a) - 1
        if i < 0:
            continue
        k = bisect.bisect_left(seq.starts, max(b, seq.starts[i] + 1))
        if k < len(seq.starts) and (best is None or seq.depth > best[0].depth):
            best = (seq, i, k)
    return best


def _fragment_count(text: str) -> int | None:
    """The values in a fragment as _too_many_events() counts them; None when it has an alias or
    an anchor (the file's others decide what they mean), a block scalar (whose end depends on
    what follows), or does not parse."""
    loader, n = None, 0
    counted = (yaml.ScalarEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent)
    try:
        loader = _Loader(text)
        while loader.check_event():
            event = loader.get_event()
            if (
                isinstance(event, yaml.AliasEvent)
                or getattr(event, "anchor", None) is not None  # one twice is an error in a file
                or (isinstance(event, yaml.ScalarEvent) and event.style in ("|", ">"))
            ):
                return None
            n += isinstance(event, counted)
    except yaml.YAMLError:
        return None
    finally:
        if loader is not None:
            loader.dispose()
    return n


@dataclass
class _Fragment:
    """Items of a list parsed on their own: their data, places (the file's lines), lists."""

    items: list[object]
    doc: Document
    starts: list[int]
    seqs: list[_Seq]
    count: int

    @classmethod
    def parse(cls, lines: list[str], seq: _Seq, i: int, file: str) -> _Fragment | None:
        """Parse the lines that replace items i.. of seq, which start at line seq.starts[i]; None
        unless they read alone exactly as they read in the file, without a problem."""
        text = "\n".join(lines) + "\n"
        if "\t" in text or _BREAKS.search(text) or _MARKERS.search(text) or "<<" in text:
            return None
        count = _fragment_count(text)
        if count is None:
            return None
        loader = _Loader(text)
        try:
            root = loader.get_single_node()
            if not isinstance(root, yaml.SequenceNode) or root.flow_style:
                return None
            if (root.start_mark.line, root.start_mark.column) != (0, seq.column):
                return None
            if not _sequences(lines, [((), 0, root)], least=1):
                return None  # an item not on its `-` line, or at another column
            local = Document(file)
            found: list[tuple[Path_, int, yaml.SequenceNode]] = []
            for j, item in enumerate(root.value):
                numbers, duplicates = _tree(local, item, found, seq.path + (i + j,), seq.depth + 1)
                if numbers or duplicates:
                    return None
            items = loader.construct_document(root)
        except (yaml.YAMLError, ValueError, TypeError, AttributeError, OverflowError):
            return None
        finally:
            loader.dispose()
        line0 = seq.starts[i]
        return cls(
            items,
            _moved_down(local, line0),
            [line0 + item.start_mark.line for item in root.value],
            [
                _Seq(s.path, s.depth, s.column, [line0 + x for x in s.starts])
                for s in _sequences(lines, found)
            ],
            count,
        )


def _moved_down(doc: Document, lines: int) -> Document:
    """doc with every place `lines` lines further down."""
    out = Document(doc.file)
    out.values = {p: Location(w.file, w.line + lines, w.column) for p, w in doc.values.items()}
    out.keys = {p: Location(w.file, w.line + lines, w.column) for p, w in doc.keys.items()}
    return out


def _with_items(
    data: object, path: Path_, i: int, k: int, items: list[object], length: int
) -> object | None:
    """data with the items i..k-1 of the list at path replaced (new lists and mappings along the
    path, everything else shared); None when the path does not lead to that list."""
    if not path:
        if not isinstance(data, list) or len(data) != length:
            return None
        return data[:i] + items + data[k:]
    head = path[0]
    if isinstance(data, dict) and isinstance(head, str) and head in data:
        inner = _with_items(data[head], path[1:], i, k, items, length)
        return None if inner is None else {**data, head: inner}
    if isinstance(data, list) and type(head) is int and 0 <= head < len(data):
        inner = _with_items(data[head], path[1:], i, k, items, length)
        return None if inner is None else [*data[:head], inner, *data[head + 1 :]]
    return None


@dataclass
class _Move:
    """Items i..k-1 of the list at `path` replaced by `m` items, `delta` lines added at `end`
    (the line of item k): where everything else now stands."""

    path: Path_
    i: int
    k: int
    m: int
    end: int
    delta: int

    def lines(self, starts: list[int]) -> list[int]:
        return [x + self.delta if x >= self.end else x for x in starts]

    def under(self, p: Path_) -> int | None:
        """The index of the list's item that p lies in, if it does."""
        n = len(self.path)
        return p[n] if len(p) > n and p[:n] == self.path and type(p[n]) is int else None

    def renamed(self, p: Path_, index: int | None) -> Path_:
        if index is None or index < self.k or self.m == self.k - self.i:
            return p
        n = len(self.path)
        return p[:n] + (index + self.m - (self.k - self.i),) + p[n + 1 :]

    def _in_place(
        self, table: dict[Path_, Location], fresh: dict[Path_, Location]
    ) -> dict[Path_, Location] | None:
        """table() when the items kept their lines and their places' paths, in order (an edit
        inside a value): nothing else moves, so the fresh places take the old ones' slots. A
        copy and a search at C speed instead of a look at each of a large file's places. None
        when it cannot tell: table() does it the long way."""
        if self.delta or self.m != self.k - self.i or not fresh:
            return None
        paths, ours = list(table), list(fresh)
        try:
            at = paths.index(ours[0])
        except ValueError:
            return None
        end = at + len(ours)
        if paths[at:end] != ours or any(
            0 <= j < len(paths) and self._replaced(paths[j]) for j in (at - 1, end)
        ):  # (an item's places follow each other: its neighbours are not the items')
            return None
        out = dict(table)
        out.update(fresh)
        return out

    def _replaced(self, p: Path_) -> bool:
        index = self.under(p)
        return index is not None and self.i <= index < self.k

    def seq(self, s: _Seq) -> _Seq | None:
        index = self.under(s.path)
        if index is not None and self.i <= index < self.k:
            return None  # inside the items replaced: the fragment has its own
        return _Seq(self.renamed(s.path, index), s.depth, s.column, self.lines(s.starts))

    def table(
        self, table: dict[Path_, Location], fresh: dict[Path_, Location]
    ) -> dict[Path_, Location]:
        """A document's places with the items replaced by `fresh`, in the order of the file."""
        same = self._in_place(table, fresh)
        if same is not None:
            return same
        out: dict[Path_, Location] = {}
        pending: dict[Path_, Location] | None = fresh
        for p, where in table.items():
            index = self.under(p)
            if index is not None and self.i <= index < self.k:
                continue
            if where.line - 1 >= self.end:
                if pending is not None:
                    out.update(pending)
                    pending = None
                if self.delta:
                    where = Location(where.file, where.line + self.delta, where.column)
                p = self.renamed(p, index)
            out[p] = where
        if pending is not None:
            out.update(pending)
        return out
