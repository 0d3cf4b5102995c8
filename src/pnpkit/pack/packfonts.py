"""A pack's own fonts: `fonts:` in game.yaml names font files inside the pack, per family.

    fonts:
      Display: fonts/Display.otf                      # one face: regular only
      Body: {regular: fonts/Body.woff2, bold: fonts/Body-Bold.ttf, italic: …, bold_italic: …}
      Inter: {regular: {file: fonts/Inter.ttf, instance: Regular},
              bold: {file: fonts/Inter.ttf, instance: {wght: 700}}}   # a variable font
      fallback: [Naskh, DejaVu Sans]   # who draws a character a face lacks, in order

Each file must lie inside the pack (symlinks followed). TrueType is embedded as it
is; CFF-flavoured OpenType, WOFF, WOFF2 and variable fonts are made into TrueType
first (fontfiles.py), kept in the build's cache folder under a hash of the file and
the instance. Fonts never come from the machine.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import tempfile
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from reportlab.pdfbase.ttfonts import TTFError, TTFontFile

from pnpkit import filelimits
from pnpkit.errors import MAX_QUOTED, one_line
from pnpkit.pack.checker import Reader
from pnpkit.pack.yamldoc import Path_
from pnpkit.typeset import fontfiles, fonts
from pnpkit.units import describe

STYLES = MappingProxyType(
    {
        "regular": (False, False),
        "bold": (True, False),
        "italic": (False, True),
        "bold_italic": (True, True),
    }
)


FALLBACK = "fallback"  # the key of fonts: that lists the fallback families, not a family


def read(r: Reader, value: Any, root: Path, store: Path | None = None) -> fonts.PackFonts:
    """family -> {(bold, italic): PackFace} for the fonts that can be used; problems recorded.
    store: the folder where fonts made into TrueType are kept between builds (None: nowhere)."""
    spec = r.table(value, ("fonts",), "fonts") or {}
    out: fonts.PackFonts = {}
    for family, faces in spec.items():
        path = ("fonts", family)
        if family == FALLBACK:
            continue  # fallback(), once every family is known
        if family in fonts.FAMILIES:
            r.problem(
                path,
                f"font family '{family}' comes with pnpkit; give the pack's font another name",
                key=True,
            )
            continue
        # one face: a file name, or {file, instance}
        single = isinstance(faces, str) or (isinstance(faces, dict) and "file" in faces)
        if single:
            faces = {"regular": faces}
        faces = r.mapping(faces, path, tuple(STYLES), f"font family '{family}'")
        if faces is None:
            continue
        if "regular" not in faces:
            r.problem(path, f"font family '{family}' needs a 'regular' face")
        styles: dict[fonts.Style, fonts.PackFace] = {}
        for style, name in faces.items():
            if style in STYLES and (
                face := _face(
                    r,
                    path if single else path + (style,),
                    name,
                    root,
                    store,
                )
            ):
                styles[STYLES[style]] = face
        if (False, False) in styles:
            out[family] = styles
    return out


def fallback(r: Reader, value: Any) -> tuple[str, ...]:
    """fonts.fallback: the families that draw a character a face lacks, in order."""
    spec = value.get(FALLBACK) if isinstance(value, dict) else None
    if spec is None:
        return ()
    families = list(fonts.FAMILIES) + [f for f in value if f != FALLBACK]
    path = ("fonts", FALLBACK)
    if isinstance(spec, str):
        spec = [spec]
    if not isinstance(spec, list):
        r.problem(path, f"fonts.fallback must be a list of font families (got {describe(spec)})")
        return ()
    out: list[str] = []
    for i, family in enumerate(spec):
        if family not in families:
            r.problem(
                path + (i,),
                f"fonts.fallback names no font family: {describe(family)} "
                f"(the families are {', '.join(families)})",
            )
        elif family in out:
            r.problem(path + (i,), f"fonts.fallback names '{family}' twice")
        else:
            out.append(family)
    return tuple(out)


def _face(
    r: Reader, path: Path_, name: Any, root: Path, store: Path | None
) -> fonts.PackFace | None:
    instance: fontfiles.Instance = None
    if isinstance(name, dict):
        spec = r.mapping(name, path, ("file", "instance"), "a font face")
        asked = _instance(r, path, spec.get("instance")) if spec is not None else False
        if spec is None or asked is False:
            return None
        instance = asked
        path, name = path + ("file",), r.get(spec, path, "file")
        if name is None:
            return None
    if not isinstance(name, str) or not name:
        r.problem(
            path,
            f"a font must be a file name in the pack such as fonts/Body.ttf (got {describe(name)})",
        )
        return None
    file = r.pack_file(path, root, name, "font")
    if file is None:
        return None
    try:
        data = filelimits.read(file, filelimits.MAX_FONT_BYTES)
    except OSError as exc:
        r.problem(path, f"font '{name}' cannot be read: {exc.strerror or exc}", "fonts")
        return None
    sha = hashlib.sha256(data).hexdigest()[:12]
    try:
        if fontfiles.plain(data, instance):
            made = None
        else:
            made = _made(data, instance, store)
            sha = fontfiles.key(data, instance)[:12]
    except fontfiles.FontFileError as exc:
        r.problem(path, f"font '{name}' {exc}", "fonts")
        return None
    try:
        TTFontFile(io.BytesIO(made) if made is not None else str(file), validate=0)
    except TTFError as exc:
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
    return fonts.PackFace(str(file), sha, made)


def _instance(r: Reader, path: Path_, spec: Any) -> fontfiles.Instance | Literal[False]:
    """A face's instance: a named instance, {axis: value}, or None; False when it is wrong."""
    if spec is None or isinstance(spec, str):
        return spec
    if isinstance(spec, dict) and all(
        isinstance(k, str) and isinstance(v, (int, float)) and not isinstance(v, bool)
        for k, v in spec.items()
    ):
        return {k: float(v) for k, v in spec.items()}
    r.problem(
        path + ("instance",),
        "a font's instance is a named instance such as Bold, or axis values such as "
        f"{{wght: 700}} (got {describe(spec)})",
    )
    return False


def _made(data: bytes, instance: fontfiles.Instance, store: Path | None) -> bytes:
    """fontfiles.embeddable(), kept in store under its key: a file read back is used only if
    ReportLab reads it (a damaged one is made again)."""
    kept = store / f"{fontfiles.key(data, instance)}.ttf" if store is not None else None
    if kept is not None and kept.is_file():
        with contextlib.suppress(Exception):  # whatever a damaged file makes ReportLab raise
            made = filelimits.read(kept, fontfiles.MAX_UNPACKED)
            TTFontFile(io.BytesIO(made), validate=0)
            return made
    made = fontfiles.embeddable(data, instance)
    if kept is not None:
        with contextlib.suppress(OSError):  # the cache only saves time
            kept.parent.mkdir(parents=True, exist_ok=True)
            fd, part = tempfile.mkstemp(dir=kept.parent, suffix=".part")
            with os.fdopen(fd, "wb") as f:
                f.write(made)
            os.replace(part, kept)
    return made
