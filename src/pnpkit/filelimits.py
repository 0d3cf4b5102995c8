"""How large each kind of file a pack names may be, and reading within that.

A pack comes from a stranger, and a file is read whole before it is parsed: a 2.5 GB file
named as a font took 5 GB of memory before ReportLab said it was no TrueType font. Each
file is measured on its open descriptor (the file read is the file measured) and refused
before its bytes are read. TooLarge is an OSError whose strerror says what is wrong, so the
readers' own "cannot read" messages carry it. The other inputs have their limits beside
their readers: YAML files (loader.MAX_FILE_BYTES), sheets (sheets.MAX_BYTES), images
(svg.images.MAX_IMAGE_BYTES).
"""

from __future__ import annotations

import errno
import hashlib
import os
from pathlib import Path

# the largest TrueType fonts with CJK coverage are 15-25 MB (WenQuanYi Micro Hei: 5 MB)
MAX_FONT_BYTES = 50_000_000
# an SVG drawn as art (or an icon): a detailed map exported from Inkscape is a few MB
MAX_ART_BYTES = 20_000_000
# a Jinja template: the shipped ones are under 10 kB
MAX_TEMPLATE_BYTES = 5_000_000


class TooLarge(OSError):
    """A file larger than its kind may be; strerror says so."""


def read(path: str | Path, limit: int) -> bytes:
    """The file's bytes, or TooLarge when it has more than limit of them (never read then)."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        data = f.read(limit + 1) if size <= limit else b""
    if size > limit or len(data) > limit:  # a file that grew while read counts too
        raise TooLarge(
            errno.EFBIG,
            f"the file has {max(size, len(data)):,} bytes; pnpkit reads at most {limit:,}",
        )
    return data


def sha256(path: str | Path) -> bytes:
    """The file's SHA-256, read in pieces: a pack's file is hashed before it is judged."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.digest()
