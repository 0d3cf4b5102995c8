"""Imposition maths: how many faces a sheet holds, where backs go, how blocks share a page."""

from __future__ import annotations

import pytest

from pnpkit.errors import Location
from pnpkit.impose.backs import mirror_axis
from pnpkit.impose.paper import mark_room
from pnpkit.pack.model import Face, PrintSettings
from registered import impose

HERE = Location("x.yaml", 1, 1)


def faces(n: int, size=(63.5, 88.9), group="cards", back=True, bleed=3.0):
    out = []
    for i in range(n):
        out.append(
            Face(group, f"{group}{i}", "front", 1, size, bleed, "card", f"<f{group}{i}>", HERE)
        )
        if back:
            out.append(Face(group, f"{group}{i}", "back", 1, size, bleed, "card", "<back>", HERE))
    return out


class TestGrid:
    def test_nine_poker_cards_per_a4_page(self):
        pages, problems = impose(faces(10), PrintSettings(paper="a4", backs="none"))
        assert problems == []
        assert [len(p.placements) for p in pages] == [9, 1]
        assert (pages[0].w, pages[0].h) == (210, 297)

    def test_eight_poker_cards_per_letter_page_butted(self):
        # 3 x 3 would need 266.7 mm of Letter's 279.4 mm inside 5 mm margins, leaving none for the
        # crop marks and the label, which the margin never takes: 4 x 2 on landscape instead
        pages, _ = impose(faces(9), PrintSettings(paper="letter", backs="none"))
        assert [len(p.placements) for p in pages] == [8, 1]
        assert (pages[0].w, pages[0].h) == (279.4, 215.9)

    def test_grid_is_centred_and_butted(self):
        pages, _ = impose(faces(9), PrintSettings(paper="a4", backs="none"))
        xs = sorted({round(p.x, 3) for p in pages[0].placements})
        ys = sorted({round(p.y, 3) for p in pages[0].placements})
        assert xs == pytest.approx([9.75, 73.25, 136.75])  # (210 - 190.5) / 2 and one card apart
        # centred between the top margin plus the marks' room (5 + 3.5) and the bottom one plus the
        # label (5 + 2.5 + 3.5)
        assert ys == pytest.approx(
            [8.5 + (297 - 8.5 - 11 - 266.7) / 2 + k * 88.9 for k in range(3)]
        )

    def test_bleed_shows_only_at_block_edges_when_butted(self):
        pages, _ = impose(faces(9), PrintSettings(paper="a4", backs="none", gap=0))
        corner, middle = pages[0].placements[0], pages[0].placements[4]
        # beside the block only (210 - 2 x 8.5 - 190.5) / 2 = 1.25 mm is left inside the margin and
        # the marks
        assert corner.reach == pytest.approx((1.25, 3, 0, 0))
        assert middle.reach == (0, 0, 0, 0)

    def test_gutters_show_half_the_gap_of_bleed(self):
        pages, _ = impose(faces(4), PrintSettings(paper="a4", backs="none", gap=2))
        assert pages[0].placements[0].reach == (3, 3, 1, 1)

    def test_a_short_last_row_shows_full_bleed_under_the_empty_places(self):
        pages, _ = impose(faces(5), PrintSettings(paper="a4", backs="none", gap=2))
        rows: dict[float, list] = {}
        for p in pages[0].placements:
            rows.setdefault(round(p.y, 3), []).append(p)
        full, short = (sorted(r, key=lambda p: p.x) for _, r in sorted(rows.items()))
        assert (len(full), len(short)) == (3, 2)  # a block of 3 columns, its second row short
        # (left, top, right, bottom): half the 2 mm gap towards a neighbour, all 3 mm elsewhere
        assert [p.reach for p in full] == [(3, 3, 1, 1), (1, 3, 1, 1), (1, 3, 3, 3)]
        assert [p.reach for p in short] == [(3, 1, 1, 3), (1, 1, 3, 3)]

    def test_landscape_chosen_when_it_holds_more(self):
        pages, _ = impose(faces(9, size=(88.9, 63.5)), PrintSettings(paper="a4", backs="none"))
        assert (pages[0].w, pages[0].h) == (297, 210)  # 3 x 3 instead of 2 x 4 on portrait
        assert len(pages[0].placements) == 9

    def test_face_larger_than_paper_is_split_over_overlapping_sheets(self):
        pages, problems = impose(
            faces(1, size=(300, 400), back=False),
            PrintSettings(paper="a4", overlap=12, backs="none"),
        )
        assert problems == []
        assert [(p.tile.name, p.w, p.h) for p in pages] == [
            ("A1", 210, 297),
            ("A2", 210, 297),
            ("B1", 210, 297),
            ("B2", 210, 297),
        ]
        a1, a2, b1 = pages[0].tile, pages[1].tile, pages[2].tile
        assert a1.window == pytest.approx(
            (0, 0, 193, 277.5)
        )  # inside 5 mm margins, the marks' room, the label
        assert a2.window[0] == a1.window[2] - 12  # neighbours share a 12 mm strip
        assert b1.window[1] == a1.window[3] - 12
        assert pages[3].tile.window[2:] == (306, 406)  # the last sheet reaches the far bleed edge

    def test_sizes_share_a_page_in_separate_blocks(self):
        mixed = faces(2, size=(40, 100), group="standee", back=False) + faces(
            2, size=(69.85, 120.65), group="ref"
        )
        pages, _ = impose(mixed, PrintSettings(paper="a4"))
        assert [p.side for p in pages] == ["front", "back"]
        blocks = pages[0].blocks()
        assert [len(b) for b in blocks] == [2, 2]
        gap = min(p.y for p in blocks[1]) - max(p.y + p.h for p in blocks[0])
        shown = max(p.reach[3] for p in blocks[0]) + max(p.reach[1] for p in blocks[1])
        # room for two rows of crop marks, plus the bleed either block shows on that side
        assert gap >= shown + 2 * mark_room(PrintSettings()) - 1e-9
        assert gap < 3 + 3 + 2 * mark_room(PrintSettings())  # blocks pack closer now


class TestBacks:
    def test_long_edge_portrait_mirrors_columns(self):
        pages, _ = impose(faces(9), PrintSettings(paper="a4", backs="long-edge"))
        front, back = pages
        for f, b in zip(front.placements, back.placements):
            assert b.face.item == f.face.item
            assert b.x == pytest.approx(210 - f.x - f.w)
            assert b.y == pytest.approx(f.y)

    def test_short_edge_portrait_mirrors_rows(self):
        pages, _ = impose(faces(9), PrintSettings(paper="a4", backs="short-edge"))
        front, back = pages
        for f, b in zip(front.placements, back.placements):
            assert b.x == pytest.approx(f.x)
            assert b.y == pytest.approx(297 - f.y - f.h)

    @pytest.mark.parametrize(
        "backs, page, axis",
        [
            ("long-edge", (210, 297), "x"),
            ("short-edge", (210, 297), "y"),
            ("long-edge", (297, 210), "y"),
            ("short-edge", (297, 210), "x"),
        ],
    )
    def test_flip_axis_names_swap_on_landscape(self, backs, page, axis):
        assert mirror_axis(PrintSettings(backs=backs), page) == axis

    def test_back_offset_shifts_backs_only(self):
        plain, _ = impose(faces(1), PrintSettings(backs="long-edge"))
        shifted, _ = impose(faces(1), PrintSettings(backs="long-edge", back_offset=(0.5, -1.0)))
        assert shifted[0].placements[0].x == plain[0].placements[0].x
        assert shifted[1].placements[0].x == pytest.approx(plain[1].placements[0].x + 0.5)
        assert shifted[1].placements[0].y == pytest.approx(plain[1].placements[0].y - 1.0)

    def test_backs_none_prints_fronts_only(self):
        pages, _ = impose(faces(9), PrintSettings(backs="none"))
        assert [p.side for p in pages] == ["front"]

    def test_gutter_fold_puts_backs_across_the_fold(self):
        pages, _ = impose(faces(4), PrintSettings(paper="a4", backs="gutter-fold"))
        assert len(pages) == 1
        page = pages[0]
        fronts = [p for p in page.placements if p.face.side == "front"]
        backs = [p for p in page.placements if p.face.side == "back"]
        assert len(fronts) == len(backs) == 4
        for f, b in zip(fronts, backs):
            assert f.x + f.w <= page.fold - 5 + 1e-9  # clear of the fold
            assert b.x == pytest.approx(2 * page.fold - f.x - f.w)
            assert b.y == pytest.approx(f.y)


class TestSplitFaceBacks:
    def test_each_sheet_of_a_split_face_is_followed_by_its_mirrored_back(self):
        pages, problems = impose(
            faces(1, size=(300, 400)), PrintSettings(paper="a4", backs="long-edge")
        )
        assert problems == []
        assert [(p.side, p.tile.name if p.tile else None) for p in pages] == [
            ("front", "A1"),
            ("back", None),
            ("front", "A2"),
            ("back", None),
            ("front", "B1"),
            ("back", None),
            ("front", "B2"),
            ("back", None),
        ]
        front, back = pages[0].placements[0], pages[1].placements[0]
        assert back.face.side == "back"
        left, top, right, bottom = front.clip
        assert back.clip == pytest.approx(
            (210 - right, top, 210 - left, bottom)
        )  # the window, mirrored across the page

    def test_gutter_fold_gives_a_split_face_back_sheets_to_fold_against_its_fronts(self):
        pages, problems = impose(
            faces(1, size=(300, 400)), PrintSettings(paper="a4", backs="gutter-fold")
        )
        assert problems == []
        assert [(p.side, p.fold_pair) for p in pages] == [("front", False), ("back", True)] * 4
        for front, back in zip(
            pages[::2], pages[1::2]
        ):  # mirrored across the sheet's edge: taped there, they fold
            left, top, right, bottom = front.placements[0].clip
            assert back.placements[0].clip == pytest.approx((210 - right, top, 210 - left, bottom))
            assert back.placements[0].face.side == "back"

    def test_gutter_fold_backs_a_face_too_wide_for_half_a_sheet(self):
        pages, problems = impose(
            faces(1, size=(190, 260)), PrintSettings(paper="a4", backs="gutter-fold")
        )
        assert problems == [] and [
            (p.side, p.fold_pair, p.tile.name if p.tile else None) for p in pages
        ] == [
            ("front", False, None),
            ("back", True, None),
        ]  # whole on a sheet of its own: not split


class TestDuplexParity:
    def test_a_front_page_without_backs_still_gets_its_blank_back_page(self):
        """Printed double-sided, page 2n is the back of page 2n-1: a missing back would put the next
        fronts on the back of this sheet."""
        mixed = faces(2, size=(40, 100), group="standee", back=False) + faces(9)
        pages, _ = impose(mixed, PrintSettings(paper="a4", backs="long-edge"))
        assert [p.side for p in pages] == ["front", "back"] * (len(pages) // 2)
        pages, _ = impose(faces(2, back=False), PrintSettings(paper="a4", backs="none"))
        assert [p.side for p in pages] == ["front"]
