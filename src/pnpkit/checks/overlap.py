"""Texts that touch or cross what they do not belong to: another text, or a stroked line.

A compiled face (svgdraw.Drawing) is replayed as textcheck replays it, transforms followed:
each text's ink (its glyphs' outlines' bounds, as HarfBuzz shapes the line) against every
other text's ink, and against every stroked path's segments widened by half the stroke
(curves flattened). Fills are grounds, not lines: a text over its own panel or background is
fine, a text touching the panel's border is not. A line lying within a text's ink (an
underline, a strike) belongs to it and is not checked.

Small stroked badges (a magnifier's disc on a grid) are held to the long lines (a grid's, a
frame's): one that grazes a line, the line passing its edge but not through its middle, has
slipped off its place; one centred on a line or a corner is placed there on purpose.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from pnpkit.checks import textcheck
from pnpkit.svg.drawing import Drawing
from pnpkit.svg.ops import Matrix, PathOp, Restore, Save, Segs, Stroke, TextOp, Transform
from pnpkit.svg.values import apply, compose
from pnpkit.typeset import shaping

Box = tuple[float, float, float, float]  # left, top, right, bottom in the face's mm
Point = tuple[float, float]

TOUCH = 0.3  # mm: ink closer than this reads as touching in print (dot gain, registration)
BADGE = 10.0  # mm: a stroked, filled closed shape this small is a mark (a badge), not a line
GRID = 20.0  # mm: the lines a badge is held to (a grid's, a frame's), longer than its ornaments


class Line:
    """A stroked path: half its width, its bounds in face mm (a curve's by its control points),
    its paint and its place in the drawing order; its segments in face mm, curves flattened,
    worked out when a mark comes near it (most lines of a face are far from every text)."""

    __slots__ = ("half", "box", "colour", "width", "order", "_segs", "_ctm", "_segments")

    def __init__(self, segs: Segs, ctm: Matrix, stroke: Stroke, box: Box, order: int) -> None:
        scale = abs(ctm[0] * ctm[3] - ctm[1] * ctm[2]) ** 0.5
        self.width = stroke.width * scale
        self.half, self.box, self.order = self.width / 2, box, order
        self.colour = "#{:02x}{:02x}{:02x}".format(*(round(c * 255) for c in stroke.rgb))
        self._segs, self._ctm = segs, ctm
        self._segments: tuple[tuple[Point, Point], ...] | None = None

    @property
    def segments(self) -> tuple[tuple[Point, Point], ...]:
        if self._segments is None:
            ctm = self._ctm
            self._segments = tuple(
                (apply(ctm, p), apply(ctm, q))
                for part in _flattened(self._segs)
                for p, q in zip(part, part[1:])
            )
        return self._segments


class Mark(NamedTuple):
    """A text's ink (text as typed) or a small stroked badge's bounds (text ""); `panel`: the
    drawing order of the opaque fill the text stands on (lines drawn before it are hidden)."""

    text: str
    box: Box
    panel: int = 0
    order: int = 0


def said(message: str) -> bool:
    """Whether a text check's message is one of findings()'s (cached findings carry no rule)."""
    return " touches or crosses " in message


def findings(drawing: object) -> list[tuple[str, str]]:
    """(text, message) for each text that touches or crosses another text or a line, and each
    badge that grazes a long straight line (text ""), in drawing order."""
    if not isinstance(drawing, Drawing):
        return []
    texts, lines, badges = _marks(drawing)
    near = _Columns(lines)
    out: list[tuple[str, str]] = []
    crossing = _crossings(texts)
    for n, mark in enumerate(texts):
        other = crossing.get(n)
        if other is not None:
            said = f"touches or crosses text {_q(other.text)}"
            out.append((mark.text, f"text {_q(mark.text)} {said}"))
        # lines drawn before the panel it stands on are hidden beneath the panel
        shown = (ln for ln in near.lines(mark.box) if ln.order >= mark.panel)
        line = next((ln for ln in shown if _touches(mark.box, ln)), None)
        if line is not None:
            out.append((mark.text, f"text {_q(mark.text)} touches or crosses {_described(line)}"))
    for badge in badges:
        grid = (ln for ln in near.lines(badge.box) if max(_extent(ln.box)) >= GRID)
        line = next((ln for ln in grid if _grazes(badge.box, ln)), None)
        if line is not None:
            left, top, right, bottom = badge.box
            where = f"{(left + right) / 2:.1f}, {(top + bottom) / 2:.1f} mm"
            out.append(("", f"a badge at {where} touches or crosses {_described(line)}"))
    return list(dict.fromkeys(out))


def _extent(box: Box) -> tuple[float, float]:
    return box[2] - box[0], box[3] - box[1]


class _Columns:
    """The lines by 10 mm columns of the face they reach into: a text asks only those near it
    (a board has hundreds of both)."""

    WIDTH = 10.0

    def __init__(self, lines: list[Line]) -> None:
        self.columns: dict[int, list[Line]] = {}
        for line in lines:
            reach = line.half + TOUCH
            for n in self._span(line.box[0] - reach, line.box[2] + reach):
                self.columns.setdefault(n, []).append(line)

    def _span(self, left: float, right: float) -> range:
        return range(int(left // self.WIDTH), int(right // self.WIDTH) + 1)

    def lines(self, box: Box) -> list[Line]:
        """The lines in the columns the box spans, in drawing order."""
        found = {id(ln): ln for n in self._span(box[0], box[2]) for ln in self.columns.get(n, ())}
        return sorted(found.values(), key=lambda ln: ln.order)


class _Panel:
    """An opaque fill: what was drawn before it is hidden where it lies. Its polygons are
    worked out only when a text stands within its bounds (most never are)."""

    __slots__ = ("order", "box", "_segs", "_ctm", "_polygons")

    def __init__(self, order: int, box: Box, segs: Segs, ctm: Matrix) -> None:
        self.order, self.box, self._segs, self._ctm = order, box, segs, ctm
        self._polygons: list[list[Point]] | None = None

    @property
    def polygons(self) -> list[list[Point]]:
        if self._polygons is None:
            ctm = self._ctm
            self._polygons = [[apply(ctm, p) for p in part] for part in _flattened(self._segs)]
        return self._polygons


def _marks(drawing: Drawing) -> tuple[list[Mark], list[Line], list[Mark]]:
    """The drawing's visible texts' inks (each with the panel it stands on), its lines and its
    badges, in face mm."""
    minx, miny, vw, vh = drawing.viewbox
    sx, sy = drawing.width_mm / vw, drawing.height_mm / vh
    ctm: Matrix = (sx, 0.0, 0.0, sy, -sx * minx, -sy * miny)
    stack: list[Matrix] = []
    texts: list[Mark] = []
    lines: list[Line] = []
    badges: list[Mark] = []
    panels: list[_Panel] = []
    for order, op in enumerate(drawing.ops):
        if type(op) is Save:
            stack.append(ctm)
        elif type(op) is Restore:
            ctm = stack.pop() if stack else ctm
        elif type(op) is Transform:
            ctm = compose(ctm, op.matrix)
        elif type(op) is TextOp and op.fill is not None and op.fill[3] > textcheck.FAINT:
            box = _ink(op, ctm)
            if box is not None:
                texts.append(Mark(_typed(op.text), box, _panel_under(panels, box), order))
        elif type(op) is PathOp:
            if op.fill is not None and op.fill[3] == 1.0:
                panels.append(_panel(op.segs, ctm, order))
            line = _line(op, ctm, order) if _visible(op.stroke) else None
            if (
                line is not None
                and max(line.box[2] - line.box[0], line.box[3] - line.box[1]) > BADGE
            ):
                lines.append(line)
            elif line is not None and op.fill is not None and _closed(op.segs):
                h = line.half
                left, top, right, bottom = line.box
                badges.append(Mark("", (left - h, top - h, right + h, bottom + h)))
    return [t for t in texts if not _covered(t, panels)], lines, badges


def _covered(text: Mark, panels: list[_Panel]) -> bool:
    """Whether an opaque fill drawn after the text hides it (a space's name under Home's box)."""
    return _panel_under(panels, text.box, 0.0, after=text.order) > 0


def _panel(segs: Segs, ctm: Matrix, order: int) -> _Panel:
    """A fill's panel, bounded by its points (a curve lies within its control points)."""
    return _Panel(order, _moved_box(segs, ctm) or (0.0, 0.0, 0.0, 0.0), segs, ctm)


def _panel_under(panels: list[_Panel], box: Box, margin: float = TOUCH, after: int = -1) -> int:
    """The order of the last of the opaque fills drawn after `after` wholly under the box grown
    by margin (0: none)."""
    left, top = box[0] - margin, box[1] - margin
    right, bottom = box[2] + margin, box[3] + margin
    corners = ((left, top), (right, top), (left, bottom), (right, bottom))
    for panel in reversed(panels):
        if panel.order <= after:
            break
        pl, pt, pr, pb = panel.box
        if pl <= left and pt <= top and pr >= right and pb >= bottom:
            if all(any(_inside(poly, x, y) for poly in panel.polygons) for x, y in corners):
                return panel.order
    return 0


def _inside(poly: list[Point], x: float, y: float) -> bool:
    """Even-odd ray test."""
    hit = False
    for (x1, y1), (x2, y2) in zip(poly, poly[1:] + poly[:1]):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            hit = not hit
    return hit


def _typed(text: str) -> str:
    """A drawn run as typed (a right-to-left run is drawn in visual order)."""
    return textcheck.logical(text) if shaping.needs_bidi(text) else text


def _ink(op: TextOp, ctm: Matrix) -> Box | None:
    """A text run's ink in face mm: its glyphs' bounds, or (a shaped run: joined letters,
    glyphs pnpkit registered itself) its em box."""
    if not op.text.strip():
        return None
    ink = None if op.shaping is not None else shaping.ink(op.text, op.font)  # shaped: em box
    if ink is None:
        width = shaping.width(op.text, op.font, 1.0)
        ink = (0.0, -textcheck.ASCENT, width, textcheck.DESCENT)
    left, top, right, bottom = (v * op.size for v in ink)
    corners = [apply(ctm, (op.x + x, op.y + y)) for x in (left, right) for y in (top, bottom)]
    xs, ys = [p[0] for p in corners], [p[1] for p in corners]
    return min(xs), min(ys), max(xs), max(ys)


def _crossings(texts: list[Mark]) -> dict[int, Mark]:
    """Each text's first later text (in drawing order) that it crosses: texts swept from left
    to right, each paired only with those starting before it ends (a page of rules has
    hundreds)."""
    by_left = sorted(range(len(texts)), key=lambda n: texts[n].box[0])
    found: dict[int, int] = {}
    for k, n in enumerate(by_left):
        right = texts[n].box[2]
        for m in by_left[k + 1 :]:
            if texts[m].box[0] >= right:
                break
            if _crossed(texts[n], texts[m]):
                first, later = min(n, m), max(n, m)
                found[first] = min(found.get(first, later), later)
    return {n: texts[m] for n, m in found.items()}


def _crossed(a: Mark, b: Mark) -> bool:
    """Whether two texts' inks overlap by more than a touch (a line's runs abut, an accent
    may lean over its neighbour); a text drawn twice (a shadow) is one text."""
    if a.text == b.text:
        return False
    w = min(a.box[2], b.box[2]) - max(a.box[0], b.box[0])
    h = min(a.box[3], b.box[3]) - max(a.box[1], b.box[1])
    return w > TOUCH and h > TOUCH


def _touches(box: Box, line: Line) -> bool:
    """Whether the line's ink comes within TOUCH of the box, unless the line lies within the
    box (it belongs to what the box holds: an underline)."""
    reach = line.half + TOUCH
    left, top, right, bottom = box
    lb = line.box
    if lb[0] > right + reach or lb[2] < left - reach or lb[1] > bottom + reach:
        return False
    if lb[3] < top - reach:
        return False
    inside = lb[0] >= left and lb[2] <= right and lb[1] >= top and lb[3] <= bottom
    grown = (left - reach, top - reach, right + reach, bottom + reach)
    return not inside and any(_segment_meets(p, q, grown) for p, q in line.segments)


def _grazes(box: Box, line: Line) -> bool:
    """Whether a straight level or upright stretch of the line (a grid's, a frame's) passes the
    badge's edge within TOUCH, keeping out of its middle half; a stretch that ends within the
    badge is fastened to it (a path's corner dotted with it), not grazing it."""
    left, top, right, bottom = box
    reach = line.half + TOUCH
    grown = (left - reach, top - reach, right + reach, bottom + reach)
    lb = line.box
    if lb[0] > grown[2] or lb[2] < grown[0] or lb[1] > grown[3] or lb[3] < grown[1]:
        return False
    qw, qh = (right - left) / 4, (bottom - top) / 4
    middle = (left + qw, top + qh, right - qw, bottom - qh)
    for p, q in line.segments:
        if p[0] != q[0] and p[1] != q[1]:
            continue  # a slanted or curved stretch: an ornament's, not a grid's
        if _within(p, box) or _within(q, box):
            continue
        if _segment_meets(p, q, grown) and not _segment_meets(p, q, middle):
            return True
    return False


def _within(p: Point, box: Box) -> bool:
    return box[0] <= p[0] <= box[2] and box[1] <= p[1] <= box[3]


def _segment_meets(p: Point, q: Point, box: Box) -> bool:
    """Whether the segment pq meets the box (Liang-Barsky clipping)."""
    t0, t1 = 0.0, 1.0
    dx, dy = q[0] - p[0], q[1] - p[1]
    for toward, room in (
        (-dx, p[0] - box[0]),
        (dx, box[2] - p[0]),
        (-dy, p[1] - box[1]),
        (dy, box[3] - p[1]),
    ):
        if toward == 0:
            if room < 0:  # parallel to this edge and outside it
                return False
            continue
        t = room / toward
        if toward < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return False
    return True


def _visible(stroke: Stroke | None) -> bool:
    return stroke is not None and stroke.alpha > textcheck.FAINT and stroke.width > 0


def _closed(segs: Segs) -> bool:
    return any(name == "close" for name, _ in segs)


def _line(op: PathOp, ctm: Matrix, order: int) -> Line | None:
    assert op.stroke is not None
    box = _moved_box(op.segs, ctm)
    return None if box is None else Line(op.segs, ctm, op.stroke, box, order)


def _moved_box(segs: Segs, ctm: Matrix) -> Box | None:
    """The bounds of a path's points (a curve's control points) in face mm; without rotation
    or skew only the corners of their bounds are moved."""
    xs = [x for _, args in segs for x in args[0::2]]
    ys = [y for _, args in segs for y in args[1::2]]
    if not xs:
        return None
    if ctm[1] or ctm[2]:
        moved = [apply(ctm, p) for p in zip(xs, ys)]
        xs, ys = [p[0] for p in moved], [p[1] for p in moved]
        return min(xs), min(ys), max(xs), max(ys)
    (x0, y0), (x1, y1) = apply(ctm, (min(xs), min(ys))), apply(ctm, (max(xs), max(ys)))
    return min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)


def _flattened(segs: Segs) -> Iterator[list[Point]]:
    """A path's subpaths as polylines: a curve by 6 points along it (a quarter circle of 10 mm
    strays 0.09 mm from its chords)."""
    part: list[Point] = []
    start: Point | None = None
    for name, args in segs:
        if name == "moveTo":
            if len(part) > 1:
                yield part
            part = [(args[0], args[1])]
            start = part[0]
        elif name == "lineTo" and part:
            part.append((args[0], args[1]))
        elif name == "curveTo" and part:
            p0 = part[-1]
            c1, c2, p3 = (args[0], args[1]), (args[2], args[3]), (args[4], args[5])
            part += [_bezier(p0, c1, c2, p3, k / 6) for k in range(1, 7)]
        elif name == "close" and part and start is not None:
            part.append(start)
    if len(part) > 1:
        yield part


def _bezier(p0: Point, c1: Point, c2: Point, p3: Point, t: float) -> Point:
    u = 1 - t
    a, b, c, d = u * u * u, 3 * u * u * t, 3 * u * t * t, t * t * t
    return (
        a * p0[0] + b * c1[0] + c * c2[0] + d * p3[0],
        a * p0[1] + b * c1[1] + c * c2[1] + d * p3[1],
    )


def _described(line: Line) -> str:
    left, top, right, bottom = line.box
    return (
        f"a {line.width:.2f}mm {line.colour} line "
        f"({left:.1f}, {top:.1f})-({right:.1f}, {bottom:.1f}) mm"
    )


def _q(text: str) -> str:
    return textcheck.excerpt(text)
