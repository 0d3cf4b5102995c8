"""Issue 32, item 4 and 6: every input has a budget and every message is one located line.

Each hostile file runs `pnpkit validate` in a child limited to 1 GB of address space: before
the budgets the worst of them aborted the process (a cell at XFD99999: 52 GB) or took gigabytes
and minutes; each must now end with one located line, exit 1, in under 10 s."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import openpyxl

from conftest import ROOT
from sheetfiles import write_delimited
from test_sheets import HEADER, ROWS, _inject, sheet_pack

MEMORY = 1 << 30  # bytes of address space for each run


def _fence() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def validate(root: Path, pack: Path) -> tuple[int, list[str]]:
    """`pnpkit validate pack` from root in a fenced child: (exit code, lines printed); in 10 s."""
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "pnpkit", "validate", str(pack.relative_to(root))],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_fence,
    )
    seconds = time.perf_counter() - start
    assert "Traceback" not in out.stderr and "panicked" not in out.stderr, out.stderr[-2000:]
    assert seconds < 10, f"took {seconds:.1f} s"
    return out.returncode, out.stdout.splitlines()


# ---------------------------------------------------------------- spreadsheets


def _xlsx_with(root: Path, name: str, ref: str) -> Path:
    pack = sheet_pack(root / name, "xlsx", [HEADER] + ROWS)
    wb = openpyxl.load_workbook(pack / "cards.xlsx")
    wb.active[ref] = 1
    wb.save(pack / "cards.xlsx")
    return pack


def test_a_far_cell_in_an_xlsx_is_refused_before_the_reader_lays_out_its_grid(tmp_path):
    far = _xlsx_with(tmp_path, "far", "XFD99999")  # 1.6 billion cells from A1
    assert validate(tmp_path, far) == (
        1,
        [
            "far/deck/cards.yaml:12:10: error: sheet 'Sheet1' declares cells up to XFD99999 "
            "(1,638,383,616 from A1); pnpkit reads sheets of at most 2,000,000 cells [sheet]"
        ],
    )
    # the same cell without the dimension openpyxl declares: refused at the cell itself
    _inject(far / "cards.xlsx", "xl/worksheets/sheet1.xml", b'<dimension ref="A1:XFD99999"/>', b"")
    assert validate(tmp_path, far) == (
        1,
        [
            "far/deck/cards.xlsx:Sheet1!XFD99999: error: the cell XFD99999 is in column "
            "16,384; pnpkit reads sheets of at most 200 columns (A to GR) [sheet]"
        ],
    )
    inside = _xlsx_with(tmp_path, "inside", "GR99999")  # within the rows and columns: 821 MB
    _inject(
        inside / "cards.xlsx", "xl/worksheets/sheet1.xml", b'<dimension ref="A1:GR99999"/>', b""
    )
    assert validate(tmp_path, inside) == (
        1,
        [
            "inside/deck/cards.xlsx:Sheet1!GR99999: error: the sheet's cells reach GR99999 "
            "(19,999,800 cells from A1); pnpkit reads sheets of at most 2,000,000 cells [sheet]"
        ],
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
    assert validate(tmp_path, wide) == (
        1,
        [
            "wide/deck/cards.ods:Sheet1!XFM1: error: the cell XFM1 is in column 16,393; "
            "pnpkit reads sheets of at most 200 columns (A to GR) [sheet]"
        ],
    )
    assert validate(tmp_path, tall) == (
        1,
        [
            "tall/deck/cards.ods:Sheet1!A1000000001: error: the cell A1000000001 is in row "
            "1,000,000,001; pnpkit reads sheets of at most 100,000 rows [sheet]"
        ],
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
    assert validate(tmp_path, digits) == (
        1,
        [
            "digits/deck/cards.csv:2:13: error: a number of 5000 digits; "
            "numbers have at most 30 [limits]"
        ],
    )
    assert validate(tmp_path, commas) == (
        1,
        [
            "commas/deck/cards.csv:5:16385: error: this row has more than 16,384 fields; "
            "pnpkit reads rows of at most 16,384 [sheet]"
        ],
    )
    assert validate(tmp_path, quote) == (
        1,
        [
            "quote/deck/cards.csv:5:3: error: this quoted field is not closed within 41,000 "
            "characters (a '\"' is missing, or the field is longer than pnpkit reads) [sheet]"
        ],
    )
    assert validate(tmp_path, long) == (
        1,
        [
            "long/deck/cards.csv:5:3: error: this field is longer than 41,000 characters, "
            "which pnpkit reads [sheet]"
        ],
    )
    # a closed quoted field of the largest cell is read
    rows = [HEADER] + [list(r) for r in ROWS]
    rows[1][4] = '"' * 20_000
    write_delimited(long / "cards.csv", rows)
    code, lines = validate(tmp_path, long)  # a warning: the long title crosses the cut line
    assert code == 0 and not any(": error: " in line for line in lines)
