"""A compiled drawing (Drawing) and how its operations are replayed onto a ReportLab canvas,
writing the PDF operators of paint, paths and text itself where that was measured faster."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, cast
from weakref import WeakKeyDictionary

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

from pnpkit import memo, workspace
from pnpkit.svg.ops import (
    Clip,
    Fill,
    Gradient,
    ImageOp,
    Op,
    PathOp,
    Restore,
    Save,
    Stroke,
    TextOp,
    Transform,
)
from pnpkit.typeset import shaping
from pnpkit.units import PT_PER_MM

MM = PT_PER_MM  # points per millimetre


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
