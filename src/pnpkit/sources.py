"""Where a face comes from: an item's values, each with the place it is written, for the studio.

The studio shows a face and, beside it, what made it; writeback.py changes those values in their
files. Both start here, from the files as they are on disk now (the studio's Pack may be the last
good one while the pack is broken), read by the same code as a build: the loader for YAML and
itemsource.raw_items for written, sheet and generated items.

API for the studio (no web code here):

    info = sources.sources(pack, "cards", "c-07", problems)   # -> ItemSources
    info.fields     # Value per field (a text per language is one Value per language:
                    #   field "title.en"), in the order the group declares them
    info.defaults   # the group's `defaults:` the item inherits, each with its place
    info.count      # Value of `count` (or `per_player`); written=False: the default 1 applies
    info.templates  # Template per side: its name, its file (pack-relative), where it is named
    info.problems   # the problems given that concern this item (by place)

Each Value has `field`, `value` (as written in the source, before templates: YAML's typed
scalar, a sheet's cell as its column reads it), `place` ("cards.yaml:14:9",
"market.xlsx:Market!D5", "deck.csv:7:3", pack-relative; for a value not written, where it would
be written), `editable` and, when not, `why`. `Refused` is raised with a message for the user
(the group or item is gone, the files changed).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pnpkit import itemsource, paths, schema
from pnpkit.checker import Reader
from pnpkit.errors import Location, Problem
from pnpkit.loader import Document, Path_, load_yaml
from pnpkit.model import SIDES, Pack

ODS_REFUSED = "edit this in your spreadsheet (ODS cannot be written back whole)"
COUNT_KEYS = ("count", "per_player")


class Refused(Exception):
    """An edit or a look-up that cannot be done; str() is the message for the user. `problem`
    is the schema's located problem when the schema refused the value."""

    def __init__(self, message: str, problem: Problem | None = None) -> None:
        super().__init__(message)
        self.problem = problem


@dataclass(frozen=True)
class Value:
    field: str  # a field, "title.en" (one language of a text), "count", "per_player", "id"
    value: Any  # as written; None when not written
    place: str  # pack-relative place: written there, or where it would be written
    editable: bool
    why: str = ""  # why it cannot be edited here
    written: bool = True  # False: the item does not write it (a default applies)


@dataclass(frozen=True)
class Template:
    side: str
    name: str  # as the YAML names it
    path: str  # its file, pack-relative ("" when not found)
    place: str  # where the name is written


@dataclass(frozen=True)
class ItemSources:
    group: str
    item: str
    file: str  # the file that holds the item, pack-relative
    kind: str  # "yaml", "csv", "tsv", "xlsx", "ods" or "generated"
    fields: tuple[Value, ...]
    defaults: tuple[Value, ...]
    count: Value
    templates: tuple[Template, ...]
    problems: tuple[Problem, ...]
    source_group: str = ""  # for an items_from group: the group whose items it shows


@dataclass
class Located:
    """One item as its files hold it now."""

    root: Path
    group: str  # the group whose items hold it (an items_from group's source)
    item_id: str
    component: Path  # the YAML file that declares the group
    doc: Document  # that file's data and places
    spec: dict[str, Any]  # the group's mapping
    file: Path  # the file holding the item: component, or its sheet
    kind: str  # "yaml", "csv", "tsv", "xlsx", "ods", "generated"
    path: Path_  # the item's data path; (group, "items", row index) for a sheet's row
    raw: dict[str, Any]  # the item's own values (defaults not merged)
    places: Document  # where its values are: doc, or the sheet's cells
    sheet: str = ""  # a workbook's sheet, as `items:` names it ("" for the first)
    ids: list[str] = field(default_factory=list)  # the ids of the group's items, in order


def locate(pack: Pack, group: str, item_id: str) -> Located:
    """The item `item_id` of `group` as the files on disk hold it now (an items_from group's
    items are its source group's)."""
    if group not in pack.groups:
        raise Refused(f"there is no group '{group}' in the pack")
    root = pack.root
    component = root / Path(pack.groups[group].where.file).name
    doc, problems = load_yaml(component, paths.pack_roots(root))
    data = doc.data
    if problems or not isinstance(data, dict) or not isinstance(data.get(group), dict):
        raise Refused(f"group '{group}' cannot be read from {component.name} now; fix the file")
    spec: dict[str, Any] = data[group]
    if isinstance(spec.get("items_from"), str) and spec["items_from"] in pack.groups:
        return locate(pack, spec["items_from"], item_id)
    own = {k: v for k, v in spec.items() if k != "defaults"}
    reader = Reader(doc, [])
    fields = pack.groups[group].fields
    raws = itemsource.raw_items(reader, root, group, own, fields, schema.ITEM_KEYS, pack.data)
    ids = [str(v.get("id")) for _, v, _ in raws if isinstance(v, dict)]
    for r, value, path in raws:
        if isinstance(value, dict) and str(value.get("id")) == item_id:
            file, kind, sheet = _holder(root, component, spec, path)
            return Located(root, group, item_id, component, doc, spec, file, kind, path,
                           value, r.doc, sheet, ids)  # fmt: skip
    raise Refused(f"there is no item '{item_id}' in group '{group}' now")


def _holder(
    root: Path, component: Path, spec: dict[str, Any], path: Path_
) -> tuple[Path, str, str]:
    """The file holding an item at path, its kind, its workbook sheet."""
    if not isinstance(path[2], int):
        return component, "generated", ""
    items = spec.get("items")
    if isinstance(items, list):
        return component, "yaml", ""
    name, sheet = (
        (items["from"], items.get("sheet") or "") if isinstance(items, dict) else (items, "")
    )
    file = root / str(name)
    return file, file.suffix.lower().lstrip("."), str(sheet)


def relative(root: Path, file: str | Path) -> str:
    """A file's name relative to the pack folder, with '/'."""
    return os.path.relpath(os.path.abspath(file), os.path.abspath(root)).replace(os.sep, "/")


def place(root: Path, where: Location) -> str:
    """A place as the studio shows it: its file relative to the pack."""
    return str(Location(relative(root, where.file), where.line, where.column, where.sheet))


def sources(pack: Pack, group: str, item_id: str, problems: Iterable[Problem] = ()) -> ItemSources:
    """Everything the studio shows beside a face of item_id of group (see the module's doc)."""
    at = locate(pack, group, item_id)
    from pnpkit import yamledit  # (imported here: yamledit imports Refused from this module)

    why = yamledit.why_not_item(at) if at.kind == "yaml" else _why_not_kind(at)
    fields = []
    for name, spec in pack.groups[at.group].fields.items():
        fields += _values(at, name, spec.type == "text", why)
    count_key = "per_player" if "per_player" in at.raw else "count"
    count = _values(at, count_key, False, why)[0]
    defaults = _defaults(at)
    templates = tuple(_templates(pack, group, item_id))
    mine = _concerning(at, problems)
    return ItemSources(
        group,
        item_id,
        relative(at.root, at.file),
        at.kind,
        tuple(fields),
        tuple(defaults),
        count,
        templates,
        tuple(mine),
        at.group if at.group != group else "",
    )


def _why_not_kind(at: Located) -> str:
    if at.kind == "generated":
        where = place(at.root, at.doc.at((at.group, "generate")))
        return f"made by the generator at {where}; edit its product or id pattern in the file"
    if at.kind == "ods":
        return ODS_REFUSED
    return ""


def _values(at: Located, name: str, text: bool, why: str) -> list[Value]:
    """The Values of one field of the item: one per language for a text written per language."""
    path = at.path + (name,)
    written = name in at.raw
    value = at.raw.get(name)
    if text and isinstance(value, dict) and at.kind == "yaml":
        return [
            Value(f"{name}.{lang}", v, place(at.root, at.places.at(path + (lang,))), not why, why)
            for lang, v in value.items()
        ]
    where = at.places.at(path) if written else at.places.at(at.path)
    return [Value(name, value, place(at.root, where), not why, why, written)]


def _defaults(at: Located) -> list[Value]:
    """The group's defaults that the item does not override."""
    given = at.spec.get("defaults")
    if not isinstance(given, dict):
        return []
    out = []
    for key, value in given.items():
        own = key in at.raw or (key in COUNT_KEYS and any(k in at.raw for k in COUNT_KEYS))
        if not own:
            where = place(at.root, at.doc.at((at.group, "defaults", key)))
            out.append(Value(str(key), value, where, True, "", True))
    return out


def _templates(pack: Pack, group: str, item_id: str) -> Iterable[Template]:
    from pnpkit import render

    item = next((i for i in pack.groups[group].items if i.id == item_id), None)
    if item is None:
        return
    dirs = render.template_dirs(pack)
    for side in SIDES:
        name = item.templates.get(side)
        if name is None:
            continue
        found = next((d / name for d in dirs if (d / name).is_file()), None)
        rel = relative(pack.root, found) if found else ""
        yield Template(side, name, rel, place(pack.root, item.template_where[side]))


def _concerning(at: Located, problems: Iterable[Problem]) -> list[Problem]:
    """The problems located in the item: in its file, on the lines (a sheet: the row) its
    values are written on."""
    mine = [w for p, w in at.places.values.items() if p[: len(at.path)] == at.path]
    if not mine:
        return []
    file = os.path.abspath(mine[0].file)
    first, last = min(w.line for w in mine), max(w.line for w in mine)
    return [
        p
        for p in problems
        if os.path.abspath(p.where.file) == file and first <= p.where.line <= last
    ]
