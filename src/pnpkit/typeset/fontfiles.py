"""Font files as foundries ship them, made into TrueType that ReportLab embeds as subsets.

ReportLab embeds TrueType outlines only. A pack's font may be TrueType (.ttf, or .otf
with a glyf table), OpenType with PostScript (CFF) outlines, WOFF or WOFF2 (compressed
wrappers of either), or a variable font; embeddable() turns any of them into a static
TrueType font with fontTools: unwrapped, pinned at one instance, its cubic outlines
made quadratic (cu2qu, within one font unit, as fontTools' otf2ttf does).

embeddable() is a pure function of the file's bytes and the instance asked for; the
caller keeps what it made (packfonts.py keeps it in the build's cache folder, keyed
by key()), since a large CFF font takes seconds to convert.
"""

from __future__ import annotations

import hashlib
import io
import struct
import zlib
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

import brotli

if TYPE_CHECKING:  # fontTools is imported where a font is converted: a third of a second
    from fontTools.ttLib import TTFont  # that a pack of TrueType fonts never pays

# An instance: a named instance's name ("Bold"), axis values ({wght: 700}), or none given.
Instance = str | Mapping[str, float] | None

MAX_UNPACKED = 64 << 20  # bytes a WOFF or WOFF2 may say it unpacks to (a CJK font: ~20 MB)
MAX_ERR = 1.0  # font units a quadratic outline may stray from the cubic one (otf2ttf's)
VERSION = b"fontfiles 1"  # part of key(): a change in how fonts are made makes them again

_KINDS = MappingProxyType(
    {
        b"\x00\x01\x00\x00": "TrueType",
        b"true": "TrueType",
        b"OTTO": "OpenType (CFF)",
        b"wOFF": "WOFF",
        b"wOF2": "WOFF2",
    }
)


class FontFileError(ValueError):
    """A font file pnpkit cannot use: the message says why, for the pack's author."""


def kind(data: bytes) -> str:
    """What the file is, from its first four bytes; FontFileError if it is no font pnpkit reads."""
    found = _KINDS.get(data[:4])
    if found is not None:
        return found
    if data[:4] == b"ttcf":
        raise FontFileError(
            "is a font collection (.ttc); give one of its fonts as a file of its own "
            "(fontTools: `fonttools ttLib -y 0 -o one.ttf font.ttc`)"
        )
    raise FontFileError("is not a font file (TrueType, OpenType, WOFF or WOFF2)")


def plain(data: bytes, instance: Instance) -> bool:
    """Whether the file is embeddable as it is: TrueType, not variable, no instance asked."""
    return instance is None and kind(data) == "TrueType" and not _has_table(data, b"fvar")


def key(data: bytes, instance: Instance) -> str:
    """What embeddable()'s result is a function of, as a short hash: a file name for it."""
    spec = repr(sorted(instance.items()) if isinstance(instance, Mapping) else instance)
    return hashlib.sha256(VERSION + spec.encode() + b"\0" + data).hexdigest()[:24]


def embeddable(data: bytes, instance: Instance = None) -> bytes:
    """A static TrueType font ReportLab can embed, made from a font file's bytes at the instance
    asked for (a variable font's default when none is). FontFileError says what is wrong."""
    what = kind(data)
    if what in ("WOFF", "WOFF2"):
        _check_unpacked(data, what)
    from fontTools.ttLib import TTFont
    from fontTools.varLib import instancer

    try:
        font = TTFont(io.BytesIO(data), lazy=False, recalcTimestamp=False)  # same bytes each time
        variable = "fvar" in font
    except Exception as exc:  # fontTools reads a damaged file with struct, zlib, brotli, asserts
        raise FontFileError(f"is damaged or truncated ({type(exc).__name__}: {exc})") from None
    if variable:
        coords = _coordinates(font, instance)
    elif instance is not None:
        raise FontFileError("is not a variable font, so it has no instances; leave out 'instance'")
    try:
        if variable:
            font = instancer.instantiateVariableFont(font, coords)
        if "CFF " in font or "CFF2" in font:
            _to_quadratic(font)
        _rename(font, key(data, instance)[:8])
        font.flavor = None  # plain sfnt, not WOFF
        out = io.BytesIO()
        font.save(out)
    except Exception as exc:  # a damaged table shows only when it is read
        raise FontFileError(f"is damaged or truncated ({type(exc).__name__}: {exc})") from None
    return out.getvalue()


def instances(font: TTFont) -> dict[str, dict[str, float]]:
    """A variable font's named instances: name ("Bold") -> axis values."""
    names = font["name"]
    out: dict[str, dict[str, float]] = {}
    for inst in font["fvar"].instances:
        name = names.getDebugName(inst.subfamilyNameID)
        if name:
            out.setdefault(name, dict(inst.coordinates))
    return out


def _coordinates(font: TTFont, instance: Instance) -> dict[str, float]:
    """Every axis pinned: at the instance asked for, else at its default."""
    axes = {a.axisTag: (a.minValue, a.defaultValue, a.maxValue) for a in font["fvar"].axes}
    coords = {tag: default for tag, (_, default, _) in axes.items()}
    if isinstance(instance, str):
        named = instances(font)
        found = next((v for n, v in named.items() if n.casefold() == instance.casefold()), None)
        if found is None:
            raise FontFileError(
                f"has no instance '{instance}' (it has {', '.join(named) or 'none named'})"
            )
        coords.update(found)
    elif instance is not None:
        for tag, value in instance.items():
            if tag not in axes:
                raise FontFileError(f"has no axis '{tag}' (it has {', '.join(axes)})")
            low, _, high = axes[tag]
            if not low <= value <= high:
                raise FontFileError(f"axis '{tag}' goes from {low:g} to {high:g} (got {value:g})")
            coords[tag] = value
    return coords


def _rename(font: TTFont, tag: str) -> None:
    """The PostScript name made the font's own: ReportLab draws every font registered under a
    PostScript name with the first one registered under it, and a variable font's instances,
    or a font and its WOFF, share one."""
    names = font["name"]
    old = names.getDebugName(6) or "Font"
    new = "".join(c for c in old if c.isascii() and (c.isalnum() or c == "-"))[:50] + "-" + tag
    for record in names.names:
        if record.nameID == 6:
            record.string = new
    if not any(r.nameID == 6 for r in names.names):
        names.setName(new, 6, 3, 1, 0x409)


def _to_quadratic(font: TTFont) -> None:
    """PostScript (CFF) outlines replaced by TrueType ones, as fontTools' otf2ttf snippet does."""
    from fontTools.pens.cu2quPen import Cu2QuPen
    from fontTools.pens.ttGlyphPen import TTGlyphPen
    from fontTools.ttLib import newTable

    order = font.getGlyphOrder()
    glyph_set = font.getGlyphSet()
    glyf = newTable("glyf")
    glyf.glyphOrder = order
    glyf.glyphs = {}
    for name in order:
        pen = TTGlyphPen(glyph_set)
        glyph_set[name].draw(Cu2QuPen(pen, MAX_ERR, reverse_direction=True))
        glyf.glyphs[name] = pen.glyph()
    font["loca"] = newTable("loca")
    font["glyf"] = glyf
    for tag in ("CFF ", "CFF2", "VORG"):
        if tag in font:
            del font[tag]
    glyf.compile(font)
    hmtx = font["hmtx"]
    for name, glyph in glyf.glyphs.items():  # left side bearings as the new outlines have them
        if hasattr(glyph, "xMin"):
            hmtx[name] = (hmtx[name][0], glyph.xMin)
    maxp = newTable("maxp")
    maxp.tableVersion = 0x00010000
    for field in (
        "maxZones",
        "maxTwilightPoints",
        "maxStorage",
        "maxFunctionDefs",
        "maxInstructionDefs",
        "maxStackElements",
        "maxSizeOfInstructions",
    ):
        setattr(maxp, field, 1 if field == "maxZones" else 0)
    maxp.maxComponentElements = max(
        (len(getattr(g, "components", ())) for g in glyf.glyphs.values()), default=0
    )
    font["maxp"] = maxp
    post = font["post"]
    post.formatType = 2.0
    post.extraNames = []
    post.mapping = {}
    post.glyphOrder = order
    font.sfntVersion = "\x00\x01\x00\x00"


_TOO_LARGE = f"unpacks to more than {MAX_UNPACKED >> 20} MB; a pack's font may not be that large"


def _check_unpacked(data: bytes, what: str) -> None:
    """FontFileError unless the WOFF's or WOFF2's compressed data unpacks to MAX_UNPACKED bytes
    at most: fontTools unpacks it whole, and a few MB of zeros compressed unpack to gigabytes.
    Unpacked here with a limit first (a font's own header may say anything)."""
    try:
        if what == "WOFF":
            _check_woff(data)
        else:
            _check_woff2(data)
    except (struct.error, zlib.error, brotli.error, IndexError) as exc:
        raise FontFileError(f"is damaged or truncated ({type(exc).__name__}: {exc})") from None


def _check_woff(data: bytes) -> None:
    """Each table of a WOFF, zlib-compressed on its own, unpacked to its stated size at most."""
    (count,) = struct.unpack(">H", data[12:14])
    total = 0
    for i in range(count):
        _, at, packed, size, _ = struct.unpack(">4sIIII", data[44 + 20 * i : 64 + 20 * i])
        total += size
        if total > MAX_UNPACKED:
            raise FontFileError(_TOO_LARGE)
        if packed < size:  # compressed: never more than it says
            got = zlib.decompressobj().decompress(data[at : at + packed], size + 1)
            if len(got) > size:
                raise FontFileError("is damaged (a table unpacks to more than its size)")


def _check_woff2(data: bytes) -> None:
    """A WOFF2's one brotli stream (after its table directory) unpacked with a limit."""
    at, packed = woff2_stream(data)
    stream = brotli.Decompressor()
    if len(stream.process(data[at : at + packed], output_buffer_limit=MAX_UNPACKED + 1)) > (
        MAX_UNPACKED
    ):
        raise FontFileError(_TOO_LARGE)


def woff2_stream(data: bytes) -> tuple[int, int]:
    """Where a WOFF2's brotli stream starts, and its length (totalCompressedSize)."""
    count, _, _, packed = struct.unpack(">HHII", data[12:24])
    at = 48  # the header's end: then a table directory of variable-length entries
    for _ in range(count):
        flags = data[at]
        at += 5 if flags & 0x3F == 0x3F else 1  # an arbitrary tag follows the flags
        at = _base128(data, at)  # origLength
        tag = flags & 0x3F
        version = flags >> 6
        if (tag in (10, 11)) == (version == 0):  # glyf, loca: version 0 is transformed
            at = _base128(data, at)  # transformLength
    return at, packed


def _base128(data: bytes, at: int) -> int:
    """The position after a UIntBase128 at `at` (WOFF2's variable-length numbers: 5 bytes at
    most)."""
    for n in range(5):
        if not data[at + n] & 0x80:
            return at + n + 1
    raise FontFileError("is damaged (a number of its table directory is too long)")


def _has_table(data: bytes, tag: bytes) -> bool:
    """Whether an sfnt's table directory lists tag (a damaged one: left to the reader)."""
    if len(data) < 12:
        return False
    count = struct.unpack(">H", data[4:6])[0]
    return any(data[12 + 16 * i : 16 + 16 * i] == tag for i in range(min(count, 512)))
