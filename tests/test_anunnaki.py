"""The Anunnaki kit (seed 000): each ANU rule fires on a broken copy of the pack, the sheet prints
the movement table's data, and the built PDF has hexes on shared cut lines and a taped-together
map."""

from __future__ import annotations

import re

import pypdfium2
import pytest
from pypdf import PdfReader

from conftest import ROOT, Run, as_laid_out, but_overlap, kit_start, page_texts
from pnpkit.build.pipeline import validate
from pnpkit.commands.cli import main
from pnpkit.kinds import hexes
from pnpkit.pack.schema import load_pack
from pnpkit.pdf.marks import alignment_marks
from registered import impose

A = "components/anunnaki"


@pytest.fixture
def anu(reused):
    """A breakable copy of the Anunnaki kit (the module's one, put back after each test)."""
    return reused("anunnaki")


def rules(anu) -> Run:
    """A broken copy validated in Italian alone: its rules look at the pack, not a language
    (the clean kit is validated in both), and one language's faces take half the time."""
    return anu.run("validate", str(anu.pack), "--lang", "it")


def test_the_kit_is_clean(anu):
    run = anu.validate()
    assert (run.code, run.lines) == (0, [])


class TestCounts:
    def test_anu_c01_terrain_tiles(self, anu):
        anu.edit(
            f"{A}/hexes.yaml",
            "{id: water, terrain: water, count: 16}",
            "{id: water, terrain: water, count: 15}",
        )
        assert but_overlap(rules(anu).lines) == [
            f"{A}/game.yaml:130:5: error: group 'terrain-tiles' "
            "has 55 components; the game needs exactly 56 [ANU-C01]",
            f"{A}/game.yaml:131:74: error: group 'terrain-tiles' "
            "has 15 with terrain water; the game needs 16 [ANU-C01]",
            f"{A}/game.yaml:134:5: error: kind 'hex' has 60 components ('terrain-tiles' "
            "55, 'catastrophe-tiles' 5); the game needs exactly 61 [ANU-C03]",
        ]

    def test_anu_c02_one_of_each_catastrophe(self, anu):
        anu.edit(
            f"{A}/hexes.yaml",
            "{id: tsunami, catastrophe: tsunami}",
            "{id: tsunami, catastrophe: volcano}",
        )
        assert but_overlap(rules(anu).lines) == [
            f"{A}/game.yaml:133:82: error: group 'catastrophe-tiles' "
            "has 0 with catastrophe tsunami; the game needs 1 [ANU-C02]",
            f"{A}/game.yaml:133:82: error: group 'catastrophe-tiles' "
            "has 2 with catastrophe volcano; the game needs 1 [ANU-C02]",
        ]

    def test_anu_c03_sixty_one_hexes_in_all(self, anu):
        anu.edit(
            f"{A}/hexes.yaml",
            "catastrophe-tiles:\n",
            "spare-tiles:\n  kind: hex\n  size: 57.74x50mm\n"
            "  front: anunnaki/catastrophe-back.svg.j2\n  "
            "items:\n    - {id: spare}\n\ncatastrophe-tiles:\n",
        )
        assert but_overlap(rules(anu).lines) == [
            f"{A}/game.yaml:134:5: error: kind 'hex' has 62 "
            "components ('terrain-tiles' 56, 'spare-tiles' 1, "
            "'catastrophe-tiles' 5); the game needs exactly 61 [ANU-C03]"
        ]

    def test_anu_c04_pieces_per_colour(self, anu):
        anu.edit(
            f"{A}/pieces.yaml",
            "{id: man-red, colour: red, count: 5}",
            "{id: man-red, colour: red, count: 4}",
        )
        assert but_overlap(rules(anu).lines) == [
            f"{A}/game.yaml:135:5: error: group 'men' has "
            "4 red; every colour needs exactly 5 [ANU-C04]"
        ]

    def test_anu_c05_gold_and_the_start_on_mars(self, anu):
        anu.edit(f"{A}/tokens.yaml", "{id: gold, count: 40}", "{id: gold, count: 39}")
        anu.edit(f"{A}/map.yaml", "start: mars", "start: moon")
        anu.edit(f"{A}/map.yaml", "planets: [mars, ", "planets: [")
        assert but_overlap(rules(anu).lines) == [
            f"{A}/game.yaml:142:5: error: group 'gold' has 39 "
            "components; the game needs exactly 40 [ANU-C05]",
            f"{A}/map.yaml:15:16: error: the track of 'solar-map' "
            "has no mars; Nibiru starts there [ANU-C05]",
            f"{A}/map.yaml:16:14: error: 'solar-map' starts "
            "Nibiru on moon; the game starts it on mars [ANU-C05]",
        ]

    def test_anu_c06_a_sheet_per_colour(self, anu):
        anu.edit(f"{A}/sheets.yaml", "    - {id: sheet-yellow, colour: yellow}\n", "")
        assert but_overlap(rules(anu).lines) == [
            f"{A}/game.yaml:146:5: error: group 'sheets' has "
            "3 components; the game needs exactly 4 [ANU-C06]",
            f"{A}/game.yaml:147:5: error: group 'sheets' has "
            "0 yellow; every colour needs exactly 1 [ANU-C06]",
        ]


class TestSheetBoxes:
    """ANU-C06: every numbered piece has exactly one matching sheet box, and every box one piece."""

    def test_a_piece_without_a_box(self, anu):
        anu.edit(f"{A}/game.yaml", "    - {piece: shuttle, number: 3}\n", "")
        assert but_overlap(rules(anu).lines) == [
            f"{A}/pieces.yaml:{line}:{col}: error: piece 'shuttle-{colour}-3' "
            "(shuttle 3) has no box on the personal sheet [ANU-C06]"
            for line, col, colour in (
                (74, 50, "blue"),
                (77, 48, "red"),
                (80, 52, "green"),
                (83, 54, "yellow"),
            )
        ]

    def test_a_numbered_piece_beyond_the_boxes(self, anu):
        anu.edit(
            f"{A}/pieces.yaml",
            "    - {id: giant-blue-2, colour: blue, number: 2}\n",
            "    - {id: giant-blue-2, colour: blue, number: 2}\n "
            "   - {id: giant-blue-3, colour: blue, number: 3}\n",
        )
        assert but_overlap(rules(anu).lines) == [
            f"{A}/game.yaml:136:5: error: group 'giants' has "
            "3 blue; every colour needs exactly 2 [ANU-C04]",
            f"{A}/pieces.yaml:42:48: error: piece 'giant-blue-3' "
            "(giant 3) has no box on the personal sheet [ANU-C06]",
        ]

    def test_a_box_without_its_piece(self, anu):
        anu.edit(f"{A}/pieces.yaml", "    - {id: shuttle-red-2, colour: red, number: 2}\n", "")
        assert but_overlap(rules(anu).lines) == [
            f"{A}/game.yaml:116:128: warning: the spaceship carries "
            "12 gold, but 2.75 shuttles of 4 bring 11 [ANU-K04]",
            f"{A}/game.yaml:125:7: error: the red sheet's box for shuttle "
            "2 has 0 pieces in 'shuttles'; it needs exactly 1 [ANU-C06]",
            f"{A}/game.yaml:139:5: error: group 'shuttles' "
            "has 2 red; every colour needs exactly 3 [ANU-C04]",
        ]

    def test_two_boxes_for_one_piece_and_a_box_for_no_piece(self, anu):
        anu.edit(
            f"{A}/game.yaml",
            "    - {piece: giant, number: 2}\n",
            "    - {piece: giant, number: 2}\n    - {piece: "
            "giant, number: 1}\n    - {piece: gaint, number: 4}\n",
        )
        assert but_overlap(rules(anu).lines) == [
            f"{A}/game.yaml:124:7: error: the sheet has two "
            "boxes for giant 1 (boxes 3 and 5) [ANU-C06]",
            f"{A}/game.yaml:125:7: error: sheet box 6 is for 'gaint', which "
            "is not a piece of data.pieces (did you mean 'giant'?) [ANU-C06]",
        ]


class TestCapacities:
    def test_anu_k01_mammoth_carries_two(self, anu):
        anu.edit(
            f"{A}/game.yaml",
            "stop_with: stop_own_marker, capacity: 2}",
            "stop_with: stop_own_marker, capacity: 3}",
        )
        assert but_overlap(rules(anu).lines) == [
            f"{A}/game.yaml:113:164: error: a mammoth carries 3 gold; the game says 2 [ANU-K01]"
        ]

    def test_anu_k02_shuttle_carries_four(self, anu):
        anu.edit(
            f"{A}/game.yaml",
            "stop_with: stop_free_base, capacity: 4}",
            "stop_with: stop_free_base, capacity: 5}",
        )
        assert but_overlap(rules(anu).lines) == [
            f"{A}/game.yaml:115:124: error: a shuttle carries 5 gold; the game says 4 [ANU-K02]",
            f"{A}/game.yaml:116:128: warning: the spaceship carries "
            "12 gold, but 3 shuttles of 5 bring 15 [ANU-K04]",
        ]

    def test_anu_k03_spaceship_carries_twelve(self, anu):
        anu.edit(
            f"{A}/game.yaml",
            "stop_with: stop_free_base, capacity: 12}",
            "stop_with: stop_free_base, capacity: 10}",
        )
        assert but_overlap(rules(anu).lines) == [
            f"{A}/game.yaml:116:128: error: a spaceship "
            "carries 10 gold; the game says 12 [ANU-K03]",
            f"{A}/game.yaml:116:128: warning: the spaceship carries "
            "10 gold, but 3 shuttles of 4 bring 12 [ANU-K04]",
        ]

    def test_anu_k04_is_a_warning(self, anu):
        anu.edit(
            f"{A}/game.yaml",
            "stop_with: stop_free_base, capacity: 12}",
            "stop_with: stop_free_base, capacity: 16}",
        )
        anu.edit(f"{A}/game.yaml", "piece: spaceship, exact: 12}", "piece: spaceship, exact: 16}")
        run = rules(anu)
        assert run.lines == [
            f"{A}/game.yaml:116:128: warning: the spaceship carries "
            "16 gold, but 3 shuttles of 4 bring 12 [ANU-K04]"
        ]
        assert run.code == 0
        assert anu.run("validate", A, "--strict").code == 1

    def test_anu_k05_only_mammoths_and_giants_carry_gold_on_the_map(self, anu):
        anu.edit(
            f"{A}/game.yaml",
            "stop_with: stop_own_mammoth, capacity: 0}\n    mammoth",
            "stop_with: stop_own_mammoth, capacity: 1}\n    mammoth",
        )
        lines = rules(anu).lines
        assert lines[:2] == [
            f"{A}/game.yaml:112:157: error: a man carries 1 gold "
            "but the personal sheet has no box for it [ANU-T01]",
            f"{A}/game.yaml:112:157: error: a man carries 1 gold; only "
            "the mammoth and giant carry gold on the map [ANU-K05]",
        ]
        assert lines[2:] == [
            f"{A}/pieces.yaml:{n}:7: error: piece 'man-{c}' "
            "(man) has no box on the personal sheet [ANU-C06]"
            for n, c in ((15, "blue"), (16, "red"), (17, "green"), (18, "yellow"))
        ]


class TestMovementTable:
    def test_anu_t01_stop_only_where_a_piece_may_enter_and_known_terrains(self, anu):
        anu.edit(
            f"{A}/game.yaml",
            "enter: [water, desert, plain, forest, mountain]",
            "enter: [water, desert, plain, forest]",
        )
        anu.edit(
            f"{A}/game.yaml",
            "man: {group: men, moves: 1, enter: [desert, plain, forest]",
            "man: {group: men, moves: 1, enter: [desert, plain, forset]",
        )
        assert but_overlap(rules(anu).lines) == [
            f"{A}/game.yaml:112:56: error: 'man' may enter 'forset', which is "
            "not a terrain of data.terrains (did you mean 'forest'?) [ANU-T01]",
            f"{A}/game.yaml:112:87: error: 'man' may stop on forest but may not enter it [ANU-T01]",
            f"{A}/game.yaml:114:107: error: 'giant' may "
            "stop on mountain but may not enter it [ANU-T01]",
        ]

    def test_anu_t01_a_sheet_box_for_a_piece_that_carries_nothing(self, anu):
        anu.edit(
            f"{A}/game.yaml",
            "    - {piece: spaceship, number: 0}\n",
            "    - {piece: spaceship, number: 0}\n    - {piece: cylinder, number: 0}\n",
        )
        assert but_overlap(rules(anu).lines) == [
            f"{A}/game.yaml:111:168: error: the personal sheet has a "
            "gold box for 'cylinder', which carries no gold [ANU-T01]"
        ] + [
            f"{A}/game.yaml:128:7: error: the {c} sheet's box for cylinder "
            "has 2 pieces in 'cylinders'; it needs exactly 1 [ANU-C06]"
            for c in ("blue", "green", "red", "yellow")
        ]  # problems sort by place, then message

    def test_the_sheet_prints_the_same_data(self, anu):
        """A mammoth carrying 3 gets a third slot in both mammoth boxes and a 3 in the table."""

        def slots(svg: str) -> int:
            return svg.count('fill="#fbf3d6"')

        def gold_column(svg: str) -> list[str]:
            return re.findall(r'font-weight="bold"><tspan x="262\.000"[^>]*>(\d+)</tspan>', svg)

        assert anu.build("--lang", "en").code == 0
        sheet = anu.root / "build/anunnaki/svg/en/sheets/sheet-blue-front.svg"
        before = sheet.read_text(encoding="utf-8")
        assert slots(before) == 2 * 2 + 2 * 2 + 3 * 4 + 12
        assert gold_column(before) == ["2", "2", "4", "12"]
        anu.edit(
            f"{A}/game.yaml",
            "stop_with: stop_own_marker, capacity: 2}",
            "stop_with: stop_own_marker, capacity: 3}",
        )
        anu.edit(f"{A}/game.yaml", "piece: mammoth, exact: 2}", "piece: mammoth, exact: 3}")
        assert anu.build("--lang", "en").code == 0
        after = sheet.read_text(encoding="utf-8")
        assert slots(after) == slots(before) + 2
        assert gold_column(after) == ["3", "2", "4", "12"]


def test_an_irregular_hex_size_is_reported_at_validate(anu):
    anu.edit(
        f"{A}/hexes.yaml",
        "size: 57.74x50mm\n  front: anunnaki/catastrophe",
        "size: 50x50mm\n  front: anunnaki/catastrophe",
    )
    lines = anu.validate().lines
    assert len(lines) == 10  # front and back of each catastrophe tile
    assert lines[0] == (
        f"{A}/hexes.yaml:30:7: error: template "
        "'anunnaki/catastrophe-back.svg.j2' line 4: HexSizeError: a hex "
        "50x50mm is not regular: 50mm across the flats is "
        "57.74mm across the corners (size is the box around "
        "the hex: write 57.74x50mm) (rendering the back of 'earthquake') [template]"
    )


def test_every_colour_has_its_own_symbol():
    pack, problems = load_pack(ROOT / A)  # the pack's data: no face need be drawn
    assert problems == []
    symbols = [c["symbol"] for c in pack.data["colours"].values()]
    assert len(set(symbols)) == len(symbols) == 4


# ---------------------------------------------------------------- the built kit

DPI = 200
PX = DPI / 25.4


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The kit built once: (output folder, the validated result)."""
    out = tmp_path_factory.mktemp("anu")
    assert main(["build", str(ROOT / A), "--out", str(out)]) == 0
    return out / "anunnaki", validate(ROOT / A, ["it"])  # the tests impose its Italian faces


def raster(pdf, index: int):
    return (
        pypdfium2.PdfDocument(str(pdf))[index]
        .render(scale=DPI / 72, no_smoothpath=True)
        .to_pil()
        .convert("RGB")
    )


def dark_near(image, x_mm: float, y_mm: float) -> bool:
    x, y = round(x_mm * PX), round(y_mm * PX)
    return any(
        sum(image.getpixel((x + dx, y + dy))) < 300 for dx in (-1, 0, 1) for dy in (-1, 0, 1)
    )


class TestBuiltKit:
    def test_pdfs_in_both_languages_and_on_a3(self, built):
        out, _ = built
        for lang, words in (
            (
                "it",
                ["Scheda personale", "MAPPA SOLARE", "Regola del deserto", "Deserto", "Gigante 1"],
            ),
            ("en", ["Personal sheet", "SOLAR MAP", "Desert rule", "Desert", "Giant 1"]),
        ):
            text = "".join(page_texts(out / f"anunnaki-{lang}.pdf"))
            for word in words:
                assert word in text, (lang, word)
        a3 = PdfReader(out / "anunnaki-it-a3.pdf").pages
        assert len(a3) == 2  # the calibration page, then the whole map on one sheet
        # landscape A3, printed turned onto portrait paper as every page is (orient.py)
        assert (round(float(a3[1].mediabox.width)), round(float(a3[1].mediabox.height))) == (
            842,
            1191,
        )

    def test_hex_pages_cut_lines_on_every_edge_and_tiles_50mm_across(self, built):
        out, result = built
        pages = impose(result.faces["it"], result.pack.print)[0]
        page = pages[0]
        assert [p.face.group for p in page.placements] == ["terrain-tiles"] * 20
        image = raster(out / "anunnaki-it.pdf", kit_start(out / "anunnaki-it.pdf"))
        for p in page.placements:
            cx, cy = p.x + p.w / 2, p.y + p.h / 2
            pts = hexes.corners(cx, cy, 50)
            for k in range(6):
                (x1, y1), (x2, y2) = pts[k], pts[(k + 1) % 6]
                assert dark_near(image, (x1 + x2) / 2, (y1 + y2) / 2), (p.face.item, k)
            # the flats, 50 mm apart, are cut lines; 1.2 mm inside them is the tile's light rim
            assert dark_near(image, cx, cy - 25) and dark_near(image, cx, cy + 25)
            assert not dark_near(image, cx, cy - 23.8) and not dark_near(image, cx, cy + 23.8)

    def test_solar_map_sheets_share_the_overlap_and_their_targets(self, built):
        out, result = built
        pages = impose(result.faces["it"], result.pack.print)[0]
        index = [n for n, p in enumerate(pages) if p.tile is not None]
        assert len(index) == 2
        p1, p2 = pages[index[0]].parts[0], pages[index[1]].parts[0]
        t1, t2 = p1.tile, p2.tile
        assert (t1.rows, t1.cols) == (1, 2) and t2.window[0] == t1.window[
            2
        ] - result.pack.print.overlap
        first = kit_start(out / "anunnaki-it.pdf")  # after the kit guide and the print check
        a1, a2 = (
            raster(out / "anunnaki-it.pdf", index[0] + first),
            raster(out / "anunnaki-it.pdf", index[1] + first),
        )

        def on(tile, fx, fy):  # a map point (mm, bleed-box origin) -> page mm on that sheet
            return tile.origin[0] + fx - tile.window[0], tile.origin[1] + fy - tile.window[1]

        # the overlap strip shows the same map on both sheets (away from the targets' hairlines)
        marks = alignment_marks(p1.tile)  # clear of the map's texts
        for fx in (t2.window[0] + 3, t2.window[0] + 6, t2.window[0] + 9):
            for fy in [y for y in range(20, 260, 6) if all(abs(y - my) > 6 for _, my in marks)]:
                (x1, y1), (x2, y2) = on(t1, fx, fy), on(t2, fx, fy)
                p1 = a1.getpixel((round(x1 * PX), round(y1 * PX)))
                near = [
                    a2.getpixel((round(x2 * PX) + dx, round(y2 * PX) + dy))
                    for dx in (-1, 0, 1)
                    for dy in (-1, 0, 1)
                ]
                # the sheets sit at different sub-pixel offsets, so an edge may move by a pixel
                assert any(max(abs(u - v) for u, v in zip(p1, p2)) <= 3 for p2 in near), (fx, fy)
        # both sheets print the targets at the same map points, inside the strip
        assert marks == alignment_marks(p2.tile) and len(marks) == 2
        for fx, fy in marks:
            assert t2.window[0] < fx < t1.window[2]
            assert dark_near(a1, *on(t1, fx, fy)) and dark_near(a2, *on(t2, fx, fy))


@pytest.fixture(scope="module")
def letter(tmp_path_factory):
    """The kit built in English on Letter, where the Solar Map and the personal sheets are split:
    (its PDF, its layout pages)."""
    out = tmp_path_factory.mktemp("anu-letter")
    argv = ["build", str(ROOT / A), "--out", str(out), "--paper", "letter", "--lang", "en"]
    assert main(argv) == 0
    result = validate(ROOT / A, ["en"], overrides={"paper": "letter"})
    return out / "anunnaki" / "anunnaki-en.pdf", result.pages["en"]


def test_personal_sheets_print_whole_on_letter_shrunk_not_split(letter):
    """`fit: shrink` (sheets.yaml): a 277 mm sheet does not fit Letter's 269.4 mm inside the
    margins; it prints whole at 97 %, saying so, rather than as a sheet and a strip cut through
    its words."""
    pdf, pages = letter
    sheets = [p for page in pages for p in page.placements if p.face.group == "sheets"]
    assert len(sheets) == 4 and all(p.tile is None for p in sheets)
    assert {(p.face.scale, p.face.size) for p in sheets} == {(0.97, (277 * 0.97, 190 * 0.97))}
    texts = page_texts(pdf)
    assert sum("printed at 97 %" in t for t in texts) == 4


def test_split_faces_parts_share_letter_sheets_and_still_assemble(letter):
    """The Solar Map (380 x 270 mm) takes four Letter sheets' worth of parts, but its narrow parts
    share a sheet; every pair of neighbouring parts, wherever it is printed, shows the same art in
    its overlap strip and the same targets there, so the assembled face is true size."""
    pdf, pages = letter
    parts: dict[str, list[tuple[int, object]]] = {}
    for n, page in enumerate(pages):
        for p in page.parts:
            parts.setdefault(p.face.item, []).append((n, p))
    assert sorted(parts) == ["solar-map"]
    assert sum(map(len, parts.values())) == 4
    fronts = [page for page in pages if page.side == "front" and page.parts]
    assert len(fronts) == 3  # 4 parts: B1 and B2 share a sheet
    assert max(len(page.parts) for page in fronts) == 2
    images: dict[int, object] = {}
    first = kit_start(pdf)  # after the kit guide and the print check

    def image(n):  # each page rasterised once (setdefault would rasterise on every call)
        if n not in images:  # as its layout has it: a landscape page prints turned (orient.py)
            images[n] = as_laid_out(raster(pdf, n + first), pages[n])
        return images[n]

    def on(t, fx, fy):  # a face point (mm, bleed-box origin) -> page mm on that part's sheet
        return t.origin[0] + fx - t.window[0], t.origin[1] + fy - t.window[1]

    pairs = 0
    for item, found in parts.items():
        by_place = {(p.tile.row, p.tile.col): (n, p) for n, p in found}
        for (row, col), (n1, part1) in by_place.items():
            t1 = part1.tile
            for dr, dc in ((0, 1), (1, 0)):
                if (row + dr, col + dc) not in by_place:
                    continue
                n2, part2 = by_place[(row + dr, col + dc)]
                t2 = part2.tile
                pairs += 1
                marks = [m for m in alignment_marks(part1.tile) if m in alignment_marks(part2.tile)]
                assert len(marks) == 2, item
                for fx, fy in marks:  # the same targets at the same face points on both
                    assert dark_near(image(n1), *on(t1, fx, fy)), (item, t1.name)
                    assert dark_near(image(n2), *on(t2, fx, fy)), (item, t2.name)
                # the strip both print: from the next part's edge to this part's end
                x0, y0 = max(t1.window[0], t2.window[0]), max(t1.window[1], t2.window[1])
                x1, y1 = min(t1.window[2], t2.window[2]), min(t1.window[3], t2.window[3])
                checked: list[bool] = []
                across = [x0 + 3, x0 + 6, x0 + 9] if dc else range(round(x0) + 20, round(x1), 9)
                down = range(round(y0) + 20, round(y1) - 8, 9) if dc else [y0 + 3, y0 + 6, y0 + 9]
                for fx in across:
                    for fy in down:
                        if any(abs(fx - mx) < 6 and abs(fy - my) < 6 for mx, my in marks):
                            continue
                        if any(abs(v - w) < 2 for v, w in ((fy, t1.window[3] - 12), (fx, x1 - 12))):
                            continue  # the dashed line where a third part's edge goes
                        (ax, ay), (bx, by) = on(t1, fx, fy), on(t2, fx, fy)
                        p1 = image(n1).getpixel((round(ax * PX), round(ay * PX)))
                        near = [
                            image(n2).getpixel((round(bx * PX) + dx, round(by * PX) + dy))
                            for dx in (-1, 0, 1)
                            for dy in (-1, 0, 1)
                        ]
                        diff = min(max(abs(u - v) for u, v in zip(p1, p2)) for p2 in near)
                        checked.append(diff <= 24)
                # a text's edge at another sub-pixel offset may differ; the wrong art would often
                assert len(checked) >= 10 and checked.count(False) <= len(checked) // 10, item
    assert pairs == 4  # the map's A1-A2, B1-B2, A1-B1, A2-B2
