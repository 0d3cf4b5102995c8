"""The kit guide (guide.py) at the head of each kit PDF, read back from the PDF's text as a player
reads it, and the tuck box nets (tuckbox.py): their panels fold to a box that holds the deck, and
the printed net is that size."""

from __future__ import annotations

import dataclasses
import re
from collections import Counter

import pypdfium2
import pytest

from conftest import ROOT, write_pack
from pnpkit.build.pipeline import validate
from pnpkit.commands.cli import main
from pnpkit.impose.page import FOLD_BLOCKS
from pnpkit.kit import guide, tuckbox
from pnpkit.pack.model import TuckSpec
from pnpkit.pack.schema import load_pack
from pnpkit.pdf import calibration

S = ROOT / "components" / "star-cargo"


@pytest.fixture(scope="module")
def cargo(tmp_path_factory):
    """Starfreight built once (both languages), and its checked pack with its layout."""
    out = tmp_path_factory.mktemp("guide")
    assert main(["build", str(S), "--out", str(out)]) == 0
    return out / "star-cargo", validate(S)


def texts(pdf) -> list[str]:
    """Each page's text, as pdfium extracts it (lines joined by single spaces)."""
    doc = pypdfium2.PdfDocument(str(pdf))
    return [" ".join(doc[i].get_textpage().get_text_range().split()) for i in range(len(doc))]


def test_the_cover_names_the_game_and_lists_every_group_with_its_count(cargo):
    out, result = cargo
    pack = result.pack
    for lang, contents, tuck in (("en", "Contents", "Tuck box"), ("eo", "Enhavo", "Skatoleto")):
        first = texts(out / f"star-cargo-{lang}.pdf")[0]
        assert first.startswith(pack.name[lang] + " ")  # the title opens the kit
        listed = first.split(contents, 1)[1]
        for group in pack.groups.values():
            w, h = group.size
            row = f"{guide.group_name(pack, group.name, lang)} {group.total} {w:g} × {h:g} mm"
            assert row in listed, (lang, row)
        names = {"en": "Movement cards", "eo": "Movadaj kartoj"}
        assert f"{tuck}: {names[lang]} 1 64.5 × 89.9 × 15.4 mm" in listed
        supplies = pack.guide.supplies[0][lang]
        assert f"• {supplies}" in first


@pytest.mark.parametrize("lang", ["en", "eo"])
def test_the_sheet_map_gives_the_pages_where_the_items_are(cargo, lang):
    """Every imposed sheet is in the map under the page numbers its own footer prints, with the
    groups and copies the layout put on it; the tuck box's sheet last."""
    out, result = cargo
    pack = result.pack
    pages = texts(out / f"star-cargo-{lang}.pdf")
    total = len(pages)
    fronts = [n for n, text in enumerate(pages, 1) if re.search(r" · (front|antaŭo) · ", text)]
    guide_text = " ".join(t for t in pages if re.search(r" · (guide|gvidilo) · \d+/", t))
    layout_fronts = [p for p in result.pages[lang] if p.side == "front"]
    assert len(fronts) == len(layout_fronts) > 10
    for n, page in zip(fronts, layout_fronts):
        assert f" · {n}/{total}" in pages[n - 1] and f" · {n + 1}/{total}" in pages[n]
        copies = Counter(
            p.face.group for p in page.placements if p.block < FOLD_BLOCKS and p.tile is None
        )
        row = guide_text.split(f" {n}–{n + 1} ", 1)[1].split(f" {n + 2}–{n + 3} ", 1)[0]
        for group, count in copies.items():
            assert f"{guide.group_name(pack, group, lang)} ({count})" in row, (n, group, row)
        for part in page.parts:
            assert f"part {part.tile.name} of 2" in row or f"parto {part.tile.name} el 2" in row
    tuck = fronts[-1] + 2
    assert f" {tuck}–{tuck + 1} " in guide_text
    assert re.search(rf" · (tuck box|skatoleto): \S+ \S+ × 48 · {tuck}/{total}$", pages[tuck - 1])
    check = pages[fronts[0] - 3]  # the print check's front, just before the kit's first sheet
    assert ("Print check" if lang == "en" else "Presa kontrolo") in check


def test_no_guide_leaves_the_print_check_first(tmp_path):
    """--no-guide: the PDF opens with the print check, and holds nothing else of the guide."""
    out = tmp_path / "out"
    pack = ROOT / "components" / "mammoth-herd"
    assert main(["build", str(pack), "--out", str(out), "--no-guide", "--lang", "en"]) == 0
    pages = texts(out / "mammoth-herd" / "mammoth-herd-en.pdf")
    result = validate(pack, ["en"])
    assert len(pages) == calibration.page_count("long-edge") + len(result.pages["en"])
    assert "Print check" in pages[0] and not any(" · guide · " in t for t in pages)


def test_the_tuck_box_folds_to_a_box_holding_the_deck():
    """The movement deck's net: front and back as large as a card plus the clearance, sides,
    lids and dust flaps as deep as 48 cards, each panel joined where it folds."""
    pack, problems = load_pack(S)
    assert problems == []
    deck = pack.groups["movement"]
    assert deck.tuckbox == TuckSpec(thickness=0.3, clearance=1.0)
    (net,) = tuckbox.nets(deck, (190, 270))
    w, h = deck.size
    depth = 48 * 0.3 + 1.0
    assert net.inner == pytest.approx((w + 1, h + 1, depth))
    P = {p.name: p.rect for p in net.panels}
    for name in ("front", "back"):
        assert P[name][2:] == pytest.approx((w + 1, h + 1))
    for name in ("side-1", "side-2"):
        assert P[name][2:] == pytest.approx((depth, h + 1))
    for name in ("lid-top", "lid-bottom"):
        assert P[name][2:] == pytest.approx((w + 1, depth))  # the lid spans the box's top
    # left to right: glue, front, side, back, side, each starting where the last ends
    row = [P[n] for n in ("glue", "front", "side-1", "back", "side-2")]
    for a, b in zip(row, row[1:]):
        assert a[0] + a[2] == pytest.approx(b[0])
    assert P["lid-top"][1] + P["lid-top"][3] == pytest.approx(P["back"][1])  # on the back's top
    assert P["tuck-top"][1] + P["tuck-top"][3] == pytest.approx(P["lid-top"][1])
    assert P["lid-bottom"][1] == pytest.approx(P["back"][1] + P["back"][3])
    folds = len(net.folds)
    assert folds == 12  # 4 between the panels, 4 at the lids and tucks, 4 under dust flaps
    # folded: the sides and lids close a box of the deck's size; the deck's 48 cards fit
    assert P["front"][2] >= w and P["front"][3] >= h and P["side-1"][2] >= 48 * 0.3


def test_the_printed_net_has_the_size_of_its_panels(cargo):
    """The tuck box sheet, rasterised: the cut outline's ink spans the net's width and height."""
    out, result = cargo
    doc = pypdfium2.PdfDocument(str(out / "star-cargo-en.pdf"))
    image = doc[len(doc) - 2].render(scale=10 / (72 / 25.4)).to_pil().convert("L")  # 10 px a mm
    width, height = image.size
    pixels = image.load()
    ink = [  # above the footer's label (the bottom 12 mm)
        (x, y) for y in range(height - 120) for x in range(width) if pixels[x, y] < 100
    ]
    xs, ys = [x for x, _ in ink], [y for _, y in ink]
    (net,) = tuckbox.nets(result.pack.groups["movement"], (190, 270))
    nw, nh = net.size
    assert (max(xs) - min(xs)) / 10 == pytest.approx(nw, abs=1.0)
    assert (max(ys) - min(ys)) / 10 == pytest.approx(nh, abs=1.0)


def test_a_deck_too_large_for_one_sheet_is_split_into_two_parts_that_join():
    pack, _ = load_pack(S)
    big = dataclasses.replace(pack.groups["movement"], size=(120.0, 180.0))  # 2 x 121 + 31 wide
    first, second = tuckbox.nets(big, (190, 270))
    assert (first.part, second.part, first.parts) == (1, 2, 2)
    assert {p.name for p in first.panels} == {
        "glue",
        "front",
        "side-1",
        "dust-1-top",
        "dust-1-bottom",
        "join",
    }
    assert {"back", "side-2", "lid-top", "tuck-top"} <= {p.name for p in second.panels}
    for part in (first, second):
        w, h = part.size
        assert (w <= 190 and h <= 270) or (h <= 190 and w <= 270)
    join, back = first.panel("join").rect, second.panel("back").rect
    assert join[3] < back[3]  # the join tab glues under the back panel's edge


def write_probe(root, extra_game="", extra_group=""):
    return write_pack(
        root,
        {
            "game.yaml": "name: Probe\nlanguages: [en]\nplayers: {min: 1, max: 1}\n" + extra_game,
            "cards.yaml": "cards:\n  kind: card\n  size: poker\n  front: f.svg.j2\n"
            + extra_group
            + "  items:\n    - {id: a, count: 3}\n",
            "templates/f.svg.j2": '{% extends "_face.svg.j2" %}{% block content %}'
            '<rect width="10" height="10"/>{% endblock %}\n',
            "templates/_face.svg.j2": (ROOT / "src/pnpkit/templates/_face.svg.j2").read_text(),
        },
    )


def located(problems) -> list[str]:
    return sorted(
        f"{p.where.file.rsplit('/', 1)[1]}:{p.where.line}:{p.where.column}: {p.message}"
        for p in problems
    )


def test_guide_and_tuckbox_mistakes_are_located_errors(tmp_path):
    root = write_probe(tmp_path / "t", "guide: {}\n", "  tuckbox: {thickness: 9mm}\n")
    pack, problems = load_pack(root)
    assert pack is None
    assert located(problems) == [
        "cards.yaml:5:24: 'thickness' must be more than 0 and at most 5mm (got 9mm)"
    ]
    root = write_probe(
        tmp_path / "g", "guide: {cover: crads/a, names: {cards: Cards, dice: Dice}}\n"
    )
    pack, problems = load_pack(root)
    assert pack is None
    assert located(problems) == [
        "game.yaml:4:16: no group 'crads' (did you mean 'cards'?)",
        "game.yaml:4:47: no group 'dice'",
    ]


def test_a_group_that_failed_to_load_is_not_also_missing_from_the_guide(tmp_path):
    root = write_probe(tmp_path / "p", "guide: {names: {cards: Cards}}\n", "  kin: card\n")
    _, problems = load_pack(root)
    assert located(problems) == [
        "cards.yaml:5:3: unknown key 'kin' in group 'cards' (did you mean 'kind'?)"
    ]


def test_a_pack_gives_its_own_guide_words(tmp_path):
    root = write_probe(
        tmp_path / "p",
        "strings:\n  pnpkit_guide_contents: {en: In the box}\n"
        "guide: {steps: [Sleeve the cards.], supplies: [a pencil]}\n",
    )
    out = tmp_path / "out"
    assert main(["build", str(root), "--out", str(out)]) == 0
    pages = texts(out / "p" / "p-en.pdf")
    assert pages[0].startswith("Probe Print-and-play kit · players: 1 ")
    assert "In the box" in pages[0] and "Contents" not in pages[0]
    assert "• a pencil" in pages[0]
    assert "Assembly Cards: cut along" in pages[1] and "Sleeve the cards." in pages[1]


def test_a_language_without_guide_words_falls_back_to_english_with_a_warning(tmp_path):
    root = write_pack(
        tmp_path / "p",
        {
            "game.yaml": "name: Probe\nlanguages: [en, de]\nplayers: {min: 1, max: 2}\n"
            "guide: {}\nstrings:\n  pnpkit_guide_contents: {en: Contents, de: Inhalt}\n",
        },
    )
    result = validate(root)
    warnings = [p.message for p in result.problems if p.rule == "words" and "guide" in p.message]
    assert warnings == [
        "pnpkit has no words for its kit guide in 'de'; it prints them in English (strings "
        "pnpkit_guide_kit ... pnpkit_guide_guide give them: docs/kit-guide.md)"
    ]
    kit = guide.plan(result.pack, "de", [], [])
    assert kit.words["contents"] == "Inhalt" and kit.words["cut"] == "cut"


def test_the_print_checks_height_runs_along_its_left_targets(tmp_path):
    """The distance between the left corner targets reads along their line, as the width reads
    under the bottom ones (it stood alone mid-page as '↕ 267 mm', beside nothing it measured)."""
    root = write_probe(tmp_path / "p")
    assert main(["build", str(root), "--out", str(tmp_path / "out")]) == 0
    page = pypdfium2.PdfDocument(str(tmp_path / "out" / "p" / "p-en.pdf"))[0]
    text, mm = page.get_textpage(), 72 / 25.4
    height = page.get_height()
    boxes = {}
    for i in range(text.count_chars()):
        left, bottom, right, top = text.get_charbox(i)
        if right / mm < 15.0:  # left of the targets' line (15 mm in from the paper's edge)
            boxes.setdefault(text.get_text_range(i, 1), []).append((left / mm, (height - top) / mm))
    digits = [boxes[d][0] for d in "267"]
    xs, ys = [x for x, _ in digits], [y for _, y in digits]
    assert max(xs) - min(xs) < 0.5  # one column: the label is turned along the line
    assert ys[0] > ys[1] > ys[2]  # read bottom to top
    assert abs(sum(ys) / 3 - 297 / 2) < 5  # beside the middle of the line it measures


def test_the_print_checks_distances_are_drawn_as_lines_between_their_targets(tmp_path):
    """A thin line from ring to ring along the left and bottom targets, so each distance's label
    sits beside what it measures; the width's label under its line, never across it."""
    root = write_probe(tmp_path / "p")
    assert main(["build", str(root), "--out", str(tmp_path / "out")]) == 0
    page = pypdfium2.PdfDocument(str(tmp_path / "out" / "p" / "p-en.pdf"))[0]
    px = 300 / 25.4
    image = page.render(scale=300 / 72).to_pil().convert("L")

    def inked(x: float, y: float) -> bool:  # a hairline lands on a pixel next to its place
        return any(
            image.getpixel((round(x * px) + dx, round(y * px) + dy)) < 200
            for dx in (-1, 0, 1)
            for dy in (-1, 0, 1)
        )

    assert all(inked(15, y) for y in range(30, 270, 10))  # left: from 15 to 282 mm down
    assert all(inked(x, 282) for x in range(30, 100, 10))  # bottom: from 15 to 195 mm across
    text, mm = page.get_textpage(), 72 / 25.4
    tops = [
        (page.get_height() - text.get_charbox(i)[3]) / mm
        for i in range(text.count_chars())
        if text.get_text_range(i, 1) == "8"
        and 282 < (page.get_height() - text.get_charbox(i)[1]) / mm < 290
    ]
    assert tops and min(tops) > 282.3  # "180 mm" under the line


def test_a_pack_s_long_texts_flow_over_pages_and_never_off_them(tmp_path):
    """A stranger's step of 3,000 words and a group name of 400 flow onto more guide pages (the
    name cut short in its table cell), every letter on its page above the footer."""
    words = " ".join(f"word{i}" for i in range(3000))
    root = write_probe(
        tmp_path / "p",
        f"guide: {{steps: ['{words}'], names: {{cards: '{words[:2800]}'}}}}\n",
    )
    assert main(["build", str(root), "--out", str(tmp_path / "out")]) == 0
    doc = pypdfium2.PdfDocument(str(tmp_path / "out" / "p" / "p-en.pdf"))
    guide_pages = [
        i for i in range(len(doc)) if " · guide · " in doc[i].get_textpage().get_text_range()
    ]
    assert len(guide_pages) > 3
    for i in guide_pages:
        page = doc[i]  # once: each doc[i] loads the page again
        text, height = page.get_textpage(), page.get_height()
        for n in range(text.count_chars()):
            left, bottom, right, top = text.get_charbox(n)
            assert bottom >= 5 * 72 / 25.4 - 0.5 and top <= height, (i, n)
    assert "word2999" in " ".join(doc[i].get_textpage().get_text_range() for i in guide_pages)


def test_a_deck_too_thick_for_any_sheet_is_one_located_error():
    pack, _ = load_pack(S)
    deck = pack.groups["movement"]
    thick = dataclasses.replace(
        deck, items=tuple(dataclasses.replace(i, count=2000) for i in deck.items)
    )
    found = tuckbox.problems(dataclasses.replace(pack, groups={"movement": thick}))
    assert [str(p) for p in found] == [
        f"{deck.where.file}:5:1: error: the tuck box of 'movement' needs a sheet of 4886 x 4931 mm "
        "even split in two, more than a4 holds (less its margins); larger paper or a thinner deck "
        "[layout]"
    ]


def test_the_guide_and_the_tuck_box_keep_out_of_a_wide_margin(tmp_path):
    """print.margin of 20 mm: no page of the guide or the tuck box inks it."""
    from test_printable import ink_in_margin

    root = write_probe(
        tmp_path / "p",
        "print: {margin: 20mm}\nguide: {supplies: [a pencil]}\n",
        "  tuckbox: true\n",
    )
    assert main(["build", str(root), "--out", str(tmp_path / "out")]) == 0
    doc = pypdfium2.PdfDocument(str(tmp_path / "out" / "p" / "p-en.pdf"))
    texts = [doc[i].get_textpage().get_text_range() for i in range(len(doc))]
    ours = [i for i, t in enumerate(texts) if " · guide · " in t or " · tuck box: " in t]
    assert len(ours) >= 2
    assert [(i, hit) for i in ours for hit in ink_in_margin(doc[i], 20.0)] == []


def test_an_arabic_kit_guide_is_shaped_and_right_aligned(tmp_path):
    """The guide of an Arabic kit draws its words as the print check does (shaping.visual_line):
    joined, in visual order, each line ending at the right margin; a table's columns from the
    right."""
    import string
    import unicodedata

    from pypdf import PdfReader

    from pnpkit.pdf import guidewords

    def arabic(english: str) -> str:  # Arabic words, keeping the key's {fields}
        fields = [f for _, f, _, _ in string.Formatter().parse(english) if f]
        return " ".join(["كلمة عربية"] + ["{" + f + "}" for f in fields])

    strings = "".join(
        f'  pnpkit_guide_{key}: {{ar: "{arabic(english)}"}}\n'
        for key, english in guidewords.EN.items()
    )
    strings += '  pnpkit_guide_contents: {ar: "محتويات العلبة"}\n'
    root = write_pack(
        tmp_path / "p",
        {
            "game.yaml": "name: {ar: لعبة النجوم}\nlanguages: [ar]\nplayers: {min: 1, max: 2}\n"
            "guide: {names: {cards: {ar: بطاقات}}}\nstrings:\n"
            + strings.replace('  pnpkit_guide_contents: {ar: "كلمة عربية"}\n', ""),
            "cards.yaml": "cards:\n  kind: card\n  size: poker\n  front: t.svg.j2\n"
            "  items:\n    - {id: one}\n",
            "templates/t.svg.j2": '{% extends "_face.svg.j2" %}{% block content %}{% endblock %}\n',
        },
    )
    out = tmp_path / "out"
    assert main(["build", str(root), "--out", str(out)]) == 0
    pdf = out / "p" / "p-ar.pdf"
    text = unicodedata.normalize("NFKC", PdfReader(pdf).pages[0].extract_text())
    # in logical order once read back: the glyphs were drawn joined and right to left
    assert "لعبة النجوم" in text and "محتويات العلبة" in text and "بطاقات" in text, text
    page = pypdfium2.PdfDocument(pdf)[0]
    image = page.render(scale=4 * 25.4 / 72).to_pil().convert("L")  # 4 px per mm
    ink = image.point(lambda v: 255 if v < 128 else 0)
    w = image.width / 4
    right_edge = w - guide.MARGIN
    for top, bottom in ((15, 30), (155, 170)):  # the title; the contents table's first rows
        box = ink.crop((0, top * 4, image.width, bottom * 4)).getbbox()
        assert box is not None, (top, bottom)
        assert abs(box[2] / 4 - right_edge) < 1.5, (top, box)  # ends at the right margin
        assert box[0] / 4 > (60 if top == 15 else guide.MARGIN + 10), (top, box)
