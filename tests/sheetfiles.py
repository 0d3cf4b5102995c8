"""Write the sheets the tests read: CSV/TSV as text, XLSX with openpyxl, ODS by hand (its XML is
small).

A row is a list of cells: None (empty), str, int, float, bool, or Formula(text, value)
(value None: a formula never calculated, as programs other than spreadsheets write).
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr


@dataclass
class Formula:
    text: str  # without the leading '='
    value: object = None


def write_delimited(path: Path, rows: list, delimiter: str = ",") -> None:
    def cell(v):
        if v is None:
            return ""
        s = str(v).lower() if isinstance(v, bool) else str(v)
        return (
            f'"{s.replace(chr(34), chr(34) * 2)}"'
            if any(c in s for c in (delimiter, '"', "\n"))
            else s
        )

    path.write_text(
        "".join(delimiter.join(cell(v) for v in row) + "\n" for row in rows), encoding="utf-8"
    )


def write_xlsx(path: Path, rows: list, sheet: str = "Sheet1", first: str | None = None) -> None:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    if first is not None:  # another sheet before the one with the rows
        ws.title = first
        ws = wb.create_sheet(sheet)
    else:
        ws.title = sheet
    for r, row in enumerate(rows, 1):
        for c, v in enumerate(row, 1):
            if v is not None:
                ws.cell(r, c, f"={v.text}" if isinstance(v, Formula) else v)
    wb.save(path)


def write_ods(path: Path, rows: list, sheet: str = "Sheet1", doctype: str = "") -> None:
    body = []
    for row in rows:
        cells = []
        for v in row:
            if v is None:
                cells.append("<table:table-cell/>")
            elif isinstance(v, Formula):
                value = (
                    ""
                    if v.value is None
                    else f' office:value-type="float" office:value="{v.value}"'
                )
                text = "" if v.value is None else f"<text:p>{v.value}</text:p>"
                cells.append(
                    "<table:table-cell "
                    f"table:formula={quoteattr('of:=' + v.text)}{value}>{text}</table:table-cell>"
                )
            elif isinstance(v, bool):
                cells.append(
                    '<table:table-cell office:value-type="boolean" '
                    f'office:boolean-value="{str(v).lower()}"><text:p>{str(v).upper()}</text:p></table:table-cell>'
                )
            elif isinstance(v, (int, float)):
                cells.append(
                    '<table:table-cell office:value-type="float" '
                    f'office:value="{v}"><text:p>{v}</text:p></table:table-cell>'
                )
            else:
                cells.append(
                    "<table:table-cell "
                    f'office:value-type="string"><text:p>{escape(v)}</text:p></table:table-cell>'
                )
        body.append("<table:table-row>" + "".join(cells) + "</table:table-row>")
    content = (
        '<?xml version="1.0" encoding="UTF-8"?>' + doctype + "<office:document-content "
        'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2">'
        f"<office:body><office:spreadsheet><table:table table:name={quoteattr(sheet)}>"
        + "".join(body)
        + "</table:table></office:spreadsheet></office:body></office:document-content>"
    )
    manifest = (
        '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest '
        'xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" '
        'manifest:version="1.2">'
        '<manifest:file-entry manifest:full-path="/" '
        'manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/>'
        '<manifest:file-entry manifest:full-path="content.xml" '
        'manifest:media-type="text/xml"/></manifest:manifest>'
    )
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(zipfile.ZipInfo("mimetype"), "application/vnd.oasis.opendocument.spreadsheet")
        z.writestr("META-INF/manifest.xml", manifest)
        z.writestr("content.xml", content)
