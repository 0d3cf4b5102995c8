"""The low-ink home sheets: large fills lightened by the declared rule, details kept, text
contrast kept."""

from __future__ import annotations

import pypdfium2
import pytest

from conftest import ROOT, write_pack
from pnpkit.commands.cli import main
from pnpkit.export import lowink
from pnpkit.svg.compiler import compile_svg
from pnpkit.svg.ops import PathOp, TextOp

NAVY = (0x20 / 255, 0x20 / 255, 0x60 / 255)
SVG = """<svg xmlns="http://www.w3.org/2000/svg" width="60mm" height="90mm" viewBox="0 0 60 90">
<rect x="0" y="0" width="60" height="90" fill="#202060"/>
<circle cx="30" cy="20" r="2" fill="#d02020"/>
<g transform="translate(5 40)"><text x="0" y="10" font-size="5" fill="#ffffff">Title</text></g>
<text x="5" y="70" font-size="5" fill="#ffff80" stroke="#000000">Keeps</text>
</svg>"""


def test_large_fills_keep_the_declared_share_of_ink_and_details_keep_their_colour():
    result = lowink.lighten(compile_svg(SVG), lowink.Rule(keep=0.35, min_area=100))
    paths = [op for op in result.drawing.ops if isinstance(op, PathOp)]
    background, icon = paths[0].fill, paths[1].fill
    assert background[:3] == pytest.approx(tuple(1 - (1 - c) * 0.35 for c in NAVY))
    assert icon[:3] == pytest.approx((0xD0 / 255, 0x20 / 255, 0x20 / 255))  # 12.6 mm^2: a detail


def test_text_that_lost_its_contrast_turns_black_and_text_that_kept_it_stays():
    result = lowink.lighten(compile_svg(SVG), lowink.Rule(keep=0.35, min_area=100))
    texts = [op for op in result.drawing.ops if isinstance(op, TextOp)]
    background = next(op for op in result.drawing.ops if isinstance(op, PathOp)).fill.rgb
    assert (
        lowink.contrast((1, 1, 1), background) < lowink.MIN_CONTRAST
    )  # white on the lightened navy would not read
    assert (
        texts[0].fill.rgb == (0.0, 0.0, 0.0)
        and lowink.contrast((0, 0, 0), background) >= lowink.MIN_CONTRAST
    )
    assert texts[1].fill.rgb == (
        0.0,
        0.0,
        0.0,
    )  # pale yellow had contrast on navy; on the light background black reads
    assert result.contrast_fixes == 2


def test_contrast_is_the_wcag_ratio():
    assert lowink.contrast((0, 0, 0), (1, 1, 1)) == pytest.approx(21.0)
    assert lowink.contrast((0.5, 0.5, 0.5), (0.5, 0.5, 0.5)) == pytest.approx(1.0)


def test_the_low_ink_sheets_are_built_beside_the_normal_ones_and_lighter(tmp_path):
    template = (
        '{% extends "_face.svg.j2" %}{% block content '
        '%}<rect x="{{ -face.bleed }}" y="{{ -face.bleed }}" '
        'width="{{ face.w + 2 * face.bleed }}" height="{{ '
        'face.h + 2 * face.bleed }}" fill="#202060"/>'
        '<text x="5" y="20" font-size="6" fill="#ffffff">Card</text>{% endblock %}'
    )
    pack = write_pack(
        tmp_path / "ink",
        {
            "game.yaml": "name: Ink\nlanguages: [en]\nplayers: {min: 1, max: 1}\n",
            "cards.yaml": "cards:\n  kind: card\n  size: poker\n  front: "
            "c.svg.j2\n  items:\n    - {id: a, count: 9}\n",
            "templates/c.svg.j2": template,
            "templates/_face.svg.j2": (ROOT / "src/pnpkit/templates" / "_face.svg.j2").read_text(),
        },
    )
    assert main(["build", str(pack), "--out", str(tmp_path / "out"), "--profile", "low-ink"]) == 0
    normal = tmp_path / "out" / "ink" / "ink-en.pdf"
    low = tmp_path / "out" / "ink" / "low-ink" / "en" / "ink-en-low-ink.pdf"
    a, b = pypdfium2.PdfDocument(str(normal)), pypdfium2.PdfDocument(str(low))
    assert len(a) == len(b)
    page = len(a) - 2  # the page of fronts (the last is its back)
    centre = [doc[page].render(scale=1).to_pil().getpixel((298, 421)) for doc in (a, b)]
    assert centre[0] == pytest.approx((0x20, 0x20, 0x60), abs=3)
    assert centre[1] == pytest.approx(
        tuple(round(255 - (255 - c) * 0.35) for c in (0x20, 0x20, 0x60)), abs=3
    )
