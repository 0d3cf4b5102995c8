"""The PDFs as a printer and a person see them: pages, boxes, fonts, text, and pixels."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pypdfium2
import pytest
from pypdf import PdfReader

from conftest import colour_pack, kit_start
from pnpkit import workspace
from pnpkit.commands.cli import main
from pnpkit.pdf import calibration
from pnpkit.pdf import pages as pdf_pages
from pnpkit.pdf.pages import _STREAMS

MM = 72 / 25.4
FIRST = calibration.page_count(
    "long-edge"
)  # the kit's first page after the print check and its back
A4 = (595.2756, 841.8898)
DPI = 150
PX = DPI / 25.4  # pixels per mm
TOP = (
    8.5 + (297 - 8.5 - 11 - 3 * 88.9) / 2
)  # 3 x 3 poker cards centred between the marks' room below the top margin and above the label


def render(pdf_path, index: int, dpi: int = DPI, turned: bool = False):
    """The page as an image; `turned`: a landscape page drawn turned onto portrait paper
    (orient.py), turned back, so its pixels are where the layout put them."""
    page = pypdfium2.PdfDocument(str(pdf_path))[index]
    image = (
        page.render(scale=dpi / 72, no_smoothpath=True, no_smoothtext=True).to_pil().convert("RGB")
    )
    return image.rotate(-90, expand=True) if turned else image


def dark(pixel) -> bool:
    return sum(pixel) < 3 * 100


def dark_near(image, x: float, y: float) -> bool:
    """A hairline at (x, y) px lands on one of the neighbouring pixel columns/rows."""
    return any(
        dark(image.getpixel((round(x) + dx, round(y) + dy)))
        for dx in (-1, 0, 1)
        for dy in (-1, 0, 1)
    )


def build_probe(tmp_path, *args, **kw):
    pack = colour_pack(tmp_path / "probe", **kw)
    out = tmp_path / "out"
    assert main(["build", str(pack), "--out", str(out), *args]) == 0
    return out / "probe" / "probe-en.pdf"


class TestKitPdf:
    def test_pages_are_a4_with_the_guide_then_the_calibration_page_first(self, built_kit):
        reader = PdfReader(built_kit["pl"])
        # the kit guide (its two pages: docs/kit-guide.md), print check and its back, reference
        # card + standee + 6 tiles, its back, 10 tiles, their backs (fill.py shares the sheets)
        assert len(reader.pages) == 2 + 6
        for page in reader.pages:
            assert (float(page.mediabox.width), float(page.mediabox.height)) == pytest.approx(
                A4, abs=0.01
            )
        assert reader.pages[0].extract_text().startswith("Stone Age: Stado mamutów")
        assert "Kontrola wydruku" in reader.pages[2].extract_text()
        assert kit_start(built_kit["pl"]) == 4

    def test_every_font_is_embedded_and_subset(self, built_kit):
        for page in PdfReader(built_kit["pl"]).pages:
            fonts = page["/Resources"].get("/Font", {})
            for ref in fonts.values():
                font = ref.get_object()
                assert font["/Subtype"] != "/Type3"
                assert "+" in font["/BaseFont"], font["/BaseFont"]
                descriptor = font["/FontDescriptor"].get_object()
                assert "/FontFile2" in descriptor

    def test_polish_and_english_text_is_real_text(self, built_kit):
        pl = "".join(p.extract_text() for p in PdfReader(built_kit["pl"]).pages)
        en = "".join(p.extract_text() for p in PdfReader(built_kit["en"]).pages)
        assert "Stado mamutów" in pl and "Oswajanie i punkty" in pl and "wszystko" in pl
        assert "zakryty" in pl and "Zwycięzca" in pl
        assert "Taming and scoring" in en and "Mammoth herd" in en

    def test_same_input_gives_identical_bytes(self, tmp_path):
        a = build_probe(tmp_path / "a")
        b = build_probe(tmp_path / "b")
        assert hashlib.sha256(a.read_bytes()).digest() == hashlib.sha256(b.read_bytes()).digest()

    def test_letter_paper(self, tmp_path):
        pdf = build_probe(tmp_path, "--paper", "letter")
        for page in PdfReader(pdf).pages:
            assert sorted(
                (float(page.mediabox.width), float(page.mediabox.height))
            ) == pytest.approx([612, 792], abs=0.01)


class TestBoxes:
    def test_a_page_with_one_face_has_trim_and_bleed_boxes(self, tmp_path):
        pdf = build_probe(tmp_path, n=1, size="tarot")
        page = PdfReader(pdf).pages[FIRST]
        trim = [float(v) for v in page.trimbox]
        bleed = [float(v) for v in page.bleedbox]
        assert trim[2] - trim[0] == pytest.approx(69.85 * MM, abs=0.01)
        assert trim[3] - trim[1] == pytest.approx(120.65 * MM, abs=0.01)
        assert [b - t for b, t in zip(bleed, trim)] == pytest.approx(
            [-3 * MM, -3 * MM, 3 * MM, 3 * MM], abs=0.01
        )

    def test_a_sheet_of_many_faces_has_no_trim_box(self, tmp_path):
        pdf = build_probe(tmp_path, n=9)
        page = PdfReader(pdf).pages[FIRST]
        assert "/TrimBox" not in page


class TestPixels:
    def test_calibration_bar_is_100_mm(self, built_kit):
        check = kit_start(built_kit["en"]) - FIRST  # the print check, after the kit guide
        image = render(built_kit["en"], check, dpi=300)
        row = round(70 * 300 / 25.4)  # the bar's baseline, 70 mm from the top
        run = [
            x
            for x in range(image.width)
            if any(dark(image.getpixel((x, row + d))) for d in (-1, 0, 1))
        ]
        assert (max(run) - min(run)) / (300 / 25.4) == pytest.approx(100, abs=0.3)

    def test_crop_marks_lie_on_every_trim_line_outside_the_art(self, tmp_path):
        pdf = build_probe(tmp_path, n=9)
        image = render(pdf, FIRST)
        top_y = TOP - 3 - 0.5 - 1.5  # in the mark: above the bleed edge and the clearance
        for x_mm in (9.75, 73.25, 136.75, 200.25):
            assert dark_near(image, x_mm * PX, top_y * PX), x_mm
            assert not dark_near(image, (x_mm + 1) * PX, top_y * PX), x_mm
        left_x = (
            9.75 - 1.25 - 0.5 - 1.5
        )  # beside the block only 1.25 mm of bleed fits inside margin and marks
        for y_mm in (TOP, TOP + 88.9, TOP + 2 * 88.9, TOP + 3 * 88.9):
            assert dark_near(image, left_x * PX, y_mm * PX), y_mm
            assert not dark_near(image, left_x * PX, (y_mm + 1) * PX), y_mm
        # no mark reaches into the bleed: just outside the block's top-left bleed corner is white
        assert not dark(image.getpixel((round(9.75 * PX), round((TOP - 3 - 0.3) * PX))))

    def test_back_marks_can_be_left_off(self, tmp_path):
        """With print.back_marks false the back pages carry no crop marks; the fronts keep
        theirs."""
        pdf = build_probe(tmp_path, n=9, extra_print="  back_marks: false\n")
        front, back = render(pdf, FIRST), render(pdf, FIRST + 1)
        top_y = (TOP - 3 - 0.5 - 1.5) * PX
        assert dark_near(front, 9.75 * PX, top_y)
        assert not any(dark_near(back, x_mm * PX, top_y) for x_mm in (9.75, 73.25, 136.75, 200.25))

    @pytest.mark.parametrize("backs", ["long-edge", "short-edge"])
    def test_each_back_is_at_the_mirror_image_of_its_front(self, tmp_path, backs):
        pdf = build_probe(tmp_path, "--backs", backs, n=9)
        front, back = render(pdf, FIRST), render(pdf, FIRST + 1)
        assert back.size == front.size
        for col in range(3):
            for row in range(3):
                fx = (9.75 + 63.5 * col + 16) * PX
                fy = (TOP + 88.9 * row + 22) * PX
                if backs == "long-edge":
                    bx, by = front.width - fx, fy
                else:
                    bx, by = fx, front.height - fy
                f = front.getpixel((round(fx), round(fy)))
                b = back.getpixel((round(bx), round(by)))
                assert f != (255, 255, 255)
                assert max(abs(u - v) for u, v in zip(f, b)) <= 2, (row, col)

    def test_gutter_fold_backs_face_their_fronts_across_the_fold(self, tmp_path):
        pdf = build_probe(tmp_path, "--backs", "gutter-fold", n=4)
        assert len(PdfReader(pdf).pages) == 2  # gutter-fold is single-sided: one print-check page
        image = render(pdf, 1, turned=True)  # landscape, printed on portrait paper
        fold = image.width / 2
        for y in range(image.height // 4, image.height * 3 // 4, 40):
            for x in range(int(fold - 4.5 * PX), int(fold - 1 * PX), 3):
                left, right = image.getpixel((x, y)), image.getpixel((round(2 * fold - x), y))
                assert max(abs(u - v) for u, v in zip(left, right)) <= 2


class TestSplitBoards:
    def build(self, tmp_path):
        from conftest import board_pack

        out = tmp_path / "out"
        assert main(["build", str(board_pack(tmp_path / "board")), "--out", str(out)]) == 0
        return out / "board"

    def test_board_larger_than_a4_is_split_with_overlap_and_also_on_a3(self, tmp_path):
        out = self.build(tmp_path)
        pages = PdfReader(out / "board-en.pdf").pages
        assert len(pages) == FIRST + 4  # sheet A1, its (blank) back, A2, its back
        sheets = [pages[FIRST], pages[FIRST + 2]]
        assert (
            "sheet A1 of 1x2" in sheets[0].extract_text()
            and "sheet A2 of 1x2" in sheets[1].extract_text()
        )
        a3 = PdfReader(out / "board-en-a3.pdf").pages
        # the board's landscape A3 page prints turned onto portrait A3, as every page (orient.py)
        assert [(round(float(p.mediabox.width)), round(float(p.mediabox.height))) for p in a3] == [
            (842, 1191),
            (842, 1191),
        ]
        # numbered in its own file, which has no backs: the print check, then the board
        assert " · 2/2" in a3[1].extract_text() and "/3" not in a3[1].extract_text()

    def test_sheets_repeat_the_overlap_strip_and_their_targets_coincide(self, tmp_path):
        from conftest import board_pack
        from pnpkit.build.pipeline import validate
        from pnpkit.pdf.marks import alignment_marks
        from registered import impose

        root = board_pack(tmp_path / "board")
        out = tmp_path / "out"
        assert main(["build", str(root), "--out", str(out)]) == 0
        pdf = out / "board" / "board-en.pdf"
        result = validate(root)
        t1, t2 = [
            page.tile for page in impose(result.faces["en"], result.pack.print)[0] if page.tile
        ]
        assert (t1.rows, t1.cols) == (1, 2) and t2.window[0] == t1.window[2] - 12
        a1, a2 = render(pdf, FIRST), render(pdf, FIRST + 2)

        def on(tile, fx, fy):  # a board point (mm, bleed-box origin) -> pixel on that sheet
            return (tile.origin[0] + fx - tile.window[0]) * PX, (
                tile.origin[1] + fy - tile.window[1]
            ) * PX

        # the shared strip shows the same board on both sheets
        for fx in (
            t2.window[0] + 1,
            t2.window[0] + 5,
            t2.window[0] + 8.5,
        ):  # 1 mm or more from a stripe's edge
            for fy in (40, 100, 160):
                p1, p2 = (
                    a1.getpixel(tuple(map(round, on(t1, fx, fy)))),
                    a2.getpixel(tuple(map(round, on(t2, fx, fy)))),
                )
                assert max(abs(u - v) for u, v in zip(p1, p2)) <= 2, (fx, fy)
        # both sheets carry targets at the same board points, in that strip
        marks = alignment_marks(t1)
        assert marks == alignment_marks(t2) and len(marks) == 2
        for fx, fy in marks:
            assert t2.window[0] < fx < t1.window[2]
            assert dark_near(a1, *on(t1, fx, fy)) and dark_near(a2, *on(t2, fx, fy))
        # on A1, a dashed line shows where A2's cut edge goes
        line_x = on(t1, t2.window[0], 0)[0]
        hits = sum(dark_near(a1, line_x, on(t1, 0, fy)[1]) for fy in range(20, 250, 2))
        assert hits > 40


def test_transparency_inside_a_face_prints_transparent(tmp_path):
    """Faces are PDF forms; their transparency must survive (a half-opaque red on white is pink)."""
    from conftest import alpha_pack, is_pink

    assert main(["build", str(alpha_pack(tmp_path / "alpha")), "--out", str(tmp_path / "out")]) == 0
    image = render(tmp_path / "out" / "alpha" / "alpha-en.pdf", FIRST)
    assert is_pink(image.getpixel((image.width // 2, image.height // 2)))


class TestDuplexCheck:
    """The print check's back carries red ticks behind the front's black ones, tick k moved k x
    0.5 mm."""

    def red_near(self, image, x_mm: float, y_mm: float) -> bool:
        return any(
            self.red(image.getpixel((round(x_mm * PX) + d, round(y_mm * PX)))) for d in (-1, 0, 1)
        )

    @staticmethod
    def red(pixel) -> bool:
        r, g, b = pixel
        return r > 150 and g < 100 and b < 100

    @pytest.mark.parametrize("offset", [(0.0, 0.0), (1.0, 0.0)])
    def test_back_ticks_sit_at_the_mirror_of_the_front_ticks(self, tmp_path, offset):
        args = ["--back-offset", f"{offset[0]},{offset[1]}"] if offset != (0.0, 0.0) else []
        pdf = build_probe(tmp_path, *args, n=1)
        front, back = render(pdf, 0), render(pdf, 1)
        across, _ = calibration.ladder_ticks((210, 297))
        for k, x, y in across:
            assert dark_near(front, x * PX, (y - 3) * PX), k
            expected = (
                210 - x + offset[0] + k * calibration.STEP
            )  # long-edge: mirrored across the page
            assert self.red_near(back, expected, y - 3), (k, expected)
            assert not self.red_near(back, expected + 0.5, y - 3) or k == 4, (k, expected)

    @pytest.mark.parametrize("offset", [(0.0, 0.0), (1.0, -0.5)])
    def test_corner_crosses_sit_behind_the_centres_of_the_front_rings(self, tmp_path, offset):
        """Scale and skew show at the corners: each back cross is at its rings' mirror image (with
        the back offset), so a printer that scales or skews the back moves them apart."""
        args = ["--back-offset", f"{offset[0]},{offset[1]}"] if offset != (0.0, 0.0) else []
        pdf = build_probe(tmp_path, *args, n=1)
        front, back = render(pdf, 0, 600), render(pdf, 1)
        fine = 600 / 25.4  # rings 0.5 mm apart need more than 150 dpi to tell apart
        for x, y in calibration.corner_targets((210, 297)):
            for (
                r
            ) in calibration.RINGS:  # each ring crosses the target's row r mm right of its centre
                assert dark_near(front, (x + r) * fine, y * fine), (x, y, r)
                assert not dark_near(front, (x + r - 0.25) * fine, y * fine), (x, y, r)
            bx, by = 210 - x + offset[0], y + offset[1]  # long-edge: mirrored across the page
            for d in (-2.0, 2.0):  # both arms of the cross, through (bx, by)
                assert self.red_around(back, bx + d, by), (x, y, d)
                assert self.red_around(back, bx, by + d), (x, y, d)
            assert not self.red_around(back, bx + 1.0, by + 1.0)

    def red_around(self, image, x_mm: float, y_mm: float) -> bool:
        x, y = round(x_mm * PX), round(y_mm * PX)
        return any(
            self.red(image.getpixel((x + dx, y + dy))) for dx in (-1, 0, 1) for dy in (-1, 0, 1)
        )

    def test_every_language_says_every_line(self):
        for lang, words in calibration.TEXT.items():
            assert list(words) == list(calibration.WORDS), lang

    def test_single_sided_modes_have_no_duplex_check(self, tmp_path):
        pdf = build_probe(tmp_path, "--backs", "none", n=1)
        assert len(PdfReader(pdf).pages) == 2  # the print check, one page of cards


def test_a_build_keeping_few_pages_writes_what_keeping_every_page_writes(tmp_path, monkeypatch):
    """A build with no next one keeps pdf_pages.ONE_BUILD_PAGES_KEPT page streams (and lets a
    page's stream text go once formatted): pages emptied from the memo are compressed again,
    to the bytes a build keeping every page writes."""
    from pnpkit.build import pipeline as build
    from pnpkit.pdf import writer as pdf

    result = build.validate(colour_pack(tmp_path / "p", n=30))
    pages = result.pages["en"] * 2  # each page twice: found in the memos when kept
    assert len(pages) >= 8
    monkeypatch.setattr(pdf_pages, "ONE_BUILD_PAGES_KEPT", 1)
    monkeypatch.setattr(workspace.current(), "hand_on", False)
    few = _written_afresh(pages, tmp_path / "few.pdf", None)
    assert len(_STREAMS) <= 1
    monkeypatch.setattr(workspace.current(), "hand_on", True)
    every = _written_afresh(pages, tmp_path / "every.pdf", None)
    assert len(_STREAMS) == len(pages) // 2
    assert few == every
    monkeypatch.setattr(pdf, "_compress_page", lambda c: None)  # ReportLab's own, on save
    assert few == _written_afresh(pages, tmp_path / "reportlab.pdf", None)


def _written_afresh(pages, path: Path, check) -> bytes:
    """The PDF of pages, nothing kept from an earlier one (page streams)."""
    from pnpkit.pdf import writer as pdf

    _STREAMS.clear()
    pdf.write_pdf(pages, path, "t", True, calibration=check)
    return path.read_bytes()
