"""Every page of every kit prints on a home printer (its guide and tuck boxes too): no ink in
print.margin, page boxes that nest.

Each kit is validated once (in its first language; faces and drawings cached),
then imposed and written for every paper and every back mode, with the A3
file of faces split over sheets, as `pnpkit build` writes them. Only the four
margin bands are rasterised, at a modest resolution: a hairline mark still
darkens a pixel there.
"""

from __future__ import annotations

import pypdfium2
import pytest
from PIL import ImageChops

from conftest import ROOT
from pnpkit.build import pipeline as build
from pnpkit.build.cache import Cache
from pnpkit.commands.cli import main
from pnpkit.pack.model import BACK_MODES
from pnpkit.pack.schema import load_pack
from pnpkit.units import PAPERS, PT_PER_MM

DPI = 40
INK = 235  # darker than this (of 255) in any channel is ink; anti-aliased paper white stays above
SLACK = 0.4  # mm: a line ending exactly on the margin's edge may grey the next pixel
KITS = sorted(p.name for p in (ROOT / "components").iterdir())


@pytest.fixture(scope="module", params=KITS)
def kit(request):
    cache = Cache()
    root = ROOT / "components" / request.param
    pack, problems = load_pack(root)
    assert pack is not None and problems == []
    result = build.validate(
        root, pack.languages[:1], None, cache, build.Code(True)
    )  # our kits: star-cargo draws its board in Python
    assert result.pack is not None and not result.errors
    return result.pack, cache


def write_all(pack, cache, paper: str, backs: str, folder) -> list:
    """The kit's PDFs for one paper and back mode, as build() writes them (first language only)."""
    options = build.BuildOptions(
        folder,
        langs=pack.languages[:1],
        overrides={"paper": paper, "backs": backs},
        cache=cache,
        code=build.Code(True),  # our kits: star-cargo draws its board in Python
    )
    result = build.build(pack.root, options)
    assert not result.errors, result.errors[:3]
    return sorted((folder / pack.id).glob("*.pdf"))  # the kit's PDF and its A3 file of faces


def ink_in_margin(page, margin: float) -> list[str]:
    """Where the page is inked within `margin` mm of its edges (each band rendered on its own)."""
    w, h = page.get_size()
    band = (margin - SLACK) / 25.4 * 72
    found = []
    # crop = (left, bottom, right, top) points cut away; keep only one band each time
    for name, crop in (
        ("left", (0, 0, w - band, 0)),
        ("right", (w - band, 0, 0, 0)),
        ("top", (0, h - band, 0, 0)),
        ("bottom", (0, 0, 0, h - band)),
    ):
        image = page.render(scale=DPI / 72, crop=crop, grayscale=True).to_pil()
        dark = image.point(lambda v: 255 if v < INK else 0).getbbox()
        if dark:
            found.append(f"{name} band, pixels {dark}")
    return found


def boxes_nest(page) -> bool:
    media = page.get_mediabox()
    bleed, trim = page.get_bleedbox(), page.get_trimbox()  # each falls back to the box around it

    def inside(a, b):
        return (
            a[0] >= b[0] - 0.01
            and a[1] >= b[1] - 0.01
            and a[2] <= b[2] + 0.01
            and a[3] <= b[3] + 0.01
        )

    return inside(bleed, media) and inside(trim, bleed)


@pytest.mark.parametrize("paper", PAPERS)
def test_no_ink_in_the_margin_and_boxes_nest_on_every_page(kit, paper, tmp_path):
    """...and every page is portrait, shown as it is (orient.py): one orientation per PDF, so a
    driver that auto-rotates landscape pages has none to turn."""
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
                w, h = page.get_size()
                if w > h or page.get_rotation():
                    bad.append(
                        f"{where}: {w:g} x {h:g} pt turned {page.get_rotation()}: not portrait"
                    )
                if not boxes_nest(page):
                    bad.append(
                        f"{where}: boxes do not nest: media {page.get_mediabox()}, "
                        f"bleed {page.get_bleedbox()}, trim {page.get_trimbox()}"
                    )
    assert bad == []


def test_the_band_check_sees_a_mark_in_the_margin(tmp_path):
    """The check can fail: a page with a hairline 2 mm from its edge is caught, one at 6 mm is
    not."""
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
from pnpkit.checks import textcheck  # noqa: E402

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
    return write_pack(
        root,
        {
            "game.yaml": "name: T\nlanguages: [en]\nplayers: {min: 1, max: 1}\n",
            "cards.yaml": "cards:\n  kind: card\n  size: poker\n  "
            "front: t.svg.j2\n  items:\n    - {id: one}\n",
            "templates/t.svg.j2": BADGE,
        },
    )


def test_raw_text_is_held_to_the_minimum_size_the_cut_line_and_contrast(tmp_path):
    result = build.validate(text_pack(tmp_path / "probe"))
    found = [str(p).split("probe/", 1)[-1] for p in result.problems]
    assert found == [
        "cards.yaml:6:7: warning: text 'one over the edge' "
        "crosses the cut line (the front of 'one') [text]",
        "templates/t.svg.j2:4:48: warning: text 'tiny' "
        "prints at 5.7pt, below the minimum 6pt [text]",
        "templates/t.svg.j2:8:50: warning: text 'grey' "
        "has a contrast of 3.5:1 with the colour under"
        " it, below 4.5:1 (WCAG) [text]",
    ]  # 4 units under scale(0.5) are 2 mm: 5.7 pt; the 3 mm text is 8.5 pt


GROUNDS = """{% extends "_face.svg.j2" %}{% block content %}
<rect x="-3" y="-3" width="{{ face.w + 6 }}" height="{{ face.h + 6 }}" fill="#1f2a44"/>
<rect x="-3" y="-3" width="{{ face.w + 6 }}" height="20" fill="#ffffff" fill-opacity="0.9"/>
<text x="10" y="8" font-size="3" fill="#1f2a44">washed</text>
<circle cx="30" cy="40" r="12" fill="#ffffff"/>
<text x="17" y="29" font-size="3" fill="#ffffff">corner</text>
<text x="26" y="41" font-size="3" fill="#ffffff">inside</text>
<text x="10" y="60" font-size="3" fill="#1f2a44" stroke="#ffffff" stroke-width="0.4">outlined</text>
<text x="10" y="70" font-size="3" fill="#1f2a44" stroke="#ffffff" stroke-width="0.02">hairline</text>
<text x="10" y="80" font-size="3" fill="#ffffff" fill-opacity="0.3">ghost</text>
<g clip-path="url(#c)"><rect x="0" y="0" width="60" height="200" fill="#ffffff"/></g>
<clipPath id="c"><rect x="0" y="0" width="60" height="10"/></clipPath>
<text x="10" y="86" font-size="3" fill="#ffffff">clipped</text>
{% endblock %}
"""  # noqa: E501 (data: markup and YAML kept as written)


def test_the_ground_under_a_text_is_what_shows_there(tmp_path):
    """A 90% white wash reads as near white; a circle's box corner is not the circle; an outline
    of 0.4 mm makes dark text legible on dark ground, a hairline does not; a ghost is not
    read; a white rect clipped to the top leaves the ground below dark."""
    root = write_pack(
        tmp_path / "probe",
        {
            "game.yaml": "name: T\nlanguages: [en]\nplayers: {min: 1, max: 1}\n",
            "cards.yaml": "cards:\n  kind: card\n  size: 63x88mm\n  "
            "front: t.svg.j2\n  items:\n    - {id: one}\n",
            "templates/t.svg.j2": GROUNDS,
        },
    )
    face = build.validate(root).faces["en"][0]
    flagged = {text: message for text, message in textcheck.problems(face, 6, contrasts=True)}
    assert set(flagged) == {"inside", "hairline"}  # white on the white circle; navy on navy
    found = {t.text: t for t in textcheck.texts(face.drawing)}
    wash = [0.9 + 0.1 * c / 255 for c in (0x1F, 0x2A, 0x44)]  # 90% white over navy
    assert found["washed"].under[:3] == pytest.approx(wash)
    assert found["corner"].under[:3] == pytest.approx((0x1F / 255, 0x2A / 255, 0x44 / 255))
    assert found["inside"].under == (1.0, 1.0, 1.0, 1.0)
    assert found["ghost"].fill is None and found["outlined"].outline is not None
    assert found["clipped"].under[:3] == found["corner"].under[:3]


def test_text_sizes_boxes_and_contrast_are_measured_where_they_print(tmp_path):
    result = build.validate(text_pack(tmp_path / "probe"))
    face = result.faces["en"][0]
    found = {t.text: t for t in textcheck.texts(face.drawing)}
    assert found["tiny"].size_pt == pytest.approx(2 * PT_PER_MM)
    assert found["fine"].box[0] == pytest.approx(
        23
    )  # 20 mm from the trim, bleed-box origin 3 mm out
    assert textcheck.contrast((0, 0, 0), (1, 1, 1)) == pytest.approx(21)
    grey = dict(textcheck.problems(face, 6, safe=3, contrasts=True))["grey"]
    assert (
        grey == "text 'grey' has a contrast of 3.5:1 with the colour under it, below 4.5:1 (WCAG)"
    )


# ------------------------------------------------------------------ label sheets

from pnpkit.kinds import labels  # noqa: E402

LABEL = """{% extends "_face.svg.j2" %}{% block content %}
<rect x="0" y="0" width="{{ face.w }}" height="{{ face.h }}" fill="#ff0000"/>
{% endblock %}
"""


def label_pack(root, sheet="a4-3x7", size="63.5x38.1mm", count=22, extra=""):
    return write_pack(
        root,
        {
            "game.yaml": "name: L\nlanguages: [en]\nplayers: {min: 1, max: 1}\n",
            "labels.yaml": f"stickers:\n  kind: token\n  size: {size}\n "
            f" bleed: 0mm\n  labels: {sheet}\n{extra}"
            f"  front: l.svg.j2\n  items:\n    - {{id: s, count: {count}}}\n",
            "templates/l.svg.j2": LABEL,
        },
    )


@pytest.mark.parametrize("sheet", ["a4-3x7", "letter-3x10"])
def test_labels_print_in_the_cells_of_their_sheet(sheet, tmp_path):
    """Rasterised at 254 dpi (10 px/mm): every red label lies on its cell within 0.2 mm."""
    spec = labels.load(sheet)
    w, h = spec.cell
    out = tmp_path / "out"
    assert (
        main(
            [
                "build",
                str(
                    label_pack(tmp_path / "probe", sheet, f"{w}x{h}mm", count=len(spec.cells()) + 1)
                ),
                "--out",
                str(out),
                "--backs",
                "none",
            ]
        )
        == 0
    )
    document = pypdfium2.PdfDocument(str(out / "probe" / "probe-en.pdf"))
    # the print check, the test page, a full sheet, and a sheet holding the one label left over
    assert len(document) == 4
    assert [round(v, 1) for v in document[2].get_size()] == [
        round(v * PT_PER_MM, 1) for v in spec.paper
    ]
    image = document[2].render(scale=254 / 72).to_pil().convert("RGB")
    r, g, b = image.split()
    mask = ImageChops.multiply(
        r.point(lambda v: 255 if v > 200 else 0),
        ImageChops.multiply(
            g.point(lambda v: 255 if v < 80 else 0), b.point(lambda v: 255 if v < 80 else 0)
        ),
    )
    cols, rows = spec.grid
    for x, y in spec.cells():
        inner = mask.crop(
            tuple(round(v * 10) for v in (x + 0.3, y + 0.3, x + w - 0.3, y + h - 0.3))
        )
        assert inner.getextrema() == (255, 255), (x, y)  # red all over the cell
        # the red run through the cell's middle ends on the cell's edges (on the first and last
        # cell's where labels butt, as a4-3x7's rows do)
        across = run(mask, (x + w / 2) * 10, (y + h / 2) * 10, 1, 0)
        down = run(mask, (x + w / 2) * 10, (y + h / 2) * 10, 0, 1)
        butt_x, butt_y = spec.pitch[0] - w < 0.01, spec.pitch[1] - h < 0.01
        want_x = (
            (spec.first[0], spec.first[0] + (cols - 1) * spec.pitch[0] + w)
            if butt_x
            else (x, x + w)
        )
        want_y = (
            (spec.first[1], spec.first[1] + (rows - 1) * spec.pitch[1] + h)
            if butt_y
            else (y, y + h)
        )
        assert all(abs(a / 10 - b) <= 0.2 for a, b in zip(across, want_x)), (x, y, across, want_x)
        assert all(abs(a / 10 - b) <= 0.2 for a, b in zip(down, want_y)), (x, y, down, want_y)
    last = document[3].render(scale=254 / 72).to_pil().convert("L")
    x, y = spec.cells()[0]
    assert (
        last.getpixel((round((x + w / 2) * 10), round((y + h / 2) * 10))) < 150
    )  # the 22nd/31st label, first cell


def run(mask, x: float, y: float, dx: int, dy: int) -> tuple[int, int]:
    """The ends (px, edges) of the set pixels through (x, y) along (dx, dy)."""
    x, y = round(x), round(y)
    lo = hi = 0
    while mask.getpixel((x - (lo + 1) * dx, y - (lo + 1) * dy)):
        lo += 1
    while mask.getpixel((x + (hi + 1) * dx, y + (hi + 1) * dy)):
        hi += 1
    return (x - lo, y - lo)[dy], (x + hi + 1, y + hi + 1)[dy]


def test_the_test_page_outlines_every_cell(tmp_path):
    spec = labels.load("a4-3x7")
    out = tmp_path / "out"
    assert (
        main(
            [
                "build",
                str(label_pack(tmp_path / "probe", count=1)),
                "--out",
                str(out),
                "--backs",
                "none",
            ]
        )
        == 0
    )
    page = pypdfium2.PdfDocument(str(out / "probe" / "probe-en.pdf"))[1]
    image = page.render(scale=254 / 72, grayscale=True).to_pil()
    assert "label test: print on plain paper" in page.get_textpage().get_text_range()
    for x, y in spec.cells():
        for px, py in (
            (x + spec.cell[0] / 2, y),
            (x, y + spec.cell[1] / 2),
        ):  # the top and left edges
            box = (round(px * 10) - 2, round(py * 10) - 2, round(px * 10) + 3, round(py * 10) + 3)
            assert image.crop(box).getextrema()[0] < 128, (x, y)


def test_label_mistakes_are_located(tmp_path):
    root = label_pack(tmp_path / "one" / "probe", sheet="a4-3x8")
    found = [str(p).split("probe/", 1)[-1] for p in build.validate(root).problems]
    assert found == [
        "labels.yaml:5:11: error: 'labels' must be one of "
        f"{', '.join(labels.names())} (got 'a4-3x8') (did you mean 'a4-3x7'?) [schema]"
    ]
    root = label_pack(tmp_path / "two" / "probe", size="70x40mm")
    found = [str(p).split("probe/", 1)[-1] for p in build.validate(root).problems]
    assert found == [
        "labels.yaml:8:7: error: 's' (70x40mm) is larger "
        "than a label of sheet a4-3x7 (63.5x38.1mm) [layout]"
    ]
    root = label_pack(tmp_path / "three" / "probe", extra="  back: l.svg.j2\n")
    found = [str(p).split("probe/", 1)[-1] for p in build.validate(root).problems]
    assert found == [
        "labels.yaml:6:3: error: a group printed on label "
        "sheets has no back (a label is one-sided) [schema]"
    ]
