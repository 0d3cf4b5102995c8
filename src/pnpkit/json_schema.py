"""`pnpkit schema`: JSON Schemas of the pack format, for editors with YAML language support.

Two schemas, since a pack has two kinds of file: game.yaml (the manifest) and
component files (groups of items). Every pack file names its schema on its
first line, which yaml-language-server (VS Code's YAML extension, Neovim,
Helix, Zed, ...) reads to complete keys and flag mistakes while one types:

    # yaml-language-server: $schema=../../schema/pnpkit-game.schema.json

The schemas are generated from the validator's own tables (schema.GAME_KEYS,
PRINT_KEYS, GROUP_KEYS, ITEM_KEYS, FIELD_KEYS, FIELD_TYPES, CHECK_KEYS,
model.KINDS, BACK_MODES, PROVENANCE, units.PAPERS and SIZES, the length and
size patterns of units, and every built-in rule's options), so a key the
validator learns is a key the editor knows, and generation fails loudly
if a key has no description here. The validator stays the authority: what a
JSON Schema cannot say (an item's own fields, languages every text must
cover, ids that must be unique, the game's rules) is checked by
`pnpkit validate` and `pnpkit watch`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pnpkit import build, labels, rules, schema, units  # noqa: F401 (build registers the dice and hex rules)
from pnpkit.model import BACK_MODES, KINDS, ORIENTATIONS, PROVENANCE
from pnpkit.paths import LANG_TAG, MAX_LANG, MAX_NAME, NAME

Schema = dict[str, Any]  # a JSON Schema (or a part of one), as json.dumps writes it

DRAFT = "http://json-schema.org/draft-07/schema#"  # the draft editors' YAML servers support best
FILES = {"game": "pnpkit-game.schema.json", "components": "pnpkit-components.schema.json"}

LENGTH = {"oneOf": [{"type": "string", "pattern": units._LENGTH.pattern}, {"const": 0}],
          "description": "A length with its unit: mm, cm, in or pt, e.g. 3mm or 0.125in (0 needs none)."}
SIZE = {"anyOf": [{"enum": list(units.SIZES)}, {"type": "string", "pattern": units._SIZE.pattern}],
        "description": "Trim size: a name (" + ", ".join(units.SIZES) + ") or WxH with a unit, e.g. 63x88mm, 2.5x3.5in."}
TEXT = {"anyOf": [{"type": "string"}, {"type": "object", "additionalProperties": {"type": "string"}, "minProperties": 1}],
        "description": "Text: one string for every language, or {lang: text} covering each language of the pack."}
TEMPLATE = {"type": "string", "description": "A Jinja2 SVG template, relative to templates/ (the pack's own first), e.g. game/card-front.svg.j2; or a Python function of the pack, e.g. board.py:draw (runs only for a trusted pack)."}
PROVENANCE_TAG = {"enum": list(PROVENANCE), "description": "Where a value comes from: seed, public, inferred or design."}

GAME = {
    "id": {"type": "string", "pattern": f"^{NAME.pattern}$", "maxLength": MAX_NAME,
           "description": "The pack's id (default: the folder name); names build/<id>/."},
    "name": {**TEXT, "description": "The game's title, per language."},
    "version": {"type": ["string", "number"], "description": "The designer's version of the pack, e.g. 0.3; print.stamp prints it on every face."},
    "languages": {"type": "array", "items": {"type": "string", "pattern": f"^{LANG_TAG.pattern}$", "maxLength": MAX_LANG},
                  "minItems": 1, "uniqueItems": True,
                  "description": "Language codes, e.g. [pl, en]; every text needs each one; the first is the default."},
    "players": {"type": "object", "required": ["min", "max"], "additionalProperties": False,
                "properties": {"min": {"type": "integer", "minimum": 1}, "max": {"type": "integer", "minimum": 1}},
                "description": "Player counts; per_player counts print for max."},
    "print": {"$ref": "#/definitions/print"},
    "strings": {"type": "object", "additionalProperties": TEXT, "description": "Labels the templates print (as s.NAME), per language."},
    "data": {"type": "object", "description": "Free-form game data for templates (data.KEY) and rules."},
    "checks": {"type": "array", "items": {"$ref": "#/definitions/check"}, "description": "The game's rules, each under the game's own id."},
    "rules": {"type": "string", "description": "The pack's Python rules file (default: rules.py if there is one)."},
    "fonts": {"type": "object", "description": "The pack's own TrueType fonts by family: a file, or {regular, bold, italic, bold_italic}.",
              "additionalProperties": {"oneOf": [
                  {"type": "string"},
                  {"type": "object", "additionalProperties": False, "required": ["regular"],
                   "properties": {k: {"type": "string"} for k in ("regular", "bold", "italic", "bold_italic")}}]}},
}
PRINT = {
    "paper": {"enum": list(units.PAPERS), "description": "Paper size."},
    "orientation": {"enum": list(ORIENTATIONS), "description": "auto picks the orientation that fits more faces."},
    "margin": {**LENGTH, "description": "Unprintable margin of the paper (default 5mm)."},
    "bleed": {**LENGTH, "description": "Art beyond the trim line on every side of a face (a group may set its own)."},
    "safe": {**LENGTH, "description": "Safe zone inside the trim; templates get it as face.safe."},
    "gap": {**LENGTH, "description": "Space between faces: 0 = shared cut lines; more = gutters."},
    "backs": {"enum": list(BACK_MODES), "description": "Duplex long-edge or short-edge flip, gutter-fold, or no backs."},
    "back_offset": {"type": "object", "additionalProperties": False, "properties": {"x": LENGTH, "y": LENGTH},
                    "description": "Shift of every back page, to correct a printer's duplex misregistration."},
    "min_font_size": {**LENGTH, "description": "text_box() refuses smaller text, e.g. 6pt."},
    "crop_marks": {"type": "boolean", "description": "Crop marks on every trim line."},
    "back_marks": {"type": "boolean", "description": "Crop marks on back pages too (default true); off when a duplex drift would show them on the backs."},
    "overlap": {**LENGTH, "description": "Shared strip of a face split over several sheets."},
    "stamp": {"type": "boolean", "description": "Print the pack's id, version and the build date small on every face, in the band between trim and safe area, to tell printings apart."},
    "variants": {"type": "array", "items": {"type": "string"},
                 "description": "Which variants print (groups marked variant: NAME); default: every group. --variant overrides."},
}
GROUP = {
    "kind": {"enum": list(KINDS), "description": "What the items are: " + ", ".join(KINDS) + "."},
    "size": SIZE,
    "bleed": {**LENGTH, "description": "This group's bleed (default: print.bleed)."},
    "shape": {"type": "string", "pattern": r"^(rect|circle|hex|rounded\(.+\))$",
              "description": "rect, rounded(3mm), circle or hex: the cut guide printed and the bleed's clip."},
    "labels": {"enum": labels.names(), "description": "Print on this label sheet, one face per label, no crop marks."},
    "variant": {"type": "string", "description": "One of several ways to make the same components; print.variants chooses which print."},
    "front": {**TEMPLATE, "description": "Template of the front of each item."},
    "back": {**TEMPLATE, "description": "Template of the back (optional; an item may override it)."},
    "fields": {"type": "object", "additionalProperties": {"$ref": "#/definitions/field"},
               "propertyNames": {"not": {"enum": list(schema.ITEM_KEYS)}},
               "description": "What each item carries: name: type, or name: {type: ..., ...}."},
    "items": {"anyOf": [
        {"type": "array", "items": {"$ref": "#/definitions/item"}},
        {"type": "string", "pattern": r"\.(csv|tsv|xlsx|ods|CSV|TSV|XLSX|ODS)$"},
        {"type": "object", "additionalProperties": False, "required": ["from"],
         "properties": {"from": {"type": "string"}, "sheet": {"type": "string"}}}],
        "description": "The distinct designs of this group: a list, or a sheet beside this file (cards.csv, cards.tsv, "
                       "cards.xlsx, cards.ods; {from: cards.xlsx, sheet: Deck}) whose header row names the columns."},
    "defaults": {"type": "object", "description": "Values every item of the group has unless it gives its own: fields, tags, provenance, count, ..."},
    "generate": {"anyOf": [{"$ref": "#/definitions/generator"}, {"type": "array", "items": {"$ref": "#/definitions/generator"}}],
                 "description": "Items made as the product of value lists, e.g. {product: {suit: [...], rank: [...]}, id: '{suit}-{rank}'}; 'items' then holds only the extras."},
    "items_from": {"type": "string", "description": "Take the items and fields of another group, with this group's kind, size and templates."},
    "standee": {"type": "object", "additionalProperties": False, "required": ["base"],
                "properties": {"base": {**LENGTH, "description": "Depth of each base tab, e.g. 12mm."}},
                "description": "A fold-over standee: base tab, upside-down back panel, fold, upright front panel, base tab. "
                               "Templates get the tab as face.base; exports cut the figure out of the layout."},
    "doc": {"type": "string", "description": "What the group is, for people reading the pack."},
}
ITEM = {
    "id": {"type": "string", "pattern": f"^{NAME.pattern}$", "maxLength": MAX_NAME,
           "description": "Unique across the pack; names the face's SVG file."},
    "count": {"type": "integer", "minimum": 1, "description": "Copies printed (default 1)."},
    "per_player": {"type": "integer", "description": "Copies per player, printed for players.max."},
    "tags": {"type": "array", "items": {"type": "string"}, "description": "Words that rules select items by."},
    "provenance": {"anyOf": [PROVENANCE_TAG, {"type": "object", "additionalProperties": PROVENANCE_TAG}],
                   "description": "Where the item's numbers come from: one tag, or {field: tag}."},
    "front": {**TEMPLATE, "description": "This item's own front template."},
    "back": {**TEMPLATE, "description": "This item's own back template."},
    "doc": {"type": "string", "description": "A note about the item."},
}
FIELD = {
    "type": {"enum": list(schema.FIELD_TYPES), "description": "text (localised), string, int, number, bool, enum or list."},
    "required": {"type": "boolean", "description": "Must every item give it? (default: yes unless there is a default)"},
    "default": {"description": "The value of items that leave the field out; makes it optional."},
    "values": {"type": "array", "description": "The allowed values of an enum."},
    "min": {"type": "number", "description": "Smallest allowed int or number."},
    "max": {"type": "number", "description": "Largest allowed int or number."},
    "item": {"$ref": "#/definitions/field", "description": "The type of a list's elements."},
    "rule": {"type": "string", "description": "The rule id a bad value is reported under."},
    "doc": {"type": "string", "description": "What the field means."},
}
CHECK = {
    "rule": {"anyOf": [{"enum": sorted(rules.BUILTIN)}, {"type": "string"}],
             "description": "A built-in rule or one of the pack's rules.py."},
    "id": {"type": "string", "description": "The game's own id for it, shown in messages, e.g. SAM-C01."},
    "level": {"enum": ["error", "warning"], "description": "error (default) or warning."},
    "why": {"type": "string", "description": "The rule in words, for people reading the pack."},
}
QUANTITY = {"anyOf": [
    {"type": "number"},
    {"type": "object", "additionalProperties": False, "minProperties": 1, "maxProperties": 1,
     "properties": {"count": {"type": "string"}, "sum": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2},
                    "data": {"type": "string"}}},
]}
OPTION_KINDS = {"group": {"type": "string"}, "string": {"type": "string"}, "int": {"type": "integer"},
                "number": {"type": "number"}, "bool": {"type": "boolean"}, "list": {"type": "array"},
                "mapping": {"type": "object"}, "quantity": QUANTITY, "any": {},
                "kind": {"enum": list(KINDS)},
                "int or mapping": {"anyOf": [{"type": "integer"}, {"type": "object", "additionalProperties": {"type": "integer"}}]},
                "list or data key": {"anyOf": [{"type": "array"}, {"type": "object", "required": ["data"], "additionalProperties": False,
                                                                    "properties": {"data": {"type": "string"}}}]}}


def _object(table: Mapping[str, object], keys: Iterable[str], what: str) -> Schema:
    """A closed mapping of the validator's keys, each with its description here."""
    missing = [k for k in keys if k not in table]
    if missing:
        raise KeyError(f"json_schema.py describes no {what} key {', '.join(missing)}: add it to the table")
    return {"type": "object", "additionalProperties": False, "properties": {k: table[k] for k in keys}}


def _check() -> Schema:
    """A check: its common keys, and for each built-in rule exactly that rule's options."""
    common = _object(CHECK, schema.CHECK_KEYS, "check")
    by_rule = []
    for name, r in sorted(rules.BUILTIN.items()):
        props = dict(common["properties"])
        props.update({k: OPTION_KINDS[kind] for k, kind in r.options.items()})
        by_rule.append({"if": {"properties": {"rule": {"const": name}}, "required": ["rule"]},
                        "then": {"properties": props, "additionalProperties": False,
                                 **({"required": list(r.required)} if r.required else {})}})
    return {"type": "object", "required": ["rule"], "properties": common["properties"], "allOf": by_rule}


def _definitions() -> Schema:
    group = _object(GROUP, schema.GROUP_KEYS, "group")
    group.update(required=["kind", "size", "front"], **{
        "if": {"required": ["items_from"]},
        "then": {"not": {"anyOf": [{"required": ["items"]}, {"required": ["fields"]}, {"required": ["generate"]}, {"required": ["defaults"]}]}},
        "else": {"anyOf": [{"required": ["items"]}, {"required": ["generate"]}]}})
    item = _object(ITEM, schema.ITEM_KEYS, "item")
    item.update(additionalProperties=True, required=["id"], **{"not": {"required": ["count", "per_player"]}},
                description="An item: id, count, ... and a value for each of the group's fields.")
    field = _object(FIELD, schema.FIELD_KEYS, "field")
    field.update(required=["type"])
    return {
        "print": _object(PRINT, schema.PRINT_KEYS, "print"),
        "check": _check(),
        "group": group,
        "item": item,
        "generator": {"type": "object", "required": ["product", "id"], "properties": {
            "product": {"type": "object", "minProperties": 1, "additionalProperties": {"anyOf": [
                {"type": "array", "minItems": 1},
                {"type": "object", "required": ["data"], "additionalProperties": False, "properties": {"data": {"type": "string"}}}]},
                "description": "Field (or item key) -> its values; one item for every combination, the first key varying slowest."},
            "id": {"type": "string", "description": "The id of each generated item, e.g. '{suit}-{rank}'."}},
            "description": "A product of value lists; any other key (a field, count, tags, provenance) is given to every generated item."},
        "field": {"anyOf": [{"enum": list(schema.FIELD_TYPES)}, field]},
    }


def schemas() -> dict[str, Schema]:
    """{'game': schema of game.yaml, 'components': schema of a component file}."""
    definitions = _definitions()
    game = _object(GAME, schema.GAME_KEYS, "game.yaml")
    game.update(required=["name", "languages", "players"])
    components = {"type": "object", "additionalProperties": {"$ref": "#/definitions/group"},
                  "propertyNames": {"pattern": f"^{NAME.pattern}$", "maxLength": MAX_NAME},
                  "description": "A component file: each top-level key names a group of items."}
    return {
        "game": {"$schema": DRAFT, "title": "pnpkit game.yaml", **game, "definitions": definitions},
        "components": {"$schema": DRAFT, "title": "pnpkit component file", **components, "definitions": definitions},
    }


def texts() -> dict[str, str]:
    """The schema files' names and contents, exactly as `pnpkit schema` writes them."""
    return {FILES[k]: json.dumps(v, indent=2, ensure_ascii=False) + "\n" for k, v in schemas().items()}


def write(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in texts().items():
        (folder / name).write_text(text, encoding="utf-8")
        paths.append(folder / name)
    return paths


def modeline(path: Path, schema_dir: Path) -> str:
    """The first line a pack file needs to name its schema (relative, as editors resolve it)."""
    kind = "game" if path.name == "game.yaml" else "components"
    target = (schema_dir / FILES[kind]).resolve()
    rel = Path(os.path.relpath(target, path.resolve().parent))
    return f"# yaml-language-server: $schema={rel.as_posix()}"


def configure(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    s = sub.add_parser("schema", help="write the JSON Schemas of the pack format (for editors)",
                       description="Write pnpkit-game.schema.json (for game.yaml) and pnpkit-components.schema.json "
                                   "(for component files) into DIR. A pack file names its schema on its first line, "
                                   "# yaml-language-server: $schema=../../schema/pnpkit-game.schema.json, and editors "
                                   "with YAML language support then complete keys and flag mistakes as you type.")
    s.add_argument("dir", nargs="?", type=Path, default=Path("schema"), metavar="DIR", help="output folder (default: schema)")
    s.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        paths = write(args.dir)
    except OSError as exc:
        print(f"pnpkit: error: {exc}", file=sys.stderr)
        return 2
    for path in paths:
        print(f"wrote {path}", file=sys.stderr)
    return 0
