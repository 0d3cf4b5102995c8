"""Find an item in its files as they are on disk now, for the studio (sources.py, writeback.py).

The studio's Pack may be the last good one while the pack is broken, so an item is looked up
again at each look or edit, read by the same code as a build: the loader for the YAML file
that declares its group and itemsource.raw_items for written, sheet and generated items. Its
own values come with the places the readers give them (loader.Document).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pnpkit.errors import Location, Problem
from pnpkit.pack import items, itemsource, paths
from pnpkit.pack.checker import Reader
from pnpkit.pack.loader import load_yaml
from pnpkit.pack.model import Pack
from pnpkit.pack.yamldoc import Document, Path_

ODS_REFUSED = "edit this in your spreadsheet (ODS cannot be written back whole)"
COUNT_KEYS = ("count", "per_player")


class Refused(Exception):
    """An edit or a look-up that cannot be done; str() is the message for the user. `problem`
    is the schema's located problem when the schema refused the value."""

    def __init__(self, message: str, problem: Problem | None = None) -> None:
        super().__init__(message)
        self.problem = problem


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
    raws = itemsource.raw_items(reader, root, group, own, fields, items.ITEM_KEYS, pack.data)
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
