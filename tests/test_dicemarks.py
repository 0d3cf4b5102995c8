"""A die's net says how it is made (docs/dice.md): the kit's word for "glue" inside each glue
tab its template marks, and for "fold" across each fold between two squares, in the pack's
language (a pack's own pnpkit_guide_* string first); a tab with the template's own word gets
none."""

from __future__ import annotations

import pypdfium2
import pytest

from conftest import ROOT, kit_start, page_texts, write_pack
from pnpkit.build.pipeline import validate
from pnpkit.commands.cli import main
from pnpkit.kinds import dice
from pnpkit.pdf import guidewords
from registered import impose
from test_dice import DICE, STICKER

GAME = """name: Dice words
languages: [pl, en]
players: {min: 1, max: 4}
strings:
  pnpkit_guide_glue: {en: paste}
"""
# the first tab carries the template's own word ('own'): pnpkit writes none there
NET = """{% extends "_face.svg.j2" %}{% block content %}
{% set net = die_net(face, item.faces, item.opposite, 16, 5) %}
{% for i in range(net.tabs | length) %}<polygon points="{{ net.tab_points(i) }}" fill="#cccccc" data-die-tab="{{ 'own' if i == 0 else 'glue' }}"/>{% endfor %}
{% for f in net.faces %}<rect x="{{ f.x }}" y="{{ f.y }}" width="16" height="16" fill="#fdf6e3" data-die-face="{{ f.value }}"/>{% endfor %}
{% set t = net.tabs[0] %}{% set cx = (t[0][0] + t[1][0] + t[2][0] + t[3][0]) / 4 %}{% set cy = (t[0][1] + t[1][1] + t[2][1] + t[3][1]) / 4 %}
{{ text_box('own', cx - 3, cy - 1.3, 6, 2.6, size=6, anchor='middle', valign='middle') }}
<path d="{{ net.fold_path }}" fill="none" stroke="#5c677d" stroke-width="0.3" stroke-dasharray="1.2 0.9"/>
<path d="{{ net.cut_path }}" fill="none" stroke="#000000" stroke-width="0.3"/>{% endblock %}
"""  # noqa: E501 (data: markup and YAML kept as written)
PT = 72 / 25.4  # PDF points per mm


def probe(root, net):
    """The pack with a die drawn by `net` (and test_dice's sticker sheet of it)."""
    face = (ROOT / "src/pnpkit/templates" / "_face.svg.j2").read_text()
    files = {"game.yaml": GAME, "dice.yaml": DICE.replace("COUNT", "1")}
    files.update({"templates/net.svg.j2": net, "templates/sticker.svg.j2": STICKER})
    return write_pack(root / "probe", {**files, "templates/_face.svg.j2": face})


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The pack built in both its languages: (pack folder, {lang: PDF path})."""
    root = tmp_path_factory.mktemp("dicemarks")
    pack = probe(root, NET)
    assert main(["build", str(pack), "--out", str(root / "out"), "--strict"]) == 0
    return pack, {lang: root / "out" / "probe" / f"probe-{lang}.pdf" for lang in ("pl", "en")}


def words_at(pdf, lang, pack):
    """Each word on the die's page with the centre of its box, in mm of the face (y down)."""
    result = validate(pack)
    pages, problems = impose(result.faces[lang], result.pack.print)
    assert problems == []
    n, placement = next(
        (n, p) for n, page in enumerate(pages) for p in page.placements if p.face.kind == "die"
    )
    doc = pypdfium2.PdfDocument(str(pdf))
    text = doc[kit_start(pdf) + n].get_textpage()
    found, word, boxes = [], "", []
    for i in range(text.count_chars() + 1):
        ch = text.get_text_range(i, 1) if i < text.count_chars() else " "
        if ch.strip():
            word += ch
            boxes.append(text.get_charbox(i))
            continue
        if word:
            left, bottom = min(b[0] for b in boxes), min(b[1] for b in boxes)
            right, top = max(b[2] for b in boxes), max(b[3] for b in boxes)
            x = (left + right) / 2 / PT - placement.x
            y = pages[n].h - (bottom + top) / 2 / PT - placement.y
            found.append((word, (x, y)))
        word, boxes = "", []
    return found, dice.drawn_net(placement.face.svg)


def inside(poly, point) -> bool:
    x, y = point
    crossings = 0
    for (ax, ay), (bx, by) in zip(poly, poly[1:] + poly[:1]):
        if (ay > y) != (by > y) and x < ax + (y - ay) * (bx - ax) / (by - ay):
            crossings += 1
    return crossings % 2 == 1


@pytest.mark.parametrize("lang", ["pl", "en"])
def test_a_die_net_says_glue_on_its_tabs_and_fold_on_its_folds_in_the_kits_language(built, lang):
    pack, pdfs = built
    glue = {"pl": guidewords.words("pl", {})["glue"], "en": "paste"}[lang]  # en: the pack's own
    fold = guidewords.words(lang, {})["fold"]
    assert (glue, fold) in (("sklej", "zegnij"), ("paste", "fold"))
    found, net = words_at(pdfs[lang], lang, pack)
    glued = [at for word, at in found if word == glue]
    folded = [at for word, at in found if word == fold]
    assert [word for word, _ in found if word == "own"] == ["own"]
    # one word in each of the six tabs pnpkit marks, none in the tab with its own word
    (own, _), *marked = net.tabs
    assert len(glued) == len(marked) == 6
    assert sorted(next(i for i, (t, _) in enumerate(marked) if inside(t, at)) for at in glued) == [
        0,
        1,
        2,
        3,
        4,
        5,
    ]
    assert not any(inside(own, at) for at in glued)
    # one word on the middle of each of the five folds between squares
    assert len(folded) == len(net.folds) == 5
    for x1, y1, x2, y2 in net.folds:
        middle = ((x1 + x2) / 2, (y1 + y2) / 2)
        assert any(abs(x - middle[0]) < 0.6 and abs(y - middle[1]) < 0.6 for x, y in folded)


def test_a_net_whose_squares_are_not_marked_gets_no_words(tmp_path):
    """Without data-die-face the PDF cannot tell the net's squares, nor so its folds: the net's
    own lines say how it is made."""
    pack = probe(tmp_path, NET.replace(' data-die-face="{{ f.value }}"', ""))
    assert main(["build", str(pack), "--lang", "en", "--out", str(tmp_path / "out")]) == 0
    pdf = tmp_path / "out" / "probe" / "probe-en.pdf"
    text = " ".join(page_texts(pdf)[kit_start(pdf) :])
    assert "own" in text and "paste" not in text and "fold" not in text.split()


@pytest.mark.parametrize(
    "markup, message",
    [
        ('<rect x="0" y="0" width="5" height="5" data-die-tab="glue"/>', "marks a <polygon>"),
        ('<polygon points="0,0 1,x 2,2" data-die-tab="glue"/>', "needs plain numbers"),
        ('<polygon points="0,0 1,1" data-die-tab="glue"/>', "three or more finite points"),
    ],
)
def test_a_tab_that_is_not_a_plain_polygon_is_said(markup, message):
    squares = "".join(
        f'<rect x="{16 * c}" y="{16 * r}" width="16" height="16" data-die-face="{n}"/>'
        for n, (c, r) in enumerate(dice.NETS["cross"], 1)
    )
    svg = f'<svg xmlns="http://www.w3.org/2000/svg">{squares}{markup}</svg>'
    with pytest.raises(dice.DieError, match=message):
        dice.drawn_net(svg)
