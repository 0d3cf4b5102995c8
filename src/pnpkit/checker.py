"""Small typed readers over a YAML document: each returns a value or records a located problem.

The schema and the rules' options are both read with these, so a bad value
reads the same everywhere: what, expected, got, and a hint where there is one.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from pnpkit.errors import Problem
from pnpkit.loader import Document
from pnpkit.paths import name_problem
from pnpkit.units import UnitError, describe, parse_length, parse_size

MISSING = object()


class Reader:
    """Reads values out of one document, collecting problems instead of raising."""

    def __init__(self, doc: Document, problems: list[Problem]):
        self.doc = doc
        self.problems = problems

    def problem(self, path: tuple, message: str, rule: str = "schema", key: bool = False, level: str = "error") -> None:
        self.problems.append(Problem(self.doc.at(path, key=key), message, rule, level))

    def get(self, data: dict, path: tuple, key: str, default=MISSING):
        """data[key], or default, or a 'missing key' problem (and None)."""
        if key in data:
            return data[key]
        if default is MISSING:
            where = f"'{path_name(path)}'" if path else Path(self.doc.file).name
            self.problem(path, f"{where} needs the key '{key}'")
            return None
        return default

    def mapping(self, value, path: tuple, allowed, what: str = "", rule: str = "schema") -> dict | None:
        """A mapping with only the allowed keys; unknown keys get a 'did you mean'."""
        if not isinstance(value, dict):
            got = "text" if path == () and isinstance(value, str) else describe(value)  # a whole file is not quoted
            self.problem(path, f"{what or path_name(path)} must be a mapping (got {got})", rule)
            return None
        for key in value:
            if key not in allowed:
                self.problem(path + (key,), unknown_key(key, allowed, what or path_name(path)), rule, key=True)
        return value

    def table(self, value, path: tuple, what: str = "") -> dict | None:
        """A mapping whose keys are the author's own (strings, data, fields): only its type is checked."""
        return self.mapping(value, path, value.keys() if isinstance(value, dict) else (), what)

    def typed(self, value, path: tuple, kind: str, rule: str = "schema"):
        """A str, int, number or bool; YAML's loose spellings are not accepted."""
        ok = {
            "string": isinstance(value, str),
            "int": isinstance(value, int) and not isinstance(value, bool),
            "number": isinstance(value, (int, float)) and not isinstance(value, bool),
            "bool": isinstance(value, bool),
        }[kind]
        if not ok:
            noun = {"string": "a string", "int": "a whole number", "number": "a number", "bool": "true or false"}[kind]
            self.problem(path, f"'{path_name(path)}' must be {noun} (got {describe(value)})", rule)
            return None
        return value

    def ident(self, value, path: tuple, what: str, key: bool = False):
        """A name that becomes part of file names: letters, digits, '.', '_', '-', starting with a letter or digit."""
        if self.typed(value, path, "string") is None:
            return None
        problem = name_problem(value, what)
        if problem:
            self.problem(path, problem, key=key)
            return None
        return value

    def choice(self, value, path: tuple, options, rule: str = "schema"):
        if value in options:
            return value
        hint = did_you_mean(value, options) if isinstance(value, str) else ""
        listed = ", ".join(str(o) for o in options)
        self.problem(path, f"'{path_name(path)}' must be one of {listed} (got {describe(value)}){hint}", rule)
        return None

    def length(self, value, path: tuple) -> float | None:
        try:
            return parse_length(value)
        except UnitError as exc:
            self.problem(path, f"'{path_name(path)}' {exc}")
            return None

    def size(self, value, path: tuple) -> tuple[float, float] | None:
        try:
            return parse_size(value)
        except UnitError as exc:
            self.problem(path, f"'{path_name(path)}' {exc}")
            return None

    def text(self, value, path: tuple, languages, rule: str = "schema") -> dict | None:
        """Localised text: one string for every language, or {lang: string} covering all."""
        if isinstance(value, str):
            return {lang: value for lang in languages}
        if not isinstance(value, dict):
            self.problem(path, f"'{path_name(path)}' must be text or {{{', '.join(f'{l}: ...' for l in languages)}}} (got {describe(value)})", rule)
            return None
        out = {}
        for lang, text in value.items():
            if lang not in languages:
                self.problem(path + (lang,), f"unknown language '{lang}' in '{path_name(path)}' (the pack has {', '.join(languages)})", rule, key=True)
            elif self.typed(text, path + (lang,), "string", rule) is not None:
                out[lang] = text
        missing = [lang for lang in languages if lang not in value]
        if missing:
            self.problem(path, f"'{path_name(path)}' has no text for language {', '.join(missing)}", rule)
            return None
        return out if len(out) == len(languages) else None


def path_name(path: tuple) -> str:
    """('groups', 2, 'count') -> 'count'; list indexes show as [2]."""
    for part in reversed(path):
        if isinstance(part, str):
            return part
    return "document"


def did_you_mean(word: str, options) -> str:
    close = difflib.get_close_matches(str(word), [str(o) for o in options], n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def unknown_key(key, allowed, where: str) -> str:
    hint = did_you_mean(key, allowed)
    if not hint:
        hint = f" (known keys: {', '.join(allowed)})" if len(allowed) <= 12 else ""
    return f"unknown key '{key}' in {where}{hint}"
