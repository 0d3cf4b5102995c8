"""Edit a YAML file in place: one value, one key or one list item, every other byte kept.

The loader's parser (loader.compose) says where each value starts and ends; an edit replaces
that span, inserts a line after the item's last one, or removes the item's lines. Nothing else
of the text is touched, so comments, key order, quoting and layout stay exactly as written
(a round-trip dumper such as ruamel.yaml re-emits the whole file from its own model of it;
splicing the located span keeps the rest byte-identical by construction, with no dependency).
Every edit is checked before it is written: the new text is parsed whole and must read as the
old data with just that change; else it is refused.

Refused: a value that carries an anchor (&name: others share it), one reached through an alias
(it is written elsewhere, for others too), a tagged value (`!!str 5`), a block list or mapping
replaced whole (edit one of its values), duplicating or removing an item holding an anchor,
adding, duplicating or removing in a flow list (`items: [...]`), and removing a group's only
item. A value an item takes through a merge key (`<<: *base`) is set by writing it on the item,
which overrides the merged one.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from pnpkit.edit.locate import Located, Refused
from pnpkit.pack.loader import compose, construct, parse_as
from pnpkit.pack.yamldoc import Document, Path_

Node = yaml.Node
_PLAIN_FLOW = re.compile(r"[,\[\]{}#&*!|>'\"%@`]")


def refusals(at: Located) -> dict[Path_, str]:
    """Why each of the item's own values (by its path below the item: (cost,), (title, en))
    cannot be set in place; a value not named can be."""
    try:
        text = at.file.read_text(encoding="utf-8")
        span = _window(text, at.doc, at.path)
        if span is not None:  # the item's lines alone: a large file is not parsed whole
            text = text[span[0] : span[1]]
        root = compose(text)
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return {}  # set_value says why, located
    base = (0,) if span is not None else at.path
    item = _node(root, base)
    if root is None or item is None:
        return {}
    paths = [(k,) for k in at.raw] + [
        (k, sub) for k, v in at.raw.items() if isinstance(v, dict) for sub in v
    ]
    out = {}
    for path in paths:
        node = _node(item, path)
        try:
            _unshared(text, root, base + path[:-1])
            if node is not None and not (_inside(node, item) and _own(node, item, path)):
                raise Refused(_shared_message(node))
            if node is not None:
                _editable(text, node)
        except Refused as exc:
            out[path] = str(exc)
    return out


# ---------------------------------------------------------------- an item's lines alone

# What may make a block list's item read otherwise alone than in its file: an anchor or alias
# (its meaning is elsewhere), a merge key, a tab, a line break other than \n, a document marker.
_NOT_ALONE = re.compile(r"[&*\t\r\x85\u2028\u2029\ufeff]|<<|^(?:---|\.\.\.|%)", re.M)
Op = Callable[[str, Path_, int], str]  # (text, the list's path, the item's index) -> new text


def apply(file: Path, text: str, doc: Document, items: Path_, index: int, op: Op) -> str:
    """The text after op, an edit of item `index` of the list at `items` (doc: text's parse).

    op runs on the item's lines alone when they read alone as they read in the file: a file of
    1,000 items is then not parsed whole to find one (0.3 s), and the new text is read as the
    loader reads a saved file, only the lines changed again. Either way the new text must read
    as the old with just that item changed, without a problem."""
    span = _window(text, doc, items + (index,))
    if span is None:
        return op(text, items, index)
    a, b = span
    part = op(text[a:b], (), 0)
    new = text[:a] + part + text[b:]
    expected = _copied_along(doc.data, items)
    _get(expected, items)[index : index + 1] = construct(compose(part)) or []
    got, problems = parse_as(file, new)
    if problems or got.data != expected:
        why = f" ({problems[0]})" if problems else ""
        raise Refused(f"the edit cannot be written without changing what the file says{why}")
    return new


def _window(text: str, doc: Document, item: Path_) -> tuple[int, int] | None:
    """The span of the item's lines, from its `- ` line to the line of the next value after it,
    when they read alone as the item; else None."""
    where = doc.values.get(item)
    if where is None:
        return None
    n = len(item)
    later = [
        w.line
        for table in (doc.values, doc.keys)
        for p, w in table.items()
        if w.line > where.line and p[:n] != item
    ]
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    if where.line > len(starts):
        return None
    a = starts[where.line - 1]
    b = starts[min(later) - 1] if later and min(later) <= len(starts) else len(text)
    part = text[a:b]
    if _NOT_ALONE.search(part) or not re.match(" *- +", part):
        return None
    try:
        node = compose(part)
        alone = construct(node)
    except yaml.YAMLError:
        return None
    if (
        not isinstance(node, yaml.SequenceNode)
        or node.flow_style
        or node.start_mark.column != part.index("-")
        or alone != [_get(doc.data, item)]
    ):
        return None
    return a, b


def _copied_along(data: Any, path: Path_) -> Any:
    """data with the lists and mappings along path copied (the rest shared), to change there."""
    top = copy.copy(data)
    inner = top
    for key in path:
        inner[key] = copy.copy(inner[key])
        inner = inner[key]
    return top


# ---------------------------------------------------------------- the operations


def set_value(text: str, item: Path_, key: Path_, value: Any) -> str:
    """text with the value at item + key set to value (a key added when absent)."""
    root, data = _parsed(text)
    path = item + key
    item_node = _node(root, item)
    if not isinstance(item_node, yaml.MappingNode):
        raise Refused("the item is not a mapping in the file")
    _unshared(text, root, path[:-1])
    expected = copy.deepcopy(data)
    _put(expected, path, value)
    node = _node(root, path)
    if node is not None:
        if not (_inside(node, item_node) and _own(node, root, path)):
            raise Refused(_shared_message(node))
        _editable(text, node)
        candidates = [_replaced(text, node, value, style) for style in _styles(node)]
    else:  # not written (or merged in with `<<`): written on the item
        parent = _node(root, path[:-1])
        if not isinstance(parent, yaml.MappingNode) or not _inside(parent, item_node):
            raise Refused(_shared_message(parent or item_node))
        candidates = [_with_key(text, parent, str(path[-1]), value, flow) for flow in (0, 1)]
    return _first_good(candidates, expected)


def add_item(text: str, items: Path_, after: int | None, values: dict[str, Any]) -> str:
    """text with a new item (values, in their order) after item `after` (None: last)."""
    root, data = _parsed(text)
    seq = _block_items(root, items)
    _unshared(text, root, items)
    at = len(seq.value) - 1 if after is None else after
    expected = copy.deepcopy(data)
    _get(expected, items).insert(at + 1, values)
    first = seq.value[at]
    _, end = _item_span(text, first)
    dash, nl = _line_head(text, first).index("-"), _newline(text)
    if isinstance(first, yaml.MappingNode) and first.flow_style:
        lines = " " * dash + "- " + _flow(values) + nl
    else:
        pad = nl + " " * first.start_mark.column
        lines = " " * dash + "- " + pad.join(f"{_key(k)}: {_flow(v)}" for k, v in values.items())
        lines += nl
    return _first_good([_spliced(text, end, end, lines)], expected)


def duplicate_item(text: str, items: Path_, index: int, new_id: str) -> str:
    """text with a copy of item `index` after it, its id new_id."""
    root, data = _parsed(text)
    seq = _block_items(root, items)
    _unshared(text, root, items)
    node = seq.value[index]
    start, end = _item_span(text, node)
    _no_anchor(text, node, "duplicated")
    id_node = _node(node, ("id",))
    if id_node is None or not _inside(id_node, node):
        raise Refused("the item's id is not written in the item; duplicate it in the file")
    a, b = _span(id_node)
    copied = text[start:a] + _scalar(new_id, id_node, flow=_in_flow(node)) + text[b:end]
    expected = copy.deepcopy(data)
    item = copy.deepcopy(_get(expected, items)[index])
    item["id"] = new_id
    _get(expected, items).insert(index + 1, item)
    if not copied.endswith(("\n", "\r")):
        copied = _newline(text) + copied
    return _first_good([_spliced(text, end, end, copied)], expected)


def remove_item(text: str, items: Path_, index: int) -> str:
    """text without item `index` (its lines); the caller keeps a group's only item."""
    root, data = _parsed(text)
    seq = _block_items(root, items)
    _unshared(text, root, items)
    node = seq.value[index]
    _no_anchor(text, node, "removed")
    start, end = _item_span(text, node)
    expected = copy.deepcopy(data)
    del _get(expected, items)[index]
    return _first_good([_spliced(text, start, end, "")], expected)


# ---------------------------------------------------------------- reading the tree


def _parsed(text: str) -> tuple[Node, Any]:
    try:
        root = compose(text)
        if root is None:
            raise Refused("the file is empty")
        # construct() flattens merge keys (<<) into the tree it reads: keep one tree apart
        positions = compose(text) if "<<" in text else root
        assert positions is not None  # the same text
        return positions, construct(root)
    except yaml.YAMLError as exc:
        raise Refused(f"the file does not read as YAML now ({str(exc).splitlines()[0]})") from None


def _node(root: Node | None, path: Path_) -> Node | None:
    node = root
    for key in path:
        if isinstance(node, yaml.MappingNode):
            node = next((v for k, v in node.value if k.value == str(key)), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int):
            node = node.value[key] if 0 <= key < len(node.value) else None
        else:
            return None
    return node


def _get(data: Any, path: Path_) -> Any:
    for key in path:
        data = data[key]
    return data


def _put(data: Any, path: Path_, value: Any) -> None:
    parent = data
    for key in path[:-1]:
        parent = parent.setdefault(key, {}) if isinstance(parent, dict) else parent[key]
    parent[path[-1]] = value


def _inside(node: Node, outer: Node) -> bool:
    return (
        outer.start_mark.index <= node.start_mark.index
        and node.end_mark.index <= outer.end_mark.index
    )


def _own(node: Node, root: Node, path: Path_) -> bool:
    """Whether node is written at path itself (not reached through an alias or a merge)."""
    parent = _node(root, path[:-1])
    if isinstance(parent, yaml.MappingNode):
        return any(v is node and k.value == str(path[-1]) for k, v in parent.value)
    return True


def _span(node: Node) -> tuple[int, int]:
    return node.start_mark.index, node.end_mark.index


def _editable(text: str, node: Node) -> None:
    head = text[node.start_mark.index : node.start_mark.index + 1]
    if head == "&":
        name = re.match(r"&(\S+)", text[node.start_mark.index :])
        raise Refused(
            f"this value carries the anchor &{name.group(1) if name else ''}, which other values "
            "may share; edit it in the file"
        )
    if head == "!":
        raise Refused("this value has a YAML tag; edit it in the file")
    if isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and not node.flow_style:
        raise Refused("this value is written over several lines; edit one of its values")


def _unshared(text: str, root: Node, path: Path_) -> None:
    """Refuse when a mapping or list along path (path's own included) carries an anchor: what
    changes inside it changes for every alias of it too."""
    for n in range(1, len(path) + 1):
        node = _node(root, path[:n])
        if node is not None and text.startswith("&", node.start_mark.index):
            name = re.match(r"&(\S+)", text[node.start_mark.index :])
            key = path[n - 1]
            what = f"item {key + 1} of '{path[n - 2]}'" if isinstance(key, int) else f"'{key}'"
            raise Refused(
                f"this lies in {what} (line {node.start_mark.line + 1}), which carries "
                f"the anchor &{name.group(1) if name else ''} other values may share; edit it in "
                "the file"
            )


def _shared_message(node: Node) -> str:
    line = node.start_mark.line + 1
    return (
        f"this value is shared with other values through a YAML alias or merge key (written at "
        f"line {line}); edit it in the file"
    )


def _no_anchor(text: str, node: Node, what: str) -> None:
    a, b = _item_span(text, node)
    if re.search(r"(^|[\s\[{,:-])&\S", text[a:b]) and _has_anchor(node, text):
        raise Refused(f"the item holds a YAML anchor (&) others may use; it cannot be {what} here")


def _has_anchor(node: Node, text: str) -> bool:
    if text[node.start_mark.index : node.start_mark.index + 1] == "&":
        return True
    if isinstance(node, yaml.MappingNode):
        return any(_has_anchor(k, text) or _has_anchor(v, text) for k, v in node.value)
    if isinstance(node, yaml.SequenceNode):
        return any(_has_anchor(v, text) for v in node.value)
    return False


def _block_items(root: Node, items: Path_) -> yaml.SequenceNode:
    seq = _node(root, items)
    if not isinstance(seq, yaml.SequenceNode) or not seq.value:
        raise Refused("the group's items are not a list in the file")
    if seq.flow_style:
        raise Refused("the items are written as one flow list [...]; edit the list in the file")
    return seq


def _line_head(text: str, node: Node) -> str:
    """The text of node's line before it."""
    return text[text.rfind("\n", 0, node.start_mark.index) + 1 : node.start_mark.index]


def _item_span(text: str, node: Node) -> tuple[int, int]:
    """From the start of the `- ` line of a block list's item to the end of its last line."""
    head = _line_head(text, node)
    if not re.fullmatch(r" *- +", head):
        raise Refused("the item does not start on its own `- ` line; edit the list in the file")
    start = node.start_mark.index - len(head)
    return start, _line_end(text, _last_end(node))


def _last_end(node: Node) -> int:
    if isinstance(node, yaml.MappingNode) and not node.flow_style and node.value:
        return max(_last_end(v) for _, v in node.value)
    if isinstance(node, yaml.SequenceNode) and not node.flow_style and node.value:
        return max(_last_end(v) for v in node.value)
    return node.end_mark.index


def _line_end(text: str, index: int) -> int:
    """Past the line break ending the line index lies on (index itself at a line's start)."""
    if index > 0 and text[index - 1] == "\n":
        return index
    end = text.find("\n", index)
    return len(text) if end < 0 else end + 1


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def _in_flow(node: Node) -> bool:
    return isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and bool(node.flow_style)


# ---------------------------------------------------------------- writing


def _spliced(text: str, a: int, b: int, new: str) -> str:
    return text[:a] + new + text[b:]


def _first_good(candidates: list[str], expected: Any) -> str:
    """The first candidate that reads as expected (nothing: an empty list, as an item's lines
    alone without it read)."""
    for new in candidates:
        try:
            got = construct(compose(new))
            if got == expected or (got is None and expected == []):
                return new
        except yaml.YAMLError:
            continue
    raise Refused("the value cannot be written here without changing what the file says")


def _style(node: Node) -> str | None:
    """A scalar's style: None plain (libyaml says ""), "'", '"', "|" or ">"."""
    return (node.style or None) if isinstance(node, yaml.ScalarNode) else None


def _styles(node: Node) -> list[str | None]:
    style = _style(node)
    return [style, '"'] if style != '"' else ['"']


def _replaced(text: str, node: Node, value: Any, style: str | None) -> str:
    a, b = _span(node)
    if _style(node) in ("|", ">"):
        b = _content_end(text, a, b)
        if style in ("|", ">") and isinstance(value, str):
            return _spliced(text, a, b, _block(value, _indent(text, a, b), _newline(text)))
        return _spliced(text, a, b, _render(value, '"', False) + _newline(text))
    flow = _flow_context(text, node)
    return _spliced(text, a, b, _render(value, style, flow))


def _flow_context(text: str, node: Node) -> bool:
    """Whether node sits in a flow collection: a conservative guess from its line (an extra
    quoting is all a wrong guess costs)."""
    head = _line_head(text, node)
    return head.count("{") + head.count("[") > head.count("}") + head.count("]")


def _content_end(text: str, a: int, b: int) -> int:
    """A block scalar's span without the blank lines after its content."""
    body = text[a:b]
    stripped = body.rstrip(" \t\r\n")
    return _line_end(text, a + len(stripped))


def _indent(text: str, a: int, b: int) -> str:
    for line in text[a:b].splitlines()[1:]:
        if line.strip():
            return line[: len(line) - len(line.lstrip(" "))]
    return "  "


def _block(value: str, indent: str, nl: str) -> str:
    chomp = "" if value.endswith("\n") and not value.endswith("\n\n") else "-"
    if value.endswith("\n\n") or value[:1] == " " or "\r" in value:
        return _render(value, '"', False) + nl
    lines = value[:-1].split("\n") if value.endswith("\n") else value.split("\n")
    return "|" + chomp + nl + "".join((indent + line if line else "") + nl for line in lines)


def _with_key(text: str, parent: yaml.MappingNode, key: str, value: Any, quoted: int) -> str:
    """text with `key: value` added to the mapping parent (after its last key)."""
    rendered = _flow(value) if not quoted else _render(value, '"', True)
    if parent.flow_style:
        at = parent.value[-1][1].end_mark.index if parent.value else parent.end_mark.index - 1
        sep = ", " if parent.value else ""
        return _spliced(text, at, at, f"{sep}{_key(key)}: {rendered}")
    if not parent.value:
        raise Refused("the item is empty in the file")
    column = parent.value[0][0].start_mark.column
    at = _line_end(text, _last_end(parent))
    prefix = "" if at == 0 or text[at - 1] == "\n" else _newline(text)
    return _spliced(
        text, at, at, prefix + " " * column + f"{_key(key)}: {rendered}" + _newline(text)
    )


def _key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z_][\w.-]*", key) else json.dumps(key)


def _flow(value: Any) -> str:
    """value written in flow style: plain where that reads back the same, else quoted."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(str(k))}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    return _render(value, None, True)


def _scalar(value: Any, like: Node, flow: bool) -> str:
    style = _style(like)
    return _render(value, style if style not in ("|", ">") else '"', flow)


def _render(value: Any, style: str | None, flow: bool) -> str:
    """One value as YAML: numbers and booleans plain; a string in `style` when it reads back
    the same in it, else double-quoted."""
    if isinstance(value, (dict, list)):
        return _flow(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        shown = repr(value)
        return shown if "." in shown or "e" not in shown else shown.replace("e", ".0e", 1)
    text = str(value)
    if style is None and _plain_ok(text, flow):
        return text
    if style == "'" and "\n" not in text and text.isprintable():
        return "'" + text.replace("'", "''") + "'"
    return _double(text)


def _plain_ok(text: str, flow: bool) -> bool:
    if not text or text != text.strip() or "\n" in text or not text.isprintable():
        return False
    if ": " in text or " #" in text or text.endswith(":") or (flow and _PLAIN_FLOW.search(text)):
        return False
    try:
        return construct(compose(f"[{text}]" if flow else f"k: {text}")) == (
            [text] if flow else {"k": text}
        )
    except yaml.YAMLError:
        return False


def _double(text: str) -> str:
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif not ch.isprintable() or ch in "\x85\u2028\u2029\ufeff":
            out.append(f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'
