"""Every page of every kit prints on a home printer: no ink in print.margin, page boxes that nest.

Each kit is validated once (in its first language; faces and drawings cached),
then imposed and written for every paper and every back mode, with the A3
file of faces split over sheets, as `pnpkit build` writes them. Only the four
margin bands are rasterised, at a modest resolution: a hairline mark still
darkens a pixel there.
"""

from __future__ import annotations

import dataclasses

import pypdfium2
import pytest

from conftest import ROOT
from pnpkit import build, pdf
from pnpkit.cache import Cache
from pnpkit.model import BACK_MODES
from pnpkit.units import PAPERS, PT_PER_MM

DPI = 40
INK = 235  # darker than this (of 255) in any channel is ink; anti-aliased paper white stays above
SLACK = 0.4  # mm: a line ending exactly on the margin's edge may grey the next pixel
KITS = sorted(p.name for p in (ROOT / "components").iterdir())


@pytest.fixture(scope="module", params=KITS)
def kit(request):
    cache = Cache()
    result = build.validate(ROOT / "components" / request.param, None, None, cache, build.Code(False))
    assert result.pack is not None and not result.errors
    return result.pack, cache


def write_all(pack, cache, paper: str, backs: str, folder) -> list:
    """The kit's PDFs for one paper and back mode, as build() writes them (first language only)."""
    lang = pack.languages[0]
    pack = dataclasses.replace(pack, print=dataclasses.replace(pack.print, paper=paper, backs=backs))
    result = build.validate(pack.root, [lang], {"paper": paper, "backs": backs}, cache, build.Code(False))
    assert not result.errors, result.errors[:3]
    pages = result.pages[lang]
    build._label(pages, pack, lang)
    main = folder / f"{paper}-{backs}.pdf"
    with cache.pdf_forms(pages):
        pdf.write_pdf(pages, main, "t", pack.print.crop_marks, build._calibration(pack, lang))
    build._write_large(pages, pack, lang, folder, cache)
    return [main] + sorted(folder.glob("*-a3.pdf"))


def ink_in_margin(page, margin: float) -> list[str]:
    """Where the page is inked within `margin` mm of its edges (each band rendered on its own)."""
    w, h = page.get_size()
    band = (margin - SLACK) / 25.4 * 72
    found = []
    # crop = (left, bottom, right, top) points cut away; keep only one band each time
    for name, crop in (("left", (0, 0, w - band, 0)), ("right", (w - band, 0, 0, 0)),
                       ("top", (0, h - band, 0, 0)), ("bottom", (0, 0, 0, h - band))):
        image = page.render(scale=DPI / 72, crop=crop, grayscale=True).to_pil()
        dark = image.point(lambda v: 255 if v < INK else 0).getbbox()
        if dark:
            found.append(f"{name} band, pixels {dark}")
    return found


def boxes_nest(page) -> bool:
    media = page.get_mediabox()
    bleed, trim = page.get_bleedbox(), page.get_trimbox()  # each falls back to the box around it

    def inside(a, b):
        return a[0] >= b[0] - 0.01 and a[1] >= b[1] - 0.01 and a[2] <= b[2] + 0.01 and a[3] <= b[3] + 0.01

    return inside(bleed, media) and inside(trim, bleed)


@pytest.mark.parametrize("paper", PAPERS)
def test_no_ink_in_the_margin_and_boxes_nest_on_every_page(kit, paper, tmp_path):
    pack, cache = kit
    margin = pack.print.margin
    bad = []
    for backs in BACK_MODES:
        folder = tmp_path / backs
        folder.mkdir()
        for path in write_all(pack, cache, paper, backs, folder):
            document = pypdfium2.PdfDocument(str(path))
            for n in range(len(document)):
                page = document[n]
                where = f"{pack.id} {paper} {backs} {path.name} page {n + 1}"
                bad += [f"{where}: ink in the {hit}" for hit in ink_in_margin(page, margin)]
                if not boxes_nest(page):
                    bad.append(f"{where}: boxes do not nest: media {page.get_mediabox()}, "
                               f"bleed {page.get_bleedbox()}, trim {page.get_trimbox()}")
    assert bad == []


def test_the_band_check_sees_a_mark_in_the_margin(tmp_path):
    """The check can fail: a page with a hairline 2 mm from its edge is caught, one at 6 mm is not."""
    from reportlab.pdfgen.canvas import Canvas
    path = tmp_path / "probe.pdf"
    c = Canvas(str(path), pagesize=(210 * PT_PER_MM, 297 * PT_PER_MM))
    c.setLineWidth(0.25)
    c.line(100 * PT_PER_MM, 2 * PT_PER_MM, 104 * PT_PER_MM, 2 * PT_PER_MM)
    c.showPage()
    c.setLineWidth(0.25)
    c.line(6 * PT_PER_MM, 100 * PT_PER_MM, 6 * PT_PER_MM, 104 * PT_PER_MM)
    c.showPage()
    c.save()
    document = pypdfium2.PdfDocument(str(path))
    assert [bool(ink_in_margin(document[n], 5)) for n in range(2)] == [True, False]
    assert ink_in_margin(document[0], 5)[0].startswith("bottom band")



# ------------------------------------------------------------------ every text, raw <text> too

from conftest import write_pack  # noqa: E402
from pnpkit import textcheck  # noqa: E402

BADGE = """{% extends "_face.svg.j2" %}{% block content %}
<rect x="-3" y="-3" width="{{ face.w + 6 }}" height="{{ face.h + 6 }}" fill="#ffffff"/>
<g transform="translate(10 10) scale(0.5)">
<text x="0" y="0" font-size="4" fill="#000000">tiny</text>
</g>
<text x="20" y="30" font-size="3" fill="#000000">fine</text>
<text x="-1" y="50" font-size="3" fill="#000000">{{ item.id }} over the edge</text>
<text x="30" y="70" font-size="3" fill="#888888">grey</text>
{% endblock %}
"""


def text_pack(root):
    return write_pack(root, {
        "game.yaml": "name: T\nlanguages: [en]\nplayers: {min: 1, max: 1}\n",
        "cards.yaml": "cards:\n  kind: card\n  size: poker\n  front: t.svg.j2\n  items:\n    - {id: one}\n",
        "templates/t.svg.j2": BADGE,
    })


def test_raw_text_is_held_to_the_minimum_size_and_the_cut_line(tmp_path):
    result = build.validate(text_pack(tmp_path / "probe"))
    found = [str(p).split("probe/", 1)[-1] for p in result.problems]
    assert found == [
        "cards.yaml:6:7: warning: text 'one over the edge' crosses the cut line (the front of 'one') [text]",
        "templates/t.svg.j2:4:48: warning: text 'tiny' prints at 5.7pt, below the minimum 6pt [text]",
    ]  # 4 units under scale(0.5) are 2 mm: 5.7 pt; the 3 mm text is 8.5 pt


def test_text_sizes_boxes_and_contrast_are_measured_where_they_print(tmp_path):
    result = build.validate(text_pack(tmp_path / "probe"))
    face = result.faces["en"][0]
    found = {t.text: t for t in textcheck.texts(face.drawing)}
    assert found["tiny"].size_pt == pytest.approx(2 * PT_PER_MM)
    assert found["fine"].box[0] == pytest.approx(23)  # 20 mm from the trim, bleed-box origin 3 mm out
    assert textcheck.contrast((0, 0, 0), (1, 1, 1)) == pytest.approx(21)
    grey = dict(textcheck.problems(face, 6, safe=3, contrasts=True))["grey"]
    assert grey == "text 'grey' has a contrast of 3.5:1 with the colour under it, below 4.5:1 (WCAG)"
