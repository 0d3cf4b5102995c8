"""Fonts in the formats foundries ship, made for the tests from the shipped DejaVu Sans (a few
glyphs of it, a few kB each): CFF-flavoured OpenType, WOFF, WOFF2 and a variable font.
Made on the fly, so no binary of them lives in the repository."""

from __future__ import annotations

import io
import struct
import zlib
from functools import cache
from pathlib import Path

import brotli
from fontTools import subset
from fontTools.fontBuilder import FontBuilder
from fontTools.pens.t2CharStringPen import T2CharStringPen
from fontTools.ttLib import TTFont, newTable
from fontTools.ttLib.tables._f_v_a_r import Axis, NamedInstance
from fontTools.ttLib.tables._g_v_a_r import TupleVariation

from pnpkit.typeset import fontfiles

SHIPPED = Path(__file__).resolve().parents[1] / "src" / "pnpkit" / "fonts"
DEJAVU = SHIPPED / "DejaVuSans.ttf"
TEXT = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 .,:!?-"


@cache
def truetype(text: str = TEXT, source: Path = DEJAVU, family: str = "Fmt Test") -> bytes:
    """A shipped face (DejaVu Sans) cut down to text's characters (and .notdef), TrueType
    outlines, named family."""
    font = TTFont(source)
    options = subset.Options()
    options.name_IDs = ["*"]
    options.notdef_outline = True
    options.layout_features = ["*"]
    sub = subset.Subsetter(options)
    options.drop_tables += ["FFTM"]
    options.hinting = False  # as a CFF font converted to TrueType has none: they draw alike
    sub.populate(text=text)
    sub.subset(font)
    # names of its own: ReportLab would draw a font named DejaVuSans with the shipped face
    for record in font["name"].names:
        if record.nameID in (1, 4, 16):
            record.string = family
        elif record.nameID == 6:
            record.string = family.replace(" ", "")
    out = io.BytesIO()
    font.save(out)
    return out.getvalue()


def _load(data: bytes) -> TTFont:
    return TTFont(io.BytesIO(data))


def _save(font: TTFont, flavor: str | None = None) -> bytes:
    font.flavor = flavor
    out = io.BytesIO()
    font.save(out)
    return out.getvalue()


@cache
def cff(text: str = TEXT, family: str = "Fmt Test", source: Path = DEJAVU) -> bytes:
    """An OpenType font with PostScript (CFF) outlines: the glyphs of truetype(text) redrawn
    as cubic charstrings, as a foundry's .otf has them."""
    src = _load(truetype(text, source, family))
    order = src.getGlyphOrder()
    glyphs = src.getGlyphSet()
    metrics = {name: src["hmtx"][name] for name in order}
    charstrings = {}
    for name in order:
        pen = T2CharStringPen(metrics[name][0], glyphs)
        glyphs[name].draw(pen)
        charstrings[name] = pen.getCharString()
    fb = FontBuilder(src["head"].unitsPerEm, isTTF=False)
    fb.setupGlyphOrder(order)
    fb.setupCharacterMap(src.getBestCmap())
    ps = family.replace(" ", "") + "-Regular"
    fb.setupCFF(ps, {"FullName": f"{family} Regular"}, charstrings, {})
    fb.setupHorizontalMetrics(metrics)
    hhea = src["hhea"]
    fb.setupHorizontalHeader(ascent=hhea.ascent, descent=hhea.descent)
    fb.setupNameTable({"familyName": family, "styleName": "Regular", "psName": ps})
    os2 = src["OS/2"]
    fb.setupOS2(
        sTypoAscender=os2.sTypoAscender,
        sTypoDescender=os2.sTypoDescender,
        usWinAscent=os2.usWinAscent,
        usWinDescent=os2.usWinDescent,
        fsType=0,
    )
    fb.setupPost()
    for tag in ("GDEF", "GPOS", "GSUB", "kern"):  # its kerning and substitutions, as they were
        if tag in src:
            fb.font[tag] = src[tag]
    return _save(fb.font)


@cache
def woff(flavor: str = "woff", text: str = TEXT) -> bytes:
    """truetype(text) wrapped as WOFF or WOFF2."""
    return _save(_load(truetype(text)), flavor)


@cache
def variable(text: str = TEXT) -> bytes:
    """truetype(text) made a variable font with one axis, wght from 400 to 700: at 700 every
    glyph is a third wider (its points and advance). Named instances Regular and Bold."""
    font = _load(truetype(text))
    fvar = newTable("fvar")
    axis = Axis()
    axis.axisTag, axis.minValue, axis.defaultValue, axis.maxValue = "wght", 400, 400, 700
    axis.axisNameID = font["name"].addMultilingualName({"en": "Weight"}, minNameID=256)
    fvar.axes = [axis]
    fvar.instances = []
    for style, wght in (("Regular", 400), ("Bold", 700)):
        inst = NamedInstance()
        inst.subfamilyNameID = font["name"].addMultilingualName({"en": style}, minNameID=256)
        inst.coordinates = {"wght": wght}
        fvar.instances.append(inst)
    font["fvar"] = fvar
    gvar = newTable("gvar")
    gvar.version, gvar.reserved = 1, 0
    gvar.variations = {}
    glyf, hmtx = font["glyf"], font["hmtx"]
    for name in font.getGlyphOrder():
        glyph, advance = glyf[name], hmtx[name][0]
        if glyph.isComposite():  # a composite's deltas move its components: left alone
            points = [(0, 0)] * len(glyph.components)
        else:
            points = [(round(x / 3), 0) for x, _ in glyph.getCoordinates(glyf)[0]]
        # and the four phantom points: the advance grows by a third
        deltas = points + [(0, 0), (round(advance / 3), 0), (0, 0), (0, 0)]
        gvar.variations[name] = [TupleVariation({"wght": (0.0, 1.0, 1.0)}, deltas)]
    font["gvar"] = gvar
    return _save(font)


def woff2_bomb() -> bytes:
    """A WOFF2 whose brotli stream unpacks to more than fontfiles.MAX_UNPACKED: 12 kB of file."""
    data = woff("woff2")
    at, packed = fontfiles.woff2_stream(data)
    bomb = brotli.compress(bytes(fontfiles.MAX_UNPACKED + 10), quality=1)
    made = bytearray(data[:at] + bomb + data[at + packed :])
    made[8:12] = len(made).to_bytes(4, "big")  # length
    made[20:24] = len(bomb).to_bytes(4, "big")  # totalCompressedSize
    return bytes(made)


def woff_bomb() -> bytes:
    """A WOFF whose first table says it is a few kB and unpacks to megabytes."""
    data = bytearray(woff("woff"))
    bomb = zlib.compress(bytes(4 << 20))
    # the first table's entry (offset, compLength, origLength): larger than its compressed data
    data[48:60] = struct.pack(">III", len(data), len(bomb), len(bomb) + 100)
    return bytes(data + bomb)
