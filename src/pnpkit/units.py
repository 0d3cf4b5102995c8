"""Lengths and sizes: parsed once at the boundary, millimetres everywhere after."""

from __future__ import annotations

import math
import re
from types import MappingProxyType

MM_PER = MappingProxyType({"mm": 1.0, "cm": 10.0, "in": 25.4, "pt": 25.4 / 72})
PT_PER_MM = 72 / 25.4

# Named face and paper sizes, trim in mm (print-standards.md §1.1, §4.1).
SIZES = MappingProxyType(
    {
        "poker": (63.5, 88.9),
        "euro-poker": (63.0, 88.0),
        "bridge": (57.15, 88.9),
        "tarot": (69.85, 120.65),
        "mini": (44.45, 63.5),
        "euro-mini": (44.0, 68.0),
        "square": (70.0, 70.0),
        "small-square": (63.5, 63.5),
        "jumbo": (88.9, 139.7),
        "business": (50.8, 88.9),
        "micro": (31.75, 44.45),
        "a5": (148.0, 210.0),
        "a4": (210.0, 297.0),
        "a3": (297.0, 420.0),
        "letter": (215.9, 279.4),
    }
)
PAPERS = ("a4", "letter", "a3")

# The largest face pnpkit prints, mm a side: twice our longest face (MLEM's metre-long track)
# and larger than any table. A larger size is a slip of the unit (1000cm for 1000mm), and
# drawing it would take thousands of sheets and gigabytes of raster in an export.
MAX_FACE_SIDE = 2000.0

_LENGTH = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*(mm|cm|in|pt)\s*$")
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*x\s*(\d+(?:\.\d+)?)\s*(mm|cm|in|pt)\s*$")


class UnitError(ValueError):
    """A length or size that could not be read; the message says what is expected."""


def parse_length(value: object) -> float:
    """'3mm', '0.125in', '10pt', '1cm' -> millimetres. A bare number is refused: which unit?"""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise UnitError(f"must be a length such as '3mm' or '0.125in' (got {describe(value)})")
    if not isinstance(value, str):
        if value == 0:
            return 0.0
        if isinstance(value, float) and not math.isfinite(value):
            raise UnitError(f"must be a length such as '3mm' or '0.125in' (got {describe(value)})")
        raise UnitError(f"needs a unit: write '{value}mm', '{value}in' or '{value}pt'")
    match = _LENGTH.match(value)
    if not match:
        raise UnitError(f"must be a length such as '3mm' or '0.125in' (got '{value}')")
    mm = float(match.group(1)) * MM_PER[match.group(2)]
    if not math.isfinite(mm):  # 400 digits read as infinity
        raise UnitError(f"is too long a length (got '{value}')")
    return mm


def parse_size(value: object) -> tuple[float, float]:
    """'poker', '63x88mm', '2.5x3.5in' -> (width, height) in mm."""
    if isinstance(value, str) and value in SIZES:
        return SIZES[value]
    if isinstance(value, str):
        match = _SIZE.match(value)
        if match and float(match.group(1)) > 0 and float(match.group(2)) > 0:
            unit = MM_PER[match.group(3)]
            w, h = float(match.group(1)) * unit, float(match.group(2)) * unit
            if max(w, h) > MAX_FACE_SIDE:
                raise UnitError(
                    f"must be at most {MAX_FACE_SIDE:g}mm a side, the largest "
                    f"face pnpkit prints (got '{value}': is the unit right?)"
                )
            return w, h
    names = ", ".join(SIZES)
    raise UnitError(
        f"must be a size such as '63x88mm', '2.5x3.5in' or a name ({names}) (got {describe(value)})"
    )


def describe(value: object) -> str:
    """A value as a message shows it, with YAML's spelling of booleans and null."""
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, str):  # one line of it at most: a message never quotes a file at length
        line = value.split("\n", 1)[0]
        return f"'{line[:60]}…'" if len(line) > 60 or line != value else f"'{value}'"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return f"{type(value).__name__} {value}"
