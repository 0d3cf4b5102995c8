"""What the writer draws around the faces: crop marks, the marks that align a tiled or
folded piece, fold lines, labels and the stamp under each page."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence

from reportlab.lib.colors import Color, black
from reportlab.pdfgen.canvas import Canvas

from pnpkit.impose import orient
from pnpkit.impose.bleeds import round_only
from pnpkit.impose.cuts import Box
from pnpkit.impose.page import MARK_CLEAR, MARK_LENGTH, Page, Placement, Tile
from pnpkit.pdf import foldmarks
from pnpkit.typeset import fonts
from pnpkit.units import PT_PER_MM

K = PT_PER_MM
MARK_WIDTH_PT = 0.25  # thinnest line that survives home printers (print-standards §4.5)
LABEL_PT = 6.0  # the page label's size, shrunk to fit the width between the margins
GREY = Color(0.55, 0.55, 0.55)


STAMP_PT = 4.5  # a note for playtesters, not for players
STAMP_RISE = 0.6  # mm between the stamp and the cut


def _scale_note(c: Canvas, p: Placement, text: str) -> None:
    """A shrunk sheet's scale, centred in the band between its top trim and its safe area (in
    the face's axes, so it turns with the face), where the cut leaves it on the piece."""
    b, (w, h) = p.face.bleed, p.face.size
    size = min(
        STAMP_PT,
        STAMP_PT * (w - 2) * K / max(c.stringWidth(text, fonts.default_face(), STAMP_PT), 1e-6),
    )
    c.setFillColor(GREY)
    c.setFont(fonts.default_face(), size)
    c.drawCentredString((b + w / 2) * K, (b + h) * K - size - STAMP_RISE * K, text)


def _stamp(c: Canvas, p: Placement, text: str) -> None:
    """The stamp centred in the bottom edge band of the face (inside the trim, so it survives the
    cut), in the face's coordinates with (0, 0) at the bleed's bottom-left corner. On a round
    face it sits inside the circle, raised until the chord there holds it (else it would print on
    the neighbour's bleed, outside the cut), shrunk if even a chord near the centre is short."""
    b, (w, h) = p.face.bleed, p.face.size
    font, size, y = fonts.default_face(), STAMP_PT, STAMP_RISE
    if p.face.shape[0] == "circle":
        r = min(w, h) / 2
        width = c.stringWidth(text, font, size) / K
        size = min(size, size * 1.6 * r / max(width, 1e-6))  # at most 80 % of the diameter
        half = c.stringWidth(text, font, size) / K / 2 + STAMP_RISE
        y = r - math.sqrt(max(r * r - half * half, 0.0)) + STAMP_RISE
    c.setFillColor(GREY)
    c.setFont(font, size)
    c.drawCentredString((b + w / 2) * K, (b + y) * K, text)  # face axes: turns too


def _extent(block: list[Placement]) -> tuple[float, float, float, float]:
    """A block of faces, bleed included: left, top, right, bottom in mm."""
    return (
        min(p.x - p.reach[0] for p in block),
        min(p.y - p.reach[1] for p in block),
        max(p.x + p.w + p.reach[2] for p in block),
        max(p.y + p.h + p.reach[3] for p in block),
    )


def _crop_marks(c: Canvas, page: Page) -> None:
    """Around each block, a short mark on the line of every trim edge, clear of the bleed."""
    c.saveState()
    c.setLineWidth(MARK_WIDTH_PT)
    c.setStrokeColor(black)
    for block in page.blocks():
        if round_only(block):
            continue
        _marks_around(
            c,
            page,
            _extent(block),
            {round(v, 3) for p in block for v in (p.x, p.x + p.w)},
            {round(v, 3) for p in block for v in (p.y, p.y + p.h)},
        )
    c.restoreState()


def _marks_around(
    c: Canvas,
    page: Page,
    extent: tuple[float, float, float, float],
    xs: Iterable[float],
    ys: Iterable[float],
) -> None:
    """Marks on the lines x in xs and y in ys, beyond the extent (bleed included), never past
    page.ink."""
    left, top, right, bottom = extent
    il, it, ir, ib = page.ink or (0.0, 0.0, page.w, page.h)
    for x in sorted(xs):
        _mark(c, page, (x, top - MARK_CLEAR), (x, max(top - MARK_CLEAR - MARK_LENGTH, it)))
        _mark(c, page, (x, bottom + MARK_CLEAR), (x, min(bottom + MARK_CLEAR + MARK_LENGTH, ib)))
    for y in sorted(ys):
        _mark(c, page, (left - MARK_CLEAR, y), (max(left - MARK_CLEAR - MARK_LENGTH, il), y))
        _mark(c, page, (right + MARK_CLEAR, y), (min(right + MARK_CLEAR + MARK_LENGTH, ir), y))


def _shape_guides(c: Canvas, page: Page) -> None:
    """The cut line of a round token and the corners of a rounded card, on the trim: straight crop
    marks cannot show them."""
    c.saveState()
    c.setLineWidth(MARK_WIDTH_PT)
    c.setStrokeColor(GREY)
    for p in page.placements:
        kind, r = p.face.shape
        x, y = p.x * K, (page.h - p.y - p.h) * K
        if kind == "circle":
            c.circle(x + p.w / 2 * K, y + p.h / 2 * K, p.w / 2 * K, stroke=1, fill=0)
        elif kind == "rounded":
            _corners(c, x, y, p.w * K, p.h * K, r * K)
    c.restoreState()


def _corners(c: Canvas, x: float, y: float, w: float, h: float, r: float) -> None:
    """Four quarter circles of radius r, one in each corner of the rectangle (points)."""
    for cx, cy, start in (
        (x + r, y + r, 180),
        (x + w - r, y + r, 270),
        (x + w - r, y + h - r, 0),
        (x + r, y + h - r, 90),
    ):
        c.arc(cx - r, cy - r, cx + r, cy + r, start, 90)


def _lines(c: Canvas, page: Page) -> None:
    """Cut marks a packer chose itself (for shapes whose edges are not grid lines)."""
    c.saveState()
    c.setLineWidth(MARK_WIDTH_PT)
    c.setStrokeColor(black)
    for x1, y1, x2, y2 in page.lines:
        c.line(x1 * K, (page.h - y1) * K, x2 * K, (page.h - y2) * K)
    c.restoreState()


def _tile_marks(c: Canvas, page: Page, part: Placement, crop_marks: bool) -> None:
    """A part of a split face (part.tile, t) on its sheet: where the next part's edge goes, marks
    to match, the board's cut lines."""
    face, t = part.face, part.tile
    assert t is not None
    x0, y0, x1, y1 = t.window
    left, top = t.origin
    right, bottom = left + x1 - x0, top + y1 - y0

    def px(fx: float) -> float:
        return left + fx - x0

    def py(fy: float) -> float:
        return top + fy - y0

    c.saveState()
    for colour, width, dash in (
        (Color(1, 1, 1), 1.5, ()),
        (black, 0.5, (3, 2)),
    ):  # white under black: shows on any art
        c.setStrokeColor(colour)
        c.setLineWidth(width)
        c.setDash(*dash) if dash else c.setDash()
        if t.col < t.cols - 1:  # the next sheet's cut edge lies on this line
            c.line(
                px(x1 - t.overlap) * K,
                (page.h - top) * K,
                px(x1 - t.overlap) * K,
                (page.h - bottom) * K,
            )
        if t.row < t.rows - 1:
            c.line(
                left * K,
                (page.h - py(y1 - t.overlap)) * K,
                right * K,
                (page.h - py(y1 - t.overlap)) * K,
            )
    c.setDash()
    for fx, fy in alignment_marks(t):
        _target(c, page, px(fx), py(fy))
    if crop_marks:
        fw, fh = face.full_size
        b = face.bleed
        c.setLineWidth(MARK_WIDTH_PT)
        _marks_around(
            c,
            page,
            (left, top, right, bottom),
            {px(fx) for fx in (b, fw - b) if x0 <= fx <= x1},
            {py(fy) for fy in (b, fh - b) if y0 <= fy <= y1},
        )
    c.restoreState()


TARGET = 3.0 + 1.5  # mm from a target's centre to the end of its cross (_target's r + 1.5)
STEP = 0.5  # mm a target slides by while it looks for a place off the texts


def alignment_marks(t: Tile) -> list[tuple[float, float]]:
    """Targets in the face's own mm, in the middle of every overlap strip this sheet shares,
    each at a quarter of the strip from its end unless that would draw it over a text (the
    tile's texts): then it moves, within its own half of the strip and inside the strip,
    to the nearest place clear of every text, and stays where it was if there is none.

    Neighbours compute the same points for their common strip (the same window along it, the
    same texts), so the marks coincide when the sheets are laid together.
    """
    x0, y0, x1, y1 = t.window
    texts = t.texts
    slack = max(0.0, t.overlap / 2 - TARGET)  # how far a target may leave the strip's middle
    marks: list[tuple[float, float]] = []
    for shared, x in ((t.col > 0, x0 + t.overlap / 2), (t.col < t.cols - 1, x1 - t.overlap / 2)):
        if shared:  # a strip down the sheet: (across, along) is (x, y)
            marks += [(u, v) for v, u in _along((y0, y1), (x, slack), texts, lambda v, u: (u, v))]
    for shared, y in ((t.row > 0, y0 + t.overlap / 2), (t.row < t.rows - 1, y1 - t.overlap / 2)):
        if shared:  # a strip across the sheet: (along, across) is (x, y)
            marks += _along((x0, x1), (y, slack), texts, lambda v, u: (v, u))
    return marks


def _along(
    ends: tuple[float, float],
    middle: tuple[float, float],
    texts: Sequence[Box],
    point: Callable[[float, float], tuple[float, float]],
) -> list[tuple[float, float]]:
    """The two targets of a strip running from ends[0] to ends[1] along its length, its middle
    line at middle[0] across it, as (along, across): at a quarter from each end on the middle
    line, or the nearest place in the same half (a target's width inside it, at most middle[1]
    off the middle line) whose target meets no text. point(along, across) is the face point."""
    (lo, hi), (mid_line, slack) = ends, middle
    half = (lo + hi) / 2
    places = []
    for start, a, b in ((lo + (hi - lo) * 0.25, lo, half), (lo + (hi - lo) * 0.75, half, hi)):
        places.append(
            next(
                _free(start, (a + TARGET, b - TARGET), mid_line, slack, texts, point),
                (start, mid_line),
            )
        )
    return places


def _free(
    start: float,
    room: tuple[float, float],
    mid_line: float,
    slack: float,
    texts: Sequence[Box],
    point: Callable[[float, float], tuple[float, float]],
) -> Iterator[tuple[float, float]]:
    """The places clear of texts, nearest the start first: along the strip in STEP, then across."""
    across = [mid_line + k * STEP * sign for k in range(int(slack / STEP) + 1) for sign in (1, -1)]
    reach = int((room[1] - room[0]) / STEP) + 1
    for v in (start + k * STEP * sign for k in range(reach) for sign in (1, -1)):
        if room[0] <= v <= room[1]:
            yield from ((v, u) for u in across if _clear(point(v, u), texts))


def _clear(centre: tuple[float, float], texts: Sequence[Box]) -> bool:
    """Whether a target drawn at centre keeps off every text's box."""
    x, y = centre
    r = TARGET + 0.5
    return all(
        x + r <= left or right <= x - r or y + r <= top or bottom <= y - r
        for left, top, right, bottom in texts
    )


def _target(c: Canvas, page: Page, x: float, y: float, r: float = 3.0) -> None:
    """A registration target: a circle and a cross, white under black so it shows on any art."""
    for colour, width in ((Color(1, 1, 1), 1.6), (black, 0.5)):
        c.setStrokeColor(colour)
        c.setLineWidth(width)
        c.circle(x * K, (page.h - y) * K, r * K, stroke=1, fill=0)
        c.line((x - r - 1.5) * K, (page.h - y) * K, (x + r + 1.5) * K, (page.h - y) * K)
        c.line(x * K, (page.h - y + r + 1.5) * K, x * K, (page.h - y - r - 1.5) * K)


def _mark(c: Canvas, page: Page, a: tuple[float, float], b: tuple[float, float]) -> None:
    if abs(a[0] - b[0]) + abs(a[1] - b[1]) < 1.0:  # no room in this margin
        return
    c.line(a[0] * K, (page.h - a[1]) * K, b[0] * K, (page.h - b[1]) * K)


def _fold_line(c: Canvas, page: Page, fold: float, word: str) -> None:
    c.saveState()
    c.setStrokeColor(GREY)
    c.setLineWidth(0.5)
    c.setDash(4, 3)
    _, top, _, bottom = page.ink or (0.0, 3.0, page.w, page.h - 3.0)
    c.line(fold * K, (page.h - top) * K, fold * K, (page.h - bottom) * K)
    c.restoreState()
    foldmarks.gutter_fold(c, page, fold, top, word)


def _boxes(c: Canvas, page: Page) -> None:
    """TrimBox and BleedBox where a page holds one whole face (print shops read them); none
    otherwise, nor on a sheet of a face split over several, whose trim is not on the page."""
    if not page.single_face or page.tile is not None:
        c.setTrimBox(None)
        c.setBleedBox(None)
        return
    p = page.placements[0]
    left, top, right, bottom = (
        p.reach
    )  # the bleed box is the bleed printed, which the page may have cut short
    c.setTrimBox(_box_on_sheet(page, (p.x, p.y, p.x + p.w, p.y + p.h)))
    c.setBleedBox(
        _box_on_sheet(page, (p.x - left, p.y - top, p.x + p.w + right, p.y + p.h + bottom))
    )


def _box_on_sheet(page: Page, box: tuple[float, float, float, float]) -> tuple[float, ...]:
    """A page box (left, top, right, bottom mm) in the points of the paper it prints on (turned
    with a landscape page, orient.py): boxes are not drawn, so the page's turn does not move
    them."""
    corners = [orient.on_sheet(x, y, page.w, page.h) for x in box[::2] for y in box[1::2]]
    sheet_h = orient.sheet(page.w, page.h)[1]
    xs, ys = [x for x, _ in corners], [sheet_h - y for _, y in corners]
    return min(xs) * K, min(ys) * K, max(xs) * K, max(ys) * K
