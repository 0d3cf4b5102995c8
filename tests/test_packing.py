"""Paper thrift: mixed sizes share sheets, faces turn where that holds more, and backs still
register behind their fronts, turned with them."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pypdfium2
import pytest

from conftest import write_pack
from pnpkit.build import pipeline as build
from pnpkit.errors import Location
from pnpkit.impose.backs import mirror_axis
from pnpkit.impose.bleeds import crop_lines, part_bleeds
from pnpkit.impose.freerects import FreeRects, overlaps
from pnpkit.impose.grid import blank_page, pack_pages, splits
from pnpkit.impose.page import FOLD_BLOCKS, FOOTER_SHARED, Page, Placement, part_names
from pnpkit.impose.paper import ink_area, mark_room
from pnpkit.impose.sheet import Sheet, content_box
from pnpkit.pack.model import Face, PrintSettings
from registered import impose

ROOT = Path(__file__).resolve().parents[1]
HERE = Location("x.yaml", 1, 1)


def faces(
    n: int, size: tuple[float, float], group: str, kind: str = "card", back: bool = True
) -> list[Face]:
    out = []
    for i in range(n):
        out.append(Face(group, f"{group}{i}", "front", 1, size, 3.0, kind, f"<{group}{i}>", HERE))
        if back:
            svg = f"<{group}{i} back>"
            out.append(Face(group, f"{group}{i}", "back", 1, size, 3.0, kind, svg, HERE))
    return out


def mixed(long: tuple[float, float] = (100.0, 40.0)) -> list[Face]:
    """Sizes that cannot fill a sheet alone: 3 poker cards, 4 long tiles, 12 tokens."""
    return (
        faces(3, (63.5, 88.9), "cards") + faces(4, long, "long") + faces(12, (22.0, 22.0), "tokens")
    )


def rect(p: Placement) -> tuple[float, float, float, float]:
    return p.x, p.y, p.x + p.w, p.y + p.h


# ------------------------------------------------------------------ sheet counts of the kits


def sheet_count():
    path = ROOT / "scripts" / "sheet_count.py"
    spec = importlib.util.spec_from_file_location("sheet_count", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# the old packer (one size per block, blocks stacked down the page, each packer on sheets of its
# own) took 13, 2, 10, 21 sheets on A4 and 19, 2, 10, 26 on Letter. MLEM's cosmic track takes 9
# on A4 since its cuts fall between the track's numbers (cuts.py): its last part, 276 mm wide
# where an even cut left 184 mm, no longer has room beside it for the rocket board
@pytest.mark.parametrize(
    "paper, most",
    [
        ("a4", {"anunnaki": 12, "mammoth-herd": 2, "mlem": 9, "star-cargo": 20}),
        ("letter", {"anunnaki": 16, "mammoth-herd": 2, "mlem": 9, "star-cargo": 22}),
    ],
)
def test_the_kits_take_fewer_sheets(paper, most):
    count = sheet_count().count
    taken = {kit: count(ROOT / "components" / kit, {"paper": paper})[0] for kit in most}
    assert all(taken[kit] <= most[kit] for kit in most), taken


def test_the_usable_bound_leaves_out_the_footer_band():
    sheets, bound, usable = sheet_count().count(ROOT / "components" / "mammoth-herd", {})
    # A4 inside 5 mm margins is 200 x 287 mm; less the 3 mm footer band, 200 x 284
    assert usable == pytest.approx(bound * 287 / 284)
    assert sheets >= math.ceil(usable)


# ------------------------------------------------------------------ mixed sheets


def test_later_sizes_fill_the_room_earlier_ones_left():
    pages, problems = impose(mixed(), PrintSettings(paper="a4", backs="none"))
    assert problems == []
    assert len(pages) == 1
    assert {p.face.group for p in pages[0].placements} == {"cards", "long", "tokens"}


def test_a_face_turns_when_that_holds_more():
    s = PrintSettings(paper="a4", orientation="portrait", backs="none")
    pages, _ = impose(faces(8, (100.0, 40.0), "long"), s)
    assert len(pages) == 1 and len(pages[0].placements) == 8  # upright, portrait A4 holds 6
    assert {p.turn for p in pages[0].placements} == {90}
    assert {(p.w, p.h) for p in pages[0].placements} == {(40.0, 100.0)}


def test_of_equal_papers_the_one_that_turns_nothing_is_chosen():
    pages, _ = impose(faces(8, (100.0, 40.0), "long"), PrintSettings(paper="a4", backs="none"))
    assert (pages[0].w, pages[0].h) == (297, 210)  # 2 x 4 upright; portrait needs turns
    assert {p.turn for p in pages[0].placements} == {0}


@pytest.mark.parametrize("backs", ["long-edge", "short-edge", "gutter-fold"])
@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_every_back_of_a_mixed_sheet_sits_behind_its_front_turned_the_other_way(backs, paper):
    s = PrintSettings(paper=paper, backs=backs, orientation="portrait")
    pages, problems = impose(mixed(long=(200.0, 30.0)), s)  # too wide for a portrait sheet: turned
    assert problems == []
    checked = turned = sizes = 0
    for k, page in enumerate(pages):
        if page.side != "front":
            continue
        fronts = [p for p in page.placements if p.block < FOLD_BLOCKS]
        if backs == "gutter-fold":
            backs_on = [p for p in page.placements if p.block >= FOLD_BLOCKS]
        else:
            backs_on = pages[k + 1].placements
        sizes = max(sizes, len({p.face.size for p in fronts}))
        assert len(backs_on) == len(fronts)
        for front, back in zip(fronts, backs_on):
            x1, y1, x2, y2 = rect(front)
            axis = mirror_axis(s, (page.w, page.h))
            across = 2 * page.fold if page.fold is not None else page.w
            if axis == "x":
                want = (across - x2, y1, across - x1, y2)
            else:
                want = (x1, page.h - y2, x2, page.h - y1)
            assert back.face.item == front.face.item
            assert rect(back) == pytest.approx(want, abs=1e-9)
            assert back.turn == (360 - front.turn) % 360
            checked += 1
            turned += front.turn != 0
    assert checked == 19 and turned >= 4 and sizes >= 2  # a sheet of several sizes


def segment_hits(line, box) -> bool:
    """Whether an axis-parallel segment touches the inside of a box."""
    x1, y1, x2, y2 = line
    left, top, right, bottom = box
    return min(x1, x2) < right and max(x1, x2) > left and min(y1, y2) < bottom and max(y1, y2) > top


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_crop_marks_of_a_block_reach_no_other_block_and_stay_inside_the_margin(paper):
    s = PrintSettings(paper=paper, backs="none")
    pages, _ = impose(mixed() + faces(7, (45.0, 45.0), "tiles"), s)
    # fill.py deals the faces over both sheets (neither near-empty): on Letter two blocks each
    assert max(len(page.blocks()) for page in pages) >= 2
    for page in pages:
        ink = ink_area(s, (page.w, page.h))
        blocks = page.blocks()
        for block in blocks:
            for line in crop_lines(block, ink):
                assert ink[0] <= min(line[0], line[2]) and max(line[0], line[2]) <= ink[2]
                assert ink[1] <= min(line[1], line[3]) and max(line[1], line[3]) <= ink[3]
                for other in page.placements:
                    if other not in block:  # not even the other faces' bleed
                        left, top, right, bottom = other.reach
                        bleed = (
                            other.x - left,
                            other.y - top,
                            other.x + other.w + right,
                            other.y + other.h + bottom,
                        )
                        assert not segment_hits(line, bleed)


def test_a_lone_hex_shares_its_sheet_and_the_added_blocks_bring_their_marks():
    hexes_ = faces(21, (57.74, 50.0), "terrain", kind="hex", back=False)
    tokens = faces(12, (22.0, 22.0), "tokens", kind="token", back=False)
    pages, problems = impose(hexes_ + tokens, PrintSettings(paper="a4", backs="none"))
    assert problems == []
    assert len(pages) == 2  # 20 hexes, then the 21st with the tokens (the old packer: 3 sheets)
    last = pages[1]
    assert sorted(p.face.group for p in last.placements) == ["terrain"] + ["tokens"] * 12
    token_lines = last.lines[6:]  # after the hex's six edges
    # crop marks for the tokens' block, one at each end of every trim line: pdf draws none on a
    # packer's own page
    tokens_on = [p for p in last.placements if p.face.group == "tokens"]
    xs = {round(v, 3) for p in tokens_on for v in (p.x, p.x + p.w)}
    ys = {round(v, 3) for p in tokens_on for v in (p.y, p.y + p.h)}
    assert len(token_lines) == 2 * (len(xs) + len(ys)) and len(xs) + len(ys) >= 6
    hex_only = [p for p in last.placements if p.face.group == "terrain"]
    hex_box = content_box(Page(last.w, last.h, "front", hex_only))
    assert not any(segment_hits(line, hex_box) for line in token_lines)


def test_free_room_keeps_every_largest_rectangle():
    free = FreeRects((0.0, 0.0, 100.0, 100.0))
    free.take((0.0, 0.0, 40.0, 30.0))
    assert sorted(free.rects) == [(0.0, 30.0, 100.0, 100.0), (40.0, 0.0, 100.0, 100.0)]
    free.take((60.0, 50.0, 100.0, 100.0))
    assert sorted(free.rects) == [
        (0.0, 30.0, 60.0, 100.0),
        (0.0, 30.0, 100.0, 50.0),
        (40.0, 0.0, 60.0, 100.0),
        (40.0, 0.0, 100.0, 50.0),
    ]


# ------------------------------------------------------------------ a turned face, printed

HALVES = """{% extends "_face.svg.j2" %}{% block content %}
{% set w, h, b = face.w + 2 * face.bleed, face.h / 2 + face.bleed, face.bleed %}
<rect x="{{ -b }}" y="{{ -b }}" width="{{ w }}" height="{{ h }}" fill="{{ top }}"/>
<rect x="{{ -b }}" y="{{ face.h / 2 }}" width="{{ w }}" height="{{ h }}" fill="#0000ff"/>
{% endblock %}
"""


def test_a_turned_face_prints_turned_and_its_back_turns_the_other_way(tmp_path):
    """Front: red top half; back: green top half. On a portrait sheet the wide tiles turn, so the
    front's red half lies right of its centre, and the back's green half lies behind it: left of
    the centre of the mirrored place on the back page."""
    pack = write_pack(
        tmp_path / "turn",
        {
            "game.yaml": "name: Turn\nlanguages: [en]\nplayers: {min: 1, max: 1}\n"
            "print:\n  bleed: 3mm\n  orientation: portrait\n",
            "long.yaml": "long:\n  kind: tile\n  size: 100x40mm\n  front: front.svg.j2\n"
            "  back: back.svg.j2\n  items:\n" + "".join(f"    - {{id: t{i}}}\n" for i in range(8)),
            "templates/front.svg.j2": HALVES.replace("{{ top }}", "#ff0000"),
            "templates/back.svg.j2": HALVES.replace("{{ top }}", "#00ff00"),
            "templates/_face.svg.j2": (ROOT / "src/pnpkit/templates" / "_face.svg.j2").read_text(),
        },
    )
    result = build.validate(pack, code=build.Code(True))
    assert result.errors == []
    front_page, back_page = result.pages["en"][:2]
    front, back = front_page.placements[0], back_page.placements[0]
    assert (front.turn, back.turn) == (90, 270)
    out = tmp_path / "out"
    assert build.build(pack, build.BuildOptions(out, code=build.Code(True))).errors == []
    pdf = pypdfium2.PdfDocument(str(out / "turn" / "turn-en.pdf"))
    first = len(pdf) - 2
    dpi = 100
    px = dpi / 25.4

    def colour(index: int, x_mm: float, y_mm: float) -> tuple:
        image = pdf[index].render(scale=dpi / 72).to_pil().convert("RGB")
        return image.getpixel((round(x_mm * px), round(y_mm * px)))

    mid = front.y + front.h / 2
    assert colour(first, front.x + front.w * 0.8, mid) == (255, 0, 0)
    assert colour(first, front.x + front.w * 0.2, mid) == (0, 0, 255)
    assert colour(first + 1, back.x + back.w * 0.2, mid) == (0, 255, 0)
    assert colour(first + 1, back.x + back.w * 0.8, mid) == (0, 0, 255)


def test_a_back_page_carries_only_the_marks_of_faces_with_backs():
    hexes_ = faces(21, (57.74, 50.0), "terrain", kind="hex")  # with backs
    tokens = faces(12, (22.0, 22.0), "tokens", kind="token", back=False)
    pages, _ = impose(hexes_ + tokens, PrintSettings(paper="a4"))
    front, back = pages[2], pages[3]
    assert len(front.lines) > 6 and [p.face.group for p in back.placements] == ["terrain"]
    assert len(back.lines) == 6  # the hex's edges, not the tokens' crop marks


def test_the_last_sheet_of_a_split_board_takes_other_faces_and_their_backs_register():
    board = faces(1, (400.0, 190.0), "board", kind="board")
    tokens = faces(30, (22.0, 22.0), "tokens", kind="token")
    s = PrintSettings(paper="a4", backs="long-edge")
    alone, _ = impose(board, s)
    pages, problems = impose(board + tokens, s)
    assert problems == []
    assert len(pages) == len(alone)  # the tokens took no sheet of their own (alone: 2 pages)
    *_, last, back = pages
    assert last.tile is not None and (last.tile.col, last.tile.cols) == (1, 2)
    part, *added = last.placements
    assert part.face.group == "board" and len(added) == 30
    assert last.tile.origin == pytest.approx(part.clip[:2])  # its marks moved with the part
    ink = ink_area(s, (last.w, last.h))
    room = mark_room(s)
    kept = (part.clip[0] - room, part.clip[1] - room, part.clip[2] + room, part.clip[3] + room)
    assert ink[0] <= kept[0] and ink[1] <= kept[1]  # the part's own marks stay off the margin
    for p in added:
        assert not segment_hits(rect(p), kept)
    for line in last.lines:  # the tokens' crop marks, inside the ink area, off the part
        assert ink[0] <= min(line[0], line[2]) and max(line[0], line[2]) <= ink[2]
        assert ink[1] <= min(line[1], line[3]) and max(line[1], line[3]) <= ink[3]
        assert not segment_hits(line, part.clip)
    assert len(back.placements) == 31  # the board's part and every token's back, mirrored
    assert mirror_axis(s, (last.w, last.h)) == "y"  # landscape, long-edge flip
    for front, behind in zip(last.placements, back.placements):
        x1, y1, x2, y2 = rect(front)
        assert behind.face.item == front.face.item and behind.face.side == "back"
        assert rect(behind) == pytest.approx((x1, last.h - y2, x2, last.h - y1))


def test_blocks_show_bleed_between_them_only_where_both_marks_leave_room():
    face = faces(1, (20.0, 20.0), "t", back=False)[0]

    def apart(d: float) -> list[Placement]:
        a = Placement(face, 10.0, 10.0, (3.0,) * 4, 0)
        b = Placement(face, 30.0 + d, 10.0, (3.0,) * 4, 1)
        return part_bleeds([a, b], 3.5)

    a, b = apart(7.0)  # the two marks' room and no more: the edges between are butted edges
    assert a.reach == (3.0, 3.0, 0.0, 3.0) and b.reach == (0.0, 3.0, 3.0, 3.0)
    a, b = apart(10.0)
    assert a.reach[2] == b.reach[0] == pytest.approx(1.5)
    a, b = apart(20.0)
    assert a.reach == b.reach == (3.0,) * 4
    held = part_bleeds([Placement(face, 10.0, 10.0, (3.0,) * 4, 0)], 3.5, [(0, 0, 5, 40)])
    assert held[0].reach == (0.0, 3.0, 3.0, 3.0)  # 5 mm from another packer's content


@pytest.mark.parametrize("backs", ["long-edge", "gutter-fold"])
def test_faces_of_one_height_join_a_block_whose_cut_lines_cross_it_whole(backs):
    s = PrintSettings(paper="a4", backs=backs)
    made = faces(3, (16.0, 52.0), "men") + faces(2, (18.0, 52.0), "cylinders")
    pages, problems = impose(made, s)
    assert problems == []
    joined = 0
    for k, page in enumerate(pages):
        if page.side != "front":
            continue
        fronts = [p for p in page.placements if p.block < FOLD_BLOCKS]
        for block in Page(page.w, page.h, "front", fronts).blocks():
            joined += len({p.face.size for p in block}) > 1
            xs = {v for p in block for v in (p.x, p.x + p.w)}
            ys = {v for p in block for v in (p.y, p.y + p.h)}
            for p in block:  # every trim line of the block runs past every face, cutting none
                assert not any(p.x + 1e-6 < x < p.x + p.w - 1e-6 for x in xs)
                assert not any(p.y + 1e-6 < y < p.y + p.h - 1e-6 for y in ys)
        if backs == "gutter-fold":
            backs_on = [p for p in page.placements if p.block >= FOLD_BLOCKS]
            across = 2 * page.fold
        else:
            backs_on, across = pages[k + 1].placements, page.w
        assert len(backs_on) == len(fronts)
        for front, back in zip(fronts, backs_on):
            assert back.face.item == front.face.item
            want = (across - front.x - front.w, front.y, across - front.x, front.y + front.h)
            assert rect(back) == pytest.approx(want, abs=1e-9)
    assert joined == 1  # one block of both sizes: the fewest blocks to cut win


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_a_decks_sheets_copied_from_the_first_hold_what_a_new_sheet_would(paper):
    s = PrintSettings(paper=paper, backs="none")
    deck = faces(40, (63.5, 88.9), "cards", back=False) + faces(30, (41.0, 63.0), "m", back=False)
    pages, problems = pack_pages(deck, s, [])
    assert problems == [] and len(pages) >= 6
    for page in pages:
        alone = Sheet.around(blank_page((page.w, page.h), s), s)
        placed = [p.face for p in page.placements]
        for size in dict.fromkeys(f.size for f in placed):  # each size's run in turn
            run = [f for f in placed if f.size == size]
            assert alone.fill(run, s) == len(run)
        alone.finish(s)
        assert alone.page.placements == page.placements


SPLIT_ON_LETTER = [  # a sheet without `fit: shrink` is split on Letter (split.split_warning)
    f"'sheet{i}' (283x196mm with bleed) is split into 2 parts on letter; a4 paper holds it whole "
    "(--paper a4)"
    for i in range(4)
]


def test_parts_of_several_split_faces_share_a_sheet_and_their_backs_register():
    """Four 277 x 190 mm sheets on Letter: a part of each takes a whole sheet, and the four
    narrow parts left share one sheet (8 sheets before), each with its own marks' room clear of
    the others and of the margin; behind each part its back's part, mirrored."""
    sheets = faces(4, (277.0, 190.0), "sheet", kind="sheet")
    s = PrintSettings(paper="letter", backs="long-edge", overlap=12.0)
    pages, problems = impose(sheets, s)
    assert [p.message for p in problems] == SPLIT_ON_LETTER  # warned: A4 holds each whole
    fronts = [(n, page) for n, page in enumerate(pages) if page.side == "front"]
    assert sorted(len(page.parts) for _, page in fronts) == [1, 1, 1, 1, 4]
    n, shared = next((n, page) for n, page in fronts if len(page.parts) == 4)
    assert part_names(shared) == [f"sheet{i}: sheet A2 of 1x2" for i in range(4)]
    ink, room = ink_area(s, (shared.w, shared.h)), mark_room(s)
    kept = []
    for part in shared.parts:
        assert part.tile.origin == pytest.approx(part.clip[:2])  # its marks go with it
        left, top, right, bottom = part.clip
        box = (left - room, top - room, right + room, bottom + room)
        # marks are cut short at the ink area; at the foot they may be FOOTER_SHARED shorter
        assert ink[0] <= box[0] and ink[1] <= box[1] and box[2] <= ink[2]
        assert box[3] <= ink[3] + FOOTER_SHARED + 1e-9
        assert not any(overlaps(box, other) for other in kept)
        kept.append(box)
    back = pages[n + 1]
    assert back.side == "back" and len(back.placements) == 4
    for front, behind in zip(shared.parts, back.placements):
        assert behind.face.side == "back" and behind.face.item == front.face.item
        left, top, right, bottom = front.clip
        if mirror_axis(s, (shared.w, shared.h)) == "x":
            assert behind.clip == pytest.approx((shared.w - right, top, shared.w - left, bottom))
            assert behind.x == pytest.approx(shared.w - front.x - front.w)
        else:
            assert behind.clip == pytest.approx((left, shared.h - bottom, right, shared.h - top))
            assert behind.y == pytest.approx(shared.h - front.y - front.h)


def test_parts_of_split_faces_keep_a_sheet_each_with_gutter_fold():
    """Gutter-fold's back of a split face is a sheet of its own taped to its front's edge, so
    its parts never share (nor take other faces)."""
    sheets = faces(4, (277.0, 190.0), "sheet", kind="sheet")
    s = PrintSettings(paper="letter", backs="gutter-fold", overlap=12.0)
    pages, problems = impose(sheets, s)
    assert [p.message for p in problems] == SPLIT_ON_LETTER
    fronts = [page for page in pages if page.side == "front"]
    assert [len(page.parts) for page in fronts] == [1] * 8


def test_landscape_splits_are_tried_only_where_they_take_as_many_sheets():
    """Packing again with landscape-first splits costs as much as the packing itself: only a face
    that splits over as many portrait as landscape sheets (277 x 190 mm on Letter: two either
    way) is worth it; a 380 x 270 mm map on A4 takes 2 portrait sheets but 4 landscape ones."""
    sheet = faces(1, (277.0, 190.0), "sheet", kind="sheet", back=False)
    board = faces(1, (380.0, 270.0), "board", kind="board", back=False)
    assert splits(sheet, PrintSettings(paper="letter"))
    assert not splits(board, PrintSettings(paper="a4"))
    assert not splits(sheet, PrintSettings(paper="letter", orientation="portrait"))
