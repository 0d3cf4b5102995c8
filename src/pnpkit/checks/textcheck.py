"""Every text a face draws, measured where it lands, whether text_box() wrote it or a raw <text>.

A compiled face (svg.drawing.Drawing) is replayed without a canvas: the transforms
are followed, so a 3-unit font under scale(0.7) is reported at the size it
prints. Each text is checked against the pack's minimum size, the safe zone and
the cut line, and its colour against the colour drawn under it (WCAG 2 contrast:
4.5:1, 3:1 for large text). Problems are warnings: the face still prints.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from typing import NamedTuple

from pnpkit import memo, workspace
from pnpkit.pack.model import Face
from pnpkit.svg.drawing import Drawing
from pnpkit.svg.ops import (
    Clip,
    Gradient,
    ImageOp,
    Matrix,
    PathOp,
    Restore,
    Save,
    Segs,
    TextOp,
    Transform,
)
from pnpkit.svg.values import apply, compose
from pnpkit.typeset import shaping
from pnpkit.units import PT_PER_MM

ASCENT, DESCENT = 0.76, 0.24  # of the font size, DejaVu Sans' caps-and-accents height and descender
CONTRAST, CONTRAST_LARGE = 4.5, 3.0  # WCAG 1.4.3 (print-standards §7)
LARGE_PT, LARGE_BOLD_PT = 18.0, 14.0


PAPER = (1.0, 1.0, 1.0)  # what shows where nothing is drawn
FAINT = 0.5  # text at this opacity or less is a watermark or a ghost of a picture, not read
OUTLINE_PT = 0.25  # a stroke at least this wide is an outline the eye reads the letters by

Colour = tuple[float, ...]
Box = tuple[float, float, float, float]
Polygons = tuple[tuple[tuple[float, float], ...], ...]


class Text(NamedTuple):  # a face has dozens: a frozen dataclass is several times slower to make
    text: str
    size_pt: float
    box: Box  # left, top, right, bottom in the face's mm (bleed-box origin)
    bold: bool
    fill: Colour | None  # (r, g, b, alpha) 0..1
    under: Colour | None  # the opaque colour drawn beneath the text's centre; None: unknown (art)
    outline: Colour | None = None  # an opaque stroke wide enough to read the letters by
    grounds: tuple[Colour, ...] = ()  # every colour under the text: a gradient's stops


class _Ground:
    """Paint as the eye sees it: an area (polygons in face mm, clipped to a box) and its colours,
    translucent paint already mixed with what was beneath. No colours: a picture, unknown. The
    polygons are moved into face mm only when a point inside the box asks (most never do)."""

    __slots__ = ("box", "colours", "_raw", "_ctm", "_polygons")

    def __init__(
        self,
        box: Box,
        colours: tuple[Colour, ...],
        raw: Polygons | None = None,
        ctm: Matrix | None = None,
    ):
        self.box, self.colours, self._raw, self._ctm = box, colours, raw, ctm
        self._polygons: Polygons | None = None

    @property
    def polygons(self) -> Polygons:
        if self._polygons is None:
            ctm = self._ctm
            self._polygons = (
                ()
                if self._raw is None or ctm is None
                else tuple(tuple(apply(ctm, p) for p in poly) for poly in self._raw)
            )
        return self._polygons

    def covers(self, x: float, y: float) -> bool:
        left, top, right, bottom = self.box
        if not (left <= x <= right and top <= y <= bottom):
            return False
        polygons = self.polygons
        return any(_inside(poly, x, y) for poly in polygons) if polygons else True


def texts(drawing: Drawing) -> list[Text]:
    """The texts of a compiled face, in drawing order."""
    minx, miny, vw, vh = drawing.viewbox
    sx, sy = drawing.width_mm / vw, drawing.height_mm / vh
    ctm: Matrix = (sx, 0.0, 0.0, sy, -sx * minx, -sy * miny)
    clip: Box | None = None
    stack: list[tuple[Matrix, Box | None]] = []
    out: list[Text] = []
    grounds: list[_Ground] = []
    for op in drawing.ops:  # by exact type: svg.ops.Op's NamedTuples, most common first
        if type(op) is PathOp or type(op) is Gradient or type(op) is ImageOp:
            ground = _ground(op, ctm, clip, grounds)
            if ground is not None:
                grounds.append(ground)
        elif type(op) is TextOp:
            out.append(_text(op, ctm, grounds))
        elif type(op) is Save:
            stack.append((ctm, clip))
        elif type(op) is Restore:
            ctm, clip = stack.pop() if stack else (ctm, clip)
        elif type(op) is Transform:
            ctm = compose(ctm, op.matrix)
        elif type(op) is Clip:
            clip = _meet(clip, _bounds([apply(ctm, p) for p in _points(op.segs)]))
    return out


def _ground(
    op: PathOp | Gradient | ImageOp, ctm: Matrix, clip: Box | None, below: list[_Ground]
) -> _Ground | None:
    """What a painting operation leaves visible, or None if it leaves no colour behind."""
    if isinstance(op, ImageOp):
        x, y, w, h = op.x, op.y, op.w, op.h
        corners = [apply(ctm, p) for p in ((x, y), (x + w, y), (x, y + h), (x + w, y + h))]
        box = _meet(clip, _bounds(corners))
        return None if box is None or op.alpha < 0.05 else _Ground(box, ())
    if type(op) is PathOp and op.fill is not None and op.fill[3] == 1.0:
        # most paths: one opaque fill (what follows, for that one paint)
        raw, raw_box = _outline(op.segs)
        box = _meet(clip, _moved_bounds(ctm, raw, raw_box))
        return None if box is None else _Ground(box, (_over(tuple(op.fill), PAPER),), raw, ctm)
    segs = op.segs
    paints: list[Colour]
    if isinstance(op, PathOp):
        paints = [tuple(op.fill)] if op.fill is not None else []
    else:  # a gradient: all its stops, each mixed at the gradient's opacity
        paints = [(*c[:3], op.alpha) for c in op.colours]
    if not paints or max(p[3] for p in paints) < 0.05:
        return None
    raw, raw_box = _outline(segs)
    box = _meet(clip, _moved_bounds(ctm, raw, raw_box))
    if box is None:
        return None
    if all(len(p) < 4 or p[3] == 1.0 for p in paints):  # opaque: what lies beneath never shows
        return _Ground(box, tuple(_over(paint, PAPER) for paint in paints), raw, ctm)
    beneath = _under(below, (box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
    colours = tuple(_over(paint, ground) for paint in paints for ground in beneath or (PAPER,))
    return _Ground(box, colours, raw, ctm)


def _moved_bounds(ctm: Matrix, polys: Polygons, box: Box | None) -> Box | None:
    """_bounds of the polygons' points moved by ctm; without rotation or skew only the corners
    of their unmoved bounds (box) are moved (the same numbers: scaling and adding keep the
    order)."""
    if ctm[1] or ctm[2]:
        return _bounds([apply(ctm, p) for poly in polys for p in poly])
    if box is None:
        return None
    a, b, c, d, e, f = ctm  # apply() of the two corners, inlined
    x0, x1 = a * box[0] + c * box[1] + e, a * box[2] + c * box[3] + e
    y0, y1 = b * box[0] + d * box[1] + f, b * box[2] + d * box[3] + f
    return min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)


@workspace.memoized(4096)
def _over(paint: Colour, ground: Colour) -> Colour:
    """Paint at its opacity over an opaque ground (sRGB, as a printer's preview mixes it)."""
    a = paint[3] if len(paint) > 3 else 1.0
    return (*(a * p + (1 - a) * g for p, g in zip(paint[:3], ground[:3])), 1.0)


def _under(grounds: list[_Ground], x: float, y: float) -> tuple[Colour, ...] | None:
    """The colours showing at (x, y): the last paint covering it; paper if none; None: a picture."""
    for ground in reversed(grounds):
        left, top, right, bottom = ground.box  # covers(), its box test inlined: the hot loop
        if left <= x <= right and top <= y <= bottom and ground.covers(x, y):
            return ground.colours or None
    return (PAPER,)


def _text(op: TextOp, ctm: Matrix, grounds: list[_Ground]) -> Text:
    x, y, font, size, text, fill, stroke = op.x, op.y, op.font, op.size, op.text, op.fill, op.stroke
    width = shaping.width(text, font, size)  # fonts.string_width(): the face is registered
    top, bottom = y - ASCENT * size, y + DESCENT * size
    right = x + width
    corners = ((x, top), (right, top), (x, bottom), (right, bottom))
    box = _moved_bounds(ctm, (corners,), (x, top, right, bottom))
    assert box is not None
    scale = abs(ctm[0] * ctm[3] - ctm[1] * ctm[2]) ** 0.5
    under = _under(grounds, (box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
    ground = under[0] if under else PAPER
    paint = None if fill is None else _over(fill, ground)
    visible = fill is not None and fill[3] > FAINT
    outline = None
    if stroke is not None and stroke[3] > FAINT and stroke[4] * scale * PT_PER_MM >= OUTLINE_PT:
        outline = _over((*stroke.rgb, stroke.alpha), ground)  # its colour, not its geometry
    return Text(
        text,
        size * scale * PT_PER_MM,
        box,
        "Bold" in font,
        paint if visible else None,
        under[0] if under else None,
        outline,
        under or (),
    )


Outline = tuple[Polygons, "Box | None"]
# id of a path's segs -> (those segs, held so the id stays theirs; their _outline()): the
# compiler hands every face of a deck the same segs for the same frame or icon, and hashing them
# costs more than the look-up
_OUTLINES = workspace.Memo[int, tuple[Segs, Outline]]("textcheck.outlines")
_OUTLINES_CAP = 4096


def _outline(segs: Segs) -> Outline:
    """A path's polygons and their bounds, kept: faces repeat their frames, panels and icons."""
    done = _OUTLINES.get(id(segs))
    if done is not None and done[0] is segs:
        return done[1]
    outline = _outline_of(segs)
    memo.remember(_OUTLINES, id(segs), (segs, outline), _OUTLINES_CAP)
    return outline


@workspace.memoized(4096)
def _outline_of(segs: Segs) -> Outline:
    """_outline(), by the segs' value (a drawing from the cache has segs of its own)."""
    polys = tuple(tuple(poly) for poly in _polygons(segs))
    return polys, _bounds([p for poly in polys for p in poly])


def _polygons(segs: Segs) -> list[list[tuple[float, float]]]:
    """A path's subpaths as polygons through its points (curves by their control points: close
    enough to tell inside from outside for the shapes faces put under text)."""
    polys: list[list[tuple[float, float]]] = []
    for name, args in segs:
        if name == "moveTo" or not polys:
            polys.append([])
        polys[-1].extend(zip(args[0::2], args[1::2]))
    return [poly for poly in polys if len(poly) >= 3]


def _inside(poly: tuple[tuple[float, float], ...], x: float, y: float) -> bool:
    """Even-odd ray test."""
    hit = False
    for (x1, y1), (x2, y2) in zip(poly, poly[1:] + poly[:1]):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            hit = not hit
    return hit


def _meet(a: Box | None, b: Box | None) -> Box | None:
    """The overlap of two boxes (None for a = no clip yet); None if b is missing or they miss."""
    if b is None:
        return None
    if a is None:
        return b
    box = max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])
    return box if box[0] <= box[2] and box[1] <= box[3] else None


def _points(segs: Segs) -> Iterator[tuple[float, float]]:
    for _name, args in segs:
        yield from zip(args[0::2], args[1::2])


def _bounds(points: list[tuple[float, float]]) -> Box | None:
    if not points:
        return None
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return min(xs), min(ys), max(xs), max(ys)


def luminance(rgb: Sequence[float]) -> float:
    """WCAG relative luminance of an sRGB colour (0..1 channels)."""
    return _luminance(tuple(rgb[:3]))


@workspace.memoized(4096)
def _luminance(rgb: tuple[float, ...]) -> float:
    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(c) for c in rgb)
    return float(0.2126 * r + 0.7152 * g + 0.0722 * b)


def contrast(a: Sequence[float], b: Sequence[float]) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def legibility(t: Text) -> float:
    """The contrast the eye reads the text by: its fill against the worst colour under it, or,
    with an outline, the outline against the ground or the fill against the outline, whichever
    is best (an outlined letter reads on any ground)."""
    assert t.fill is not None
    grounds = t.grounds or ((t.under,) if t.under else ())
    readings = [min(contrast(t.fill, g) for g in grounds)]
    if t.outline is not None:
        readings += [min(contrast(t.outline, g) for g in grounds), contrast(t.fill, t.outline)]
    return max(readings)


def problems(
    face: Face, min_pt: float, safe: float | None = None, contrasts: bool = False
) -> list[tuple[str, str]]:
    """What is wrong with the face's texts, as (text, message) (the caller locates them).

    Size and the cut line are always checked; the safe zone (`safe` mm) and contrast on request
    (validate asks for both)."""
    if not isinstance(face.drawing, Drawing):
        return []
    out = []
    fw, fh = face.full_size
    b = face.bleed
    drawn = [t for t in texts(face.drawing) if t.text.strip() and t.fill is not None]
    shown = drawn  # most faces hold no right-to-left text: their lines are their texts
    if shaping.needs_bidi("".join(t.text for t in drawn)):
        shown = [
            t._replace(text=logical(t.text)) if shaping.needs_bidi(t.text) else t
            for t in _lines(drawn)
        ]
    for t in shown:
        if t.size_pt < min_pt - 0.05:
            out.append(
                (
                    t.text,
                    f"text {excerpt(t.text)} prints at {t.size_pt:.1f}pt, "
                    f"below the minimum {min_pt:g}pt",
                )
            )
        left, top, right, bottom = t.box
        if left < b - 0.05 or top < b - 0.05 or right > fw - b + 0.05 or bottom > fh - b + 0.05:
            out.append((t.text, f"text {excerpt(t.text)} crosses the cut line"))
        elif safe and (
            left < b + safe - 0.05
            or top < b + safe - 0.05
            or right > fw - b - safe + 0.05
            or bottom > fh - b - safe + 0.05
        ):
            out.append(
                (
                    t.text,
                    f"text {excerpt(t.text)} reaches into the {safe:g}mm safe zone inside the cut",
                )
            )
    return list(dict.fromkeys(out + (_contrasts(shown) if contrasts else [])))


def _contrasts(shown: list[Text]) -> list[tuple[str, str]]:
    """The texts that do not stand out from the colour under them; a run of them drawn one after
    the other at one size and one contrast (the lines of a text box, the words of a line set in
    several fonts) is one finding, quoting the run and keyed by its first text (to be located by
    it), not one a line or a word."""
    out: list[tuple[str, str]] = []
    run: list[str] = []
    alike = ("", 0.0)  # what the run's texts share: the message's end and their size
    for t in shown:
        low = (_low_contrast(t), round(t.size_pt, 1))
        if run and low == alike:
            run.append(t.text)
            continue
        if run:
            out.append((run[0], f"text {excerpt(' '.join(run))} {alike[0]}"))
        run, alike = ([t.text], low) if low[0] else ([], ("", 0.0))
    if run:
        out.append((run[0], f"text {excerpt(' '.join(run))} {alike[0]}"))
    return out


def _low_contrast(t: Text) -> str:
    """How the text's contrast falls short, or "" when it does not or the ground is a picture."""
    if t.under is None:
        return ""
    need = CONTRAST_LARGE if t.size_pt >= (LARGE_BOLD_PT if t.bold else LARGE_PT) else CONTRAST
    ratio = legibility(t)
    if ratio >= need - 1e-6:
        return ""
    return f"has a contrast of {ratio:.1f}:1 with the colour under it, below {need:g}:1 (WCAG)"


def _lines(drawn: list[Text]) -> list[Text]:
    """The texts with the pieces of a right-to-left line (drawn as pieces in visual order: its
    words, numbers, brackets) as one text, its words put back in order as a line, not piece by
    piece: pieces drawn one after the other, abutting on one baseline in one size and colour.
    Left-to-right pieces (a bold word, a <tspan>) stay apart: each is found in the template."""
    lines: list[list[Text]] = []
    for t in drawn:
        last = lines[-1][-1] if lines else None
        if (
            last is not None
            and abs(t.box[0] - last.box[2]) < 0.2
            and (t.box[1], t.box[3], t.size_pt, t.fill, t.grounds)
            == (last.box[1], last.box[3], last.size_pt, last.fill, last.grounds)
        ):
            lines[-1].append(t)
        else:
            lines.append([t])
    out: list[Text] = []
    for pieces in lines:
        text = "".join(t.text for t in pieces)
        if len(pieces) > 1 and shaping.needs_bidi(text):
            first, end = pieces[0], pieces[-1].box
            out.append(first._replace(text=text, box=(*first.box[:2], *end[2:])))
        else:
            out += pieces
    return out


# Arabic presentation forms: the joined letters a shaped line is drawn with (DejaVu maps them)
_PRESENTATION = re.compile("[\ufb50-\ufdff\ufe70-\ufefe]")


def logical(line: str) -> str:
    """A drawn line as it was typed, for messages: presentation forms back to the letters they
    show, in logical order again. A line is drawn in visual order, and the bidi algorithm's
    reordering of a line of one embedding (right-to-left words with numbers or Latin words in
    them, or the other way round) undoes itself when applied again."""
    if not shaping.needs_bidi(line):
        return line
    # a ligature is one character in visual order: its letters go in visual order too (lam-alef
    # is alef, then lam, left to right)
    letters = _PRESENTATION.sub(lambda m: unicodedata.normalize("NFKC", m.group())[::-1], line)
    pieces = shaping.visual_pieces([(letters, None)])  # L2 again: back to logical order
    return "".join(t[::-1].translate(_MIRROR) if rtl else t for t, _, rtl in pieces)


# L4: a bracket in a right-to-left piece reads as its mirror image
_MIRROR = str.maketrans("()[]{}<>«»", ")(][}{><»«")


def excerpt(text: str, n: int = 30) -> str:
    flat = " ".join(text.split())
    return f"'{flat[:n]}…'" if len(flat) > n else f"'{flat}'"
