"""The fonts pnpkit ships, registered explicitly with ReportLab.

Fonts come with the package (src/pnpkit/fonts), never from the machine, so a
kit prints the same everywhere. Templates name a family and a weight/style.

A face draws what it has glyphs for; a character it lacks is drawn by the next face
of its chain (chain()): the same family in the nearest style (bold italic, bold,
italic, regular), then the pack's `fonts: fallback:` families in order, each in the
nearest style. A character no face of the chain has is a located problem, never a
fallback to whatever a machine has installed.
"""

from __future__ import annotations

import io
import unicodedata
from pathlib import Path
from types import MappingProxyType
from typing import NamedTuple, cast

from reportlab import rl_config
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

from pnpkit import workspace

FONT_DIR = Path(__file__).parent.parent / "fonts"

# family -> {(bold, italic): file}
FAMILIES = MappingProxyType(
    {
        "DejaVu Sans": {
            (False, False): "DejaVuSans.ttf",
            (True, False): "DejaVuSans-Bold.ttf",
            (False, True): "DejaVuSans-Oblique.ttf",
            (True, True): "DejaVuSans-BoldOblique.ttf",
        },
    }
)
DEFAULT_FAMILY = "DejaVu Sans"
_SUFFIX = MappingProxyType(
    {
        (False, False): "",
        (True, False): "-Bold",
        (False, True): "-Italic",
        (True, True): "-BoldItalic",
    }
)


# The fonts of the pack being built (packfonts.py): family -> {(bold, italic): ReportLab name}.
# ReportLab's names carry a hash of the file, so two packs' "Body" never meet.
Style = tuple[bool, bool]  # (bold, italic)


class PackFace(NamedTuple):
    """A face of a pack's font: its file, a hash of what is embedded, and the TrueType bytes
    to embed when they are not the file's own (fontfiles.py made them)."""

    path: str
    key: str
    data: bytes | None = None


PackFonts = dict[str, dict[Style, PackFace]]


class _InUse:
    """A workspace's pack fonts: family -> {style: ReportLab name}, the fallback families in
    order, each face's chain (chain()) and (family, style) (style_of()), and their signature()
    (made when use() sets them: cache keys ask per face)."""

    def __init__(self) -> None:
        self.families: dict[str, dict[Style, str]] = {}
        self.fallback: list[str] = []  # the pack's fonts: fallback: families, in order
        # a face's name -> the faces drawing for it; None until first asked (_in_use())
        self.chains: dict[str, tuple[str, ...]] | None = None
        self.style_of: dict[str, tuple[str, Style]] = {}  # a face's name -> (family, style)
        self.signature = "[]"


_PACK = workspace.Slot("fonts.pack", _InUse)


def use(pack_fonts: PackFonts, fallback: tuple[str, ...] = ()) -> None:
    """Make a pack's fonts (family -> {(bold, italic): PackFace}) the ones templates may name,
    and fallback the families that draw what a face lacks."""
    in_use = _PACK.here()
    pack = in_use.families = {}
    try:
        for family, styles in pack_fonts.items():
            pack[family] = {}
            for style, face in styles.items():
                name = f"{family}#{face.key}"
                if name not in pdfmetrics.getRegisteredFontNames():
                    source = io.BytesIO(face.data) if face.data is not None else face.path
                    _register_pack_face(TTFont(name, source))
                pack[family][style] = name
    finally:  # a font that fails to load leaves the fonts in use and their signature alike
        in_use.fallback = [f for f in fallback if f in pack or f in FAMILIES]
        _chains(in_use)
        signature = repr(sorted((f, sorted(s.items())) for f, s in pack.items()))
        signature += f" fallback {in_use.fallback}" if in_use.fallback else ""
        if signature != in_use.signature:  # the widths measured through chains may differ now
            unit_width.cache_clear()
        in_use.signature = signature


_NEAREST = MappingProxyType(
    {  # the styles a face's family is searched in for a character, nearest first
        (True, True): ((True, True), (True, False), (False, True), (False, False)),
        (True, False): ((True, False), (False, False)),
        (False, True): ((False, True), (False, False)),
        (False, False): ((False, False),),
    }
)


def _chains(in_use: _InUse) -> None:
    """Every face's chain, for the families in use (the pack's, FAMILIES, the fallback)."""
    chains: dict[str, tuple[str, ...]] = {}
    in_use.style_of = {}
    for family in families():
        for style in _NEAREST:
            name = _own_face(family, style)
            if name is not None:
                in_use.style_of[name] = (family, style)
    for family in families():
        for style in _NEAREST:
            name = _own_face(family, style)
            if name is None:
                continue
            chain: dict[str, None] = {}
            for other in [family] + [f for f in in_use.fallback if f != family]:
                for near in _NEAREST[style]:
                    face = _own_face(other, near)
                    if face is not None:
                        chain[face] = None
                if other == family:
                    chain.update(dict.fromkeys(_family_faces(family)))  # any style before others
            chains[name] = tuple(chain)
    in_use.chains = chains


def _own_face(family: str, style: Style) -> str | None:
    """ReportLab's name of the family's face in exactly this style, if it has one (unregistered
    for a shipped face)."""
    pack = _PACK.here().families
    if family in pack:
        return pack[family].get(style)
    if family in FAMILIES and style in FAMILIES[family]:
        return family + _SUFFIX[style]
    return None


def _family_faces(family: str) -> list[str]:
    return [f for style in _NEAREST if (f := _own_face(family, style)) is not None]


def _in_use() -> _InUse:
    """The workspace's fonts in use, their chains made if not yet (the shipped families' chains
    before any pack's fonts are in use)."""
    in_use = _PACK.here()
    if in_use.chains is None:
        _chains(in_use)
    return in_use


def chain(font: str) -> tuple[str, ...]:
    """The faces that draw text set in font, in the order a character is looked for: font first."""
    chains = _in_use().chains
    return (font,) if chains is None else chains.get(font, (font,))


def style_of(font: str) -> tuple[str, Style] | None:
    """(family, (bold, italic)) of a face in use."""
    return _in_use().style_of.get(font)


def split(text: str, font: str) -> list[tuple[str, str]]:
    """text cut into pieces (text, face), each drawn by the first face of font's chain that has
    its characters. Marks, digits, spaces and punctuation stay with the piece before them when
    its face has them, so a word is not cut at its accents or a sentence at its spaces."""
    faces = chain(font)
    if len(faces) == 1 or _covers(font, text):  # the common case
        return [(text, font)]
    maps = [_cmap(f) for f in faces]
    pieces: list[tuple[str, str]] = []
    start, current = 0, 0
    for i, ch in enumerate(text):
        code = ord(ch)
        if code in maps[current] and (current == 0 or unicodedata.category(ch)[0] != "L"):
            continue  # the face in use draws it: any character of the first face, or a mark,
            # digit, space or punctuation of a later one (a letter asks the first face again)
        found = next((n for n, m in enumerate(maps) if code in m), current)
        if found != current:
            if i > start:
                pieces.append((text[start:i], faces[current]))
            start, current = i, found
    pieces.append((text[start:], faces[current]))
    return pieces


def substitutes(font: str, text: str) -> dict[str, str]:
    """The faces other than font that draw characters of text: face -> those characters (once
    each, in order)."""
    out: dict[str, str] = {}
    for piece, face in split(text, font):
        if face != font and piece.strip():
            seen = out.get(face, "")
            out[face] = seen + "".join(dict.fromkeys(c for c in piece if c not in seen))
    return out


def _register_pack_face(font: TTFont) -> None:
    """Register a pack's face. ReportLab gives a face the font object first registered under its
    PostScript name: a pack that ships a copy of a shipped face draws with the shipped face's
    object, as it did when every shipped face was registered before any pack's, whichever of
    the two is named first."""
    shipped = _SHIPPED_BY_PS_NAME.get(font.face.name)
    if shipped is not None:
        known(shipped)
    pdfmetrics.registerFont(font)


def families() -> list[str]:
    return list(FAMILIES) + list(_PACK.here().families)


def signature() -> str:
    """What the fonts in use are, for cache keys."""
    return _PACK.here().signature


def face_name(family: str, bold: bool = False, italic: bool = False) -> str | None:
    """ReportLab's name for the family's face in that style, or in the nearest style it has
    (has_face() tells which); None if there is no such family."""
    pack = _PACK.here().families
    for style in _NEAREST[bold, italic]:
        if family in pack and style in pack[family]:
            return pack[family][style]
        if family in FAMILIES and style in FAMILIES[family]:
            return known(family + _SUFFIX[style])
    return None


def has_face(family: str, bold: bool = False, italic: bool = False) -> bool:
    """Whether the family has a face in exactly that style."""
    return _own_face(family, (bold, italic)) is not None


def default_face(bold: bool = False) -> str:
    """ReportLab's name for a face of the default family, which is always there."""
    return known(DEFAULT_FAMILY + _SUFFIX[(bold, False)])


def known(name: str) -> str:
    """name, the shipped face of that name registered if it was not yet: each is registered when
    first named (a pack rarely uses all four, and reading one costs 30-40 ms), by face_name()
    for a template's text and here for a name that comes another way (a drawing from the cache
    or from a worker, svg.ops.op_from_row). Any other name is returned as it is: a pack's face
    (use()), or a name ReportLab does not know."""
    filename = _SHIPPED.get(name)
    if filename is not None and name not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(TTFont(name, str(FONT_DIR / filename)))
    return name


def for_canvas() -> str:
    """Make the canvas default the shipped regular face, registered; its name.

    Without the rl_config change ReportLab puts a non-embedded Helvetica into
    every page's resources, which print shops' preflight rejects.
    """
    rl_config.canvas_basefontname = DEFAULT_FAMILY
    rl_config.defaultGraphicsFontName = DEFAULT_FAMILY
    return default_face()


# ReportLab's name of each shipped face -> its file (registered by known() when first named)
_SHIPPED = MappingProxyType(
    {
        family + _SUFFIX[style]: filename
        for family, faces in FAMILIES.items()
        for style, filename in faces.items()
    }
)
# The PostScript name in each shipped file -> ReportLab's name of the face (_register_pack_face);
# a test checks them against the files
_SHIPPED_BY_PS_NAME = MappingProxyType(
    {
        b"DejaVuSans": "DejaVu Sans",
        b"DejaVuSans-Bold": "DejaVu Sans-Bold",
        b"DejaVuSans-Oblique": "DejaVu Sans-Italic",
        b"DejaVuSans-BoldOblique": "DejaVu Sans-BoldItalic",
    }
)


@workspace.memoized(256)
def _cmap(font: str) -> frozenset[int]:
    return frozenset(cast(TTFont, pdfmetrics.getFont(known(font))).face.charToGlyph)


def _covers(font: str, text: str) -> bool:
    """Whether the face has a glyph for every character of text."""
    return _cmap(font).issuperset(map(ord, text))


def missing_glyphs(font: str, text: str) -> str:
    """The characters of text that no face of the font's chain can draw (in order, once each)."""
    if _covers(font, text):  # the common case, without a Python step per character
        return ""
    maps = [_cmap(f) for f in chain(font)]
    seen: dict[str, None] = {}
    for ch in text:
        if not ch.isspace() and not any(ord(ch) in m for m in maps):
            seen[ch] = None
    return "".join(seen)


def string_width(text: str, font: str, size: float) -> float:
    """Advance width of one line of text, shaped (kerning, ligatures, joining, bidi), in the
    units of size; each piece in the face of the chain that draws it."""
    from pnpkit.typeset import shaping  # shaping needs registered fonts; fonts is imported first

    font = known(font)
    if _covers(font, text):  # the common case: one face draws it all
        return shaping.width(text, font, size)
    pieces = split(text, font)
    # the pieces at size 1, then scaled: bit for bit unit_width() times the size
    return size * sum(shaping.width(piece, face, 1.0) for piece, face in pieces)


@workspace.memoized(1 << 16)
def unit_width(text: str, font: str) -> float:
    """string_width at size 1, kept: text is measured word by word, and words repeat. Times a
    size it is exactly string_width at that size (both are the size times the same number)."""
    return string_width(text, font, 1.0)


def ascent_descent(font: str) -> tuple[float, float]:
    """The font's ascent and (negative) descent per unit of size."""
    face = cast(TTFont, pdfmetrics.getFont(known(font))).face
    return face.ascent / 1000.0, face.descent / 1000.0


def glyph_count(font: str) -> int:
    return len(_cmap(font))
