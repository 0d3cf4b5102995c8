"""The fonts pnpkit ships, registered explicitly with ReportLab.

Fonts come with the package (src/pnpkit/fonts), never from the machine, so a
kit prints the same everywhere. Templates name a family and a weight/style;
anything else is a located problem, never a silent fallback.
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
from typing import cast

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


class _InUse:
    """A workspace's pack fonts: family -> {style: ReportLab name}, and their signature()
    (made when use() sets them: cache keys ask per face)."""

    def __init__(self) -> None:
        self.families: dict[str, dict[Style, str]] = {}
        self.signature = "[]"


_PACK = workspace.Slot("fonts.pack", _InUse)


def use(pack_fonts: dict[str, dict[Style, tuple[str, str]]]) -> None:
    """Make a pack's fonts (family -> {(bold, italic): (path, sha)}) the ones templates may name."""
    in_use = _PACK.here()
    pack = in_use.families = {}
    try:
        for family, styles in pack_fonts.items():
            pack[family] = {}
            for style, (path, sha) in styles.items():
                name = f"{family}#{sha}"
                if name not in pdfmetrics.getRegisteredFontNames():
                    _register_pack_face(TTFont(name, path))
                pack[family][style] = name
    finally:  # a font that fails to load leaves the fonts in use and their signature alike
        in_use.signature = repr(sorted((f, sorted(s.items())) for f, s in pack.items()))


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
    """ReportLab's name for a registered face, or None if there is no such family or face."""
    styles = _PACK.here().families.get(family)
    if styles is not None:
        return styles.get((bold, italic))
    if family not in FAMILIES:
        return None
    return known(family + _SUFFIX[(bold, italic)])


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
    from pnpkit.typeset import shaping  # shaping needs registered fonts; fonts is imported first

    return shaping.width(text, known(font), size)


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
