"""A YAML file read again after an edit: the parse of the last version kept, and only the
collections that changed parsed again (watch's one-card edit)."""

from __future__ import annotations

import bisect
import re
from collections import OrderedDict
from dataclasses import dataclass

import yaml

from pnpkit import workspace
from pnpkit.errors import Location
from pnpkit.pack.yamldoc import Document, Path_, _Loader, _tree

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
