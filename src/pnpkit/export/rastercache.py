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
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import isal
from PIL import Image

from pnpkit import filelimits, workspace
from pnpkit.build import output
from pnpkit.build.cachefile import engine
from pnpkit.build.pipeline import CACHE_DIR
from pnpkit.svg.ops import ImageOp, Op

KEEP_DAYS = 14


def key(sheet: Any, shot: Any, variant: str = "") -> str | None:
    """The hash of what shapes one shot's pixels (and its PNG's bytes: the deflate library's
    version), or None when the face cannot be keyed."""
    what = (shot.px, shot.dpi, shot.path is None, variant, f"isal {isal.__version__}")
    return combine([sheet_key(sheet)], repr(what))


def sheet_key(sheet: Any) -> bytes | None:
    """The hash of what shapes one face drawn on its page: drawing, art, trim, bleed, page."""
    face = sheet.face
    content = _drawing_content(face.drawing)
    if content is None:
        return None
    h = hashlib.sha256(engine())
    h.update(content)
    h.update(
        repr(
            (
                face.drawing.width_mm,
                face.drawing.height_mm,
                getattr(face.drawing, "viewbox", None),
                face.size,
                face.bleed,
                sheet.page,
            )
        ).encode()
    )
    return h.digest()


def _drawing_content(drawing: Any) -> bytes | None:
    """What a face's drawing draws: the build cache's key of a compiled SVG (its source, fonts and
    pnpkit's code) with its art files' content, a drawing's operations with the same, or a
    flattened face's pixels (pdfx.Raster); None for anything else."""
    if drawing is None:
        return None
    try:
        known: object = getattr(drawing, "key", None)
        if isinstance(known, bytes):  # cache.FormDrawing: hashed already
            return known + b"".join(
                _file_hash(op.source)
                for op in drawing.ops
                if isinstance(op, ImageOp) and isinstance(op.source, str)
            )
        if hasattr(
            drawing, "ops"
        ):  # repr, not marshal: marshal's bytes depend on which equal objects are shared
            return repr(tuple(_keyed(op) for op in drawing.ops)).encode()
    except OSError:  # an art file gone: just make it
        return None
    image = getattr(drawing, "image", None)
    if image is None:
        return None
    return repr((image.mode, image.size)).encode() + bytes(image.tobytes())


def _file_hash(path: str) -> bytes:
    """The hash of a file's content, once per process while its size and time are unchanged
    (a deck draws the same art on many faces)."""
    stat = os.stat(path)
    return _content_hash(path, stat.st_size, stat.st_mtime_ns)


@workspace.memoized(1024)
def _content_hash(path: str, size: int, mtime_ns: int) -> bytes:
    return filelimits.sha256(path)


def combine(parts: list[Any], extra: str = "") -> str | None:
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
        return op._replace(source=_file_hash(op.source))
    return op


class RasterCache:
    """The PNGs of faces already rasterised, in one folder."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.hits = self.misses = 0

    def path(self, k: str | None, suffix: str = ".png") -> Path | None:
        if self.folder is None or k is None:
            return None
        sub = self.folder / k[:2]
        if os.path.islink(self.folder) or os.path.islink(sub):  # planted: leads elsewhere
            return None
        return sub / f"{k}{suffix}"

    def get(self, k: str | None, suffix: str = ".png") -> Path | None:
        path = self.path(k, suffix)
        if path is None or not _plain_file(path):
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

    def put(
        self,
        k: str | None,
        source: Path | None = None,
        image: Image.Image | None = None,
        dpi: float = 0,
        suffix: str = ".png",
    ) -> None:
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

    def mark(self, k: str | None, suffix: str) -> None:
        """Remember that k was seen (an empty file), e.g. a file's bytes that passed a check."""
        path = self.path(k, suffix)
        if path is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch()
        except OSError:  # only costs time
            pass

    def prune(self) -> None:
        """Drop files unused for KEEP_DAYS."""
        if self.folder is None or not self.folder.is_dir() or self.folder.is_symlink():
            return
        oldest = time.time() - KEEP_DAYS * 86400
        for path in self.folder.glob("*/*.*"):
            try:  # a file in a folder that is a link (planted) lies elsewhere: never removed
                if path.parent.is_symlink():
                    continue
                if path.lstat().st_mtime < oldest:
                    path.unlink()
            except OSError:
                pass


def _plain_file(path: Path) -> bool:
    """A regular file, not a link: a link planted in a shipped cache folder would copy whatever
    file it leads to into the kit."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def for_output(out: Path) -> RasterCache:
    """The cache of rasterised faces, page PDFs and preflight passes of a build's output folder."""
    return RasterCache(None if output.unsafe_cache(out) else out / CACHE_DIR / "raster")


def render(
    sheets: list[Any],
    shots: list[Any],
    pdf_path: Path,
    title: str,
    cache: RasterCache,
    variant: str,
    draw: Callable[[list[Any], list[Any], Path, str], list[Any]],
) -> list[Any]:
    """draw(sheets, shots, pdf_path, title) as export does it (the faces drawn one per page and
    rasterised), for the shots the cache does not hold; the others are served from it.

    Returns what draw returns: a PIL image for each shot without a path, None for the others."""
    keys = [key(sheets[shot.page], shot, variant) for shot in shots]
    out: list[Any] = [None] * len(shots)
    todo = []
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
    images = draw(sheets, [shots[i] for i in todo], pdf_path, title)
    for i, image in zip(todo, images):
        shot = shots[i]
        if shot.path is not None:
            cache.put(keys[i], source=shot.path)
        else:
            out[i] = image
            cache.put(keys[i], image=image, dpi=shot.dpi)
    return out
