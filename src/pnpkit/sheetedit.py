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
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from lxml import etree

from pnpkit import sheets, sheetscan
from pnpkit.errors import Location, column_letters
from pnpkit.sources import Refused

BOM = b"\xef\xbb\xbf"
XLSX_ROWS = (
    "add or remove a workbook's rows in your spreadsheet (pnpkit writes back its cells only)"
)


@dataclass(frozen=True)
class Target:
    """A sheet row: its file, kind ("csv", "tsv", "xlsx"), workbook sheet ("" first), the row
    (the CSV line its record starts on; the workbook's row number)."""

    file: Path
    kind: str
    sheet: str
    row: int


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
    header, name = _header(target)
    if column not in header:
        raise Refused(
            f"'{target.file.name}' has no column '{column}'; add it to the header row in your "
            "spreadsheet first"
        )
    index = header.index(column)
    if target.kind == "xlsx":
        return _xlsx_cell(data, name, target.row, index + 1, value)
    text, bom, delimiter = _text(data, target)
    record = _record(text, delimiter, target.row)
    new = _with_field(text, record, index, cell_text(value), delimiter)
    _same_rows(text, new, delimiter, record.line)
    return bom + new.encode("utf-8")


def add_row(data: bytes, target: Target, item: dict[str, Any]) -> bytes:
    """data with a row for item (its values in the header's columns) after the target row."""
    if target.kind == "xlsx":
        raise Refused(XLSX_ROWS)
    header, _ = _header(target)
    unknown = [
        k for k in item if k not in header and not any(h.startswith(k + ".") for h in header)
    ]
    if unknown:
        raise Refused(
            f"'{target.file.name}' has no column '{unknown[0]}'; add it in your spreadsheet"
        )
    text, bom, delimiter = _text(data, target)
    record = _record(text, delimiter, target.row)
    cells = [_cell_of(item, name) for name in header]
    row = delimiter.join(_quoted(c, delimiter, False) for c in cells)
    return bom + _insert_after(text, record, row).encode("utf-8")


def duplicate_row(data: bytes, target: Target, new_id: str) -> bytes:
    """data with a copy of the target row after it, its id new_id."""
    if target.kind == "xlsx":
        raise Refused(XLSX_ROWS)
    header, _ = _header(target)
    text, bom, delimiter = _text(data, target)
    record = _record(text, delimiter, target.row)
    copy = _with_field(text, record, header.index("id"), new_id, delimiter)
    row = copy[record.start : record.end + len(copy) - len(text)]
    return bom + _insert_after(text, record, row).encode("utf-8")


def remove_row(data: bytes, target: Target) -> bytes:
    if target.kind == "xlsx":
        raise Refused(XLSX_ROWS)
    text, bom, delimiter = _text(data, target)
    record = _record(text, delimiter, target.row)
    start, end = record.start, record.after
    if (
        record.after == record.end and start > 0
    ):  # the last line, without a break: cut the one before
        start -= 2 if text.endswith("\r\n", 0, start) else 1
    return bom + (text[:start] + text[end:]).encode("utf-8")


def cell_text(value: Any) -> str:
    """A value as a sheet's cell writes it (its column's reading gives the value back)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "; ".join(cell_text(v) for v in value)
    return repr(value) if isinstance(value, float) else str(value)


# ---------------------------------------------------------------- CSV and TSV


def _header(target: Target) -> tuple[list[str], str]:
    """The column names, as sheets.py reads the header row, and the sheet's name."""
    where = Location(target.file.name)
    table, problems = sheets.read_sheet(target.file, target.file.name, target.sheet or None, where)
    if table is None or not table.rows:
        why = problems[0].message if problems else "it is empty"
        raise Refused(f"'{target.file.name}' cannot be read now ({why})")
    return [cell_text(c.value) if c else "" for c in table.rows[0]], table.name


def _text(data: bytes, target: Target) -> tuple[str, bytes, str]:
    bom = BOM if data.startswith(BOM) else b""
    try:
        text = data[len(bom) :].decode("utf-8")
    except UnicodeDecodeError:
        raise Refused(f"'{target.file.name}' is not UTF-8 text") from None
    return text, bom, "\t" if target.kind == "tsv" else ","


def _records(text: str, delimiter: str) -> list[_Record]:
    """Every record with its fields' spans, read as sheets._records reads them."""
    rx = sheets.field_pattern(delimiter)
    out, i, line, n = [], 0, 1, len(text)
    while i < n:
        record = _Record(i, i, i, line, [])
        while True:
            m = rx.match(text, i)
            assert m is not None  # the last alternative matches an empty field
            value = (
                m.group(1).replace('""', '"') + m.group(2) if m.group(1) is not None else m.group(3)
            )
            record.fields.append((m.start(), m.end(), value))
            line += m.group(0).count("\n")
            i = m.end()
            if i < n and text[i] == delimiter:
                i += 1
                continue
            break
        record.end = i
        i += 2 if text.startswith("\r\n", i) else 1 if i < n else 0
        record.after, line = min(i, n), line + 1
        out.append(record)
    return out


def _record(text: str, delimiter: str, line: int) -> _Record:
    found = next((r for r in _records(text, delimiter) if r.line == line), None)
    if found is None:
        raise Refused(f"no row starts on line {line} now; the sheet has changed")
    return found


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


def _same_rows(old: str, new: str, delimiter: str, line: int) -> None:
    """Every record but the one on `line` reads as before (a check, not a hope)."""
    before = [(r.line, old[r.start : r.after]) for r in _records(old, delimiter) if r.line != line]
    after = [(r.line, new[r.start : r.after]) for r in _records(new, delimiter) if r.line != line]
    if before != after:
        raise Refused(
            "the cell cannot be written without changing other rows; edit it in your spreadsheet"
        )


# ---------------------------------------------------------------- XLSX

_ROW = r"<(?P<p>(?:[\w.-]+:)?)row\b[^>]*?\br=\"{row}\"[^>]*?(?:/>|>(?P<body>.*?)</(?P=p)row>)"
_CELL = re.compile(
    r"<(?P<p>(?:[\w.-]+:)?)c\b(?P<attrs>[^>]*?)(?:/>|>(?P<body>.*?)</(?P=p)c>)", re.S
)
_ATTR = re.compile(r"\b(r|s)=\"([^\"]*)\"")
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
