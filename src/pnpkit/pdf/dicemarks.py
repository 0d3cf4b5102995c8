"""The words on a die's net (kind: die), in the kit's language (guidewords.py): "glue" inside
each glue tab, reading outwards from its fold, and "fold" on a white patch across the middle of
each fold between two squares. The template marks its squares (data-die-face) and its tabs
(data-die-tab, dice.py); pnpkit reads them from the face, so a hand-drawn net is marked as one
from die_net() is. A tab marked data-die-tab="own" carries the template's own word and gets
none; a tab too small for the word at WORDS_PT[-1] gets none either."""

from __future__ import annotations

import math

from reportlab.lib.colors import white
from reportlab.pdfgen.canvas import Canvas

from pnpkit.impose.page import Page, Placement
from pnpkit.kinds.dice import DieError, DrawnNet, Line, Point, drawn_net
from pnpkit.pdf.foldmarks import INK, WORD_PT, Folds
from pnpkit.typeset import fonts
from pnpkit.units import PT_PER_MM

K = PT_PER_MM
WORDS_PT = (WORD_PT, 5.5, 5.0, 4.5, 4.0)  # the glue word shrinks to fit a small tab, no further
ASCENT, DESCENT = 0.75, 0.22  # of the size: the ink of a lowercase word with g, f, l, d
CLEAR = 0.4  # mm between the glue word's ink and the tab's outline (its fold and its cut)


def die_marks(c: Canvas, page: Page, folds: Folds) -> None:
    """The words on every die net the page places whole."""
    nets: dict[str, DrawnNet | None] = {}  # a die printed several times is read once
    for p in page.placements:
        if p.face.group not in folds.dice or p.clip is not None:
            continue
        if p.face.svg not in nets:
            nets[p.face.svg] = _read(p.face.svg)
        net = nets[p.face.svg]
        if net is not None:
            _on_net(c, page, p, net, folds)


def _read(svg: str) -> DrawnNet | None:
    try:
        return drawn_net(svg)
    except DieError:
        return None  # a net drawn without marks: its own lines and words say how it is made


def _on_net(c: Canvas, page: Page, p: Placement, net: DrawnNet, folds: Folds) -> None:
    """The face's own axes, y up, origin at its centre: as foldmarks marks a standee."""
    w, h = p.face.size

    def at(point: Point) -> Point:
        return (point[0] - w / 2) * K, (h / 2 - point[1]) * K

    c.saveState()
    c.translate((p.x + p.w / 2) * K, (page.h - p.y - p.h / 2) * K)
    c.rotate(-p.turn)
    for poly, own in net.tabs:
        if not own:
            _glue(c, [at(q) for q in poly], folds.glue)
    for x1, y1, x2, y2 in net.folds:
        _fold(c, (*at((x1, y1)), *at((x2, y2))), folds.word, p.turn)
    c.restoreState()


def _glue(c: Canvas, poly: list[Point], word: str) -> None:
    """The word in the tab whose first and last corners lie on its fold, its top outwards, at
    the largest of WORDS_PT that keeps CLEAR inside the tab."""
    (x0, y0), (xn, yn) = poly[0], poly[-1]
    length = math.hypot(xn - x0, yn - y0)
    if length == 0:
        return
    ux, uy = (xn - x0) / length, (yn - y0) / length
    nx, ny = -uy, ux  # the normal on the tab's side of its fold
    if sum((x - x0) * nx + (y - y0) * ny for x, y in poly) < 0:
        nx, ny = -nx, -ny
    depth = max((x - x0) * nx + (y - y0) * ny for x, y in poly)
    along = [(x - x0) * ux + (y - y0) * uy for x, y in poly]
    centre = (min(along) + max(along)) / 2
    name = fonts.default_face()
    for size in WORDS_PT:
        width = fonts.string_width(word, name, size)
        ink = (ASCENT + DESCENT) * size
        top = (depth + ink) / 2  # the ink's far side, from the fold
        if ink + 2 * CLEAR * K <= depth and _room(poly, (x0, y0), (ux, uy), (nx, ny), top) >= (
            width + 2 * CLEAR * K
        ):
            base = depth / 2 - (ASCENT - DESCENT) * size / 2
            point = (x0 + ux * centre + nx * base, y0 + uy * centre + ny * base)
            _word(c, word, name, size, point, (ny, -nx))
            return


def _room(poly: list[Point], origin: Point, u: Point, n: Point, height: float) -> float:
    """How long a line across the tab is `height` from its fold (a tab narrows outwards)."""
    inside = []
    for (ax, ay), (bx, by) in zip(poly, poly[1:] + poly[:1]):
        ha = (ax - origin[0]) * n[0] + (ay - origin[1]) * n[1]
        hb = (bx - origin[0]) * n[0] + (by - origin[1]) * n[1]
        if (ha - height) * (hb - height) <= 0 and ha != hb:
            t = (height - ha) / (hb - ha)
            x, y = ax + (bx - ax) * t, ay + (by - ay) * t
            inside.append((x - origin[0]) * u[0] + (y - origin[1]) * u[1])
    return max(inside) - min(inside) if len(inside) >= 2 else 0.0


def _fold(c: Canvas, line: Line, word: str, turn: int) -> None:
    """The word across the middle of a fold, on a white patch that breaks its dashes, reading
    left to right or upwards on the page (the face is turned `turn` degrees clockwise on it); a
    fold shorter than the word and 4 mm is left to its dashes."""
    x1, y1, x2, y2 = line
    name = fonts.default_face()
    width = fonts.string_width(word, name, WORD_PT)
    length = math.hypot(x2 - x1, y2 - y1)
    if length < width + 4 * K:
        return
    ux, uy = (x2 - x1) / length, (y2 - y1) / length
    on_page = math.atan2(uy, ux) - math.radians(turn)
    px, py = math.cos(on_page), math.sin(on_page)
    if px < -1e-9 or (abs(px) < 1e-9 and py < 0):
        ux, uy = -ux, -uy
    c.saveState()
    c.translate((x1 + x2) / 2, (y1 + y2) / 2)
    c.rotate(math.degrees(math.atan2(uy, ux)))
    ink, pad = (ASCENT + DESCENT) * WORD_PT, 0.5 * K
    c.setFillColor(white)
    c.rect(-width / 2 - pad, -ink / 2 - pad / 2, width + 2 * pad, ink + pad, stroke=0, fill=1)
    c.setFillColor(INK)
    c.setFont(name, WORD_PT)
    c.drawCentredString(0, -(ASCENT - DESCENT) * WORD_PT / 2, word)
    c.restoreState()


def _word(c: Canvas, word: str, name: str, size: float, at: Point, along: Point) -> None:
    """The word centred on `at` (its baseline), reading along `along`."""
    c.saveState()
    c.translate(*at)
    c.rotate(math.degrees(math.atan2(along[1], along[0])))
    c.setFillColor(INK)
    c.setFont(name, size)
    c.drawCentredString(0, 0, word)
    c.restoreState()
