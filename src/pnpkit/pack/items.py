"""A group's items and fields: each item's id, count and values checked against the group's
fields, kept from one read to the next while its YAML is unchanged (watch), ids unique."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from itertools import chain
from typing import TYPE_CHECKING, Any

from pnpkit import memo, workspace
from pnpkit.errors import Location, Problem
from pnpkit.pack import itemsource
from pnpkit.pack.checker import Reader, close_match, path_name
from pnpkit.pack.model import (
    PROVENANCE,
    SIDES,
    FieldSpec,
    Group,
    Item,
)
from pnpkit.pack.yamldoc import Document, Path_
from pnpkit.units import describe

if TYPE_CHECKING:
    from pnpkit.pack.schema import _Game

ITEM_KEYS = ("id", "count", "per_player", "tags", "provenance", "front", "back", "doc")
FIELD_KEYS = ("type", "required", "default", "values", "min", "max", "item", "rule", "doc")
FIELD_TYPES = ("text", "string", "int", "number", "bool", "enum", "list")
RESERVED_ID = "pnpkit-cache"  # build.CACHE_DIR, under OUT beside the kits


def _template(r: Reader, spec: dict[str, Any], path: Path_, side: str) -> str | None:
    if side not in spec:
        return None
    name: str | None = r.typed(spec[side], path + (side,), "string")
    return name


def _read_fields(r: Reader, value: object, path: Path_) -> dict[str, FieldSpec] | None:
    spec = r.table(value, path, "fields")
    if spec is None:
        return None
    clash = [k for k in spec if k in ITEM_KEYS]
    for k in clash:
        r.problem(path + (k,), f"'{k}' is a reserved item key and cannot be a field name", key=True)
    return {
        k: f for k, v in spec.items() if k not in clash and (f := _read_field(r, k, v, path + (k,)))
    }


def _read_field(r: Reader, name: str, value: object, path: Path_) -> FieldSpec | None:
    if isinstance(value, str):  # shorthand: `cost: int`
        value = {"type": value}
    spec = r.mapping(value, path, FIELD_KEYS, f"field '{name}'")
    if spec is None:
        return None
    ftype = r.choice(r.get(spec, path, "type"), path + ("type",), FIELD_TYPES)
    values = spec.get("values", [])
    if not isinstance(values, list):
        r.problem(path + ("values",), f"'values' must be a list (got {describe(values)})")
        values = []
    if ftype == "enum" and not values:
        r.problem(path, f"enum field '{name}' needs 'values'")
    bounds = {k: r.typed(spec[k], path + (k,), "number") for k in ("min", "max") if k in spec}
    required = r.typed(spec.get("required", "default" not in spec), path + ("required",), "bool")
    item = (
        _read_field(r, name, spec["item"], path + ("item",))
        if ftype == "list" and "item" in spec
        else None
    )
    if ftype == "list" and item is None and "item" not in spec:
        r.problem(path, f"list field '{name}' needs 'item' (the type of its elements)")
    if ftype is None:
        return None
    return FieldSpec(
        name=name,
        type=ftype,
        required=bool(required),
        default=spec.get("default"),
        values=tuple(values),
        min=bounds.get("min"),
        max=bounds.get("max"),
        item=item,
        rule=str(spec.get("rule", "schema")),
        doc=str(spec.get("doc", "")),
    )


def _read_items(
    r: Reader,
    game: _Game,
    group: str,
    spec: dict[str, Any],
    fields: dict[str, FieldSpec] | None,
    templates: dict[str, str],
) -> list[Item]:
    """Written, sheet and generated items alike (itemsource.py), each checked by _read_item."""
    raw = itemsource.raw_items(r, game.root, group, spec, fields or {}, ITEM_KEYS, game.game_data)
    # A misspelt 'fields:' key (reported once, with its 'did you mean') leaves the items' values
    # undeclared: they are not each reported unknown too.
    unsure = (group, "fields") in r.misspelt
    typos = _misspelt_fields(r, raw, fields or {}, (group, "fields"))
    keeping = memo.handing_on()  # a one-shot build has no next load to hand the items to
    context = ""
    if keeping:
        # repr, not ==: 1, 1.0 and True are equal but read differently (a default is taken as
        # is) and the places of the group's templates, which items that name none of their own
        # share
        shared = {side: r.doc.at((group, side)) for side in templates}
        context = repr(
            (group, fields, templates, shared, unsure, typos, game.languages, game.players)
        )
    items = []
    for rr, v, p in raw:
        item = _kept_item(rr, v, p, context) if keeping else None
        if item is None:
            found = len(rr.problems)
            item = _read_item(rr, game, group, v, p, fields or {}, templates, unsure, typos)
            if keeping and item is not None and len(rr.problems) == found:  # for the next load
                _keep_item(rr, v, p, context, item)
        if item is not None:
            items.append(item)
    return items


class _Kept:
    """An item read without a problem in an earlier load of this process, the raw mapping it was
    read from (held, so its identity stays its own) and what else the reading depended on. (Not
    a dataclass: see cache._FaceKey.)"""

    __slots__ = ("value", "context", "item")

    def __init__(self, value: object, context: str, item: Item) -> None:
        self.value, self.context, self.item = value, context, item


# Items read before (watch: the loader hands back the very mapping of an item whose lines did
# not change), by file and data path. Reading is a function of the raw mapping, the group's
# context and the places looked up; the places are looked up again at every load.
_ITEMS = workspace.Memo[tuple[str, Path_], _Kept]("schema.items")
ITEMS_KEPT = 100_000  # items; more, and it starts afresh


def _kept_item(r: Reader, value: object, path: Path_, context: str) -> Item | None:
    """The item read from this very mapping before, at this path and in this context, with its
    places as the document now has them; None when there is none."""
    kept = _ITEMS.get((r.doc.file, path))
    if kept is None or kept.value is not value or kept.context != context:
        return None
    item = kept.item
    # The loader gives a place a new object whenever it may have moved, and every place of an
    # item moves with its first (its lines are reparsed, or shifted, together): the same object
    # means the same places. The group's templates, outside the item, are in the context.
    if r.doc.values.get(path) is item.where and len(path) == 3:
        return item
    places = _places(r.doc, path, value, item)
    if places == (item.where, item.field_where, item.template_where, item.provenance_where):
        return item
    return dataclasses.replace(
        item,
        where=places[0],
        field_where=places[1],
        template_where=places[2],
        provenance_where=places[3],
    )


def _places(
    doc: Document, path: Path_, value: object, item: Item
) -> tuple[Location, dict[str, Location], dict[str, Location], dict[str, Location]]:
    """The places _read_item gives an item read from `value` at `path`, looked up in doc."""
    at, spec = doc.at, value if isinstance(value, dict) else {}
    group_path = path[:-2]
    return (
        at(path),
        {name: at(path + (name,)) for name in item.field_where},
        {s: at(path + (s,) if s in spec else group_path + (s,)) for s in item.template_where},
        {k: at(path + ("provenance",) + (() if k == "*" else (k,))) for k in item.provenance_where},
    )


def _keep_item(r: Reader, value: object, path: Path_, context: str, item: Item) -> None:
    memo.remember(_ITEMS, (r.doc.file, path), _Kept(value, context, item), ITEMS_KEPT)


def _misspelt_fields(
    r: Reader, raw: list[Any], fields: dict[str, FieldSpec], path: Path_
) -> dict[str, str]:
    """A declared field that no item gives while items give a key like it is misspelt where it is
    declared: said once there, instead of at every item. {declared name: the items' key}."""
    # counted in C, in the order first met (a thousand items' keys, at every watch rebuild)
    given = Counter(chain.from_iterable(value for _, value, _ in raw if isinstance(value, dict)))
    typos: dict[str, str] = {}
    for name in fields:
        strangers = [k for k in given if k not in fields and k not in ITEM_KEYS]
        meant = close_match(name, strangers) if name not in given else None
        if meant is not None:
            items = f"{given[meant]} items give" if given[meant] > 1 else "1 item gives"
            r.problem(
                path + (name,),
                f"no item gives the field '{name}', but {items} "
                f"'{meant}' (is the field misspelt here?)",
                key=True,
            )
            typos[name] = meant
    return typos


def _read_item(
    r: Reader,
    game: _Game,
    group: str,
    value: object,
    path: Path_,
    fields: dict[str, FieldSpec],
    templates: dict[str, str],
    unsure: bool = False,
    typos: dict[str, str] | None = None,
) -> Item | None:
    """One item; with `unsure` (the group's fields are misspelt) any key is taken, and the
    fields in `typos` (misspelt at their declaration) are neither required nor unknown."""
    typos = typos or {}
    allowed = (
        tuple(value)
        if unsure and isinstance(value, dict)
        else ITEM_KEYS + tuple(fields) + tuple(typos.values())
    )
    spec = r.mapping(value, path, allowed, f"an item of '{group}'")
    if spec is None:
        return None
    item_id = r.ident(r.get(spec, path, "id"), path + ("id",), "id")
    count = _count(r, spec, path, game.players)
    values, where = _item_values(r, game, spec, path, fields, typos, item_id)
    tags = spec.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        r.problem(path + ("tags",), f"'tags' must be a list of words (got {describe(tags)})")
        tags = []
    sides = dict(templates)
    sides.update({s: t for s in SIDES if (t := _template(r, spec, path, s)) is not None})
    group_path = path[:-2]
    sides_where = {s: r.doc.at(path + (s,) if s in spec else group_path + (s,)) for s in sides}
    prov = _provenance(r, spec.get("provenance"), path + ("provenance",), fields)
    if item_id is None or count is None:
        return None
    prov_where = {k: r.doc.at(path + ("provenance",) + (() if k == "*" else (k,))) for k in prov}
    return Item(
        item_id,
        group,
        count,
        values,
        tuple(tags),
        prov,
        sides,
        r.doc.at(path),
        where,
        sides_where,
        prov_where,
    )


def _item_values(
    r: Reader,
    game: _Game,
    spec: dict[str, Any],
    path: Path_,
    fields: dict[str, FieldSpec],
    typos: dict[str, str],
    item_id: str | None,
) -> tuple[dict[str, Any], dict[str, Location]]:
    """An item's value of each field (given, or the field's default) and where each stands."""
    values: dict[str, Any] = {}
    where: dict[str, Location] = {}
    for name, fspec in fields.items():
        where[name] = r.doc.at(path + (name,))
        if name in spec:
            values[name] = _field_value(
                r, spec[name], path + (name,), fspec, game.languages or ("en",)
            )
        elif fspec.required and name not in typos:
            r.problem(path, f"item '{item_id}' needs the field '{name}'", fspec.rule)
        else:
            values[name] = fspec.default
    return values, where


def _count(r: Reader, spec: dict[str, Any], path: Path_, players: tuple[int, int]) -> int | None:
    """`count: 3`, or `per_player: 5` (printed for the most players)."""
    if "count" in spec and "per_player" in spec:
        r.problem(path + ("per_player",), "give either 'count' or 'per_player', not both", key=True)
        return None
    n: int | None
    if "per_player" in spec:
        n = r.typed(spec["per_player"], path + ("per_player",), "int")
        if n is not None and n < 1:
            r.problem(path + ("per_player",), f"'per_player' must be at least 1 (got {n})")
            return None
        return None if n is None else n * players[1]
    n = r.typed(spec.get("count", 1), path + ("count",), "int")
    if n is not None and n < 1:
        r.problem(path + ("count",), f"'count' must be at least 1 (got {n})")
        return None
    return n


def _provenance(
    r: Reader, value: object, path: Path_, fields: dict[str, FieldSpec]
) -> dict[str, str]:
    """`provenance: design` for the whole item, or {field: tag} per number."""
    if value is None:
        return {}
    if isinstance(value, str):
        return {"*": value} if r.choice(value, path, PROVENANCE) else {}
    spec = r.mapping(value, path, ("count",) + tuple(fields), "provenance") or {}
    return {k: v for k, v in spec.items() if r.choice(v, path + (k,), PROVENANCE)}


def value_problems(
    doc: Document,
    path: Path_,
    value: object,
    spec: FieldSpec | None,
    game: tuple[Sequence[str], int],
) -> list[Problem]:
    """What the schema says of `value` as the item key or field `spec` at `path` of doc (a
    field, or `count`/`per_player` when spec is None), given the pack's (languages, most
    players): an editor checks a value with the same code before writing it (edit/writeback.py)."""
    r = Reader(doc, [])
    key = path[-1]
    if spec is not None:
        _field_value(r, value, path, spec, game[0])
    elif key in ("count", "per_player"):
        _count(r, {key: value}, path[:-1], (1, game[1]))
    elif key == "id":
        r.ident(value, path, "id")
    return r.problems


def _field_value(
    r: Reader, value: object, path: Path_, spec: FieldSpec, langs: Sequence[str]
) -> Any:
    if spec.type == "text":
        return r.text(value, path, langs, spec.rule)
    if spec.type == "enum":  # an enum without values is reported once, at its declaration
        return r.choice(value, path, spec.values, spec.rule) if spec.values else value
    if spec.type == "list":
        if not isinstance(value, list):
            r.problem(
                path, f"'{path_name(path)}' must be a list (got {describe(value)})", spec.rule
            )
            return None
        return (
            [_field_value(r, v, path + (i,), spec.item, langs) for i, v in enumerate(value)]
            if spec.item
            else value
        )
    typed = r.typed(value, path, spec.type, spec.rule)
    if typed is not None and spec.type in ("int", "number"):
        if (spec.min is not None and typed < spec.min) or (
            spec.max is not None and typed > spec.max
        ):
            r.problem(
                path,
                f"'{path_name(path)}' must be between {spec.min} and {spec.max} (got {typed})",
                spec.rule,
            )
    return typed


def _unique_ids(groups: dict[str, Group]) -> list[Problem]:
    """Ids are unique; ids, and group names, that differ only in case would share a file on
    Windows and macOS, whose file systems ignore case, so they are reported too."""
    seen: dict[str, Item] = {}
    problems: list[Problem] = []
    for group in groups.values():
        for item in group.items:
            first = seen.get(item.id.casefold())
            if first is None:
                seen[item.id.casefold()] = item
            elif first.id == item.id:
                problems.append(
                    Problem(
                        item.where,
                        f"duplicate id '{item.id}' (first at {first.where})",
                        "unique-ids",
                    )
                )
            else:
                problems.append(
                    Problem(
                        item.where,
                        f"id '{item.id}' differs from '{first.id}' "
                        f"(at {first.where}) only in case: "
                        "they would name the same file on Windows and macOS",
                        "unique-ids",
                    )
                )
    names: dict[str, Group] = {}
    for group in groups.values():
        first_group = names.setdefault(group.name.casefold(), group)
        if first_group is not group:
            problems.append(
                Problem(
                    group.where,
                    f"group '{group.name}' differs from "
                    f"'{first_group.name}' (at {first_group.where}) only in case: "
                    "they would name the same folder on Windows and macOS",
                    "unique-ids",
                )
            )
    return problems
