"""Hex tiles: the geometry, the packer (edge to edge, shared cut lines, bleed only outside), the
PDF."""

from __future__ import annotations

import math

import pypdfium2
import pytest

from conftest import ROOT, write_pack
from pnpkit.commands.cli import main
from pnpkit.errors import Location
from pnpkit.impose.page import FOOTER
from pnpkit.kinds import hexes
from pnpkit.pack.model import Face, PrintSettings
from registered import REGISTRY, impose

HERE = Location("hexes.yaml", 3, 5)
FLAT = 50.0
SIDE = FLAT / math.sqrt(3)
FLAT_TOP = (round(2 * SIDE, 2), FLAT)  # 57.74 x 50
POINTY_TOP = FLAT_TOP[::-1]


def hex_faces(
    n: int, size=FLAT_TOP, back: bool = True, bleed: float = 3.0, group: str = "hexes"
) -> list[Face]:
    out = []
    for i in range(n):
        out.append(Face(group, f"{group}{i}", "front", 1, size, bleed, "hex", f"<f{i}>", HERE))
        if back:
            out.append(Face(group, f"{group}{i}", "back", 1, size, bleed, "hex", "<back>", HERE))
    return out


def centre(p) -> tuple[float, float]:
    return p.x + p.w / 2, p.y + p.h / 2


def dist(a, b) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


def flat(rows) -> list[float]:
    return [v for row in rows for v in row]


def neighbours(placements):
    """Pairs of placements whose centres lie one flat apart: they must share an edge."""
    return [
        (a, b)
        for i, a in enumerate(placements)
        for b in placements[i + 1 :]
        if abs(dist(centre(a), centre(b)) - FLAT) < 1e-6
    ]


class TestGeometry:
    def test_size_is_the_box_around_the_hex(self):
        assert hexes.shape_of(FLAT_TOP) == hexes.HexShape(50.0, pointy=False)
        assert hexes.shape_of(POINTY_TOP) == hexes.HexShape(50.0, pointy=True)
        assert hexes.shape_of(FLAT_TOP).corner == pytest.approx(57.735, abs=1e-3)

    def test_a_box_of_the_wrong_proportions_is_refused_with_the_right_size(self):
        with pytest.raises(hexes.HexSizeError) as exc:
            hexes.shape_of((50, 50))
        assert str(exc.value) == (
            "a hex 50x50mm is not regular: 50mm across the flats is 57.74mm across the corners "
            "(size is the box around the hex: write 57.74x50mm)"
        )

    @pytest.mark.parametrize("pointy", [False, True])
    def test_corners_make_a_regular_hex_of_the_given_flat(self, pointy):
        pts = hexes.corners(10, 20, FLAT, pointy)
        sides = [dist(pts[k], pts[(k + 1) % 6]) for k in range(6)]
        assert sides == pytest.approx([SIDE] * 6)
        assert dist(pts[0], pts[3]) == pytest.approx(2 * SIDE)  # across the corners
        mid = [((pts[k][0] + pts[k + 1][0]) / 2, (pts[k][1] + pts[k + 1][1]) / 2) for k in (0, 3)]
        assert dist(*mid) == pytest.approx(FLAT)  # across the flats
        ys = [y for _, y in pts]
        assert max(ys) - min(ys) == pytest.approx(2 * SIDE if pointy else FLAT)

    def test_inset_moves_every_edge_in_by_that_much(self):
        pts = hexes.corners(0, 0, FLAT, False, inset=2)
        assert max(y for _, y in pts) == pytest.approx(FLAT / 2 - 2)

    def test_template_helpers_are_registered(self):
        helpers = REGISTRY.helpers
        for name in ("hex_corners", "hex_points", "hex_info", "face_hex"):
            assert name in helpers
        face = {"w": FLAT_TOP[0], "h": FLAT_TOP[1]}
        assert helpers["face_hex"](face).split()[0] == f"{FLAT_TOP[0] / 2 + SIDE:.3f},25.000"
        assert helpers["hex_info"](face)["flat"] == 50.0


class TestPacker:
    def test_twenty_50mm_hexes_per_a4_page(self):
        pages, problems = impose(hex_faces(61, back=False), PrintSettings(paper="a4", backs="none"))
        assert problems == []
        assert [len(p.placements) for p in pages] == [20, 20, 20, 1]
        assert all(p.packed and (p.w, p.h) == (210, 297) for p in pages)

    def test_pointy_hexes_take_the_orientation_that_holds_more(self):
        pages, _ = impose(
            hex_faces(20, size=POINTY_TOP, back=False), PrintSettings(paper="a4", backs="none")
        )
        assert [(p.w, p.h, len(p.placements)) for p in pages] == [(297, 210, 20)]

    @pytest.mark.parametrize("size", [FLAT_TOP, POINTY_TOP])
    def test_neighbours_share_whole_edges(self, size):
        page = impose(hex_faces(20, size=size, back=False), PrintSettings())[0][0]
        pairs = neighbours(page.placements)
        assert len(pairs) == 43  # 4 columns of 5, nested: 4 x 4 within columns + 3 x 9 between them
        for a, b in pairs:
            shared = [
                p
                for p in hexes.corners(*centre(a), FLAT, size == POINTY_TOP)
                if any(
                    dist(p, q) < 1e-6 for q in hexes.corners(*centre(b), FLAT, size == POINTY_TOP)
                )
            ]
            assert len(shared) == 2

    def test_tiles_are_the_set_size_and_inside_the_margins_bleed_included(self):
        s = PrintSettings(margin=5)
        page = impose(hex_faces(20, back=False), s)[0][0]
        assert page.ink == pytest.approx((5, 5, 205, 297 - 5 - FOOTER))
        for p in page.placements:
            assert (p.w, p.h) == FLAT_TOP
            xs, ys = [x for x, _ in p.outline], [y for _, y in p.outline]
            assert (
                min(xs) >= 5 - 1e-6
                and max(xs) <= 205 + 1e-6
                and min(ys) >= 5 - 1e-6
                and max(ys) <= page.ink[3] + 1e-6
            )

    @pytest.mark.parametrize(
        "count, bleed", [(7, 3), (20, 1.5)]
    )  # 20 fit a page only with half the bleed outside
    def test_outline_grows_by_the_bleed_only_where_no_neighbour_is(self, count, bleed):
        page = impose(hex_faces(count, back=False, bleed=3), PrintSettings())[0][0]
        assert len(page.placements) == count
        taken = [centre(p) for p in page.placements]
        for p in page.placements:
            c = centre(p)
            for angle in (30, 90, 150, 210, 270, 330):  # edge normals of a flat-topped hex
                n = (math.cos(math.radians(angle)), math.sin(math.radians(angle)))
                reach = max((x - c[0]) * n[0] + (y - c[1]) * n[1] for x, y in p.outline)
                beside = (c[0] + FLAT * n[0], c[1] + FLAT * n[1])
                shared = any(dist(beside, t) < 1e-6 for t in taken)
                if shared:  # the outline stops on the shared cut line: neighbours never overlap
                    assert reach == pytest.approx(FLAT / 2), (p.face.item, angle)
                else:
                    assert reach >= FLAT / 2 + bleed - 1e-6, (p.face.item, angle)

    def test_cut_lines_are_every_edge_once(self):
        page = impose(hex_faces(20, back=False), PrintSettings())[0][0]
        assert len(page.lines) == 6 * 20 - 43
        edges = set()
        for p in page.placements:
            pts = hexes.corners(*centre(p), FLAT)
            for k in range(6):
                edges.add(
                    frozenset(
                        (
                            tuple(round(v, 6) for v in pts[k]),
                            tuple(round(v, 6) for v in pts[(k + 1) % 6]),
                        )
                    )
                )
        drawn = {
            frozenset(((round(x1, 6), round(y1, 6)), (round(x2, 6), round(y2, 6))))
            for x1, y1, x2, y2 in page.lines
        }
        assert drawn == edges

    def test_backs_mirror_outlines_and_cut_lines(self):
        front, back = impose(hex_faces(7), PrintSettings(backs="long-edge"))[0][:2]
        assert back.side == "back" and len(back.placements) == 7
        for f, b in zip(front.placements, back.placements):
            assert flat(b.outline) == pytest.approx(flat((210 - x, y) for x, y in f.outline))
        assert flat(back.lines) == pytest.approx(
            flat((210 - x1, y1, 210 - x2, y2) for x1, y1, x2, y2 in front.lines)
        )

    def test_gutter_fold_keeps_fronts_left_of_the_fold(self):
        pages, _ = impose(hex_faces(12), PrintSettings(backs="gutter-fold"))
        page = pages[0]
        fronts = [p for p in page.placements if p.face.side == "front"]
        backs = [p for p in page.placements if p.face.side == "back"]
        assert len(fronts) == len(backs) > 0
        assert max(x for p in fronts for x, _ in p.outline) <= page.fold - 5 + 1e-6
        assert min(x for p in backs for x, _ in p.outline) >= page.fold + 5 - 1e-6

    def test_each_size_starts_a_page_of_its_own(self):
        faces = hex_faces(3, back=False) + hex_faces(2, size=(46.19, 40), back=False, group="small")
        pages, problems = impose(faces, PrintSettings(backs="none"))
        assert [len(p.placements) for p in pages] == [3, 2]
        # two near-empty sheets in a kit of two groups: each reported (fill.check), no error
        assert [(p.message[:28], p.level) for p in problems] == [
            ("imposed sheet 1 of 2 (hexes ", "warning"),
            ("imposed sheet 2 of 2 (small ", "warning"),
        ]

    def test_irregular_hex_is_a_located_problem(self):
        pages, problems = impose(hex_faces(2, size=(50, 50), back=False), PrintSettings())
        assert pages == []
        assert [str(p) for p in problems] == [
            "hexes.yaml:3:5: error: hex 'hexes': a hex 50x50mm "
            "is not regular: 50mm across the flats is 57.74mm "
            "across the corners (size is the box around the hex: write 57.74x50mm) [layout]"
        ]

    def test_hex_larger_than_the_paper_is_a_located_problem(self):
        _, problems = impose(hex_faces(1, size=(346.41, 300), back=False), PrintSettings())
        assert [str(p) for p in problems] == [
            "hexes.yaml:3:5: error: hex 'hexes0' (300mm across the flats, "
            "3mm bleed) does not fit on a4 paper inside 5mm margins [layout]"
        ]


# ---------------------------------------------------------------- the PDF, rasterised

HEX = """{% extends "_face.svg.j2" %}{% block content %}
<rect x="{{ -face.bleed }}" y="{{ -face.bleed }}" width="{{ face.w + 2 * face.bleed }}" height="{{ face.h + 2 * face.bleed }}" fill="{{ item.colour }}"/>
<polygon points="{{ face_hex(face, 4) }}" fill="#ffffff"/>
{% endblock %}
"""  # noqa: E501 (data: markup and YAML kept as written)
DPI = 200
PX = DPI / 25.4


def hex_pack(root, n: int = 7):
    colours = ["#f4b6b6", "#b6d8f4", "#c6f0b8", "#f4e2a6", "#e0c0f0", "#b8eee6", "#f6cda8"]
    items = "\n".join(f"    - {{id: h{i}, colour: '{colours[i % 7]}'}}" for i in range(n))
    return write_pack(
        root,
        {
            "game.yaml": "name: Hexes\nlanguages: [en]\nplayers: "
            "{min: 1, max: 1}\nprint:\n  backs: none\n",
            "tiles.yaml": "tiles:\n  kind: hex\n  size: 57.74x50mm\n  front: "
            f"hex.svg.j2\n  fields:\n    colour: string\n  items:\n{items}\n",
            "templates/hex.svg.j2": HEX,
            "templates/_face.svg.j2": (ROOT / "src/pnpkit/templates" / "_face.svg.j2").read_text(),
        },
    )


@pytest.fixture(scope="module")
def hex_pdf(tmp_path_factory):
    """A built sheet of 7 hexes: (rasterised page, its layout page)."""
    from pnpkit.build.pipeline import validate

    tmp = tmp_path_factory.mktemp("hexes")
    root = hex_pack(tmp / "hexes")
    assert main(["build", str(root), "--out", str(tmp / "out")]) == 0
    result = validate(root)
    page = impose(result.faces["en"], result.pack.print)[0][0]
    pdf = pypdfium2.PdfDocument(str(tmp / "out" / "hexes" / "hexes-en.pdf"))
    image = pdf[1].render(scale=DPI / 72, no_smoothpath=True).to_pil().convert("RGB")
    return image, page


def px(image, x_mm: float, y_mm: float):
    return image.getpixel((round(x_mm * PX), round(y_mm * PX)))


def dark(pixel) -> bool:
    return sum(pixel) < 300


def dark_near(image, x_mm: float, y_mm: float) -> bool:
    x, y = round(x_mm * PX), round(y_mm * PX)
    return any(dark(image.getpixel((x + dx, y + dy))) for dx in (-1, 0, 1) for dy in (-1, 0, 1))


class TestHexPdf:
    def test_a_cut_line_on_every_edge_and_nothing_dark_beside_it(self, hex_pdf):
        image, page = hex_pdf
        for p in page.placements:
            pts = hexes.corners(*centre(p), FLAT)
            for k in range(6):
                (x1, y1), (x2, y2) = pts[k], pts[(k + 1) % 6]
                for t in (0.25, 0.5, 0.75):
                    assert dark_near(image, x1 + (x2 - x1) * t, y1 + (y2 - y1) * t), (
                        p.face.item,
                        k,
                        t,
                    )
            cx, cy = centre(p)
            assert not dark_near(image, cx, cy - FLAT / 2 + 1.5) and not dark_near(
                image, cx, cy - FLAT / 2 - 1.5
            )

    def test_tiles_measure_50mm_across_the_flats(self, hex_pdf):
        image, page = hex_pdf
        p = page.placements[0]
        cx, cy = centre(p)
        column = [
            y
            for y in range(round((cy - 30) * PX), round((cy + 30) * PX))
            if dark(image.getpixel((round(cx * PX), y)))
        ]
        top = [y for y in column if y < cy * PX]
        bottom = [y for y in column if y > cy * PX]
        across = (sum(bottom) / len(bottom) - sum(top) / len(top)) / PX
        assert across == pytest.approx(FLAT, abs=0.3)

    def test_neighbours_meet_with_no_gap_and_bleed_shows_only_outside(self, hex_pdf):
        image, page = hex_pdf
        colour = {p.face.item: p for p in page.placements}
        a, b = colour["h0"], colour["h1"]  # h1 stands under h0 in the first column
        ax, ay = centre(a)
        assert centre(b) == pytest.approx((ax, ay + FLAT))
        # each side of the shared edge shows its own tile's rim colour, right up to the line
        above, below = px(image, ax, ay + FLAT / 2 - 1), px(image, ax, ay + FLAT / 2 + 1)
        assert above == (0xF4, 0xB6, 0xB6) and below == (0xB6, 0xD8, 0xF4)
        # h0's top edge is free: its bleed shows beyond the cut line, then white paper
        assert px(image, ax, ay - FLAT / 2 - 1.5) == (0xF4, 0xB6, 0xB6)
        assert px(image, ax, ay - FLAT / 2 - 4) == (255, 255, 255)
