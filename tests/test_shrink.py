"""Paper sizes: `fit: shrink` prints a sheet whole on smaller paper (shrink.py), the scale said on
it; a face split over sheets says which paper would hold it whole (split.split_warning)."""

from __future__ import annotations

import pypdfium2
import pytest
from pypdf import PdfReader

from conftest import ROOT, kit_start, write_pack
from pnpkit.build import pipeline as build
from pnpkit.commands.cli import main
from registered import impose

COLOUR = (30, 120, 60)
SOLID = """{% extends "_face.svg.j2" %}{% block content %}
<rect x="{{ -face.bleed }}" y="{{ -face.bleed }}" width="{{ face.w + 2 * face.bleed }}"
 height="{{ face.h + 2 * face.bleed }}" fill="#1e783c"/>
{% endblock %}
"""
DPI = 300
PX = DPI / 25.4


def pack(root, group: str):
    return write_pack(
        root,
        {
            "game.yaml": "name: Fit\nlanguages: [en, it]\nplayers: {min: 1, max: 1}\n",
            "parts.yaml": group,
            "templates/solid.svg.j2": SOLID,
            "templates/_face.svg.j2": (ROOT / "src/pnpkit/templates" / "_face.svg.j2").read_text(),
        },
    )


SHEET = "sheet:\n  kind: sheet\n  size: 277x190mm\n  fit: shrink\n  front: solid.svg.j2\n  items:\n    - {id: mine}\n"  # noqa: E501


BOARD = "map:\n  kind: board\n  size: {size}\n  front: solid.svg.j2\n  items:\n    - {{id: map}}\n"


def built(tmp_path, paper: str) -> tuple[object, object]:
    out = tmp_path / paper
    assert (
        main(["build", str(pack(tmp_path / "fit", SHEET)), "--out", str(out), "--paper", paper])
        == 0
    )
    return out / "fit" / "fit-en.pdf", out / "fit" / "fit-it.pdf"


def green_extent(pdf, index: int) -> tuple[float, float]:
    """The green face's height and width (mm) on the page, as printed (the page is portrait: the
    277 mm sheet stands on it, turned)."""
    image = pypdfium2.PdfDocument(str(pdf))[index].render(scale=DPI / 72).to_pil().convert("RGB")
    rows = [y for y in range(0, image.height, 2) if _green(image.getpixel((image.width // 2, y)))]
    cols = [x for x in range(0, image.width, 2) if _green(image.getpixel((x, image.height // 2)))]
    return (rows[-1] - rows[0] + 2) / PX, (cols[-1] - cols[0] + 2) / PX


def _green(pixel) -> bool:
    return max(abs(a - b) for a, b in zip(pixel, COLOUR)) <= 10


def test_a_sheet_too_large_for_letter_prints_whole_shrunk_and_says_so(tmp_path):
    en, it = built(tmp_path, "letter")
    pages = PdfReader(en).pages
    first = kit_start(en)
    assert len(pages) == first + 2  # whole on one sheet (and its back), not split
    long, short = green_extent(en, first)
    # inside Letter's 5 mm margins 269.4 mm: 277 mm at 97 % is 268.69 mm (its art's edge the cut)
    assert long == pytest.approx(277 * 0.97, abs=0.3) and short == pytest.approx(
        190 * 0.97, abs=0.3
    )
    assert "printed at 97 %" in pages[first].extract_text()
    assert "stampato al 97 %" in PdfReader(it).pages[first].extract_text()  # the kit's words


def test_on_paper_that_holds_it_the_sheet_keeps_its_size(tmp_path):
    en, _ = built(tmp_path, "a4")
    first = kit_start(en)
    long, short = green_extent(en, first)
    # its trim whole, and some of its 3 mm bleed around it
    assert 277 - 0.3 <= long <= 283.3 and 190 - 0.3 <= short <= 196.3
    assert "printed at" not in PdfReader(en).pages[first].extract_text()
    result = build.validate(tmp_path / "fit")
    (face,) = [
        p.face for page in impose(result.faces["en"], result.pack.print)[0] for p in page.placements
    ]
    assert (face.scale, face.size) == (1.0, (277, 190))


@pytest.mark.parametrize("kind", ["card", "tile", "die", "board", "token"])
def test_shrink_is_refused_where_size_matters(tmp_path, kind):
    group = SHEET.replace("kind: sheet", f"kind: {kind}")
    found = [str(p) for p in build.validate(pack(tmp_path / "fit", group)).problems]
    assert any(
        line.endswith(
            "parts.yaml:4:8: error: 'fit: shrink' is for sheets (a player's sheet, a reference "
            f"sheet); a {kind}'s size matters (it must match its sleeves, the board or the other "
            "pieces): it is never shrunk [schema]"
        )
        for line in found
    ), found


def test_a_board_split_on_letter_names_the_paper_that_holds_it_whole(tmp_path):
    board = BOARD.format(size="380x270mm")
    root = pack(tmp_path / "fit", board)
    assert main(["build", str(root), "--out", str(tmp_path / "out"), "--paper", "letter"]) == 0
    (problem,) = build.validate(root, overrides={"paper": "letter"}).problems
    assert str(problem).endswith(
        "parts.yaml:6:7: warning: 'map' (386x276mm with bleed) is split into 4 parts on letter; "
        "a3 paper holds it whole (--paper a3) [layout]"
    )


def test_a_board_as_large_as_a3_says_what_size_prints_whole(tmp_path):
    board = BOARD.format(size="420x297mm")
    root = pack(tmp_path / "fit", board)
    (problem,) = build.validate(root, overrides={"paper": "a3"}).problems
    assert str(problem).endswith(
        "parts.yaml:6:7: warning: 'map' (426x303mm with bleed) is split into 2 parts on a3, as "
        "large as it: inside the 5mm margins at most 410x284mm prints whole (its art's edge the "
        "cut), so a board that size is not split [layout]"
    )


def test_a_face_larger_than_every_paper_is_split_without_a_word(tmp_path):
    board = BOARD.format(size="1000x190mm")  # item 'map': a metre-long track
    assert build.validate(pack(tmp_path / "fit", board), overrides={"paper": "a3"}).problems == []


def test_a_board_split_one_way_that_only_a3_holds_says_nothing_on_a4(tmp_path):
    """The Solar Map's shape on A4: two sheets side by side, as designed; the kit's -a3.pdf
    prints it whole already."""
    board = BOARD.format(size="380x270mm")
    assert build.validate(pack(tmp_path / "fit", board)).problems == []


@pytest.mark.parametrize(
    ("size", "paper", "parts"),
    [
        ("380x270mm", "letter", (2, 2)),  # 270 mm is more than Letter's 269.4 inside its margins
        ("400x190mm", "a4", (1, 2)),  # on landscape paper: 3 columns on portrait
        ("190x400mm", "a4", (2, 1)),  # on portrait paper: the same, the other way up
        ("600x400mm", "a3", (1, 3)),  # three portrait sheets, not 2 x 2 landscape ones
    ],
)
def test_a_board_splits_into_the_fewest_parts(tmp_path, size, paper, parts):
    board = BOARD.format(size=size)
    result = build.validate(pack(tmp_path / "fit", board), ["en"], {"paper": paper})
    tiles = [
        p.tile for page in impose(result.faces["en"], result.pack.print)[0] for p in page.parts
    ]
    assert {(t.rows, t.cols) for t in tiles} == {parts} and len(tiles) == parts[0] * parts[1]
