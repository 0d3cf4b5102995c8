"""The fonts pnpkit ships, registered explicitly with ReportLab.

Fonts come with the package (src/pnpkit/fonts), never from the machine, so a
kit prints the same everywhere. Templates name a family and a weight/style;
anything else is a located problem, never a silent fallback.
"""

from __future__ import annotations

from functools import cache, lru_cache
from pathlib import Path
from typing import cast

from reportlab import rl_config
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

FONT_DIR = Path(__file__).parent / "fonts"

# family -> {(bold, italic): file}
FAMILIES = {
    "DejaVu Sans": {
        (False, False): "DejaVuSans.ttf",
        (True, False): "DejaVuSans-Bold.ttf",
        (False, True): "DejaVuSans-Oblique.ttf",
        (True, True): "DejaVuSans-BoldOblique.ttf",
    },
}
DEFAULT_FAMILY = "DejaVu Sans"
_SUFFIX = {
    (False, False): "",
    (True, False): "-Bold",
    (False, True): "-Italic",
    (True, True): "-BoldItalic",
}


# The fonts of the pack being built (packfonts.py): family -> {(bold, italic): ReportLab name}.
# ReportLab's names carry a hash of the file, so two packs' "Body" never meet.
Style = tuple[bool, bool]  # (bold, italic)
_PACK: dict[str, dict[Style, str]] = {}
_SIGNATURE = "[]"  # signature() of _PACK, made when use() sets it: cache keys ask per face


def use(pack_fonts: dict[str, dict[Style, tuple[str, str]]]) -> None:
    """Make a pack's fonts (family -> {(bold, italic): (path, sha)}) the ones templates may name."""
    global _SIGNATURE
    _PACK.clear()
    try:
        for family, styles in pack_fonts.items():
            _PACK[family] = {}
            for style, (path, sha) in styles.items():
                name = f"{family}#{sha}"
                if name not in _registered:
                    pdfmetrics.registerFont(TTFont(name, path))
                    _registered.add(name)
                _PACK[family][style] = name
    finally:  # a font that fails to load leaves the fonts in use and their signature alike
        _SIGNATURE = repr(sorted((f, sorted(s.items())) for f, s in _PACK.items()))


_registered: set[str] = set()


def families() -> list[str]:
    return list(FAMILIES) + list(_PACK)


def signature() -> str:
    """What the fonts in use are, for cache keys."""
    return _SIGNATURE


def face_name(family: str, bold: bool = False, italic: bool = False) -> str | None:
    """ReportLab's name for a registered face, or None if there is no such family or face."""
    if family in _PACK:
        return _PACK[family].get((bold, italic))
    if family not in FAMILIES:
        return None
    register_all()
    return family + _SUFFIX[(bold, italic)]


def default_face(bold: bool = False) -> str:
    """ReportLab's name for a face of the default family, which is always there."""
    register_all()
    return DEFAULT_FAMILY + _SUFFIX[(bold, False)]


@cache
def register_all() -> None:
    """Register every shipped face once, and make the canvas default a shipped font.

    Without the rl_config change ReportLab puts a non-embedded Helvetica into
    every page's resources, which print shops' preflight rejects.
    """
    for family, faces in FAMILIES.items():
        for style, filename in faces.items():
            pdfmetrics.registerFont(TTFont(family + _SUFFIX[style], str(FONT_DIR / filename)))
    rl_config.canvas_basefontname = DEFAULT_FAMILY
    rl_config.defaultGraphicsFontName = DEFAULT_FAMILY


@cache
def _cmap(font: str) -> frozenset[int]:
    register_all()
    return frozenset(cast(TTFont, pdfmetrics.getFont(font)).face.charToGlyph)


def missing_glyphs(font: str, text: str) -> str:
    """The characters of text that the font cannot draw (in order, once each)."""
    cmap = _cmap(font)
    if cmap.issuperset(map(ord, text)):  # the common case, without a Python step per character
        return ""
    seen: dict[str, None] = {}
    for ch in text:
        if ord(ch) not in cmap and not ch.isspace():
            seen[ch] = None
    return "".join(seen)


def string_width(text: str, font: str, size: float) -> float:
    """Advance width of one line of text, shaped (kerning, ligatures, joining, bidi), in the
    units of size."""
    register_all()
    from pnpkit import shaping  # shaping needs registered fonts; fonts is imported first

    return shaping.width(text, font, size)


@lru_cache(maxsize=1 << 16)
def unit_width(text: str, font: str) -> float:
    """string_width at size 1, kept: text is measured word by word, and words repeat. Times a
    size it is exactly string_width at that size (both are the size times the same number)."""
    return string_width(text, font, 1.0)


def ascent_descent(font: str) -> tuple[float, float]:
    """The font's ascent and (negative) descent per unit of size."""
    register_all()
    face = cast(TTFont, pdfmetrics.getFont(font)).face
    return face.ascent / 1000.0, face.descent / 1000.0


def glyph_count(font: str) -> int:
    return len(_cmap(font))
