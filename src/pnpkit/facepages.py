"""One face per page, and those pages rasterised: what every image and page export draws from.

A page is the face's trim plus the profile's bleed, TrimBox and BleedBox set; the
PNGs are rasterised from it with pypdfium2, so what you see is what prints.
(export.py uses these for the services, tts.py, showcase.py and pdfx.py for their
own images; none of them imports export.py.)
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PIL import Image
from reportlab.pdfgen.canvas import Canvas

from pnpkit import fonts, pdf
from pnpkit.model import Face
from pnpkit.rastercache import RasterCache
from pnpkit.rastercache import render as render_cached
from pnpkit.units import PT_PER_MM

if TYPE_CHECKING:
    from pnpkit.pdfx import Separation

K = PT_PER_MM
PNG_COMPRESS = 3  # as fast as level 1 and 3 % smaller; level 6 (Pillow's default) costs 25 % more time for 8 %
POOL_FROM = 24  # pages: below this a process pool costs more than it saves


# ------------------------------------------------------------------ one face per page

@dataclass(frozen=True)
class Sheet:
    """One PDF page holding one face: the page size (mm), the face's trim centred on it."""

    face: Face
    page: tuple[float, float]
    trim: tuple[float, float] | None = None  # the TrimBox, centred; None: the face's own trim


def write_faces_pdf(sheets: list[Sheet], path: Path, title: str,
                    separation: Separation | None = None) -> None:
    """One face per page, trim centred, clipped to the face's own bleed; TrimBox and BleedBox set.

    Each distinct face is one form, so a deck's shared back costs one drawing
    however many pages repeat it. With a pdfx.Separation the file is PDF/X-1a
    in CMYK (faces with transparency must have been flattened).
    """
    fonts.register_all()
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
        x0, y0 = (pw - w) / 2, (ph - h) / 2  # trim's lower-left corner, mm from the page's lower-left
        c.setPageSize((pw * K, ph * K))
        c.saveState()
        clip = c.beginPath()
        left, bottom = max(0.0, x0 - b), max(0.0, y0 - b)
        clip.rect(left * K, bottom * K, (min(pw, x0 + w + b) - left) * K, (min(ph, y0 + h + b) - bottom) * K)
        c.clipPath(clip, stroke=0, fill=0)
        c.translate((x0 - b) * K, (y0 - b) * K)
        c.doForm(pdf.face_form(c, face, forms))
        c.restoreState()
        tw, th = sheet.trim or (w, h)  # a product a little off the face's size is cut at its own trim
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
    each with its own copy of the document, in contiguous chunks.
    """
    workers = workers or os.cpu_count() or 1
    if workers < 2 or len(shots) < POOL_FROM:
        return _render_chunk(str(pdf), shots)
    size = -(-len(shots) // (workers * 4))  # a few chunks per worker keeps both busy to the end
    chunks = [shots[i:i + size] for i in range(0, len(shots), size)]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        results = pool.map(_render_chunk, [str(pdf)] * len(chunks), chunks)
        return [image for chunk in results for image in chunk]


def _render_chunk(pdf: str, shots: list[Shot]) -> list[Image.Image | None]:
    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    doc = pdfium.PdfDocument(pdf)
    out = []
    try:
        for shot in shots:
            page = doc[shot.page]
            w, h = shot.px
            # Render to a bitmap of exactly w x h: page.render() sizes it with ceil(points x scale),
            # which a float's last bit can push one pixel over.
            bitmap = pdfium.PdfBitmap.new_native(w, h, raw.FPDFBitmap_BGR, rev_byteorder=True)
            bitmap.fill_rect((255, 255, 255, 255), 0, 0, w, h)
            raw.FPDF_RenderPageBitmap(bitmap, page, 0, 0, w, h, 0, raw.FPDF_ANNOT | raw.FPDF_REVERSE_BYTE_ORDER)
            image = bitmap.to_pil()
            page.close()
            if shot.path is None:
                out.append(image.copy())
            else:
                image.save(shot.path, dpi=(shot.dpi, shot.dpi), compress_level=PNG_COMPRESS)
                out.append(None)
    finally:
        doc.close()
    return out


def rasterise_faces(sheets: list[Sheet], shots: list[Shot], folder: Path,
                    raster: RasterCache | None) -> list[Image.Image | None]:
    """Draw the sheets one face per page and rasterise the shots, serving from `raster` what it
    holds; returns a PIL image for each shot without a path."""
    return render_cached(sheets, shots, folder / ".faces.pdf", "faces", raster or RasterCache(None), "",
                         write_faces_pdf, rasterise)
