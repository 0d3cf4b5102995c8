"""`pnpkit schema`: JSON Schemas of the pack format, for editors with YAML language support.

Two schemas, since a pack has two kinds of file: game.yaml (the manifest) and
component files (groups of items). Every pack file names its schema on its
first line, which yaml-language-server (VS Code's YAML extension, Neovim,
Helix, Zed, ...) reads to complete keys and flag mistakes while one types:

    # yaml-language-server: $schema=../../schema/pnpkit-game.schema.json

The schemas are generated from the format's declaration (packformat: every key of
game.yaml, print and a group, with its description) and the validator's own tables (ITEM_KEYS,
FIELD_KEYS, FIELD_TYPES, CHECK_KEYS, model.KINDS, BACK_MODES, PROVENANCE, units.PAPERS and SIZES,
the length and size patterns of units, and every built-in rule's options), so a key the
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
from types import MappingProxyType
from typing import Any

from pnpkit import units
from pnpkit.kinds import labels
from pnpkit.kinds.registry import default_registry
from pnpkit.pack import groups, items, packformat, schema
from pnpkit.pack.model import KINDS, PROVENANCE
from pnpkit.pack.paths import LANG_TAG, MAX_LANG, MAX_NAME, NAME

Schema = dict[str, Any]  # a JSON Schema (or a part of one), as json.dumps writes it

DRAFT = "http://json-schema.org/draft-07/schema#"  # the draft editors' YAML servers support best
FILES = MappingProxyType(
    {"game": "pnpkit-game.schema.json", "components": "pnpkit-components.schema.json"}
)
BUILTIN_RULES = default_registry().rules  # the rules every pack can use

LENGTH = MappingProxyType(
    {
        "oneOf": [{"type": "string", "pattern": units._LENGTH.pattern}, {"const": 0}],
        "description": "A length with its unit: mm, cm, in or pt, e.g. 3mm or 0.125in "
        "(0 needs none).",
    }
)
SIZE = MappingProxyType(
    {
        "anyOf": [{"enum": list(units.SIZES)}, {"type": "string", "pattern": units._SIZE.pattern}],
        "description": "Trim size: a name ("
        + ", ".join(units.SIZES)
        + ") or WxH with a unit, e.g. 63x88mm, 2.5x3.5in.",
    }
)
TEXT = MappingProxyType(
    {
        "anyOf": [
            {"type": "string"},
            {"type": "object", "additionalProperties": {"type": "string"}, "minProperties": 1},
        ],
        "description": "Text: one string for every language, or {lang: "
        "text} covering each language of the pack.",
    }
)
FONT_FACE = MappingProxyType(
    {
        "oneOf": [
            {"type": "string"},
            {
                "type": "object",
                "additionalProperties": False,
                "required": ["file"],
                "properties": {
                    "file": {"type": "string"},
                    "instance": {
                        "oneOf": [
                            {"type": "string"},
                            {"type": "object", "additionalProperties": {"type": "number"}},
                        ]
                    },
                },
            },
        ],
        "description": "A font file in the pack (.ttf, .otf, .woff, .woff2), or {file, instance}: "
        "a variable font at a named instance (Bold) or at axis values ({wght: 700}).",
    }
)
FACE_REF = MappingProxyType({"$ref": "#/definitions/font_face"})
TEMPLATE = MappingProxyType(
    {
        "type": "string",
        "description": "A Jinja2 SVG template, relative to templates/ (the pack's own "
        "first), e.g. game/card-front.svg.j2; or a Python function of "
        "the pack, e.g. board.py:draw (runs only for a trusted pack).",
    }
)
PROVENANCE_TAG = MappingProxyType(
    {
        "enum": list(PROVENANCE),
        "description": "Where a value comes from: seed, public, inferred or design.",
    }
)

# The keys' types as JSON Schema; what each key means is packformat's (GAME, PRINT, GROUP), added by
# _described.
GAME = MappingProxyType(
    {
        "id": {"type": "string", "pattern": f"^{NAME.pattern}$", "maxLength": MAX_NAME},
        "name": TEXT,
        "version": {"type": ["string", "number"]},
        "languages": {
            "type": "array",
            "items": {"type": "string", "pattern": f"^{LANG_TAG.pattern}$", "maxLength": MAX_LANG},
            "minItems": 1,
            "uniqueItems": True,
        },
        "players": {
            "type": "object",
            "required": ["min", "max"],
            "additionalProperties": False,
            "properties": {
                "min": {"type": "integer", "minimum": 1},
                "max": {"type": "integer", "minimum": 1},
                "colours": {
                    "type": "object",
                    "required": ["data"],
                    "additionalProperties": False,
                    "properties": {"data": {"type": "string"}, "field": {"type": "string"}},
                    "description": "Where the player colours are: a key of data whose entries are "
                    "'#rrggbb' or have that colour in `field`; checked for colour-blind players.",
                },
            },
        },
        "print": {"$ref": "#/definitions/print"},
        "strings": {"type": "object", "additionalProperties": TEXT},
        "data": {"type": "object"},
        "checks": {"type": "array", "items": {"$ref": "#/definitions/check"}},
        "rules": {"type": "string"},
        "guide": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "cover": {"type": "string", "pattern": "^[^/]+/[^/]+$"},
                "names": {"type": "object", "additionalProperties": TEXT},
                "supplies": {"type": "array", "items": TEXT},
                "steps": {"type": "array", "items": TEXT},
            },
        },
        "fonts": {
            "type": "object",
            "properties": {
                "fallback": {
                    "oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]
                }
            },
            "additionalProperties": {
                "oneOf": [
                    FACE_REF,
                    {
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["regular"],
                        "properties": {
                            k: FACE_REF for k in ("regular", "bold", "italic", "bold_italic")
                        },
                    },
                ]
            },
        },
    }
)
PRINT_TYPES: Mapping[str, Mapping[str, Any]] = MappingProxyType(
    {
        "choice": {},
        "length": LENGTH,
        "font size": LENGTH,
        "bool": {"type": "boolean"},
        "offset": {
            "type": "object",
            "additionalProperties": False,
            "properties": {"x": LENGTH, "y": LENGTH},
        },
        "names": {"type": "array", "items": {"type": "string"}},
    }
)


def _print_key(key: packformat.Key) -> dict[str, Any]:
    """A print setting as JSON Schema, from its declaration."""
    out: dict[str, Any] = {**PRINT_TYPES[key.type], "description": key.doc}
    if key.choices:
        out["enum"] = list(key.choices)
    if isinstance(key.default, (str, bool)) and key.type != "offset":
        out["default"] = key.default
    return out


PRINT = MappingProxyType({key.name: _print_key(key) for key in packformat.PRINT})
GROUP = MappingProxyType(
    {
        "kind": {"enum": list(KINDS)},
        "size": SIZE,
        "bleed": LENGTH,
        "shape": {"type": "string", "pattern": r"^(rect|circle|hex|rounded\(.+\))$"},
        "labels": {"enum": labels.names()},
        "variant": {"type": "string"},
        "front": TEMPLATE,
        "back": TEMPLATE,
        "fields": {
            "type": "object",
            "additionalProperties": {"$ref": "#/definitions/field"},
            "propertyNames": {"not": {"enum": list(items.ITEM_KEYS)}},
        },
        "items": {
            "anyOf": [
                {"type": "array", "items": {"$ref": "#/definitions/item"}},
                {"type": "string", "pattern": r"\.(csv|tsv|xlsx|ods|CSV|TSV|XLSX|ODS)$"},
                {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["from"],
                    "properties": {"from": {"type": "string"}, "sheet": {"type": "string"}},
                },
            ]
        },
        "defaults": {"type": "object"},
        "generate": {
            "anyOf": [
                {"$ref": "#/definitions/generator"},
                {"type": "array", "items": {"$ref": "#/definitions/generator"}},
            ]
        },
        "items_from": {"type": "string"},
        "standee": {
            "type": "object",
            "additionalProperties": False,
            "required": ["base"],
            "properties": {"base": {**LENGTH, "description": "Depth of each base tab, e.g. 12mm."}},
        },
        "tuckbox": {
            "anyOf": [
                {"type": "boolean"},
                {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {"thickness": LENGTH, "clearance": LENGTH},
                },
            ]
        },
        "fit": {"enum": ["exact", "shrink"], "default": "exact"},
        "doc": {"type": "string"},
    }
)


def _described(fragments: Mapping[str, Any], table: tuple[packformat.Key, ...]) -> dict[str, Any]:
    """Each key's JSON Schema with the format's own words (packformat) as its description."""
    docs = {key.name: key.doc for key in table}
    return {k: {**v, "description": docs[k]} if k in docs else v for k, v in fragments.items()}


ITEM = MappingProxyType(
    {
        "id": {
            "type": "string",
            "pattern": f"^{NAME.pattern}$",
            "maxLength": MAX_NAME,
            "description": "Unique across the pack; names the face's SVG file.",
        },
        "count": {"type": "integer", "minimum": 1, "description": "Copies printed (default 1)."},
        "per_player": {
            "type": "integer",
            "description": "Copies per player, printed for players.max.",
        },
        "tags": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Words that rules select items by.",
        },
        "provenance": {
            "anyOf": [PROVENANCE_TAG, {"type": "object", "additionalProperties": PROVENANCE_TAG}],
            "description": "Where the item's numbers come from: one tag, or {field: tag}.",
        },
        "front": {**TEMPLATE, "description": "This item's own front template."},
        "back": {**TEMPLATE, "description": "This item's own back template."},
        "doc": {"type": "string", "description": "A note about the item."},
    }
)
FIELD = MappingProxyType(
    {
        "type": {
            "enum": list(items.FIELD_TYPES),
            "description": "text (localised), string, int, number, bool, enum or list.",
        },
        "required": {
            "type": "boolean",
            "description": "Must every item give it? (default: yes unless there is a default)",
        },
        "default": {
            "description": "The value of items that leave the field out; makes it optional."
        },
        "values": {"type": "array", "description": "The allowed values of an enum."},
        "min": {"type": "number", "description": "Smallest allowed int or number."},
        "max": {"type": "number", "description": "Largest allowed int or number."},
        "item": {"$ref": "#/definitions/field", "description": "The type of a list's elements."},
        "rule": {"type": "string", "description": "The rule id a bad value is reported under."},
        "doc": {"type": "string", "description": "What the field means."},
    }
)
CHECK = MappingProxyType(
    {
        "rule": {
            "anyOf": [{"enum": sorted(BUILTIN_RULES)}, {"type": "string"}],
            "description": "A built-in rule or one of the pack's rules.py.",
        },
        "id": {
            "type": "string",
            "description": "The game's own id for it, shown in messages, e.g. SAM-C01.",
        },
        "level": {"enum": ["error", "warning"], "description": "error (default) or warning."},
        "why": {"type": "string", "description": "The rule in words, for people reading the pack."},
    }
)
QUANTITY = MappingProxyType(
    {
        "anyOf": [
            {"type": "number"},
            {
                "type": "object",
                "additionalProperties": False,
                "minProperties": 1,
                "maxProperties": 1,
                "properties": {
                    "count": {"type": "string"},
                    "sum": {
                        "type": "array",
                        "items": {"type": "string"},
                        "minItems": 2,
                        "maxItems": 2,
                    },
                    "max": {
                        "type": "array",
                        "items": {"type": "string"},
                        "minItems": 2,
                        "maxItems": 2,
                    },
                    "data": {"type": "string"},
                },
            },
        ]
    }
)
OPTION_KINDS = MappingProxyType(
    {
        "group": {"type": "string"},
        "string": {"type": "string"},
        "int": {"type": "integer"},
        "number": {"type": "number"},
        "bool": {"type": "boolean"},
        "list": {"type": "array"},
        "mapping": {"type": "object"},
        "quantity": QUANTITY,
        "any": {},
        "kind": {"enum": list(KINDS)},
        "int or mapping": {
            "anyOf": [
                {"type": "integer"},
                {"type": "object", "additionalProperties": {"type": "integer"}},
            ]
        },
        "field": {"type": "string", "description": "A field some group declares."},
        "int or field": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
        "where": {
            "type": "object",
            "minProperties": 1,
            "description": "Only items whose field has this value, or one of these values.",
            "additionalProperties": {
                "anyOf": [
                    {"type": ["string", "number", "boolean"]},
                    {"type": "array", "items": {"type": ["string", "number", "boolean"]}},
                ]
            },
        },
        "list or data key": {
            "anyOf": [
                {"type": "array"},
                {
                    "type": "object",
                    "required": ["data"],
                    "additionalProperties": False,
                    "properties": {"data": {"type": "string"}},
                },
            ]
        },
    }
)


def _object(table: Mapping[str, object], keys: Iterable[str], what: str) -> Schema:
    """A closed mapping of the validator's keys, each with its description here."""
    missing = [k for k in keys if k not in table]
    if missing:
        raise KeyError(
            f"json_schema.py describes no {what} key {', '.join(missing)}: add it to the table"
        )
    return {
        "type": "object",
        "additionalProperties": False,
        "properties": {k: table[k] for k in keys},
    }


def _check() -> Schema:
    """A check: its common keys, and for each built-in rule exactly that rule's options."""
    common = _object(CHECK, schema.CHECK_KEYS, "check")
    by_rule = []
    for name, r in sorted(BUILTIN_RULES.items()):
        props = dict(common["properties"])
        props.update({k: OPTION_KINDS[kind] for k, kind in r.options.items()})
        by_rule.append(
            {
                "if": {"properties": {"rule": {"const": name}}, "required": ["rule"]},
                "then": {
                    "properties": props,
                    "additionalProperties": False,
                    **({"required": list(r.required)} if r.required else {}),
                },
            }
        )
    return {
        "type": "object",
        "required": ["rule"],
        "properties": common["properties"],
        "allOf": by_rule,
    }


def _definitions() -> Schema:
    item = _object(ITEM, items.ITEM_KEYS, "item")
    item.update(
        additionalProperties=True,
        required=["id"],
        **{"not": {"required": ["count", "per_player"]}},
        description="An item: id, count, ... and a value for each of the group's fields.",
    )
    field = _object(FIELD, items.FIELD_KEYS, "field")
    field.update(required=["type"])
    return {
        "print": _object(PRINT, schema.PRINT_KEYS, "print"),
        "check": _check(),
        "group": _group(),
        "item": item,
        "generator": _generator(),
        "field": {"anyOf": [{"enum": list(items.FIELD_TYPES)}, field]},
        "font_face": FONT_FACE,
    }


def _group() -> Schema:
    """A group: kind, size and front, and its items either inline (items, generate) or from a
    sheet (items_from), never both."""
    group = _object(_described(GROUP, packformat.GROUP), groups.GROUP_KEYS, "group")
    group.update(
        required=["kind", "size", "front"],
        **{
            "if": {"required": ["items_from"]},
            "then": {
                "not": {
                    "anyOf": [
                        {"required": ["items"]},
                        {"required": ["fields"]},
                        {"required": ["generate"]},
                        {"required": ["defaults"]},
                    ]
                }
            },
            "else": {"anyOf": [{"required": ["items"]}, {"required": ["generate"]}]},
        },
    )
    return group


def _generator() -> Schema:
    """A `generate:` entry: a product of value lists."""
    return {
        "type": "object",
        "required": ["product", "id"],
        "properties": {
            "product": {
                "type": "object",
                "minProperties": 1,
                "additionalProperties": {
                    "anyOf": [
                        {"type": "array", "minItems": 1},
                        {
                            "type": "object",
                            "required": ["data"],
                            "additionalProperties": False,
                            "properties": {"data": {"type": "string"}},
                        },
                    ]
                },
                "description": "Field (or item key) -> its values; one item for "
                "every combination, the first key varying slowest.",
            },
            "id": {
                "type": "string",
                "description": "The id of each generated item, e.g. '{suit}-{rank}'.",
            },
        },
        "description": "A product of value lists; any other key (a field, count, "
        "tags, provenance) is given to every generated item.",
    }


def schemas() -> dict[str, Schema]:
    """{'game': schema of game.yaml, 'components': schema of a component file}."""
    definitions = _definitions()
    game = _object(_described(GAME, packformat.GAME), schema.GAME_KEYS, "game.yaml")
    game.update(required=["name", "languages", "players"])
    components = {
        "type": "object",
        "additionalProperties": {"$ref": "#/definitions/group"},
        "propertyNames": {"pattern": f"^{NAME.pattern}$", "maxLength": MAX_NAME},
        "description": "A component file: each top-level key names a group of items.",
    }
    made = {
        "game": {"$schema": DRAFT, "title": "pnpkit game.yaml", **game, "definitions": definitions},
        "components": {
            "$schema": DRAFT,
            "title": "pnpkit component file",
            **components,
            "definitions": definitions,
        },
    }
    # plain JSON data: the read-only tables above (MappingProxyType) made the dicts they are
    return json.loads(json.dumps(made, default=dict))  # type: ignore[no-any-return]


def texts() -> dict[str, str]:
    """The schema files' names and contents, exactly as `pnpkit schema` writes them."""
    return {
        FILES[k]: json.dumps(v, indent=2, ensure_ascii=False) + "\n" for k, v in schemas().items()
    }


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
    s = sub.add_parser(
        "schema",
        help="write the JSON Schemas of the pack format (for editors)",
        description="Write pnpkit-game.schema.json (for "
        "game.yaml) and pnpkit-components.schema.json "
        "(for component files) into DIR. A pack file names its schema on its first line, "
        "# yaml-language-server: $schema=../../schema/pnpkit-game.schema.json, and editors "
        "with YAML language support then complete keys and flag mistakes as you type.",
    )
    s.add_argument(
        "dir",
        nargs="?",
        type=Path,
        default=Path("schema"),
        metavar="DIR",
        help="output folder (default: schema)",
    )
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
