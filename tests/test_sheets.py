"""Items from sheets (CSV, TSV, XLSX, ODS): the same PDFs as YAML, and every bad sheet located
to its cell."""

from __future__ import annotations

from pathlib import Path

import pytest

from pnpkit.commands.cli import main
from sheetfiles import Formula, write_delimited, write_ods, write_xlsx

GAME = """\
id: deck
name: {en: Deck, pl: Talia}
languages: [en, pl]
players: {min: 2, max: 4}
"""
GROUP = """\
cards:
  kind: card
  size: poker
  front: card.svg.j2
  fields:
    suit: {type: enum, values: [sun, moon]}
    cost: number
    power: {type: int, default: 0}
    title: text
    keys: {type: list, item: int}
    wild: {type: bool, default: false}
  items: ITEMS
"""
TEMPLATE = """\
{% extends "_face.svg.j2" %}{% block content %}
<rect x="0" y="0" width="{{ face.w }}" height="{{ face.h }}" fill="{{ '#fc0' if item.suit == 'sun' else '#99f' }}"/>
<text x="5" y="10" font-size="4">{{ item.title }} {{ item.cost }} {{ item.power }} {{ item['keys'] | join(',') }} {{ item.wild }} x{{ item.count }} {{ item.tags | join(',') }}</text>
{% endblock %}
"""  # noqa: E501 (data: markup and YAML kept as written)
HEADER = ["id", "suit", "cost", "power", "title.en", "title.pl", "keys", "count", "tags"]
ROWS = [
    ["sun-1", "sun", 1, 2, "Dawn", "Świt", "1; 2", 2, "a; b"],
    ["sun-2", "sun", 2.5, None, "Noon", "Południe", "3", None, None],
    ["moon-1", "moon", 3, 0, "Dusk", "Zmierzch", None, 1, "b"],
]
YAML_ITEMS = """
    - {id: sun-1, suit: sun, cost: 1, power: 2, title: {en: Dawn, pl: "Świt"}, keys: [1, 2], count: 2, tags: [a, b]}
    - {id: sun-2, suit: sun, cost: 2.5, title: {en: Noon, pl: "Południe"}, keys: [3]}
    - {id: moon-1, suit: moon, cost: 3, power: 0, title: {en: Dusk, pl: Zmierzch}, keys: [], count: 1, tags: [b]}
"""  # noqa: E501 (data: markup and YAML kept as written)
WRITERS = {
    "csv": lambda p, rows, **kw: write_delimited(p, rows),
    "tsv": lambda p, rows, **kw: write_delimited(p, rows, "\t"),
    "xlsx": write_xlsx,
    "ods": write_ods,
}


def make_pack(root: Path, items: str) -> Path:
    pack = root / "deck"
    (pack / "templates").mkdir(parents=True)
    (pack / "game.yaml").write_text(GAME, encoding="utf-8")
    (pack / "cards.yaml").write_text(GROUP.replace("ITEMS", items), encoding="utf-8")
    (pack / "templates" / "card.svg.j2").write_text(TEMPLATE, encoding="utf-8")
    return pack


def sheet_pack(root: Path, fmt: str, rows: list, items: str | None = None, **kw) -> Path:
    pack = make_pack(root, items or f"cards.{fmt}")
    WRITERS[fmt](pack / f"cards.{fmt}", rows, **kw)
    return pack


def run(capsys, *args) -> tuple[int, list[str]]:
    capsys.readouterr()
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return code, out.out.splitlines()


def test_one_deck_from_yaml_csv_tsv_xlsx_and_ods_gives_byte_identical_pdfs(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    packs = {"yaml": make_pack(tmp_path / "yaml", YAML_ITEMS)}
    for fmt in WRITERS:
        packs[fmt] = sheet_pack(tmp_path / fmt, fmt, [HEADER] + ROWS)
    pdfs = {}
    for fmt, pack in packs.items():
        code, lines = run(capsys, "build", pack, "--out", tmp_path / "out" / fmt)
        assert (code, lines) == (0, []), fmt
        pdfs[fmt] = {
            lang: (tmp_path / "out" / fmt / "deck" / f"deck-{lang}.pdf").read_bytes()
            for lang in ("en", "pl")
        }
    for fmt in WRITERS:
        assert pdfs[fmt] == pdfs["yaml"], fmt
    from pypdf import (
        PdfReader,  # and the deck really is in them: the values, typed as YAML types them
    )

    text = PdfReader(tmp_path / "out/ods/deck/deck-pl.pdf").pages[2].extract_text()
    assert "Świt 1 2 1,2 False x2 a,b" in text and "Południe 2.5 0 3 False x1" in text


BAD_CELL = {
    "csv": "deck/cards.csv:3:11: error: 'cost' must be a number (got 'x') [schema]",
    "tsv": "deck/cards.tsv:3:11: error: 'cost' must be a number (got 'x') [schema]",
    "xlsx": "deck/cards.xlsx:Deck!C3: error: 'cost' must be a number (got 'x') [schema]",
    "ods": "deck/cards.ods:Deck!C3: error: 'cost' must be a number (got 'x') [schema]",
}


@pytest.mark.parametrize("fmt", list(WRITERS))
def test_a_wrong_cell_is_located_to_the_cell(tmp_path, capsys, monkeypatch, fmt):
    monkeypatch.chdir(tmp_path)
    rows = [HEADER] + [list(r) for r in ROWS]
    rows[2][2] = "x"
    if fmt in ("xlsx", "ods"):
        pack = sheet_pack(tmp_path, fmt, rows, f"{{from: cards.{fmt}, sheet: Deck}}", sheet="Deck")
    else:
        pack = sheet_pack(tmp_path, fmt, rows)
    assert run(capsys, "validate", pack.relative_to(tmp_path)) == (1, [BAD_CELL[fmt]])


def _catalogue(root: Path) -> dict:
    """name -> (pack folder, the one line expected)."""
    good = [HEADER] + ROWS
    cases = {}

    def case(name, fmt, rows, items=None, line="", **kw):
        cases[name] = (sheet_pack(root / name, fmt, rows, items, **kw), line)

    bad_type = [HEADER] + [list(r) for r in ROWS]
    bad_type[1][3] = "lots"
    case(
        "bad-type",
        "xlsx",
        bad_type,
        line="bad-type/deck/cards.xlsx:Sheet1!D2: error: 'power' "
        "must be a whole number (got 'lots') [schema]",
    )
    case(
        "unknown-column",
        "csv",
        [["id", "suit", "cots", "title", "keys"], ["a", "sun", 1, "A", ""]],
        line="unknown-column/deck/cards.csv:1:9: error: unknown column "
        "'cots' in 'cards.csv' (did you mean 'cost'?) [sheet]",
    )
    case(  # a text column per language as other tools spell it: the hint keeps the language
        "per-language-column",
        "csv",
        [["id", "suit", "cost", "title.en", "title_pl", "keys"], ["a", "sun", 1, "A", "Ą", ""]],
        line="per-language-column/deck/cards.csv:1:23: error: unknown column "
        "'title_pl' in 'cards.csv' (did you mean 'title.pl'?) [sheet]",
    )
    dup = [HEADER, ROWS[0], ROWS[1], ["sun-1"] + ROWS[2][1:]]
    case(
        "duplicate-id",
        "ods",
        dup,
        line="duplicate-id/deck/cards.ods:Sheet1!A4: error: duplicate id 'sun-1' "
        "(first at duplicate-id/deck/cards.ods:Sheet1!A2) [unique-ids]",
    )
    case(
        "missing-file",
        "csv",
        good,
        items="cardz.csv",
        line="missing-file/deck/cards.yaml:12:10: error: items file "
        "'cardz.csv' not found in missing-file/deck [references]",
    )
    case(
        "empty-sheet",
        "csv",
        [],
        line="empty-sheet/deck/cards.yaml:12:10: error: sheet "
        "'cards.csv' is empty: its first row names the columns (id, "
        "suit, cost, power, title, keys, wild, ...) [sheet]",
    )
    formula = [HEADER] + [list(r) for r in ROWS]
    formula[3][2] = Formula("1+2")
    case(
        "formula-xlsx",
        "xlsx",
        formula,
        line="formula-xlsx/deck/cards.xlsx:Sheet1!C4: error: "
        "the formula =1+2 has no saved value; open and "
        "save the workbook in a spreadsheet program [sheet]",
    )
    case(
        "formula-ods",
        "ods",
        formula,
        line="formula-ods/deck/cards.ods:Sheet1!C4: error: the "
        "formula of:=1+2 has no saved value; open and save "
        "the spreadsheet in a spreadsheet program [sheet]",
    )
    case(
        "wrong-sheet",
        "xlsx",
        good,
        items="{from: cards.xlsx, sheet: Dekc}",
        sheet="Deck",
        first="Notes",
        line="wrong-sheet/deck/cards.yaml:12:10: error: workbook 'cards.xlsx' has "
        "no sheet 'Dekc' (it has Notes, Deck) (did you mean 'Deck'?) [sheet]",
    )
    case(
        "latin1-csv",
        "csv",
        good,
        line="latin1-csv/deck/cards.csv:3:16: error: 'cards.csv' is not "
        "UTF-8 text (byte 0xe9); save the sheet as CSV UTF-8 [sheet]",
    )
    case(
        "twice-column",
        "tsv",
        [HEADER[:5] + ["title"] + HEADER[6:]] + ROWS,
        line="twice-column/deck/cards.tsv:1:29: error: column 'title' "
        "is given twice (or whole and per language) [sheet]",
    )
    case(
        "nameless-column",
        "csv",
        [HEADER] + [ROWS[0] + ["stray"]] + ROWS[1:],
        line="nameless-column/deck/cards.csv:2:37: error: this "
        "cell's column has no name in the header row [sheet]",
    )
    path = cases["latin1-csv"][0] / "cards.csv"
    path.write_bytes(b"id,suit,cost,title,keys\nsun-1,sun,1,Dawn,\nsun-2,sun,2,Caf\xe9,\n")
    return cases


def test_each_broken_sheet_gives_one_clear_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name, (pack, line) in _catalogue(tmp_path).items():
        code, lines = run(capsys, "validate", pack.relative_to(tmp_path))
        assert (code, lines) == (1, [line]), name


def test_formulas_with_saved_values_are_read_as_their_values(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rows = [HEADER] + [list(r) for r in ROWS]
    rows[3][2] = Formula("1+2", 3)
    pack = sheet_pack(tmp_path, "ods", rows)
    assert run(capsys, "validate", pack) == (0, [])


def test_a_sheet_may_start_below_and_right_of_a1_and_is_still_located(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    rows = [[None]] + [[None] + list(r) for r in [HEADER] + ROWS]
    rows[3][3] = "x"
    for fmt in ("xlsx", "ods"):
        pack = sheet_pack(tmp_path / fmt, fmt, rows)
        assert run(capsys, "validate", pack.relative_to(tmp_path)) == (
            1,
            [
                f"{fmt}/deck/cards.{fmt}:Sheet1!D4: error: "
                "'cost' must be a number (got 'x') [schema]"
            ],
        )


# ---------------------------------------------------------------- a pack from a stranger


def _inject(path: Path, member: str, old: bytes, new: bytes) -> None:
    """Rewrite one member of a zip (a workbook) as a hostile author would."""
    import zipfile

    with zipfile.ZipFile(path) as z:
        parts = {i.filename: z.read(i.filename) for i in z.infolist()}
    assert old in parts[member]
    parts[member] = parts[member].replace(old, new, 1)
    with zipfile.ZipFile(path, "w") as z:
        for name, data in parts.items():
            z.writestr(name, data)


LAUGHS = b'<!DOCTYPE lol [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'


def test_hostile_sheets_are_refused_with_a_located_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    good = [HEADER] + ROWS
    outside = sheet_pack(tmp_path / "outside", "csv", good, items="../secret.csv")
    write_delimited(outside.parent / "secret.csv", good)
    link = sheet_pack(tmp_path / "link", "csv", good)
    (link / "cards.csv").unlink()
    (link / "cards.csv").symlink_to(tmp_path / "outside/secret.csv")
    xlsx = sheet_pack(tmp_path / "xlsx-dtd", "xlsx", good)
    _inject(xlsx / "cards.xlsx", "xl/worksheets/sheet1.xml", b"<worksheet", LAUGHS + b"<worksheet")
    ods = sheet_pack(tmp_path / "ods-dtd", "ods", good)
    _inject(ods / "cards.ods", "content.xml", b"?>", b"?>" + LAUGHS)
    inf = sheet_pack(tmp_path / "xlsx-inf", "xlsx", good)
    _inject(inf / "cards.xlsx", "xl/worksheets/sheet1.xml", b"<v>2.5</v>", b"<v>1E999</v>")
    cases = {
        outside: "outside/deck/cards.yaml:12:10: error: items file "
        "'../secret.csv' lies outside the pack "
        "outside/deck; it must be a file inside it [references]",
        link: "link/deck/cards.yaml:12:10: error: items file 'cards.csv' lies "
        "outside the pack link/deck; it must be a file inside it [references]",
        xlsx: "xlsx-dtd/deck/cards.yaml:12:10: error: workbook "
        "'cards.xlsx' declares an XML document type (xl/worksheets/sheet1.xml); "
        "pnpkit refuses XML entities in sheets (save "
        "the workbook again from a spreadsheet program) [sheet]",
        ods: "ods-dtd/deck/cards.yaml:12:10: error: workbook 'cards.ods' declares "
        "an XML document type (content.xml); pnpkit refuses XML entities in "
        "sheets (save the workbook again from a spreadsheet program) [sheet]",
        inf: "xlsx-inf/deck/cards.xlsx:Sheet1!C3: error: the "
        "cell holds inf, which is not a finite number [sheet]",
    }
    huge = [HEADER] + [list(r) for r in ROWS]
    huge[2][2] = "1e999"
    cases[sheet_pack(tmp_path / "csv-inf", "csv", huge)] = (
        "csv-inf/deck/cards.csv:3:11: error: 'cost' must be a number (got '1e999') [schema]"
    )
    for pack, line in cases.items():
        assert run(capsys, "validate", pack.relative_to(tmp_path)) == (1, [line])


def test_sheets_are_bounded_and_the_message_names_the_limit(tmp_path, capsys, monkeypatch):
    from pnpkit.pack import sheets

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sheets, "MAX_ROWS", 2)
    rows = sheet_pack(tmp_path / "rows", "csv", [HEADER] + ROWS)
    assert run(capsys, "validate", rows.relative_to(tmp_path)) == (
        1,
        [
            "rows/deck/cards.csv:4:1: error: the sheet has more than "
            "2 rows (found 3 or more); pnpkit reads at most 2 [sheet]"
        ],
    )
    monkeypatch.setattr(sheets, "MAX_BYTES", 100)
    big = sheet_pack(tmp_path / "big", "ods", [HEADER] + ROWS)
    size = (big / "cards.ods").stat().st_size
    assert run(capsys, "validate", big.relative_to(tmp_path)) == (
        1,
        [
            "big/deck/cards.yaml:12:10: error: sheet file 'cards.ods' is "
            f"{size:,} bytes; pnpkit reads sheets of at most 100 bytes [sheet]"
        ],
    )
    monkeypatch.setattr(sheets, "MAX_UNPACKED", 1000)
    zipped = sheet_pack(tmp_path / "zip", "xlsx", [HEADER] + ROWS)
    monkeypatch.setattr(sheets, "MAX_BYTES", 10**6)
    code, lines = run(capsys, "validate", zipped.relative_to(tmp_path))
    assert (
        code == 1
        and lines[0].startswith(
            "zip/deck/cards.yaml:12:10: error: workbook 'cards.xlsx' unpacks to "
        )
        and lines[0].endswith(" bytes; pnpkit reads workbooks of at most 1,000 [sheet]")
    )


def test_watch_rebuilds_when_the_sheet_is_saved_and_redoes_only_the_changed_card(
    tmp_path, monkeypatch
):
    import queue
    import threading

    from pnpkit.commands.watch import Watcher

    monkeypatch.chdir(tmp_path)
    pack = sheet_pack(tmp_path, "csv", [HEADER] + ROWS)
    watcher = Watcher(pack, tmp_path / "build", interval=0.05)
    builds: queue.Queue = queue.Queue()
    thread = threading.Thread(target=watcher.loop, args=(builds.put,), daemon=True)
    thread.start()
    try:
        assert builds.get(timeout=60).ok
        rows = [HEADER] + [list(r) for r in ROWS]
        rows[3][4] = "Dusky"  # moon-1's English title: one face in one language
        write_delimited(pack / "cards.csv", rows)
        second = builds.get(timeout=60)
        assert (
            second.ok and second.stats["faces rendered"] == 1 and second.stats["faces reused"] == 5
        )
    finally:
        watcher.stop.set()
        thread.join(60)


def test_a_sheet_with_too_many_filled_cells_is_refused(tmp_path, capsys, monkeypatch):
    from pnpkit.pack import sheets

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sheets, "MAX_CELLS", 20)
    pack = sheet_pack(tmp_path, "xlsx", [HEADER] + ROWS)
    assert run(capsys, "validate", pack.relative_to(tmp_path)) == (
        1,
        [
            "deck/cards.xlsx:Sheet1!A3: error: the sheet has more than 20 "
            "filled cells (found 24 or more); pnpkit reads at most 20 [sheet]"
        ],
    )
