"""Every text a face draws, measured where it lands, whether text_box() wrote it or a raw <text>.

A compiled face (svgdraw.Drawing) is replayed without a canvas: the transforms
are followed, so a 3-unit font under scale(0.7) is reported at the size it
prints. Each text is checked against the pack's minimum size, the safe zone and
the cut line, and its colour against the colour drawn under it (WCAG 2 contrast:
4.5:1, 3:1 for large text). Problems are warnings: the face still prints.
"""

from __future__ import annotations

from dataclasses import dataclass

from pnpkit import fonts
from pnpkit.model import Face
from pnpkit.svgdraw import (Fill, Matrix, PathOp, Restore, Save, TextOp, Transform, apply,
                            compose)
from pnpkit.units import PT_PER_MM

ASCENT, DESCENT = 0.76, 0.24  # of the font size, DejaVu Sans' caps-and-accents height and descender
CONTRAST, CONTRAST_LARGE = 4.5, 3.0  # WCAG 1.4.3 (print-standards §7)
LARGE_PT, LARGE_BOLD_PT = 18.0, 14.0


@dataclass(frozen=True)
class Text:
    text: str
    size_pt: float
    box: tuple[float, float, float, float]  # left, top, right, bottom in the face's mm (bleed-box origin)
    bold: bool
    fill: tuple | None  # (r, g, b, alpha) 0..1
    under: tuple | None  # the opaque colour drawn beneath the text's centre, if any


def texts(drawing) -> list[Text]:
    """The texts of a compiled face, in drawing order."""
    minx, miny, vw, vh = drawing.viewbox
    sx, sy = drawing.width_mm / vw, drawing.height_mm / vh
    ctm, stack, out, fills = (sx, 0.0, 0.0, sy, -sx * minx, -sy * miny), [], [], []
    for op in drawing.ops:
        if isinstance(op, Save):
            stack.append(ctm)
        elif isinstance(op, Restore):
            ctm = stack.pop() if stack else ctm
        elif isinstance(op, Transform):
            ctm = compose(ctm, op.matrix)
        elif isinstance(op, PathOp) and op.fill is not None and op.fill.alpha >= 0.999:
            box = _bounds([apply(ctm, p) for p in _points(op.segs)])
            if box:
                fills.append((box, op.fill))
        elif isinstance(op, TextOp):
            out.append(_text(op, ctm, fills))
    return out


def _text(op: TextOp, ctm: Matrix, fills: list[tuple[tuple[float, ...], Fill]]) -> Text:
    x, y, font, size, text, fill = op.x, op.y, op.font, op.size, op.text, op.fill
    width = fonts.string_width(text, font, size)
    corners = [(x, y - ASCENT * size), (x + width, y - ASCENT * size), (x, y + DESCENT * size), (x + width, y + DESCENT * size)]
    box = _bounds([apply(ctm, p) for p in corners])
    scale = abs(ctm[0] * ctm[3] - ctm[1] * ctm[2]) ** 0.5
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    under = next((paint for (l, t, r, b), paint in reversed(fills) if l <= cx <= r and t <= cy <= b), None)
    return Text(text, size * scale * PT_PER_MM, box, "Bold" in font, fill, under)


def _points(segs):
    for _name, args in segs:
        yield from zip(args[0::2], args[1::2])


def _bounds(points):
    if not points:
        return None
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return min(xs), min(ys), max(xs), max(ys)


def luminance(rgb) -> float:
    """WCAG relative luminance of an sRGB colour (0..1 channels)."""
    def lin(c):
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (lin(c) for c in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def problems(face: Face, min_pt: float, safe: float | None = None, contrasts: bool = False) -> list[tuple[str, str]]:
    """What is wrong with the face's texts, as (text, message) (the caller locates them).

    Size and the cut line are always checked; the safe zone (`safe` mm) and contrast on request:
    the shipped kits still put text in the safe zone and on low-contrast grounds (see the README)."""
    if face.drawing is None:
        return []
    out = []
    fw, fh = face.full_size
    b = face.bleed
    for t in texts(face.drawing):
        if not t.text.strip() or t.fill is None:
            continue
        shown = _excerpt(t.text)
        if t.size_pt < min_pt - 0.05:
            out.append((t.text, f"text {shown} prints at {t.size_pt:.1f}pt, below the minimum {min_pt:g}pt"))
        left, top, right, bottom = t.box
        if left < b - 0.05 or top < b - 0.05 or right > fw - b + 0.05 or bottom > fh - b + 0.05:
            out.append((t.text, f"text {shown} crosses the cut line"))
        elif safe and (left < b + safe - 0.05 or top < b + safe - 0.05 or right > fw - b - safe + 0.05 or bottom > fh - b - safe + 0.05):
            out.append((t.text, f"text {shown} reaches into the {safe:g}mm safe zone inside the cut"))
        if contrasts and t.under is not None:
            need = CONTRAST_LARGE if t.size_pt >= (LARGE_BOLD_PT if t.bold else LARGE_PT) else CONTRAST
            ratio = contrast(t.fill, t.under)
            if ratio < need - 1e-6:
                out.append((t.text, f"text {shown} has a contrast of {ratio:.1f}:1 with the colour under it, below {need:g}:1 (WCAG)"))
    return list(dict.fromkeys(out))


def _excerpt(text: str, n: int = 30) -> str:
    flat = " ".join(text.split())
    return f"'{flat[:n]}…'" if len(flat) > n else f"'{flat}'"
