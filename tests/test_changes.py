"""`build --changes`: a PDF of only the faces that differ from the previous build; print.stamp."""

from __future__ import annotations

from pypdf import PdfReader

from pnpkit.commands.cli import main
from sheetfiles import write_delimited
from test_sheets import HEADER, ROWS, make_pack

CALIBRATION_PAGES = 2  # the print check and its duplex back


def build(capsys, pack, *extra) -> tuple[int, list[str]]:
    capsys.readouterr()
    code = main(["build", str(pack), "--out", "out", *extra])
    return code, capsys.readouterr().out.splitlines()


def texts(path) -> list[str]:
    return [page.extract_text() for page in PdfReader(path).pages]


def deck_with_backs(tmp_path):
    pack = make_pack(tmp_path, "cards.csv")
    cards = pack / "cards.yaml"
    cards.write_text(
        cards.read_text().replace(
            "  front: card.svg.j2\n", "  front: card.svg.j2\n  back: back.svg.j2\n"
        )
    )
    (pack / "templates/back.svg.j2").write_text(
        '{% extends "_face.svg.j2" %}{% block content %}<text x="5" '
        'y="10" font-size="4">back of {{ item.id }}</text>{% endblock %}'
    )
    write_delimited(pack / "cards.csv", [HEADER] + ROWS)
    return pack


def test_after_a_one_card_edit_the_changes_pdf_holds_that_card_and_its_back(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    pack = deck_with_backs(tmp_path)
    assert build(capsys, pack, "--changes", "--lang", "en") == (
        0,
        ["deck: en: no previous build to compare with; the changes PDF holds every face"],
    )
    first = texts("out/deck/deck-en-changes.pdf")
    assert len(first) == CALIBRATION_PAGES + 2 and "Dawn" in first[2] and "Dusk" in first[2]
    rows = [HEADER] + [list(r) for r in ROWS]
    rows[2][4] = "High noon"  # sun-2's English title
    rows.append(["moon-2", "moon", 4, 1, "Night", "Noc", "", 1, ""])
    rows.pop(3)  # moon-1 goes
    write_delimited(pack / "cards.csv", rows)
    code, lines = build(capsys, pack, "--changes", "--lang", "en")
    assert (code, lines) == (
        0,
        [
            "deck: en: added cards/moon-2-front",
            "deck: en: added cards/moon-2-back",
            "deck: en: changed cards/sun-2-front",
            "deck: en: removed cards/moon-1-back",
            "deck: en: removed cards/moon-1-front",
        ],
    )
    assert (tmp_path / "out/deck/changes.txt").read_text() == "".join(
        line[len("deck: ") :] + "\n" for line in lines
    )
    pages = texts("out/deck/deck-en-changes.pdf")
    assert len(pages) == CALIBRATION_PAGES + 2  # one sheet: its fronts, then its backs
    fronts, backs = pages[2], pages[3]
    assert "High noon" in fronts and "Night" in fronts and "Dawn" not in fronts
    assert "back of sun-2" in backs and "back of moon-2" in backs and "back of sun-1" not in backs
    assert (
        len(texts("out/deck/deck-en.pdf")) == CALIBRATION_PAGES + 2
    )  # the whole deck is still written
    assert build(capsys, pack, "--changes", "--lang", "en") == (
        0,
        ["deck: en: nothing changed since the previous build, so no changes PDF"],
    )
    assert not (tmp_path / "out/deck/deck-en-changes.pdf").exists()  # not the print check alone
    assert (tmp_path / "out/deck/changes.txt").read_text() == (
        "en: nothing changed since the previous build, so no changes PDF\n"
    )
    write_delimited(pack / "cards.csv", rows[:-1])  # moon-2 goes, the rest stays as it was
    assert build(capsys, pack, "--changes", "--lang", "en") == (
        0,
        [
            "deck: en: removed cards/moon-2-back",
            "deck: en: removed cards/moon-2-front",
            "deck: en: nothing to reprint, so no changes PDF",
        ],
    )
    assert not (tmp_path / "out/deck/deck-en-changes.pdf").exists()


def test_the_stamp_prints_the_version_and_date_on_every_face(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1780000000")  # 2026-05-28
    pack = deck_with_backs(tmp_path)
    game = pack / "game.yaml"
    game.write_text(game.read_text() + "version: 0.3\nprint: {stamp: true}\n")
    assert build(capsys, pack, "--lang", "en") == (0, [])
    pages = texts("out/deck/deck-en.pdf")
    assert (
        pages[2].count("deck · v0.3 · 2026-05-28") == 4
        and pages[3].count("deck · v0.3 · 2026-05-28") == 4
    )
    assert "2026-05-28" not in pages[0]
    # where: centred on each face, its baseline 0.6 mm above the trim's bottom edge (inside the cut)
    from reportlab.pdfbase.pdfmetrics import stringWidth

    from pnpkit.build.pipeline import validate
    from pnpkit.pdf.marks import STAMP_PT
    from pnpkit.typeset import fonts

    found = []

    def visit(text, cm, tm, font, size):
        if "v0.3" in text:
            found.append((round(cm[4] + tm[4] * cm[0], 2), round(cm[5] + tm[5] * cm[3], 2)))

    PdfReader("out/deck/deck-en.pdf").pages[2].extract_text(visitor_text=visit)
    half = (
        stringWidth("deck · v0.3 · 2026-05-28", fonts.face_name(fonts.DEFAULT_FAMILY), STAMP_PT) / 2
    )
    page = validate(pack, ["en"]).pages["en"][0]
    k = 72 / 25.4
    assert found == [
        (round((p.x + p.w / 2) * k - half, 2), round((page.h - p.y - p.h + 0.6) * k, 2))
        for p in page.placements
    ]


def test_a_one_tile_edit_in_a_kit_reprints_just_that_tile_and_its_back(breakable):
    kit = breakable("mammoth-herd")
    assert kit.build("--lang", "en").code == 0
    kit.edit(
        "components/mammoth-herd/tiles.yaml",
        "{id: bonus-01, first: tool, all: food1",
        "{id: bonus-01, first: tool, all: wood1",
    )
    run = kit.build("--lang", "en", "--changes")
    assert (run.code, run.lines) == (0, ["mammoth-herd: en: changed bonus-tiles/bonus-01-front"])
    reader = PdfReader(kit.root / "build/mammoth-herd/mammoth-herd-en-changes.pdf")
    assert len(reader.pages) == CALIBRATION_PAGES + 2
    front, back = (reader.pages[CALIBRATION_PAGES + i] for i in (0, 1))
    assert (
        len(front["/Resources"]["/XObject"]) == 1 and len(back["/Resources"]["/XObject"]) == 1
    )  # one face each


def test_the_stamp_on_a_round_token_stays_inside_its_cut(tmp_path, capsys, monkeypatch):
    """A round face's bottom band is a sliver of the circle: the stamp there would print outside
    the cut, on the neighbour's bleed. It rises (and shrinks) until its baseline's ends are in."""
    import math

    from conftest import write_pack
    from pnpkit.build.pipeline import validate

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1780000000")
    pack = write_pack(
        tmp_path / "round",
        {
            "game.yaml": "name: Round\nlanguages: [en]\nplayers: {min: 1, max: 1}\n"
            "version: 0.3\nprint: {stamp: true, bleed: 2mm}\n",
            "tokens.yaml": "coins:\n  kind: token\n  size: 20x20mm\n  shape: circle\n"
            "  front: t.svg.j2\n  items:\n    - {id: a}\n    - {id: b}\n",
            "templates/t.svg.j2": '{% extends "_face.svg.j2" %}{% block content %}{% endblock %}\n',
        },
    )
    assert build(capsys, pack, "--lang", "en", "--backs", "none")[0] == 0
    found = []

    def visit(text, cm, tm, font, size):
        if "v0.3" in text:
            found.append((cm[4] + tm[4] * cm[0], cm[5] + tm[5] * cm[3]))

    PdfReader("out/round/round-en.pdf").pages[1].extract_text(visitor_text=visit)
    page = validate(pack, ["en"]).pages["en"][0]
    k = 72 / 25.4
    assert len(found) == len(page.placements) == 2
    faces = sorted(page.placements, key=lambda p: (p.y, p.x))  # top to bottom, left to right
    for (x0, y), p in zip(sorted(found, key=lambda f: (-f[1], f[0])), faces, strict=True):
        cx, cy, r = (p.x + p.w / 2) * k, (page.h - p.y - p.h / 2) * k, p.w / 2 * k
        half = cx - x0  # centred: the baseline runs from x0 to cx + half
        assert half > 5 * k  # the whole stamp, not a dropped one
        assert math.hypot(half, cy - y) <= r - 0.5 * k, (half, cy - y, r)
