"""Find an ODS formula cell with no saved value, which python-calamine would read as empty.

Spreadsheet programs always save a formula's value; files written by other
programs may not. Only called when sheets.py saw a formula in the file, and only
after it refused any DTD, so the parse below never meets an entity.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from lxml import etree

TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
_CELLS = (f"{{{TABLE}}}table-cell", f"{{{TABLE}}}covered-table-cell")


def first_without_value(path: Path, sheet: str) -> tuple[tuple[int, int], str] | None:
    """((row, column), formula) of the first formula without a value in that sheet, 1-based."""
    with zipfile.ZipFile(path) as archive, archive.open("content.xml") as f:
        row = col = 0
        current = None
        for event, el in etree.iterparse(
            f,
            events=("start", "end"),
            resolve_entities=False,
            no_network=True,
            load_dtd=False,
            huge_tree=False,
        ):
            tag = el.tag
            if event == "start":
                if tag == f"{{{TABLE}}}table":
                    current, row = el.get(f"{{{TABLE}}}name"), 0
                elif tag == f"{{{TABLE}}}table-row":
                    col = 0
                continue
            if tag in _CELLS:
                formula = el.get(f"{{{TABLE}}}formula")
                if current == sheet and formula and el.get(f"{{{OFFICE}}}value-type") is None:
                    return (row + 1, col + 1), formula
                col += int(el.get(f"{{{TABLE}}}number-columns-repeated", "1"))
                el.clear()
            elif tag == f"{{{TABLE}}}table-row":
                row += int(el.get(f"{{{TABLE}}}number-rows-repeated", "1"))
                el.clear()
    return None
