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
from collections.abc import Callable, Collection, Iterable, Mapping
from itertools import chain
from operator import itemgetter
from types import MappingProxyType
from typing import Any

from reportlab.pdfbase import pdfmetrics

from pnpkit.svg.ops import Clip, Gradient, ImageOp, Op, PathOp, Restore, Save, TextOp, Transform

LARGEST = 1e15  # far beyond any drawing's number (a coordinate is at most 1e7,
# svg.values.MAX_NUMBER), short of where ReportLab fails (1e21)
SEGMENTS = MappingProxyType(
    {"moveTo": 2, "lineTo": 2, "curveTo": 6, "rect": 4, "close": 0}
)  # name: numbers
_TUPLE = frozenset({tuple})

# sound() looks at each op's shape and names and gathers the numbers it holds, which it then
# checks at once: a 1,000-card deck's drawings hold close to a million numbers (glyph
# positions, path points), too many to look at one at a time in Python. The common ops are
# looked at in sound() itself: a call a op cost a tenth of a warm build's time.
Found = list[Iterable[object]]


def sound(ops: tuple[Op, ...], images: Collection[str]) -> bool:
    """Whether every op is one the compiler makes, drawing only the image files `images` (the
    files the SVG names, as resolved for this build) and only registered fonts."""
    fonts = set(pdfmetrics.getRegisteredFontNames())
    found: Found = []
    add = found.append
    try:
        for op in ops:
            kind = type(op)
            if kind is PathOp:
                ok = _segs(op.segs, found) and type(op.evenodd) is bool  # type: ignore[union-attr]
            elif kind is TextOp:
                ok = op.font in fonts and _text(op, found)  # type: ignore[union-attr,arg-type]
            elif kind is Save or kind is Restore:
                continue
            else:
                check = _CHECKS.get(kind)
                ok = check is not None and check(op, images, found)
            if not ok:
                return False
            if kind is PathOp or kind is TextOp:  # op_from_row made a Fill, a Stroke or None
                fill, stroke = op.fill, op.stroke  # type: ignore[union-attr]
                if fill is not None:
                    add(fill)
                if stroke is not None:
                    if type(stroke.dash) is not tuple:
                        return False
                    add(stroke[:8])
                    add(stroke.dash)
                    add((stroke.offset,))
        return _finite(chain.from_iterable(found))
    except (TypeError, ValueError, OverflowError):  # a field of another type than expected
        return False


def numbers(values: object, count: int | None = None) -> bool:
    """Whether values is a tuple of `count` (any number of) finite numbers of sane size."""
    try:
        return type(values) is tuple and (count is None or len(values) == count) and _finite(values)
    except (TypeError, ValueError, OverflowError):
        return False


def _finite(values: Iterable[object]) -> bool:
    """Whether every value is a number (int, float or bool) and none is NaN, infinite or
    larger than LARGEST either way: their Euclidean norm, in one pass in C, is at most
    LARGEST (math.hypot raises TypeError for anything but a real number, and a NaN or an
    infinity makes the norm one)."""
    return math.hypot(*values) <= LARGEST  # type: ignore[arg-type]  # TypeError: not a number


def _segs(segs: object, found: Found) -> bool:
    """A path's segments: (name, numbers) with a name and count of the compiler's own."""
    if type(segs) is not tuple:
        return False
    for name, args in segs:  # a segment that is not a pair raises ValueError or TypeError
        if type(args) is not tuple or SEGMENTS.get(name) != len(args):
            return False
    found.extend(map(itemgetter(1), segs))  # tuples: chained once, in C (see _finite)
    return True


def _text(op: TextOp, found: Found) -> bool:
    """A run of text: its text a string, its glyphs (if shaped) one per character."""
    if type(op.text) is not str:
        return False
    found.append((op.x, op.y, op.size))
    shaped = op.shaping
    if shaped is None:
        return True
    if not (
        type(shaped) is tuple
        and len(shaped) == len(op.text)
        and set(map(type, shaped)) <= _TUPLE
        and set(map(len, shaped)) <= {6}
    ):
        return False
    found.extend(shaped)
    return True


def _clip(op: Any, images: Collection[str], found: Found) -> bool:
    return _segs(op.segs, found) and type(op.evenodd) is bool


def _image(op: Any, images: Collection[str], found: Found) -> bool:
    source = op.source
    found.append((op.x, op.y, op.w, op.h, op.alpha))
    return (type(source) is bytes or (type(source) is str and source in images)) and type(
        op.keep_aspect
    ) is bool


def _gradient(op: Any, images: Collection[str], found: Found) -> bool:
    colours = op.colours
    if not (
        _segs(op.segs, found)
        and type(op.evenodd) is bool
        and op.kind in ("linear", "radial")
        and type(op.coords) is tuple
        and type(op.offsets) is tuple
        and type(colours) is tuple
        and set(map(type, colours)) <= _TUPLE
        and set(map(len, colours)) <= {3}
        and type(op.matrix) is tuple
        and len(op.matrix) == 6
    ):
        return False
    found += (op.coords, op.offsets, op.matrix, (op.alpha,), *colours)
    return True


def _transform(op: Any, images: Collection[str], found: Found) -> bool:
    found.append(op.matrix)
    return type(op.matrix) is tuple and len(op.matrix) == 6


_CHECKS: Mapping[type, Callable[[Any, Collection[str], Found], bool]] = MappingProxyType(
    {
        Transform: _transform,
        Clip: _clip,
        ImageOp: _image,
        Gradient: _gradient,
    }
)
