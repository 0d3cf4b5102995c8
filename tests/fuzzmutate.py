"""A seeded mutator of the shipped kits: one mutant is a copy of a kit with a few careless or
hostile edits, reproducible from (kit, seed) alone.

Edits are made on the text, so comments, quoting and layout survive and a mutant reads like
a pack a person broke. YAML edits find their target through yaml.compose (node marks give
the exact character span of every key and value); text edits (indentation, tabs, truncation,
stray bytes) need no parse, so they also apply to a file an earlier edit broke.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
KITS = ("mammoth-herd", "anunnaki", "mlem", "star-cargo")
# replaced by the campaign's sentinel folder: an absolute path a write must not reach
SENTINEL = "@SENTINEL@"

NUMBERS = [
    "0",
    "-1",
    "1e9",
    "1e308",
    "-1e308",
    ".nan",
    ".inf",
    "-.inf",
    "nan",
    "inf",
    "-0",
    "99999999999999999999999999",
    "2147483648",
    "1e-320",
    "0.0000001",
    "0x10",
    "1_000",
]
NUMBER_PARTS = ["0", "-1", "1e9", "1e308", "nan", "inf", "99999999999999999999", "0.0001", "-0"]
STRINGS = [
    "''",
    '""',
    "' '",
    "../../x",
    "../../../../../x",
    "/etc/passwd",
    f"{SENTINEL}/abs",
    "C:\\\\Windows\\\\x",
    "~",
    "null",
    "no",
    "'<g>&amp;</g>'",
    "'{{ 7 * 7 }}'",
    "'%s%n'",
    '"a\\nb"',
    '"\\0"',
    '"\\u202eevil"',
    "Zażółć gęślą jaźń 漢字 🂡",
    "'\U0001f469\u200d\U0001f680'",
    "x.svg.j2",
    "../templates/x.svg.j2",
    "'#zzzzzz'",
    "'   '",
]
VALUES = [
    "7",
    "-3",
    "1.5",
    "true",
    "no",
    "~",
    "[]",
    "{}",
    "[1, [2]]",
    "{a: 1}",
    '"str"',
    "2020-01-01",
    "[a, b, c]",
    "{data: nope}",
    "{count: bonus-tiles}",
    "3mm",
    "poker",
]
KEYS = [
    "1",
    "~",
    "true",
    "1.5",
    "''",
    "[a]",
    "{a: 1}",
    "2020-01-01",
    "<<",
    "? x",
]  # keys of another type
TAGS = [
    "!!str ",
    "!!int ",
    "!!float ",
    "!!binary ",
    "!!set ",
    "!!omap ",
    "!!timestamp ",
    "!!python/object/apply:os.system ",
    "!custom ",
]
TEMPLATE_INSERTS = [
    "{% if item.id %}",
    "{% for x in data %}",
    "{% endif %}",
    "{% endblock %}",
    "{{",
    "}}",
    "{{ item.nope }}",
    "{{ 1 / 0 }}",
    "{{ none.x }}",
    "{% block content %}",
    "<g>",
    "</g>",
    "<mask/>",
    "&bogus;",
    "<rect width='nan' height='1e308'/>",
    "<image href='/etc/passwd' width='1' height='1'/>",
    "{% include 'nope.svg.j2' %}",
    "{% extends '_face.svg.j2' %}",
    "{{ text_box('x', 0, 0, 0, 0) }}",
    "<text>",
    "{% macro m() %}",
    "{{ ''.__class__ }}",
    "{% set x = 'y' * 10 %}",
    "{{ 'y' * 10**9 }}",  # more runaway templates: fuzzinputs.RUNAWAY
    "{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}{% endfor %}",
    "{{ lipsum(10**6) }}",
]


@dataclass
class Mutant:
    kit: str
    seed: int
    command: str  # validate | build
    files: dict  # path relative to the copy's root -> bytes, or None for a deleted file
    edits: list = field(default_factory=list)  # what was done, for the report
    extra: list = field(default_factory=list)  # more CLI arguments
    ops: str = "yaml"  # which edits: "yaml" (OPS) or "inputs" (fuzzinputs.INPUT_OPS)

    def argv(self, out: str | None = None) -> list[str]:
        pack = f"components/{self.kit}"
        if self.command == "build":
            return ["build", pack, "--out", out or "out", *self.extra]
        return ["validate", pack, *self.extra]

    def describe(self) -> str:
        ops = "" if self.ops == "yaml" else f", {self.ops}"
        return f"{self.kit} seed {self.seed} ({self.command}{ops}): " + "; ".join(self.edits)


def kit_files(kit: str) -> dict[str, bytes]:
    """The files of a kit a mutant copies: its pack folder and its templates (rules.py is code,
    not fuzzed)."""
    files = {}
    for base in (ROOT / "components" / kit, ROOT / "templates" / kit):
        for path in sorted(base.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                files[str(path.relative_to(ROOT))] = path.read_bytes()
    return files


_PRISTINE: dict[str, dict[str, bytes]] = {}


def pristine(kit: str) -> Mutant:
    """The kit as shipped, as a mutant with no edits."""
    if kit not in _PRISTINE:
        _PRISTINE[kit] = kit_files(kit)
    return Mutant(kit, -1, "validate", dict(_PRISTINE[kit]))


def mutate(kit: str, seed: int, ops: str = "yaml") -> Mutant:
    """The mutant of `kit` for `seed`: 1 edit mostly, sometimes 2 or 3; 1 in 5 is a build.
    ops "inputs": the edits add spreadsheets, fonts, art and runaway templates instead."""
    if ops.startswith("hostile:"):  # a fixed case: fuzzinputs.HOSTILE
        from fuzzinputs import hostile

        return hostile(ops.split(":", 1)[1])
    files = pristine(kit).files
    rng = random.Random(f"{kit}/{seed}" if ops == "yaml" else f"{kit}/{seed}/{ops}")
    mutant = Mutant(kit, seed, "build" if rng.random() < 0.2 else "validate", files, ops=ops)
    table = OPS
    if ops == "inputs":
        from fuzzinputs import INPUT_OPS as table  # it edits with this module's helpers
    for _ in range(rng.choice([1, 1, 1, 1, 2, 2, 3])):
        op = rng.choices(list(table), weights=[w for w, _ in table.values()])[0]
        table[op][1](rng, mutant, op)
    return mutant


# --- choosing a file -------------------------------------------------------------------------


def _pick(rng: random.Random, mutant: Mutant, suffix: str) -> str | None:
    names = [n for n, b in mutant.files.items() if b is not None and n.endswith(suffix)]
    return rng.choice(names) if names else None


def _text(mutant: Mutant, name: str) -> str | None:
    try:
        return mutant.files[name].decode("utf-8")
    except UnicodeDecodeError:  # an earlier edit cut a character in half
        return None


def _set(mutant: Mutant, name: str, text: str, what: str) -> None:
    mutant.files[name] = text.encode("utf-8")
    mutant.edits.append(f"{name}: {what}")


# --- YAML structure ---------------------------------------------------------------------------


@dataclass
class Pair:
    key: yaml.Node
    value: yaml.Node
    flow: bool  # the mapping is written {a: 1, b: 2}


def _nodes(text: str) -> tuple[list[Pair], list[tuple[yaml.Node, bool]]]:
    """Every key/value pair and every sequence item (with its sequence's flow style) of a YAML
    text."""
    try:
        root = yaml.compose(text, Loader=yaml.CSafeLoader)
    except yaml.YAMLError:
        return [], []
    pairs, items, stack = [], [], [root] if root is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                pairs.append(Pair(key, value, bool(node.flow_style)))
                stack.append(value)
        elif isinstance(node, yaml.SequenceNode):
            for item in node.value:
                items.append((item, bool(node.flow_style)))
                stack.append(item)
    return pairs, items


def _span(text: str, start: int, end: int) -> tuple[int, int]:
    """A node's span without the blank lines and comments a block node's end mark takes in."""
    body = text[start:end]
    lines = body.rstrip().split("\n")
    while len(lines) > 1 and lines[-1].lstrip().startswith("#"):
        lines.pop()
    return start, start + len("\n".join(lines).rstrip())


def _yaml_op(fn):
    """An edit that needs a parsed YAML file: it gets the file's text and nodes, returns (text,
    what) or None."""

    def run(rng: random.Random, mutant: Mutant, op: str) -> None:
        name = _pick(rng, mutant, ".yaml")
        text = _text(mutant, name) if name else None
        if text is None:
            return _line_op(_indent)(rng, mutant, "break-indent")
        pairs, items = _nodes(text)
        done = fn(rng, text, pairs, items) if pairs else None
        if done is None:
            return _line_op(_indent)(rng, mutant, "break-indent")
        _set(mutant, name, done[0], f"{op} {done[1]}")

    return run


def _replace(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


def _where(text: str, node: yaml.Node) -> str:
    at = text[node.start_mark.index : node.end_mark.index][:40]
    return f"line {node.start_mark.line + 1} ({at!r})"


def _delete_key(rng, text, pairs, items):
    pair = rng.choice(pairs)
    start, end = _span(text, pair.key.start_mark.index, pair.value.end_mark.index)
    if pair.flow:  # take a comma along so the mapping still parses
        if text[end : end + 2] == ", ":
            end += 2
        elif text[start - 2 : start] == ", ":
            start -= 2
    return _replace(text, start, end, ""), _where(text, pair.key)


def _duplicate_key(rng, text, pairs, items):
    pair = rng.choice(pairs)
    start, end = _span(text, pair.key.start_mark.index, pair.value.end_mark.index)
    copy = text[start:end]
    joint = ", " if pair.flow else "\n" + " " * pair.key.start_mark.column
    return _replace(text, end, end, joint + copy), _where(text, pair.key)


def _misspell(rng: random.Random, word: str) -> str:
    if len(word) < 2:
        return word + "x"
    i = rng.randrange(len(word) - 1)
    return rng.choice(
        [
            word[:i] + word[i + 1] + word[i] + word[i + 2 :],  # swap two letters
            word[:i] + word[i + 1 :],  # drop one
            word[:i] + word[i] * 2 + word[i:],  # double one
            word.upper(),
            word.replace("-", "_").replace("_", "-") + "s",
            word + "_x",
        ]
    )


def _rename_key(rng, text, pairs, items):
    """Misspell a key, or (1 in 4) give it another type: a number, null, a list."""
    pair = rng.choice(pairs)
    key = pair.key
    if not isinstance(key, yaml.ScalarNode) or key.style:
        return None
    new = rng.choice(KEYS) if rng.random() < 0.25 else _misspell(rng, key.value)
    return _replace(
        text, key.start_mark.index, key.end_mark.index, new
    ), f"{_where(text, key)} -> {new!r}"


def _value_pairs(pairs: list[Pair]) -> list[Pair]:
    return [p for p in pairs if p.value.end_mark.index > p.value.start_mark.index]


def _set_value(text: str, pair: Pair, new: str) -> str:
    start, end = _span(text, pair.value.start_mark.index, pair.value.end_mark.index)
    return _replace(text, start, end, new)


def _retype(rng, text, pairs, items):
    pairs = _value_pairs(pairs)
    if not pairs:
        return None
    pair, new = rng.choice(pairs), rng.choice(VALUES)
    return _set_value(text, pair, new), f"value of {_where(text, pair.key)} -> {new}"


def _swap(rng, text, pairs, items):
    scalars = [p for p in _value_pairs(pairs) if isinstance(p.value, yaml.ScalarNode)]
    if len(scalars) < 2:
        return None
    a, b = sorted(rng.sample(scalars, 2), key=lambda p: p.value.start_mark.index)
    va = text[a.value.start_mark.index : a.value.end_mark.index]
    vb = text[b.value.start_mark.index : b.value.end_mark.index]
    text = _replace(
        text, b.value.start_mark.index, b.value.end_mark.index, va
    )  # the later one first
    text = _replace(text, a.value.start_mark.index, a.value.end_mark.index, vb)
    return text, f"values of {_where(text, a.key)} and line {b.key.start_mark.line + 1}"


NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def _extreme(rng, text, pairs, items):
    """A number, or the number in a length or size ('45x45mm'), becomes an extreme."""
    found = [
        p
        for p in _value_pairs(pairs)
        if isinstance(p.value, yaml.ScalarNode) and NUMBER.search(p.value.value)
    ]
    if not found:
        return None
    pair = rng.choice(found)
    raw = text[pair.value.start_mark.index : pair.value.end_mark.index]
    numbers = list(NUMBER.finditer(raw))
    if not numbers or NUMBER.fullmatch(pair.value.value):
        new = rng.choice(NUMBERS)
    else:
        m = rng.choice(numbers)
        new = raw[: m.start()] + rng.choice(NUMBER_PARTS) + raw[m.end() :]
    return _set_value(text, pair, new), f"{_where(text, pair.key)} -> {new}"


def _string(rng, text, pairs, items):
    scalars = [p for p in _value_pairs(pairs) if isinstance(p.value, yaml.ScalarNode)]
    scalars += [Pair(i, i, flow) for i, flow in items if isinstance(i, yaml.ScalarNode)]
    if not scalars:
        return None
    pair = rng.choice(scalars)
    kind = rng.random()
    if kind < 0.2:
        new = "'" + rng.choice(["x", "W", "ab cd ", "ż"]) * rng.choice([300, 3000, 30000]) + "'"
    else:
        new = rng.choice(STRINGS)
    return _set_value(text, pair, new), f"{_where(text, pair.value)} -> {new[:40]}"


def _sequence_item(rng, text, pairs, items):
    """Delete or duplicate one item of a list (duplicate ids, a short deck, a die with 5 faces)."""
    if not items:
        return None
    item, flow = rng.choice(items)
    start, end = _span(text, item.start_mark.index, item.end_mark.index)
    if rng.random() < 0.5:
        if flow:
            end += 2 if text[end : end + 2] == ", " else 0
            return _replace(text, start, end, ""), f"deleted item at {_where(text, item)}"
        line_start = text.rfind("\n", 0, start) + 1
        if text[line_start:start].strip() != "-":
            return None
        return _replace(text, line_start, end + 1, ""), f"deleted item at {_where(text, item)}"
    if flow:
        return _replace(
            text, end, end, ", " + text[start:end]
        ), f"duplicated item at {_where(text, item)}"
    line_start = text.rfind("\n", 0, start) + 1
    return _replace(
        text, end, end, "\n" + text[line_start:end]
    ), f"duplicated item at {_where(text, item)}"


def _tag_or_alias(rng, text, pairs, items):
    pairs = _value_pairs(pairs)
    if len(pairs) < 2:
        return None
    if rng.random() < 0.5:
        pair, tag = rng.choice(pairs), rng.choice(TAGS)
        at = pair.value.start_mark.index
        return _replace(text, at, at, tag), f"tag {tag.strip()} on {_where(text, pair.key)}"
    a, b = sorted(rng.sample(pairs, 2), key=lambda p: p.value.start_mark.index)
    if a.value.end_mark.index > b.value.start_mark.index:  # b lies inside a: an alias to itself
        return None
    target, alias = (a, b) if rng.random() < 0.5 else (b, a)
    edits = [
        (target.value.start_mark.index, target.value.start_mark.index, "&fz "),
        (*_span(text, alias.value.start_mark.index, alias.value.end_mark.index), "*fz"),
    ]
    for start, end, new in sorted(edits, reverse=True):
        text = _replace(text, start, end, new)
    return (
        text,
        f"line {alias.key.start_mark.line + 1} aliases line {target.key.start_mark.line + 1}",
    )


# --- text edits --------------------------------------------------------------------------------


def _line_op(fn):
    def run(rng: random.Random, mutant: Mutant, op: str) -> None:
        name = _pick(rng, mutant, ".yaml") or _pick(rng, mutant, "")
        text = _text(mutant, name) if name else None
        if text is None:
            return _truncate(rng, mutant, "truncate")
        lines = text.split("\n")
        candidates = [
            i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("#")
        ]
        if not candidates:
            return
        i = rng.choice(candidates)
        lines[i], what = fn(rng, lines[i])
        _set(mutant, name, "\n".join(lines), f"{op} line {i + 1}: {what}")

    return run


def _indent(rng: random.Random, line: str) -> tuple[str, str]:
    body = line.lstrip(" ")
    indent = len(line) - len(body)
    new = rng.choice(
        [0, max(0, indent - 1), max(0, indent - 2), indent + 1, indent + 2, indent + 4]
    )
    return " " * new + body, f"indent {indent} -> {new}"


def _tab(rng: random.Random, line: str) -> tuple[str, str]:
    body = line.lstrip(" ")
    if body != line and rng.random() < 0.6:
        return line[: len(line) - len(body) - 1] + "\t" + body, "tab in the indentation"
    at = rng.randrange(len(line) + 1)
    return line[:at] + "\t" + line[at:], f"tab at column {at + 1}"


def _truncate(rng: random.Random, mutant: Mutant, op: str, suffix: str = "") -> None:
    name = _pick(rng, mutant, suffix)
    if name is None:
        return
    data = mutant.files[name]
    at = rng.randrange(len(data) + 1)
    mutant.files[name] = data[:at]
    mutant.edits.append(f"{name}: truncated at byte {at} of {len(data)}")


def _bytes(rng: random.Random, mutant: Mutant, op: str) -> None:
    """Bytes a text editor or a download might leave: a BOM, CRLF, NUL, invalid UTF-8, an empty
    file, no file."""
    name = _pick(rng, mutant, ".yaml")
    if name is None:
        return
    data = mutant.files[name]
    kind = rng.choice(["bom", "crlf", "nul", "latin1", "ff", "empty", "delete"])
    at = rng.randrange(len(data) + 1)
    mutant.files[name] = {
        "bom": lambda: b"\xef\xbb\xbf" + data,
        "crlf": lambda: data.replace(b"\n", b"\r\n"),
        "nul": lambda: data[:at] + b"\x00" + data[at:],
        "latin1": lambda: data.decode("utf-8", "replace").encode("latin-1", "replace"),
        "ff": lambda: data[:at] + b"\xff\xfe" + data[at:],
        "empty": lambda: b"",
        "delete": lambda: None,
    }[kind]()
    mutant.edits.append(f"{name}: {kind}" + (f" at byte {at}" if kind in ("nul", "ff") else ""))


# --- templates and the command line -------------------------------------------------------------


def _template(rng: random.Random, mutant: Mutant, op: str) -> None:
    name = _pick(rng, mutant, ".j2")
    if name is None:
        return
    if rng.random() < 0.3:
        return _truncate(rng, mutant, op, ".j2")
    text = _text(mutant, name)
    if text is None:
        return
    tags = [m for m in re.finditer(r"\{%-?\s*end\w+\s*-?%\}|\}\}|</\w+>|/>", text)]
    if tags and rng.random() < 0.4:
        m = rng.choice(tags)
        return _set(
            mutant,
            name,
            _replace(text, m.start(), m.end(), ""),
            f"removed {m.group()!r} at offset {m.start()}",
        )
    at, new = rng.randrange(len(text) + 1), rng.choice(TEMPLATE_INSERTS)
    _set(mutant, name, _replace(text, at, at, new), f"inserted {new!r} at offset {at}")


CLI_BUILD = [
    ["--paper", "b5"],
    ["--paper", "letter"],
    ["--back-offset", "nan,inf"],
    ["--back-offset", "1e308,0"],
    ["--back-offset", "0.5,-1"],
    ["--back-offset", "x"],
    ["--backs", "none"],
    ["--backs", "gutter-fold"],
    ["--backs", "short-edge"],
    ["--strict"],
]
CLI_ANY = [["--lang", "zz"], ["--lang", "../x"], ["--lang", ""], ["--strict"], ["--lang", "en"]]


def _argv(rng: random.Random, mutant: Mutant, op: str) -> None:
    extra = rng.choice(CLI_ANY + (CLI_BUILD if mutant.command == "build" else []))
    mutant.extra += extra
    mutant.edits.append("argv " + " ".join(extra))


CELLS = [
    "",
    "x",
    "1e999",
    "nan",
    "-inf",
    "-1",
    "0",
    "99999999999999999999",
    '"unclosed',
    "a;;b",
    "../../x",
    "/etc/passwd",
    "=SUM(A1:A9)",
    "\u00e9" * 300,
    "true",
]


def _sheet(rng: random.Random, mutant: Mutant, op: str) -> None:
    """A spreadsheet of items (star-cargo's banknotes.csv): a cell, the header or a row broken."""
    name = _pick(rng, mutant, ".csv")
    text = _text(mutant, name) if name else None
    if text is None:
        return _truncate(rng, mutant, "truncate")
    rows = text.split("\n")
    i = rng.randrange(len(rows))
    cells = rows[i].split(",")
    kind = rng.choice(["cell", "cell", "cell", "drop-column", "duplicate-row", "extra-column"])
    if kind == "cell":
        j = rng.randrange(len(cells))
        cells[j] = rng.choice(CELLS)
        what = f"row {i + 1} column {j + 1} -> {cells[j][:20]!r}"
    elif kind == "drop-column":
        j = rng.randrange(len(cells))
        rows = [",".join(c for k, c in enumerate(r.split(",")) if k != j) for r in rows]
        _set(mutant, name, "\n".join(rows), f"{op}: column {j + 1} removed")
        return
    elif kind == "duplicate-row":
        rows.insert(i, rows[i])
        what = f"row {i + 1} duplicated"
    else:
        cells.append(rng.choice(CELLS))
        what = f"row {i + 1} gets an extra cell"
    rows[i] = ",".join(cells)
    _set(mutant, name, "\n".join(rows), f"{op}: {what}")


OPS = {  # name: (weight, edit)
    "delete-key": (10, _yaml_op(_delete_key)),
    "duplicate-key": (6, _yaml_op(_duplicate_key)),
    "rename-key": (8, _yaml_op(_rename_key)),  # misspelt, or retyped
    "retype": (10, _yaml_op(_retype)),
    "swap": (8, _yaml_op(_swap)),
    "extreme-number": (14, _yaml_op(_extreme)),
    "string": (10, _yaml_op(_string)),
    "list-item": (6, _yaml_op(_sequence_item)),
    "tag-alias": (3, _yaml_op(_tag_or_alias)),
    "break-indent": (5, _line_op(_indent)),
    "tab": (4, _line_op(_tab)),
    "truncate": (5, _truncate),
    "bytes": (3, _bytes),
    "template": (8, _template),
    "argv": (3, _argv),
    "sheet": (3, _sheet),
}


def write(mutant: Mutant, root: Path, sentinel: Path | None = None) -> None:
    """Write the mutant's files under root (components/<kit>/…, templates/<kit>/…)."""
    for rel, data in mutant.files.items():
        if data is None:
            continue
        if sentinel is not None and isinstance(data, bytes):
            data = data.replace(SENTINEL.encode(), str(sentinel).encode())
        write_file(root / rel, data)


def write_file(path: Path, data) -> None:
    """bytes, or a fuzzinputs.Sparse: its head, then stretched to its size (no disk used)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
        return
    with open(path, "wb") as f:
        f.write(data.head)
        f.truncate(data.size)
