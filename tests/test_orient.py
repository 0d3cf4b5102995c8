"""One orientation per PDF (orient.py): a landscape page prints turned onto portrait paper, and
its back, turned the same way, still lies behind its front."""

from __future__ import annotations

import pypdfium2
import pytest
from pypdf import PdfReader

from conftest import ROOT, kit_start, write_pack
from pnpkit.commands.cli import main
from pnpkit.impose import orient
from pnpkit.pdf import calibration

DPI = 400
PX = DPI / 25.4  # pixels per mm: 0.1 mm is 1.6 px
FRONT, BACK = (192, 64, 32), (32, 64, 192)
FILL = """{% extends "_face.svg.j2" %}{% block content %}
<rect x="{{ -face.bleed }}" y="{{ -face.bleed }}" width="{{ face.w + 2 * face.bleed }}"
 height="{{ face.h + 2 * face.bleed }}" fill="COLOUR"/>
{% endblock %}
"""


def hex_of(colour: tuple[int, int, int]) -> str:
    return "#" + "".join(f"{v:02x}" for v in colour)


def mat_pack(root):
    """A 260 x 120 mm mat (landscape A4 holds it, portrait does not) with a back of another
    colour, and a poker card that prints on a portrait page."""
    return write_pack(
        root,
        {
            "game.yaml": "name: Mat\nlanguages: [en]\nplayers: {min: 1, max: 1}\n"
            "print:\n  bleed: 3mm\n",
            "mats.yaml": "mat:\n  kind: board\n  size: 260x120mm\n  front: front.svg.j2\n"
            "  back: back.svg.j2\n  items:\n    - {id: mat}\n"
            "cards:\n  kind: card\n  size: poker\n  front: back.svg.j2\n  items:\n"
            "    - {id: card}\n",
            "templates/front.svg.j2": FILL.replace("COLOUR", hex_of(FRONT)),
            "templates/back.svg.j2": FILL.replace("COLOUR", hex_of(BACK)),
            "templates/_face.svg.j2": (ROOT / "src/pnpkit/templates" / "_face.svg.j2").read_text(),
        },
    )


def box_of(image, colour) -> tuple[float, float, float, float]:
    """The box (mm: left, top, right, bottom) of the one rectangle of this colour on the page:
    found on a coarse grid, its edges then walked to the pixel."""
    hits = [
        (x, y)
        for y in range(0, image.height, 8)
        for x in range(0, image.width, 8)
        if _like(image.getpixel((x, y)), colour)
    ]
    assert hits, f"no {colour} on the page"
    xs, ys = sorted(x for x, _ in hits), sorted(y for _, y in hits)
    mid_x, mid_y = xs[len(xs) // 2], ys[len(ys) // 2]
    left = _edge(image, colour, (xs[0], mid_y), (-1, 0))
    right = _edge(image, colour, (xs[-1], mid_y), (1, 0))
    top = _edge(image, colour, (mid_x, ys[0]), (0, -1))
    bottom = _edge(image, colour, (mid_x, ys[-1]), (0, 1))
    return left / PX, top / PX, right / PX, bottom / PX


def _like(pixel, colour) -> bool:
    return max(abs(a - b) for a, b in zip(pixel, colour)) <= 12


def _edge(image, colour, at: tuple[int, int], step: tuple[int, int]) -> float:
    """Where (px, along `step`) the run of the colour from `at` ends: the edge of its last
    pixel."""
    x, y = at
    while 0 <= x + step[0] < image.width and 0 <= y + step[1] < image.height:
        if not _like(image.getpixel((x + step[0], y + step[1])), colour):
            break
        x, y = x + step[0], y + step[1]
    return (x if step[0] else y) + (1 if sum(step) > 0 else 0)


def render(pdf, index: int):
    page = pypdfium2.PdfDocument(str(pdf))[index]
    return page.render(scale=DPI / 72, no_smoothpath=True).to_pil().convert("RGB")


def test_the_turn_maps_a_landscape_page_onto_portrait_paper():
    assert orient.sheet(297, 210) == (210, 297) and orient.sheet(210, 297) == (210, 297)
    assert orient.on_sheet(0, 0, 297, 210) == (0, 297)  # its top-left corner: bottom-left
    assert orient.on_sheet(297, 0, 297, 210) == (0, 0)  # its top along the sheet's left edge
    assert orient.on_sheet(5, 7, 210, 297) == (5, 7)  # a portrait page stays as it is
    # an offset X across, Y down the paper: on a turned page, -Y along its x, X along its y
    assert orient.offset_on_page((1.0, 2.0), 297, 210) == (-2.0, 1.0)


@pytest.mark.parametrize("offset", [(0.0, 0.0), (1.0, 2.0)])
def test_every_page_is_portrait_and_a_turned_back_lies_behind_its_front(tmp_path, offset):
    args = ["--back-offset", f"{offset[0]:g},{offset[1]:g}"] if any(offset) else []
    out = tmp_path / "out"
    assert main(["build", str(mat_pack(tmp_path / "mat")), "--out", str(out), *args]) == 0
    pdf = out / "mat" / "mat-en.pdf"
    pages = PdfReader(pdf).pages
    for n, page in enumerate(pages):
        box = page.mediabox
        assert float(box.width) < float(box.height), n  # portrait paper...
        assert page.get("/Rotate", 0) == 0, n  # ...shown as it is
    # the one sheet: the mat (a landscape page: the card shares it) and its back
    assert len(pages) == kit_start(pdf) + 2
    front, back = render(pdf, len(pages) - 2), render(pdf, len(pages) - 1)
    width = front.width / PX
    fl, ft, fr, fb = box_of(front, FRONT)
    assert fb - ft > 250 and fr - fl < 130  # the mat stands on the sheet: turned a quarter
    bl, bt, br, bb = box_of(back, BACK)
    # long-edge: the paper flips about its vertical axis; the back is the front's mirror image,
    # moved by the back offset measured on the paper (X across, Y down), within 0.1 mm
    dx, dy = offset
    assert abs((width - br) - (fl - dx)) <= 0.1 and abs((width - bl) - (fr - dx)) <= 0.1
    assert abs(bt - (ft + dy)) <= 0.1 and abs(bb - (fb + dy)) <= 0.1


@pytest.mark.parametrize(
    ("backs", "word"),
    [("long-edge", "flip_long"), ("short-edge", "flip_short"), ("gutter-fold", "one_sided")],
)
def test_the_print_check_says_which_way_to_flip(tmp_path, backs, word):
    out = tmp_path / "out"
    assert (
        main(["build", str(mat_pack(tmp_path / "mat")), "--out", str(out), "--backs", backs]) == 0
    )
    check = next(
        " ".join(p.extract_text().split())
        for p in PdfReader(out / "mat" / "mat-en.pdf").pages
        if calibration.WORDS["print_check"] in p.extract_text()
    )
    said = [key for key in calibration.FLIP.values() if calibration.WORDS[key] in check]
    assert said == [word] and calibration.WORDS["all_portrait"] in check
