"""A pack's own fonts: `fonts:` in game.yaml names TrueType files inside the pack, per family.

    fonts:
      Display: fonts/Display.ttf                      # one face: regular only
      Body: {regular: fonts/Body.ttf, bold: fonts/Body-Bold.ttf, italic: …, bold_italic: …}

Each file must lie inside the pack (symlinks followed) and be a font ReportLab
can embed and subset: TrueType outlines (.ttf, or .otf with a glyf table).
An OpenType font with CFF (PostScript) outlines is refused with what to do,
never replaced by another font. Fonts never come from the machine.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from types import MappingProxyType
from typing import Any

from reportlab.pdfbase.ttfonts import TTFError, TTFontFile

from pnpkit import filelimits
from pnpkit.errors import MAX_QUOTED, one_line
from pnpkit.pack.checker import Reader
from pnpkit.pack.paths import display_path
from pnpkit.pack.yamldoc import Path_
from pnpkit.typeset import fonts
from pnpkit.units import describe

STYLES = MappingProxyType(
    {
        "regular": (False, False),
        "bold": (True, False),
        "italic": (False, True),
        "bold_italic": (True, True),
    }
)


def read(r: Reader, value: Any, root: Path) -> dict[str, dict[fonts.Style, tuple[str, str]]]:
    """family -> {(bold, italic): (path, sha256)} for the fonts that can be used; problems
    recorded."""
    spec = r.table(value, ("fonts",), "fonts") or {}
    out: dict[str, dict[fonts.Style, tuple[str, str]]] = {}
    for family, faces in spec.items():
        path = ("fonts", family)
        if family in fonts.FAMILIES:
            r.problem(
                path,
                f"font family '{family}' comes with pnpkit; give the pack's font another name",
                key=True,
            )
            continue
        if isinstance(faces, str):
            faces = {"regular": faces}
        faces = r.mapping(faces, path, tuple(STYLES), f"font family '{family}'")
        if faces is None:
            continue
        if "regular" not in faces:
            r.problem(path, f"font family '{family}' needs a 'regular' face")
        styles: dict[fonts.Style, tuple[str, str]] = {}
        for style, name in faces.items():
            if style in STYLES and (
                face := _face(
                    r, path + (style,) if isinstance(spec[family], dict) else path, name, root
                )
            ):
                styles[STYLES[style]] = face
        if (False, False) in styles:
            out[family] = styles
    return out


def _face(r: Reader, path: Path_, name: Any, root: Path) -> tuple[str, str] | None:
    if not isinstance(name, str) or not name:
        r.problem(
            path,
            f"a font must be a file name in the pack such as fonts/Body.ttf (got {describe(name)})",
        )
        return None
    file = root / name
    if root.resolve() not in file.resolve().parents:
        r.problem(
            path,
            f"font '{name}' lies outside the pack "
            f"{display_path(root)}; it must be a file inside it",
            "references",
        )
        return None
    if not file.is_file():
        r.problem(path, f"font '{name}' not found in {display_path(root)}", "references")
        return None
    try:
        data = filelimits.read(file, filelimits.MAX_FONT_BYTES)
    except OSError as exc:
        r.problem(path, f"font '{name}' cannot be read: {exc.strerror or exc}", "fonts")
        return None
    try:
        TTFontFile(str(file), validate=0)
    except TTFError as exc:
        if "postscript" in str(exc).lower() or data[:4] == b"OTTO":
            r.problem(
                path,
                f"font '{name}' has PostScript (CFF) outlines, "
                "which cannot be embedded as a subset: "
                "use the TrueType (.ttf) version of the font, or convert it (fontTools: otf2ttf)",
                "fonts",
            )
        else:
            r.problem(path, f"font '{name}' cannot be used: {exc}", "fonts")
        return None
    except Exception as exc:  # ReportLab reads a damaged table with struct, slices and dicts
        r.problem(
            path,
            f"font '{name}' cannot be used: the file is damaged or truncated "
            f"({one_line(str(exc), MAX_QUOTED)})",
            "fonts",
        )
        return None
    return (str(file), hashlib.sha256(data).hexdigest()[:12])
