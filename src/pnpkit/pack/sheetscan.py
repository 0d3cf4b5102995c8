"""A workbook's sheet XML read as a stream before python-calamine reads it: where its cells lie,
and which formulas have no saved value.

calamine places a sheet's cells in one grid from A1 to the last cell it is told of, about 40
bytes a cell: a 1.5 kB XLSX with one cell at XFD99999 asked for 52 GB and aborted the process,
one at GR99999 took 821 MB. So every cell reference (and an XLSX's declared dimension) is
checked here, with lxml's streaming parser and memory that does not grow with the sheet, and a
sheet that reaches too far is refused at its cell. The same pass finds the formulas that have
no saved value (calamine reads them as empty). sheets.py calls this after its zip scan has
refused document types and bounded what the parts unpack to, so no entity is ever met here.
"""

from __future__ import annotations

import posixpath
import re
import zipfile
from collections.abc import Iterator
from typing import IO, Literal, NamedTuple

from lxml import etree

from pnpkit import workspace
from pnpkit.errors import column_letters

MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
RELS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
F = f"{{{MAIN}}}f"  # a cell's formula
PACKAGE_RELS = "http://schemas.openxmlformats.org/package/2006/relationships"
TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
_REF = re.compile(r"([A-Za-z]{1,3})([0-9]{1,7})")
_COUNT = re.compile(r"[0-9]{1,9}")  # a repeat count: up to 999,999,999, bounded below anyway
# (row, column) 1-based, the formula as the user wrote it
Formula = tuple[tuple[int, int], str]


class Bounds(NamedTuple):
    rows: int  # the last row a cell may be in
    columns: int  # the last column
    area: int  # cells from A1 to the last row and column that hold something


class Beyond(Exception):
    """A sheet reaching past the bounds: at (row, column) of the named sheet, or at the workbook
    as a whole (None)."""

    def __init__(self, at: tuple[int, int] | None, message: str, sheet: str = ""):
        super().__init__(message)
        self.at, self.sheet = at, sheet


def _parse(
    f: IO[bytes],
    tags: tuple[str, ...],
    events: tuple[Literal["start", "end"], ...] = ("start", "end"),
) -> Iterator[tuple[str, etree._Element]]:
    return etree.iterparse(
        f,
        events=events,
        tag=tags,
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        huge_tree=False,
    )


@workspace.memoized(1024)
def _column(letters: str) -> int:
    n = 0
    for ch in letters.upper():
        n = n * 26 + ord(ch) - 64
    return n


class _Extent:
    """The cells holding something so far: their count and the last row and column reached."""

    def __init__(self, bounds: Bounds, sheet: str) -> None:
        self.bounds, self.sheet, self.rows, self.columns, self.cells = bounds, sheet, 0, 0, 0

    def add(self, row: int, column: int, cells: int = 1) -> None:
        """Cells up to (row, column), `cells` of them; Beyond when that reaches too far (a
        cell's time counts: the messages are made only then)."""
        b = self.bounds
        if column > b.columns or row > b.rows:
            what, n, limit, after = (
                ("column", column, b.columns, f" (A to {column_letters(b.columns)})")
                if column > b.columns
                else ("row", row, b.rows, "")
            )
            raise Beyond(
                (row, column),
                f"the cell {column_letters(column)}{row} is in {what} {n:,}; pnpkit reads "
                f"sheets of at most {limit:,} {what}s{after}",
                self.sheet,
            )
        if row > self.rows:
            self.rows = row
        if column > self.columns:
            self.columns = column
        self.cells += cells
        if self.rows * self.columns > b.area or self.cells > b.area:
            span = self.rows * self.columns
            raise Beyond(
                (row, column),
                f"the sheet's cells reach {column_letters(self.columns)}{self.rows} "
                f"({max(span, self.cells):,} cells from A1); pnpkit reads sheets of at most "
                f"{b.area:,} cells",
                self.sheet,
            )


# ---------------------------------------------------------------- XLSX


def xlsx_part(archive: zipfile.ZipFile, sheet: str) -> str:
    """The zip member holding the named sheet, found as calamine finds it: the workbook's
    <sheet r:id> and the workbook's relationships."""
    rid = target = None
    with archive.open("xl/workbook.xml") as f:
        for event, el in _parse(f, (f"{{{MAIN}}}sheet",)):
            if event == "end" and el.get("name") == sheet:
                rid = el.get(f"{{{RELS}}}id")
                break
    with archive.open("xl/_rels/workbook.xml.rels") as f:
        for event, el in _parse(f, (f"{{{PACKAGE_RELS}}}Relationship",)):
            if event == "end" and rid is not None and el.get("Id") == rid:
                target = el.get("Target")
                break
    if not target:
        raise KeyError(f"the workbook lists no part for sheet '{sheet}'")
    if target.startswith("/"):
        return posixpath.normpath(target[1:])
    return posixpath.normpath(target if target.startswith("xl/") else f"xl/{target}")


def _ref(text: str) -> tuple[int, int]:
    m = _REF.fullmatch(text)
    if m is None:
        raise Beyond(None, f"the sheet names a cell '{text[:40]}', which is no cell reference")
    return int(m.group(2)), _column(m.group(1))


def xlsx_scan(f: IO[bytes], bounds: Bounds, sheet: str) -> Formula | None:
    """Check a worksheet part's dimension and cells against bounds; its first formula cell (by
    row, then column) whose saved value is missing or blank."""
    extent, first = _Extent(bounds, sheet), None
    done = column = 0  # rows ended so far (the last one's number), the last cell's column
    c, r, dim = f"{{{MAIN}}}c", f"{{{MAIN}}}row", f"{{{MAIN}}}dimension"
    for _, el in _parse(f, (c, r, dim), ("end",)):
        if el.tag == c:
            ref = el.get("r")
            if ref:
                row, column = _ref(ref)
            else:  # placed after the cell before it, in its row
                up = el.getparent()
                number = up.get("r") if up is not None else None
                row, column = (_ref(f"A{number}")[0] if number else done + 1), column + 1
            if len(el):  # a value, an inline string or a formula: calamine places it
                extent.add(row, column)
                formula = _formula(el) if any(child.tag == F for child in el) else None
                if formula is not None and (first is None or (row, column) < first[0]):
                    first = ((row, column), formula)
            el.clear(keep_tail=False)
        elif el.tag == r:  # its cells are read: let them go
            number = el.get("r")
            done, column = (_ref(f"A{number}")[0] if number else done + 1), 0
            el.clear(keep_tail=False)
            while el.getprevious() is not None:
                del el.getparent()[0]  # type: ignore[union-attr]  # a row always has a parent
        else:
            _dimension(el.get("ref", ""), bounds, sheet)
    return first


def _dimension(ref: str, bounds: Bounds, sheet: str) -> None:
    last = ref.rpartition(":")[2]
    rows, columns = _ref(last)
    if rows * columns > bounds.area:
        raise Beyond(
            None,
            f"sheet {sheet!r} declares cells up to {last} ({rows * columns:,} from A1); "
            f"pnpkit reads sheets of at most {bounds.area:,} cells",
        )


def _formula(cell: etree._Element) -> str | None:
    """The formula of a cell with no saved value (or a blank one), as a spreadsheet shows it;
    None for any other cell. A cell sharing another's formula is named by that one's place."""
    f, v = cell.find(F), cell.find(f"{{{MAIN}}}v")
    if f is None or (v is not None and (v.text or "").strip()) or f.get("t") == "array":
        return None
    if cell.find(f"{{{MAIN}}}is") is not None:  # an inline string: calamine reads that
        return None
    if f.text:
        return f"={f.text}"
    return f"shared with the formula numbered si={f.get('si', '?')[:20]}"


# ---------------------------------------------------------------- ODS


def _count(el: etree._Element, name: str) -> int:
    text = el.get(f"{{{TABLE}}}{name}", "1")
    if _COUNT.fullmatch(text) is None:
        raise Beyond(None, f'the sheet has {name}="{text[:40]}", which is no count')
    return int(text)


def ods_scan(f: IO[bytes], bounds: Bounds) -> dict[str, Formula]:
    """Check every table of an ODS content.xml against bounds (calamine reads them all when it
    opens the file), repeated rows and cells counted as the cells they stand for; each table's
    first formula without a saved value, by table name."""
    cells = (f"{{{TABLE}}}table-cell", f"{{{TABLE}}}covered-table-cell")
    table, row_tag = f"{{{TABLE}}}table", f"{{{TABLE}}}table-row"
    first: dict[str, Formula] = {}
    name, extent, row, col, filled, last = "", _Extent(bounds, ""), 0, 0, 0, 0
    for event, el in _parse(f, (table, row_tag, *cells)):
        if event == "start":
            if el.tag == table:
                name = el.get(f"{{{TABLE}}}name", "")
                extent, row = _Extent(bounds, name), 0
            elif el.tag == row_tag:
                col = filled = last = 0
            continue
        if el.tag in cells:
            repeat = _count(el, "number-columns-repeated")
            formula = el.get(f"{{{TABLE}}}formula")
            if formula and el.get(f"{{{OFFICE}}}value-type") is None and name not in first:
                first[name] = ((row + 1, col + 1), formula)
            if len(el) or el.get(f"{{{OFFICE}}}value-type") is not None or formula:
                filled, last = filled + repeat, col + repeat
                extent.add(row + 1, last, 0)
            col += repeat
        elif el.tag == row_tag:
            repeat = _count(el, "number-rows-repeated")
            if filled:
                extent.add(row + repeat, last, filled * repeat)
            row += repeat
        if el.tag != table:
            el.clear(keep_tail=False)
            while el.getprevious() is not None:
                del el.getparent()[0]  # type: ignore[union-attr]  # a row or cell has a parent
    return first
