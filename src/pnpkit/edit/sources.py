"""Where a face comes from: an item's values, each with the place it is written, for the studio.

The studio shows a face and, beside it, what made it; writeback.py changes those values in their
files. Both find the item with locate.py: in the files as they are on disk now (the studio's Pack
may be the last good one while the pack is broken), read by the same code as a build.

API for the studio (no web code here):

    info = sources.sources(pack, "cards", "c-07", problems)   # -> ItemSources
    info.fields     # Value per field (a text per language is one Value per language:
                    #   field "title.en"), in the order the group declares them
    info.defaults   # the group's `defaults:` the item inherits, each with its place
    info.count      # Value of `count` (or `per_player`); origin "" when not written (count 1)
    info.templates  # Template per side: its name, its file (pack-relative), where it is named
    info.problems   # the problems given that concern this item (by place)

Each Value has `field`, `value` (as written in the source, before templates: YAML's typed
scalar, a sheet's cell as its column reads it), `place` ("cards.yaml:14:9",
"market.xlsx:Market!D5", "deck.csv:7:3", pack-relative: where the value the face shows is
written), `origin` (item, defaults, declared), `editable` and, when not, `why`. `Refused` is
raised with a message for the user (the group or item is gone, the files changed).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pnpkit.edit import yamledit
from pnpkit.edit.locate import COUNT_KEYS, ODS_REFUSED, Located, locate, place, relative
from pnpkit.edit.locate import Refused as Refused  # re-exported: what the studio catches
from pnpkit.errors import Problem
from pnpkit.faces import templates as template_files
from pnpkit.pack.model import SIDES, Pack
from pnpkit.pack.yamldoc import Path_


@dataclass(frozen=True)
class Value:
    field: str  # a field, "title.en" (one language of a text), "count", "per_player", "id"
    value: Any  # as written (the default's, when the item does not write it)
    place: str  # pack-relative place where that value is written
    editable: bool
    why: str = ""  # why it cannot be edited here
    # where the value comes from: "item" (written on it), "defaults" (the group's `defaults:`),
    # "declared" (the field's declared default), "" (not written: count 1). Editing a value the
    # item does not write adds it to the item.
    origin: str = "item"


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


def sources(pack: Pack, group: str, item_id: str, problems: Iterable[Problem] = ()) -> ItemSources:
    """Everything the studio shows beside a face of item_id of group (see the module's doc)."""
    at = locate(pack, group, item_id)
    refused = yamledit.refusals(at) if at.kind == "yaml" else {}
    why = _why_not_kind(at)
    fields = []
    for name, spec in pack.groups[at.group].fields.items():
        fields += _values(at, name, spec.type == "text", why, refused)
    count_key = "per_player" if "per_player" in at.raw else "count"
    count = _values(at, count_key, False, why, refused)[0]
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


def _values(at: Located, name: str, text: bool, why: str, refused: dict[Path_, str]) -> list[Value]:
    """The Values of one field of the item: one per language for a text written per language.
    A value the item does not write is the group's default, else the field's declared one.
    why: why none of the item's values can be edited; refused: why one cannot, by its path."""
    path = at.path + (name,)
    if name in at.raw:
        value = at.raw[name]
        if text and isinstance(value, dict):
            out = []
            for lang, v in value.items():
                no = why or refused.get((name, lang), "")
                shown = place(at.root, at.places.at(path + (lang,)))
                out.append(Value(f"{name}.{lang}", v, shown, not no, no))
            return out
        no = why or refused.get((name,), "")
        return [Value(name, value, place(at.root, at.places.at(path)), not no, no)]
    defaults = at.spec.get("defaults")
    defaults = defaults if isinstance(defaults, dict) else {}
    keys = COUNT_KEYS if name in COUNT_KEYS else (name,)
    given = next((k for k in keys if k in defaults), None)
    if given is not None:
        where, value, origin = (at.group, "defaults", given), defaults[given], "defaults"
    elif name in COUNT_KEYS:
        where, value, origin = at.path, 1, ""
    else:
        field_spec = at.spec.get("fields", {}).get(name)
        value = field_spec.get("default") if isinstance(field_spec, dict) else None
        where, origin = (at.group, "fields", name), "declared"
    return [Value(name, value, place(at.root, at.doc.at(where)), not why, why, origin)]


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
            out.append(Value(str(key), value, where, True, "", "defaults"))
    return out


def _templates(pack: Pack, group: str, item_id: str) -> Iterable[Template]:
    item = next((i for i in pack.groups[group].items if i.id == item_id), None)
    if item is None:
        return
    dirs = template_files.template_dirs(pack)
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
