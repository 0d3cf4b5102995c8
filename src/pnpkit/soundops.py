"""Is a drawing read back from the build cache one the SVG compiler could have made?

The cache folder lies in --out, and a project archive can ship one: what it holds is data
from a stranger, never authority. A drawing's ops are replayed onto the PDF canvas, and
some of their fields lead somewhere: an image op names a file that is embedded, a text op
names a font, a path's segments name the canvas path's methods that are called. So before a
cached drawing is used, every op is checked as strictly as the compiler's own output is
made: the right fields of the right types, finite numbers, an image only from a file the
SVG names now (resolved inside the pack just now), a font only one registered for this
build, a path segment only one of the compiler's own. Anything else is a cache miss, and
the drawing is compiled again from its SVG.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection
from typing import Any

from reportlab.pdfbase import pdfmetrics

from pnpkit.svgdraw import (
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

LARGEST = 1e15  # far beyond any drawing's coordinate (ReportLab fails near 1e21), and finite
SEGMENTS = {"moveTo": 2, "lineTo": 2, "curveTo": 6, "rect": 4, "close": 0}  # name: numbers


def sound(ops: tuple[Op, ...], images: Collection[str]) -> bool:
    """Whether every op is one the compiler makes, drawing only the image files `images` (the
    files the SVG names, as resolved for this build) and only registered fonts."""
    fonts = set(pdfmetrics.getRegisteredFontNames())
    for op in ops:
        check = _CHECKS.get(type(op))
        if check is None or not check(op, images, fonts):
            return False
    return True


def _number(value: object) -> bool:
    return type(value) in (int, float) and math.isfinite(value) and abs(value) <= LARGEST  # type: ignore[arg-type]


def numbers(values: object, count: int | None = None) -> bool:
    return (
        type(values) is tuple
        and (count is None or len(values) == count)
        and all(_number(v) for v in values)
    )


def _segs(segs: object) -> bool:
    return type(segs) is tuple and all(
        type(seg) is tuple
        and len(seg) == 2
        and SEGMENTS.get(seg[0]) is not None
        and numbers(seg[1], SEGMENTS[seg[0]])
        for seg in segs
    )


def _fill(fill: object) -> bool:
    return fill is None or (type(fill) is Fill and all(_number(v) for v in fill))


def _stroke(stroke: object) -> bool:
    if stroke is None:
        return True
    if type(stroke) is not Stroke:
        return False
    *values, dash, offset = stroke
    return all(_number(v) for v in values) and numbers(dash) and _number(offset)


def _path(op: Any, images: Collection[str], fonts: set[str]) -> bool:
    return _segs(op.segs) and _fill(op.fill) and _stroke(op.stroke) and type(op.evenodd) is bool


def _clip(op: Any, images: Collection[str], fonts: set[str]) -> bool:
    return _segs(op.segs) and type(op.evenodd) is bool


def _text(op: Any, images: Collection[str], fonts: set[str]) -> bool:
    shaped = op.shaping
    return (
        _number(op.x)
        and _number(op.y)
        and _number(op.size)
        and op.font in fonts
        and type(op.text) is str
        and _fill(op.fill)
        and _stroke(op.stroke)
        and (
            shaped is None
            or (
                type(shaped) is tuple
                and len(shaped) == len(op.text)
                and all(numbers(glyph, 6) for glyph in shaped)
            )
        )
    )


def _image(op: Any, images: Collection[str], fonts: set[str]) -> bool:
    source = op.source
    return (
        (type(source) is bytes or (type(source) is str and source in images))
        and all(_number(v) for v in (op.x, op.y, op.w, op.h, op.alpha))
        and type(op.keep_aspect) is bool
    )


def _gradient(op: Any, images: Collection[str], fonts: set[str]) -> bool:
    return (
        _segs(op.segs)
        and type(op.evenodd) is bool
        and op.kind in ("linear", "radial")
        and numbers(op.coords)
        and type(op.colours) is tuple
        and all(numbers(c, 3) for c in op.colours)
        and numbers(op.offsets)
        and numbers(op.matrix, 6)
        and _number(op.alpha)
    )


_CHECKS: dict[type, Callable[[Any, Collection[str], set[str]], bool]] = {
    Save: lambda op, images, fonts: True,
    Restore: lambda op, images, fonts: True,
    Transform: lambda op, images, fonts: numbers(op.matrix, 6),
    Clip: _clip,
    PathOp: _path,
    TextOp: _text,
    ImageOp: _image,
    Gradient: _gradient,
}
