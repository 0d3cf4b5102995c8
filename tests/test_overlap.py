"""The layout check: a text touching or crossing another text or a stroked line it does not
belong to, a badge grazing a grid line (overlap.py)."""

from __future__ import annotations

import pytest

from conftest import ROOT, write_pack
from pnpkit.build import pipeline as build
from pnpkit.build.cache import Cache
from pnpkit.checks import overlap
from pnpkit.svg.compiler import compile_svg
from pnpkit.svg.drawing import Drawing
from test_textplaces import warnings

GAME = "name: T\nlanguages: [en]\nplayers: {min: 1, max: 1}\n"

# Star Cargo's board in small: the left label strip (edge 9 mm) holding row 10's label, the
# grid's frame, and a 22 mm space (H4) with an inspection magnifier in its top right corner.
# Unfixed: the label's box spans the strip's whole width (3 to 9 mm) and the magnifier's disc
# (r 3.1) comes 0.5 mm from the space's right border; fixed: the label 1 mm clear of each
# side, the disc (r 2.4) 2 mm inside (as components/star-cargo/board.py now draws them).
BOARD = """{% extends "_face.svg.j2" %}{% block content %}
<rect x="-3" y="-3" width="{{ face.w + 6 }}" height="{{ face.h + 6 }}" fill="#d5dbea"/>
<rect x="31" y="9" width="22" height="22" fill="#fbfcff" stroke="#9aa3b8" stroke-width="0.3"/>
<circle cx="{{ 31 + 22 - item.inset }}" cy="12.6" r="{{ item.r }}" fill="#fff4c2" stroke="#1a1a1a" stroke-width="0.35"/>
<rect x="9" y="9" width="44" height="44" fill="none" stroke="#1f2a44" stroke-width="0.6"/>
{{ text_box('10', 3 + item.gap, 31, 6 - 2 * item.gap, 22, size=12, bold=true, anchor='middle', valign='middle', fill='#1f2a44') }}
{% endblock %}
"""  # noqa: E501 (data: markup and YAML kept as written)


def board(root, gap: float, inset: float, r: float):
    items = f"  items:\n    - {{id: galaxy, gap: {gap}, inset: {inset}, r: {r}}}\n"
    return write_pack(
        root,
        {
            "game.yaml": GAME,
            "board.yaml": "board:\n  kind: board\n  size: 60x60mm\n  front: b.svg.j2\n"
            "  fields: {gap: {type: number}, inset: {type: number}, r: {type: number}}\n" + items,
            "templates/b.svg.j2": BOARD,
        },
    )


def test_the_unfixed_star_cargo_board_fires_row_10_and_the_magnifier(tmp_path):
    assert warnings(board(tmp_path / "p", gap=0, inset=3.6, r=3.1)) == [
        "board.yaml:7:7: warning: a badge at 52.4, 15.6 mm touches or crosses a 0.30mm #9aa3b8 "
        "line (34.0, 12.0)-(56.0, 34.0) mm (the front of 'galaxy') [overlap]",
        "templates/b.svg.j2:6:1: warning: text '10' touches or crosses a 0.60mm #1f2a44 line "
        "(12.0, 12.0)-(56.0, 56.0) mm (the front of 'galaxy') [overlap]",
    ]


def test_the_fixed_board_is_clear(tmp_path):
    assert warnings(board(tmp_path / "p", gap=1, inset=4.4, r=2.4)) == []


# What the check lets be: a text on its own panel (a line beneath the panel is hidden), a
# badge on a path's corner (fastened to it), a badge on a curve (an ornament), a space's name
# hidden under a later box; and what it does not: two texts crossing, a text over a line.
CASES = """{% extends "_face.svg.j2" %}{% block content %}
<rect x="-3" y="-3" width="{{ face.w + 6 }}" height="{{ face.h + 6 }}" fill="#ffffff"/>
<line x1="0" y1="10" x2="60" y2="10" stroke="#000000" stroke-width="0.5"/>
<circle cx="20" cy="9.5" r="3" fill="#f2c12e"/>
<text x="18.5" y="10.5" font-size="3" fill="#000000">7</text>
<path d="M5 35 L30 20 L55 35 Z" fill="none" stroke="#6b4f22" stroke-width="0.35"/>
<circle cx="55" cy="35" r="2.5" fill="#0070b0" stroke="#1a1a1a" stroke-width="0.3"/>
<text x="5" y="45" font-size="4" fill="#000000">Crossed</text>
<text x="8" y="46" font-size="4" fill="#000000">words</text>
<text x="2" y="59" font-size="2" fill="#555555">G8</text>
<rect x="1" y="55" width="12" height="12" fill="#fff4c2" stroke="#c8322b" stroke-width="0.9"/>
<circle cx="45" cy="62" r="8" fill="none" stroke="#333333" stroke-width="0.6"/>
<circle cx="53" cy="62" r="2.5" fill="#eeeeee" stroke="#333333" stroke-width="0.3"/>
<text x="5" y="80" font-size="4" fill="#000000">Struck</text>
<line x1="4" y1="79" x2="30" y2="79" stroke="#c8322b" stroke-width="0.4"/>
{% endblock %}
"""


def test_what_fires_and_what_does_not(tmp_path):
    root = write_pack(
        tmp_path / "p",
        {
            "game.yaml": GAME,
            "cards.yaml": "cards:\n  kind: card\n  size: 63x88mm\n  front: t.svg.j2\n"
            "  items:\n    - {id: one}\n",
            "templates/t.svg.j2": CASES,
        },
    )
    face = build.validate(root, cache=Cache()).faces["en"][0]
    assert isinstance(face.drawing, Drawing)
    assert overlap.findings(face.drawing) == [
        ("Crossed", "text 'Crossed' touches or crosses text 'words'"),
        (
            "Struck",
            "text 'Struck' touches or crosses a 0.40mm #c8322b line (7.0, 82.0)-(33.0, 82.0) mm",
        ),
    ]


@pytest.mark.parametrize("kit", ["star-cargo", "mlem", "mammoth-herd", "anunnaki"])
def test_the_kits_have_no_text_touching_what_it_does_not_belong_to(kit):
    result = build.validate(ROOT / "components" / kit, cache=Cache())
    assert [str(p) for p in result.problems if p.rule == "overlap"] == []


def drawn(body: str) -> Drawing:
    return compile_svg(
        '<svg xmlns="http://www.w3.org/2000/svg" width="60mm" height="60mm" viewBox="0 0 60 60">'
        f"{body}</svg>"
    )


# A face with a lone text, or texts and no line, skips most of the check: what it can still hold
# fires (a lone text on a line, two texts crossing), what it cannot does not.
def test_a_lone_text_on_a_line_and_two_crossing_texts_without_lines_still_fire():
    lone = '<text x="5" y="20" font-size="4">Alone</text>'
    assert overlap.findings(drawn(lone)) == []
    on_line = lone + '<line x1="0" y1="19" x2="50" y2="19" stroke="#000000" stroke-width="0.3"/>'
    assert overlap.findings(drawn(on_line)) == [
        (
            "Alone",
            "text 'Alone' touches or crosses a 0.30mm #000000 line (0.0, 19.0)-(50.0, 19.0) mm",
        )
    ]
    crossed = lone + '<text x="8" y="21" font-size="4">Other</text>'
    assert overlap.findings(drawn(crossed)) == [
        ("Alone", "text 'Alone' touches or crosses text 'Other'")
    ]


# A frame's stretches are asked only where a text comes near them, its rounded corners flattened
# only then: a text in the frame's middle is clear of it, one on a corner's curve touches it, and
# one on the curve's bounds but inside its bend is clear.
FRAME = (
    '<rect x="2" y="2" width="56" height="56" rx="10" fill="none" stroke="#333333"'
    ' stroke-width="0.6"/>'
)


@pytest.mark.parametrize(
    ("x", "y", "fires"), [(20, 30, False), (3.5, 7, True), (6, 10, False), (49, 57, True)]
)
def test_a_text_on_a_frames_rounded_corner_fires_and_one_inside_its_bend_does_not(x, y, fires):
    text = f'<text x="{x}" y="{y}" font-size="3">Corner</text>'
    frame = "a 0.60mm #333333 line (2.0, 2.0)-(58.0, 58.0) mm"
    expected = [("Corner", f"text 'Corner' touches or crosses {frame}")] if fires else []
    assert overlap.findings(drawn(FRAME + text)) == expected


# The rule travels with each finding: a text check's message that quotes a card's text reading
# "touches or crosses" is still the text check's, and the layout check's stays its own.
WORDING = """{% extends "_face.svg.j2" %}{% block content %}
<text x="-2" y="10" font-size="4" fill="#000000">it touches or crosses us</text>
<text x="5" y="45" font-size="4" fill="#000000">Crossed</text>
<text x="8" y="46" font-size="4" fill="#000000">words</text>
{% endblock %}
"""


def test_each_finding_keeps_the_rule_of_the_check_that_made_it(tmp_path):
    root = write_pack(
        tmp_path / "p",
        {
            "game.yaml": GAME,
            "cards.yaml": "cards:\n  kind: card\n  size: 63x88mm\n  front: t.svg.j2\n"
            "  items:\n    - {id: one}\n",
            "templates/t.svg.j2": WORDING,
        },
    )
    assert warnings(root) == [
        "templates/t.svg.j2:2:50: warning: text 'it touches or crosses us' crosses the cut line "
        "[text]",
        "templates/t.svg.j2:3:49: warning: text 'Crossed' touches or crosses text 'words' "
        "[overlap]",
    ]
