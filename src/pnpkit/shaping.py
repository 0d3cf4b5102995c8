"""Every script shaped: HarfBuzz glyphs and the Unicode bidi algorithm, for measuring and drawing.

A line of text becomes glyphs in two steps. The bidi algorithm (python-bidi's
reference implementation, rules P2-P3, X1-I2 and L2) resolves each character's
embedding level and cuts the line into runs of one direction, in visual order;
HarfBuzz then shapes each run with its direction: kerning, ligatures, Arabic
joining, marks. text_box() measures with the same shaping the renderer draws
with, so fit and overflow stay true.

A shaped run is drawn with ReportLab's own support for shaped strings (a
`ShapedStr`: characters that stand for the glyphs, plus each glyph's advance
and offsets). A glyph that no character maps to (an Arabic medial form in a
font without presentation-form code points, a ligature) gets a private-use
code point in that font derived from its glyph id, as ReportLab itself does. A run whose glyphs are
its own characters at their normal advances stays a plain string, so such text
draws exactly as it did before shaping existed.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from itertools import groupby
from typing import Any, cast

import uharfbuzz as hb
from bidi import algorithm as _bidi
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import ShapeData, ShapedStr, TTFont

# Kerning on. Standard ligatures (fi, fl) off: ReportLab's ToUnicode map gives each glyph one
# character, so a ligature would copy and search as U+FB01. Required ligatures and joining
# (rlig, init/medi/fina: Arabic lam-alef, every joined letter) are always on in HarfBuzz.
FEATURES = {"kern": True, "liga": False, "clig": False}
# Characters that can make a line anything but left-to-right at level 0: Hebrew, Arabic, Syriac,
# Thaana, NKo, Samaritan, Mandaic, their presentation forms, RTL scripts outside the BMP, and the
# explicit bidi controls. A line without any of them skips the bidi algorithm.
_RTL = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff\U00010800-\U00010fff\U0001e800-\U0001efff"
                  "\u200f\u202a-\u202e\u2066-\u2069]")


def needs_bidi(text: str) -> bool:
    return _RTL.search(text) is not None


def base_level(text: str, direction: str = "auto") -> int:
    """0 (left to right) or 1 (right to left): given, or from the first strong character (P2,
    P3)."""
    if direction != "auto":
        return 1 if direction == "rtl" else 0
    return _bidi.get_base_level(text) if needs_bidi(text) else 0


def levels(text: str, base: int) -> list[int]:
    """The resolved embedding level of each character of one line (rules X1-I2)."""
    if base == 0 and not needs_bidi(text):
        return [0] * len(text)
    storage = _bidi.get_empty_storage()
    storage["base_level"], storage["base_dir"] = base, "LR"[base]
    _bidi.get_embedding_levels(text, storage)
    _bidi.explicit_embed_and_overrides(storage)
    _bidi.resolve_weak_types(storage)
    _bidi.resolve_neutral_types(storage, False)
    _bidi.resolve_implicit_levels(storage, False)
    out = [c["level"] for c in storage["chars"]]
    # L1: trailing whitespace goes back to the paragraph level
    i = len(text)
    while i > 0 and text[i - 1].isspace():
        i -= 1
        out[i] = base
    return out


def visual_pieces(runs: list[tuple[str, object]], direction: str = "auto") -> list[tuple[str, object, bool]]:
    """Cut a line given as logical runs (text, key) into pieces of one run and one level and put
    them in visual order (L2); each piece is (text in logical order, key, right-to-left)."""
    line = "".join(text for text, _ in runs)
    base = base_level(line, direction)
    if base == 0 and not needs_bidi(line):
        return [(text, key, False) for text, key in runs if text]
    lv = levels(line, base)
    pieces, pos = [], 0
    for text, key in runs:
        for level, chunk in groupby(range(pos, pos + len(text)), key=lambda i: lv[i]):
            idx = list(chunk)
            pieces.append([level, line[idx[0]:idx[-1] + 1], key])
        pos += len(text)
    # L2: from the highest level down to the lowest odd one, reverse every stretch at or above it
    top = max((p[0] for p in pieces), default=0)
    lowest_odd = min((p[0] for p in pieces if p[0] % 2), default=top + 1)
    for level in range(top, lowest_odd - 1, -1):
        i = 0
        while i < len(pieces):
            if pieces[i][0] >= level:
                j = i
                while j < len(pieces) and pieces[j][0] >= level:
                    j += 1
                pieces[i:j] = pieces[i:j][::-1]
                i = j
            else:
                i += 1
    return [(text, key, bool(level % 2)) for level, text, key in pieces]


@cache
def _hb(font: str) -> tuple[Any, int]:
    """HarfBuzz's font for a registered ReportLab font, at one unit per em unit."""
    face = _ttf(font).face
    hb_face = hb.Face(hb.Blob(face._ttf_data))  # type: ignore[attr-defined]  # the file ReportLab read
    return hb.Font(hb_face), hb_face.upem


_PUA, _PUA_END, _PLANE15 = 0xE000, 0xF8FF, 0xF0000
# per glyph: (cluster, x advance, y advance, x offset, y offset, width), 1000 units per em
Glyph = tuple[int, float, float, float, float, float]
Shaped = tuple[Glyph, ...]


def _ttf(font: str) -> TTFont:
    """A registered font: every font pnpkit registers is a TrueType font."""
    return cast(TTFont, pdfmetrics.getFont(font))


def _private(font: TTFont, gid: int, advance: float) -> int:
    """A private-use code point standing for a glyph no character maps to: a fixed function of
    the glyph id (U+E000 + id, or plane 15 if that is taken), so a drawing compiled in one
    process (and kept in the build cache) draws the same glyph in another."""
    face = font.face
    code = _PUA + gid
    if code > _PUA_END or face.charToGlyph.get(code, gid) != gid:
        code = _PLANE15 + gid
    if code not in face.charToGlyph:
        face.charToGlyph[code] = gid
        face.glyphToChar.setdefault(gid, []).append(code)  # type: ignore[attr-defined]
        face.charWidths[code] = advance
    return code


def register_private(font: str, chars: str, data: Shaped) -> None:
    """Make the private-use code points of a shaped run known to the font (a cached drawing)."""
    rl = _ttf(font)
    for ch, d in zip(chars, data):
        code = ord(ch)
        if code not in rl.face.charToGlyph and (_PUA <= code <= _PUA_END or code >= _PLANE15):
            _private(rl, code - (_PUA if code <= _PUA_END else _PLANE15), d[5])


@lru_cache(maxsize=65536)
def shape(text: str, font: str, rtl: bool = False) -> tuple[str, Shaped | None, float]:
    """(characters to draw, shape data or None when plain, advance width per unit of font size)."""
    if not text:
        return "", None, 0.0
    rl = _ttf(font)
    hbfont, upem = _hb(font)
    buf = hb.Buffer()
    buf.add_str(text)
    buf.guess_segment_properties()
    buf.direction = "rtl" if rtl else "ltr"
    hb.shape(hbfont, buf, FEATURES)
    scale = 1000.0 / upem
    face = rl.face
    c2g, g2c, widths = face.charToGlyph, face.glyphToChar, face.charWidths  # type: ignore[attr-defined]
    n = len(text)
    chars: list[int] = []
    data: list[Glyph] = []
    plain, total = not rtl, 0
    for i, (info, pos) in enumerate(zip(buf.glyph_infos, buf.glyph_positions)):
        gid, cluster = info.codepoint, info.cluster
        x_advance, x_offset, y_offset = pos.x_advance, pos.x_offset, pos.y_offset
        code = ord(text[cluster]) if cluster < n else -1
        if c2g.get(code) != gid:
            codes = g2c.get(gid)
            code = codes[0] if codes else _private(rl, gid, x_advance * scale)
        adv = x_advance * scale
        width = widths.get(code, adv)
        if plain and (cluster != i or abs(adv - width) > 1e-6 or x_offset or y_offset):
            plain = False
        chars.append(code)
        data.append((cluster, adv, pos.y_advance * scale, x_offset * scale, y_offset * scale, width))
        total += x_advance
    if plain and len(chars) == n:
        return text, None, pdfmetrics.stringWidth(text, font, 1.0)
    return "".join(map(chr, chars)), tuple(data), total / upem


def drawable(chars: str, data: Shaped | None) -> str | ShapedStr:
    """What ReportLab's text object draws for a shaped run."""
    if data is None:
        return chars
    return ShapedStr(chars, shapeData=[ShapeData(*d) for d in data])  # type: ignore[arg-type]  # a list, one per glyph


def width(text: str, font: str, size: float, direction: str = "auto") -> float:
    """The advance width of one line of text, shaped, in the units of size."""
    if not text:
        return 0.0
    if direction != "rtl" and not needs_bidi(text):  # one left-to-right run: the common case, kept cheap
        return size * shape(text, font, False)[2]
    pieces = visual_pieces([(text, None)], direction)
    return size * sum(shape(t, font, rtl)[2] for t, _, rtl in pieces)
