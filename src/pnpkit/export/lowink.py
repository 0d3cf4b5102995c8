"""The low-ink variant of the home sheets (`build --profile low-ink`).

A declared rule, applied to each compiled face (its drawing ops, so nothing in
the templates changes): every filled shape of at least `min_area` mm² (full
bleed backgrounds, panels, dark areas) keeps only `keep` of its ink, i.e. is
mixed toward white, and so is every image that large. Text, strokes and small
shapes (icons, pips, outlines) keep their colours, so the face still reads.

Text contrast is checked, not hoped for: for each run of text, the fill it
stands on (the last large fill under its start point) is compared before and
after. When the lightened background leaves less contrast than WCAG's 4.5:1
(or than the text had before, if that was less), the text turns black or
white, whichever stands out more, and `contrast_fixes` counts it.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

from PIL import Image

from pnpkit.svg.drawing import Drawing
from pnpkit.svg.ops import Fill, ImageOp, Matrix, Op, PathOp, Restore, Save, TextOp, Transform
from pnpkit.svg.values import apply, compose

if TYPE_CHECKING:
    from pnpkit.pack.model import Face, Pack

RGB = tuple[float, ...]  # red, green, blue 0..1 (an alpha may follow)
Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in mm on the face

MIN_CONTRAST = 4.5  # WCAG AA for normal text


@dataclass(frozen=True)
class Rule:
    keep: float = 0.35  # share of the ink a large fill keeps
    min_area: float = 100.0  # mm^2 on the face: smaller fills are details and keep their colour


@dataclass
class Lightened:
    drawing: Drawing
    contrast_fixes: int


def lighten(drawing: Drawing, rule: Rule) -> Lightened:
    """The drawing with large fills lightened and text kept readable on them."""
    sx = drawing.width_mm / drawing.viewbox[2]
    sy = drawing.height_mm / drawing.viewbox[3]
    ops: list[Op] = []
    stack: list[Matrix] = []
    matrix: Matrix = (1, 0, 0, 1, 0, 0)
    under: list[
        tuple[Box, RGB, RGB]
    ] = []  # (bbox on the face in mm, old rgb, new rgb) of large fills, in drawing order
    fixes = 0
    for op in drawing.ops:
        if isinstance(op, Save):
            stack.append(matrix)
        elif isinstance(op, Restore):
            matrix = stack.pop() if stack else matrix
        elif isinstance(op, Transform):
            matrix = compose(matrix, op.matrix)
        elif isinstance(op, PathOp) and op.fill:
            points = [pt for _, args in op.segs for pt in zip(args[0::2], args[1::2])]
            box = _bbox(points, matrix, sx, sy)
            if _area(box) >= rule.min_area:
                fill = Fill(*_mix(op.fill, rule.keep))
                under.append((box, op.fill.rgb, fill.rgb))
                op = op._replace(fill=fill)
        elif isinstance(op, ImageOp):
            box = _bbox([(op.x, op.y), (op.x + op.w, op.y + op.h)], matrix, sx, sy)
            if _area(box) >= rule.min_area:
                op = op._replace(source=_image_mixed(op.source, rule.keep))
        elif isinstance(op, TextOp) and op.fill:
            x, y = apply(matrix, (op.x, op.y))
            ink, fixed = _readable(op.fill, (x * sx, y * sy), under)
            fixes += fixed
            op = op._replace(fill=Fill(*ink))
        ops.append(op)
    return Lightened(
        Drawing(drawing.width_mm, drawing.height_mm, drawing.viewbox, tuple(ops)), fixes
    )  # a plain Drawing: never a cached form


def _readable(
    fill: tuple[float, ...], point: tuple[float, float], under: list[tuple[Box, RGB, RGB]]
) -> tuple[tuple[float, ...], int]:
    """The text colour, turned black or white when the lightened background took its contrast
    away."""
    for box, old, new in reversed(under):
        if box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]:
            before, after = contrast(fill[:3], old), contrast(fill[:3], new)
            if after >= min(before, MIN_CONTRAST):
                return fill, 0
            best = max(((0.0, 0.0, 0.0), (1.0, 1.0, 1.0)), key=lambda c: contrast(c, new))
            return best + tuple(fill[3:]), 1
    return fill, 0


def contrast(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """WCAG contrast ratio of two sRGB colours (0..1)."""
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def _luminance(rgb: tuple[float, ...]) -> float:
    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _mix(paint: tuple[float, ...], keep: float) -> tuple[float, ...]:
    return tuple(1 - (1 - c) * keep for c in paint[:3]) + tuple(paint[3:])


def _image_mixed(source: bytes | str | Path, keep: float) -> bytes:
    image = Image.open(io.BytesIO(source) if isinstance(source, bytes) else source).convert("RGBA")
    white = Image.new("RGBA", image.size, (255, 255, 255, 255))
    mixed = Image.blend(white, image, keep)
    mixed.putalpha(image.getchannel("A"))
    out = io.BytesIO()
    mixed.save(out, format="PNG")
    return out.getvalue()


def _bbox(points: list[tuple[float, float]], matrix: Matrix, sx: float, sy: float) -> Box:
    pts = [apply(matrix, p) for p in points]
    if not pts:
        return (0.0, 0.0, 0.0, 0.0)
    xs, ys = [p[0] * sx for p in pts], [p[1] * sy for p in pts]
    return (min(xs), min(ys), max(xs), max(ys))


def _area(box: Box) -> float:
    return (box[2] - box[0]) * (box[3] - box[1])


def write(pack: Pack, faces: list[Face], folder: Path, lang: str, rule: Rule) -> int:
    """The home sheets of one language with every face lightened; returns how many text runs
    were turned."""
    import dataclasses

    from pnpkit.build import pipeline as build
    from pnpkit.impose import layout
    from pnpkit.kinds.registry import default_registry
    from pnpkit.pdf import foldmarks
    from pnpkit.pdf import writer as pdf

    lightened, fixes, done = [], 0, {}
    for face in faces:
        if face.drawing is None:
            continue
        if face.svg not in done:
            done[face.svg] = lighten(
                cast(Drawing, face.drawing), rule
            )  # compiled, not yet flattened
            fixes += done[face.svg].contrast_fixes
        # a distinct svg key: the PDF's forms are keyed by it
        lightened.append(
            dataclasses.replace(
                face, drawing=done[face.svg].drawing, svg=face.svg + "<!-- low-ink -->"
            )
        )
    pages, _ = layout.impose(lightened, pack.print, default_registry().packers)
    build._label(pages, pack, lang)
    pdf.write_pdf(
        pages,
        folder / f"{pack.id}-{lang}-low-ink.pdf",
        f"{pack.name[lang]} (low ink)",
        pack.print.crop_marks,
        build._calibration(pack, lang),
        folds=foldmarks.Folds.of(pack, lang),
    )
    return fixes
