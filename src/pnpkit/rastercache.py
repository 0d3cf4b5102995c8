"""Exports reuse the pixels an earlier export made: a face is rasterised once per content.

Rasterising is most of an image export's time, and a designer re-exports a kit
in which few faces changed. A face's PNG is kept in OUT/pnpkit-cache/raster/
under a hash of everything that shapes its pixels: pnpkit's code and library
versions (cache.engine()), the face's compiled drawing with the content of
every file it draws, its trim and bleed, the page it sits on, the pixel size,
the dpi, and the profile's own variant (colour mode, say). A hit copies the
stored file (byte-identical to rasterising again); only the misses go into the
faces PDF that pypdfium2 renders. Files unused for KEEP_DAYS are dropped.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PIL import Image

from pnpkit.cache import engine
from pnpkit.svgdraw import ImageOp, Op

if TYPE_CHECKING:  # facepages imports this module
    from pnpkit.facepages import Sheet, Shot

KEEP_DAYS = 14


def key(sheet: Sheet, shot: Shot, variant: str = "") -> str | None:
    """The hash of what shapes one shot's pixels, or None when the face cannot be keyed."""
    return combine([sheet_key(sheet)], repr((shot.px, shot.dpi, shot.path is None, variant)))


def sheet_key(sheet: Sheet) -> bytes | None:
    """The hash of what shapes one face drawn on its page: drawing, art, trim, bleed, page."""
    face = sheet.face
    content = _drawing_content(face.drawing)
    if content is None:
        return None
    h = hashlib.sha256(engine())
    h.update(content)
    h.update(repr((face.drawing.width_mm, face.drawing.height_mm, getattr(face.drawing, "viewbox", None),
                   face.size, face.bleed, sheet.page)).encode())
    return h.digest()


def _drawing_content(drawing: Any) -> bytes | None:
    """A compiled SVG's operations with its art files' content, or a flattened face's pixels
    (pdfx.Raster); None for anything else."""
    if drawing is None:
        return None
    if hasattr(drawing, "ops"):
        try:  # repr, not marshal: marshal's bytes depend on which equal objects happen to be shared
            return repr(tuple(_keyed(op) for op in drawing.ops)).encode()
        except OSError:  # an art file gone: just make it
            return None
    image = getattr(drawing, "image", None)
    return repr((image.mode, image.size)).encode() + image.tobytes() if image is not None else None


def combine(parts: list[object], extra: str = "") -> str | None:
    """One key for several: None if any part is None."""
    if any(part is None for part in parts):
        return None
    h = hashlib.sha256(extra.encode())
    for part in parts:
        h.update(part if isinstance(part, bytes) else str(part).encode())
    return h.hexdigest()


def _keyed(op: Op) -> Op:
    """An image op names its file; the key needs the file's content."""
    if isinstance(op, ImageOp) and isinstance(op.source, str):
        return op._replace(source=hashlib.sha256(Path(op.source).read_bytes()).digest())
    return op


class RasterCache:
    """The PNGs of faces already rasterised, in one folder."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.hits = self.misses = 0

    def path(self, k: str | None, suffix: str = ".png") -> Path | None:
        return self.folder / k[:2] / f"{k}{suffix}" if self.folder is not None and k is not None else None

    def get(self, k: str | None, suffix: str = ".png") -> Path | None:
        path = self.path(k, suffix)
        if path is None or not path.is_file():
            return None
        os.utime(path)  # used: kept
        return path

    def made(self, k: str | None, target: Path, make: Callable[[Path], object]) -> bool:
        """Copy target from the cache if k was made before, else make(target) and keep a copy.
        True when it came from the cache."""
        hit = self.get(k, target.suffix)
        if hit is not None:
            shutil.copyfile(hit, target)
            self.hits += 1
            return True
        make(target)
        self.misses += 1
        self.put(k, source=target, suffix=target.suffix)
        return False

    def put(self, k: str | None, source: Path | None = None, image: Image.Image | None = None, dpi: float = 0,
            suffix: str = ".png") -> None:
        """Store a made file, or a rasterised face's image; a failure only costs time."""
        path = self.path(k, suffix)
        if path is None:
            return
        temp = path.with_name(f".{path.name}.{os.getpid()}")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if source is not None:
                shutil.copyfile(source, temp)
            elif image is not None:
                image.save(temp, format="PNG", dpi=(dpi, dpi), compress_level=1)
            os.replace(temp, path)
        except (OSError, ValueError):
            temp.unlink(missing_ok=True)

    def prune(self) -> None:
        """Drop files unused for KEEP_DAYS."""
        if self.folder is None or not self.folder.is_dir():
            return
        oldest = time.time() - KEEP_DAYS * 86400
        for path in self.folder.glob("*/*.*"):
            try:
                if path.stat().st_mtime < oldest:
                    path.unlink()
            except OSError:
                pass


def render(sheets: list[Sheet], shots: list[Shot], pdf_path: Path, title: str, cache: RasterCache,
           variant: str, write_pdf: Callable[[list[Sheet], Path, str], None],
           rasterise: Callable[[Path, list[Shot]], list[Image.Image | None]]) -> list[Image.Image | None]:
    """rasterise(write_pdf(sheets)) as export does it, serving every shot the cache holds.

    Returns what rasterise returns: a PIL image for each shot without a path, None for the
    others."""
    keys = [key(sheets[shot.page], shot, variant) for shot in shots]
    out: list[Image.Image | None] = [None] * len(shots)
    todo: list[int] = []
    for i, (shot, k) in enumerate(zip(shots, keys)):
        hit = cache.get(k)
        if hit is None:
            todo.append(i)
        elif shot.path is not None:
            shutil.copyfile(hit, shot.path)
        else:
            with Image.open(hit) as image:
                out[i] = image.convert("RGB")
    cache.hits += len(shots) - len(todo)
    cache.misses += len(todo)
    if not todo:
        return out
    pages = sorted({shots[i].page for i in todo})
    renumber = {page: n for n, page in enumerate(pages)}
    write_pdf([sheets[p] for p in pages], pdf_path, title)
    try:
        images = rasterise(pdf_path, [_on_page(shots[i], renumber[shots[i].page]) for i in todo])
    finally:
        pdf_path.unlink(missing_ok=True)
    for i, image in zip(todo, images):
        shot = shots[i]
        if shot.path is not None:
            cache.put(keys[i], source=shot.path)
        else:
            out[i] = image
            cache.put(keys[i], image=image, dpi=shot.dpi)
    return out


def _on_page(shot: Shot, page: int) -> Shot:
    return type(shot)(page, shot.px, shot.dpi, shot.path)
