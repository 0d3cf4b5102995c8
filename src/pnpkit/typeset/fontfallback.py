"""What text_box() says when text is drawn in another style than it asked for.

A face draws a character it lacks with the next face of its chain (fonts.chain): Arabic
set in italic with DejaVu Sans, whose oblique face has no Arabic, is drawn upright. That
is no error, since few fonts for Arabic, Hebrew or CJK have an italic at all, but the
designer asked for something the print does not show, so text_box() warns, once per
template line: the message names the family, the style and the script, never the text,
so every card the line draws gives the same warning. A character drawn by one of the
pack's `fonts: fallback:` families in the style asked for is what the designer wrote
down, and no warning.
"""

from __future__ import annotations

import unicodedata
from types import MappingProxyType

from pnpkit.typeset import fonts

_WORDS = MappingProxyType(
    {
        (True, True): "bold italic",
        (True, False): "bold",
        (False, True): "italic",
        (False, False): "regular",
    }
)


def notes(family: str, bold: bool, italic: bool, text: str) -> list[str]:
    """A message per face that draws some of text in another style than (bold, italic)."""
    face = fonts.face_name(family, bold, italic)
    if face is None:
        return []
    owner = fonts.style_of(face)
    named = owner[0] if owner else family
    out: list[str] = []
    if not fonts.has_face(family, bold, italic):
        out.append(
            f"font family '{family}' has no {_WORDS[bold, italic]} face: its text is drawn "
            f"{_in(face)} (add the face to fonts: in game.yaml, or leave out the style)"
        )
    for sub, chars in fonts.substitutes(face, text).items():
        found = fonts.style_of(sub)
        if found is None or found[1] == (bold, italic):
            continue  # a fallback family in the style asked for: as the pack says
        out.append(
            f"{named} has no "
            f"{_WORDS[bold, italic]} glyphs for {_scripts(chars)}: drawn {_in(sub)} "
            "(fonts for Arabic, Hebrew and CJK rarely have an italic; docs/fonts.md)"
        )
    return out


def _in(face: str) -> str:
    found = fonts.style_of(face)
    if found is None:
        return f"in {face}"
    family, style = found
    return f"in {family} {_WORDS[style]}"


def _scripts(chars: str) -> str:
    """The scripts of the characters, as Unicode names them: 'Arabic', 'Hebrew', 'CJK'."""
    names: dict[str, None] = {}
    for ch in chars:
        name = unicodedata.name(ch, "")
        if name and unicodedata.category(ch)[0] == "L":  # not its spaces and punctuation
            names[name.split()[0].title().replace("Cjk", "CJK")] = None
    return " and ".join(names) or "some characters"
