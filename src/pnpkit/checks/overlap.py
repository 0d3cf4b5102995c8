"""Texts that touch or cross what they do not belong to: another text, or a stroked line.

A compiled face (svg.drawing.Drawing) is replayed as textcheck replays it, transforms followed:
each text's ink (its glyphs' outlines' bounds, as HarfBuzz shapes the line) against every
other text's ink, and against every stroked path's segments widened by half the stroke
(curves flattened). Fills are grounds, not lines: a text over its own panel or background is
fine, a text touching the panel's border is not. A line lying within a text's ink (an
underline, a strike) belongs to it and is not checked.

Small stroked badges (a magnifier's disc on a grid) are held to the long lines (a grid's, a
frame's): one that grazes a line, the line passing its edge but not through its middle, has
slipped off its place; one centred on a line or a corner is placed there on purpose.

Most faces have nothing to report, so the cheap questions come first: a face with no line and
at most one text is done before any text is measured; a text asks only the stretches of a line
whose bounds come near it, and a curve is flattened only then; the panel a text stands on, and
whether a later fill hides it, are asked only of a text that would be reported.
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
# mm: a stretch's bounds are grown by this before they are asked whether they meet a box (a
# flattened curve's points, rounded, may stray a hair outside its control points' bounds)
EPS = 1e-9


class Line:
    """A stroked path: half its width, its bounds in face mm (a curve's by its control points),
    its paint and its place in the drawing order; its stretches (see stretches) worked out when
    a mark comes near it (most lines of a face are far from every text)."""

    __slots__ = ("half", "box", "rgb", "width", "order", "_segs", "_ctm", "_stretches")

    def __init__(self, segs: Segs, ctm: Matrix, stroke: Stroke, box: Box, order: int) -> None:
        self.width = _width(stroke, ctm)
        self.half, self.box, self.order, self.rgb = self.width / 2, box, order, stroke.rgb
        self._segs, self._ctm = segs, ctm
        self._stretches: list[Stretch] | None = None

    @property
    def stretches(self) -> list[Stretch]:
        """Each straight stretch (its ends in face mm) and curve (its control points as drawn,
        flattened only when a mark comes within its bounds), with its bounds in face mm."""
        if self._stretches is None:
            self._stretches = _stretches(self._segs, self._ctm)
        return self._stretches

    def segments(self, near: Box) -> list[tuple[Point, Point]]:
        """The segments in face mm (curves flattened) of the stretches whose bounds meet the
        box."""
        out: list[tuple[Point, Point]] = []
        left, top, right, bottom = near[0] - EPS, near[1] - EPS, near[2] + EPS, near[3] + EPS
        for (sl, st, sr, sb), points, curved in self.stretches:
            if sl > right or sr < left or st > bottom or sb < top:
                continue
            if curved:
                ctm = self._ctm
                p0, c1, c2, p3 = points
                moved = [apply(ctm, p0)] + [
                    apply(ctm, _bezier(p0, c1, c2, p3, k / 6)) for k in range(1, 7)
                ]
                out += zip(moved, moved[1:])
            else:
                out.append((points[0], points[1]))
        return out


# a stretch's bounds, its points (a straight one's two ends in face mm, a curve's four control
# points as drawn) and whether it is a curve
Stretch = tuple[Box, tuple[Point, ...], bool]


class Mark(NamedTuple):
    """A text's ink (text as typed) or a small stroked badge's bounds (text ""); `order`: its
    place in the drawing order."""

    text: str
    box: Box
    order: int = 0


def with_rules(text_check: list[tuple[str, str]], drawing: object) -> list[tuple[str, str, str]]:
    """The text check's findings (textcheck.problems()) and then findings(drawing)'s, each as
    (text, message, rule): the rule is known where a finding is made, never read back out of
    its message, and the build cache keeps it with the finding."""
    return [(text, message, "text") for text, message in text_check] + [
        (text, message, "overlap") for text, message in findings(drawing)
    ]


def findings(drawing: object) -> list[tuple[str, str]]:
    """(text, message) for each text that touches or crosses another text or a line, and each
    badge that grazes a long straight line (text ""), in drawing order."""
    if not isinstance(drawing, Drawing):
        return []
    face = _walk(drawing)
    if not face.lines and len(face.texts) < 2:
        return []  # nothing a text could touch, and a badge is held only to lines
    texts = _marks(face.texts)
    near = _Columns(face.lines)
    hidden = _Hidden(texts, face.panels)
    out: list[tuple[str, str]] = []
    crossing = _crossings(texts, hidden)
    for n, mark in enumerate(texts):
        other = crossing.get(n)
        if other is not None:
            said = f"touches or crosses text {_q(other.text)}"
            out.append((mark.text, f"text {_q(mark.text)} {said}"))
        line = _touching(mark, near.lines(mark.box), face.panels)
        if line is not None and not hidden(n):
            out.append((mark.text, f"text {_q(mark.text)} touches or crosses {_described(line)}"))
    for badge in face.badges:
        line = _grazed(badge, near.lines(badge.box))
        if line is not None:
            left, top, right, bottom = badge.box
            where = f"{(left + right) / 2:.1f}, {(top + bottom) / 2:.1f} mm"
            out.append(("", f"a badge at {where} touches or crosses {_described(line)}"))
    return list(dict.fromkeys(out))


def _touching(mark: Mark, lines: list[Line], panels: list[_Panel]) -> Line | None:
    """The first line the text touches that is not hidden beneath the panel it stands on (the
    panel looked for only once a line touches it)."""
    panel = -1
    for line in lines:
        if _touches(mark.box, line):
            if panel < 0:
                panel = _panel_under(panels, mark.box, before=mark.order)
            if line.order >= panel:
                return line
    return None


def _grazed(badge: Mark, lines: list[Line]) -> Line | None:
    """The first long line (a grid's, a frame's) the badge grazes."""
    for line in lines:
        lb = line.box
        if (lb[2] - lb[0] >= GRID or lb[3] - lb[1] >= GRID) and _grazes(badge.box, line):
            return line
    return None


class _Columns:
    """The lines by 10 mm columns of the face they reach into: a text asks only those near it
    (a board has hundreds of both)."""

    WIDTH = 10.0
    FEW = 4  # lines: fewer than the columns a text spans, asked without them

    def __init__(self, lines: list[Line]) -> None:
        self.all = lines  # in drawing order
        self.columns: dict[int, list[int]] = {}  # by column: the places in `all` of its lines
        for k, line in enumerate(lines):
            reach = line.half + TOUCH
            for n in self._span(line.box[0] - reach, line.box[2] + reach):
                self.columns.setdefault(n, []).append(k)

    def _span(self, left: float, right: float) -> range:
        return range(int(left // self.WIDTH), int(right // self.WIDTH) + 1)

    def lines(self, box: Box) -> list[Line]:
        """The lines in the columns the box spans, in drawing order; all of a face's few (those
        out of reach fail _touches' and _grazes' first test at once)."""
        if len(self.all) <= self.FEW:
            return self.all
        found: set[int] = set()
        for n in self._span(box[0], box[2]):
            found.update(self.columns.get(n, ()))
        return [self.all[k] for k in sorted(found)]


class _Panel:
    """An opaque fill: what was drawn before it is hidden where it lies. Its bounds and polygons
    are worked out only when a text near a line asks (most never do)."""

    __slots__ = ("order", "_box", "_segs", "_ctm", "_polygons")

    def __init__(self, order: int, segs: Segs, ctm: Matrix, box: Box | None) -> None:
        self.order, self._box, self._segs, self._ctm = order, box, segs, ctm
        self._polygons: list[list[Point]] | None = None

    @property
    def box(self) -> Box:
        """Bounded by its points (a curve lies within its control points)."""
        if self._box is None:
            self._box = _moved_box(self._segs, self._ctm) or (0.0, 0.0, 0.0, 0.0)
        return self._box

    @property
    def polygons(self) -> list[list[Point]]:
        if self._polygons is None:
            ctm = self._ctm
            self._polygons = [[apply(ctm, p) for p in part] for part in _flattened(self._segs)]
        return self._polygons


class _Face(NamedTuple):
    """What a drawing holds for the check: its visible texts (op, transform, drawing order), as
    yet unmeasured, its long lines, its badges and its opaque fills, in drawing order."""

    texts: list[tuple[TextOp, Matrix, int]]
    lines: list[Line]
    badges: list[Mark]
    panels: list[_Panel]


def _walk(drawing: Drawing) -> _Face:
    """The drawing replayed, transforms followed, into face mm."""
    minx, miny, vw, vh = drawing.viewbox
    sx, sy = drawing.width_mm / vw, drawing.height_mm / vh
    ctm: Matrix = (sx, 0.0, 0.0, sy, -sx * minx, -sy * miny)
    stack: list[Matrix] = []
    face = _Face([], [], [], [])
    for order, op in enumerate(drawing.ops):
        if type(op) is PathOp:
            _path(face, op, ctm, order)
        elif type(op) is TextOp:
            if op.fill is not None and op.fill[3] > textcheck.FAINT:
                face.texts.append((op, ctm, order))
        elif type(op) is Save:
            stack.append(ctm)
        elif type(op) is Restore:
            ctm = stack.pop() if stack else ctm
        elif type(op) is Transform:
            ctm = compose(ctm, op.matrix)
    return face


def _path(face: _Face, op: PathOp, ctm: Matrix, order: int) -> None:
    """A path's part: a panel if its fill is opaque; a line if it is stroked, unless it is a
    badge (a small closed filled shape) or a short open stroke (neither)."""
    box = _moved_box(op.segs, ctm) if op.stroke is not None and _visible(op.stroke) else None
    if op.fill is not None and op.fill[3] == 1.0:
        face.panels.append(_Panel(order, op.segs, ctm, box))
    if box is None or op.stroke is None:
        return
    left, top, right, bottom = box
    if right - left > BADGE or bottom - top > BADGE:
        face.lines.append(Line(op.segs, ctm, op.stroke, box, order))
    elif op.fill is not None and _closed(op.segs):
        h = _width(op.stroke, ctm) / 2
        face.badges.append(Mark("", (left - h, top - h, right + h, bottom + h)))


def _marks(texts: list[tuple[TextOp, Matrix, int]]) -> list[Mark]:
    """The texts' inks, blank ones left out."""
    out: list[Mark] = []
    for op, ctm, order in texts:
        box = _ink(op, ctm)
        if box is not None:
            out.append(Mark(_typed(op.text), box, order))
    return out


class _Hidden:
    """Whether the n-th text is hidden by an opaque fill drawn after it (a space's name under
    Home's box), worked out only for the texts that would be reported."""

    def __init__(self, texts: list[Mark], panels: list[_Panel]) -> None:
        self.texts, self.panels = texts, panels
        self.known: dict[int, bool] = {}

    def __call__(self, n: int) -> bool:
        known = self.known.get(n)
        if known is None:
            text = self.texts[n]
            known = _panel_under(self.panels, text.box, 0.0, after=text.order) > 0
            self.known[n] = known
        return known


def _panel_under(
    panels: list[_Panel], box: Box, margin: float = TOUCH, after: int = -1, before: int = -1
) -> int:
    """The order of the last of the opaque fills drawn after `after` (and before `before`, if
    given) wholly under the box grown by margin (0: none)."""
    left, top = box[0] - margin, box[1] - margin
    right, bottom = box[2] + margin, box[3] + margin
    corners = ((left, top), (right, top), (left, bottom), (right, bottom))
    for panel in reversed(panels):
        if panel.order <= after:
            break
        if 0 <= before <= panel.order:
            continue
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


def _crossings(texts: list[Mark], hidden: _Hidden) -> dict[int, Mark]:
    """Each shown text's first later shown text (in drawing order) that it crosses: texts swept
    from left to right, each paired only with those starting before it ends (a page of rules
    has hundreds)."""
    by_left = sorted(range(len(texts)), key=lambda n: texts[n].box[0])
    found: dict[int, int] = {}
    for k, n in enumerate(by_left):
        right = texts[n].box[2]
        for m in by_left[k + 1 :]:
            if texts[m].box[0] >= right:
                break
            if _crossed(texts[n], texts[m]) and not hidden(n) and not hidden(m):
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
    if lb[0] >= left and lb[2] <= right and lb[1] >= top and lb[3] <= bottom:
        return False  # within the box
    grown = (left - reach, top - reach, right + reach, bottom + reach)
    for p, q in line.segments(grown):
        if _segment_meets(p, q, grown):
            return True
    return False


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
    for p, q in line.segments(grown):
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


def _visible(stroke: Stroke) -> bool:
    return stroke.alpha > textcheck.FAINT and stroke.width > 0


def _closed(segs: Segs) -> bool:
    for name, _ in segs:
        if name == "close":
            return True
    return False


def _width(stroke: Stroke, ctm: Matrix) -> float:
    """A stroke's width in face mm."""
    scale: float = abs(ctm[0] * ctm[3] - ctm[1] * ctm[2]) ** 0.5
    return stroke.width * scale


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


def _stretches(segs: Segs, ctm: Matrix) -> list[Stretch]:
    """A path's stretches as _flattened() walks them (a close draws back to the subpath's
    start, where the path goes on if nothing moves it)."""
    out: list[Stretch] = []
    last: Point | None = None
    start: Point | None = None
    for name, args in segs:
        if name == "moveTo":
            last = start = (args[0], args[1])
        elif name == "lineTo" and last is not None:
            end = (args[0], args[1])
            out.append(_straight(apply(ctm, last), apply(ctm, end)))
            last = end
        elif name == "curveTo" and last is not None:
            points = (last, (args[0], args[1]), (args[2], args[3]), (args[4], args[5]))
            moved = [apply(ctm, p) for p in points]
            xs, ys = [p[0] for p in moved], [p[1] for p in moved]
            out.append(((min(xs), min(ys), max(xs), max(ys)), points, True))
            last = points[3]
        elif name == "close" and last is not None and start is not None:
            out.append(_straight(apply(ctm, last), apply(ctm, start)))
            last = start
    return out


def _straight(p: Point, q: Point) -> Stretch:
    box = (min(p[0], q[0]), min(p[1], q[1]), max(p[0], q[0]), max(p[1], q[1]))
    return box, (p, q), False


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
    colour = "#{:02x}{:02x}{:02x}".format(*(round(c * 255) for c in line.rgb))
    return (
        f"a {line.width:.2f}mm {colour} line ({left:.1f}, {top:.1f})-({right:.1f}, {bottom:.1f}) mm"
    )


def _q(text: str) -> str:
    return textcheck.excerpt(text)
