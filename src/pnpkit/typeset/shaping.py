"""Every script shaped: HarfBuzz glyphs and the Unicode bidi algorithm, for measuring and drawing.

A line of text becomes glyphs in two steps. The bidi algorithm (unibidi.py: rules
P2-P3 and X1-I2; L1 and L2 here) resolves each character's
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

import math
import re
from collections.abc import Iterable, Sequence
from functools import partial
from itertools import groupby
from types import MappingProxyType
from typing import Any, Protocol, TypeVar, cast

import uharfbuzz as hb
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import ShapeData, ShapedStr, TTFont

from pnpkit import workspace
from pnpkit.typeset import unibidi

# Kerning on. Standard ligatures (fi, fl) off: ReportLab's ToUnicode map gives each glyph one
# character, so a ligature would copy and search as U+FB01. Required ligatures and joining
# (rlig, init/medi/fina: Arabic lam-alef, every joined letter) are always on in HarfBuzz.
FEATURES = MappingProxyType({"kern": True, "liga": False, "clig": False})
# Characters that can make a line anything but left-to-right at level 0: Hebrew, Arabic, Syriac,
# Thaana, NKo, Samaritan, Mandaic, their presentation forms, RTL scripts outside the BMP, and the
# explicit bidi controls. A line without any of them skips the bidi algorithm.
_RTL = re.compile(
    "[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff\U00010800-\U00010fff\U0001e800-\U0001efff"
    "\u200f\u202a-\u202e\u2066-\u2069]"
)


def needs_bidi(text: str) -> bool:
    return _RTL.search(text) is not None


def base_level(text: str, direction: str = "auto") -> int:
    """0 (left to right) or 1 (right to left): given, or from the first strong character (P2,
    P3)."""
    if direction != "auto":
        return 1 if direction == "rtl" else 0
    return unibidi.base_level(text) if needs_bidi(text) else 0


def levels(text: str, base: int) -> list[int]:
    """The resolved embedding level of each character of one line (rules X1-I2)."""
    if base == 0 and not needs_bidi(text):
        return [0] * len(text)
    out = unibidi.levels(text, base)
    # L1: trailing whitespace goes back to the paragraph level
    i = len(text)
    while i > 0 and text[i - 1].isspace():
        i -= 1
        out[i] = base
    return out


K = TypeVar("K")  # the caller's key for a run, handed back with each of its pieces


def visual_pieces(
    runs: Sequence[tuple[str, K]], direction: str = "auto"
) -> list[tuple[str, K, bool]]:
    """Cut a line given as logical runs (text, key) into pieces of one run and one level and put
    them in visual order (L2); each piece is (text in logical order, key, right-to-left)."""
    line = "".join(text for text, _ in runs)
    base = base_level(line, direction)
    if base == 0 and not needs_bidi(line):
        return [(text, key, False) for text, key in runs if text]
    lv = levels(line, base)
    pieces: list[tuple[int, str, K]] = []  # (level, text, key)
    pos = 0
    for text, key in runs:
        for level, chunk in groupby(range(pos, pos + len(text)), key=lambda i: lv[i]):
            idx = list(chunk)
            pieces.append((level, line[idx[0] : idx[-1] + 1], key))
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


def visual_line(text: str, font: str, direction: str = "auto") -> tuple[str, float]:
    """One line for a plain drawString: its characters shaped and in visual order (Arabic joined,
    right-to-left runs reversed), and its advance per unit of font size. Glyph offsets (marks'
    placement) are dropped: for pnpkit's own short lines, not a designer's text."""
    pieces = [shape(t, font, rtl) for t, _, rtl in visual_pieces([(text, None)], direction)]
    return "".join(chars for chars, _, _ in pieces), sum(width for _, _, width in pieces)


@workspace.memoized(256)
def _hb(font: str) -> tuple[Any, int]:
    """HarfBuzz's font for a registered ReportLab font, at one unit per em unit."""
    # the bytes ReportLab read: a pack's converted font (.otf, .woff, a variable instance) is
    # registered from memory, with no file to read again (fontfiles.py)
    hb_face = hb.Face(hb.Blob(_ttf(font).face._ttf_data))  # type: ignore[attr-defined]  # no stub
    return hb.Font(hb_face), hb_face.upem


_PUA, _PUA_END, _PLANE15 = 0xE000, 0xF8FF, 0xF0000
# per glyph: (cluster, x advance, y advance, x offset, y offset, width), 1000 units per em
Glyph = tuple[int, float, float, float, float, float]
Shaped = tuple[Glyph, ...]


def _ttf(font: str) -> TTFont:
    """A registered font: every font pnpkit registers is a TrueType font."""
    return cast(TTFont, pdfmetrics.getFont(font))


class _FaceInside(Protocol):
    """What TTFontFile.extractInfo() sets, not in types-reportlab: each glyph's characters."""

    glyphToChar: dict[int, list[int]]


def _glyph_to_char(face: object) -> dict[int, list[int]]:
    return cast(_FaceInside, face).glyphToChar


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
        _glyph_to_char(face).setdefault(gid, []).append(code)
        face.charWidths[code] = advance
    return code


_PRIVATE = re.compile("[\ue000-\uf8ff\U000f0000-\U0010ffff]")


def has_private(chars: str) -> bool:
    """Whether a shaped run's characters include private-use code points (glyphs with no
    character of their own), which register_private() makes known."""
    return _PRIVATE.search(chars) is not None


def register_private(font: str, chars: str, data: Shaped) -> None:
    """Make the private-use code points of a shaped run known to the font (a cached drawing)."""
    if not has_private(chars):  # most runs have none: no Python step per character
        return
    rl = _ttf(font)
    for ch, d in zip(chars, data):
        code = ord(ch)
        if code not in rl.face.charToGlyph and (_PUA <= code <= _PUA_END or code >= _PLANE15):
            _private(rl, code - (_PUA if code <= _PUA_END else _PLANE15), d[5])


Glyphs = tuple[tuple[int, ...], Shaped, bool, int]
_CONCAT = hb.BufferFlags.PRODUCE_UNSAFE_TO_CONCAT
_UNSAFE = hb.GlyphFlags.UNSAFE_TO_CONCAT


@workspace.memoized(65536)
def shape(text: str, font: str, rtl: bool = False) -> tuple[str, Shaped | None, float]:
    """(characters to draw, shape data or None when plain, advance width per unit of font size)."""
    if not text:
        return "", None, 0.0
    glyphs = _from_words(text, font) if not rtl and " " in text and "  " not in text else None
    if glyphs is None:
        glyphs = _glyphs(text, font, _run(text, font, rtl, None, 0), rtl)
    codes, data, plain, total = glyphs
    if plain:
        return text, None, pdfmetrics.stringWidth(text, font, 1.0)
    return "".join(map(chr, codes)), data, total / _hb(font)[1]


def _run(text: str, font: str, rtl: bool, script: str | None, flags: int) -> hb.Buffer:
    """HarfBuzz's buffer with text shaped as one run. script: the script of the line the text
    stands in (a word of digits in a Latin line is shaped as Latin); None: guessed from text."""
    buf = hb.Buffer()
    buf.add_str(text)
    buf.guess_segment_properties()
    if script is not None:
        buf.script = script
    buf.direction = "rtl" if rtl else "ltr"
    if flags:
        buf.flags = flags
    hb.shape(_hb(font)[0], buf, dict(FEATURES))  # uharfbuzz takes a dict alone
    return buf


def _glyphs(text: str, font: str, buf: hb.Buffer, rtl: bool) -> Glyphs:
    """A shaped run read out: (code per glyph, shape data, plain, advance in font units). Plain:
    one glyph per character, each the character's own glyph at its normal advance."""
    rl = _ttf(font)
    scale = 1000.0 / _hb(font)[1]
    face = rl.face
    c2g, widths = face.charToGlyph, face.charWidths
    g2c = _glyph_to_char(face)
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
        data.append(
            (cluster, adv, pos.y_advance * scale, x_offset * scale, y_offset * scale, width)
        )
        total += x_advance
    return tuple(chars), tuple(data), plain and len(chars) == n, total


def _script(text: str) -> str | None:
    """The script HarfBuzz gives a whole line: that of its first character of a script of its
    own."""
    buf = hb.Buffer()
    buf.add_str(text)
    buf.guess_segment_properties()
    script: str | None = buf.script
    return script


WORDS_KEPT = 4096  # words shaped that a large build keeps from batch to batch: its vocabulary


def forget_shapes() -> None:
    """Let go of the texts shaped so far, and of the words shaped once they are more than
    WORDS_KEPT (a large build, after each batch: see build._streamed). Each card's own words
    (its number, its name) are shaped once and never again, so kept they grew with the deck;
    cleared after every batch, the deck's common words were shaped again each time (3 % more
    instructions for batches of 64 cards)."""
    shape.cache_clear()
    if _word.size() > WORDS_KEPT:
        _word.cache_clear()
    if _word_ink.size() > WORDS_KEPT:
        _word_ink.cache_clear()


@workspace.memoized(65536)
def _word(word: str, font: str, script: str | None) -> Glyphs | None:
    """A word's glyphs as they stand between spaces in a left-to-right line, or None when they
    might not. The word is shaped after a space and before two, with HarfBuzz marking a glyph
    unsafe to concatenate when its cluster is inside a stretch some lookup looked at from an
    earlier glyph, and the first glyph when a lookup looked before the text. It stands alone when
    nothing looked before the leading space, nothing that began before the first trailing space
    reached the second, the word's glyphs are its glyphs alone and both spaces are a lone
    space's (no kerning with them). A lookup at a space looking into the next word is that
    word's leading space, checked when that word is."""
    alone = _glyphs(word, font, _run(word, font, False, script, 0), False)
    probe = f" {word}  "
    buf = _run(probe, font, False, script, _CONCAT)
    infos = buf.glyph_infos
    if len(infos) != len(alone[0]) + 3 or infos[0].flags & _UNSAFE:
        return None
    if infos[-2].flags & _UNSAFE and infos[-1].flags & _UNSAFE:
        return None  # something before the first trailing space may have reached past it
    codes, data, _, _ = _glyphs(probe, font, buf, False)
    space = _space(font, script)
    if codes[1:-2] != alone[0] or tuple((d[0] - 1, *d[1:]) for d in data[1:-2]) != alone[1]:
        return None
    for at in (0, -2):
        if codes[at] != space[0][0] or data[at][1:] != space[1][0][1:]:
            return None
    return alone


@workspace.memoized(256)
def _space(font: str, script: str | None) -> Glyphs:
    return _glyphs(" ", font, _run(" ", font, False, script, 0), False)


def _from_words(text: str, font: str) -> Glyphs | None:
    """A left-to-right line's glyphs put together from its words' and its spaces' (each word
    shaped once: words repeat from line to line), or None when a word cannot stand alone (the
    line is shaped whole then). Exactly HarfBuzz's glyphs for the whole line; of a plain line
    (shape() draws its characters) only that it is plain and its advance."""
    script = _script(text)
    space = _space(font, script)
    if len(space[0]) != 1:
        return None
    words = text.split(" ")
    shaped: list[Glyphs | None] = []
    plain, total = space[2], space[3] * (len(words) - 1)
    for word in words:
        glyphs = _word(word, font, script) if word else None
        if glyphs is None:
            if word:
                return None
        else:
            plain = plain and glyphs[2]
            total += glyphs[3]
        shaped.append(glyphs)
    if plain:
        return (), (), True, total
    space_code, space_data = space[0][0], space[1][0][1:]
    codes: list[int] = []
    data: list[Glyph] = []
    at = 0
    for n, (word, glyphs) in enumerate(zip(words, shaped)):
        if n:
            codes.append(space_code)
            data.append((at, *space_data))
            at += 1
        if glyphs is not None:
            codes += glyphs[0]
            # each glyph's cluster moved to the word's place in the line (its fields unpacked
            # by the loop: half the time of slicing and starring them)
            if at:  # the glyph's fields: cluster, x and y advance, x and y offset, width
                data += [(c + at, xa, ya, xo, yo, w) for c, xa, ya, xo, yo, w in glyphs[1]]
            else:
                data += glyphs[1]
            at += len(word)
    return tuple(codes), tuple(data), False, total


def drawable(chars: str, data: Shaped | None) -> str | ShapedStr:
    """What ReportLab's text object draws for a shaped run."""
    if data is None:
        return chars
    return ShapedStr(chars, shapeData=list(map(_shape_data, data)))  # type: ignore[arg-type]  # a list, one per glyph


# ShapeData(*d) without a Python call per glyph: ShapeData is a namedtuple (same objects)
_shape_data = partial(tuple.__new__, ShapeData)


def width(text: str, font: str, size: float, direction: str = "auto") -> float:
    """The advance width of one line of text, shaped, in the units of size."""
    if not text:
        return 0.0
    if direction != "rtl" and not needs_bidi(
        text
    ):  # one left-to-right run: the common case, kept cheap
        return size * shape(text, font, False)[2]
    pieces = visual_pieces([(text, None)], direction)
    return size * sum(shape(t, font, rtl)[2] for t, _, rtl in pieces)


Box = tuple[float, float, float, float]  # left, top, right, bottom at size 1, y down


def ink(text: str, font: str) -> Box | None:
    """The ink of one line of text drawn left to right at size 1: (left, top, right, bottom)
    from the start of its baseline, y down; None if it has none (spaces) or holds characters
    only pnpkit's registration knows (a private-use glyph). Each glyph's bounds at its place
    along the line's advance (kerning left out: a hair), a word at a time (words repeat)."""
    pieces: list[tuple[float, Box | None]] = []
    for n, word in enumerate(text.split(" ")):
        if n:
            pieces.append((_glyph(" ", font)[0], None))
        if word:
            piece = _word_ink(word, font)
            if piece is None:
                return None
            pieces.append(piece)
    return _laid(pieces)[1]


@workspace.memoized(65536)
def _word_ink(word: str, font: str) -> tuple[float, Box | None] | None:
    """A word's advance and its glyphs' bounds from its start (None: it draws nothing), or None
    if it holds a private-use character (see ink)."""
    if any(_PUA <= ord(c) <= _PUA_END or ord(c) >= _PLANE15 for c in word):
        return None
    return _laid(_glyph(c, font) for c in word)


def _laid(pieces: Iterable[tuple[float, Box | None]]) -> tuple[float, Box | None]:
    """Pieces (an advance, and bounds from the piece's start or None) set one after another:
    their advance, and the bounds of all their ink (None: none)."""
    left = top = math.inf
    right = bottom = -math.inf
    x = 0.0
    for advance, box in pieces:
        if box is not None:
            left, top = min(left, x + box[0]), min(top, box[1])
            right, bottom = max(right, x + box[2]), max(bottom, box[3])
        x += advance
    return x, None if left == math.inf else (left, top, right, bottom)


@workspace.memoized(65536)
def _glyph(c: str, font: str) -> tuple[float, Box | None]:
    """A character's advance at size 1 and its glyph bounds (y down), or None if it draws
    nothing: one look-up a character for ink(), which runs on every text of every face."""
    advance = pdfmetrics.stringWidth(c, font, 1.0)
    hb_font, upem = _hb(font)
    gid = _ttf(font).face.charToGlyph.get(ord(c))
    extents = hb_font.get_glyph_extents(gid) if gid is not None else None
    if extents is None or not (extents.width and extents.height):
        return advance, None
    top = -extents.y_bearing / upem  # HarfBuzz's y runs up
    left = extents.x_bearing / upem
    return advance, (left, top, left + extents.width / upem, top - extents.height / upem)
