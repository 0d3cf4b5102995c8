"""Tuck box nets for decks (`tuckbox:` on a group of cards): one box sized from the card size and
count, drawn on a sheet of its own at the end of the kit's PDF.

The net, left to right: a glue tab, the front panel (the deck's back art), a side, the back
panel (the game's title), the other side. The back panel carries a lid and a tuck flap at its
top and at its bottom; the sides carry dust flaps. Solid lines are cut, dashed lines folded
(each marked with the kit's word for "fold"). A net too large for the paper either way round
is split between the first side and the back: the first side then gets a second glue tab, glued
under the back panel's edge.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from reportlab.lib.colors import Color, black
from reportlab.pdfgen.canvas import Canvas

from pnpkit.errors import Problem
from pnpkit.pack.model import Face, Group, Pack
from pnpkit.pdf.forms import face_form
from pnpkit.typeset import fonts
from pnpkit.units import PT_PER_MM, SIZES

K = PT_PER_MM
GREY = Color(0.45, 0.45, 0.45)
GLUE_FILL = Color(0.88, 0.88, 0.88)
MARK_PT = 6.0  # the fold and glue words: the smallest size a kit prints
Rect = tuple[float, float, float, float]  # x, y, w, h in mm, y down


@dataclass(frozen=True)
class Panel:
    name: str  # front, back, side-1, side-2, glue, join, lid-top, tuck-top, lid-bottom, ...
    rect: Rect
    taper: float = 0.0  # mm cut off the corners of its free edge (tabs and flaps)
    free: str = ""  # which edge is free, for the taper: top, bottom, left or right


@dataclass
class Net:
    """One sheet's part of a tuck box: panels (mm, from the part's top-left) and fold lines."""

    deck: str  # the group
    inner: tuple[float, float, float]  # width, height, depth the box holds
    panels: list[Panel] = field(default_factory=list)
    folds: list[tuple[float, float, float, float]] = field(default_factory=list)
    part: int = 1
    parts: int = 1

    @property
    def size(self) -> tuple[float, float]:
        return (
            max(p.rect[0] + p.rect[2] for p in self.panels),
            max(p.rect[1] + p.rect[3] for p in self.panels),
        )

    def panel(self, name: str) -> Panel:
        return next(p for p in self.panels if p.name == name)


def box_size(group: Group) -> tuple[float, float, float]:
    """Inner width, height and depth: the cards plus the clearance, the deck as thick as its
    cards, every copy counted."""
    spec = group.tuckbox
    assert spec is not None
    w, h = group.size
    depth = group.total * spec.thickness + spec.clearance
    return w + spec.clearance, h + spec.clearance, max(depth, 3.0)


def nets(group: Group, room: tuple[float, float]) -> list[Net]:
    """The tuck box of a deck as one net, or as two parts when it fits `room` (mm) neither way."""
    W, H, D = box_size(group)
    T = min(20.0, max(12.0, D))  # tuck flap: enough to hold the lid shut
    G = max(6.0, min(10.0, D))  # glue tab
    F = max(6.0, min(T, D))  # dust flap
    whole = _net(group.name, (W, H, D), T, G, F, split=False)
    if _fits(whole[0].size, room):
        return whole
    return _net(group.name, (W, H, D), T, G, F, split=True)


def _fits(size: tuple[float, float], room: tuple[float, float]) -> bool:
    return (size[0] <= room[0] and size[1] <= room[1]) or (
        size[1] <= room[0] and size[0] <= room[1]
    )


def _net(
    deck: str, inner: tuple[float, float, float], T: float, G: float, F: float, split: bool
) -> list[Net]:
    """The net, or split: its two parts [glue, front, side, join tab] and [back, side]."""
    W, H, D = inner
    y0 = T + D  # the panels' top
    xs = [0.0, G, G + W, G + W + D, G + 2 * W + D]  # glue, front, side 1, back, side 2
    panels = [
        Panel("glue", (xs[0], y0 + 2, G, H - 4), min(G, 3.0), "left"),
        Panel("front", (xs[1], y0, W, H)),
        Panel("side-1", (xs[2], y0, D, H)),
        Panel("dust-1-top", (xs[2], y0 - F, D, F), min(D / 3, F / 2), "top"),
        Panel("dust-1-bottom", (xs[2], y0 + H, D, F), min(D / 3, F / 2), "bottom"),
        Panel("back", (xs[3], y0, W, H)),
        Panel("lid-top", (xs[3], T, W, D)),
        Panel("tuck-top", (xs[3], 0.0, W, T), min(T / 2, 6.0), "top"),
        Panel("lid-bottom", (xs[3], y0 + H, W, D)),
        Panel("tuck-bottom", (xs[3], y0 + H + D, W, T), min(T / 2, 6.0), "bottom"),
        Panel("side-2", (xs[4], y0, D, H)),
        Panel("dust-2-top", (xs[4], y0 - F, D, F), min(D / 3, F / 2), "top"),
        Panel("dust-2-bottom", (xs[4], y0 + H, D, F), min(D / 3, F / 2), "bottom"),
    ]
    if not split:
        return [Net(deck, inner, panels, _folds(panels))]
    first = [p for p in panels if p.name in ("glue", "front") or "-1" in p.name]
    first.append(Panel("join", (xs[3], y0 + 2, G, H - 4), min(G, 3.0), "right"))
    second = [p for p in panels if p not in first]
    parts = []
    for n, part in enumerate((first, second), 1):
        left = min(p.rect[0] for p in part)
        moved = [
            Panel(p.name, (p.rect[0] - left, p.rect[1], p.rect[2], p.rect[3]), p.taper, p.free)
            for p in part
        ]
        parts.append(Net(deck, inner, moved, _folds(moved), n, 2))
    return parts


# the panels joined by a fold; any other edge is cut (a dust flap beside a lid among them)
JOINED = frozenset(
    {
        ("glue", "front"),
        ("front", "side-1"),
        ("side-1", "back"),
        ("back", "side-2"),
        ("side-1", "join"),
        ("back", "lid-top"),
        ("lid-top", "tuck-top"),
        ("back", "lid-bottom"),
        ("lid-bottom", "tuck-bottom"),
        ("side-1", "dust-1-top"),
        ("side-1", "dust-1-bottom"),
        ("side-2", "dust-2-top"),
        ("side-2", "dust-2-bottom"),
    }
)


def _folds(panels: list[Panel]) -> list[tuple[float, float, float, float]]:
    """The edge each pair of JOINED panels shares: a fold."""
    out = []
    for i, a in enumerate(panels):
        for b in panels[i + 1 :]:
            if (a.name, b.name) not in JOINED and (b.name, a.name) not in JOINED:
                continue
            ax, ay, aw, ah = a.rect
            bx, by, bw, bh = b.rect
            if abs(ax + aw - bx) < 1e-6 or abs(bx + bw - ax) < 1e-6:  # side by side
                x = bx if abs(ax + aw - bx) < 1e-6 else ax
                top, bottom = max(ay, by), min(ay + ah, by + bh)
                if bottom - top > 1e-6:
                    out.append((x, top, x, bottom))
            elif abs(ay + ah - by) < 1e-6 or abs(by + bh - ay) < 1e-6:  # one above the other
                y = by if abs(ay + ah - by) < 1e-6 else ay
                left, right = max(ax, bx), min(ax + aw, bx + bw)
                if right - left > 1e-6:
                    out.append((left, y, right, y))
    return out


def outline(p: Panel) -> list[tuple[float, float]]:
    """The panel's corners, clockwise from its top-left, the free edge's corners cut by its
    taper."""
    x, y, w, h = p.rect
    t = p.taper
    corners = {
        "top": [(x, y + h), (x + t, y), (x + w - t, y), (x + w, y + h)],
        "bottom": [(x, y), (x + w, y), (x + w - t, y + h), (x + t, y + h)],
        "left": [(x + w, y), (x + w, y + h), (x, y + h - t), (x, y + t)],
        "right": [(x, y), (x + w, y + t), (x + w, y + h - t), (x, y + h)],
    }
    return corners.get(p.free, [(x, y), (x + w, y), (x + w, y + h), (x, y + h)])


def problems(pack: Pack) -> list[Problem]:
    """A deck whose box does not fit the paper even in two parts."""
    room = printable_room(pack)
    out = []
    for group in pack.groups.values():
        if group.tuckbox is None or not pack.print.prints(group.variant):
            continue
        large = [net.size for net in nets(group, room) if not _fits(net.size, room)]
        if large:
            w, h = max(large)
            out.append(
                Problem(
                    group.where,
                    f"the tuck box of '{group.name}' needs a sheet of {w:.0f} x {h:.0f} mm even "
                    f"split in two, more than {pack.print.paper} holds (less its margins); "
                    "larger paper or a thinner deck",
                    "layout",
                )
            )
    return out


def printable_room(pack: Pack) -> tuple[float, float]:
    """The paper's printable area (portrait), less a little for the cut line's ink."""
    w, h = SIZES[pack.print.paper]
    m = pack.print.margin + 2.0
    return w - 2 * m, h - 2 * m - 6.0  # the footer label


def sheets(pack: Pack) -> list[Net]:
    """Every printed deck's tuck box nets, one per sheet, in the pack's order."""
    room = printable_room(pack)
    return [
        net
        for group in pack.groups.values()
        if group.tuckbox is not None and pack.print.prints(group.variant)
        for net in nets(group, room)
    ]


# draws a face into the box (rect, mm from the page's top-left) on the canvas
DrawFace = Callable[[Canvas, Face, Rect], None]


class FaceDrawer:
    """Faces drawn into the guide and the tuck boxes as the kit's pages draw them (pdf's forms,
    shared: a face the kit prints too is one form in the file)."""

    def __init__(self, forms: dict[str, str]) -> None:
        self.forms = forms

    def draw(self, c: Canvas, face: Face, rect: Rect) -> None:
        """face scaled to fit rect (mm, in a frame whose y points down), centred, clipped to its
        trim. A face whose drawing a large build released already is left out."""
        if not hasattr(face.drawing, "draw"):
            return
        x, y, w, h = rect
        fw, fh = face.size
        scale = min(w / fw, h / fh)
        dx, dy = x + (w - fw * scale) / 2, y + (h - fh * scale) / 2
        name = face_form(c, face, self.forms)
        c.saveState()
        path = c.beginPath()
        path.rect(dx * K, dy * K, fw * scale * K, fh * scale * K)
        c.clipPath(path, stroke=0, fill=0)
        c.translate(dx * K, (dy + fh * scale) * K)
        c.scale(scale, -scale)  # the form's y points up
        c.translate(-face.bleed * K, -face.bleed * K)
        c.doForm(name)
        c.restoreState()


@dataclass
class Sheet:
    """What a tuck box sheet shows besides its net: the words and the art."""

    title: str
    name: str  # the deck's name in the kit's language
    fold: str
    glue: str
    art: Face | None  # the deck's back (else its first front)


def draw(
    c: Canvas,
    page: tuple[float, float],
    net: Net,
    sheet: Sheet,
    face: DrawFace,
    room: tuple[float, float],
) -> None:
    """The net centred on the page (turned a quarter when only that way fits `room`)."""
    w, h = page
    nw, nh = net.size
    turned = not (nw <= room[0] and nh <= room[1])
    c.saveState()
    if turned:  # the net's top to the right: x across the page is its y
        c.translate((w + nh) / 2 * K, (h - (h - nw) / 2) * K)
        c.rotate(-90)
    else:
        c.translate((w - nw) / 2 * K, (h - (h - nh) / 2) * K)
    c.scale(1, -1)  # the net's own mm, y down, from its top-left
    for p in net.panels:
        if p.name in ("glue", "join"):
            _poly(c, outline(p), fill=GLUE_FILL)
    art = net.panel("front").rect if any(p.name == "front" for p in net.panels) else None
    if art is not None and sheet.art is not None:
        face(c, sheet.art, art)
    _words(c, net, sheet)
    _cuts(c, net)
    _fold_lines(c, net, sheet.fold)
    c.restoreState()


def _poly(c: Canvas, points: list[tuple[float, float]], fill: Color) -> None:
    path = c.beginPath()
    path.moveTo(points[0][0] * K, points[0][1] * K)
    for x, y in points[1:]:
        path.lineTo(x * K, y * K)
    path.close()
    c.setFillColor(fill)
    c.drawPath(path, stroke=0, fill=1)


def _cuts(c: Canvas, net: Net) -> None:
    """Every panel edge that is no fold: solid."""
    folds = {_key(f) for f in net.folds}
    c.setStrokeColor(black)
    c.setLineWidth(0.5)
    c.setDash()
    for p in net.panels:
        points = outline(p)
        for a, b in zip(points, points[1:] + points[:1]):
            if not any(_on(a, b, f) for f in folds):
                c.line(a[0] * K, a[1] * K, b[0] * K, b[1] * K)


def _key(f: tuple[float, float, float, float]) -> tuple[float, ...]:
    return tuple(round(v, 3) for v in f)


def _on(a: tuple[float, float], b: tuple[float, float], f: tuple[float, ...]) -> bool:
    """Whether the edge a-b lies on the fold f."""
    x0, y0, x1, y1 = f
    if abs(a[0] - b[0]) < 1e-6 and abs(x0 - x1) < 1e-6 and abs(a[0] - x0) < 1e-3:
        lo, hi = sorted((a[1], b[1]))
        return y0 - 1e-3 <= lo and hi <= y1 + 1e-3
    if abs(a[1] - b[1]) < 1e-6 and abs(y0 - y1) < 1e-6 and abs(a[1] - y0) < 1e-3:
        lo, hi = sorted((a[0], b[0]))
        return x0 - 1e-3 <= lo and hi <= x1 + 1e-3
    return False


def _fold_lines(c: Canvas, net: Net, word: str) -> None:
    """Dashed folds, each with the word "fold" beside its middle."""
    c.setStrokeColor(GREY)
    c.setLineWidth(0.4)
    c.setDash(3, 2)
    for x0, y0, x1, y1 in net.folds:
        c.line(x0 * K, y0 * K, x1 * K, y1 * K)
    c.setDash()
    c.setFillColor(GREY)
    regular = fonts.default_face()
    art_edges = {p.rect[0] + p.rect[2] for p in net.panels if p.name == "front"}
    for x0, y0, x1, y1 in net.folds:
        length = max(x1 - x0, y1 - y0)
        if fonts.string_width(word, regular, MARK_PT) > (length - 2) * K:
            continue  # a fold too short to carry its word: its dashes say it
        # a vertical fold's word near its top, clear of the side's title at its middle, and
        # beside the plain side of the fold, never over the deck's art
        at = ((x0 + x1) / 2, (y0 + y1) / 2) if y0 == y1 else (x0, y0 + min(12.0, length / 2))
        gap = -(1.0 + MARK_PT * 0.75 / K) if x0 == x1 and x0 in art_edges else 1.0
        _text(c, word, at, vertical=x0 == x1, size=MARK_PT, gap=gap)


def _words(c: Canvas, net: Net, sheet: Sheet) -> None:
    """The title on the back panel and on each side, "glue" on the glue tabs."""
    bold, regular = fonts.default_face(bold=True), fonts.default_face()
    c.setFillColor(black)
    for p in net.panels:
        x, y, w, h = p.rect
        centre = (x + w / 2, y + h / 2)
        if p.name == "back":
            size = _fitting(sheet.title, bold, 14.0, w - 8)
            _text(c, sheet.title, (centre[0], y + h * 0.4), False, size, font=bold)
            small = _fitting(sheet.name, regular, 9.0, w - 8)
            _text(c, sheet.name, (centre[0], y + h * 0.4 + size / K * 1.8), False, small)
        elif p.name.startswith("side-"):
            size = _fitting(sheet.title, bold, 9.0, h - 8)
            if size / K < w - 2:
                _text(c, sheet.title, centre, True, size, font=bold)
        elif p.name in ("glue", "join"):
            if fonts.string_width(sheet.glue, regular, MARK_PT) < (h - 4) * K:
                _text(c, sheet.glue, centre, True, MARK_PT)
        elif p.name == "front" and sheet.art is None:
            _text(c, sheet.title, centre, False, _fitting(sheet.title, bold, 14.0, w - 8), bold)


def _fitting(text: str, font: str, size: float, width: float) -> float:
    """size, shrunk (to MARK_PT at least) until text is at most width mm wide."""
    while size > MARK_PT and fonts.string_width(text, font, size) > width * K:
        size -= 0.5
    return size


def _text(
    c: Canvas,
    text: str,
    at: tuple[float, float],
    vertical: bool,
    size: float,
    font: str = "",
    gap: float = 0.0,
) -> None:
    """text centred at `at` (the net's mm, y down), upright for a reader; `gap` mm beside a line
    instead of on it (a vertical one reads bottom to top)."""
    c.saveState()
    c.translate(at[0] * K, at[1] * K)
    c.scale(1, -1)  # text upright again
    if vertical:
        c.rotate(90)
    c.setFont(font or fonts.default_face(), size)
    c.drawCentredString(0, gap * K if gap else -size * 0.35, text)
    c.restoreState()
