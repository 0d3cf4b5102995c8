"""Edit a sheet's cell or row in place: CSV and TSV as text, XLSX inside its zip.

CSV/TSV: a record is found where sheets.py reads it (the same field pattern); a cell is
rewritten in the file's own dialect (its delimiter; quoted only when the text needs it, or when
the cell was quoted), a row is added after, copied after or cut from its lines. Every other
byte of the file, every other row included, stays as it is.

XLSX: the cell is rewritten inside the sheet's XML (found as calamine finds it, its `s` style
kept; text as an inline string, so the shared strings stay as they are) and the zip is written
again with every other member's bytes, name, date and compression as they were. A formula cell
is refused. Adding or removing a workbook's rows is refused (rows below would move, and with
them what refers to them): do that in the spreadsheet. ODS is refused before it comes here.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from lxml import etree

from pnpkit.edit.locate import Refused
from pnpkit.errors import Location, column_letters
from pnpkit.pack import sheets, sheetscan

BOM = b"\xef\xbb\xbf"
XLSX_ROWS = (
    "add or remove a workbook's rows in your spreadsheet (pnpkit writes back its cells only)"
)


@dataclass(frozen=True)
class Target:
    """A sheet row: its file, kind ("csv", "tsv", "xlsx"), workbook sheet ("" first), the row
    (the CSV line its record starts on; the workbook's row number), the item's id."""

    file: Path
    kind: str
    sheet: str
    row: int
    item: str


@dataclass
class _Record:
    start: int  # of its first field
    end: int  # of its last field (before the line break)
    after: int  # past its line break
    line: int
    fields: list[tuple[int, int, str]]  # (start, end, value as read, quotes undone)


# ---------------------------------------------------------------- the operations


def set_cell(data: bytes, target: Target, column: str, value: Any) -> bytes:
    """data with the row's cell in `column` set to value."""
    if target.kind == "xlsx":
        header, name = _workbook_header(target)
        return _xlsx_cell(data, name, target.row, _column_of(target, header, column) + 1, value)
    sheet = _Delimited(data, target)
    index = _column_of(target, sheet.header, column)
    record = sheet.record(target)
    new = _with_field(sheet.text, record, index, cell_text(value), sheet.delimiter)
    sheet.same_record(new, record, index, cell_text(value))
    return sheet.bom + new.encode("utf-8")


def add_row(data: bytes, target: Target, item: dict[str, Any]) -> bytes:
    """data with a row for item (its values in the header's columns) after the target row."""
    if target.kind == "xlsx":
        raise Refused(XLSX_ROWS)
    sheet = _Delimited(data, target)
    for key in item:
        if key not in sheet.header and not any(h.startswith(key + ".") for h in sheet.header):
            _column_of(target, sheet.header, key)  # refused, named
    cells = [_cell_of(item, name) for name in sheet.header]
    row = sheet.delimiter.join(_quoted(c, sheet.delimiter, False) for c in cells)
    return sheet.bom + _insert_after(sheet.text, sheet.record(target), row).encode("utf-8")


def duplicate_row(data: bytes, target: Target, new_id: str) -> bytes:
    """data with a copy of the target row after it, its id new_id."""
    if target.kind == "xlsx":
        raise Refused(XLSX_ROWS)
    sheet = _Delimited(data, target)
    record = sheet.record(target)
    text = sheet.text
    ids = _column_of(target, sheet.header, "id")
    copy = _with_field(text, record, ids, new_id, sheet.delimiter)
    row = copy[record.start : record.end + len(copy) - len(text)]
    return sheet.bom + _insert_after(text, record, row).encode("utf-8")


def remove_row(data: bytes, target: Target) -> bytes:
    if target.kind == "xlsx":
        raise Refused(XLSX_ROWS)
    sheet = _Delimited(data, target)
    record, text = sheet.record(target), sheet.text
    start, end = record.start, record.after
    if record.after == record.end and start > 0:  # the last line, without a break
        start -= 2 if text.endswith("\r\n", 0, start) else 1  # cut the break before it
    return sheet.bom + (text[:start] + text[end:]).encode("utf-8")


def cell_text(value: Any) -> str:
    """A value as a sheet's cell writes it (its column's reading gives the value back)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "; ".join(cell_text(v) for v in value)
    return repr(value) if isinstance(value, float) else str(value)


def _column_of(target: Target, header: list[str], column: str) -> int:
    if column not in header:
        raise Refused(
            f"'{target.file.name}' has no column '{column}'; add it to the header row in your "
            "spreadsheet first"
        )
    return header.index(column)


def _workbook_header(target: Target) -> tuple[list[str], str]:
    """A workbook's column names, as sheets.py reads its header row, and the sheet's name."""
    where = Location(target.file.name)
    table, problems = sheets.read_sheet(target.file, target.file.name, target.sheet or None, where)
    if table is None or not table.rows:
        why = problems[0].message if problems else "it is empty"
        raise Refused(f"'{target.file.name}' cannot be read now ({why})")
    return [cell_text(c.value) if c else "" for c in table.rows[0]], table.name


# ---------------------------------------------------------------- CSV and TSV


class _Delimited:
    """A CSV or TSV file's text, read where sheets.py reads it."""

    def __init__(self, data: bytes, target: Target) -> None:
        self.bom = BOM if data.startswith(BOM) else b""
        try:
            self.text = data[len(self.bom) :].decode("utf-8")
        except UnicodeDecodeError:
            raise Refused(f"'{target.file.name}' is not UTF-8 text") from None
        self.delimiter = "\t" if target.kind == "tsv" else ","
        self.rx = sheets.field_pattern(self.delimiter)
        i, self.header = 0, []
        while i < len(self.text):  # the header: the first row with a cell filled
            record = self.scan(i, 0)
            if any(v.strip() for _, _, v in record.fields):
                self.header = [v.strip() for _, _, v in record.fields]
                break
            i = record.after

    def scan(self, i: int, line: int) -> _Record:
        """The record starting at offset i (on `line`), as sheets._records reads it."""
        text, n = self.text, len(self.text)
        record = _Record(i, i, i, line, [])
        while True:
            m = self.rx.match(text, i)
            assert m is not None  # the last alternative matches an empty field
            quoted = m.group(1) is not None
            value = m.group(1).replace('""', '"') + m.group(2) if quoted else m.group(3)
            record.fields.append((m.start(), m.end(), value))
            i = m.end()
            if i < n and text[i] == self.delimiter:
                i += 1
                continue
            record.end = i
            record.after = min(n, i + (2 if text.startswith("\r\n", i) else 1))
            return record

    def record(self, target: Target) -> _Record:
        """The target's row: the record on its line whose id is the item's."""
        ids = self.header.index("id") if "id" in self.header else 0
        at = _line_offset(self.text, target.row)
        candidates = [self.scan(at, target.row)] if at is not None else []
        if not candidates or not self._is(candidates[0], ids, target.item):
            candidates = list(self._all())  # lines counted as sheets.py counts them
        found = next(
            (r for r in candidates if r.line == target.row and self._is(r, ids, target.item)), None
        )
        if found is None:
            raise Refused(f"no row of '{target.item}' on line {target.row} now; the sheet changed")
        return found

    def _is(self, record: _Record, ids: int, item: str) -> bool:
        return len(record.fields) > ids and record.fields[ids][2].strip() == item

    def _all(self) -> Iterator[_Record]:
        i, line = 0, 1
        while i < len(self.text):
            record = self.scan(i, line)
            yield record
            line += 1 + sum(self.text.count("\n", a, b) for a, b, _ in record.fields)
            i = record.after if record.after > i else len(self.text)

    def same_record(self, new: str, old: _Record, index: int, value: str) -> None:
        """The edited record reads as the old one with just that cell changed, and ends where
        the rest of the file, unchanged, starts (a check, not a hope)."""
        again = self._with(new).scan(old.start, old.line)
        values = [v for _, _, v in old.fields] + [""] * (index + 1 - len(old.fields))
        values[index] = value
        shift = len(new) - len(self.text)
        if [v for _, _, v in again.fields] != values or again.after != old.after + shift:
            raise Refused("the cell cannot be written without changing other rows")

    def _with(self, text: str) -> _Delimited:
        other = object.__new__(_Delimited)
        other.__dict__.update(self.__dict__, text=text)
        return other


def _line_offset(text: str, line: int) -> int | None:
    i = 0
    for _ in range(line - 1):
        i = text.find("\n", i) + 1
        if i == 0:
            return None
    return i


def _with_field(text: str, record: _Record, index: int, value: str, delimiter: str) -> str:
    if index < len(record.fields):
        start, end, _ = record.fields[index]
        was_quoted = text.startswith('"', start)
        return text[:start] + _quoted(value, delimiter, was_quoted) + text[end:]
    pad = delimiter * (index - len(record.fields) + 1)
    return text[: record.end] + pad + _quoted(value, delimiter, False) + text[record.end :]


def _quoted(value: str, delimiter: str, always: bool) -> str:
    if always or any(ch in value for ch in (delimiter, '"', "\n", "\r")) or value != value.strip():
        return '"' + value.replace('"', '""') + '"'
    return value


def _cell_of(item: dict[str, Any], column: str) -> str:
    head, _, lang = column.partition(".")
    value = item.get(head)
    if lang and isinstance(value, dict):
        value = value.get(lang)
    return "" if value is None or (lang and isinstance(value, dict)) else cell_text(value)


def _insert_after(text: str, record: _Record, row: str) -> str:
    nl = "\r\n" if "\r\n" in text else "\n"
    if record.after == record.end:  # the last line has no break
        return text[: record.end] + nl + row + text[record.end :]
    return text[: record.after] + row + nl + text[record.after :]


# ---------------------------------------------------------------- XLSX

# (XML writes an attribute in either quote: r="3" or r='3')
_ROW = r"<(?P<p>(?:[\w.-]+:)?)row\b[^>]*?\br=[\"']{row}[\"'][^>]*?(?:/>|>(?P<body>.*?)</(?P=p)row>)"
_CELL = re.compile(
    r"<(?P<p>(?:[\w.-]+:)?)c\b(?P<attrs>[^>]*?)(?:/>|>(?P<body>.*?)</(?P=p)c>)", re.S
)
_ATTR = re.compile(r"\b(r|s)=[\"']([^\"']*)[\"']")
_XML_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xlsx_cell(data: bytes, sheet: str, row: int, column: int, value: Any) -> bytes:
    archive = zipfile.ZipFile(io.BytesIO(data))
    part = sheetscan.xlsx_part(archive, sheet)
    xml = archive.read(part).decode("utf-8")
    found = re.search(_ROW.format(row=row), xml, re.S)
    if found is None or found.group("body") is None:
        raise Refused(f"row {row} of sheet '{sheet}' is not where it was; the workbook has changed")
    ref = f"{column_letters(column)}{row}"
    body, at = found.group("body"), found.start("body")
    new_body = _row_with_cell(body, found.group("p"), ref, column, value)
    xml = xml[:at] + new_body + xml[at + len(body) :]
    etree.fromstring(xml.encode("utf-8"), etree.XMLParser(resolve_entities=False))  # whole
    return _rezipped(archive, part, xml.encode("utf-8"))


def _row_with_cell(body: str, prefix: str, ref: str, column: int, value: Any) -> str:
    for m in _CELL.finditer(body):
        attrs = dict(_ATTR.findall(m.group("attrs")))
        col = _column(attrs.get("r", ""))
        if attrs.get("r") == ref:
            if m.group("body") and re.search(r"<(?:[\w.-]+:)?f\b", m.group("body")):
                raise Refused(f"cell {ref} holds a formula; edit it in your spreadsheet")
            return (
                body[: m.start()] + _cell_xml(prefix, ref, attrs.get("s"), value) + body[m.end() :]
            )
        if col > column:
            return body[: m.start()] + _cell_xml(prefix, ref, None, value) + body[m.start() :]
    return body + _cell_xml(prefix, ref, None, value)


def _column(ref: str) -> int:
    n = 0
    for ch in re.match(r"[A-Z]*", ref).group(0):  # type: ignore[union-attr]
        n = n * 26 + ord(ch) - 64
    return n


def _cell_xml(p: str, ref: str, style: str | None, value: Any) -> str:
    s = f' s="{style}"' if style is not None else ""
    if isinstance(value, bool):
        return f'<{p}c r="{ref}"{s} t="b"><{p}v>{int(value)}</{p}v></{p}c>'
    if isinstance(value, (int, float)):
        return f'<{p}c r="{ref}"{s}><{p}v>{cell_text(value)}</{p}v></{p}c>'
    text = cell_text(value)
    if _XML_BAD.search(text):
        raise Refused("the text holds a control character, which a workbook cannot hold")
    return (
        f'<{p}c r="{ref}"{s} t="inlineStr"><{p}is><{p}t xml:space="preserve">'
        f"{escape(text)}</{p}t></{p}is></{p}c>"
    )


def _rezipped(archive: zipfile.ZipFile, part: str, content: bytes) -> bytes:
    """The workbook again, one part replaced: every member in its order, with its own name,
    date, attributes and compression."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as new:
        for info in archive.infolist():
            data = content if info.filename == part else archive.read(info)
            new.writestr(info, data, compress_type=info.compress_type)
    return out.getvalue()
