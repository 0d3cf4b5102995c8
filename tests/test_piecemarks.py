"""Pieces say how they are made (docs/printing.md): round pieces keep print.shape_gap between
their cut lines and are cut on their circle alone, fold-over standees carry the kit's word for
"fold" on their middle fold, and their art runs on past the cut into the bleed."""

from __future__ import annotations

import dataclasses
import itertools
import math

import pypdfium2
import pytest

from conftest import ROOT, kit_start, page_texts
from pnpkit.build.pipeline import validate
from pnpkit.commands.cli import main
from pnpkit.impose.page import MARK_CLEAR, MARK_LENGTH
from pnpkit.pdf import guidewords
from registered import impose

DPI = 200
PX = DPI / 25.4  # pixels per mm


def laid_out(pack: str, lang: str, **settings: object):
    result = validate(ROOT / "components" / pack, [lang])
    s = dataclasses.replace(result.pack.print, **settings)
    pages, problems = impose(result.faces[lang], s)
    assert problems == []
    return pages


@pytest.fixture(scope="module")
def mlem_pages():
    return laid_out("mlem", "en")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """MLEM and Mammoth Herd built once, in English and in Polish: {name: PDF path}."""
    out = tmp_path_factory.mktemp("piecemarks")
    for pack, lang in (("mlem", "en"), ("mammoth-herd", "pl")):
        args = ["build", str(ROOT / "components" / pack), "--lang", lang, "--out", str(out)]
        assert main([*args, "--trust"]) == 0
    return {
        "mlem": out / "mlem" / "mlem-en.pdf",
        "mammoth": out / "mammoth-herd" / "mammoth-herd-pl.pdf",
    }


def round_pieces(page):
    return [p for p in page.placements if p.face.shape[0] == "circle"]


@pytest.mark.parametrize("gap", [2.0, 4.5])
def test_round_pieces_keep_the_shape_gap_between_their_cut_lines(gap):
    pages = laid_out("mlem", "en", shape_gap=gap)
    pairs = 0
    for page in pages:
        for a, b in itertools.combinations(round_pieces(page), 2):
            centres = math.dist((a.x + a.w / 2, a.y + a.h / 2), (b.x + b.w / 2, b.y + b.h / 2))
            if centres < a.w + b.w:  # neighbours: the nearest pairs decide
                pairs += 1
                assert centres - a.w / 2 - b.w / 2 >= gap - 1e-6, (a.face.item, b.face.item)
    assert pairs > 60  # the 64 score tokens and both markers, in rows and columns


def test_mlem_markers_are_round_pieces(mlem_pages):
    markers = [p for page in mlem_pages for p in page.placements if p.face.group == "markers"]
    assert len(markers) == 4 and all(p.face.shape == ("circle", 0.0) for p in markers)


def dark(image, x: float, y: float) -> bool:
    r, g, b = image.getpixel((round(x * PX), round(y * PX)))[:3]
    return r + g + b < 3 * 120


def ink(image, x: float, y: float) -> int:
    """The sum of the pixel's channels at (x, y) mm: lower is darker."""
    return sum(image.getpixel((round(x * PX), round(y * PX)))[:3])


def covered(page, x: float, y: float) -> bool:
    """Whether (x, y) lies on a piece or its bleed, or within 1 mm of one."""
    return any(
        p.x - p.reach[0] - 1 <= x <= p.x + p.w + p.reach[2] + 1
        and p.y - p.reach[1] - 1 <= y <= p.y + p.h + p.reach[3] + 1
        for p in page.placements
    )


def test_round_pieces_have_no_square_crop_marks(built, mlem_pages):
    """Where the square's crop mark would stand, above each round piece's left and right
    edges, the sheet is blank: the circle is the one cut line."""
    first = kit_start(built["mlem"])
    doc = pypdfium2.PdfDocument(str(built["mlem"]))
    checked = 0
    for n, page in enumerate(mlem_pages):
        tokens = round_pieces(page)
        if not tokens or page.side != "front":
            continue
        image = doc[first + n].render(scale=DPI / 72).to_pil().convert("RGB")
        square_edges = [e for q in page.placements if q not in tokens for e in (q.x, q.x + q.w)]
        for p in tokens:
            top = p.y - p.reach[1]
            for x in (p.x, p.x + p.w):
                if any(abs(x - e) < 0.5 for e in square_edges):
                    continue  # a card's crop mark may stand on the same line
                ys = [top - MARK_CLEAR - k * MARK_LENGTH / 4 for k in range(4)]
                ys = [y for y in ys if y > 0 and not covered(page, x, y)]
                assert not any(dark(image, x, y) for y in ys), (n, p.face.item)
                checked += len(ys)
        # the circle itself is drawn: the cut line crosses the row through the piece's centre
        p = tokens[0]
        cy = p.y + p.h / 2

        row = [ink(image, p.x + k / PX, cy) for k in range(round(-0.4 * PX), round(0.4 * PX))]
        assert min(row) < ink(image, p.x - 0.8, cy) - 100  # the grey circle on the light bleed
    assert checked > 50  # points above the tops of the columns of round pieces


def words_in(doc, index: int, box: tuple[float, float, float, float], page_h: float) -> str:
    """The text inside box (mm from the top left) on a page page_h mm tall."""
    left, top, right, bottom = (v * 72 / 25.4 for v in box)
    h = page_h * 72 / 25.4
    return doc[index].get_textpage().get_text_bounded(left, h - bottom, right, h - top)


def standee(pages):
    return next(
        (n, page, p)
        for n, page in enumerate(pages)
        for p in page.placements
        if p.face.kind == "standee"
    )


def test_a_standee_says_fold_in_the_kits_language_on_its_middle(built):
    n, page, p = standee(laid_out("mammoth-herd", "pl"))
    doc = pypdfium2.PdfDocument(str(built["mammoth"]))
    index = kit_start(built["mammoth"]) + n
    word = guidewords.words("pl", {})["fold"]
    assert word == "zegnij"
    middle = p.y + p.h / 2
    assert word in words_in(doc, index, (p.x, middle - 4, p.x + p.w, middle + 1), page.h)
    # on the middle fold only: not on the base tabs' folds
    assert word not in words_in(doc, index, (p.x, p.y, p.x + p.w, middle - 6), page.h)


def test_a_standees_art_runs_on_past_the_cut_into_the_bleed(built):
    """Half a millimetre short of the bleed's edge, the sheet shows the colour the piece has
    1 mm inside its cut: a cut a little off leaves no white edge."""
    n, page, p = standee(laid_out("mammoth-herd", "pl"))
    assert p.turn == 0 and p.reach[1] >= 2.0 and p.reach[2] >= 2.0  # its top and right shown
    doc = pypdfium2.PdfDocument(str(built["mammoth"]))
    image = doc[kit_start(built["mammoth"]) + n].render(scale=DPI / 72).to_pil().convert("RGB")

    def at(x: float, y: float) -> tuple[int, int, int]:
        return image.getpixel((round(x * PX), round(y * PX)))

    right = p.x + p.w
    for y in (p.y + 5, p.y + p.h * 0.4, p.y + p.h - 5):  # tab, panel, tab
        assert at(right + p.reach[2] - 0.5, y) == at(right - 1, y) != (255, 255, 255), y
    assert at(p.x + 2, p.y - p.reach[1] + 0.5) == at(p.x + 2, p.y + 1) != (255, 255, 255)


def test_a_standee_without_the_fold_over_layout_gets_no_fold_word(kit):
    """`kind: standee` alone says nothing of a fold: only `standee: {base: ...}` does."""
    kit.edit(f"{kit.pack}/herd.yaml", "  standee: {base: 12mm}", "  # no fold-over layout")
    assert kit.build("--lang", "en", "--trust").code == 0
    pdf = kit.root / "build" / "mammoth-herd" / "mammoth-herd-en.pdf"
    texts = page_texts(pdf)
    assert "Mammoth herd" in "".join(texts[kit_start(pdf) :])  # the herd is still printed
    assert not any("fold" in text for text in texts[kit_start(pdf) :])
