"""Where a drawn text came from: the item field that supplied it, the template line that drew it.

A text warning (textcheck, overlap) knows only the string a face drew. text_box() records each
call's text and the template line of the call (Face.drawn), so a drawn line is traced to the
call whose text holds it, and that text to the field it equals (the loader located every field:
a YAML line or a spreadsheet cell). A raw <text> is found in the template family by the field it
reads (`item.title`) or by its own words; Jinja comments are not searched.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

import jinja2

from pnpkit.errors import Location
from pnpkit.faces import textboxes
from pnpkit.pack.loader import display_path
from pnpkit.pack.model import Face, Item, Pack

Family = Sequence[tuple[str, str, str]]  # (template name, file, source): templates.template_family
Drawn = tuple[tuple[str, Location | None], ...]  # Face.drawn


def field_holding(item: Item, lang: str, text: str) -> str | None:
    """The first field whose value (in lang) holds the text: a line of a wrapped value, a word."""
    flat = _flat(text)
    for name, value in {**item.fields, "id": item.id}.items():  # the id stands at the item
        if isinstance(value, dict):
            value = value.get(lang)
        if isinstance(value, str) or textboxes.is_number(value):
            if flat and flat in _flat(str(value)):
                return name
    return None


Packed = tuple[tuple[str, str, int, int], ...]


def packed(drawn: Drawn | None) -> Packed | None:
    """Face.drawn as the cache file keeps it (marshal: strings and numbers); file "": no line."""
    if drawn is None:
        return None
    return tuple(
        (text, call.file, call.line, call.column) if call else (text, "", 0, 0)
        for text, call in drawn
    )


def unpacked(value: object) -> Drawn | None:
    """packed() read back from a cache file; None (rendered again if asked for) if it is not
    shaped as packed() makes it."""
    if not isinstance(value, tuple) or not all(_sound(row) for row in value):
        return None
    return tuple(
        (text, Location(file, line, column) if file else None) for text, file, line, column in value
    )


def _sound(row: object) -> bool:
    return (
        isinstance(row, tuple)
        and len(row) == 4
        and isinstance(row[0], str)
        and isinstance(row[1], str)
        and type(row[2]) is int
        and type(row[3]) is int
    )


def drawer(drawn: Drawn, text: str) -> tuple[str, Location | None] | None:
    """The text_box() call that drew the text: the first whose text is it, else the first that
    holds it (one line of a wrapped text, one word of a marked-up line)."""
    flat = _flat(text)
    if not flat:
        return None
    for whole, call in drawn:
        if _flat(whole) == flat:
            return whole, call
    for whole, call in drawn:
        if flat in _flat(whole):
            return whole, call
    return None


def _flat(text: str) -> str:
    return " ".join(text.split())


class Places:
    """Locates the text warnings of one language's faces. `family(template)`: the template and
    those it draws on (templates.template_family); `redraw(face, item)`: its Face.drawn, rendered
    again when the cache served it (None if it cannot be)."""

    def __init__(
        self,
        pack: Pack,
        lang: str,
        family: Callable[[str], Family],
        redraw: Callable[[Face, Item], Drawn | None],
    ) -> None:
        self.pack, self.lang, self.family, self.redraw = pack, lang, family, redraw
        self._items: dict[str, dict[str, Item]] = {}

    def item(self, face: Face) -> Item | None:
        group = self.pack.groups.get(face.group)
        if group is None:
            return None
        if face.group not in self._items:
            self._items[face.group] = {item.id: item for item in group.items}
        return self._items[face.group].get(face.item)

    def locate(self, face: Face, text: str) -> tuple[Location, str]:
        """Where a warning about a text of the face stands, and what to add to its message: the
        face it is on and the template line that drew it, when it stands at the field."""
        item = self.item(face)
        if face.drawn is None:
            face.drawn = self.redraw(face, item) if item is not None else None
        found = drawer(face.drawn or (), text)
        field, call, what = None, None, "text_box()"
        if found is not None:
            source, call = found
            field = textboxes.field_of(item, self.lang, source) if item else None
            own = call is not None and field is None and self._literal(face, text) is not None
        else:
            what = "<text>"
            field = field_holding(item, self.lang, text) if item else None
            call = self._reference(face, field) if field else self._string(face, text)
            own = call is None and field is None
            if own:  # the template's own words
                call = self._literal(face, text)
        on = f"the {face.side} of '{face.item}'"
        if field is not None and item is not None:
            at = item.field_where.get(field, item.where)
            return at, f" ({on}, drawn by {what} at {call})" if call else f" ({on})"
        if call is not None:
            return call, "" if own else f" ({on})"
        return face.where, f" ({on})"

    def _literal(self, face: Face, text: str) -> Location | None:
        """The first line of the template family holding the text as written there (a raw
        <text>'s own words): as an element's whole text if it is one, else (four letters or
        more) anywhere outside a Jinja comment."""
        needle = text.strip()
        if not needle:
            return None
        plain = re.escape(needle)
        whole = self._first(face, rf">\s*({plain})\s*(?:<|$)")
        if whole is not None or len(needle) < 4:  # "2" in an attribute is no text of it
            return whole
        return self._first(face, f"({plain})")

    def _reference(self, face: Face, field: str) -> Location | None:
        """The first line reading the field (item.title, item['title']) other than a text_box()
        call's (that text_box would have recorded the text)."""
        name = re.escape(field)
        return self._first(face, rf"\bitem(?:\.{name}\b|\[\s*['\"]{name}['\"]\s*\])", "text_box")

    def _string(self, face: Face, text: str) -> Location | None:
        """The first line reading the pack string (s.title) whose text this is."""
        for key, values in self.pack.strings.items():
            if values.get(self.lang) == text:
                name = re.escape(key)
                found = self._first(face, rf"\bs(?:\.{name}\b|\[\s*['\"]{name}['\"]\s*\])")
                if found is not None:
                    return found
        return None

    def _first(self, face: Face, pattern: str, unless: str = "") -> Location | None:
        """Where pattern (its first group, else the match) first stands in the face template's
        family, Jinja comments blanked; lines holding `unless` are passed over."""
        try:
            family = self.family(face.template)
        except jinja2.TemplateError:  # a template that does not load: its error is reported
            return None
        needle = re.compile(pattern)
        for _, filename, source in family:
            for n, line in enumerate(_uncommented(source).splitlines(), 1):
                match = needle.search(line)
                if match and not (unless and unless in line):
                    column = match.start(1 if match.groups() else 0) + 1
                    return Location(display_path(Path(filename)), n, column)
        return None


_COMMENT = re.compile(r"\{#.*?#\}", re.DOTALL)


def _uncommented(source: str) -> str:
    """The source with its Jinja comments blanked, line breaks kept (the lines stay in place)."""
    return _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), source)
