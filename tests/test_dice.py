"""Dice for every game: cube nets that fold, glue tabs on the right edges, `items_from`, the net
packer."""

from __future__ import annotations

import pytest

from conftest import ROOT, write_pack
from pnpkit.build.pipeline import validate
from pnpkit.impose.page import FOOTER
from pnpkit.kinds import dice
from pnpkit.pack.schema import load_pack
from registered import impose

CROSS = dice.NETS["cross"]
MLEM_DIE = ([1, 2, 2, 3, 4, "afterburner"], [[1, 2], [2, 4], [3, "afterburner"]])


def free_hexominoes() -> list[tuple]:
    """Every hexomino once (up to rotation and reflection), as sorted cells from (0, 0)."""

    def normal(cells):
        forms = []
        for fx, fy, swap in [(a, b, s) for a in (1, -1) for b in (1, -1) for s in (False, True)]:
            moved = [((y, x) if swap else (x, y)) for x, y in cells]
            moved = [(fx * x, fy * y) for x, y in moved]
            mx, my = min(x for x, _ in moved), min(y for _, y in moved)
            forms.append(tuple(sorted((x - mx, y - my) for x, y in moved)))
        return min(forms)

    shapes = {((0, 0),)}
    for _ in range(5):
        shapes = {
            normal(s + (n,))
            for s in shapes
            for x, y in s
            for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1))
            if n not in s
        }
    return sorted(shapes)


def folds_into_cube(cells) -> bool:
    try:
        dice.fold(cells)
        return True
    except dice.DieError:
        return False


CUBE_NETS = [h for h in free_hexominoes() if folds_into_cube(h)]


class TestFolding:
    def test_exactly_the_eleven_cube_nets_fold(self):
        assert len(free_hexominoes()) == 35
        assert len(CUBE_NETS) == 11

    @pytest.mark.parametrize("cells", CUBE_NETS)
    def test_every_free_edge_is_in_exactly_one_of_seven_seams(self, cells):
        pairs = dice.seams(cells)
        assert len(pairs) == 7
        edges = [e for pair in pairs for e in pair]
        free = [
            (c, d)
            for c in cells
            for d, (dx, dy) in dice.DIRS.items()
            if (c[0] + dx, c[1] + dy) not in cells
        ]
        assert sorted(edges) == sorted(free) and len(free) == 14

    @pytest.mark.parametrize("cells", CUBE_NETS)
    def test_edges_meeting_at_an_inner_corner_are_one_seam(self, cells):
        """Three squares round a vertex leave a 90 degree gap that closes: its two edges are
        glued together."""
        pairs = {frozenset(p) for p in dice.seams(cells)}
        cells = set(cells)
        for x, y in cells:
            for dx, dy in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
                a, b = (
                    (x + dx, y),
                    (x, y + dy),
                )  # an L of three squares: (x, y), a, and the corner (x+dx, y+dy)
                if a in cells and (x + dx, y + dy) in cells and b not in cells:
                    edge_of_xy = ((x, y), {1: "down", -1: "up"}[dy])
                    edge_of_corner = ((x + dx, y + dy), {1: "left", -1: "right"}[dx])
                    assert frozenset((edge_of_xy, edge_of_corner)) in pairs

    @pytest.mark.parametrize(
        "cells",
        [
            ((0, 0), (1, 0), (0, 1), (1, 1), (2, 0), (3, 0)),  # a 2x2 block
            ((0, 0), (1, 0), (2, 0), (3, 0), (4, 0), (5, 0)),  # a row
            ((0, 0), (2, 0), (1, 1), (1, 2), (1, 3), (1, 4)),
        ],
    )  # not joined
    def test_shapes_that_are_not_cube_nets_are_refused(self, cells):
        with pytest.raises(dice.DieError):
            dice.fold(cells)


class TestTabs:
    def test_the_cross_has_its_tabs_where_a_paper_die_has_them(self):
        # squares: T(1,0) over F(1,1); L(0,1) F R(2,1) B(3,1) in a row; D(1,2) under F
        assert sorted(dice.tab_edges(CROSS)) == sorted(
            [
                ((0, 1), "up"),  # L's top meets T's left: tab inside the cross's box
                ((2, 1), "up"),  # R's top meets T's right
                ((3, 1), "up"),  # B's top meets T's top (T's top would stick out)
                ((1, 2), "left"),  # D's left meets L's bottom
                ((1, 2), "right"),  # D's right meets R's bottom
                ((3, 1), "down"),  # B's bottom meets D's bottom
                ((3, 1), "right"),  # B's right meets L's left: the one tab outside the 4x3 box
            ]
        )

    @pytest.mark.parametrize("cells", CUBE_NETS)
    def test_one_tab_per_seam_and_no_two_tabs_in_one_gap(self, cells):
        tabs = dice.tab_edges(cells)
        pairs = dice.seams(cells)
        assert all(sum(e in pair for e in tabs) == 1 for pair in pairs)
        gaps = [(c[0] + dice.DIRS[d][0], c[1] + dice.DIRS[d][1]) for c, d in tabs]
        assert len(set(gaps)) == len(gaps)
        assert not set(gaps) & set(cells)


class TestNet:
    def net(self, face=(69, 48), side=16, tab=5, faces=MLEM_DIE):
        return dice.die_net({"w": face[0], "h": face[1]}, *faces, side, tab)

    def test_size_of_the_cross(self):
        assert dice.die_net_size(16, 5) == (69.0, 48.0)
        assert dice.die_net_size(25, 7) == (107.0, 75.0)
        assert dice.die_net_size(16, 5, "column") == (48.0, 69.0)

    def test_opposite_pairs_land_on_opposite_squares(self):
        net = self.net()
        at = {f.cell: f.value for f in net.faces}
        # in a cross, T/D, L/R and F/B face each other once folded
        assert {at[(1, 0)], at[(1, 2)]} == {1, 2}
        assert {at[(0, 1)], at[(2, 1)]} == {2, 4}
        assert {at[(1, 1)], at[(3, 1)]} == {3, "afterburner"}
        for i, f in enumerate(net.faces):
            assert net.faces[f.opposite].opposite == i and f.opposite != i

    def test_geometry_in_the_face(self):
        net = self.net(face=(75, 52))
        assert (net.x, net.y, net.w, net.h) == (3.0, 2.0, 69.0, 48.0)
        assert all(f.size == 16 for f in net.faces)
        assert len(net.folds) == 5 and len(net.tabs) == 7
        assert len(net.cuts) == 7 + 7 * 3  # free edges without a tab, and three sides of each tab
        x1, y1, x2, y2 = net.folds[0]  # T's bottom edge, shared with F
        assert {(x1, y1), (x2, y2)} == {(19.0, 18.0), (35.0, 18.0)}
        assert net.tab_points(0).count(",") == 4

    def test_tab_corners_are_cut_at_45_degrees(self):
        net = self.net()
        for a, b, c, d in net.tabs:
            assert abs(abs(b[0] - a[0]) - abs(b[1] - a[1])) < 1e-9
            assert abs(abs(c[0] - d[0]) - abs(c[1] - d[1])) < 1e-9

    @pytest.mark.parametrize(
        "args, message",
        [
            (
                dict(faces=([1, 2, 2, 3, 4, 5], [[1, 2], [2, 4], [3, 6]])),
                "the opposite pairs use the faces ['1', '2', '2', '3', "
                "'4', '6'], but the die has ['1', '2', '2', '3', '4', '5']",
            ),
            (
                dict(faces=([1, 2, 3, 4, 5, 6], [[1, 6], [2, 5]])),
                "'opposite' must be three pairs of faces, "
                "such as [[1, 6], [2, 5], [3, 4]] (got a list)",
            ),
            (dict(faces=([1, 2, 3], [[1, 2]])), "a die for a cube net needs 6 faces (got a list)"),
            (
                dict(tab=7),
                "a glue tab must be deeper than 0 and at most 0.4 x the side (6.4 mm; got 7 mm)",
            ),
            (
                dict(face=(60, 48)),
                "a net of 16 mm squares with 5 mm tabs needs 69x48mm, but the face is 60x48mm",
            ),
        ],
    )
    def test_what_cannot_be_made_is_said(self, args, message):
        with pytest.raises(dice.DieError) as exc:
            self.net(**args)
        assert str(exc.value) == message

    def test_unknown_layout(self):
        with pytest.raises(
            dice.DieError, match="unknown net layout 'star' \\(known: cross, column\\)"
        ):
            dice.die_net_size(16, 5, "star")


# ------------------------------------------------------------------ a small pack of dice

GAME = """name: Dice probe
languages: [en]
players: {min: 1, max: 4}
checks:
  - {rule: die-opposites, id: D1, group: dice, field: faces, opposite: opposite}
"""
DICE = """dice:
  kind: die
  size: 69x48mm
  bleed: 0mm
  front: net.svg.j2
  fields:
    faces: {type: list, item: int}
    opposite: {type: list, item: {type: list, item: int}}
  items:
    - {id: d1, count: COUNT, faces: [1, 2, 3, 4, 5, 6], opposite: [[1, 6], [2, 5], [3, 4]]}
stickers:
  kind: token
  size: 30x20mm
  items_from: dice
  front: sticker.svg.j2
"""
NET = """{% extends "_face.svg.j2" %}{% block content %}
{% set net = die_net(face, item.faces, item.opposite, 16, 5) %}
{% for i in range(net.tabs | length) %}<polygon points="{{ net.tab_points(i) }}" fill="#cccccc"/>{% endfor %}
<path d="{{ net.cut_path }}" stroke="#000000" stroke-width="0.3"/>{% endblock %}
"""  # noqa: E501 (data: markup and YAML kept as written)
STICKER = """{% extends "_face.svg.j2" %}{% block content %}
{% for a, b in die_pairs(item.faces, item.opposite) %}<rect x="{{ loop.index0 * 10 }}" y="0" width="{{ a + b }}" height="1" fill="#000000"/>{% endfor %}
{{ text_box(item.id, 4, 5, 22, 10) }}{% endblock %}
"""  # noqa: E501 (data: markup and YAML kept as written)


def dice_pack(root, count=1, dice_yaml=DICE, game=GAME):
    return write_pack(
        root / "probe",
        {
            "game.yaml": game,
            "dice.yaml": dice_yaml.replace("COUNT", str(count)),
            "templates/net.svg.j2": NET,
            "templates/sticker.svg.j2": STICKER,
            "templates/_face.svg.j2": (ROOT / "src/pnpkit/templates" / "_face.svg.j2").read_text(),
        },
    )


def lines(root) -> list[str]:
    return [str(p).split("probe/", 1)[-1] for p in validate(root).problems]


class TestItemsFrom:
    def test_a_group_reuses_another_groups_items_with_its_own_size_and_templates(self, tmp_path):
        pack, problems = load_pack(dice_pack(tmp_path, count=3))
        assert problems == []
        stickers = pack.groups["stickers"]
        assert [i.id for i in stickers.items] == ["d1"] and stickers.total == 3
        item = stickers.items[0]
        assert item.group == "stickers" and item.templates == {"front": "sticker.svg.j2"}
        assert item.fields == pack.groups["dice"].items[0].fields
        assert stickers.size == (30.0, 20.0) and stickers.fields == pack.groups["dice"].fields
        assert (
            item.where == pack.groups["dice"].items[0].where
        )  # problems with a sticker point at the die
        assert str(item.template_where["front"]).endswith("dice.yaml:15:10")
        result = validate(pack.root)
        assert result.problems == []
        assert [(f.group, f.side) for f in result.faces["en"]] == [
            ("dice", "front"),
            ("stickers", "front"),
        ]

    @pytest.mark.parametrize(
        "edit, expected",
        [
            (
                "items_from: dcie",
                [
                    "dice.yaml:14:15: error: group 'stickers' takes its items from "
                    "'dcie', which is not a group (did you mean 'dice'?) [schema]"
                ],
            ),
            (
                "items_from: dice\n  items: []",
                [
                    "dice.yaml:15:3: error: group 'stickers' takes its items "
                    "and fields from 'dice'; it cannot have 'items' too [schema]"
                ],
            ),
            (
                "items_from: dice\n  fields: {a: int}",
                [
                    "dice.yaml:15:3: error: group 'stickers' takes its items "
                    "and fields from 'dice'; it cannot have 'fields' too [schema]"
                ],
            ),
            (
                "items_from: 3",
                ["dice.yaml:14:15: error: 'items_from' must be a string (got int 3) [schema]"],
            ),
        ],
    )
    def test_mistakes_are_located(self, tmp_path, edit, expected):
        assert (
            lines(dice_pack(tmp_path, dice_yaml=DICE.replace("items_from: dice", edit))) == expected
        )

    def test_no_chains(self, tmp_path):
        more = (
            DICE + "again:\n  kind: token\n  size: 30x20mm\n  "
            "items_from: stickers\n  front: sticker.svg.j2\n"
        )
        assert lines(dice_pack(tmp_path, dice_yaml=more)) == [
            "dice.yaml:19:15: error: group 'again' takes its items from "
            "'stickers', which takes its own items from another group [schema]"
        ]


class TestDieOpposites:
    def test_fires_on_pairs_that_are_not_the_faces(self, tmp_path):
        root = dice_pack(
            tmp_path, dice_yaml=DICE.replace("[[1, 6], [2, 5], [3, 4]]", "[[1, 6], [2, 5], [3, 3]]")
        )
        assert lines(root) == [
            "dice.yaml:10:7: error: template 'net.svg.j2' line 2: "
            "DieError: the opposite pairs use the faces ['1', '2', "
            "'3', '3', '5', '6'], but the die has ['1', '2', '3', "
            "'4', '5', '6'] (rendering the front of 'd1') [template]",
            "dice.yaml:10:7: error: template 'sticker.svg.j2' line "
            "2: DieError: the opposite pairs use the faces ['1', '2', "
            "'3', '3', '5', '6'], but the die has ['1', '2', '3', "
            "'4', '5', '6'] (rendering the front of 'd1') [template]",
            "dice.yaml:10:63: error: die 'd1': the opposite "
            "pairs use the faces ['1', '2', '3', '3', '5', '6'], "
            "but the die has ['1', '2', '3', '4', '5', '6'] [D1]",
        ]


class TestNetPacker:
    def pages(self, tmp_path, count):
        result = validate(dice_pack(tmp_path, count=count))
        # the nets' last sheet holds 2 nets beside a sheet of 10 nets and the stickers: reported
        assert [p.message[:41] for p in result.problems] == [
            "imposed sheet 2 of 2 (dice 2) is 12% cove"
        ]
        pages, problems = impose(
            [f for f in result.faces["en"] if f.group == "dice"], result.pack.print
        )
        return [
            p for p in pages if p.side == "front"
        ], problems  # the blank backs keep duplex sheets paired

    def test_nets_are_spaced_and_packed_without_grid_crop_marks(self, tmp_path):
        pages, problems = self.pages(tmp_path, 12)
        assert problems == [] and len(pages) == 2  # the nets alone: nothing else to share with
        assert [len(p.placements) for p in pages] == [10, 2]  # A4 portrait: 2 across, 5 down
        page = pages[0]
        assert page.packed and (page.w, page.h) == (210, 297)
        xs = sorted({round(p.x, 3) for p in page.placements})
        ys = sorted({round(p.y, 3) for p in page.placements})
        assert xs[1] - xs[0] == pytest.approx(69 + dice.NET_GAP)
        assert ys[1] - ys[0] == pytest.approx(48 + dice.NET_GAP)
        # centred between the margins, and above the page's label
        assert xs[0] - 0 == pytest.approx(210 - (xs[-1] + 69))
        assert ys[0] - page.ink[1] == pytest.approx(page.ink[3] - (ys[-1] + 48))
        assert page.ink[1] == 5 and page.ink[3] == pytest.approx(297 - 5 - FOOTER)

    def test_each_group_of_nets_starts_a_page(self, tmp_path):
        big = DICE.replace(
            "stickers:\n  kind: token\n  size: 30x20mm", "big:\n  kind: die\n  size: 69x48mm"
        )
        result = validate(
            dice_pack(tmp_path, dice_yaml=big.replace("sticker.svg.j2", "net.svg.j2"))
        )
        pages, _ = impose(result.faces["en"], result.pack.print)
        assert [
            [p.face.group for p in page.placements] for page in pages if page.side == "front"
        ] == [["dice"], ["big"]]

    def test_a_net_larger_than_the_paper_is_a_problem(self, tmp_path):
        huge = DICE.replace("size: 69x48mm", "size: 400x300mm")
        result = validate(dice_pack(tmp_path, dice_yaml=huge))
        pages, problems = impose(
            [f for f in result.faces["en"] if f.group == "dice"], result.pack.print
        )
        assert pages == []
        assert [str(p).split("probe/", 1)[-1] for p in problems] == [
            "dice.yaml:10:7: error: the die net of 'd1' "
            "(400x300mm) does not fit on a4 paper [layout]"
        ]


def test_each_tab_polygon_stands_on_the_edge_it_is_listed_with():
    net = dice.die_net({"w": 69, "h": 48}, *MLEM_DIE, 16, 5)
    for (cell, direction), poly in zip(net.tab_edges, net.tabs):
        dx, dy = dice.DIRS[direction]
        tip = (
            (poly[1][0] + poly[2][0]) / 2,
            (poly[1][1] + poly[2][1]) / 2,
        )  # the middle of the tab's outer side
        centre = (
            net.x + (cell[0] + 0.5) * 16,
            net.y + (cell[1] + 0.5) * 16,
        )  # the net's grid starts at its box here
        assert (tip[0] - centre[0], tip[1] - centre[1]) == pytest.approx(
            (dx * (8 + 5), dy * (8 + 5))
        )
