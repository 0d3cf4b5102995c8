"""Draw an art file through pnpkit (compile + draw into a one-page PDF, rasterised by
pypdfium2) and through resvg (the reference renderer), and count the pixels that differ.

A pixel differs when any of its channels (RGB, both composited on white) differs by more than
TOLERANCE out of 255 from the reference pixel at its place and from each of that pixel's 8
neighbours (share_differing): two renderers anti-alias an edge differently, by up to a pixel.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pypdfium2
import resvg_py
from PIL import Image, ImageChops
from reportlab.pdfgen.canvas import Canvas

from pnpkit.svg import compiler as svgdraw
from pnpkit.typeset import fonts
from pnpkit.units import PT_PER_MM

DPI = 150
TOLERANCE = 40  # of 255 per channel
SIDE_MM = 60.0  # the art's larger side as drawn


def art_box(path: Path) -> tuple[float, float]:
    """(width, height) of the art's viewBox."""
    head = path.read_text(encoding="utf-8")
    box = re.search(r'viewBox="([^"]+)"', head)
    assert box, path
    _, _, w, h = (float(n) for n in box.group(1).replace(",", " ").split())
    return w, h


def face_size(path: Path) -> tuple[float, float]:
    w, h = art_box(path)
    scale = SIDE_MM / max(w, h)
    return w * scale, h * scale


def pnpkit_pixels(path: Path) -> Image.Image:
    w, h = face_size(path)
    face = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}mm" height="{h}mm" '
        f'viewBox="0 0 {w} {h}"><image href="{path.name}" x="0" y="0" width="{w}" '
        f'height="{h}" preserveAspectRatio="none"/></svg>'
    )
    drawing = svgdraw.compile_svg(face, lambda href: str(path.parent / href))
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=(w * PT_PER_MM, h * PT_PER_MM))
    drawing.draw(canvas)
    canvas.showPage()
    canvas.save()
    pdf = pypdfium2.PdfDocument(out.getvalue())
    try:
        page = pdf[0]
        image = page.render(scale=DPI / 72).to_pil().convert("RGB")
    finally:
        pdf.close()
    return image


def reference_pixels(path: Path, size: tuple[int, int]) -> Image.Image:
    faces = [str(fonts.FONT_DIR / f) for f in fonts.FAMILIES[fonts.DEFAULT_FAMILY].values()]
    png = resvg_py.svg_to_bytes(
        svg_string=path.read_text(encoding="utf-8"),
        width=size[0],
        height=size[1],
        dpi=96,  # resvg-py's default 0 makes a width in mm zero
        skip_system_fonts=True,
        font_files=faces,
        font_family=fonts.DEFAULT_FAMILY,
    )
    rgba = Image.open(io.BytesIO(png)).convert("RGBA")
    if rgba.size != size:
        rgba = rgba.resize(size)
    white = Image.new("RGBA", size, (255, 255, 255, 255))
    return Image.alpha_composite(white, rgba).convert("RGB")


def differing(path: Path) -> tuple[float, Image.Image, Image.Image]:
    """(share of pixels that differ, pnpkit's pixels, the reference's)."""
    ours = pnpkit_pixels(path)
    ref = reference_pixels(path, ours.size)
    return share_differing(ours, ref), ours, ref


def share_differing(ours: Image.Image, ref: Image.Image) -> float:
    """The share of our pixels that differ (see the module docstring) from the reference pixel
    at their place and from each of its 8 neighbours: an anti-aliased edge falls on one pixel
    or the next depending on the renderer, and one pixel is 0.17 mm at 150 dpi."""
    differs: Image.Image | None = None
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            moved = ImageChops.offset(ref, dx, dy)
            bands = ImageChops.difference(ours, moved).split()
            over = [band.point(lambda v: 255 if v > TOLERANCE else 0) for band in bands]
            here = ImageChops.lighter(ImageChops.lighter(over[0], over[1]), over[2])
            differs = here if differs is None else ImageChops.darker(differs, here)
    assert differs is not None
    histogram = differs.histogram()
    return histogram[255] / (ours.size[0] * ours.size[1])
