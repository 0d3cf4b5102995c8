"""Small typed readers over a YAML document: each returns a value or records a located problem.

The schema and the rules' options are both read with these, so a bad value
reads the same everywhere: what, expected, got, and a hint where there is one.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any, cast

from pnpkit.errors import Problem
from pnpkit.pack.paths import display_path, escaped, inside, name_problem, pack_roots
from pnpkit.pack.yamldoc import Document, Path_
from pnpkit.units import UnitError, describe, parse_length, parse_size

MISSING = object()


class Reader:
    """Reads values out of one document, collecting problems instead of raising."""

    def __init__(self, doc: Document, problems: list[Problem]) -> None:
        self.doc = doc
        self.problems = problems
        # One root cause, one message: a key reported missing is not reported again as a value
        # of the wrong type, and a known key that an unknown key looks like a misspelling of
        # ("did you mean 'kind'?") is not reported missing too.
        self.missing: set[tuple[object, ...]] = (
            set()
        )  # paths of keys reported (or taken as) missing
        self.misspelt: set[tuple[object, ...]] = (
            set()
        )  # paths of known keys an unknown key was taken for

    def problem(
        self,
        path: Path_,
        message: str,
        rule: str = "schema",
        key: bool = False,
        level: str = "error",
    ) -> None:
        self.problems.append(Problem(self.doc.at(path, key=key), message, rule, level))

    def pack_file(self, path: Path_, root: Path, name: str, what: str) -> Path | None:
        """root/name if it is a file inside the pack root (symlinks followed: what a pack reads
        is its own or nothing); else a located problem naming `what` (e.g. "font"), and None."""
        file, shown = root / name, escaped(name)
        if inside(file, pack_roots(root), itself=False) is None:  # NUL in the name too
            self.problem(
                path,
                f"{what} '{shown}' lies outside the pack {display_path(root)}; it must be a file "
                "inside it",
                "references",
            )
            return None
        if not file.is_file():
            self.problem(path, f"{what} '{shown}' not found in {display_path(root)}", "references")
            return None
        return file

    def get(self, data: dict[Any, Any], path: Path_, key: str, default: Any = MISSING) -> Any:
        """data[key], or default, or a 'missing key' problem (and None)."""
        if key in data:
            return data[key]
        if default is MISSING:
            self.missing.add(path + (key,))
            if path + (key,) not in self.misspelt:
                where = f"'{path_name(path)}'" if path else Path(self.doc.file).name
                self.problem(path, f"{where} needs the key '{key}'")
            return None
        return default

    def mapping(
        self,
        value: Any,
        path: Path_,
        allowed: Collection[Any],
        what: str = "",
        rule: str = "schema",
    ) -> dict[Any, Any] | None:
        """A mapping with only the allowed keys; unknown keys get a 'did you mean'."""
        if not isinstance(value, dict):
            got = (
                "text" if path == () and isinstance(value, str) else describe(value)
            )  # a whole file is not quoted
            self.problem(path, f"{what or path_name(path)} must be a mapping (got {got})", rule)
            return None
        for key in value:
            if key not in allowed:
                self.problem(
                    path + (key,),
                    unknown_key(key, allowed, what or path_name(path)),
                    rule,
                    key=True,
                )
                meant = close_match(key, allowed)
                if meant is not None and meant not in value:
                    self.misspelt.add(path + (meant,))
        return value

    def reported(self, value: object, path: Path_) -> bool:
        """Whether value is a key's absence that get() has already reported (or that a misspelt
        key explains): the readers then stay silent instead of saying 'got nothing'."""
        return value is None and (path in self.missing or path in self.misspelt)

    def table(self, value: Any, path: Path_, what: str = "") -> dict[Any, Any] | None:
        """A mapping whose keys are the author's own (strings, data, fields): only its type is
        checked."""
        return self.mapping(value, path, value.keys() if isinstance(value, dict) else (), what)

    def typed(self, value: Any, path: Path_, kind: str, rule: str = "schema") -> Any:
        """A str, int, number or bool; YAML's loose spellings are not accepted."""
        if self.reported(value, path):
            return None
        if not _TYPED[kind](value):
            noun = {
                "string": "a string",
                "int": "a whole number",
                "number": "a number",
                "bool": "true or false",
            }[kind]
            self.problem(path, f"'{path_name(path)}' must be {noun} (got {describe(value)})", rule)
            return None
        return value

    def ident(self, value: Any, path: Path_, what: str, key: bool = False) -> str | None:
        """A name that becomes part of file names: letters, digits, '.', '_', '-', starting with
        a letter or digit."""
        if self.typed(value, path, "string") is None:
            return None
        problem = name_problem(value, what)
        if problem:
            self.problem(path, problem, key=key)
            return None
        return cast(str, value)

    def choice(
        self, value: Any, path: Path_, options: Collection[Any], rule: str = "schema"
    ) -> Any:
        if value in options:
            return value
        if self.reported(value, path):
            return None
        hint = did_you_mean(value, options) if isinstance(value, str) else ""
        listed = ", ".join(str(o) for o in options)
        self.problem(
            path, f"'{path_name(path)}' must be one of {listed} (got {describe(value)}){hint}", rule
        )
        return None

    def length(self, value: Any, path: Path_) -> float | None:
        if self.reported(value, path):
            return None
        try:
            return parse_length(value)
        except UnitError as exc:
            self.problem(path, f"'{path_name(path)}' {exc}")
            return None

    def size(self, value: Any, path: Path_) -> tuple[float, float] | None:
        if self.reported(value, path):
            return None
        try:
            return parse_size(value)
        except UnitError as exc:
            self.problem(path, f"'{path_name(path)}' {exc}")
            return None

    def text(
        self,
        value: Any,
        path: Path_,
        languages: Sequence[str],
        rule: str = "schema",
        partial: bool = False,
    ) -> dict[str, str] | None:
        """Localised text: one string for every language, or {lang: string} covering all (or,
        `partial`, some: the caller has words of its own for the others)."""
        if self.reported(value, path):
            return None
        if isinstance(value, str):
            return {lang: value for lang in languages}
        if not isinstance(value, dict):
            self.problem(
                path,
                f"'{path_name(path)}' must be text or "
                f"{{{', '.join(f'{lang}: ...' for lang in languages)}}} (got {describe(value)})",
                rule,
            )
            return None
        out: dict[str, str] = {}
        for lang, text in value.items():
            if lang not in languages:
                self.problem(
                    path + (lang,),
                    f"unknown language '{lang}' in '{path_name(path)}' "
                    f"(the pack has {', '.join(languages)})",
                    rule,
                    key=True,
                )
            elif self.typed(text, path + (lang,), "string", rule) is not None:
                out[lang] = text
        missing = [lang for lang in languages if lang not in value]
        if partial:
            return out
        if missing:
            self.problem(
                path, f"'{path_name(path)}' has no text for language {', '.join(missing)}", rule
            )
            return None
        return out if len(out) == len(languages) else None


_TYPED: Mapping[str, Callable[[Any], bool]] = MappingProxyType(
    {  # one predicate per kind: typed() runs for every value of every item
        "string": lambda v: isinstance(v, str),
        "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
        "bool": lambda v: isinstance(v, bool),
    }
)


def path_name(path: Path_) -> str:
    """('groups', 2, 'count') -> 'count'; list indexes show as [2]."""
    for part in reversed(path):
        if isinstance(part, str):
            return part
    return "document"


def close_match(word: object, options: Iterable[object]) -> str | None:
    """The option word most likely misspells, if any is close enough."""
    close = difflib.get_close_matches(str(word), [str(o) for o in options], n=1, cutoff=0.6)
    return close[0] if close else None


def did_you_mean(word: object, options: Iterable[object]) -> str:
    close = close_match(word, options)
    return f" (did you mean '{close}'?)" if close else ""


def unknown_key(key: object, allowed: Collection[object], where: str) -> str:
    hint = did_you_mean(key, allowed)
    if not hint:
        hint = (
            f" (known keys: {', '.join(map(str, allowed))})" if len(allowed) <= 12 else ""
        )  # a YAML key may be a number
    return f"unknown key '{key}' in {where}{hint}"
