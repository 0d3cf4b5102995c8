"""Where a group's items come from: written in YAML, read from a sheet, or generated; with defaults.

Every source ends as the same thing, a raw item mapping with a place for each of its
values, so schema._read_item checks all of them with the same code and the same
messages. The places live in a loader.Document: the YAML file for written items,
a Document of the sheet's cells (`cards.csv:14:3`, `cards.xlsx:Deck!C14`) for rows,
and one that points into the generator (the id pattern, each product value) for
generated items. Group `defaults` are merged under each item's own values and keep
their own place in game files.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pnpkit.errors import Location, Problem
from pnpkit.pack import sheets
from pnpkit.pack.checker import Reader, did_you_mean
from pnpkit.pack.loader import display_path
from pnpkit.pack.paths import name_problem
from pnpkit.pack.yamldoc import MAX_DIGITS, Document, Path_
from pnpkit.units import describe

if TYPE_CHECKING:
    from pnpkit.pack.model import FieldSpec

Raw = tuple[Reader, Any, Path_]  # (Reader, raw item (a mapping unless it is wrong), its data path)
NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
INT_KEYS = ("count", "per_player")
SHEET_KEYS = ("from", "sheet")
Convert = Callable[[Any], Any]  # a cell's value -> the value as the field reads it


def raw_items(
    r: Reader,
    root: Path,
    group: str,
    spec: dict[str, Any],
    fields: dict[str, FieldSpec],
    item_keys: tuple[str, ...],
    data: dict[str, Any],
) -> list[Raw]:
    """Every item of a group, generated ones first, then the written or sheet ones, defaults
    merged."""
    path = (group, "items")
    defaults = _defaults(r, spec, group, fields, item_keys)
    out = []
    if "generate" in spec:
        out += _generated(r, spec["generate"], group, fields, item_keys, data)
    value = spec.get("items")
    if value is None:
        if "generate" not in spec:
            r.problem(
                (group,),
                f"group '{group}' needs 'items' (a list, or a sheet file such as cards.csv)",
            )
    elif isinstance(value, list):
        out += [(r, v, path + (i,)) for i, v in enumerate(value)]
    elif isinstance(value, (str, dict)):
        out += _from_sheet(r, root, group, value, fields, item_keys)
    else:
        r.problem(
            path,
            f"'items' must be a list or a sheet file such as cards.csv (got {describe(value)})",
        )
    return [_with_defaults(r, raw, defaults) for raw in out] if defaults else out


# ---------------------------------------------------------------- defaults


def _defaults(
    r: Reader,
    spec: dict[str, Any],
    group: str,
    fields: dict[str, FieldSpec],
    item_keys: tuple[str, ...],
) -> dict[str, Any] | None:
    if "defaults" not in spec:
        return None
    allowed = tuple(k for k in item_keys if k != "id") + tuple(fields)
    given = r.mapping(spec["defaults"], (group, "defaults"), allowed, f"the defaults of '{group}'")
    return (
        {k: v for k, v in given.items() if k in allowed} if given else None
    )  # an unknown key is reported once, here


def _with_defaults(r: Reader, raw: Raw, defaults: dict[str, Any]) -> Raw:
    """The item with the group's defaults under its own values; a default keeps its own place."""
    reader, value, path = raw
    if not isinstance(value, dict):
        return raw
    group = path[0]
    merged = dict(value)
    for key, default in defaults.items():
        if key in value or (
            key in ("count", "per_player") and ("count" in value or "per_player" in value)
        ):
            continue
        merged[key] = default
        _graft(r.doc, (group, "defaults", key), reader.doc, path + (key,))
    return reader, merged, path


def _graft(source: Document, src: Path_, target: Document, dst: Path_) -> None:
    """Give target the places of source's values below src, as if they stood at dst."""
    for rest, loc in _subtree(source, src):
        target.values.setdefault(dst + rest, loc)


def _subtree(doc: Document, path: Path_) -> list[tuple[Path_, Location]]:
    """The places below path, as (path below it, place); found once per document and path, as
    defaults and generators graft the same subtree onto every item."""
    memo: dict[Path_, list[tuple[Path_, Location]]] = doc.__dict__.setdefault("_subtrees", {})
    if path not in memo:
        n = len(path)
        memo[path] = [(p[n:], loc) for p, loc in doc.values.items() if p[:n] == path]
    return memo[path]


# ---------------------------------------------------------------- generated items


def _generated(
    r: Reader,
    value: Any,
    group: str,
    fields: dict[str, FieldSpec],
    item_keys: tuple[str, ...],
    data: dict[str, Any],
) -> list[Raw]:
    gens = value if isinstance(value, list) else [value]
    base = (group, "generate")
    out: list[Raw] = []
    doc = Document(r.doc.file)
    _graft(r.doc, (group,), doc, (group,))  # the group's own places (templates) for the items
    gr = Reader(doc, r.problems)
    for g, gen in enumerate(gens):
        gpath = base + (g,) if isinstance(value, list) else base
        allowed = ("product", "id") + tuple(k for k in item_keys if k != "id") + tuple(fields)
        spec = r.mapping(gen, gpath, allowed, f"a generator of '{group}'")
        if spec is None:
            continue
        product = _product(
            r, r.get(spec, gpath, "product"), gpath + ("product",), fields, item_keys, data
        )
        pattern = r.typed(r.get(spec, gpath, "id"), gpath + ("id",), "string")
        if (
            product is None
            or pattern is None
            or not _pattern_ok(r, pattern, gpath + ("id",), product)
        ):
            continue
        fixed = {k: v for k, v in spec.items() if k not in ("product", "id")}
        names = list(product)
        combos = list(itertools.product(*(product[n] for n in names)))
        ids = [
            PLACEHOLDER.sub(functools.partial(_id_text, names=names, combo=c), pattern)
            for c in combos
        ]
        bad = next((why for i in ids if (why := name_problem(i, "id")) is not None), None)
        if bad is not None:  # one line for the pattern, not one per generated item
            r.problem(gpath + ("id",), f"the id pattern gives an id that cannot be used: {bad}")
            continue
        for combo, item_id in zip(combos, ids):
            k = len(out)
            ipath = (group, "items", f"generated {k}")
            doc.values[ipath] = r.doc.at(gpath)
            item = dict(fixed)
            for key in fixed:
                _graft(r.doc, gpath + (key,), doc, ipath + (key,))
            for name, (v, where_path) in zip(names, combo):
                item[name] = v
                _graft(r.doc, where_path, doc, ipath + (name,))
            item["id"] = item_id
            doc.values[ipath + ("id",)] = r.doc.at(gpath + ("id",))
            out.append((gr, item, ipath))
    return out


def _product(
    r: Reader,
    value: Any,
    path: Path_,
    fields: dict[str, FieldSpec],
    item_keys: tuple[str, ...],
    data: dict[str, Any],
) -> dict[str, Any] | None:
    """{key: [(value, its data path), ...]} in the order written; lists may be {data: key} of
    the pack."""
    allowed = tuple(k for k in item_keys if k != "id") + tuple(fields)
    spec = r.mapping(value, path, allowed, "'product'")
    if spec is None or not spec:
        if spec is not None:
            r.problem(
                path,
                "'product' needs at least one list of values, "
                "e.g. {suit: [hearts, spades], rank: [A, K]}",
            )
        return None
    out = {}
    for key, values in spec.items():
        if key not in allowed:
            continue
        p = path + (key,)
        if isinstance(values, dict) and set(values) == {"data"}:
            table = data.get(values["data"]) if isinstance(values["data"], str) else None
            if not isinstance(table, (dict, list)) or not table:
                r.problem(
                    p,
                    f"'{key}' names data '{values['data']}', which is not a list or "
                    f"table of the pack's data{did_you_mean(values['data'], data)}",
                )
                return None
            out[key] = [(v, p) for v in table]
        elif isinstance(values, list) and values:
            out[key] = [(v, p + (i,)) for i, v in enumerate(values)]
        else:
            r.problem(
                p, f"'{key}' must be a list of values, or {{data: key}} (got {describe(values)})"
            )
            return None
    return out if len(out) == len(spec) else None


def _pattern_ok(r: Reader, pattern: str, path: Path_, product: dict[str, Any]) -> bool:
    unknown = [m for m in PLACEHOLDER.findall(pattern) if m not in product]
    if unknown:
        r.problem(
            path,
            f"the id pattern names '{unknown[0]}', which is not a key of "
            f"'product' ({', '.join(product)}){did_you_mean(unknown[0], product)}",
        )
        return False
    return True


def _id_text(match: re.Match[str], names: list[str], combo: tuple[Any, ...]) -> str:
    value = combo[names.index(match.group(1))][0]
    return (
        value
        if isinstance(value, str)
        else str(value).lower()
        if isinstance(value, bool)
        else str(value)
    )


# ---------------------------------------------------------------- items from a sheet


def _from_sheet(
    r: Reader,
    root: Path,
    group: str,
    value: Any,
    fields: dict[str, FieldSpec],
    item_keys: tuple[str, ...],
) -> list[Raw]:
    path = (group, "items")
    if isinstance(value, dict):
        spec = r.mapping(value, path, SHEET_KEYS, "'items'")
        if spec is None:
            return []
        name = r.typed(r.get(spec, path, "from"), path + ("from",), "string")
        sheet = r.typed(spec["sheet"], path + ("sheet",), "string") if "sheet" in spec else None
        if name is None or ("sheet" in spec and sheet is None):
            return []
    else:
        name, sheet = value, None
    where = r.doc.at(path)
    file = _inside(r, root, name, path)
    if file is None:
        return []
    table, problems = sheets.read_sheet(file, display_path(file), sheet, where)
    r.problems.extend(problems)
    if table is None:
        return []
    if not table.rows:
        r.problem(
            path,
            f"sheet '{name}' is empty: its first row names the "
            f"columns ({', '.join(('id',) + tuple(fields))}, ...)",
            sheets.RULE,
        )
        return []
    return _rows(r, table, group, fields, item_keys)


def _inside(r: Reader, root: Path, name: str, path: Path_) -> Path | None:
    """The sheet file beside the component file; symlinks followed, it must lie inside the pack."""
    # component files lie in the pack's folder, so this is beside them
    return r.pack_file(path, root, name, "items file")


def _rows(
    r: Reader,
    table: sheets.Sheet,
    group: str,
    fields: dict[str, FieldSpec],
    item_keys: tuple[str, ...],
) -> list[Raw]:
    doc = Document(table.file)
    _graft(r.doc, (group,), doc, (group,))
    doc.values[(group, "items")] = r.doc.at((group, "items"))
    sr = Reader(doc, r.problems)
    before = len(r.problems)
    columns = _header(r.problems, table, fields, item_keys)
    if (
        len(r.problems) > before
    ):  # every row would repeat a misnamed column's absence: the header first
        return []
    lists = [
        n for n in columns if n and (n == "tags" or (n in fields and fields[n].type == "list"))
    ]
    plan = [
        (n.partition(".")[0], n.partition(".")[2], _converter(n, fields)) if n else None
        for n in columns
    ]
    out = []
    for i, cells in enumerate(table.rows[1:]):
        ipath = (group, "items", i)
        first = next(c for c in cells if c is not None)
        doc.values[ipath] = Location(first.where.file, first.where.line, 1, first.where.sheet)
        item: dict[str, Any] = {}
        for c, cell in enumerate(cells):
            if cell is None:
                continue
            name = columns[c] if c < len(columns) else None
            if name is None:
                r.problems.append(
                    Problem(
                        cell.where, "this cell's column has no name in the header row", sheets.RULE
                    )
                )
            elif name:
                column = plan[c]
                assert column is not None  # a named column has a plan
                try:
                    _put(doc.values, item, ipath, column, cell)
                except TooManyDigits as exc:  # as in YAML: Python refuses 4,300 with a traceback
                    r.problems.append(Problem(cell.where, str(exc), "limits"))
        for (
            name
        ) in lists:  # an empty cell of a list column is the empty list, as a sheet cannot write []
            item.setdefault(name, [])
        out.append((sr, _lists_of_text(sr, item, ipath, fields), ipath))
    return out


def _per_language(name: str, nested: tuple[str, ...]) -> str:
    """'name_ar' or 'name-ar' is a text field per language, written name.ar in pnpkit: say so
    (a plain did-you-mean would offer 'name', which drops the language)."""
    for field in sorted(nested, key=len, reverse=True):
        rest = name[len(field) + 1 :]
        if name.startswith(field) and name[len(field) : len(field) + 1] in "_- :" and rest:
            return f" (did you mean '{field}.{rest.replace('_', '-')}'?)"
    return ""


def _header(
    problems: list[Problem],
    table: sheets.Sheet,
    fields: dict[str, FieldSpec],
    item_keys: tuple[str, ...],
) -> list[str | None]:
    """Column names: a known name, "" for a column reported as wrong, None for no name."""
    known = item_keys + tuple(fields)
    nested = ("provenance",) + tuple(
        n
        for n, f in fields.items()
        if f.type == "text" or (f.type == "list" and f.item and f.item.type == "text")
    )
    names: list[str | None] = []
    seen: dict[str, bool] = {}
    for cell in table.rows[0]:
        if cell is None:
            names.append(None)
            continue
        name = cell.value if isinstance(cell.value, str) else str(cell.value)
        head = name.split(".", 1)[0]
        ok = name in known if "." not in name else head in nested
        if not ok:
            hint = _per_language(name, nested) or did_you_mean(name, known)
            hint = hint or did_you_mean(head, nested)
            problems.append(
                Problem(
                    cell.where,
                    f"unknown column '{name}' in '{Path(table.file).name}'{hint}",
                    sheets.RULE,
                )
            )
            names.append("")
        elif name in seen or head in seen or any(s.startswith(name + ".") for s in seen):
            problems.append(
                Problem(
                    cell.where,
                    f"column '{name}' is given twice (or whole and per language)",
                    sheets.RULE,
                )
            )
            names.append("")
        else:
            seen[name] = True
            names.append(name)
    return names


def _converter(name: str, fields: dict[str, FieldSpec]) -> Convert:
    """How one column's cells are typed: by the declared field, as YAML would have typed them."""
    head, _, sub = name.partition(".")
    spec = fields.get(head)
    if spec is not None and (not sub or spec.type == "list"):
        return lambda value: _typed(value, spec)
    if sub or name not in INT_KEYS + ("tags",):
        return _text
    return number if name in INT_KEYS else _split


def _put(
    values: dict[Path_, Location],
    item: dict[str, Any],
    ipath: Path_,
    column: tuple[str, str, Convert],
    cell: sheets.Cell,
) -> None:
    """One cell into the item; its place goes into the sheet's Document (values)."""
    head, sub, convert = column
    value = convert(cell.value)
    if sub:  # title.en: one language of a text
        item.setdefault(head, {})[sub] = value
        values.setdefault(ipath + (head,), cell.where)
        path = ipath + (head, sub)
    else:
        item[head] = value
        path = ipath + (head,)
    values[path] = cell.where
    if isinstance(value, list):  # a list's elements all stand in its cell
        for j in range(len(value)):
            values[path + (j,)] = cell.where


def _lists_of_text(
    r: Reader, item: dict[str, Any], ipath: Path_, fields: dict[str, FieldSpec]
) -> dict[str, Any]:
    """`sections.en: a; b` and `sections.pl: x; y` -> [{en: a, pl: x}, {en: b, pl: y}], as YAML
    writes it."""
    for name, spec in fields.items():
        parts = item.get(name)
        if spec.type != "list" or not isinstance(parts, dict):
            continue
        lengths = {len(v) for v in parts.values()}
        if len(lengths) > 1:
            r.problem(
                ipath + (name,),
                f"'{name}' has lists of different lengths per language "
                f"({', '.join(f'{k}: {len(v)}' for k, v in parts.items())})",
                spec.rule,
            )
            item[name] = []
            continue
        item[name] = [
            {lang: parts[lang][j] for lang in parts} for j in range(lengths.pop() if lengths else 0)
        ]
    return item


def _typed(value: Any, spec: FieldSpec) -> Any:
    """A cell's value as the field's type reads it; a value that does not fit is left for the
    field's check."""
    if spec.type in ("int", "number"):
        return number(value)
    if spec.type == "bool":
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        return value
    if spec.type == "enum":
        options = {_text(v): v for v in spec.values}
        return options.get(_text(value), _text(value))
    if spec.type == "list":
        return [_typed(v, spec.item) if spec.item else v for v in _split(value)]
    return _text(value)  # text, string


class TooManyDigits(ValueError):
    """A cell's integer longer than loader.MAX_DIGITS."""


def number(value: Any) -> Any:
    """'3' -> 3, '2.5' -> 2.5, 3.0 -> 3 (a sheet does not tell 3 from 3.0; YAML's 3 is an int)."""
    if isinstance(value, str) and NUMBER.match(value):
        if not any(ch in value for ch in ".eE") and len(value.lstrip("+-")) > MAX_DIGITS:
            raise TooManyDigits(
                f"a number of {len(value.lstrip('+-'))} digits; numbers have at most {MAX_DIGITS}"
            )
        number = float(value) if any(ch in value for ch in ".eE") else int(value)
        if isinstance(number, float) and not math.isfinite(
            number
        ):  # 1e999: left as text, so it is reported
            return value
        value = number
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _split(value: object) -> list[object]:
    if isinstance(value, str):
        return [part.strip() for part in value.split(";") if part.strip()]
    return [value]


__all__ = ("raw_items",)
