"""Structure of a game pack: raw YAML documents -> a checked Pack, or every problem found.

A pack folder holds game.yaml (the manifest) and any number of component
files (*.yaml); each top-level key of a component file names a group of
items that share a kind, a size, templates and declared fields.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import chain
from pathlib import Path
from types import MappingProxyType
from typing import Any

from pnpkit import memo, workspace
from pnpkit.errors import Location, Problem
from pnpkit.kinds import labels
from pnpkit.pack import guidespec, itemsource, packfonts, packformat, paths
from pnpkit.pack.checker import Reader, close_match, did_you_mean, path_name
from pnpkit.pack.loader import MAX_VALUES, Document, Path_, display_path, load_yaml
from pnpkit.pack.model import (
    KINDS,
    PROVENANCE,
    SIDES,
    Check,
    FieldSpec,
    Group,
    GuideSpec,
    Item,
    Pack,
    PrintSettings,
    Shape,
)
from pnpkit.typeset import fonts
from pnpkit.units import PT_PER_MM, describe

GAME_KEYS = packformat.names(packformat.GAME)
PRINT_KEYS = packformat.names(packformat.PRINT)
GROUP_KEYS = packformat.names(packformat.GROUP)
STANDEE_KEYS = ("base",)
ITEM_KEYS = ("id", "count", "per_player", "tags", "provenance", "front", "back", "doc")
FIELD_KEYS = ("type", "required", "default", "values", "min", "max", "item", "rule", "doc")
FIELD_TYPES = ("text", "string", "int", "number", "bool", "enum", "list")
CHECK_KEYS = ("rule", "id", "level", "why")
RESERVED_ID = "pnpkit-cache"  # build.CACHE_DIR, under OUT beside the kits


MAX_FILES = 1000  # YAML files in a pack (our kits have at most 5): each costs a read and a parse


def load_pack(root: Path) -> tuple[Pack | None, list[Problem]]:
    """Read and check the structure of the pack in root."""
    manifest = root / "game.yaml"
    if not manifest.is_file():
        return None, [
            Problem(
                Location(display_path(root), 0, 0), "not a game pack: there is no game.yaml here"
            )
        ]
    problems: list[Problem] = []
    docs = []
    budget = MAX_VALUES  # the pack's files share it, so many files cannot take longer than one
    files = [manifest] + sorted(p for p in root.glob("*.yaml") if p.name != "game.yaml")
    if len(files) > MAX_FILES:
        return None, [
            Problem(
                Location(display_path(root), 0, 0),
                f"the pack has {len(files)} YAML files; a pack may have at most {MAX_FILES}",
                "limits",
            )
        ]
    for path in files:
        doc, found = load_yaml(path, paths.pack_roots(root), max(budget, 0))
        budget -= len(doc.values) + len(doc.keys)
        problems += found
        if not any(
            (p.rule == "yaml" and "syntax" in p.message) or p.rule in ("limits", "paths")
            for p in found
        ):
            docs.append(doc)
    if not docs or docs[0].file != display_path(manifest):
        return None, problems
    game = _Game(Reader(docs[0], problems), root)
    if game.languages is None:
        return None, problems
    groups: dict[str, Group] = {}
    for doc in docs[1:]:
        for group in _read_groups(Reader(doc, problems), game):
            if group.name in groups:
                problems.append(
                    Problem(
                        group.where,
                        f"group '{group.name}' is defined twice "
                        f"(first at {groups[group.name].where})",
                    )
                )
            else:
                groups[group.name] = group
    problems += _unique_ids(groups)
    groups = _items_from(groups, game.derived, problems)
    problems += _unknown_variants(game, groups)
    if not any(p.is_error for p in problems):  # a group that failed to load is not missing
        guidespec.check_guide(game.r, game.guide, groups)
    if any(p.is_error for p in problems):
        return None, problems
    return game.pack(groups), problems


def _unknown_variants(game: _Game, groups: dict[str, Group]) -> list[Problem]:
    """print.variants may only name variants that groups declare."""
    known = sorted({g.variant for g in groups.values() if g.variant})
    out = []
    for i, name in enumerate(game.print.variants or ()):
        if name not in known:
            where = game.r.doc.at(("print", "variants", i))
            listed = ", ".join(known) or "none: no group has a 'variant'"
            out.append(
                Problem(
                    where,
                    f"no group is the variant '{name}' (the variants "
                    f"are {listed}){did_you_mean(name, known)}",
                )
            )
    return out


# an items_from group: (its source group, where items_from is, where its templates are named)
Derived = tuple[str, Location, dict[str, Location]]


class _Game:
    """The manifest, read field by field."""

    def __init__(self, r: Reader, root: Path) -> None:
        self.r, self.root = r, root
        # group name -> (source group, where items_from is, where its templates are)
        self.derived: dict[str, Derived] = {}
        data = r.mapping(r.doc.data, (), GAME_KEYS, "game.yaml")
        self.data = data or {}
        self.languages: tuple[str, ...] | None = None
        if data is None:  # nothing else can be read; one problem says so
            return
        self.languages = self._languages(r.get(data, (), "languages"))
        langs = self.languages or ("en",)
        self.id = self._pack_id(data.get("id", root.resolve().name))
        name = r.get(data, (), "name")
        self.name = None if name is None else r.text(name, ("name",), langs)
        self._check_name_glyphs()
        self.player_colours: tuple[str, str | None] | None = None
        self.players = self._players(r.get(data, (), "players"))
        self.print = self._print(data.get("print", {}))
        self.strings = self._strings(data.get("strings", {}), langs)
        self.game_data = self.r.table(data.get("data") or {}, ("data",), "data") or {}
        self.checks = self._checks(data.get("checks", []))
        self.rules_file = self._rules_file(data.get("rules"))
        version = data.get("version", "")
        self.version = (
            str(version)
            if isinstance(version, (int, float)) and not isinstance(version, bool)
            else r.typed(version, ("version",), "string") or ""
        )
        self.fonts = packfonts.read(r, data["fonts"], root) if "fonts" in data else {}
        self.guide = (
            guidespec.read_guide(r, data["guide"], langs) if "guide" in data else GuideSpec()
        )

    def _check_name_glyphs(self) -> None:
        """The name is printed on every page (bold on the print check), so every letter needs a
        glyph."""
        for lang, text in (self.name or {}).items():
            for style in (fonts.default_face(), fonts.default_face(bold=True)):
                missing = fonts.missing_glyphs(style, text)
                if missing:
                    chars = ", ".join(f"'{c}' (U+{ord(c):04X})" for c in missing)
                    self.r.problem(
                        ("name", lang) if isinstance(self.data.get("name"), dict) else ("name",),
                        f"no glyph for {chars} in {fonts.DEFAULT_FAMILY}: "
                        "the pack's name is printed on every page",
                        "glyphs",
                    )
                    break

    def _pack_id(self, value: object) -> str:
        """The pack id names OUT/<id>/, beside the cache folder it must not take."""
        pack_id = self.r.ident(value, ("id",), "pack id")
        if pack_id == RESERVED_ID:
            self.r.problem(
                ("id",),
                f"pack id '{pack_id}' is reserved: pnpkit keeps its cache in OUT/{RESERVED_ID}/",
            )
        return pack_id or "pack"

    def _languages(self, value: object) -> tuple[str, ...] | None:
        """Language codes name files (<id>-<lang>.pdf, svg/<lang>/), so each must be a plain tag."""
        if value is None:  # reported as missing already
            return None
        if (
            not isinstance(value, list)
            or not value
            or not all(isinstance(v, str) and v for v in value)
        ):
            self.r.problem(
                ("languages",),
                "'languages' must be a list of language codes "
                f"such as [pl, en] (got {describe(value)})",
            )
            return None
        good: list[str] = []
        for i, lang in enumerate(value):
            problem = paths.lang_problem(lang)
            twin = next(
                (g for g in good if g.casefold() == lang.casefold()), None
            )  # tags ignore case
            if problem is None and twin is not None:
                problem = f"language '{lang}' is listed twice" + (
                    f" (as '{twin}')" if twin != lang else ""
                )
            if (
                problem
            ):  # reported here, and left out so texts are checked against the good ones only
                self.r.problem(("languages", i), problem)
            else:
                good.append(lang)
        return tuple(good) or None

    def _players(self, value: object) -> tuple[int, int]:
        if value is None:  # reported as missing already
            return (1, 1)
        spec = self.r.mapping(value, ("players",), ("min", "max", "colours"))
        if spec is None:
            return (1, 1)
        self.player_colours = self._player_colours(spec.get("colours"))
        lo = self.r.typed(self.r.get(spec, ("players",), "min"), ("players", "min"), "int")
        hi = self.r.typed(self.r.get(spec, ("players",), "max"), ("players", "max"), "int")
        if lo is not None and hi is not None and not 1 <= lo <= hi:
            self.r.problem(("players",), f"players must satisfy 1 <= min <= max (got {lo}..{hi})")
        return (lo or 1, hi or 1)

    def _player_colours(self, value: object) -> tuple[str, str | None] | None:
        """`players.colours: {data: KEY, field: NAME}`: which game data holds the player colours
        (each entry "#rrggbb", or a mapping whose NAME field is), for the colour-vision check."""
        if value is None:
            return None
        path = ("players", "colours")
        spec = self.r.mapping(value, path, ("data", "field"))
        if spec is None:
            return None
        key = self.r.typed(self.r.get(spec, path, "data"), path + ("data",), "string")
        name = spec.get("field")
        if name is not None:
            name = self.r.typed(name, path + ("field",), "string")
        return None if key is None else (key, name)

    def _print(self, value: object) -> PrintSettings:
        """The `print:` settings, each read as packformat.PRINT declares it."""
        spec = self.r.mapping(value, ("print",), PRINT_KEYS, "print") or {}
        out: dict[str, Any] = {
            key.field: _print_value(self.r, key, spec[key.name])
            for key in packformat.PRINT
            if key.name in spec
        }
        _against_paper(self.r, spec, out)
        return PrintSettings(**{k: v for k, v in out.items() if v is not None})

    def _strings(self, value: object, langs: Sequence[str]) -> dict[str, dict[str, str]]:
        spec = self.r.table(value, ("strings",)) or {}
        return {
            k: t
            for k, v in spec.items()
            # pnpkit's own words (print check, guide): a language left out is pnpkit's
            if (t := self.r.text(v, ("strings", k), langs, partial=k.startswith("pnpkit_")))
            is not None
        }

    def _checks(self, value: object) -> tuple[Check, ...]:
        if not isinstance(value, list):
            self.r.problem(
                ("checks",), f"'checks' must be a list of rule checks (got {describe(value)})"
            )
            return ()
        out: list[Check] = []
        for i, spec in enumerate(value):
            path = ("checks", i)
            if not isinstance(spec, dict):
                self.r.problem(
                    path, f"a check must be a mapping with a 'rule' (got {describe(spec)})"
                )
                continue
            rule = self.r.typed(self.r.get(spec, path, "rule"), path + ("rule",), "string")
            level = self.r.choice(
                spec.get("level", "error"), path + ("level",), ("error", "warning")
            )
            check_id = self.r.typed(spec.get("id", rule), path + ("id",), "string")
            if rule is None or level is None or check_id is None:
                continue
            options = {k: v for k, v in spec.items() if k not in CHECK_KEYS}
            out.append(Check(rule, check_id, level, options, self.r.doc.at(path), self.r.doc, path))
        return tuple(out)

    def _rules_file(self, value: object) -> Path | None:
        if value is None and not (self.root / "rules.py").exists():
            return None
        name = "rules.py" if value is None else self.r.typed(value, ("rules",), "string")
        if name is None:
            return None
        path = self.root / name
        root = self.root.resolve()
        if (
            root not in path.resolve().parents
        ):  # symlinks followed: a pack's code is its own or none
            self.r.problem(
                ("rules",),
                f"rules file '{name}' lies outside the pack "
                f"{display_path(self.root)}; it must be a file inside it",
                "references",
            )
            return None
        if not path.is_file():
            self.r.problem(
                ("rules",),
                f"rules file '{name}' not found in {display_path(self.root)}",
                "references",
            )
            return None
        return path

    def pack(self, groups: dict[str, Group]) -> Pack:
        # load_pack asks for the pack only when nothing was reported, and so both were read
        assert self.name is not None and self.languages is not None
        return Pack(
            root=self.root,
            id=self.id,
            name=self.name,
            languages=self.languages,
            players=self.players,
            print=self.print,
            groups=groups,
            strings=self.strings,
            data=self.game_data,
            checks=self.checks,
            where=self.r.doc.at(()),
            manifest=self.r.doc,
            rules_file=self.rules_file,
            version=self.version,
            fonts=self.fonts,
            player_colours=self.player_colours,
            guide=self.guide,
        )


NARROWEST, MAX_BLEED, MAX_SAFE = packformat.NARROWEST, packformat.MAX_BLEED, packformat.MAX_SAFE
MAX_BACK_OFFSET = packformat.MAX_BACK_OFFSET


def _print_value(r: Reader, key: packformat.Key, value: object) -> Any:
    """One print setting, read by its declared type; None (reported) when it is bad."""
    path = ("print", key.name)
    if key.type == "choice":
        return r.choice(value, path, key.choices)
    if key.type == "bool":
        return r.typed(value, path, "bool")
    if key.type == "length":
        return _bounded(r, key, key.name, value, path)
    if key.type == "font size":
        mm = r.length(value, path)
        return None if mm is None else mm * PT_PER_MM
    if key.type == "offset":
        off = r.mapping(value, path, ("x", "y")) or {}
        shift = tuple(r.length(off.get(k, 0), path + (k,)) or 0.0 for k in "xy")
        for k, v in zip("xy", shift):
            if key.max is not None and abs(v) > key.max:
                r.problem(path + (k,), packformat.over_max(key, k, off[k]))
        return shift
    if key.type == "names":
        if not isinstance(value, list):
            r.problem(path, f"'{key.name}' must be a list of variant names (got {describe(value)})")
            return None
        return tuple(n for i, v in enumerate(value) if (n := r.ident(v, path + (i,), "variant")))
    raise ValueError(f"packformat.PRINT: no reader for type '{key.type}' of '{key.name}'")


def _bounded(
    r: Reader, key: packformat.Key, name: str, value: object, path: tuple[object, ...]
) -> float | None:
    """A length that is neither negative nor over key.max."""
    mm = r.length(value, path)
    if mm is not None and mm < 0:
        r.problem(path, f"'{name}' cannot be negative (got {value})")
        return None
    if mm is not None and key.max is not None and mm > key.max:
        r.problem(path, packformat.over_max(key, name, value))
        return None
    return mm


def _against_paper(r: Reader, spec: dict[str, Any], out: dict[str, Any]) -> None:
    """A gap and an overlap that fit in half of what the margin leaves of A4: otherwise the
    packers would divide by zero, loop, or drop every face. (Each setting's own bounds are
    packformat.PRINT's.)"""
    p = ("print",)
    margin = out.get("margin")
    room = NARROWEST - 2 * (PrintSettings.margin if margin is None else margin)
    if (out.get("overlap") or 0) > room / 2:  # split sheets must advance by at least half a sheet
        r.problem(
            p + ("overlap",),
            f"'overlap' must be at most {room / 2:g}mm, half "
            f"the printable width of A4 (got {spec['overlap']})",
        )
    if (out.get("gap") or 0) >= room / 2:
        r.problem(
            p + ("gap",),
            f"'gap' must be less than {room / 2:g}mm, half "
            f"the printable width of A4 (got {spec['gap']})",
        )


def bleed_problem(given: object) -> str:
    return packformat.over_max(_PRINT["bleed"], "bleed", given)


_PRINT = MappingProxyType({key.name: key for key in packformat.PRINT})


def _read_groups(r: Reader, game: _Game) -> Iterator[Group]:
    if r.doc.data is None:
        return
    if not isinstance(r.doc.data, dict):
        got = (
            "text" if isinstance(r.doc.data, str) else describe(r.doc.data)
        )  # a whole file of text is not quoted
        r.problem((), f"a component file must map group names to groups (got {got})")
        return
    for name, spec in r.doc.data.items():
        if r.ident(name, (name,), "group name", key=True) is None:
            continue
        group = _read_group(r, game, name, spec)
        if group is not None:
            yield group


def _read_group(r: Reader, game: _Game, name: str, spec: object) -> Group | None:
    path = (name,)
    spec = r.mapping(spec, path, GROUP_KEYS, f"group '{name}'")
    if spec is None:
        return None
    kind = r.choice(r.get(spec, path, "kind"), path + ("kind",), KINDS)
    size = r.size(r.get(spec, path, "size"), path + ("size",))
    bleed = r.length(spec["bleed"], path + ("bleed",)) if "bleed" in spec else game.print.bleed
    if "bleed" in spec and bleed is not None and not 0 <= bleed <= MAX_BLEED:
        r.problem(
            path + ("bleed",),
            bleed_problem(spec["bleed"])
            if bleed > 0
            else f"'bleed' cannot be negative (got {spec['bleed']})",
        )
        bleed = None
    templates = {side: t for side in SIDES if (t := _template(r, spec, path, side)) is not None}
    if "front" not in spec and path + ("front",) not in r.misspelt:
        r.problem(path, f"group '{name}' needs a 'front' template")
    extra: dict[str, Any] = {
        "variant": r.ident(spec["variant"], path + ("variant",), "variant") or ""
        if "variant" in spec
        else "",
        "shape": _shape(r, spec.get("shape"), path + ("shape",), kind, size),
        "labels": _labels(r, spec, path),
        "tuckbox": guidespec.read_tuckbox(r, spec, path, kind),
    }
    if "items_from" in spec:
        group = _derived_group(r, game, name, spec, path, kind, size, bleed, templates)
        return group and dataclasses.replace(group, **extra)
    fields = _read_fields(r, spec.get("fields", {}), path + ("fields",))
    items = _read_items(r, game, name, spec, fields, templates)
    base = _standee(r, spec, path, kind, size)
    if kind is None or size is None or bleed is None or base is None or fields is None:
        return None
    return Group(
        name,
        kind,
        size,
        bleed,
        templates,
        fields,
        tuple(items),
        r.doc.at(path, key=True),
        spec.get("doc", ""),
        base=base,
        **extra,
    )


def _labels(r: Reader, spec: dict[str, Any], path: Path_) -> str:
    """`labels: a4-3x7`: a shipped label sheet; its faces are one-sided stickers."""
    if "labels" not in spec:
        return ""
    name = r.choice(spec["labels"], path + ("labels",), labels.names())
    if name and "back" in spec:
        r.problem(
            path + ("back",),
            "a group printed on label sheets has no back (a label is one-sided)",
            key=True,
        )
    return name or ""


SHAPES = ("rect", "rounded(R)", "circle", "hex")
_ROUNDED = re.compile(r"rounded\((.*)\)\Z")


def _shape(
    r: Reader, value: object, path: Path_, kind: str | None, size: tuple[float, float] | None
) -> Shape:
    """`shape: rect | rounded(3mm) | circle | hex` -> ("rect", 0) ... ("rounded", 3.0); a hex
    group is a hex."""
    if value is None:
        return ("hex", 0.0) if kind == "hex" else ("rect", 0.0)
    text = r.typed(value, path, "string")
    if text is None:
        return ("rect", 0.0)
    found = _ROUNDED.match(text.strip())
    if found:
        radius = r.length(found.group(1).strip(), path)
        if radius is None:
            return ("rect", 0.0)
        if size and not 0 < radius <= min(size) / 2:
            r.problem(
                path,
                "the corner radius must be more than 0 and at most half the "
                f"shorter side ({min(size) / 2:g}mm); got {found.group(1).strip()}",
            )
            return ("rect", 0.0)
        return ("rounded", radius)
    if text not in ("rect", "circle", "hex"):
        r.problem(path, f"'shape' must be one of {', '.join(SHAPES)} (got '{text}')")
        return ("rect", 0.0)
    if text == "circle" and size and abs(size[0] - size[1]) > 1e-6:
        r.problem(path, f"a circle needs a square size (got {size[0]:g}x{size[1]:g}mm)")
        return ("rect", 0.0)
    if (text == "hex") != (kind == "hex"):
        r.problem(path, "'shape: hex' goes with 'kind: hex', and a hex group is a hex")
        return ("hex", 0.0) if kind == "hex" else ("rect", 0.0)
    return (text, 0.0)


def _standee(
    r: Reader, spec: dict[str, Any], path: Path_, kind: str | None, size: tuple[float, float] | None
) -> float | None:
    """`standee: {base: 12mm}`: the fold-over layout (base tab, upside-down back panel, fold,
    upright front panel, base tab), so exports can cut out the figure; 0 when not given."""
    if "standee" not in spec:
        return 0.0
    where = path + ("standee",)
    if kind is not None and kind != "standee":
        r.problem(
            where,
            f"'standee' describes a fold-over standee; this group's kind is '{kind}'",
            key=True,
        )
        return None
    layout = r.mapping(spec["standee"], where, STANDEE_KEYS, "'standee'")
    if layout is None:
        return None
    base = r.get(layout, where, "base")
    base = r.length(base, where + ("base",)) if base is not None else None
    if base is None or size is None:
        return None
    if not 0 < 2 * base < size[1]:
        r.problem(
            where + ("base",),
            f"a standee's two base tabs ({base:g} mm each) must "
            f"leave room for its panels in its {size[1]:g} mm height",
        )
        return None
    return base


def _derived_group(
    r: Reader,
    game: _Game,
    name: str,
    spec: dict[str, Any],
    path: Path_,
    kind: str | None,
    size: tuple[float, float] | None,
    bleed: float | None,
    templates: dict[str, str],
) -> Group | None:
    """`items_from: dice`: the items (and fields) of another group, with this group's kind, size
    and templates."""
    source = r.typed(spec["items_from"], path + ("items_from",), "string")
    for key in ("items", "fields", "generate", "defaults"):
        if key in spec:
            r.problem(
                path + (key,),
                f"group '{name}' takes its items and fields "
                f"from '{source}'; it cannot have '{key}' too",
                key=True,
            )
    if kind is None or size is None or bleed is None or source is None:
        return None
    game.derived[name] = (
        source,
        r.doc.at(path + ("items_from",)),
        {s: r.doc.at(path + (s,)) for s in templates},
    )
    return Group(
        name, kind, size, bleed, templates, {}, (), r.doc.at(path, key=True), spec.get("doc", "")
    )


def _items_from(
    groups: dict[str, Group], derived: dict[str, Derived], problems: list[Problem]
) -> dict[str, Group]:
    """Fill each `items_from` group with its source group's items, under its own name and
    templates."""
    out = dict(groups)
    for name, (source, where, template_where) in derived.items():
        if name not in groups:
            continue
        group = groups[name]
        src = groups.get(source)
        if src is None or source in derived:
            why = (
                "which takes its own items from another group"
                if src is not None
                else "which is not a group"
            )
            hint = (
                ""
                if src is not None
                else did_you_mean(source, [g for g in groups if g not in derived])
            )
            problems.append(
                Problem(where, f"group '{name}' takes its items from '{source}', {why}{hint}")
            )
            continue
        items = tuple(
            dataclasses.replace(
                item,
                group=name,
                templates=dict(group.templates),
                template_where=dict(template_where),
            )
            for item in src.items
        )
        out[name] = dataclasses.replace(group, fields=src.fields, items=items)
    return out


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


__all__ = ("load_pack", "did_you_mean", "Document")
