"""Issue 32, item 4 and 6: every input has a budget and every message is one located line.

Each hostile file runs `pnpkit validate` in a child limited to 1 GB of address space: before
the budgets the worst of them aborted the process (a cell at XFD99999: 52 GB) or took gigabytes
and minutes; each must now end with one located line, exit 1, in under 10 s of CPU."""

from __future__ import annotations

import os
import resource
import struct
import subprocess
import sys
from pathlib import Path

import openpyxl

from conftest import ROOT
from sheetfiles import write_delimited
from test_sheets import HEADER, ROWS, _inject, make_pack, run, sheet_pack

MEMORY = 1 << 30  # bytes of address space for each run


def _fence() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def validate(root: Path, pack: Path) -> tuple[int, list[str]]:
    """`pnpkit validate pack` from root in a fenced child: (exit code, lines printed). It must
    take under 10 s of CPU (the wall clock of a shared machine says little)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(
        [sys.executable, "-m", "pnpkit", "validate", str(pack.relative_to(root))],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_fence,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    assert "Traceback" not in out.stderr and "panicked" not in out.stderr, out.stderr[-2000:]
    assert seconds < 10, f"took {seconds:.1f} s of CPU"
    return out.returncode, out.stdout.splitlines()


def refused(root: Path, pack: Path, line: str) -> None:
    """validate(pack) exits 1 with this one line."""
    assert validate(root, pack) == (1, [line])


# ---------------------------------------------------------------- spreadsheets


def _xlsx_with(root: Path, name: str, ref: str) -> Path:
    pack = sheet_pack(root / name, "xlsx", [HEADER] + ROWS)
    wb = openpyxl.load_workbook(pack / "cards.xlsx")
    wb.active[ref] = 1
    wb.save(pack / "cards.xlsx")
    return pack


def test_a_far_cell_in_an_xlsx_is_refused_before_the_reader_lays_out_its_grid(tmp_path):
    far = _xlsx_with(tmp_path, "far", "XFD99999")  # 1.6 billion cells from A1
    refused(
        tmp_path,
        far,
        "far/deck/cards.yaml:12:10: error: sheet 'Sheet1' declares cells up to XFD99999 "
        "(1,638,383,616 from A1); pnpkit reads sheets of at most 2,000,000 cells [sheet]",
    )
    # the same cell without the dimension openpyxl declares: refused at the cell itself
    _inject(far / "cards.xlsx", "xl/worksheets/sheet1.xml", b'<dimension ref="A1:XFD99999"/>', b"")
    refused(
        tmp_path,
        far,
        "far/deck/cards.xlsx:Sheet1!XFD99999: error: the cell XFD99999 is in column "
        "16,384; pnpkit reads sheets of at most 200 columns (A to GR) [sheet]",
    )
    inside = _xlsx_with(tmp_path, "inside", "GR99999")  # within the rows and columns: 821 MB
    _inject(
        inside / "cards.xlsx", "xl/worksheets/sheet1.xml", b'<dimension ref="A1:GR99999"/>', b""
    )
    refused(
        tmp_path,
        inside,
        "inside/deck/cards.xlsx:Sheet1!GR99999: error: the sheet's cells reach GR99999 "
        "(19,999,800 cells from A1); pnpkit reads sheets of at most 2,000,000 cells [sheet]",
    )


def test_repeated_ods_rows_and_cells_count_as_the_cells_they_stand_for(tmp_path):
    wide = sheet_pack(tmp_path / "wide", "ods", [HEADER] + ROWS)
    _inject(
        wide / "cards.ods",
        "content.xml",
        b"</table:table-row>",
        b'<table:table-cell office:value-type="float" office:value="1" '
        b'table:number-columns-repeated="16384"/></table:table-row>',
    )
    tall = sheet_pack(tmp_path / "tall", "ods", [HEADER] + ROWS)
    _inject(
        tall / "cards.ods",
        "content.xml",
        b"</table:table-row>",
        b'</table:table-row><table:table-row table:number-rows-repeated="999999999">'
        b'<table:table-cell table:number-columns-repeated="16384"/></table:table-row>',
    )
    # a spreadsheet program's blank rows to the end of the sheet stand for no cell
    blank = sheet_pack(tmp_path / "blank", "ods", [HEADER] + ROWS)
    _inject(
        blank / "cards.ods",
        "content.xml",
        b"</table:table>",
        b'<table:table-row table:number-rows-repeated="1048570">'
        b'<table:table-cell table:number-columns-repeated="16384"/></table:table-row>'
        b"</table:table>",
    )
    refused(
        tmp_path,
        wide,
        "wide/deck/cards.ods:Sheet1!XFM1: error: the cell XFM1 is in column 16,393; "
        "pnpkit reads sheets of at most 200 columns (A to GR) [sheet]",
    )
    refused(
        tmp_path,
        tall,
        "tall/deck/cards.ods:Sheet1!A1000000001: error: the cell A1000000001 is in row "
        "1,000,000,001; pnpkit reads sheets of at most 100,000 rows [sheet]",
    )
    assert validate(tmp_path, blank) == (0, [])


# ---------------------------------------------------------------- CSV


def test_csv_fields_rows_and_integers_are_bounded(tmp_path):
    rows = [HEADER] + [list(r) for r in ROWS]
    rows[1][3] = "9" * 5000  # Python refuses to read it: "Exceeds the limit (4300 digits)"
    digits = sheet_pack(tmp_path / "digits", "csv", rows)
    commas = sheet_pack(tmp_path / "commas", "csv", [HEADER] + ROWS)
    with open(commas / "cards.csv", "a", encoding="utf-8") as f:
        f.write("," * 19_000_000 + "\n")  # took 60-130 s and 2.4 GB
    quote = sheet_pack(tmp_path / "quote", "csv", [HEADER] + ROWS)
    with open(quote / "cards.csv", "a", encoding="utf-8") as f:
        f.write('x,"' + "abc " * 4_750_000 + "\n")  # unclosed: 2.5 GB
    long = sheet_pack(tmp_path / "long", "csv", [HEADER] + ROWS)
    with open(long / "cards.csv", "a", encoding="utf-8") as f:
        f.write("x," + " " * 50_000 + "y\n")
    refused(
        tmp_path,
        digits,
        "digits/deck/cards.csv:2:13: error: a number of 5000 digits; "
        "numbers have at most 30 [limits]",
    )
    refused(
        tmp_path,
        commas,
        "commas/deck/cards.csv:5:16385: error: this row has more than 16,384 fields; "
        "pnpkit reads rows of at most 16,384 [sheet]",
    )
    refused(
        tmp_path,
        quote,
        "quote/deck/cards.csv:5:3: error: this quoted field is not closed within 41,000 "
        "characters (a '\"' is missing, or the field is longer than pnpkit reads) [sheet]",
    )
    refused(
        tmp_path,
        long,
        "long/deck/cards.csv:5:3: error: this field is longer than 41,000 characters, "
        "which pnpkit reads [sheet]",
    )
    # a closed quoted field of the largest cell is read
    rows = [HEADER] + [list(r) for r in ROWS]
    rows[1][4] = '"' * 20_000
    write_delimited(long / "cards.csv", rows)
    code, lines = validate(tmp_path, long)  # a warning: the long title crosses the cut line
    assert code == 0 and not any(": error: " in line for line in lines)


# ---------------------------------------------------------------- fonts


def _font_pack(root: Path, font: bytes | None) -> Path:
    pack = sheet_pack(root, "csv", [HEADER] + ROWS)
    game = (pack / "game.yaml").read_text(encoding="utf-8")
    (pack / "game.yaml").write_text(game + "fonts:\n  Body: fonts/Body.ttf\n", encoding="utf-8")
    (pack / "fonts").mkdir()
    if font is None:  # 2.5 GB, sparse: read whole, it took 5 GB before "not a TrueType font"
        with open(pack / "fonts" / "Body.ttf", "wb") as f:
            f.truncate(2_500_000_000)
    else:
        (pack / "fonts" / "Body.ttf").write_bytes(font)
    return pack


def _bad_cmap(font: bytes) -> bytes:
    """The font with its cmap table's offset past the end of the file."""
    data = bytearray(font)
    for i in range(struct.unpack(">H", data[4:6])[0]):
        if data[12 + 16 * i : 16 + 16 * i] == b"cmap":
            struct.pack_into(">I", data, 20 + 16 * i, len(data) + 1000)
    return bytes(data)


def test_a_huge_damaged_or_truncated_font_is_a_located_problem(tmp_path):
    good = (ROOT / "tests/fonts/WQYMicroHei-subset.ttf").read_bytes()
    damaged = (
        "cannot be used: the file is damaged or truncated (unpack requires a buffer of 2 bytes)"
    )
    cases = {
        "huge": (
            None,
            "cannot be read: the file has 2,500,000,000 bytes; pnpkit reads at most 50,000,000",
        ),
        "truncated": (good[:3000], damaged),
        "cmap": (_bad_cmap(good), damaged),
    }
    for name, (font, says) in cases.items():
        pack = _font_pack(tmp_path / name, font)
        refused(
            tmp_path,
            pack,
            f"{name}/deck/game.yaml:6:9: error: font 'fonts/Body.ttf' {says} [fonts]",
        )


# ---------------------------------------------------------------- SVG art

ART = """{% extends "_face.svg.j2" %}{% block content %}
<image href="art/a.svg" x="0" y="0" width="20" height="20"/>
<text x="5" y="30" font-size="4">{{ item.title }}</text>
{% endblock %}
"""
SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">'
ONE = "\n    - {id: a, suit: sun, cost: 1, keys: [], title: {en: A, pl: B}}"


def art_pack(root: Path, files: dict[str, str], template: str = ART, items: str = ONE) -> Path:
    pack = make_pack(root, items)
    (pack / "templates" / "card.svg.j2").write_text(template, encoding="utf-8")
    (pack / "art").mkdir()
    for name, text in files.items():
        (pack / "art" / name).write_text(text, encoding="utf-8")
    return pack


def test_svg_nesting_and_expansion_are_bounded(tmp_path):
    nested = art_pack(  # a RecursionError before
        tmp_path / "nested",
        {"a.svg": SVG + "<g>" * 250 + '<rect width="1" height="1"/>' + "</g>" * 250 + "</svg>"},
    )
    defs = ['<rect id="l0" width="1" height="1"/>'] + [
        f'<g id="l{i}">' + f'<use href="#l{i - 1}"/>' * 10 + "</g>" for i in range(1, 10)
    ]
    uses = art_pack(  # 10^9 rectangles
        tmp_path / "uses",
        {"a.svg": SVG + "<defs>" + "".join(defs) + '</defs><use href="#l9"/></svg>'},
    )
    names = ["a"] + [f"n{i}" for i in range(1, 8)]  # each draws the next ten times: 3.5 GB
    files = {
        f"{name}.svg": SVG
        + (
            f'<image href="art/{names[i + 1]}.svg" x="0" y="0" width="1" height="1"/>' * 10
            if i + 1 < len(names)
            else '<rect width="1" height="1"/>' * 5
        )
        + "</svg>"
        for i, name in enumerate(names)
    }
    art = art_pack(tmp_path / "art", files)
    big = art_pack(tmp_path / "big", {"a.svg": SVG + "<!--" + " " * 30_000_000 + "--></svg>"})
    attr = art_pack(
        tmp_path / "attr",
        {"a.svg": SVG + f'<rect width="1" height="1" fill="{"a" * 10_500_000}"/></svg>'},
    )
    many = (
        "the drawing has more than 50,000 elements once each <use> and art file is expanded; "
        "pnpkit draws at most 50,000 in one drawing [svg]"
    )
    refused(
        tmp_path,
        nested,
        "nested/deck/art/a.svg:1:1: error: elements nest more than 100 deep (counting <use> "
        "and the art files that draw this one); pnpkit draws at most that [svg]",
    )
    refused(tmp_path, uses, f"uses/deck/art/a.svg:1:1: error: {many}")
    refused(tmp_path, art, f"art/deck/art/n3.svg:1:1: error: {many}")
    refused(
        tmp_path,
        big,
        "big/deck/art/a.svg:0:1: error: cannot read image: the file has 30,000,073 bytes; "
        "pnpkit reads at most 20,000,000 [svg]",
    )
    refused(  # libxml's message was two lines
        tmp_path,
        attr,
        "attr/deck/art/a.svg:1:1: error: Resource limit exceeded: Buffer size limit "
        "exceeded, try XML_PARSE_HUGE , line 1, column 10003992 [svg]",
    )


# ---------------------------------------------------------------- directional controls


def _items(title: str) -> str:
    escaped = title.encode("unicode_escape").decode()
    return '\n    - {id: a, suit: sun, cost: 1, keys: [], title: {en: "' + escaped + '", pl: B}}'


def test_an_unmatched_directional_control_is_located_in_words(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rlo = make_pack(tmp_path / "rlo", _items("abc\u202edef"))  # an IndexError before
    lri = make_pack(tmp_path / "lri", _items("abc\u2066def"))  # "LRI not allowed here"
    stray = make_pack(tmp_path / "stray", _items("abc\u202cdef"))
    assert run(capsys, "validate", rlo.relative_to(tmp_path)) == (
        1,
        [
            "rlo/deck/cards.yaml:13:57: error: the text holds an unmatched right-to-left "
            "override U+202E (character 4): close it with pop directional formatting U+202C "
            "in the same line, or remove it [text]"
        ],
    )
    assert run(capsys, "validate", lri.relative_to(tmp_path))[1] == [
        "lri/deck/cards.yaml:13:57: error: the text holds an unmatched left-to-right isolate "
        "U+2066 (character 4): close it with pop directional isolate U+2069 in the same line, "
        "or remove it [text]"
    ]
    assert run(capsys, "validate", stray.relative_to(tmp_path))[1] == [
        "stray/deck/cards.yaml:13:57: error: the text holds an unmatched pop directional "
        "formatting U+202C (character 4), which closes nothing [text]"
    ]
    rows = [HEADER] + [list(r) for r in ROWS]
    rows[2][4] = "Noon\u2067"  # in a sheet's cell
    cell = sheet_pack(tmp_path / "cell", "csv", rows)
    assert run(capsys, "validate", cell.relative_to(tmp_path))[1] == [
        "cell/deck/cards.csv:3:16: error: the text holds an unmatched right-to-left isolate "
        "U+2067 (character 5): close it with pop directional isolate U+2069 in the same line, "
        "or remove it [sheet]"
    ]
    # written in the template itself, the drawn text is checked
    literal = art_pack(
        tmp_path / "literal",
        {"a.svg": SVG + "</svg>"},
        ART.replace("{{ item.title }}", "x\u202by"),
    )
    code, lines = run(capsys, "validate", literal.relative_to(tmp_path))
    assert code == 1 and lines[0].endswith(
        "error: the text holds an unmatched right-to-left embedding U+202B (character 2): close "
        "it with pop directional formatting U+202C in the same line, or remove it (line 4 of "
        "the SVG for the front of 'a') [svg]"
    )


def test_matched_controls_and_boundary_neutrals_are_drawn_in_order(tmp_path, capsys, monkeypatch):
    """An override closed in its line, and Arabic with a zero-width non-joiner (a character the
    algorithm sets aside: an IndexError before), build; the override's letters print reversed."""
    from pypdf import PdfReader

    monkeypatch.chdir(tmp_path)
    pack = make_pack(tmp_path / "ok", _items("abc\u202edef\u202c x \u0628\u200c\u0628"))
    assert run(capsys, "build", pack.relative_to(tmp_path), "--out", "out")[0] == 0
    pdf = next((tmp_path / "out").rglob("*-en.pdf"))
    text = "".join(page.extract_text() for page in PdfReader(pdf).pages)
    assert "abc" in text and "fed" in text and text.index("abc") < text.index("fed")
    assert "\u0628" in text


def test_bidi_levels_agree_with_the_algorithm():
    from pnpkit.typeset import unibidi

    # a Hebrew word and a number inside a left-to-right line (levels as unicode-bidi gives them)
    assert unibidi.levels("abc \u05d0\u05d1 12 x", 0) == [0, 0, 0, 0, 1, 1, 1, 2, 2, 0, 0]
    assert unibidi.levels("\u05d0 (a) \u05d1", 1) == [1, 1, 1, 2, 1, 1, 1]
    assert unibidi.base_level("\u2067abc\u2069 \u05d0") == 1  # P2 skips the isolate
    # the controls set aside by X9 take the level of the character before them
    assert unibidi.levels("a\u202eb\u202c", 0) == [0, 0, 1, 1]


def test_a_huge_template_is_refused_before_it_is_read(tmp_path):
    pack = make_pack(tmp_path / "tpl", ONE)
    template = pack / "templates" / "card.svg.j2"
    template.write_text(template.read_text() + "{# " + " " * 6_000_000 + " #}", encoding="utf-8")
    refused(
        tmp_path,
        pack,
        "tpl/deck/cards.yaml:4:10: error: template 'card.svg.j2' for the front of 'a': cannot "
        "read 'tpl/deck/templates/card.svg.j2': the file has 6,000,369 bytes; pnpkit reads at "
        "most 5,000,000 [paths]",
    )
