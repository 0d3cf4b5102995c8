"""Draw a documented SVG subset straight onto a ReportLab canvas.

svglib is too slow for hundreds of cards and silently drops what it does not
understand. Here an SVG is parsed strictly and compiled once into plain tuples
(picklable, no lxml objects); `Drawing.draw` replays them cheaply. Anything
outside the subset is a problem located by SVG line, and all problems of a
document are raised together in one `SvgError`.

Subset: root `<svg>` with width/height in mm and a viewBox (always stretched;
if its aspect ratio differs from width/height, preserveAspectRatio="none" is
required); `g`, `defs`, `use`, nested `svg` (x y width height viewBox), `rect`,
`circle`, `ellipse`, `line`, `polyline`, `polygon`, `path`, `text`/`tspan`,
`image` (PNG/JPEG), `clipPath`; `title`/`desc`/`metadata` are not drawn. Lengths
are plain numbers in user units. Presentation properties may be attributes or
`style` declarations; see `_PARSERS` for the inherited ones.

What is not drawn is checked all the same: `display="none"` content is compiled
and dropped, and every element the compiler did not read (inside `metadata`,
`title`, `desc` or an unsupported element) is searched for what would load or
run something in a browser (_unchecked). DOCTYPEs, so DTDs and entities, and
processing instructions are refused.

Deliberate differences from a browser:
- `opacity` on `g`/`use`/`svg` is multiplied into each descendant's fill and
  stroke alpha instead of compositing the group as one layer, so overlapping
  children show through each other.
- A clipPath's children are combined into one path under its clip-rule; under
  nonzero, overlapping children of opposite winding cancel rather than unite.
- The root and nested `svg` clip to their viewport, as browsers do.
- Text is shaped with HarfBuzz (kerning, ligatures, joining) and each line is
  reordered with the Unicode bidi algorithm (shaping.py); without a
  `direction` attribute a line takes its direction from its first strong
  character (a browser would assume ltr), and in a right-to-left line
  text-anchor start is the right end. Inline `tspan`s (no x/y/dy) change font
  or paint mid-line and are measured with their own font. Whitespace
  collapses to single spaces, trimmed per line.
"""

from __future__ import annotations

import base64
import binascii
import io
import math
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, NamedTuple, TypeVar, cast, overload
from weakref import WeakKeyDictionary

from lxml import etree
from reportlab.lib import colors
from reportlab.lib.rl_accel import fp_str
from reportlab.lib.utils import ImageReader
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfgen.canvas import (  # type: ignore[attr-defined]  # the fill modes: not in types-reportlab
    FILL_EVEN_ODD,
    FILL_NON_ZERO,
    PATH_OPS,
    Canvas,
    ExtGState,
)
from reportlab.pdfgen.pathobject import PDFPathObject

from pnpkit import filelimits, memo, workspace
from pnpkit.errors import MAX_QUOTED, one_line
from pnpkit.typeset import fonts, shaping, unibidi
from pnpkit.units import PT_PER_MM

MM = PT_PER_MM  # points per millimetre
_IDENTITY: tuple[float, float, float, float, float, float] = (1, 0, 0, 1, 0, 0)
_SVG = "{http://www.w3.org/2000/svg}"
_NS_PREFIX = MappingProxyType(
    {
        "http://www.w3.org/1999/xlink": "xlink",
        "http://www.w3.org/XML/1998/namespace": "xml",
    }
)
_KAPPA = 0.5522847498  # control-point distance of a quarter-circle Bézier, per unit radius

_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_NUM_RE = re.compile(_NUM)
_ONE_NUM_RE = re.compile(rf"\s*({_NUM})\s*")
_MM_RE = re.compile(rf"\s*({_NUM})mm\s*")
_SEPS = " \t\r\n,"
_XML_SPACE_RE = re.compile(r"[ \t\r\n]+")  # not \s: a no-break space must survive
_HEX_RE = re.compile(r"#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})")
_RGB_RE = re.compile(rf"rgb\(\s*({_NUM})(%?)\s*,\s*({_NUM})(%?)\s*,\s*({_NUM})(%?)\s*\)")
_URL_RE = re.compile(r"\s*url\(\s*['\"]?#([^'\")\s]+)['\"]?\s*\)\s*")
_TRANSFORM_RE = re.compile(r"[\s,]*(matrix|translate|scale|rotate|skewX|skewY)\s*\(([^)]*)\)[\s,]*")
_TRANSFORM_ARGC = MappingProxyType(
    {
        "matrix": (6,),
        "translate": (1, 2),
        "scale": (1, 2),
        "rotate": (1, 3),
        "skewX": (1,),
        "skewY": (1,),
    }
)
_PATH_ARGC = MappingProxyType(
    {"m": 2, "l": 2, "h": 1, "v": 1, "c": 6, "s": 4, "q": 4, "t": 2, "a": 7, "z": 0}
)
_ARC_RE = re.compile(r"[\s,]*".join([_NUM] * 3 + ["[01]"] * 2 + [_NUM] * 2) + r"[\s,]*")
_DATA_URI_RE = re.compile(r"data:image/(png|jpeg);base64,(.*)", re.S)
_MAGIC = (b"\x89PNG", b"\xff\xd8")

# CSS colour names: ReportLab's list minus its own inventions, plus the two it lacks.
RGB = tuple[float, float, float]  # 0..1


def _named_colours() -> dict[str, RGB | None]:
    named: dict[str, RGB | None] = {
        name: (c.red, c.green, c.blue)
        for name, c in colors.getAllNamedColors().items()
        if name.isalpha()
        and name.islower()
        and name not in {"cornflower", "fidblue", "fidlightblue", "fidred"}
    }
    named.update(
        lightgray=named["lightgrey"],
        rebeccapurple=(0x66 / 255, 0x33 / 255, 0x99 / 255),
        transparent=None,
    )
    return named


_NAMED: Mapping[str, RGB | None] = MappingProxyType(_named_colours())


class SvgError(Exception):
    """The SVG uses something outside the supported subset, or is malformed."""

    def __init__(self, problems: Iterable[tuple[Any, ...]]) -> None:  # (line, message[, file])
        self.problems = list(problems)
        super().__init__(
            "\n".join(f"line {line}: {message}" for line, message, *_ in self.problems)
        )


# ---------------------------------------------------------------- drawing operations
# What compile_svg produces and Drawing.draw replays, in SVG user space (y down). One type per
# kind of operation, so the modules that read drawings (cache, pdfx, lowink, textcheck, preview,
# rastercache) name the fields they read. NamedTuples: as cheap to make as the plain tuples they
# replace (compiling makes thousands), immutable and hashable, and op_row() turns one into the
# plain tuples the build cache stores (marshal takes no tuple subclasses).

Matrix = tuple[float, float, float, float, float, float]  # a, b, c, d, e, f as in PDF
Segs = tuple[tuple[str, tuple[float, ...]], ...]  # path-building calls: ("moveTo", (x, y)), ...


class Fill(NamedTuple):
    r: float
    g: float
    b: float
    alpha: float

    @property
    def rgb(self) -> tuple[float, float, float]:
        return self.r, self.g, self.b


class Stroke(NamedTuple):
    r: float
    g: float
    b: float
    alpha: float
    width: float
    cap: int
    join: int
    miter: float
    dash: tuple[float, ...]
    offset: float

    @property
    def rgb(self) -> tuple[float, float, float]:
        return self.r, self.g, self.b


class Save(NamedTuple):
    """Push the graphics state (a transform or a clip follows, undone by the matching Restore)."""


class Restore(NamedTuple):
    """Pop the graphics state."""


class Transform(NamedTuple):
    """Concatenate a matrix (a b c d e f) to the current one (PDF's `cm`)."""

    matrix: Matrix


class Clip(NamedTuple):
    segs: Segs
    evenodd: bool


class PathOp(NamedTuple):
    segs: Segs
    fill: Fill | None
    stroke: Stroke | None
    evenodd: bool


_Shaped = shaping.Shaped


class TextOp(NamedTuple):
    """One run of text in one font, size and paint; (x, y) is its baseline's start."""

    x: float
    y: float
    font: str  # ReportLab's name of the face
    size: float
    text: str
    fill: Fill | None
    stroke: Stroke | None
    shaping: _Shaped | None  # see shaping.shape: glyphs without a character of their own


class ImageOp(NamedTuple):
    source: str | bytes  # a file's path or PNG/JPEG bytes
    x: float
    y: float
    w: float
    h: float
    alpha: float
    keep_aspect: bool  # xMidYMid meet, else stretched


class Gradient(NamedTuple):
    """A shape filled with a linear or radial gradient (pad spread, opaque stops)."""

    segs: Segs
    evenodd: bool
    kind: str  # linear | radial
    coords: tuple[float, ...]
    colours: tuple[tuple[float, float, float], ...]
    offsets: tuple[float, ...]
    matrix: Matrix
    alpha: float


Op = Save | Restore | Transform | Clip | PathOp | TextOp | ImageOp | Gradient
El = etree._Element
Own = dict[str, str]  # an element's own attributes
Style = dict[str, Any]  # the computed inherited properties, parsed (see _PARSERS), and "alpha"
SegList = list[tuple[str, tuple[float, ...]]]  # path-building calls, while they are collected
Box = tuple[float, float, float, float]  # x, y, width, height
Placed = tuple["Matrix | None", "Box | None"]  # what a handler returns: inner matrix, viewport
Line = list[Any]  # one text line while it is collected: [x, y, anchor, direction, runs]
Resolver = Callable[[str], "str | None"]  # an <image> href -> a file path, or None
# (kind, coords, colours, offsets, units, gradientTransform) of a gradient element
GradientSpec = tuple[str, tuple[float, ...], tuple["RGB", ...], tuple[float, ...], str, Matrix]
T = TypeVar("T")
D = TypeVar("D")
OP_TYPES: tuple[type, ...] = (Save, Restore, Transform, Clip, PathOp, TextOp, ImageOp, Gradient)
_PAINTED = (PathOp, TextOp)


_NUMBER: Mapping[type, int] = MappingProxyType({cls: n for n, cls in enumerate(OP_TYPES)})
_FILL_AT: Mapping[type, int] = MappingProxyType(
    {cls: cls._fields.index("fill") for cls in _PAINTED}
)  # stroke: next
_TEXT_FONT = TextOp._fields.index("font")


def op_row(op: Op) -> tuple[Any, ...]:  # numbers, strings, bytes and tuples of them
    """The op as plain tuples (its type's number first), for marshal."""
    at = _FILL_AT.get(type(op))
    if at is None:
        return (_NUMBER[type(op)], *op)
    row = [_NUMBER[type(op)], *op]
    fill, stroke = row[at + 1], row[at + 2]  # Fill and Stroke: tuples, but not plain ones
    row[at + 1] = None if fill is None else tuple(fill)
    row[at + 2] = None if stroke is None else tuple(stroke)
    return tuple(row)


def ops_to_rows(ops: tuple[Op, ...]) -> tuple[tuple[Any, ...], ...]:
    """A drawing's ops as marshal can store them."""
    return tuple(map(op_row, ops))


def ops_from_rows(rows: tuple[tuple[Any, ...], ...]) -> tuple[Op, ...]:
    """The ops that ops_to_rows() wrote."""
    return tuple(map(op_from_row, rows))


def op_from_row(row: tuple[Any, ...]) -> Op:
    """The op that op_row() wrote."""
    cls = OP_TYPES[row[0]]
    at = _FILL_AT.get(cls)
    if at is None:
        plain: Op = cls(*row[1:])
        return plain
    fields = list(row[1:])
    fill, stroke = fields[at], fields[at + 1]
    fields[at] = Fill(*fill) if fill else None
    fields[at + 1] = Stroke(*stroke) if stroke else None
    if cls is TextOp:  # a face named by a drawing from the cache or a worker: see fonts.known
        fonts.known(fields[_TEXT_FONT])
    op: Op = cls(*fields)
    return op


# ---------------------------------------------------------------- drawing


@dataclass
class Drawing:
    """A compiled SVG: operations (Op) in SVG user space, replayed by draw()."""

    width_mm: float
    height_mm: float
    viewbox: tuple[float, float, float, float]
    ops: tuple[Op, ...]

    def draw(self, canvas: Canvas, x_pt: float = 0, y_pt: float = 0) -> None:
        """Draw with the SVG's bottom-left corner at (x_pt, y_pt) in canvas units (pt), true
        size."""
        minx, miny, vw, vh = self.viewbox
        height_pt = self.height_mm * MM
        sx, sy = self.width_mm * MM / vw, height_pt / vh
        canvas.saveState()
        # Map y-down user space onto the page box: (minx, miny) lands at its top left.
        canvas.transform(sx, 0, 0, -sy, x_pt - sx * minx, y_pt + height_pt + sy * miny)
        for op in self.ops:
            _DRAW[type(op)](canvas, op)
        canvas.restoreState()


def _build_path(canvas: Canvas, segs: Iterable[tuple[str, tuple[float, ...]]]) -> PDFPathObject:
    path = canvas.beginPath()
    for name, args in segs:
        getattr(path, name)(*args)
    return path


# ReportLab's canvas methods that _set_paint() writes the operators of itself.
_PAINT_METHODS = (
    "setFillColorRGB",
    "setFillColor",
    "setFillAlpha",
    "setStrokeColorRGB",
    "setStrokeColor",
    "setStrokeAlpha",
    "setLineWidth",
    "setLineCap",
    "setLineJoin",
    "setMiterLimit",
    "setDash",
    "_setFillAlpha",  # the alphas are set as these set them: see _set_alpha
    "_setStrokeAlpha",
)
_MEMO_CAP = 4096  # distinct colours or strokes kept; a long watch session starts afresh
_FILL_CODE = workspace.Memo[tuple[float, float, float], str]("svgdraw.fill_code")
_STROKE_CODE = workspace.Memo[tuple[Any, ...], tuple[str, str]]("svgdraw.stroke_code")


def _set_paint(canvas: Any, fill: Fill | None, stroke: Stroke | None) -> None:
    """Set the paint as ReportLab's setters would, writing their operators from a memo: a
    deck sets the same few colours and strokes thousands of times, and each setter call
    checks and formats its value again (a fifth of drawing a form)."""
    if canvas._enforceColorSpace is not None or not _paints_as_reportlab(canvas):
        _call_setters(canvas, fill, stroke)
        return
    code = canvas._code
    if fill:
        rgb = (fill[0], fill[1], fill[2])
        canvas._fillColorObj = rgb
        text = _FILL_CODE.get(rgb)
        if text is None:
            text = memo.remember(_FILL_CODE, rgb, f"{fp_str(rgb)} rg", _MEMO_CAP)
        code.append(text)
        _set_alpha(canvas, "ca", fill[3])
    if stroke:
        r, g, b, alpha, width, cap, join, miter, dash, offset = stroke
        # the type too: setDash() writes the offset with %s, so 0 and 0.0 differ
        key = (r, g, b, width, cap, join, miter, dash, type(offset), offset)
        colour_line = _STROKE_CODE.get(key)
        if colour_line is None:
            colour_line = memo.remember(_STROKE_CODE, key, _stroke_code(stroke), _MEMO_CAP)
        canvas._strokeColorObj = (r, g, b)
        code.append(colour_line[0])
        _set_alpha(canvas, "CA", alpha)
        code.append(colour_line[1])
        canvas._lineWidth, canvas._lineCap, canvas._lineJoin = width, cap, join
        canvas._miterLimit = miter


_PAINTS_OWN = workspace.Memo[type, bool]("svgdraw.paints_own")


def _paints_as_reportlab(canvas: Canvas) -> bool:
    """_reportlabs(canvas, *_PAINT_METHODS), by the canvas's class alone: asked for every path
    and text a form draws."""
    own = _PAINTS_OWN.get(type(canvas))
    if own is None:
        own = _PAINTS_OWN[type(canvas)] = _reportlabs(canvas, *_PAINT_METHODS)
    return own


_ALPHA_DEFAULT = MappingProxyType({key: ExtGState.defaults[key] for key in ("ca", "CA")})


def _set_alpha(canvas: Any, key: str, alpha: float) -> None:
    """canvas._setFillAlpha(alpha) for key "ca", _setStrokeAlpha(alpha) for "CA", as they do it:
    the document needs transparency's PDF version, and the graphics state writes an operator
    only when the alpha changes, which in a deck it seldom does (so its set() is seldom called)."""
    canvas._doc.ensureMinPdfVersion("transparency")
    state = canvas._extgstate
    if alpha != state._d.get(key, _ALPHA_DEFAULT[key]):
        state.set(canvas, key, alpha)


def _stroke_code(stroke: Stroke) -> tuple[str, str]:
    """The operators of setStrokeColorRGB(), and of the line setters that follow the alpha."""
    r, g, b, _alpha, width, cap, join, miter, dash, offset = stroke
    line = (
        f"{fp_str(width)} w",
        f"{int(cap)} J",  # setLineCap's and setLineJoin's %d
        f"{int(join)} j",
        f"{fp_str(miter)} M",
        f"[{fp_str(list(dash))}] {offset} d",
    )
    return f"{fp_str((r, g, b))} RG", "\n".join(line)


def _call_setters(canvas: Canvas, fill: Fill | None, stroke: Stroke | None) -> None:
    if fill:
        canvas.setFillColorRGB(fill[0], fill[1], fill[2])
        canvas.setFillAlpha(fill[3])
    if stroke:
        r, g, b, alpha, width, cap, join, miter, dash, offset = stroke
        canvas.setStrokeColorRGB(r, g, b)
        canvas.setStrokeAlpha(alpha)
        canvas.setLineWidth(width)
        canvas.setLineCap(cap)
        canvas.setLineJoin(join)
        canvas.setMiterLimit(miter)
        canvas.setDash(list(dash), offset)  # always set: an earlier dash would otherwise leak


_OWN = workspace.Memo[tuple[type, tuple[str, ...]], bool]("svgdraw.own")


def _reportlabs(canvas: Canvas, *methods: str) -> bool:
    """Whether this canvas draws with ReportLab's own `methods` (and its text object), so
    that the operators written here directly are the ones it would write."""
    key = (type(canvas), methods)
    own = _OWN.get(key)
    if own is None:
        cls = key[0]
        own = _OWN[key] = all(
            getattr(cls, name) is getattr(Canvas, name) for name in (*methods, "beginText")
        )
    return own


# The operator each path segment becomes, as ReportLab's PDFPathObject writes it.
_SEG_OPS = MappingProxyType({"moveTo": " m", "lineTo": " l", "curveTo": " c", "close": "h"})


def _path_code(segs: Sequence[tuple[str, tuple[float, ...]]]) -> str | None:
    """The path's operators exactly as PDFPathObject.getCode() would give them, without an
    object and a method call per segment; None for a path it would refuse (not starting with
    a move) or a segment it has no operator for here."""
    if not segs:
        return ""
    if segs[0][0] != "moveTo":
        return None
    code = ["n"]
    add = code.append
    ops = _SEG_OPS
    for name, args in segs:
        op = ops.get(name)
        if op is None:
            return None
        add(f"{fp_str(*args)}{op}" if args else op)
    return " ".join(code)


_PATH_CODE = workspace.Memo[Any, str | None]("svgdraw.path_code")


def _memo_path_code(segs: Sequence[tuple[str, tuple[float, ...]]]) -> str | None:
    """_path_code(), kept for the next equal path (a deck repeats its frames and icons):
    equal numbers give equal text (fp_str writes 1 and 1.0, 0 and -0.0 alike)."""
    try:
        return _PATH_CODE[segs]
    except KeyError:
        return memo.remember(_PATH_CODE, segs, _path_code(segs), _MEMO_CAP)


def _draw_path(canvas: Any, op: PathOp) -> None:
    segs, fill, stroke, evenodd = op
    _set_paint(canvas, fill, stroke)
    code = _memo_path_code(segs) if _reportlabs(canvas, "drawPath") else None
    if code is None:  # a canvas of its own drawPath (pdfx's), or a path for ReportLab's object
        canvas.drawPath(
            _build_path(canvas, segs),
            stroke=stroke is not None,
            fill=fill is not None,
            fillMode=FILL_EVEN_ODD if evenodd else FILL_NON_ZERO,
        )
        return
    # what drawPath() appends: the path, then its painting operator
    canvas._code += (code, _PAINT_OP[stroke is not None, fill is not None, evenodd])


# PATH_OPS of ReportLab's canvas by (stroked, filled, even-odd)
_PAINT_OP = MappingProxyType(
    {
        (s, f, e): PATH_OPS[s, f, FILL_EVEN_ODD if e else FILL_NON_ZERO]
        for s in (False, True)
        for f in (False, True)
        for e in (False, True)
    }
)


def _draw_clip(canvas: Any, op: Clip) -> None:
    canvas.clipPath(
        _build_path(canvas, op.segs),
        stroke=0,
        fill=0,
        fillMode=FILL_EVEN_ODD if op.evenodd else FILL_NON_ZERO,
    )


def _draw_text(canvas: Any, op: TextOp) -> None:
    x, y, font, size, text, fill, stroke, data = op
    _set_paint(canvas, fill, stroke)
    if data is not None:  # a shaped run: glyphs standing as characters, with their positions
        shaping.register_private(font, text, data)
    direct = canvas.bottomup and _reportlabs(canvas, "drawText")
    shown = _shown(canvas, font, size, text, data) if direct else None
    if shown is None:
        _text_object(canvas, x, y, font, size, shaping.drawable(text, data), fill, stroke)
    else:
        canvas._code.append(_text_code(x, y, shown, fill, stroke))


# Per document: a run's operators as textOut() formats them, by (font, size, text, shape).
_SHOWN = workspace.Slot[WeakKeyDictionary[Any, dict[tuple[str, float, str, Any], str]]](
    "svgdraw.shown", WeakKeyDictionary
)


def _shown(canvas: Any, font: str, size: float, text: str, data: Any) -> str | None:
    """What textOut() adds for this run in a fresh text object (font set, rise 0), kept for
    the next identical run of this document: once a run went through the font's splitString()
    its characters have their subset codes in this document, so its operators cannot change.
    None for a font that is not TrueType (the text object handles those)."""
    doc = canvas._doc
    runs = _SHOWN.here().setdefault(doc, {})
    key = (font, size, text, data)
    shown = runs.get(key)
    if shown is None:
        tt: Any = pdfmetrics.getFont(font)  # ReportLab's text object branches on _dynamicFont
        if not tt._dynamicFont:
            return None
        if data is None or not any(glyph[4] for glyph in data):  # none raised or lowered: no Ts
            shown = _subset_runs(canvas, tt, size, text, data)
        else:  # ReportLab's own formatting, rises and all
            t = canvas.beginText()
            t.setFont(font, size)
            shown = t._formatText(shaping.drawable(text, data))
        runs[key] = shown
    return shown


def _subset_runs(canvas: Any, font: Any, size: float, text: str, data: Any) -> str:
    """textOut()'s operators for a run: per stretch of one font subset, that subset's font
    selected where it changes, then a Tj, or for a shaped run none of whose glyphs moves up or
    down a TJ whose numbers are the harfbuzz offsets and the advance corrections (glyph width -
    advance), summed and grouped in _formatText's order so that every number prints the same.
    splitString() runs as it would, so the subsets take the same characters in the same order
    (the glyph codes do not change)."""
    doc = canvas._doc
    escape = canvas._escape
    runs = []
    tmpl = f"{fp_str(size)} Tf {fp_str(size * 1.2)} TL"  # leading: setFont's default
    current = -1
    at = 0
    for subset, chars in _split(font, text, doc):
        if subset != current:
            runs.append(f"{font.getSubsetInternalName(subset, doc)} {tmpl}")
            current = subset
        if data is None:
            runs.append(f"({escape(chars)}) Tj")
            continue
        # data: (cluster, x_advance, y_advance, x_offset, y_offset, width) per glyph
        glyphs = data[at : at + len(chars)]
        at += len(chars)
        if not glyphs:  # shorter data than text: ReportLab ends such a subset unwritten
            continue
        shown = _shown_glyphs(chars, glyphs, escape)
        if len(shown) == 1 and shown[0].startswith("("):
            runs.append(f"{shown[0]} Tj")
        else:
            runs.append(f"[{' '.join(shown)}] TJ")
    return " ".join(runs)


# Per font state (a TrueType font in one document): the first subset's codes of the characters
# it has assigned, as a str.translate() table and as the set of those characters, with the
# number of assignments they were read from (the state only ever adds to them).
_FIRST_SUBSET = workspace.Slot[WeakKeyDictionary[Any, tuple[int, dict[int, int], frozenset[str]]]](
    "svgdraw.first_subset", WeakKeyDictionary
)


def _split(font: Any, text: str, doc: Any) -> list[tuple[int, bytes]]:
    """font.splitString(text, doc), without its Python step per character when every character
    has its code in the first subset already (a deck's text, after its first cards): one run of
    those codes, as splitString() gives it. Anything else (a new character, another subset, a
    no-break space, which splitString() draws as a space) goes through splitString()."""
    state = font.state.get(doc)
    if state is None or not text:
        return cast(list[tuple[int, bytes]], font.splitString(text, doc))
    assigned = state.assignments
    subsets = _FIRST_SUBSET.here()
    known = subsets.get(state)
    if known is None or known[0] != len(assigned):
        table = {code: n for code, n in assigned.items() if n < 256 and code != 0xA0}
        known = subsets[state] = (len(assigned), table, frozenset(map(chr, table)))
    if not known[2].issuperset(text):
        return cast(list[tuple[int, bytes]], font.splitString(text, doc))
    return [(0, text.translate(known[1]).encode("latin-1"))]


def _shown_glyphs(chars: bytes, glyphs: Any, escape: Callable[[bytes], str]) -> list[str]:
    """A TJ array's items as ReportLab makes them: per glyph its offset negated, its code and
    its advance correction; zeros dropped, neighbouring codes joined into one string,
    neighbouring numbers summed (left to right, as sum() does), sums printing as 0 dropped."""
    shown: list[str] = []
    start = 0  # the codes not yet shown: chars[start:i] (one slice, not a byte per glyph)
    numbers: list[float] = []
    for i, glyph in enumerate(glyphs):
        offset = glyph[3]
        if offset:
            if i > start:
                shown.append(f"({escape(chars[start:i])})")
                start = i
            numbers.append(-offset)
        if numbers:
            if (total := fp_str(sum(numbers))) != "0":
                shown.append(total)
            numbers = []
        if correction := glyph[5] - glyph[1] + offset:
            shown.append(f"({escape(chars[start : i + 1])})")
            start = i + 1
            numbers.append(correction)
    if len(glyphs) > start:
        shown.append(f"({escape(chars[start : len(glyphs)])})")
    if numbers and (total := fp_str(sum(numbers))) != "0":
        shown.append(total)
    return shown


def _text_code(x: float, y: float, shown: str, fill: Fill | None, stroke: Stroke | None) -> str:
    """The text object _text_object() gives, operator for operator: beginText()'s origin, the
    flipped text matrix, the render mode, the run, the mode back to 0."""
    mode = 2 if fill and stroke else 1 if stroke else 0
    if mode:
        return f"BT 1 0 0 1 0 0 Tm {fp_str(1, 0, 0, -1, x, y)} Tm {mode} Tr {shown} 0 Tr ET"
    return f"BT 1 0 0 1 0 0 Tm {fp_str(1, 0, 0, -1, x, y)} Tm {shown} ET"


def _text_object(
    canvas: Any,
    x: float,
    y: float,
    font: str,
    size: float,
    text: str,
    fill: Fill | None,
    stroke: Stroke | None,
) -> None:
    """The text drawn through ReportLab's text object (shaped runs go this way)."""
    t = canvas.beginText()
    t.setTextTransform(1, 0, 0, -1, x, y)  # flip the glyphs back upright in y-down space
    t.setFont(font, size)
    t.setTextRenderMode(2 if fill and stroke else 1 if stroke else 0)
    t.textOut(text)
    t.setTextRenderMode(0)  # Tr outlives ET, but the next text object assumes 0
    canvas.drawText(t)


def _draw_gradient(canvas: Any, op: Gradient) -> None:
    segs, evenodd, kind, coords, colours, offsets, matrix, alpha = op
    canvas.saveState()
    canvas.clipPath(
        _build_path(canvas, segs),
        stroke=0,
        fill=0,
        fillMode=FILL_EVEN_ODD if evenodd else FILL_NON_ZERO,
    )
    canvas.transform(*matrix)
    canvas.setFillAlpha(alpha)
    rgb = [colors.Color(*c) for c in colours]
    if kind == "linear":
        canvas.linearGradient(*coords, rgb, list(offsets), extend=True)
    else:
        canvas.radialGradient(*coords, rgb, list(offsets), extend=True)
    canvas.restoreState()


@workspace.memoized(32)
def _image_reader(data: bytes) -> ImageReader:
    return ImageReader(io.BytesIO(data))


def _draw_image(canvas: Any, op: ImageOp) -> None:
    source, x, y, w, h, alpha, meet = op
    canvas.saveState()
    canvas.setFillAlpha(alpha)
    canvas.scale(1, -1)  # drawImage paints bottom-up; undo the page flip so the image stays upright
    image = _image_reader(source) if isinstance(source, bytes) else source
    canvas.drawImage(image, x, -y - h, w, h, mask="auto", preserveAspectRatio=meet, anchor="c")
    canvas.restoreState()


_DRAW: Mapping[type, Callable[..., None]] = MappingProxyType(
    {
        Save: lambda canvas, op: canvas.saveState(),
        Restore: lambda canvas, op: canvas.restoreState(),
        Transform: lambda canvas, op: canvas.transform(*op.matrix),
        Clip: _draw_clip,
        PathOp: _draw_path,
        TextOp: _draw_text,
        ImageOp: _draw_image,
        Gradient: _draw_gradient,
    }
)

# ---------------------------------------------------------------- values
# Parsers take (value, property name) and raise ValueError with the problem text.


# Every number of the SVG, in user units. The PDF cannot hold a coordinate of 1e21 (ReportLab
# raises while writing), and no face needs more than this: 2 m in micrometres is 2e6.
MAX_NUMBER = 1e7


def _number(value: str, prop: str, nonneg: bool = False) -> float:
    match = _ONE_NUM_RE.fullmatch(value)
    if not match:
        raise ValueError(f"bad number '{value}' for {prop} (use a plain number in user units)")
    number = float(match.group(1))
    if not abs(number) <= MAX_NUMBER:  # 1e999 is infinite, NaN fails every comparison
        raise ValueError(f"bad number '{value}' for {prop} (at most {MAX_NUMBER:g} either way)")
    if nonneg and number < 0:
        raise ValueError(f"{prop} must not be negative (got '{value}')")
    return number


def _fraction(value: str, prop: str) -> float:
    """A number, or a percentage as a fraction ("50%" -> 0.5)."""
    text = value.strip()
    return _number(text[:-1], prop) / 100 if text.endswith("%") else _number(text, prop)


def _nonneg(value: str, prop: str) -> float:
    return _number(value, prop, nonneg=True)


def _numbers(value: str, prop: str) -> list[float]:
    if _NUM_RE.sub("", value).strip(_SEPS):
        raise ValueError(f"bad number list '{value}' for {prop}")
    numbers = [float(n) for n in _NUM_RE.findall(value)]
    if not all(abs(n) <= MAX_NUMBER for n in numbers):
        raise ValueError(
            f"bad number list '{value[:60]}' for {prop} (each at most {MAX_NUMBER:g} either way)"
        )
    return numbers


@workspace.memoized(256)
def _colour(value: str, prop: str) -> RGB | None:
    if value == "none":
        return None
    if match := _HEX_RE.fullmatch(value):
        h = match.group(1)
        h = "".join(ch * 2 for ch in h) if len(h) == 3 else h
        return cast(RGB, tuple(int(h[i : i + 2], 16) / 255 for i in (0, 2, 4)))
    match = _RGB_RE.fullmatch(value)
    if match and len(set(match.groups()[1::2])) == 1:  # all percentages or none
        scale = 100 if match.group(2) else 255
        return cast(RGB, tuple(min(max(float(n) / scale, 0.0), 1.0) for n in match.groups()[::2]))
    if value.lower() in _NAMED:
        return _NAMED[value.lower()]
    raise ValueError(f"bad colour '{value}' for {prop}")


def _fill(value: str, prop: str) -> RGB | tuple[str, str] | None:
    """A colour, or ("url", id) of a gradient (shapes only; see _Compiler.gradient)."""
    match = _URL_RE.fullmatch(value)
    return ("url", match.group(1)) if match else _colour(value, prop)


def _is_url(paint: object) -> bool:
    return isinstance(paint, tuple) and len(paint) == 2 and paint[0] == "url"


def _opacity(value: str, prop: str) -> float:
    return min(max(_number(value, prop), 0.0), 1.0)


def _dasharray(value: str, prop: str) -> tuple[float, ...]:
    dash = () if value == "none" else tuple(_numbers(value, prop))
    if any(d < 0 for d in dash):
        raise ValueError(f"{prop} must not be negative (got '{value}')")
    return dash if sum(dash) > 0 else ()  # all zeros means solid, as in SVG


def _font_family(value: str, prop: str) -> str:
    family = value.split(",")[0].strip().strip("'\"")
    if fonts.face_name(family) is None:
        raise ValueError(
            f"font family '{family}' is not available (use one of: {', '.join(fonts.families())})"
        )
    return family


def _font_weight(value: str, prop: str) -> bool:
    if value not in ("normal", "bold"):
        raise ValueError(f"font-weight must be normal or bold (got '{value}')")
    return value == "bold"


def _enum(choices: dict[str, T]) -> Callable[[str, str], T]:
    def parse(value: str, prop: str) -> T:
        if value not in choices:
            raise ValueError(f"bad value '{value}' for {prop} (use one of: {', '.join(choices)})")
        return choices[value]

    return parse


@workspace.memoized(512)
def _transform(value: str, prop: str = "transform") -> Matrix:
    """The matrix (a, b, c, d, e, f) of an SVG transform list."""
    matrix, pos, value = _IDENTITY, 0, value.strip()
    while pos < len(value):
        match = _TRANSFORM_RE.match(value, pos)
        args = _numbers(match.group(2), prop) if match else []
        if not match or len(args) not in _TRANSFORM_ARGC[match.group(1)]:
            raise ValueError(f"bad transform '{value}'")
        matrix = compose(matrix, _basic_matrix(match.group(1), args))
        pos = match.end()
    return matrix


def _basic_matrix(name: str, a: list[float]) -> Matrix:
    if name == "matrix":
        return cast(Matrix, tuple(a))
    if name == "translate":
        return (1, 0, 0, 1, a[0], a[1] if len(a) > 1 else 0)
    if name == "scale":
        return (a[0], 0, 0, a[-1], 0, 0)
    if name in ("skewX", "skewY"):
        t = math.tan(math.radians(a[0]))
        return (1, 0, t, 1, 0, 0) if name == "skewX" else (1, t, 0, 1, 0, 0)
    cos, sin = math.cos(math.radians(a[0])), math.sin(math.radians(a[0]))
    rotation = (cos, sin, -sin, cos, 0, 0)
    if len(a) == 1:
        return rotation
    return compose(compose((1, 0, 0, 1, a[1], a[2]), rotation), (1, 0, 0, 1, -a[1], -a[2]))


def compose(m: Matrix, n: Matrix) -> Matrix:
    """The matrix applying n first, then m (what canvas.transform(m); transform(n) does)."""
    a, b, c, d, e, f = m
    return (
        a * n[0] + c * n[1],
        b * n[0] + d * n[1],
        a * n[2] + c * n[3],
        b * n[2] + d * n[3],
        a * n[4] + c * n[5] + e,
        b * n[4] + d * n[5] + f,
    )


def apply(m: Matrix, p: tuple[float, float]) -> tuple[float, float]:
    """The point p = (x, y) moved by the matrix m."""
    return m[0] * p[0] + m[2] * p[1] + m[4], m[1] * p[0] + m[3] * p[1] + m[5]


_RULE = _enum({"nonzero": False, "evenodd": True})
# Inherited properties: parser and SVG initial value (parsed).
_PARSERS: Mapping[str, tuple[Callable[[str, str], Any], Any]] = MappingProxyType(
    {
        "fill": (_fill, (0.0, 0.0, 0.0)),
        "stroke": (_colour, None),
        "stroke-width": (_nonneg, 1.0),
        "stroke-linecap": (_enum({"butt": 0, "round": 1, "square": 2}), 0),
        "stroke-linejoin": (_enum({"miter": 0, "round": 1, "bevel": 2}), 0),
        "stroke-miterlimit": (lambda v, p: max(_nonneg(v, p), 1.0), 4.0),
        "stroke-dasharray": (_dasharray, ()),
        "stroke-dashoffset": (_number, 0.0),
        "fill-opacity": (_opacity, 1.0),
        "stroke-opacity": (_opacity, 1.0),
        "fill-rule": (_RULE, False),
        "clip-rule": (_RULE, False),
        "font-family": (_font_family, fonts.DEFAULT_FAMILY),
        "font-size": (_nonneg, 16.0),
        "font-weight": (_font_weight, False),
        "font-style": (_enum({"normal": False, "italic": True, "oblique": True}), False),
        "text-anchor": (
            _enum({"start": 0.0, "middle": 0.5, "end": 1.0}),
            0.0,
        ),  # share of the line width to shift left
        "direction": (
            _enum({"ltr": "ltr", "rtl": "rtl"}),
            "auto",
        ),  # auto: from the first strong character
        "visibility": (_enum({"visible": True, "hidden": False}), True),
    }
)
_DEFAULT_STYLE = {prop: initial for prop, (_, initial) in _PARSERS.items()} | {"alpha": 1.0}
_DISPLAY = _enum({"inline": True, "none": False})

_INHERITED = frozenset(_PARSERS)
_ALL_PROPS = _INHERITED | {"opacity", "display", "transform", "clip-path"}
_SHAPES = MappingProxyType(
    {
        "rect": {"x", "y", "width", "height", "rx", "ry"},
        "circle": {"cx", "cy", "r"},
        "ellipse": {"cx", "cy", "rx", "ry"},
        "line": {"x1", "y1", "x2", "y2"},
        "polyline": {"points"},
        "polygon": {"points"},
        "path": {"d"},
    }
)
_CLIP_SHAPES = frozenset({"rect", "circle", "ellipse", "path", "polygon"})
# tag -> (own attributes, presentation properties allowed as attributes or in style)
_ELEMENTS = MappingProxyType(
    {
        "svg": (
            {
                "x",
                "y",
                "width",
                "height",
                "viewBox",
                "preserveAspectRatio",
                "version",
                "baseProfile",
            },
            _ALL_PROPS,
        ),
        "g": (set(), _ALL_PROPS),
        "defs": (set(), set()),
        "use": ({"x", "y", "href"}, _ALL_PROPS),
        "text": ({"x", "y"}, _ALL_PROPS),
        "tspan": ({"x", "y", "dy"}, _INHERITED),
        "image": ({"x", "y", "width", "height", "href", "preserveAspectRatio"}, _ALL_PROPS),
        "clipPath": ({"clipPathUnits"}, {"transform", "clip-rule"}),
        "linearGradient": (
            {"x1", "y1", "x2", "y2", "gradientUnits", "gradientTransform", "spreadMethod", "href"},
            set(),
        ),
        "radialGradient": (
            {
                "cx",
                "cy",
                "r",
                "fx",
                "fy",
                "gradientUnits",
                "gradientTransform",
                "spreadMethod",
                "href",
            },
            set(),
        ),
        "stop": ({"offset"}, {"stop-color", "stop-opacity"}),
        **{tag: (geometry, _ALL_PROPS) for tag, geometry in _SHAPES.items()},
    }
)
_SKIPPED = frozenset({"title", "desc", "metadata"})

# ---------------------------------------------------------------- geometry
# Path segments are (PDFPathObject method name, args) pairs in user space.


def _rect_segs(x: float, y: float, w: float, h: float, rx: float = 0.0, ry: float = 0.0) -> SegList:
    r, b = x + w, y + h
    if not (rx and ry):
        return [
            ("moveTo", (x, y)),
            ("lineTo", (r, y)),
            ("lineTo", (r, b)),
            ("lineTo", (x, b)),
            ("close", ()),
        ]
    kx, ky = rx * (1 - _KAPPA), ry * (1 - _KAPPA)
    return [
        ("moveTo", (x + rx, y)),
        ("lineTo", (r - rx, y)),
        ("curveTo", (r - kx, y, r, y + ky, r, y + ry)),
        ("lineTo", (r, b - ry)),
        ("curveTo", (r, b - ky, r - kx, b, r - rx, b)),
        ("lineTo", (x + rx, b)),
        ("curveTo", (x + kx, b, x, b - ky, x, b - ry)),
        ("lineTo", (x, y + ry)),
        ("curveTo", (x, y + ky, x + kx, y, x + rx, y)),
        ("close", ()),
    ]


def _ellipse_segs(cx: float, cy: float, rx: float, ry: float) -> SegList:
    kx, ky = rx * _KAPPA, ry * _KAPPA
    return [
        ("moveTo", (cx + rx, cy)),
        ("curveTo", (cx + rx, cy + ky, cx + kx, cy + ry, cx, cy + ry)),
        ("curveTo", (cx - kx, cy + ry, cx - rx, cy + ky, cx - rx, cy)),
        ("curveTo", (cx - rx, cy - ky, cx - kx, cy - ry, cx, cy - ry)),
        ("curveTo", (cx + kx, cy - ry, cx + rx, cy - ky, cx + rx, cy)),
        ("close", ()),
    ]


def _poly_segs(value: str, closed: bool) -> SegList:
    pts = _numbers(value, "points")
    if len(pts) % 2 or not pts:
        raise ValueError(f"points need an even, non-zero count of numbers (got '{value}')")
    segs: SegList = [
        ("moveTo" if i == 0 else "lineTo", (pts[i], pts[i + 1])) for i in range(0, len(pts), 2)
    ]
    return [*segs, ("close", ())] if closed else segs


def _check_path_data(d: str) -> None:
    """Reject path data that normalise_svg_path would silently truncate or misread."""
    parts = re.split(r"([MmLlHhVvCcSsQqTtAaZz])", d)
    if parts[0].strip(_SEPS) or (len(parts) > 1 and parts[1] not in "Mm"):
        raise ValueError(f"path data must start with M or m (got '{d[:20]}')")
    for cmd, args in zip(parts[1::2], parts[2::2], strict=True):
        if cmd in "Aa":
            pos = len(args) - len(args.lstrip(_SEPS))
            while pos < len(args) and (match := _ARC_RE.match(args, pos)):
                pos = match.end()
            ok = pos == len(args) and args.strip(_SEPS)
        else:
            count, argc = len(_NUM_RE.findall(args)), _PATH_ARGC[cmd.lower()]
            ok = not _NUM_RE.sub("", args).strip(_SEPS) and (
                count % argc == 0 and count if argc else not count
            )
        if not ok:
            raise ValueError(f"bad arguments '{args.strip()}' for '{cmd}' in path data")
        if not all(abs(float(n)) <= MAX_NUMBER for n in _NUM_RE.findall(args)):
            raise ValueError(
                f"bad arguments '{args.strip()[:40]}' for '{cmd}' in "
                f"path data (each at most {MAX_NUMBER:g} either way)"
            )


# Path data split at its commands, each command's numbers found by its pattern and taken in
# groups of the command's count of arguments; an arc's flags are one digit each ("a1 1 0 01 5 5").
_COMMANDS_RE = re.compile("([achlmqstvz])", re.I)
_FLOATS_RE = re.compile(r"(-?\d*\.?\d*(?:[eE][+-]?\d+)?)")
_ARC_ARGS_RE = re.compile(
    r"[\s,]*" + r"[\s,]*".join([f"({_NUM})"] * 3 + ["([01])"] * 2 + [f"({_NUM})"] * 2)
)


def _normalised(d: str) -> list[str | list[float]]:
    """Each command of the path data (checked: _check_path_data) followed by its numbers, a
    move's further pairs lines."""
    result: list[str | list[float]] = []
    op = ""
    for item in _COMMANDS_RE.split(d.strip()):
        if not item.strip():
            continue
        if len(item) == 1 and item.lower() in _PATH_ARGC:
            op = item
            if not _PATH_ARGC[op.lower()]:  # Z, z
                result += [op, []]
            continue
        argc = _PATH_ARGC[op.lower()]
        if argc == 7:  # an arc: its flags need not be apart from what follows them
            at = 0
            while match := _ARC_ARGS_RE.match(item, at):
                result += [op, [float(number) for number in match.groups()]]
                at = match.end()
            op = cast(str, result[-2])
            continue
        floats = [float(number) for number in _FLOATS_RE.findall(item) if number]
        for i in range(0, len(floats), argc):
            if i > 0 and op in ("m", "M"):
                op = "l" if op == "m" else "L"
            result += [op, floats[i : i + argc]]
        op = cast(str, result[-2])
    return result


@workspace.memoized(1024)  # a deck's cards share most of their path data
def _path_segs(d: str) -> Segs:
    _check_path_data(d)
    items = _normalised(d)
    segs: SegList = []
    x, y, start = 0.0, 0.0, (0.0, 0.0)
    cubic: tuple[float, float] | None = None
    quad: tuple[float, float] | None = None  # last control points, reflected by S and T
    # normalise_svg_path alternates a command and its numbers
    for cmd, a in zip(
        cast(list[str], items[::2]), cast(list[list[float]], items[1::2]), strict=True
    ):
        op, rel = cmd.upper(), cmd.islower()
        dx, dy = (x, y) if rel else (0.0, 0.0)
        next_cubic = next_quad = None
        if op in "ML":
            x, y = a[0] + dx, a[1] + dy
            segs.append(("moveTo" if op == "M" else "lineTo", (x, y)))
            start = (x, y) if op == "M" else start
        elif op == "H":
            x = a[0] + dx
            segs.append(("lineTo", (x, y)))
        elif op == "V":
            y = a[0] + dy
            segs.append(("lineTo", (x, y)))
        elif op in "CS":
            c1 = (
                (a[0] + dx, a[1] + dy)
                if op == "C"
                else (2 * x - cubic[0], 2 * y - cubic[1])
                if cubic
                else (x, y)
            )
            x2, y2, x, y = (v + (dx, dy)[i % 2] for i, v in enumerate(a[-4:]))
            segs.append(("curveTo", (*c1, x2, y2, x, y)))
            next_cubic = (x2, y2)
        elif op in "QT":
            q = (
                (a[0] + dx, a[1] + dy)
                if op == "Q"
                else (2 * x - quad[0], 2 * y - quad[1])
                if quad
                else (x, y)
            )
            end = (a[-2] + dx, a[-1] + dy)
            # the same curve as a cubic: its control points two thirds of the way to q
            c1 = (x + 2 / 3 * (q[0] - x), y + 2 / 3 * (q[1] - y))
            c2 = (c1[0] + 1 / 3 * (end[0] - x), c1[1] + 1 / 3 * (end[1] - y))
            segs.append(("curveTo", (*c1, *c2, *end)))
            (x, y), next_quad = end, q
        elif op == "A":
            end = (a[5] + dx, a[6] + dy)
            if a[0] and a[1]:
                arc = _arc_curves((x, y), abs(a[0]), abs(a[1]), a[2], bool(a[3]), bool(a[4]), end)
                segs.extend(("curveTo", curve) for curve in arc)
            else:  # a zero radius makes a straight line (SVG implementation notes)
                segs.append(("lineTo", end))
            x, y = end
        else:  # Z
            segs.append(("close", ()))
            x, y = start
        cubic, quad = next_cubic, next_quad
    return tuple(segs)


def _arc_curves(
    start: tuple[float, float],
    rx: float,
    ry: float,
    phi: float,
    large: bool,
    sweep: bool,
    end: tuple[float, float],
) -> list[tuple[float, ...]]:
    """An SVG elliptical arc as cubic curves (control points and end), each of at most 90°:
    its centre and angles from its end points as the SVG 1.1 implementation notes give them
    (F.6.5; radii too small for the end points scaled up, F.6.6), then each piece's control
    points along the tangents at its ends (4/3 tan(piece/4) of them). None when the ends meet."""
    (x1, y1), (x2, y2) = start, end
    if start == end:
        return []
    cos_phi, sin_phi = math.cos(math.radians(phi)), math.sin(math.radians(phi))
    hx, hy = (x1 - x2) / 2, (y1 - y2) / 2
    xp, yp = cos_phi * hx + sin_phi * hy, -sin_phi * hx + cos_phi * hy  # the start, unrotated
    excess = (xp / rx) ** 2 + (yp / ry) ** 2
    if excess > 1:
        rx, ry = rx * math.sqrt(excess), ry * math.sqrt(excess)
    spread = (rx * yp) ** 2 + (ry * xp) ** 2
    root = math.sqrt(max(0.0, (rx * ry) ** 2 - spread) / spread)
    if large == sweep:
        root = -root
    cxp, cyp = root * rx * yp / ry, -root * ry * xp / rx
    cx = cos_phi * cxp - sin_phi * cyp + (x1 + x2) / 2
    cy = sin_phi * cxp + cos_phi * cyp + (y1 + y2) / 2
    ux, uy, vx, vy = (xp - cxp) / rx, (yp - cyp) / ry, (-xp - cxp) / rx, (-yp - cyp) / ry
    theta = math.atan2(uy, ux)
    extent = math.atan2(ux * vy - uy * vx, ux * vx + uy * vy)
    if sweep and extent < 0:
        extent += 2 * math.pi
    elif not sweep and extent > 0:
        extent -= 2 * math.pi
    pieces = max(1, math.ceil(abs(extent) / (math.pi / 2) - 1e-6))  # a half turn: 2
    step = extent / pieces
    k = 4 / 3 * math.tan(step / 4)

    def at(t: float) -> tuple[float, float, float, float]:
        """The point of the ellipse at angle t and its tangent (d/dt)."""
        c, s = math.cos(t), math.sin(t)
        return (
            cx + rx * c * cos_phi - ry * s * sin_phi,
            cy + rx * c * sin_phi + ry * s * cos_phi,
            -rx * s * cos_phi - ry * c * sin_phi,
            -rx * s * sin_phi + ry * c * cos_phi,
        )

    curves: list[tuple[float, ...]] = []
    px, py, dpx, dpy = at(theta)
    for n in range(1, pieces + 1):
        qx, qy, dqx, dqy = at(theta + n * step)
        curves.append((px + k * dpx, py + k * dpy, qx - k * dqx, qy - k * dqy, qx, qy))
        px, py, dpx, dpy = qx, qy, dqx, dqy
    return curves


def _transform_segs(segs: Iterable[tuple[str, tuple[float, ...]]], m: Matrix) -> SegList:
    a, b, c, d, e, f = m
    return [
        (
            name,
            tuple(
                v
                for i in range(0, len(args), 2)
                for v in (a * args[i] + c * args[i + 1] + e, b * args[i] + d * args[i + 1] + f)
            ),
        )
        for name, args in segs
    ]


def _paint(st: Style) -> tuple[Fill | None, Stroke | None]:
    """(fill, stroke) tuples for _set_paint, or None for each part that paints nothing."""
    if not st["visibility"]:
        return None, None
    fill, stroke, alpha = st["fill"], st["stroke"], st["alpha"]
    fill_alpha, stroke_alpha, width = (
        st["fill-opacity"] * alpha,
        st["stroke-opacity"] * alpha,
        st["stroke-width"],
    )
    if (
        stroke and stroke_alpha > 0 and width > 0
    ):  # width 0 would be PDF's thinnest line, SVG draws nothing
        dash = st["stroke-dasharray"]
        cycle = sum(dash) * (2 if len(dash) % 2 else 1)
        offset = st["stroke-dashoffset"] % cycle if dash else 0  # PDF wants a non-negative phase
        r, g, b = stroke
        stroke = Stroke(
            r,
            g,
            b,
            stroke_alpha,
            width,
            st["stroke-linecap"],
            st["stroke-linejoin"],
            st["stroke-miterlimit"],
            dash,
            offset,
        )
    else:
        stroke = None
    painted = Fill(fill[0], fill[1], fill[2], fill_alpha) if fill and fill_alpha > 0 else None
    return painted, stroke


def _collapse(raw: Sequence[tuple[str, Any, Any]]) -> list[list[Any]]:
    """Runs of one line with whitespace collapsed across run boundaries and trimmed at both ends:
    (text, style, source) in, [text, style, source] out."""
    runs: list[list[Any]] = []
    space_before = True
    for text, st, source in raw:
        text = _XML_SPACE_RE.sub(" ", text)
        text = text.lstrip(" ") if space_before else text
        if text:
            runs.append([text, st, source])
            space_before = text.endswith(" ")
    if runs:  # only a lone " " can empty out; the run before it then ends in a non-space
        runs[-1][0] = runs[-1][0].rstrip(" ")
        runs = runs if runs[-1][0] else runs[:-1]
    return runs


# ---------------------------------------------------------------- text laid out by text_box()
# text_box() has shaped and placed every run of the <text> it writes; h_text() takes those runs
# from here instead of reading the tspans back and shaping them again. An entry is keyed by the
# element's exclusive canonical XML, so it serves only an element whose attributes and content are
# exactly those text_box() wrote (a template that edits the markup gets the full compile), and
# it holds only what that content means whatever the element inherits: h_text() still reads the
# font, size, anchor and paint from the computed style, and takes the entry only when the style
# gives the font family, weight and style text_box() laid the text out in.


# (font, chars, data, advance per unit of font size): a run and what shaping.shape() made of it
LaidRun = tuple[str, str, "_Shaped | None", float]


class LaidLine(NamedTuple):
    x: float
    y: float
    anchor: float | None  # the share text-anchor shifts; None: the <text>'s own
    runs: tuple[LaidRun, ...]


class LaidText(NamedTuple):
    family: str  # the face text_box() laid out in, as the <text>'s computed style must give it
    bold: bool
    italic: bool
    lines: tuple[LaidLine, ...]


_LAID = workspace.Memo[bytes, LaidText]("svgdraw.laid")
_LAID_CAP = 20_000  # texts rendered, not yet compiled (~2.5 kB each); a long session starts afresh
# the fonts and number bound the entries were laid out under, at key 0
_LAID_STATE = workspace.Memo[int, object]("svgdraw.laid_state")


def laid_line(
    x: str, y: str, anchor: float | None, runs: Sequence[tuple[str, str]]
) -> LaidLine | None:
    """A positioned <tspan> as h_text() compiles it: x and y its attributes, anchor its own
    text-anchor (parsed), runs its text nodes' (text, face) in document order. The caller
    vouches that h_text() would find every glyph, leave the line in logical order (no bidi) and
    collapse no whitespace (laid_whitespace); None for a number h_text() would refuse."""
    at_x, at_y = float(x), float(y)  # as _number() reads them: text_box() writes "%.3f"
    if not (abs(at_x) <= MAX_NUMBER and abs(at_y) <= MAX_NUMBER):
        return None
    shape = shaping.shape
    shaped = [(font, *shape(text, font, False)) for text, font in runs if text]
    return LaidLine(at_x, at_y, anchor, tuple(shaped))


def laid_whitespace(line: str) -> bool:
    """Whether _collapse() keeps a line's text nodes (joined: line) as they are: single spaces
    inside the line and no other whitespace the XML parser or the collapse would touch."""
    return not (
        "  " in line
        or line[:1] == " "
        or line[-1:] == " "
        or "\t" in line
        or "\n" in line
        or "\r" in line
    )


def lay_out(key: str, laid: LaidText) -> None:
    """Remember how text_box() laid out the <text> element whose exclusive canonical XML is key
    (c14n_text_start, c14n_text)."""
    _fresh_laid()
    memo.remember(_LAID, key.encode(), laid, _LAID_CAP)


# Exclusive canonical XML (https://www.w3.org/TR/xml-exc-c14n/) of what text_box() writes: the
# SVG namespace declared on the <text>, attributes sorted by name, &, < and > escaped in text,
# & < and " in attribute values. Values holding a tab, a line break or a carriage return (which
# the parser turns into spaces, or a carriage return in text into a line feed) are the callers'
# to refuse (layable): their text is compiled in full.
_RAW_WS = re.compile(r"[\t\n\r]")


def layable(*values: str) -> bool:
    """Whether text_box()'s markup with these values (text and attributes) can be laid out."""
    return not any(_RAW_WS.search(value) for value in values)


def c14n_text_start(attrs: dict[str, str]) -> str:
    """A <text> element's start tag: its attributes as they were written (unqualified)."""
    pairs = "".join(f' {name}="{_c14n_value(attrs[name])}"' for name in sorted(attrs))
    return f'<text xmlns="http://www.w3.org/2000/svg"{pairs}>'


def _c14n_value(value: str) -> str:
    if "&" in value or "<" in value or '"' in value:
        return value.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")
    return value


def c14n_text(text: str) -> str:
    if "&" in text or "<" in text or ">" in text:
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text


def _text_key(el: El) -> bytes:
    """el as exclusive canonical XML: its namespace, attributes and content, not its tail or the
    namespaces its document declares."""
    key = etree.tostring(  # type: ignore[call-overload]  # lxml takes with_tail; its stubs do not
        el, method="c14n", exclusive=True, with_tail=False
    )
    return cast(bytes, key)


def _fresh_laid() -> None:
    state = (fonts.signature(), MAX_NUMBER)
    if state != _LAID_STATE.get(0):
        _LAID.clear()
        _LAID_STATE[0] = state


def _tag(el: El) -> str:
    tag = cast(str, el.tag)  # an element's (comments and PIs are never asked)
    if tag.startswith(_SVG):
        return tag[len(_SVG) :]
    qname = etree.QName(el)
    return (
        f"{el.prefix}:{qname.localname}"
        if el.prefix
        else f"{{{qname.namespace or ''}}}{qname.localname}"
    )


def _is_element(node: El) -> bool:
    return isinstance(node.tag, str)  # comments and processing instructions have callables here


# ---------------------------------------------------------------- compiler


# Memos shared by every compile: the cards of a deck repeat most of their markup. Bounded by
# emptying them when full. Each card also has markup of its own (its colour, its id: about five
# entries a card, 2 kB each with their ops), which only fills them: under a bound of 20,000 a
# 10,000-card deck held 90 MB of them until the last batch, and once emptied that memory stayed
# the process's, as free blocks of one size. 4,096 keeps a 1,000-card deck's whole markup.
_MEMO_SIZE = 4096
# (id of the parent style, properties) -> (parent style, style): _Compiler.style
_STYLES = workspace.Memo[tuple[int, tuple[tuple[str, str], ...]], tuple[Style, Style]](
    "svgdraw.styles"
)
# (tag, attributes, id of the inherited style) -> (that style, ops): _Compiler.leaf
_LEAVES = workspace.Memo[
    tuple[str, tuple[tuple[str, str], ...], int], tuple[Style, tuple[Op, ...]]
]("svgdraw.leaves")
# (tag, attributes) -> (own, props, problem messages): _Compiler.attributes
_ATTRIBUTES = workspace.Memo[
    tuple[str, tuple[tuple[str, str], ...]], tuple[Own, dict[str, str], tuple[str, ...]]
]("svgdraw.attributes")
_MEMO_STATE = workspace.Memo[int, object]("svgdraw.memo_state")  # what they were valid under: 0


def _fresh_memos() -> None:
    """Empty the memos when what decides whether a value is valid has changed: the fonts a pack
    brings (font-family) or the bound on numbers."""
    state = (fonts.signature(), MAX_NUMBER)
    if state != _MEMO_STATE.get(0):
        _STYLES.clear()
        _LEAVES.clear()
        _ATTRIBUTES.clear()
        _MEMO_STATE[0] = state
    _fresh_laid()  # laid out under other fonts: never drawn with these


class _Compiler:
    def __init__(
        self,
        root: El,
        resolve_href: Resolver | None,
        depth: int = 0,
        art_stack: frozenset[str] = frozenset(),
        level: int = 0,
    ) -> None:
        self.resolve_href, self.depth, self.art_stack = resolve_href, depth, art_stack
        # elements open around the one compiled, counted from the face's root through the art
        # files that draw this one; and elements compiled so far, every <use> and art drawn
        self.level, self.drawn = level, 0
        self.problems: dict[tuple[Any, ...], None] = {}  # (line, message[, file]): ordered, unique
        self.ids: dict[str, El] = {}
        self.clips: dict[El, Clip | None] = {}
        self.using: set[str] = set()
        self.checked: set[El] = (
            set()
        )  # elements attributes() has read; _unchecked() looks at all the others
        self.said: list[str] | None = None  # messages of problem() while a memo listens
        # the workspace's memos, found once a compile rather than at every element
        self.styles, self.leaves = _STYLES.here(), _LEAVES.here()
        self.attributes_memo = _ATTRIBUTES.here()
        for el in root.iter(etree.Element):
            ident = el.get("id")
            if ident in self.ids:
                self.problem(el, f"duplicate id '{ident}'")
            elif ident is not None:
                self.ids[ident] = el

    def problem(self, el: El, message: str) -> None:
        self.problems[(el.sourceline or 0, message)] = None
        if self.said is not None:
            self.said.append(message)

    def heard(self, work: Callable[[], T]) -> tuple[T, list[str]]:
        """work()'s result and the messages of the problems it reported (a memo keeps them)."""
        outer, self.said = self.said, []
        try:
            result = work()
            said = self.said
        finally:
            self.said = outer
        if outer is not None:
            outer += said
        return result, said

    def value(
        self, el: El, parse: Callable[[str, str], T], value: str, prop: str, default: D
    ) -> T | D:
        try:
            return parse(value, prop)
        except ValueError as e:
            self.problem(el, str(e))
            return default

    @overload
    def num(
        self, el: El, own: Own, name: str, default: float = 0.0, nonneg: bool = False
    ) -> float: ...
    @overload
    def num(
        self, el: El, own: Own, name: str, default: None, nonneg: bool = False
    ) -> float | None: ...

    def num(
        self, el: El, own: Own, name: str, default: float | None = 0.0, nonneg: bool = False
    ) -> float | None:
        value = own.get(name)
        return (
            default
            if value is None
            else self.value(el, _nonneg if nonneg else _number, value, name, default)
        )

    def attributes(self, el: El, tag: str) -> tuple[Own, dict[str, str]]:
        """(own attributes, presentation properties) of el; style wins over attributes.

        The same markup recurs on every card of a deck, so what a tag and its attributes give
        is remembered (the dicts are shared: nobody changes them), with the messages of its
        problems, which are reported again at this element's line."""
        attrib = tuple(el.attrib.items())
        key = (tag, attrib)
        done = self.attributes_memo.get(key)
        if done is not None:
            self.checked.add(el)
            for message in done[2]:
                self.problem(el, message)
            return done[0], done[1]
        (own, props), said = self.heard(lambda: self.read_attributes(el, tag))
        if not any(name[0] == "{" for name, _ in attrib):  # else: the element's nsmap counts
            memo.remember(self.attributes_memo, key, (own, props, tuple(said)), _MEMO_SIZE)
        return own, props

    def read_attributes(self, el: El, tag: str) -> tuple[Own, dict[str, str]]:
        """attributes(), read afresh."""
        own_names, prop_names = _ELEMENTS[tag]
        own: Own = {}
        props: dict[str, str] = {}
        style: str | None = None
        self.checked.add(el)
        for name, value in el.attrib.items():
            if name[0] == "{":
                ns, local = name[1:].split("}")
                prefix = _NS_PREFIX.get(ns) or next((p for p, u in el.nsmap.items() if u == ns), ns)
                name = "href" if (prefix, local) == ("xlink", "href") else f"{prefix}:{local}"
            if (
                name == "href" and "href" in own
            ):  # a browser would take one, we would check the other
                self.problem(el, f"<{tag}> has both href and xlink:href: give one")
            if name in own_names:
                own[name] = value
            elif name in prop_names:
                props[name] = value.strip()
            elif name == "style":
                style = value
            elif name not in ("id", "class") and not name.startswith("data-"):
                self.problem(el, f"unsupported attribute '{name}' on <{tag}>")
        for decl in (style or "").split(";"):
            name, colon, value = (s.strip() for s in decl.partition(":"))
            if not (name or colon or value):
                continue
            if not (name and colon and value):
                self.problem(el, f"bad style declaration '{decl.strip()}'")
            elif name in prop_names and name != "transform":  # CSS transforms have other syntax
                props[name] = value
            else:
                self.problem(el, f"unsupported attribute '{name}' on <{tag}>")
        return own, props

    def style(self, el: El, parent: Style, props: dict[str, str]) -> Style:
        """The computed inherited style of el; shares parent's dict when el changes nothing.

        Remembered by the parent style (held, so its id stays its own) and the properties, when
        they parse without a problem: the same style object then comes back for the same
        inputs, in every compile, and _LEAVES can recognise it."""
        key = (id(parent), tuple(props.items()))
        done = self.styles.get(key)
        if done is not None and done[0] is parent:
            return done[1]
        st, said = self.heard(lambda: self.computed_style(el, parent, props))
        if not said:
            memo.remember(self.styles, key, (parent, st), _MEMO_SIZE)
        return st

    def computed_style(self, el: El, parent: Style, props: dict[str, str]) -> Style:
        """style(), computed afresh."""
        st = parent
        for prop, value in props.items():
            if prop in _PARSERS and value != "inherit":
                parsed = self.value(el, _PARSERS[prop][0], value, prop, st[prop])
                if parsed != st[prop]:
                    st = dict(st) if st is parent else st
                    st[prop] = parsed
        if "opacity" in props:  # folded into descendants' alphas, see the module docstring
            st = dict(st) if st is parent else st
            st["alpha"] *= self.value(el, _opacity, props["opacity"], "opacity", 1.0)
        return st

    def children(self, el: El, st: Style, out: list[Op]) -> None:
        for child in el:
            if _is_element(child):
                self.element(child, st, out)

    def no_children(self, el: El) -> None:
        for child in el:
            if _is_element(child) and _tag(child) not in _SKIPPED:
                self.problem(child, f"unsupported element <{_tag(child)}>")

    def element(self, el: El, st: Style, out: list[Op]) -> None:
        tag = _tag(el)
        if tag in _SKIPPED:
            return
        handler = _HANDLERS.get(tag)
        if handler is None:
            self.problem(el, f"unsupported element <{tag}>")
            return
        if not self.budget(el, 1):
            return
        if tag in _SHAPES and not len(el):
            self.leaf(el, tag, handler, st, out)
            return
        self.level += 1
        try:
            self.draw(el, tag, handler, st, out)
        finally:
            self.level -= 1

    def budget(self, el: El, elements: int) -> bool:
        """Whether el, standing for that many elements, may be drawn: the drawing's elements
        (each <use> and art file expanded) and their nesting are bounded, like YAML's aliases,
        so that ten <use>s of ten <use>s nine times over, or nesting that would exhaust
        Python's stack, are a located problem rather than gigabytes or a RecursionError."""
        if self.level >= MAX_NESTING:
            self.problem(
                el,
                f"elements nest more than {MAX_NESTING} deep (counting <use> and the art files "
                "that draw this one); pnpkit draws at most that",
            )
            return False
        self.drawn += elements
        if self.drawn <= MAX_ELEMENTS:
            return True
        if self.drawn - elements <= MAX_ELEMENTS:  # said once, where the budget ran out
            self.problem(
                el,
                f"the drawing has more than {MAX_ELEMENTS:,} elements once each <use> and art "
                f"file is expanded; pnpkit draws at most {MAX_ELEMENTS:,} in one drawing",
            )
        return False

    def leaf(self, el: El, tag: str, handler: Handler, st: Style, out: list[Op]) -> None:
        """A shape without children: its ops depend only on its tag, its attributes and the
        inherited style (unless it refers to an id), so they are remembered (_LEAVES)."""
        attrib = tuple(el.attrib.items())
        key = (tag, attrib, id(st))
        done = self.leaves.get(key)
        if done is not None and done[0] is st:
            self.checked.add(el)
            out += done[1]
            return
        ops: list[Op] = []
        _, said = self.heard(lambda: self.draw(el, tag, handler, st, ops))
        out += ops
        if not said and not _is_url(st["fill"]) and not any("url(" in v for _, v in attrib):
            memo.remember(self.leaves, key, (st, tuple(ops)), _MEMO_SIZE)

    def draw(self, el: El, tag: str, handler: Handler, st: Style, out: list[Op]) -> None:
        """Compile el, a supported element, and append its ops to out when it is shown."""
        own, props = self.attributes(el, tag)
        shown = self.value(el, _DISPLAY, props.get("display", "inline"), "display", True)
        st = self.style(el, st, props)
        body: list[Op] = []
        inner, viewport = handler(self, el, own, st, body) or (None, None)
        if (
            shown
        ):  # display="none" is compiled all the same: hidden content is checked like the rest
            self.emit(el, props, body, out, inner, viewport)

    def emit(
        self,
        el: El,
        props: dict[str, str],
        body: list[Op],
        out: list[Op],
        inner: Matrix | None = None,
        viewport: Box | None = None,
    ) -> None:
        """Append body to out, wrapped in el's transform, clip-path and viewport when it has
        them."""
        matrix = (
            self.value(el, _transform, props["transform"], "transform", None)
            if "transform" in props
            else None
        )
        clip = self.clip_ref(el, props["clip-path"]) if "clip-path" in props else None
        if not body:
            return
        prologue: list[Op] = [Transform(matrix)] if matrix else []
        prologue += [clip] if clip else []
        prologue += [Clip(tuple(_rect_segs(*viewport)), False)] if viewport else []
        prologue += [Transform(inner)] if inner else []
        if prologue:
            out += [Save(), *prologue, *body, Restore()]
        else:
            out += body

    def clip_ref(self, el: El, value: str) -> Clip | None:
        match = _URL_RE.fullmatch(value)
        target = self.ids.get(match.group(1)) if match else None
        if target is None or _tag(target) != "clipPath":
            self.problem(el, f"clip-path '{value}' does not refer to a <clipPath>")
            return None
        if target not in self.clips:
            self.clips[target] = self.clip_op(target)
        return self.clips[target]

    def clip_op(self, clip_el: El) -> Clip:
        """One Clip op from a clipPath's shapes, in the referencing element's user space."""
        own, props = self.attributes(clip_el, "clipPath")
        if own.get("clipPathUnits", "userSpaceOnUse") != "userSpaceOnUse":
            self.problem(clip_el, "clipPathUnits must be userSpaceOnUse")
        outer = self.value(clip_el, _transform, props.get("transform", ""), "transform", _IDENTITY)
        evenodd = self.value(clip_el, _RULE, props.get("clip-rule", "nonzero"), "clip-rule", False)
        segs: SegList = []
        for child in filter(_is_element, clip_el):
            tag = _tag(child)
            if tag not in _CLIP_SHAPES:
                if tag not in _SKIPPED:
                    self.problem(child, f"unsupported element <{tag}> inside <clipPath>")
                continue
            own, props = self.attributes(child, tag)
            matrix = compose(
                outer,
                self.value(child, _transform, props.get("transform", ""), "transform", _IDENTITY),
            )
            segs += _transform_segs(self.shape_segs(child, tag, own), matrix)
            evenodd = (
                self.value(child, _RULE, props.get("clip-rule", "nonzero"), "clip-rule", False)
                or evenodd
            )
        return Clip(tuple(segs or _rect_segs(0, 0, 0, 0)), evenodd)  # no shapes: all is clipped

    def shape_segs(self, el: El, tag: str, own: Own) -> Sequence[tuple[str, tuple[float, ...]]]:
        try:
            if tag == "path":
                return _path_segs(own.get("d", ""))
            if tag in ("polyline", "polygon"):
                return _poly_segs(own.get("points", ""), tag == "polygon")
        except ValueError as e:
            self.problem(el, str(e))
            return []

        def n(name: str) -> float:
            return self.num(el, own, name, nonneg=name in ("width", "height", "r", "rx", "ry"))

        if tag == "line":
            return [("moveTo", (n("x1"), n("y1"))), ("lineTo", (n("x2"), n("y2")))]
        if tag == "circle":
            r = n("r")
            return _ellipse_segs(n("cx"), n("cy"), r, r) if r else []
        if tag == "ellipse":
            rx, ry = n("rx"), n("ry")
            return _ellipse_segs(n("cx"), n("cy"), rx, ry) if rx and ry else []
        w, h = n("width"), n("height")
        given_rx = n("rx") if "rx" in own else None
        given_ry = n("ry") if "ry" in own else None
        # one sets both
        rx = (given_rx if given_rx is not None else given_ry) or 0.0
        ry = (given_ry if given_ry is not None else given_rx) or 0.0
        return _rect_segs(n("x"), n("y"), w, h, min(rx, w / 2), min(ry, h / 2)) if w and h else []

    # Handlers fill body and may return (inner matrix, viewport rect) for emit.

    def h_shape(self, el: El, own: Own, st: Style, body: list[Op]) -> None:
        self.no_children(el)
        tag = _tag(el)
        segs = self.shape_segs(el, tag, own)
        grad = None
        if _is_url(st["fill"]):
            grad = self.gradient(el, st["fill"][1], segs, st) if tag != "line" and segs else None
            st = {**st, "fill": None}
        fill, stroke = _paint(st)
        fill = None if tag == "line" else fill
        if grad is not None:
            body.append(grad)
        if segs and (fill or stroke):
            body.append(PathOp(tuple(segs), fill, stroke, st["fill-rule"]))

    def gradient(
        self, el: El, ident: str, segs: Sequence[tuple[str, tuple[float, ...]]], st: Style
    ) -> Gradient | None:
        """A Gradient op painting a shape with a <linearGradient> or <radialGradient> (pad spread,
        opaque stops)."""
        target = self.ids.get(ident)
        if target is None or _tag(target) not in ("linearGradient", "radialGradient"):
            self.problem(
                el, f"fill 'url(#{ident})' does not refer to a <linearGradient> or <radialGradient>"
            )
            return None
        found = self.gradient_spec(target)
        alpha = st["fill-opacity"] * st["alpha"]
        if found is None or not st["visibility"] or alpha <= 0:
            return None
        kind, coords, colours, offsets, units, transform = found
        matrix = transform
        if units == "objectBoundingBox":
            xs = [a[i] for _, a in segs for i in range(0, len(a), 2)]
            ys = [a[i] for _, a in segs for i in range(1, len(a), 2)]
            bw, bh = max(xs) - min(xs), max(ys) - min(ys)
            if not (bw and bh):  # SVG: a bounding-box gradient on a zero-area box paints nothing
                return None
            matrix = compose((bw, 0, 0, bh, min(xs), min(ys)), transform)
        return Gradient(tuple(segs), st["fill-rule"], kind, coords, colours, offsets, matrix, alpha)

    def gradient_spec(self, g: El) -> GradientSpec | None:
        """(kind, coords, colours, offsets, units, transform) of a gradient element, or None
        after problems."""
        tag = _tag(g)
        own, props = self.attributes(g, tag)
        before = len(self.problems)
        units = own.get("gradientUnits", "objectBoundingBox")
        if units not in ("objectBoundingBox", "userSpaceOnUse"):
            self.problem(
                g, f"bad gradientUnits '{units}' (use objectBoundingBox or userSpaceOnUse)"
            )
        if own.get("spreadMethod", "pad") != "pad":
            self.problem(g, "spreadMethod must be pad (reflect and repeat are not supported)")
        if "href" in own:
            self.problem(
                g, "a gradient cannot take its stops from another (href): give it its own <stop>s"
            )
        transform = self.value(
            g, _transform, own.get("gradientTransform", ""), "gradientTransform", _IDENTITY
        )
        bbox = units == "objectBoundingBox"
        names = ("x1", "y1", "x2", "y2") if tag == "linearGradient" else ("cx", "cy", "r")
        defaults = {
            "x1": "0%",
            "y1": "0%",
            "x2": "100%",
            "y2": "0%",
            "cx": "50%",
            "cy": "50%",
            "r": "50%",
        }
        coords = tuple(
            self.value(g, _fraction if bbox else _number, own.get(n, defaults[n]), n, 0.0)
            for n in names
        )
        if tag == "radialGradient":
            for f, c in (("fx", "cx"), ("fy", "cy")):
                if f in own and own[f] != own.get(c, defaults[c]):
                    self.problem(g, f"{f} must equal {c} (a moved focal point is not supported)")
        colours: list[RGB] = []
        offsets: list[float] = []
        last = 0.0
        for stop in filter(_is_element, g):
            if _tag(stop) != "stop":
                if _tag(stop) not in _SKIPPED:
                    self.problem(stop, f"unsupported element <{_tag(stop)}> inside <{tag}>")
                continue
            sown, sprops = self.attributes(stop, "stop")
            offset = min(
                max(self.value(stop, _fraction, sown.get("offset", "0"), "offset", 0.0), last), 1.0
            )
            colour = self.value(
                stop, _colour, sprops.get("stop-color", "black"), "stop-color", (0.0, 0.0, 0.0)
            )
            if self.value(stop, _opacity, sprops.get("stop-opacity", "1"), "stop-opacity", 1.0) < 1:
                self.problem(
                    stop,
                    "stop-opacity below 1 is not supported (PDF "
                    "shadings are opaque; use fill-opacity on the shape)",
                )
            colours.append(colour or (0.0, 0.0, 0.0))
            offsets.append(offset)
            last = offset
        if not colours:
            self.problem(g, f"<{tag}> needs at least one <stop>")
        if len(self.problems) > before:
            return None
        if len(colours) == 1:
            colours, offsets = colours * 2, [0.0, 1.0]
        return (
            "linear" if tag == "linearGradient" else "radial",
            coords,
            tuple(colours),
            tuple(offsets),
            units,
            transform,
        )

    def h_gradient(self, el: El, own: Own, st: Style, body: list[Op]) -> None:
        self.gradient_spec(el)  # never drawn itself; compiled to report problems

    def h_group(self, el: El, own: Own, st: Style, body: list[Op]) -> None:
        self.children(el, st, body)

    def h_defs(self, el: El, own: Own, st: Style, body: list[Op]) -> None:
        self.children(el, st, [])  # compiled only to report problems; drawn through <use>

    def h_clip_path(self, el: El, own: Own, st: Style, body: list[Op]) -> None:
        self.clip_op(el)  # never drawn; compiled to report problems

    def h_svg(self, el: El, own: Own, st: Style, body: list[Op]) -> Placed | None:
        x, y = self.num(el, own, "x"), self.num(el, own, "y")
        w, h = self.num(el, own, "width", None, True), self.num(el, own, "height", None, True)
        if w is None or h is None:
            self.problem(el, "nested <svg> needs width and height")
            return None
        inner: Matrix = (1, 0, 0, 1, x, y)
        if "viewBox" in own:
            vx, vy, vw, vh = self.viewbox(el, own["viewBox"])
            self.check_aspect(el, own, w, h, vw, vh)
            inner = compose(inner, (w / vw, 0, 0, h / vh, -vx * w / vw, -vy * h / vh))
        self.children(el, st, body)
        return inner, (x, y, w, h)

    def check_aspect(self, el: El, own: Own, w: float, h: float, vw: float, vh: float) -> None:
        """A viewBox is always stretched; where a browser would letterbox instead, make the
        author say so."""
        if (
            w
            and h
            and abs(vw / vh - w / h) > 1e-3 * vw / vh
            and own.get("preserveAspectRatio", "").strip() != "none"
        ):
            self.problem(
                el,
                'viewBox and width/height differ in aspect ratio: add preserveAspectRatio="none"',
            )

    def viewbox(self, el: El, value: str) -> Box:
        try:
            box = _numbers(value, "viewBox")
        except ValueError:
            box = []
        if len(box) != 4 or box[2] <= 0 or box[3] <= 0:
            self.problem(el, f"bad viewBox '{value}' (use 'min-x min-y width height')")
            return (0.0, 0.0, 1.0, 1.0)
        return box[0], box[1], box[2], box[3]

    def h_use(self, el: El, own: Own, st: Style, body: list[Op]) -> Placed:
        self.no_children(el)
        href = own.get("href", "")
        target = self.ids.get(href[1:]) if href.startswith("#") else None
        if target is None:
            self.problem(el, f"<use> refers to unknown id '{href}'")
        elif href in self.using:
            self.problem(el, f"<use> of '{href}' is circular")
        else:
            self.using.add(href)
            self.element(target, st, body)
            self.using.discard(href)
        return (1, 0, 0, 1, self.num(el, own, "x"), self.num(el, own, "y")), None

    def h_image(self, el: El, own: Own, st: Style, body: list[Op]) -> None:
        self.no_children(el)
        x, y = self.num(el, own, "x"), self.num(el, own, "y")
        w, h = self.num(el, own, "width", 0.0, True), self.num(el, own, "height", 0.0, True)
        aspect = own.get("preserveAspectRatio", "xMidYMid").split()
        if aspect not in (["none"], ["xMidYMid"], ["xMidYMid", "meet"]):
            self.problem(
                el,
                "preserveAspectRatio on <image> must be none "
                f"or xMidYMid meet (got '{' '.join(aspect)}')",
            )
        href = own.get("href", "")
        if _is_art(href):
            if w and h and st["visibility"]:
                self.art(el, href, x, y, w, h, aspect != ["none"], st, body)
            return
        source = self.image_source(el, href)
        if source and w and h and st["visibility"] and st["alpha"] > 0:
            body.append(ImageOp(source, x, y, w, h, st["alpha"], aspect != ["none"]))

    def art(
        self,
        el: El,
        href: str,
        x: float,
        y: float,
        w: float,
        h: float,
        meet: bool,
        st: Style,
        body: list[Op],
    ) -> None:
        """An SVG file drawn as vectors: compiled by the same rules, its problems located in it."""
        path = self.resolve_href(href) if self.resolve_href else None
        if path is None:
            self.problem(el, f"image '{href[:60]}' not found")
            return
        if self.depth >= _ART_DEPTH or path in self.art_stack:
            self.problem(
                el, f"image '{href[:60]}' draws itself (or nests deeper than {_ART_DEPTH} files)"
            )
            return
        try:
            box, ops = _compile_art(
                path, self.resolve_href, self.depth + 1, self.art_stack | {path}, self.level + 2
            )
        except SvgError as exc:
            for line, message, *where in exc.problems:
                self.problems[(line, message, where[0] if where else path)] = None
            return
        if not self.budget(el, len(ops)):
            return
        vx, vy, vw, vh = box
        sx, sy = w / vw, h / vh
        dx = dy = 0.0
        if meet:  # xMidYMid meet: uniform scale, centred
            sx = sy = min(sx, sy)
            dx, dy = (w - vw * sx) / 2, (h - vh * sy) / 2
        ops = _fade(ops, st["alpha"]) if st["alpha"] < 1 else ops
        body += [
            Save(),
            Clip(tuple(_rect_segs(x, y, w, h)), False),
            Transform((sx, 0, 0, sy, x + dx - vx * sx, y + dy - vy * sy)),
            *ops,
            Restore(),
        ]

    def image_source(self, el: El, href: str) -> str | bytes | None:
        """The PNG/JPEG bytes of a data: URI or the resolved file path, or None after a problem."""
        source: str | bytes | None
        if href.startswith("data:"):
            match = _DATA_URI_RE.fullmatch(href)
            try:
                data = (
                    base64.b64decode(_XML_SPACE_RE.sub("", match.group(2)), validate=True)
                    if match
                    else None
                )
            except binascii.Error:
                data = None
            if data is None:
                self.problem(
                    el, "image data URI must be data:image/png;base64,… or data:image/jpeg;base64,…"
                )
            head, source = (data or b"")[:4], data
        else:
            try:
                path = self.resolve_href(href) if self.resolve_href else None
            except ValueError as exc:  # the resolver refuses it, e.g. it leads outside the pack
                self.problem(el, str(exc))
                return None
            try:
                if path is None:
                    raise FileNotFoundError(href)
                with open(path, "rb") as f:
                    head, source = f.read(4), str(path)
            except OSError:  # FileNotFoundError: resolve_href gave None
                self.problem(el, f"image '{href[:60]}' not found")
                return None
        if source is not None and not head.startswith(_MAGIC):
            self.problem(el, f"image '{href[:60]}' is not a PNG or JPEG")
            return None
        too_large = image_too_large(source) if source is not None else None
        if too_large:
            self.problem(el, f"image '{href[:60]}' {too_large}")
            return None
        return source

    def h_text(self, el: El, own: Own, st: Style, body: list[Op]) -> None:
        if _LAID and self.laid_text(el, st, body):
            return
        lines: list[Line] = [
            [self.num(el, own, "x"), self.num(el, own, "y"), st["text-anchor"], st["direction"], []]
        ]
        self.runs(el, st, lines, nested=False)
        for x, y, anchor, direction, raw in lines:
            runs: list[tuple[str, Any]] = []
            for text, rst, source in _collapse(raw):
                font = fonts.face_name(rst["font-family"], rst["font-weight"], rst["font-style"])
                if font is None:
                    style = " ".join(
                        w
                        for w, on in (("bold", rst["font-weight"]), ("italic", rst["font-style"]))
                        if on
                    )
                    self.problem(source, f"font family '{rst['font-family']}' has no {style} face")
                    continue
                for ch in fonts.missing_glyphs(font, text):
                    self.problem(source, f"no glyph for '{ch}' (U+{ord(ch):04X}) in font {font}")
                if _is_url(rst["fill"]):
                    self.problem(source, "a gradient fills shapes only, not text")
                    rst = {**rst, "fill": None}
                runs.append((text, (font, rst["font-size"], _paint(rst))))
            line = "".join(text for text, _ in runs)
            ordered: list[tuple[str, Any, bool]]
            if direction != "rtl" and not shaping.needs_bidi(line):  # one left-to-right level
                ordered = [(text, run, False) for text, run in runs if text]
            else:
                unmatched = unibidi.unmatched(line)
                if unmatched:  # drawn all the same: the levels are still defined
                    self.problem(el, unmatched)
                if shaping.base_level(line, direction):  # start and end swap sides in RTL text
                    anchor = 1.0 - anchor
                ordered = shaping.visual_pieces(runs, direction)
            pieces: list[tuple[str, float, str, Any, tuple[Fill | None, Stroke | None], float]] = []
            total = 0.0
            for text, (font_name, size, paint), rtl in ordered:
                chars, data, width = shaping.shape(text, font_name, rtl)
                pieces.append((font_name, size, chars, data, paint, width * size))
                total += width * size  # as sum() adds them: left to right, from 0
            x -= anchor * total  # text-anchor applies to the whole line
            for font_name, size, chars, data, (fill, stroke), width in pieces:
                if size and (fill or stroke):
                    body.append(TextOp(x, y, font_name, size, chars, fill, stroke, data))
                x += width

    def laid_text(self, el: El, st: Style, body: list[Op]) -> bool:
        """h_text() from text_box()'s own layout of el (LaidText), if there is one for it and
        el's style gives the face it was laid out in: the same ops, with no problem to report."""
        try:
            key = _text_key(el)
        except etree.C14NError:  # what canonical XML cannot hold (an unresolved entity): never
            return False  # text_box()'s; the full compile reports it
        laid = _LAID.pop(key, None)
        if (
            laid is None
            or (laid.family, laid.bold, laid.italic)
            != (st["font-family"], st["font-weight"], st["font-style"])
            or st["direction"] == "rtl"
            or _is_url(st["fill"])
        ):
            return False
        self.checked.update(el.iter())  # what the tspans' attributes() would have added
        size, own_anchor = st["font-size"], st["text-anchor"]
        fill, stroke = _paint(st)
        painted = size and (fill or stroke)
        for x, y, anchor, runs in laid.lines:
            total = 0.0
            for run in runs:
                total += run[3] * size  # as h_text() adds them: left to right, from 0
            x -= (own_anchor if anchor is None else anchor) * total
            for font, chars, data, advance in runs:
                if painted:
                    body.append(TextOp(x, y, font, size, chars, fill, stroke, data))
                x += advance * size
        return True

    def runs(self, el: El, st: Style, lines: list[Line], nested: bool) -> None:
        """Append el's text runs (text, style, source element) to lines; positioned tspans start
        a line."""
        lines[-1][4].append((el.text or "", st, el))
        for child in el:
            tag = _tag(child) if _is_element(child) else None
            if tag == "tspan":
                own, props = self.attributes(child, tag)
                cst = self.style(child, st, props)
                if own.keys() & {"x", "y", "dy"}:
                    if nested:
                        self.problem(
                            child, "a <tspan> with x, y or dy must be a direct child of <text>"
                        )
                    elif "x" not in own:
                        self.problem(child, "a <tspan> with y or dy needs x as well")
                    else:
                        y = self.num(child, own, "y", lines[-1][1]) + self.num(child, own, "dy")
                        lines.append(
                            [self.num(child, own, "x"), y, cst["text-anchor"], cst["direction"], []]
                        )
                self.runs(child, cst, lines, nested=True)
            elif isinstance(
                child, etree._Entity
            ):  # left unresolved by the parser, so its text would vanish
                self.problem(el, f"unsupported entity reference {child.text}")
            elif tag is not None and tag not in _SKIPPED:
                self.problem(child, f"unsupported element <{tag}> inside <text>")
            lines[-1][4].append((child.tail or "", st, el))

    def document(self, root: El) -> Drawing | None:
        """Compile the root <svg>; width/height in mm and the viewBox fix the drawing's size."""
        if root.tag != _SVG + "svg":
            self.problem(root, "root element must be <svg> in the SVG namespace")
            return None
        own, props = self.attributes(root, "svg")
        known = len(self.problems)
        size: list[float] = []
        for name in ("width", "height"):
            match = _MM_RE.fullmatch(own.get(name, ""))
            size.append(float(match.group(1)) if match else 0.0)
            if not 0 < size[-1] <= MAX_NUMBER:
                self.problem(
                    root,
                    f"{name} must be a positive number in mm "
                    f"like '63mm' (got '{own.get(name, '')}')",
                )
        box = self.viewbox(root, own.get("viewBox", ""))
        if (
            len(self.problems) > known
        ):  # a placeholder size and box keep the rest of the checks going
            size = [s if s > 0 else 1.0 for s in size]
        else:
            self.check_aspect(root, own, size[0], size[1], box[2], box[3])
        ops: list[Op] = []
        if self.value(root, _DISPLAY, props.get("display", "inline"), "display", True):
            st = self.style(root, _DEFAULT_STYLE, props)
            body: list[Op] = []
            self.children(root, st, body)
            self.emit(root, props, body, ops, viewport=box)
        return Drawing(size[0], size[1], box, tuple(ops))

    def art_document(self, root: El) -> tuple[Box, tuple[Op, ...]]:
        """The root <svg> of an art file: its viewBox (or plain width and height) is its drawing
        box; it is scaled into the <image> box that draws it."""
        if root.tag != _SVG + "svg":
            self.problem(root, "root element must be <svg> in the SVG namespace")
            return (0.0, 0.0, 1.0, 1.0), ()
        own, props = self.attributes(root, "svg")
        if "viewBox" in own:
            box = self.viewbox(root, own["viewBox"])
        else:
            mw, mh = (
                _ONE_NUM_RE.fullmatch(own.get(n, "").removesuffix("px"))
                for n in ("width", "height")
            )
            if mw is None or mh is None or min(float(mw.group(1)), float(mh.group(1))) <= 0:
                self.problem(root, "an SVG image needs a viewBox (or a plain width and height)")
                return (0.0, 0.0, 1.0, 1.0), ()
            box = (0.0, 0.0, float(mw.group(1)), float(mh.group(1)))
        ops: list[Op] = []
        if self.value(root, _DISPLAY, props.get("display", "inline"), "display", True):
            st = self.style(root, _DEFAULT_STYLE, props)
            body: list[Op] = []
            self.children(root, st, body)
            self.emit(
                root, {k: v for k, v in props.items() if k != "transform"}, body, ops, viewport=box
            )
        return box, tuple(ops)


_ART_DEPTH = 8  # art files drawing art files
# elements nested in each other, through <use> and art files (an art file counts two): Python's
# stack takes four calls a level (250 nested <g> were a RecursionError)
MAX_NESTING = 100
# elements in one drawing, each <use> and art file expanded (its ops counted): 10^9 from nine
# levels of ten <use>s, 3.5 GB from art files nested 7 deep each drawing the next 10 times. The
# shipped kits' largest face has 937; 50,000 compile in about 2.5 s
MAX_ELEMENTS = 50_000
_ART_SUFFIX = (".svg",)


def _is_art(href: str) -> bool:
    return not href.startswith("data:") and href.lower().endswith(_ART_SUFFIX)


def _fade(ops: tuple[Op, ...], alpha: float) -> tuple[Op, ...]:
    """An <image>'s opacity folded into the art's paint, as group opacity is (see the docstring)."""
    out: list[Op] = []
    for op in ops:
        if isinstance(op, (PathOp, TextOp)):
            op = op._replace(
                fill=op.fill and op.fill._replace(alpha=op.fill.alpha * alpha),
                stroke=op.stroke and op.stroke._replace(alpha=op.stroke.alpha * alpha),
            )
        elif isinstance(op, (ImageOp, Gradient)):
            op = op._replace(alpha=op.alpha * alpha)
        out.append(op)
    return tuple(out)


@workspace.memoized(128)
def _art_bytes_compiled(
    data: bytes,
    path: str,
    resolve_href: Resolver | None,
    depth: int,
    art_stack: frozenset[str],
    level: int,
) -> tuple[Box, tuple[Op, ...]] | SvgError:
    """The art's (viewBox, ops), or the SvgError saying why not: a failure is kept too, so a
    file drawing a broken one ten times compiles it once."""
    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, huge_tree=False, load_dtd=False
    )
    try:
        root = etree.fromstring(data, parser)
    except etree.XMLSyntaxError as e:
        return SvgError([(e.lineno, one_line(e.msg, MAX_QUOTED), path)])
    if root.getroottree().docinfo.internalDTD is not None or root.getroottree().docinfo.doctype:
        return SvgError([(1, "an SVG image must not have a DOCTYPE or entities", path)])
    compiler = _Compiler(root, resolve_href, depth, art_stack, level)
    box, ops = compiler.art_document(root)
    if compiler.problems:
        return SvgError(
            sorted(
                ((p[0], p[1], p[2] if len(p) > 2 else path) for p in compiler.problems),
                key=lambda p: p[0],
            )
        )
    return box, ops


def _compile_art(
    path: str, resolve_href: Resolver | None, depth: int, art_stack: frozenset[str], level: int
) -> tuple[Box, tuple[Op, ...]]:
    """(viewBox, ops) of an SVG art file; SvgError with (line, message, file) problems."""
    try:
        data = filelimits.read(path, filelimits.MAX_ART_BYTES)
    except OSError as exc:
        raise SvgError([(0, f"cannot read image: {exc.strerror}", path)]) from None
    compiled = _art_bytes_compiled(data, path, resolve_href, depth, art_stack, level)
    if isinstance(compiled, SvgError):
        raise SvgError(compiled.problems)
    return compiled


# An image is decoded whole to go into the PDF (about 10 bytes a pixel at the peak), so a
# stranger's 30000x30000 PNG would take gigabytes. 50 megapixels is a 50x70cm board at
# 300 dpi (it builds in 7 s and 540 MB); 50 MB is more than such a board's PNG needs.
MAX_IMAGE_PIXELS = 50_000_000
MAX_IMAGE_BYTES = 50_000_000


def image_too_large(source: str | bytes) -> str | None:
    """Why the PNG/JPEG (bytes or a file path) is too large to embed, or None. Only its header
    is read."""
    from PIL import (  # the plug-ins skip Pillow's own bomb check
        JpegImagePlugin,
        PngImagePlugin,
        UnidentifiedImageError,
    )

    size = len(source) if isinstance(source, bytes) else os.path.getsize(source)
    if size > MAX_IMAGE_BYTES:
        return f"has {size} bytes; an image may have at most {MAX_IMAGE_BYTES}"
    try:
        with open(source, "rb") if isinstance(source, str) else io.BytesIO(source) as f:
            png = f.read(4) == b"\x89PNG"
            f.seek(0)
            w, h = (PngImagePlugin.PngImageFile if png else JpegImagePlugin.JpegImageFile)(f).size
    except (OSError, SyntaxError, ValueError, UnidentifiedImageError) as exc:
        return f"cannot be read: {exc}"
    if w * h > MAX_IMAGE_PIXELS:
        return (
            f"has {w}x{h} = {w * h} pixels; an image may "
            f"have at most {MAX_IMAGE_PIXELS} (scale it down)"
        )
    return None


Handler = Callable[["_Compiler", El, Own, Style, list[Op]], "Placed | None"]
_HANDLERS: Mapping[str, Handler] = MappingProxyType(
    {
        "svg": _Compiler.h_svg,
        "g": _Compiler.h_group,
        "defs": _Compiler.h_defs,
        "use": _Compiler.h_use,
        "text": _Compiler.h_text,
        "image": _Compiler.h_image,
        "clipPath": _Compiler.h_clip_path,
        "linearGradient": _Compiler.h_gradient,
        "radialGradient": _Compiler.h_gradient,
        **{tag: _Compiler.h_shape for tag in _SHAPES},
    }
)


MAX_REACH = 1e16  # mm from the face's origin; ReportLab cannot write a PDF number of 1e21
# no op holds a larger number: each is at most MAX_NUMBER, a clip's transformed by one more
_OP_MAX = 1e15


def _too_far(drawing: Drawing) -> str | None:
    """Each number is bounded, but scales multiply: scale(1e7) inside scale(1e7), or a viewBox
    1e-9 wide, would put points where the PDF cannot reach. Follows the ops' transforms with a
    bound on how far they can carry a point (in mm), and says why when it is too far."""
    w, h = drawing.viewbox[2:]
    scale = max(drawing.width_mm / w, drawing.height_mm / h)
    shift = scale * max(abs(drawing.viewbox[0]), abs(drawing.viewbox[1]))
    saved: list[tuple[float, float]] = []
    for op in drawing.ops:
        if isinstance(op, Save):
            saved.append((scale, shift))
        elif isinstance(op, Restore):
            scale, shift = saved.pop()
        elif isinstance(op, Transform):
            a, b, c, d, e, f = op.matrix
            shift += scale * max(abs(e), abs(f))
            scale *= max(abs(a) + abs(c), abs(b) + abs(d))
        if (
            scale * _OP_MAX + shift > MAX_REACH and scale * _largest(op) + shift > MAX_REACH
        ):  # the scan only when it could fail
            return (
                f"the drawing reaches more than {MAX_REACH:g}mm from the "
                "face (transforms or a viewBox that scale it up that far)"
            )
    return None


def _largest(values: Iterable[object]) -> float:
    """The largest magnitude among the numbers in an op's arguments (nested tuples included)."""
    best = 0.0
    for v in values:
        if isinstance(v, (tuple, list)):
            best = max(best, _largest(v))
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            best = max(best, abs(v))
    return best


# Checked wherever they sit, even where nothing is drawn (<metadata>, <title>, <desc>, inside an
# unsupported element): what would run or load something if a browser opened the SVG.
_NEVER = frozenset(
    {
        "script",
        "style",
        "foreignObject",
        "iframe",
        "object",
        "embed",
        "link",
        "feImage",
        "audio",
        "video",
        "handler",
        "listener",
        "include",
        "animation",
        "discard",
        "set",
        "animate",
    }
)
_LINK_ATTRS = frozenset({"href", "src"})
_CSS_URL_RE = re.compile(r"url\(\s*['\"]?\s*(?!#)", re.I)


def _unchecked(compiler: _Compiler, root: El) -> None:
    """Report what could load or run something in the elements the compiler did not read."""
    for el in root.iter(etree.Element):
        if el in compiler.checked:
            continue
        tag = _tag(el)
        if etree.QName(el).localname in _NEVER:
            compiler.problem(el, f"unsupported element <{tag}>")
        for name, value in el.attrib.items():
            local = etree.QName(name).localname
            shown = f"'{value[:60]}…'" if len(value) > 60 else f"'{value}'"
            if local in _LINK_ATTRS and tag == "image":
                compiler.image_source(el, value)
            elif local in _LINK_ATTRS and not value.startswith("#"):
                compiler.problem(el, f"<{tag}> links to {shown}: only an <image> may name a file")
            elif local.startswith("on") or _CSS_URL_RE.search(value):
                compiler.problem(el, f"unsupported attribute '{local}' on <{tag}>")


_NO_DTD = "<!DOCTYPE> and <!ENTITY> are not supported (no DTDs or entities in a face)"


def _doctype_line(svg: str) -> int:
    return svg.count("\n", 0, max(svg.find("<!DOCTYPE"), 0)) + 1


def _preamble(svg: str, compiler: _Compiler, root: El) -> None:
    """DTDs (and so entities) and processing instructions are refused: they can pull in files."""
    if root.getroottree().docinfo.doctype:
        compiler.problems[(_doctype_line(svg), _NO_DTD)] = None
    for node in [*root.itersiblings(preceding=True), *root.itersiblings(), *root.iter(etree.PI)]:
        if isinstance(node, etree._ProcessingInstruction):
            compiler.problem(node, f"processing instruction <?{node.target}?> is not supported")


def compile_svg(svg: str, resolve_href: Resolver | None = None) -> Drawing:
    """Parse strictly and compile. Raise SvgError listing EVERY problem found (not just the first).

    resolve_href maps an <image> href to a file path, or None when there is no such image.
    """
    _fresh_memos()
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
    try:
        root = etree.fromstring(svg.encode(), parser)
    except etree.XMLSyntaxError as e:  # an entity bomb fails here: say what is not allowed
        raise SvgError(
            [(_doctype_line(svg), _NO_DTD)]
            if "<!DOCTYPE" in svg
            else [(e.lineno, one_line(e.msg, MAX_QUOTED))]
        ) from None
    compiler = _Compiler(root, resolve_href)
    _preamble(svg, compiler, root)
    drawing = compiler.document(root)
    _unchecked(compiler, root)
    too_far = _too_far(drawing) if drawing is not None and not compiler.problems else None
    if too_far:
        compiler.problem(root, too_far)
    if compiler.problems:
        raise SvgError(sorted(compiler.problems, key=lambda problem: problem[0]))
    assert drawing is not None  # document() gives None only after a problem
    return drawing
