"""Where a board split over sheets is cut: between its texts (impose/cuts.py)."""

from __future__ import annotations

import dataclasses

import pypdfium2
import pytest

from conftest import ROOT, write_pack
from pnpkit.build import pipeline as build
from pnpkit.commands.cli import main
from pnpkit.impose import cuts
from pnpkit.impose.paper import face_area
from pnpkit.units import PT_PER_MM

OVERLAP = 12.0  # mm: print.overlap's default
A4 = (210.0, 297.0)

# a board with a title whose middle the plain cut on A4 (a window of 193 mm from the bleed's
# edge, less the overlap: x = 181 mm of the bleed box) would fall through
TITLED = """{% extends "_face.svg.j2" %}{% block content %}
<rect x="{{ -face.bleed }}" y="{{ -face.bleed }}" width="{{ face.w + 2 * face.bleed }}"
 height="{{ face.h + 2 * face.bleed }}" fill="#dde8f0"/>
<text x="{{ item.x }}" y="40" font-size="{{ item.size }}" text-anchor="middle"
 fill="#102030">{{ item.title }}</text>
{% endblock %}
"""


def board_pack(root, size: str, x: int, title: str, letters: int = 8):
    return write_pack(
        root,
        {
            "game.yaml": "name: Cuts\nlanguages: [en]\nplayers: {min: 1, max: 1}\n",
            "board.yaml": f"board:\n  kind: board\n  size: {size}\n  front: titled.svg.j2\n"
            "  fields: {title: string, x: number, size: number}\n"
            f"  items:\n    - {{id: map, title: '{title}', x: {x}, size: {letters}}}\n",
            "templates/titled.svg.j2": TITLED,
            "templates/_face.svg.j2": (ROOT / "src/pnpkit/templates" / "_face.svg.j2").read_text(),
        },
    )


def title_span(pdf, page_no: int, title: str, origin: float, start: float) -> tuple[float, float]:
    """Where the title's letters are on a part's page, in the board's own mm (the part's window
    starts at `start` of the board, drawn from `origin` mm of the page)."""
    page = pypdfium2.PdfDocument(pdf)[page_no]
    text = page.get_textpage()
    found = text.get_text_range()
    at = found.index(title)
    boxes = [text.get_charbox(at + i) for i in range(len(title)) if not title[i].isspace()]
    left = min(b[0] for b in boxes) / PT_PER_MM
    right = max(b[2] for b in boxes) / PT_PER_MM
    return left - origin + start, right - origin + start


def test_a_board_is_cut_beside_its_title_rather_than_through_it(tmp_path):
    root = board_pack(tmp_path / "cuts", "300x270mm", 190, "STARFREIGHT GALAXY")
    result = build.validate(root)
    assert [str(p) for p in result.problems] == []
    parts = [p.placements[0] for p in result.pages["en"] if p.tile is not None]
    first, second = (p.tile for p in parts)
    assert first is not None and second is not None
    seam, far = second.window[0], first.window[2]  # the second part is cut at its near edge
    assert far - seam == pytest.approx(OVERLAP)
    left, _, right, _ = face_area(dataclasses.replace(result.pack.print, backs="none"), A4)
    plain = cuts.even(0.0, 306.0, right - left, OVERLAP, 2)[1][0]  # where the cut fell before
    assert main(["build", str(root), "--out", str(tmp_path / "out")]) == 0
    pdf = tmp_path / "out" / "cuts" / "cuts-en.pdf"
    pages = [
        n
        for n in range(len(pypdfium2.PdfDocument(pdf)))
        if "sheet A2 of 1x2" in pypdfium2.PdfDocument(pdf)[n].get_textpage().get_text_range()
    ]
    left, right = title_span(pdf, pages[0], "STARFREIGHT GALAXY", second.origin[0], seam)
    assert left < plain < right  # the plain cut would have gone through the title
    # both edges of the overlap band clear the title (1 mm), which the second part shows whole
    assert seam < far <= left - cuts.CLEAR
    assert right - left > 60


def test_a_board_no_cut_can_clear_says_so_naming_the_board_and_the_paper(tmp_path):
    # 380 mm over two A4 sheets (without its bleed and crop marks: 200 mm each): the seam may
    # fall only within a few mm of the middle, where the title is
    root = board_pack(tmp_path / "cuts", "380x270mm", 190, "STARFREIGHT GALAXY")
    (problem,) = [str(p) for p in build.validate(root).problems]
    assert problem.endswith(
        "board.yaml:7:7: warning: 'map' (386x276mm with bleed) is split on a4 paper with no cut "
        "between its texts: a part's edge crosses 'STARFREIGHT GALAXY' (leave a gap across the "
        "board where it can be cut, or choose other paper) [layout]"
    )


class TestWindows:
    def test_without_texts_the_windows_are_the_plain_ones_to_the_last_bit(self):
        assert cuts.windows(3.0, 606.0, 200.0, 12.0, 4, []) == cuts.even(3.0, 606.0, 200.0, 12.0, 4)

    def test_a_cut_moves_back_until_neither_band_edge_meets_a_text(self):
        # plain: the second window starts at 188, its band 188..200; a text at 195..205
        (a, b), (c, d) = cuts.windows(0.0, 300.0, 200.0, 12.0, 2, [(195.0, 205.0)])
        assert (c, b) == (195.0 - 1.0 - 12.0, 195.0 - 1.0) and (a, d) == (0.0, 300.0)

    def test_the_seam_alone_clears_a_text_when_the_band_cannot(self):
        # an 11 mm text in every 20 mm: no 12 mm band's edges both fit between two, a seam does
        spans = [(k * 20.0 + 4, k * 20.0 + 15) for k in range(20)]
        assert cuts.windows(0.0, 300.0, 200.0, 12.0, 2, spans) is None
        (_, b), (c, _) = cuts.windows(0.0, 300.0, 200.0, 12.0, 2, spans, far=False)
        assert (c, b) == (183.0, 195.0)  # 175 + 1 <= seam <= 184 - 1: the texts about it

    def test_no_windows_when_the_last_part_would_be_too_long(self):
        assert cuts.windows(0.0, 386.0, 200.0, 12.0, 2, [(150.0, 230.0)], far=False) is None
