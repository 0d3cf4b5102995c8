"""Structure of a game pack: raw YAML documents -> a checked Pack, or every problem found.

A pack folder holds game.yaml (the manifest) and any number of component
files (*.yaml); each top-level key of a component file names a group of
items that share a kind, a size, templates and declared fields.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pnpkit.errors import Location, Problem
from pnpkit.pack import guidespec, packfonts, packformat, paths
from pnpkit.pack.checker import Reader, did_you_mean
from pnpkit.pack.groups import NARROWEST, _items_from, _read_groups
from pnpkit.pack.items import RESERVED_ID, _unique_ids
from pnpkit.pack.loader import display_path, load_yaml
from pnpkit.pack.model import (
    Check,
    Group,
    GuideSpec,
    Pack,
    PrintSettings,
)
from pnpkit.pack.yamlbounds import MAX_VALUES
from pnpkit.pack.yamldoc import Document
from pnpkit.typeset import fonts
from pnpkit.units import PT_PER_MM, describe

GAME_KEYS = packformat.names(packformat.GAME)
PRINT_KEYS = packformat.names(packformat.PRINT)
CHECK_KEYS = ("rule", "id", "level", "why")


MAX_FILES = 1000  # YAML files in a pack (our kits have at most 5): each costs a read and a parse


def load_pack(root: Path, font_store: Path | None = None) -> tuple[Pack | None, list[Problem]]:
    """Read and check the structure of the pack in root. font_store: where fonts made into
    TrueType are kept between builds (packfonts.py)."""
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
    game = _Game(Reader(docs[0], problems), root, font_store)
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

    def __init__(self, r: Reader, root: Path, font_store: Path | None = None) -> None:
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
        self.fonts = packfonts.read(r, data["fonts"], root, font_store) if "fonts" in data else {}
        self.font_fallback = packfonts.fallback(r, data.get("fonts"))
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
        return self.r.pack_file(("rules",), self.root, name, "rules file")

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
            font_fallback=self.font_fallback,
            player_colours=self.player_colours,
            guide=self.guide,
        )


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


__all__ = ("load_pack", "did_you_mean", "Document")
