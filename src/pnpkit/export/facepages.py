"""One face per page, and those pages rasterised: what every image and page export draws from.

A page is the face's trim plus the profile's bleed, TrimBox and BleedBox set; the
PNGs are rasterised from it with pypdfium2, so what you see is what prints.
(export.py uses these for the services, tts.py, showcase.py and pdfx.py for their
own images; none of them imports export.py.)
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import struct
import zlib
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from isal import isal_zlib
from PIL import Image
from reportlab.pdfgen.canvas import Canvas

from pnpkit import workspace
from pnpkit.export.rastercache import RasterCache
from pnpkit.export.rastercache import render as render_cached
from pnpkit.pack.model import Face
from pnpkit.pdf.forms import face_form
from pnpkit.typeset import fonts
from pnpkit.units import PT_PER_MM

if TYPE_CHECKING:
    from pnpkit.export.pdfx import Separation

K = PT_PER_MM
PNG_LEVEL = 1  # ISA-L's: level 3 costs 20 times the time for 3 % smaller files
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
POOL_FROM = 24  # pages: below this a process pool costs more than it saves


# ------------------------------------------------------------------ one face per page


@dataclass(frozen=True)
class Sheet:
    """One PDF page holding one face: the page size (mm), the face's trim centred on it."""

    face: Face
    page: tuple[float, float]
    trim: tuple[float, float] | None = None  # the TrimBox, centred; None: the face's own trim


def write_faces_pdf(
    sheets: list[Sheet], path: Path, title: str, separation: Separation | None = None
) -> None:
    """One face per page, trim centred, clipped to the face's own bleed; TrimBox and BleedBox set.

    Each distinct face is one form, so a deck's shared back costs one drawing
    however many pages repeat it. With a pdfx.Separation the file is PDF/X-1a
    in CMYK (faces with transparency must have been flattened).
    """
    fonts.for_canvas()
    if separation is None:
        c = Canvas(str(path), invariant=1, pageCompression=1)
    else:
        c = separation.canvas(str(path), invariant=1, pageCompression=1)
    c.setTitle(title)
    c.setCreator("pnpkit")
    c.setAuthor("pnpkit")
    forms: dict[str, str] = {}
    for sheet in sheets:
        face, (pw, ph) = sheet.face, sheet.page
        w, h = face.size
        b = face.bleed
        x0, y0 = (
            (pw - w) / 2,
            (ph - h) / 2,
        )  # trim's lower-left corner, mm from the page's lower-left
        c.setPageSize((pw * K, ph * K))
        c.saveState()
        clip = c.beginPath()
        left, bottom = max(0.0, x0 - b), max(0.0, y0 - b)
        clip.rect(
            left * K,
            bottom * K,
            (min(pw, x0 + w + b) - left) * K,
            (min(ph, y0 + h + b) - bottom) * K,
        )
        c.clipPath(clip, stroke=0, fill=0)
        c.translate((x0 - b) * K, (y0 - b) * K)
        c.doForm(face_form(c, face, forms))
        c.restoreState()
        tw, th = sheet.trim or (
            w,
            h,
        )  # a product a little off the face's size is cut at its own trim
        tx, ty = (pw - tw) / 2, (ph - th) / 2
        c.setTrimBox((tx * K, ty * K, (tx + tw) * K, (ty + th) * K))
        c.setBleedBox((0, 0, pw * K, ph * K))
        c.showPage()
    c.save()
    if separation is not None:
        separation.mark(path, title)


# ------------------------------------------------------------------ rasterising


@dataclass(frozen=True)
class Shot:
    """Page `page` of a faces PDF rasterised to exactly `px` pixels; saved as a PNG at `path`
    (with its dpi), or returned."""

    page: int
    px: tuple[int, int]
    dpi: float
    path: Path | None = None


def rasterise(pdf: Path, shots: list[Shot], workers: int | None = None) -> list[Image.Image | None]:
    """Render the shots; returns a PIL image for each shot without a path (None for the others).

    pypdfium2 is not thread-safe, so large jobs go to a pool of processes,
    each with its own copy of the document, in contiguous chunks. The pool's
    output is byte-identical to one process's; where processes cannot be had
    (or the pool breaks), the shots are rendered here.
    """
    workers = workers or os.cpu_count() or 1
    if workers < 2 or len(shots) < POOL_FROM:
        return _render_chunk(str(pdf), shots)
    size = -(-len(shots) // (workers * 4))  # a few chunks per worker keeps both busy to the end
    chunks = [shots[i : i + size] for i in range(0, len(shots), size)]
    try:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(_render_chunk, [str(pdf)] * len(chunks), chunks))
    except (OSError, BrokenProcessPool):  # no processes here (a sandbox, a limit): one is enough
        return _render_chunk(str(pdf), shots)
    return [image for chunk in results for image in chunk]


def _render_chunk(pdf: str, shots: list[Shot]) -> list[Image.Image | None]:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(pdf)
    out: list[Image.Image | None] = []
    try:
        for shot in shots:
            rows = _render_rows(doc, shot)
            w, h = shot.px
            if shot.path is None:  # the pixels start after row 0's filter byte
                view = bytes(memoryview(rows)[1:])  # a copy: the image outlives the buffer
                out.append(Image.frombuffer("RGB", (w, h), view, "raw", "RGB", 3 * w + 1, 1))
            else:
                shot.path.write_bytes(png_bytes(rows, w, h, shot.dpi))
                out.append(None)
    finally:
        doc.close()
    return out


def _render_rows(doc: Any, shot: Shot) -> ctypes.Array[ctypes.c_ubyte]:
    """Page `shot.page` rendered to exactly shot.px pixels, as a PNG's scanlines: each RGB row
    after a 0 byte (filter type None).

    pdfium draws straight into that buffer (its rows one byte apart, so no copy is
    made to add the filter bytes), and the bitmap is sized by us: page.render() sizes
    it with ceil(points x scale), which a float's last bit can push one pixel over.
    """
    import pypdfium2.raw as raw

    w, h = shot.px
    stride = 3 * w + 1
    rows = (ctypes.c_ubyte * (stride * h))()
    page = doc[shot.page]
    bitmap = raw.FPDFBitmap_CreateEx(w, h, raw.FPDFBitmap_BGR, ctypes.byref(rows, 1), stride)
    try:
        raw.FPDFBitmap_FillRect(bitmap, 0, 0, w, h, 0xFFFFFFFF)
        raw.FPDF_RenderPageBitmap(
            bitmap, page, 0, 0, w, h, 0, raw.FPDF_ANNOT | raw.FPDF_REVERSE_BYTE_ORDER
        )
    finally:
        raw.FPDFBitmap_Destroy(bitmap)
        page.close()
    return rows


def png_bytes(rows: Any, width: int, height: int, dpi: float) -> bytes:
    """A PNG file of 8-bit RGB scanlines that already carry their filter bytes.

    Written here rather than by Pillow: Pillow tries all five PNG filters on every
    row and deflates with zlib, which cost 3 times the rendering. Printed faces are
    mostly flat colour, for which filter None is as small, and ISA-L's deflate is
    14 times zlib's speed at its level 1 (measured on a poker card at 300 dpi: 77 KB
    in 0.7 ms, against Pillow's 80 KB in 24 ms and zlib's level 1, 71 KB in 9.8 ms).
    """
    ppm = round(dpi / 0.0254)  # pixels per metre, as Pillow writes a dpi
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"".join(
        (
            PNG_SIGNATURE,
            _chunk(b"IHDR", header),
            _chunk(b"pHYs", struct.pack(">IIB", ppm, ppm, 1)),
            _chunk(b"IDAT", isal_zlib.compress(rows, PNG_LEVEL)),
            _chunk(b"IEND", b""),
        )
    )


def _chunk(tag: bytes, data: bytes) -> bytes:
    return (
        struct.pack(">I", len(data))
        + tag
        + data
        + struct.pack(">I", zlib.crc32(data, zlib.crc32(tag)))
    )


def rasterise_faces(
    sheets: list[Sheet], shots: list[Shot], folder: Path, raster: RasterCache | None
) -> list[Image.Image | None]:
    """Draw the sheets one face per page and rasterise the shots, serving from `raster` what it
    holds; returns a PIL image for each shot without a path."""
    return render_cached(
        sheets,
        shots,
        folder / ".faces.pdf",
        "faces",
        raster or RasterCache(None),
        "",
        draw_and_rasterise,
    )


# ------------------------------------------------ drawing and rasterising on every core

# What forked workers draw, at key 0: set before the pool forks (the workspace is this
# thread's, which the forked workers inherit)
_FORKED = workspace.Memo[int, tuple[list[Sheet], str]]("facepages.forked")


def draw_and_rasterise(
    sheets: list[Sheet], shots: list[Shot], pdf: Path, title: str, workers: int | None = None
) -> list[Image.Image | None]:
    """Draw the pages the shots need into `pdf` and rasterise them; an image for each shot
    without a path, None for the others.

    Large jobs are split into contiguous chunks, each drawn into a PDF of its own and
    rasterised by a forked worker, so both the drawing and the rendering use every core.
    A page's pixels do not depend on which other pages share its PDF (the raster cache
    relies on this too), so the output is byte-identical to one process's (tested).
    Where fork is not available or the pool breaks, it is all done here.
    """
    workers = workers or os.cpu_count() or 1
    if (
        workers < 2
        or len(shots) < POOL_FROM
        or "fork" not in multiprocessing.get_all_start_methods()
    ):
        return _draw_chunk(sheets, shots, pdf, title)
    size = -(-len(shots) // (workers * 4))  # a few chunks per worker keeps both busy to the end
    chunks = [shots[i : i + size] for i in range(0, len(shots), size)]
    _FORKED[0] = (sheets, title)  # forked workers inherit it: nothing is pickled on the way there
    try:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            futures = [
                pool.submit(_forked_chunk, chunk, pdf.with_name(f"{pdf.stem}-{n}.pdf"))
                for n, chunk in enumerate(chunks)
            ]
            results = [future.result() for future in futures]
    except (OSError, BrokenProcessPool):  # no processes here (a sandbox, a limit): one is enough
        return _draw_chunk(sheets, shots, pdf, title)
    finally:
        _FORKED.pop(0, None)
    return [image for chunk in results for image in chunk]


def _forked_chunk(shots: list[Shot], pdf: Path) -> list[Image.Image | None]:
    forked = _FORKED.get(0)
    assert forked is not None, "a worker that was not forked from draw_and_rasterise"
    sheets, title = forked
    return _draw_chunk(sheets, shots, pdf, title)


def _draw_chunk(
    sheets: list[Sheet], shots: list[Shot], pdf: Path, title: str
) -> list[Image.Image | None]:
    """The shots' pages drawn into one PDF (in page order) and rasterised in this process."""
    pages = sorted({shot.page for shot in shots})
    renumber = {page: n for n, page in enumerate(pages)}
    write_faces_pdf([sheets[page] for page in pages], pdf, title)
    try:
        return rasterise(pdf, [replace(shot, page=renumber[shot.page]) for shot in shots], 1)
    finally:
        pdf.unlink(missing_ok=True)
