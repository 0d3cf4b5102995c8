"""Read a spreadsheet (CSV, TSV, XLSX, ODS) into located cells, refusing what could hurt.

A sheet is read whole into rows of `Cell`s, each with its place: line and column
of the text for CSV/TSV (`cards.csv:14:3`), sheet and cell for workbooks
(`cards.xlsx:Deck!C14`). Empty rows are dropped here; what the columns mean is
itemsheet.py's business.

Packs come from strangers, so reading is bounded: a sheet file larger than
MAX_BYTES, a workbook that unpacks to more than MAX_UNPACKED, a sheet with more
than MAX_ROWS rows or MAX_COLUMNS columns, and any XML document type declaration
(where entities are declared: "billion laughs", external files) are refused with a
located error before a parser sees the data. Workbooks (XLSX and ODS) are read with
python-calamine (Rust, no DTD processing), once sheetscan.py has streamed the sheet's XML to
check where its cells lie (calamine allocates a grid from A1 to the last cell) and to find the
formulas without a saved value.
"""

from __future__ import annotations

import math
import re
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, TypeVar

from pnpkit.errors import Location, Problem, one_line
from pnpkit.pack import sheetscan
from pnpkit.typeset import unibidi

if TYPE_CHECKING:  # calamine is imported where a workbook is read
    from python_calamine import CalamineSheet

MAX_BYTES = 20_000_000  # a 10,000-card XLSX is well under 1 MB
# all the XML inside a workbook, unzipped: a 10,000-card deck's is about 3 MB. 187 MB of shared
# strings in a 460 kB file took the reader 6 s of CPU and 650 MB; 50 MB is a quarter of that
MAX_UNPACKED = 50_000_000
MAX_ROWS = 50_000
MAX_COLUMNS = 200
MAX_CELL_CHARS = 20_000
# a CSV field as written, quotes doubled and spaces around it included: a quoted field is
# matched within this window (matched to the end of a 19 MB file, an unclosed quote took 2.5 GB)
MAX_FIELD_CHARS = 2 * MAX_CELL_CHARS + 1000
# fields in one CSV record, empty ones included (a spreadsheet's widest row): a 20 MB row of
# commas took 60-130 s placing 20 million empty cells
MAX_RECORD_FIELDS = 16_384
# filled cells in one sheet: about 250 MB once read and placed (a 10,000-card deck has 80,000)
MAX_CELLS = 500_000
# cells from A1 to the last row and column holding something: calamine's grid takes about 40
# bytes for each (2,000,000: 80 MB; a 10,000-card deck of 8 columns spans 80,000)
MAX_AREA = 2_000_000
RULE = "sheet"
T = TypeVar("T")


class SheetError(Exception):
    """A sheet that cannot be read; carries the place and the message."""

    def __init__(self, where: Location, message: str):
        super().__init__(message)
        self.where = where


@dataclass(frozen=True)
class Cell:
    value: object  # str, int, float or bool; never None (empty cells are left out)
    where: Location


@dataclass
class Sheet:
    """The non-empty rows of one sheet: rows[0] is the header."""

    file: str
    name: str = ""  # a workbook's sheet name; "" for CSV/TSV
    rows: list[list[Cell | None]] = field(default_factory=list)
    cells: int = 0  # filled cells so far, against MAX_CELLS


def read_sheet(
    path: Path, shown: str, sheet: str | None, where: Location
) -> tuple[Sheet | None, list[Problem]]:
    """The sheet in path (shown to the user as `shown`); problems are located at `where` (the
    `items:` line) when the file as a whole is wrong, else at the cell."""
    suffix = path.suffix.lower()
    reader = READERS.get(suffix)
    if reader is None:
        known = ", ".join(sorted(READERS))
        return None, [
            Problem(
                where,
                f"items file '{path.name}' is not a sheet pnpkit reads (it reads {known})",
                RULE,
            )
        ]
    if sheet is not None and suffix in (".csv", ".tsv"):
        return None, [
            Problem(
                where,
                f"'{path.name}' is a {suffix[1:].upper()} file, which has one sheet: drop 'sheet'",
                RULE,
            )
        ]
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise SheetError(
                where,
                f"sheet file '{path.name}' is {size:,} bytes; "
                f"pnpkit reads sheets of at most {MAX_BYTES:,} bytes",
            )
        return reader(path, shown, sheet, where), []
    except SheetError as exc:
        return None, [Problem(exc.where, str(exc), RULE)]
    except OSError as exc:
        return None, [Problem(where, f"cannot read '{path.name}': {exc.strerror or exc}", RULE)]


def _too_many(what: str, n: int, limit: int, where: Location) -> SheetError:
    return SheetError(
        where,
        f"the sheet has more than {limit:,} {what} (found "
        f"{n:,} or more); pnpkit reads at most {limit:,}",
    )


def _add_row(sheet: Sheet, cells: list[Cell | None], where: Location) -> None:
    while cells and cells[-1] is None:  # a workbook pads rows to its widest one
        cells.pop()
    if len(cells) > MAX_COLUMNS:
        raise _too_many("columns", len(cells), MAX_COLUMNS, where)
    filled = sum(c is not None for c in cells)
    if filled:
        sheet.rows.append(cells)
        sheet.cells += filled
        if len(sheet.rows) > MAX_ROWS + 1:  # the header does not count
            raise _too_many("rows", len(sheet.rows) - 1, MAX_ROWS, where)
        if sheet.cells > MAX_CELLS:
            raise _too_many("filled cells", sheet.cells, MAX_CELLS, where)


def _cell(value: object, where: Location) -> Cell | None:
    """A cell's value as read, or None when empty; text is trimmed, numbers must be finite."""
    if value is None:
        return None
    if isinstance(value, str):
        value = value.strip()
        if not value:
            return None
        if len(value) > MAX_CELL_CHARS:
            raise SheetError(
                where,
                f"the cell holds {len(value):,} characters; pnpkit "
                f"reads at most {MAX_CELL_CHARS:,} in one cell",
            )
        unmatched = unibidi.unmatched(value) if unibidi.CONTROLS.search(value) else None
        if unmatched:
            raise SheetError(where, unmatched)
        return Cell(value, where)
    if isinstance(value, bool):
        return Cell(value, where)
    if isinstance(value, (int, float)):
        if not math.isfinite(value):
            raise SheetError(where, f"the cell holds {value}, which is not a finite number")
        return Cell(value, where)
    return Cell(str(value), where)  # dates, times: as text, so a field of another type reports them


# ---------------------------------------------------------------- CSV and TSV


def _read_delimited(
    path: Path, shown: str, sheet: str | None, where: Location, delimiter: str = ","
) -> Sheet:
    data = path.read_bytes()
    if data.startswith(b"\xef\xbb\xbf"):  # Excel's "CSV UTF-8" starts with a byte-order mark
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise SheetError(
            Location(shown, line, col),
            f"'{path.name}' is not UTF-8 text (byte "
            f"0x{data[exc.start]:02x}); save the sheet as CSV UTF-8",
        ) from None
    out = Sheet(shown)
    for cells, at in _records(text, delimiter, shown):
        _add_row(out, cells, at)
    return out


def field_pattern(delimiter: str) -> re.Pattern[str]:
    """One field of a record: "quoted" (group 1, text after the quote in group 2) or plain
    (group 3). sheetedit.py edits a field where this reads it."""
    d = re.escape(delimiter)
    return re.compile(f'"((?:[^"]|"")*)"([^{d}\\r\\n]*)|([^{d}\\r\\n]*)')


def _records(text: str, delimiter: str, shown: str) -> Iterator[tuple[list[Cell | None], Location]]:
    """RFC 4180 records with the line and column where each field starts (quoted fields may span
    lines)."""
    field_rx = field_pattern(delimiter)
    i, n, line, col = 0, len(text), 1, 1
    row: list[Cell | None] = []
    row_at = Location(shown, 1, 1)
    while True:
        start = Location(shown, line, col)
        if not row:
            row_at = start
        window = min(n, i + MAX_FIELD_CHARS)
        m = field_rx.match(text, i, window)
        assert m is not None  # the last alternative matches an empty field
        if (
            m.group(1) is not None
        ):  # quoted: "" is a quote, newlines are kept; text after the quote too
            value = m.group(1).replace('""', '"') + m.group(2)
            line, col = _advance(m.group(0), line, col)
        elif i < n and text[i] == '"':
            raise SheetError(
                start,
                "this quoted field is never closed (a '\"' is missing)"
                if window == n
                else f"this quoted field is not closed within {MAX_FIELD_CHARS:,} characters "
                f"(a '\"' is missing, or the field is longer than pnpkit reads)",
            )
        else:
            value = m.group(3)
            col += len(value)
        i = m.end()
        if i == window < n:
            raise SheetError(
                start,
                f"this field is longer than {MAX_FIELD_CHARS:,} characters, which pnpkit reads",
            )
        if len(row) == MAX_RECORD_FIELDS:
            raise SheetError(
                start,
                f"this row has more than {MAX_RECORD_FIELDS:,} fields; pnpkit reads rows of "
                f"at most {MAX_RECORD_FIELDS:,}",
            )
        row.append(_cell(value, start))
        if i < n and text[i] == delimiter:
            i, col = i + 1, col + 1
            continue
        if row != [None] or i < n:  # the newline after the last record ends no further record
            yield row, row_at
        row = []
        if i >= n:
            return
        i += 2 if text.startswith("\r\n", i) else 1
        line, col = line + 1, 1
        if i >= n:
            return


def _advance(chunk: str, line: int, col: int) -> tuple[int, int]:
    newlines = chunk.count("\n")
    if newlines:
        return line + newlines, len(chunk) - chunk.rfind("\n")
    return line, col + len(chunk)


def _read_tsv(path: Path, shown: str, sheet: str | None, where: Location) -> Sheet:
    return _read_delimited(path, shown, sheet, where, "\t")


# ---------------------------------------------------------------- workbooks


def _check_zip(path: Path, where: Location) -> None:
    """Refuse a workbook that unpacks too large or declares a DTD (entities)."""
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise SheetError(where, f"'{path.name}' is not a readable workbook ({exc})") from None
    with archive:
        infos = archive.infolist()
        total = sum(i.file_size for i in infos)
        if total > MAX_UNPACKED:
            raise SheetError(
                where,
                f"workbook '{path.name}' unpacks to {total:,} bytes; "
                f"pnpkit reads workbooks of at most {MAX_UNPACKED:,}",
            )
        budget = [MAX_UNPACKED]
        for info in infos:
            try:
                found = _scan(archive, info, budget, where)
            except SheetError:
                raise
            except Exception as exc:  # zipfile, zlib and lzma raise many types for a damaged member
                raise SheetError(
                    where,
                    f"'{path.name}' is not a readable workbook "
                    f"({info.filename}: {type(exc).__name__}: {exc})",
                ) from None
            if found.startswith(
                (b"\xff\xfe", b"\xfe\xff", b"<\x00", b"\x00<")
            ):  # UTF-16 would hide a DTD from the scan
                raise SheetError(
                    where,
                    f"workbook '{path.name}' has an XML part in UTF-16 "
                    f"({info.filename}); pnpkit reads UTF-8 workbooks",
                )
            if b"<!DOCTYPE" in found or b"<!ENTITY" in found:
                raise SheetError(
                    where,
                    f"workbook '{path.name}' declares an XML document type ({info.filename}); "
                    "pnpkit refuses XML entities in sheets (save "
                    "the workbook again from a spreadsheet program)",
                )


_MARKERS = (b"<!DOCTYPE", b"<!ENTITY")


def _scan(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: list[int], where: Location
) -> bytes:
    """The member's first two bytes, then which markers occur in it, streamed; every member is
    scanned, whatever its name, since a workbook's parts are found through its own listings.
    The sizes the zip declares are not trusted: what is read is counted against `budget`."""
    found: set[bytes] = set()
    tail, head = b"", b""
    with archive.open(info) as f:
        while chunk := f.read(1 << 20):
            head = head or chunk[:2]
            budget[0] -= len(chunk)
            if budget[0] < 0:
                raise SheetError(
                    where,
                    f"workbook '{Path(archive.filename or '').name}' "
                    f"unpacks to more than {MAX_UNPACKED:,} bytes; "
                    f"pnpkit reads workbooks of at most {MAX_UNPACKED:,}",
                )
            window = tail + chunk
            found.update(m for m in _MARKERS if m in window)
            tail = window[-16:]
    return head + b" " + b" ".join(found)


def _read_xlsx(path: Path, shown: str, sheet: str | None, where: Location) -> Sheet:
    """Values through calamine (ten times openpyxl's speed: a 10,000-row sheet in well under a
    second), once the sheet's XML, streamed, has shown that its cells lie inside the bounds
    (sheetscan.py); that pass also finds the formulas without a saved value."""
    _check_zip(path, where)

    def scan(name: str) -> Callable[[zipfile.ZipFile], sheetscan.Formula | None]:
        def part(archive: zipfile.ZipFile) -> sheetscan.Formula | None:
            with archive.open(sheetscan.xlsx_part(archive, name)) as f:
                return sheetscan.xlsx_scan(f, _bounds(), name)

        return part

    out, name, first = _read_calamine(path, shown, sheet, where, "XLSX workbook", scan)
    if first is not None:  # calamine read it as empty
        (r, c), formula = first
        raise SheetError(
            Location(shown, r, c, name),
            f"the formula {formula} has no saved value; open and "
            "save the workbook in a spreadsheet program",
        )
    return out


def _read_ods(path: Path, shown: str, sheet: str | None, where: Location) -> Sheet:
    """calamine parses every table of content.xml when it opens the file: all are scanned first."""
    _check_zip(path, where)

    def scan(archive: zipfile.ZipFile) -> dict[str, sheetscan.Formula]:
        with archive.open("content.xml") as f:
            return sheetscan.ods_scan(f, _bounds())

    first = _scanned(path, shown, where, scan)
    out, name, _ = _read_calamine(path, shown, sheet, where, "ODS spreadsheet", None)
    if name in first:
        (r, c), formula = first[name]
        raise SheetError(
            Location(shown, r, c, name),
            f"the formula {formula} has no saved value; open "
            "and save the spreadsheet in a spreadsheet program",
        )
    return out


def _bounds() -> sheetscan.Bounds:
    return sheetscan.Bounds(2 * MAX_ROWS, MAX_COLUMNS, MAX_AREA)


def _scanned(path: Path, shown: str, where: Location, scan: Callable[[zipfile.ZipFile], T]) -> T:
    """scan's answer for the workbook, its refusals located."""
    try:
        with zipfile.ZipFile(path) as archive:
            return scan(archive)
    except sheetscan.Beyond as exc:
        if exc.at is None:
            raise SheetError(where, str(exc)) from None
        raise SheetError(Location(shown, *exc.at, exc.sheet), str(exc)) from None
    except Exception as exc:  # zipfile's and lxml's errors: a damaged part
        raise SheetError(
            where, f"cannot read '{path.name}' ({type(exc).__name__}: {one_line(str(exc))})"
        ) from None


def _pick(names: list[str], sheet: str | None, path: Path, where: Location) -> str:
    if not names:
        raise SheetError(where, f"workbook '{path.name}' has no sheets")
    if sheet is None:
        return names[0]
    if sheet not in names:
        from pnpkit.pack.checker import did_you_mean

        raise SheetError(
            where,
            f"workbook '{path.name}' has no sheet '{sheet}' (it "
            f"has {', '.join(names)}){did_you_mean(sheet, names)}",
        )
    return sheet


def _read_calamine(
    path: Path,
    shown: str,
    sheet: str | None,
    where: Location,
    what: str,
    scan: Callable[[str], Callable[[zipfile.ZipFile], sheetscan.Formula | None]] | None,
) -> tuple[Sheet, str, sheetscan.Formula | None]:
    """A workbook's sheet (named, or the first) with python-calamine, after scan (if any) has
    checked that sheet; returns it, its name and what scan found."""
    import python_calamine  # imported on use: most packs have no workbook

    try:
        wb = python_calamine.CalamineWorkbook.from_path(str(path))
    except Exception as exc:  # calamine's errors are its own types
        raise SheetError(
            where, f"'{path.name}' is not a readable {what} ({type(exc).__name__}: {exc})"
        ) from None
    try:
        with wb:
            name = _pick(wb.sheet_names, sheet, path, where)
            found = _scanned(path, shown, where, scan(name)) if scan else None
            return _ods_rows(wb.get_sheet_by_name(name), shown, name, where), name, found
    except SheetError:
        raise
    except Exception as exc:  # calamine's own error types
        raise SheetError(
            where, f"cannot read '{path.name}' ({type(exc).__name__}: {exc})"
        ) from None


def _ods_rows(ws: CalamineSheet, shown: str, name: str, where: Location) -> Sheet:
    rows, cols = (ws.end[0] + 1, ws.end[1] + 1) if ws.end else (0, 0)
    if rows > 2 * MAX_ROWS:  # blank rows are skipped, but not without end
        raise _too_many("rows", rows, 2 * MAX_ROWS, where)
    if cols > MAX_COLUMNS:
        raise _too_many("columns", cols, MAX_COLUMNS, where)
    out = Sheet(shown, name)
    # to_python from A1 (iter_rows starts its rows at 1 but its columns at the first used one)
    for r, values in enumerate(ws.to_python(skip_empty_area=False), 1):
        at = Location(shown, r, 1, name)
        _add_row(
            out,
            [
                None if v == "" else _cell(_ods_value(v), Location(shown, r, c, name))
                for c, v in enumerate(values, 1)
            ],
            at,
        )
    return out


def _ods_value(v: object) -> object:
    """calamine reads every number as a float; a whole one is an int, as in YAML and openpyxl."""
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


READERS = MappingProxyType(
    {".csv": _read_delimited, ".tsv": _read_tsv, ".xlsx": _read_xlsx, ".ods": _read_ods}
)
