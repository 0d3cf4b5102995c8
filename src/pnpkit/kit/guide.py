"""The kit guide: the first pages of each kit's PDF, made from the pack and its imposed pages.

A cover (the game's title, a picture: the face game.yaml's `guide: {cover: GROUP/ITEM}` names,
else a few groups' first faces), the contents (each printed group, its count and size, what the
player supplies), a sheet map (each sheet's page numbers, what is on it, cut / fold / glue), the
assembly steps of each kind the kit holds (a diagram of each board split over several sheets),
the pack's own steps, and printing advice. The print check follows, then the kit's pages, then
its tuck boxes (tuckbox.py).

The guide is laid out as blocks flowing down pages. The sheet map's page numbers depend on how
many pages the guide takes, which they cannot change (a number never wraps its cell, and its
row's height is its other cells'): the guide flows once, and the numbers are put in after,
when the sheet map is drawn (Kit.first).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from reportlab.lib.colors import Color, black
from reportlab.pdfgen.canvas import Canvas

from pnpkit.errors import Problem
from pnpkit.impose.page import FOLD_BLOCKS, Page, Tile
from pnpkit.kit import tuckbox
from pnpkit.pack.model import KINDS, Face, Group, Pack
from pnpkit.pdf import calibration, guidewords
from pnpkit.typeset import fonts, shaping
from pnpkit.typeset.text import wrap
from pnpkit.units import PT_PER_MM, SIZES

K = PT_PER_MM
GREY = Color(0.45, 0.45, 0.45)
RULE = Color(0.8, 0.8, 0.8)
MARGIN, TOP, BOTTOM = 18.0, 18.0, 20.0  # mm, or print.margin's and a little more if wider
BODY_PT, SMALL_PT, HEAD_PT, TITLE_PT = 10.0, 8.5, 14.0, 28.0
LEADING = 1.3
COVER_H = 95.0  # mm: the cover picture's height at most
Draw = Callable[[Canvas, float, float, float], None]  # (canvas, x, y, page height), mm


@dataclass
class Block:
    height: float  # mm
    draw: Draw
    keep: bool = False  # a heading: kept on the page of the block after it
    section: float = 0.0  # a heading: its section's height, which starts a page unless it fits


@dataclass
class Kit:
    """What write_pdf() draws besides the imposed pages: the guide before the print check, the
    tuck boxes after the kit's pages."""

    pack: Pack
    lang: str
    size: tuple[float, float]  # the guide's page, mm
    words: dict[str, str]
    flow: list[list[tuple[float, Block]]] = field(default_factory=list)  # per page: (y, block)
    tucks: list[tuple[tuckbox.Net, tuckbox.Sheet]] = field(default_factory=list)
    pad: bool = False  # a blank page after the guide, so the print check starts a sheet
    first: int = 0  # the page number of the kit's first imposed page (the sheet map's first)
    total: int = 0  # the PDF's pages
    duplex: bool = False
    margin: float = 5.0  # print.margin: never inked
    # draws the cover's faces through the PDF's own forms, which draw_before() hands it
    drawer: tuckbox.FaceDrawer = field(default_factory=lambda: tuckbox.FaceDrawer({}))

    @property
    def side(self) -> float:
        """The guide's left and right margins (mm)."""
        return max(MARGIN, self.margin + 8)

    @property
    def before(self) -> int:
        """The guide's pages (its blank one included)."""
        return len(self.flow) + self.pad

    @property
    def after(self) -> int:
        """The tuck box sheets' pages (each with its blank back when printed double-sided)."""
        return len(self.tucks) * (2 if self.duplex else 1)

    def draw_before(self, c: Canvas, forms: dict[str, str]) -> int:
        self.drawer.forms = forms
        for n, page in enumerate(self.flow, 1):
            _start(c, self.size)
            for y, block in page:
                block.draw(c, self.side, y, self.size[1])
            self._footer(c, n)
            c.setFillColor(black)
            c.showPage()
        if self.pad:
            _start(c, self.size)
            _paragraph(self.words["blank"], SMALL_PT, self.size[0] - 2 * self.side, GREY).draw(
                c, self.side, self.size[1] / 2, self.size[1]
            )
            c.showPage()
        return self.before

    def draw_after(self, c: Canvas, forms: dict[str, str], first: int) -> int:
        """The tuck box sheets; `first`: the page number of the first."""
        self.drawer.forms = forms
        n = first
        for net, sheet in self.tucks:
            _start(c, self.size)
            tuckbox.draw(
                c, self.size, net, sheet, self.drawer.draw, tuckbox.printable_room(self.pack)
            )
            self._footer(c, n, self.words["tuckbox"].format(name=sheet.name))
            c.showPage()
            n += 1
            if self.duplex:
                _start(c, self.size)
                c.showPage()
                n += 1
        return n - first

    def _footer(self, c: Canvas, n: int, what: str = "") -> None:
        w, h = self.size
        label = f"{self.pack.name[self.lang]} · {self.lang} · {what or self.words['guide']}"
        label += f" · {n}/{self.total}"
        face = fonts.default_face()
        size = min(6.0, 6.0 * (w - 10) * K / max(fonts.string_width(label, face, 6.0), 1e-6))
        c.setFillColor(GREY)
        c.setFont(face, size)
        _centred(c, label, face, size, w / 2, (self.margin + 0.5) * K)  # as the sheets' labels


def _start(c: Canvas, size: tuple[float, float]) -> None:
    c.setPageSize((size[0] * K, size[1] * K))


def problems(pack: Pack) -> list[Problem]:
    """Languages the guide has no words for, decks whose tuck box the paper cannot hold."""
    wanted = pack.print.guide and pack.guide.given
    return tuckbox.problems(pack) + (guidewords.problems(pack) if wanted else [])


def plan(pack: Pack, lang: str, faces: list[Face], pages: list[Page]) -> Kit:
    """The guide and tuck boxes of one language's PDF, its `pages` imposed already: a guide
    when game.yaml asks for one (`guide:`) and `--no-guide` (print.guide) does not leave it out."""
    s = pack.print
    size = SIZES[s.paper]
    words = guidewords.words(lang, pack.strings)
    kit = Kit(pack, lang, size, words, duplex=s.duplex, margin=s.margin)
    sides = {(f.group, f.item, f.side): f for f in faces}
    kit.tucks = [(net, _tuck_sheet(kit, net, sides)) for net in tuckbox.sheets(pack)]
    check = calibration.page_count(s.backs)
    if s.guide and pack.guide.given:  # flowed once: the sheet map's numbers are drawn later
        kit.flow = _flow(_blocks(kit, faces, pages), size, kit.margin)
    kit.pad = s.duplex and len(kit.flow) % 2 == 1
    kit.first = kit.before + check + 1
    kit.total = kit.before + check + len(pages) + kit.after
    return kit


def _tuck_sheet(
    kit: Kit, net: tuckbox.Net, sides: dict[tuple[str, str, str], Face]
) -> tuckbox.Sheet:
    """The words and art of a deck's tuck box sheet: its first card's back, else its front."""
    group = kit.pack.groups[net.deck]
    first = group.items[0].id if group.items else ""
    art = sides.get((group.name, first, "back")) or sides.get((group.name, first, "front"))
    name = f"{group_name(kit.pack, group.name, kit.lang)} × {group.total}"
    if net.parts > 1:
        name = kit.words["part"].format(name=name, part=net.part, parts=net.parts)
    return tuckbox.Sheet(kit.pack.name[kit.lang], name, kit.words["fold"], kit.words["glue"], art)


def group_name(pack: Pack, group: str, lang: str) -> str:
    """The group's name in the guide: game.yaml's guide.names, else its key in words."""
    named = pack.guide.names.get(group)
    if named:
        return named[lang]
    return group.replace("-", " ").replace("_", " ").capitalize()


def _flow(
    blocks: list[Block], size: tuple[float, float], margin: float
) -> list[list[tuple[float, Block]]]:
    """Blocks down pages: a block that does not fit starts the next page, a heading goes with
    the block after it."""
    top, bottom = max(TOP, margin + 8), size[1] - max(BOTTOM, margin + 10)
    pages: list[list[tuple[float, Block]]] = [[]]
    y = top
    for i, block in enumerate(blocks):
        need = block.height
        if block.keep and i + 1 < len(blocks):
            need += blocks[i + 1].height
        whole = block.section if block.section <= bottom - top else 0.0  # else it must split
        if pages[-1] and (y + max(need, whole) > bottom):
            pages.append([])
            y = top
        pages[-1].append((y, block))
        y += block.height
    return pages


def _blocks(kit: Kit, faces: list[Face], pages: list[Page]) -> list[Block]:
    """The guide's blocks (the sheet map's page numbers drawn from kit.first, set later)."""
    width = kit.size[0] - 2 * kit.side
    out = _cover(kit, faces, width)
    out += _contents(kit, width)
    out += _printing(kit, width)  # what a player does first
    out += _sheet_map(kit, pages, width)
    out += _assembly(kit, pages, width)
    return out


def _paragraph(
    text: str, size: float, width: float, colour: Color = black, bold: bool = False
) -> Block:
    font = fonts.default_face(bold=bold)
    return _lines(wrap(text, font, size / K, width), font, size, colour, width)


CHUNK = 12  # lines: a pack's long text flows over pages in blocks of this many


def _paragraphs(text: str, size: float, width: float) -> list[Block]:
    """A pack's text (its supplies, its steps), in blocks a page can hold however long it is."""
    font = fonts.default_face()
    lines = wrap(text, font, size / K, width)
    return [
        _lines(lines[i : i + CHUNK], font, size, black, width) for i in range(0, len(lines), CHUNK)
    ]


def _lines(lines: list[str], font: str, size: float, colour: Color, width: float) -> Block:
    """A paragraph's lines, in the direction of its first strong letter (Arabic, Hebrew: right
    to left, each line ending at the right edge of `width`)."""
    step = size * LEADING / K
    rtl = shaping.base_level(" ".join(lines)) == 1

    def draw(c: Canvas, x: float, y: float, h: float) -> None:
        c.setFillColor(colour)
        c.setFont(font, size)
        for i, line in enumerate(lines):
            _say(c, line, (font, size), (x, width), _y(h, y + size / K + i * step), rtl)

    return Block(len(lines) * step + size * 0.4 / K, draw)


def _say(
    c: Canvas,
    line: str,
    face: tuple[str, float],
    box: tuple[float, float],
    y: float,
    rtl: bool,
) -> None:
    """One line shaped and in visual order, as the print check draws its words
    (calibration._say): from the box's left edge (x, width in mm), or ending at its right edge
    when right to left. y in points."""
    font, size = face
    chars, advance = shaping.visual_line(line, font, "rtl" if rtl else "ltr")
    left, width = box
    c.drawString((left + width) * K - advance * size if rtl else left * K, y, chars)


def _centred(c: Canvas, line: str, font: str, size: float, x: float, y: float) -> None:
    """One line shaped and in visual order, centred on x mm; y in points."""
    chars, advance = shaping.visual_line(line, font)
    c.drawString(x * K - advance * size / 2, y, chars)


def _y(h: float, y: float) -> float:
    """A y mm from the top of a page h mm high, in the canvas's points (from its bottom)."""
    return (h - y) * K


def _heading(text: str, size: float = HEAD_PT) -> Block:
    block = _paragraph(text, size, 500.0, bold=True)
    return Block(block.height + 2.0, _below(block.draw, 1.0), keep=True)


def _section(blocks: list[Block]) -> list[Block]:
    """blocks (a heading first) kept on one page when they fit one: a new page rather than a
    table split across two."""
    blocks[0].section = sum(b.height for b in blocks)
    return blocks


def _below(draw: Draw, dy: float) -> Draw:
    return lambda c, x, y, h: draw(c, x, y + dy, h)


def _space(mm: float) -> Block:
    return Block(mm, lambda c, x, y, h: None)


def _cover(kit: Kit, faces: list[Face], width: float) -> list[Block]:
    pack, lang, words = kit.pack, kit.lang, kit.words
    title = pack.name[lang]
    bold = fonts.default_face(bold=True)
    size = TITLE_PT
    while size > HEAD_PT and fonts.string_width(title, bold, size) > width * K:
        size -= 1
    low, high = pack.players
    players = (
        words["players"].format(min=low, max=high) if low < high else words["one"].format(n=high)
    )
    out = [
        _paragraph(title, size, width, bold=True),
        _paragraph(f"{words['kit']} · {players}", BODY_PT + 1, width, GREY),
        _space(4),
    ]
    pictures = _cover_faces(pack, faces)
    if pictures:
        out += [_pictures(pictures, width, kit.drawer), _space(6)]
    return out


def _cover_faces(pack: Pack, faces: list[Face]) -> list[Face]:
    """The face game.yaml names, else the first front of up to four printed groups."""
    fronts = [f for f in faces if f.side == "front" and hasattr(f.drawing, "draw")]
    if pack.guide.cover:
        group, item = pack.guide.cover
        return [f for f in fronts if (f.group, f.item) == (group, item)][:1]
    out: dict[str, Face] = {}
    for face in fronts:
        if pack.print.prints(face.variant) and face.count > 0 and face.group not in out:
            # a board is a poor thumbnail beside cards; a standee's or a die's print layout
            # (a figure upside down, a net) is no picture of the piece
            if max(face.size) < 250 and face.kind not in ("standee", "die"):
                out[face.group] = face
    return list(out.values())[:4]


def _pictures(pictures: list[Face], width: float, drawer: tuckbox.FaceDrawer) -> Block:
    """The faces side by side, as large as COVER_H and the width let them, centred."""
    gap = 6.0
    ratio = sum(f.size[0] / f.size[1] for f in pictures)
    heights = min(COVER_H, (width - gap * (len(pictures) - 1)) / ratio)
    sizes = [(f.size[0] / f.size[1] * heights, heights) for f in pictures]
    total = sum(w for w, _ in sizes) + gap * (len(sizes) - 1)

    def draw(c: Canvas, x: float, y: float, h: float) -> None:
        left = x + (width - total) / 2
        c.saveState()
        c.translate(0, h * K)
        c.scale(1, -1)  # y down, in points: the face drawer's frame
        for face, (fw, fh) in zip(pictures, sizes):
            drawer.draw(c, face, (left, y, fw, fh))
            c.setStrokeColor(RULE)
            c.setLineWidth(0.3)
            c.rect(left * K, y * K, fw * K, fh * K)
            left += fw + gap
        c.restoreState()

    return Block(heights, draw)


def _row(
    cells: list[str | Callable[[], str]],
    widths: list[float],
    bold: bool = False,
    size: float = BODY_PT,
) -> Block:
    """A table row: each cell wrapped to its column, a thin rule under the row. A cell given as
    a function (a sheet's page numbers) is one line, its text asked for when it is drawn."""
    font = fonts.default_face(bold=bold)
    wrapped = [
        _capped(wrap(text, font, size / K, w - 2)) if isinstance(text, str) else [""]
        for text, w in zip(cells, widths)
    ]
    step = size * LEADING / K
    height = max(len(lines) for lines in wrapped) * step + 2.0
    # its columns from the right (a page-number cell is digits: it says nothing of direction)
    rtl = shaping.base_level(" ".join(c for c in cells if isinstance(c, str))) == 1

    def draw(c: Canvas, x: float, y: float, h: float) -> None:
        c.setFillColor(black)
        c.setFont(font, size)
        left = x
        for cell, lines, w in zip(cells, wrapped, widths):
            lines = lines if isinstance(cell, str) else [cell()]
            at = x + sum(widths) - (left - x) - w if rtl else left
            for i, line in enumerate(lines):
                _say(c, line, (font, size), (at, w), _y(h, y + 0.6 + size / K + i * step), rtl)
            left += w
        c.setStrokeColor(RULE)
        c.setLineWidth(0.4)
        c.line(x * K, _y(h, y + height), (x + sum(widths)) * K, _y(h, y + height))

    return Block(height, draw)


def _mm(v: float) -> str:
    return f"{round(v, 1):g}"


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _capped(lines: list[str], most: int = 4) -> list[str]:
    """A table cell's lines, at most `most`: a name longer than that is cut short (…)."""
    return lines if len(lines) <= most else lines[: most - 1] + [lines[most - 1] + " …"]


def printed_groups(pack: Pack) -> list[Group]:
    """The groups this kit prints (print.variants), with at least one copy."""
    return [g for g in pack.groups.values() if pack.print.prints(g.variant) and g.total > 0]


def _contents(kit: Kit, width: float) -> list[Block]:
    pack, lang, words = kit.pack, kit.lang, kit.words
    widths = [width * 0.55, width * 0.15, width * 0.30]
    out = [_heading(words["contents"])]  # under the cover: kept with it
    out.append(_row([words["component"], words["count"], words["size"]], widths, bold=True))
    for g in printed_groups(pack):
        size = f"{_mm(g.size[0])} × {_mm(g.size[1])} mm"
        out.append(_row([group_name(pack, g.name, lang), str(g.total), size], widths))
    for net, _ in kit.tucks:
        if net.part == 1:
            w, h, d = net.inner
            name = _capital(words["tuckbox"].format(name=group_name(pack, net.deck, lang)))
            out.append(_row([name, "1", f"{_mm(w)} × {_mm(h)} × {_mm(d)} mm"], widths))
    if pack.guide.supplies:
        out += [_space(4), _heading(words["supplies"])]
        out += [b for t in pack.guide.supplies for b in _paragraphs(f"• {t[lang]}", BODY_PT, width)]
    return out


def _sheet_map(kit: Kit, pages: list[Page], width: float) -> list[Block]:
    """Each sheet: its page numbers (front and back together, counted from kit.first when the
    row is drawn), what is on it, what to do."""
    words = kit.words
    widths = [width * 0.14, width * 0.62, width * 0.24]
    out = [
        _space(4),
        _heading(words["sheet_map"]),
        _paragraph(words["map_intro"], SMALL_PT, width, GREY),
        _row([words["pages"], words["on_it"], words["todo"]], widths, bold=True),
    ]
    for numbers, what, todo in sheet_rows(kit, pages, 0):
        out.append(_row([_numbered(kit, int(numbers.split("–")[0])), what, todo], widths))
    return out[:1] + _section(out[1:])


def _numbered(kit: Kit, offset: int) -> Callable[[], str]:
    """A sheet's page numbers `offset` pages after the kit's first imposed page, as they are
    once the guide's length has set kit.first."""
    return lambda: _numbers(kit, kit.first + offset)


def _numbers(kit: Kit, n: int) -> str:
    """A sheet's page numbers from page n: its front's and back's, or its one page's."""
    return f"{n}–{n + 1}" if kit.duplex else str(n)


def sheet_rows(kit: Kit, pages: list[Page], first: int) -> list[tuple[str, str, str]]:
    """(page numbers, what is on the sheet, what to do) per sheet of the kit, its tuck boxes
    last; `first`: the page number of pages[0]."""
    rows: list[tuple[str, str, str]] = []
    n = first
    for i, page in enumerate(pages):
        if page.side == "back" and i > 0 and kit.duplex:
            n += 1
            continue  # told with its front
        rows.append((_numbers(kit, n), _on_page(kit, page), _todo(kit, page)))
        n += 1
    todo = ", ".join(kit.words[w] for w in ("cut", "fold", "glue"))
    for _, sheet in kit.tucks:
        rows.append(
            (_numbers(kit, n), _capital(kit.words["tuckbox"].format(name=sheet.name)), todo)
        )
        n += 2 if kit.duplex else 1
    return rows


def _on_page(kit: Kit, page: Page) -> str:
    """The groups on a sheet's front with their copies, and the parts of split faces."""
    copies: Counter[str] = Counter()
    parts = []
    for p in page.placements:
        if p.block >= FOLD_BLOCKS:  # a gutter-fold back beside its front
            continue
        if p.tile is not None:
            name = group_name(kit.pack, p.face.group, kit.lang)
            parts.append(
                kit.words["part"].format(
                    name=name, part=p.tile.name, parts=p.tile.rows * p.tile.cols
                )
            )
        else:
            copies[p.face.group] += 1
    said = [f"{group_name(kit.pack, g, kit.lang)} ({n})" for g, n in copies.items()]
    return ", ".join(said + parts)


def _todo(kit: Kit, page: Page) -> str:
    kinds = {p.face.kind for p in page.placements}
    done = ["cut"]
    if kinds & {"standee", "die"} or page.fold is not None:
        done.append("fold")
    if kinds & {"standee", "die"} or page.tile is not None or page.fold is not None:
        done.append("glue")
    return ", ".join(kit.words[w] for w in done)


def _assembly(kit: Kit, pages: list[Page], width: float) -> list[Block]:
    pack, words = kit.pack, kit.words
    groups = printed_groups(pack)
    kinds = {g.kind for g in groups if not g.labels}
    steps = [words[k] for k in KINDS if k in kinds]
    if any(g.labels for g in groups):
        steps.append(words["labels"])
    if pack.print.backs == "gutter-fold":
        steps.append(words["gutter"])
    out = [_space(4), _heading(words["assembly"])]
    out += [b for step in steps for b in (_paragraph(step, BODY_PT, width), _space(1.5))]
    split = _split_faces(pages)
    if split:
        out += [_split_step(kit, split, width), _space(1.5)]
    if kit.tucks:
        out += [_paragraph(words["tuck"], BODY_PT, width), _space(1.5)]
    out += [
        b
        for step in pack.guide.steps
        for b in (*_paragraphs(step[kit.lang], BODY_PT, width), _space(1.5))
    ]
    return out


def _split_faces(pages: list[Page]) -> list[tuple[Face, list[Tile]]]:
    """Each face split over several sheets, with its parts."""
    out: dict[tuple[str, str], tuple[Face, list[Tile]]] = {}
    for page in pages:
        if page.side != "front":
            continue
        for p in page.parts:
            assert p.tile is not None
            out.setdefault((p.face.group, p.face.item), (p.face, []))[1].append(p.tile)
    return list(out.values())


DIAGRAM_W, DIAGRAM_H = 50.0, 30.0  # mm: the most a split face's diagram takes


def _split_step(kit: Kit, split: list[tuple[Face, list[Tile]]], width: float) -> Block:
    """The split boards' step, with a diagram of each board's parts to its right."""
    text = _paragraph(kit.words["split"], BODY_PT, width - DIAGRAM_W - 6)
    diagrams = [_diagram(kit, face, tiles) for face, tiles in split]
    height = max(text.height, sum(d.height for d in diagrams))

    def draw(c: Canvas, x: float, y: float, h: float) -> None:
        text.draw(c, x, y, h)
        top = y
        for d in diagrams:
            d.draw(c, x + width - DIAGRAM_W, top, h)
            top += d.height

    return Block(height + 2, draw)


def _diagram(kit: Kit, face: Face, tiles: list[Tile]) -> Block:
    """The face's outline with each part's window on it, named as the sheets name them; the
    strips two parts share shaded; its name and size under it."""
    fw, fh = face.full_size
    scale = min(DIAGRAM_W / fw, DIAGRAM_H / fh)
    name = group_name(kit.pack, face.group, kit.lang)
    caption = _paragraph(f"{name} · {fw:.0f} × {fh:.0f} mm", 7.0, DIAGRAM_W, GREY)
    windows = [(t.name, _window(t)) for t in tiles]
    shared = [_common(a, b) for i, (_, a) in enumerate(windows) for _, b in windows[i + 1 :]]

    def box(
        c: Canvas, x: float, y: float, h: float, r: tuple[float, float, float, float], fill: int
    ) -> None:
        wx, wy, ww, wh = r
        c.rect(
            (x + wx * scale) * K,
            _y(h, y + (wy + wh) * scale),
            ww * scale * K,
            wh * scale * K,
            stroke=1 - fill,
            fill=fill,
        )

    def draw(c: Canvas, x: float, y: float, h: float) -> None:
        c.setLineWidth(0.3)
        c.setFillColor(Color(0.85, 0.85, 0.85))
        for r in shared:
            if r is not None:
                box(c, x, y, h, r, 1)
        c.setStrokeColor(black)
        c.setFillColor(black)
        c.setFont(fonts.default_face(bold=True), 8)
        for part, (wx, wy, ww, wh) in windows:
            box(c, x, y, h, (wx, wy, ww, wh), 0)
            centre = (x + (wx + ww / 2) * scale, y + (wy + wh / 2) * scale)
            _centred(c, part, fonts.default_face(bold=True), 8, centre[0], _y(h, centre[1] + 1.0))
        caption.draw(c, x, y + fh * scale + 1, h)

    return Block(fh * scale + 1 + caption.height + 3, draw)


def _common(
    a: tuple[float, float, float, float], b: tuple[float, float, float, float]
) -> tuple[float, float, float, float] | None:
    """Where two windows (x, y, w, h) overlap, if they do."""
    left, top = max(a[0], b[0]), max(a[1], b[1])
    right, bottom = min(a[0] + a[2], b[0] + b[2]), min(a[1] + a[3], b[1] + b[3])
    return (left, top, right - left, bottom - top) if right > left and bottom > top else None


def _window(t: Tile) -> tuple[float, float, float, float]:
    x0, y0, x1, y1 = t.window
    return x0, y0, x1 - x0, y1 - y0


def _printing(kit: Kit, width: float) -> list[Block]:
    s, words = kit.pack.print, kit.words
    lines = [words["advice_scale"]]
    if s.duplex:
        edge = words["long" if s.backs == "long-edge" else "short"]
        lines.append(words["advice_duplex"].format(edge=edge))
    else:
        lines.append(words["advice_single"])
    lines.append(words["advice_paper"].format(paper=s.paper.upper()))
    out = [_heading(words["printing"])]
    out += [b for line in lines for b in (_paragraph(f"• {line}", BODY_PT, width), _space(1))]
    return [_space(4)] + _section(out)
